"""Undo a camera's motion smear before markers are read.

Shake or a long exposure smears every point of the frame along one short line: the frame is the
sharp one convolved with that line (the *point spread function*). Its spectrum is the sharp
spectrum times the line's, which is a sinc along the motion: zero on lines across it, 1/L apart.
So, for a frame ``vision.quality`` judged smeared by more than ``DEBLUR_FROM`` px (``smear_of``):

1. ``estimate(grey, angle, near)``: the smear's length from where the frame's spectrum first falls
   into those zero lines (the mean power spectrum of the tiles with most contrast, its profile along
   the motion compared with the one at right angles, which has no zeros); the direction comes from
   ``vision.quality``'s edge widths (``quality.smear_angle``), refined by the deepest zero.
2. ``sharpen(grey, smear)``: a Wiener filter in the frequency domain (``cv2.dft``): a centred
   line's spectrum is real, so the filter H / (H² + k(f)) multiplies each frequency by one number.

``vision.pipeline.Pipeline`` reads markers and QR codes from the sharpened frame. Figures (accuracy
on rendered tables, cost): ``python -m vision.deblur``, docs/vision.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from vision.pyramid import PYRAMID_FROM
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


# --- measuring it on rendered tables ---------------------------------------------------------------
def measure(quick: bool = False) -> dict[str, Any]:
    """The figures behind this module, on ``vision.synthetic`` tables (mid-game, from overhead):
    per smear length (the renderer's line of 2–9 px at six angles; its spectrum's true first zero
    beside it), the direction's error from the edge widths (``quality.smear_angle``) and after the
    spectrum's refinement, and the length estimated; and the time of ``estimate`` and ``sharpen``
    on a 1080p and a 4K frame (median ms)."""
    import time
    from vision import synthetic
    from vision.bench import GAME_PLAYERS, View, game_states, placements
    from vision.quality import assess
    games = list(GAME_PLAYERS)[:2] if quick else list(GAME_PLAYERS)
    scales = (1.4,) if quick else (1.4, 2.0)
    lengths, angles = (2, 3, 4, 5, 6, 7, 9), (0, 33, 67, 90, 124, 151)
    rows: dict[int, list[tuple[float, float, float]]] = {n: [] for n in lengths}
    plain = synthetic.Effects(blur=0.0, noise=0.0, jpeg=0)
    for g, game_id in enumerate(games):
        states = game_states(game_id, seed=1)
        placed = placements(game_id, states[len(states) // 2], seed=0)
        for scale in scales:
            view = View(game_id, scale, seed=g + 1, conditions=synthetic.Conditions(elevation=90.0))
            sharp = synthetic.render(view.cam, placed, 1, effects=plain)[0]
            noise = view.cam.noise(3.0)[:sharp.shape[0], :sharp.shape[1]]
            for n in lengths:
                for angle in angles:
                    # the renderer's order: smear, the lens's softness, sensor noise, JPEG
                    image = cv2.GaussianBlur(cv2.filter2D(sharp, -1, synthetic._smear(n, angle)), (0, 0), 0.8)
                    ok, data = cv2.imencode(".jpg", cv2.add(image, noise, dtype=cv2.CV_8U),
                                            [cv2.IMWRITE_JPEG_QUALITY, 85])
                    grey = cv2.cvtColor(cv2.imdecode(data, cv2.IMREAD_COLOR), cv2.COLOR_BGR2GRAY)
                    judged = assess(grey)
                    smear = estimate(grey, judged.blur_angle, max(judged.blur_px, 1.0))
                    rows[n].append((_turn(judged.blur_angle - angle), _turn(smear.angle - angle), smear.length))
    out: dict[str, Any] = {"lengths": {}}
    for n, found in rows.items():
        a = np.array(found)
        out["lengths"][n] = {"first_zero": round(_first_zero(synthetic._smear(n, 0.0)), 2), "frames": len(a),
                             "widths_angle_error": [round(float(np.percentile(a[:, 0], 90)), 1), round(float(a[:, 0].max()), 1)],
                             "angle_error": [round(float(np.percentile(a[:, 1], 90)), 1), round(float(a[:, 1].max()), 1)],
                             "length": [round(float(a[:, 2].min()), 2), round(float(a[:, 2].max()), 2)]}
    times: dict[str, dict[str, float]] = {}
    for name, size in (("1080p", (1080, 1920)), ("4k", (2160, 3840))):
        grey = cv2.resize(sharp, (size[1], size[0]))[..., 1]
        for what, call in (("estimate", lambda: estimate(grey, 30.0, 5.0 * size[1] / REFERENCE_WIDTH)),
                           ("sharpen", lambda: sharpen(grey, Smear(5.5 * size[1] / REFERENCE_WIDTH, 30.0)))):
            spent = []
            for _ in range(5):
                start = time.perf_counter()
                call()
                spent.append(1000 * (time.perf_counter() - start))
            times.setdefault(name, {})[what] = round(float(np.median(spent)), 1)
    out["ms"] = times
    return out


def _turn(degrees: float) -> float:
    """The angle between two directions of a line (0–90°)."""
    return abs((degrees + 90) % 180 - 90)


def _first_zero(kernel: np.ndarray) -> float:
    """1 / the first frequency (cycles/px) at which a horizontal smear ``kernel`` passes nothing:
    the length of the box line it acts like."""
    profile = kernel.sum(axis=0)
    t = np.arange(len(profile)) - (len(profile) - 1) / 2
    f = np.linspace(0.02, 0.5, 4000)
    response = np.abs(np.cos(2 * np.pi * f[:, None] * t[None, :]) @ profile)
    i = next(i for i in range(1, len(f) - 1) if response[i] <= response[i - 1] and response[i] <= response[i + 1])
    return float(1 / f[i])


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.deblur [--quick]``: print ``measure()``."""
    import argparse
    import os
    parser = argparse.ArgumentParser(prog="python -m vision.deblur", description=measure.__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two games, one scale")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    result = measure(args.quick)
    print(f"load average {load:.2f}–{os.getloadavg()[0]:.2f}")
    print("smear px | first zero | frames | direction error p90/max: edge widths, refined | length estimated")
    for n, r in result["lengths"].items():
        print(f"{n:>8} | {r['first_zero']:>10.2f} | {r['frames']:>6} | {r['widths_angle_error'][0]:>4.1f}/{r['widths_angle_error'][1]:<4.1f}°"
              f" {r['angle_error'][0]:>4.1f}/{r['angle_error'][1]:<4.1f}° | {r['length'][0]:.2f}–{r['length'][1]:.2f}")
    for name, t in result["ms"].items():
        print(f"{name}: estimate {t['estimate']} ms, sharpen {t['sharpen']} ms (median wall)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
