"""Motion smear undone (``vision.frame.deblur``): its direction and length measured from the frame, a
smeared table read through the pipeline nearly as the sharp one, sharp frames left alone, frames
smeared past the limit still refused."""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import pytest

from benchmarks.vision import GAME_PLAYERS, View, game_states, placements, reported_cards, score_reports
from tablesim import synthetic
from tablesim.synthetic import Conditions
from vision.frame import deblur, quality
from vision.pipeline import Pipeline
from vision.reading.markers import MarkerFinder

GAME, SCALE = "wheel", 1.4


@lru_cache(maxsize=None)
def table() -> tuple:
    """A mid-game Wheel of History table's placements."""
    states = game_states(GAME, seed=1)
    return tuple(placements(GAME, states[len(states) // 2], seed=0))


def smeared(length: float, angle: float) -> np.ndarray:
    """The table at 1.4 px/mm from overhead, smeared by the renderer's own line of ``length`` px at
    ``angle``°, then the camera's usual softness, noise and JPEG (grey)."""
    view = View(GAME, SCALE, seed=1, conditions=Conditions(elevation=90.0))
    plain = synthetic.Effects(blur=0.0, noise=0.0, jpeg=0)
    image = synthetic.render(view.cam, table(), 3, effects=plain)[0]
    image = cv2.filter2D(image, -1, synthetic._smear(length, angle))
    image = cv2.GaussianBlur(image, (0, 0), 0.8)
    image = cv2.add(image, view.cam.noise(3.0)[:image.shape[0], :image.shape[1]], dtype=cv2.CV_8U)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.cvtColor(cv2.imdecode(data, cv2.IMREAD_COLOR), cv2.COLOR_BGR2GRAY)


def angle_error(a: float, b: float) -> float:
    """Degrees between two directions of a line (modulo 180)."""
    return abs((a - b + 90) % 180 - 90)


@pytest.mark.parametrize("angle", [20.0, 110.0, 155.0])
def test_the_smear_direction_and_length_are_measured(angle):
    grey = smeared(5, angle)
    judged = quality.assess(grey)
    # the edge widths' cosine fit: within 9.8° for 5 px (measured on 60 frames, docs/vision.md)
    assert angle_error(judged.blur_angle, angle) <= 12
    smear = deblur.smear_of(grey, judged)
    assert smear is not None
    # the spectrum's first zero: the renderer's 5 px line (round ends) has it at 1/5.6 cycle a px
    # (measured 5.58–5.85), and the direction it runs deepest within 4.5°
    assert 5.3 <= smear.length <= 6.1
    assert angle_error(smear.angle, angle) <= 6


def test_a_smeared_table_reads_as_the_sharp_one():
    view = View(GAME, SCALE, seed=1, conditions=Conditions(elevation=90.0, motion_blur=5.0))
    placed = list(table())
    shots = [synthetic.render_frame(view.cam, placed, i) for i in range(3)]
    truth = [(placed[i].shown_id, placed[i].centre) for i in synthetic.visible_truth(
        view.cam, placed, shots[-1].hidden, synthetic.VISIBLE_PX_PER_MM) if not placed[i].card_id.startswith("K-CAL")]
    lying = [(p.shown_id, p.centre) for p in placed if not p.card_id.startswith("K-CAL")]
    grey = cv2.cvtColor(shots[0].image, cv2.COLOR_BGR2GRAY)
    # smeared as it is, the frame shows few markers (the four K-CAL ones and about half the cards,
    # 16 markers of 29 visible cards, since markers are searched on an unsharp-masked frame)
    assert len(MarkerFinder().find(grey)) < 0.6 * len(truth)
    p = Pipeline(GAME, GAME_PLAYERS[GAME], layout=view.layout)
    for shot in shots:
        scene = p.process(shot.image)
        assert p.refused is None and p.smear is not None
    counts = score_reports(truth, reported_cards(scene), lying)
    assert counts["identified"] >= len(truth) - 1
    assert counts["misidentified"] == 0 and counts["duplicates"] == 0


@pytest.mark.parametrize("conditions", [Conditions(elevation=90.0), Conditions(elevation=45.0, yaw=120.0)])
def test_a_sharp_frame_is_not_sharpened(conditions):
    view = View(GAME, SCALE, seed=1, conditions=conditions)
    p = Pipeline(GAME, GAME_PLAYERS[GAME], layout=view.layout)
    for i in range(2):
        p.process(synthetic.render_frame(view.cam, list(table()), i).image)
        # an angled view squeezes the far side's print one way: still below the limit
        assert p.frame_quality.blur_px <= deblur.DEBLUR_FROM
        assert p.smear is None


def test_a_frame_smeared_past_the_limit_is_still_refused():
    grey = smeared(9, 40.0)
    judged = quality.assess(grey)
    assert judged.refused == "shaking" and deblur.smear_of(grey, judged) is None
    p = Pipeline(GAME, GAME_PLAYERS[GAME])
    assert p.process(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)) is None
    assert p.refused == "shaking" and p.smear is None and p.calibration is None
    assert p.status()[0].code == "refused"


def test_sharpening_undoes_a_known_smear():
    # bars 5 px wide smeared along x by a 5 px line (around the image, as the DFT sees it) come
    # back to a quarter of the smear's error (their sharp corners stay a little soft: the finest
    # frequencies are restored least); along y nothing is undone
    x = np.arange(400)
    bars = np.tile(np.where((x // 5) % 2 == 0, 40, 220).astype(np.float32), (200, 1))
    blurred = np.mean([np.roll(bars, k, axis=1) for k in range(-2, 3)], axis=0).round().astype(np.uint8)
    before = np.abs(blurred.astype(int) - bars).mean()
    assert before > 40
    back = deblur.sharpen(blurred, deblur.Smear(5.0, 0.0))
    assert np.abs(back.astype(int) - bars).mean() < 0.25 * before
    wrong = deblur.sharpen(blurred, deblur.Smear(5.0, 90.0))
    assert np.abs(wrong.astype(int) - bars).mean() > 0.9 * before
