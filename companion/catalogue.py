"""The card catalogue: every physical card, token and marker this project prints.

It is the single source of truth shared by ``printables`` (what to print on each card) and
``vision`` (what a decoded QR payload or marker id means). Every card has

* a stable ``id`` such as ``W-R5`` (Wheel of History, red 5), also used in moves;
* a ``payload``, ``"TC1:" + id``, which fits a version-1 QR code at level M (QR alphanumeric
  mode: upper-case letters, digits and ``-:.``; at most 20 characters);
* a ``marker`` id in OpenCV's ``DICT_5X5_1000`` ArUco dictionary (design.md: 15 mm 5×5 markers read
  at 1.4 px/mm; 1000 ids are enough for one id per physical card).

Card backs carry a deck marker only (``kind == "back"``), never a card's identity.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Iterator

PAYLOAD_PREFIX = "TC1:"
MARKER_DICTIONARY = "DICT_5X5_1000"
QR_MAX_PAYLOAD = 20  # alphanumeric characters of a version-1 QR code at error level M

# Physical card format shared by printing and vision (millimetres).
CARD_WIDTH_MM = 63.0
CARD_HEIGHT_MM = 88.0
MARKER_MM = 15.0            # design.md: 15 mm 5×5 markers read at 1.4 px/mm in a cascade
MARKER_INSET_MM = 3.0       # from the card's top and left edge to the marker's outer corner
CASCADE_GUIDE_MM = 20.0     # printed guide line: how far the next card may cover this one
MARKER_BITS = 7             # a 5×5 marker with its one-bit black border: 7 bits across MARKER_MM
QR_MODULES = 21             # a version-1 QR code
QR_MODULE_MM = 2.0          # design.md: ≥ ~3 px per module from a camera seeing ~1.5–2 px/mm
QR_MM = QR_MODULES * QR_MODULE_MM   # 42 mm, without its quiet zone
QR_QUIET_MM = 4.0           # white around the QR (2 modules): all the card's height allows
QR_TOP_MM = 23.0            # centred between the two 15 mm markers (18 … 70 mm from the top)
PAWN_TOKEN_MM = 30.0        # the Wheel pawn: a square token with one centred marker, no QR
CALIBRATION_MARKER_MM = 40.0            # the four K-CAL markers of the calibration sheet
CALIBRATION_SPAN_MM = (190.0, 250.0)    # outer size of the four-marker pattern (A4 and Letter)


@dataclass(frozen=True)
class Rect:
    """A printed square or rectangle in a card's millimetres: origin at the card's top-left corner,
    x to the right, y down (as in an image of the upright card). ``rotation`` (0 or 180 degrees)
    says how a marker is turned: at 0 the marker's first corner (OpenCV's corner 0) is the rect's
    top-left, at 180 it is the rect's bottom-right."""

    x: float
    y: float
    w: float
    h: float
    rotation: int = 0

    @property
    def centre(self) -> tuple[float, float]:
        """The rect's centre (x, y) in millimetres."""
        return (self.x + self.w / 2, self.y + self.h / 2)


def card_size_mm(card_id: str) -> tuple[float, float]:
    """Printed (width, height) of a card, back or token in millimetres (the pawn is a small token)."""
    if card_id == "W-PAWN":
        return (PAWN_TOKEN_MM, PAWN_TOKEN_MM)
    return (CARD_WIDTH_MM, CARD_HEIGHT_MM)


def marker_rects(card_id: str) -> tuple[Rect, ...]:
    """Where a card's (or back's) markers are printed: top-left upright and bottom-right turned
    180°, so the card reads the same either way up; the pawn token has one centred marker."""
    if card_id == "W-PAWN":
        off = (PAWN_TOKEN_MM - MARKER_MM) / 2
        return (Rect(off, off, MARKER_MM, MARKER_MM),)
    if card_id.startswith("K-CAL"):
        raise ValueError("calibration markers are on the calibration sheet: see calibration_marker_rects()")
    far_x = CARD_WIDTH_MM - MARKER_INSET_MM - MARKER_MM
    far_y = CARD_HEIGHT_MM - MARKER_INSET_MM - MARKER_MM
    return (Rect(MARKER_INSET_MM, MARKER_INSET_MM, MARKER_MM, MARKER_MM),
            Rect(far_x, far_y, MARKER_MM, MARKER_MM, 180))


def qr_rect(card_id: str) -> Rect | None:
    """Where a card face's QR code is printed (without its quiet zone); None for backs and the pawn."""
    if card_id == "W-PAWN" or card_id.startswith(("B-", "K-CAL")):
        return None
    return Rect((CARD_WIDTH_MM - QR_MM) / 2, QR_TOP_MM, QR_MM, QR_MM)


def calibration_marker_rects() -> dict[str, Rect]:
    """The calibration sheet's four markers (K-CAL1 top-left, 2 top-right, 3 bottom-right,
    4 bottom-left), in millimetres from the outer top-left corner of K-CAL1; all upright."""
    w, h = CALIBRATION_SPAN_MM
    m = CALIBRATION_MARKER_MM
    corners = ((0.0, 0.0), (w - m, 0.0), (w - m, h - m), (0.0, h - m))
    return {f"K-CAL{i + 1}": Rect(x, y, m, m) for i, (x, y) in enumerate(corners)}


@dataclass(frozen=True)
class Colour:
    """A card colour with its names and a shape that tells it apart without colour vision."""

    key: str
    name: str
    ja: str
    hex: str
    symbol: str


COLOURS: dict[str, Colour] = {c.key: c for c in (
    Colour("R", "red", "赤", "#c62828", "circle"),
    Colour("B", "blue", "青", "#1565c0", "square"),
    Colour("G", "green", "緑", "#2e7d32", "triangle"),
    Colour("Y", "yellow", "黄", "#f9a825", "diamond"),
    Colour("P", "purple", "紫", "#6a1b9a", "star"),
    Colour("O", "orange", "橙", "#ef6c00", "hexagon"),
    Colour("T", "teal", "青緑", "#00838f", "cross"),
    Colour("K", "pink", "桃", "#d81b60", "heart"),
    Colour("N", "brown", "茶", "#5d4037", "bar"),
    Colour("S", "grey", "灰", "#546e7a", "ring"),
)}
"""Colour keys in seat order: seat n plays colour ``list(COLOURS)[n]`` where a game has colours."""

WHEEL_COLOURS = ("R", "B", "G", "Y", "P")
WHEEL_TRIBES = {"R": ("Latins", "ラテン人"), "B": ("Sabines", "サビニー人"),
                "G": ("Umbrians", "ウンブリア人"), "Y": ("Etruscans", "エトルリア人"),
                "P": ("Samnites", "サムニウム人")}
SPARTACUS_COLOURS = ("R", "B", "G", "Y", "P")
SUITS = ("S", "H", "D", "C")                      # ♠ > ♥ > ♦ > ♣, the Prussia game's suit order
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CHAINS_DECKS = 10
ERA_FACES = ("I", "II", "III", "IV")


class PayloadError(ValueError):
    """A QR payload that is not one of this project's cards."""


@dataclass(frozen=True)
class Card:
    """One physical card or token, with what is printed on it and how the camera knows it."""

    id: str
    game: str          # wheel, hills, spartacus, prussia, chains, or table (tokens, calibration)
    kind: str          # number, pawn, hill, banner, nation, era, playing, joker, pairs, seat,
                       # calibration, back
    marker: int
    colour: str | None = None     # a COLOURS key
    value: int | None = None
    suit: str | None = None       # S H D C
    rank: str | None = None       # A 2 … 10 J Q K
    deck: int | None = None       # Chains: the owner's deck (1–10); seats: the seat (1–10)
    copy: int | None = None       # Chains: which copy of the value (1..value)
    name: str = ""
    ja: str = ""

    @property
    def payload(self) -> str:
        """The text encoded in the card's QR code."""
        return PAYLOAD_PREFIX + self.id

    @property
    def face_down_group(self) -> str:
        """What this card shows when face down: its deck's back, or an era card's other face."""
        return back_of(self)


def _wheel() -> Iterator[Card]:
    for i, colour in enumerate(WHEEL_COLOURS):
        for value in range(1, 6):
            tribe, tribe_ja = WHEEL_TRIBES[colour]
            yield Card(f"W-{colour}{value}", "wheel", "number", 20 + i * 5 + value - 1, colour, value,
                       name=f"{COLOURS[colour].name} {value} ({tribe})",
                       ja=f"{COLOURS[colour].ja}{value}({tribe_ja})")
    yield Card("W-PAWN", "wheel", "pawn", 45, name="pawn", ja="ポーン")


def _hills() -> Iterator[Card]:
    for i, colour in enumerate(("R", "B")):
        people, people_ja = ("Latins", "ラテン人") if colour == "R" else ("Sabines", "サビニー人")
        for value in range(1, 10):
            yield Card(f"H-{colour}{value}", "hills", "number", 50 + i * 10 + value - 1, colour, value,
                       name=f"{COLOURS[colour].name} {value} ({people})",
                       ja=f"{COLOURS[colour].ja}{value}({people_ja})")
        yield Card(f"H-{colour}BAN", "hills", "banner", 50 + i * 10 + 9, colour, 0,
                   name=f"{COLOURS[colour].name} banner", ja=f"{COLOURS[colour].ja}の軍旗")
    for hill in range(1, 8):
        yield Card(f"H-H{hill}", "hills", "hill", 70 + hill - 1, "Y", hill,
                   name=f"hill {hill}", ja=f"丘{hill}")


def _spartacus() -> Iterator[Card]:
    for i, colour in enumerate(SPARTACUS_COLOURS):
        for value in range(1, 11):
            yield Card(f"S-{colour}{value}", "spartacus", "number", 100 + i * 11 + value - 1, colour,
                       value, name=f"{COLOURS[colour].name} {value}", ja=f"{COLOURS[colour].ja}{value}")
        yield Card(f"S-{colour}BAN", "spartacus", "banner", 100 + i * 11 + 10, colour, 0,
                   name=f"{COLOURS[colour].name} banner", ja=f"{COLOURS[colour].ja}の軍旗")


@cache
def default_nations() -> dict:
    """The nation table shipped with the package (this edition's strengths)."""
    return json.loads(resources.files("companion.data").joinpath("nations.json").read_text("utf-8"))


def nation_card_id(nation: dict) -> str:
    """The card id of a nation-table entry: ``P-N1`` … ``P-N12``, ``P-PRU``, ``P-GER``."""
    centre = {"prussia": "P-PRU", "german_empire": "P-GER"}
    return centre[nation["key"]] if nation.get("key") else f"P-N{nation['position']}"


def _prussia() -> Iterator[Card]:
    for i, nation in enumerate(default_nations()["nations"]):
        yield Card(nation_card_id(nation), "prussia", "nation", 200 + i, rank=nation["rank"],
                   value=nation["position"], name=nation["name"], ja=nation["ja"])
    for i, face in enumerate(ERA_FACES):
        yield Card(f"P-ERA{i + 1}", "prussia", "era", 214 + i, value=i + 1,
                   name=f"era {face}", ja=f"時代{face}")
    for s, suit in enumerate(SUITS):
        for r, rank in enumerate(RANKS):
            # red suits are alliances, black ones hostility: the colour matters to the rules
            yield Card(f"P-{suit}{rank}", "prussia", "playing", 220 + s * 13 + r,
                       "R" if suit in "HD" else None, r + 1, suit, rank,
                       name=f"{SUIT_SYMBOLS[suit]}{rank}", ja=f"{SUIT_SYMBOLS[suit]}{rank}")
    for j in (1, 2):
        yield Card(f"P-JK{j}", "prussia", "joker", 272 + j - 1, name=f"joker {j}", ja=f"ジョーカー{j}")


def _chains() -> Iterator[Card]:
    marker = 300
    for deck in range(1, CHAINS_DECKS + 1):
        colour = list(COLOURS)[deck - 1]
        for value in range(1, 11):
            for copy in range(1, value + 1):
                yield Card(f"C{deck:02d}-{value}-{copy}", "chains", "pairs", marker, colour, value,
                           deck=deck, copy=copy, name=f"deck {deck}: {value} ({copy}/{value})",
                           ja=f"デッキ{deck}: {value}({copy}/{value})")
                marker += 1


def _table() -> Iterator[Card]:
    for corner in range(1, 5):
        yield Card(f"K-CAL{corner}", "table", "calibration", corner - 1,
                   name=f"calibration corner {corner}", ja=f"較正マーカー{corner}")
    for seat in range(1, 11):
        yield Card(f"T-SEAT{seat}", "table", "seat", 4 + seat - 1, list(COLOURS)[seat - 1], deck=seat,
                   name=f"seat {seat}", ja=f"席{seat}")


BACKS: dict[str, tuple[int, str, str]] = {
    "B-WHEEL": (900, "Wheel of History", "歴史の車輪"),
    "B-HILLR": (901, "Seven Hills: red", "ローマ七丘: 赤"),
    "B-HILLB": (902, "Seven Hills: blue", "ローマ七丘: 青"),
    "B-HILLY": (903, "Seven Hills: hills", "ローマ七丘: 丘"),
    **{f"B-SPAR{c}": (904 + i, f"Spartacus: {COLOURS[c].name}", f"スパルタクス: {COLOURS[c].ja}")
       for i, c in enumerate(SPARTACUS_COLOURS)},
    "B-NATION": (910, "Prussia: nations", "七年戦争: 国家"),   # the era cards are double-sided
    "B-PLAY": (911, "Prussia: playing cards", "七年戦争: トランプ"),
    **{f"B-C{d:02d}": (920 + d - 1, f"Chains: deck {d}", f"チェーンズ: デッキ{d}")
       for d in range(1, CHAINS_DECKS + 1)},
    "B-TOKEN": (935, "tokens", "トークン"),
}


def _backs() -> Iterator[Card]:
    for back_id, (marker, name, ja) in BACKS.items():
        deck = int(back_id[3:]) if back_id.startswith("B-C") else None
        colour = back_id[-1] if back_id.startswith(("B-HILL", "B-SPAR")) else None
        if deck:
            colour = list(COLOURS)[deck - 1]
        yield Card(back_id, "back", "back", marker, colour, deck=deck, name=f"back: {name}",
                   ja=f"裏面: {ja}")


ERA_PAIRS = (("P-ERA1", "P-ERA2"), ("P-ERA3", "P-ERA4"))
"""Prussia's two double-sided era cards: era I on the back of era II, era III on the back of IV."""


def back_of(card: Card) -> str:
    """What a card shows when face down: its deck's back (``B-…``), or for a double-sided era card
    the other era's face (``P-ERA1`` ↔ ``P-ERA2``, ``P-ERA3`` ↔ ``P-ERA4``)."""
    if card.kind == "back":
        return card.id
    if card.kind == "era":
        return next(b if card.id == a else a for a, b in ERA_PAIRS if card.id in (a, b))
    if card.game == "wheel":
        return "B-WHEEL"
    if card.game == "hills":
        return "B-HILLY" if card.kind == "hill" else f"B-HILL{card.colour}"
    if card.game == "spartacus":
        return f"B-SPAR{card.colour}"
    if card.game == "prussia":
        return "B-PLAY" if card.kind in ("playing", "joker") else "B-NATION"
    if card.game == "chains":
        return f"B-C{card.deck:02d}"
    return "B-TOKEN"


@cache
def all_cards() -> tuple[Card, ...]:
    """Every card and token of every game, in catalogue order."""
    cards = (*_table(), *_wheel(), *_hills(), *_spartacus(), *_prussia(), *_chains(), *_backs())
    ids = [c.id for c in cards]
    markers = [c.marker for c in cards]
    assert len(set(ids)) == len(ids), "card ids must be unique"
    assert len(set(markers)) == len(markers), "marker ids must be unique"
    return cards


@cache
def _by_id() -> dict[str, Card]:
    return {c.id: c for c in all_cards()}


@cache
def _by_marker() -> dict[int, Card]:
    return {c.marker: c for c in all_cards()}


def card(card_id: str) -> Card:
    """The card with this id; unknown ids raise ``KeyError`` naming the id."""
    try:
        return _by_id()[card_id]
    except KeyError:
        raise KeyError(f"no card {card_id!r} in the catalogue") from None


def by_marker(marker: int) -> Card | None:
    """The card a marker id belongs to, or None for a marker that is not ours."""
    return _by_marker().get(marker)


def cards_of(game: str, kind: str | None = None) -> list[Card]:
    """All cards of one game (``wheel``, ``hills`` …, ``table``, ``back``), optionally one kind."""
    return [c for c in all_cards() if c.game == game and (kind is None or c.kind == kind)]


_PAYLOAD = re.compile(r"[0-9A-Z\-.:]+")


def parse(payload: str | bytes) -> Card:
    """The card a QR payload names; anything else raises ``PayloadError`` saying what is wrong."""
    if isinstance(payload, bytes):
        try:
            payload = payload.decode("ascii")
        except UnicodeDecodeError:
            raise PayloadError("QR payload is not ASCII text: not a Table Companion card") from None
    if not isinstance(payload, str):
        raise PayloadError(f"QR payload must be text, got {type(payload).__name__}")
    if not payload:
        raise PayloadError("QR payload is empty")
    if not payload.startswith(PAYLOAD_PREFIX):
        if PAYLOAD_PREFIX.startswith(payload):
            raise PayloadError(f"QR payload {payload!r} is truncated: it stops inside the prefix "
                               f"{PAYLOAD_PREFIX!r}")
        raise PayloadError(f"foreign QR code {payload[:40]!r}: Table Companion payloads start with "
                           f"{PAYLOAD_PREFIX!r}")
    card_id = payload[len(PAYLOAD_PREFIX):]
    if not card_id:
        raise PayloadError(f"QR payload {payload!r} is truncated: no card id after the prefix")
    if len(payload) > QR_MAX_PAYLOAD or not _PAYLOAD.fullmatch(card_id):
        raise PayloadError(f"QR payload {payload[:40]!r} is malformed: a card id is at most "
                           f"{QR_MAX_PAYLOAD - len(PAYLOAD_PREFIX)} characters of A–Z, 0–9, '-', '.'")
    found = _by_id().get(card_id)
    if found is None:
        longer = [c.id for c in all_cards() if c.id.startswith(card_id)]
        if longer:
            raise PayloadError(f"QR payload {payload!r} is truncated: no card {card_id!r} "
                               f"(did it lose its end? e.g. {longer[0]!r})")
        raise PayloadError(f"QR payload {payload!r} names no card in the catalogue")
    return found
