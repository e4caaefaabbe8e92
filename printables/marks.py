"""Machine-readable marks drawn as vector shapes: QR codes, ArUco markers, colour symbols."""
from __future__ import annotations

import math
from functools import cache

import cv2
import numpy as np
import qrcode
from reportlab.pdfgen.canvas import FILL_EVEN_ODD, FILL_NON_ZERO, Canvas

from companion.catalogue import MARKER_BITS, QR_MODULES, Rect

SYMBOL_SHAPES = ("circle", "square", "triangle", "diamond", "star", "hexagon", "cross", "heart",
                 "bar", "ring", "flag", "hill", "pawn", "spade", "club")


@cache
def qr_matrix(payload: str) -> np.ndarray:
    """The dark modules (True) of the version-1, level-M QR code of ``payload``, without border."""
    qr = qrcode.QRCode(version=1, error_correction=qrcode.constants.ERROR_CORRECT_M, border=0)
    qr.add_data(payload)
    qr.make(fit=False)
    matrix = np.array(qr.get_matrix(), dtype=bool)
    assert matrix.shape == (QR_MODULES, QR_MODULES), payload
    return matrix


@cache
def marker_matrix(marker_id: int) -> np.ndarray:
    """The black cells (True) of a DICT_5X5_1000 marker, border included (7 × 7), from OpenCV."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000)
    image = cv2.aruco.generateImageMarker(dictionary, marker_id, MARKER_BITS, borderBits=1)
    return image < 128


def draw_cells(c: Canvas, cells: np.ndarray, rect: Rect) -> None:
    """Fill the True cells of a grid into ``rect`` (canvas units, y down) as one vector path.

    Runs of a row become one rectangle, each a hair taller than its row so that rows overlap and
    no rasteriser shows seams between them (0.3 % of a cell; far below print accuracy)."""
    if rect.rotation == 180:
        cells = np.rot90(cells, 2)
    rows, cols = cells.shape
    cw, ch = rect.w / cols, rect.h / rows
    path = c.beginPath()
    for r in range(rows):
        row = cells[r]
        col = 0
        while col < cols:
            if not row[col]:
                col += 1
                continue
            start = col
            while col < cols and row[col]:
                col += 1
            extra = ch * 0.003 if r + 1 < rows and cells[r + 1, start:col].any() else 0.0
            path.rect(rect.x + start * cw, rect.y + r * ch, (col - start) * cw, ch + extra)
    c.drawPath(path, stroke=0, fill=1, fillMode=FILL_NON_ZERO)


def draw_symbol(c: Canvas, shape: str, cx: float, cy: float, size: float) -> None:
    """Fill a colour-blind-safe symbol of ``size`` centred at (cx, cy), in canvas units with y down,
    with the current fill colour."""
    r = size / 2
    p = c.beginPath()
    if shape == "circle":
        p.circle(cx, cy, r)
    elif shape == "square":
        p.rect(cx - r * 0.88, cy - r * 0.88, r * 1.76, r * 1.76)
    elif shape == "triangle":
        _polygon(p, [(cx, cy - r), (cx + r, cy + r * 0.8), (cx - r, cy + r * 0.8)])
    elif shape == "diamond":
        _polygon(p, [(cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)])
    elif shape == "star":
        pts = []
        for i in range(10):
            rad = r if i % 2 == 0 else r * 0.42
            a = -math.pi / 2 + i * math.pi / 5
            pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a) + r * 0.08))
        _polygon(p, pts)
    elif shape == "hexagon":
        _polygon(p, [(cx + r * math.cos(a), cy + r * math.sin(a))
                     for a in (i * math.pi / 3 for i in range(6))])
    elif shape == "cross":
        t = r * 0.36
        _polygon(p, [(cx - t, cy - r), (cx + t, cy - r), (cx + t, cy - t), (cx + r, cy - t),
                     (cx + r, cy + t), (cx + t, cy + t), (cx + t, cy + r), (cx - t, cy + r),
                     (cx - t, cy + t), (cx - r, cy + t), (cx - r, cy - t), (cx - t, cy - t)])
    elif shape == "heart":
        p.moveTo(cx, cy + r)
        p.curveTo(cx - r * 0.3, cy + r * 0.6, cx - r * 1.05, cy + r * 0.1, cx - r * 0.95, cy - r * 0.35)
        p.curveTo(cx - r * 0.85, cy - r * 1.0, cx - r * 0.1, cy - r * 1.0, cx, cy - r * 0.45)
        p.curveTo(cx + r * 0.1, cy - r * 1.0, cx + r * 0.85, cy - r * 1.0, cx + r * 0.95, cy - r * 0.35)
        p.curveTo(cx + r * 1.05, cy + r * 0.1, cx + r * 0.3, cy + r * 0.6, cx, cy + r)
        p.close()
    elif shape == "spade":               # a heart upside down, on a flared stem
        p.moveTo(cx, cy - r)
        p.curveTo(cx - r * 0.3, cy - r * 0.6, cx - r * 1.0, cy - r * 0.2, cx - r * 0.9, cy + r * 0.25)
        p.curveTo(cx - r * 0.8, cy + r * 0.75, cx - r * 0.15, cy + r * 0.7, cx - r * 0.05, cy + r * 0.35)
        p.lineTo(cx - r * 0.3, cy + r)
        p.lineTo(cx + r * 0.3, cy + r)
        p.lineTo(cx + r * 0.05, cy + r * 0.35)
        p.curveTo(cx + r * 0.15, cy + r * 0.7, cx + r * 0.8, cy + r * 0.75, cx + r * 0.9, cy + r * 0.25)
        p.curveTo(cx + r * 1.0, cy - r * 0.2, cx + r * 0.3, cy - r * 0.6, cx, cy - r)
        p.close()
    elif shape == "club":                # three leaves on a flared stem
        for dx, dy in ((0.0, -0.5), (-0.5, 0.15), (0.5, 0.15)):
            p.circle(cx + dx * r, cy + dy * r, r * 0.42)
        _polygon(p, [(cx - r * 0.1, cy), (cx + r * 0.1, cy), (cx + r * 0.3, cy + r), (cx - r * 0.3, cy + r)])
    elif shape == "bar":
        p.rect(cx - r, cy - r * 0.3, 2 * r, r * 0.6)
    elif shape == "ring":
        p.circle(cx, cy, r)
        p.circle(cx, cy, r * 0.55)
        c.drawPath(p, stroke=0, fill=1, fillMode=FILL_EVEN_ODD)  # a hole in the middle
        return
    elif shape == "flag":
        p.rect(cx - r * 0.8, cy - r, r * 0.16, 2 * r)
        _polygon(p, [(cx - r * 0.64, cy - r), (cx + r, cy - r * 0.55), (cx - r * 0.64, cy - r * 0.1)])
    elif shape == "hill":
        _polygon(p, [(cx - r, cy + r * 0.7), (cx - r * 0.2, cy - r * 0.7), (cx + r * 0.25, cy - r * 0.05),
                     (cx + r * 0.5, cy - r * 0.35), (cx + r, cy + r * 0.7)])
    elif shape == "pawn":
        p.circle(cx, cy - r * 0.55, r * 0.32)
        _polygon(p, [(cx - r * 0.22, cy - r * 0.3), (cx + r * 0.22, cy - r * 0.3), (cx + r * 0.5, cy + r * 0.7),
                     (cx - r * 0.5, cy + r * 0.7)])
        p.rect(cx - r * 0.7, cy + r * 0.7, r * 1.4, r * 0.3)
    else:
        raise ValueError(f"unknown symbol {shape!r}: one of {', '.join(SYMBOL_SHAPES)}")
    c.drawPath(p, stroke=0, fill=1, fillMode=FILL_NON_ZERO)


def _polygon(p, points) -> None:
    p.moveTo(*points[0])
    for pt in points[1:]:
        p.lineTo(*pt)
    p.close()
