"""Table calibration: the homography from image pixels to table millimetres.

The table's frame is the calibration pattern's: the outer top-left corner of K-CAL1 is (0, 0), x runs
towards K-CAL2 and y towards K-CAL4 (both in millimetres). Two patterns are known:

* ``CalibrationLayout.sheet()`` — the calibration sheet (``companion print tokens`` prints it after the tokens):
  four 40 mm markers spanning 190 × 250 mm, laid flat anywhere on the table (the default);
* ``CalibrationLayout.corners(w, h)`` — the same four markers cut out and laid in the corners of a
  ``w`` × ``h`` mm play area, K-CAL1 top-left, 2 top-right, 3 bottom-right, 4 bottom-left, upright.

Every visible K-CAL marker gives four point pairs; three or more markers give a homography good to
about a millimetre across a 1 m table (lens distortion aside). Seats come from the seat tokens
T-SEAT1..10, seen as cards (see ``vision.reading.detect``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from companion import catalogue as cat

TABLE_W_MM = 1000.0
TABLE_H_MM = 620.0
"""Default play area for ``CalibrationLayout.corners()``."""

MIN_MARKERS = 2
"""Fewer K-CAL markers than this do not calibrate (one 40 mm marker says too little about 1 m)."""


def rect_corners(rect: cat.Rect) -> np.ndarray:
    """A printed marker's four corners in OpenCV's corner order (corner 0 first), shape (4, 2)."""
    x0, y0, x1, y1 = rect.x, rect.y, rect.x + rect.w, rect.y + rect.h
    upright = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    return upright if rect.rotation == 0 else np.roll(upright, 2, axis=0)


@dataclass(frozen=True)
class CalibrationLayout:
    """Where the K-CAL markers lie in table millimetres."""

    name: str
    markers: dict[str, cat.Rect]

    @classmethod
    def sheet(cls) -> "CalibrationLayout":
        """The printed calibration sheet: the table frame is the sheet's marker pattern."""
        return cls("sheet", dict(cat.calibration_marker_rects()))

    @classmethod
    def corners(cls, width: float = TABLE_W_MM, height: float = TABLE_H_MM,
                size: float = cat.CALIBRATION_MARKER_MM) -> "CalibrationLayout":
        """Four markers in the corners of a ``width`` × ``height`` mm play area, upright."""
        if width <= 2 * size or height <= 2 * size:
            raise ValueError(f"a {width:g} × {height:g} mm area cannot hold four {size:g} mm markers")
        spots = ((0, 0), (width - size, 0), (width - size, height - size), (0, height - size))
        return cls("corners", {f"K-CAL{i + 1}": cat.Rect(x, y, size, size)
                               for i, (x, y) in enumerate(spots)})

    def bounds(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the pattern's outer rectangle in table mm."""
        pts = np.vstack([rect_corners(r) for r in self.markers.values()])
        return (*pts.min(axis=0), *pts.max(axis=0))


@dataclass(frozen=True)
class Calibration:
    """Image pixels to table millimetres: the lens's radial distortion undone (one-parameter
    division model about the frame's centre: undistorted = c + (p - c)(1 + k r²), r relative to the
    half-diagonal), then a homography; with how well it fits the K-CAL corners."""

    homography: np.ndarray      # 3 × 3, undistorted image px -> table mm
    markers: tuple[str, ...]    # K-CAL ids it was computed from
    error_mm: float             # RMS distance of the marker corners after mapping
    k: float = 0.0              # radial distortion (0: a pinhole camera)
    frame: tuple[int, int] = (1920, 1080)

    @cached_property
    def inverse(self) -> np.ndarray:
        """The homography table mm -> undistorted image px."""
        return np.linalg.inv(self.homography)

    def to_table(self, points_px: np.ndarray) -> np.ndarray:
        """Map image points (N, 2) to table millimetres (N, 2)."""
        pts = undistort(np.asarray(points_px, dtype=np.float64).reshape(-1, 2), self.k, self.frame)
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.homography).reshape(-1, 2)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Map table millimetres (N, 2) to image points (N, 2)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return distort(cv2.perspectiveTransform(pts, self.inverse).reshape(-1, 2), self.k, self.frame)

    def px_per_mm(self, at_mm: tuple[float, float] = (0.0, 0.0)) -> float:
        """Image pixels per table millimetre near a table point (the camera's resolution there)."""
        x, y = at_mm
        px = self.to_image(np.array([[x, y], [x + 10, y], [x, y + 10]]))
        return float((np.linalg.norm(px[1] - px[0]) + np.linalg.norm(px[2] - px[0])) / 20)


def undistort(points: np.ndarray, k: float, frame: tuple[int, int]) -> np.ndarray:
    """Image points as a distortion-free lens would show them (division model, see Calibration)."""
    if k == 0.0:
        return points
    c = np.array(frame, np.float64) / 2
    r2 = (((points - c) / np.linalg.norm(c)) ** 2).sum(axis=-1, keepdims=True)
    return c + (points - c) * (1 + k * r2)


def distort(points: np.ndarray, k: float, frame: tuple[int, int]) -> np.ndarray:
    """The inverse of ``undistort`` (by fixed-point iteration; the distortion is small)."""
    if k == 0.0:
        return points
    c = np.array(frame, np.float64) / 2
    norm = np.linalg.norm(c)
    d = points - c
    out = d.copy()
    for _ in range(8):
        out = d / (1 + k * ((out / norm) ** 2).sum(axis=-1, keepdims=True))
    return c + out


MAX_K = 0.1
"""Largest radial distortion searched for (a webcam's barrel or pincushion at the frame's corner)."""


def _fit(src: np.ndarray, dst: np.ndarray, k: float, frame: tuple[int, int]) -> tuple[float, np.ndarray | None]:
    und = undistort(src, k, frame)
    homography, _ = cv2.findHomography(und, dst, 0)
    if homography is None:
        return float("inf"), None
    mapped = cv2.perspectiveTransform(und.reshape(-1, 1, 2), homography).reshape(-1, 2)
    return float(np.sqrt(np.mean(np.sum((mapped - dst) ** 2, axis=1)))), homography


def _normaliser(pts: np.ndarray) -> np.ndarray:
    """(..., 3, 3) similarity taking points (..., N, 2) to centroid 0, mean distance √2 (Hartley)."""
    centre = pts.mean(axis=-2)
    spread = np.linalg.norm(pts - centre[..., None, :], axis=-1).mean(axis=-1)
    s = np.sqrt(2) / np.maximum(spread, 1e-12)
    t = np.zeros(pts.shape[:-2] + (3, 3))
    t[..., 0, 0] = t[..., 1, 1] = s
    t[..., 0, 2], t[..., 1, 2] = -s * centre[..., 0], -s * centre[..., 1]
    t[..., 2, 2] = 1
    return t


def _misfits(src: np.ndarray, dst: np.ndarray, ks: np.ndarray, frame: tuple[int, int]) -> np.ndarray:
    """RMS misfit (table mm) of the best homography for each lens k in ``ks`` at once (normalised
    DLT, solved together: the search over k costs one batch instead of one findHomography per k)."""
    c = np.array(frame, np.float64) / 2
    r2 = (((src - c) / np.linalg.norm(c)) ** 2).sum(axis=-1)                # (N,)
    und = c + (src - c)[None] * (1 + np.asarray(ks)[:, None, None] * r2[None, :, None])   # (K, N, 2)
    ts, td = _normaliser(und), _normaliser(dst)
    a = np.einsum("kij,knj->kni", ts[:, :2, :2], und) + ts[:, None, :2, 2]
    b = (td[:2, :2] @ dst.T).T + td[:2, 2]
    n, one, zero = len(dst), np.ones((len(ks), len(dst))), np.zeros((len(ks), len(dst)))
    x, y = a[..., 0], a[..., 1]
    u, v = np.broadcast_to(b[:, 0], (len(ks), n)), np.broadcast_to(b[:, 1], (len(ks), n))
    rows = np.concatenate([
        np.stack([x, y, one, zero, zero, zero, -u * x, -u * y, -u], axis=-1),
        np.stack([zero, zero, zero, x, y, one, -v * x, -v * y, -v], axis=-1)], axis=1)
    # the null vector of each system: the eigenvector of AᵀA with the smallest eigenvalue (the
    # points are normalised, so squaring the system costs no accuracy that matters for choosing k)
    h = np.linalg.eigh(np.swapaxes(rows, 1, 2) @ rows)[1][:, :, 0].reshape(-1, 3, 3)
    h = np.linalg.inv(td) @ h @ ts
    mapped = np.einsum("kij,knj->kni", h, np.concatenate([und, np.ones(und.shape[:2] + (1,))], axis=-1))
    mapped = mapped[..., :2] / mapped[..., 2:]
    return np.sqrt(np.mean(np.sum((mapped - dst) ** 2, axis=-1), axis=-1))


def calibrate(seen: dict[str, np.ndarray], layout: CalibrationLayout,
              frame: tuple[int, int] = (1920, 1080)) -> Calibration | None:
    """The calibration from K-CAL marker corners seen in the image (id -> (4, 2) px, OpenCV order),
    or None when fewer than ``MIN_MARKERS`` of the layout's markers are in view. With all four
    markers spread over most of the frame (K-CAL in the table's corners), the lens's radial
    distortion is found too (the k that lets one homography fit best, coarse then fine search), if
    it cuts the misfit by a fifth at least; otherwise the lens is taken as distortion-free."""
    used = sorted(k for k in seen if k in layout.markers)
    if len(used) < MIN_MARKERS:
        return None
    src = np.vstack([np.asarray(seen[k], dtype=np.float64).reshape(4, 2) for k in used])
    dst = np.vstack([rect_corners(layout.markers[k]) for k in used])
    best_k = 0.0
    spread = np.ptp(src, axis=0) / np.array(frame, np.float64)
    if len(used) == 4 and spread.min() > 0.5:
        # only markers spread over the frame tell the lens's bending from the table's perspective
        for span in (MAX_K, MAX_K / 10, MAX_K / 100):
            grid = np.linspace(best_k - span, best_k + span, 21)
            best_k = float(grid[int(np.argmin(_misfits(src, dst, grid, frame)))])
        if _fit(src, dst, best_k, frame)[0] > 0.8 * _fit(src, dst, 0.0, frame)[0]:
            best_k = 0.0        # no clear gain: noise, not a lens
    error, homography = _fit(src, dst, best_k, frame)
    if homography is None:
        return None
    return Calibration(homography, tuple(used), error, best_k, frame)
