"""The ``companion`` command line.

Core commands live here (``games``, ``simulate``, ``bench``); each area adds its own commands
through a module listed in ``COMMAND_MODULES`` that defines ``register(subparsers)``, so the areas
stay independent (``printables`` adds ``print``, ``vision`` adds ``watch``, and so on).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Sequence

import companion.history  # noqa: F401  (every session a command opens keeps the play history)
from companion.console import quiet_pipe
from companion.engine import GameError, IllegalMove, Simulation, simulate
from companion.games import GAME_IDS, describe_all, game_class
from companion.i18n import LANGS, cli_lang, pick, set_cli_lang, take_lang, tr
from companion.option_words import option_words
from companion.series import Series

COMMAND_MODULES = (
    "printables.cli",       # companion print
    "vision.cli",           # companion watch
    "companion.session.cli",  # companion session
    "companion.history.cli",  # companion history
    "companion.advise",     # companion advise
    "webui.cli",            # companion serve
)



SIMULATED_SERIES_LIMIT = 100
"""Random players may never reach a target score: a simulated series stops after this many games."""


def _games(args: argparse.Namespace) -> int:
    games = describe_all()
    if args.json:
        print(json.dumps(games, ensure_ascii=False, indent=2))
        return 0
    for g in games:
        if not g.get("implemented"):
            print(f"{g['id']:<10} " + tr("(not implemented yet)"))
            continue
        count = pick(*game_class(g["id"]).player_count(), cli_lang())
        print(f"{g['id']:<10} {g['title']} / {g['title_ja']} — {count}")
        for opt in g["options"]:
            choices = f" [{'|'.join(map(str, opt['choices']))}]" if "choices" in opt else ""
            default = tr("(none)") if opt["default"] is None else json.dumps(opt["default"])
            # English keeps the engine's exact help; Japanese the player's words of the host's form
            about = opt["help"] if cli_lang() != "ja" else "{}: {}".format(*option_words(g["id"], opt["name"], "ja",
                                                                                         opt["help"]))
            print(f"    --option {opt['name']}={default}{choices}  {about}")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    cls = game_class(args.game)
    options = cls.parse_options(args.option or [])
    if args.nations:
        options["nations"] = cls.option("nations").parse(args.nations)
    players = args.players if args.players is not None else cls.min_players
    if args.rounds is None and args.target is None:
        record = simulate(cls(players, options), args.seed)
        if args.json:
            print(json.dumps(record.to_json(), ensure_ascii=False, indent=2))
        else:
            _print_record(record)
        return 0
    series = Series(args.game, players, options, rounds=args.rounds, target=args.target,
                    max_rounds=SIMULATED_SERIES_LIMIT)
    records = []
    while not series.is_over():
        record = simulate(series.new_game(), args.seed + len(records))
        series.record(record.game)
        records.append(record)
    if args.json:
        print(json.dumps({**series.to_json(), "records": [r.to_json() for r in records]},
                         ensure_ascii=False, indent=2))
        return 0
    for i, record in enumerate(records, 1):
        print(tr("=== Game {i} of the series", i=i))
        _print_record(record)
    print(tr("Series totals: ") + ", ".join(f"P{p + 1} {t}" for p, t in enumerate(series.totals())))
    if args.target is not None and max(series.totals()) < args.target:
        print(tr("No player reached {target} within {most} games.", target=args.target, most=SIMULATED_SERIES_LIMIT))
    print(tr("Series winner: ") + ", ".join(f"P{p + 1}" for p in series.winners()))
    return 0


def _print_record(record: Simulation) -> None:
    game = record.game
    print(tr("{title} — {players} players, seed {seed}, options {options}",
             title=pick(game.title, game.title_ja, cli_lang()), players=game.players, seed=record.seed,
             options=game.options))
    before = type(game)(game.players, game.options)   # each move is worded in the state it was played from
    for i, (move, events) in enumerate(record.turns, 1):
        words = before.describe_move(move)
        print(f"{i:4d}. {pick(words, words.ja, cli_lang())}")
        before.apply(move)
        for event in events:
            print(f"        → {pick(event.text, event.ja, cli_lang())}")
    print(tr("Final scores: ") + ", ".join(f"P{p + 1} {s}" for p, s in enumerate(game.scores())))
    print(tr("Winner: ") + ", ".join(f"P{p + 1}" for p in game.winners()))


def _bench(args: argparse.Namespace) -> int:
    from benchmarks import BENCHES
    if args.target is None:
        print(args.bench_help() + "\n" + tr("companion bench: name a benchmark (above)"), file=sys.stderr)
        return 2
    module = importlib.import_module(BENCHES[args.target])
    return int(module.main(args.rest) or 0)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every command of every area that is installed."""
    parser = argparse.ArgumentParser(prog="companion", description=tr("Table Companion: print the cards, watch the "
                                                                      "table, keep the score."))
    # read before the parser is built (its help is in that language) and taken off the line
    parser.add_argument("--lang", choices=LANGS, help=tr("the language of the output (default: the locale, LANG)"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help=tr("list the games, their player counts and options"))
    p.add_argument("--json", action="store_true", help=tr("machine-readable output"))
    p.set_defaults(func=_games)

    p = sub.add_parser("simulate", help=tr("play one whole game with random legal moves"))
    p.add_argument("game", choices=GAME_IDS)
    p.add_argument("--players", type=int, help=tr("number of players (default: the minimum)"))
    p.add_argument("--seed", type=int, default=0, help=tr("random seed (same seed, same game)"))
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help=tr("a game option (repeatable)"))
    p.add_argument("--nations", metavar="FILE", help=tr("prussia: your own nation table (JSON, same shape as "
                                                        "companion/data/nations.json)"))
    p.add_argument("--rounds", type=int, help=tr("play a series of this many games"))
    p.add_argument("--target", type=int, help=tr("play a series until someone reaches this total"))
    p.add_argument("--json", action="store_true", help=tr("machine-readable output"))
    p.set_defaults(func=_simulate)

    from benchmarks import ABOUT, BENCHES
    p = sub.add_parser("bench", help=tr("measure speed and accuracy ({benches})", benches=", ".join(BENCHES)),
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=tr("benchmarks:") + "".join(f"\n  {name:<9} {tr(ABOUT[name])}" for name in BENCHES))
    # NAME optional to argparse, so that `companion bench` alone answers with the list, not "NAME, ARGS required"
    p.add_argument("target", nargs="?", choices=list(BENCHES), metavar="NAME", help=tr("the benchmark to run (below)"))
    p.add_argument("rest", nargs=argparse.REMAINDER, metavar="ARGS",
                   help=tr("its own options: companion bench NAME --help"))
    p.set_defaults(func=_bench, bench_help=p.format_help)

    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name == name:  # that area is not built yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; errors print a clear message and exit with status 2. It speaks
    Japanese when the locale does (LANG=ja_JP.UTF-8) or ``--lang ja`` says so."""
    lang, argv = take_lang(sys.argv[1:] if argv is None else argv)
    set_cli_lang(lang)
    args = build_parser().parse_args(argv)

    def run() -> int:
        try:
            return int(args.func(args) or 0)
        except (GameError, IllegalMove) as err:
            print(f"companion: {pick(str(err), getattr(err, 'ja', '') or '', lang)}", file=sys.stderr)
            return 2
    return quiet_pipe(run)


if __name__ == "__main__":
    sys.exit(main())
