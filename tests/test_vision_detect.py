"""Detection and calibration on frames rendered from the printed card faces (printables.raster)."""
from __future__ import annotations

import logging
import math

import cv2
import numpy as np
import pytest

from companion import catalogue as cat
from printables.raster import render_back_png, render_card_png
from vision.calibrate import CalibrationLayout, calibrate, rect_corners
from vision.detect import Detector, card_pose_mm, map_points

CARD_PX_PER_MM = 6.0


def camera(px_per_mm: float, size=(1920, 1080), tilt: float = 0.08, turn: float = 4.0,
           centre_mm=(95.0, 125.0)) -> np.ndarray:
    """A homography table mm -> image px: the table seen at ``px_per_mm`` near the centre of the
    frame, turned by ``turn`` degrees and tilted (perspective) by ``tilt``."""
    w, h = size
    a = math.radians(turn)
    s = px_per_mm
    to_centre = np.array([[1, 0, -centre_mm[0]], [0, 1, -centre_mm[1]], [0, 0, 1]], dtype=np.float64)
    rot = np.array([[s * math.cos(a), -s * math.sin(a), 0], [s * math.sin(a), s * math.cos(a), 0], [0, 0, 1]])
    persp = np.array([[1, 0, 0], [0, 1, 0], [0, tilt / 1000.0, 1]])  # far side (small y) smaller
    to_frame = np.array([[1, 0, w / 2], [0, 1, h / 2], [0, 0, 1]])
    return to_frame @ persp @ rot @ to_centre


def _paste(frame: np.ndarray, image: np.ndarray, to_frame: np.ndarray) -> None:
    """Warp ``image`` (its own px) into ``frame`` through ``to_frame``, only inside its bounding box."""
    ih, iw = image.shape[:2]
    box = cv2.perspectiveTransform(np.array([[[0, 0]], [[iw, 0]], [[iw, ih]], [[0, ih]]], np.float64), to_frame)
    x0, y0 = np.floor(box.reshape(-1, 2).min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(box.reshape(-1, 2).max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64) @ to_frame
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(image, shift, size, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((ih, iw), 255, np.uint8), shift, size, flags=cv2.INTER_LINEAR)
    roi = frame[y0:y1, x0:x1]
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    roi[:] = (warped * alpha + roi * (1 - alpha)).astype(np.uint8)


def card_image(card_id: str, face_up: bool = True) -> np.ndarray:
    """The printed face (or its back when face down) at ``CARD_PX_PER_MM``."""
    card = cat.card(card_id)
    if card.kind == "back":
        return np.asarray(render_back_png(card_id, CARD_PX_PER_MM))
    if face_up:
        return np.asarray(render_card_png(card_id, CARD_PX_PER_MM))
    return np.asarray(render_back_png(cat.back_of(card), CARD_PX_PER_MM))


def placed(centre_mm, angle_deg: float, size_mm) -> np.ndarray:
    """Homography card mm -> table mm for a card lying at ``centre_mm`` turned by ``angle_deg``."""
    w, h = size_mm
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, centre_mm[0]], [s, c, centre_mm[1]], [0, 0, 1]]) @ \
        np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], dtype=np.float64)


def draw_hand(frame: np.ndarray, palm_px: tuple[float, float], scale: float) -> None:
    """An arm reaching in from the frame's bottom edge to a palm with fingers at ``palm_px``."""
    x, y = palm_px
    skin, shade = (110, 150, 205), (90, 125, 180)
    arm = np.array([[x - 45 * scale, y + 40 * scale], [x + 45 * scale, y + 40 * scale],
                    [x + 120 * scale, frame.shape[0] + 10], [x - 30 * scale, frame.shape[0] + 10]], np.int32)
    cv2.fillPoly(frame, [arm], shade)
    cv2.ellipse(frame, (int(x), int(y)), (int(55 * scale), int(65 * scale)), 0, 0, 360, skin, -1)
    for i, dx in enumerate((-40, -15, 10, 35)):
        tip = (int(x + dx * scale), int(y - (110 + 10 * (i % 2)) * scale))
        cv2.line(frame, (int(x + dx * scale), int(y - 30 * scale)), tip, skin, int(20 * scale))
    cv2.line(frame, (int(x + 50 * scale), int(y)), (int(x + 100 * scale), int(y - 50 * scale)), skin, int(22 * scale))


def render(cards, px_per_mm: float = 1.7, seed: int = 0, layout: CalibrationLayout | None = None,
           extra=(), blur: float = 0.8, noise: float = 4.0, jpeg: int = 85, cam: np.ndarray | None = None,
           hand: tuple[float, float] | None = None):
    """A 1920 × 1080 BGR frame of ``cards`` = [(card_id, face_up, (x, y) mm, angle)] in z order on a
    wooden-ish table, with the calibration sheet; ``extra`` = [(image, image-px -> table-mm)] drawn
    after the cards; ``hand``: a hand with its palm over this table point (mm)."""
    rng = np.random.default_rng(seed)       # this frame's sensor noise
    table_rng = np.random.default_rng(12345)  # the same table in every frame
    layout = layout or CalibrationLayout.sheet()
    cam = camera(px_per_mm) if cam is None else cam
    # a wooden table: low-frequency grain, not pixel noise
    grain = cv2.resize(table_rng.normal(0, 1, (34, 60)).astype(np.float32), (1920, 1080), interpolation=cv2.INTER_CUBIC)
    streaks = cv2.resize(table_rng.normal(0, 1, (180, 8)).astype(np.float32), (1920, 1080), interpolation=cv2.INTER_LINEAR)
    wood = 12 * grain + 8 * streaks
    frame = np.clip(np.array([70, 110, 150], np.float32) + wood[..., None], 0, 255).astype(np.uint8)
    # the calibration sheet: white paper with the four markers
    x0, y0, x1, y1 = layout.bounds()
    paper = np.full((int((y1 - y0 + 20) * 4), int((x1 - x0 + 20) * 4), 3), 245, np.uint8)
    _paste(frame, paper, cam @ np.array([[0.25, 0, x0 - 10], [0, 0.25, y0 - 10], [0, 0, 1]]))
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000)
    for card_id, rect in layout.markers.items():
        m = cv2.aruco.generateImageMarker(dictionary, cat.card(card_id).marker, 7 * 20, borderBits=1)
        s = rect.w / m.shape[0]
        _paste(frame, cv2.cvtColor(m, cv2.COLOR_GRAY2BGR), cam @ np.array([[s, 0, rect.x], [0, s, rect.y], [0, 0, 1]]))
    px = 1.0 / CARD_PX_PER_MM
    for card_id, face_up, centre, angle in cards:
        image = card_image(card_id, face_up)
        to_mm = placed(centre, angle, cat.card_size_mm(card_id)) @ np.diag([px, px, 1.0])
        _paste(frame, image, cam @ to_mm)
    for image, to_mm in extra:
        _paste(frame, image, cam @ to_mm)
    if hand is not None:
        palm = cv2.perspectiveTransform(np.array([[hand]], np.float64), cam)[0, 0]
        draw_hand(frame, tuple(palm), px_per_mm / 1.4)
    if blur:
        frame = cv2.GaussianBlur(frame, (0, 0), blur)
    if noise:
        frame = np.clip(frame + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)
    if jpeg:
        frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, jpeg])[1], cv2.IMREAD_COLOR)
    return frame


def _seen(frame, layout=None):
    detector = Detector()
    found = detector.detect(frame)
    cal = calibrate(found.calibration, layout or CalibrationLayout.sheet())
    assert cal is not None, "the calibration markers must be found"
    poses = {}
    for s in found.sightings:
        pose = s.to_table(cal)
        poses.setdefault(s.card_id, []).append(card_pose_mm(map_points(pose, s.outline_card())))
    return found, cal, poses


SCATTER = [("W-R1", True, (-300.0, -100.0), 0.0), ("W-B2", True, (-220.0, 20.0), 10.0),
           ("H-R5", True, (-140.0, -100.0), 20.0), ("S-G7", True, (-60.0, 20.0), 30.0),
           ("P-SA", True, (20.0, -100.0), 40.0), ("C03-7-2", True, (100.0, 20.0), 50.0),
           ("W-PAWN", True, (180.0, -100.0), 60.0), ("H-H3", False, (300.0, 300.0), 30.0)]


@pytest.mark.parametrize("px_per_mm", [1.4, 2.0])
def test_known_placements_recovered_within_a_few_mm(px_per_mm):
    frame = render(SCATTER, px_per_mm=px_per_mm, seed=3)
    found, cal, poses = _seen(frame)
    assert cal.error_mm < 1.0
    assert not found.conflicts
    expected = {("B-HILLY" if not up else cid): (centre, angle) for cid, up, centre, angle in SCATTER}
    assert set(poses) == set(expected)
    for card_id, ((centre, angle),) in poses.items():
        want_centre, want_angle = expected[card_id]
        assert math.dist(centre, want_centre) < 3.0, (card_id, centre, want_centre)
        assert abs((angle - want_angle + 90) % 180 - 90) < 3.0, (card_id, angle, want_angle)  # either way up


def test_calibration_from_table_corners_maps_marker_centres():
    layout = CalibrationLayout.corners(700, 420)
    cam = camera(1.7, centre_mm=(350.0, 210.0), turn=-3.0)
    frame = render([("S-R3", True, (350.0, 210.0), 0.0)], layout=layout, cam=cam, seed=5)
    found, cal, poses = _seen(frame, layout)
    assert cal.markers == ("K-CAL1", "K-CAL2", "K-CAL3", "K-CAL4")
    for card_id, rect in layout.markers.items():
        centre = cal.to_table(found.calibration[card_id]).mean(axis=0)
        assert math.dist(centre, rect.centre) < 1.0
    (centre, _), = poses["S-R3"]
    assert math.dist(centre, (350.0, 210.0)) < 2.0
