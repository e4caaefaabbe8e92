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


def test_paired_rows_deal_each_seat_the_same_cards_and_take_the_interval_over_the_deals() -> None:
    """--paired: a seed's cards come up for a seat in the same order whoever sits there and however
    they play (chance has its own streams, one per Chains deck), so a level against itself wins
    exactly half of every deal; the interval is a t interval over the deals' mean shares (the
    Wilson interval over the deals when they are all alike: a t interval would have no width)."""
    from companion.engine import CHANCE
    from companion.games.chains import value_of

    def deck_order(levels: list[str], seat: int) -> list[int]:
        game = players.play("chains", 2, levels, 7, {}, paired=True)
        turned = [m for m in game.log if m.player == CHANCE and m.kind == "reveal"]
        return [value_of(m.card) for m in turned if m.card.startswith(f"C{seat + 1:02d}-")]

    for seat in (0, 1):
        a, b = deck_order(["good", "beginner"], seat), deck_order(["beginner", "random"], seat)
        n = min(len(a), len(b))
        assert n > 20 and a[:n] == b[:n]
    times: dict[str, list[float]] = {}
    even = players.row("chains", 2, "good", "good", 20, 0, times, paired=True)
    assert (even["win"], even["design"], even["seeds"]) == (0.5, "paired", "0–9")
    # every deal alike: the t interval would have no width; the Wilson interval over the 10 deals
    assert (even["low"], even["high"]) == players.wilson(5, 10) and even["low"] < 0.3
    low, high = players.paired_interval([1.0] * 400, 2)              # all 200 deals won
    assert (low, high) == players.wilson(200, 200) and 0.97 < low < 0.99 and high == 1.0
    shares = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.5]   # deals: .5, 1, 0, .5, .75
    low, high = players.paired_interval(shares, 2)
    half = players.t95(4) * (0.1375 ** 0.5) / 5 ** 0.5            # sample variance of the deals .1375
    assert low == pytest.approx(0.55 - half) and high == pytest.approx(min(1.0, 0.55 + half))
    assert players.t95(30) == pytest.approx(2.042, abs=0.002) and players.t95(1000) == pytest.approx(1.962, abs=0.001)
    with pytest.raises(SystemExit):
        players.main(["--games", "3", "--game", "chains", "--players", "2", "--levels", "good:good",
                      "--paired"])


def test_a_paired_run_says_so_in_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Four Chains games, two seeds each in both seats: the seeds and the design are printed."""
    assert players.main(["--games", "4", "--game", "chains", "--players", "2", "--levels", "good:beginner",
                         "--paired"]) == 0
    out = capsys.readouterr().out
    assert "seeds 0–1 (paired" in out and "| chains | 2 | good | beginner | 4 (0–1, each in every seat) |" in out


def test_rows_run_in_parts_join_into_the_row_of_all_their_seeds(tmp_path) -> None:
    """Paired Chains rows on seeds 0–1 and 2–3 (--rows, --seed) join (--join) into the row of
    seeds 0–3: the same win rate and interval. Parts with a gap between them join with both ranges
    named; overlapping parts (a seed twice) are refused."""
    rows = tmp_path / "rows.jsonl"
    for seed in ("2", "0"):   # written out of order: joined by their seeds
        assert players.main(["--games", "4", "--seed", seed, "--game", "chains", "--players", "2",
                             "--levels", "good:beginner", "--paired", "--rows", str(rows)]) == 0
    whole = players.row("chains", 2, "good", "beginner", 8, 0, {}, paired=True)
    [both] = players.join_file(str(rows))
    assert both["seeds"] == "0–3" and both["games"] == 8
    assert (both["win"], both["low"], both["high"]) == pytest.approx((whole["win"], whole["low"], whole["high"]))
    assert players.main(["--join", str(rows)]) == 0
    apart = players.joined([both, dict(both, seeds="9–12")])   # parts run side by side, stopped
    assert apart["seeds"] == "0–3, 9–12" and apart["games"] == 16
    with pytest.raises(ValueError, match="overlap"):
        players.joined([both, dict(both, seeds="3–6")])


def test_the_table_gives_the_even_share_to_a_tenth_of_a_percent() -> None:
    """Eight players' even share is 12.5 % (the table printed "12%", below the row's 12.7 % lower
    end that cleared it); two players' stays "50%"."""
    from benchmarks.players import markdown
    rows = [{"game": "chains", "players": n, "level": "strong", "against": "good", "games": 1000,
             "seeds": "0–124", "win": 0.149, "low": 0.127, "high": 0.172, "even": 1 / n} for n in (8, 2)]
    table = markdown(rows, {})
    assert "| 12.5% |" in table and "| 50% |" in table
