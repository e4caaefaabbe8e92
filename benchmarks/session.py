"""``companion bench session``: how long reconciling an observation takes, per game.

Plays seeded random games beside a session (``tablesim.scripted``), the camera missing about a
third of the frames where a game allows it, and times every ``observe`` and every write.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Sequence

from companion.session import Store, TableSession
from tablesim.scripted import full_view, play_through_camera, without
from companion.console import run_main

CONFIGS = [
    ("wheel", 4, {}, full_view, 0.3),
    ("hills", 2, {"banners": True}, full_view, 0.3),
    ("spartacus", 4, {}, full_view, 0.0),
    ("chains", 3, {}, full_view, 0.3),
    ("prussia", 1, {}, without("pile"), 0.0),
    ("prussia", 2, {}, full_view, 0.0),
    ("prussia", 2, {}, without("pile", "discard", "hands"), 0.0),   # what vision can know
]


def main(argv: Sequence[str] | None = None) -> int:
    """Print per game: observations, ms per observe (median, 95th percentile, max), prompts."""
    parser = argparse.ArgumentParser(prog="companion bench session")
    parser.add_argument("--seeds", type=int, default=3, help="games per configuration")
    args = parser.parse_args(argv)
    print(f"{'game':<18} {'obs':>5} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'choose':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        for game_id, players, options, camera, skip in CONFIGS:
            times: list[float] = []
            original = TableSession.observe

            def timed(self, obs, **kw):   # noqa: ANN001 - a thin timing wrapper
                start = time.perf_counter()
                try:
                    return original(self, obs, **kw)
                finally:
                    times.append((time.perf_counter() - start) * 1000)

            TableSession.observe = timed
            chooses = 0
            try:
                for seed in range(args.seeds):
                    session = TableSession.create(store, game_id, players, options)
                    chooses += play_through_camera(session, seed=seed, camera=camera, skip=skip).get("choose", 0)
            finally:
                TableSession.observe = original
            times.sort()
            p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
            label = f"{game_id}-{players}" + ("" if camera is full_view else "-partial")
            print(f"{label:<18} {len(times):>5} {statistics.median(times):>10.1f} "
                  f"{p95:>8.1f} {times[-1]:>8.1f} {chooses:>7}")
    return 0


if __name__ == "__main__":
    run_main(main)
