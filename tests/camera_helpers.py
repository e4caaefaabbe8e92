"""Frames for the phone-camera tests: a dealt Wheel of History table rendered from our printed
cards (``benchmarks.camera.dealt_wheel``, a phone 65° above the table), as images, JPEGs or a Y4M
file for Chromium's fake camera; and a pinhole camera placed by hand."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tablesim import synthetic
from benchmarks.camera import dealt_wheel, jpeg  # noqa: F401  (the tests' frames: the bench's)


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
    """A posed pinhole camera (``tablesim.synthetic``'s, no lens distortion) ``distance_mm`` from the
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
