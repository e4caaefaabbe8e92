"""Wheel of History (歴史の車輪): the beginner's and the good player's rules.

* beginner: take the card of the colour you already hold most of (higher value on a tie).
* good: take the card that leaves your outlook best against the best other player: points scored,
  plus each card you hold weighted by how near its colour is to scoring (cards of it gone, of 5),
  minus each card weighted by how near its value is to ending the game (squared).
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from companion.engine import Move
from companion.games.wheel import CARDS, colour_of, value_of


def beginner(game: Any, seat: int, legal: Sequence[Move], rng: random.Random) -> Move:
    """The card of the colour you hold most of; a keep rather than a discard."""
    takes = [m for m in legal if m.kind == "take"]
    if not takes:
        return next((m for m in legal if m.kind == "keep"), legal[0])
    held = [colour_of(c) for c in game.taken[seat]]
    return max(takes, key=lambda m: (held.count(colour_of(m.card)), value_of(m.card), rng.random()))


_CARD = {c: (colour_of(c), value_of(c)) for c in CARDS}
"""Each card's colour and value, looked up once (the good rule runs in every strong playout)."""


def gone(game: Any) -> tuple[dict[str, int], dict[int, int]]:
    """How many cards of each colour and of each value are gone (taken or discarded)."""
    gone_colour: dict[str, int] = {}
    gone_value: dict[int, int] = {}
    for row in (*game.taken, game.discarded):
        for c in row:
            colour, value = _CARD[c]
            gone_colour[colour] = gone_colour.get(colour, 0) + 1
            gone_value[value] = gone_value.get(value, 0) + 1
    return gone_colour, gone_value


def outlook(game: Any, seat: int, counts: tuple[dict[str, int], dict[int, int]] | None = None) -> float:
    """Points plus what held cards may still bring (colour near scoring) or cost (value near the end);
    ``counts``: ``gone(game)``, when the caller has it already."""
    gone_colour, gone_value = counts or gone(game)
    total = float(game.points[seat])
    for c in game.taken[seat]:
        colour, v = _CARD[c]
        if colour not in game.colours_scored:
            total += v * gone_colour.get(colour, 0) / 5
        total -= v * (gone_value.get(v, 0) / 5) ** 2
    return total


def good(game: Any, seat: int, legal: Sequence[Move], rng: random.Random,
         hidden: Sequence[str] = ()) -> Move:
    """The move whose outcome leaves this seat's outlook best against the best other seat."""
    best, top = [], None
    for m in legal:
        copy = game.clone()
        copy._apply(m)
        counts = gone(copy)   # once per outcome, not once per seat
        mine = outlook(copy, seat, counts)
        rest = max(outlook(copy, s, counts) for s in range(game.players) if s != seat)
        score = mine - rest
        if top is None or score > top + 1e-9:
            best, top = [m], score
        elif abs(score - top) <= 1e-9:
            best.append(m)
    return rng.choice(best)


playout = good
"""The strong player's playouts follow the good rule (the beginner's model of the others lost to them)."""
PLAYOUTS = 30
SCALE = 10.0
