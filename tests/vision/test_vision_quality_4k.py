"""4K cameras: a 3840 × 2160 frame of a table reads the same cards as its 1080p counterpart, at twice
the px/mm, with markers found at half size and read at full size (``vision.frame.pyramid``)."""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import pytest

from benchmarks.vision import game_states, placements
from tablesim import synthetic
from vision.frame.pyramid import UHD, PyramidFinder
from vision.pipeline import Pipeline
from vision.reading.markers import MarkerFinder
from vision.table import layouts

GAME, PLAYERS, SCALE = "wheel", 3, 1.4


@lru_cache(maxsize=None)
def shots(size: tuple[int, int]) -> tuple[synthetic.Camera, list[np.ndarray]]:
    """Two frames of one mid-game table from the same place, at ``size``."""
    states = game_states(GAME, seed=1)
    placed = placements(GAME, states[len(states) // 2], seed=0)
    with synthetic.frame_size(size):
        cam = synthetic.Camera.looking_at(layouts.table_size(GAME, PLAYERS), SCALE * size[0] / 1920, seed=5)
        return cam, [synthetic.render(cam, placed, i)[0] for i in range(2)]


def read(size: tuple[int, int]) -> tuple[Pipeline, set[tuple[str, tuple[int, int]]]]:
    """A fresh pipeline after the frames at ``size``, and the cards it reads with their places."""
    p = Pipeline(GAME, PLAYERS)
    for image in shots(size)[1]:
        scene = p.process(image)
    # where each card lies, to 10 mm
    return p, {(c.card_id, (round(c.centre[0] / 10), round(c.centre[1] / 10))) for c in scene.cards}


def test_a_4k_frame_reads_the_same_cards_as_its_1080p_counterpart():
    hd, hd_cards = read((1920, 1080))
    uhd, uhd_cards = read(UHD)
    assert shots(UHD)[1][0].shape[:2] == (2160, 3840)
    assert len(hd_cards) > 20
    assert {c for c, _ in uhd_cards} == {c for c, _ in hd_cards}
    # the same places: most to the same 10 mm, every one within 10 mm
    assert len(uhd_cards & hd_cards) >= 0.8 * len(hd_cards)
    centre = (600.0, 350.0)
    # calibrated from the K-CAL markers: twice the resolution
    assert uhd.calibration.px_per_mm(centre) / hd.calibration.px_per_mm(centre) == pytest.approx(2.0, rel=0.03)
    assert uhd.frame_quality.refused is None and uhd.frame_quality.blur_px < 2.0


def test_markers_found_at_half_size_are_the_markers_of_the_full_frame():
    grey = cv2.cvtColor(shots(UHD)[1][1], cv2.COLOR_BGR2GRAY)
    whole = MarkerFinder().find(grey, small=False)
    halved = PyramidFinder().find(grey, small=False)
    assert len(whole) > 30
    assert sorted(i for i, _ in halved) == sorted(i for i, _ in whole)
    # corners refined on the full frame: where the full search puts them (backs share their deck's
    # marker: each is matched with the nearest of its id; a corner where two cards meet may settle
    # a pixel or two apart)
    off = np.concatenate([min((np.linalg.norm(h - c, axis=1) for j, h in halved if j == i), key=np.max)
                          for i, c in whole])
    assert np.median(off) < 0.3 and np.mean(off < 1.0) >= 0.95


def test_a_1080p_frame_is_searched_as_before():
    grey = cv2.cvtColor(shots((1920, 1080))[1][1], cv2.COLOR_BGR2GRAY)
    a, b = MarkerFinder().find(grey), PyramidFinder().find(grey)
    assert [i for i, _ in a] == [i for i, _ in b]
    assert all(np.array_equal(x, y) for (_, x), (_, y) in zip(a, b))
