"""Single cards rasterised from the same drawing code as the printed sheets (for vision's
synthetic camera frames and for previews)."""
from __future__ import annotations

import io
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from companion import catalogue as cat
from printables.faces import DEFAULT_FACES, draw_back, draw_face, draw_pawn
from printables.fonts import register_font


@lru_cache(maxsize=1024)
def card_pdf(card_id: str, side: str = "face", faces: str = DEFAULT_FACES) -> bytes:
    """A one-page PDF exactly the size of one card's face (or back), nothing around it; ``faces``:
    the face design ("art", "plain" or "colour", ``faces.FACES``)."""
    if side not in ("face", "back"):
        raise ValueError(f"side must be 'face' or 'back', not {side!r}")
    cat.card(card_id)   # unknown ids fail here with the catalogue's message
    w, h = cat.card_size_mm(card_id)
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(w * mm, h * mm), initialFontName=register_font(), pageCompression=1)
    c.translate(0, h * mm)
    c.scale(mm, -mm)
    if card_id == "W-PAWN":
        draw_pawn(c)
    elif side == "back":
        draw_back(c, card_id, faces=faces)
    else:
        draw_face(c, card_id, faces=faces)
    c.showPage()
    c.save()
    return buf.getvalue()


@lru_cache(maxsize=4)
def calibration_pdf(paper: str = "a4") -> bytes:
    """The calibration sheet alone, as a one-page PDF."""
    from printables.sheets import PAPERS, draw_calibration, unknown_paper
    if paper not in PAPERS:
        raise unknown_paper(paper)
    w, h = PAPERS[paper]
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(w * mm, h * mm), initialFontName=register_font(), pageCompression=1)
    draw_calibration(c, paper)
    c.save()
    return buf.getvalue()


PDFIUM = threading.Lock()
"""pdfium is not thread-safe (pypdfium2 says so): every use of it in this process holds this lock.
Without it the print page's front and back previews, fetched at once by the browser, crashed the
server (pdfium's own check, SIGTRAP in libpdfium.so), and the demo's camera renders cards meanwhile."""


def render_page(pdf: bytes | str | Path, index: int = 0, px_per_mm: float | None = None,
                width_px: int | None = None) -> np.ndarray:
    """Page ``index`` of a PDF (bytes or a path) as a BGR image, at ``px_per_mm`` or ``width_px``
    wide (give one of the two), under the ``PDFIUM`` lock."""
    if (px_per_mm is None) == (width_px is None):
        raise ValueError("render_page: give px_per_mm or width_px")
    with PDFIUM:
        doc = pdfium.PdfDocument(pdf)
        try:
            page = doc[index]
            scale = px_per_mm * 25.4 / 72 if px_per_mm is not None else width_px / page.get_size()[0]
            bitmap = page.render(scale=scale, draw_annots=False)
            return bitmap.to_numpy()[:, :, :3].copy()   # pdfium's byte order is BGR(A), as OpenCV's
        finally:
            doc.close()


def _to_image(pdf: bytes, px_per_mm: float) -> np.ndarray:
    image = render_page(pdf, 0, px_per_mm=px_per_mm)
    image.flags.writeable = False    # cached and shared: copy before drawing on it
    return image


@lru_cache(maxsize=512)
def _render(card_id: str, side: str, px_per_mm: float, faces: str = DEFAULT_FACES) -> np.ndarray:
    return _to_image(card_pdf(card_id, side, faces), px_per_mm)


def render_card_png(card_id: str, px_per_mm: float = 8.0, faces: str = DEFAULT_FACES) -> np.ndarray:
    """A card's face as an upright BGR ``uint8`` image (OpenCV order), about
    ``card_size_mm(card_id) × px_per_mm`` pixels, in the ``faces`` design ("art", "plain" or "colour");
    cached and read-only (copy it to draw on it)."""
    if px_per_mm <= 0:
        raise ValueError(f"px_per_mm must be positive, not {px_per_mm}")
    card = cat.card(card_id)
    if card.kind == "back":
        raise ValueError(f"{card_id} is a back: use render_back_png({card_id!r})")
    return _render(card_id, "face", float(px_per_mm), faces)


def render_back_png(back_id: str, px_per_mm: float = 8.0) -> np.ndarray:
    """A deck's back (``B-…``) as an upright BGR ``uint8`` image; cached and read-only."""
    if px_per_mm <= 0:
        raise ValueError(f"px_per_mm must be positive, not {px_per_mm}")
    if cat.card(back_id).kind != "back":
        raise ValueError(f"{back_id} is not a back: backs are {', '.join(cat.BACKS)}")
    return _render(back_id, "back", float(px_per_mm))


@lru_cache(maxsize=8)
def render_calibration_png(px_per_mm: float = 4.0, paper: str = "a4") -> np.ndarray:
    """The whole calibration page as a BGR ``uint8`` image; K-CAL1's outer corner is at
    ``sheets.calibration_origin(paper)`` mm and the markers at ``calibration_marker_rects()``."""
    if px_per_mm <= 0:
        raise ValueError(f"px_per_mm must be positive, not {px_per_mm}")
    return _to_image(calibration_pdf(paper), float(px_per_mm))
