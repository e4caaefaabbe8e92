"""Not paper, not on the table: a card shown on a phone, held up, or lying outside the play area.

A sighting is a card on the table only if what the camera measured fits a 63 × 88 mm card lying flat
in the calibrated play area, printed on paper. Three measurements, each cheap and each from what the
pipeline has:

* **Off the table plane** (``off_table``): the card's read points (marker corners, QR corners)
  mapped to the table through the calibration must keep the card's printed size and shape. A card
  held above the table is nearer the camera and maps too large; a tilted one (or a picture of a card
  on a tilted screen) maps stretched along one axis. Measured on rendered tables at 1.2–2.0 px/mm,
  overhead and at 45°: real cards map at 0.92–1.10 of their size, stretched at most 1.44 (two
  markers at 45°, where the two markers' fits disagree most); a phone held 80–235 mm up maps at
  0.97–1.52, stretched up to 2.9. Refused outside ``SCALE`` or beyond ``MAX_STRETCH``: that catches
  most phones held up, not a phone held low and flat (1.01, 1.11).
* **A screen** (``screen``), for what geometry misses (a phone held low and flat, a tablet showing
  the card at its printed size): a picture on a screen is *framed in dark* — the phone's bezel and
  the app around the picture — on every side, while its inside is the picture's paper. A side is
  framed when ≥ ``SIDE_DARK`` of the points 1–5 mm outside the card's edge (``RING_MM``) are darker
  than ``DARK_SHARE_OF_WHITE`` of the card's own white (``COARSE_DARK_SHARE`` under 1.1 px/mm), and
  under half of the strip 6 mm inside it (``INNER_MM``) is; a screen's picture is framed on ≥ 3 sides, measured in the plane of the
  card's own read points (``_own_plane``: a tilted tablet is not the table). It does not depend on colour or
  brightness: the dark is measured against the picture's own white, so a warm night-mode screen
  dimmed below paper is framed as a bright one is (the same frames in grey give the same answer).
  A card lying beside a phone, a card back or a mug is framed on one or two sides; one half under
  a phone is dark inside as well as outside where the phone lies, so those sides do not count (the
  old test, "bluer than paper" with a dark ring, took such a card for the screen: one real card of
  102–110 beside the phone at 1.7 and 2.0 px/mm). A black play mat frames every card, so a screen
  must also stand out from the other cards in view (their median under 2 framed sides).
  Measured before choosing (``benchmarks.vision`` conditions: phone, night-mode phone, phone held flat
  8–25 mm over the cards, tablet; overhead, 45–60°, barrel, glare, gradient, blur; 1.2–2.0 px/mm):
  at 2–5 mm out, ≥ 3 framed sides on 0 of 3,895 sightings of real cards and 80 of 100 of screens
  (the rest: a picture filling a phone's width, its bezel 3 mm, or glass reflecting the room over
  a dark app, a tilted tablet's picture outlined on the table plane); with the 1 mm ring and the
  picture's own plane, every screen of the conditions bench is told (docs/vision.md). Not told: a
  screen showing the card on a light background (no dark frame), or one lying on a black mat.
  Only faces are judged (``_shown``): a squared pile of dark backs framed its top back on 3 sides.
  Rejected: *emission* — the screen's white is not brighter than paper here (the renderer's paper
  clips at 250–255 in most of the frame, as a camera exposing for a bright table does, and a
  night-mode screen is dimmer than paper), and a screen lying on the table follows no gradient a
  single frame can show; *the calibrated plane* — a screen 10 mm over the table is seen ~1 % too
  large from a camera 70 cm up (measured 0.97–0.98 for phones held 10 mm up: the read points'
  own scatter is larger); *moiré* — drawn by the renderer, but a webcam 1 m up averages a real
  phone's pixel grid away and JPEG halves the colour that shows it; *flicker* — many screens do not
  flicker (DC dimming), and a frame-to-frame measure needs frames the pipeline does not keep.
* **Outside the play area** (``outside``): a card whose centre lies more than ``OUTSIDE_MM`` outside
  the calibrated table rectangle (K-CAL1–4 in its corners; not with the loose calibration sheet):
  a card on its way to or from a player's hand, or shown to the table from outside it. Seat tokens
  (at the table's edges) and face-down cards (a back names no card; Chains keeps its piles beside
  the watched rectangle) are kept: the game's layout decides what they mean there.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion import catalogue as cat
from vision.reading.detect import Sighting
from vision.reading.markers import pool
from vision.table.calibrate import Calibration

log = logging.getLogger(__name__)

SCALE = (0.85, 1.15)
"""A card's read points mapped to the table must show it at this share of its printed size."""

MAX_STRETCH = 1.5
"""...and stretched (the ratio of its two axes' scales) by no more than this."""

RING_MM = (1.0, 2.0, 3.5, 5.0)
"""The rings looked at just outside a card's edge (a screen's picture: its bezel or the app around
it); a point of a side is dark if it is dark on any of them (the picture fills a phone's width
within a millimetre or two, or leaves a margin)."""

INNER_MM = 6.0
"""The strip looked at just inside the card's edge: paper (or the card's frame) on a card or a
picture of one; dark where something lies over the card."""

DARK_SHARE_OF_WHITE = 0.2
"""A sample is dark under this share of the card's own white (the 90th percentile of ``_paper``):
wood and paper are above it, a phone's bezel and a dark app around the picture below, at any brightness. At 0.3 a
Prussia card (its dark checked frame printed to the edge) lying on brown wood was framed on 3 sides:
6 cards of one whole Prussia game taken for screens, 46 of 66 still tables read
(``companion bench vision --part games --games prussia``); at 0.2 66 of 66, and the four screens'
conditions unchanged (0 from a screen at 1.2–2.0 px/mm, the same cards identified)."""

COARSE_DARK_SHARE = 0.25
"""...and under this share for a card seen coarser than ``COARSE_PX_PER_MM``: there the 1 mm ring is
one pixel from the picture's edge, and the blur lifts a dim screen's black (~30 grey: a night-mode
phone, a tablet's app) to 0.20–0.24 of its white, so at 0.2 five screens of the conditions bench
were read as cards at 1.0 px/mm (0 at 0.25). Not at every scale: at 0.25 throughout, 4 real cards of
the surfaces bench were taken for screens at 1.4–2.0 px/mm (docs/figures.md, "screens at 1.0 px/mm")."""

COARSE_PX_PER_MM = 1.1
"""A card seen at fewer px per mm than this (its outline's area over its printed area) is coarse."""

SIDE_DARK = 0.55
"""A side is *framed* when at least this share of its outer samples is dark and under half of its
inner strip is (so the dark lies around the card, not over it). 0.6 until branch read: a phone lying
flat showing a card across its width (the picture's long sides against the phone's 1 mm rim, the
table beyond) had 7 of 12 samples dark on its third side at 1.0 px/mm (0.58) and was read as a card
on the table (conditions bench, phone flat at 1.0 and night at 1.1: one each); at 0.55 no card
lying on the table of either bench is taken for a screen (cached frames, 1.0–2.0 px/mm)."""

SCREEN_SIDES = 3
"""A picture on a screen is framed on at least this many of its four sides; a card lying on the
table, on none or one or two (beside a phone, a card back or a mug)."""

OUTSIDE_MM = 25.0
"""A card whose centre lies further outside the play area than this is not on it."""

PICTURE_GROW = 1.25
"""Another copy of a card a screen shows is the screen's picture read in parts when a point it was
read at lies inside the picture's outline grown this much about its centre; one read beside it is
a card on the table (a tablet's W-B5 at 1.0 px/mm lay 120 px from its picture: ``_on_picture``)."""

REASONS = ("off_table", "screen", "outside")


@dataclass(frozen=True)
class Ignored:
    """A sighting that is not a card on the table, and why (one of ``REASONS``)."""

    card_id: str
    reason: str
    outline_px: tuple[tuple[float, float], ...]


def judge(sightings: list[Sighting], frame: np.ndarray, calibration: Calibration,
          area: tuple[float, float, float, float] | None = None, grey: np.ndarray | None = None) -> list[str | None]:
    """For each sighting (before ``poses_on_table`` re-aims it), why it is not a card lying on
    the table ("off_table", "screen", "outside"), or None when it is; ``area`` is the play area
    (x0, y0, x1, y1 mm), None when not known; ``grey``: the frame in grey, if at hand."""
    if not sightings:
        return []
    scale, stretch = _fit(sightings, calibration)
    framed = _framed(sightings, frame if grey is None else grey)
    # a table dark all around (a black play mat) frames every card: a screen must stand out from
    # the other cards in view (their median, which one card among several barely moves)
    n = len(sightings)
    usual = np.median(np.broadcast_to(framed, (n, n))[~np.eye(n, dtype=bool)].reshape(n, n - 1), axis=1) \
        if n - 1 >= 3 else np.zeros(n)
    outside = _outside(sightings, calibration, area) if area is not None else np.zeros(n, bool)
    out: list[str | None] = []
    for i, s in enumerate(sightings):
        if s.card_id.startswith("T-SEAT"):
            reason = None       # seat tokens: small, at the table's edges, never on a screen
        elif not SCALE[0] <= scale[i] <= SCALE[1] or stretch[i] > MAX_STRETCH:
            reason = "off_table"
        elif framed[i] >= SCREEN_SIDES and usual[i] < SCREEN_SIDES - 1 and _shown(s):
            reason = "screen"
        elif s.face_up and outside[i]:
            reason = "outside"
        else:
            reason = None
        out.append(reason)
    # one card, one print: another copy of a card a screen shows, read where the screen's picture
    # is, is the same picture read in parts (a marker alone, placed on the table plane, misses the
    # picture's bezel: a tablet 1.2 px/mm); a copy read beside the screen is the card itself, lying
    # on the table while a screen shows its picture (a player photographing it, a rules app)
    shown = [s for s, reason in zip(sightings, out) if reason == "screen"]
    return ["screen" if reason is None and _shown(s) and any(p.card_id == s.card_id and _on_picture(s, p) for p in shown)
            else reason for s, reason in zip(sightings, out)]


def _on_picture(s: Sighting, picture: Sighting) -> bool:
    """Whether a point ``s`` was read at lies on the picture ``picture`` shows (its outline in the
    frame grown by ``PICTURE_GROW``)."""
    outline = picture.outline_px()
    centre = outline.mean(axis=0)
    grown = (centre + (outline - centre) * PICTURE_GROW).astype(np.float32).reshape(-1, 1, 2)
    return any(cv2.pointPolygonTest(grown, (float(x), float(y)), False) >= 0 for x, y in s.image_pts)


def _shown(s: Sighting) -> bool:
    """Whether a sighting is a face a screen would show: a card face up, not a back (a squared pile
    of dark backs frames its top card as a bezel does: Chains' piles read 3 framed sides) nor the
    Wheel's pawn (a 30 mm token among the cards' dark print)."""
    return s.face_up and cat.card(s.card_id).kind != "pawn"


def _fit(sightings: list[Sighting], calibration: Calibration) -> tuple[np.ndarray, np.ndarray]:
    """(scale, stretch) of each sighting's read points mapped to the table: the singular values of
    the best affine map from the card's printed points (solved for all sightings with as many
    points at once)."""
    counts = [len(s.image_pts) for s in sightings]
    mapped = np.split(calibration.to_table(np.vstack([s.image_pts for s in sightings])), np.cumsum(counts)[:-1])
    scale, stretch = np.ones(len(sightings)), np.ones(len(sightings))
    for n in set(counts):
        chosen = [i for i, c in enumerate(counts) if c == n]
        src = np.array([sightings[i].card_pts for i in chosen])                       # (k, n, 2)
        dst = np.array([mapped[i] for i in chosen])
        src_c, dst_c = src - src.mean(axis=1, keepdims=True), dst - dst.mean(axis=1, keepdims=True)
        # least squares: linear part A with dst_c ≈ src_c Aᵀ
        a = np.linalg.solve(np.swapaxes(src_c, 1, 2) @ src_c, np.swapaxes(src_c, 1, 2) @ dst_c)
        values = np.linalg.svd(np.swapaxes(a, 1, 2), compute_uv=False)               # (k, 2)
        scale[chosen] = np.sqrt(values[:, 0] * values[:, 1])
        stretch[chosen] = values[:, 0] / np.maximum(values[:, 1], 1e-9)
    return scale, stretch


@lru_cache(maxsize=16)
def _samples(size_mm: tuple[float, float], face: bool = False) -> np.ndarray:
    """Card-mm points: for each of ``RING_MM`` and then ``INNER_MM`` (inside), 12 points along each
    side (top, bottom, left, right); then where the card's own white is measured (``_paper``)."""
    w, h = size_mm
    t = np.linspace(0.1, 0.9, 12)
    rows = []
    for d in tuple(-r for r in RING_MM) + (INNER_MM,):
        rows += [np.column_stack([t * w, np.full(12, d)]), np.column_stack([t * w, np.full(12, h - d)]),
                 np.column_stack([np.full(12, d), t * h]), np.column_stack([np.full(12, w - d), t * h])]
    return np.vstack(rows + [_paper(w, h, face)])


def _paper(w: float, h: float, face: bool) -> np.ndarray:
    """140 card-mm points of the card's paper white: on a face, the middle of the QR code's 4 mm quiet
    zone (white by construction on every face: the faces' colour fields stop short of it), 35 a side;
    else a 10 × 14 grid over the inside. A grid over a face judged paper by whatever white the design
    left: with colour index fields it fell on the QR's blurred modules at 1.0–1.2 px/mm, the white
    came out grey, and tablets' pictures went unframed (docs/printables.md, issue 21)."""
    if face and (w, h) == (cat.CARD_WIDTH_MM, cat.CARD_HEIGHT_MM):
        mid = cat.QR_QUIET_MM / 2
        x0, y0 = (w - cat.QR_MM) / 2 - mid, cat.QR_TOP_MM - mid
        x1, y1 = x0 + cat.QR_MM + 2 * mid, y0 + cat.QR_MM + 2 * mid
        t = np.linspace(0, 1, 35, endpoint=False)
        return np.vstack([np.column_stack([x0 + t * (x1 - x0), np.full(35, y0)]),
                          np.column_stack([x1 - t * (x1 - x0), np.full(35, y1)]),
                          np.column_stack([np.full(35, x0), y1 - t * (y1 - y0)]),
                          np.column_stack([np.full(35, x1), y0 + t * (y1 - y0)])])
    xs, ys = np.meshgrid(np.linspace(3, w - 3, 10), np.linspace(3, h - 3, 14))
    return np.column_stack([xs.ravel(), ys.ravel()])


EDGE = 48 * (len(RING_MM) + 1)
"""Samples of the rings and the inner strip (before the inside's)."""


def _framed(sightings: list[Sighting], frame: np.ndarray) -> np.ndarray:
    """How many of each sighting's four sides are framed in dark (``SIDE_DARK``): the picture of a
    card on a screen, not paper lit by the room. All sightings' samples at once."""
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape[:2]
    card = np.array([_samples(s.size_mm, _shown(s)) for s in sightings])              # (n, p, 2)
    homographies = _own_planes(sightings)
    # each homography's rows applied to its card's points elementwise (einsum's general loop took
    # ~1.4 ms of the ~5 ms a look's 29 cards cost here)
    x, y, m = card[..., 0], card[..., 1], homographies[:, :, None, :]
    pts = m[..., 0] * x[:, None] + m[..., 1] * y[:, None] + m[..., 2]                 # (n, 3, p)
    px = np.stack([pts[:, 0] / pts[:, 2], pts[:, 1] / pts[:, 2]], axis=-1)
    ok = (px[..., 0] >= 0) & (px[..., 1] >= 0) & (px[..., 0] < w - 1) & (px[..., 1] < h - 1)
    xs, ys = np.round(px[..., 0]).astype(np.int64).clip(0, w - 1), np.round(px[..., 1]).astype(np.int64).clip(0, h - 1)
    values = grey[ys, xs].astype(np.float64)
    white = _ranked(values[:, EDGE:], ok[:, EDGE:], 0.9, 255.0)
    outline = np.array([cv2.contourArea(s.outline_px().astype(np.float32)) / (s.size_mm[0] * s.size_mm[1])
                        for s in sightings])                                          # px² per mm²
    share = np.where(outline < COARSE_PX_PER_MM ** 2, COARSE_DARK_SHARE, DARK_SHARE_OF_WHITE)
    dark = (values[:, :EDGE] < (share * white)[:, None]).reshape(len(sightings), -1, 4, 12)
    seen = ok[:, :EDGE].reshape(len(sightings), -1, 4, 12)                            # (n, ring, side, 12)
    rings = len(RING_MM)
    outer_dark = (dark[:, :rings] & seen[:, :rings]).any(axis=1)                      # (n, side, 12)
    outer_seen = seen[:, :rings].any(axis=1)
    inner_dark, inner_seen = dark[:, rings] & seen[:, rings], seen[:, rings]
    enough = (outer_seen.sum(axis=2) >= 6) & (inner_seen.sum(axis=2) >= 6)
    framed = enough & (outer_dark.sum(axis=2) >= SIDE_DARK * np.maximum(outer_seen.sum(axis=2), 1)) \
        & (inner_dark.sum(axis=2) < 0.5 * np.maximum(inner_seen.sum(axis=2), 1))
    return framed.sum(axis=1)


OWN_PLANES_SPLIT = 4
"""Cards read at 8 or more points from which ``_own_planes`` fits half of their homographies on
another core (``markers.pool``; ~0.15 ms each, 8–14 of them a full look of the surfaces bench)."""


def _own_planes(sightings: list[Sighting]) -> np.ndarray:
    """(n, 3, 3): ``_own_plane`` of each sighting, half of those that need a fit on another core."""
    fitted = [i for i, s in enumerate(sightings) if len(s.card_pts) >= 8]
    out = [s.to_image for s in sightings]
    if len(fitted) >= OWN_PLANES_SPLIT:
        half = fitted[len(fitted) // 2:]
        job = pool().submit(lambda: [_own_plane(sightings[i]) for i in half])
        for i in fitted[:len(fitted) // 2]:
            out[i] = _own_plane(sightings[i])
        for i, h in zip(half, job.result()):
            out[i] = h
    else:
        for i in fitted:
            out[i] = _own_plane(sightings[i])
    return np.array(out)


def _own_plane(s: Sighting) -> np.ndarray:
    """Card mm -> image px in the plane the card's read points lie in: a homography of all of them
    when two markers (or a marker and the QR code) were read. ``Sighting.to_image`` is a card laid
    flat on the table; a picture on a tilted screen is not, and its outline there misses the
    picture's sides by millimetres (a tablet tilted 20°: two sides of four)."""
    if len(s.card_pts) < 8:
        return s.to_image
    h, _ = cv2.findHomography(s.card_pts.astype(np.float64), s.image_pts.astype(np.float64), 0)
    return s.to_image if h is None else h


def _ranked(values: np.ndarray, valid: np.ndarray, share: float, empty: float) -> np.ndarray:
    """Per row, the ``share`` quantile (by rank) of the ``valid`` values (``empty`` for a row with
    none): numpy's nan-quantiles are ~20× slower on these small rows."""
    count = valid.sum(axis=1)
    ordered = np.sort(np.where(valid, values, np.inf), axis=1)
    at = np.floor(share * np.maximum(count - 1, 0)).astype(np.int64)
    out = ordered[np.arange(len(values)), at]
    return np.where(count > 0, out, empty)


def _outside(sightings: list[Sighting], calibration: Calibration, area: tuple[float, float, float, float]) -> np.ndarray:
    """Whether each sighting's centre lies more than ``OUTSIDE_MM`` outside ``area`` (all at once)."""
    x, y = calibration.to_table(np.array([s.centre_px() for s in sightings])).T
    x0, y0, x1, y1 = area
    return (x < x0 - OUTSIDE_MM) | (x > x1 + OUTSIDE_MM) | (y < y0 - OUTSIDE_MM) | (y > y1 + OUTSIDE_MM)
