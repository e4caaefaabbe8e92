"""A coarse square named by its card's own QR code: the marker a code in play nearly fits, checked.

At ~1.0 px/mm a 15 mm marker has cells of ~2 px; in a dim room's noise or through a smear some
lone markers are found as squares that neither the bits nor the second readers (``soft``,
``smeared``) name beyond doubt (a fit of 0.85–0.90, a margin under their thresholds). The card's
QR code (42 mm, 21 modules: ~2 px a module at 1.0 px/mm) is too coarse for the frame's QR scan, but
a crop of it rectified and upscaled (cubic) from the card's pose is often read by zxing-cpp.

So a square that the codes in play fit fairly well (``GATE``) is taken as a hypothesis: the card of
its best-fitting code, lying as that marker says (a card's two markers see it extend the same way,
``companion.catalogue.marker_rects``). Its QR code is read on a crop rectified from that pose; the
square counts as that marker only when the code names exactly that card and puts one of its
markers where the square is (``TOLERANCE_MM``): a square and a QR code that agree on one card's
identity and pose. A QR code names its card beyond doubt (its own error correction), so no fit
threshold is needed beyond the gate that keeps the tries few (``MAX_TRIES``).

Measured on the cached frames of the conditions bench (17 conditions × 5 games at 1.0 and 1.1
px/mm) and the surfaces bench (1.0, 1.2 px/mm), every square a code in play fits ≥ 0.5, ids
already read included (docs/figures.md, issue 24 round 6): of 12,203 tries, 9,496 were no marker of
the card named (QR finder patterns, print, objects, other cards' markers): none read that card's QR
code but 9 pictures of it on a screen (``vision.reading.plane`` tells those); 3 crops read another
card's code or a foreign one, refused. 1,130 of the 2,707 true markers read their card's code,
1,031 of them within ``TOLERANCE_MM``.

It runs after ``soft`` (or ``smeared``), in the same finder call, only on places they left unnamed
and only for ids not read in that look, on the same squares and cells (``soft.doubtful``, worked
out once and handed to both).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from companion import catalogue as cat
from vision.reading import markers as M
from vision.reading import soft
from vision.reading.detect import rigid_fit
from vision.table.calibrate import rect_corners

GATE = 0.75
"""Only squares that ``soft``'s model of a code in play fits this well are tried."""

MAX_TRIES = 8
"""At most this many squares a finder call are tried (the best-fitting first); ~1–1.5 ms each. On
the cached conditions frames at 1.0 px/mm a look has 0–4 such squares, at most 11."""

PX_PER_MM = (3.0, 6.0)
"""The QR crop is rectified (cubic) at each of these resolutions until one reads."""

PAD_MM = 8.0
"""Paper round the QR code kept in the crop: its 4 mm quiet zone and the pose's error."""

TOLERANCE_MM = 3.0
"""The square's corners must lie within this of where the QR code's pose puts one of the card's
markers, turned as printed (a fifth of the marker: the nearest square of its size on the face, the
code's own finder pattern, lies 21 mm from a marker's place). True markers whose card's code was
read lie a median 1.7 mm off (90 % within 2.8 mm, measured)."""


def card_to_image(card_id: str, corners: np.ndarray) -> np.ndarray:
    """3 × 3: card mm -> image px, from one of its markers read at ``corners`` (4, 2; its top-left
    first). Either marker gives the same (the bottom-right one is printed turned 180°)."""
    return rigid_fit(rect_corners(cat.marker_rects(card_id)[0]), corners, scale=True)


def read_qr(grey: np.ndarray, card_id: str, to_image: np.ndarray, decode) -> np.ndarray | None:
    """(3 × 3: card mm -> image px, from the code's own corners) when a QR code naming ``card_id``
    is read on a crop of ``grey`` rectified where ``to_image`` puts that card's code, else None."""
    rect = cat.qr_rect(card_id)
    for ppm in PX_PER_MM:
        size = int(round((rect.w + 2 * PAD_MM) * ppm))
        s = 1.0 / ppm
        crop_to_image = to_image @ np.array([[s, 0, rect.x - PAD_MM], [0, s, rect.y - PAD_MM], [0, 0, 1]])
        crop = cv2.warpPerspective(grey, crop_to_image, (size, size), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
        for payload, pts in decode(crop):
            try:
                card = cat.parse(payload)
            except cat.PayloadError:
                continue
            if card.id == card_id:
                seen = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), crop_to_image).reshape(4, 2)
                # the symbol's corners in its own orientation: printed upright on the card
                return cv2.getPerspectiveTransform(rect_corners(rect).astype(np.float32), seen.astype(np.float32))
    return None


def agrees(card_id: str, corners: np.ndarray, to_image: np.ndarray) -> bool:
    """Whether a marker read at ``corners`` (4, 2 px, its top-left first) lies where ``to_image``
    (the card's QR code's pose) puts one of ``card_id``'s markers, turned as printed, to within
    ``TOLERANCE_MM``."""
    px_per_mm = math.sqrt(abs(np.linalg.det(to_image[:2, :2] / to_image[2, 2])))
    for rect in cat.marker_rects(card_id):
        at = cv2.perspectiveTransform(rect_corners(rect).reshape(-1, 1, 2), to_image).reshape(4, 2)
        if np.linalg.norm(at - corners, axis=1).max() <= TOLERANCE_MM * px_per_mm:
            return True
    return False


def _zxing(crop: np.ndarray) -> list[tuple[str, np.ndarray]]:
    import zxingcpp
    out = []
    for r in zxingcpp.read_barcodes(crop, formats=zxingcpp.BarcodeFormat.QRCode, try_invert=False):
        p = r.position
        out.append((r.text, np.array([[q.x, q.y] for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)],
                                     np.float64)))
    return out


def second_read(grey: np.ndarray, found: list, markers: frozenset[int] | None,
                first: soft.Reader) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``first`` (``soft`` or ``smeared``), then the places it left unnamed that a code in play fits
    ``GATE`` and whose card's QR code confirms it (``confirmed``): (ids, corners, exact) of both,
    all exact."""
    squares = soft.doubtful(grey, found)
    ids, corners, exact = first(grey, found, markers, squares)
    if markers is None:
        return ids, corners, exact
    got = [(marker, turned) for _, marker, card_id, turned in hypotheses(markers, ids, found, squares)[:MAX_TRIES]
           if confirmed(grey, card_id, turned)]
    if not got:
        return ids, corners, exact
    return np.concatenate([ids, [g[0] for g in got]]).astype(np.int64), \
        np.concatenate([corners.reshape(-1, 4, 2), np.array([g[1] for g in got])]), np.ones(len(ids) + len(got), bool)


def hypotheses(markers: frozenset[int], named: np.ndarray, found: list, squares: soft.Squares
               ) -> list[tuple[float, int, str, np.ndarray]]:
    """(fit, marker id, card id, corners turned: its top-left first) of each place of ``found``'s
    doubtful squares (``squares``: ``soft.doubtful``'s) that a code in play fits ``GATE`` (its
    best-fitting square), the best first: not where a hard read named another id with a bit
    corrected, nor of an id read exactly in this look (by a threshold, or ``named`` by the second
    readers: that card is read)."""
    quads, place, corrected, cells = squares
    read = set(np.concatenate([f[0][f[2]] for f in found]).tolist()) | set(np.asarray(named).tolist())
    wanted = np.isin(soft._PRED_CODE // 4, np.fromiter(markers - read, np.int64))
    if len(quads) == 0 or not wanted.any():
        return []
    pred, code_of = np.ascontiguousarray(soft._PRED[:, wanted]), soft._PRED_CODE[wanted]
    fit = np.full(len(quads), -1.0)
    code = np.zeros(len(quads), np.int64)
    rows = np.arange(len(quads))
    for grown in cells:
        corr = soft._corr(grown, pred)
        best = corr.argmax(axis=1)
        top = corr[rows, best]
        better = top > fit
        fit[better], code[better] = top[better], code_of[best[better]]
    out = []
    for p in np.unique(place):
        mine = np.flatnonzero(place == p)
        i = mine[np.argmax(fit[mine])]
        marker = int(code[i] // 4)
        card = cat.by_marker(marker)
        if fit[i] < GATE or card is None or cat.qr_rect(card.id) is None or (corrected[p] and corrected[p] != {marker}):
            continue
        out.append((float(fit[i]), marker, card.id, M.turned(quads[i:i + 1], code[i:i + 1])[0]))
    return sorted(out, key=lambda h: -h[0])


def confirmed(grey: np.ndarray, card_id: str, corners: np.ndarray) -> bool:
    """Whether the square at ``corners`` (its top-left first) is ``card_id``'s marker: that card's
    QR code, read where the square puts it, names it and puts one of its markers there."""
    # the contour runs half a pixel inside the marker's outline (``markers.GROW_PX``)
    centre = corners.mean(axis=0)
    away = corners - centre
    grown = centre + away * (1 + M.GROW_PX * math.sqrt(2) / np.linalg.norm(away, axis=1))[:, None]
    pose = read_qr(grey, card_id, card_to_image(card_id, grown), _zxing)
    return pose is not None and agrees(card_id, corners, pose)


def reader(first: soft.Reader) -> M.SecondRead:
    """``first`` followed by this reader, for ``markers.MarkerFinder``."""
    def read(grey: np.ndarray, found: list, markers: frozenset[int] | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return second_read(grey, found, markers, first)
    return read
