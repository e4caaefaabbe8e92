"""Seven Hills of Rome: the beginner's and the good player's rules.

Both read only what the seat may know: a card the other colour laid face down counts as an unknown
value (5 for the beginner, the average of the other colour's unseen cards for the good player).

* beginner: "on the most valuable hill where you are not ahead yet, the smallest card that puts
  you ahead".
* good: each placement is worth the hill it wins (when it puts you ahead there), plus a little for
  the lead it leaves, less its card's points at ``POINT_COST`` each (points spent here are missing
  on later hills).
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from companion.engine import Move
from companion.games.hills import HILLS, deck, is_banner

POINT_COST = 0.35
"""Hill worth one card point costs (28 hill points are shared out with 45 card points a side)."""
LEAD_WORTH = 0.3
"""Hill worth of each point of lead (up to 4) a placement leaves: a margin the other side must beat."""

Option = tuple[int, str]
"""A placement as (hill, card id)."""


_VALUES = {c: 0 if is_banner(c) else int(c[3:]) for seat in (0, 1) for c in deck(seat, True)}
"""Every card's printed value by id (a banner 0): the playouts look values up a million times."""


def _value(card: str | None) -> int:
    """A card's printed value from its id (H-R7 → 7; a banner 0), without the catalogue's lookup."""
    return _VALUES.get(card, 0) if card is not None else 0


def _sum(game: Any, hill: int, seat: int, viewer: int, guess: float) -> float:
    """The seat's sum at a hill as ``viewer`` knows it: a card ``viewer`` has not seen counts
    ``guess`` (another seat's card on a face-down hill, or a card of unknown value)."""
    h = game.hills[hill - 1]
    hidden = not h["revealed"] and seat != viewer
    return sum(guess if hidden or c["card"] is None else _value(c["card"])
               for c in h["cards"] if c["seat"] == seat)


def _options(legal: Sequence[Move]) -> dict[Option, Move]:
    """The placements naming a card (a face-down card of unknown value is the camera's, not ours)."""
    return {(m.hill, m.get("card")): m for m in legal if m.kind == "place" and m.get("card") is not None}


def _beginner_pick(game: Any, seat: int, options: Sequence[Option], rng: random.Random) -> Option:
    """The beginner's rule over (hill, card) options (see ``beginner``)."""
    other = 1 - seat

    def behind(hill: int) -> float:
        return _sum(game, hill, other, seat, 5) - _sum(game, hill, seat, seat, 5)
    hills = {h for h, _ in options}
    wanted = [h for h in hills if behind(h) >= 0] or sorted(hills)
    hill = max(wanted)
    need = behind(hill)
    here = sorted((o for o in options if o[0] == hill), key=lambda o: (_value(o[1]), rng.random()))
    enough = [o for o in here if _value(o[1]) > need]
    return (enough or here)[0]


def _good_pick(game: Any, seat: int, options: Sequence[Option], rng: random.Random, guess: float) -> Option:
    """The good rule over (hill, card) options (see ``good``)."""
    other = 1 - seat
    tie_mine = game.options["start_player"] == seat
    best: list[Option] = []
    top = -1e9
    by_hill: dict[int, list[str]] = {}
    for h, c in options:
        by_hill.setdefault(h, []).append(c)
    for hill, cards in by_hill.items():
        behind = _sum(game, hill, other, seat, guess) - _sum(game, hill, seat, seat, guess)
        cards.sort(key=_value)
        enough = [c for c in cards if _value(c) > behind or (_value(c) == behind and tie_mine)]
        if behind < 0 or (behind == 0 and tie_mine and _sum(game, hill, seat, seat, guess) > 0):
            worth, card = -POINT_COST * _value(cards[0]) - LEAD_WORTH * hill, cards[0]   # already ahead
        elif enough:
            worth, card = hill - POINT_COST * _value(enough[0]), enough[0]
        else:
            worth, card = -POINT_COST * _value(cards[0]) - 0.1 * hill, cards[0]
        if worth > top + 1e-9:
            best, top = [(hill, card)], worth
        elif abs(worth - top) <= 1e-9:
            best.append((hill, card))
    return rng.choice(best)


def _guess(game: Any, seat: int) -> float:
    """The average value of the other colour's cards this seat has not seen."""
    pool = [_value(c) for c in game.public_unseen(1 - seat)]
    return sum(pool) / len(pool) if pool else 5.0


def beginner(game: Any, seat: int, legal: Sequence[Move], rng: random.Random) -> Move:
    """On the most valuable hill allowed where you are not ahead yet, the smallest card that puts you
    ahead (unknown cards count as 5); your smallest card if none does."""
    moves = _options(legal) or {(m.hill, ""): m for m in legal}
    return moves[_beginner_pick(game, seat, list(moves), rng)]


def good(game: Any, seat: int, legal: Sequence[Move], rng: random.Random,
         hidden: Sequence[str] = ()) -> Move:
    """The placement worth most: the hill it wins (if it puts you ahead there), a little for the lead
    it leaves (up to 4), less what the card costs (``POINT_COST`` a point)."""
    moves = _options(legal) or {(m.hill, ""): m for m in legal}
    return moves[_good_pick(game, seat, list(moves), rng, _guess(game, seat))]


def playout_move(game: Any, seat: int, rng: random.Random) -> Move:
    """The good rule's move without listing every legal move first (the strong player's playouts)."""
    hand = [c for c in game.unseen[seat] if c is not None]
    options = [(h, c) for h in HILLS if game._hill_bar(seat, h) is None for c in hand]
    if options:
        hill, card = _good_pick(game, seat, options, rng, _guess(game, seat))
        move = Move.of(seat, "place", hill=hill, card=card)
        if game._place_reason(move) is None:
            return move
    return good(game, seat, game.legal_moves(), rng)   # a variant's rule bars it: ask the engine


playout = good
"""The strong player's playouts follow the good rule (``playout_move``: the same, faster)."""
PLAYOUTS = 50
"""The strong player's playouts per decision."""
SCALE = 7.0
"""A typical score margin (hill points), for the strong player's results."""
