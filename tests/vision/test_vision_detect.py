"""Detection and calibration on frames rendered from the printed card faces (printables.raster,
through benchmarks.vision.render)."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from benchmarks.vision import camera, render
from vision.reading.detect import Detector, card_pose_mm, map_points
from vision.table.calibrate import CalibrationLayout, calibrate, distort, rect_corners


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


@pytest.mark.parametrize("k", [-0.04, 0.0, 0.03])
def test_calibration_finds_the_lens_distortion_from_corner_markers(k):
    layout = CalibrationLayout.corners(1200, 700)
    cam = camera(1.45, centre_mm=(600.0, 350.0), turn=1.0, tilt=0.04)
    rng = np.random.default_rng(4)

    def seen_at(points_mm):
        px = cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(-1, 1, 2), cam).reshape(-1, 2)
        return distort(px, k, (1920, 1080))

    markers = {cid: seen_at(rect_corners(r)) + rng.normal(0, 0.3, (4, 2)) for cid, r in layout.markers.items()}
    cal = calibrate(markers, layout)
    assert abs(cal.k - k) < 0.01
    grid = np.array([(x, y) for x in range(60, 1200, 120) for y in range(60, 700, 80)], np.float64)
    assert np.abs(cal.to_table(seen_at(grid)) - grid).max() < 1.5
    assert np.abs(cal.to_image(grid) - seen_at(grid)).max() < 2.0
