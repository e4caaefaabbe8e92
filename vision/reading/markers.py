"""A fast finder for the cards' DICT_5X5_1000 markers: our own candidate stage, OpenCV's dictionary.

OpenCV's ``ArucoDetector`` spends almost all of its time on a textured table in
``Dictionary.identify``: every candidate square that does not decode (a dark knot in the wood, a
shadow, a printed pip: ~250 of them in a 1080p frame) is compared with all 1000 markers in all four
turns, 2.4 ms each (measured, OpenCV 5.0, one thread), so a full frame cost ~650 ms. This finder
keeps OpenCV's steps and settings where they cost nothing and changes what was slow:

0. **Sharpen**: an unsharp mask (``SHARPEN_SIGMA``) undoes a little of the lens's and shake's
   softness first (measured: ``SHARPEN_AMOUNT``).
1. **Candidates**, only where a marker may be (``candidate_mask``): a marker is black print on
   white paper, so every part of its outline lies where the frame's local contrast is high *for its
   brightness* (the darkest pixel of a few px under 60 % of the brightest); a wood grain, a cloth's
   weave, a glass table's reflections are not, and the contours are followed only there, so their
   cost no longer grows with the table's texture (a busy wood grain: 320 → 40 ms of CPU a 1080p
   frame, ``docs/vision.md``). There: adaptive thresholds (``cv2.adaptiveThreshold``'s mean rule, of a 3, 13 and 23 px
   window like ArUco's defaults, but 14 grey levels below the mean instead of 7 for the two larger
   windows: the wood's grain falls away, a printed black border does not; the 23 px window only
   where markers may be small, the 3 px one only where some may be under ~24 px: ``FINE_ONLY``), on a
   tablecloth the 3 px window's specks dropped first (``DESPECK_ABOVE_SHARE``),
   ``cv2.findContours`` (only outer borders), ``cv2.approxPolyDP`` to
   four convex corners, ArUco's own size and corner-distance rules. The windows run in parallel on
   both cores (OpenCV releases the GIL), each also reading its candidates' bits (2. and 3.).
2. **Bits**: all candidates at once; first one sample a cell drops those of one flat colour (a
   tablecloth's dark checks: ``MIN_CELL_RANGE``); then one homography each (solved together in numpy), one
   ``cv2.remap`` sampling the centre of every cell of the 7 × 7 grid (ArUco's 13 % cell margin;
   the square's sides moved out by half a pixel, ``GROW_PX``), each candidate's cells split into
   black and white by Otsu's rule on their means. A candidate of
   one flat colour (a dark blot: the bulk of the rejects) or with more than ``BORDER_ERRORS`` of its
   24 border cells white is dropped before any lookup.
3. **Identity**: the 25 inner bits against OpenCV's own ``DICT_5X5_1000`` codes (all 1000 ids in all
   four turns) with ArUco's error correction (1 bit): one sorted search among the codes and their
   one-bit neighbours (``_lookup``). A small square (cells under 2.5 px) not named exactly is read
   again by its whole grid (``vision.reading.soft``).
4. One result per marker (the largest square of a group, as ArUco), corners refined by
   ``cv2.cornerSubPix`` (in a 5 × 5 window at least: see ``_refine``).
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import cv2
import numpy as np

DICTIONARY = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000)
BITS = 5
"""Inner bits per side of a marker; with its one-cell black border the grid is 7 × 7."""
GRID = BITS + 2

WINDOWS = ((3, 7.0), (13, 14.0), (23, 14.0))
"""(window px, grey levels below the local mean) of the adaptive thresholds searched."""

DESPECK_UPTO_WINDOW = 3
DESPECK_ABOVE_SHARE = 0.33
"""Where ``candidate_mask`` lets a marker's outline pass over more than this share of the frame (a
patterned tablecloth: 0.36–0.50 of it; wood, busy wood, cloth, glass: 0.08–0.28, measured on the
cached surface frames), the thresholds of windows up to ``DESPECK_UPTO_WINDOW`` px drop their specks
before ``cv2.findContours`` (``_without_specks``): there the 3 px window turns the weave into
~20,000 specks, each a contour OpenCV traces and hands back, and without them its contours cost
~25 % less (26–32 → 21–23 ms, the removal included). On the other tables, and in the larger
windows, the removal (~2.5 ms) costs about what it saves. The markers found are the same either way."""

SMALL_ONLY = 1
"""How many of the ``WINDOWS`` (the last ones) only small markers need: on the rendered tables the
23 px window adds markers at 1.2 px/mm (5 of 613) and none at 1.4, 1.7 or 2.0 (measured), for a
third of the finder's time."""

FINE_ONLY = 1
"""How many of the ``WINDOWS`` (the first ones: 3 px) only markers seen under ~1.6 px/mm need
(``MarkerFinder.reads``' ``large``, judged by ``vision.pipeline.LARGE_PX_PER_MM``): on the cached
frames of both benches whose table is seen at 1.46–1.98 px/mm at its smallest (the surfaces at 1.7
and 2.0 px/mm, the conditions at 1.7 but the 45° cameras) the 13 px window alone finds every marker
the 3 and 13 px ones find together (7,688 reads), while at 1.37 (the surfaces at 1.4) it finds 693
of their 705. The 3 px window is the costliest: its contours follow the print's finest detail
(4,000–24,000 of them in a 1080p frame, issue 24)."""

FINE_EDGE_PX = 96
"""...but within this many px of the image's edges the ``FINE_ONLY`` windows are still searched: a
marker cut by the edge (a seat token at the bottom of a 4K view at 2.6 px/mm, its corners 2 px from
it) is found by the 3 px window and by neither larger one, whose means repeat its border there
(``BORDER_REPLICATE``). 96 px holds a 15 mm marker up to 6 px/mm, a 40 mm K-CAL one up to 2.4."""

THREADS = 3
"""Worker threads shared by the finders (OpenCV and zxing-cpp release the GIL, so both cores work):
two thresholds while the caller searches the third, and a QR scan of the frame beside them; the
candidate mask while the caller sharpens, half the second reader's squares, the cards' QR crops."""

CONTRAST_SHARE = 0.4
"""Where the brightest and darkest pixel of a 3 × 3 neighbourhood of the frame halved (6 × 6 px)
differ by more than this share of the brightest, a marker's outline may pass (``candidate_mask``):
black ink on paper differs by 70–85 % (blurred at 1.0 px/mm, in a dim room, on the dark side of a
lamp's gradient alike), wood grain by up to ~35 %, a weave or a reflection's soft edge by less."""

CONTRAST_MIN = 24
"""...and by at least this many grey levels (noise in a dark corner is no marker)."""

MIN_PERIMETER_PX = 0.02 * 1920
"""design.md's minMarkerPerimeterRate 0.02 of a 1080p frame, in px (a 15 mm marker at ~0.7 px/mm)."""

MAX_PERIMETER_PX = 1200
"""Contours longer than this are not markers (a 40 mm K-CAL marker at 7 px/mm)."""

MIN_COMPACTNESS = 0.3
"""4π · area / length² a contour must reach (its length counted in contour points, as
``MIN_PERIMETER_PX``) to be worth fitting a quad to: a square's outline has ~0.79 (π/4, more when
turned: a diagonal step is one point), one seen at 45° ~0.7; a streak or a stroke far less."""

APPROX_RATE = 0.03
"""ArUco's polygonalApproxAccuracyRate: corners within 3 % of the perimeter of the contour."""

MIN_CORNER_RATE = 0.05
"""ArUco's minCornerDistanceRate: no side shorter than 5 % of the perimeter."""

BORDER_PX = 2
"""Candidates with a corner closer than this to the image edge are dropped (ArUco's
minDistanceToBorder, 3 there): every cell is sampled inside the image from 2 px. At 3 px a seat
token at the bottom edge of a 45° camera's view (its marker's corners 1.6–2.6 px from the edge, all
of it in view) was never read (``companion bench vision --part conditions``, tilt 45° yaw 120°)."""

GROW_PX = 0.5
"""Candidates are read with their sides moved out by half a pixel (see ``_identify``): finds 7 of
the 9 markers of ~17 px (1.2 px/mm) that ArUco reads and reading on the contour itself missed."""

RETRY_GROW_PX = (0.0, 1.0)
RETRY_BELOW_PX = 4 * 7 * 2.5
"""Squares with a marker's border whose bits name no code, smaller than this perimeter (cells under
2.5 px: 1.0–1.2 px/mm), are read again with their sides moved out by each of these instead of
``GROW_PX`` (``MarkerFinder._identify``); a read counts only if it matches a code exactly."""

CELL_MARGIN = 0.13
"""ArUco's perspectiveRemoveIgnoredMarginPerCell: the edge of each cell is not sampled."""

SAMPLES = 3
"""Samples per cell side (bilinear: each one mixes four pixels)."""

MIN_STD = 5.0
"""ArUco's minOtsuStdDev: a candidate whose samples vary less is one flat colour, not a marker."""

MIN_CELL_RANGE = 40
"""Grey levels between the darkest and brightest centre of a candidate's 49 cells below which it is
one flat colour and is dropped before its full grid is sampled (``_varied``: one sample a cell, a
ninth of the cost). A patterned tablecloth's dark checks are squares: at 1.0 px/mm 84 % of its
frame's 2,426 candidates (three windows) span under 40, while the markers read on the cached bench
frames span ≥ 124 (a dim room's; 140–230 on the others measured), and all 365 cached bench tables
read the same markers with the drop as without (issue 24)."""

BORDER_ERRORS = 3
"""Border cells (of 24) that may read white. ArUco allows 8 (maxErroneousBitsInBorderRate 0.35);
3 keeps every marker ArUco reads on the synthetic frames and drops more blots before the lookup."""

MAX_CORRECTION = int(DICTIONARY.maxCorrectionBits * 0.6)
"""ArUco's errorCorrectionRate 0.6 of the dictionary's 2 correctable bits: 1 bit."""

SHARPEN_SIGMA = 1.0
SHARPEN_AMOUNT = 1.0
"""Markers are searched on the frame sharpened by an unsharp mask (frame + amount · (frame − its
Gaussian blur of this sigma)): a lens focused elsewhere, a little shake or a soft webcam round a
marker's cells into each other, and the mask steepens them again. On the conditions bench (quick, at
1.2/1.4/2.0 px/mm, 2026-11-24) it found every card it found before and 9 more of 120 at 1.4 px/mm
with 3 px of motion blur (92.5 → 100 %) and 2 more of 95 with a 45° camera's shallow focus (97.9 →
100 %), with 0 duplicates and 0 misidentified in every condition, for ~4 ms a 1080p frame."""

MIN_MARKER_DISTANCE = 0.125
"""ArUco's minMarkerDistanceRate: squares whose centres are closer than this share of the larger
one's perimeter are one marker (an inner and outer contour, or one found by several thresholds)."""


def _codes() -> np.ndarray:
    """(1000 × 4,) int64: each marker's 25 inner bits as read in each of its four quarter turns."""
    weights = (1 << np.arange(BITS * BITS, dtype=np.int64)).reshape(BITS, BITS)
    out = np.zeros((len(DICTIONARY.bytesList), 4), np.int64)
    for marker in range(len(DICTIONARY.bytesList)):
        bits = cv2.aruco.Dictionary.getBitsFromByteList(DICTIONARY.bytesList[marker:marker + 1], BITS)
        for turn in range(4):
            out[marker, turn] = int((np.rot90(bits, turn).astype(np.int64) * weights).sum())
    return out.ravel()


CODES = _codes()


def _lookup() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted codes, their index in ``CODES``, whether read without a bit corrected): every code and
    every code one bit off it
    (``MAX_CORRECTION``). The dictionary's codes (all turns) lie ≥ 5 bits apart, so no read is
    within one bit of two of them: a sorted search finds what the nearest-code search over all
    4000 found, without an (N × 4000) distance table (~5 ms of CPU for the ~1000 squares of a
    tablecloth frame)."""
    assert MAX_CORRECTION <= 1
    flips = np.concatenate([[0], 1 << np.arange(BITS * BITS, dtype=np.int64)] if MAX_CORRECTION else [[0]])
    keys = np.bitwise_xor(CODES[:, None], flips[None, :]).ravel()
    index = np.repeat(np.arange(len(CODES)), len(flips))
    exact = np.tile(flips == 0, len(CODES))
    order = np.argsort(keys, kind="stable")
    assert len(np.unique(keys)) == len(keys), "codes closer than 2 · MAX_CORRECTION + 1 bits"
    return keys[order], index[order], exact[order]


def _sample_grid() -> np.ndarray:
    """(3, P) homogeneous sample points in cell units (0..7), ``SAMPLES``² per cell, cell by cell
    (row-major), so that each cell's samples lie together."""
    offsets = CELL_MARGIN + (np.arange(SAMPLES) + 0.5) / SAMPLES * (1 - 2 * CELL_MARGIN)
    row, col, sy, sx = np.meshgrid(np.arange(GRID), np.arange(GRID), offsets, offsets, indexing="ij")
    return np.stack([(col + sx).ravel(), (row + sy).ravel(), np.ones(row.size)])


_SAMPLE_GRID = _sample_grid()
_CODE_KEYS, _CODE_INDEX, _CODE_EXACT = _lookup()


def _homographies(quads: np.ndarray) -> np.ndarray:
    """(N, 3, 3): the 7 × 7 cell square (0..7) onto each quad's corners (N, 4, 2), solved together."""
    square = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], np.float64)
    n = len(quads)
    a = np.zeros((n, 8, 8))
    b = np.zeros((n, 8))
    for j, (x, y) in enumerate(square):
        u, v = quads[:, j, 0], quads[:, j, 1]
        a[:, 2 * j, 0:3] = (x, y, 1)
        a[:, 2 * j, 6], a[:, 2 * j, 7] = -x * u, -y * u
        a[:, 2 * j + 1, 3:6] = (x, y, 1)
        a[:, 2 * j + 1, 6], a[:, 2 * j + 1, 7] = -x * v, -y * v
        b[:, 2 * j], b[:, 2 * j + 1] = u, v
    h = np.linalg.solve(a, b[..., None])[..., 0]
    return np.concatenate([h, np.ones((n, 1))], axis=1).reshape(n, 3, 3)


def _otsu_rows(values: np.ndarray) -> np.ndarray:
    """Otsu's threshold of each row of ``values`` (N, K): the split with the largest between-class
    variance, midway between the two values it falls between."""
    ordered = np.sort(values, axis=1)
    n, k = ordered.shape
    cumulative = np.cumsum(ordered, axis=1)
    below = np.arange(1, k)
    w0 = below / k
    m0 = cumulative[:, :-1] / below
    m1 = (cumulative[:, -1:] - cumulative[:, :-1]) / (k - below)
    best = (w0 * (1 - w0) * (m0 - m1) ** 2).argmax(axis=1)
    rows = np.arange(n)
    return (ordered[rows, best] + ordered[rows, best + 1]) / 2


def _perimeters(quads: np.ndarray) -> np.ndarray:
    sides = np.roll(quads, -1, axis=1) - quads
    return np.sqrt((sides ** 2).sum(axis=2)).sum(axis=1)


def _compact(contours: list[np.ndarray], lengths: np.ndarray) -> np.ndarray:
    """Which contours enclose enough area for their length to be a square's outline
    (``MIN_COMPACTNESS``), all at once: the shoelace area of every contour from one array, so that
    the grain's streaks, a weave's threads and printed strokes skip ``cv2.approxPolyDP``."""
    points = np.concatenate(contours).reshape(-1, 2).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    following = np.roll(points, -1, axis=0)
    following[starts + lengths - 1] = points[starts]        # each contour closes on its own first point
    cross = points[:, 0] * following[:, 1] - points[:, 1] * following[:, 0]
    area = np.abs(np.add.reduceat(cross, starts)) / 2
    return 4 * np.pi * area >= MIN_COMPACTNESS * lengths.astype(np.float64) ** 2


def _without_specks(binary: np.ndarray) -> np.ndarray:
    """``binary`` (0/255) without the blobs that fit in a 3 × 3 px square with nothing set in the
    1 px ring round it. Such a blob is a whole 8-connected component of at most 9 px (its outline at
    most 16 contour points, far under ``MIN_PERIMETER_PX``), and dropping a whole component leaves
    every other component's contours and their ``RETR_CCOMP`` levels as they were: the quads found
    are the same (checked on every cached surface and conditions frame)."""
    ones = cv2.threshold(binary, 0, 1, cv2.THRESH_BINARY)[1]
    core = cv2.boxFilter(ones, -1, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
    around = cv2.boxFilter(ones, -1, (5, 5), normalize=False, borderType=cv2.BORDER_CONSTANT)
    # an empty ring (5 × 5 sum equal to the 3 × 3 core's) round a core with something in it
    alone = cv2.bitwise_and(cv2.compare(around, core, cv2.CMP_EQ), cv2.compare(core, 0, cv2.CMP_GT))
    speck = cv2.dilate(alone, np.ones((3, 3), np.uint8))
    return cv2.bitwise_and(binary, cv2.bitwise_not(speck))


_CELL_CENTRES = np.stack([np.tile(np.arange(GRID) + 0.5, GRID), np.repeat(np.arange(GRID) + 0.5, GRID),
                          np.ones(GRID * GRID)])


def _varied(grey: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Which quads (N, 4, 2) are not one flat colour: their cells' centres span ``MIN_CELL_RANGE``."""
    points = _homographies(quads) @ _CELL_CENTRES                      # (N, 3, 49)
    xy = (points[:, :2] / points[:, 2:]).astype(np.float32)
    centres = cv2.remap(grey, xy[:, 0], xy[:, 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return (centres.max(axis=1).astype(np.int16) - centres.min(axis=1)) >= MIN_CELL_RANGE


def _samples(grey: np.ndarray, quads: np.ndarray, grow_px: float) -> np.ndarray:
    """(N, P) float32: ``SAMPLES``² samples of every cell of each quad's 7 × 7 grid, cell by cell,
    with its sides moved out by ``grow_px``."""
    # the contour runs through the centres of the border's outermost dark pixels: its true
    # outline lies half a pixel further out (``GROW_PX``: on a 17 px marker its far cells
    # would be read 6 % of the marker off)
    centre = quads.mean(axis=1, keepdims=True)
    away = quads - centre
    grown = centre + away * (1 + grow_px * np.sqrt(2) / np.linalg.norm(away, axis=2, keepdims=True))
    points = _homographies(grown) @ _SAMPLE_GRID                       # (N, 3, P)
    map_x = (points[:, 0] / points[:, 2]).astype(np.float32)
    map_y = (points[:, 1] / points[:, 2]).astype(np.float32)
    return cv2.remap(grey, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def cell_means(grey: np.ndarray, quads: np.ndarray, grow_px: float) -> np.ndarray:
    """(N, 7, 7): the mean brightness of every cell of each quad's grid (``_samples``)."""
    return _means(_samples(grey, quads, grow_px))


def _means(samples: np.ndarray) -> np.ndarray:
    """(N, 7, 7): each cell's mean of ``_samples``' (N, P) samples."""
    n = len(samples)
    return samples.reshape(n, GRID * GRID, SAMPLES * SAMPLES).mean(axis=2).reshape(n, GRID, GRID)


def _bits(grey: np.ndarray, quads: np.ndarray, grow_px: float) -> tuple[np.ndarray, np.ndarray]:
    """(looks like a marker, its 25 inner bits as a code) of each quad (N, 4, 2), read with its sides
    moved out by ``grow_px``: the cells' means split by Otsu's rule; a marker varies (``MIN_STD``)
    and has at most ``BORDER_ERRORS`` white border cells."""
    samples = _samples(grey, quads, grow_px)
    n = len(quads)
    cells = _means(samples)
    white = cells > _otsu_rows(cells.reshape(n, -1))[:, None, None]
    border = white.copy()
    border[:, 1:-1, 1:-1] = False
    marker = (samples.std(axis=1) >= MIN_STD) & (border.sum(axis=(1, 2)) <= BORDER_ERRORS)
    codes = white[:, 1:-1, 1:-1].reshape(n, -1).astype(np.int64) @ (1 << np.arange(BITS * BITS, dtype=np.int64))
    return marker, codes


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def pool() -> ThreadPoolExecutor:
    """The worker threads every finder (and the pipeline's QR scan) shares. Its jobs never wait for
    other jobs, so pipelines in several threads share it without deadlock."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(THREADS, thread_name_prefix="markers")
        return _POOL


def candidate_mask(grey: np.ndarray) -> np.ndarray:
    """Where in ``grey`` a marker's outline may lie (255) or not (0): the local contrast rule of
    ``CONTRAST_SHARE`` on the frame halved, grown by one of its px, back at full size."""
    h, w = grey.shape[:2]
    half = cv2.resize(grey, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
    square = np.ones((3, 3), np.uint8)
    brightest = cv2.dilate(half, square)
    contrast = cv2.subtract(brightest, cv2.erode(half, square))
    wanted = cv2.max(cv2.multiply(brightest, CONTRAST_SHARE), CONTRAST_MIN)
    mask = cv2.dilate(cv2.compare(contrast, wanted, cv2.CMP_GT), square)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_NEAREST)


def _near_edges(where: np.ndarray) -> np.ndarray:
    """``where`` (``candidate_mask``) only within ``FINE_EDGE_PX`` of the image's edges."""
    near = where.copy()
    h, w = near.shape[:2]
    if h > 2 * FINE_EDGE_PX and w > 2 * FINE_EDGE_PX:
        near[FINE_EDGE_PX:h - FINE_EDGE_PX, FINE_EDGE_PX:w - FINE_EDGE_PX] = 0
    return near


def unsharp_masked(grey: np.ndarray) -> np.ndarray:
    """``grey`` through the unsharp mask the markers are searched on (``SHARPEN_SIGMA``)."""
    if not SHARPEN_AMOUNT:
        return grey
    soft = cv2.GaussianBlur(grey, (0, 0), SHARPEN_SIGMA)
    return cv2.addWeighted(grey, 1 + SHARPEN_AMOUNT, soft, -SHARPEN_AMOUNT, 0)


Doubtful = tuple[np.ndarray, np.ndarray]
"""Small squares with a marker's border that the hard read did not name exactly: their corners
(K, 4, 2) and the index into ``CODES`` of the code named with a bit corrected, or -1."""


SecondRead = Callable[[np.ndarray, list, "frozenset[int] | None"], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``MarkerFinder``'s second reader: (grey, every threshold's ``_identify``, ids in play) -> (ids,
corners, exact) of the doubtful squares it names."""


def turned(quads: np.ndarray, code_index: np.ndarray) -> np.ndarray:
    """The quads' corners rolled so that each marker's top-left comes first, from the index into
    ``CODES`` each was read as: cells read turned by k quarter turns put its first corner k on."""
    # corner j of the result is corner (j - turns) mod 4 of the quad: np.roll for every quad at once
    take = (np.arange(4)[None, :] - np.asarray(code_index)[:, None] % 4) % 4             # (N, 4)
    return np.take_along_axis(quads.reshape(-1, 4, 2), take[:, :, None], axis=1)


class MarkerFinder:
    """Finds DICT_5X5_1000 markers in grey images: ``find(grey) -> [(marker id, (4, 2) corners)]``
    with corners in OpenCV's order (the marker's top-left first, clockwise)."""

    def __init__(self, windows: tuple[tuple[int, float], ...] = WINDOWS, threads: bool = True,
                 markers: frozenset[int] | None = None, second_read: SecondRead | None = None) -> None:
        """``second_read``: the second reader of the small squares the bits did not name exactly
        (``vision.reading.soft.second_read``; without it they stay unread); ``markers``: the ids
        that may lie on the table, when known (it then looks further only at squares one of them
        fits)."""
        self.windows = windows
        self.threads = threads
        self.markers = markers
        self.second_read = second_read

    def find(self, grey: np.ndarray, small: bool = True, large: bool = False) -> list[tuple[int, np.ndarray]]:
        """Every marker in ``grey`` (uint8, one channel); ``small=False`` when every marker is known
        to be larger than ~19 px (the table seen at 1.35 px/mm or more): ``SMALL_ONLY`` windows fewer;
        ``large=True`` when every marker is larger than ~24 px (1.6 px/mm): ``FINE_ONLY``'s windows only near
        the image's edges (``FINE_EDGE_PX``)."""
        return [(marker, corners) for marker, corners, _ in self.reads(grey, small, large)]

    def searched(self, small: bool = True, large: bool = False) -> tuple[tuple[int, float], ...]:
        """The windows ``reads`` searches the whole image with for these sizes of marker (``find``); at
        least one."""
        windows = self.windows if small or len(self.windows) <= SMALL_ONLY else self.windows[:-SMALL_ONLY]
        if large:
            coarse = tuple(w for w in windows if w not in WINDOWS[:FINE_ONLY])
            windows = coarse or windows
        return windows

    def reads(self, grey: np.ndarray, small: bool = True, large: bool = False) -> list[tuple[int, np.ndarray, bool]]:
        """``find``'s markers, each with whether it was read beyond doubt: its bits matched its code
        exactly (no bit corrected), or a coarse one was named by the second reader (``vision.reading.soft``)."""
        windows = self.searched(small, large)
        # searched and read on the sharpened frame, corners refined on the frame itself (the mask's
        # overshoot would pull them)
        if self.threads:
            # the mask on another core while this one sharpens (each ~1.7 ms a 1080p frame)
            masked = pool().submit(candidate_mask, grey)
            sharp = unsharp_masked(grey)
            where = masked.result()
        else:
            sharp, where = unsharp_masked(grey), candidate_mask(grey)
        searches = [(w, c, where) for w, c in windows]
        left_out = [w for w in self.searched(small) if w not in windows]
        if left_out:
            # a marker cut by the image's edge: the larger windows' means repeat its border there
            near = _near_edges(where)
            searches += [(w, c, near) for w, c in left_out]
        if self.threads and len(searches) > 1:
            # the others in the pool while this thread searches the first (the costliest)
            jobs = [pool().submit(self._markers, sharp, *search) for search in searches[1:]]
            found = [self._markers(sharp, *searches[0])] + [job.result() for job in jobs]
        else:
            found = [self._markers(sharp, *search) for search in searches]
        return self._refine(grey, *found, self._second_read(sharp, found))

    def _markers(self, grey: np.ndarray, window: int, constant: float,
                 where: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, Doubtful]:
        """(ids, corners, exact, doubtful) of the markers one threshold shows (several per marker,
        unrefined; ``_identify``)."""
        return self._identify(grey, self._candidates(grey, self._quads(grey, window, constant, where)))

    # --- 1. candidates ---------------------------------------------------------------------------
    @staticmethod
    def _quads(grey: np.ndarray, window: int, constant: float, where: np.ndarray | None = None) -> np.ndarray:
        """Convex four-cornered outer contours of one adaptive threshold (N, 4, 2), followed only
        inside ``where`` (``candidate_mask``) when given."""
        # cv2.adaptiveThreshold(MEAN_C, BINARY_INV), in two faster steps: dark = below the local mean
        mean = cv2.blur(grey, (window, window), borderType=cv2.BORDER_REPLICATE)
        binary = cv2.compare(grey, cv2.subtract(mean, constant), cv2.CMP_LE)
        if where is not None:
            cv2.bitwise_and(binary, where, dst=binary)
        if window <= DESPECK_UPTO_WINDOW and where is not None and \
                cv2.countNonZero(where) > DESPECK_ABOVE_SHARE * where.size:
            binary = _without_specks(binary)
        contours, hierarchy = cv2.findContours(binary, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
        if not contours:
            return np.zeros((0, 4, 2))
        lengths = np.fromiter(map(len, contours), np.int32, len(contours))
        # a marker's black border is the outside of a dark blob: holes are never markers
        keep = np.flatnonzero((lengths >= MIN_PERIMETER_PX) & (lengths <= MAX_PERIMETER_PX) & (hierarchy[0][:, 3] < 0))
        if len(keep) == 0:
            return np.zeros((0, 4, 2))
        keep = keep[_compact([contours[i] for i in keep], lengths[keep])]
        out = []
        for i in keep:
            corners = cv2.approxPolyDP(contours[i], float(lengths[i]) * APPROX_RATE, True)
            if len(corners) == 4 and cv2.isContourConvex(corners):
                out.append(corners.reshape(4, 2))
        return np.array(out, np.float64).reshape(-1, 4, 2)

    @staticmethod
    def _candidates(grey: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """ArUco's rules on the quads: no side shorter than 5 % of the perimeter, no corner near the
        image edge; corners ordered clockwise (image y down)."""
        if len(quads) == 0:
            return quads
        sides = ((np.roll(quads, -1, axis=1) - quads) ** 2).sum(axis=2)
        quads = quads[sides.min(axis=1) >= (_perimeters(quads) * MIN_CORNER_RATE) ** 2]
        d1, d2 = quads[:, 1] - quads[:, 0], quads[:, 2] - quads[:, 0]
        anticlockwise = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0] < 0
        quads[anticlockwise] = quads[anticlockwise][:, [0, 3, 2, 1]]
        h, w = grey.shape[:2]
        inside = (quads[..., 0].min(axis=1) >= BORDER_PX) & (quads[..., 1].min(axis=1) >= BORDER_PX) & \
            (quads[..., 0].max(axis=1) <= w - 1 - BORDER_PX) & (quads[..., 1].max(axis=1) <= h - 1 - BORDER_PX)
        return quads[inside]

    # --- 2. and 3. bits and identity ---------------------------------------------------------------
    @staticmethod
    def _identify(grey: np.ndarray, quads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Doubtful]:
        """(ids, corners turned so the marker's top-left comes first, read without a bit corrected,
        the small squares with a marker's border not read exactly: ``Doubtful``) of the quads."""
        if len(quads):
            quads = quads[_varied(grey, quads)]
        if len(quads) == 0:
            return np.zeros(0, np.int64), quads, np.zeros(0, bool), (quads, np.zeros(0, np.int64))
        marker, codes = _bits(grey, quads, GROW_PX)
        at = np.minimum(np.searchsorted(_CODE_KEYS, codes), len(_CODE_KEYS) - 1)
        found = marker & (_CODE_KEYS[at] == codes)
        best, exact = _CODE_INDEX[at], _CODE_EXACT[at] & found
        # a small square with a marker's border whose bits name no code: its grid may sit a fraction
        # of a cell off (2 px cells at 1.0 px/mm); read again with its sides where the contour ran
        # and a pixel further out, and taken only if a read matches a code exactly
        again = np.flatnonzero(marker & ~found & (_perimeters(quads) < RETRY_BELOW_PX))
        for grow in RETRY_GROW_PX:
            if len(again) == 0:
                break
            ok, retry = _bits(grey, quads[again], grow)
            at = np.minimum(np.searchsorted(_CODE_KEYS, retry), len(_CODE_KEYS) - 1)
            hit = ok & (_CODE_KEYS[at] == retry) & _CODE_EXACT[at]
            found[again[hit]], exact[again[hit]], best[again[hit]] = True, True, _CODE_INDEX[at[hit]]
            again = again[~hit]
        doubtful = np.flatnonzero(marker & ~exact & (_perimeters(quads) < RETRY_BELOW_PX))
        keep = np.flatnonzero(found)
        return best[keep] // 4, turned(quads[keep], best[keep]), exact[keep], \
            (quads[doubtful], np.where(found[doubtful], best[doubtful], -1))

    def _second_read(self, grey: np.ndarray, found: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ids, corners, exact) of the doubtful squares of every threshold's ``_identify`` that the
        second reader names beyond doubt (none without one)."""
        if self.second_read is None:
            return np.zeros(0, np.int64), np.zeros((0, 4, 2)), np.zeros(0, bool)
        return self.second_read(grey, found, self.markers)

    # --- 4. one per marker, refined ----------------------------------------------------------------
    @staticmethod
    def _refine(grey: np.ndarray, *found: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[tuple[int, np.ndarray, bool]]:
        """One (id, refined corners, exact) per marker from every threshold's ``_identify``: exact
        when any read of it in the group matched its code without a bit corrected."""
        ids = np.concatenate([f[0] for f in found])
        quads = np.concatenate([f[1] for f in found])
        exact = np.concatenate([f[2] for f in found])
        if len(ids) == 0:
            return []
        perimeter = _perimeters(quads)
        centres = quads.mean(axis=1)
        taken = np.zeros(len(ids), bool)
        kept = []
        exact_kept = []
        for i in np.argsort(-perimeter, kind="stable"):
            if not taken[i]:
                group = ~taken & (np.linalg.norm(centres - centres[i], axis=1) < perimeter[i] * MIN_MARKER_DISTANCE)
                exact_kept.append(bool((exact & group & (ids == ids[i])).any()))
                taken |= group
                kept.append(i)
        quads, ids, perimeter = quads[kept].copy(), ids[kept], perimeter[kept]
        # ArUco's window is 0.3 of a cell, at most 3 (cornerRefinementWinSize), at least 1: on our
        # markers of 2.5–4 px cells that is 1 (3 × 3 px), which barely moves the contour's corner
        # (0.56 px inside the true corner on average, 1.04 px RMS about that on rendered tables);
        # 2 (5 × 5 px) brings it to 0.36 px and 0.80 px RMS (measured)
        windows = np.clip(np.round(0.3 * perimeter / (4 * GRID)), 2, 3).astype(int)
        criteria = (cv2.TERM_CRITERIA_MAX_ITER | cv2.TERM_CRITERIA_EPS, 30, 0.1)
        for win in sorted(set(windows.tolist())):
            chosen = np.flatnonzero(windows == win)
            pts = quads[chosen].astype(np.float32).reshape(-1, 1, 2)
            cv2.cornerSubPix(grey, pts, (int(win), int(win)), (-1, -1), criteria)
            quads[chosen] = pts.reshape(-1, 4, 2)
        return [(int(m), q, e) for m, q, e in zip(ids, quads, exact_kept)]
