"""Per-game table plans: where each card of an engine ``layout()`` lies, and reading it back.

Every game module (``wheel``, ``hills``, ``spartacus``, ``prussia``, ``chains``) defines

* ``table_size(players) -> (width_mm, height_mm)``: the calibrated rectangle (K-CAL1..4 at its corners);
* ``place(layout, players, rng) -> list[Placement]``: where every card lies, jittered like a real hand;
* ``read(scene, players) -> dict``: the observation, shaped like the engine's ``layout()``, with the
  keys the camera cannot know left out.

Table millimetres (VISION_API.md): origin at the outer corner of K-CAL1, x to the right towards
K-CAL2, y towards K-CAL4 (downwards in a camera image of the upright table). A card's ``angle`` is
the direction its top points: 0 = towards -y ("up" in the image), positive turns clockwise in the
image; its up vector is ``(sin a, -cos a)`` and its right vector ``(cos a, sin a)``.
"""
from __future__ import annotations

import importlib
import math
import random
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from companion import catalogue as cat
from vision.table.scene import SeenCard, TableScene

GAMES = ("wheel", "hills", "spartacus", "prussia", "chains")
CALIBRATION_MARKER_MM = getattr(cat, "CALIBRATION_MARKER_MM", 40.0)
CASCADE_STEP_MM = cat.CASCADE_GUIDE_MM + 4  # players overlap a little short of the guide line
FAN_STEP_MM = 26.0                        # a sideways fan shows the left strip with the marker

Point = tuple[float, float]


@dataclass(frozen=True)
class Placement:
    """One physical card (or token) lying on the table; ``z`` orders overlaps (higher lies on top)."""

    card_id: str          # the physical card; a back id ("B-...") when even the truth is unknown
    face_up: bool
    centre: Point         # table mm
    angle_deg: float      # the card's up direction (see the module docstring)
    z: int

    @property
    def shown_id(self) -> str:
        """What the camera can identify: the face id, or the deck's back when face down."""
        return self.card_id if self.face_up else cat.back_of(cat.card(self.card_id))


@dataclass(frozen=True)
class Seat:
    """Where a player sits: the seat token's centre and the angle of cards turned towards them."""

    token: Point
    angle: float

    def at(self, u: float, v: float) -> Point:
        """Table point ``u`` mm to this player's right and ``v`` mm away from them (into the table)."""
        return offset(self.token, self.angle, u, v)


def _module(game_id: str):
    if game_id not in GAMES:
        raise ValueError(f"unknown game {game_id!r}: table plans exist for {', '.join(GAMES)}")
    return importlib.import_module(f"vision.table.layouts.{game_id}")


def place(game_id: str, layout: dict, players: int, rng: random.Random | None = None) -> list[Placement]:
    """Where each card of ``layout`` (an engine ``layout()``) lies on the table, tokens included."""
    return _module(game_id).place(layout, players, rng or random.Random(0))


def read(game_id: str, scene: TableScene, players: int) -> dict:
    """The observation of ``scene``, shaped like the engine's ``layout()`` (unknowable keys left out)."""
    return _module(game_id).read(scene, players)


def knowable(game_id: str, layout: dict, players: int) -> dict:
    """The part of an engine ``layout()`` a camera can know: what ``read`` returns for a perfect view."""
    return _module(game_id).knowable(layout, players)


def table_size(game_id: str, players: int) -> tuple[float, float]:
    """The calibrated table rectangle (width, height) in mm of a game's plan for ``players``."""
    return _module(game_id).table_size(players)


# ----------------------------------------------------------------- geometry
def card_size(card_id: str) -> tuple[float, float]:
    """Printed (width, height) of a card, token or calibration marker in mm."""
    if card_id.startswith("K-CAL"):
        return (CALIBRATION_MARKER_MM, CALIBRATION_MARKER_MM)
    size = getattr(cat, "card_size_mm", None)
    if size is not None:
        return size(card_id)
    return (30.0, 30.0) if card_id == "W-PAWN" else (cat.CARD_WIDTH_MM, cat.CARD_HEIGHT_MM)


def axes(angle: float) -> tuple[Point, Point]:
    """The (right, up) unit vectors of a card turned by ``angle`` degrees."""
    a = math.radians(angle)
    return (math.cos(a), math.sin(a)), (math.sin(a), -math.cos(a))


def offset(origin: Point, angle: float, u: float, v: float) -> Point:
    """The point ``u`` along the right vector and ``v`` along the up vector of ``angle`` from ``origin``."""
    (rx, ry), (ux, uy) = axes(angle)
    return (origin[0] + rx * u + ux * v, origin[1] + ry * u + uy * v)


def local(origin: Point, angle: float, point: Point) -> Point:
    """The (u, v) coordinates of ``point`` in the frame of ``offset`` (the inverse)."""
    (rx, ry), (ux, uy) = axes(angle)
    dx, dy = point[0] - origin[0], point[1] - origin[1]
    return (dx * rx + dy * ry, dx * ux + dy * uy)


def corners(card_id: str, centre: Point, angle: float) -> tuple[Point, ...]:
    """The card's TL, TR, BR, BL corners in table mm."""
    w, h = card_size(card_id)
    return tuple(offset(centre, angle, su * w / 2, sv * h / 2)
                 for su, sv in ((-1, 1), (1, 1), (1, -1), (-1, -1)))


def marker_squares(card_id: str) -> list[tuple[float, float, float, float]]:
    """The card's printed markers as (x, y, w, h) from its top-left corner, y down (card mm)."""
    w, h = card_size(card_id)
    if card_id.startswith("K-CAL"):
        return [(0.0, 0.0, w, h)]
    rects = getattr(cat, "marker_rects", None)
    if rects is not None:
        return [(r.x, r.y, r.w, r.h) for r in rects(card_id)]
    m, i = cat.MARKER_MM, cat.MARKER_INSET_MM
    if card_id == "W-PAWN":
        return [((w - m) / 2, (h - m) / 2, m, m)]
    return [(i, i, m, m), (w - i - m, h - i - m, m, m)]


def card_point(card_id: str, centre: Point, angle: float, x: float, y: float) -> Point:
    """Table point of the card-mm point (x right, y down from the card's top-left corner)."""
    w, h = card_size(card_id)
    return offset(centre, angle, x - w / 2, h / 2 - y)


def inside(card_id: str, centre: Point, angle: float, point: Point, margin: float = 0.0) -> bool:
    """Whether ``point`` lies on the card (grown by ``margin`` mm)."""
    w, h = card_size(card_id)
    u, v = local(centre, angle, point)
    return abs(u) <= w / 2 + margin and abs(v) <= h / 2 + margin


def jitter(rng: random.Random, point: Point, angle: float, mm: float = 2.5,
           degrees: float = 3.0) -> tuple[Point, float]:
    """A hand-placed version of an ideal pose: up to ``mm`` and ``degrees`` off (clipped Gaussian:
    a player corrects a card that covers its neighbour's marker)."""
    def off(limit: float) -> float:
        return max(-limit, min(limit, rng.gauss(0, limit / 2)))
    return ((point[0] + off(mm), point[1] + off(mm)), angle + off(degrees))


class Builder:
    """Collects placements in lying order (later cards lie on top), with hand-placed jitter.

    The jitter of a card is seeded by the card and its ideal spot (and ``rng``'s first draw), so a
    card that stays where it is keeps its pose from one state of a game to the next."""

    def __init__(self, rng: random.Random, mm: float = 2.5, degrees: float = 3.0):
        self.seed = rng.getrandbits(64)
        self.mm, self.degrees = mm, degrees
        self.placements: list[Placement] = []
        self.count: dict[str, int] = {}

    def rand(self, *key: object) -> random.Random:
        """A generator for a choice tied to ``key`` (stable from state to state)."""
        return random.Random(":".join(map(str, (self.seed, *key))))

    def put(self, card_id: str, point: Point, angle: float, face_up: bool = True,
            mm: float | None = None, degrees: float | None = None) -> None:
        """Lay ``card_id`` at ``point`` turned ``angle``, jittered, on top of everything so far."""
        spot = f"{card_id}:{point[0]:.0f}:{point[1]:.0f}"
        self.count[spot] = self.count.get(spot, 0) + 1
        centre, turned = jitter(self.rand(spot, self.count[spot]), point, angle,
                                self.mm if mm is None else mm,
                                self.degrees if degrees is None else degrees)
        self.placements.append(Placement(card_id, face_up, centre, turned, len(self.placements)))

    def table(self, width: float, height: float, seats: Sequence[Seat]) -> None:
        """The calibration markers at the table corners and the seat tokens (never jittered much)."""
        half = CALIBRATION_MARKER_MM / 2
        spots = ((half, half), (width - half, half), (width - half, height - half), (half, height - half))
        for i, spot in enumerate(spots):
            self.placements.append(Placement(f"K-CAL{i + 1}", True, spot, 0.0, len(self.placements)))
        for i, seat in enumerate(seats):
            self.put(f"T-SEAT{i + 1}", seat.token, seat.angle, mm=2.0, degrees=4.0)


def edge_seats(width: float, height: float, spots: Iterable[tuple[str, float]],
               inset: float = 52.0) -> list[Seat]:
    """Seats on the table edges: ``("B", 0.5)`` is the bottom edge's middle, fractions along x for
    B/T and along y for L/R; each token lies ``inset`` mm in from its edge, turned to its player."""
    seats = []
    for edge, f in spots:
        if edge == "B":
            seats.append(Seat((width * f, height - inset), 0.0))
        elif edge == "T":
            seats.append(Seat((width * f, inset), 180.0))
        elif edge == "L":
            seats.append(Seat((inset, height * f), 90.0))
        elif edge == "R":
            seats.append(Seat((width - inset, height * f), -90.0))
        else:
            raise ValueError(f"edge must be B, T, L or R, not {edge!r}")
    return seats


# ----------------------------------------------------------------- the camera's view, without a camera
class Cover:
    """Which points of the table each placement covers (vectorised over all cards, for speed)."""

    def __init__(self, placements: Sequence[Placement]):
        self.placements = list(placements)
        self.z = np.array([p.z for p in self.placements])
        a = np.radians([p.angle_deg for p in self.placements])
        self.right = np.stack([np.cos(a), np.sin(a)], axis=1)
        self.up = np.stack([np.sin(a), -np.cos(a)], axis=1)
        self.centre = np.array([p.centre for p in self.placements], dtype=float).reshape(-1, 2)
        self.half = np.array([card_size(p.card_id) for p in self.placements], dtype=float).reshape(-1, 2) / 2
        # a higher card can cover a point of card i only if their circles meet: each card keeps the
        # few that can (a Chains table of 180 cards is mostly cards far apart)
        reach = np.hypot(self.half[:, 0], self.half[:, 1])
        gap = np.hypot(*(self.centre[:, None, :] - self.centre[None, :, :]).transpose(2, 0, 1))
        can = (gap <= reach[:, None] + reach[None, :]) & (self.z[None, :] > self.z[:, None])
        self.above = [np.flatnonzero(row) for row in can]
        self.pairs = np.nonzero(can)   # (card, a higher card that may cover part of it)
        self._asked: dict[tuple[str, int], np.ndarray] = {}

    def covered(self, index: int, points: np.ndarray) -> np.ndarray:
        """For each point of card ``index`` (N×2 table mm), whether a card lying above it covers it."""
        above = self.above[index]
        if not len(above):
            return np.zeros(len(points), dtype=bool)
        d = points[None, :, :] - self.centre[above][:, None, :]
        u = np.abs(np.einsum("cnk,ck->cn", d, self.right[above]))
        v = np.abs(np.einsum("cnk,ck->cn", d, self.up[above]))
        half = self.half[above]
        return ((u <= half[:, :1]) & (v <= half[:, 1:])).any(axis=0)

    def card_points(self, index: int, xy: np.ndarray) -> np.ndarray:
        """Table points of card-mm points (x right, y down from the card's top-left corner)."""
        w, h = self.half[index] * 2
        return (self.centre[index] + (xy[:, :1] - w / 2) * self.right[index]
                + (h / 2 - xy[:, 1:]) * self.up[index])

    def visible_markers(self, index: int, samples: int = 3) -> int:
        """How many of the card's markers are wholly uncovered (every sampled point free)."""
        return int(self._all_markers(samples)[index])

    def visible_share(self, index: int, grid: int = 6) -> float:
        """The share of the card's area no higher card covers (sampled on a grid)."""
        return float(self._all_shares(grid)[index])

    # Every card at once: the sample points of all cards, tested against each pair (card, a higher
    # card that can reach it) in one array operation. A scene asks this of every card, and a loop
    # of small numpy calls per card cost a Chains table of 180 cards ~50 ms.
    def _all_markers(self, samples: int) -> np.ndarray:
        if ("markers", samples) in self._asked:
            return self._asked["markers", samples]
        squares = [marker_squares(p.card_id) for p in self.placements]
        most = max((len(q) for q in squares), default=0)
        rects = np.zeros((len(squares), most, 4))
        real = np.zeros((len(squares), most), dtype=bool)
        for i, q in enumerate(squares):
            rects[i, :len(q)] = q
            real[i, :len(q)] = True
        t = np.linspace(0.0, 1.0, samples)
        grid = np.array([(i, j) for i in t for j in t])                                   # S × 2
        xy = rects[:, :, None, :2] + rects[:, :, None, 2:] * grid[None, None]              # N × M × S × 2
        hit = self._hits(xy.reshape(len(squares), -1, 2)).reshape(len(squares), most, -1)
        self._asked["markers", samples] = ((~hit.any(axis=2)) & real).sum(axis=1)
        return self._asked["markers", samples]

    def _all_shares(self, grid: int) -> np.ndarray:
        if ("shares", grid) not in self._asked:
            t = (np.arange(grid) + 0.5) / grid
            unit = np.array([(i, j) for i in t for j in t])                                 # G × 2
            xy = unit[None] * (self.half * 2)[:, None, :]                                   # N × G × 2
            self._asked["shares", grid] = 1.0 - self._hits(xy).mean(axis=1)
        return self._asked["shares", grid]

    def _hits(self, xy: np.ndarray) -> np.ndarray:
        """N × K card-mm points of every card → whether a higher card covers each (N × K)."""
        w, h = (self.half * 2).T
        points = (self.centre[:, None, :] + (xy[..., :1] - w[:, None, None] / 2) * self.right[:, None, :]
                  + (h[:, None, None] / 2 - xy[..., 1:]) * self.up[:, None, :])              # N × K × 2
        hit = np.zeros(points.shape[:2], dtype=bool)
        low, high = self.pairs
        if len(low):
            d = points[low] - self.centre[high][:, None, :]                                   # P × K × 2
            u = np.abs((d * self.right[high][:, None, :]).sum(axis=2))
            v = np.abs((d * self.up[high][:, None, :]).sum(axis=2))
            np.logical_or.at(hit, low, (u <= self.half[high, :1]) & (v <= self.half[high, 1:]))
        return hit


def visible_markers(placements: Sequence[Placement], card_index: int, samples: int = 3) -> int:
    """How many of a card's markers no higher card covers (every sampled point of the marker free)."""
    return Cover(placements).visible_markers(card_index, samples)


def visible_share(placements: Sequence[Placement], card_index: int, grid: int = 6) -> float:
    """The share of a card's area no higher card covers (sampled on a grid)."""
    return Cover(placements).visible_share(card_index, grid)


def seen_indices(placements: Sequence[Placement]) -> list[int]:
    """Placements a perfect camera identifies: at least one marker fully uncovered."""
    cover = Cover(placements)
    return [i for i in range(len(placements)) if cover.visible_markers(i) > 0]


def scene_from_placements(placements: Sequence[Placement], frame_index: int = 0) -> TableScene:
    """The TableScene a perfect detector would report: every card with an uncovered marker (its face
    id, or its back when face down); seat tokens go to ``seats``, calibration markers are left out."""
    cards, seats = [], {}
    cover = Cover(placements)
    for track, i in enumerate(i for i in range(len(placements)) if cover.visible_markers(i) > 0):
        p = placements[i]
        if p.card_id.startswith("K-CAL"):
            continue
        if p.card_id.startswith("T-SEAT"):
            seats[int(p.card_id[6:]) - 1] = p.centre
            continue
        cards.append(SeenCard(p.shown_id, p.face_up, p.centre, p.angle_deg,
                              corners(p.card_id, p.centre, p.angle_deg),
                              cover.visible_share(i), track, "marker"))
    return TableScene(tuple(cards), seats, True, (), frame_index)


# ----------------------------------------------------------------- reading helpers
def seat_points(scene: TableScene, planned: Sequence[Seat]) -> list[Point]:
    """Each seat's token centre: from the scene where seen, else where the plan puts it."""
    found = dict(scene.seats)
    for c in scene.cards:   # a pipeline may also report tokens as cards
        if c.card_id.startswith("T-SEAT"):
            found.setdefault(int(c.card_id[6:]) - 1, c.centre)
    return [found.get(i, s.token) for i, s in enumerate(planned)]


def nearest(point: Point, candidates: Sequence[Point]) -> int:
    """Index of the candidate nearest to ``point``."""
    return min(range(len(candidates)), key=lambda i: math.dist(point, candidates[i]))


def nearest_seat(point: Point, scene: TableScene, planned: Sequence[Seat], reach: float,
                 spans: Sequence[tuple[float, float]] | None = None) -> int:
    """The seat whose area is nearest: the segment ``reach`` mm in front of its token (towards the
    table) from ``spans[i][0]`` to ``spans[i][1]`` mm along its player's right, at the seen token."""
    tokens = seat_points(scene, planned)

    def distance(i: int) -> float:
        u, v = local(tokens[i], planned[i].angle, point)
        lo, hi = spans[i] if spans else (0.0, 0.0)
        du = max(lo - u, 0.0, u - hi)
        return math.hypot(du, v - reach)
    return min(range(len(planned)), key=distance)


def axis_angle(cards: Sequence[SeenCard], near: float) -> float:
    """The direction the cards share (degrees), from their angles taken modulo 180° (a card whose
    QR code was never read may be seen upside down) and turned to within 90° of ``near``, the
    plan's angle for them (so one card read the other way up cannot reverse a row)."""
    s = sum(math.sin(math.radians(2 * c.angle)) for c in cards)
    k = sum(math.cos(math.radians(2 * c.angle)) for c in cards)
    angle = math.degrees(math.atan2(s, k)) / 2 if s or k else near
    return angle + 180 if abs((angle - near + 180) % 360 - 180) > 90 else angle


def cascade_order(cards: Iterable[SeenCard], angle: float) -> list[SeenCard]:
    """Cards of one cascade laid at ``angle`` (the plan's), first laid first: the first lies
    furthest along the cards' up direction."""
    cards = list(cards)
    if not cards:
        return []
    ux, uy = axes(axis_angle(cards, angle))[1]
    return sorted(cards, key=lambda c: -(c.centre[0] * ux + c.centre[1] * uy))


def fan_order(cards: Iterable[SeenCard], angle: float) -> list[SeenCard]:
    """Cards of a sideways fan laid at ``angle`` (the plan's), left to right as their owner sees
    them (first laid first)."""
    cards = list(cards)
    if not cards:
        return []
    rx, ry = axes(axis_angle(cards, angle))[0]
    return sorted(cards, key=lambda c: c.centre[0] * rx + c.centre[1] * ry)


def clusters(cards: Sequence[SeenCard], radius: float) -> list[list[SeenCard]]:
    """Cards grouped into piles: cards whose centres lie within ``radius`` mm join one pile."""
    groups: list[list[SeenCard]] = []
    for c in cards:
        near = [g for g in groups if any(math.dist(c.centre, o.centre) <= radius for o in g)]
        merged = [c] + [o for g in near for o in g]
        groups = [g for g in groups if g not in near] + [merged]
    return groups


def strip(observation: Any, keys: Iterable[str]) -> Any:
    """A copy of a dict without ``keys`` (for comparing an engine layout with what a camera can know)."""
    return {k: v for k, v in observation.items() if k not in set(keys)}


def face_cards(scene: TableScene, game: str) -> list[SeenCard]:
    """The scene's face-up cards of one game (anything else, e.g. a stray token, is ignored)."""
    out = []
    for c in scene.cards:
        try:
            if c.face_up and cat.card(c.card_id).game == game:
                out.append(c)
        except KeyError:
            continue
    return out


def backs(scene: TableScene, *back_ids: str) -> list[SeenCard]:
    """The scene's face-down cards showing one of ``back_ids``."""
    return [c for c in scene.cards if not c.face_up and c.card_id in back_ids]


__all__ = ["Placement", "Seat", "place", "read", "knowable", "table_size", "scene_from_placements", "GAMES",
           "card_size", "corners"]
