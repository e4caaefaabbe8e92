"""The five games: one module per game, each defining a ``Game`` subclass named ``Game``.

``game_class("wheel")`` imports a game on demand, so a tool that needs one game does not load all.
"""
from __future__ import annotations

import importlib
from typing import Any, Mapping

from companion.engine import Game, GameError

GAME_MODULES: dict[str, str] = {
    "wheel": "companion.games.wheel",
    "hills": "companion.games.hills",
    "spartacus": "companion.games.spartacus",
    "prussia": "companion.games.prussia",
    "chains": "companion.games.chains",
}
"""Game id → module; the ids are the ones the command line and saved games use."""

GAME_IDS = tuple(GAME_MODULES)


def game_class(game_id: str) -> type[Game]:
    """The engine class of a game id; unknown or unbuilt games raise ``GameError``."""
    if game_id not in GAME_MODULES:
        raise GameError(f"unknown game {game_id!r}: choose one of {', '.join(GAME_IDS)}")
    try:
        module = importlib.import_module(GAME_MODULES[game_id])
    except ModuleNotFoundError as err:
        if err.name != GAME_MODULES[game_id]:
            raise
        raise GameError(f"the {game_id} engine is not implemented yet") from None
    return module.Game


def describe_all() -> list[dict[str, Any]]:
    """Every game's description (``implemented: false`` for engines not built yet)."""
    out = []
    for game_id in GAME_IDS:
        try:
            out.append(game_class(game_id).describe())
        except GameError:
            out.append({"id": game_id, "implemented": False})
    return out


def new_game(game_id: str, players: int, options: Mapping[str, Any] | None = None) -> Game:
    """A fresh game of ``game_id`` for ``players`` players with ``options``."""
    return game_class(game_id)(players, options)


def load_game(data: Mapping[str, Any]) -> Game:
    """Restore any game from its ``to_json()`` form."""
    if not isinstance(data, Mapping) or not isinstance(data.get("game"), str):
        raise GameError("a saved game must be a JSON object with a 'game' id")
    return game_class(data["game"]).from_json(data)
