"""The one font every printed page uses: IPAex Gothic, embedded as a subset (Latin and Japanese)."""
from __future__ import annotations

import os
from functools import cache

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

FONT = "IPAexGothic"
FONT_PATHS = (
    "/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf",   # Debian fonts-ipaexfont-gothic
    "/usr/share/fonts/truetype/ipaexfont-gothic/ipaexg.ttf",
    "/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",     # Debian's alternatives link to it
)
"""Where Debian puts the font; ``TC_FONT`` in the environment names another TrueType file."""


class FontMissing(RuntimeError):
    """The Japanese print font is not installed."""


@cache
def register_font() -> str:
    """Register the embedded TrueType font with ReportLab once and return its name."""
    candidates = [os.environ["TC_FONT"]] if os.environ.get("TC_FONT") else list(FONT_PATHS)
    for path in candidates:
        if os.path.isfile(path):
            pdfmetrics.registerFont(TTFont(FONT, path))
            return FONT
    raise FontMissing(
        "the Japanese print font IPAex Gothic is missing (looked for "
        f"{', '.join(candidates)}): install it with `sudo apt-get install fonts-ipaexfont-gothic` "
        "(or set TC_FONT to a TrueType .ttf file with Japanese glyphs), then run this again")


def text_width(text: str, size: float) -> float:
    """Width of ``text`` at font size ``size`` (same unit as ``size``)."""
    return pdfmetrics.stringWidth(text, register_font(), size)
