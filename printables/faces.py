"""What is printed on one card: its face (for people and for the camera) and its deck's back.

Everything here draws in the card's own millimetres: origin at the card's top-left corner, y down
(the convention of ``companion.catalogue.Rect``). The caller has translated and scaled the canvas.
Marker and QR positions come from the catalogue, so vision finds them where they are printed.
"""
from __future__ import annotations

from reportlab.lib.colors import Color, HexColor, white
from reportlab.pdfgen.canvas import Canvas

from companion import catalogue as cat
from companion.catalogue import CARD_HEIGHT_MM as CH, CARD_WIDTH_MM as CW
from printables.fonts import register_font, text_width
from printables.marks import draw_cells, draw_symbol, marker_matrix, qr_matrix

INK = HexColor("#212121")
GREY = HexColor("#8a8a8a")
SUIT_RED = HexColor(cat.COLOURS["R"].hex)
HILL_TEXT = HexColor("#b26a00")   # the hills' yellow is too pale for text; a darker amber reads
BACK_COLOURS = {"B-WHEEL": "#4e342e", "B-NATION": "#1a237e", "B-PLAY": "#263238", "B-TOKEN": "#455a64"}
INDEX_X = cat.MARKER_INSET_MM + cat.MARKER_MM + 2.5   # the index text starts right of the marker
SIDE_LEFT_X, SIDE_RIGHT_X = 3.4, CW - 3.4             # centre lines of the strips beside the QR
SIDE_MID_Y, SIDE_LEN = (cat.QR_TOP_MM + cat.QR_MM / 2), cat.QR_MM + 4
ERAS = {
    1: ("c. 1700: Great Northern War", "1700年頃 大北方戦争・スペイン継承戦争"),
    2: ("c. 1750: Frederick the Great", "1750年頃 フリードリヒ大王・七年戦争"),
    3: ("c. 1800: Napoleonic Wars", "1800年頃 ナポレオン戦争"),
    4: ("c. 1850: Bismarck", "1850年頃 ビスマルク・普墺戦争・普仏戦争"),
}


def text(c: Canvas, s: str, x: float, y: float, size: float, *, anchor: str = "left",
         colour: Color = INK, rotate: float = 0, max_width: float | None = None) -> None:
    """Draw ``s`` with its baseline at (x, y); ``rotate`` turns it clockwise (degrees);
    the size shrinks so the text fits ``max_width``."""
    width = text_width(s, size)
    if max_width is not None and width > max_width:
        size, width = size * max_width / width, max_width
    dx = {"left": 0.0, "centre": -width / 2, "right": -width}[anchor]
    c.saveState()
    c.translate(x, y)
    c.rotate(rotate)
    c.scale(1, -1)
    c.setFillColor(colour)
    c.setFont(register_font(), size)
    c.drawString(dx, 0, s)
    c.restoreState()


def vertical_text(c: Canvas, s: str, x: float, y_mid: float, size: float, colour: Color = INK) -> None:
    """Japanese written top to bottom (tategaki), centred on (x, y_mid); the long-vowel mark turns."""
    y = y_mid - len(s) * size / 2
    for ch in s:
        if ch in "ー-—":
            text(c, ch, x - size * 0.38, y + size * 0.5, size, colour=colour, rotate=90, anchor="centre")
        else:
            text(c, ch, x, y + size * 0.88, size, colour=colour, anchor="centre")
        y += size


def _fill(c: Canvas, colour: Color) -> None:
    c.setFillColor(colour)
    c.setStrokeColor(colour)


def _markers(c: Canvas, card_id: str, marker: int) -> None:
    _fill(c, INK)
    for rect in cat.marker_rects(card_id):
        draw_cells(c, marker_matrix(marker), rect)


def _rotated(c: Canvas, draw) -> None:
    """Draw ``draw()`` again turned 180° about the card's centre (the bottom index)."""
    c.saveState()
    c.translate(CW, CH)
    c.rotate(180)
    draw()
    c.restoreState()


def colour_of(card: cat.Card) -> Color:
    """The ink of a card's value: its colour, the suit's red or black, or plain ink."""
    if card.kind in ("playing", "joker"):
        return SUIT_RED if card.suit in ("H", "D") else INK
    if card.kind == "hill":
        return HILL_TEXT
    return HexColor(cat.COLOURS[card.colour].hex) if card.colour else INK


def _underline_6_9(c: Canvas, value: str, x: float, size: float, ink: Color) -> None:
    """Underline a lone 6 or 9: the index is printed both ways up, so they must not be confused."""
    if value in ("6", "9"):
        _fill(c, ink)
        c.rect(x + size * 0.04, 17.3, text_width(value, size) - size * 0.08, 0.7, stroke=0, fill=1)


def _index(c: Canvas, card: cat.Card) -> None:
    """The top strip beside the marker: what a player reads in a cascade."""
    ink = colour_of(card)
    x, right = INDEX_X, CW - cat.MARKER_INSET_MM
    sym_x = right - 6.5
    if card.kind in ("number", "pairs", "seat", "hill"):
        value = str(card.deck if card.kind == "seat" else card.value)
        text(c, value, x, 16.6, 17, colour=ink, max_width=sym_x - 6 - x)
        _underline_6_9(c, value, x, 17, ink)
        shape = "hill" if card.kind == "hill" else cat.COLOURS[card.colour].symbol
        _fill(c, ink)
        draw_symbol(c, shape, sym_x, 8.5, 9.5)
        label = {"hill": "hill 丘", "seat": "seat 席", "pairs": f"deck {card.deck} デッキ"}.get(card.kind)
        if label is None:
            col = cat.COLOURS[card.colour]
            label = f"{col.name} {col.ja}"
        text(c, label, sym_x, 17.2, 2.7, anchor="centre", max_width=13)
    elif card.kind == "banner":
        _fill(c, ink)
        draw_symbol(c, "flag", x + 6, 10.5, 13)
        text(c, "banner", x + 14, 9.5, 4.2, colour=ink, max_width=right - x - 14)
        worth = "0" if card.game == "hills" else "×2"
        text(c, f"軍旗 {worth}", x + 14, 16.5, 4.6, colour=ink, max_width=right - x - 14)
    elif card.kind == "playing":
        text(c, card.rank, x, 16.6, 16, colour=ink, max_width=20)
        _underline_6_9(c, card.rank, x, 16, ink)
        text(c, cat.SUIT_SYMBOLS[card.suit], sym_x, 15.5, 13, anchor="centre", colour=ink)
    elif card.kind == "joker":
        _fill(c, ink)
        draw_symbol(c, "star", x + 5.5, 9.5, 11)
        text(c, "JOKER", x + 12.5, 10, 5.6, max_width=right - x - 12.5)
        text(c, "ジョーカー", x + 12.5, 16.5, 4.2, max_width=right - x - 12.5)
    elif card.kind == "era":
        face = cat.ERA_FACES[card.value - 1]
        text(c, face, x, 16.4, 15, max_width=18)
        text(c, "時代", right, 10, 5.5, anchor="right")
        text(c, f"era {face}", right, 16.5, 3.6, anchor="right")
    else:
        raise ValueError(f"no face design for {card.kind} cards ({card.id})")


def _sides(c: Canvas, left: str, right: str) -> None:
    """Small names along the strips beside the QR code: English reads up, Japanese down."""
    text(c, left, SIDE_LEFT_X + 1, SIDE_MID_Y, 2.6, anchor="centre", colour=GREY, rotate=-90,
         max_width=SIDE_LEN)
    text(c, right, SIDE_RIGHT_X - 1, SIDE_MID_Y, 2.6, anchor="centre", colour=GREY, rotate=90,
         max_width=SIDE_LEN)


def _guide(c: Canvas) -> None:
    """Ticks 20 mm below the top edge: overlap the next card in a cascade up to here."""
    c.setStrokeColor(GREY)
    c.setLineWidth(0.35)
    y = cat.CASCADE_GUIDE_MM
    qr_left = cat.qr_rect("W-R1").x - cat.QR_QUIET_MM
    c.line(0, y, qr_left - 1.5, y)
    c.line(CW - qr_left + 1.5, y, CW, y)


def _qr(c: Canvas, card: cat.Card) -> None:
    _fill(c, INK)
    draw_cells(c, qr_matrix(card.payload), cat.qr_rect(card.id))


def _strength_box(c: Canvas, x: float, y: float, era: str, strength: int) -> None:
    c.setStrokeColor(GREY)
    c.setLineWidth(0.3)
    c.roundRect(x, y, 11, 15, 1.2, stroke=1, fill=0)
    text(c, era, x + 5.5, y + 4, 2.8, anchor="centre", colour=GREY)
    text(c, str(strength), x + 5.5, y + 13.2, 9, anchor="centre", max_width=10)


def _nation(c: Canvas, card: cat.Card) -> None:
    """A nation: strength of era I top-left, II top-right, III bottom-right, IV bottom-left."""
    nation = next(n for n in cat.default_nations()["nations"] if cat.nation_card_id(n) == card.id)
    s = nation["strength"]
    top, bottom = cat.MARKER_INSET_MM, CH - cat.MARKER_INSET_MM - 15
    _strength_box(c, INDEX_X - 0.5, top, "I", s[0])
    _strength_box(c, CW - cat.MARKER_INSET_MM - 11, top, "II", s[1])
    _strength_box(c, CW - cat.MARKER_INSET_MM - cat.MARKER_MM - 13, bottom, "III", s[2])
    _strength_box(c, cat.MARKER_INSET_MM, bottom, "IV", s[3])
    left, right = INDEX_X + 10.5, CW - cat.MARKER_INSET_MM - 11     # between the two boxes
    rank_size = 10 if len(nation["rank"]) == 1 else 8
    width = text_width(nation["rank"], rank_size) + 0.8 + text_width(nation["abbr"], 6.5)
    x = (left + right - width) / 2
    text(c, nation["rank"], x, 13.5, rank_size)
    text(c, nation["abbr"], x + width, 13.2, 6.5, anchor="right")
    where = ("中央", "centre") if nation["position"] == 0 else (f"{nation['position']}時",
                                                              f"{nation['position']} o'clock")
    low_mid = (cat.MARKER_INSET_MM + 11 + CW - cat.MARKER_INSET_MM - cat.MARKER_MM - 13) / 2
    text(c, where[0], low_mid, 78.5, 4.2, anchor="centre")
    text(c, where[1], low_mid, 83.5, 2.6, anchor="centre", colour=GREY, max_width=16)
    vertical_text(c, nation["ja"], SIDE_LEFT_X, SIDE_MID_Y, 4.2)
    text(c, f"{nation['name']} · {nation['de']}", SIDE_RIGHT_X - 1, SIDE_MID_Y, 2.8, anchor="centre",
         rotate=90, max_width=SIDE_LEN)


def draw_face(c: Canvas, card_id: str) -> None:
    """Draw a card's face: index strips, markers in both index corners, the QR code, the guide."""
    card = cat.card(card_id)
    if card_id == "W-PAWN":
        draw_pawn(c)
        return
    if card.kind == "nation":
        _nation(c, card)
    else:
        _index(c, card)
        _rotated(c, lambda: _index(c, card))
        if card.kind == "era":
            left, right = ERAS[card.value]
        else:
            left, right = card.name, card.ja
        _sides(c, left, right)
    _guide(c)
    _markers(c, card_id, card.marker)
    _qr(c, card)


def draw_pawn(c: Canvas) -> None:
    """The Wheel of History pawn: a square token with one centred marker and a thin cut line."""
    size = cat.PAWN_TOKEN_MM
    c.setStrokeColor(GREY)
    c.setLineWidth(0.2)
    c.rect(0, 0, size, size, stroke=1, fill=0)
    _markers(c, "W-PAWN", cat.card("W-PAWN").marker)
    text(c, "pawn · ポーン", size / 2, 5.4, 2.8, anchor="centre")
    text(c, "Wheel of History", size / 2, size - 2.6, 2.2, anchor="centre", colour=GREY)


def _mix(hex_colour: str, amount: float) -> Color:
    """``hex_colour`` mixed with white (amount 0 = the colour, 1 = white)."""
    base = HexColor(hex_colour)
    return Color(*(v + (1 - v) * amount for v in (base.red, base.green, base.blue)))


def draw_back(c: Canvas, back_id: str, bleed: float = 0.0) -> None:
    """Draw a deck's back: the deck's colour and name, and the deck marker in both corners."""
    back = cat.card(back_id)
    if back.kind != "back":
        draw_face(c, back_id)   # era cards are double-sided: the back is the other era's face
        return
    hex_colour = cat.COLOURS[back.colour].hex if back.colour else BACK_COLOURS[back_id]
    c.saveState()
    frame = c.beginPath()
    frame.rect(-bleed, -bleed, CW + 2 * bleed, CH + 2 * bleed)
    c.clipPath(frame, stroke=0, fill=0)
    c.setFillColor(HexColor(hex_colour))
    c.rect(-bleed, -bleed, CW + 2 * bleed, CH + 2 * bleed, stroke=0, fill=1)
    c.setStrokeColor(_mix(hex_colour, 0.22))
    c.setLineWidth(1.1)
    for k in range(-30, 30):   # diagonal stripes, a texture that hides nothing and shows no id
        c.line(k * 4.0 - 10, -10, k * 4.0 + CH + 10, CH + 10)
    c.restoreState()
    c.setFillColor(white)
    for rect in cat.marker_rects(back_id):
        c.roundRect(rect.x - 2.2, rect.y - 2.2, rect.w + 4.4, rect.h + 4.4, 1.2, stroke=0, fill=1)
    c.roundRect(7, 31, CW - 14, 26, 2.5, stroke=0, fill=1)
    name, ja = cat.BACKS[back_id][1], cat.BACKS[back_id][2]
    text(c, ja, CW / 2, 41, 4.4, anchor="centre", max_width=CW - 18)
    text(c, name, CW / 2, 47.5, 3.4, anchor="centre", max_width=CW - 18)
    text(c, "Table Companion", CW / 2, 53.5, 2.4, anchor="centre", colour=GREY)
    if back.colour:   # the deck's symbol, so decks are sorted without colour vision
        _fill(c, white)
        draw_symbol(c, cat.COLOURS[back.colour].symbol, CW / 2, 69, 8)
    _markers(c, back_id, back.marker)
