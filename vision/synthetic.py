"""Synthetic camera frames of a card table, rendered from the printed cards themselves.

A ``Camera`` looks down on a table plan (``vision.layouts``): a wooden table with clutter, the cards
rasterised from the printables' own PDF pages (``printables.raster``), perspective and lens
distortion, uneven light, blur, sensor noise, JPEG, and sometimes a hand over the table. Rendering is
built for a small machine: card rasters are made once per scale, each card is pasted into a
table-millimetre image with one ``warpAffine`` of its bounding box, and one precomputed ``remap``
takes the table image to the 1920 × 1080 camera frame (perspective and lens together).

``frames_for_game`` plays an engine game (``companion.engine.simulate``) and yields still frames of
every state and hand frames between moves, each with its ground truth.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator, Sequence

import cv2
import numpy as np

from companion import catalogue as cat
from companion.engine import simulate
from companion.games import new_game
from vision import layouts
from vision.layouts import Cover, Placement, card_size, marker_squares

FRAME_SIZE = (1920, 1080)
SCALES = (1.2, 1.4, 1.7, 2.0)
SUPERSAMPLE = 1.25       # the table image is drawn this much finer than the camera sees it
MARGIN_PX = 20           # the calibrated table must lie this far inside the frame
MAX_TURN = 1.5           # degrees the camera is turned against the table at most
CALIBRATION_QUIET_MM = 5.0   # white paper left around a cut-out K-CAL marker
MAX_TILT = 0.04          # how much narrower the far edge looks at most (perspective)


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


# ----------------------------------------------------------------- the camera
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
    _maps: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _light: np.ndarray | None = field(default=None, repr=False)
    _background: np.ndarray | None = field(default=None, repr=False)
    _noise: tuple[float, np.ndarray] | None = field(default=None, repr=False)

    @classmethod
    def looking_at(cls, table: tuple[float, float], px_per_mm: float, seed: int = 0,
                   whole_table: bool = True) -> "Camera":
        """A camera centred on ``table`` (w, h mm) at about ``px_per_mm`` in the middle, slightly
        turned and tilted; raises ValueError when the table does not fit the frame at that scale,
        unless ``whole_table`` is False (a close camera: the table's edges fall outside the frame)."""
        fits = max_px_per_mm(table)
        if px_per_mm <= 0:
            raise ValueError(f"px_per_mm must be positive, not {px_per_mm}")
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
        cam = cls(table, px_per_mm, homography.astype(np.float64), rng.uniform(-0.04, 0.04), seed)
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
        und = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
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
        self.world_origin = (float(mm[:, 0].min()) - 10, float(mm[:, 1].min()) - 10)
        self.world_size = (int((mm[:, 0].max() - self.world_origin[0] + 10) * self.world_scale),
                           int((mm[:, 1].max() - self.world_origin[1] + 10) * self.world_scale))

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
        return self._maps

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
            cv2.randn(bank, 0, sigma)
            self._noise = (sigma, bank)
        return self._noise[1]

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


def max_px_per_mm(table: tuple[float, float]) -> float:
    """The largest scale at which a camera sees the whole ``table`` (w, h mm) with some margin."""
    fw, fh = FRAME_SIZE
    w, h = table
    t = math.radians(MAX_TURN)
    need_w = w * (1 + MAX_TILT) * math.cos(t) + h * math.sin(t)
    need_h = h * math.cos(t) + w * (1 + MAX_TILT) * math.sin(t)
    usable = min((fw - 2 * MARGIN_PX - 8) / need_w, (fh - 2 * MARGIN_PX - 8) / need_h)
    return math.floor(usable * 100) / 100


def _table_image(cam: Camera, clutter: bool) -> np.ndarray:
    rng = np.random.default_rng(cam.seed + 5)
    w, h = cam.world_size
    s = cam.world_scale
    ys = np.arange(h, dtype=np.float32)[:, None]
    warp = cv2.resize(rng.normal(0, 1, (8, 12)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    grain = np.sin((ys / s + 25 * warp) * 0.45) + 0.4 * np.sin((ys / s + 9 * warp) * 1.1)
    blotch = cv2.resize(rng.normal(0, 1, (20, 34)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    base = np.array(rng.choice([(62, 102, 146), (48, 78, 120), (90, 130, 168)]), np.float32)
    img = base + (9 * grain + 7 * blotch)[..., None] * np.array([0.7, 0.9, 1.0], np.float32)
    img = np.clip(img + rng.normal(0, 3, (h, w, 1)), 0, 255).astype(np.uint8)
    if clutter:
        _clutter(img, cam, rng)
    return img


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


def render(cam: Camera, placements: Sequence[Placement], seed: int = 0, hand_at: tuple[float, float] | None = None,
           effects: Effects = Effects()) -> tuple[np.ndarray, np.ndarray | None]:
    """One BGR camera frame of ``placements`` (z order), with a hand reaching for ``hand_at`` (mm)
    if given; returns the frame and the hand's occlusion mask (or None)."""
    rng = random.Random(f"frame:{cam.seed}:{seed}")
    world = cam.background(effects.clutter).copy()
    scale = round(cam.world_scale, 3)
    for p in sorted(placements, key=lambda q: q.z):
        _paste(world, raster(p.shown_id, scale), cam, p)
    map1, map2 = cam.maps()
    frame = cv2.remap(world, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    frame = cv2.multiply(frame, cam.light(), scale=exposure(seed) + rng.uniform(-0.005, 0.005), dtype=cv2.CV_8U)
    mask = None
    if hand_at is not None:
        mask = _draw_hand(frame, hand_polygon(cam, hand_at, rng), rng)
    if effects.blur:
        frame = cv2.GaussianBlur(frame, (0, 0), effects.blur * rng.uniform(0.8, 1.2))
    if effects.noise:
        bank = cam.noise(effects.noise)
        dy, dx = rng.randrange(bank.shape[0] - frame.shape[0]), rng.randrange(bank.shape[1] - frame.shape[1])
        frame = cv2.add(frame, bank[dy:dy + frame.shape[0], dx:dx + frame.shape[1]], dtype=cv2.CV_8U)
    if effects.jpeg:
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, effects.jpeg])
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return frame, mask


def visible_truth(cam: Camera, placements: Sequence[Placement], mask: np.ndarray | None = None) -> list[int]:
    """Indices of placements with at least one marker uncovered by cards, inside the frame and not
    under the hand (what a perfect detector would find in this frame)."""
    cover = Cover(placements)
    fw, fh = FRAME_SIZE
    out = []
    for i, p in enumerate(placements):
        if cover.visible_markers(i) == 0:
            continue
        for x, y, w, h in marker_squares(p.card_id):
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
                    truth: bool = True, whole_table: bool = True) -> Iterator[SyntheticFrame]:
    """Play a random game (``companion.engine.simulate`` with ``seed``) and yield, for every state,
    ``stills`` still frames, and between states ``hand_frames`` frames of a hand reaching for the cards
    that change (drawn over the state before the move). ``px_per_mm`` defaults to the largest scale
    up to 1.7 at which the table fits; ``truth=False`` skips the (slower) visibility ground truth;
    ``whole_table=False`` allows a scale at which only the middle of the table is in view."""
    table = layouts.table_size(game_id, players)
    if px_per_mm is None:
        px_per_mm = min(1.7, max_px_per_mm(table))
    cam = Camera.looking_at(table, px_per_mm, seed, whole_table)
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
                image, mask = render(cam, before, frame_no, hand_at=target, effects=effects)
                vis = _visible_ids(cam, before, mask) if truth else []
                yield SyntheticFrame(image, before, previous, log[:-1], state - 1, "hand", mask, cam, vis)
                frame_no += 1
        for _ in range(stills):
            image, _ = render(cam, placed, frame_no, effects=effects)
            vis = _visible_ids(cam, placed) if truth else []
            yield SyntheticFrame(image, placed, layout, log, state, "still", None, cam, vis)
            frame_no += 1
        before, previous = placed, layout


def _visible_ids(cam: Camera, placements: Sequence[Placement], mask: np.ndarray | None = None) -> list[str]:
    return [placements[i].shown_id for i in visible_truth(cam, placements, mask)]


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
    """``python -m vision.synthetic GAME --players N --out DIR``: render a simulated game to a folder."""
    import argparse
    parser = argparse.ArgumentParser(prog="python -m vision.synthetic",
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
