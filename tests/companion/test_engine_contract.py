"""The engine API's promises, checked for every implemented game over many random games.

Each game module has its own rule tests; this file checks what every game owes the rest of the
project: it ends, it is deterministic, its state survives JSON exactly, undo restores, legal moves
are legal and other moves are refused without changing anything.
"""
import itertools
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from companion.engine import CHANCE, Game, IllegalMove, Move, freeze, simulate
from companion.games import GAME_IDS, GameError, game_class


def implemented() -> list[type[Game]]:
    out = []
    for game_id in GAME_IDS:
        try:
            out.append(game_class(game_id))
        except GameError:
            pass
    return out


def configurations(cls: type[Game]) -> list[tuple[int, dict]]:
    """Player counts × every combination of boolean options that validates."""
    bools = [o.name for o in cls.options_spec if isinstance(o.default, bool)]
    out = []
    for players in range(cls.min_players, cls.max_players + 1):
        for values in itertools.product((False, True), repeat=len(bools)):
            options = dict(zip(bools, values))
            try:
                cls.validate_options(options, players)
            except GameError:
                continue
            out.append((players, options))
    return out


CASES = [(cls, players, options) for cls in implemented() for players, options in configurations(cls)]
IDS = [f"{cls.id}-{p}p-" + "+".join(k for k, v in o.items() if v) for cls, p, o in CASES]


def played(cls, players, options, seed) -> Game:
    return simulate(cls(players, options), seed).game


@pytest.mark.parametrize("cls, players, options", CASES, ids=IDS)
def test_games_end_deterministically_and_survive_json(cls, players, options):
    for seed in range(3):
        game = played(cls, players, options, seed)
        assert game.is_over() and game.legal_moves() == []
        assert len(game.scores()) == players and game.winners()
        data = json.loads(json.dumps(game.to_json()))          # real JSON, not just dicts
        restored = cls.from_json(data)
        assert restored == game and restored.log == game.log and restored.scores() == game.scores()
        assert played(cls, players, options, seed).log == game.log
        # views are JSON as they are: the same after a trip through JSON (no int keys, no tuples)
        assert json.loads(json.dumps(game.layout())) == game.layout()
        for p in range(players):
            view = game.player_view(p)
            assert json.loads(json.dumps(view)) == view


@pytest.mark.parametrize("cls, players, options", CASES, ids=IDS)
def test_undo_then_redo_restores_every_state(cls, players, options):
    game = played(cls, players, options, seed=11)
    rng = random.Random(5)
    for k in sorted(rng.sample(range(len(game.log)), min(6, len(game.log)))):
        partial = cls.replay(players, options, game.log[:k + 1])
        before = freeze(partial.snapshot())
        move = partial.undo()
        assert move == game.log[k]
        assert freeze(partial.snapshot()) == freeze(cls.replay(players, options, game.log[:k]).snapshot())
        partial.apply(move)
        assert freeze(partial.snapshot()) == before


@pytest.mark.parametrize("cls, players, options", CASES, ids=IDS)
def test_listed_moves_are_legal_and_others_are_refused_without_change(cls, players, options):
    game = played(cls, players, options, seed=23)
    seen_moves = {m for m in game.log if m.player != CHANCE}
    for k in range(0, len(game.log), max(1, len(game.log) // 12)):
        state = cls.replay(players, options, game.log[:k])
        if state.is_chance_node() or state.is_over():
            continue
        for p in range(players):
            view = state.player_view(p)
            assert json.loads(json.dumps(view)) == view
        legal = state.legal_moves()
        assert legal, "a player to move must have a legal move"
        assert len(set(legal)) == len(legal), "legal moves are listed once each"
        for move in legal:
            state.clone().apply(move)          # raises if a listed move is not legal
        before = freeze(state.snapshot())
        for move in seen_moves - set(legal):
            with pytest.raises(IllegalMove) as err:
                state.apply(move)
            assert err.value.reason, "a refusal says why"
            assert freeze(state.snapshot()) == before and len(state.log) == k
        with pytest.raises(IllegalMove):
            state.apply(Move.of(state.current_player(), "no-such-move"))


@pytest.mark.parametrize("cls", implemented(), ids=lambda c: c.id)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_games_round_trip(cls, seed, data):
    players, options = data.draw(st.sampled_from(configurations(cls)))
    game = played(cls, players, options, seed)
    assert cls.from_json(json.loads(json.dumps(game.to_json()))) == game


@pytest.mark.parametrize("cls", implemented(), ids=lambda c: c.id)
def test_bad_setup_is_refused_clearly(cls):
    with pytest.raises(GameError, match="players"):
        cls(cls.max_players + 1)
    with pytest.raises(GameError, match="no option"):
        cls(cls.min_players, {"no_such_option": True})
    with pytest.raises(GameError):
        cls.from_json({"game": cls.id, "players": cls.min_players, "moves": [{"player": "x"}]})
    game = played(cls, cls.min_players, {}, seed=1)
    damaged = game.to_json()
    damaged["state"] = {"tampered": True}
    with pytest.raises(GameError, match="does not match"):
        cls.from_json(damaged)
