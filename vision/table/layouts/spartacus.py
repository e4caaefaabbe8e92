"""Spartacus on the table: the trick in play order, each seat's face-down won-trick piles, cards out.

Plan (table 1000 × 620 mm, 3–5 players): the trick is a sideways fan in the table's middle (each
card 26 mm right of the one before and on top, so every card's marker corner shows); seats sit at
the table edges (seat 0 at the bottom, then clockwise). Each won trick is squared into its own
face-down pile in front of its winner; the piles form a fan 26 mm apart, so the camera counts piles
by their top backs (a pile's contents stay hidden). Cards out of the game (a banners-only trick at
the end) lie face up as a fan near the bottom-right corner.
"""
from __future__ import annotations

import random

from companion import catalogue as cat
from vision.table.layouts import (FAN_STEP_MM, Builder, Placement, Seat, clusters, edge_seats, face_cards,
                            fan_order, nearest_seat)
from vision.table.scene import TableScene

SPOTS = {3: [("B", 0.5), ("T", 0.25), ("T", 0.75)],
         4: [("B", 0.5), ("L", 0.5), ("T", 0.5), ("R", 0.5)],
         5: [("B", 0.7), ("B", 0.3), ("L", 0.5), ("T", 0.5), ("R", 0.5)]}
PILES_V = 140.0      # from a seat token to its row of piles
MAX_PILES = 10       # piles a fan holds before it runs into the next seat's
TRICK_LEFT = -6.5    # the first trick card, in fan steps from the table's centre
OUT_AT = (800.0, 560.0)
BACKS = tuple(f"B-SPAR{c}" for c in cat.SPARTACUS_COLOURS)


def table_size(players: int) -> tuple[float, float]:
    """The table rectangle in mm."""
    if players not in SPOTS:
        raise ValueError(f"Spartacus is for 3–5 players, not {players}")
    return (1000.0, 620.0)


def seats(players: int) -> list[Seat]:
    """Seat tokens at the table edges, seat 0 at the bottom, clockwise."""
    w, h = table_size(players)
    return edge_seats(w, h, SPOTS[players])


def fan_start(seat: Seat) -> float:
    """Where a seat's first pile lies, mm to its player's right: a fan grows to the player's right,
    so each seat's fan starts where it stays clear of its neighbours' (corners are crowded)."""
    return {0.0: -100.0, 180.0: -100.0, 90.0: -170.0}.get(seat.angle, -40.0)


def place(layout: dict, players: int, rng: random.Random) -> list[Placement]:
    """Placements for a Spartacus ``layout()``; won piles hold backs (their cards are not known)."""
    b = Builder(rng)
    w, h = table_size(players)
    plan = seats(players)
    b.table(w, h, plan)
    for s, (seat, count) in enumerate(zip(plan, layout["won"])):
        for i in range(count):
            spot = seat.at(fan_start(seat) + min(i, MAX_PILES - 1) * FAN_STEP_MM, PILES_V)
            pile = b.rand("pile", s, i)
            for back in pile.sample(BACKS, pile.randint(2, 4)):   # a squared pile of a few cards
                b.put(back, spot, seat.angle, face_up=False, mm=1.0, degrees=2.0)
    for i, card_id in enumerate(layout["trick"]):
        b.put(card_id, (w / 2 + (TRICK_LEFT + i) * FAN_STEP_MM, h / 2), 0.0)
    for i, card_id in enumerate(layout["out"]):
        b.put(card_id, (OUT_AT[0] + i * FAN_STEP_MM, OUT_AT[1]), 0.0)
    return b.placements


def read(scene: TableScene, players: int) -> dict:
    """The observation of a Spartacus table: trick in order, piles per seat, cards out."""
    w, h = table_size(players)
    trick, out = [], []
    for c in face_cards(scene, "spartacus"):
        if abs(c.centre[1] - h / 2) < 90 and abs(c.centre[0] - w / 2) < 320:
            trick.append(c)
        elif abs(c.centre[1] - OUT_AT[1]) < 60 and c.centre[0] > OUT_AT[0] - 60:
            out.append(c)
    plan = seats(players)
    by_seat: list[list] = [[] for _ in range(players)]
    for c in scene.cards:
        if not c.face_up and c.card_id in BACKS:
            spans = [(fan_start(s), fan_start(s) + (MAX_PILES - 1) * FAN_STEP_MM) for s in plan]
            seat = nearest_seat(c.centre, scene, plan, PILES_V, spans)
            by_seat[seat].append(c)
    return {"trick": [c.card_id for c in fan_order(trick, 0.0)],
            "won": [len(clusters(piles, 12.0)) for piles in by_seat],
            "out": [c.card_id for c in fan_order(out, 0.0)]}


def knowable(layout: dict, players: int) -> dict:
    """The part of an engine ``layout()`` a camera can know (all of it: piles are counted, not read)."""
    return dict(layout)
