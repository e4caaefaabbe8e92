"""A series: several games of one kind with running totals and a rotating start player.

The rules' series are all of this shape: Wheel of History plays fixed rounds or "first to 50",
Seven Hills plays two games with each player starting once, Spartacus adds up a chosen number of
games. Every game has a ``start_player`` option; game ``i`` of a series starts with seat
``(first + i) % players``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from companion.engine import Game, GameError
from companion.games import game_class


@dataclass
class Series:
    """Running totals over several games; ends after ``rounds`` games or once someone has ``target``."""

    game_id: str
    players: int
    options: Mapping[str, Any] = field(default_factory=dict)
    rounds: int | None = None
    target: int | None = None
    max_rounds: int | None = None
    """A safety stop for target series (random play may drift away from any target)."""
    finished: list[Game] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.rounds is None and self.target is None:
            raise GameError("a series needs a number of rounds or a target score")
        if self.rounds is not None and self.rounds < 1:
            raise GameError("a series needs at least one round")
        game_class(self.game_id).validate_options(self.options, self.players)

    def new_game(self) -> Game:
        """The next game of the series, its start player rotated by one seat per game."""
        if self.is_over():
            raise GameError("the series is over")
        first = self.options.get("start_player", 0)
        options = dict(self.options, start_player=(first + len(self.finished)) % self.players)
        return game_class(self.game_id)(self.players, options)

    def record(self, game: Game) -> None:
        """Add a finished game's scores to the series."""
        if not game.is_over():
            raise GameError("only a finished game can be added to a series")
        self.finished.append(game)

    def totals(self) -> list[int]:
        """Each seat's sum over the finished games."""
        return [sum(g.scores()[p] for g in self.finished) for p in range(self.players)]

    def is_over(self) -> bool:
        """True after the last round, or after the round in which someone reached the target."""
        if self.rounds is not None and len(self.finished) >= self.rounds:
            return True
        if self.max_rounds is not None and len(self.finished) >= self.max_rounds:
            return True
        return self.target is not None and any(t >= self.target for t in self.totals())

    def winners(self) -> list[int]:
        """The seats with the highest total (ties share the win)."""
        totals = self.totals()
        return [p for p, t in enumerate(totals) if t == max(totals)]

    def to_json(self) -> dict[str, Any]:
        """The series as JSON: settings, each game's scores and the totals."""
        return {"game": self.game_id, "players": self.players, "options": dict(self.options),
                "rounds": self.rounds, "target": self.target,
                "games": [g.scores() for g in self.finished], "totals": self.totals(),
                "winner": self.winners() if self.is_over() else None}
