"""The reconciler's pieces: comparing partial observations, pending rulings, the search budget."""
from __future__ import annotations

from companion.engine import Move
from companion.games import new_game
from companion.session.reconcile import compare, differences, explain, matches


def test_partial_observations_compare_only_what_was_seen():
    layout = {"trick": ["S-R5"], "won": [0, 1, 0], "out": []}
    assert matches({"trick": ["S-R5"]}, layout)
    assert matches({"won": [0, "?", 0]}, layout)
    assert matches({"trick": "?"}, layout)
    assert not matches({"trick": ["S-R6"]}, layout)
    assert not matches({"won": [0, 1]}, layout)              # a list is compared whole
    assert not matches({"pile": 3}, layout)                  # a key the layout does not have
    assert differences({"trick": ["S-R6"], "won": [0, 1, 0]}, layout) == ["trick"]


def test_pending_accepts_the_look_before_a_ruling_only():
    before = {"hills": [{"red": ["B-HILLR"], "revealed": False}], "out": []}
    after = {"hills": [{"red": [], "revealed": True}], "out": ["H-RBAN"]}
    seen_face_up = {"hills": [{"red": ["H-RBAN"], "revealed": True}], "out": []}
    assert compare(seen_face_up, after) is None
    assert compare(seen_face_up, after, before, frozenset({"H-RBAN"})) == "pending"
    assert compare(seen_face_up, after, before, frozenset()) is None   # not a ruling's card
    wrong = {"hills": [{"red": ["H-R7"], "revealed": True}], "out": []}
    assert compare(wrong, after, before, frozenset({"H-RBAN"})) is None


def test_search_reports_when_it_stopped_at_its_budget():
    game = new_game("spartacus", 5)
    game.apply(Move.of(0, "play", card="S-R9"))
    obs = {"trick": ["S-R9", "S-B8", "S-G7", "S-Y6", "S-P5"]}
    assert explain(game, obs).sequences[0][-1] == Move.of(4, "play", card="S-P5")
    starved = explain(game, obs, budget=2)
    assert starved.sequences == [] and starved.exhausted


def test_a_taken_terminal_the_camera_cannot_name_is_named_from_the_row():
    import random

    from companion.session.reconcile import why_not
    game = new_game("chains", 2)
    game.apply(game.sample_chance(random.Random(1)))
    first = game.layout()["terminals"][0][0]["card"]
    # a taken terminal lies under its scored set: the camera sees it taken, not which card it is
    obs = {"terminals": [[{"state": "taken"}] + ["?"] * (len(game.layout()["terminals"][0]) - 1), "?"]}
    reason, _, tried = why_not(game, obs, ["Ann", "Ben"])
    assert tried == [Move.of(0, "take_terminal", card=first)]
    assert "None" not in reason and "None" not in reason.ja
