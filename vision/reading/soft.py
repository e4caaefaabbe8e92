"""A second reader for markers too coarse for hard bits: the whole 7 × 7 grid matched to every code.

At ~1.0 px/mm a 15 mm marker has cells of ~2 px, and the lens, the camera's resampling and a
little blur spread each cell over its neighbours: a lone white cell among black ones reads black,
a lone black cell among white ones white. ``vision.reading.markers`` splits the cells' means into
black and white one by one, so such a marker reads two or three bits off and names no code (or the
right code only with a corrected bit, which alone is not trusted so coarse: ``detect``).

This reader does not decide cell by cell. It predicts how each code of the dictionary (all 1000 in
all four turns) would look through that spread — every cell mixed with its neighbours by a few
amounts, ``SPREADS``, the white paper round the marker included — and measures how well each
prediction fits the cells' means (Pearson's correlation: brightness and contrast do not matter).
A read counts only when the best code fits well (``MIN_FIT``) and far better than the best code
of any other id (``MIN_MARGIN``); both thresholds come from measuring every candidate square of the
cached bench frames (docs/vision.md).

It runs only on the small squares the hard read could not name exactly (``MarkerFinder``).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import cv2
import numpy as np

from vision.reading import markers as M

SPREADS = (0.0, 0.08, 0.16)
"""How much of each neighbouring cell's brightness a cell takes on (of each of its four side
neighbours; half of it from each diagonal one): 0 is a sharp marker, 0.16 one whose ~2 px cells
are blurred about as far as the cells are wide."""

GROWS = (0.0, 0.5, 1.0)
"""The square's sides moved out by these px before sampling (its contour runs inside the black
border by up to a pixel; see ``markers.GROW_PX``): the best fit of them counts."""

MIN_FIT = 0.88
MIN_MARGIN = 0.10
"""A read counts when its code fits the cells this well (correlation) and every code of another id
fits at least ``MIN_MARGIN`` worse. Measured on every small candidate square (cells under 2.5 px)
of the cached frames of the surfaces bench (5 surfaces, 1.0–2.0 px/mm) and the conditions bench
(17 conditions, 1.2 and 1.7 px/mm): of 26,717 squares with a marker's border that are no marker of
the id this reader names (the cards' QR finder patterns, printed pips, objects on the table), none
fits 0.88 or better (best 0.879, its margin under 0.03), none with a margin of 0.10 fits better than
0.827, none with a margin of 0.08 better than 0.838; of the 3,881 true markers the hard read did not
name exactly, 80 % pass both. On the screens' frames every square passing both is the card shown
on the screen (a picture, told by ``vision.reading.plane``)."""


def _patterns() -> tuple[np.ndarray, np.ndarray]:
    """(codes' predicted 7 × 7 grids, standardised rows (len(CODES) · len(SPREADS), 49); the index
    into ``markers.CODES`` of each row)."""
    n = len(M.CODES)
    bits = ((M.CODES[:, None] >> np.arange(M.BITS * M.BITS)) & 1).reshape(n, M.BITS, M.BITS)
    grid = np.ones((n, M.GRID + 2, M.GRID + 2))           # white paper round the marker
    grid[:, 1:-1, 1:-1] = 0.0                              # its black border
    grid[:, 2:-2, 2:-2] = bits
    rows = []
    for spread in SPREADS:
        side, corner = spread, spread / 2
        own = 1 - 4 * side - 4 * corner
        mixed = own * grid[:, 1:-1, 1:-1]
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dx or dy:
                    weight = side if dx == 0 or dy == 0 else corner
                    mixed = mixed + weight * grid[:, 1 + dy:M.GRID + 1 + dy, 1 + dx:M.GRID + 1 + dx]
        rows.append(mixed.reshape(n, -1))
    pred = np.concatenate(rows)
    pred = pred - pred.mean(axis=1, keepdims=True)
    pred /= np.linalg.norm(pred, axis=1, keepdims=True)
    return np.ascontiguousarray(pred.T, np.float32), np.tile(np.arange(n), len(SPREADS))


SPLIT_FROM = 48
"""Doubtful squares from which ``second_read`` scores them in two halves, one on another core
(``markers.pool``): at 1.0–1.2 px/mm a full look has ~100–400 of them, ~12 ms of CPU on one thread."""

_PRED, _PRED_CODE = _patterns()
"""(49, codes · spreads): the predictions as columns (``_corr``)."""


def _corr(cells: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """(N, K) correlations of standardised cells (N, 49) with prediction columns (49, K):
    ``cv2.gemm``, single-threaded, where numpy's BLAS would spin both cores (~5× the CPU on these
    small products, measured)."""
    return cv2.gemm(cells, pred, 1.0, None, 0.0)


def _cells(grey: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """(len(GROWS), N, 49) float32: each quad's cell means at each of ``GROWS``, standardised
    (mean 0, length 1: a dot product with a ``_PRED`` row is their correlation)."""
    out = np.stack([M.cell_means(grey, quads, grow).reshape(len(quads), -1) for grow in GROWS]).astype(np.float32)
    out -= out.mean(axis=2, keepdims=True)
    out /= np.maximum(np.linalg.norm(out, axis=2, keepdims=True), 1e-6)
    return out


@lru_cache(maxsize=8)
def _rows_of(markers: frozenset[int]) -> np.ndarray:
    """The rows of ``_PRED`` of these markers (all turns, all spreads)."""
    wanted = np.isin(_PRED_CODE // 4, np.fromiter(markers, np.int64, len(markers)))
    return np.ascontiguousarray(_PRED[:, wanted])


def fits(grey: np.ndarray, quads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(index into ``markers.CODES`` of the best-fitting code, its fit, the best fit of any code of
    another id) of each quad (N, 4, 2) in ``grey``."""
    return _fits(_cells(grey, quads))


def _fits(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = cells.shape[1]
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    best = np.full((n, len(M.CODES)), -1.0, np.float32)
    for grown in cells:
        corr = _corr(grown, _PRED).reshape(n, len(SPREADS), -1)     # (N, spreads, codes)
        np.maximum(best, corr.max(axis=1), out=best)
    per_id = best.reshape(n, -1, 4).max(axis=2)                       # (N, ids)
    rows = np.arange(n)
    first = per_id.argmax(axis=1)
    top = per_id[rows, first]
    per_id[rows, first] = -1.0
    second = per_id.max(axis=1)
    turn = best.reshape(n, -1, 4)[rows, first].argmax(axis=1)
    return first * 4 + turn, top.astype(np.float64), second.astype(np.float64)


def _scores(cells: np.ndarray, markers: frozenset[int] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(which squares of ``cells`` (``_cells``) were matched against the whole dictionary, and
    ``_fits``' code, fit and best other id's fit of each of those): given ``markers``, only the
    squares one of them fits."""
    keep = np.arange(cells.shape[1])
    if markers is not None:
        some = _rows_of(frozenset(markers))
        close = np.zeros(cells.shape[1], bool)
        for grown in cells:
            close |= _corr(grown, some).max(axis=1, initial=-1.0) >= MIN_FIT
        keep, cells = keep[close], cells[:, close]
    return (keep, *_fits(cells))


Squares = tuple[np.ndarray, np.ndarray, list[set[int]], np.ndarray]
"""``doubtful``'s (corners (K, 4, 2), place of each, ids named with a bit corrected a place, cells
(len(GROWS), K, 49)) of one finder call's doubtful squares."""

Reader = Callable[[np.ndarray, list, "frozenset[int] | None", "Squares | None"], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""A second reader that can be given the finder call's ``doubtful`` squares (``second_read``,
``vision.reading.smeared``'s): the readers after it (``vision.reading.byqr``) look at the same ones."""


def second_read(grey: np.ndarray, found: list, markers: frozenset[int] | None = None,
                squares: Squares | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ids, corners, exact) of the doubtful squares of every threshold's ``MarkerFinder._identify``
    (``found``: its 4-tuples) that this reader names beyond doubt (``MIN_FIT``, ``MIN_MARGIN``), all
    read as exact. A square where some threshold read a marker exactly is not read again; of the
    squares several thresholds outline at one place, every one is read and the best that passes
    counts (``choose``: the thresholds were measured square by square; in a dim room the first
    window's outline of a marker fitted 0.86, the last one's 0.94). One the hard read named with a bit corrected
    counts only when this reader names the same code; one it named nothing, whatever this reader
    names. Given ``markers`` (the ids that may lie on this table), only squares that one of them
    fits to ``MIN_FIT`` are matched against the whole dictionary (the same decision for those, a
    fraction of the work: most squares are no marker). ``squares``: ``doubtful(grey, found)``, when
    the caller has worked it out already (the readers after this one look at the same squares)."""
    none = np.zeros(0, np.int64), np.zeros((0, 4, 2)), np.zeros(0, bool)
    quads, place, named, cells = doubtful(grey, found) if squares is None else squares
    if len(quads) == 0:
        return none
    keep = np.arange(len(quads))
    # every square is scored alone: from ``SPLIT_FROM`` squares, half of them on another core
    halves = np.array_split(keep, 2 if len(keep) >= SPLIT_FROM else 1)
    jobs = [M.pool().submit(_scores, cells[:, half], markers) for half in halves[1:]]
    scored = [_scores(cells[:, halves[0]], markers)] + [job.result() for job in jobs]
    keep = np.concatenate([half[s[0]] for half, s in zip(halves, scored)])
    code, fit, second = (np.concatenate([s[k] for s in scored]) for k in (1, 2, 3))
    chosen = choose(place[keep], named, code, fit, (fit >= MIN_FIT) & (fit - second >= MIN_MARGIN))
    keep, code = keep[chosen], code[chosen]
    return code // 4, M.turned(quads[keep], code), np.ones(len(keep), bool)


def doubtful(grey: np.ndarray, found: list) -> Squares:
    """``places(found)`` and the ``_cells`` of their squares in ``grey``: worked out once a finder
    call by its first reader's caller and handed to every reader of those squares."""
    quads, place, named = places(found)
    return quads, place, named, _cells(grey, quads) if len(quads) else np.zeros((len(GROWS), 0, 49), np.float32)


def places(found: list) -> tuple[np.ndarray, np.ndarray, list[set[int]]]:
    """The doubtful squares of every threshold's ``MarkerFinder._identify`` (``found``: its
    4-tuples) worth a second read: (their corners (K, 4, 2), the place of each (K,): squares closer
    than ``MarkerFinder._refine``'s rule are one place, found by several thresholds; for each place,
    the ids a hard read named there with a bit corrected, to be agreed with). None where some
    threshold read a marker exactly."""
    quads = np.concatenate([f[3][0] for f in found])
    hard = np.concatenate([f[3][1] for f in found])
    if len(quads) == 0:
        return quads.reshape(0, 4, 2), np.zeros(0, np.int64), []
    centres = quads.mean(axis=1)
    near = M.MIN_MARKER_DISTANCE * M._perimeters(quads)
    sure = np.concatenate([f[1][f[2]] for f in found]).mean(axis=1)
    if len(sure):
        far = (np.linalg.norm(centres[:, None] - sure[None], axis=2) >= near[:, None]).all(axis=1)
        quads, hard, centres, near = quads[far], hard[far], centres[far], near[far]
    close = np.linalg.norm(centres[:, None] - centres[None], axis=2) < np.maximum(near[:, None], near[None])
    place = np.full(len(quads), -1, np.int64)
    named = []
    for i in range(len(quads)):
        if place[i] < 0:
            group = close[i] & (place < 0)
            place[group] = len(named)
            named.append({int(h) // 4 for h in hard[group] if h >= 0})
    return quads.reshape(-1, 4, 2), place, named


def choose(place: np.ndarray, named: list[set[int]], code: np.ndarray, fit: np.ndarray, passed: np.ndarray) -> np.ndarray:
    """Indices of the reads to keep, at most one a place: of the squares of a place (several
    thresholds' outlines of one marker, each measured alone) whose read ``passed`` its reader's
    thresholds and agrees with a hard read's corrected id there, the best fitting; none where two
    such squares name different ids."""
    ok = passed & np.array([not named[p] or named[p] == {int(c) // 4} for p, c in zip(place, code)], bool)
    out = []
    for p in np.unique(place[ok]):
        mine = np.flatnonzero(ok & (place == p))
        if len({int(c) // 4 for c in code[mine]}) == 1:
            out.append(int(mine[np.argmax(fit[mine])]))
    return np.array(out, np.int64)
