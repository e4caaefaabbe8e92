"""Undo a camera's motion smear before markers are read.

Shake or a long exposure smears every point of the frame along one short line: the frame is the
sharp one convolved with that line (the *point spread function*). Its spectrum is the sharp
spectrum times the line's, which is a sinc across the line: zero on lines in the spectrum
perpendicular to the motion, 1/L apart. So:

1. ``estimate(grey, angle)``: the smear's length from where the frame's spectrum first falls into
   those zero lines along the direction of motion (the mean power spectrum of the tiles with most
   contrast, compared with the same profile at right angles, which has no zeros); its direction
   comes from ``vision.quality``'s edge widths (``quality.smear_angle``).
2. ``sharpen(grey, smear)``: a Wiener filter in the frequency domain (``cv2.dft``): the line's
   spectrum is real (a centred line is symmetric), so the filter H / (H² + k) multiplies each
   frequency of the frame by one number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.quality import REFERENCE_WIDTH, FrameQuality

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

NOISE = 0.005
"""The Wiener filter's noise-to-signal ratio k."""


DEBLUR_FROM = 2.7
"""A frame whose ``blur_px`` (``vision.quality``, px of a 1080p frame) exceeds this is read from its
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
    """The smear to undo in ``grey`` (judged ``judged`` by ``vision.quality``), or None."""
    if not wanted(judged):
        return None
    return estimate(grey, judged.blur_angle, judged.blur_px * grey.shape[1] / REFERENCE_WIDTH)


def estimate(grey: np.ndarray, angle: float, near: float) -> Smear:
    """The smear of ``grey`` along ``angle`` (degrees): its length from the first zero of its
    spectrum, looked for between 0.7 and 2 times ``near`` px (the edge widths' estimate: the
    second zero, at half the length, stays outside)."""
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
    return Smear(round(float(TILE / radius), 2), round(angle % 180, 1))


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
    fx, fy = _frequencies(h, w)
    a = math.radians(smear.angle)
    x = (fx * math.cos(a) + fy * math.sin(a)) * smear.length
    line = np.sinc(x).astype(np.float32)
    gain = line / (line * line + noise)
    spectrum = cv2.dft(grey.astype(np.float32))
    spectrum *= gain
    out = cv2.dft(spectrum, flags=cv2.DFT_INVERSE | cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
    return np.clip(out, 0, 255).astype(np.uint8)


@lru_cache(maxsize=4)
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
