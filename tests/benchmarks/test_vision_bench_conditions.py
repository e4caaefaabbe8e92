"""The conditions bench on chosen games' tables (``--games``): a change to one deck's faces is measured
on that table alone, with the camera and seeds the full bench gives it."""
from __future__ import annotations

import pytest

from benchmarks import vision as bench


def test_an_unknown_game_is_refused_with_the_choices(capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--part", "conditions", "--games", "prussia,pong"])
    assert stop.value.code == 2
    assert "unknown game 'pong': choose from wheel, hills, spartacus, prussia, chains" in capsys.readouterr().err


@pytest.mark.slow
def test_one_games_table_reads_as_in_the_full_bench():
    """Hills' table alone under one condition counts exactly the Hills share of the full bench's cell
    (the same camera and seeds): fewer visible cards than all five tables, every one of Hills'."""
    alone = bench.condition_bins(True, "zxing", ["overhead"], [1.7], games=["hills"])["overhead"]["1.7"]
    both = bench.condition_bins(True, "zxing", ["overhead"], [1.7], games=["wheel", "hills"])["overhead"]["1.7"]
    wheel = bench.condition_bins(True, "zxing", ["overhead"], [1.7], games=["wheel"])["overhead"]["1.7"]
    assert alone["tables"] == wheel["tables"] == 1 and both["tables"] == 2
    assert 0 < alone["visible"] < both["visible"] and alone["visible"] + wheel["visible"] == both["visible"]
    assert alone["identified"] + wheel["identified"] == both["identified"]
