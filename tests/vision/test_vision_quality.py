"""Frame quality on rendered tables: blurred frames are refused and said so, a card under glare
keeps its identity, and the host view's warnings come in English and Japanese."""
from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
import pytest

from benchmarks.vision import game_states, placements
from tablesim import synthetic
from vision.frame import quality
from vision.pipeline import QUALITY_EVERY, Pipeline
from vision.table import layouts

GAME, PLAYERS, SCALE = "wheel", 3, 1.4


@lru_cache(maxsize=None)
def table() -> tuple[synthetic.Camera, tuple]:
    """A mid-game Wheel of History table (taken cards fanned: cards showing one marker) at 1.4 px/mm."""
    cam = synthetic.Camera.looking_at(layouts.table_size(GAME, PLAYERS), SCALE, seed=3)
    states = game_states(GAME, seed=1)
    return cam, tuple(placements(GAME, states[len(states) // 2], seed=0))


def frame(seed: int) -> np.ndarray:
    """The table, rendered with ``seed``."""
    cam, placed = table()
    return synthetic.render(cam, placed, seed)[0]


def motion_blur(image: np.ndarray, length: float, angle: float) -> np.ndarray:
    """``image`` smeared along a line of ``length`` px at ``angle`` degrees (a shaken camera)."""
    n = int(math.ceil(length)) + 3
    kernel = np.zeros((n, n), np.float32)
    c, a = (n - 1) / 2, math.radians(angle)
    for t in np.linspace(-length / 2, length / 2, 8 * n):     # the line, anti-aliased
        x, y = c + t * math.cos(a), c + t * math.sin(a)
        x0, y0 = int(x), int(y)
        fx, fy = x - x0, y - y0
        kernel[y0:y0 + 2, x0:x0 + 2] += np.array([[(1 - fx) * (1 - fy), fx * (1 - fy)], [(1 - fx) * fy, fx * fy]])
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def add_glare(image: np.ndarray, centre_px: tuple[float, float], sigma_px: float) -> np.ndarray:
    """A lamp's reflection: a soft spot of light whose middle clips to white."""
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = 400 * np.exp(-((xs - centre_px[0]) ** 2 + (ys - centre_px[1]) ** 2) / (2 * sigma_px ** 2))
    return np.clip(image.astype(np.float32) + spot[..., None], 0, 255).astype(np.uint8)


def pipeline() -> Pipeline:
    """A fresh pipeline for the game (it calibrates from the K-CAL markers)."""
    return Pipeline(GAME, PLAYERS)


# --- sharpness -------------------------------------------------------------------------------------
@pytest.mark.parametrize("angle", [0, 45, 100])
def test_sharpness_measures_motion_blur_in_pixels(angle):
    sharp = frame(0)
    assert quality.assess(sharp).blur_px < 2.0 and quality.assess(sharp).refused is None
    three = quality.assess(motion_blur(sharp, 3, angle))
    assert 1.5 < three.blur_px < 4.0 and three.refused is None
    nine = quality.assess(motion_blur(sharp, 9, angle))
    assert nine.blur_px > 6.5 and nine.is_blurred and nine.refused == "shaking"


def test_a_lens_out_of_focus_is_told_from_shake():
    soft = quality.assess(cv2.GaussianBlur(frame(0), (0, 0), 3.0))
    assert soft.refused == "out_of_focus" and soft.blur_px < quality.BLUR_LIMIT_PX
    assert [w.code for w in soft.warnings()][:2] == ["refused", "out_of_focus"]


def test_a_blurred_frame_is_refused_with_its_reason():
    p = pipeline()
    for i in range(3):
        scene = p.process(frame(i))
    assert scene is not None and scene.stable and p.refused is None
    read = {c.card_id for c in scene.cards}
    # the blur barely changes the small frame the motion test compares: it is noticed by the
    # periodic look at an unchanged frame, within QUALITY_EVERY frames
    blurred = [p.process(motion_blur(frame(10 + i), 8, 30)) for i in range(QUALITY_EVERY)]
    assert p.refused == "shaking"
    # not read: nothing changes on the table, and no observation comes of it
    assert not blurred[-1].stable and all({c.card_id for c in s.cards} == read for s in blurred)
    assert p.step(motion_blur(frame(20), 8, 30)) is None
    codes = [w.code for w in p.status()]
    assert codes[0] == "refused" and "shaking" in codes
    text = p.status()[0].to_json()
    assert "not read" in text["en"] and "揺れ" in text["ja"]
    # once the camera is steady again, the frame is read
    scene = p.process(frame(30))
    scene = p.process(frame(31))
    assert p.refused is None and scene.stable and {c.card_id for c in scene.cards} == read


def test_a_fresh_pipeline_does_not_calibrate_on_blurred_frames():
    p = pipeline()
    assert all(p.process(motion_blur(frame(i), 9, 0)) is None for i in range(3))
    assert p.refused == "shaking" and p.calibration is None


# --- glare ------------------------------------------------------------------------------------------
def marker_centre_px(index: int) -> tuple[float, float]:
    """Frame px of the middle of the one uncovered marker of placement ``index``."""
    cam, placed = table()
    cover = layouts.Cover(list(placed))
    p = placed[index]
    for x, y, w, h in layouts.marker_squares(p.card_id):
        pts = np.array([layouts.card_point(p.card_id, p.centre, p.angle_deg, x + w * i, y + h * j)
                        for i in (0, 0.5, 1) for j in (0, 0.5, 1)])
        if not cover.covered(index, pts).any():
            px = cam.project(pts).mean(axis=0)
            return float(px[0]), float(px[1])
    raise AssertionError("no uncovered marker")


def one_marker_cards() -> list[int]:
    """Placements showing one marker and under half of themselves (a fan's cards): glare over
    the marker washes out most of what shows of the card."""
    _, placed = table()
    cover = layouts.Cover(list(placed))
    return [i for i, p in enumerate(placed) if p.face_up and not p.card_id.startswith(("K-", "T-"))
            and cover.visible_markers(i) == 1 and cover.visible_share(i) < 0.5]


@pytest.mark.parametrize("which", [0, 1])
def test_a_card_under_glare_keeps_its_identity(which):
    cam, placed = table()
    chosen = one_marker_cards()
    assert len(chosen) > which, "the table must have fanned cards"
    index = chosen[which]
    card_id = placed[index].card_id
    p = pipeline()
    for i in range(3):
        scene = p.process(frame(i))
    before = {c.card_id: c.track for c in scene.cards}
    assert card_id in before
    at = marker_centre_px(index)
    sigma = 15 * SCALE                  # clips a disc of ~30 mm: the whole marker and around it
    glared = [add_glare(frame(10 + i), at, sigma) for i in range(5)]
    # the marker really is lost: a fresh look at the glared frame does not read it
    fresh = pipeline()
    for g in glared[:3]:
        fresh_scene = fresh.process(g)
    assert card_id not in {c.card_id for c in fresh_scene.cards}
    for g in glared:
        scene = p.process(g)
    assert scene.stable
    after = {c.card_id: c.track for c in scene.cards}
    assert after == before, "every card keeps its track under the glare"
    glare = [w for w in p.status() if w.code == "glare"]
    assert glare and glare[0].side in quality.SIDES
    assert "Glare on the" in glare[0].text("en") and "反射" in glare[0].text("ja")


def test_a_card_taken_away_is_still_dropped_when_glare_lies_elsewhere():
    cam, placed = table()
    index = one_marker_cards()[0]
    others = [i for i, q in enumerate(placed) if q.face_up and q.card_id.startswith("W-")
              and i != index and layouts.Cover(list(placed)).visible_markers(i) == 2]
    gone = placed[others[0]]
    p = pipeline()
    for i in range(3):
        p.process(frame(i))
    fewer = [q for q in placed if q is not gone]
    at = marker_centre_px(index)
    for i in range(5):
        scene = p.process(add_glare(synthetic.render(cam, fewer, 40 + i)[0], at, 15 * SCALE))
    ids = {c.card_id for c in scene.cards}
    assert gone.card_id not in ids and placed[index].card_id in ids


def test_no_glare_on_plain_tables():
    for seed in range(3):
        assert quality.assess(frame(seed)).glare == ()


def test_glare_side_and_exposure_warnings():
    sharp = frame(0)
    h, w = sharp.shape[:2]
    left = quality.assess(add_glare(sharp, (w * 0.1, h * 0.5), 20))
    assert [g.side for g in left.glare] == ["left"]
    near = quality.assess(add_glare(sharp, (w * 0.5, h * 0.92), 20))
    assert [g.side for g in near.glare] == ["near"]
    dark = quality.assess((sharp * 0.3).astype(np.uint8))
    assert dark.too_dark and "too_dark" in [x.code for x in dark.warnings()]
    bright = quality.assess(cv2.convertScaleAbs(sharp, alpha=3.0))
    assert bright.too_bright and not quality.assess(sharp).too_bright


def test_every_message_in_both_languages():
    for code, texts in quality.MESSAGES.items():
        assert set(texts) == {"en", "ja"} and all(texts.values())
        en, ja = quality.message(code, "en", "left", "shaking"), quality.message(code, "ja", "left", "shaking")
        assert "{" not in en + ja and en != ja
    assert quality.message("glare", "ja", "far").startswith("奥")
