"""Printables: print-ready PDFs of every deck, token, sticker and the calibration sheet.

Python API (small on purpose):

* ``build(target, players=None, paper="a4", bleed=3.0, out=None, single=False) -> Printed`` writes
  one target's PDF (``wheel``, ``hills``, ``spartacus``, ``prussia``, ``chains``, ``tokens``,
  ``stickers``); ``single``: one card a page with TrimBox and BleedBox, for print services.
* ``render_card_png(card_id, px_per_mm=8.0)`` and ``render_back_png(back_id, px_per_mm=8.0)``
  rasterise one card face or deck back (BGR numpy image, OpenCV order) from the very drawing code
  of the printed sheets, through the PDF and pypdfium2, for vision's synthetic camera frames;
  ``render_calibration_png(px_per_mm=4.0, paper="a4")`` the whole calibration page (K-CAL1's
  outer corner at ``calibration_origin(paper)`` mm).

Where the markers and the QR code sit on a card is in ``companion.catalogue``
(``marker_rects``, ``qr_rect``, ``card_size_mm``, ``calibration_marker_rects``).
"""
from printables.fonts import FontMissing
from printables.raster import render_back_png, render_calibration_png, render_card_png
from printables.sheets import PrintError, Printed, build, calibration_origin

__all__ = ["FontMissing", "PrintError", "Printed", "build", "calibration_origin", "render_back_png",
           "render_calibration_png", "render_card_png"]
