"""Print-ready PDFs: which cards each target prints, sheets of as many cards as the paper holds
(with their bleed, inside the printer's margin) with cut marks and duplex backs, one card a page
for print services (TrimBox and BleedBox), the calibration sheet, and sticker sheets for cards a
user already owns."""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from typing import Any

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from companion import catalogue as cat
from companion.catalogue import CARD_HEIGHT_MM as CH, CARD_WIDTH_MM as CW
from companion.i18n import N_, both, tr
from printables.faces import DEFAULT_FACES, FACES, GREY, INK, colour_of, draw_back, draw_face, draw_pawn, draw_pawn_back, text
from printables.fonts import register_font
from printables.marks import draw_cells, draw_symbol, marker_matrix, qr_matrix
from printables.press import CONFORMANCE, press_canvas

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Paper sizes in millimetres (portrait)."""
PRINTER_MARGIN_MM = 5.0   # most printers cannot print closer to the paper's edge
DEFAULT_BLEED_MM = 3.0    # 1/8 inch: what print shops and print-and-play files use
MAX_BLEED_MM = 6.0
TARGETS = ("wheel", "hills", "spartacus", "prussia", "chains", "tokens", "stickers")
TITLES = {"wheel": "Wheel of History · 歴史の車輪", "hills": "Seven Hills of Rome · ローマ七丘",
          "spartacus": "Spartacus · スパルタクス", "prussia": "Prussia · 輪る七年戦争",
          "chains": "Chains · チェーンズ", "tokens": "Seat tokens and calibration sheet (K-CAL) · 席トークンと較正シート(K-CAL)",
          "stickers": "Stickers for Pairs decks · ペアーズのデッキ用ステッカー"}
PLAYERS = {"spartacus": (3, len(cat.SPARTACUS_COLOURS), 5), "chains": (1, cat.CHAINS_DECKS, 5),
           "tokens": (1, 10, 10), "stickers": (0, cat.CHAINS_DECKS, 1)}
"""Target → (fewest, most, default) for ``--players``: colour sets, Pairs decks, seat tokens, or
sticker sets for Pairs decks."""
CUT_MARK_MM = 5.0


class PrintError(ValueError):
    """Bad print options; the message says what to do, in the command line's language (``str``) and
    in both (``words``, for a page in either), from the catalogue."""

    def __init__(self, msgid: str, **values: Any) -> None:
        """The message ``msgid`` (marked with ``N_``) filled with ``values``."""
        self.words = both(msgid, **values)
        super().__init__(tr(msgid, **values))


@dataclass(frozen=True)
class Slot:
    """One physical card on a sheet: the face printed on the front page and what lands behind it."""

    front: str
    back: str | None


@dataclass(frozen=True)
class Printed:
    """A written PDF and what is in it."""

    path: Path
    target: str
    cards: int
    pages: int
    extra: str = ""

    def summary(self) -> str:
        """One line for people: the file, its cards and pages."""
        return f"{self.path}: {TITLES[self.target]}: {self.cards} {self.extra or 'cards'}, {self.pages} pages"


def players_for(target: str, players: int | None) -> int | None:
    """The player count a target prints for, checked against its range (None: not counted)."""
    if target not in PLAYERS:
        if players is not None:
            raise PrintError(N_("--players does not apply to {target}: it always prints the full set "
                                "(it applies to spartacus, chains, tokens and stickers)"), target=target)
        return None
    low, high, default = PLAYERS[target]
    if players is None:
        return default
    if not low <= players <= high:
        what = {"spartacus": N_("colour sets"), "chains": N_("Pairs decks"), "tokens": N_("seat tokens"),
                "stickers": N_("Pairs decks to label")}[target]
        raise PrintError(N_("{target} prints {low}–{high} {what}: --players {players} is out of range"),
                         target=target, low=low, high=high, what=both(what), players=players)
    return players


def slots(target: str, players: int | None = None) -> list[Slot]:
    """The cards a target prints, in sheet order, each with the back behind it."""
    n = players_for(target, players)
    if target == "wheel":
        return [Slot(c.id, cat.back_of(c)) for c in cat.cards_of("wheel", "number")] + [Slot("W-PAWN", "W-PAWN")]
    if target == "hills":
        return [Slot(c.id, cat.back_of(c)) for c in cat.cards_of("hills")]
    if target == "spartacus":
        colours = cat.SPARTACUS_COLOURS[:n]
        return [Slot(c.id, cat.back_of(c)) for c in cat.cards_of("spartacus") if c.colour in colours]
    if target == "prussia":
        nations = [Slot(c.id, cat.back_of(c)) for c in cat.cards_of("prussia", "nation")]
        eras = [Slot(front, back) for front, back in cat.ERA_PAIRS]   # two double-sided era cards
        deck = [Slot(c.id, cat.back_of(c)) for c in cat.cards_of("prussia")
                if c.kind in ("playing", "joker")]
        return nations + eras + deck
    if target == "chains":
        return [Slot(c.id, cat.back_of(c)) for c in cat.cards_of("chains") if c.deck <= n]
    if target == "tokens":   # the Wheel pawn is printed with its game only: one marker id, one token
        return [Slot(c.id, cat.back_of(c)) for c in cat.cards_of("table", "seat")[:n]]
    raise _unknown_target(target)


def _unknown_target(target: str) -> PrintError:
    return PrintError(N_("unknown target {target!r}: choose one of {targets} or all"), target=target,
                      targets=", ".join(TARGETS))


@dataclass(frozen=True)
class Place:
    """Where one card sits on a page: the top-left corner of its cut outline (millimetres from the
    page's top-left) and its turn: 0 upright, 90 with its top to the right, -90 to the left."""

    x: float
    y: float
    turn: int = 0

    @property
    def size(self) -> tuple[float, float]:
        """The card's outline on the page (width, height): a turned card lies on its side."""
        return (CH, CW) if self.turn else (CW, CH)


@dataclass(frozen=True)
class SheetLayout:
    """Where the cards of a sheet go on the page: as many as fit inside the printer's margin, each
    with its own bleed (so neighbours stand 2 × bleed apart), upright or all turned on their side,
    whichever holds more."""

    paper: str
    bleed: float = DEFAULT_BLEED_MM

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise unknown_paper(self.paper)
        if not 0 <= self.bleed <= MAX_BLEED_MM:
            raise PrintError(N_("--bleed {bleed} mm is out of range: give 0–{most} mm (print shops ask for "
                                "{usual} mm, the default)"), bleed=f"{self.bleed:g}", most=f"{MAX_BLEED_MM:g}",
                             usual=f"{DEFAULT_BLEED_MM:g}")

    @property
    def page(self) -> tuple[float, float]:
        """Page (width, height) in millimetres."""
        return PAPERS[self.paper]

    @cached_property
    def grid(self) -> tuple[int, int, bool]:
        """(columns, rows, turned): the most cards that fit; upright when a tie."""
        w, h = (v - 2 * PRINTER_MARGIN_MM for v in self.page)
        best = []
        for turned in (False, True):
            cw, ch = (CH, CW) if turned else (CW, CH)
            cols, rows = int(w // (cw + 2 * self.bleed)), int(h // (ch + 2 * self.bleed))
            best.append((cols * rows, not turned, cols, rows, turned))
        _, _, cols, rows, turned = max(best)
        return cols, rows, turned

    @property
    def per_sheet(self) -> int:
        """Cards on one sheet."""
        cols, rows, _ = self.grid
        return cols * rows

    @property
    def cell(self) -> tuple[float, float]:
        """A card's outline on the page with its bleed on every side."""
        turned = self.grid[2]
        w, h = (CH, CW) if turned else (CW, CH)
        return (w + 2 * self.bleed, h + 2 * self.bleed)

    @property
    def margins(self) -> tuple[float, float]:
        """Blank paper left/right and top/bottom of the grid (bleed included in the grid)."""
        (w, h), (cw, ch) = self.page, self.cell
        cols, rows, _ = self.grid
        return ((w - cols * cw) / 2, (h - rows * ch) / 2)

    def front(self, index: int) -> Place:
        """Where the card in slot ``index`` goes on a front page."""
        (mx, my), (cw, ch) = self.margins, self.cell
        cols, _, turned = self.grid
        col, row = index % cols, index // cols
        return Place(mx + col * cw + self.bleed, my + row * ch + self.bleed, 90 if turned else 0)

    def back(self, index: int) -> Place:
        """Where the back of slot ``index`` goes: long-edge duplex mirrors left-right (a turned
        card's back is turned the other way, so its top lies behind its front's top)."""
        front = self.front(index)
        return Place(self.page[0] - front.x - front.size[0], front.y, -front.turn)

    def describe(self) -> str:
        """For people: how the sheet is laid out."""
        cols, rows, turned = self.grid
        side = ", on their side" if turned else ""
        return f"{cols} × {rows} a sheet{side}, {self.bleed:g} mm bleed"


def _at(c: Canvas, page_h: float, x: float, y: float) -> None:
    """Make the canvas draw in millimetres from (x, y) on the page, y down."""
    c.translate(x * mm, (page_h - y) * mm)
    c.scale(mm, -mm)


def _turn(c: Canvas, place: Place) -> None:
    """After ``_at(place)``: turn the canvas so the card draws in its own millimetres."""
    if place.turn == 90:        # the card's top edge along the right of its outline
        c.translate(CH, 0)
        c.rotate(90)
    elif place.turn == -90:     # … along the left
        c.translate(0, CW)
        c.rotate(-90)


NOTE_X = PRINTER_MARGIN_MM + 2.0   # the page's note runs down the left margin, inside what prints


def _cut_marks(c: Canvas, layout: SheetLayout, places: list[Place]) -> None:
    """Short lines in the margins on the extension of every cut; they never touch a card's bleed
    and stay inside the printer's margin."""
    w, h = layout.page
    mx, my = layout.margins
    xs = sorted({round(p.x, 4) for p in places} | {round(p.x + p.size[0], 4) for p in places})
    ys = sorted({round(p.y, 4) for p in places} | {round(p.y + p.size[1], 4) for p in places})
    c.saveState()
    _at(c, h, 0, 0)
    c.setStrokeColor(INK)
    c.setLineWidth(0.2)
    gap = 1.0
    length = min(CUT_MARK_MM, my - gap - PRINTER_MARGIN_MM)
    if length > 0.5:
        for x in xs:
            c.line(x, my - gap, x, my - gap - length)
            c.line(x, h - my + gap, x, h - my + gap + length)
    length = min(CUT_MARK_MM - 2, mx - gap - NOTE_X - 0.8)
    if length > 0.5:
        for y in ys:   # shorter at the sides: the page's note runs down the left margin
            c.line(mx - gap, y, mx - gap - length, y)
            c.line(w - mx + gap, y, w - mx + gap + length, y)
    c.restoreState()


def _margin_note(c: Canvas, layout: SheetLayout, note: str) -> None:
    w, h = layout.page
    c.saveState()
    _at(c, h, 0, 0)
    text(c, note, NOTE_X, h / 2, 2.2, anchor="centre", colour=GREY, rotate=-90, max_width=h - 40)
    c.restoreState()


def _canvas(path: Path, page: tuple[float, float], title: str, duplex: bool, service: bool = False) -> Canvas:
    """A document with our font; ``service``: CMYK, an output intent and PDF/X-1a (``press``)."""
    register_font()
    make = press_canvas if service else Canvas
    c = make(str(path), pagesize=(page[0] * mm, page[1] * mm), pageCompression=1,
             initialFontName=register_font(), initialFontSize=10)
    if service:     # PDF/X asks every page for a TrimBox: a sheet is cut to cards from the page itself
        c.setTrimBox((0, 0, page[0] * mm, page[1] * mm))
    c.setTitle(f"Table Companion: {title}")
    c.setAuthor("Table Companion")
    c.setCreator("companion print")
    c.setViewerPreference("PrintScaling", "None")    # print at 100 %: the camera measures these
    c.setViewerPreference("Duplex", "DuplexFlipLongEdge" if duplex else "Simplex")
    return c


def _draw_card(c: Canvas, card_id: str, side: str, bleed: float, faces: str = DEFAULT_FACES) -> None:
    """One card in its own millimetres: the pawn token centred, a face, or a back."""
    if card_id == "W-PAWN":
        c.translate((CW - cat.PAWN_TOKEN_MM) / 2, (CH - cat.PAWN_TOKEN_MM) / 2)
        draw_pawn(c) if side == "front" else draw_pawn_back(c)
    elif side == "front":
        draw_face(c, card_id, bleed, faces)
    else:
        draw_back(c, card_id, bleed, faces)


def draw_card_sheets(c: Canvas, layout: SheetLayout, cards: list[Slot], title: str, faces: str = DEFAULT_FACES) -> int:
    """Draw the cards a sheet at a time, each front page followed by its back page; pages drawn."""
    w, h = layout.page
    n = layout.per_sheet
    sheets = [cards[i:i + n] for i in range(0, len(cards), n)]
    for number, sheet in enumerate(sheets, 1):
        for side in ("front", "back"):
            where = layout.front if side == "front" else layout.back
            places = [where(i) for i in range(len(sheet))]
            for slot, place in zip(sheet, places):
                card_id = slot.front if side == "front" else slot.back
                if card_id is None:
                    continue
                c.saveState()
                _at(c, h, place.x, place.y)
                _turn(c, place)
                _draw_card(c, card_id, side, layout.bleed, faces)
                c.restoreState()
            _cut_marks(c, layout, places)
            how = ("print at 100 % (actual size), double-sided, flip on long edge · 100 %・両面・長辺とじで印刷"
                   if side == "front" else "backs: this page prints behind the fronts before it · "
                                           "裏面: 前のページの裏に印刷されます")
            _margin_note(c, layout, f"Table Companion · {title} · sheet {number} of {len(sheets)} · "
                                    f"{side}s · {layout.describe()} · {how}")
            c.showPage()
    return 2 * len(sheets)


ORDERS = {"face-back": "face then back", "back-face": "back then face"}
"""--single's page order: each card's face page then its back page (the default), or its back first,
as some print services' single-file uploads ask."""


def _unknown_order(order: str) -> PrintError:
    return PrintError(N_("unknown page order {order!r}: choose {orders}"), order=order, orders=" or ".join(ORDERS))


def unknown_paper(paper: str) -> PrintError:
    return PrintError(N_("unknown paper {paper!r}: choose a4 or letter"), paper=paper)


def draw_single_cards(c: Canvas, cards: list[Slot], bleed: float, order: str = "face-back",
                      faces: str = DEFAULT_FACES) -> int:
    """One card a page, each page the card plus its bleed with the TrimBox on the cut line and the
    BleedBox on the page's edge (what print services ask for), face then back (or back then face,
    ``order``); pages drawn."""
    if order not in ORDERS:
        raise _unknown_order(order)
    w, h = CW + 2 * bleed, CH + 2 * bleed
    c.setPageSize((w * mm, h * mm))
    c.setTrimBox((bleed * mm, bleed * mm, (bleed + CW) * mm, (bleed + CH) * mm))
    c.setBleedBox((0, 0, w * mm, h * mm))
    for slot in cards:
        sides = (("front", slot.front), ("back", slot.back))
        for side, card_id in (sides if order == "face-back" else sides[::-1]):
            if card_id is not None:
                c.saveState()
                _at(c, h, bleed, bleed)
                _draw_card(c, card_id, side, bleed, faces)
                c.restoreState()
            c.showPage()
    return 2 * len(cards)


def calibration_origin(paper: str) -> tuple[float, float]:
    """Where K-CAL1's outer top-left corner is on the calibration page (mm from the page's top-left);
    ``catalogue.calibration_marker_rects()`` is relative to it."""
    w, h = PAPERS[paper]
    span_w, span_h = cat.CALIBRATION_SPAN_MM
    return ((w - span_w) / 2, (h - span_h) / 2)


def draw_calibration(c: Canvas, paper: str) -> None:
    """The calibration sheet: K-CAL1–4 in the corners and scales to check the print size."""
    w, h = PAPERS[paper]
    span_w, span_h = cat.CALIBRATION_SPAN_MM
    ox, oy = calibration_origin(paper)
    c.saveState()
    _at(c, h, 0, 0)
    c.setFillColor(INK)
    for card_id, rect in cat.calibration_marker_rects().items():
        placed = cat.Rect(ox + rect.x, oy + rect.y, rect.w, rect.h)
        c.setFillColor(INK)
        draw_cells(c, marker_matrix(cat.card(card_id).marker), placed)
        below = placed.y + placed.h + 4 if placed.y < h / 2 else placed.y - 2
        text(c, card_id, placed.x + placed.w / 2, below, 2.6, anchor="centre", colour=GREY)
    cx = w / 2
    text(c, "Calibration sheet · 較正シート", cx, oy + 24, 6, anchor="centre", max_width=span_w - 90)
    text(c, "Lay it flat on the table, fully in the camera's view.", cx, oy + 56, 3.6, anchor="centre",
         max_width=span_w - 10)
    text(c, "カメラに全体が写るよう、テーブルに平らに置いてください。", cx, oy + 62, 3.6,
         anchor="centre", max_width=span_w - 10)
    # a 100 mm scale: if it does not measure 100 mm, the printer scaled the page
    x0, y0 = cx - 50, oy + 90
    c.setStrokeColor(INK)
    for k in range(101):
        tick = 6 if k % 10 == 0 else 4 if k % 5 == 0 else 2.5
        c.setLineWidth(0.25 if k % 10 else 0.35)
        c.line(x0 + k, y0, x0 + k, y0 - tick)
        if k % 10 == 0:
            text(c, str(k // 10), x0 + k, y0 - 7.5, 2.8, anchor="centre")
    c.setLineWidth(0.35)
    c.line(x0, y0, x0 + 100, y0)
    text(c, "cm", x0 + 104, y0 - 7.5, 2.8)
    text(c, "This scale must measure exactly 100 mm. If not, print again at 100 % (actual size),",
         cx, y0 + 8, 3.2, anchor="centre", max_width=span_w - 10)
    text(c, "without “fit to page”.  このスケールが100 mmでなければ、拡大縮小なし(100 %)で印刷し直してください。",
         cx, y0 + 13.5, 3.2, anchor="centre", max_width=span_w - 10)
    # a bank card (ISO/IEC 7810 ID-1, 85.60 × 53.98 mm) must fit this frame exactly
    bx, by = cx - 42.8, y0 + 25
    c.setLineWidth(0.3)
    c.roundRect(bx, by, 85.6, 53.98, 3.18, stroke=1, fill=0)
    text(c, "A bank card (85.6 × 53.98 mm) fits this frame exactly.", cx, by + 25, 3.2, anchor="centre",
         max_width=80)
    text(c, "キャッシュカードがぴったり収まります。", cx, by + 31, 3.2, anchor="centre", max_width=80)
    c.restoreState()
    text_note = f"Table Companion · calibration sheet ({paper}) · markers {span_w:g} × {span_h:g} mm"
    c.saveState()
    _at(c, h, 0, 0)
    text(c, text_note, cx, h - oy - 3, 2.4, anchor="centre", colour=GREY)
    c.restoreState()
    c.showPage()


@dataclass(frozen=True)
class LabelSheet:
    """A common sheet of rectangular labels (millimetres)."""

    name: str
    w: float
    h: float
    cols: int
    rows: int
    left: float
    top: float
    pitch_x: float
    pitch_y: float

    def origin(self, index: int) -> tuple[float, float]:
        """Top-left corner of label ``index`` on the page."""
        per_page = self.cols * self.rows
        col, row = (index % per_page) % self.cols, (index % per_page) // self.cols
        return (self.left + col * self.pitch_x, self.top + row * self.pitch_y)


LABELS = {
    "a4": LabelSheet("Avery L7160 (A4, 21 labels of 63.5 × 38.1 mm, 3 × 7)", 63.5, 38.1, 3, 7,
                     7.2, 15.1, 66.0, 38.1),
    "letter": LabelSheet("Avery 5160 (Letter, 30 labels of 66.7 × 25.4 mm, 3 × 10)", 66.675, 25.4, 3, 10,
                         4.7625, 12.7, 69.85, 25.4),
}
"""The two most common address-label sheets; both hold a 15 mm marker and a QR code."""
STICKER_QUIET_MODULES = 2


def sticker_cards(decks: int) -> list[str]:
    """The cards that get a sticker: the Prussia playing cards and jokers, then Pairs decks 1..decks."""
    prussia = [c.id for c in cat.cards_of("prussia") if c.kind in ("playing", "joker")]
    return prussia + [c.id for c in cat.cards_of("chains") if c.deck <= decks]


def sticker_qr(label: LabelSheet) -> cat.Rect:
    """Where a sticker's QR code goes: as large as the label allows, right of the index."""
    total = cat.QR_MODULES + 2 * STICKER_QUIET_MODULES
    width = min(label.w, CW)          # a label wider than the card is trimmed at the card's edge
    module = min((label.h - 2.0) / total, (width - 34.0) / total)
    side = cat.QR_MODULES * module
    quiet = STICKER_QUIET_MODULES * module
    return cat.Rect(width - quiet - side - 0.5, (label.h - side) / 2, side, side)


def draw_sticker(c: Canvas, card_id: str, label: LabelSheet) -> None:
    """One label: the card's marker where a printed card has it (when the label is put flush with
    the card's top-left corner), its value for people, and its QR code."""
    card = cat.card(card_id)
    top_left = cat.marker_rects(card_id)[0]
    c.setFillColor(INK)
    draw_cells(c, marker_matrix(card.marker), top_left)
    qr = sticker_qr(label)
    draw_cells(c, qr_matrix(card.payload), qr)
    ink = colour_of(card)
    x, right = top_left.x + top_left.w + 2.5, qr.x - 2.5
    if card.kind == "playing":
        text(c, card.rank, x, 12.5, 11, colour=ink, max_width=right - x)
        text(c, cat.SUIT_SYMBOLS[card.suit], x, 21, 9, colour=ink)
    elif card.kind == "joker":
        text(c, "JOKER", x, 10.5, 4.2, max_width=right - x)
        c.setFillColor(ink)
        draw_symbol(c, "star", x + 4.5, 17, 8)
    else:
        text(c, str(card.value), x, 12.5, 11, colour=ink, max_width=right - x)
        c.setFillColor(ink)
        draw_symbol(c, cat.COLOURS[card.colour].symbol, x + 4, 18, 6)
    what = (f"輪る七年戦争 · Prussia {card.name}" if card.game == "prussia"
            else f"チェーンズ デッキ{card.deck} · Chains deck {card.deck}")
    text(c, what, top_left.x, min(label.h - 1.8, top_left.y + top_left.h + 5.6), 2.3, colour=GREY,
         max_width=right - top_left.x)
    if label.w > CW + 0.6:   # Letter labels are wider than a card: a line to trim the rest
        c.setStrokeColor(GREY)
        c.setLineWidth(0.15)
        c.setDash(0.6, 0.8)
        c.line(CW, 0.8, CW, label.h - 0.8)
        c.setDash()


def draw_sticker_sheets(c: Canvas, paper: str, cards: list[str]) -> int:
    """Draw one label per card on the paper's label sheet; pages drawn."""
    label = LABELS[paper]
    w, h = PAPERS[paper]
    per_page = label.cols * label.rows
    pages = 0
    for start in range(0, len(cards), per_page):
        for i, card_id in enumerate(cards[start:start + per_page]):
            x, y = label.origin(i)
            c.saveState()
            _at(c, h, x, y)
            draw_sticker(c, card_id, label)
            c.restoreState()
        c.saveState()
        _at(c, h, 0, 0)
        text(c, f"Table Companion stickers on {label.name} · print at 100 % (actual size), "
                f"one-sided · put each label flush with the card's top-left corner · "
                f"100 %・片面で印刷し、カードの左上の角に合わせて貼ってください",
             w / 2, label.top - 4, 2.3, anchor="centre", colour=GREY, max_width=w - 12)
        c.restoreState()
        c.showPage()
        pages += 1
    return pages


def default_path(target: str, single: bool = False, service: bool = False) -> Path:
    """Where a target's PDF goes when no --out is given."""
    return Path("out") / f"{target}{'-single' if single else ''}{'-cmyk' if service else ''}.pdf"


def check(target: str, *, players: int | None = None, paper: str = "a4", bleed: float = DEFAULT_BLEED_MM,
          out: str | os.PathLike | None = None, single: bool = False, order: str = "face-back",
          service: bool = False, faces: str = DEFAULT_FACES) -> tuple[int | None, Path]:
    """Check a target's options before anything is written: (player count, path) or PrintError."""
    if target not in TARGETS:
        raise _unknown_target(target)
    if faces not in FACES:
        raise PrintError(N_("unknown faces {faces!r}: choose {choices}"), faces=faces, choices=" or ".join(FACES))
    if order not in ORDERS:
        raise _unknown_order(order)
    if order != "face-back" and not single:
        raise PrintError(N_("--order is for --single (one card a page); sheets print each front page "
                            "before its back page for duplex"))
    if service and target == "stickers":
        raise PrintError(N_("--for-service writes cards for a print service; stickers are label sheets "
                            "you print yourself: print them without --for-service"))
    if paper not in PAPERS:
        raise unknown_paper(paper)
    if single and target == "stickers":
        raise PrintError(N_("--single prints cards one a page for print services; stickers are label "
                            "sheets: print them without --single"))
    n = players_for(target, players)
    path = Path(out) if out is not None else default_path(target, single)
    if path.suffix.lower() != ".pdf":
        raise PrintError(N_("--out {path}: give a file name ending in .pdf"), path=path)
    if target != "stickers":
        SheetLayout(paper, float(bleed))
    return n, path


def build(target: str, *, players: int | None = None, paper: str = "a4", bleed: float = DEFAULT_BLEED_MM,
          out: str | os.PathLike | None = None, single: bool = False, order: str = "face-back",
          service: bool = False, faces: str = DEFAULT_FACES) -> Printed:
    """Write one target's PDF and say what is in it; options are checked before anything is written.
    ``single``: one card a page with TrimBox and BleedBox, for print services (no paper size), its
    pages in ``order``; ``service``: CMYK with an output intent, PDF/X-1a:2003 (``press``); ``faces``:
    "art" (pale index fields with the game's art, the default), "plain" (pale fields alone) or "colour"
    (full colour fields; ``faces.FACES``)."""
    n, path = check(target, players=players, paper=paper, bleed=bleed, out=out, single=single, order=order,
                    service=service, faces=faces)
    if target == "stickers":
        cards = sticker_cards(n)
        path.parent.mkdir(parents=True, exist_ok=True)
        c = _canvas(path, PAPERS[paper], TITLES[target], duplex=False)
        pages = draw_sticker_sheets(c, paper, cards)
        c.save()
        return Printed(path, target, len(cards), pages, f"labels on {LABELS[paper].name}")
    layout = SheetLayout(paper, float(bleed))
    cards = slots(target, n)
    path.parent.mkdir(parents=True, exist_ok=True)
    press = f", CMYK, {CONFORMANCE}" if service else ""
    if single:
        c = _canvas(path, (CW + 2 * layout.bleed, CH + 2 * layout.bleed), TITLES[target], duplex=True,
                    service=service)
        pages = draw_single_cards(c, cards, layout.bleed, order, faces)
        c.save()
        return Printed(path, target, len(cards), pages,
                       f"cards one a page, {ORDERS[order]}, {layout.bleed:g} mm bleed, TrimBox and BleedBox{press}")
    c = _canvas(path, layout.page, TITLES[target], duplex=True, service=service)
    pages = draw_card_sheets(c, layout, cards, TITLES[target], faces)
    extra = f"cards ({layout.describe()}{press})"
    if target == "tokens":
        draw_calibration(c, paper)
        pages += 1
        extra = f"seat tokens ({layout.describe()}{press}) + the calibration sheet"
    c.save()
    return Printed(path, target, len(cards), pages, extra)
