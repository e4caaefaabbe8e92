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
  must hold (a card on a black play mat has a dark ring, paper under a blue lamp is blue). With the
  framed card faces (#15) a picture of a Spartacus card (crimson frame) measured only 14–17 bluer with
  a dark ring on 15–19 % of it, and passed as paper on 4 of 20 phone tables of
  ``companion bench vision --part conditions --quick``; the limits are now 13 (real cards ≤ 11) and
  12 %: 0 of 20 pass, and one real card of 410 near the phone was taken for a screen in one frame set
  (all other conditions unchanged, card for card). A screen set to a warm "night" white would pass
  this test; geometry then remains.
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

SCREEN_DARK = 0.12
"""A screen's picture has a dark ring on at least this share of it (two of four sides: ≥ 0.5)."""

SCREEN_CAST = 13
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
          area: tuple[float, float, float, float] | None = None, grey: np.ndarray | None = None) -> list[str | None]:
    """For each sighting (before ``poses_on_table`` re-aims it), why it is not a card lying on
    the table ("off_table", "screen", "outside"), or None when it is; ``area`` is the play area
    (x0, y0, x1, y1 mm), None when not known; ``grey``: the frame in grey, if at hand."""
    if not sightings:
        return []
    scale, stretch = _fit(sightings, calibration)
    dark, cast = _looks(sightings, frame, grey)
    known = ~np.isnan(cast)
    out: list[str | None] = []
    # bluer than the paper of the other cards in view (a blue lamp turns all paper blue): their
    # median, which one card among several barely moves
    typical = float(np.median(cast[known])) if known.sum() >= 3 else None
    for i, s in enumerate(sightings):
        others = known.copy()
        others[i] = False
        paper = typical if typical is not None else float(np.median(cast[others])) if others.any() else 0.0
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
def _samples(size_mm: tuple[float, float]) -> np.ndarray:
    """Card-mm points: the ring just outside the card (``RING`` of them), then its inside."""
    w, h = size_mm
    t = np.linspace(0.1, 0.9, 12)
    d = RING_MM
    ring = np.vstack([np.column_stack([t * w, np.full(12, -d)]), np.column_stack([t * w, np.full(12, h + d)]),
                      np.column_stack([np.full(12, -d), t * h]), np.column_stack([np.full(12, w + d), t * h])])
    xs, ys = np.meshgrid(np.linspace(3, w - 3, 10), np.linspace(3, h - 3, 14))
    return np.vstack([ring, np.column_stack([xs.ravel(), ys.ravel()])])


RING = 48


def _looks(sightings: list[Sighting], frame: np.ndarray, grey: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(dark ring share, blue cast of the white) of each sighting; the cast is NaN where the card
    shows too little white (or the frame is grey). All sightings' samples at once."""
    if grey is None:
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape[:2]
    card = np.array([_samples(s.size_mm) for s in sightings])                         # (n, p, 2)
    homographies = np.array([s.to_image for s in sightings])
    pts = np.einsum("nij,npj->npi", homographies[:, :, :2], card) + homographies[:, None, :, 2]
    px = pts[..., :2] / pts[..., 2:3]
    ok = (px[..., 0] >= 0) & (px[..., 1] >= 0) & (px[..., 0] < w - 1) & (px[..., 1] < h - 1)
    xs, ys = np.round(px[..., 0]).astype(np.int64).clip(0, w - 1), np.round(px[..., 1]).astype(np.int64).clip(0, h - 1)
    values = grey[ys, xs].astype(np.float64)
    white = _ranked(values[:, RING:], ok[:, RING:], 0.9, 255.0)
    darkish = ok[:, :RING] & (values[:, :RING] < DARK_GREY) & (values[:, :RING] < DARK_SHARE_OF_WHITE * white[:, None])
    dark = darkish.sum(axis=1) / np.maximum(ok[:, :RING].sum(axis=1), 1)
    cast = np.full(len(sightings), np.nan)
    if frame.ndim == 3:
        bgr = frame[ys[:, RING:], xs[:, RING:]].astype(np.float64)                     # (n, q, 3)
        paper = ok[:, RING:] & (bgr.min(axis=2) >= 150) & (bgr.mean(axis=2) >= 0.85 * white[:, None])
        enough = paper.sum(axis=1) >= 5
        cast[enough] = _ranked(bgr[..., 0] - bgr[..., 2], paper, 0.5, np.nan)[enough]
    return dark, cast


def _ranked(values: np.ndarray, valid: np.ndarray, share: float, empty: float) -> np.ndarray:
    """Per row, the ``share`` quantile (by rank) of the ``valid`` values (``empty`` for a row with
    none): numpy's nan-quantiles are ~20× slower on these small rows."""
    count = valid.sum(axis=1)
    ordered = np.sort(np.where(valid, values, np.inf), axis=1)
    at = np.floor(share * np.maximum(count - 1, 0)).astype(np.int64)
    out = ordered[np.arange(len(values)), at]
    return np.where(count > 0, out, empty)


def _outside(s: Sighting, calibration: Calibration, area: tuple[float, float, float, float]) -> bool:
    x, y = calibration.to_table(s.centre_px()[None])[0]
    x0, y0, x1, y1 = area
    return bool(x < x0 - OUTSIDE_MM or x > x1 + OUTSIDE_MM or y < y0 - OUTSIDE_MM or y > y1 + OUTSIDE_MM)
