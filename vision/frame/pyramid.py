"""4K cameras: find markers at half resolution, read them at full resolution.

A 3840 × 2160 frame has four times the pixels of a 1080p one, and the marker finder's cost (the
adaptive thresholds and their contours) grows with the pixels. But a 4K camera over the same table
sees every marker twice as large (Chains for 9–10 players at ~2.6 px/mm instead of 1.3), and a
marker's outline needs no more than ~1.3 px/mm to be found (design.md: 15 mm markers at 1.2 px/mm,
with their bits the harder part). So ``PyramidFinder`` looks for candidate squares on the frame
halved (``cv2.INTER_AREA``: each pixel the mean of four, so the noise halves too), then reads every
candidate's bits and refines its corners on the full frame, where each cell is ~5 px wide instead of
~2.5. Frames up to ``PYRAMID_FROM`` px wide are searched as before.

``companion bench vision --part 4k`` measures it (``benchmarks.vision.bench_4k``): the same tables
rendered at 1080p and at 4K, cards identified and the time of a full look at each.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.reading.markers import Doubtful, MarkerFinder, candidate_mask, pool

PYRAMID_FROM = 2600
"""Frames wider than this (a 4K camera: 3840) are searched at half resolution first."""

UHD = (3840, 2160)


class PyramidFinder(MarkerFinder):
    """``MarkerFinder`` whose candidates come from the frame halved when it is larger than
    ``PYRAMID_FROM`` px wide; bits and corners are read on the full frame."""

    def reads(self, grey: np.ndarray, small: bool = True, large: bool = False) -> list[tuple[int, np.ndarray, bool]]:
        """Every marker in ``grey`` (see ``MarkerFinder.reads``)."""
        if grey.shape[1] <= PYRAMID_FROM:
            return super().reads(grey, small, large)
        half = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
        # at half size the markers are half as wide: the window for small markers is needed when
        # they are under ~20 px there (the full frame under 2.7 px/mm), which the caller's ``small``
        # (judged on the full frame) does not say; it costs a third more of a quarter of the pixels;
        # nor does ``large``: every window is searched
        windows = self.windows
        where = candidate_mask(half)
        if self.threads and len(windows) > 1:
            jobs = [pool().submit(self._full_markers, grey, half, w, c, where) for w, c in windows[1:]]
            found = [self._full_markers(grey, half, *windows[0], where)] + [job.result() for job in jobs]
        else:
            found = [self._full_markers(grey, half, w, c, where) for w, c in windows]
        return self._refine(grey, *found, self._second_read(grey, found))

    def _full_markers(self, grey: np.ndarray, half: np.ndarray, window: int, constant: float,
                      where: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, Doubtful]:
        """``MarkerFinder._identify`` of the candidates one threshold of ``half`` shows, read on ``grey``."""
        # a half-size pixel's centre x maps to 2x + 0.5 on the full frame; the candidate rules
        # (shape, and 3 px from the edge) are judged there, as a full search would
        quads = self._candidates(grey, self._quads(half, window, constant, where) * 2.0 + 0.5)
        return self._identify(grey, quads)

