"""``companion advise``: odds of each result for each choice at a decision (solo 輪る七年戦争).

``companion advise prussia --state FILE [--samples N] [--seed S] [--nations FILE] [--json]`` reads a
game the product wrote (``companion session export ID``, ``companion session show ID --json``, or a
saved ``Game.to_json()``), and for the decision now (which slot for the drawn card; which
relation card to discard on a joker) estimates by Monte Carlo the probability of a defeat, draw,
victory and great victory after each choice, later decisions being played by a fixed policy
(``--policy greedy``, the default: the choice leaving the best strength margin; or ``random``).
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any

from companion.engine import GameError
from companion.games.prussia_core import POLICIES, RESULTS, label
from companion.i18n import N_, both, tr

DEFAULT_SAMPLES = 500


STATE_HELP = N_("the game to advise on: the output of `companion session export ID` or `companion session show "
                "ID --json` saved to a file (the table's current game), or a saved game (Game.to_json())")


def saved_game(data: Any, path: str) -> dict[str, Any]:
    """The one game in a file the product writes, in ``Game.to_json()``'s shape: a session export
    (its last game), a session state (``session show --json``) or a saved game as it is."""
    if not isinstance(data, dict):
        raise GameError(*both("{path} holds no saved game: expected a JSON object, {help}", path=path,
                              help=both(STATE_HELP)))
    if data.get("game") not in (None, "prussia"):
        raise GameError(*both("{path} is a saved {game!r} game, not 'prussia': `companion advise prussia` needs "
                              "a Prussia game", path=path, game=data.get("game")))
    if isinstance(data.get("games"), list):   # companion session export: the last game played
        if not data["games"]:
            raise GameError(*both("{path}: the exported session has no game yet", path=path))
        game = data["games"][-1]
        options, state = game.get("options", data.get("options")), game.get("state")
        moves = game.get("moves")
    else:   # a saved game, or companion session show --json (moves carry their log version)
        options, state, moves = data.get("options"), data.get("state"), data.get("moves")
        number = (data.get("series") or {}).get("game_number", 1) if isinstance(data.get("series"), dict) else 1
        if isinstance(options, dict) and isinstance(data.get("players"), int) and number > 1:
            # a series moves the first seat on by one each game (as the session does)
            first = (options.get("start_player", 0) + number - 1) % data["players"]
            options = dict(options, start_player=first)
    if not isinstance(moves, list):
        raise GameError(*both("{path} has no list of moves: {help}", path=path, help=both(STATE_HELP)))
    log_keys = ("version", "override")   # the session's notes on a move, not part of the move
    moves = [{k: v for k, v in m.items() if k not in log_keys} if isinstance(m, dict) else m
             for m in moves]
    saved = {"game": "prussia", "players": data.get("players"), "options": options or {},
             "moves": moves}
    if state is not None:
        saved["state"] = state
    return saved


def load_state(path: str, nations: str | None = None) -> Any:
    """The Prussia game in ``path`` (see ``saved_game`` for the files it reads), optionally
    replayed with another nations file."""
    from companion.games.prussia import Game
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as err:
        raise GameError(*both("cannot read the state file {path}: {err}", path=path, err=err.strerror or err)) from None
    except json.JSONDecodeError as err:
        raise GameError(*both("the state file {path} is not valid JSON (line {lineno}: {msg}); give "
                             "{help}", path=path, lineno=err.lineno, msg=err.msg, help=both(STATE_HELP))) from None
    data = saved_game(data, path)
    if nations is not None:
        data = dict(data, options=dict(data.get("options") or {}, nations=nations))
        data.pop("state", None)   # another table gives another state: replay the moves only
    try:
        return Game.from_json(data)
    except GameError as err:
        hint = " (was it played with another nations table?)" if nations is not None else ""
        raise GameError(*both("{path}: {err}{hint}", path=path, err=err, hint=hint)) from None


def advice(game: Any, samples: int = DEFAULT_SAMPLES, seed: int = 0, policy: str = "greedy") -> dict[str, Any]:
    """The decision now, the odds per choice, and the choice with the best chance to win."""
    from companion.games.prussia import odds
    start = time.perf_counter()
    table = odds(game, samples, seed, policy)
    seconds = time.perf_counter() - start
    win = {c: p["victory"] + p["great_victory"] for c, p in table.items()}
    where = {}
    for key in game.options_now:
        a, b = game.table.ends(key)
        name = game.slot_name(key) if game.phase == "place" else label(game.table.cards[key])
        where[game.slot_name(key) if game.phase == "place" else game.table.cards[key]] = \
            f"{name} ({game.namer.en(a)}–{game.namer.en(b)})"
    best = max(win, key=lambda c: (win[c], -table[c]["defeat"]))
    return {"game": game.id, "decision": game.phase if game.phase in ("place", "joker") else "none",
            "drawn": game.drawn, "samples": samples, "seed": seed,
            "policy": policy, "odds": table, "win": win, "best": best,
            "choices": where,
            "seconds": round(seconds, 3)}


def _print(report: dict[str, Any]) -> None:
    drawn = report["drawn"]
    what = {"place": f"where to place {label(drawn) if drawn else ''}",
            "joker": "which relation card to discard for the joker",
            "none": "no decision now (a draw is next): odds from here"}[report["decision"]]
    print(tr("Decision: {what}", what=what))
    how = {"greedy": N_("later decisions greedy: best strength margin right away"),
           "random": N_("later decisions at random")}[report["policy"]]
    print(tr("{samples} playouts per choice, {seconds:.2f} s ({how})", samples=report["samples"],
             seconds=report["seconds"], how=tr(how)))
    names = [tr("defeat"), tr("draw"), tr("victory"), tr("great v.")]
    shown = report["choices"] or {c: c for c in report["odds"]}
    width = max(len(n) for n in shown.values()) + 2
    choice, win = tr("choice"), tr("win")   # outside the f-string, where Babel's extractor finds them
    print(f"  {choice:<{width}}" + "".join(f"{n:>10}" for n in names) + f"{win:>10}")
    for choice, probs in report["odds"].items():
        print(f"  {shown[choice]:<{width}}" + "".join(f"{probs[r]:>10.1%}" for r in RESULTS)
              + f"{report['win'][choice]:>10.1%}")
    print(tr("Best chance to win: {choice}", choice=shown[report["best"]]))


def _advise(args: argparse.Namespace) -> int:
    game = load_state(args.state, args.nations)
    report = advice(game, args.samples, args.seed, args.policy)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        _print(report)
    return 0


def register(subparsers: Any) -> None:
    """Add ``companion advise`` to the command line."""
    p = subparsers.add_parser(
        "advise", help=tr("odds of each choice at a decision (solo Prussia game)"),
        description=tr("Odds of each choice at the decision now of a solo Prussia game: where to place the "
                       "drawn card, or which relation card a joker removes."),
        epilog=tr("Example: companion session export ID > game.json; companion advise prussia --state "
                  "game.json"))
    p.add_argument("game", choices=["prussia"])
    p.add_argument("--state", required=True, metavar="FILE", help=tr(STATE_HELP))
    p.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help=tr("random playouts per choice"))
    p.add_argument("--seed", type=int, default=0, help=tr("random seed of the playouts"))
    p.add_argument("--nations", metavar="FILE", help=tr("replay with this nations file"))
    p.add_argument("--policy", choices=POLICIES, default="greedy",
                   help=tr("how later decisions are played in the playouts (default: greedy)"))
    p.add_argument("--json", action="store_true", help=tr("machine-readable output"))
    p.set_defaults(func=_advise)
