"""Wheel of History on the table: the 25-card circle, the pawn in its gap, taken cards by seat.

Plan (table 1200 × 700 mm, 2–5 players): the circle of radius 240 mm at the table centre, cards
radial with their tops outwards, slot 0 at 12 o'clock and slots clockwise every 14.4°. The pawn
token stands inside the circle (radius 160 mm): at a slot's angle when it stands in that slot's gap,
half a slot further when it stands just after the card in that slot (before the first take).
Players sit at the left and right edges (seat 0 bottom-left, clockwise); each lays taken cards face
up in front of them as a fan (26 mm apart, rows of 8 stepping 26 mm towards the player). Face-down
discarded cards (single-card-fall variant) lie fanned in the circle's middle.
"""
from __future__ import annotations

import math
import random

from companion.games.wheel import SLOTS
from vision.table.layouts import (FAN_STEP_MM, Builder, Placement, Seat, backs, edge_seats, face_cards,
                            nearest_seat)
from vision.table.scene import TableScene

RADIUS = 240.0
PAWN_RADIUS = 160.0
STEP = 360.0 / SLOTS
ROW = 8


def table_size(players: int) -> tuple[float, float]:
    """The table rectangle in mm (the same for 2–5 players)."""
    if not 2 <= players <= 5:
        raise ValueError(f"Wheel of History is for 2–5 players, not {players}")
    return (1200.0, 700.0)


def seats(players: int) -> list[Seat]:
    """Seat 0 at the bottom of the left edge, then clockwise: up the left edge, down the right."""
    w, h = table_size(players)
    left, right = (players + 1) // 2, players // 2
    spots = [("L", 1 - (i + 0.5) / left) for i in range(left)]
    spots += [("R", (i + 0.5) / right) for i in range(right)]
    return edge_seats(w, h, spots)


def centre(players: int) -> tuple[float, float]:
    """The circle's centre (the table's centre)."""
    w, h = table_size(players)
    return (w / 2, h / 2)


def _polar(c: tuple[float, float], angle: float, radius: float) -> tuple[float, float]:
    a = math.radians(angle)
    return (c[0] + radius * math.sin(a), c[1] - radius * math.cos(a))


def place(layout: dict, players: int, rng: random.Random) -> list[Placement]:
    """Placements for a Wheel ``layout()``."""
    b = Builder(rng)
    w, h = table_size(players)
    plan = seats(players)
    b.table(w, h, plan)
    c = centre(players)
    for slot, card_id in enumerate(layout["circle"]):
        if card_id is not None:
            b.put(card_id, _polar(c, slot * STEP, RADIUS), slot * STEP)
    for i in range(layout.get("discarded", 0)):
        b.put("B-WHEEL", (c[0] + (i - 2) * FAN_STEP_MM, c[1]), 0.0, face_up=False)
    pawn = layout.get("pawn")
    if pawn is not None:
        angle = pawn * STEP + (0 if layout["circle"][pawn] is None else STEP / 2)
        b.put("W-PAWN", _polar(c, angle, PAWN_RADIUS), angle, mm=1.5, degrees=10)
    for seat, taken in zip(plan, layout["taken"]):
        for i, card_id in enumerate(taken):
            row, col = divmod(i, ROW)
            b.put(card_id, seat.at((col - (ROW - 1) / 2) * FAN_STEP_MM, 150 - row * 26), seat.angle)
    return b.placements


def _slot_of(c: tuple[float, float], point: tuple[float, float]) -> float:
    """The fractional slot at ``point``'s angle around the circle's centre."""
    angle = math.degrees(math.atan2(point[0] - c[0], c[1] - point[1]))
    return (angle / STEP) % SLOTS


def read(scene: TableScene, players: int) -> dict:
    """The observation of a Wheel table: circle, pawn, taken cards by seat, discarded count."""
    c = centre(players)
    plan = seats(players)
    circle: list[str | None] = [None] * SLOTS
    taken: list[list[str]] = [[] for _ in range(players)]
    pawn_at = None
    for card in face_cards(scene, "wheel"):
        if card.card_id == "W-PAWN":
            pawn_at = card.centre
            continue
        r = math.dist(card.centre, c)
        if abs(r - RADIUS) < 60:
            circle[round(_slot_of(c, card.centre)) % SLOTS] = card.card_id
        elif r > RADIUS + 60:
            taken[nearest_seat(card.centre, scene, plan, 150)].append(card.card_id)
    out: dict = {"circle": circle, "taken": [sorted(t) for t in taken],
                 "discarded": sum(math.dist(b.centre, c) < RADIUS - 60 for b in backs(scene, "B-WHEEL"))}
    if pawn_at is not None:
        f = _slot_of(c, pawn_at)
        k = round(f) % SLOTS
        if circle[k] is None and abs(f - round(f)) < 0.3:
            out["pawn"] = k                       # standing in a gap
        else:
            out["pawn"] = math.floor(f) % SLOTS   # just after the card in that slot
    elif not any(circle):
        out["pawn"] = None                        # nothing laid yet: no pawn on the table
    return out                                    # a circle without a seen pawn: pawn unknown


def knowable(layout: dict, players: int) -> dict:
    """The part of an engine ``layout()`` a camera can know (all of it)."""
    return dict(layout)
