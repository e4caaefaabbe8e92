"""Not paper, not on the table: a card shown on a phone, held up, or lying outside the play area.

A sighting is a card on the table only if what the camera measured fits a 63 × 88 mm card lying flat
in the calibrated play area. Three measurements, each cheap and each from what the pipeline has:

* **Off the table plane** (``off_table``): the card's read points (marker corners, QR corners)
  mapped to the table through the calibration must keep the card's printed size and shape. A card
  held above the table is nearer the camera and maps too large; a tilted one (or a picture of a card
  on a tilted screen) maps stretched along one axis. Measured on rendered tables at 1.2–2.0 px/mm,
  overhead and at 45°: real cards map at 0.92–1.10 of their size, stretched at most 1.44 (two
  markers at 45°, where the two markers' fits disagree most); a phone held 80–235 mm up maps at
  0.97–1.52, stretched up to 2.9. Refused outside ``SCALE`` or beyond ``MAX_STRETCH``: that catches
  most phones held up, not a phone held low and flat (1.01, 1.11).
* **A screen** (``screen``): a picture on a screen is framed in black (the phone's bezel and the app
  around the picture) and its white is the screen's own light, bluer than paper under the room's
  lamp. Measured: the ring 3.5 mm outside the card is dark (< 45 grey and < 0.2 of the card's white)
  on ≥ 25 % of it around a phone's picture, ≤ 29 % around real cards; the white of a phone's picture
  is 19–22 grey levels bluer (blue − red) than the other cards' paper, real cards' white ≤ 11. Both
  must hold (a card on a black play mat has a dark ring, paper under a blue lamp is blue). A screen
  set to a warm "night" white would pass this test; geometry then remains.
* **Outside the play area** (``outside``): a card whose centre lies more than ``OUTSIDE_MM`` outside
  the calibrated table rectangle (K-CAL1–4 in its corners; not with the loose calibration sheet):
  a card on its way to or from a player's hand, or shown to the table from outside it. Seat tokens
  (at the table's edges) and face-down cards (a back names no card; Chains keeps its piles beside
  the watched rectangle) are kept: the game's layout decides what they mean there.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibrate import Calibration
from vision.detect import Sighting

log = logging.getLogger(__name__)

SCALE = (0.85, 1.15)
"""A card's read points mapped to the table must show it at this share of its printed size."""

MAX_STRETCH = 1.5
"""...and stretched (the ratio of its two axes' scales) by no more than this."""

RING_MM = 3.5
"""The ring looked at just outside a card's edge (a phone's picture: its bezel or app background)."""

DARK_GREY = 45
DARK_SHARE_OF_WHITE = 0.2
"""A ring sample is dark under this grey level and under this share of the card's own white."""

SCREEN_DARK = 0.2
"""A screen's picture has a dark ring on at least this share of it (two of four sides: ≥ 0.5)."""

SCREEN_CAST = 15
"""A screen's white is bluer than the paper around it by at least this many grey levels (B − R)."""

OUTSIDE_MM = 25.0
"""A card whose centre lies further outside the play area than this is not on it."""

REASONS = ("off_table", "screen", "outside")


@dataclass(frozen=True)
class Ignored:
    """A sighting that is not a card on the table, and why (one of ``REASONS``)."""

    card_id: str
    reason: str
    outline_px: tuple[tuple[float, float], ...]


def judge(sightings: list[Sighting], frame: np.ndarray, calibration: Calibration,
          area: tuple[float, float, float, float] | None = None) -> list[str | None]:
    """For each sighting (before ``poses_on_table`` re-aims it), why it is not a card lying on
    the table ("off_table", "screen", "outside"), or None when it is; ``area`` is the play area
    (x0, y0, x1, y1 mm), None when not known."""
    if not sightings:
        return []
    scale, stretch = _fit(sightings, calibration)
    dark, cast = _looks(sightings, frame)
    known = ~np.isnan(cast)
    out: list[str | None] = []
    for i, s in enumerate(sightings):
        others = known.copy()
        others[i] = False
        # bluer than the paper of the other cards in view (a blue lamp turns all paper blue)
        paper = float(np.median(cast[others])) if others.any() else 0.0
        if s.card_id.startswith("T-SEAT"):
            reason = None       # seat tokens: small, at the table's edges, never on a screen
        elif not SCALE[0] <= scale[i] <= SCALE[1] or stretch[i] > MAX_STRETCH:
            reason = "off_table"
        elif dark[i] >= SCREEN_DARK and known[i] and cast[i] - paper >= SCREEN_CAST:
            reason = "screen"
        elif area is not None and s.face_up and _outside(s, calibration, area):
            reason = "outside"
        else:
            reason = None
        out.append(reason)
    return out


def _fit(sightings: list[Sighting], calibration: Calibration) -> tuple[np.ndarray, np.ndarray]:
    """(scale, stretch) of each sighting's read points mapped to the table: the singular values of
    the best affine map from the card's printed points."""
    counts = [len(s.image_pts) for s in sightings]
    mapped = np.split(calibration.to_table(np.vstack([s.image_pts for s in sightings])), np.cumsum(counts)[:-1])
    scale, stretch = np.ones(len(sightings)), np.ones(len(sightings))
    for i, (s, table) in enumerate(zip(sightings, mapped)):
        src = np.column_stack([s.card_pts, np.ones(len(s.card_pts))])
        affine = np.linalg.lstsq(src, table, rcond=None)[0][:2].T
        big, small = np.linalg.svd(affine, compute_uv=False)
        scale[i], stretch[i] = float(np.sqrt(big * small)), float(big / max(small, 1e-9))
    return scale, stretch


def _samples(s: Sighting) -> tuple[np.ndarray, np.ndarray]:
    """Card-mm points of the ring just outside the card and of its inside."""
    w, h = s.size_mm
    t = np.linspace(0.1, 0.9, 12)
    d = RING_MM
    ring = np.vstack([np.column_stack([t * w, np.full(12, -d)]), np.column_stack([t * w, np.full(12, h + d)]),
                      np.column_stack([np.full(12, -d), t * h]), np.column_stack([np.full(12, w + d), t * h])])
    xs, ys = np.meshgrid(np.linspace(3, w - 3, 10), np.linspace(3, h - 3, 14))
    return ring, np.column_stack([xs.ravel(), ys.ravel()])


def _looks(sightings: list[Sighting], frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(dark ring share, blue cast of the white) of each sighting; the cast is NaN where the card
    shows too little white (or the frame is grey)."""
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape[:2]
    dark, cast = np.zeros(len(sightings)), np.full(len(sightings), np.nan)
    for i, s in enumerate(sightings):
        ring, inside = _samples(s)
        px = cv2.perspectiveTransform(np.vstack([ring, inside]).reshape(-1, 1, 2), s.to_image).reshape(-1, 2)
        ok = (px[:, 0] >= 0) & (px[:, 1] >= 0) & (px[:, 0] < w - 1) & (px[:, 1] < h - 1)
        xy = np.round(px).astype(np.int64)
        ring_ok, inside_ok = ok[:len(ring)], ok[len(ring):]
        if not inside_ok.any():
            continue
        values = grey[xy[:, 1].clip(0, h - 1), xy[:, 0].clip(0, w - 1)].astype(np.float64)
        white = float(np.percentile(values[len(ring):][inside_ok], 90))
        r = values[:len(ring)][ring_ok]
        if len(r):
            dark[i] = float(np.mean((r < DARK_GREY) & (r < DARK_SHARE_OF_WHITE * white)))
        if frame.ndim == 3:
            at = xy[len(ring):][inside_ok]
            bgr = frame[at[:, 1], at[:, 0]].astype(np.float64)
            paper = bgr[(bgr.min(axis=1) >= 150) & (bgr.mean(axis=1) >= 0.85 * white)]
            if len(paper) >= 5:
                cast[i] = float(np.median(paper[:, 0] - paper[:, 2]))
    return dark, cast


def _outside(s: Sighting, calibration: Calibration, area: tuple[float, float, float, float]) -> bool:
    x, y = calibration.to_table(s.centre_px()[None])[0]
    x0, y0, x1, y1 = area
    return bool(x < x0 - OUTSIDE_MM or x > x1 + OUTSIDE_MM or y < y0 - OUTSIDE_MM or y > y1 + OUTSIDE_MM)
