"""Frames for the phone-camera tests: a dealt Wheel of History table rendered from our printed
cards (``vision.synthetic``), as images, JPEGs or a Y4M file for Chromium's fake camera."""
from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np

from companion.engine import simulate
from companion.games import new_game
from vision import layouts, synthetic


ANGLED = synthetic.Conditions(elevation=65)
"""A phone on a stand at the table's near edge, 65° above the table: its far side reads too small."""


def dealt_wheel(count: int = 3, seed: int = 1, px_per_mm: float = 1.6,
                conditions: synthetic.Conditions = ANGLED) -> tuple[list[np.ndarray], dict]:
    """``count`` BGR frames (1920 × 1080) of a three-player Wheel of History table just after the
    deal (25 cards in the circle) seen through ``conditions`` at ``px_per_mm`` in the middle, and
    the engine layout they show."""
    deal = simulate(new_game("wheel", 3, {}), seed).turns[0][0]
    after = new_game("wheel", 3, {})
    after.apply(deal)
    table = layouts.table_size("wheel", 3)
    placed = layouts.place("wheel", after.layout(), 3, random.Random(seed))
    cam = synthetic.Camera.looking_at(table, px_per_mm, seed, conditions=conditions)
    return [synthetic.render(cam, placed, i)[0] for i in range(count)], after.layout()



def jpeg(image: np.ndarray, quality: int = 90) -> bytes:
    """A frame as a phone sends it."""
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()


def write_y4m(path: Path, frames: list[np.ndarray], fps: int = 5) -> Path:
    """A raw YUV 4:2:0 video (Chromium's ``--use-file-for-fake-video-capture`` format) of BGR frames."""
    h, w = frames[0].shape[:2]
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in frames:
            f.write(b"FRAME\n")
            f.write(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())
    return path


def pinhole_camera(table: tuple[float, float], elevation_deg: float, distance_mm: float,
                   yaw_deg: float = 0.0, shift_mm: tuple[float, float] = (0, 0),
                   seed: int = 0) -> synthetic.Camera:
    """A posed pinhole camera (``vision.synthetic``'s, no lens distortion) ``distance_mm`` from the
    table's centre moved by ``shift_mm``, ``elevation_deg`` above the table at ``yaw_deg`` around
    it: a phone on a stand placed by hand, not necessarily aimed at the middle."""
    w, h = table
    pose = synthetic.pose_looking_at((w / 2 + shift_mm[0], h / 2 + shift_mm[1]), elevation_deg,
                                     yaw_deg, distance_mm)
    conditions = synthetic.Conditions(elevation=elevation_deg, yaw=yaw_deg, barrel=0.0)
    cam = synthetic.Camera(table, pose.focal / distance_mm, pose.homography(), 0.0, seed,
                           conditions=conditions, pose=pose)
    cam._frame_world()     # noqa: SLF001 — the renderer's own set-up, for a target off the centre
    return cam
