"""What a companion seat may know: a ``SeatView`` is one state of the seat's information set.

A player is never handed the table's game. ``seat_view(game, seat)`` copies the game and puts every
card the seat cannot know (another seat's hand, another seat's face-down cards, the draw pile) into
one fixed arrangement, the sorted one, so two games that differ only in where those cards are give
equal views: whatever a player computes from its view cannot depend on a hidden card. The copy's
move log and events are dropped (they name the cards as they were played face down).

``SeatView.sample(rng)`` is a determinisation: the same hidden cards dealt at random to the same
hidden places, for the search of the *strong* player (information-set Monte Carlo).

Which cards are hidden follows ``companion.session.view.hidden_cards`` (the rule a phone's view
follows), per game:

* Seven Hills: the other colour's hand and its face-down cards (the values nobody has seen).
* Prussia, two players: the other hand and the draw pile (one pool: the seat cannot tell them apart).
* Spartacus: each seat holds its own colour and every card is played face up, so a seat that watched
  the game knows every hand (its colour's cards not yet played); nothing is left to sample. The won
  tricks lie face down, but their cards were seen when played and their worth is public.
* Wheel of History, Chains: every card on the table is public; cards still in a deck are not in the
  state at all (a draw is a chance move sampled when it happens).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from companion.engine import Game

Place = tuple[Any, Any]
"""A place that holds one hidden card: (a list and its index) or (a dict and its key)."""


def _hills_places(game: Any, seat: int) -> list[Place]:
    if game.options.get("open_play"):
        return []
    other = 1 - seat
    places: list[Place] = []
    for hill in game.hills:
        if hill["revealed"]:
            continue
        places += [(c, "card") for c in hill["cards"] if c["seat"] == other and c["card"] is not None]
    hand = game.unseen[other]
    return places + [(hand, i) for i in range(len(hand))]


def _prussia_places(game: Any, seat: int) -> list[Place]:
    if game.players == 1:
        return []   # solo: the pile is the only unseen thing, and it is not ordered
    hand, pile = game.hands[1 - seat], game.table.pile
    return [(hand, i) for i in range(len(hand))] + [(pile, i) for i in range(len(pile))]


HIDDEN_PLACES: dict[str, Callable[[Any, int], list[Place]]] = {
    "hills": _hills_places,
    "prussia": _prussia_places,
}
"""Per game id: the places of the cards ``seat`` cannot know, in an order fixed by public facts."""


def hidden_places(game: Game, seat: int) -> list[Place]:
    """The places holding a card ``seat`` may not know, in an order that public facts fix."""
    places = HIDDEN_PLACES.get(game.id)
    return places(game, seat) if places else []


def _deal(places: list[Place], cards: list[str]) -> None:
    for (holder, key), card in zip(places, cards):
        holder[key] = card


@dataclass(frozen=True)
class SeatView:
    """One seat's knowledge: ``game`` is a copy whose hidden cards are dealt in sorted order (a
    representative of the information set, never the table's own arrangement)."""

    seat: int
    game: Game
    hidden: tuple[str, ...]
    """The cards the seat cannot place (sorted): another hand, face-down cards, the pile."""

    def sample(self, rng: random.Random) -> Game:
        """A determinisation: a copy of the view with the hidden cards dealt at random."""
        copy = self.game.clone()
        cards = list(self.hidden)
        rng.shuffle(cards)
        _deal(hidden_places(copy, self.seat), cards)
        return copy

    def legal_moves(self) -> list:
        """The seat's legal moves in this view (the same as at the table: they name no hidden card)."""
        return [m for m in self.game.legal_moves() if m.player == self.seat]


def seat_view(game: Game, seat: int) -> SeatView:
    """What ``seat`` may know of ``game``, as a ``SeatView`` (the game is not changed)."""
    log, events = game.log, game.events
    game.log, game.events = [], []   # not copied: they name cards as they were played
    try:
        copy = game.clone()
    finally:
        game.log, game.events = log, events
    places = hidden_places(copy, seat)
    cards = sorted(holder[key] for holder, key in places)
    _deal(places, cards)
    return SeatView(seat, copy, tuple(cards))
