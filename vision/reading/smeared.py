"""A third reader for coarse markers in a motion-smeared frame: each code as the deblurred frame shows it.

A frame smeared by shake is read from its Wiener-deblurred copy (``vision.frame.deblur``). There a
15 mm marker at ~1.0 px/mm (cells of ~2 px) is found as a square but often not named: the filter
cannot restore what the smear's zeros took away, and it rings; the bits read two or three off, and
``vision.reading.soft``'s model (each cell mixed evenly with its neighbours) fits such a grid no
better than 0.80–0.90. This reader models the whole chain instead. What the finder reads is the
sharp marker seen through

    the camera's own softness (a Gaussian, ``CAMERA_SIGMAS``), the smear (a line ``TRUE_LENGTHS``
    times the length ``deblur.estimate`` found, at its angle), the Wiener filter ``deblur.sharpen``
    applied for the estimated line, and the finder's unsharp mask (``markers.unsharp_masked``);

all linear, so one kernel in frame px (``frame_kernels``). For each square the kernel is carried
into the marker's cell units through the square's own perspective (its homography's Jacobian at the
centre), every code of the dictionary (all turns; the white paper ring round the marker included)
is predicted as the cells' means the finder samples, and matched to the square's cells by Pearson's
correlation, as ``soft`` does. A read counts when the best code fits well and far better than every
code of another id and than a QR code's finder pattern (``passes``, ``counts``): thresholds measured
on every small candidate square of the cached bench frames (docs/vision.md).

It runs only on smeared frames (``vision.pipeline.Pipeline`` gives it to the finder of deblurred
frames: ``reader``), only on the small squares neither the bits nor ``soft`` named.
"""
from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from vision.frame import deblur
from vision.reading import markers as M
from vision.reading import soft

TRUE_LENGTHS = (0.85, 1.0, 1.15)
"""The smear's true length as a share of the estimated one (``deblur.estimate`` is within ~15 %
on the rendered tables): the Wiener filter is the estimate's, the smear any of these."""

CAMERA_SIGMAS = (0.5, 0.9)
"""The camera's own softness (Gaussian sigma, frame px) under the smear: a sharp lens and
resampling, a soft webcam."""

MIN_FIT = 0.90
MIN_MARGIN = 0.08
WIDE_FIT = 0.86
WIDE_MARGIN = 0.15
"""A read counts when its code fits the cells ``MIN_FIT`` and every code of another id fits at least
``MIN_MARGIN`` worse, or when it stands out further (``WIDE_MARGIN``) with a looser fit
(``WIDE_FIT``: a smear's ringing fits no model perfectly); never when the QR finder pattern
(``_RIVAL``) fits best. Measured square by square on the cached frames of both benches (1.0–2.0
px/mm; the smeared frames with their own smear, the others deblurred for 4 px at 60° and 6 px at
150°), every square ``GATE`` passes, read against the whole dictionary: of 10,297 squares, 2,419
named an id lying nowhere near; 6 of those passed, all QR finder patterns named C06-6-2 (fit ≤ 0.911,
margin ≤ 0.083, on frames deblurred for a made-up smear), hence the rival; no other id had a margin
over 0.119. 4,253 of the 7,878 true markers passed. With the rival (7,492 squares of 27 of those
files): 1,824 name the finder pattern, 307 another id, none of which passes (widest margin 0.078);
2,884 of 5,361 true markers pass (docs/figures.md, round 5)."""

GATE = 0.70
"""Only squares that ``soft``'s model of a code in play fits this well are modelled here: on a
smeared Wheel frame at 1.0 px/mm, non-markers fit it ≤ 0.61, markers ≥ 0.78."""

SUB = 4
"""Subcells per cell side of the raster on which a cell's response is computed."""

KERNEL_PX = 12
"""Half-width (frame px) of the kernel kept: the smear's line (≤ ~8 px where frames are still read)
and the filter's ringing beyond it."""

_RING = 2
"""Cells of white paper modelled round the marker (its 3 mm quiet margin is ~1.4 cells; a second
ring keeps a long smear's reach inside the model)."""

_SIDE = M.GRID + 2 * _RING
_REACH = _SIDE - 1 - _RING            # farthest offset (cells) from an observed cell to a modelled one


def _grid() -> tuple[np.ndarray, np.ndarray]:
    """(fixed part of every code's grid: paper ring 1, border 0, inner bits 0 (_SIDE²,); the inner
    bits of each code (len(CODES), 25) as 0/1 floats)."""
    fixed = np.ones((_SIDE, _SIDE), np.float64)
    fixed[_RING:_RING + M.GRID, _RING:_RING + M.GRID] = 0.0
    bits = ((M.CODES[:, None] >> np.arange(M.BITS * M.BITS)) & 1).astype(np.float64)
    return fixed.ravel(), bits


_FIXED, _BITS = _grid()


def _finder() -> np.ndarray:
    """A QR code's finder pattern as a marker's inner bits (4, 25): inside the black ring a white
    one round a black 3 × 3 (the same in every turn)."""
    inner = np.ones((M.BITS, M.BITS))
    inner[1:-1, 1:-1] = 0.0
    return np.tile(inner.ravel(), (4, 1))


_BITS32 = np.ascontiguousarray(np.vstack([_BITS, _finder()]), np.float32)
"""Every code's inner bits, and after them a rival no marker is: the QR finder pattern, three on
every card face. Through a smear it fits the code of C06-6-2 (whose 5 × 5 bits differ from it in a
few cells) up to 0.91 with a margin of 0.08 over every other id (cached bench frames deblurred for a
made-up smear); as a rival of its own a finder pattern names nothing."""
_FIXED32 = _FIXED.astype(np.float32)
_RIVAL = len(M.CODES) // 4
"""The rival's id among the rows of ``_BITS32`` (after the dictionary's)."""
_rows, _cols = np.divmod(np.arange(_SIDE * _SIDE), _SIDE)
_INNER = np.flatnonzero((_rows >= _RING + 1) & (_rows < _RING + 1 + M.BITS) &
                        (_cols >= _RING + 1) & (_cols < _RING + 1 + M.BITS))
_OBSERVED = np.flatnonzero((_rows >= _RING) & (_rows < _RING + M.GRID) & (_cols >= _RING) & (_cols < _RING + M.GRID))
_DY = _rows[_OBSERVED][:, None] - _rows[None, :] + _REACH
_DX = _cols[_OBSERVED][:, None] - _cols[None, :] + _REACH


@lru_cache(maxsize=4)
def frame_kernels(smear: deblur.Smear) -> tuple[np.ndarray, ...]:
    """The kernels (frame px, (2 · ``KERNEL_PX`` + 1)², centred) that take the sharp frame to what
    the finder reads from the deblurred one, one per ``TRUE_LENGTHS`` × ``CAMERA_SIGMAS``."""
    n = 4 * KERNEL_PX
    f = np.fft.fftfreq(n)
    fx, fy = np.meshgrid(f, f)
    a = math.radians(smear.angle)
    along = fx * math.cos(a) + fy * math.sin(a)
    radius2 = fx * fx + fy * fy
    estimated = np.sinc(along * smear.length)
    wiener = estimated / (estimated ** 2 + deblur.NOISE * (radius2 / deblur.NOISE_AT ** 2) ** (deblur.NOISE_POWER / 2))
    unsharp = 1 + M.SHARPEN_AMOUNT - M.SHARPEN_AMOUNT * np.exp(-2 * math.pi ** 2 * M.SHARPEN_SIGMA ** 2 * radius2)
    out = []
    for share in TRUE_LENGTHS:
        for sigma in CAMERA_SIGMAS:
            camera = np.exp(-2 * math.pi ** 2 * sigma ** 2 * radius2)
            spectrum = np.sinc(along * smear.length * share) * wiener * unsharp * camera
            kernel = np.fft.fftshift(np.real(np.fft.ifft2(spectrum)))
            c = n // 2
            out.append(np.ascontiguousarray(kernel[c - KERNEL_PX:c + KERNEL_PX + 1, c - KERNEL_PX:c + KERNEL_PX + 1],
                                            np.float32))
    return tuple(out)


def _cell_box() -> np.ndarray:
    """One cell's indicator on the subcell raster of ±``_REACH`` cells round it."""
    side = (2 * _REACH + 1) * SUB
    box = np.zeros((side, side), np.float32)
    box[_REACH * SUB:(_REACH + 1) * SUB, _REACH * SUB:(_REACH + 1) * SUB] = 1.0
    return box


_BOX = _cell_box()
_LO = int(round(M.CELL_MARGIN * SUB))
_HI = SUB - _LO


def _jacobian(quad: np.ndarray) -> np.ndarray:
    """(2, 2): frame px per cell unit along the marker's x and y at its centre."""
    h = M._homographies(quad[None])[0]
    c = M.GRID / 2
    p = h @ np.array([[c, c + 1e-2, c], [c, c, c + 1e-2], [1, 1, 1]])
    p = p[:2] / p[2]
    return np.column_stack([(p[:, 1] - p[:, 0]) / 1e-2, (p[:, 2] - p[:, 0]) / 1e-2])


def _response(kernel: np.ndarray, jac: np.ndarray) -> np.ndarray:
    """(2 · _REACH + 1)²: the mean over each cell's sampled area (``markers.CELL_MARGIN``) of one
    white cell at the centre seen through ``kernel`` (frame px) carried into cell units by ``jac``."""
    # the kernel on the subcell raster: subcell u (cells, centred) shows frame px jac · u
    reach = int(math.ceil(KERNEL_PX / max(1e-3, np.abs(np.linalg.svd(jac, compute_uv=False)).min()) * SUB))
    reach = min(reach, _REACH * SUB)
    side = 2 * reach + 1
    warp = np.hstack([jac / SUB, (KERNEL_PX - jac @ np.array([reach, reach]) / SUB)[:, None]])
    sub = cv2.warpAffine(kernel, warp, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_CONSTANT)
    sub /= max(float(sub.sum()), 1e-6)
    seen = cv2.filter2D(_BOX, -1, sub, borderType=cv2.BORDER_CONSTANT)
    cells = 2 * _REACH + 1
    return seen.reshape(cells, SUB, cells, SUB)[:, _LO:_HI, :, _LO:_HI].mean(axis=(1, 3))


def fits(grey: np.ndarray, quads: np.ndarray, smear: deblur.Smear) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(index into ``markers.CODES`` of the best-fitting code — past its end: the QR finder pattern,
    ``_RIVAL`` —, its fit, the best fit of any code of another id) of each quad (N, 4, 2) in
    ``grey`` (the finder's image of a frame deblurred for ``smear``)."""
    n = len(quads)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    return _ranked(_best(_models(grey, quads, smear), _BITS32))


def _ranked(best: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(index of the best code among ``best``'s columns — four turns of each id side by side —, its
    fit, the best fit of another id) of each row of ``best``."""
    n = len(best)
    per_id = best.reshape(n, -1, 4).max(axis=2)
    rows = np.arange(n)
    first = per_id.argmax(axis=1)
    top = per_id[rows, first].astype(np.float64)
    per_id[rows, first] = -2.0
    turn = best.reshape(n, -1, 4)[rows, first].argmax(axis=1)
    return first * 4 + turn, top, per_id.max(axis=1).astype(np.float64)


def _models(grey: np.ndarray, quads: np.ndarray, smear: deblur.Smear) -> list[list[tuple[np.ndarray, float, np.ndarray]]]:
    """For each quad and each of ``frame_kernels``: what every code's fit needs (``_best``): with
    the prediction base + inner @ bits (centred), the matrix [innerᵀ inner | innerᵀ base | innerᵀ
    observed] (25 × (26 + grows)), base · base and base · observed (one per ``soft.GROWS``)."""
    cells = soft._cells(grey, quads)                              # (grows, N, 49), standardised
    kernels = frame_kernels(smear)
    out = []
    for q in range(len(quads)):
        jac = _jacobian(quads[q])
        observed = np.ascontiguousarray(cells[:, q].T)            # (49, grows)
        mine = []
        for kernel in kernels:
            mix = _response(kernel, jac)[_DY, _DX]                # (49, _SIDE²): observed cell <- modelled cell
            mix = (mix - mix.mean(axis=0, keepdims=True)).astype(np.float32)   # correlation: centred
            base = mix @ _FIXED32                                 # (49,)
            inner = np.ascontiguousarray(mix[:, _INNER])          # (49, 25)
            right = np.ascontiguousarray(np.hstack([inner.T @ inner, (inner.T @ base)[:, None], inner.T @ observed]))
            mine.append((right, float(base @ base), base @ observed))
        out.append(mine)
    return out


def _best(models: list, bits: np.ndarray) -> np.ndarray:
    """(N, len(bits)): how well each code (its inner bits, rows of ``_BITS32``) fits each quad of
    ``_models``, the best over ``frame_kernels`` and ``soft.GROWS``."""
    best = np.full((len(models), len(bits)), -2.0, np.float32)
    for q, mine in enumerate(models):
        for right, base2, base_seen in mine:
            # each code's squared length and dot product with the observed cells, all codes at once
            # (cv2.gemm: one thread)
            prod = cv2.gemm(bits, right, 1.0, None, 0.0)
            norm2 = base2 + 2 * prod[:, 25] + (prod[:, :25] * bits).sum(axis=1)
            dots = prod[:, 26:] + base_seen[None, :]
            np.maximum(best[q], (dots / np.sqrt(np.maximum(norm2, 1e-12))[:, None]).max(axis=1), out=best[q])
    return best


def passes(fit: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Whether reads of these fits (and best fits of another id) are sure enough (``MIN_FIT``,
    ``WIDE_FIT``)."""
    margin = fit - second
    return ((fit >= MIN_FIT) & (margin >= MIN_MARGIN)) | ((fit >= WIDE_FIT) & (margin >= WIDE_MARGIN))


def counts(code: np.ndarray, fit: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Which of ``fits``' reads name a marker: sure enough, and not the QR finder pattern."""
    return passes(fit, second) & (code // 4 != _RIVAL)


def second_read(grey: np.ndarray, found: list, markers: frozenset[int] | None, smear: deblur.Smear,
                squares: soft.Squares | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``soft.second_read``, then this reader on the places it left unnamed (``soft.places``): the
    (ids, corners, exact) of both, all read as exact. A place a hard read named with a bit corrected
    counts only when this reader names the same id, as in ``soft``. Given ``markers`` (the ids that
    may lie on this table), only places that ``soft``'s model of one of them fits to ``GATE`` are
    modelled, first against those ids' codes, and against the whole dictionary only where one of
    them passes there (``passes``: with the other ids in play as the rivals). ``squares``:
    ``soft.doubtful(grey, found)``, when worked out already."""
    squares = soft.doubtful(grey, found) if squares is None else squares
    ids, corners, exact = soft.second_read(grey, found, markers, squares)
    quads, place, named, cells = squares
    if len(corners) and len(quads):
        # the places ``soft`` named (its corners are one of their squares', turned)
        read = np.linalg.norm(quads.mean(axis=1)[:, None] - corners.mean(axis=1)[None], axis=2).min(axis=1) < 1e-6
        left = ~np.isin(place, place[read])
        quads, place, cells = quads[left], place[left], cells[:, left]
    if markers is not None and len(quads):
        some = soft._rows_of(frozenset(markers))
        like = np.zeros(len(quads), bool)
        for grown in cells:
            like |= soft._corr(grown, some).max(axis=1, initial=-1.0) >= GATE
        quads, place = quads[like], place[like]
    if len(quads) == 0:
        return ids, corners, exact
    models = _models(grey, quads, smear)
    if markers is not None:
        playing = np.flatnonzero(np.isin(np.arange(len(_BITS32)) // 4, np.fromiter([*markers, _RIVAL], np.int64)))
        # a read that fails among the codes in play (and the rival) fails among all (more ids to
        # stand out from)
        _, top, second = _ranked(_best(models, np.ascontiguousarray(_BITS32[playing])))
        like = passes(top, second)
        quads, place, models = quads[like], place[like], [m for m, k in zip(models, like) if k]
        if len(quads) == 0:
            return ids, corners, exact
    code, fit, second = _ranked(_best(models, _BITS32))
    chosen = soft.choose(place, named, code, fit, counts(code, fit, second))
    return np.concatenate([ids, code[chosen] // 4]), np.concatenate([corners, M.turned(quads[chosen], code[chosen])]), \
        np.ones(len(ids) + len(chosen), bool)


def reader(smear: deblur.Smear) -> soft.Reader:
    """The second reader for ``markers.MarkerFinder`` on a frame deblurred for ``smear``."""
    def read(grey: np.ndarray, found: list, markers: frozenset[int] | None = None,
             squares: soft.Squares | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return second_read(grey, found, markers, smear, squares)
    return read
