"""``companion history``: the plays, statistics and players; export (CSV, JSON, BG Stats) and import.

Every command takes ``--db PATH`` (default ``$COMPANION_DB`` or the user data directory), like
``companion session``.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from companion.dates import day_bounds, duration, human, iso
from companion.history import bgstats, exchange, query
from companion.history.record import UNKNOWN_WORDS, HistoryError
from companion.i18n import N_, both, cli_lang, ntr, pick, tr
from companion.players import LEVEL_WORDS


def _store(args: argparse.Namespace) -> Any:
    from companion.session.store import Store
    return Store(args.db)


def _filter(args: argparse.Namespace) -> query.Filter:
    try:
        since = day_bounds(args.date_from, end=False) if getattr(args, "date_from", None) else None
        until = day_bounds(args.date_to, end=True) if getattr(args, "date_to", None) else None
    except ValueError as err:
        raise HistoryError(*both("--from/--to: {err}", err=err)) from None
    return query.Filter(getattr(args, "game", None), getattr(args, "player", None), since, until,
                        getattr(args, "location", None))


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes (a CJK character takes two)."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def padded(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns."""
    used = columns(text)
    return text + " " * max(1, width - used) if used < width else text + " "


def right(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` terminal columns."""
    return " " * max(0, width - columns(text)) + text


def plays(count: int) -> str:
    """``1 play``, ``2 plays`` / ``2回``."""
    return ntr("{n} play", "{n} plays", count, n=count)


def _title(game: str) -> str:
    from companion.games import game_class
    cls = game_class(game)
    return pick(cls.title, cls.title_ja, cli_lang())


def _none_matched(args: argparse.Namespace, empty: str) -> str:
    """Why no play is listed: ``empty`` when none is kept at all; else none of the game asked for
    (naming the games that have plays) or none that the filters let through."""
    kept = query.plays(_store(args))
    if not kept:
        return tr(empty)
    counts: dict[str, int] = {}
    for p in kept:
        counts[p.game] = counts.get(p.game, 0) + 1
    if args.game and args.game not in counts:
        games = ", ".join(f"{_title(g)} ({plays(n)})" for g, n in sorted(counts.items(), key=lambda kv: -kv[1]))
        return tr("no plays of {game} yet; the games with plays: {games}", game=_title(args.game), games=games)
    return ntr("no plays match these filters ({n} play in all)", "no plays match these filters ({n} plays in all)",
               len(kept), n=len(kept))


def _list(args: argparse.Namespace) -> int:
    plays = query.plays(_store(args), _filter(args))
    if args.json:
        print(json.dumps([dict(exchange.play_json(p), started=iso(p.started)) for p in reversed(plays)],
                         ensure_ascii=False, indent=2))
        return 0
    if not plays:
        print(_none_matched(args, N_("no plays yet: a play is recorded when a game at a table ends (`companion serve`, or `companion session …`); the demo's games are not kept")))
    for p in reversed(plays):   # newest first, as on the History page
        early = tr(", ended early") if p.ended_early else ""
        imported = tr(", from {source}", source=p.source) if p.source else ""
        imported += f", @ {p.location}" if p.location else ""
        seats = ", ".join(f"{s.name} {s.score if p.knows('scores') else '–'}{' ★' if s.winner else ''}"
                          for s in p.seats)
        took = duration(p.duration, cli_lang()) if p.knows("duration") else "–"
        print(f"{human(p.started, cli_lang())}  {padded(_title(p.game), 21)}{took:>9}  {seats}  "
              f"[{p.kept_by}{early}{imported}]  {p.id}")
    return 0


def stats_json(r: query.PlayerStats) -> dict[str, Any]:
    """One player's figures at one game for ``--json`` (average and best are null without scores)."""
    return {"name": r.name, "game": r.game, "plays": r.plays, "wins": r.wins, "win_rate": round(r.win_rate, 4),
            "average": round(r.average, 2) if r.scored else None, "best": r.best if r.scored else None}


def _record_json(record: query.Record | None) -> dict[str, Any] | None:
    if record is None:
        return None
    return {"value": record.value, "who": record.who, "play": record.play.id, "game": record.play.game,
            "date": iso(record.play.started)}


def overview_json(o: query.Overview) -> dict[str, Any]:
    """The overview's figures as JSON (seconds, ISO 8601 dates)."""
    return {"plays": o.plays, "time_played_s": o.time_played, "timed_plays": o.timed,
            "most_played": o.most_played[0] if o.most_played else None,
            "per_game": dict(o.per_game), "per_month": dict(o.per_month), "h_index": o.h_index,
            "player_h_index": o.player_h_index,
            "first": iso(o.first.started) if o.first else None, "last": iso(o.last.started) if o.last else None,
            "records": {"highest_score": _record_json(o.highest), "biggest_margin": _record_json(o.margin),
                        "longest_s": _record_json(o.longest), "shortest_s": _record_json(o.shortest)}}


def _print_table(rows: list[query.PlayerStats]) -> None:
    game = None
    for r in rows:
        if r.game != game:
            game = r.game
            print(_title(game))
            print("    " + padded(tr("player"), 16) + " " + " ".join(
                right(w, n) for w, n in ((tr("plays"), 5), (tr("wins"), 5), (tr("win %"), 6), (tr("avg"), 6),
                                         (tr("best"), 5))))
        avg, best = (f"{r.average:.1f}", str(r.best)) if r.scored else ("–", "–")
        print(f"    {padded(r.name, 16)} {r.plays:>5} {r.wins:>5} {r.win_rate:>6.0%} {avg:>6} {best:>5}")


def _record_line(what: str, record: query.Record | None, value: str) -> None:
    if record is not None:
        who = f"{record.who}, " if record.who else ""
        when = human(record.play.started, cli_lang(), clock=False)
        print(f"  {padded(tr(what), 16)} {value:>9}  ({who}{_title(record.play.game)}, {when})")


def _stats(args: argparse.Namespace) -> int:
    plays = query.plays(_store(args), _filter(args))
    rows = query.player_stats(plays)
    o = query.overview(plays)
    if args.json:
        print(json.dumps({"overview": overview_json(o), "players": [stats_json(r) for r in rows]},
                         ensure_ascii=False, indent=2))
        return 0
    if not plays:
        print(_none_matched(args, N_("no plays yet")))
        return 0
    lang = cli_lang()
    print(tr("{n} plays, {time} played", n=o.plays, time=duration(o.time_played, lang))
          + (tr(" ({n} without a duration)", n=o.plays - o.timed) if o.timed < o.plays else "")
          + tr("; first {first}, last {last}", first=human(o.first.started, lang, clock=False),
               last=human(o.last.started, lang, clock=False)))
    if o.most_played and not args.game:
        print("  " + padded(tr("most played"), 17) + f"{_title(o.most_played[0])} ({o.most_played[1]})")
    print("  " + padded(tr("h-index"), 17) + tr("{h} (games)   player h-index {players}", h=o.h_index,
                                                 players=o.player_h_index))
    _record_line(N_("highest score"), o.highest, str(o.highest.value) if o.highest else "")
    _record_line(N_("biggest margin"), o.margin, str(o.margin.value) if o.margin else "")
    _record_line(N_("longest play"), o.longest, duration(o.longest.value, lang) if o.longest else "")
    _record_line(N_("shortest play"), o.shortest, duration(o.shortest.value, lang) if o.shortest else "")
    print("  " + padded(tr("plays per month"), 17) + "  ".join(f"{m} {n}" for m, n in o.per_month[-12:]))
    print()
    _print_table(rows)
    return 0


def _player(args: argparse.Namespace) -> int:
    summary = query.player_summary(query.plays(_store(args), _filter(args)), args.name)
    if summary is None:
        raise HistoryError(*both("no plays of {name!r} (see `companion history players`)", name=args.name))
    if args.json:
        print(json.dumps({"name": summary.name, "plays": summary.plays, "wins": summary.wins,
                          "win_rate": round(summary.win_rate, 4), "current_streak": summary.current_streak,
                          "longest_streak": summary.longest_streak, "h_index": summary.h_index,
                          "player_h_index": summary.player_h_index, "first": iso(summary.first.started),
                          "last": iso(summary.last.started), "time_played_s": summary.time_played,
                          "games": [stats_json(r) for r in summary.games],
                          "head_to_head": [{"other": h.other, "plays": h.plays, "wins": h.wins,
                                            "losses": h.losses, "draws": h.draws} for h in summary.head_to_head],
                          "against_companion": [{"level": h.other, "plays": h.plays, "wins": h.wins,
                                                 "losses": h.losses, "draws": h.draws}
                                                for h in summary.against_companion],
                          "scores": {g: [s for _, s in pts] for g, pts in summary.scores.items()}},
                         ensure_ascii=False, indent=2))
        return 0
    lang = cli_lang()
    print(tr("{name}: {plays} plays, {wins} wins ({rate:.0%}); win streak {now} now, longest {longest}",
             name=summary.name, plays=summary.plays, wins=summary.wins, rate=summary.win_rate,
             now=summary.current_streak, longest=summary.longest_streak))
    print(tr("  first {first}, last played {last}, {time} played", first=human(summary.first.started, lang, clock=False),
             last=human(summary.last.started, lang), time=duration(summary.time_played, lang)))
    print(tr("  h-index {h} (games played at least that often), player h-index {players} (people played with at "
             "least that often)", h=summary.h_index, players=summary.player_h_index))
    print()
    _print_table(list(summary.games))
    if summary.head_to_head:
        print()
        print("    " + padded(tr("against"), 16) + " " + " ".join(
            right(w, 5) for w in (tr("plays"), tr("won"), tr("lost"), tr("drawn"))))
        for h in summary.head_to_head:
            print(f"    {padded(h.other, 16)} {h.plays:>5} {h.wins:>5} {h.losses:>5} {h.draws:>5}")
    for h in summary.against_companion:   # one line per level the companion played against them
        words = LEVEL_WORDS.get(h.other)
        level = h.other if words is None else pick(str(words), words.ja, lang)
        print(tr("    against the companion ({level}): {plays} plays, {wins} won, {losses} lost, {draws} drawn",
                 level=level, plays=h.plays, wins=h.wins, losses=h.losses, draws=h.draws))
    return 0


def _players(args: argparse.Namespace) -> int:
    names = query.known_players(_store(args))
    if args.json:
        print(json.dumps(names, ensure_ascii=False))
    else:
        print("\n".join(names) if names else tr("no players yet: name them when you create a table"))
    return 0


def _export(args: argparse.Namespace) -> int:
    store = _store(args)
    which = _filter(args)
    text = exchange.export(store, query.plays(store, which), args.format,
                           everything=not (which.since or which.until))
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(tr("wrote {output}", output=args.output), file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _merges(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, known = pair.partition("=")
        if not sep or not name.strip() or not known.strip():
            raise HistoryError(*both("--merge {pair!r}: write it as 'NAME IN THE FILE=KNOWN PLAYER'", pair=pair))
        out[name.strip()] = known.strip()
    return out


def describe_reading(reading: Any) -> list[str]:
    """What a BG Stats file holds for us, in lines: games matched and how, players, what was left out."""
    how = {"source": N_("our own export's game id"), "bgg": N_("BGG id"), "title": N_("English title"),
           "title_ja": N_("Japanese title")}
    lines = [tr("game: {name!r} is {title} (matched by {how})", name=m.name, title=_title(m.game), how=tr(how[m.how]))
             for m in reading.games]
    if not reading.games:
        lines.append(tr("none of the file's games is one of ours (matched by English or Japanese title)"))
    for p in reading.people:
        if p.anonymous:
            lines.append(tr("player: {name} ({plays}) is anonymous: a seat, not a person",
                            name=p.name or tr("(anonymous)"), plays=plays(p.plays)))
        elif p.known:
            lines.append(tr("player: {name} ({plays}) is the known player {known}", name=p.name,
                            plays=plays(p.plays), known=p.known))
        elif p.looks_like:
            lines.append(tr("player: {name} ({plays}) is new; it looks like the known player {known}: add --merge "
                            "'{name}={known}' to count them as one", name=p.name, plays=plays(p.plays),
                            known=p.looks_like))
        else:
            lines.append(tr("player: {name} ({plays}) is new", name=p.name, plays=plays(p.plays)))
    if reading.other_plays:
        names = ", ".join(f"{n} {c}" for n, c in reading.other_games[:5])
        more = ", …" if len(reading.other_games) > 5 else ""
        lines.append(tr("{plays} of other games left out ({names})", plays=plays(reading.other_plays),
                        names=names + more))
    for why, count in reading.left_out:
        lines.append(tr("{plays} left out: {why}", plays=plays(count), why=tr(bgstats.LEFT_OUT[why])))
    for what, count in reading.unknown:
        lines.append(f"{plays(count)}: {tr(UNKNOWN_WORDS[what])}")
    return lines


def _import(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise HistoryError(*both("cannot read {file}: {err}", file=args.file, err=err)) from None
    done = exchange.import_text(_store(args), text, merge=_merges(args.merge), dry_run=args.dry_run)
    if done.reading is not None:
        print("\n".join(describe_reading(done.reading)))
    said = N_("would import {plays} ({players})") if args.dry_run else N_("imported {plays} ({players})")
    print(tr(said, plays=plays(done.plays),
             players=ntr("{n} new player", "{n} new players", done.players_added, n=done.players_added)))
    return 0


def _pairs(option: str, pairs: list[str], what: str) -> dict[str, str]:
    """``NAME=VALUE`` arguments of ``option`` as a dict; a HistoryError saying how to write one."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise HistoryError(*both("{option} {pair!r}: write it as NAME={what}", option=option, pair=pair,
                                     what=what))
        out[name.strip()] = value.strip()
    return out


def _changed(args: argparse.Namespace, play: Any, done: str) -> int:
    """Say what became of a play: a line for people, the play for ``--json``."""
    if args.json:
        print(json.dumps(dict(exchange.play_json(play), started=iso(play.started), done=done),
                         ensure_ascii=False, indent=2))
        return 0
    seats = ", ".join(f"{s.name} {s.score}{' ★' if s.winner else ''}" for s in play.seats)
    lang = cli_lang()
    print(f"{tr(done)} {play.id}: {_title(play.game)}, {human(play.started, lang)}, {duration(play.duration, lang)}"
          f"  {seats}")
    return 0


def refusals_as_json(command: Any) -> Any:
    """With ``--json``, a refusal is JSON too: ``{"error": English, "ja": Japanese}`` on standard
    output, exit status 2 (without, ``companion`` prints the English words on standard error)."""
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except HistoryError as err:
            if not args.json:
                raise
            print(json.dumps({"error": str(err), "ja": err.ja}, ensure_ascii=False))
            return 2
    run.__doc__ = command.__doc__
    return run


@refusals_as_json
def _edit(args: argparse.Namespace) -> int:
    from companion.history import edit
    scores = {}
    for name, text in _pairs("--score", args.score, "N").items():
        if not re.fullmatch(r"-?[0-9]{1,9}", text):
            raise HistoryError(*both("--score {name}={text}: a score is a whole number", name=name, text=text))
        scores[name] = int(text)
    names = _pairs("--names", args.names, "NEW")
    if not (scores or args.winner or names or args.duration is not None):
        raise HistoryError(*both("say what to correct: --score NAME=N, --winner NAME, --duration MIN or --names "
                                 "OLD=NEW"))
    store = _store(args)
    play = edit.stored(store, args.play)
    seats = edit.fixes(play, scores=scores, winners=args.winner or None, names=names)
    return _changed(args, edit.correct(store, args.play, seats, args.duration), N_("corrected"))


@refusals_as_json
def _delete(args: argparse.Namespace) -> int:
    from companion.history import edit
    return _changed(args, edit.delete(_store(args), args.play), N_("deleted"))


@refusals_as_json
def _restore(args: argparse.Namespace) -> int:
    from companion.history import edit
    return _changed(args, edit.undo(_store(args), args.play), N_("restored"))


def _rebuild(args: argparse.Namespace) -> int:
    from companion.history.record import backfill
    print(tr("{n} plays derived from the sessions' logs", n=backfill(_store(args))))
    return 0


def register(subparsers: Any) -> None:
    """Add ``companion history …`` to the command line."""
    p = subparsers.add_parser("history", help=tr("the play log: list, stats, player, players, export, "
                                                 "import, edit, delete, restore, rebuild"))
    sub = p.add_subparsers(dest="history_command", required=True, metavar="SUBCOMMAND")

    def add(name: str, func: Any, help_text: str, *, filters: bool = True) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=help_text)
        q.add_argument("--db", help=tr("SQLite file (default: $COMPANION_DB or the user data directory)"))
        if filters:
            q.add_argument("--from", dest="date_from", metavar="DATE", help=tr("first day, YYYY-MM-DD (local)"))
            q.add_argument("--to", dest="date_to", metavar="DATE", help=tr("last day, YYYY-MM-DD (local)"))
        q.set_defaults(func=func)   # HistoryError is a GameError: `companion` prints it, exit 2
        return q

    from companion.games import GAME_IDS
    for name, func, text in (("list", _list, N_("the plays, newest first")),
                             ("stats", _stats, N_("per player and game: plays, wins, win rate, average, best"))):
        q = add(name, func, tr(text))
        q.add_argument("--game", choices=GAME_IDS)
        q.add_argument("--player", help=tr("only plays with this player (any case)"))
        q.add_argument("--location", help=tr("only plays at this location (any case)"))
        q.add_argument("--json", action="store_true", help=tr("machine-readable, ISO 8601 dates"))

    q = add("player", _player, tr("one player: plays, wins and win %% per game, average, best, streaks, "
                                  "head-to-head"))
    q.add_argument("name", metavar="NAME")
    q.add_argument("--game", choices=GAME_IDS)
    q.add_argument("--json", action="store_true", help=tr("machine-readable, ISO 8601 dates"))

    q = add("players", _players, tr("the known players (most played first)"), filters=False)
    q.add_argument("--json", action="store_true")

    q = add("export", _export, tr("every play (or a date range) as CSV, JSON (a backup) or a BG Stats file"))
    q.add_argument("--format", choices=exchange.FORMATS, default="json")
    q.add_argument("--game", choices=GAME_IDS, help=argparse.SUPPRESS)
    q.add_argument("-o", "--output", metavar="FILE", help=tr("write here instead of standard output"))

    q = add("import", _import, tr("restore a JSON backup made by `history export`, or bring in the plays of "
                                  "our games from a BG Stats export"), filters=False)
    q.add_argument("file", metavar="FILE")
    q.add_argument("--merge", action="append", default=[], metavar="NAME=KNOWN",
                   help=tr("a BG Stats player is this known player (repeat for more)"))
    q.add_argument("--dry-run", action="store_true", help=tr("say what the import would do; write nothing"))

    q = add("edit", _edit, tr("correct a play as the History page does: scores, winners, duration, names "
                              "(kept apart from the log: `rebuild` keeps it, `restore` takes it back)"), filters=False)
    q.add_argument("play", metavar="PLAY", help=tr("the play's id (`history list` shows it)"))
    q.add_argument("--score", action="append", default=[], metavar="NAME=N", help=tr("this seat's score (repeat)"))
    q.add_argument("--winner", action="append", default=[], metavar="NAME",
                   help=tr("this seat won (repeat for a shared win; the others did not)"))
    q.add_argument("--duration", type=int, metavar="MIN", help=tr("how long the play took, in minutes"))
    q.add_argument("--names", action="append", default=[], metavar="OLD=NEW", help=tr("rename a seat (repeat)"))
    q.add_argument("--json", action="store_true", help=tr("the play as it now stands, ISO 8601 dates"))
    for name, func, text in (("delete", _delete, N_("leave a play out of the history (a test game); "
                                                    "`restore` brings it back")),
                             ("restore", _restore, N_("take back a play's correction or deletion: "
                                                      "the play is as recorded again"))):
        q = add(name, func, tr(text), filters=False)
        q.add_argument("play", metavar="PLAY", help=tr("the play's id (`history list` shows it)"))
        q.add_argument("--json", action="store_true", help=tr("the play, ISO 8601 dates"))

    add("rebuild", _rebuild, tr("derive every session's plays from its log again (plays of imported or "
                                "deleted sessions stay)"), filters=False)
