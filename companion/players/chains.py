"""Chains (チェーンズ): the beginner's and the good player's rules.

* beginner: close the work area whenever a terminal card can; else move a fitting card from the
  temporary area; else turn the deck's top card into the temporary area (into the work area when
  no slot is free).
* good: as the beginner, but it turns a card into the work area only when the card it needs is
  likely (its copies left in the deck, of the cards left) or no temporary slot is free; otherwise it
  turns the card into the temporary area (safe, it ends the turn). A closing that would score a
  1-point terminal while a better one is near is put off when safe.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from companion.engine import CHANCE, Move
from companion.games.chains import POINTS, value_of

LIKELY = 0.25
"""Draw into the work area when the card it needs is at least this likely."""


def _kind(legal: Sequence[Move], kind: str) -> list[Move]:
    return [m for m in legal if m.kind == kind]


def beginner(game: Any, seat: int, legal: Sequence[Move], rng: random.Random) -> Move:
    """Close if you can; else move a fitting temporary card; else draw into the temporary area while
    a slot is free, into the work area when none is."""
    for kind in ("take_terminal", "temporary_to_work", "deck_to_temporary", "deck_to_work"):
        moves = _kind(legal, kind)
        if moves:
            return moves[0]
    return legal[0]


def good(game: Any, seat: int, legal: Sequence[Move], rng: random.Random,
         hidden: Sequence[str] = ()) -> Move:
    """Close or move when you can; draw into the work area only when the needed card is likely."""
    close = _kind(legal, "take_terminal")
    moving = _kind(legal, "temporary_to_work")
    top = game.top(seat)
    if close:
        k = value_of(close[0].card)
        # a 1-point close (8, 9, 10) can wait while a fitting card keeps the chain going
        if not (moving and POINTS[k] == 1 and game.state[seat][k - 2 if k > 1 else 0] == "available"):
            return close[0]
    if moving:
        return moving[0]
    deck = game.deck[seat]
    need = 10 if top is None else top - 1
    chance = sum(1 for c in deck if value_of(c) == need) / len(deck) if deck else 0.0
    to_work, to_temp = _kind(legal, "deck_to_work"), _kind(legal, "deck_to_temporary")
    if close:
        return close[0]
    if to_work and (chance >= LIKELY or not to_temp):
        return to_work[0]
    if to_temp:
        return to_temp[0]
    return legal[0]


playout = beginner
PLAYOUTS = 120
SCALE = 8.0


def playout_chance(game: Any, rng: random.Random) -> Move:
    """A turned-over card at random, without listing every card of the deck as a move (playouts);
    the setup as the engine samples it."""
    if not game.set_up:
        return game.sample_chance(rng)
    seat = game.pending[0]
    return Move.of(CHANCE, "reveal", card=rng.choice(sorted(game.deck[seat])))
