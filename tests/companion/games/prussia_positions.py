"""Hand-built positions of the Prussia game for the tests (not a test module itself)."""
from __future__ import annotations

from typing import Any, Optional

from companion.engine import CHANCE, Move, thaw
from companion.games.prussia import Game
from companion.games.prussia_core import SPECIAL


def build(players: int = 1, options: Optional[dict[str, Any]] = None, *, alive: Optional[list[int]] = None,
          moved: Optional[dict[int, int]] = None, slots: Optional[dict[str, str]] = None, era: int = 0,
          kings: Optional[int] = None) -> Game:
    """A fresh game whose table is set by hand: surviving ranks, moved nations, relation cards, era."""
    game = Game(players, options)
    t = game.table
    if alive is not None:
        t.alive = sorted(alive)
        t.pos = {r: r for r in t.alive}
        t.special = {p: (p if p in t.pos else None) for p in SPECIAL}
    for rank, position in (moved or {}).items():
        t.pos[rank] = position
        t.special[position] = rank
    for name, card in (slots or {}).items():
        key = game.slot_key(name)
        assert key is not None, f"no slot {name} in this position"
        t.cards[key] = card
        t.pile.remove(card)
    t.era = era
    t.kings = era if kings is None else kings
    return game


def draw(game: Game, card: str) -> list:
    """Turn over ``card`` from the pile; return the events."""
    return game.apply(Move.of(CHANCE, "draw", card=card))


def ruling(events: list) -> Any:
    """The ruling event among ``events``."""
    return next(e for e in events if e.kind == "ruling")


def steps_of(events: list, kind: str) -> list[dict]:
    """The explanation steps of one kind in the ruling."""
    return [s for s in thaw(ruling(events).get("steps")) if s["step"] == kind]
