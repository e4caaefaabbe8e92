"""The companion takes a seat: a player for every game, at three levels.

One small interface: ``Player.choose(view, legal, rng) -> Move``. ``view`` is a ``SeatView``
(``companion.players.seat``): what the seat may know, never the table's own game; ``legal`` the
seat's legal moves; ``rng`` the only source of chance (a seeded ``random.Random`` makes a choice
repeatable). ``decide(game, seat, level, rng)`` builds the view from a game and asks the player.

Levels (``LEVELS``):

* ``beginner``: a rule of thumb, one line per game (``companion.players.<game>.beginner``);
* ``good``: a heuristic a person can explain (``<game>.good``);
* ``strong``: information-set Monte Carlo (``companion.players.search``), with the game's good
  rule in the playouts; solo Prussia uses the odds of ``companion advise`` (the same playouts);
  Chains keeps the good rule's move unless a search on shared deals shows a better one
  (``companion.players.chains_fast``).

docs/players.md says how each level decides and what the bench measured.
"""
from __future__ import annotations

import importlib
import random
from dataclasses import dataclass
from types import ModuleType
from typing import Sequence

from companion.engine import Game, GameError, Move, Reason
from companion.players import search
from companion.players.seat import SeatView, seat_view

LEVELS = ("beginner", "good", "strong")
"""The levels a table can give a companion seat, weakest first."""

LEVEL_WORDS = {"beginner": Reason("beginner", "初級"), "good": Reason("good", "中級"),
               "strong": Reason("strong", "上級")}
"""How a level is named to people, in English and Japanese."""

__all__ = ["LEVELS", "LEVEL_WORDS", "Player", "SeatView", "decide", "player", "seat_view"]


def rules(game_id: str) -> ModuleType:
    """The module with a game's rules of thumb (``companion.players.<game id>``)."""
    return importlib.import_module(f"companion.players.{game_id}")


@dataclass(frozen=True)
class Player:
    """A companion player of one game at one level."""

    game_id: str
    level: str

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise GameError(f"unknown level {self.level!r}: choose one of {', '.join(LEVELS)}",
                            f"レベル{self.level!r}はありません: {'、'.join(LEVELS)}のどれかを選んでください")

    def choose(self, view: SeatView, legal: Sequence[Move], rng: random.Random) -> Move:
        """The move this player makes from ``view`` (one of ``legal``)."""
        if not legal:
            raise GameError("the companion has no legal move to choose from",
                            "コンパニオンが選べる合法手がありません")
        game_rules = rules(self.game_id)
        if len(legal) == 1:
            return legal[0]
        if self.level == "beginner":
            return game_rules.beginner(view.game, view.seat, legal, rng)
        if self.level == "good":
            return game_rules.good(view.game, view.seat, legal, rng, view.hidden)
        strong = getattr(game_rules, "strong", None)
        if strong is not None:
            move = strong(view, legal, rng)
            if move is not None:
                return move
        return search.choose(view, legal, rng, game_rules.playout, game_rules.PLAYOUTS,
                             game_rules.SCALE, getattr(game_rules, "playout_move", None),
                             getattr(game_rules, "playout_chance", None))


def player(game_id: str, level: str) -> Player:
    """The companion player of ``game_id`` at ``level``."""
    return Player(game_id, level)


def decide(game: Game, seat: int, level: str, rng: random.Random) -> Move:
    """The move the companion at ``level`` makes for ``seat`` now; it sees only ``seat_view``."""
    legal = [m for m in game.legal_moves() if m.player == seat]
    return player(game.id, level).choose(seat_view(game, seat), legal, rng)
