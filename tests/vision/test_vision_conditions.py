"""The real table in ``tablesim.synthetic``: a posed camera, lens, blur, glare, a phone screen, light."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion import catalogue as cat
from tablesim import synthetic
from tablesim.synthetic import Conditions
from vision.table.layouts import Placement

TABLE = (1000.0, 620.0)
CARD = Placement("S-R9", True, (500.0, 310.0), 0.0, 0)


def _sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


@pytest.mark.parametrize("elevation,yaw", [(90.0, 0.0), (60.0, 0.0), (45.0, 135.0)])
def test_a_posed_camera_sees_the_table_centre_at_its_scale(elevation, yaw):
    cam = synthetic.Camera.looking_at(TABLE, 1.6, seed=2, conditions=Conditions(elevation=elevation, yaw=yaw,
                                                                                 barrel=0.0))
    centre = np.array([[500.0, 310.0]])
    assert np.abs(cam.project(centre)[0] - (960, 540)).max() < 1.0        # it looks at the centre
    y = math.radians(yaw)
    across, towards = np.array([math.cos(y), -math.sin(y)]), np.array([math.sin(y), math.cos(y)])
    best = cam.resolution(centre, across, towards, worst=False)[0]
    worst = cam.resolution(centre, across, towards)[0]
    e = math.radians(elevation)
    assert (best + worst) / 2 == pytest.approx(1.6, rel=0.01)              # the mean of the two axes
    assert worst / best == pytest.approx(math.sin(e), rel=0.02)            # foreshortened by sin(elevation)
    # the table plane's homography is the 3-D camera's view of z = 0
    pts = np.array([[0.0, 0.0, 0.0], [1000.0, 620.0, 0.0], [200.0, 500.0, 0.0]])
    assert np.allclose(cam.project_3d(pts), cam.project(pts[:, :2]), atol=1e-6)


def test_at_45_degrees_the_far_side_is_seen_coarser_than_the_near_side():
    cam = synthetic.Camera.looking_at(TABLE, 2.0, seed=1, conditions=Conditions(elevation=45.0))
    far = Placement("S-R9", True, (500.0, 120.0), 0.0, 0)       # yaw 0: the camera is on the +y side
    near = Placement("S-B5", True, (500.0, 450.0), 90.0, 1)
    res = synthetic.card_resolution(cam, [far, near])
    assert res.shape == (2, 2)
    assert res[0].max() < 1.35 < res[1].min()
    assert synthetic.visible_truth(cam, [far, near], None, synthetic.VISIBLE_PX_PER_MM) == [1]
    assert synthetic.visible_truth(cam, [far, near]) == [0, 1]           # without the resolution rule


def test_motion_blur_smears_and_a_gradient_darkens_one_side():
    plain = synthetic.Camera.looking_at(TABLE, 1.6, seed=3, conditions=Conditions(elevation=90.0))
    shaky = synthetic.Camera.looking_at(TABLE, 1.6, seed=3, conditions=Conditions(elevation=90.0, motion_blur=7))
    dim = synthetic.Camera.looking_at(TABLE, 1.6, seed=3, conditions=Conditions(elevation=90.0, gradient=0.6))
    # (without the sensor's noise, which is added after the smear and is as sharp in both)
    still, _ = synthetic.render(plain, [CARD], seed=1, effects=synthetic.Effects(noise=0))
    smeared, _ = synthetic.render(shaky, [CARD], seed=1, effects=synthetic.Effects(noise=0))
    assert _sharpness(smeared) < 0.5 * _sharpness(still)
    lit, _ = synthetic.render(dim, [CARD], seed=1)
    ratio = cv2.cvtColor(lit, cv2.COLOR_BGR2GRAY).astype(float) / np.maximum(cv2.cvtColor(still, cv2.COLOR_BGR2GRAY), 8)
    small = cv2.resize(ratio, (16, 9), interpolation=cv2.INTER_AREA)
    assert small.min() < 0.6 and small.max() > 1.05


def test_glare_hides_markers_and_the_truth_knows_it():
    cam = synthetic.Camera.looking_at(TABLE, 1.6, seed=4, conditions=Conditions(elevation=80.0, glare=8))
    cards = [Placement(f"S-R{v}", True, (150.0 + 100 * v, 310.0), 0.0, v) for v in range(1, 8)]
    shot = synthetic.render_frame(cam, cards, seed=2)
    assert shot.glare is not None and shot.glare.any()
    assert shot.image[shot.glare > 0].mean() > 240                       # saturated cores
    hidden = synthetic.visible_truth(cam, cards, shot.hidden)
    assert len(hidden) < len(synthetic.visible_truth(cam, cards))         # some card lost both markers


def test_a_phone_over_the_table_shows_a_card_that_is_not_on_it():
    cam = synthetic.Camera.looking_at(TABLE, 1.8, seed=5, conditions=Conditions(elevation=70.0, screen=True))
    shot = synthetic.render_frame(cam, [CARD], seed=1)
    screen = shot.screen
    assert screen is not None and screen.card_id != CARD.card_id
    assert cat.card(screen.card_id).game == "spartacus"
    assert 60 <= screen.height_mm <= 250
    # its marker is in the picture, readable (the detector must not take it for a card on the table)
    assert cat.card(screen.card_id).marker in synthetic.aruco_ids(shot.image)
    # off the table plane: the phone's outline is not its footprint on the table
    w, h = synthetic.PHONE_MM
    sides = np.linalg.norm(np.roll(screen.outline, -1, axis=0) - screen.outline, axis=1)
    assert max(sides[0], sides[2]) / w > 1.02 * cam.px_per_mm * 0.9 or sides.max() / h > 1.05 * cam.px_per_mm


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float64)


def test_a_dim_room_is_darker_and_noisier():
    lit = synthetic.Camera.looking_at(TABLE, 1.6, seed=6, conditions=Conditions(elevation=80.0))
    dim = synthetic.Camera.looking_at(TABLE, 1.6, seed=6, conditions=Conditions(elevation=80.0, dim=0.6))
    bright, _ = synthetic.render(lit, [CARD], seed=1)
    dark, _ = synthetic.render(dim, [CARD], seed=1)
    assert np.median(_grey(dark)) < 0.8 * np.median(_grey(bright))
    # the sensor's gain: two frames of the same still table differ by more noise
    noise = [float(np.std(_grey(synthetic.render(cam, [CARD], seed=2)[0]) - _grey(frame)))
             for cam, frame in ((lit, bright), (dim, dark))]
    assert noise[1] > 1.5 * noise[0]


def test_shadows_darken_part_of_the_table_and_stay_put():
    cards = [Placement(f"S-R{v}", True, (150.0 + 100 * v, 310.0), 0.0, v) for v in range(1, 8)]
    plain = synthetic.Camera.looking_at(TABLE, 1.6, seed=7, conditions=Conditions(elevation=75.0))
    leaning = synthetic.Camera.looking_at(TABLE, 1.6, seed=7, conditions=Conditions(elevation=75.0, shadows=3))
    lit, _ = synthetic.render(plain, cards, seed=1)
    first, _ = synthetic.render(leaning, cards, seed=1)
    second, _ = synthetic.render(leaning, cards, seed=2)
    ratio = cv2.resize(_grey(first) / np.maximum(_grey(lit), 8), (48, 27), interpolation=cv2.INTER_AREA)
    assert ratio.min() < 0.65 and np.median(ratio) > 0.9           # dark patches, most of it lit
    again = cv2.resize(_grey(second) / np.maximum(_grey(lit), 8), (48, 27), interpolation=cv2.INTER_AREA)
    assert np.abs(again - ratio).max() < 0.1                        # where they were a frame ago


def test_a_lens_focused_on_the_centre_blurs_the_near_and_far_edges():
    cards = [Placement("S-R9", True, (500.0, y), 0.0, i) for i, y in enumerate((100.0, 310.0, 560.0))]
    sharp = synthetic.Camera.looking_at(TABLE, 1.8, seed=8, conditions=Conditions(elevation=45.0, barrel=0.0))
    soft = synthetic.Camera.looking_at(TABLE, 1.8, seed=8, conditions=Conditions(elevation=45.0, barrel=0.0,
                                                                                 defocus=4.0))
    a, _ = synthetic.render(sharp, cards, seed=1)
    b, _ = synthetic.render(soft, cards, seed=1)

    def sharpness_at(image, card):
        x, y = sharp.project(np.array([card.centre]))[0].astype(int)
        return _sharpness(image[y - 30:y + 30, x - 30:x + 30])
    centre, near = cards[1], cards[2]
    assert sharpness_at(b, centre) > 0.8 * sharpness_at(a, centre)      # in focus
    assert sharpness_at(b, near) < 0.5 * sharpness_at(a, near)          # the near edge is not


@pytest.mark.parametrize("kind", ["phone night", "phone flat", "tablet"])
def test_the_other_screens_are_warm_dim_low_or_large_as_named(kind):
    device = synthetic.SCREENS[kind]
    cam = synthetic.Camera.looking_at(TABLE, 1.8, seed=5, conditions=Conditions(elevation=70.0, screen=kind))
    shot = synthetic.render_frame(cam, [CARD], seed=1)
    screen = shot.screen
    assert screen.card_id != CARD.card_id and device.height_mm[0] <= screen.height_mm <= device.height_mm[1]
    inside = np.zeros(shot.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, np.round(screen.outline).astype(np.int32), 255)
    picture = shot.image[inside > 0].reshape(-1, 3).astype(float)
    white = picture[picture.sum(axis=1) >= np.percentile(picture.sum(axis=1), 95)].mean(axis=0)   # B, G, R
    centre = np.round(cam.project(np.array([CARD.centre]))[0]).astype(int)
    assert white[2] > white[0] + 5, white                # warm: redder than blue, unlike the phone
    if kind != "tablet":                                  # dimmer than the paper of the card lying there
        assert white.mean() < shot.image[centre[1] - 3:centre[1] + 3, centre[0] - 30:centre[0] + 30].max() - 20
    # the phone's or tablet's size in the frame: a tablet is more than twice a phone's area
    area = cv2.contourArea(screen.outline.astype(np.float32)) / (cam.px_per_mm * math.sqrt(math.sin(math.radians(70)))) ** 2
    assert (area > 2.2 * 72 * 150) == (kind == "tablet")
    if kind == "phone flat":                              # flat: its outline keeps the phone's shape
        sides = np.linalg.norm(np.roll(screen.outline, -1, axis=0) - screen.outline, axis=1)
        assert 1.7 < max(sides) / min(sides) < 2.6


def test_conditions_say_what_is_wrong():
    with pytest.raises(ValueError, match="needs a pinhole camera"):
        Conditions(screen=True)
    with pytest.raises(ValueError, match="screen must be one of"):
        Conditions(elevation=70.0, screen="television")
    assert Conditions(elevation=70.0, screen=True).screen == "phone"
    with pytest.raises(ValueError, match="elevation"):
        Conditions(elevation=10.0)
    with pytest.raises(ValueError, match="defocus needs a pinhole camera"):
        Conditions(defocus=2.0)
    with pytest.raises(ValueError, match="dim 0–0.8"):
        Conditions(elevation=80.0, dim=0.95)
