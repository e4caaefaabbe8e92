"""Each game's art on a face's index fields (``--faces art``): a wheel, the seven hills, a gladiator's
shield, Prussia's cross, a chain, drawn large in two pale tones of the field's own hue.

The art lies where no reader looks: in the index field (``faces.FIELD``) right of ``ART_X0``, which is
more than half the marker finder's largest window (23 px at 1.0 px/mm) from the marker, so what a
marker's border and quiet zone are measured against is what the pale fields give; and no tone is
darker than ``ART_LUMA``, so the screen rule and the glare check still take the strip for paper-ish
ground (docs/printables.md, "Faces that look like the game's cards"). Everything printed on the art
is darkened to stand 3:1 on its darker tone (``faces._inks``). Drawn once a document as a PDF form,
like the frame's pattern, and shown in card millimetres (y down) by ``faces``.
"""
from __future__ import annotations

import math

from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import Canvas

from printables.style import field

ART_X0 = 30.0
"""The art starts this far from the card's left edge (top index; the bottom one is it turned): 12 mm
right of the marker (3–18 mm), beyond the 11.5 mm half-window of the marker finder at 1.0 px/mm."""
ART_LUMA = 0.72
"""The art's darker tone (luma, 0–1): rims, spokes, the card's own hill, outlines."""
ART_LIGHT_LUMA = 0.82
"""The art's lighter tone: the hills behind, the shield's face, the cross, every other link."""
ARTS = ("wheel", "hills", "shield", "cross", "chain", "flag")
ART_OF_GAME = {"wheel": "wheel", "hills": "hills", "spartacus": "shield", "prussia": "cross", "chains": "chain"}
"""Which art a game's faces show (tokens have none; Prussia's nation cards show their nation's flag)."""
FLAGS = {
    "Bavaria": ("h", ("#ffffff", "#0f7ac8", "#ffffff", "#0f7ac8")),   # the lozenges' white and blue
    "Italy": ("v", ("#1f8a3b", "#ffffff", "#ce2b37")),
    "France": ("v", ("#1f3f99", "#ffffff", "#d52b1e")),
    "Spain": ("h", ("#c60b1e", "#ffc400", "#ffc400", "#c60b1e")),     # 1785: red, gold twice as wide, red
    "Netherlands": ("h", ("#ae1c28", "#ffffff", "#21468b")),
    "Great Britain": ("union", ("#012169", "#ffffff", "#c8102e")),
    "Denmark": ("nordic", ("#c8102e", "#ffffff")),
    "Sweden": ("nordic", ("#006aa7", "#fecc00")),
    "Russia": ("h", ("#ffffff", "#0039a6", "#d52b1e")),
    "Poland": ("h", ("#ffffff", "#dc143c")),
    "Ottoman Empire": ("crescent", ("#e30a17", "#ffffff")),
    "Austria": ("h", ("#ed2939", "#ffffff", "#ed2939")),
    "Prussia": ("h", ("#000000", "#ffffff")),
    "German Empire": ("h", ("#000000", "#ffffff", "#dd0000")),
}
"""Each nation's flag of its day, simplified to what reads at 15 mm: stripes across (``h``) or down
(``v``), a Nordic cross, the Union's crosses, the crescent; drawn in these colours lightened to
``ART_LUMA`` (white stays white), so a nation card's field stays a pale field to the camera."""


def tones(hue: Color) -> tuple[Color, Color]:
    """(dark, light) tones of the art in ``hue``: lightened to ``ART_LUMA`` and ``ART_LIGHT_LUMA``."""
    return field(hue, ART_LUMA), field(hue, ART_LIGHT_LUMA)


def art_form(c: Canvas, art: str, hue: Color, clip: tuple[float, float, float, float], radius: float,
             centre: float, highlight: int | str = 0) -> str:
    """The name of a PDF form of ``art`` in ``hue``'s tones, clipped to the rounded rectangle ``clip``
    (x0, y0, x1, y1, card mm) and centred across at ``centre``; ``highlight`` (1–7) marks one hill, and
    names the nation (``FLAGS``) of a flag."""
    if art not in ARTS or art == "flag" and highlight not in FLAGS:
        raise ValueError(f"unknown art {art!r} ({highlight!r}): one of {', '.join(ARTS)}, a flag of {', '.join(FLAGS)}")
    x0, y0, x1, y1 = clip
    name = f"tc-art-{art}-{hue.hexval()[2:]}-{highlight}-{centre:.1f}-{x0:.1f}".replace(" ", "_")
    if c.hasForm(name):
        return name
    dark, light = tones(hue)
    c.beginForm(name, x0, y0, x1, y1)
    c.saveState()
    for left, r in ((x0, radius), (ART_X0, 0.0)):     # the field, and right of ART_X0 only
        area = c.beginPath()
        area.roundRect(left, y0, x1 - left, y1 - y0, r) if r else area.rect(left, y0, x1 - left, y1 - y0)
        c.clipPath(area, stroke=0, fill=0)
    cy = (y0 + y1) / 2
    {"wheel": _wheel, "hills": _hills, "shield": _shield, "cross": _cross, "chain": _chain, "flag": _flag}[art](
        c, centre, cy, x1, y1, dark, light, highlight)
    c.restoreState()
    c.endForm()
    return name


def _wheel(c: Canvas, cx: float, cy: float, x1: float, y1: float, dark: Color, light: Color, _h: int) -> None:
    """A chariot wheel: rim, eight spokes, hub, larger than the strip (its rim runs off it)."""
    r = 10.5
    c.setStrokeColor(light)
    c.setLineWidth(2.6)
    c.circle(cx, cy, r - 1.3, stroke=1, fill=0)
    c.setStrokeColor(dark)
    c.setLineWidth(0.9)
    c.circle(cx, cy, r, stroke=1, fill=0)
    c.circle(cx, cy, r - 2.6, stroke=1, fill=0)
    c.setLineWidth(1.1)
    for k in range(8):
        a = math.radians(22.5 + k * 45)
        c.line(cx + 2.4 * math.cos(a), cy + 2.4 * math.sin(a), cx + (r - 2.6) * math.cos(a),
               cy + (r - 2.6) * math.sin(a))
    c.setFillColor(light)
    c.circle(cx, cy, 2.6, stroke=1, fill=1)
    c.setFillColor(dark)
    c.circle(cx, cy, 0.9, stroke=0, fill=1)


def _hills(c: Canvas, cx: float, cy: float, x1: float, y1: float, dark: Color, light: Color, highlight: int) -> None:
    """Rome's seven hills along the strip's foot, the higher ones behind; the card's own hill
    (``highlight``, 1–7) dark."""
    x0 = ART_X0 + 1.0
    step = (x1 - x0) / 7
    rise = (6.0, 9.5, 7.0, 11.0, 8.0, 10.0, 6.5)     # each hill's height above the strip's foot
    for k in sorted(range(7), key=lambda k: (k + 1 == highlight, -rise[k])):
        mid, top, half = x0 + (k + 0.5) * step, y1 - rise[k], step * (0.75 + rise[k] / 24)
        p = c.beginPath()
        p.moveTo(mid - half, y1 + 1)
        p.curveTo(mid - half * 0.75, top + rise[k] * 0.2, mid - half * 0.45, top, mid, top)
        p.curveTo(mid + half * 0.45, top, mid + half * 0.75, top + rise[k] * 0.2, mid + half, y1 + 1)
        p.close()
        c.setFillColor(dark if k + 1 == highlight else light)
        c.setStrokeColor(dark)
        c.setLineWidth(0.5)
        c.drawPath(p, stroke=1, fill=1)


def _shield(c: Canvas, cx: float, cy: float, x1: float, y1: float, dark: Color, light: Color, _h: int) -> None:
    """A gladiator's tall curved shield (scutum), upright behind the game's crossed gladii (the emblem,
    drawn on it by ``faces``): its rim, a spine from top to bottom and the boss."""
    sx, w, h = x1 - 6.8, 11.5, 15.0          # under the emblem, 6.8 mm left of the field's end
    c.setStrokeColor(dark)
    c.setFillColor(light)
    c.setLineWidth(0.9)
    c.roundRect(sx - w / 2, cy - h / 2, w, h, 2.2, stroke=1, fill=1)
    c.setLineWidth(0.45)
    c.roundRect(sx - w / 2 + 1.1, cy - h / 2 + 1.1, w - 2.2, h - 2.2, 1.4, stroke=1, fill=0)
    c.setLineWidth(1.0)
    c.line(sx, cy - h / 2 + 1.1, sx, cy + h / 2 - 1.1)     # the spine
    c.setFillColor(dark)
    c.ellipse(sx - 2.0, cy - 1.9, sx + 2.0, cy + 1.9, stroke=0, fill=1)   # the boss


def _cross(c: Canvas, cx: float, cy: float, x1: float, y1: float, dark: Color, light: Color, _h: int) -> None:
    """Prussia's cross pattée (the arms flare to the ends), outlined, with a smaller one inside."""
    for size, fill, width in ((7.2, light, 0.8), (4.9, dark, 0.0)):
        p = c.beginPath()
        neck, flare = size * 0.16, size * 0.62
        for k in range(4):
            a = math.radians(k * 90)
            ca, sa = math.cos(a), math.sin(a)

            def at(u: float, v: float) -> tuple[float, float]:
                return cx + u * ca - v * sa, cy + u * sa + v * ca
            pts = [at(neck, -neck), at(size, -flare), at(size * 0.86, 0), at(size, flare), at(neck, neck)]
            (p.moveTo if k == 0 else p.lineTo)(*pts[0])
            for pt in pts[1:]:
                p.lineTo(*pt)
        p.close()
        c.setFillColor(fill)
        c.setStrokeColor(dark)
        c.setLineWidth(max(width, 0.1))
        c.drawPath(p, stroke=int(width > 0), fill=1)


def _chain(c: Canvas, cx: float, cy: float, x1: float, y1: float, dark: Color, light: Color, _h: int) -> None:
    """A chain across the strip: oval links seen flat, every other one seen edge-on."""
    pitch, w, h = 8.4, 11.0, 7.2
    x = cx - 2 * pitch
    k = 0
    while x - w / 2 < x1 + 2:
        c.saveState()
        c.translate(x, cy)
        if k % 2:        # edge-on: a bar with round ends
            c.setFillColor(dark)
            c.roundRect(-w / 2, -1.1, w, 2.2, 1.1, stroke=0, fill=1)
        else:
            c.setStrokeColor(light)
            c.setLineWidth(2.0)
            c.roundRect(-w / 2 + 1.0, -h / 2 + 1.0, w - 2.0, h - 2.0, (h - 2.0) / 2, stroke=1, fill=0)
            c.setStrokeColor(dark)
            c.setLineWidth(0.5)
            c.roundRect(-w / 2, -h / 2, w, h, h / 2, stroke=1, fill=0)
            c.roundRect(-w / 2 + 2.0, -h / 2 + 2.0, w - 4.0, h - 4.0, (h - 4.0) / 2, stroke=1, fill=0)
        c.restoreState()
        x += pitch
        k += 1


FLAG_MM = (15.6, 11.0)
"""A nation's flag: as wide as the room between its two strength boxes allows (16.8 mm), 3:2-ish."""


def flag_tones(nation: str) -> list[Color]:
    """A nation's flag colours (``FLAGS``) as printed: lightened to ``ART_LUMA`` (white stays white)."""
    return [field(col, ART_LUMA) for col in FLAGS[nation][1]]


def _flag(c: Canvas, cx: float, cy: float, x1: float, y1: float, dark: Color, light: Color, nation: str) -> None:
    """The nation's flag (``FLAGS``) in its colours lightened to ``ART_LUMA``, outlined in the dark
    tone of the field's hue."""
    kind, _ = FLAGS[nation]
    tone = flag_tones(nation)
    w, h = FLAG_MM
    fx, fy = cx - w / 2, cy - h / 2
    c.saveState()
    box = c.beginPath()
    box.roundRect(fx, fy, w, h, 0.8)
    c.clipPath(box, stroke=0, fill=0)
    if kind in ("h", "v"):
        n = len(tone)
        for k, col in enumerate(tone):
            c.setFillColor(col)
            if kind == "h":
                c.rect(fx, fy + k * h / n, w, h / n + 0.05, stroke=0, fill=1)
            else:
                c.rect(fx + k * w / n, fy, w / n + 0.05, h, stroke=0, fill=1)
    else:
        c.setFillColor(tone[0])
        c.rect(fx, fy, w, h, stroke=0, fill=1)
        if kind == "nordic":          # the cross set towards the hoist
            c.setFillColor(tone[1])
            c.rect(fx, cy - 1.4, w, 2.8, stroke=0, fill=1)
            c.rect(fx + w * 0.3, fy, 2.8, h, stroke=0, fill=1)
        elif kind == "union":         # St George's red on white, over the saltires' white
            c.setStrokeColor(tone[1])
            c.setLineWidth(2.2)
            c.line(fx, fy, fx + w, fy + h)
            c.line(fx, fy + h, fx + w, fy)
            c.setStrokeColor(tone[2])
            c.setLineWidth(0.7)
            c.line(fx, fy, fx + w, fy + h)
            c.line(fx, fy + h, fx + w, fy)
            c.setFillColor(tone[1])
            c.rect(fx, cy - 1.9, w, 3.8, stroke=0, fill=1)
            c.rect(cx - 1.9, fy, 3.8, h, stroke=0, fill=1)
            c.setFillColor(tone[2])
            c.rect(fx, cy - 1.1, w, 2.2, stroke=0, fill=1)
            c.rect(cx - 1.1, fy, 2.2, h, stroke=0, fill=1)
        elif kind == "crescent":      # the crescent and star, towards the hoist
            c.setFillColor(tone[1])
            c.circle(cx - 4.4, cy, 3.2, stroke=0, fill=1)
            c.setFillColor(tone[0])
            c.circle(cx - 3.6, cy, 2.6, stroke=0, fill=1)
            c.setFillColor(tone[1])
            c.circle(cx - 0.6, cy, 0.9, stroke=0, fill=1)
    c.restoreState()
    c.setStrokeColor(dark)
    c.setLineWidth(0.4)
    c.roundRect(fx, fy, w, h, 0.8, stroke=1, fill=0)
