"""Calibration from the K-CAL corner markers: from two of them an angled camera places far cards
far off, so the set-up check asks for all four, and the pipeline keeps a four-corner calibration
once it has one (frames in which corners are covered do not replace it)."""
from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from benchmarks.vision import game_states, placements
from tablesim import synthetic
from tablesim.synthetic import Conditions
from vision.pipeline import Pipeline
from vision.table import camera_check, layouts

GAME, PLAYERS = "spartacus", 3
TABLE = layouts.table_size(GAME, PLAYERS)


@lru_cache(maxsize=None)
def camera(elevation: float) -> synthetic.Camera:
    """A camera at ``elevation`` that sees the whole table (all four corners in view)."""
    cam = synthetic.Camera.looking_at(TABLE, 1.2, seed=1, conditions=Conditions(elevation=elevation, yaw=0.0))
    corners = cam.project(np.array([(0, 0), (TABLE[0], 0), TABLE, (0, TABLE[1])], float))
    assert corners.min() > 0 and corners[:, 0].max() < 1920 and corners[:, 1].max() < 1080
    return cam


@lru_cache(maxsize=None)
def lying(without: tuple[str, ...] = ()) -> tuple:
    """A mid-game table; the K-CAL markers in ``without`` are not there (covered, out of view)."""
    states = game_states(GAME, seed=1)
    return tuple(p for p in placements(GAME, states[len(states) // 2], seed=0) if p.card_id not in without)


def test_two_corner_markers_place_far_cards_off_at_an_angle():
    cam = camera(45.0)
    grid = np.stack(np.meshgrid(np.linspace(40, TABLE[0] - 40, 9), np.linspace(40, TABLE[1] - 40, 6)), -1).reshape(-1, 2)

    def worst(gone):
        cal = _read(cam, [lying(gone)] * 2).calibration      # the markers as the pipeline reads them
        return float(np.linalg.norm(cal.to_table(cam.project(grid)) - grid, axis=1).max())
    assert worst(()) < 1.5
    assert worst(("K-CAL3", "K-CAL4")) > 8.0      # the far pair alone: the near side guessed


def _read(cam, frames):
    pipeline = Pipeline(GAME, PLAYERS)
    for i, placed in enumerate(frames):
        pipeline.process(synthetic.render(cam, placed, i)[0])
    return pipeline


def test_the_check_asks_for_all_four_corners():
    cam = camera(45.0)
    two = _read(cam, [lying(("K-CAL3", "K-CAL4"))] * 2)
    assert sorted(two.calibration.markers) == ["K-CAL1", "K-CAL2"]
    image = synthetic.render(cam, lying(("K-CAL3", "K-CAL4")), 5)[0]
    result = camera_check.check(image, two.calibration, two.layout.bounds())
    assert result.next_step.key == "corners"
    assert "K-CAL3, K-CAL4" in result.next_step.text("en") and "20 mm" in result.next_step.text("en")
    assert "K-CAL3, K-CAL4" in result.next_step.text("ja") and "ずれ" in result.next_step.text("ja")
    assert result.to_json("en")["next"]["key"] == "corners" and not result.to_json("en")["ok"]
    four = _read(cam, [lying()] * 2)
    assert len(four.calibration.markers) == 4
    whole = camera_check.check(synthetic.render(cam, lying(), 5)[0], four.calibration, four.layout.bounds())
    assert "corners" not in [whole.next_step.key] + [w.key for w in whole.warnings]


def test_the_pipeline_keeps_its_four_corner_calibration():
    cam = camera(60.0)
    # four corners first, then two of them covered: the four-corner calibration stays
    p = _read(cam, [lying()] * 2 + [lying(("K-CAL2", "K-CAL3"))] * 3)
    assert len(p.calibration.markers) == 4
    # two corners first (calibrated from them to go on), then all four: it takes the four
    q = _read(cam, [lying(("K-CAL2", "K-CAL3"))] * 2 + [lying()] * 3)
    assert len(q.calibration.markers) == 4
    truth = np.linalg.inv(cam.homography)
    probe = np.array([[TABLE[0] - 60, 60.0], [TABLE[0] - 60, TABLE[1] - 60]])
    mapped = q.calibration.to_table(cam.project(probe))
    assert np.abs(mapped - probe).max() < 3.0, (mapped, truth)
