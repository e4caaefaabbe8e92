"""Chains on the table: compact plans for 1–10 players, as close as one camera can get.

The camera needs only what ``read`` reports: the shared terminal rows and each player's work area
and five temporary slots. So each player keeps a compact *block* at the table edge in front of them
and everything else off the watched rectangle, by their hand: the draw deck, the dead pile and the
discard, all face down (RULING for a watched table: each scored set is turned over onto the discard;
the session knows which terminal card closed it, and a face-up card at the edge of the camera's view
would pull that card's track off its old place). The seat token lies there too (owners come from
the cards' deck ids).

A block (mm to the player's right u, into the table v, from the middle of its edge):
- the **temporary slots** in a zig-zag nearest the player: slot i at u = (i − 2)·32, odd slots
  24 mm further in; neighbours overlap, but whatever order the cards come in, an odd slot's top-left
  marker and an even slot's bottom-right marker stay uncovered (a neighbour reaches at most 64 mm
  from an even card's top, 6 mm short of its lower marker);
- the **work area** as a sideways fan behind them (the 10 at the player's left, 26 mm steps: each
  card's top-left marker shows), room for ten cards (a misfit lies on nine).
A block is 297 × 218 mm. The **terminal area** in the middle holds one row per seat (values 1..10
left to right, 26 mm apart, as upright fans facing the bottom edge), rows 28 mm apart, in 1–3
columns. ``PLANS`` puts the blocks on the edges so that the whole table is as small as it can be
while players sit around it (never more than one player more on one edge than on the opposite one);
the K-CAL markers keep the corners. Largest scale a 1080p frame holds (``synthetic.max_px_per_mm``):
1 player 2.66 px/mm, 2: 2.34, 3: 1.75, 4: 1.73, 5–6: 1.70, 7–8: 1.42, 9–10: 1.33.

Left out of the observation: the ids of stopped terminals (face down) and of taken ones (in the
discard, off the watched rectangle), the discard, dead pile and deck, ``out``, and the terminal rows
altogether while no terminal card lies on the table (before the setup, or after a perfect solitaire
game: the two look the same).
"""
from __future__ import annotations

import functools
import math
import random

from companion import catalogue as cat
from vision.table.layouts import FAN_STEP_MM, Builder, Placement, Seat, fan_order, local
from vision.table.scene import TableScene

CARD_W, CARD_H = 63.0, 88.0
WORK_STEP = FAN_STEP_MM                      # a sideways fan: ±3° of a hand turns its long edge
TEMP_PITCH, TEMP_RISE = 32.0, 24.0
EDGE = 8.0                                   # a block's nearest card edge from the table edge
TEMP_V = EDGE + CARD_H / 2                   # even slots' centres (odd ones TEMP_RISE further in)
WORK_V = EDGE + CARD_H + TEMP_RISE + 10.0 + CARD_H / 2
BLOCK_W = CARD_W + 9 * WORK_STEP             # 297: ten cards of work area
BLOCK_D = WORK_V + CARD_H / 2                # 218
GAP = 12.0                                   # between blocks, and around the terminal area
CORNER = 46.0                                # the K-CAL markers' corners stay clear
MARGIN = 6.0                                 # blocks from the table's ends (their temporary
                                             # slots, narrower than the fan, miss the K-CAL corners)
ROW_PITCH, COLUMN_GAP = 28.0, 16.0
ROW_W = CARD_W + 9 * FAN_STEP_MM             # 297
OFF_TABLE_V = -55.0                          # deck, dead pile, discard and token: by the player's hand

PLANS: dict[int, tuple[int, int, int, int, int]] = {
    # players: blocks on the left, top, right and bottom edges, terminal columns
    1: (0, 0, 0, 1, 1), 2: (1, 0, 1, 0, 1), 3: (0, 2, 0, 1, 2), 4: (0, 2, 0, 2, 2), 5: (0, 3, 0, 2, 3),
    6: (0, 3, 0, 3, 3), 7: (0, 4, 0, 3, 3), 8: (0, 4, 0, 4, 3), 9: (1, 4, 1, 3, 2), 10: (1, 4, 1, 4, 2),
}


def _plan(players: int) -> tuple[int, int, int, int, int]:
    if players not in PLANS:
        raise ValueError(f"Chains is for 1–10 players (one printed Pairs deck each), not {players}")
    return PLANS[players]


@functools.lru_cache(maxsize=None)   # pure in the player count; the reader asks for it per card
def _terminal_area(players: int) -> tuple[float, float, int]:
    """(width, height, rows per column) of the terminal area."""
    cols = _plan(players)[4]
    rows = math.ceil(players / cols)
    return cols * ROW_W + (cols - 1) * COLUMN_GAP, CARD_H + (rows - 1) * ROW_PITCH, rows


@functools.lru_cache(maxsize=None)   # pure in the player count; the reader asks for it per card
def _depths(players: int) -> tuple[float, float, float, float]:
    """How far the blocks reach in from the left, top, right and bottom edges."""
    return tuple(BLOCK_D if n else CORNER for n in _plan(players)[:4])   # type: ignore[return-value]


@functools.lru_cache(maxsize=None)   # pure in the player count; the reader asks for it per card
def table_size(players: int) -> tuple[float, float]:
    """The table rectangle in mm: the smallest that holds the plan."""
    nl, nt, nr, nb, _ = _plan(players)
    dl, dt, dr, db = _depths(players)
    tw, th, _ = _terminal_area(players)
    row = max(nt, nb)
    side = max(nl, nr)
    w = max(row * BLOCK_W + max(row - 1, 0) * GAP + 2 * MARGIN, dl + dr + tw + 2 * GAP)
    h = max(dt + db + th + 2 * GAP, dt + db + side * BLOCK_W + max(side - 1, 0) * GAP + 2 * GAP)
    return float(math.ceil(w)), float(math.ceil(h))


def seats(players: int) -> list[Seat]:
    """Each seat's block: the middle of its table edge (``token``) and the angle of cards turned
    to the player. Clockwise from seat 0: left edge, top (left to right), right, bottom (right to
    left), as play goes."""
    nl, nt, nr, nb, _ = _plan(players)
    w, h = table_size(players)
    dl, dt, dr, db = _depths(players)

    def spread(n: int, a: float, b: float) -> list[float]:
        return [a + (i + 0.5) * (b - a) / n for i in range(n)]
    top_bottom = (MARGIN, w - MARGIN)
    sides = (dt + GAP if nt else CORNER, h - (db + GAP if nb else CORNER))
    out = [Seat((0.0, y), 90.0) for y in reversed(spread(nl, *sides))]
    out += [Seat((x, 0.0), 180.0) for x in spread(nt, *top_bottom)]
    out += [Seat((w, y), -90.0) for y in spread(nr, *sides)]
    out += [Seat((x, h), 0.0) for x in reversed(spread(nb, *top_bottom))]
    return out


def terminal_point(seat: int, value: int, players: int) -> tuple[float, float]:
    """Where seat ``seat``'s terminal card of ``value`` lies in the terminal area."""
    w, h = table_size(players)
    dl, dt, dr, db = _depths(players)
    tw, th, rows = _terminal_area(players)
    col, row = divmod(seat, rows)
    x0 = (dl + w - dr) / 2 - tw / 2 + ROW_W / 2 + col * (ROW_W + COLUMN_GAP)
    y0 = (dt + h - db) / 2 - th / 2 + CARD_H / 2
    return (x0 + (value - 5.5) * FAN_STEP_MM, y0 + row * ROW_PITCH)


def temporary_point(seat: Seat, slot: int) -> tuple[float, float]:
    """Where temporary slot ``slot`` (0–4) of a seat lies."""
    return seat.at((slot - 2) * TEMP_PITCH, TEMP_V + (slot % 2) * TEMP_RISE)


def work_point(seat: Seat, i: int) -> tuple[float, float]:
    """Where the ``i``-th card of a seat's work area (0: the 10) lies."""
    return seat.at(-BLOCK_W / 2 + CARD_W / 2 + i * WORK_STEP, WORK_V)


def place(layout: dict, players: int, rng: random.Random) -> list[Placement]:
    """Placements for a Chains ``layout()``."""
    b = Builder(rng, mm=2.0)
    w, h = table_size(players)
    plan = seats(players)
    b.table(w, h, [Seat(s.at(0.0, OFF_TABLE_V), s.angle) for s in plan])
    for p, (seat, area) in enumerate(zip(plan, layout["players"])):
        back = f"B-C{p + 1:02d}"
        for u, count in ((-110.0, area.get("deck", 0)), (-180.0, area.get("dead", 0))):
            for _ in range(min(count, 4)):
                b.put(back, seat.at(u, OFF_TABLE_V), seat.angle, face_up=False, mm=1.0)
        for scored in area.get("discard", []):          # one squared pile, face down
            for card_id in scored:
                b.put(card_id, seat.at(110.0, OFF_TABLE_V), seat.angle, face_up=False, mm=1.0)
        for slot, card_id in enumerate(area["temporary"]):
            if card_id is not None:
                b.put(card_id, temporary_point(seat, slot), seat.angle)
        for i, card_id in enumerate(area["work"]):
            b.put(card_id, work_point(seat, i), seat.angle)
    for p, row in enumerate(layout["terminals"]):
        for value, entry in enumerate(row, start=1):
            if entry["state"] != "taken":
                b.put(entry["card"], terminal_point(p, value, players), 0.0,
                      face_up=entry["state"] == "available", mm=1.5)
    return b.placements


def _owner(card_id: str, players: int) -> int | None:
    if card_id.startswith("B-C") and card_id[3:5].isdigit():
        seat = int(card_id[3:5]) - 1
    elif card_id.startswith("C") and not card_id.startswith("C-"):
        try:
            seat = (cat.card(card_id).deck or 0) - 1
        except (KeyError, ValueError):
            return None
    else:
        return None
    return seat if 0 <= seat < players else None


def read(scene: TableScene, players: int) -> dict:
    """The observation of a Chains table: terminal rows, work areas, temporary slots."""
    w, h = table_size(players)
    plan = seats(players)
    rows: list[dict[int, dict]] = [{} for _ in range(players)]
    work: list[list] = [[] for _ in range(players)]
    temporary: list[list] = [[None] * 5 for _ in range(players)]
    for c in scene.cards:
        seat = _owner(c.card_id, players)
        x, y = c.centre
        if seat is None or not (0 <= x <= w and 0 <= y <= h):
            continue                                      # not ours, or off the watched rectangle
        value = min(range(1, 11), key=lambda v: math.dist(terminal_point(seat, v, players), c.centre))
        if math.dist(terminal_point(seat, value, players), c.centre) < FAN_STEP_MM:
            if c.face_up:
                rows[seat][cat.card(c.card_id).value] = {"card": c.card_id, "state": "available"}
            else:
                rows[seat][value] = {"state": "stopped"}
            continue
        if not c.face_up:
            continue
        u, v = local(plan[seat].token, plan[seat].angle, c.centre)
        if abs(v - WORK_V) < 30:
            work[seat].append(c)
        elif TEMP_V - 30 < v < TEMP_V + TEMP_RISE + 30:
            slot = round(u / TEMP_PITCH) + 2
            if 0 <= slot < 5:
                temporary[seat][slot] = c.card_id
    out: dict = {"players": [{"work": [c.card_id for c in fan_order(work[p], plan[p].angle)],
                              "temporary": temporary[p]} for p in range(players)]}
    if any(rows):
        out["terminals"] = [[rows[p].get(v, {"state": "taken"}) for v in range(1, 11)] for p in range(players)]
    return dict(sorted(out.items()))


def knowable(layout: dict, players: int) -> dict:
    """The part of an engine ``layout()`` a camera can know (see the module docstring)."""
    out: dict = {"players": [{"work": list(a["work"]), "temporary": list(a["temporary"])}
                             for a in layout["players"]]}
    if any(e["state"] != "taken" for row in layout["terminals"] for e in row):
        out["terminals"] = [[dict(e) if e["state"] == "available" else {"state": e["state"]} for e in row]
                            for row in layout["terminals"]]
    return dict(sorted(out.items()))
