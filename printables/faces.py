"""What is printed on one card: its face (for people and for the camera) and its deck's back.

Everything here draws in the card's own millimetres: origin at the card's top-left corner, y down
(the convention of ``companion.catalogue.Rect``). The caller has translated and scaled the canvas.
Marker and QR positions come from the catalogue, so vision finds them where they are printed.
"""
from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.colors import Color, HexColor, white
from reportlab.pdfgen.canvas import Canvas

from companion import catalogue as cat
from companion.catalogue import CARD_HEIGHT_MM as CH, CARD_WIDTH_MM as CW
from printables.art import ART_LUMA, ART_OF_GAME, ART_X0, art_form, flag_tones
from printables.fonts import register_font, text_width
from printables.marks import draw_cells, draw_symbol, marker_matrix, qr_matrix
from printables.style import (FIELD_LUMA, PALE_LUMA, STYLES, DeckStyle, draw_emblem, field, legible, luminance,
                              on_colour, pattern_form, style_of)

INK = HexColor("#212121")
GREY = HexColor("#8a8a8a")
SUIT_RED = HexColor(cat.COLOURS["R"].hex)
HILL_TEXT = HexColor("#b26a00")   # the hills' yellow is too pale for text; a darker amber reads
SAFE_MM = 3.0         # the safe zone: no text or marker closer than this to the cut (print services'
                      # 1/8 in; a cut may wander ~1 mm), on faces and backs alike
PLAYER_TEXT_MM = 2.5  # the least type size (em) of anything a player reads at arm's length
INDEX_X = cat.MARKER_INSET_MM + cat.MARKER_MM + 2.5   # the index text starts right of the marker
FRAME_MM = 2.4        # the deck's frame around the white panel
PAD_MM = cat.MARKER_INSET_MM - 2.2   # white index corners: 2.2 mm of quiet zone around a marker
CORNER_MM = cat.MARKER_MM + 2 * 2.2
CASCADE = cat.CASCADE_GUIDE_MM       # the side bars start here: overlap the next card up to here
BAR_MM = (CW - cat.QR_MM) / 2 - cat.QR_QUIET_MM - 0.5   # the frame's bars beside the QR's quiet zone
BAR_TEXT_X = (SAFE_MM + BAR_MM) / 2    # the bars' titles sit between the safe line and the white panel
SIDE_MID_Y = CH / 2
SIDE_LEN = CH - 2 * (CASCADE + 2.2) - 2 * 1.0   # the bar shows between the panel's corners, less 1 mm each end
TITLE_MM = 2.4        # the bars' titles: they only repeat what the index and the back say
EMBLEM_X, EMBLEM_MM = CW - cat.MARKER_INSET_MM - 4.6, 8.6   # the game's emblem, right of the index
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


SMALL_KANA = set("ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ")
VERTICAL_FORMS = {"(": "︵", ")": "︶", "（": "︵", "）": "︶", "「": "﹁", "」": "﹂", ":": "︰", "：": "︰"}
TURNED = set("ー-—〜～")   # drawn a quarter turn: in vertical text these run along the line


def tategaki_cells(s: str) -> list[tuple[str, str]]:
    """Split Japanese text into the cells of vertical writing: ``(kind, text)`` with kind
    ``upright``, ``small`` (small kana, set to the upper right), ``turned`` (long vowel mark),
    ``tcy`` (up to three digits, or one or two letters, set across one cell, 縦中横), ``latin`` (a
    longer run of Latin letters, turned sideways) or ``space``."""
    cells: list[tuple[str, str]] = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch.isascii() and ch.isdigit():
            j = i
            while j < len(s) and s[j].isascii() and (s[j].isdigit() or (s[j] == "/" and j + 1 < len(s)
                                                                      and s[j + 1].isdigit())):
                j += 1
            run = s[i:j]   # up to three across one line (縦中横); a year stands digit by digit
            cells.extend([("tcy", run)] if len(run) <= 3 else [("upright", d) for d in run])
            i = j
            continue
        if ch.isascii() and ch.isalpha():
            j = i
            while j < len(s) and s[j].isascii() and (s[j].isalpha() or s[j] in ".'"):
                j += 1
            # one or two letters stand upright across the line, like digits (a rank: ♠A, 時代IV)
            cells.append(("tcy" if j - i <= 2 else "latin", s[i:j]))
            i = j
            continue
        if ch == " ":
            cells.append(("space", ch))
        elif ch in SMALL_KANA:
            cells.append(("small", ch))
        elif ch in TURNED:
            cells.append(("turned", ch))
        else:
            cells.append(("upright", VERTICAL_FORMS.get(ch, ch)))
        i += 1
    return cells


def _cell_height(kind: str, s: str, size: float) -> float:
    if kind == "latin":
        return text_width(s, size) + size * 0.15
    return size * (0.45 if kind == "space" else 1.0)


def tategaki_length(s: str, size: float) -> float:
    """How long ``s`` runs down the page when written vertically at ``size``."""
    return sum(_cell_height(kind, part, size) for kind, part in tategaki_cells(s))


def vertical_text(c: Canvas, s: str, x: float, y_mid: float, size: float, colour: Color = INK,
                  max_len: float | None = None) -> None:
    """Japanese written top to bottom (縦書き), centred on (x, y_mid): every glyph upright, small
    kana set to the upper right, the long vowel mark turned, digits across (縦中横), Latin turned
    sideways; the size shrinks so the text fits ``max_len``."""
    length = tategaki_length(s, size)
    if max_len is not None and length > max_len:
        size, length = size * max_len / length, max_len
    y = y_mid - length / 2
    for kind, part in tategaki_cells(s):
        h = _cell_height(kind, part, size)
        if kind == "turned":
            text(c, part, x - size * 0.38, y + size * 0.5, size, colour=colour, rotate=90, anchor="centre")
        elif kind == "small":
            text(c, part, x + size * 0.12, y + size * 0.76, size, colour=colour, anchor="centre")
        elif kind == "tcy":
            text(c, part, x, y + size * 0.84, size * (0.92 if len(part) > 1 else 1.0), colour=colour,
                 anchor="centre", max_width=size * 0.95)
        elif kind == "latin":
            text(c, part, x - size * 0.34, y + size * 0.08, size, colour=colour, rotate=90)
        elif kind == "upright":
            text(c, part, x, y + size * 0.88, size, colour=colour, anchor="centre")
        y += h


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
    # the colour itself where it stands 3:1 on white; yellow (1.97:1) prints as a deep gold
    return legible(cat.COLOURS[card.colour].hex) if card.colour else INK


def _underline_6_9(c: Canvas, value: str, x: float, size: float, ink: Color, y: float = 17.3) -> None:
    """Underline a lone 6 or 9: the index is printed both ways up, so they must not be confused."""
    if value in ("6", "9"):
        _fill(c, ink)
        c.rect(x + size * 0.04, y, text_width(value, size) - size * 0.08, 0.7, stroke=0, fill=1)


VALUE_KINDS = ("number", "pairs", "seat", "hill")
"""Cards whose index is a value, its colour's symbol (a hill's own) and the colour's name."""


@dataclass(frozen=True)
class ValueIndex:
    """Where a value card's index strip puts its parts (mm from the card's top-left; sizes in pt)."""

    value_y: float
    value_pt: tuple[float, float]   # one digit, two digits
    value_gap: float                # the value ends this far left of the symbol's centre
    underline_y: float              # a lone 6 or 9's underline
    symbol_y: float
    symbol_mm: float
    label_y: float


FIELD_VALUE = ValueIndex(15.6, (16.5, 13.5), 4.2, 16.3, 8.2, 7.0, 17.2)
"""The index field (pale or full), which leaves room for the game's emblem."""


def _value_index(c: Canvas, card: cat.Card, ink: Color, x: float, sym_x: float, label_x: float,
                 at: ValueIndex) -> None:
    """The value large at ``x``, its colour's symbol at ``sym_x`` and the colour's name under it
    (centred on ``label_x``, pushed left of the safe line if long; never smaller than a player reads)."""
    value = str(card.deck if card.kind == "seat" else card.value)
    size = at.value_pt[0] if len(value) == 1 else at.value_pt[1]
    text(c, value, x, at.value_y, size, colour=ink, max_width=sym_x - at.value_gap - x)
    _underline_6_9(c, value, x, size, ink, at.underline_y)
    shape = "hill" if card.kind == "hill" else cat.COLOURS[card.colour].symbol
    _fill(c, ink)
    draw_symbol(c, shape, sym_x, at.symbol_y, at.symbol_mm)
    label = _index_label(card)
    size = 2.8
    half = text_width(label, size) / 2
    text(c, label, min(label_x, CW - SAFE_MM - 0.3 - half), at.label_y, size, anchor="centre", colour=ink)


FACES = {"art": "pale fields in the card's colour with the game's art, white around the codes",
         "plain": "pale fields in the card's colour, white around the codes",
         "colour": "index strips as colour fields"}
"""The face designs: ``--faces art`` (pale index fields with the game's art on them: a wheel, the
seven hills, a gladiator's shield, Prussia's cross, a chain; ``printables.art``), ``--faces plain``
(the pale index fields in the card's colour alone, which the camera's thresholds take for paper, so
they read as white faces do) or ``--faces colour`` (full colour fields: bolder, and read a little
worse from a screen and under glare, docs/figures.md)."""
DEFAULT_FACES = "art"
"""The design ``companion print`` and the Print page use unless told otherwise."""

FIELD = (PAD_MM + CORNER_MM + 0.4, FRAME_MM, CW - FRAME_MM, cat.QR_TOP_MM - cat.QR_QUIET_MM - 0.4)
"""The index's colour field (x0, y0, x1, y1): right of the marker's white corner (its 2.2 mm quiet zone
and 0.4 mm more), down to 0.4 mm above the QR code's white quiet zone; the bottom index is it turned."""
PRUSSIA_FIELD = "#3464aa"   # the frame's Prussian blue (luma 0.13) is too dark for a field (FIELD_LUMA)


def hue_of(card: cat.Card) -> Color | None:
    """The hue of a face's index field and art: the card's colour (tribe, player, deck owner, Hills'
    red and blue), the hills' green, Prussia's blue; None for playing cards and jokers."""
    if card.kind in ("playing", "joker"):
        return None
    if card.colour:
        return HexColor(cat.COLOURS[card.colour].hex)
    if card.kind == "hill":
        return HexColor(STYLES["hills"].frame)
    return HexColor(PRUSSIA_FIELD if card.game == "prussia" else style_of(card.id).frame)


def field_of(card: cat.Card, faces: str = "colour") -> Color | None:
    """The colour of a face's index field: the card's hue (``hue_of``), full (``faces="colour"``) or
    pale (``"plain"`` and ``"art"``, ``PALE_LUMA``); None for playing cards and jokers, which stay white
    as a deck of cards is."""
    hue = hue_of(card)
    return None if hue is None else field(hue, FIELD_LUMA if faces == "colour" else PALE_LUMA)


def art_of(card: cat.Card, faces: str) -> str | None:
    """The game's art on a face's index fields (``printables.art``): only with ``faces="art"``, only
    on a field (not on playing cards and jokers) and not on tokens."""
    if faces != "art" or hue_of(card) is None:
        return None
    return "flag" if card.kind == "nation" else ART_OF_GAME.get(card.game)


def _art(c: Canvas, card: cat.Card, centre: float, nation: str = "") -> None:
    """The game's art on the index field (under its marks), centred across at ``centre``; a nation
    card's is its ``nation``'s flag."""
    art = art_of(card, "art")
    if art is not None:
        highlight = nation if art == "flag" else card.value if card.kind == "hill" else 0
        c.doForm(art_form(c, art, hue_of(card), FIELD, 2.2, centre, highlight))


def _field(c: Canvas, colour: Color, x0: float = FIELD[0], x1: float = FIELD[2]) -> None:
    c.setFillColor(colour)
    c.roundRect(x0, FIELD[1], x1 - x0, FIELD[3] - FIELD[1], 2.2, stroke=0, fill=1)


def _index_label(card: cat.Card) -> str:
    """The words under an index's symbol: the colour's name, or hill, seat, deck N (EN and JA)."""
    label = {"hill": "hill 丘", "seat": "seat 席", "pairs": f"deck {card.deck} デッキ"}.get(card.kind)
    if label is None:
        col = cat.COLOURS[card.colour]
        label = f"{col.name} {col.ja}"
    return label


def _card_index(c: Canvas, card: cat.Card) -> None:
    """A playing card's or joker's top strip on white, as a deck of cards has: rank and suit (red ♥ ♦)
    or the joker's star, and Prussia's crown."""
    ink = colour_of(card)
    x, right = INDEX_X, EMBLEM_X - EMBLEM_MM / 2 - 1.0
    if card.kind == "playing":
        text(c, card.rank, x, 16.6, 16, colour=ink, max_width=19)
        _underline_6_9(c, card.rank, x, 16, ink)
        text(c, cat.SUIT_SYMBOLS[card.suit], right - 4.5, 15.8, 12.5, anchor="centre", colour=ink)
    elif card.kind == "joker":
        _fill(c, ink)
        draw_symbol(c, "star", x + 5.5, 9.5, 11)
        text(c, "JOKER", x + 12.5, 10, 5.2, max_width=right - x - 12.5)
        text(c, "ジョーカー", x + 12.5, 16.5, 4.0, max_width=right - x - 12.5)
    else:
        raise ValueError(f"no white index for {card.kind} cards ({card.id})")
    draw_emblem(c, style_of(card.id).emblem, EMBLEM_X, 10.2, EMBLEM_MM, HexColor(style_of(card.id).ink))


def ground_of(card: cat.Card, faces: str) -> Color | None:
    """The darkest ground an index's marks lie on: the field, or the art's darker tone on it (on a
    nation card the darkest of its flag's tones, ``art.flag_tones``)."""
    art = art_of(card, faces)
    if art == "flag":
        return min((field(hue_of(card), ART_LUMA), *flag_tones(nation_of(card)["name"])), key=luminance)
    if art is not None:
        return field(hue_of(card), ART_LUMA)
    return field_of(card, faces)


def nation_of(card: cat.Card) -> dict:
    """A nation card's nation (``companion/data/nations.json``): its names, rank, clock and strengths."""
    return next(n for n in cat.default_nations()["nations"] if cat.nation_card_id(n) == card.id)


def _inks(card: cat.Card, ground: Color, faces: str) -> tuple[Color, Color]:
    """(value's ink, emblem's ink) on a field: white or ink on a full colour field; on a pale one the
    card's own colour and the game's ink, each darkened just enough to stand 3:1 on it (and on the
    art's darker tone, ``ground_of``)."""
    if faces == "colour":
        return on_colour(ground), on_colour(ground)
    ground = ground_of(card, faces)
    return legible(colour_of(card), ground), legible(HexColor(style_of(card.id).ink), ground)


def _index(c: Canvas, card: cat.Card, faces: str = DEFAULT_FACES) -> None:
    """The top strip beside the marker: what a player fanning a hand or reading a cascade sees. A
    field in the card's colour (pale by default, full with ``faces="colour"``) with the game's art on
    it (``faces="art"``, the default), the value large, its symbol, its name and the game's emblem;
    playing cards and jokers stay white."""
    ground = field_of(card, faces)
    if ground is None:
        _card_index(c, card)
        return
    style = style_of(card.id)
    _field(c, ground)
    if faces == "art":
        _art(c, card, (ART_X0 + FIELD[2]) / 2)
    ink, emblem_ink = _inks(card, ground, faces)
    x = FIELD[0] + 1.4
    # the game's emblem, large, at right (its outline stays 0.5 mm inside the field)
    emblem_x, emblem_y, emblem_mm = CW - SAFE_MM - 6.2, 8.4, 11.0
    sym_x = emblem_x - emblem_mm / 2 - 5.0
    if card.kind in VALUE_KINDS:
        # the label under the symbol and the emblem
        _value_index(c, card, ink, x, sym_x, (sym_x + emblem_x) / 2, FIELD_VALUE)
    elif card.kind == "banner":
        _fill(c, ink)
        draw_symbol(c, "flag", x + 5, 10.0, 11)
        right = emblem_x - emblem_mm / 2 - 1.0
        text(c, "banner", x + 11.5, 9.5, 4.0, colour=ink, max_width=right - x - 11.5)
        worth = "0" if card.game == "hills" else "×2"
        text(c, f"軍旗 {worth}", x + 11.5, 16.2, 4.6, colour=ink, max_width=right - x - 11.5)
    elif card.kind == "era":
        face = cat.ERA_FACES[card.value - 1]
        right = emblem_x - emblem_mm / 2 - 1.5
        text(c, face, x, 15.6, 15, colour=ink, max_width=15)
        text(c, "時代", right, 10, 5.2, anchor="right", colour=ink)
        text(c, f"era {face}", right, 16.5, 3.4, anchor="right", colour=ink)
    else:
        raise ValueError(f"no face design for {card.kind} cards ({card.id})")
    draw_emblem(c, style.emblem, emblem_x, emblem_y, emblem_mm, emblem_ink, paper=ground)


def _frame(c: Canvas, colour: str, pattern: str, bleed: float, x0: float = 0.0, y0: float = 0.0,
           x1: float = CW, y1: float = CH) -> None:
    """The frame's colour and pattern over (x0, y0)–(x1, y1), run ``bleed`` beyond the card's edges."""
    x0, y0 = (x0 - bleed if x0 <= 0 else x0), (y0 - bleed if y0 <= 0 else y0)
    x1, y1 = (x1 + bleed if x1 >= CW else x1), (y1 + bleed if y1 >= CH else y1)
    c.saveState()
    area = c.beginPath()
    area.rect(x0, y0, x1 - x0, y1 - y0)
    c.clipPath(area, stroke=0, fill=0)
    c.setFillColor(HexColor(colour))
    c.rect(x0, y0, x1 - x0, y1 - y0, stroke=0, fill=1)
    c.doForm(pattern_form(c, pattern, colour))   # drawn once a document, shown on every card
    c.restoreState()


def _white_corners(c: Canvas, all_four: bool = True) -> None:
    """White index corners: the markers keep their quiet zone (as on the backs, 2.2 mm of white
    around each, 0.8 mm from the cut), and all four corners match (``all_four``; a face with colour
    fields keeps the markers' two, the fields take the others). Their lower edge is the cascade
    guide: the side bars start there."""
    c.setFillColor(white)
    for x in (PAD_MM, CW - PAD_MM - CORNER_MM):
        if all_four or x == PAD_MM:
            c.roundRect(x, PAD_MM, CORNER_MM, CASCADE - PAD_MM, 1.6, stroke=0, fill=1)
        if all_four or x != PAD_MM:
            c.roundRect(x, CH - CASCADE, CORNER_MM, CASCADE - PAD_MM, 1.6, stroke=0, fill=1)


def _card_frame(c: Canvas, card: cat.Card, bleed: float, faces: str = DEFAULT_FACES) -> DeckStyle:
    """The deck's frame around a white panel, with wide bars beside the QR code's quiet zone."""
    style = style_of(card.id)
    _frame(c, style.frame, style.pattern, bleed)
    c.setFillColor(white)   # the panel leaves the frame showing as bars beside the QR's quiet zone
    for y in (FRAME_MM, CH - CASCADE - 2.2):
        c.roundRect(FRAME_MM, y, CW - 2 * FRAME_MM, CASCADE - FRAME_MM + 2.2, 2.2, stroke=0, fill=1)
    c.rect(BAR_MM, CASCADE, CW - 2 * BAR_MM, CH - 2 * CASCADE, stroke=0, fill=1)
    _white_corners(c, all_four=field_of(card, faces) is None)
    # the cascade guide: a small notch where each bar starts, 20 mm from either end
    c.setFillColor(white)
    for y, sign in ((CASCADE, 1), (CH - CASCADE, -1)):
        for x, dx in ((0.0, 1), (CW, -1)):
            p = c.beginPath()
            p.moveTo(x - dx * bleed, y)
            p.lineTo(x + dx * 1.6, y)
            p.lineTo(x - dx * bleed, y + sign * (1.6 + bleed))
            p.close()
            c.drawPath(p, stroke=0, fill=1)
    return style


def bar_text(c: Canvas, s: str, left: bool, size: float, colour: Color) -> None:
    """Latin text along a side bar, centred between the safe line and the white panel: reading up the
    left bar or down the right one (its glyphs reach 0.8 em above the baseline, 0.17 below)."""
    width = text_width(s, size)
    if width > SIDE_LEN:
        size = size * SIDE_LEN / width
    offset = 0.315 * size          # from the middle of the glyphs to their baseline
    x = BAR_TEXT_X + offset if left else CW - BAR_TEXT_X - offset
    text(c, s, x, SIDE_MID_Y, size, anchor="centre", colour=colour, rotate=-90 if left else 90)


def _bars(c: Canvas, style: DeckStyle, english: str, japanese: str) -> None:
    """The bars beside the QR code: English reads up the left bar, Japanese runs upright down the
    right bar (縦書き); both stay inside the safe zone and within the bar's length."""
    ink = HexColor(style.on_frame)
    bar_text(c, english, True, TITLE_MM, ink)
    vertical_text(c, japanese, CW - BAR_TEXT_X, SIDE_MID_Y, TITLE_MM, colour=ink, max_len=SIDE_LEN)


def _qr(c: Canvas, card: cat.Card) -> None:
    _fill(c, INK)
    draw_cells(c, qr_matrix(card.payload), cat.qr_rect(card.id))


def _strength_box(c: Canvas, x: float, y: float, era: str, strength: int, ground: Color | None = None) -> None:
    """A nation's strength in an era, in a ruled box: white on a full field, else unfilled on ``ground``
    (a pale field, whose grey the era's label is darkened to stand 3:1 on)."""
    c.setFillColor(white)
    c.setStrokeColor(HexColor(STYLES["prussia"].ink))
    c.setLineWidth(0.3)
    c.roundRect(x, y, 11, 15, 1.2, stroke=1, fill=int(ground is None))
    text(c, era, x + 5.5, y + 4, 2.8, anchor="centre", colour=GREY if ground is None else legible(GREY, ground))
    text(c, str(strength), x + 5.5, y + 13.2, 9, anchor="centre", max_width=10)


def _nation(c: Canvas, card: cat.Card, faces: str = DEFAULT_FACES) -> None:
    """A nation: strength of era I top-left, II top-right, III bottom-right, IV bottom-left, in boxes
    on Prussia's blue fields (pale by default, white boxes on full ones with ``faces="colour"``)."""
    nation = nation_of(card)
    s = nation["strength"]
    ground = field_of(card, faces)
    on = on_colour(ground)
    box_on = None if faces == "colour" else ground    # white boxes on a full field, ruled ones on a pale one
    top, bottom = FIELD[1] + 0.6, CH - FIELD[1] - 0.6 - 15
    left_box, right_box = FIELD[0] + 0.6, FIELD[2] - 0.6 - 11

    def field_and_art() -> None:
        _field(c, ground)
        if faces == "art":        # the nation's flag between the two boxes, clear of both
            _art(c, card, (left_box + 11 + right_box) / 2, nation["name"])
    field_and_art()
    _rotated(c, field_and_art)
    if faces == "art":
        box_on = ground_of(card, faces)
    _strength_box(c, left_box, top, "I", s[0], box_on)
    _strength_box(c, right_box, top, "II", s[1], box_on)
    _strength_box(c, CW - left_box - 11, bottom, "III", s[2], box_on)
    _strength_box(c, CW - right_box - 11, bottom, "IV", s[3], box_on)
    left, right = left_box + 11, right_box     # between the two boxes
    rank_size = 10 if len(nation["rank"]) == 1 else 8
    width = text_width(nation["rank"], rank_size) + 0.8 + text_width(nation["abbr"], 6.5)
    x = (left + right - width) / 2
    text(c, nation["rank"], x, 13.5, rank_size, colour=on)
    text(c, nation["abbr"], x + width, 13.2, 6.5, anchor="right", colour=on)
    where = ("中央", "centre") if nation["position"] == 0 else (f"{nation['position']}時",
                                                              f"{nation['position']} o'clock")
    low_mid = (CW - right_box + CW - left_box - 11) / 2
    text(c, where[0], low_mid, 78.5, 4.2, anchor="centre", colour=on)
    text(c, where[1], low_mid, 83.5, 2.6, anchor="centre", colour=on, max_width=15)
    ink = HexColor(STYLES["prussia"].on_frame)
    vertical_text(c, nation["ja"], BAR_TEXT_X, SIDE_MID_Y, PLAYER_TEXT_MM, colour=ink, max_len=SIDE_LEN)
    bar_text(c, f"{nation['name']} · {nation['de']}", False, PLAYER_TEXT_MM, ink)


def _names(card: cat.Card, style: DeckStyle) -> tuple[str, str]:
    """What the bars say: the game's title and the card's name, in English and in Japanese."""
    if card.kind == "era":
        english, japanese = ERAS[card.value]
        return f"{style.title} · {english}", japanese
    return f"{style.title} · {card.name}", f"{style.title_ja} {card.ja.replace(': ', '・')}"


def draw_face(c: Canvas, card_id: str, bleed: float = 0.0, faces: str = DEFAULT_FACES) -> None:
    """Draw a card's face: the deck's frame, index strips and emblem, the markers in both index
    corners and the QR code; the frame runs ``bleed`` mm beyond the cut. ``faces``: "art" (pale fields
    with the game's art, the default), "plain" (pale fields alone) or "colour" (full colour fields,
    ``FACES``)."""
    if faces not in FACES:
        raise ValueError(f"unknown faces {faces!r}: choose {' or '.join(FACES)}")
    card = cat.card(card_id)
    if card_id == "W-PAWN":
        draw_pawn(c)
        return
    style = _card_frame(c, card, bleed, faces)
    if card.kind == "nation":
        _nation(c, card, faces)
    else:
        _index(c, card, faces)
        _rotated(c, lambda: _index(c, card, faces))
        _bars(c, style, *_names(card, style))
    _markers(c, card_id, card.marker)
    _qr(c, card)


def draw_pawn(c: Canvas) -> None:
    """The Wheel of History pawn: a square token with one centred marker and a thin cut line; its
    lettering keeps the safe zone from that line."""
    size = cat.PAWN_TOKEN_MM
    c.setStrokeColor(HexColor(STYLES["wheel"].frame))
    c.setLineWidth(0.5)
    c.rect(0.25, 0.25, size - 0.5, size - 0.5, stroke=1, fill=0)
    _markers(c, "W-PAWN", cat.card("W-PAWN").marker)
    text(c, "pawn · ポーン", size / 2, 6.3, 2.8, anchor="centre", max_width=size - 2 * SAFE_MM)
    text(c, "歴史の車輪 · Wheel", size / 2, size - 4.3, PLAYER_TEXT_MM, anchor="centre", colour=GREY,
         max_width=size - 2 * SAFE_MM)


SEAL_X = (SAFE_MM + CW - cat.MARKER_INSET_MM - cat.MARKER_MM - 2.2) / 2   # a player's deck's seal on
SEAL_Y, SEAL_R = 75.5, 8.8                     # its back: left of the bottom marker's white box
def draw_pawn_back(c: Canvas) -> None:
    """The pawn token's back: the Wheel's frame colour and pattern, 1.5 mm beyond its cut line (a
    cut a little off shows no white), and the laurel in white; no marker, so it never reads."""
    style, size = STYLES["wheel"], cat.PAWN_TOKEN_MM
    _frame(c, style.frame, style.pattern, 0.0, -1.5, -1.5, size + 1.5, size + 1.5)
    draw_emblem(c, style.emblem, size / 2, size / 2, 14, white, paper=HexColor(style.frame))


BACK_EMBLEM = {"B-PLAY": "suits"}
"""Backs whose emblem is not their game's: Prussia's playing cards show the four suits, so a nation
card's back (the crown) and a playing card's are sorted apart at a glance."""


def draw_back(c: Canvas, back_id: str, bleed: float = 0.0, faces: str = DEFAULT_FACES) -> None:
    """Draw a deck's back: the game's frame colour and pattern (so backs of different games differ in
    colour, greyscale and emblem), its emblem, title and which deck, a player's deck's colour and
    symbol in a seal, and the deck marker in both corners."""
    back = cat.card(back_id)
    if back.kind != "back":
        draw_face(c, back_id, bleed, faces)   # era cards are double-sided: the back is the other era's face
        return
    style = style_of(back_id)
    field = HexColor(style.frame)
    _frame(c, style.frame, style.pattern, bleed)
    if back_id == "B-PLAY":    # a playing-card back's classic white rule, inside the safe zone
        c.setStrokeColor(white)
        c.setLineWidth(0.6)
        c.roundRect(SAFE_MM + 1.2, SAFE_MM + 1.2, CW - 2 * SAFE_MM - 2.4, CH - 2 * SAFE_MM - 2.4, 2.5,
                    stroke=1, fill=0)
    c.setFillColor(white)
    for rect in cat.marker_rects(back_id):
        c.roundRect(rect.x - 2.2, rect.y - 2.2, rect.w + 4.4, rect.h + 4.4, 1.2, stroke=0, fill=1)
    draw_emblem(c, BACK_EMBLEM.get(back_id, style.emblem), CW / 2, 29, 19, HexColor(style.on_frame),
                paper=field)
    # the titles on a plain cartouche of the field's own colour (not white: white common to every
    # deck's back would pull their greyscale apart less), framed by a rule in the lettering's colour
    on = HexColor(style.on_frame)
    c.setFillColor(field)
    c.setStrokeColor(on)
    c.setLineWidth(0.4)
    c.roundRect(6, 41, CW - 12, 22, 2.5, stroke=1, fill=1)
    text(c, style.title_ja, CW / 2, 48.6, 5.2, anchor="centre", colour=on, max_width=CW - 16)
    text(c, style.title, CW / 2, 54.2, 3.4, anchor="centre", colour=on, max_width=CW - 16)
    name, ja = cat.BACKS[back_id][1], cat.BACKS[back_id][2]
    if ": " in name:     # which deck of the game: a colour, nations, playing cards, a player's deck
        text(c, f"{ja.split(': ', 1)[1]} · {name.split(': ', 1)[1]}", CW / 2, 60, 3.0, anchor="centre",
             colour=on, max_width=CW - 16)
    if back.colour:   # the owner's seal: their colour and symbol, so decks sort without colour vision
        owner = HexColor(cat.COLOURS[back.colour].hex)
        c.setFillColor(white)
        c.circle(SEAL_X, SEAL_Y, SEAL_R + 1.2, stroke=0, fill=1)
        c.setFillColor(owner)
        c.circle(SEAL_X, SEAL_Y, SEAL_R, stroke=0, fill=1)
        _fill(c, on_colour(owner))
        draw_symbol(c, cat.COLOURS[back.colour].symbol, SEAL_X, SEAL_Y, 10)
    _markers(c, back_id, back.marker)
