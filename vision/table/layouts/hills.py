"""The Seven Hills of Rome on the table: the row of hills and each side's cascade at every hill.

Plan (table 800 × 680 mm, 2 players): the seven yellow hill cards in a row across the table's
middle, 75 mm apart, hill 1 at the red player's left. Red (seat 0) sits at the bottom edge, blue
(seat 1) at the top; each lays its cards at a hill as a cascade towards itself: the first card next
to the hill, every later card 24 mm nearer its player and on top, so each card's top strip (with its
marker) stays visible. Face-down cards show their backs (B-HILLR / B-HILLB). Cards that leave the
game lie face down in a pile right of the row: the camera cannot tell them apart, so ``out`` is
left out of the observation, and so is ``revealed`` for a hill with no card (nothing shows it).
"""
from __future__ import annotations

import random

from companion import catalogue as cat
from vision.table.layouts import CASCADE_STEP_MM, Builder, Placement, Seat, cascade_order, edge_seats
from vision.table.scene import TableScene

PITCH = 75.0
FIRST = 96.0     # from the row's centre line to the first card's centre
SIDES = ("red", "blue")


def table_size(players: int) -> tuple[float, float]:
    """The table rectangle in mm."""
    if players != 2:
        raise ValueError(f"The Seven Hills of Rome is for 2 players, not {players}")
    return (800.0, 680.0)


def seats(players: int) -> list[Seat]:
    """Red (seat 0) at the bottom edge, blue (seat 1) at the top, tokens at their left ends."""
    w, h = table_size(players)
    return edge_seats(w, h, [("B", 0.1), ("T", 0.9)])


def hill_point(hill: int, players: int = 2) -> tuple[float, float]:
    """Where the plan puts hill card ``hill`` (1–7)."""
    w, h = table_size(players)
    return (w / 2 + (hill - 4) * PITCH, h / 2)


def _side(card_id: str) -> int | None:
    if card_id in ("B-HILLR", "B-HILLB"):
        return SIDES.index("red" if card_id == "B-HILLR" else "blue")
    card = cat.card(card_id)
    if card.game != "hills" or card.kind == "hill":
        return None
    return 0 if card.colour == "R" else 1


def place(layout: dict, players: int, rng: random.Random) -> list[Placement]:
    """Placements for a Seven Hills ``layout()``."""
    b = Builder(rng)
    w, h = table_size(players)
    plan = seats(players)
    b.table(w, h, plan)
    for entry in layout["hills"]:
        x, y = hill_point(entry["hill"], players)
        b.put(f"H-H{entry['hill']}", (x, y), 0.0)
    for entry in layout["hills"]:
        x, y = hill_point(entry["hill"], players)
        for seat, side in enumerate(SIDES):
            toward = 1 if seat == 0 else -1      # red's cascade runs down to the bottom edge
            for i, card_id in enumerate(entry[side]):
                b.put(card_id, (x, y + toward * (FIRST + i * CASCADE_STEP_MM)), plan[seat].angle,
                      face_up=not card_id.startswith("B-"))
    for card_id in layout.get("out", []):
        b.put(card_id, (w - 70, h / 2), 0.0, face_up=False, mm=1.0, degrees=4)
    return b.placements


def read(scene: TableScene, players: int) -> dict:
    """The observation of a Seven Hills table: the cards at each hill in cascade order."""
    xs = {h: hill_point(h, players)[0] for h in range(1, 8)}
    plan = seats(players)
    row_y = hill_point(1, players)[1]
    for c in scene.cards:
        if c.face_up and c.card_id.startswith("H-H") and c.card_id[3:].isdigit():
            xs[int(c.card_id[3:])] = c.centre[0]
    at: dict[int, list[list]] = {h: [[], []] for h in xs}
    for c in scene.cards:
        try:
            side = _side(c.card_id)
        except KeyError:
            continue
        if side is None or abs(c.centre[1] - row_y) > 400 or c.centre[0] > xs[7] + PITCH / 2 + 20:
            continue   # not at a hill (e.g. the out pile right of the row)
        hill = min(xs, key=lambda h: abs(xs[h] - c.centre[0]))
        at[hill][side].append(c)
    hills = []
    for h in range(1, 8):
        entry: dict = {"hill": h}
        cards = at[h][0] + at[h][1]
        if cards:
            entry["revealed"] = any(c.face_up for c in cards)
        for seat, side in enumerate(SIDES):
            entry[side] = [c.card_id for c in cascade_order(at[h][seat], plan[seat].angle)]
        hills.append(entry)
    return {"hills": hills}


def knowable(layout: dict, players: int) -> dict:
    """The part of an engine ``layout()`` a camera can know: no ``out``, no ``revealed`` at empty hills."""
    hills = []
    for entry in layout["hills"]:
        entry = dict(entry)
        if not entry["red"] and not entry["blue"]:
            del entry["revealed"]
        hills.append(entry)
    return {"hills": hills}
