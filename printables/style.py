"""Each game's look: frame colour and pattern, title, emblem, and the vector drawings of both.

A deck must be told apart at arm's length and on a black-and-white print, so every game differs in
three ways at once: the frame's luminance (spread from dark to light), its pattern (stripes, waves,
cross-hatch, checks, chain links) and its emblem. Everything draws in millimetres, y down.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from reportlab.lib.colors import Color, HexColor
from reportlab.pdfgen.canvas import FILL_EVEN_ODD, Canvas

from companion import catalogue as cat


@dataclass(frozen=True)
class DeckStyle:
    """How one game's cards look: its frame, its title and its emblem."""

    game: str
    title: str        # English, on the frame's left bar and the back
    title_ja: str     # the game's own Japanese title, upright on the right bar and the back
    frame: str        # frame colour (hex); luminances are spread so greyscale prints differ
    ink: str          # a darker tone for the emblem and titles on white
    on_frame: str     # text on the frame: white on dark frames, ink on light ones
    pattern: str      # one of PATTERNS
    emblem: str       # one of EMBLEMS


STYLES: dict[str, DeckStyle] = {s.game: s for s in (
    # frame luminance (0.299 R + 0.587 G + 0.114 B, of 255): prussia 32, spartacus 71, wheel 111,
    # hills 181, chains 222; with their patterns, greyscale renders differ by ≥ 28 grey levels
    # (tests/printables/test_printables.py); tokens 104 are not a deck and never mixed with one
    DeckStyle("wheel", "Wheel of History", "歴史の車輪", "#a2632a", "#7a4a1a", "#ffffff", "stripes", "laurel"),
    DeckStyle("hills", "Seven Hills of Rome", "ローマ七丘", "#a6ca6e", "#4d7a1f", "#22330d", "waves", "hills"),
    DeckStyle("spartacus", "Spartacus", "スパルタクス", "#8b2c24", "#8b2c24", "#ffffff", "hatch", "gladius"),
    DeckStyle("prussia", "Prussia", "輪る七年戦争", "#112240", "#15294d", "#ffffff", "checks", "crown"),
    DeckStyle("chains", "Chains", "チェーンズ", "#d6e1e6", "#37505c", "#1c2b33", "links", "links"),
    DeckStyle("table", "Table Companion", "テーブル・コンパニオン", "#5f6b73", "#3d474e", "#ffffff", "dots", "pawn"),
)}
PATTERNS = ("stripes", "waves", "hatch", "checks", "links", "dots")
EMBLEMS = ("laurel", "hills", "gladius", "crown", "links", "pawn", "suits")
"""Spartacus has the gladiator's short sword (not a broken chain: Chains' emblem is chain links, and a
mixed pile of backs must be sorted by emblem too); ``suits`` is Prussia's playing-card back."""


def style_of(card_id: str) -> DeckStyle:
    """The style of the game a card (or back) belongs to."""
    card = cat.card(card_id)
    if card.kind != "back":
        return STYLES[card.game if card.game in STYLES else "table"]
    prefix = {"B-WHEEL": "wheel", "B-HILL": "hills", "B-SPAR": "spartacus", "B-NATION": "prussia",
              "B-PLAY": "prussia", "B-C": "chains"}
    return STYLES[next((g for p, g in prefix.items() if card_id.startswith(p)), "table")]


def mix(colour: str | Color, other: str | Color, amount: float) -> Color:
    """``colour`` moved ``amount`` (0–1) of the way to ``other``."""
    a = HexColor(colour) if isinstance(colour, str) else colour
    b = HexColor(other) if isinstance(other, str) else other
    return Color(*(x + (y - x) * amount for x, y in ((a.red, b.red), (a.green, b.green), (a.blue, b.blue))))


def luminance(colour: str | Color) -> float:
    """Relative luminance (WCAG 2, 0 black … 1 white) of an sRGB colour."""
    c = HexColor(colour) if isinstance(colour, str) else colour

    def linear(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * linear(c.red) + 0.7152 * linear(c.green) + 0.0722 * linear(c.blue)


def contrast(a: str | Color, b: str | Color) -> float:
    """WCAG contrast ratio of two colours (1 … 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


MARK_CONTRAST = 3.0
"""WCAG's ratio for large text and for graphics a person needs (values, symbols, labels on white)."""


def legible(colour: str | Color, on: str | Color = "#ffffff", ratio: float = MARK_CONTRAST) -> Color:
    """``colour`` darkened just enough (towards black, keeping its hue) to stand ``ratio``:1 on ``on``;
    yellow #f9a825 (1.97:1 on white) becomes a deep gold."""
    base = HexColor(colour) if isinstance(colour, str) else colour
    for step in range(101):
        tone = mix(base, "#000000", step / 100)
        if contrast(tone, on) >= ratio:
            return tone
    return mix(base, "#000000", 1.0)


FIELD_LUMA = 0.36
"""The least luma (0.299 R + 0.587 G + 0.114 B, of 1) of a face's colour field. The camera's screen
rule (``vision.reading.plane``) calls a sample *dark* under 0.2 of the card's own white and a side
whose strip 6 mm inside the edge is mostly dark is not framed: a field darker than this (Prussian
blue 0.13, purple 0.26) would blind that rule on the top and bottom strips; 0.36 keeps 1.8× margin."""


PALE_LUMA = 0.9
"""The least luma of the default faces' pale index fields (pink, sky, mint, cream, lilac): to the
reading code they are paper. A lamp's reflection clips them as it clips white (the glare check wants a
12 mm clipped disc: 11.9 mm over white or pale faces, 10.6 mm over full fields), the marker finder's
adaptive means beside a marker stay those of paper, and the screen rule's inner strip is far above
0.2 of the white (docs/printables.md, "Faces that look like the game's cards")."""


def luma(colour: str | Color) -> float:
    """The grey level (0–1) a camera or a greyscale render sees for an sRGB colour (ITU-R BT.601)."""
    c = HexColor(colour) if isinstance(colour, str) else colour
    return 0.299 * c.red + 0.587 * c.green + 0.114 * c.blue


def field(colour: str | Color, at_least: float = FIELD_LUMA) -> Color:
    """A face's colour field in ``colour``'s hue, lightened (towards white) to a luma of at least
    ``at_least`` (``FIELD_LUMA``, or ``PALE_LUMA`` for the default faces' pale fields)."""
    base = HexColor(colour) if isinstance(colour, str) else colour
    return next((mix(base, "#ffffff", k / 100) for k in range(101)
                 if luma(mix(base, "#ffffff", k / 100)) >= at_least), base)


def on_colour(colour: str | Color) -> Color:
    """White or near-black, whichever stands out more on ``colour`` (a symbol on an owner's colour)."""
    from reportlab.lib.colors import white
    ink = HexColor("#212121")
    return white if contrast(white, colour) >= contrast(ink, colour) else ink


def pattern_ink(frame: str) -> Color:
    """The pattern's tone: lighter than a dark frame, darker than a light one (it stays subtle)."""
    c = HexColor(frame)
    luminance = 0.299 * c.red + 0.587 * c.green + 0.114 * c.blue
    return mix(frame, "#ffffff", 0.22) if luminance < 0.55 else mix(frame, "#000000", 0.16)


PATTERN_REACH_MM = 7.0   # a pattern covers the card and this much around it (the largest bleed + 1)


def pattern_form(c: Canvas, pattern: str, frame: str) -> str:
    """The name of a PDF form (drawn once a document) of ``pattern`` over a card and its bleed, in
    the pattern's tone for ``frame``; show it with ``c.doForm`` in card millimetres."""
    name = f"tc-{pattern.replace(' ', '-')}-{frame.lstrip('#')}"
    if not c.hasForm(name):
        r = PATTERN_REACH_MM
        c.beginForm(name, -r, -r, cat.CARD_WIDTH_MM + r, cat.CARD_HEIGHT_MM + r)
        draw_pattern(c, pattern, -r, -r, cat.CARD_WIDTH_MM + r, cat.CARD_HEIGHT_MM + r, pattern_ink(frame),
                     HexColor(frame))
        c.endForm()
    return name


def draw_pattern(c: Canvas, pattern: str, x0: float, y0: float, x1: float, y1: float, ink: Color,
                 frame_colour: Color | None = None) -> None:
    """Fill the rectangle (x0, y0)–(x1, y1) with ``pattern`` lines in ``ink`` (the caller clips);
    ``frame_colour`` is the colour under it (white unless given)."""
    from reportlab.lib.colors import white
    frame_colour = frame_colour or white
    c.saveState()
    c.setStrokeColor(ink)
    c.setFillColor(ink)
    w, h = x1 - x0, y1 - y0
    if pattern == "stripes":             # Wheel: fine diagonal stripes, like a wheel's spokes in motion
        c.setLineWidth(0.7)
        for k in range(int((w + h) / 2.2) + 2):
            c.line(x0 + k * 2.2 - h, y1, x0 + k * 2.2, y0)
    elif pattern == "waves":             # Hills: rolling lines
        c.setLineWidth(0.5)
        y = y0 + 1.0
        while y < y1 + 2:
            p = c.beginPath()
            p.moveTo(x0 - 2, y)
            x = x0 - 2
            while x < x1 + 2:
                p.curveTo(x + 1.2, y - 1.1, x + 2.8, y - 1.1, x + 4, y)
                p.curveTo(x + 5.2, y + 1.1, x + 6.8, y + 1.1, x + 8, y)
                x += 8
            c.drawPath(p, stroke=1, fill=0)
            y += 2.4
    elif pattern == "hatch":             # Spartacus: cross-hatched, like rough cloth
        c.setLineWidth(0.4)
        for k in range(int((w + h) / 2.0) + 2):
            c.line(x0 + k * 2.0 - h, y1, x0 + k * 2.0, y0)
            c.line(x0 + k * 2.0 - h, y0, x0 + k * 2.0, y1)
    elif pattern == "checks":            # Prussia: small checks (every other row XOR every other
        size = 1.6                       # column, filled even-odd: a few dozen rectangles, fast to print)
        p = c.beginPath()
        for i in range(0, int(w / size) + 2, 2):
            p.rect(x0 + i * size, y0, size, h)
        for j in range(0, int(h / size) + 2, 2):
            p.rect(x0, y0 + j * size, w, size)
        c.drawPath(p, stroke=0, fill=1, fillMode=FILL_EVEN_ODD)
    elif pattern == "links":             # Chains: rows of chain links (a dashed line with round
        c.setLineCap(1)                  # caps, hollowed by a thinner one in the frame's colour)
        row, y = 0, y0 + 1.2
        while y < y1 + 2:
            x = x0 - 2 + (1.6 if row % 2 else 0)
            for width, colour in ((1.4, ink), (0.5, frame_colour)):
                c.setStrokeColor(colour)
                c.setLineWidth(width)
                c.setDash([1.8, 1.4], 0)
                c.line(x, y, x1 + 2, y)
            y += 2.2
            row += 1
        c.setDash()
    elif pattern == "dots":              # tokens: a plain dot grid
        p = c.beginPath()
        for i in range(int(w / 2) + 2):
            for j in range(int(h / 2) + 2):
                p.circle(x0 + i * 2 + (j % 2), y0 + j * 2, 0.35)
        c.drawPath(p, stroke=0, fill=1)
    else:
        raise ValueError(f"unknown pattern {pattern!r}: one of {', '.join(PATTERNS)}")
    c.restoreState()


def draw_emblem(c: Canvas, emblem: str, cx: float, cy: float, size: float, ink: Color,
                paper: Color | None = None) -> None:
    """Draw a game's emblem, ``size`` across, centred at (cx, cy), in ``ink``; ``paper`` is the colour
    behind it (white unless given), used where shapes overlap."""
    from reportlab.lib.colors import white
    paper = paper or white
    r = size / 2
    c.saveState()
    c.setFillColor(ink)
    c.setStrokeColor(ink)
    if emblem == "laurel":               # two branches of leaves meeting at the bottom
        c.setLineWidth(size * 0.035)
        for side in (-1, 1):
            stem = c.beginPath()
            stem.arc(cx - r * 0.78, cy - r * 0.78, cx + r * 0.78, cy + r * 0.78,
                     startAng=90 if side < 0 else 90 - 150, extent=150)
            c.drawPath(stem, stroke=1, fill=0)
            for k in range(6):
                a = math.radians(100 + k * 25) if side < 0 else math.radians(80 - k * 25)
                lx, ly = cx + r * 0.78 * math.cos(a), cy + r * 0.78 * math.sin(a)
                c.saveState()
                c.translate(lx, ly)
                c.rotate(math.degrees(a) + (90 if side < 0 else -90) + side * 35)
                c.ellipse(-r * 0.1, -r * 0.26, r * 0.1, r * 0.26, stroke=0, fill=1)
                c.restoreState()
    elif emblem == "hills":              # rolling hills (three of the seven): one behind, two in front
        for hx, top, half in ((0.0, -0.7, 0.8), (-0.5, -0.05, 0.5), (0.5, 0.05, 0.5)):
            p = c.beginPath()
            p.moveTo(cx + (hx - half) * r, cy + r * 0.62)
            p.curveTo(cx + (hx - half * 0.6) * r, cy + top * r, cx + (hx - half * 0.3) * r, cy + top * r,
                      cx + hx * r, cy + top * r)
            p.curveTo(cx + (hx + half * 0.3) * r, cy + top * r, cx + (hx + half * 0.6) * r, cy + top * r,
                      cx + (hx + half) * r, cy + r * 0.62)
            p.close()
            c.setStrokeColor(paper)
            c.setLineWidth(size * 0.06)
            c.drawPath(p, stroke=1, fill=1)
        c.rect(cx - r, cy + r * 0.6, 2 * r, r * 0.2, stroke=0, fill=1)
    elif emblem == "gladius":            # two crossed short swords: the gladiators' own weapon
        for turn in (-38, 38):
            c.saveState()
            c.translate(cx, cy)
            c.rotate(turn)
            blade = c.beginPath()        # a leaf-shaped blade, point up (y down)
            blade.moveTo(0, -r)
            blade.curveTo(r * 0.2, -r * 0.7, r * 0.13, -r * 0.1, r * 0.12, r * 0.3)
            blade.lineTo(-r * 0.12, r * 0.3)
            blade.curveTo(-r * 0.13, -r * 0.1, -r * 0.2, -r * 0.7, 0, -r)
            blade.close()
            c.drawPath(blade, stroke=0, fill=1)
            c.roundRect(-r * 0.36, r * 0.3, r * 0.72, r * 0.14, r * 0.05, stroke=0, fill=1)   # guard
            c.rect(-r * 0.07, r * 0.44, r * 0.14, r * 0.36, stroke=0, fill=1)                  # grip
            c.circle(0, r * 0.86, r * 0.12, stroke=0, fill=1)                                   # pommel
            c.restoreState()
    elif emblem == "crown":              # a royal crown: a band, five points, pearls on top
        p = c.beginPath()
        base, top = cy + r * 0.55, cy - r * 0.45
        pts = [(-0.9, base), (-0.9, top + r * 0.05), (-0.45, cy + r * 0.05), (0, top - r * 0.1),
               (0.45, cy + r * 0.05), (0.9, top + r * 0.05), (0.9, base)]
        p.moveTo(cx + pts[0][0] * r, pts[0][1])
        for x, y in pts[1:]:
            p.lineTo(cx + x * r, y)
        p.close()
        c.drawPath(p, stroke=0, fill=1)
        c.rect(cx - r * 0.95, base + r * 0.06, r * 1.9, r * 0.22, stroke=0, fill=1)
        for x, y in ((-0.9, top + r * 0.05), (0, top - r * 0.1), (0.9, top + r * 0.05)):
            c.circle(cx + x * r, y - r * 0.08, r * 0.13, stroke=0, fill=1)
        c.setFillColor(paper)
        for x in (-0.45, 0, 0.45):
            c.circle(cx + x * r, cy + r * 0.3, r * 0.08, stroke=0, fill=1)
    elif emblem == "links":              # three links of an unbroken chain
        c.setLineWidth(size * 0.085)
        w, h = r * 0.8, r * 0.5
        for k, (dx, dy) in enumerate(((-0.62, 0.3), (0.0, 0.0), (0.62, -0.3))):
            c.saveState()
            c.translate(cx + dx * r, cy + dy * r)
            c.rotate(-26)
            c.roundRect(-w / 2, -h / 2, w, h, h / 2, stroke=1, fill=0)
            c.restoreState()
    elif emblem == "suits":              # the four suits of a playing-card deck, two by two
        from printables.marks import draw_symbol
        draw_symbol(c, "spade", cx - r * 0.48, cy - r * 0.48, r * 0.88)
        draw_symbol(c, "heart", cx + r * 0.48, cy - r * 0.48, r * 0.88)
        draw_symbol(c, "diamond", cx - r * 0.48, cy + r * 0.48, r * 0.88)
        draw_symbol(c, "club", cx + r * 0.48, cy + r * 0.48, r * 0.88)
    elif emblem == "pawn":
        from printables.marks import draw_symbol
        draw_symbol(c, "pawn", cx, cy, size)
    else:
        raise ValueError(f"unknown emblem {emblem!r}: one of {', '.join(EMBLEMS)}")
    c.restoreState()
