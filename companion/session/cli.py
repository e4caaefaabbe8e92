"""``companion session``: create, list, show and export table sessions; play, observe, undo and end
for scripts.

Every command takes ``--db PATH`` (default ``$COMPANION_DB`` or the user data directory).
"""
from __future__ import annotations

import argparse
import json
from typing import Any, Callable

from companion.dates import human, iso
from companion.engine import Move
from companion.games import GAME_IDS, game_class
from companion.i18n import both, cli_lang, pick, tr
from companion.session import SessionError, TableSession
from companion.session.autoplay import name_in
from companion.session.store import Store, clean_text
from companion.session.table import verdict

LINKS: dict[str, Callable[[TableSession, int | None], str]] = {}
"""What ``export --bgstats`` prints, by flag name: ``companion.history`` adds ``bgstats`` (the BG
Stats mapping is the play history's; the session does not import it)."""


def _store(args: argparse.Namespace) -> Store:
    return Store(args.db)


def _json_arg(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise SessionError(*both("{what} must be JSON ({msg} at character {pos}); quote it for the shell, "
                                 "e.g. '{{\"player\": 0, \"kind\": \"pass\"}}'", what=what, msg=err.msg,
                                 pos=err.pos)) from None


def _print(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _said(session: TableSession, after: int) -> list[dict[str, Any]]:
    """The events logged after version ``after`` as the pages say them: seats by the table's names
    (``text`` English, ``ja`` Japanese) and ``said`` in the reader's language."""
    lang = cli_lang()
    return [dict(e, said=pick(e["text"], e.get("ja", ""), lang)) for e in session.history() if e["version"] > after]


def _new(args: argparse.Namespace) -> int:
    cls = game_class(args.game)
    options = cls.parse_options(args.option or [])
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    players = args.players if args.players is not None else (len(names) if names else cls.min_players)
    session = TableSession.create(_store(args), args.game, players, options, names=names,
                                  rounds=args.rounds, target=args.target)
    if args.json:
        _print({"id": session.id, "code": session.code})
    else:
        title = pick(session.game.title, session.game.title_ja, cli_lang())
        print(tr("session {id} (join code {code}): {title}, {players} players: {names}", id=session.id,
                 code=session.code, title=title, players=players, names=", ".join(session.names_in(cli_lang()))))
    return 0


def _list(args: argparse.Namespace) -> int:
    rows = _store(args).sessions()
    if args.json:
        _print([dict(r, created=iso(r["created"])) for r in rows])   # ISO 8601, local offset
        return 0
    if not rows:
        print(tr("no sessions yet: `companion session new GAME --players N`"))
    for r in rows:
        status = tr("finished") if r["finished"] else tr("in play")
        # as the host's list of tables says them: an app-given companion name in the reader's language;
        # older rows may hold ESC or BEL
        names = ", ".join(clean_text(name_in(n, cli_lang())) for n in r["names"])
        print(f"{r['id']}  {human(r['created'], cli_lang())}  {r['game']:<10} {names:<30} v{r['version']:<5} {status}")
    return 0


def _show(args: argparse.Namespace) -> int:
    session = TableSession.open(_store(args), args.id)
    state = session.state()
    if args.json:
        _print(state)
        return 0
    lang = cli_lang()
    names = [clean_text(n) for n in session.names_in(lang)]   # a terminal must not get ESC or BEL raw
    print(tr("{title} — session {id} (code {code}), version {version}", title=pick(state["title"], state["title_ja"], lang),
             id=session.id, code=session.code, version=state["version"]))
    print(tr("created: {when}", when=human(session.created, lang)))
    print(tr("players: {names}", names=", ".join(names)))
    print(tr("what happened, from the start:"))
    history = session.history()
    for e in history:
        print(f"  v{e['version']}: {clean_text(pick(e['text'], e.get('ja', ''), lang), 500)}")
    if not history:
        print(tr("  (nothing yet)"))
    for p in state["prompts"]:
        print(tr("PROMPT {id} ({kind}): {text}", id=p["id"], kind=p["kind"],
                 text=clean_text(pick(p["text"], p.get("ja", ""), lang), 500)))
        for c in p["choices"]:
            print(f"    {c['id']}: {clean_text(pick(c['label'], c.get('ja', ''), lang), 500)}")
    print(tr("scores: ") + ", ".join(f"{n} {s}" for n, s in zip(names, state["scores"])))
    series = state["series"]
    if len(series["games"]) > 1 or series["rounds"] or series["target"]:
        print(tr("series totals: ") + ", ".join(f"{n} {t}" for n, t in zip(names, series["totals"])))
    turn = state["current_player"]
    if state["is_over"]:
        how = tr("ended early by the host") if state["ended_by_host"] else tr("played to the end")
        print(tr("game over ({how}): {verdict}", how=how, verdict=verdict(names, state["winners"])[lang == "ja"]))
    else:
        print(tr("to move: {who}", who=tr("the table (a card to turn over)") if turn < 0 else names[turn]))
    return 0


def _export(args: argparse.Namespace) -> int:
    session = TableSession.open(_store(args), args.id)
    if args.bgstats:
        if "bgstats" not in LINKS:
            raise SessionError(*both("the BG Stats link needs the play history (companion.history), which "
                                     "is not loaded"))
        print(LINKS["bgstats"](session, args.game_number))
    else:
        _print(session.export())
    return 0


def _play(args: argparse.Namespace) -> int:
    session = TableSession.open(_store(args), args.id)
    move = Move.from_json(_json_arg(args.move, "MOVE_JSON"))
    version = session.version if args.expected_version is None else args.expected_version
    before = session.version
    session.play(move, by=args.by, expected_version=version)
    _print({"version": session.version, "events": _said(session, before)})
    return 0


def _observe(args: argparse.Namespace) -> int:
    session = TableSession.open(_store(args), args.id)
    layout = _json_arg(args.layout, "LAYOUT_JSON")
    before = session.version
    outcome = session.observe(layout, source=args.source).to_json()
    _print(dict(outcome, events=_said(session, before) if outcome["events"] else []))
    return 0


def _answer(args: argparse.Namespace) -> int:
    session = TableSession.open(_store(args), args.id)
    before = session.version
    session.answer(args.prompt, args.choice, by=args.by, expected_version=session.version)
    _print({"version": session.version, "events": _said(session, before)})
    return 0


def _undo(args: argparse.Namespace) -> int:
    session = TableSession.open(_store(args), args.id)
    move = session.undo(by="host", expected_version=session.version)
    _print({"version": session.version, "undone": move.to_json() if move else "end_game"})
    return 0


def _end(args: argparse.Namespace) -> int:
    session = TableSession.open(_store(args), args.id)
    version = session.version if args.expected_version is None else args.expected_version
    before = session.version
    session.end_game(by="host", expected_version=version)
    _print({"version": session.version, "events": _said(session, before)})
    return 0


def register(subparsers: Any) -> None:
    """Add ``companion session …`` to the command line."""
    p = subparsers.add_parser("session", help=tr("table sessions: new, list, show, export, play, observe, "
                                                 "undo, end"))
    sub = p.add_subparsers(dest="session_command", required=True, metavar="SUBCOMMAND")

    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=help_text)
        q.add_argument("--db", help=tr("SQLite file (default: $COMPANION_DB or the user data directory)"))
        q.set_defaults(func=func)   # SessionError is a GameError: `companion` prints it, exit 2
        return q

    q = add("new", _new, tr("start a session for a game"))
    q.add_argument("game", choices=GAME_IDS)
    q.add_argument("--players", type=int, help=tr("number of players (default: number of names, else the "
                                                  "minimum)"))
    q.add_argument("--names", help=tr("player names, comma-separated, in seat order"))
    q.add_argument("--option", action="append", metavar="NAME=VALUE", help=tr("a game option (repeatable)"))
    q.add_argument("--rounds", type=int, help=tr("a series of this many games"))
    q.add_argument("--target", type=int, help=tr("a series until someone reaches this total"))
    q.add_argument("--json", action="store_true", help=tr("print the id and join code as JSON"))

    q = add("list", _list, tr("list the sessions"))
    q.add_argument("--json", action="store_true")

    q = add("show", _show, tr("show a session's state"))
    q.add_argument("id")
    q.add_argument("--json", action="store_true", help=tr("the full state as the web page gets it"))

    q = add("export", _export, tr("export a session's games as JSON, or a BG Stats link"))
    q.add_argument("id")
    q.add_argument("--bgstats", action="store_true", help=tr("print the link that records the play in BG Stats instead"))
    q.add_argument("--game-number", type=int, help=tr("which game of a series (default: the last finished)"))

    q = add("play", _play, tr("enter a move (JSON, e.g. '{\"player\": 0, \"kind\": \"take\", \"card\": "
                              "\"W-R5\"}')"))
    q.add_argument("id")
    q.add_argument("move", metavar="MOVE_JSON")
    q.add_argument("--by", default="manual", help=tr("who entered it (kept in the log)"))
    q.add_argument("--expected-version", type=int, help=tr("refuse if the session has moved past this version"))

    q = add("observe", _observe, tr("reconcile an observation of the table (a layout as JSON)"))
    q.add_argument("id")
    q.add_argument("layout", metavar="LAYOUT_JSON")
    q.add_argument("--source", default="camera")

    q = add("answer", _answer, tr("answer an open prompt"))
    q.add_argument("id")
    q.add_argument("prompt")
    q.add_argument("choice")
    q.add_argument("--by", default="host")

    q = add("undo", _undo, tr("take back the last move, or the host's end of the game (host)"))
    q.add_argument("id")

    q = add("end", _end, tr("end the current game early, scores as they stand (host; undo takes it back)"))
    q.add_argument("id")
    q.add_argument("--expected-version", type=int, help=tr("refuse if the session has moved past this version"))

