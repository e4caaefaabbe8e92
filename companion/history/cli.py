"""``companion history``: the plays, statistics and players; export (CSV, JSON, BG Stats) and import.

Every command takes ``--db PATH`` (default ``$COMPANION_DB`` or the user data directory), like
``companion session``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.history import exchange, query
from companion.history.dates import day_bounds, duration, human, iso
from companion.history.exchange import HistoryError


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
        seats = ", ".join(f"{s.name} {s.score}{' ★' if s.winner else ''}" for s in p.seats)
        print(f"{human(p.started)}  {_title(p.game):<20} {duration(p.duration):>9}  {seats}  "
              f"[{p.kept_by}{early}]")
    return 0


def _stats(args: argparse.Namespace) -> int:
    plays = query.plays(_store(args), _filter(args))
    rows = query.player_stats(plays)
    if args.json:
        print(json.dumps([{"name": r.name, "game": r.game, "plays": r.plays, "wins": r.wins,
                           "win_rate": round(r.win_rate, 4), "average": round(r.average, 2), "best": r.best}
                          for r in rows], ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("no plays with named players yet")
    game = None
    for r in rows:
        if r.game != game:
            game = r.game
            print(f"{_title(game)}")
            print(f"    {'player':<16} {'plays':>5} {'wins':>5} {'win %':>6} {'avg':>6} {'best':>5}")
        print(f"    {r.name:<16} {r.plays:>5} {r.wins:>5} {r.win_rate:>6.0%} {r.average:>6.1f} {r.best:>5}")
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


def _import(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise HistoryError(f"cannot read {args.file}: {err}") from None
    added, plays = exchange.import_text(_store(args), text)
    print(f"imported {plays} plays ({added} new players)")
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    from companion.history.record import backfill
    print(f"{backfill(_store(args))} plays derived from the sessions' logs")
    return 0


def register(subparsers: Any) -> None:
    """Add ``companion history …`` to the command line."""
    p = subparsers.add_parser("history", help="the play log: list, stats, players, export, import, rebuild")
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

    q = add("players", _players, "the known players (most played first)", filters=False)
    q.add_argument("--json", action="store_true")

    q = add("export", _export, "every play (or a date range) as CSV, JSON (a backup) or a BG Stats file")
    q.add_argument("--format", choices=exchange.FORMATS, default="json")
    q.add_argument("--game", choices=GAME_IDS, help=argparse.SUPPRESS)
    q.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")

    q = add("import", _import, "restore a JSON backup made by `history export`", filters=False)
    q.add_argument("file", metavar="FILE")

    add("rebuild", _rebuild, "derive every session's plays from its log again (plays of imported or "
        "deleted sessions stay)", filters=False)
