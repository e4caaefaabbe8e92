"""``companion bench players``: the Wilson interval, and a tiny run's table."""
from __future__ import annotations

import pytest

from benchmarks import players


def test_the_wilson_interval() -> None:
    """Known values: 50 of 100 → 40.4 %–59.6 %; none of 10 starts at 0 and stays below 31 %."""
    low, high = players.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    low, high = players.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-3)


def test_a_small_run_prints_its_seeds_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Two games of good against beginner at Seven Hills: seeds, win rate, interval, times."""
    assert players.main(["--games", "2", "--game", "hills", "--levels", "good:beginner"]) == 0
    out = capsys.readouterr().out
    assert "hills 2p good vs beginner" in out and "seeds 0–1" in out
    assert "| hills | 2 | good | beginner | 2 (0–1) |" in out
    assert "| hills | 2 | beginner |" in out and "| hills | 2 | good |" in out   # decision times
    with pytest.raises(SystemExit):
        players.main(["--levels", "good:grandmaster"])


def test_every_count_covers_each_player_count_the_rules_allow() -> None:
    """--every-count: Wheel of History 2–5, Spartacus 3–5, Chains 1–10, not only the usual tables."""
    counts = players.every_count()
    assert [n for g, n in counts if g == "wheel"] == [2, 3, 4, 5]
    assert [n for g, n in counts if g == "spartacus"] == [3, 4, 5]
    assert [n for g, n in counts if g == "chains"] == list(range(1, 11))
    assert ("hills", 2) in counts and ("prussia", 1) in counts and ("hills", 3) not in counts


def test_jobs_share_a_row_without_changing_it_and_rows_are_written_as_they_finish(tmp_path) -> None:
    """Six Wheel games of good against beginner in two processes give the row and the decision
    counts of one process; ``--rows`` appends the row as a JSON line with its times and the load."""
    import json
    one: dict[str, list[float]] = {}
    two: dict[str, list[float]] = {}
    alone = players.row("wheel", 3, "good", "beginner", 6, 0, one)
    shared = players.row("wheel", 3, "good", "beginner", 6, 0, two, jobs=2)
    assert alone == shared and 0 < alone["win"] < 1
    assert {k: len(v) for k, v in one.items()} == {k: len(v) for k, v in two.items()}
    rows = tmp_path / "rows.jsonl"
    assert players.main(["--games", "3", "--every-count", "--game", "wheel", "--players", "3",
                         "--levels", "good:beginner,beginner:random", "--jobs", "2",
                         "--rows", str(rows)]) == 0
    lines = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
    assert [(r["level"], r["against"], r["games"]) for r in lines] == [("good", "beginner", 3),
                                                                     ("beginner", "random", 3)]
    assert lines[0]["good_decisions"] > 0 and "good_cpu_p95_ms" in lines[0] and "loadavg" in lines[0]
