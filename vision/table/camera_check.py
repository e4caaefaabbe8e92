"""The camera set-up check: can this camera, where it stands, read cards everywhere on the table?

From the calibration (the homography of the K-CAL markers) the check knows, at every point of the
watched area, how many image pixels one table millimetre covers along its worse direction (a card
can lie at any angle, so the smaller singular value of the local image Jacobian counts). A 15 mm
marker is read at ``READ_PX_PER_MM`` and above; the map is green there and red below. With the
frame-quality measures (``vision.frame.quality``: focus, shake, glare, exposure) it names the one thing to
do next, in English and Japanese: "raise the camera 10 cm", "tilt it toward the top of the view",
"move the lamp: glare on the left".

Distances in the advice come from the scale at the table's centre and a typical camera's field of
view (``TYPICAL_HFOV_DEG``); they are a first step to try, and the check is run again on the next
frame.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import cv2
import numpy as np

from companion import catalogue as cat
from vision.table.calibrate import Calibration

READ_PX_PER_MM = 1.0
"""Resolution (px per table mm along the worse axis) from which 15 mm markers are read: ≥ 99.5 % of
the visible cards, 0 wrong. Measured (issue 24, branch read, session 9; docs/figures.md) on the
conditions bench's tables of all five games (17 conditions: tilts, lens, 3 and 5 px of motion
blur, glare, four screens, light; a card visible from 1.0 px/mm) rendered at 1.0 px/mm: 647 of 649
(99.69 %), 0 wrong, since a lone coarse marker is also named by its card's QR code
(``vision.reading.byqr``; 644 before: two dim-room cards and a smeared one); at 1.1: 1620 of 1625;
the surfaces bench (five surfaces) 100 % at 1.0–2.0, 0 wrong. Below 1.0 nothing was measured.
Was 1.1 (session 8: 99.23 % at 1.0), 1.2 (issue 24, rounds 1–4), 1.4 before (issue 12's angled trials),
which a 1080p camera cannot give Wheel's circle from any pose at 45–70°."""

TYPICAL_HFOV_DEG = 65.0
"""Horizontal field of view assumed for distance advice (a phone's main camera or a webcam, 60–75°)."""

GRID = (24, 16)
"""Cells of the px/mm map across × along the watched area."""

UNEVEN = 1.3
"""A map whose best cell reads this many times finer than its worst comes from a camera looking at
the table at an angle: the advice is to move it over the middle rather than lower it."""

MINOR = ("soft",)
"""Frame-quality warnings that do not stop cards being read: said, but after the camera's place."""

CORNER_ERROR_MM = {2: 20, 3: 6}
"""How far cards are placed off at most by a calibration from this many K-CAL corner markers (the
others covered or out of view), measured with the pipeline's own reading of rendered 1000 × 620 mm
tables at 45° and 60°: two markers 4–19 mm (the pair on the far side worst), three 2.4–5.6 mm, all
four 0.4–0.6 mm (``tests/vision/test_vision_corners.py``)."""

FIT = 0.94
"""Share of the frame the watched area may fill across and along (a margin for a camera nudged
later): the advice to raise the camera makes it fit so, the advice to lower it keeps it so."""


MESSAGES: dict[str, tuple[str, str]] = {
    "no_frame": ("No picture from the camera yet.", "カメラからの映像がまだありません。"),
    "calibrate": ("No table found yet: put the four K-CAL markers at the corners of the play area, "
                  "all in view of the camera. They are the black-and-white squares K-CAL1 to K-CAL4 on the "
                  "calibration sheet (the last page of `companion print tokens`, or of tokens on the Print "
                  "page): cut them out; the camera measures the table from them.",
                  "まだテーブルが見つかりません。4枚のK-CALマーカーをプレイエリアの四隅に置き、すべてカメラに"
                  "写るようにしてください。K-CALマーカーはキャリブレーションシート(`companion print tokens`、"
                  "または印刷ページの「トークン」の最終ページ)にある白黒の四角K-CAL1〜K-CAL4です。切り取って"
                  "使います。カメラはこれでテーブルを測ります。"),
    "corners": ("Bring all four K-CAL markers into view ({missing} not seen): from {n} corner markers "
                "the camera's angle and lens are guessed, and cards far from them are placed up to "
                "about {mm} mm off.",
                "4枚のK-CALマーカーをすべて写してください({missing}が見えません)。{n}枚の角のマーカーだけでは"
                "カメラの角度とレンズを推測するしかなく、離れたカードの位置が最大で約{mm}mmずれます。"),
    "raise": ("Raise the camera about {cm} cm: the table does not fit the view.",
              "カメラを約{cm}cm上げてください。テーブルが画面に収まっていません。"),
    "tilt": ("Tilt the camera toward the {side_en} of the view: the table's edge there is cut off.",
             "カメラを画面の{side_ja}へ傾けてください。そちらのテーブルの端が切れています。"),
    "lower": ("Lower the camera about {cm} cm: cards read at {low} px/mm here and need {need}.",
              "カメラを約{cm}cm下げてください。現在{low} px/mmで、読み取りには{need}が必要です。"),
    "overhead": ("Move the camera over the middle of the table, looking straight down: at the "
                 "{side_en} of the view cards are too small to read ({low} px/mm; they need {need}).",
                 "カメラをテーブルの中央の真上に移し、真下に向けてください。画面の{side_ja}ではカードが"
                 "小さすぎて読めません({low} px/mm、必要なのは{need})。"),
    "overhead_fit": ("Move the camera over the middle of the table, looking straight down: from this "
                     "angle the table fits the view only at {low} px/mm (cards need {need}); from "
                     "straight above it fits at {top} px/mm.",
                     "カメラをテーブルの中央の真上に移し、真下に向けてください。この角度では画面に収めると"
                     "{low} px/mmになります(必要なのは{need})。真上からなら{top} px/mmで収まります。"),
    "too_big": ("This camera cannot see the whole table sharply enough ({low} px/mm; cards need "
                "{need}): set it to a higher resolution (4K) if it has one, or move the K-CAL "
                "markers closer around the cards.",
                "このカメラではテーブル全体を十分な解像度で写せません({low} px/mm、必要なのは{need})。"
                "可能なら高解像度(4K)に設定するか、K-CALマーカーをカードの近くに寄せてください。"),
    "ready": ("Ready: cards read everywhere on the table (lowest {low} px/mm).",
              "準備完了:テーブルのどこでもカードを読み取れます(最低{low} px/mm)。"),
}

SIDES: dict[str, tuple[str, str]] = {
    "top": ("top", "上"), "bottom": ("bottom", "下"), "left": ("left", "左"), "right": ("right", "右"),
}


@dataclass(frozen=True)
class Advice:
    """One thing said to the table: a message key with its values, in English and Japanese."""

    key: str
    values: tuple[tuple[str, Any], ...] = ()
    en: str = ""
    ja: str = ""

    @classmethod
    def of(cls, key: str, **values: Any) -> "Advice":
        """The message ``key`` of ``MESSAGES`` filled with ``values``."""
        en, ja = MESSAGES[key]
        return cls(key, tuple(sorted(values.items())), en.format(**values), ja.format(**values))

    def text(self, lang: str) -> str:
        """The advice in ``lang`` ("en" or "ja")."""
        return self.ja if lang == "ja" else self.en


@dataclass(frozen=True)
class ScaleMap:
    """The camera's resolution over the watched area: cell centres (table mm), px/mm along the
    worse axis at each, and whether each lies inside the frame."""

    centres_mm: np.ndarray          # (rows, cols, 2)
    cell_mm: tuple[float, float]    # cell width, height
    px_per_mm: np.ndarray           # (rows, cols)
    in_view: np.ndarray             # (rows, cols) bool

    @property
    def readable(self) -> np.ndarray:
        """Cells in view where cards will read."""
        return self.in_view & (self.px_per_mm >= READ_PX_PER_MM)

    @property
    def lowest(self) -> float:
        """The lowest px/mm of the cells in view (0 when none is)."""
        return float(self.px_per_mm[self.in_view].min()) if self.in_view.any() else 0.0

    @property
    def highest(self) -> float:
        """The highest px/mm of the cells in view (0 when none is)."""
        return float(self.px_per_mm[self.in_view].max()) if self.in_view.any() else 0.0


@dataclass(frozen=True)
class SetupCheck:
    """The set-up check of one frame: the px/mm map, the frame-quality warnings and the next step."""

    calibrated: bool
    next_step: Advice
    warnings: tuple[Advice, ...] = ()
    map: ScaleMap | None = None
    in_view: float = 0.0            # share of the watched area inside the frame
    frame: tuple[int, int] = (0, 0)

    def to_json(self, lang: str) -> dict[str, Any]:
        """What the host page and the phone show: the next step, warnings and figures."""
        m = self.map
        return {"calibrated": self.calibrated, "ok": self.next_step.key == "ready",
                "next": {"key": self.next_step.key, "text": self.next_step.text(lang)},
                "warnings": [{"key": w.key, "text": w.text(lang)} for w in self.warnings],
                "need_px_per_mm": READ_PX_PER_MM,
                "lowest_px_per_mm": round(m.lowest, 2) if m else None,
                "highest_px_per_mm": round(m.highest, 2) if m else None,
                "readable": round(float(m.readable.mean()), 3) if m else None,
                "in_view": round(self.in_view, 3), "frame": list(self.frame)}


def worse_axis_scale(to_image: Any, points_mm: np.ndarray, step_mm: float = 2.0) -> np.ndarray:
    """Image px per table mm along the worse direction at each point (N, 2): the smaller singular
    value of the local Jacobian of ``to_image`` (table mm -> image px), by central differences."""
    pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
    dx, dy = np.array([step_mm, 0.0]), np.array([0.0, step_mm])
    jx = (to_image(pts + dx) - to_image(pts - dx)) / (2 * step_mm)
    jy = (to_image(pts + dy) - to_image(pts - dy)) / (2 * step_mm)
    jacobian = np.stack([jx, jy], axis=-1)             # (N, 2 image, 2 table)
    return np.linalg.svd(jacobian, compute_uv=False)[:, -1]


def scale_map(calibration: Calibration, bounds: tuple[float, float, float, float],
              frame: tuple[int, int], grid: tuple[int, int] = GRID) -> ScaleMap:
    """The px/mm map of the watched area ``bounds`` (x0, y0, x1, y1 table mm) in a ``frame``
    (w, h px) seen through ``calibration``."""
    x0, y0, x1, y1 = bounds
    cols, rows = grid
    cw, ch = (x1 - x0) / cols, (y1 - y0) / rows
    xs = x0 + cw * (np.arange(cols) + 0.5)
    ys = y0 + ch * (np.arange(rows) + 0.5)
    centres = np.stack(np.meshgrid(xs, ys), axis=-1)                  # (rows, cols, 2)
    flat = centres.reshape(-1, 2)
    scale = worse_axis_scale(calibration.to_image, flat).reshape(rows, cols)
    px = calibration.to_image(flat)
    w, h = frame
    inside = ((px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)).reshape(rows, cols)
    return ScaleMap(centres, (cw, ch), scale, inside)


def camera_distance_mm(px_per_mm: float, frame_width: int) -> float:
    """About how far the camera is from the table at a point read at ``px_per_mm`` (typical lens)."""
    focal_px = frame_width / 2 / math.tan(math.radians(TYPICAL_HFOV_DEG) / 2)
    return focal_px / max(px_per_mm, 1e-6)


def _cm(distance_mm: float) -> int:
    """A distance to move the camera, rounded up to 5 cm (at least 5)."""
    return max(5, int(math.ceil(distance_mm / 50.0)) * 5)


def _down(value: float) -> str:
    """A px/mm figure to two places, rounded down (1.397 is not "1.40" when 1.4 is needed)."""
    return f"{math.floor(value * 100) / 100:.2f}"


def _side(points_px: np.ndarray, frame: tuple[int, int]) -> str:
    """The side of the view (top, bottom, left, right) the points lie toward, from the centre."""
    w, h = frame
    d = (np.asarray(points_px, np.float64).reshape(-1, 2).mean(axis=0) - (w / 2, h / 2)) / (w / 2, h / 2)
    if abs(d[0]) > abs(d[1]):
        return "right" if d[0] > 0 else "left"
    return "bottom" if d[1] > 0 else "top"


def _sided(key: str, side: str, **values: Any) -> Advice:
    en, ja = SIDES[side]
    return Advice.of(key, side_en=en, side_ja=ja, **values)


def check(frame: np.ndarray | None, calibration: Calibration | None,
          bounds: tuple[float, float, float, float],
          warnings: Sequence[Advice] = ()) -> SetupCheck:
    """The set-up check of one frame (BGR, or None when no frame came yet) seen through
    ``calibration`` (None until the K-CAL markers were found) for the watched area ``bounds``.
    ``warnings`` are the frame-quality warnings, most urgent first (``quality_advice``): once the
    table is found, the first that spoils reading becomes the next step (a shaking, blurred,
    glaring or badly lit frame is fixed before the camera is moved); a picture only a little soft
    waits until the camera stands right. Until then the step is to bring the K-CAL markers into view."""
    if frame is None:
        return SetupCheck(False, Advice.of("no_frame"))
    size = (frame.shape[1], frame.shape[0])
    warnings = tuple(warnings)
    urgent = [w for w in warnings if w.key not in MINOR]
    if calibration is None:
        # "no table found" comes first (issue 23): a frame said to be shaking while the camera sees
        # no play area at all reads as the wrong problem; the most urgent quality warning follows
        # it as what may hide the markers
        step = Advice.of("calibrate")
        if urgent:
            step = Advice(step.key, step.values, f"{step.en} {urgent[0].en}", f"{step.ja}{urgent[0].ja}")
        return SetupCheck(False, step, warnings, frame=size)
    m = scale_map(calibration, bounds, size)
    corners, covered = _corners(calibration, bounds, size)
    if corners is not None:
        warnings = warnings + (corners,)
    step = urgent[0] if urgent else _next_step(calibration, bounds, m, size)
    # a corner marker where the camera would read it is covered (or was not laid): that comes
    # first; one out of view or seen too small is brought in by the step that says where to move
    if corners is not None and not urgent and (covered or step.key == "ready"):
        step = corners
    if step.key == "ready" and warnings:
        step = warnings[0]
    return SetupCheck(True, step, warnings, m, float(m.in_view.mean()), size)


def _corners(calibration: Calibration, bounds: tuple[float, float, float, float],
             size: tuple[int, int]) -> tuple[Advice | None, bool]:
    """The advice to bring every K-CAL marker into view when the calibration comes from fewer than
    four (None when it has all four, or is not from K-CAL markers), and whether one of the missing
    ones lies where the camera would read it (in the frame, fine enough for a 40 mm marker:
    covered, or not laid)."""
    used = tuple(calibration.markers)
    if not used or len(used) >= 4 or not all(k.startswith("K-CAL") for k in used):
        return None, False
    x0, y0, x1, y1 = bounds
    inset = cat.CALIBRATION_MARKER_MM / 2       # a K-CAL marker's centre in its corner
    # a 40 mm K-CAL marker reads where a 15 mm card marker would at 40/15 times the px/mm
    need = READ_PX_PER_MM * cat.MARKER_MM / cat.CALIBRATION_MARKER_MM
    centres = {"K-CAL1": (x0 + inset, y0 + inset), "K-CAL2": (x1 - inset, y0 + inset),
               "K-CAL3": (x1 - inset, y1 - inset), "K-CAL4": (x0 + inset, y1 - inset)}
    missing = [k for k in centres if k not in used]
    at = np.array([centres[k] for k in missing], np.float64)
    px = calibration.to_image(at)
    w, h = size
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    covered = bool((inside & (worse_axis_scale(calibration.to_image, at) >= need)).any())
    advice = Advice.of("corners", missing=", ".join(missing), n=len(used), mm=CORNER_ERROR_MM.get(len(used), 20))
    return advice, covered


def overhead_px_per_mm(bounds: tuple[float, float, float, float], size: tuple[int, int]) -> float:
    """The scale (px/mm) of a camera straight above the table's middle, just high enough to fit
    the table in view, turned whichever way fits it larger."""
    w, h = size
    x0, y0, x1, y1 = bounds
    tw, th = x1 - x0, y1 - y0
    return max(min(FIT * w / tw, FIT * h / th), min(FIT * w / th, FIT * h / tw))


def _next_step(cal: Calibration, bounds: tuple[float, float, float, float], m: ScaleMap,
               size: tuple[int, int]) -> Advice:
    """The one thing to do next with a calibrated camera and a good frame."""
    w, h = size
    x0, y0, x1, y1 = bounds
    corners = cal.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
    span = np.ptp(corners, axis=0)
    centre = cal.to_image(np.array([[(x0 + x1) / 2, (y0 + y1) / 2]]))
    centre_scale = float(worse_axis_scale(cal.to_image, np.array([[(x0 + x1) / 2, (y0 + y1) / 2]]))[0])
    distance = camera_distance_mm(centre_scale, w)
    need = f"{READ_PX_PER_MM:g}"
    low, high = m.lowest, m.highest
    # a camera looking at the table at an angle, its far side too small, is moved first: raising
    # it to fit the table, or lowering it, would not help the far side enough
    if low < READ_PX_PER_MM <= high and high / low > UNEVEN:
        red = m.centres_mm[m.in_view & ~m.readable]
        return _sided("overhead", _side(cal.to_image(red), size), low=_down(low), need=need)
    if not m.in_view.all():
        grow = max(span[0] / (FIT * w), span[1] / (FIT * h))
        if grow > 1:        # the table is bigger than the view: the camera must go up ...
            if low / grow < READ_PX_PER_MM:     # ... and would then see it too small
                # an angled camera wastes its pixels on the near side: from straight above the
                # same camera may fit the table at a readable scale
                top = overhead_px_per_mm(bounds, size)
                if high / low > UNEVEN and top >= READ_PX_PER_MM:
                    return Advice.of("overhead_fit", low=_down(low / grow), need=need, top=_down(top))
                return Advice.of("too_big", low=_down(low / grow), need=need)
            return Advice.of("raise", cm=_cm(distance * (grow - 1)))
        out = m.centres_mm[~m.in_view]
        return _sided("tilt", _side(cal.to_image(out), size))
    if low >= READ_PX_PER_MM:
        return Advice.of("ready", low=_down(low))
    grow = READ_PX_PER_MM * 1.03 / low     # a little margin above the line
    fits = span[0] * grow <= FIT * w and span[1] * grow <= FIT * h
    # the table's centre must stay in view when it grows about the frame's centre
    shift = np.abs(centre[0] - (w / 2, h / 2)) * grow
    if fits and shift[0] < w / 2 and shift[1] < h / 2:
        return Advice.of("lower", cm=_cm(distance * (1 - 1 / grow)), low=_down(low), need=need)
    return Advice.of("too_big", low=_down(low), need=need)


GREEN, RED, OUTLINE, SPOT = (60, 190, 60), (50, 50, 230), (255, 200, 0), (0, 230, 255)


def draw(frame: np.ndarray, result: SetupCheck, calibration: Calibration | None,
         bounds: tuple[float, float, float, float], width: int = 960,
         spots: Sequence[tuple[int, int, int, int]] = ()) -> np.ndarray:
    """The frame at ``width`` px with the watched area outlined and the px/mm map laid over it
    (green where cards read, red where they do not, the lowest and highest values written in
    their cells), glare ``spots`` (x0, y0, x1, y1 frame px) ringed, and a legend strip below: the
    set-up check's picture (its words are on the page)."""
    h0, w0 = frame.shape[:2]
    s = width / w0
    out = cv2.resize(frame, (width, int(round(h0 * s))), interpolation=cv2.INTER_AREA)
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    m = result.map
    if calibration is None or m is None:
        return _legend(_ring(out, spots, s))
    tint = out.copy()
    cw, ch = m.cell_mm
    rows, cols = m.px_per_mm.shape
    for r in range(rows):
        for c in range(cols):
            x, y = m.centres_mm[r, c]
            cell = np.array([[x - cw / 2, y - ch / 2], [x + cw / 2, y - ch / 2],
                             [x + cw / 2, y + ch / 2], [x - cw / 2, y + ch / 2]])
            pts = np.round(calibration.to_image(cell) * s).astype(np.int32)
            colour = GREEN if m.px_per_mm[r, c] >= READ_PX_PER_MM else RED
            cv2.fillPoly(tint, [pts], colour, lineType=cv2.LINE_AA)
    out = cv2.addWeighted(tint, 0.38, out, 0.62, 0)
    x0, y0, x1, y1 = bounds
    table = calibration.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
    cv2.polylines(out, [np.round(table * s).astype(np.int32)], True, OUTLINE, 2, cv2.LINE_AA)
    if m.in_view.any():
        values = np.where(m.in_view, m.px_per_mm, np.nan)
        for idx in {np.nanargmin(values), np.nanargmax(values)}:
            r, c = np.unravel_index(idx, values.shape)
            p = calibration.to_image(m.centres_mm[r, c][None])[0] * s
            _text(out, _down(m.px_per_mm[r, c]), (int(p[0]) - 26, int(p[1]) + 8))
    return _legend(_ring(out, spots, s))


def _ring(img: np.ndarray, spots: Sequence[tuple[int, int, int, int]], scale: float) -> np.ndarray:
    """Glare spots (frame px boxes) ringed on the picture drawn at ``scale``."""
    for x0, y0, x1, y1 in spots:
        centre = (int(round((x0 + x1) / 2 * scale)), int(round((y0 + y1) / 2 * scale)))
        cv2.circle(img, centre, ring_radius((x0, y0, x1, y1), scale), SPOT, 3, cv2.LINE_AA)
    return img


def ring_radius(box: tuple[int, int, int, int], scale: float) -> int:
    """The radius (picture px) of the ring drawn around a glare spot's box."""
    return int(max(box[2] - box[0], box[3] - box[1]) * scale / 2) + 6


def _text(img: np.ndarray, text: str, at: tuple[int, int], scale: float = 0.75) -> None:
    cv2.putText(img, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(img, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)


def _legend(img: np.ndarray) -> np.ndarray:
    """The picture with a strip below it: green ≥ the needed px/mm, red below (numbers only, so
    any language reads them)."""
    strip = np.full((46, img.shape[1], 3), 32, np.uint8)
    for i, (colour, label) in enumerate(((GREEN, f">= {READ_PX_PER_MM:g} px/mm: cards read"),
                                          (RED, f"< {READ_PX_PER_MM:g} px/mm"))):
        x = 10 + i * 440
        cv2.rectangle(strip, (x, 9), (x + 28, 37), colour, -1)
        cv2.putText(strip, label, (x + 38, 33), cv2.FONT_HERSHEY_SIMPLEX, 0.85, (255, 255, 255), 2,
                    cv2.LINE_AA)
    return np.vstack([img, strip])



def quality_advice(warnings: Iterable[Any]) -> tuple[Advice, ...]:
    """``vision.frame.quality`` warnings (a pipeline's ``status()``: refused, shaking, focus, glare and
    its side, exposure; most urgent first) as set-up advice, in both languages."""
    return tuple(Advice(w.code, (("side", w.side),) if w.side else (), w.text("en"), w.text("ja"))
                 for w in warnings)
