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
