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


def _store(args: argparse.Namespace) -> Any:
    from companion.session.store import Store
    return Store(args.db)


def _filter(args: argparse.Namespace) -> query.Filter:
    try:
        since = day_bounds(args.date_from, end=False) if getattr(args, "date_from", None) else None
        until = day_bounds(args.date_to, end=True) if getattr(args, "date_to", None) else None
    except ValueError as err:
        raise HistoryError(f"--from/--to: {err}") from None
    return query.Filter(getattr(args, "game", None), getattr(args, "player", None), since, until)


def padded(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns (a CJK character takes two)."""
    import unicodedata
    used = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(1, width - used) if used < width else text + " "


def plural(count: int, word: str) -> str:
    """``1 play``, ``2 plays``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _title(game: str) -> str:
    from companion.games import game_class
    return game_class(game).title


def _list(args: argparse.Namespace) -> int:
    plays = query.plays(_store(args), _filter(args))
    if args.json:
        print(json.dumps([dict(exchange.play_json(p), started=iso(p.started)) for p in reversed(plays)],
                         ensure_ascii=False, indent=2))
        return 0
    if not plays:
        print("no plays yet: a play is recorded when a game ends (`companion session …` or the web page)")
    for p in reversed(plays):   # newest first, as on the History page
        early = ", ended early" if p.ended_early else ""
        imported = f", from {p.source}" if p.source else ""
        seats = ", ".join(f"{s.name} {s.score if p.knows('scores') else '–'}{' ★' if s.winner else ''}"
                          for s in p.seats)
        took = duration(p.duration) if p.knows("duration") else "–"
        print(f"{human(p.started)}  {_title(p.game):<20} {took:>9}  {seats}  [{p.kept_by}{early}{imported}]  {p.id}")
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
            print(f"{_title(game)}")
            print(f"    {'player':<16} {'plays':>5} {'wins':>5} {'win %':>6} {'avg':>6} {'best':>5}")
        avg, best = (f"{r.average:.1f}", str(r.best)) if r.scored else ("–", "–")
        print(f"    {padded(r.name, 16)} {r.plays:>5} {r.wins:>5} {r.win_rate:>6.0%} {avg:>6} {best:>5}")


def _record_line(what: str, record: query.Record | None, value: str) -> None:
    if record is not None:
        who = f"{record.who}, " if record.who else ""
        print(f"  {what:<16} {value:>9}  ({who}{_title(record.play.game)}, {human(record.play.started, clock=False)})")


def _stats(args: argparse.Namespace) -> int:
    plays = query.plays(_store(args), _filter(args))
    rows = query.player_stats(plays)
    o = query.overview(plays)
    if args.json:
        print(json.dumps({"overview": overview_json(o), "players": [stats_json(r) for r in rows]},
                         ensure_ascii=False, indent=2))
        return 0
    if not plays:
        print("no plays yet")
        return 0
    print(f"{o.plays} plays, {duration(o.time_played)} played"
          + (f" ({o.plays - o.timed} without a duration)" if o.timed < o.plays else "")
          + f"; first {human(o.first.started, clock=False)}, last {human(o.last.started, clock=False)}")
    if o.most_played and not args.game:
        print(f"  most played      {_title(o.most_played[0])} ({o.most_played[1]})")
    print(f"  h-index          {o.h_index} (games)   player h-index {o.player_h_index}")
    _record_line("highest score", o.highest, str(o.highest.value) if o.highest else "")
    _record_line("biggest margin", o.margin, str(o.margin.value) if o.margin else "")
    _record_line("longest play", o.longest, duration(o.longest.value) if o.longest else "")
    _record_line("shortest play", o.shortest, duration(o.shortest.value) if o.shortest else "")
    print("  plays per month  " + "  ".join(f"{m} {n}" for m, n in o.per_month[-12:]))
    print()
    _print_table(rows)
    return 0


def _player(args: argparse.Namespace) -> int:
    summary = query.player_summary(query.plays(_store(args), _filter(args)), args.name)
    if summary is None:
        raise HistoryError(f"no plays of {args.name!r} (see `companion history players`)")
    if args.json:
        print(json.dumps({"name": summary.name, "plays": summary.plays, "wins": summary.wins,
                          "win_rate": round(summary.win_rate, 4), "current_streak": summary.current_streak,
                          "longest_streak": summary.longest_streak, "h_index": summary.h_index,
                          "player_h_index": summary.player_h_index, "first": iso(summary.first.started),
                          "last": iso(summary.last.started), "time_played_s": summary.time_played,
                          "games": [stats_json(r) for r in summary.games],
                          "head_to_head": [{"other": h.other, "plays": h.plays, "wins": h.wins,
                                            "losses": h.losses, "draws": h.draws} for h in summary.head_to_head],
                          "scores": {g: [s for _, s in pts] for g, pts in summary.scores.items()}},
                         ensure_ascii=False, indent=2))
        return 0
    print(f"{summary.name}: {summary.plays} plays, {summary.wins} wins ({summary.win_rate:.0%}); "
          f"win streak {summary.current_streak} now, longest {summary.longest_streak}")
    print(f"  first {human(summary.first.started, clock=False)}, last played {human(summary.last.started)}, "
          f"{duration(summary.time_played)} played")
    print(f"  h-index {summary.h_index} (games played at least that often), player h-index "
          f"{summary.player_h_index} (people played with at least that often)")
    print()
    _print_table(list(summary.games))
    if summary.head_to_head:
        print()
        print(f"    {'against':<16} {'plays':>5} {'won':>5} {'lost':>5} {'drawn':>5}")
        for h in summary.head_to_head:
            print(f"    {padded(h.other, 16)} {h.plays:>5} {h.wins:>5} {h.losses:>5} {h.draws:>5}")
    return 0


def _players(args: argparse.Namespace) -> int:
    names = query.known_players(_store(args))
    if args.json:
        print(json.dumps(names, ensure_ascii=False))
    else:
        print("\n".join(names) if names else "no players yet: name them when you create a table")
    return 0


def _export(args: argparse.Namespace) -> int:
    store = _store(args)
    which = _filter(args)
    text = exchange.export(store, query.plays(store, which), args.format,
                           everything=not (which.since or which.until))
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _merges(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, known = pair.partition("=")
        if not sep or not name.strip() or not known.strip():
            raise HistoryError(f"--merge {pair!r}: write it as 'NAME IN THE FILE=KNOWN PLAYER'")
        out[name.strip()] = known.strip()
    return out


def describe_reading(reading: Any) -> list[str]:
    """What a BG Stats file holds for us, in lines: games matched and how, players, what was left out."""
    how = {"source": "our own export's game id", "bgg": "BGG id", "title": "English title",
           "title_ja": "Japanese title"}
    lines = [f"game: {m.name!r} is {_title(m.game)} (matched by {how[m.how]})" for m in reading.games]
    if not reading.games:
        lines.append("none of the file's games is one of ours (matched by English or Japanese title)")
    for p in reading.people:
        if p.anonymous:
            lines.append(f"player: {p.name or '(anonymous)'} ({plural(p.plays, 'play')}) is anonymous: "
                         "a seat, not a person")
        elif p.known:
            lines.append(f"player: {p.name} ({plural(p.plays, 'play')}) is the known player {p.known}")
        elif p.looks_like:
            lines.append(f"player: {p.name} ({plural(p.plays, 'play')}) is new; it looks like the known player "
                         f"{p.looks_like}: add --merge '{p.name}={p.looks_like}' to count them as one")
        else:
            lines.append(f"player: {p.name} ({plural(p.plays, 'play')}) is new")
    if reading.other_plays:
        names = ", ".join(f"{n} {c}" for n, c in reading.other_games[:5])
        more = ", …" if len(reading.other_games) > 5 else ""
        lines.append(f"{plural(reading.other_plays, 'play')} of other games left out ({names}{more})")
    for why, count in reading.left_out:
        lines.append(f"{plural(count, 'play')} left out: {bgstats.LEFT_OUT[why][0]}")
    for what, count in reading.unknown:
        lines.append(f"{plural(count, 'play')}: {UNKNOWN_WORDS[what][0]}")
    return lines


def _import(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise HistoryError(f"cannot read {args.file}: {err}") from None
    done = exchange.import_text(_store(args), text, merge=_merges(args.merge), dry_run=args.dry_run)
    if done.reading is not None:
        print("\n".join(describe_reading(done.reading)))
    verb = "would import" if args.dry_run else "imported"
    print(f"{verb} {plural(done.plays, 'play')} ({plural(done.players_added, 'new player')})")
    return 0


def _pairs(option: str, pairs: list[str], what: str) -> dict[str, str]:
    """``NAME=VALUE`` arguments of ``option`` as a dict; a HistoryError saying how to write one."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise HistoryError(f"{option} {pair!r}: write it as NAME={what}",
                               f"{option} {pair!r}: NAME={what} の形で書いてください")
        out[name.strip()] = value.strip()
    return out


def _changed(args: argparse.Namespace, play: Any, done: str) -> int:
    """Say what became of a play: a line for people, the play for ``--json``."""
    if args.json:
        print(json.dumps(dict(exchange.play_json(play), started=iso(play.started), done=done),
                         ensure_ascii=False, indent=2))
        return 0
    seats = ", ".join(f"{s.name} {s.score}{' ★' if s.winner else ''}" for s in play.seats)
    print(f"{done} {play.id}: {_title(play.game)}, {human(play.started)}, {duration(play.duration)}  {seats}")
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
            raise HistoryError(f"--score {name}={text}: a score is a whole number",
                               f"--score {name}={text}: 得点は整数です")
        scores[name] = int(text)
    names = _pairs("--names", args.names, "NEW")
    if not (scores or args.winner or names or args.duration is not None):
        raise HistoryError("say what to correct: --score NAME=N, --winner NAME, --duration MIN or "
                           "--names OLD=NEW", "修正する内容を指定してください: --score、--winner、--duration、--names")
    store = _store(args)
    play = edit.stored(store, args.play)
    seats = edit.fixes(play, scores=scores, winners=args.winner or None, names=names)
    return _changed(args, edit.correct(store, args.play, seats, args.duration), "corrected")


@refusals_as_json
def _delete(args: argparse.Namespace) -> int:
    from companion.history import edit
    return _changed(args, edit.delete(_store(args), args.play), "deleted")


@refusals_as_json
def _restore(args: argparse.Namespace) -> int:
    from companion.history import edit
    return _changed(args, edit.undo(_store(args), args.play), "restored")


def _rebuild(args: argparse.Namespace) -> int:
    from companion.history.record import backfill
    print(f"{backfill(_store(args))} plays derived from the sessions' logs")
    return 0


def register(subparsers: Any) -> None:
    """Add ``companion history …`` to the command line."""
    p = subparsers.add_parser("history", help="the play log: list, stats, player, players, export, import, "
                               "edit, delete, restore, rebuild")
    sub = p.add_subparsers(dest="history_command", required=True, metavar="SUBCOMMAND")

    def add(name: str, func: Any, help_text: str, *, filters: bool = True) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=help_text)
        q.add_argument("--db", help="SQLite file (default: $COMPANION_DB or the user data directory)")
        if filters:
            q.add_argument("--from", dest="date_from", metavar="DATE", help="first day, YYYY-MM-DD (local)")
            q.add_argument("--to", dest="date_to", metavar="DATE", help="last day, YYYY-MM-DD (local)")
        q.set_defaults(func=func)   # HistoryError is a GameError: `companion` prints it, exit 2
        return q

    from companion.games import GAME_IDS
    for name, func, text in (("list", _list, "the plays, newest first"),
                             ("stats", _stats, "per player and game: plays, wins, win rate, average, best")):
        q = add(name, func, text)
        q.add_argument("--game", choices=GAME_IDS)
        q.add_argument("--player", help="only plays with this player (any case)")
        q.add_argument("--json", action="store_true", help="machine-readable, ISO 8601 dates")

    q = add("player", _player, "one player: plays, wins and win %% per game, average, best, streaks, head-to-head")
    q.add_argument("name", metavar="NAME")
    q.add_argument("--game", choices=GAME_IDS)
    q.add_argument("--json", action="store_true", help="machine-readable, ISO 8601 dates")

    q = add("players", _players, "the known players (most played first)", filters=False)
    q.add_argument("--json", action="store_true")

    q = add("export", _export, "every play (or a date range) as CSV, JSON (a backup) or a BG Stats file")
    q.add_argument("--format", choices=exchange.FORMATS, default="json")
    q.add_argument("--game", choices=GAME_IDS, help=argparse.SUPPRESS)
    q.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")

    q = add("import", _import, "restore a JSON backup made by `history export`, or bring in the plays of "
            "our games from a BG Stats export", filters=False)
    q.add_argument("file", metavar="FILE")
    q.add_argument("--merge", action="append", default=[], metavar="NAME=KNOWN",
                   help="a BG Stats player is this known player (repeat for more)")
    q.add_argument("--dry-run", action="store_true", help="say what the import would do; write nothing")

    q = add("edit", _edit, "correct a play as the History page does: scores, winners, duration, names "
            "(kept apart from the log: `rebuild` keeps it, `restore` takes it back)", filters=False)
    q.add_argument("play", metavar="PLAY", help="the play's id (`history list` shows it)")
    q.add_argument("--score", action="append", default=[], metavar="NAME=N", help="this seat's score (repeat)")
    q.add_argument("--winner", action="append", default=[], metavar="NAME",
                   help="this seat won (repeat for a shared win; the others did not)")
    q.add_argument("--duration", type=int, metavar="MIN", help="how long the play took, in minutes")
    q.add_argument("--names", action="append", default=[], metavar="OLD=NEW", help="rename a seat (repeat)")
    q.add_argument("--json", action="store_true", help="the play as it now stands, ISO 8601 dates")
    for name, func, text in (("delete", _delete, "leave a play out of the history (a test game); "
                              "`restore` brings it back"),
                             ("restore", _restore, "take back a play's correction or deletion: "
                              "the play is as recorded again")):
        q = add(name, func, text, filters=False)
        q.add_argument("play", metavar="PLAY", help="the play's id (`history list` shows it)")
        q.add_argument("--json", action="store_true", help="the play, ISO 8601 dates")

    add("rebuild", _rebuild, "derive every session's plays from its log again (plays of imported or "
        "deleted sessions stay)", filters=False)
