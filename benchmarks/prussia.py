"""``companion bench prussia``: simulated games per second on one core, and advise latency."""
from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections import Counter
from typing import Sequence

from companion.engine import simulate
from companion.games.prussia_core import POLICIES, RESULTS
from companion.console import run_main


def decision_position(seed: int = 5) -> "object":
    """A solo game stopped at a placement with two or more slots to choose from."""
    from companion.games.prussia import Game
    game, rng = Game(1), random.Random(seed)
    while game.phase != "place" or len(game.options_now) < 2:
        game.apply(game.sample_chance(rng) if game.is_chance_node() else rng.choice(game.legal_moves()))
    return game


def measure(games: int, samples: int) -> dict[str, float]:
    """Playouts/s of the table core, full engine games/s (with explanations), advise latency."""
    from companion.advise import advice
    from companion.games.prussia import Game
    from companion.games.prussia_core import Table, load_nations, random_playout
    nations = load_nations(None, "prussia")
    core = {}
    for policy in POLICIES:
        start = time.perf_counter()
        for i in range(games):
            random_playout(Table(nations), random.Random(i), policy)
        core[policy] = games / (time.perf_counter() - start)
    engine_games = max(1, games // 20)
    start = time.perf_counter()
    for i in range(engine_games):
        simulate(Game(1), i)
    engine = engine_games / (time.perf_counter() - start)
    game = decision_position()
    report = advice(game, samples)
    return {"core_playouts_per_s": round(core["random"]), "core_greedy_playouts_per_s": round(core["greedy"]),
            "engine_games_per_s": round(engine, 1),
            "advise_seconds": report["seconds"], "advise_choices": len(report["odds"]),
            "advise_samples_per_choice": samples}


def result_rates(games: int) -> dict[str, dict[str, float]]:
    """How often each playout policy ends in each result, per centre nation and option reading."""
    from companion.games.prussia_core import Table, load_nations, random_playout
    out = {}
    for policy, centre, alliance, strength in itertools.product(
            POLICIES, ("prussia", "german_empire"), ("direct", "chain"), ("alliance", "alone")):
        nations = load_nations(None, centre)
        counts = Counter(random_playout(Table(nations, 2, alliance, strength), random.Random(i), policy)
                         for i in range(games))
        out[f"policy={policy} centre={centre} alliance={alliance} victory_strength={strength}"] = {
            r: round(counts[r] / games, 3) for r in RESULTS}
    return out


def main(argv: Sequence[str]) -> int:
    """Run the benchmark and print the figures."""
    p = argparse.ArgumentParser(prog="companion bench prussia")
    p.add_argument("--games", type=int, default=2000, help="random playouts to time")
    p.add_argument("--samples", type=int, default=500, help="advise playouts per choice")
    p.add_argument("--results", action="store_true", help="also: result rates of random play per option")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(list(argv))
    figures: dict = measure(args.games, args.samples)
    if args.results:
        figures["result_rates"] = result_rates(args.games)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"table core, random play:     {figures['core_playouts_per_s']} solo games/s (one core)")
        print(f"table core, greedy play:     {figures['core_greedy_playouts_per_s']} solo games/s (one core)")
        print(f"engine with explanations:    {figures['engine_games_per_s']} solo games/s (simulate)")
        print(f"advise (greedy), {figures['advise_choices']} choices × {args.samples} playouts: "
              f"{figures['advise_seconds']:.2f} s")
        for name, rates in figures.get("result_rates", {}).items():
            print(f"{name}: " + ", ".join(f"{r} {p:.1%}" for r, p in rates.items()))
    return 0


if __name__ == "__main__":
    run_main(main)
