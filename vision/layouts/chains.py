"""Chains on the table: the terminal rows, each player's work area, temporary slots and discard.

Plan (table 1200 × 700 mm for 1–2 players, seat 0 at the left edge, seat 1 at the right; 1300 × 960
mm for 3–4 players, seats at the left, top, right and bottom edges: a 1080p camera sees that table
at only ~1.1 px/mm): the shared terminal area in the middle holds one row per seat (seat 0 on top),
terminal values 1..10 left to right 26 mm apart, each row 28 mm below the one before, so every
card's marker corner shows; a stopped terminal lies face down in its place, a taken one has gone to
its owner's discard. In front of each player
(mm to the player's right u, into the table v): the deck (u -260, v 70) and the dead pile (u -180)
face down, the discard as a fan of squared scored sets (u from -110, 26 mm apart, the closing
terminal on top), the five temporary slots (v 190, u -250 + 70·i) and the work area as a cascade
(u 200) from the 10 at v 340 towards the player.

The camera sees every card's owner (its deck), so cards are assigned to seats by id, not place.
Left out of the observation: the ids of stopped terminals (face down), the discard's sets (only each
set's top card shows), the dead pile and deck counts, and ``out``.
"""
from __future__ import annotations

import random

from companion import catalogue as cat
from vision.layouts import (CASCADE_STEP_MM, FAN_STEP_MM, Builder, Placement, Seat, cascade_order,
                            edge_seats, local, seat_points)
from vision.scene import TableScene

ROW_PITCH = 28.0
SLOT_PITCH = 70.0
WORK_U, WORK_V = 200.0, 340.0
DISCARD_U, PILES_V = -110.0, 70.0
TEMP_U, TEMP_V = -250.0, 190.0


def table_size(players: int) -> tuple[float, float]:
    """The table rectangle in mm."""
    if not 1 <= players <= 4:
        raise ValueError(f"the Chains table plan holds 1–4 players, not {players} (more players need "
                         "a table larger than one 1080p camera reads)")
    return (1200.0, 700.0) if players <= 2 else (1300.0, 960.0)


def seats(players: int) -> list[Seat]:
    """Seat 0 at the left edge, then clockwise: 1–2 players left and right; 3–4 players also top
    and bottom (the player areas need the table's middle of each edge)."""
    w, h = table_size(players)
    spots = [("L", 0.5), ("R", 0.5)] if players <= 2 else [("L", 0.5), ("T", 0.5), ("R", 0.5), ("B", 0.5)]
    return edge_seats(w, h, spots[:players])


def terminal_point(seat: int, value: int, players: int) -> tuple[float, float]:
    """Where seat ``seat``'s terminal card of ``value`` lies in the terminal area."""
    w, h = table_size(players)
    return (w / 2 + (value - 5.5) * FAN_STEP_MM, h / 2 + (seat - (players - 1) / 2) * ROW_PITCH)


def _deck(card_id: str) -> int:
    return cat.card(card_id).deck or 0


def place(layout: dict, players: int, rng: random.Random) -> list[Placement]:
    """Placements for a Chains ``layout()``."""
    b = Builder(rng, mm=2.0)
    w, h = table_size(players)
    plan = seats(players)
    b.table(w, h, plan)
    for p, (seat, area) in enumerate(zip(plan, layout["players"])):
        back = f"B-C{p + 1:02d}"
        for _ in range(min(area.get("deck", 0), 4)):
            b.put(back, seat.at(-260, PILES_V), seat.angle, face_up=False, mm=1.0)
        for _ in range(min(area.get("dead", 0), 4)):
            b.put(back, seat.at(-180, PILES_V), seat.angle, face_up=False, mm=1.0)
        for i, scored in enumerate(area.get("discard", [])):
            for card_id in scored:                       # squared: the terminal ends on top
                b.put(card_id, seat.at(DISCARD_U + i * FAN_STEP_MM, PILES_V), seat.angle, mm=1.0)
        for i, card_id in enumerate(area["temporary"]):
            if card_id is not None:
                b.put(card_id, seat.at(TEMP_U + i * SLOT_PITCH, TEMP_V), seat.angle)
        for i, card_id in enumerate(area["work"]):
            b.put(card_id, seat.at(WORK_U, WORK_V - i * CASCADE_STEP_MM), seat.angle)
    for p, row in enumerate(layout["terminals"]):
        for value, entry in enumerate(row, start=1):
            if entry["state"] != "taken":
                b.put(entry["card"], terminal_point(p, value, players), 0.0,
                      face_up=entry["state"] == "available", mm=1.5)
    return b.placements


def read(scene: TableScene, players: int) -> dict:
    """The observation of a Chains table: terminal rows, work areas, temporary slots."""
    w, h = table_size(players)
    plan = seats(players)
    tokens = seat_points(scene, plan)
    x0 = terminal_point(0, 1, players)[0]
    rows: list[dict[int, dict]] = [{} for _ in range(players)]
    work: list[list] = [[] for _ in range(players)]
    temporary: list[list] = [[None] * 5 for _ in range(players)]
    discard_tops: list[dict[int, str]] = [{} for _ in range(players)]
    for c in scene.cards:
        if not c.card_id.startswith(("C", "B-C")) or c.card_id.startswith("C-"):
            continue
        try:
            seat = (int(c.card_id[3:5]) if c.card_id.startswith("B-C") else _deck(c.card_id)) - 1
        except (KeyError, ValueError):
            continue
        if not 0 <= seat < players:
            continue
        in_terminals = (abs(c.centre[0] - w / 2) < 5.5 * FAN_STEP_MM + 20
                        and abs(c.centre[1] - h / 2) < players * ROW_PITCH / 2 + 60)
        if in_terminals:
            if c.face_up:
                card = cat.card(c.card_id)
                rows[seat][card.value] = {"card": c.card_id, "state": "available"}
            else:
                value = round((c.centre[0] - x0) / FAN_STEP_MM) + 1
                if 1 <= value <= 10:
                    rows[seat][value] = {"state": "stopped"}
            continue
        if not c.face_up:
            continue                                      # deck and dead piles: contents hidden
        u, v = local(tokens[seat], plan[seat].angle, c.centre)
        if u > WORK_U - 35:
            work[seat].append(c)
        elif abs(v - TEMP_V) < 50:
            slot = round((u - TEMP_U) / SLOT_PITCH)
            if 0 <= slot < 5:
                temporary[seat][slot] = c.card_id
        elif abs(v - PILES_V) < 50 and u > DISCARD_U - 35:
            discard_tops[seat][cat.card(c.card_id).value] = c.card_id
    terminals = []
    for seat in range(players):
        if not rows[seat] and not discard_tops[seat]:
            terminals.append([])                          # before the setup: no terminal area
            continue
        row = []
        for value in range(1, 11):
            entry = rows[seat].get(value)
            if entry is None:
                entry = {"state": "taken"}
                if value in discard_tops[seat]:
                    entry["card"] = discard_tops[seat][value]
            row.append(entry)
        terminals.append(row)
    return {"terminals": terminals,
            "players": [{"work": [c.card_id for c in cascade_order(work[p], plan[p].angle)],
                         "temporary": temporary[p]} for p in range(players)]}


def knowable(layout: dict, players: int) -> dict:
    """The part of an engine ``layout()`` a camera can know (see the module docstring)."""
    terminals = [[{"state": e["state"]} if e["state"] == "stopped" else dict(e) for e in row]
                 for row in layout["terminals"]]
    return {"terminals": terminals,
            "players": [{"work": list(a["work"]), "temporary": list(a["temporary"])}
                        for a in layout["players"]]}
