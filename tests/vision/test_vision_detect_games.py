"""Each game's table, rendered from the printed cards at a webcam's resolution, read back by the
pipeline exactly as a perfect camera reads it; and ``companion watch`` over a folder of frames."""
from __future__ import annotations

import json

import pytest

from benchmarks import vision as bench
from companion.cli import main
from vision.pipeline import Pipeline
from vision.table import layouts
from vision.table.layouts import scene_from_placements


@pytest.mark.parametrize("game_id", layouts.GAMES)
def test_a_mid_game_table_reads_as_a_perfect_camera_reads_it(game_id):
    states = bench.game_states(game_id, 1)
    placed = bench.placements(game_id, states[len(states) // 2], seed=1)
    view = bench.View(game_id, None, seed=1)    # tablesim.synthetic: lens, light, clutter, noise
    players = bench.GAME_PLAYERS[game_id]
    expected = layouts.read(game_id, scene_from_placements(placed), players)
    pipeline = Pipeline(game_id, players)       # calibrates from K-CAL1..4 in the table's corners
    seen = [pipeline.step(view.frame(placed, seed=i)) for i in range(3)]
    assert pipeline.calibration is not None and pipeline.calibration.error_mm < 1.5
    assert seen[:2] == [None, None]         # the first frame is not still, the second not yet confirmed
    assert seen[2] == expected


def test_watch_prints_each_stable_change_and_writes_annotated_frames(tmp_path, capsys):
    import cv2
    game_id = "hills"
    states = bench.game_states(game_id, 2, limit=2)
    view = bench.View(game_id, None, seed=2)
    folder = tmp_path / "frames"
    folder.mkdir()
    n = 0
    placed: list = []
    for k, state in enumerate(states[1:3]):
        placed = bench.placements(game_id, state, seed=7, before=placed)
        frames = [view.frame(placed, seed=10 * k, hand=(300.0 + 100 * k, 300.0))]
        frames += [view.frame(placed, seed=10 * k + i) for i in range(1, 4)]
        for frame in frames:
            cv2.imwrite(str(folder / f"{n:03d}.png"), frame)
            n += 1
    out = tmp_path / "seen"
    assert main(["watch", game_id, "--players", "2", "--images", str(folder), "--annotate", str(out),
                 "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    expected = [layouts.read(game_id, scene_from_placements(bench.placements(game_id, s, seed=7)), 2)
                for s in states[1:3]]
    assert [line["observation"] for line in lines] == [e for i, e in enumerate(expected)
                                                      if i == 0 or e != expected[i - 1]]
    assert len(list(out.glob("*.jpg"))) == n


def test_watch_refuses_a_missing_source(tmp_path, capsys):
    assert main(["watch", "hills", "--players", "2", "--images", str(tmp_path / "nothing")]) == 2
    assert "no folder" in capsys.readouterr().err
