"""4K cameras: find markers at half resolution, read them at full resolution.

A 3840 × 2160 frame has four times the pixels of a 1080p one, and the marker finder's cost (the
adaptive thresholds and their contours) grows with the pixels. But a 4K camera over the same table
sees every marker twice as large (Chains for 9–10 players at ~2.6 px/mm instead of 1.3), and a
marker's outline needs no more than ~1.3 px/mm to be found (design.md: 15 mm markers at 1.2 px/mm,
with their bits the harder part). So ``PyramidFinder`` looks for candidate squares on the frame
halved (``cv2.INTER_AREA``: each pixel the mean of four, so the noise halves too), then reads every
candidate's bits and refines its corners on the full frame, where each cell is ~5 px wide instead of
~2.5. Frames up to ``PYRAMID_FROM`` px wide are searched as before.

``bench_4k`` measures it (``companion bench vision --part 4k``): the same tables rendered at 1080p and
at 4K (``frame_size``: ``vision.synthetic`` at a larger frame), cards identified and the time of a
full look at each.
"""
from __future__ import annotations

import contextlib
import math
import os
from typing import Any, Iterator

import cv2
import numpy as np

from vision.markers import MarkerFinder, pool

PYRAMID_FROM = 2600
"""Frames wider than this (a 4K camera: 3840) are searched at half resolution first."""

UHD = (3840, 2160)


class PyramidFinder(MarkerFinder):
    """``MarkerFinder`` whose candidates come from the frame halved when it is larger than
    ``PYRAMID_FROM`` px wide; bits and corners are read on the full frame."""

    def find(self, grey: np.ndarray, small: bool = True) -> list[tuple[int, np.ndarray]]:
        """Every marker in ``grey`` (see ``MarkerFinder.find``)."""
        if grey.shape[1] <= PYRAMID_FROM:
            return super().find(grey, small)
        half = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
        # at half size the markers are half as wide: the window for small markers is needed when
        # they are under ~20 px there (the full frame under 2.7 px/mm), which the caller's ``small``
        # (judged on the full frame) does not say; it costs a third more of a quarter of the pixels
        windows = self.windows
        if self.threads and len(windows) > 1:
            jobs = [pool().submit(self._full_markers, grey, half, w, c) for w, c in windows[1:]]
            found = [self._full_markers(grey, half, *windows[0])] + [job.result() for job in jobs]
        else:
            found = [self._full_markers(grey, half, w, c) for w, c in windows]
        return self._refine(grey, np.concatenate([ids for ids, _ in found]),
                            np.concatenate([quads for _, quads in found]))

    def _full_markers(self, grey: np.ndarray, half: np.ndarray, window: int, constant: float) -> tuple[np.ndarray, np.ndarray]:
        """(ids, full-frame corners) of the candidates one threshold of ``half`` shows, read on ``grey``."""
        # a half-size pixel's centre x maps to 2x + 0.5 on the full frame; the candidate rules
        # (shape, and 3 px from the edge) are judged there, as a full search would
        quads = self._candidates(grey, self._quads(half, window, constant) * 2.0 + 0.5)
        return self._identify(grey, quads)


# --- the benchmark -------------------------------------------------------------------------------
@contextlib.contextmanager
def frame_size(size: tuple[int, int]) -> Iterator[None]:
    """``vision.synthetic`` renders frames of ``size`` (w, h px) inside this block (its cameras keep
    their maps: make and use them inside)."""
    from vision import synthetic
    before = synthetic.FRAME_SIZE
    synthetic.FRAME_SIZE = size
    try:
        yield
    finally:
        synthetic.FRAME_SIZE = before


BENCH_TABLES = (("chains", 10), ("chains", 6), ("wheel", 3), ("spartacus", 3))
"""Tables for ``bench_4k``: the largest plan (Chains for 10), and three more."""


def bench_4k(quick: bool = False, decoder: str = "zxing") -> dict[str, Any]:
    """The same mid-game tables at 1080p and at 4K (the same view: the table as large as 1080p holds
    it, twice the px/mm at 4K): visible
    cards identified by a fresh pipeline, and the full look's time (median ms, wall and CPU)."""
    from vision import layouts, synthetic
    from vision.bench import _stats, _timed, placements, reported_cards, score, table_script
    from vision.calibrate import Calibration
    from vision.pipeline import Pipeline
    tables = BENCH_TABLES[:2] if quick else BENCH_TABLES
    stills = 3
    out: dict[str, Any] = {"tables": [], "load_average": [round(os.getloadavg()[0], 2)]}
    totals = {size: {"visible": 0, "identified": 0, "misidentified": 0, "full": [], "full_cpu": []}
              for size in ("1080p", "4k")}
    for game_id, players in tables:
        steps = table_script(game_id, players, {}, seed=1)[1]
        placed = placements(game_id, steps[len(steps) // 2].layout, seed=0, players=players)
        lying = [(p.shown_id, p.centre) for p in placed]
        row: dict[str, Any] = {"game": game_id, "players": players}
        table = layouts.table_size(game_id, players)
        base = synthetic.max_px_per_mm(table)
        hd = synthetic.FRAME_SIZE
        for name, size in (("1080p", hd), ("4k", UHD)):
            scale = base * size[0] / hd[0]          # the same view at either size
            with frame_size(size):
                cam = synthetic.Camera.looking_at(table, scale, seed=1)
                frames = [synthetic.render(cam, placed, 100 + i)[0] for i in range(stills)]
                truth = [(placed[i].shown_id, placed[i].centre) for i in synthetic.visible_truth(cam, placed)
                         if not placed[i].card_id.startswith("K-CAL")]
            pipeline = Pipeline(game_id, players, decoder=decoder)
            pipeline.calibration = Calibration(np.linalg.inv(cam.homography), (), 0.0, cam.k, size)
            t = totals[name]
            looks = [_timed(pipeline, frame) for frame in frames]
            # the first frame of a fresh pipeline is not still (nothing read): the others are full looks
            t["full"] += [ms for _, ms, _ in looks[1:]]
            t["full_cpu"] += [cpu for _, _, cpu in looks[1:]]
            scene = looks[-1][0]
            identified, wrong = score(truth, reported_cards(scene), lying)
            t["visible"] += len(truth)
            t["identified"] += identified
            t["misidentified"] += wrong
            row[name] = {"px_per_mm": scale, "visible": len(truth), "identified": identified,
                         "misidentified": wrong, "ids": sorted(c for c, _ in reported_cards(scene))}
        row["same_cards"] = row["1080p"].pop("ids") == row["4k"].pop("ids")
        out["tables"].append(row)
    out["load_average"].append(round(os.getloadavg()[0], 2))
    for name, t in totals.items():
        out[name] = {"visible": t["visible"], "identified": t["identified"], "misidentified": t["misidentified"],
                     "identified_share": round(t["identified"] / max(1, t["visible"]), 4),
                     "full_look_ms": _stats(t["full"]), "full_look_cpu_ms": _stats(t["full_cpu"])}
    base, uhd = out["1080p"]["full_look_ms"]["median"], out["4k"]["full_look_ms"]["median"]
    out["ratio"] = round(uhd / base, 2) if base and not math.isnan(base) else float("nan")
    return out


def print_4k(result: dict[str, Any]) -> None:
    """The 4K benchmark as a table."""
    print("4K against 1080p: the same tables in the same view; full look ms median/p95 "
          "wall (CPU); load before/after", result["load_average"])
    for row in result["tables"]:
        a, b = row["1080p"], row["4k"]
        print(f"{row['game']:<10} {row['players']:>2}p  1080p {a['px_per_mm']:.2f} px/mm {a['identified']}/{a['visible']}"
              f" ({a['misidentified']} wrong)  4K {b['px_per_mm']:.2f} px/mm {b['identified']}/{b['visible']}"
              f" ({b['misidentified']} wrong)  same cards: {row['same_cards']}")
    for name in ("1080p", "4k"):
        r = result[name]
        print(f"{name:>5}: {100 * r['identified_share']:.2f}% of {r['visible']} visible, {r['misidentified']} misidentified;"
              f" full look {r['full_look_ms']['median']}/{r['full_look_ms']['p95']} ms"
              f" ({r['full_look_cpu_ms']['median']}/{r['full_look_cpu_ms']['p95']} CPU)")
    print(f"4K full look / 1080p full look (median wall): {result['ratio']}")
