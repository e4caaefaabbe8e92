"""The Turning Seven Years' War on the table: the clock of nations, relation cards, era, drawn card.

Plan (table 1000 × 620 mm, 1–2 players): the clock's centre at (330, 310) holds Prussia or the
German Empire; the twelve nation cards stand radially (tops outwards) 170 mm from it, position 12 at
the top and positions clockwise every 30°. A ring relation card lies 225 mm out, at the middle of the
arc between its two nations (tucked under them: its outer marker stays visible); a Prussia-edge card
lies sideways 85 mm from the centre towards position 3, 6, 9 or 12. Right of the clock: the era card
(top left), the drawn card's zone below it, the face-down draw pile and the discard pile. The pile
and the discard are squared piles and hands are held, so ``pile``, ``discard`` and ``hands`` are left
out of the observation.
"""
from __future__ import annotations

import math
import random

from companion import catalogue as cat
from vision.table.layouts import Builder, Placement, Seat, edge_seats, face_cards
from vision.table.scene import TableScene

CENTRE = (330.0, 310.0)
NATION_R = 170.0
RELATION_R = 225.0
EDGE_R = 85.0
SPECIAL = (3, 6, 9, 12)
ERA_AT = (700.0, 190.0)
DRAWN_AT = (700.0, 400.0)
PILE_AT = (880.0, 190.0)
DISCARD_AT = (880.0, 400.0)
CENTRE_CARDS = ("P-PRU", "P-GER")


def table_size(players: int) -> tuple[float, float]:
    """The table rectangle in mm."""
    if players not in (1, 2):
        raise ValueError(f"The Turning Seven Years' War is for 1 or 2 players, not {players}")
    return (1000.0, 620.0)


def seats(players: int) -> list[Seat]:
    """Seat tokens at the right end of the bottom edge (and of the top edge with 2 players)."""
    w, h = table_size(players)
    return edge_seats(w, h, [("B", 0.8), ("T", 0.8)][:players])


def polar(angle: float, radius: float) -> tuple[float, float]:
    """The table point at clock ``angle`` (degrees clockwise from 12 o'clock) and ``radius``."""
    a = math.radians(angle)
    return (CENTRE[0] + radius * math.sin(a), CENTRE[1] - radius * math.cos(a))


def clock_angle(point: tuple[float, float]) -> float:
    """The clock angle (0–360, clockwise from 12 o'clock) of a table point."""
    return math.degrees(math.atan2(point[0] - CENTRE[0], CENTRE[1] - point[1])) % 360


def arc_middle(a: int, b: int) -> float:
    """The clock angle halfway along the clockwise arc from position ``a`` to position ``b``."""
    span = (b - a) % 12 or 12
    return (a * 30 + span * 15) % 360


def place(layout: dict, players: int, rng: random.Random) -> list[Placement]:
    """Placements for a Prussia ``layout()``."""
    b = Builder(rng)
    w, h = table_size(players)
    b.table(w, h, seats(players))
    for _ in range(min(layout.get("pile", 0), 4)):        # the pile shows one back
        b.put("B-PLAY", PILE_AT, 0.0, face_up=False, mm=1.0, degrees=2.0)
    for key, card_id in layout["slots"].items():
        if card_id is None or key.startswith("C-"):
            continue
        a, c = (int(x) for x in key.split(">"))
        angle = arc_middle(a, c)
        b.put(card_id, polar(angle, RELATION_R), angle)
    if layout.get("centre"):
        b.put(layout["centre"], CENTRE, 0.0)
    for pos, card_id in layout["clock"].items():
        if card_id is not None:
            b.put(card_id, polar(int(pos) * 30 % 360, NATION_R), int(pos) * 30 % 360)
    for key, card_id in layout["slots"].items():
        if card_id is not None and key.startswith("C-"):
            p = int(key[2:])
            b.put(card_id, polar(p * 30 % 360, EDGE_R), p * 30 - 90)
    b.put(layout["era"], ERA_AT, 0.0)
    if layout.get("drawn"):
        b.put(layout["drawn"], DRAWN_AT, 0.0)
    return b.placements


def read(scene: TableScene, players: int) -> dict:
    """The observation of a Prussia table: clock, centre, every slot, era and drawn card."""
    clock: dict[str, str | None] = {str(p): None for p in range(1, 13)}
    centre, era, drawn = None, None, None
    relations = []
    for c in face_cards(scene, "prussia"):
        card = cat.card(c.card_id)
        r = math.dist(c.centre, CENTRE)
        if c.card_id in CENTRE_CARDS and r < 60:
            centre = c.card_id
        elif card.kind == "nation" and 110 < r < 240:
            clock[str(round(clock_angle(c.centre) / 30) % 12 or 12)] = c.card_id
        elif card.kind == "era":
            era = c.card_id
        elif card.kind in ("playing", "joker"):
            if math.dist(c.centre, DRAWN_AT) < 50:
                drawn = c.card_id
            elif r < 300:
                relations.append(c)
    occupied = [p for p in range(1, 13) if clock[str(p)] is not None]
    ring = [(a, occupied[(i + 1) % len(occupied)]) for i, a in enumerate(occupied)] \
        if len(occupied) > 1 else []
    slots: dict[str, str | None] = {f"{a}>{b}": None for a, b in ring}
    slots.update({f"C-{p}": None for p in SPECIAL if clock[str(p)] is not None})
    for c in relations:
        angle = clock_angle(c.centre)
        if math.dist(c.centre, CENTRE) < 140:
            key = f"C-{min(SPECIAL, key=lambda p: abs((angle - p * 30 + 180) % 360 - 180))}"
        else:
            key = next((f"{a}>{b}" for a, b in ring
                        if (angle - a * 30) % 360 < ((b - a) % 12 or 12) * 30), None)
        if key in slots:
            slots[key] = c.card_id
    out = {"clock": clock, "centre": centre, "slots": slots, "drawn": drawn}
    if era is not None:
        out["era"] = era
    return out


def knowable(layout: dict, players: int) -> dict:
    """The part of an engine ``layout()`` a camera can know: no pile, discard or hand counts."""
    return {k: v for k, v in layout.items() if k not in ("pile", "discard", "hands")}
