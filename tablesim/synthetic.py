"""Synthetic camera frames of a card table, rendered from the printed cards themselves.

A ``Camera`` looks down on a table plan (``vision.table.layouts``): a wooden table with clutter, the cards
rasterised from the printables' own PDF pages (``printables.raster``), perspective and lens
distortion, uneven light, blur, sensor noise, JPEG, and sometimes a hand over the table. Rendering is
built for a small machine: card rasters are made once per scale, each card is pasted into a
table-millimetre image with one ``warpAffine`` of its bounding box, and one precomputed ``remap``
takes the table image to the 1920 × 1080 camera frame (perspective and lens together).

``Conditions`` says what kind of table the camera sees (the defaults are the near-overhead camera
above): a real pinhole camera at any elevation (45°–90°) and yaw, barrel distortion, motion blur,
glare spots, a phone screen held over the table showing a card, a lighting gradient. The table itself
may be a calm wood (the default), a busy wood grain, a cloth, a patterned tablecloth or a glass
table with reflections (``Conditions.surface``). Ground truth per frame (``visible_truth``) can
also require the resolution a marker needs (``card_resolution``: px/mm along the card's worse axis,
from the projection's local Jacobian).

``frames_for_game`` plays an engine game (``companion.engine.simulate``) and yields still frames of
every state and hand frames between moves, each with its ground truth; ``game_video`` is the cheap
whole-game stream of the end-to-end tests (each table state rendered once, a hand lying over a card
of the deal if asked).
"""
from __future__ import annotations

import contextlib
import itertools
import math
import random
import threading
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Iterator, Sequence

import cv2
import numpy as np

from companion import catalogue as cat
from companion.engine import simulate
from companion.games import new_game
from vision.table import layouts
from vision.table.layouts import Cover, Placement, card_size, marker_squares
from tablesim.scripted import pre_ruling_layouts

FRAME_SIZE = (1920, 1080)
SCALES = (1.2, 1.4, 1.7, 2.0)
SUPERSAMPLE = 1.25       # the table image is drawn this much finer than the camera sees it
MARGIN_PX = 20           # the calibrated table must lie this far inside the frame
MAX_TURN = 1.5           # degrees the camera is turned against the table at most
CALIBRATION_QUIET_MM = 5.0   # white paper left around a cut-out K-CAL marker
MAX_TILT = 0.04          # how much narrower the far edge looks at most (perspective)
FOCAL_PX = 1500.0        # a webcam's focal length at 1080p (about 65° across the frame)
MAX_WORLD_SCALE = 4.0    # table-image px/mm at most (a steep camera sees its near edge large)
WORLD_MARGIN_MM = 250.0  # how much of the room around the table a posed camera's table image holds
FLOOR = (52, 58, 66)     # the floor beyond that (BGR)
VISIBLE_PX_PER_MM = 1.35
SURFACE_NAMES = ("wood", "busy wood", "cloth", "tablecloth", "glass")
"""The table surfaces (``Conditions.surface``, drawn by ``SURFACES``)."""
"""A card counts as visible (in ``conditions`` ground truth) when one of its unobscured markers is
seen at least this fine along the card's worse axis: below it a 15 mm marker is under 20 px."""


@contextlib.contextmanager
def frame_size(size: tuple[int, int]) -> Iterator[None]:
    """Frames of ``size`` (w, h px) inside this block, e.g. a 4K camera's (its cameras keep their
    maps: make and use them inside)."""
    global FRAME_SIZE
    before = FRAME_SIZE
    FRAME_SIZE = size
    try:
        yield
    finally:
        FRAME_SIZE = before


# ----------------------------------------------------------------- card rasters
@lru_cache(maxsize=4096)
def raster(shown_id: str, px_per_mm: float) -> np.ndarray:
    """The printed face (or back, for a ``B-`` id) of a card at ``px_per_mm``, BGR, cached."""
    if shown_id.startswith("K-CAL"):
        return _calibration_marker(shown_id, px_per_mm)
    from printables.raster import render_back_png, render_card_png
    if shown_id.startswith("B-"):
        return np.asarray(render_back_png(shown_id, px_per_mm))
    return np.asarray(render_card_png(shown_id, px_per_mm))


def _calibration_marker(card_id: str, px_per_mm: float) -> np.ndarray:
    """A K-CAL marker cut out of the calibration sheet with a white margin around it."""
    side = max(int(round(card_size(card_id)[0] * px_per_mm)), 7)
    quiet = int(round(CALIBRATION_QUIET_MM * px_per_mm))
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, cat.MARKER_DICTIONARY))
    marker = cv2.aruco.generateImageMarker(dictionary, cat.card(card_id).marker, 7 * 16, borderBits=1)
    marker = cv2.resize(marker, (side, side), interpolation=cv2.INTER_AREA)
    marker = cv2.copyMakeBorder(marker, quiet, quiet, quiet, quiet, cv2.BORDER_CONSTANT, value=245)
    return cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR)


# ----------------------------------------------------------------- the conditions
@dataclass(frozen=True)
class Conditions:
    """What kind of table the camera sees. The defaults are the near-overhead camera (a few per
    cent of perspective, a slight random lens) and nothing else.

    ``elevation`` (degrees above the table, 45–90) and ``yaw`` (degrees around it; 0 = the camera
    on the table's bottom edge, the side nearest K-CAL4 and K-CAL3) place a real pinhole camera
    looking at the table's centre; ``barrel`` is its lens (division model k, see
    ``vision.table.calibrate``; None = a random slight lens); ``motion_blur`` a linear smear of that
    many px in a random direction; ``glare`` the number of specular spots (about half over
    markers); ``screen`` a screen held over the table showing a card of the game that is not on
    it: True or "phone" (a bright bluish phone held up), "phone night" (a warm night-mode white,
    dimmer than paper), "phone flat" (the same held flat just over the table), "tablet" (the card
    at its printed size, held low), see ``SCREENS``; ``gradient`` how much darker one side of the
    table is (0.5 = half as bright).

    Three more a real table has and the first renderer did not: ``dim`` how much less light the
    room has (0.6 = 40 %): the camera raises its gain, so the frame is darker, noisier and its JPEG
    coarser; ``shadows`` the number of people leaning over the table, each casting a soft-edged
    shadow across the cards that stays put; ``defocus`` the blur circle (px across) where the
    table is farthest from the distance the lens is focused at (the table's centre), as a
    phone's wide aperture shows a 45° table (a pinhole camera only).

    ``surface``: what the table is (``SURFACES``): the calm "wood" every earlier frame shows, or
    "busy wood" (a busy grain with knots and seams), "cloth", "tablecloth" (gingham with printed
    flowers) or "glass" (dark, with reflections)."""

    elevation: float | None = None
    yaw: float = 0.0
    barrel: float | None = None
    motion_blur: float = 0.0
    glare: int = 0
    screen: bool | str = False
    gradient: float = 0.0
    dim: float = 0.0
    shadows: int = 0
    defocus: float = 0.0
    surface: str = "wood"

    def __post_init__(self) -> None:
        if self.elevation is not None and not 30.0 <= self.elevation <= 90.0:
            raise ValueError(f"elevation must be 30–90° above the table, not {self.elevation}")
        if self.screen and self.elevation is None:
            raise ValueError("a phone screen held over the table needs a pinhole camera: give an elevation")
        if self.screen is True:
            object.__setattr__(self, "screen", "phone")
        if self.screen and self.screen not in SCREENS:
            raise ValueError(f"screen must be one of {', '.join(SCREENS)}, not {self.screen!r}")
        if self.barrel is not None and abs(self.barrel) > 0.3:
            raise ValueError(f"barrel must be within ±0.3, not {self.barrel}")
        if not 0.0 <= self.motion_blur <= 30.0 or not 0.0 <= self.gradient < 1.0 or self.glare < 0:
            raise ValueError("motion_blur 0–30 px, gradient 0–1 and glare ≥ 0 spots")
        if not 0.0 <= self.dim <= 0.8 or self.shadows < 0 or not 0.0 <= self.defocus <= 12.0:
            raise ValueError("dim 0–0.8, shadows ≥ 0 and defocus 0–12 px")
        if self.defocus and self.elevation is None:
            raise ValueError("defocus needs a pinhole camera (its depth): give an elevation")
        if self.surface not in SURFACE_NAMES:
            raise ValueError(f"surface must be one of {', '.join(SURFACE_NAMES)}, not {self.surface!r}")

    @property
    def device(self) -> "Device | None":
        """The screen held over the table (``SCREENS``), or None."""
        return SCREENS[self.screen] if self.screen else None

    @property
    def pinhole(self) -> bool:
        """Whether the camera is a posed pinhole camera (else today's near-overhead one)."""
        return self.elevation is not None


OVERHEAD = Conditions(elevation=90.0)


# ----------------------------------------------------------------- the camera
@dataclass(frozen=True)
class Pose:
    """Where a pinhole camera is: rotation (rows: image right, image down, forward), centre (table
    mm, z negative above the table) and focal length (px)."""

    rotation: np.ndarray
    centre: np.ndarray
    focal: float

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Undistorted frame px of 3-D points (N×3 table mm; z < 0 above the table)."""
        cam = (np.asarray(points, np.float64) - self.centre) @ self.rotation.T
        c = np.array(FRAME_SIZE, np.float64) / 2
        return c + self.focal * cam[:, :2] / cam[:, 2:3]

    def homography(self) -> np.ndarray:
        """Table mm (z = 0) -> undistorted frame px."""
        k = np.array([[self.focal, 0, FRAME_SIZE[0] / 2], [0, self.focal, FRAME_SIZE[1] / 2], [0, 0, 1]])
        r = self.rotation
        h = k @ np.column_stack([r[:, 0], r[:, 1], -r @ self.centre])
        return h / h[2, 2]


def pose_looking_at(target: tuple[float, float], elevation: float, yaw: float, distance: float,
                    roll: float = 0.0) -> Pose:
    """A pinhole camera ``distance`` mm from a table point, ``elevation`` degrees above the table,
    at ``yaw`` degrees around it (0: on the +y side, the table's far side at the top of the frame),
    turned by ``roll`` degrees about its axis."""
    e, y = math.radians(elevation), math.radians(yaw)
    side = np.array([math.sin(y), math.cos(y), 0.0])            # from the target towards the camera
    centre = np.array([target[0], target[1], 0.0]) + distance * (math.cos(e) * side + math.sin(e) * np.array([0, 0, -1.0]))
    forward = (np.array([target[0], target[1], 0.0]) - centre) / distance
    right = np.array([math.cos(y), -math.sin(y), 0.0])
    right -= forward * (right @ forward)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    r = math.radians(roll)
    right, down = math.cos(r) * right + math.sin(r) * down, -math.sin(r) * right + math.cos(r) * down
    return Pose(np.array([right, down, forward]), centre, FOCAL_PX)


@dataclass
class Camera:
    """A fixed webcam over a table: homography table mm -> undistorted px, lens, light, world image."""

    table: tuple[float, float]
    px_per_mm: float
    homography: np.ndarray            # table mm -> undistorted frame px
    k: float                          # lens (division model): undistorted = c + d · (1 + k·r²)
    seed: int
    world_origin: tuple[float, float] = (0.0, 0.0)
    world_scale: float = 1.0
    conditions: Conditions = Conditions()
    pose: Pose | None = None
    _levels: list | None = field(default=None, repr=False)
    _maps: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _light: np.ndarray | None = field(default=None, repr=False)
    _background: np.ndarray | None = field(default=None, repr=False)
    _noise: tuple[float, np.ndarray] | None = field(default=None, repr=False)
    _shadow: tuple[Any, np.ndarray] | None = field(default=None, repr=False)
    _defocus: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def looking_at(cls, table: tuple[float, float], px_per_mm: float, seed: int = 0,
                   whole_table: bool = True, conditions: Conditions = Conditions()) -> "Camera":
        """A camera centred on ``table`` (w, h mm) at about ``px_per_mm`` in the middle, slightly
        turned and tilted; raises ValueError when the table does not fit the frame at that scale,
        unless ``whole_table`` is False (a close camera: the table's edges fall outside the frame).
        With a pinhole ``conditions`` (an elevation), a posed camera looking at the table's centre
        instead, at a distance giving ``px_per_mm`` there (the mean of the scales across and along
        its line of sight); its table may reach out of the frame."""
        fits = max_px_per_mm(table)
        if px_per_mm <= 0:
            raise ValueError(f"px_per_mm must be positive, not {px_per_mm}")
        if conditions.pinhole:
            return cls._posed(table, px_per_mm, seed, conditions)
        if whole_table and px_per_mm > fits:
            raise ValueError(f"a {table[0]:g} × {table[1]:g} mm table does not fit a "
                             f"{FRAME_SIZE[0]}×{FRAME_SIZE[1]} frame at {px_per_mm:g} px/mm: at most "
                             f"{fits:.2f} px/mm (choose a smaller scale, or whole_table=False for a "
                             "close camera that sees only the middle)")
        rng = random.Random(f"camera:{seed}")
        w, h = table
        fw, fh = FRAME_SIZE
        turn = math.radians(rng.uniform(-MAX_TURN, MAX_TURN))
        tilt = rng.uniform(0.01, MAX_TILT)           # the far edge looks this much narrower
        corners = np.array([(0, 0), (w, 0), (w, h), (0, h)], dtype=np.float64)
        out = []
        for x, y in corners:
            dx, dy = (x - w / 2) * px_per_mm, (y - h / 2) * px_per_mm
            dx *= 1 + (tilt if y > h / 2 else -tilt)
            rx = dx * math.cos(turn) - dy * math.sin(turn)
            ry = dx * math.sin(turn) + dy * math.cos(turn)
            out.append((fw / 2 + rx + rng.uniform(-4, 4), fh / 2 + ry + rng.uniform(-4, 4)))
        homography = cv2.getPerspectiveTransform(corners.astype(np.float32), np.array(out, np.float32))
        k = rng.uniform(-0.04, 0.04)
        cam = cls(table, px_per_mm, homography.astype(np.float64), k if conditions.barrel is None else conditions.barrel,
                  seed, conditions=conditions)
        cam._frame_world()
        return cam

    @classmethod
    def _posed(cls, table: tuple[float, float], px_per_mm: float, seed: int, conditions: Conditions) -> "Camera":
        rng = random.Random(f"camera:{seed}")
        e = math.radians(conditions.elevation)
        # at the target the table's two axes are seen at f/d and f·sin(e)/d px/mm
        distance = FOCAL_PX * (1 + math.sin(e)) / (2 * px_per_mm)
        pose = pose_looking_at((table[0] / 2, table[1] / 2), conditions.elevation, conditions.yaw, distance,
                               rng.uniform(-MAX_TURN, MAX_TURN))
        k = rng.uniform(-0.02, 0.02) if conditions.barrel is None else conditions.barrel
        cam = cls(table, px_per_mm, pose.homography(), k, seed, conditions=conditions, pose=pose)
        cam._frame_world()
        return cam

    # -- geometry
    def _undistort(self, pts: np.ndarray) -> np.ndarray:
        c = np.array(FRAME_SIZE, np.float64) / 2
        d = (pts - c) / np.linalg.norm(c)
        r2 = (d ** 2).sum(axis=-1, keepdims=True)
        return c + (pts - c) * (1 + self.k * r2)

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Frame pixels (as the lens shows them) of table points (N×2 mm)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return self._distort(cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2))

    def project_3d(self, points: np.ndarray) -> np.ndarray:
        """Frame pixels of points above the table (N×3 mm, z < 0 towards the camera); pinhole only."""
        assert self.pose is not None, "only a posed camera sees off the table plane"
        return self._distort(self.pose.to_image(points))

    def _distort(self, und: np.ndarray) -> np.ndarray:
        c = np.array(FRAME_SIZE, np.float64) / 2
        norm = np.linalg.norm(c)
        d = und - c
        out = d.copy()
        for _ in range(8):     # invert r_u = r_d (1 + k r_d²) by fixed-point iteration
            r2 = ((out / norm) ** 2).sum(axis=-1, keepdims=True)
            out = d / (1 + self.k * r2)
        return c + out

    def _frame_world(self) -> None:
        """Choose the table-image window that covers the whole frame."""
        fw, fh = FRAME_SIZE
        border = np.array([(x, y) for x in np.linspace(0, fw, 9) for y in np.linspace(0, fh, 6)], np.float64)
        mm = cv2.perspectiveTransform(self._undistort(border).reshape(-1, 1, 2),
                                      np.linalg.inv(self.homography)).reshape(-1, 2)
        self.world_scale = self.px_per_mm * SUPERSAMPLE
        if self.pose is not None:
            # a steep camera sees far past the table and its near edge large: the table image
            # holds the table and a margin (past it: the floor), as fine as the finest part of
            # the table in view needs
            w, h = self.table
            mm = np.clip(mm, (-WORLD_MARGIN_MM, -WORLD_MARGIN_MM), (w + WORLD_MARGIN_MM, h + WORLD_MARGIN_MM))
            # (in quarter steps: cameras share their card rasters, rendered once per scale)
            self.world_scale = min(MAX_WORLD_SCALE, math.ceil(SUPERSAMPLE * self._finest(mm) * 4) / 4)
        self.world_origin = (float(mm[:, 0].min()) - 10, float(mm[:, 1].min()) - 10)
        self.world_size = (int((mm[:, 0].max() - self.world_origin[0] + 10) * self.world_scale),
                           int((mm[:, 1].max() - self.world_origin[1] + 10) * self.world_scale))

    def _finest(self, window_mm: np.ndarray) -> float:
        """The largest frame px per table mm over the table (and margin) in view."""
        x0, y0 = window_mm.min(axis=0)
        x1, y1 = window_mm.max(axis=0)
        xs, ys = np.meshgrid(np.linspace(x0, x1, 25), np.linspace(y0, y1, 17))
        grid = np.column_stack([xs.ravel(), ys.ravel()])
        res = self.resolution(grid, np.array([1.0, 0.0]), np.array([0.0, 1.0]), worst=False)
        px = self.project(grid)
        inside = (px[:, 0] >= 0) & (px[:, 0] < FRAME_SIZE[0]) & (px[:, 1] >= 0) & (px[:, 1] < FRAME_SIZE[1])
        return float(res[inside].max()) if inside.any() else self.px_per_mm

    def resolution(self, points_mm: np.ndarray, u: np.ndarray, v: np.ndarray, worst: bool = True) -> np.ndarray:
        """Frame px per mm at table points along two table directions (unit vectors ``u``, ``v``,
        one pair or one per point): the smaller of the two (``worst``) or the larger; from the
        projection's local Jacobian (lens included)."""
        p = np.asarray(points_mm, np.float64).reshape(-1, 2)
        u, v = np.broadcast_to(u, p.shape), np.broadcast_to(v, p.shape)
        d = 0.5
        px = self.project(np.vstack([p - d * u, p + d * u, p - d * v, p + d * v])).reshape(4, -1, 2)
        along_u = np.linalg.norm(px[1] - px[0], axis=1) / (2 * d)
        along_v = np.linalg.norm(px[3] - px[2], axis=1) / (2 * d)
        return np.minimum(along_u, along_v) if worst else np.maximum(along_u, along_v)

    def maps(self) -> tuple[np.ndarray, np.ndarray]:
        """remap() tables: for each frame pixel, where to sample the table image."""
        if self._maps is None:
            fw, fh = FRAME_SIZE
            xs, ys = np.meshgrid(np.arange(fw, dtype=np.float64), np.arange(fh, dtype=np.float64))
            pts = self._undistort(np.stack([xs, ys], axis=-1).reshape(-1, 2))
            mm = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(self.homography)).reshape(-1, 2)
            wx = ((mm[:, 0] - self.world_origin[0]) * self.world_scale).reshape(fh, fw).astype(np.float32)
            wy = ((mm[:, 1] - self.world_origin[1]) * self.world_scale).reshape(fh, fw).astype(np.float32)
            self._maps = cv2.convertMaps(wx, wy, cv2.CV_16SC2)
            if self.pose is not None:
                self._levels = _mip_levels(wx, wy)
        return self._maps

    def look(self, world: np.ndarray) -> np.ndarray:
        """The frame of a table image: one remap; a posed camera blends remaps of the table image's
        pyramid by how many table-image px each frame px spans (a far edge seen small is
        averaged, as a lens and sensor average it, instead of aliased)."""
        map1, map2 = self.maps()
        if not self._levels:
            return cv2.remap(world, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        out = np.zeros((FRAME_SIZE[1], FRAME_SIZE[0], 3), np.float32)
        level = world
        for n, (maps, weight) in enumerate(self._levels):
            if n:
                level = cv2.pyrDown(level)
            if weight is None:
                continue
            # past the table image lies the floor, far below the table and out of focus: a flat
            # dark colour (a reflected table image would show the cards and corners twice)
            seen = cv2.remap(level, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                             borderValue=FLOOR)
            out += seen.astype(np.float32) * weight[..., None]
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)

    def light(self) -> np.ndarray:
        """Uneven light: a lamp off to one side and lens vignetting (frame-sized gain, 1 = even)."""
        if self._light is None:
            rng = np.random.default_rng(self.seed + 17)
            fw, fh = FRAME_SIZE
            xs, ys = np.meshgrid(np.linspace(-1, 1, fw // 8), np.linspace(-1, 1, fh // 8))
            lamp = rng.uniform(-1, 1, 2)
            gain = 1.05 - 0.22 * ((xs - lamp[0]) ** 2 + (ys - lamp[1]) ** 2) / 4
            gain *= 1 - 0.12 * (xs ** 2 + ys ** 2) / 2
            gain += cv2.resize(rng.normal(0, 0.03, (6, 10)), (fw // 8, fh // 8), interpolation=cv2.INTER_CUBIC)
            gain = cv2.resize(gain.astype(np.float32), (fw, fh), interpolation=cv2.INTER_LINEAR)
            self._light = cv2.merge([gain, gain, gain])
        return self._light

    def noise(self, sigma: float) -> np.ndarray:
        """A sensor-noise bank a little larger than the frame (each frame takes a random window)."""
        if self._noise is None or self._noise[0] != sigma:
            fw, fh = FRAME_SIZE
            bank = np.empty((fh + 97, fw + 131, 3), np.int16)
            cv2.setRNGSeed(self.seed)
            cv2.randn(bank, (0, 0, 0), (sigma, sigma, sigma))    # (a bare 0, sigma fills the first channel only)
            self._noise = (sigma, bank)
        return self._noise[1]

    def shadows(self, count: int, placements: Sequence[Placement]) -> np.ndarray:
        """Frame-sized light gain of ``count`` people leaning over the table (1 = lit, 0.45–0.6 in a
        shadow's core): ellipses 120–260 mm across, each over a card's corner, with a 6–20 mm
        penumbra; cached, so a still table keeps them where they were."""
        key = ("shadows", count)
        if self._shadow is None or self._shadow[0] != key:
            rng = random.Random(f"shadow:{self.seed}")
            fw, fh = FRAME_SIZE
            s = 8                                    # drawn at 1/8 size: a shadow has no detail
            gain = np.ones((fh // s, fw // s), np.float32)
            cards = [p for p in placements if not p.card_id.startswith("K-CAL")] or list(placements)
            for _ in range(count):
                p = rng.choice(cards)
                corner = (p.centre[0] + rng.uniform(-30, 30), p.centre[1] + rng.uniform(-40, 40))
                axes_mm = (rng.uniform(60, 130), rng.uniform(50, 90))
                angle = rng.uniform(0, 180)
                ring = np.array([(corner[0] + axes_mm[0] * math.cos(t) * math.cos(math.radians(angle))
                                  - axes_mm[1] * math.sin(t) * math.sin(math.radians(angle)),
                                  corner[1] + axes_mm[0] * math.cos(t) * math.sin(math.radians(angle))
                                  + axes_mm[1] * math.sin(t) * math.cos(math.radians(angle)))
                                 for t in np.linspace(0, 2 * math.pi, 48, endpoint=False)])
                px = self.project(ring) / s
                mask = np.zeros_like(gain)
                cv2.fillPoly(mask, [np.round(px).astype(np.int32)], 1.0)
                penumbra_px = rng.uniform(6, 20) * self.px_per_mm / s
                mask = cv2.GaussianBlur(mask, (0, 0), max(penumbra_px / 2, 0.5))
                gain *= 1 - rng.uniform(0.4, 0.55) * mask
            gain = cv2.resize(gain, (fw, fh), interpolation=cv2.INTER_LINEAR)
            self._shadow = (key, cv2.merge([gain, gain, gain]))
        return self._shadow[1]

    def defocused(self, frame: np.ndarray) -> np.ndarray:
        """``frame`` as a lens focused on the table's centre shows it: a blur circle growing with
        |1/depth − 1/focus| up to ``conditions.defocus`` px across where the table is farthest
        from focus (frame px blended between a few disc-blurred copies)."""
        if self._defocus is None:
            assert self.pose is not None, "defocus needs a posed camera"
            fw, fh = FRAME_SIZE
            s = 8
            xs, ys = np.meshgrid(np.arange(fw // s) * s + s / 2, np.arange(fh // s) * s + s / 2)
            pts = self._undistort(np.stack([xs, ys], axis=-1).reshape(-1, 2))
            mm = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(self.homography)).reshape(-1, 2)
            world = np.column_stack([mm, np.zeros(len(mm))])
            depth = (world - self.pose.centre) @ self.pose.rotation[2]
            focus = float((np.array([*np.array(self.table) / 2, 0.0]) - self.pose.centre) @ self.pose.rotation[2])
            w, h = self.table
            on_table = (mm[:, 0] >= 0) & (mm[:, 0] <= w) & (mm[:, 1] >= 0) & (mm[:, 1] <= h)
            off = np.abs(1 / np.maximum(depth, 1.0) - 1 / focus)
            worst = float(off[on_table].max()) if on_table.any() else float(off.max())
            circle = np.clip(off / max(worst, 1e-12), 0, 1.5) * self.conditions.defocus
            self._defocus = cv2.resize(circle.reshape(fh // s, fw // s).astype(np.float32), (fw, fh),
                                       interpolation=cv2.INTER_LINEAR)
        circle = self._defocus
        steps = np.arange(0, math.ceil(float(circle.max())) + 1)
        out = np.zeros(frame.shape, np.float32)
        for d in steps:
            weight = np.clip(1 - np.abs(circle - d), 0, 1)
            if not weight.any():
                continue
            out += _disc_blur(frame, float(d)).astype(np.float32) * weight[..., None]
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)

    def to_world(self, centre_mm: tuple[float, float]) -> tuple[float, float]:
        """Table-image pixel of a table point."""
        return ((centre_mm[0] - self.world_origin[0]) * self.world_scale,
                (centre_mm[1] - self.world_origin[1]) * self.world_scale)

    # -- the table
    def background(self, clutter: bool = True) -> np.ndarray:
        """The empty table (wood, a few objects, sometimes a foreign QR code), cached per camera."""
        if self._background is None:
            self._background = _table_image(self, clutter)
        return self._background


def _mip_levels(wx: np.ndarray, wy: np.ndarray) -> list:
    """Per pyramid level of the table image: its remap tables and each frame pixel's weight (None
    where no pixel needs that level): level ``log2`` of the table-image px a frame px spans (less
    half a level: a little aliasing is what a real sensor shows too), linearly between levels."""
    dx = np.hypot(np.gradient(wx, axis=1), np.gradient(wy, axis=1))
    dy = np.hypot(np.gradient(wx, axis=0), np.gradient(wy, axis=0))
    lam = np.clip(np.log2(np.maximum(np.maximum(dx, dy), 1e-6)) - 0.5, 0, 6).astype(np.float32)
    top = int(np.ceil(lam.max()))
    levels = []
    for n in range(top + 1):
        weight = np.clip(1 - np.abs(lam - n), 0, 1)
        scale = 0.5 ** n
        maps = cv2.convertMaps((wx + 0.5) * scale - 0.5, (wy + 0.5) * scale - 0.5, cv2.CV_16SC2)
        levels.append((maps, weight if weight.any() else None))
    return levels


def max_px_per_mm(table: tuple[float, float]) -> float:
    """The largest scale at which a camera sees the whole ``table`` (w, h mm) with some margin."""
    fw, fh = FRAME_SIZE
    w, h = table
    t = math.radians(MAX_TURN)
    need_w = w * (1 + MAX_TILT) * math.cos(t) + h * math.sin(t)
    need_h = h * math.cos(t) + w * (1 + MAX_TILT) * math.sin(t)
    usable = min((fw - 2 * MARGIN_PX - 8) / need_w, (fh - 2 * MARGIN_PX - 8) / need_h)
    return math.floor(usable * 100) / 100


def straight_down(table: tuple[float, float], seed: int = 0, finest: float = 1.7) -> Camera:
    """The camera the set-up check leads to: straight over the middle of ``table`` (w, h mm), as
    close as lets the whole table (and ``MARGIN_PX`` around it) stay in the frame, at most
    ``finest`` px/mm. Seen straight down the table has one scale everywhere, so the set-up check
    reads it at that scale everywhere: the perspective ``Camera.looking_at`` adds shows the far
    edge ~4 % coarser than the middle (1.36 px/mm at its 1.40 for a Wheel table)."""
    corners = np.array([(0, 0), (table[0], 0), (table[0], table[1]), (0, table[1])], np.float64)
    fw, fh = FRAME_SIZE
    for hundredths in range(int(finest * 100), 50, -1):
        cam = Camera.looking_at(table, hundredths / 100, seed, conditions=Conditions(elevation=90.0))
        px = cam.project(corners)
        if px.min() >= MARGIN_PX and px[:, 0].max() <= fw - MARGIN_PX and px[:, 1].max() <= fh - MARGIN_PX:
            return cam
    raise ValueError(f"a {table[0]:g} × {table[1]:g} mm table does not fit a {fw}×{fh} frame at 0.5 px/mm")


def _table_image(cam: Camera, clutter: bool) -> np.ndarray:
    """The empty table a camera sees (read-only): a pure function of the fields in the key, so
    cameras posed alike share one drawing (a calm wood at 2–3 px/mm costs ~0.3–0.7 s of CPU; tests
    and benchmarks build many cameras of one table, e.g. one view with and without a phone over it)."""
    key = (cam.conditions.surface, cam.world_size, cam.world_scale, cam.seed, clutter, cam.table,
           tuple(cam.world_origin))
    with _TABLES_LOCK:
        img = _TABLES.pop(key, None)
    if img is None:
        img = _draw_table(cam, clutter)
        img.flags.writeable = False
    with _TABLES_LOCK:                          # the demo's camera thread draws too
        _TABLES[key] = img                      # most recent last
        while len(_TABLES) > 6:                 # a few 1080p-camera tables: ~100 MB at most
            _TABLES.pop(next(iter(_TABLES)))
    return img


_TABLES: dict[tuple, np.ndarray] = {}
_TABLES_LOCK = threading.Lock()


def _draw_table(cam: Camera, clutter: bool) -> np.ndarray:
    rng = np.random.default_rng(cam.seed + 5)
    w, h = cam.world_size
    img = surface_image(cam.conditions.surface, w, h, cam.world_scale, rng)
    if clutter:
        _clutter(img, cam, rng)
    return img


# --- table surfaces ------------------------------------------------------------------------------
# Each draws the empty table at ``s`` px/mm (w × h px) from ``rng``: the pipeline was tried on them
# before anything was tuned for them. Drawn at most ``SURFACE_PX_PER_MM`` fine and enlarged (a
# grain 1.5 mm apart is still 3 px there), so a posed camera's large table image stays cheap.
SURFACE_PX_PER_MM = 2.0


def _noise_field(rng: np.random.Generator, cells: tuple[int, int], w: int, h: int) -> np.ndarray:
    """Smooth noise (σ ≈ 1): ``cells`` random values enlarged to w × h with a cubic filter."""
    return cv2.resize(rng.normal(0, 1, cells).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)


def _plain_wood(w: int, h: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """The first renderer's table: a calm wood, soft grain and blotches."""
    ys = np.arange(h, dtype=np.float32)[:, None]
    warp = cv2.resize(rng.normal(0, 1, (8, 12)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    grain = np.sin((ys / s + 25 * warp) * 0.45) + 0.4 * np.sin((ys / s + 9 * warp) * 1.1)
    blotch = cv2.resize(rng.normal(0, 1, (20, 34)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    base = np.array(rng.choice([(62, 102, 146), (48, 78, 120), (90, 130, 168)]), np.float32)
    img = base + (9 * grain + 7 * blotch)[..., None] * np.array([0.7, 0.9, 1.0], np.float32)
    return np.clip(img + rng.normal(0, 3, (h, w, 1)), 0, 255).astype(np.uint8)


def _busy_wood(w: int, h: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """Planks 90–150 mm wide with dark seams; growth rings 1.5–6 mm apart as narrow dark bands,
    bent round knots; fine streaks along the grain: the footage's busy table."""
    xs = np.arange(w, dtype=np.float32)[None, :] / s
    ys = np.arange(h, dtype=np.float32)[:, None] / s
    width = float(rng.uniform(90, 150))
    shift = float(rng.uniform(0, width))
    plank = np.floor((xs + shift) / width)
    img = np.zeros((h, w), np.float32)
    u = xs + 18 * _noise_field(rng, (5, 9), w, h) + 3 * _noise_field(rng, (24, 40), w, h) + 53.0 * plank
    for _ in range(max(3, int(w * h / (s * s) / 90000))):
        kx, ky, kr = rng.uniform(0, w / s), rng.uniform(0, h / s), rng.uniform(5, 14)
        d2 = ((xs - kx) ** 2 + ((ys - ky) / 2.5) ** 2) / kr ** 2
        u = u + 3.6 * kr * np.exp(-d2) * np.sign(xs - kx + 1e-3)
        img -= 70 * np.exp(-d2 * 6)
    period = np.clip(3.5 + 2.0 * _noise_field(rng, (6, 10), w, h), 1.5, 6.0)
    img -= 60 * (0.5 + 0.5 * np.cos(2 * math.pi * u / period)) ** 6
    streaks = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), sigmaX=0.25 * s, sigmaY=12 * s)
    img += -9 * streaks / (float(streaks.std()) + 1e-6) + 8 * _noise_field(rng, (10, 4), w, h)
    img += 6 * ((plank * 7.3) % 5 - 2.5)
    base = np.array(rng.choice([(70, 112, 165), (45, 78, 122), (100, 145, 190)]), np.float32)
    out = base + img[..., None] * np.array([0.6, 0.85, 1.0], np.float32)
    out *= np.where(np.abs((xs + shift) % width) < 0.6, 0.4, 1.0)[..., None]
    return np.clip(out + rng.normal(0, 3, (h, w, 1)), 0, 255).astype(np.uint8)


def _cloth(w: int, h: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """A cloth: a weave 0.6 mm apart (finer than the camera sees: moiré), lint, soft folds."""
    xs = np.arange(w, dtype=np.float32)[None, :] / s
    ys = np.arange(h, dtype=np.float32)[:, None] / s
    base = np.array(rng.choice([(60, 110, 40), (50, 50, 130), (120, 90, 60), (150, 150, 150)]), np.float32)
    weave = np.sin(xs * 2 * math.pi / 0.6) * np.sin(ys * 2 * math.pi / 0.6)
    folds = _noise_field(rng, (5, 8), w, h) + 0.4 * np.sin(xs / 35 + 2 * _noise_field(rng, (4, 4), w, h))
    lint = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.7 * s)
    img = base * (1 + 0.10 * folds)[..., None] + (10 * weave + 20 * lint / (float(lint.std()) + 1e-6) * 0.5)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _tablecloth(w: int, h: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """A patterned tablecloth: gingham checks 12–22 mm (white, half and full colour) printed with
    small dark five-petal flowers: high contrast everywhere, squares the size of a marker."""
    xs = np.arange(w, dtype=np.float32)[None, :] / s
    ys = np.arange(h, dtype=np.float32)[:, None] / s
    check = float(rng.uniform(12, 22))
    share = ((np.floor(xs / check) % 2) + (np.floor(ys / check) % 2)) / 2
    colour = np.array(rng.choice([(40, 40, 200), (160, 60, 30), (40, 130, 40), (40, 40, 40)]), np.float32)
    white = np.array((235, 238, 240), np.float32)
    img = np.ascontiguousarray(white * (1 - share[..., None]) + colour * share[..., None], dtype=np.float32)
    for _ in range(int(w * h / (s * s) / 4000)):
        x, y, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(3, 7) * s
        ink = tuple(float(v) for v in rng.integers(10, 90, 3))
        turn = rng.uniform(0, 1)
        for k in range(5):
            t = k * 2 * math.pi / 5 + turn
            cv2.ellipse(img, (int(x + r * math.cos(t)), int(y + r * math.sin(t))),
                        (max(1, int(r * 0.7)), max(1, int(r * 0.4))), math.degrees(t), 0, 360, ink, -1, cv2.LINE_AA)
        cv2.circle(img, (int(x), int(y)), max(1, int(r * 0.4)), (40, 200, 230), -1, cv2.LINE_AA)
    img += (6 * np.sin(xs * 2 * math.pi / 0.7) * np.sin(ys * 2 * math.pi / 0.7))[..., None]
    return np.clip(img + rng.normal(0, 3, (h, w, 1)), 0, 255).astype(np.uint8)


def _glass(w: int, h: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """A glass table: the dark floor and a rug seen through it, windows and a lamp reflected in
    it (bright soft panes with their bars, a streak), dust."""
    xs = np.arange(w, dtype=np.float32)[None, :]
    ys = np.arange(h, dtype=np.float32)[:, None]
    img = np.zeros((h, w, 3), np.float32) + np.array((38, 40, 44), np.float32)
    img += (8 * _noise_field(rng, (6, 9), w, h))[..., None]
    rug = (np.sin(xs / s / 9) * np.sin(ys / s / 9) > 0.3).astype(np.float32)
    img += (14 * rug)[..., None] * np.array([0.6, 0.8, 1.0], np.float32)
    reflected = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(2, 4))):
        x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
        pw, ph = rng.uniform(150, 400) * s, rng.uniform(120, 300) * s
        pane = (xs > x0) & (xs < x0 + pw) & (ys > y0) & (ys < y0 + ph)
        bars = (np.abs(xs - (x0 + pw / 2)) < 6 * s) | (np.abs(ys - (y0 + ph / 2)) < 6 * s)
        reflected += (pane & ~bars).astype(np.float32) * rng.uniform(60, 140)
    reflected = cv2.GaussianBlur(reflected, (0, 0), 10 * s)
    t = rng.uniform(0, math.pi)
    reflected += 70 * np.exp(-((xs * math.cos(t) + ys * math.sin(t) - rng.uniform(0.3, 0.7) * (w + h) / 2) / (40 * s)) ** 2)
    img += reflected[..., None]
    dust = (rng.random((h, w)) > 0.9996).astype(np.float32)
    img += 120 * cv2.GaussianBlur(dust, (0, 0), 0.6 * s)[..., None]
    return np.clip(img + rng.normal(0, 2, (h, w, 1)), 0, 255).astype(np.uint8)


SURFACES = dict(zip(SURFACE_NAMES, (_plain_wood, _busy_wood, _cloth, _tablecloth, _glass)))
"""The table surfaces ``Conditions(surface=...)`` draws: the first renderer's calm wood (the default)
and four added for issue 24 (a busy wood grain, a cloth, a patterned tablecloth, a glass table)."""


def surface_image(name: str, w: int, h: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """The empty table ``name`` (``SURFACES``), w × h px at ``s`` px/mm (BGR)."""
    if name == "wood":
        return _plain_wood(w, h, s, rng)      # bit for bit as before: every earlier frame is unchanged
    fine = min(s, SURFACE_PX_PER_MM)
    sw, sh = max(1, round(w * fine / s)), max(1, round(h * fine / s))
    img = SURFACES[name](sw, sh, fine, rng)
    return img if (sw, sh) == (w, h) else cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)


def _clutter(img: np.ndarray, cam: Camera, rng: np.random.Generator) -> None:
    """Objects around the play area: a mug, pens, a phone, coins, a note, maybe a foreign QR code."""
    s = cam.world_scale
    tw, th = cam.table
    h, w = img.shape[:2]

    def spot() -> tuple[int, int] | None:
        for _ in range(60):   # in the margin around the calibrated table, clear of its edge
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            mx, my = x / s + cam.world_origin[0], y / s + cam.world_origin[1]
            if not (-80 < mx < tw + 80 and -80 < my < th + 80):
                return int(x), int(y)
        return None                                       # no room around this table
    for _ in range(rng.integers(3, 7)):
        kind = rng.choice(["mug", "pen", "phone", "coin", "note"])
        at = spot()
        if at is None:
            continue
        x, y = at
        angle = float(rng.uniform(0, 180))
        if kind == "mug":
            r = int(42 * s)
            cv2.circle(img, (x + int(6 * s), y + int(6 * s)), r, (30, 40, 50), -1, cv2.LINE_AA)
            cv2.circle(img, (x, y), r, tuple(int(c) for c in rng.integers(40, 230, 3)), -1, cv2.LINE_AA)
            cv2.circle(img, (x, y), int(r * 0.8), (40, 60, 80), -1, cv2.LINE_AA)
        elif kind in ("pen", "phone", "note"):
            size = {"pen": (140, 9), "phone": (150, 72), "note": (76, 76)}[kind]
            colour = {"pen": tuple(int(c) for c in rng.integers(0, 255, 3)), "phone": (25, 25, 28),
                      "note": (120, 235, 245)}[kind]
            box = cv2.boxPoints(((x, y), (size[0] * s, size[1] * s), angle)).astype(np.int32)
            cv2.fillConvexPoly(img, box, colour, cv2.LINE_AA)
        else:
            cv2.circle(img, (x, y), int(11 * s), (60, 150, 190), -1, cv2.LINE_AA)
    at = spot()
    if rng.random() < 0.5 and at is not None:
        _foreign_qr(img, at, s, rng)


def _foreign_qr(img: np.ndarray, at: tuple[int, int], s: float, rng: np.random.Generator) -> None:
    """A QR code that is not ours (a leaflet, a product label): the detector must ignore it."""
    import qrcode
    code = qrcode.QRCode(border=2)
    code.add_data(rng.choice(["https://example.com/menu", "WIFI:S:cafe;T:WPA;P:hunter2;;", "12345678"]))
    code.make(fit=True)
    m = np.array(code.get_matrix(), np.uint8)
    side = int(50 * s)
    tile = cv2.resize(np.where(m, 0, 255).astype(np.uint8), (side, side), interpolation=cv2.INTER_NEAREST)
    x, y = at
    h, w = img.shape[:2]
    x0, y0 = max(0, x - side // 2), max(0, y - side // 2)
    x1, y1 = min(w, x0 + side), min(h, y0 + side)
    img[y0:y1, x0:x1] = tile[: y1 - y0, : x1 - x0, None]


# ----------------------------------------------------------------- drawing
def _paste(img: np.ndarray, card: np.ndarray, cam: Camera, p: Placement) -> None:
    """Warp one card raster into the table image at its placement, only inside its bounding box."""
    ch, cw = card.shape[:2]
    cx, cy = cam.to_world(p.centre)
    a = math.radians(p.angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    # card px -> table-image px: rotate about the card centre, then move to its place
    m = np.array([[ca, -sa, cx - ca * cw / 2 + sa * ch / 2],
                  [sa, ca, cy - sa * cw / 2 - ca * ch / 2]], np.float64)
    half = 0.5 * (abs(ca) * cw + abs(sa) * ch), 0.5 * (abs(sa) * cw + abs(ca) * ch)
    x0, y0 = int(cx - half[0]) - 2, int(cy - half[1]) - 2
    x1, y1 = int(cx + half[0]) + 3, int(cy + half[1]) + 3
    H, W = img.shape[:2]
    if x1 <= 0 or y1 <= 0 or x0 >= W or y0 >= H:
        return
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    m[0, 2] -= x0c
    m[1, 2] -= y0c
    roi = img[y0c:y1c, x0c:x1c]
    # a soft contact shadow first, then the card itself
    shadow = np.zeros(roi.shape[:2], np.uint8)
    shift = m.copy()
    shift[:, 2] += 1.2 * cam.world_scale
    cv2.warpAffine(np.full((ch, cw), 90, np.uint8), shift, (roi.shape[1], roi.shape[0]), dst=shadow,
                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    lit = cv2.subtract(255, shadow)
    cv2.multiply(roi, cv2.merge([lit, lit, lit]), dst=roi, scale=1 / 255.0)
    cv2.warpAffine(card, m, (roi.shape[1], roi.shape[0]), dst=roi, flags=cv2.INTER_LINEAR,
                   borderMode=cv2.BORDER_TRANSPARENT)


def hand_polygon(cam: Camera, target_mm: tuple[float, float], rng: random.Random) -> list[np.ndarray]:
    """An arm and hand (frame px polygons) reaching in from the nearest frame edge towards a point."""
    fw, fh = FRAME_SIZE
    tip = cam.project(np.array([target_mm]))[0]
    s = cam.px_per_mm
    edges = {"bottom": (tip[0] + rng.uniform(-200, 200), fh + 40), "left": (-40, tip[1] + rng.uniform(-150, 150)),
             "right": (fw + 40, tip[1] + rng.uniform(-150, 150)), "top": (tip[0] + rng.uniform(-200, 200), -40)}
    name = min(edges, key=lambda e: {"bottom": fh - tip[1], "top": tip[1], "left": tip[0],
                                     "right": fw - tip[0]}[e])
    shoulder = np.array(edges[name])
    d = tip - shoulder
    length = np.linalg.norm(d)
    d = d / max(length, 1e-6)
    n = np.array([-d[1], d[0]])
    palm = tip - d * 45 * s
    arm_w, palm_w = 42 * s, 48 * s
    arm = np.array([shoulder + n * arm_w * 1.3, palm + n * arm_w, palm - n * arm_w,
                    shoulder - n * arm_w * 1.3])
    polys = [arm]
    hand = cv2.ellipse2Poly((int(palm[0]), int(palm[1])), (int(palm_w), int(55 * s)),
                            int(math.degrees(math.atan2(d[1], d[0]))) + 90, 0, 360, 10)
    polys.append(hand.astype(np.float64))
    for i, off in enumerate((-30, -10, 10, 30)):
        base = palm + d * 35 * s + n * off * s
        end = base + d * (45 + 10 * (i % 2)) * s + n * off * 0.2 * s
        w = 8 * s
        polys.append(np.array([base + n * w, end + n * w, end - n * w, base - n * w]))
    return polys


def _blur_small(img: np.ndarray, sigma: float, factor: int = 4) -> np.ndarray:
    """A wide Gaussian blur done at 1/``factor`` size (soft shadows need no detail)."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(w // factor, 1), max(h // factor, 1)), interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(small, (0, 0), sigma / factor), (w, h), interpolation=cv2.INTER_LINEAR)


def _draw_hand(frame: np.ndarray, polys: list[np.ndarray], rng: random.Random) -> np.ndarray:
    """Skin over the frame (with a soft shadow on the table); returns the occlusion mask."""
    mask = np.zeros(frame.shape[:2], np.uint8)
    for poly in polys:
        cv2.fillPoly(mask, [poly.astype(np.int32)], 255, cv2.LINE_AA)
    bx, by, bw, bh = cv2.boundingRect(np.vstack(polys).astype(np.float32))
    fh, fw = mask.shape
    x0, y0 = max(bx - 40, 0), max(by - 40, 0)
    x1, y1 = min(bx + bw + 90, fw), min(by + bh + 90, fh)
    if x1 <= x0 or y1 <= y0:
        return mask
    roi, m = frame[y0:y1, x0:x1], mask[y0:y1, x0:x1]
    shadow = _blur_small(np.roll(m, (25, 30), axis=(0, 1)), 12).astype(np.float32)[..., None] / 255.0
    skin = np.array([rng.uniform(90, 150), rng.uniform(130, 175), rng.uniform(180, 230)], np.float32)
    soft = cv2.GaussianBlur(m, (0, 0), 1.5).astype(np.float32)[..., None] / 255.0
    shade = _blur_small(m, 25).astype(np.float32)[..., None] / 255.0
    under = roi * (1 - 0.45 * shadow)
    roi[:] = np.clip(under * (1 - soft) + skin * (0.75 + 0.3 * shade) * soft, 0, 255).astype(np.uint8)
    return mask


@dataclass(frozen=True)
class Effects:
    """How rough the camera is: blur sigma (px), sensor noise sigma, JPEG quality (0 = none)."""

    blur: float = 0.8
    noise: float = 3.0
    jpeg: int = 85
    clutter: bool = True


def exposure(seed: int) -> float:
    """The camera's auto exposure at frame ``seed``: it drifts by up to ±4 % over a few dozen
    frames, about half a per cent from one frame to the next (a webcam does not jump between
    consecutive frames; independent jumps of up to 8 % tripped the motion test on white cards,
    which clip)."""
    return 1 + 0.03 * math.sin(seed / 7) + 0.01 * math.sin(seed / 29 + 1)


@dataclass(frozen=True)
class Screen:
    """The phone held over the table: the card its screen shows, its outline in frame px."""

    card_id: str
    outline: np.ndarray          # (4, 2) frame px of the phone's corners
    height_mm: float             # how high its centre is held above the table


@dataclass(frozen=True)
class Rendered:
    """One frame and what hides the table in it: the hand, the phone and the glare spots' cores
    (frame masks, None where there is none), the phone screen if any."""

    image: np.ndarray
    hand: np.ndarray | None = None
    glare: np.ndarray | None = None
    screen: Screen | None = None

    @property
    def hidden(self) -> np.ndarray | None:
        """Frame pixels where the table cannot be seen (hand, phone, glare), or None."""
        masks = [m for m in (self.hand, self.glare) if m is not None]
        if self.screen is not None:
            phone = np.zeros(self.image.shape[:2], np.uint8)
            cv2.fillConvexPoly(phone, np.round(self.screen.outline).astype(np.int32), 255)
            masks.append(phone)
        if not masks:
            return None
        out = masks[0].copy()
        for m in masks[1:]:
            cv2.max(out, m, dst=out)
        return out


def render(cam: Camera, placements: Sequence[Placement], seed: int = 0, hand_at: tuple[float, float] | None = None,
           effects: Effects = Effects()) -> tuple[np.ndarray, np.ndarray | None]:
    """One BGR camera frame of ``placements`` (z order), with a hand reaching for ``hand_at`` (mm)
    if given; returns the frame and what hides the table (the hand's occlusion mask, with the
    camera's conditions also the phone and glare; None when nothing does)."""
    shot = render_frame(cam, placements, seed, hand_at, effects)
    return shot.image, shot.hidden


def render_frame(cam: Camera, placements: Sequence[Placement], seed: int = 0,
                 hand_at: tuple[float, float] | None = None, effects: Effects = Effects()) -> Rendered:
    """``render`` with everything it drew: the frame, the hand, glare and phone (``Rendered``)."""
    rng = random.Random(f"frame:{cam.seed}:{seed}")
    cond = cam.conditions
    world = cam.background(effects.clutter).copy()
    scale = round(cam.world_scale, 3)
    for p in sorted(placements, key=lambda q: q.z):
        _paste(world, raster(p.shown_id, scale), cam, p)
    frame = cam.look(world)
    # the lamp, its glare and a phone propped over the table stay put from frame to frame (a
    # still table stays still); only a hand, the exposure and the sensor change
    light = cam.light() if not cond.gradient else cam.light() * _gradient(cond.gradient, random.Random(f"lamp:{cam.seed}"))
    if cond.shadows:
        light = light * cam.shadows(cond.shadows, placements)
    if cond.dim:
        # auto exposure wins back half of the lost light by raising the gain (hence noise, below)
        light = light * (1 - cond.dim / 2)
    frame = cv2.multiply(frame, light, scale=exposure(seed) + rng.uniform(-0.005, 0.005), dtype=cv2.CV_8U)
    if cond.defocus:
        frame = cam.defocused(frame)
    mask = glare = screen = None
    if hand_at is not None:
        mask = _draw_hand(frame, hand_polygon(cam, hand_at, rng), rng)
    if cond.glare:
        glare = _draw_glare(frame, cam, placements, cond.glare, random.Random(f"glare:{cam.seed}"))
    if cond.screen:
        screen = _draw_phone(frame, cam, placements, random.Random(f"phone:{cam.seed}"), cond.device)
    if cond.motion_blur:
        frame = cv2.filter2D(frame, -1, _smear(cond.motion_blur, rng.uniform(0, 180)))
    if effects.blur:
        frame = cv2.GaussianBlur(frame, (0, 0), effects.blur * rng.uniform(0.8, 1.2))
    if cond.dim:
        # a webcam's gain in a dim room: σ 3 → ~10 grey levels, JPEG 85 → 70 (measured webcams
        # at high gain show σ 6–12 and drop their quality to keep the frame rate)
        effects = replace(effects, noise=effects.noise + 12 * cond.dim,
                          jpeg=max(1, effects.jpeg - round(25 * cond.dim)) if effects.jpeg else 0)
    if effects.noise:
        bank = cam.noise(effects.noise)
        dy, dx = rng.randrange(bank.shape[0] - frame.shape[0]), rng.randrange(bank.shape[1] - frame.shape[1])
        frame = cv2.add(frame, bank[dy:dy + frame.shape[0], dx:dx + frame.shape[1]], dtype=cv2.CV_8U)
    if effects.jpeg:
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, effects.jpeg])
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return Rendered(frame, mask, glare, screen)


def _gradient(strength: float, rng: random.Random) -> np.ndarray:
    """A lamp low on one side: gain falls linearly across the frame from 1 + strength/4 to
    1 - strength, in a random direction (frame-sized, 3 channels)."""
    fw, fh = FRAME_SIZE
    a = rng.uniform(0, 2 * math.pi)
    xs, ys = np.meshgrid(np.linspace(-1, 1, fw // 8, dtype=np.float32), np.linspace(-1, 1, fh // 8, dtype=np.float32))
    t = (xs * math.cos(a) * fw / fh + ys * math.sin(a))
    t = (t - t.min()) / max(float(np.ptp(t)), 1e-6)                  # 0 on the dark side, 1 on the bright
    gain = cv2.resize((1 - strength) + t * (strength * 1.25), (fw, fh), interpolation=cv2.INTER_LINEAR)
    return cv2.merge([gain, gain, gain])


def _disc_blur(frame: np.ndarray, diameter: float) -> np.ndarray:
    """``frame`` through a lens's out-of-focus disc ``diameter`` px across (anti-aliased, sum 1)."""
    if diameter < 0.5:
        return frame
    size = int(math.ceil(diameter)) | 1
    kernel = np.zeros((size * 8, size * 8), np.float32)
    cv2.circle(kernel, (size * 4, size * 4), int(round(diameter * 4)), 1.0, -1, cv2.LINE_AA)
    kernel = cv2.resize(kernel, (size, size), interpolation=cv2.INTER_AREA)
    return cv2.filter2D(frame, -1, kernel / kernel.sum())


def _smear(length: float, angle_deg: float) -> np.ndarray:
    """A linear motion-blur kernel ``length`` px long at ``angle_deg`` (anti-aliased line, sum 1)."""
    size = int(math.ceil(length)) | 1
    size += 2
    kernel = np.zeros((size * 8, size * 8), np.float32)
    c = size * 8 / 2
    dx, dy = math.cos(math.radians(angle_deg)) * length * 4, math.sin(math.radians(angle_deg)) * length * 4
    cv2.line(kernel, (int(c - dx), int(c - dy)), (int(c + dx), int(c + dy)), 1.0, 8, cv2.LINE_AA)
    kernel = cv2.resize(kernel, (size, size), interpolation=cv2.INTER_AREA)
    return kernel / kernel.sum()


GLARE_CORE = 150
"""Grey levels a glare spot adds where it counts as hiding what lies under it (ground truth)."""


def _marker_centres(placements: Sequence[Placement]) -> list[tuple[int, tuple[float, float]]]:
    """(placement index, table mm) of the centre of every printed marker of every card."""
    out = []
    for i, p in enumerate(placements):
        if p.card_id.startswith("K-CAL"):
            continue
        for x, y, w, h in marker_squares(p.card_id):
            out.append((i, layouts.card_point(p.card_id, p.centre, p.angle_deg, x + w / 2, y + h / 2)))
    return out


def _draw_glare(frame: np.ndarray, cam: Camera, placements: Sequence[Placement], spots: int,
                rng: random.Random) -> np.ndarray:
    """Specular spots (a lamp mirrored in glossy cards): soft saturated blobs 10–35 mm across,
    about half centred near a marker; returns the mask of their cores (frame px)."""
    fh, fw = frame.shape[:2]
    gain = np.zeros((fh, fw), np.float32)
    markers = _marker_centres(placements)
    w, h = cam.table
    for n in range(spots):
        if markers and n % 2 == 0:
            _, (x, y) = rng.choice(markers)
            at = (x + rng.uniform(-6, 6), y + rng.uniform(-6, 6))
        else:
            at = (rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h)
        centre = cam.project(np.array([at]))[0]
        res = float(cam.resolution(np.array([at]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), worst=False)[0])
        r = rng.uniform(5, 17) * res
        if not (-3 * r < centre[0] < fw + 3 * r and -3 * r < centre[1] < fh + 3 * r):
            continue
        axes = (r * rng.uniform(1.0, 1.8), r)
        blob = np.zeros((fh, fw), np.uint8)
        cv2.ellipse(blob, (tuple(np.round(centre).astype(int))), (int(axes[0]), int(axes[1])),
                    rng.uniform(0, 180), 0, 360, 255, -1, cv2.LINE_AA)
        soft = _blur_small(blob, r * 0.6, 2).astype(np.float32) / 255.0
        gain = np.maximum(gain, np.clip(soft * 1.6, 0, 1) * rng.uniform(210, 260))
    lift = cv2.merge([gain, gain, gain])
    frame[:] = np.clip(frame.astype(np.float32) + lift * (1 - frame.astype(np.float32) / 400), 0, 255).astype(np.uint8)
    return (gain >= GLARE_CORE).astype(np.uint8) * 255


PHONE_MM = (72.0, 150.0)
"""A phone's outline (w, h mm); its screen leaves a 3 mm bezel at the sides and 6 mm top and bottom."""


@dataclass(frozen=True)
class Device:
    """A screen that shows a card over the table (``Conditions.screen``): its size, how it is held,
    and its light. It emits: the room's lamp does not light or shade it."""

    size_mm: tuple[float, float]          # outline (w, h)
    bezel_mm: tuple[float, float]         # the dark border at the sides, and at the top and bottom
    height_mm: tuple[float, float]        # its centre is held this high above the table (range)
    tilt_deg: tuple[float, float]         # and tilted this much (range)
    white: tuple[float, float, float]     # its white point (B, G, R gains)
    brightness: tuple[float, float]       # its light, × full brightness (1: whiter than any paper)
    printed_size: bool = False            # the card shown at its printed size (else filling the screen)


SCREENS: dict[str, Device] = {
    # bright, bluish, held up to show the table
    "phone": Device(PHONE_MM, (3.0, 6.0), (60.0, 250.0), (10.0, 45.0), (1.08, 1.0, 0.9), (1.0, 1.0)),
    # night mode: a warm white (blue cut, as Night Shift / Night Light do) and dimmed below paper
    "phone night": Device(PHONE_MM, (3.0, 6.0), (60.0, 250.0), (10.0, 45.0), (0.7, 0.9, 1.05), (0.55, 0.85)),
    # the same held flat just over the cards (or lying on them: a phone is 8–10 mm thick)
    "phone flat": Device(PHONE_MM, (3.0, 6.0), (8.0, 25.0), (0.0, 4.0), (0.7, 0.9, 1.05), (0.55, 0.85)),
    # a tablet has room for the card at its printed size: neither its size nor its shape is off
    "tablet": Device((170.0, 245.0), (9.0, 9.0), (10.0, 150.0), (0.0, 25.0), (0.85, 0.95, 1.02), (0.6, 1.0),
                     printed_size=True),
}
"""The screens of ``Conditions.screen`` by name."""

SCREEN_PX_PER_MM = 6.0
"""The phone's screen resolution (an older phone: about 150 px per inch)."""


def _screen_card(placements: Sequence[Placement], rng: random.Random) -> str:
    """A card of the game on the table (the most common game among the placements) not on it."""
    games = [cat.card(p.card_id).game for p in placements if cat.card(p.card_id).game not in ("table", "back")]
    game = max(set(games), key=games.count) if games else "spartacus"
    lying = {p.card_id for p in placements}
    cards = [c.id for c in cat.cards_of(game) if c.kind != "pawn"]
    return rng.choice(sorted(set(cards) - lying) or cards)


def _phone_image(card_id: str, rng: random.Random, device: Device = SCREENS["phone"]) -> np.ndarray:
    """The phone (or tablet) seen straight on at ``SCREEN_PX_PER_MM``: a dark bezel, a dark app
    around the card's picture; the screen emits (its own white and brightness), its pixel grid
    beats with the camera's pixels (moiré: slanted coloured bands), and its glass reflects a little
    of the room."""
    q = SCREEN_PX_PER_MM
    pw, ph = int(device.size_mm[0] * q), int(device.size_mm[1] * q)
    phone = np.full((ph, pw, 3), (24, 22, 22), np.uint8)
    bx, by = device.bezel_mm
    sx0, sy0, sx1, sy1 = int(bx * q), int(by * q), pw - int(bx * q), ph - int(by * q)
    screen = np.full((sy1 - sy0, sx1 - sx0, 3), 18, np.float32)
    card = raster(card_id, q).astype(np.float32)
    ch, cw = card.shape[:2]
    scale = 1.0 if device.printed_size else min((sx1 - sx0) / cw, (sy1 - sy0) / ch) * rng.uniform(0.9, 1.0)
    card = cv2.resize(card, (int(cw * scale), int(ch * scale)), interpolation=cv2.INTER_AREA)
    y0 = (screen.shape[0] - card.shape[0]) // 2
    x0 = (screen.shape[1] - card.shape[1]) // 2
    screen[y0:y0 + card.shape[0], x0:x0 + card.shape[1]] = card
    # emission: a bluish white point, lifted blacks, brighter than paper under the same light
    screen = screen / 255.0
    screen = 0.06 + 1.1 * screen ** 0.85
    screen *= np.array(device.white, np.float32)                 # BGR: its white point
    lo, hi = device.brightness
    if hi != lo:
        screen *= rng.uniform(lo, hi)
    # moiré: two slightly different gratings beat into slanted bands a few mm wide
    yy, xx = np.mgrid[0:screen.shape[0], 0:screen.shape[1]].astype(np.float32)
    a = rng.uniform(0, math.pi)
    period = rng.uniform(2.5, 6.0) * q
    band = np.cos(2 * math.pi * (xx * math.cos(a) + yy * math.sin(a)) / period)
    for ch_i, phase in enumerate((0.0, 2.1, 4.2)):
        screen[..., ch_i] *= 1 + 0.07 * np.cos(2 * math.pi * (xx * math.cos(a) + yy * math.sin(a)) / period + phase)
    screen *= 1 + 0.03 * band[..., None]
    # the pixel grid: a dark line between screen pixel rows and columns (every 2 px here)
    screen[::2] *= 0.85
    screen[:, ::2] *= 0.85
    # a reflection on the glass
    screen += 0.08 * np.clip(1 - (xx + yy) / (xx.max() + yy.max()) * 1.5, 0, 1)[..., None]
    phone[sy0:sy1, sx0:sx1] = np.clip(screen * 255, 0, 255).astype(np.uint8)
    return phone


def _draw_phone(frame: np.ndarray, cam: Camera, placements: Sequence[Placement], rng: random.Random,
                device: Device = SCREENS["phone"]) -> Screen:
    """A phone (or tablet: ``device``) held over the table (the phone 60–250 mm up, tilted 10–45°)
    showing a card that is not on the table, drawn by its own perspective (not the table's: it is
    off the table plane); the screen emits, so the table's light does not dim it."""
    card_id = _screen_card(placements, rng)
    w, h = cam.table
    centre = np.array([rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h, -rng.uniform(*device.height_mm)])
    turn, tilt = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(*device.tilt_deg))
    a = np.array([math.cos(turn), math.sin(turn), 0.0])
    b = np.array([-math.sin(turn), math.cos(turn), 0.0]) * math.cos(tilt) + np.array([0, 0, -1.0]) * math.sin(tilt)
    pw, ph = device.size_mm
    corners_3d = np.array([centre - a * pw / 2 - b * ph / 2, centre + a * pw / 2 - b * ph / 2,
                           centre + a * pw / 2 + b * ph / 2, centre - a * pw / 2 + b * ph / 2])
    outline = cam.project_3d(corners_3d)
    image = _phone_image(card_id, rng, device)
    # the camera's optics average the screen's finest structure: shrink the phone image to about
    # twice its size in the frame first (what is left beats with the camera's pixels: moiré)
    across = max(np.linalg.norm(outline[1] - outline[0]), np.linalg.norm(outline[2] - outline[1]) * pw / ph)
    shrink = min(1.0, 2 * across / image.shape[1])
    if shrink < 1.0:
        image = cv2.resize(image, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    ih, iw = image.shape[:2]
    src = np.array([[0, 0], [iw, 0], [iw, ih], [0, ih]], np.float32)
    to_frame = cv2.getPerspectiveTransform(src, outline.astype(np.float32))
    fh, fw = frame.shape[:2]
    x0, y0 = np.maximum(np.floor(outline.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(outline.max(axis=0)).astype(int) + 2, (fw, fh))
    if x1 > x0 and y1 > y0:
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ to_frame
        roi = frame[y0:y1, x0:x1]
        cv2.warpPerspective(image, shift, (x1 - x0, y1 - y0), dst=roi, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
    return Screen(card_id, outline, float(-centre[2]))


def card_resolution(cam: Camera, placements: Sequence[Placement]) -> np.ndarray:
    """(cards, markers) frame px per mm at the centre of each printed marker of each card, along
    the card's worse axis (the projection's local Jacobian, lens included); a card with fewer
    markers repeats its last one."""
    per = [marker_squares(p.card_id) for p in placements]
    most = max((len(m) for m in per), default=0)
    if not most:
        return np.zeros((len(placements), 0))
    pts, us, vs = [], [], []
    for p, squares in zip(placements, per):
        o = np.array(layouts.card_point(p.card_id, p.centre, p.angle_deg, 0.0, 0.0))
        u = np.array(layouts.card_point(p.card_id, p.centre, p.angle_deg, 1.0, 0.0)) - o    # the card's
        v = np.array(layouts.card_point(p.card_id, p.centre, p.angle_deg, 0.0, 1.0)) - o    # own axes
        for j in range(most):
            x, y, w, h = squares[min(j, len(squares) - 1)]
            pts.append(layouts.card_point(p.card_id, p.centre, p.angle_deg, x + w / 2, y + h / 2))
            us.append(u)
            vs.append(v)
    return cam.resolution(np.array(pts), np.array(us), np.array(vs)).reshape(len(placements), most)


def visible_truth(cam: Camera, placements: Sequence[Placement], mask: np.ndarray | None = None,
                  min_px_per_mm: float | None = None) -> list[int]:
    """Indices of placements with at least one marker uncovered by cards, inside the frame and not
    under ``mask`` (the hand, glare, a phone: what a perfect detector would find in this frame);
    with ``min_px_per_mm``, that marker must also be seen at least that fine along the card's
    worse axis (``card_resolution``)."""
    cover = Cover(placements)
    fw, fh = FRAME_SIZE
    res = card_resolution(cam, placements) if min_px_per_mm is not None else None
    out = []
    for i, p in enumerate(placements):
        if cover.visible_markers(i) == 0:
            continue
        for j, (x, y, w, h) in enumerate(marker_squares(p.card_id)):
            if res is not None and res[i, j] < min_px_per_mm:
                continue
            pts = np.array([layouts.card_point(p.card_id, p.centre, p.angle_deg, x + dx, y + dy)
                            for dx in (0, w / 2, w) for dy in (0, h / 2, h)])
            px = cam.project(pts)
            if not ((px[:, 0] >= 0) & (px[:, 0] < fw) & (px[:, 1] >= 0) & (px[:, 1] < fh)).all():
                continue
            if mask is not None and mask[px[:, 1].astype(int), px[:, 0].astype(int)].any():
                continue
            if cover.covered(i, pts).any():
                continue
            out.append(i)
            break
    return out


# ----------------------------------------------------------------- whole games
@dataclass
class SyntheticFrame:
    """One rendered frame with its ground truth."""

    image: np.ndarray
    placements: list[Placement]
    layout: dict[str, Any]           # the engine's layout() of the state shown
    moves: list[dict]                # the move log up to this state (Move.to_json())
    state: int                       # index of the state (0 = before the first move)
    kind: str                        # "still" or "hand"
    hand: np.ndarray | None          # the hand's mask (frame px) in hand frames
    camera: Camera
    visible: list[str] = field(default_factory=list)   # shown ids a perfect detector finds


def frames_for_game(game_id: str, players: int, seed: int = 0, px_per_mm: float | None = None, *,
                    stills: int = 2, hand_frames: int = 1, max_moves: int | None = None,
                    options: dict | None = None, effects: Effects = Effects(),
                    truth: bool = True, whole_table: bool = True,
                    conditions: Conditions = Conditions()) -> Iterator[SyntheticFrame]:
    """Play a random game (``companion.engine.simulate`` with ``seed``) and yield, for every state,
    ``stills`` still frames, and between states ``hand_frames`` frames of a hand reaching for the cards
    that change (drawn over the state before the move). ``px_per_mm`` defaults to the largest scale
    up to 1.7 at which the table fits; ``truth=False`` skips the (slower) visibility ground truth;
    ``whole_table=False`` allows a scale at which only the middle of the table is in view;
    ``conditions``: the camera and table (``Conditions``; a posed camera's truth also needs
    ``VISIBLE_PX_PER_MM``, and counts what glare and the phone hide)."""
    table = layouts.table_size(game_id, players)
    if px_per_mm is None:
        px_per_mm = min(1.7, max_px_per_mm(table))
    cam = Camera.looking_at(table, px_per_mm, seed, whole_table, conditions)
    record = simulate(new_game(game_id, players, options), seed)
    replay = new_game(game_id, players, options)
    moves = [m for m, _ in record.turns][:max_moves]
    rng = random.Random(f"hands:{seed}")
    frame_no = 0
    before: list[Placement] | None = None
    for state in range(len(moves) + 1):
        if state:
            replay.apply(moves[state - 1])
        layout = replay.layout()
        placed = layouts.place(game_id, layout, players, random.Random(seed))
        log = [m.to_json() for m in moves[:state]]
        if before is not None:
            target = _changed_spot(before, placed, table, rng)
            for _ in range(hand_frames):
                shot = render_frame(cam, before, frame_no, hand_at=target, effects=effects)
                vis = _visible_ids(cam, before, shot.hidden) if truth else []
                yield SyntheticFrame(shot.image, before, previous, log[:-1], state - 1, "hand", shot.hand, cam, vis)
                frame_no += 1
        for _ in range(stills):
            shot = render_frame(cam, placed, frame_no, effects=effects)
            vis = _visible_ids(cam, placed, shot.hidden) if truth else []
            yield SyntheticFrame(shot.image, placed, layout, log, state, "still", None, cam, vis)
            frame_no += 1
        before, previous = placed, layout


def _visible_ids(cam: Camera, placements: Sequence[Placement], mask: np.ndarray | None = None) -> list[str]:
    need = VISIBLE_PX_PER_MM if cam.conditions.pinhole else None
    return [placements[i].shown_id for i in visible_truth(cam, placements, mask, need)]


def _changed_spot(before: Sequence[Placement], after: Sequence[Placement], table: tuple[float, float],
                  rng: random.Random) -> tuple[float, float]:
    """Where the hand goes between two states: the cards that appear, vanish or move."""
    old = {(p.card_id, round(p.centre[0]), round(p.centre[1])) for p in before}
    new = {(p.card_id, round(p.centre[0]), round(p.centre[1])) for p in after}
    moved = [(x, y) for _, x, y in old ^ new]
    if not moved:
        return (rng.uniform(0.2, 0.8) * table[0], rng.uniform(0.2, 0.8) * table[1])
    return (float(np.mean([m[0] for m in moved])), float(np.mean([m[1] for m in moved])))


# ----------------------------------------------------------------- a plain detector as a yardstick
def aruco_ids(image: np.ndarray) -> set[int]:
    """Marker ids OpenCV's ArUco detector finds in a frame (design.md's settings: 5×5_1000,
    minMarkerPerimeterRate 0.02): a yardstick for how readable the rendered frames are."""
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.02
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, cat.MARKER_DICTIONARY))
    _, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(image)
    return set() if ids is None else {int(i) for i in ids.ravel()}


def marker_recall(frame: SyntheticFrame) -> tuple[int, int, int]:
    """(visible marker ids found, visible marker ids, ids found that lie nowhere on the table)."""
    found = aruco_ids(frame.image)
    truth = {cat.card(c).marker for c in frame.visible}
    placed = {cat.card(p.shown_id).marker for p in frame.placements}
    return len(found & truth), len(truth), len(found - placed)


# ----------------------------------------------------------------- writing frames to a folder
def write_game(out_dir: str, game_id: str, players: int, seed: int = 0, px_per_mm: float | None = None,
               max_moves: int | None = None, stills: int = 2, hand_frames: int = 1,
               check: bool = False) -> int:
    """Write a simulated game's frames as JPEGs (``frame-00000.jpg`` …) with ``truth.json`` (per
    frame: kind, state, moves so far, the engine layout, the visible ids); returns the frame count.
    The folder replays like a camera (an image-folder source)."""
    import json
    import os
    frames = frames_for_game(game_id, players, seed, px_per_mm, stills=stills, hand_frames=hand_frames,
                             max_moves=max_moves)
    first = next(frames)          # bad input raises here, before anything is written
    os.makedirs(out_dir, exist_ok=True)
    truth = []
    n = hit = total = foreign = 0
    for n, f in enumerate(itertools.chain([first], frames), start=1):
        if check:
            counts = marker_recall(f)
            hit, total, foreign = hit + counts[0], total + counts[1], foreign + counts[2]
        name = f"frame-{n - 1:05d}.jpg"
        cv2.imwrite(os.path.join(out_dir, name), f.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        truth.append({"file": name, "kind": f.kind, "state": f.state, "moves": f.moves,
                      "layout": f.layout, "visible": f.visible,
                      "knowable": layouts.knowable(game_id, f.layout, players)})
    with open(os.path.join(out_dir, "truth.json"), "w", encoding="utf-8") as fh:
        json.dump({"game": game_id, "players": players, "seed": seed,
                   "px_per_mm": f.camera.px_per_mm if n else px_per_mm, "frames": truth}, fh)
    if check:
        print(f"{game_id} {players}p {first.camera.px_per_mm:g} px/mm: ArUco found {hit}/{total} "
              f"visible marker ids ({hit / max(total, 1):.1%}), {foreign} not on the table")
    return n


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tablesim.synthetic GAME --players N --out DIR``: render a simulated game to a folder."""
    import argparse
    parser = argparse.ArgumentParser(prog="python -m tablesim.synthetic",
                                     description="Render a simulated game as synthetic camera frames.")
    parser.add_argument("game", choices=layouts.GAMES)
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--out", required=True, help="folder for frame-NNNNN.jpg and truth.json")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=float, default=None, help="px/mm (default: up to 1.7, as fits)")
    parser.add_argument("--moves", type=int, default=None, help="stop after this many moves")
    parser.add_argument("--check", action="store_true",
                        help="also run OpenCV's ArUco detector on every frame and print its recall")
    args = parser.parse_args(argv)
    try:
        n = write_game(args.out, args.game, args.players, args.seed, args.scale, args.moves,
                       check=args.check)
    except ValueError as err:
        parser.exit(2, f"error: {err}\n")
    print(f"wrote {n} frames and truth.json to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# --- a whole game seen by the camera, for end-to-end tests ---------------------------------------
@dataclass
class GameVideo:
    """A camera's frames of a whole simulated game (``game_video``) and its truth."""

    frames: list[np.ndarray]
    moves: list[Any]                 # the game's true moves (``companion.engine.Move``), chance included
    hidden: str | None = None        # the card of the deal a hand lay over, if any
    states: int = 0                  # table states shown


def _edge_px(cam: Camera, centre: tuple[float, float]) -> float:
    """How far ``centre`` (mm) is seen from the nearest edge of the frame (px)."""
    x, y = cam.project(np.array([centre]))[0]
    return float(min(x, y, FRAME_SIZE[0] - x, FRAME_SIZE[1] - y))


def _hand_over_one(cam: Camera, placed: Sequence[Placement], changing: set[str]) -> tuple[str, np.ndarray] | None:
    """A frame of ``placed`` with a hand lying still over one card of it (not one of
    ``changing``) so that no marker of that card shows, and that card: the cards nearest an edge of
    the frame are tried first (the arm reaching in from there hides little else)."""
    ids = [p.shown_id for p in placed]
    cards = sorted((p for p in placed if p.face_up and p.shown_id not in changing
                    and not p.card_id.startswith(("K-", "T-"))), key=lambda p: _edge_px(cam, p.centre))
    centre = np.array(FRAME_SIZE, np.float64) / 2
    for p in cards[:8]:
        at = cam.project(np.array([p.centre]))[0]
        inwards = (centre - at) / max(float(np.linalg.norm(centre - at)), 1e-6)
        for reach_px in (0.0, 40.0, 80.0):
            # the palm lies ~45 mm short of the point reached for: reach a little past the card
            # (the lens left aside: a few px do not matter to a hand)
            q = np.linalg.inv(cam.homography) @ np.array([*(at + inwards * reach_px), 1.0])
            shot = render_frame(cam, placed, 0, hand_at=(float(q[0] / q[2]), float(q[1] / q[2])))
            if p.shown_id not in {ids[i] for i in visible_truth(cam, placed, shot.hidden)}:
                return p.shown_id, shot.image
    return None


def game_video(game_id: str, players: int, seed: int = 0, px_per_mm: float | None = None, *, stills: int = 4,
               hide_deal: bool = False, hidden_frames: int = 4, deal_by_hand: bool = False,
               max_states: int | None = None, options: dict | None = None,
               effects: Effects = Effects()) -> GameVideo:
    """Frames of a whole simulated game (``companion.engine.simulate(seed)``) seen by a camera at
    ``px_per_mm`` (None: as close as shows the whole table; inside ``frame_size`` for a smaller
    frame): each state whose table looks
    different to a camera (``layouts.knowable``), and the table before a ruling is carried out by
    hand (``tablesim.scripted.pre_ruling_layouts``), as ``stills`` equal frames (the first after a
    change reads as motion, the others as a still table). ``hide_deal``: the deal is shown for
    ``hidden_frames`` frames with a hand lying still over one card of it, and the hand leaves only
    once the first move is made: that card is first seen with the move. ``deal_by_hand``: the deal
    is not shown (the host enters it); the frames start with the first move. ``max_states``: only
    the first so many table states (the deal counted), ``moves`` up to the move that made the last
    of them."""
    table = layouts.table_size(game_id, players)
    cam = Camera.looking_at(table, max_px_per_mm(table) if px_per_mm is None else px_per_mm, seed)
    moves = [m for m, _ in simulate(new_game(game_id, players, options), seed).turns]
    replay = new_game(game_id, players, options)
    shown: list[list[Placement]] = []
    last = None
    upto = len(moves)
    for n, move in enumerate(moves):
        before = replay.layout()
        events = replay.apply(move)
        after = replay.layout()
        # the table stops before a ruling is carried out by hand (a Chains misfit lies turned over
        # in the work area before the ruined work area goes to the dead pile): the camera sees it
        for layout in pre_ruling_layouts(game_id, before, after, events) + [after]:
            now = layouts.knowable(game_id, layout, players)
            if now != last:             # a draw from a face-down pile: the table looks the same
                last = now
                shown.append(layouts.place(game_id, layout, players, random.Random(seed)))
                upto = n + 1
        if max_states is not None and len(shown) >= max_states:
            shown = shown[:max_states]
            break
    # moves after the last change shown (a card drawn and thrown away at once) no camera sees
    moves = moves[:upto] if max_states is not None else moves
    if deal_by_hand:
        shown = shown[1:]
    frames: list[np.ndarray] = []
    hidden = None
    for i, placed in enumerate(shown):
        if i == 0 and hide_deal and len(shown) > 1:
            before = {(p.shown_id, p.centre) for p in placed}
            after = {(p.shown_id, p.centre) for p in shown[1]}
            found = _hand_over_one(cam, placed, {card for card, _ in before ^ after})
            if found is None:
                raise ValueError(f"no card of the {game_id} deal can be hidden by a hand")
            hidden, image = found
            frames += [image] * hidden_frames
            continue
        frames += [render_frame(cam, placed, len(frames), effects=effects).image] * stills
    return GameVideo(frames, moves, hidden, len(shown))
