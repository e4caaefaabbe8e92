"""``companion bench deblur [--quick]``: the figures behind ``vision.frame.deblur``.

On rendered mid-game tables smeared by a known line: the smear's direction and length as estimated,
and the cost of ``estimate`` and ``sharpen`` on a 1080p and a 4K frame.
"""
from __future__ import annotations

import argparse
import os
import time
from typing import Any

import cv2
import numpy as np

from benchmarks.vision import GAME_PLAYERS, View, game_states, placements
from tablesim import synthetic
from vision.frame.deblur import Smear, estimate, sharpen
from vision.frame.quality import REFERENCE_WIDTH, assess
from companion.console import run_main


def measure(quick: bool = False) -> dict[str, Any]:
    """The figures behind ``vision.frame.deblur``, on ``tablesim.synthetic`` tables (mid-game, from overhead):
    per smear length (the renderer's line of 2–9 px at six angles; its spectrum's true first zero
    beside it), the direction's error from the edge widths (``quality.smear_angle``) and after the
    spectrum's refinement, and the length estimated; and the time of ``estimate`` and ``sharpen``
    on a 1080p and a 4K frame (median ms)."""
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
    """``companion bench deblur [--quick]``: print ``measure()``."""
    parser = argparse.ArgumentParser(prog="companion bench deblur", description=measure.__doc__.split("\n\n")[0])
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
    run_main(main)
