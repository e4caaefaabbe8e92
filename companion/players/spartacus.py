"""Spartacus (スパルタクス): the beginner's and the good player's rules.

Low beats high; a won trick scores its numbers (doubled per banner), cards left in hand count against.

* beginner: lead your highest number; later, beat the trick with your lowest card when you can,
  else pass.
* good: lead a high number (it sheds a penalty and rarely wins); beat a trick only when it is worth
  the card: with the highest number that still beats it; put a banner on a trick you are winning;
  pass otherwise.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from companion.engine import Move
from companion.games.spartacus import card_value, is_banner

WORTH_A_CARD = 8
"""A trick worth at least this (its numbers, doubled per banner) is worth beating."""


def _number(move: Move) -> int | None:
    card = move.get("card")
    return None if card is None or is_banner(card) else card_value(card)


def beginner(game: Any, seat: int, legal: Sequence[Move], rng: random.Random) -> Move:
    """Lead the highest number; then beat the trick with the lowest card, or pass."""
    numbers = [m for m in legal if _number(m) is not None]
    if not game.trick:
        return max(numbers, key=_number) if numbers else legal[0]
    if numbers:
        return min(numbers, key=_number)
    return next((m for m in legal if m.kind == "pass"), legal[0])


def good(game: Any, seat: int, legal: Sequence[Move], rng: random.Random,
         hidden: Sequence[str] = ()) -> Move:
    """Beat a trick only when it is worth it, with the highest card that does (module's words)."""
    numbers = sorted((m for m in legal if _number(m) is not None), key=_number)
    banners = [m for m in legal if m.kind == "play" and _number(m) is None]
    passing = next((m for m in legal if m.kind == "pass"), None)
    if not game.trick:
        keep = [m for m in numbers if _number(m) >= 6] or numbers
        return keep[-1] if keep else legal[0]
    if game.trick_winner() == seat and banners and not game.joker:
        return banners[0]
    cards = [c for _, c in game.trick]
    worth = sum(card_value(c) for c in cards if not is_banner(c)) * 2 ** sum(map(is_banner, cards))
    if numbers and (worth >= WORTH_A_CARD or passing is None):
        return numbers[-1]   # the highest number that still beats the trick
    return passing or (numbers[-1] if numbers else legal[0])


playout = good
"""The strong player's playouts follow the good rule (cheaper than the beginner's here, and closer)."""
PLAYOUTS = 30
SCALE = 30.0
