"""Frame quality: is this frame fit to be read, and what should the table fix?

``assess(frame, calibration=None) -> FrameQuality`` looks at one camera frame:

* **Sharpness** — the width of the sharpest edges in each of four directions. A step edge (a
  marker's black border on white paper, a card's edge on the table) blurred by a box of ``L`` px
  rises with slope contrast / ``L``, whatever its contrast or the scene: so contrast (local max −
  min) over gradient is a width in pixels that barely depends on what lies on the table (measured on
  rendered tables of three games at 1.2–1.7 px/mm: the same widths within ±0.3 px). Shake or a long
  exposure smears edges across the direction of motion only (``blur_px``: how much wider the widest
  direction is than the sharpest one); a lens out of focus widens all of them (``focus_px``).
* **Glare** — saturated blobs too large and too round for blank paper (a card's blank paper leaves
  discs of at most ~10.7 mm radius, measured; a lamp's reflection is larger and covers print too),
  each with the side of the table it lies on.
* **Exposure** — too dark (the brightest paper stays grey) or too bright (much of the frame clipped).

``QualityMeter`` does the same over a stream and adds *shaking* (the whole view jumping from frame to
frame). ``message(code, lang)`` gives the English or Japanese sentence for the host view.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Sequence

import cv2
import numpy as np

REFERENCE_WIDTH = 1920
"""Pixel limits below are for a 1080p frame; a larger frame scales them (a 4K frame's 10 px of
blur cover as much of a marker as 5 px of a 1080p frame)."""

BLUR_LIMIT_PX = 5.85
"""A frame smeared by more than this (shake or motion, px of a 1080p frame) is not read: above every
5 px frame's estimate (4.3–5.8) and below most 6 px ones. Kept where it was when smeared frames
began to be sharpened (``vision.frame.deblur``): read anyway, 7 px of smear gave 98.3 / 98.3 / 100 % of
the visible cards at 1.4 / 1.7 / 2.0 px/mm and 9 px 85.8 / 100 / 100 %, with none misidentified
(conditions bench, one table a game), short of the 99.5 % a frame must give to be read."""

BLUR_WARN_PX = 3.0
"""From this much smear the host view warns of shaking, though the frame is read (sharpened: 3 px of
motion blur lost 8 % of the cards at 1.4 px/mm before ``vision.frame.deblur``, none since); a card it
misses is not taken off."""

FOCUS_LIMIT_PX = 6.0
"""A frame whose sharpest edges are wider than this (px of a 1080p frame) is out of focus and not
read (a sharp rendered table: 3.2 px; Gaussian blur σ 2 px: ~5.8 px)."""

FOCUS_WARN_PX = 4.8
"""From this edge width the host view warns that the picture is soft."""

BLUR_GAIN = 1.17
"""Motion length (px) per unit of sqrt(widest² − sharpest²) edge width (fitted on rendered tables
blurred by 3–9 px lines at 0°, 30° and 90°)."""

EDGE_CONTRAST = 60
"""Grey levels between the darkest and brightest pixel near an edge for it to count (marker borders
and card edges have 100–200; the grain of a wooden table ~30)."""

EDGE_REACH = 8
"""Half-size of the window (px) in which an edge's contrast is measured: edges up to ~14 px wide."""

TILE = 64
"""Sharpness is measured on tiles of this size (px) with the most contrast, not the whole frame."""

TILES = 28
"""How many tiles: ~6 % of a 1080p frame, ~2 ms instead of ~30 ms for the whole frame (the
estimates of the table below do not change from 40 tiles to 28)."""

DIRECTIONS = 8
"""Edges are judged in this many directions (22.5° each): motion in any direction smears one of
them by nearly its whole length."""

EDGE_PERCENTILE = 5
"""Per direction, the width of the sharpest edges is this percentile of the edge widths."""

WIDTH_STEP = 0.05
WIDTH_BINS = 320
"""Edge widths are counted in steps of 0.05 px up to 16 px."""

MIN_EDGES = 40
"""A direction with fewer edge pixels than this is not judged (nothing printed runs that way)."""

SATURATED = 248
"""Grey level from which a pixel counts as clipped (at a quarter of the frame's size)."""

GLARE_RADIUS_MM = 12.0
"""A clipped blob is glare when a disc of this radius fits inside it (blank paper: ≤ 10.7 mm)."""

GLARE_ON_MARKER = 3
"""...or when this many of its pixels (at a quarter of the frame's size: ~1/9 of a marker at
1.4 px/mm) lie on a washed-out marker of a card known to lie there."""

WASHED_MARKER = 0.4
"""A marker is washed out when this share of it is clipped (its black is more than half of it)."""

GLARE_PX_PER_MM = 2.0
"""The resolution assumed for ``GLARE_RADIUS_MM`` when no calibration is given (1080p; the finest a
webcam over a whole table gives: a larger guess would take paper for glare)."""

DARK_PAPER = 100
"""Too dark when the brightest paper (99th percentile of the frame) stays below this grey level."""

BRIGHT_SHARE = 0.2
"""Too bright when more than this share of the frame is clipped (a table shows 2–5 % white paper)."""

SHAKE_PX = 2.0
"""The whole view moving by more than this many px (1080p) from one frame to the next is a jump."""

SHAKE_FRAMES = (3, 8)
"""Shaking: at least 3 jumps among the last 8 frames."""

GLARE_GAIN = 30
"""A pixel washed out by glare is at least this many grey levels brighter than the same place was."""

GLARE_DARKER = 0.02
"""...and a place where more than this share got that much darker is not under glare."""

SIDES = ("left", "right", "far", "near", "middle")

MESSAGES: dict[str, dict[str, str]] = {
    "shaking": {"en": "Camera shaking: fix the camera firmly (the blurred frames are not read)",
                "ja": "カメラが揺れています：しっかり固定してください（ぶれた映像は読み取りません）"},
    "out_of_focus": {"en": "Picture blurred: focus the camera or clean its lens (the frames are not read)",
                     "ja": "映像がぼやけています：ピントを合わせるかレンズを拭いてください（読み取りません）"},
    "soft": {"en": "Picture a little soft: focus the camera or bring it closer",
             "ja": "映像が少しぼやけています：ピントを合わせるかカメラを近づけてください"},
    "glare": {"en": "Glare on the {side}: move the lamp or tilt the camera",
              "ja": "{side}に光が反射しています：照明を動かすかカメラの角度を変えてください"},
    "too_dark": {"en": "Too dark: turn on more light", "ja": "暗すぎます：明かりを増やしてください"},
    "too_bright": {"en": "Too bright: the white is washed out; dim the light or lower the exposure",
                   "ja": "明るすぎます：白が飛んでいます。照明を弱めるか露出を下げてください"},
    "refused": {"en": "This frame is not read: {reason}", "ja": "この映像は読み取りません：{reason}"},
    "screen": {"en": "A card on a screen is not a card on the table: ignored",
               "ja": "画面に映ったカードは卓上のカードではないので無視します"},
    "off_table": {"en": "A card held above the table is ignored until it is laid down",
                  "ja": "卓の上に持ち上げたカードは置かれるまで無視します"},
    "outside": {"en": "A card outside the play area is ignored",
                "ja": "プレイエリアの外のカードは無視します"},
}
"""Every sentence the host view shows, by code, in English and Japanese."""

SIDE_WORDS = {"left": {"en": "left", "ja": "左側"}, "right": {"en": "right", "ja": "右側"},
              "far": {"en": "far side", "ja": "奥"}, "near": {"en": "near side", "ja": "手前"},
              "middle": {"en": "middle", "ja": "中央"}}

REASONS = {"shaking": {"en": "the camera is shaking", "ja": "カメラが揺れています"},
           "out_of_focus": {"en": "the picture is blurred", "ja": "映像がぼやけています"}}


def message(code: str, lang: str = "en", side: str | None = None, reason: str | None = None) -> str:
    """The host view's sentence for ``code`` in ``lang`` ("en" or "ja")."""
    lang = lang if lang in ("en", "ja") else "en"
    text = MESSAGES[code][lang]
    return text.format(side=SIDE_WORDS.get(side or "middle", SIDE_WORDS["middle"])[lang],
                       reason=REASONS.get(reason or "", {}).get(lang, reason or ""))


@dataclass(frozen=True)
class Glare:
    """A clipped blob too large to be blank paper: a lamp's reflection."""

    side: str                               # "left", "right", "far", "near" or "middle" of the table
    box: tuple[int, int, int, int]          # (x0, y0, x1, y1) frame px
    radius_mm: float                        # the largest disc inside it


@dataclass(frozen=True)
class Warning:
    """One thing the table should fix, with its sentence in both languages."""

    code: str                               # a key of ``MESSAGES``
    side: str | None = None                 # for "glare"
    reason: str | None = None               # for "refused": the code of why

    def text(self, lang: str = "en") -> str:
        """The sentence in ``lang``."""
        return message(self.code, lang, self.side, self.reason)

    def to_json(self) -> dict[str, Any]:
        """Code, side and both sentences (for the web page)."""
        return {"code": self.code, "side": self.side, "reason": self.reason,
                "en": self.text("en"), "ja": self.text("ja")}


@dataclass(frozen=True)
class FrameQuality:
    """How fit one frame is to be read."""

    blur_px: float              # smear across the direction of motion (shake), px of a 1080p frame
    focus_px: float             # width of the sharpest edges (3.2 px on a sharp rendered frame)
    brightness: float           # the frame's median grey level
    paper: float                # the brightest paper's grey level (99th percentile)
    clipped: float              # share of the frame clipped (saturated)
    glare: tuple[Glare, ...] = ()
    shaking: bool = False       # the view jumped in several recent frames (``QualityMeter``)
    blur_angle: float = 0.0     # the direction of the smear, degrees 0–180 (image axes, y down)

    @property
    def is_blurred(self) -> bool:
        """Too smeared or too soft to be read."""
        return self.blur_px > BLUR_LIMIT_PX or self.focus_px > FOCUS_LIMIT_PX

    @property
    def too_dark(self) -> bool:
        """The brightest paper stays grey."""
        return self.paper < DARK_PAPER

    @property
    def too_bright(self) -> bool:
        """Much of the frame is clipped."""
        return self.clipped > BRIGHT_SHARE

    @property
    def refused(self) -> str | None:
        """Why this frame must not be read ("shaking" or "out_of_focus"), or None."""
        if self.blur_px > BLUR_LIMIT_PX:
            return "shaking"
        if self.focus_px > FOCUS_LIMIT_PX:
            return "out_of_focus"
        return None

    def warnings(self) -> tuple[Warning, ...]:
        """What the host view should say about this frame, most urgent first."""
        out: list[Warning] = []
        if self.refused:
            out.append(Warning("refused", reason=self.refused))
        # a frame out of focus also smears unevenly: it is called shaking only while in focus
        if self.shaking or (self.blur_px > BLUR_WARN_PX and self.refused != "out_of_focus"):
            out.append(Warning("shaking"))
        if self.focus_px > FOCUS_LIMIT_PX:
            out.append(Warning("out_of_focus"))
        elif self.focus_px > FOCUS_WARN_PX:
            out.append(Warning("soft"))
        for side in dict.fromkeys(g.side for g in self.glare):
            out.append(Warning("glare", side=side))
        if self.too_dark:
            out.append(Warning("too_dark"))
        if self.too_bright:
            out.append(Warning("too_bright"))
        return tuple(out)


def assess(frame: np.ndarray, calibration: Any = None, table: tuple[float, float, float, float] | None = None,
           markers: Sequence[np.ndarray] = ()) -> FrameQuality:
    """Sharpness, glare and exposure of one BGR or grey frame; ``calibration`` (a
    ``vision.table.calibrate.Calibration``) and ``table`` (x0, y0, x1, y1 mm) name glare's side by the
    table; ``markers`` ((4, 2) px outlines of the markers of cards known to lie there, never white)
    let glare of any size over them count."""
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    factor = grey.shape[1] / REFERENCE_WIDTH
    quarter = cv2.resize(grey, (max(1, grey.shape[1] // 4), max(1, grey.shape[0] // 4)), interpolation=cv2.INTER_AREA)
    widths = edge_widths(grey, quarter)
    focus, blur = _focus_and_blur(widths)
    levels = np.cumsum(cv2.calcHist([quarter], [0], None, [256], [0, 256]).ravel()) / quarter.size
    median, paper = int(np.searchsorted(levels, 0.5)), int(np.searchsorted(levels, 0.99))
    clipped = float(1 - levels[SATURATED - 1])
    return FrameQuality(round(blur / factor, 2), round(focus / factor, 2), float(median), float(paper),
                        round(clipped, 4), glare_spots(quarter, 4.0, calibration, table, markers),
                        blur_angle=smear_angle(widths))


def sharpness(grey: np.ndarray, quarter: np.ndarray | None = None) -> tuple[float, float]:
    """(focus, blur) in px of this frame: the sharpest direction's edge width, and the motion smear
    (``BLUR_GAIN`` · sqrt(widest² − the width at right angles to it)) measured on the ``TILES`` tiles
    with most contrast; ``quarter``: ``grey`` reduced four times, if at hand."""
    return _focus_and_blur(edge_widths(grey, quarter))


def smear_angle(widths: np.ndarray) -> float:
    """The direction of motion (degrees, 0–180, image axes, y down) from ``edge_widths``: a smear
    of ``L`` px along θ widens an edge whose gradient points along φ to about √(w₀² + L² cos²(φ − θ)),
    so the squared widths follow one cosine of 2φ peaking at θ, fitted by least squares over the
    judged directions. Within 5–8.3° for 90 % of rendered tables smeared by 3–7 px, at most 10°
    (``companion bench deblur``; ``vision.frame.deblur.estimate`` refines it)."""
    judged = widths > 0
    if judged.sum() < 3:
        return 0.0
    phi = np.arange(DIRECTIONS) * math.pi / DIRECTIONS
    basis = np.stack([np.ones(DIRECTIONS), np.cos(2 * phi), np.sin(2 * phi)], axis=1)[judged]
    (_, c, s), *_ = np.linalg.lstsq(basis, widths[judged] ** 2, rcond=None)
    return round(math.degrees(math.atan2(s, c)) / 2 % 180, 1)


def _focus_and_blur(widths: np.ndarray) -> tuple[float, float]:
    """(focus, blur) px from ``edge_widths`` (see ``sharpness``)."""
    judged = widths > 0
    if not judged.any():
        return 0.0, 0.0
    # motion smears the edges across its direction and leaves those along it sharp: compare each
    # direction with the one at right angles (not with the sharpest overall: a table's print is
    # sharpest along the cards' edges, whichever way the motion went)
    across = np.roll(widths, DIRECTIONS // 2)
    pairs = judged & (across > 0)
    smear = float(np.max(widths[pairs] ** 2 - across[pairs] ** 2)) if pairs.any() else 0.0
    return float(widths[judged].min()), BLUR_GAIN * math.sqrt(max(smear, 0.0))


def edge_widths(grey: np.ndarray, quarter: np.ndarray | None = None) -> np.ndarray:
    """The width (px) of the sharpest edges whose gradient points each of the ``DIRECTIONS`` ways
    (direction d: d · 180° / ``DIRECTIONS``, image axes, y down), 0 where too few edges run that
    way; measured on the ``TILES`` tiles with most contrast."""
    h, w = grey.shape[:2]
    r = EDGE_REACH
    rows, cols = (h - 2 * r) // TILE, (w - 2 * r) // TILE
    if rows <= 0 or cols <= 0:
        return np.zeros(DIRECTIONS)
    # where the contrast is: each tile's range of grey on the frame at a quarter of its size
    # (``quarter``, when the caller has it: one reduction serves this, exposure and glare)
    if quarter is None:
        quarter = cv2.resize(grey, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    q, n = r // 4, TILE // 4
    small = quarter[q:q + rows * n, q:q + cols * n]
    spread = cv2.subtract(cv2.dilate(small, np.ones((3, 3), np.uint8)), cv2.erode(small, np.ones((3, 3), np.uint8)))
    score = spread.reshape(rows, n, cols, n).max(axis=(1, 3)).astype(np.int16)
    order = np.argsort(-score, axis=None)[:TILES]
    order = order[score.ravel()[order] >= EDGE_CONTRAST // 2]
    if len(order) == 0:
        return np.zeros(DIRECTIONS)
    size = TILE + 2 * r
    tiles = np.stack([grey[i * TILE:i * TILE + size, j * TILE:j * TILE + size]
                      for i, j in zip(*np.unravel_index(order, (rows, cols)))])
    # all tiles side by side in one image: one pass of each filter (the margins keep them apart)
    strip = tiles.reshape(len(order) * size, size)
    g = strip.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)    # Sobel's weights: 8 × the slope
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
    kernel = np.ones((2 * r + 1, 2 * r + 1), np.uint8)
    contrast = cv2.subtract(cv2.dilate(strip, kernel), cv2.erode(strip, kernel))
    magnitude = cv2.magnitude(gx, gy)
    width = cv2.divide(contrast.astype(np.float32), cv2.max(magnitude, 1.0))
    chosen = cv2.bitwise_and(cv2.compare(contrast, EDGE_CONTRAST, cv2.CMP_GE), _inner(len(order), size))
    chosen = cv2.bitwise_and(chosen, cv2.compare(magnitude, 1.0, cv2.CMP_GT))
    # edge widths by direction in one histogram (11.25° by 0.05 px), percentiles read off it
    hist = cv2.calcHist([cv2.phase(gx, gy, angleInDegrees=True), width], [0, 1], chosen,
                        [32, WIDTH_BINS], [0, 360, 0, WIDTH_BINS * WIDTH_STEP])
    by_direction = _DIRECTION_OF_BIN @ hist.astype(np.float64)
    counts = by_direction.sum(axis=1)
    widths = np.zeros(DIRECTIONS)
    for d in np.flatnonzero(counts >= MIN_EDGES):
        k = np.searchsorted(np.cumsum(by_direction[d]), counts[d] * EDGE_PERCENTILE / 100)
        widths[d] = (k + 0.5) * WIDTH_STEP
    return widths


_DIRECTION_OF_BIN = np.eye(DIRECTIONS)[(np.arange(32) + 1) // 2 % DIRECTIONS].T
"""(DIRECTIONS, 32): which direction each of the 32 histogram bins of the gradient's angle counts
for (a bin's counts are whole numbers, so the sums are exact in any order)."""


@lru_cache(maxsize=4)
def _inner(count: int, size: int) -> np.ndarray:
    """The mask of ``count`` stacked tiles of ``size`` px without their ``EDGE_REACH`` margins."""
    inner = np.zeros((count, size, size), np.uint8)
    inner[:, EDGE_REACH:-EDGE_REACH, EDGE_REACH:-EDGE_REACH] = 255
    return inner.reshape(count * size, size)


def glare_spots(small: np.ndarray, scale: float, calibration: Any = None,
                table: tuple[float, float, float, float] | None = None,
                markers: Sequence[np.ndarray] = ()) -> tuple[Glare, ...]:
    """Clipped blobs of ``small`` (the frame reduced ``scale`` times) too large for blank paper, or
    over any of ``markers`` (frame px outlines: a marker's black is never white)."""
    mask = cv2.compare(small, SATURATED, cv2.CMP_GE) // 255
    h, w = small.shape[:2]
    px_per_mm = GLARE_PX_PER_MM * w * scale / REFERENCE_WIDTH
    if calibration is not None:
        px_per_mm = max(calibration.px_per_mm(_table_centre(table)), 1e-3) if table else px_per_mm
    on_markers = np.zeros_like(mask)
    if len(markers):
        # a marker is at least 40 % black (its border and half its bits): one washed out that much
        # lies under glare (white bits and the paper around them clip in a bright room)
        which = np.zeros(mask.shape, np.int32)
        for n, m in enumerate(markers, start=1):
            cv2.fillConvexPoly(which, np.round(np.asarray(m) / scale).astype(np.int32), n)
        area = np.bincount(which.ravel(), minlength=len(markers) + 1)
        washed = np.bincount(which[mask > 0], minlength=len(markers) + 1)
        glared = (washed >= WASHED_MARKER * np.maximum(area, 1)) & (area > 0)
        glared[0] = False
        on_markers = (glared[which] & (mask > 0)).astype(np.uint8)
    # a disc of the glare radius (at the finest the table is seen, a little less) must fit, or the
    # blob must lie on a marker: most frames have neither, told by one erosion
    reach = max(1, int(GLARE_RADIUS_MM * px_per_mm / scale * 0.5))
    if not on_markers.any() and \
            not cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))).any():
        return ()
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask)
    inside = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    # each blob's largest inner disc and its pixels on washed-out markers, all blobs at once; only
    # those that may hold the glare disc somewhere (half the radius at the table's centre: a
    # tilted camera sees its far side coarser) or lie on markers are looked at one by one
    # (a blob's deepest point is among its pixels at least ``reach`` deep, if it has any: only
    # those are gathered, not every clipped pixel of the frame's white paper)
    deep = inside >= reach
    deepest = np.zeros(count)
    np.maximum.at(deepest, labels[deep], inside[deep])
    marked = np.bincount(labels[on_markers > 0], minlength=count)
    for label in np.flatnonzero((marked >= GLARE_ON_MARKER) & (deepest < reach)):
        deepest[label] = inside[labels == label].max()      # on a marker, however shallow
    spots = []
    labels = [label for label in np.flatnonzero((deepest >= reach) | (marked >= GLARE_ON_MARKER)) if label != 0]
    ats = [(float(centroids[label][0] * scale), float(centroids[label][1] * scale)) for label in labels]
    # the table's resolution at each blob (a card's white paper passes the depth test above: ~20
    # blobs a frame), mapped through the calibration together
    local = _px_per_mm(calibration, ats) if calibration is not None and labels else [px_per_mm] * len(labels)
    for label, at, px_per_mm in zip(labels, ats, local):
        x, y, bw, bh, _ = stats[label]
        radius = float(deepest[label]) * scale / px_per_mm
        if radius >= GLARE_RADIUS_MM or marked[label] >= GLARE_ON_MARKER:
            box = (int(x * scale), int(y * scale), int((x + bw) * scale), int((y + bh) * scale))
            spots.append(Glare(_side(at, (w * scale, h * scale), calibration, table), box, round(radius, 1)))
    return tuple(spots)


def glared(now: np.ndarray, then: np.ndarray, halo: int = 3, where: np.ndarray | None = None) -> np.ndarray:
    """Where a place's look ``now`` is washed out by glare that was not there ``then`` (two grey
    patches of one place): clipped now, and brighter than then, grown by ``halo`` px (the soft rim
    of a reflection brightens what lies around its clipped middle). Glare only adds light: where
    more than ``GLARE_DARKER`` of the place (or of ``where``) got darker, something else lies there
    now (a card taken away shows the print of the one below), and nothing is glare."""
    change = now.astype(np.int16) - then
    darker = change <= -GLARE_GAIN
    if where is not None:
        darker &= where
    if np.count_nonzero(darker) > GLARE_DARKER * (np.count_nonzero(where) if where is not None else darker.size):
        return np.zeros(now.shape, bool)
    washed = (now >= SATURATED - 8) & (change >= GLARE_GAIN)
    if halo and washed.any():
        washed = cv2.dilate(washed.astype(np.uint8), np.ones((2 * halo + 1, 2 * halo + 1), np.uint8)) > 0
    return washed


def _px_per_mm(calibration: Any, at_px: Sequence[tuple[float, float]]) -> list[float]:
    """``Calibration.px_per_mm`` at each of these image points (at least 1e-3), the points mapped
    through the calibration in one pass each way (the same per-point arithmetic as one at a time)."""
    mm = calibration.to_table(np.array(at_px, np.float64))
    steps = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    px = calibration.to_image((mm[:, None, :] + steps).reshape(-1, 2)).reshape(-1, 3, 2)
    return [max(float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20), 1e-3) for p in px]


def _table_centre(table: tuple[float, float, float, float]) -> tuple[float, float]:
    return ((table[0] + table[2]) / 2, (table[1] + table[3]) / 2)


def _side(at_px: tuple[float, float], size: tuple[float, float], calibration: Any,
          table: tuple[float, float, float, float] | None) -> str:
    """Which side of the table (or, uncalibrated, of the frame) a point lies on: the outer thirds
    are left/right (x) and far/near (y: the image's top is the far side of the table)."""
    if calibration is not None and table is not None:
        x, y = calibration.to_table(np.array([at_px]))[0]
        x0, y0, x1, y1 = table
        u, v = (x - x0) / max(x1 - x0, 1e-9), (y - y0) / max(y1 - y0, 1e-9)
    else:
        u, v = at_px[0] / size[0], at_px[1] / size[1]
    du, dv = abs(u - 0.5), abs(v - 0.5)
    if max(du, dv) < 1 / 6:
        return "middle"
    if du >= dv:
        return "left" if u < 0.5 else "right"
    return "far" if v < 0.5 else "near"


def _even_dft(n: int) -> int:
    """The largest even size up to ``n`` that OpenCV's DFT takes without padding."""
    while n > 2 and (n % 2 or cv2.getOptimalDFTSize(n) != n):
        n -= 1
    return n


class QualityMeter:
    """``assess`` over a stream: also notices the whole view jumping (camera shaking) between frames."""

    def __init__(self) -> None:
        self._previous: np.ndarray | None = None
        self._jumps: list[bool] = []
        self.last: FrameQuality | None = None

    def jumped(self, small: np.ndarray, frame_width: int) -> bool:
        """Whether the whole view moved since the previous ``small`` frame (phase correlation: a hand
        moves part of it, the camera all of it)."""
        # cropped to a size OpenCV's DFT takes as it is and even: on an odd (padded) size, such as
        # the 135 rows of a 1080p frame's small copy, phaseCorrelate finds half a row of shift
        # between two identical frames, which reads as a 4 px jump of a 1080p view
        h, w = (_even_dft(n) for n in small.shape[:2])
        current = np.float32(small[:h, :w])
        previous, self._previous = self._previous, current
        jump = False
        if previous is not None and previous.shape == current.shape:
            (dx, dy), response = cv2.phaseCorrelate(previous, current)
            px = math.hypot(dx, dy) * frame_width / small.shape[1] * REFERENCE_WIDTH / frame_width
            jump = response > 0.2 and px > SHAKE_PX
        self._jumps = (self._jumps + [jump])[-SHAKE_FRAMES[1]:]
        return jump

    @property
    def shaking(self) -> bool:
        """At least ``SHAKE_FRAMES[0]`` jumps among the last ``SHAKE_FRAMES[1]`` frames."""
        return sum(self._jumps) >= SHAKE_FRAMES[0]

    def assess(self, frame: np.ndarray, calibration: Any = None,
               table: tuple[float, float, float, float] | None = None, markers: Sequence[np.ndarray] = ()) -> FrameQuality:
        """``assess`` with ``shaking`` from the recent frames (call ``jumped`` on every frame)."""
        quality = assess(frame, calibration, table, markers)
        if self.shaking:
            quality = replace(quality, shaking=True)
        self.last = quality
        return quality

