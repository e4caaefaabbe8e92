"""The games benchmark drives a real table session: the move log it recovers, and how each move
came in (camera alone, one tap on a prompt, typed in), counted against the true game."""
from __future__ import annotations

import random

import pytest

from benchmarks import vision as bench
from companion.engine import CHANCE
from companion.games import new_game
from companion.session import Store, TableSession
from companion.session.reconcile import adapter
from vision.table import layouts


def _session(tmp_path, game_id: str, players: int) -> TableSession:
    return TableSession.create(Store(tmp_path / "t.db"), game_id, players)


def _script(game_id: str, players: int, seed: int = 1):
    return bench.table_script(game_id, players, adapter(game_id).session_options({}), seed)


def test_the_table_script_is_the_true_game_with_the_tables_a_camera_sees():
    truth, steps = _script("chains", 2)
    replay = new_game("chains", 2)
    for move in truth:
        replay.apply(move)
    assert replay.is_over() and steps[-1].moves == len(truth)
    assert [s.moves for s in steps] == sorted(s.moves for s in steps)
    # a card taken from the deck is turned over in the same motion: no still table in between
    after = {s.moves for s in steps}
    draws = [i + 1 for i, m in enumerate(truth) if m.kind in ("deck_to_work", "deck_to_temporary")]
    assert draws and not after & set(draws)
    # a misfit lies turned over in the work area before the work goes to the dead pile
    assert len(steps) > len(after)


@pytest.mark.parametrize("game_id,players", [("chains", 2), ("wheel", 3), ("hills", 2)])
def test_a_perfect_camera_recovers_every_move(tmp_path, game_id, players):
    truth, steps = _script(game_id, players)
    score = bench.SessionScore(_session(tmp_path, game_id, players), truth)
    for step in steps[:60]:
        score.observe(layouts.knowable(game_id, step.layout, players), step.moves)
    upto = steps[:60][-1].moves
    result = score.result()
    assert result["camera"] == upto and result["typed"] == result["wrong_applied"] == 0
    assert score.s.game.log == truth[:upto]


def test_a_misread_move_is_undone_and_the_true_one_typed(tmp_path):
    truth, steps = _script("wheel", 3)
    score = bench.SessionScore(_session(tmp_path, "wheel", 3), truth)
    score.observe(layouts.knowable("wheel", steps[1].layout, 3), steps[1].moves)   # the circle
    assert score.how == ["camera"]
    # the camera misreads the next take as another legal take
    game = new_game("wheel", 3)
    game.apply(truth[0])
    other = next(m for m in game.legal_moves() if m != truth[1])
    game.apply(other)
    score.observe(layouts.knowable("wheel", game.layout(), 3), 2)
    assert score.wrong == 1 and score.how == ["camera", "typed"]
    assert score.s.game.log == truth[:2]
    score.observe(layouts.knowable("wheel", steps[2].layout, 3), 2)      # the true table: nothing to do
    score.catch_up(4)                                                    # two tables never seen
    result = score.result()
    assert (result["camera"], result["typed"], result["wrong_applied"]) == (1, 3, 1)
    assert score.s.game.log == truth[:4]


def test_a_choice_with_the_true_moves_is_one_tap(tmp_path):
    """Prussia, 2 players: a card played from the hand and one drawn from the squared pile look
    the same on the table; the session asks, and the true moves are among its choices."""
    truth, steps = _script("prussia", 2)
    score = bench.SessionScore(_session(tmp_path, "prussia", 2), truth)
    for step in steps[:12]:
        score.observe(layouts.knowable("prussia", step.layout, 2), step.moves)
    result = score.result()
    assert result["one_tap"] > 0 and result["prompts"].get("choose", 0) > 0
    assert score.s.game.log == truth[:steps[:12][-1].moves]
    assert truth[0].player == CHANCE and truth[0].kind == "deal"   # the hands stay unseen


def test_whole_game_through_frames_and_session():
    r = bench.whole_game("wheel", 1, quick=True, decoder="zxing")
    assert r["moves"] == 8 and r["log_matches"]
    assert r["camera"] + r["one_tap"] + r["typed"] == r["moves"]
    assert r["camera"] >= 6 and r["states_read"] >= r["states"] - 1
