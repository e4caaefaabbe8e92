"""Chains (チェーンズ): the beginner's and the good player's rules.

* beginner: close the work area whenever a terminal card can; else move a fitting card from the
  temporary area; else turn the deck's top card into the temporary area (into the work area when
  no slot is free).
* good: look along the run the temporary area's cards can build on the work area and close it with
  the terminal card worth most on that run (moving the cards first); when nothing closes, move a
  fitting card; when nothing moves, turn the deck's top card into the work area only while the work
  area is empty (a misfit there costs one card, never a chain, and the turn goes on), else into the
  temporary area.

Why (docs/players.md, "Chains"): a turn ends only with a close or a card put into the temporary
area, so cards turned into an empty work area are free tries for a 10 within the same turn; the
beginner waits a whole turn for each card. The bench measured the older good rule (draw into the
work area when the needed card was 25 % likely; put off 1-point closes) below the beginner: a
misfit ruins a built chain, and a put-off close is taken by the other player first (with two
players one terminal card of each value may be taken at all).
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from companion.engine import Move
from companion.games.chains import value_of
from companion.players import chains_fast
from companion.players.chains_fast import best_close, reachable


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


def _closer(game: Any, seat: int, top: int | None) -> int | None:
    """The terminal value that would close a work area topped by ``top``, if the seat may take it."""
    k = 10 if top is None else top - 1
    if k < 1 or game.state[seat][k - 1] != "available" or (k == 10 and not game.may_take_ten(seat)):
        return None
    return k


def run_closes(game: Any, seat: int) -> list[tuple[int, list[int]]]:
    """Each close the temporary area's cards can reach: (terminal value, slots to move first, in order)."""
    values = [None if c is None else value_of(c) for c in game.temporary[seat]]
    return reachable(values, game.top(seat), lambda top: _closer(game, seat, top))


def good(game: Any, seat: int, legal: Sequence[Move], rng: random.Random,
         hidden: Sequence[str] = (), longer: bool = False) -> Move:
    """Close with the best terminal the temporary cards reach (``longer``: of closes worth the same,
    the longer run); draw into the work area only when it is empty (nothing to lose), else into the
    temporary area."""
    closes = run_closes(game, seat)
    if closes:
        _, slots = best_close(closes, longer)
        if not slots:
            return _kind(legal, "take_terminal")[0]
        return next(m for m in _kind(legal, "temporary_to_work") if m.slot == slots[0])
    moving = _kind(legal, "temporary_to_work")
    if moving:
        return moving[0]
    to_work, to_temp = _kind(legal, "deck_to_work"), _kind(legal, "deck_to_temporary")
    if to_work and (game.top(seat) is None or not to_temp):
        return to_work[0]
    if to_temp:
        return to_temp[0]
    return legal[0]


LONGER_FROM = 4
"""From this many players the strong player closes with the longer run of closes worth the same.
On the fast rules, each seed in every seat against good players (1,500 seeds a count), that alone
won 26.4 / 20.1 / 17.3 / 15.5 / 13.2 / 11.9 % with 4–9 players (even 25 / 20 / 16.7 / 14.3 / 12.5 /
11.1 %), 48.9 % with two (one terminal of a value may be taken at all: the terminal kept back is
often taken by the other player first) and 34.0 % with three (even 33.3 %: a small gain, left out
so that the three-player bench row measured without it stays true)."""


def strong(view: Any, legal: Sequence[Move], rng: random.Random) -> Move:
    """The good rule's move (with four or more players, the longer run's close: ``LONGER_FROM``)
    unless a search over shared deals shows another clearly better (``companion.players.chains_fast``:
    the rules on plain numbers, thousands of playouts a turn)."""
    longer = view.game.players >= LONGER_FROM
    default = good(view.game, view.seat, legal, rng, longer=longer)
    return chains_fast.strong(view, legal, rng, default, longer)
