"""Undo a camera's motion smear before markers are read.

Shake or a long exposure smears every point of the frame along one short line: the frame is the
sharp one convolved with that line (the *point spread function*). Its spectrum is the sharp
spectrum times the line's, which is a sinc along the motion: zero on lines across it, 1/L apart.
So, for a frame ``vision.frame.quality`` judged smeared by more than ``DEBLUR_FROM`` px (``smear_of``):

1. ``estimate(grey, angle, near)``: the smear's length from where the frame's spectrum first falls
   into those zero lines (the mean power spectrum of the tiles with most contrast, its profile along
   the motion compared with the one at right angles, which has no zeros); the direction comes from
   ``vision.frame.quality``'s edge widths (``quality.smear_angle``), refined by the deepest zero.
2. ``sharpen(grey, smear)``: a Wiener filter in the frequency domain (``cv2.dft``): a centred
   line's spectrum is real, so the filter H / (H² + k(f)) multiplies each frequency by one number.

``vision.pipeline.Pipeline`` reads markers and QR codes from the sharpened frame. Figures (accuracy
on rendered tables, cost): ``companion bench deblur``, docs/vision.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.frame.pyramid import PYRAMID_FROM
from vision.frame.quality import REFERENCE_WIDTH, FrameQuality

TILE = 128
"""Side (px) of the tiles whose spectra are averaged to find the smear's zeros: 1/128 cycle a bin."""

TILES = 24
"""How many tiles (those with most contrast: marker borders and card edges)."""

BAND = 30
"""Half-width (bins) of the band of the spectrum along the motion averaged into its profile: the
zero lines run across it, so averaging along them keeps them deep while the print's own spectrum
evens out."""

TURNS = tuple(range(-9, 10, 3))
"""Directions tried about the edge widths' one (degrees): the deepest first zero wins."""

NOISE = 0.0025
"""The Wiener filter's noise-to-signal ratio k at ``NOISE_AT`` cycles a px."""

NOISE_AT = 0.2
"""...and it grows with the frequency f as (f / ``NOISE_AT``)^``NOISE_POWER``: the sensor's noise
is flat but the print's own power (softened by the lens, cut by JPEG) falls fast, so low
frequencies (a marker's cells) are restored boldly and fine ones hardly. Markers found on 15
frames of five tables at 1.4 px/mm smeared by 5 px, against 369 on the sharp ones: 359 with one
flat k = 0.005, 367 with k ∝ f², 369 with f³ (7 px: 353, 363, 366; 5 px at 1.2 px/mm: 279, 313, 319
of 363)."""

NOISE_POWER = 3.0


DEBLUR_FROM = 2.7
"""A frame whose ``blur_px`` (``vision.frame.quality``, px of a 1080p frame) exceeds this is read from its
sharpened copy: every frame smeared by 3 px or more (their estimates: 2.6–3.6), no frame of a
steady camera (overhead 0.9–1.2, but an angled view squeezes the far cards' print one way: up to
2.57 at 45°, measured on the conditions bench's tables)."""


@dataclass(frozen=True)
class Smear:
    """A straight motion smear: ``length`` px along ``angle`` degrees (image axes, y down, 0–180)."""

    length: float
    angle: float


def wanted(judged: FrameQuality) -> bool:
    """Whether a frame so judged is read from its sharpened copy: smeared, but not refused."""
    return judged.refused is None and judged.blur_px > DEBLUR_FROM


def smear_of(grey: np.ndarray, judged: FrameQuality) -> Smear | None:
    """The smear to undo in ``grey`` (judged ``judged`` by ``vision.frame.quality``), or None."""
    if not wanted(judged):
        return None
    return estimate(grey, judged.blur_angle, judged.blur_px * grey.shape[1] / REFERENCE_WIDTH)


def estimate(grey: np.ndarray, angle: float, near: float) -> Smear:
    """The smear of ``grey`` along ``angle`` (degrees): its length from the first zero of its
    spectrum, looked for between 0.7 and 2 times ``near`` px (the edge widths' estimate: the
    second zero, at half the length, stays outside)."""
    if grey.shape[0] < TILE or grey.shape[1] < TILE:
        return Smear(round(float(near), 2), round(float(angle) % 180, 1))     # too small for a spectrum
    spectrum = _spectrum(grey)
    best = None
    for turn in TURNS:
        r, along = _profile(spectrum, angle + turn)
        _, across = _profile(spectrum, angle + turn + 90)
        hi = int(np.searchsorted(r, min(TILE / (0.7 * near), TILE / 2.2)))
        lo = min(int(np.searchsorted(r, TILE / (2.0 * near))), hi - 1)
        d = along - across
        i = lo + int(np.argmin(d[lo:hi]))
        if best is None or d[i] < best[0]:
            best = (d[i], i, d, angle + turn)
    _, i, depth, angle = best
    offset = 0.0
    if 0 < i < len(depth) - 1:
        curve = depth[i - 1] - 2 * depth[i] + depth[i + 1]
        offset = 0.5 * (depth[i - 1] - depth[i + 1]) / curve if curve > 0 else 0.0
    radius = r[i] + offset * (r[1] - r[0])
    return Smear(round(float(TILE / radius), 2), round(float(angle) % 180, 1))


def _spectrum(grey: np.ndarray) -> np.ndarray:
    """The log of the mean power spectrum of the ``TILES`` tiles with most contrast (centred)."""
    h, w = grey.shape[:2]
    rows, cols = h // TILE, w // TILE
    k = TILE // 4
    small = cv2.resize(grey[:rows * TILE, :cols * TILE], (cols * k, rows * k), interpolation=cv2.INTER_AREA)
    spread = cv2.subtract(cv2.dilate(small, np.ones((3, 3), np.uint8)), cv2.erode(small, np.ones((3, 3), np.uint8)))
    score = spread.reshape(rows, k, cols, k).astype(np.float32).mean(axis=(1, 3))
    order = np.argsort(-score, axis=None)[:TILES]
    tiles = np.stack([grey[i * TILE:(i + 1) * TILE, j * TILE:(j + 1) * TILE]
                      for i, j in zip(*np.unravel_index(order, (rows, cols)))]).astype(np.float32)
    tiles = (tiles - tiles.mean(axis=(1, 2), keepdims=True)) * _window()
    power = (np.abs(np.fft.fft2(tiles)) ** 2).mean(axis=0)
    return np.fft.fftshift(np.log(power + 1e-3)).astype(np.float32)


@lru_cache(maxsize=1)
def _window() -> np.ndarray:
    return np.outer(np.hanning(TILE), np.hanning(TILE)).astype(np.float32)


def _profile(spectrum: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """(radius in bins, mean log power) along ``angle`` through the centred spectrum, averaged
    across a band of ``BAND`` bins each side."""
    c = TILE / 2
    a = math.radians(angle)
    r, s = np.meshgrid(np.arange(0, TILE // 2, 0.5, dtype=np.float32), np.arange(-BAND, BAND + 1, dtype=np.float32))
    x = c + r * math.cos(a) - s * math.sin(a)
    y = c + r * math.sin(a) + s * math.cos(a)
    values = cv2.remap(spectrum, x, y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return r[0], values.mean(axis=0)


def sharpen(grey: np.ndarray, smear: Smear, noise: float = NOISE) -> np.ndarray:
    """``grey`` (uint8) with ``smear`` undone by a Wiener filter (uint8, the same size)."""
    h, w = grey.shape[:2]
    if w > PYRAMID_FROM:
        # a 4K frame: undone at half size (the smear half as long) and enlarged again; as many
        # markers read as undoing it whole (measured: 47/47, 48/48, 56/56 on three 10 px
        # smeared tables), for a fifth of the time (the DFT of 8 M pixels costs ~0.2 s)
        half = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        half = sharpen(half, Smear(smear.length / 2, smear.angle), noise)
        return cv2.resize(half, (w, h), interpolation=cv2.INTER_CUBIC)
    fx, fy = _frequencies(h, w)
    a = math.radians(smear.angle)
    x = (fx * math.cos(a) + fy * math.sin(a)) * smear.length
    line = np.sinc(x).astype(np.float32)
    gain = line / (line * line + noise * _noise_shape(h, w))
    spectrum = cv2.dft(grey.astype(np.float32))
    spectrum *= gain
    out = cv2.dft(spectrum, flags=cv2.DFT_INVERSE | cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
    return np.clip(out, 0, 255).astype(np.uint8)


@lru_cache(maxsize=2)
def _noise_shape(h: int, w: int) -> np.ndarray:
    """(f / ``NOISE_AT``)^``NOISE_POWER`` for each slot of the packed spectrum (f: cycles a px)."""
    fx, fy = _frequencies(h, w)
    return ((fx * fx + fy * fy) / NOISE_AT ** 2) ** np.float32(NOISE_POWER / 2)


@lru_cache(maxsize=2)
def _frequencies(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """The frequency (cycles/px, x and y) of each slot of OpenCV's packed (CCS) spectrum of an
    ``h`` × ``w`` real image: the middle columns hold (Re, Im) of frequency m = (j + 1) // 2 of
    every row; the first (and, for even ``w``, last) column holds column 0 (w/2) as a real
    sequence, rows paired the same way."""
    fx = np.zeros((h, w), np.float32)
    fy = np.zeros((h, w), np.float32)
    fx[:, 1:] = ((np.arange(1, w) + 1) // 2 / w)[None, :]
    fy[:, 1:] = np.fft.fftfreq(h)[:, None]
    fy[:, 0] = (np.arange(h) + 1) // 2 / h
    if w % 2 == 0:
        fx[:, -1] = 0.5
        fy[:, -1] = fy[:, 0]
    fx[:, 0] = 0
    return fx, fy

