"""Nothing lost when the camera sees fewer table states (issue #24): two moves between two views
whose order the table cannot show are one explanation; a Chains terminal not read this time is not
taken for a take; the same view at the same version is never searched twice."""
from __future__ import annotations

import random

import pytest

from companion.engine import CHANCE, Move
from companion.games import new_game
from companion.session.reconcile import explain
from companion.session.store import Store
from companion.session.table import TableSession


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "gaps.db")


def _dealt():
    """A one-player Chains game with its terminal row laid, and the deal."""
    game = new_game("chains", 1)
    deal = game.sample_chance(random.Random(7))
    game.apply(deal)
    return game, deal


def _seen(game, unread=()):
    """The camera's observation of ``game`` (``vision.table.layouts.chains.read``'s shape): the
    first seat's terminal values in ``unread`` not read, so their places look empty (taken)."""
    layout = game.layout()
    rows = [[{"state": "taken"} if t["state"] == "taken" or (p == 0 and value in unread) else
             dict(t) if t["state"] == "available" else {"state": t["state"]}
             for value, t in enumerate(row, start=1)] for p, row in enumerate(layout["terminals"])]
    return {"players": [{"work": list(p["work"]), "temporary": list(p["temporary"])} for p in layout["players"]],
            "terminals": rows}


def _to_temporary(game, slot, value):
    """Action 2 into ``slot``, turning over a card of ``value`` (the lowest copy left)."""
    move = Move.of(0, "deck_to_temporary", slot=slot)
    game.apply(move)
    reveal = min((m for m in game.legal_moves() if m.card.split("-")[1] == str(value)), key=lambda m: m.card)
    game.apply(reveal)
    return [move, reveal]


def test_two_cards_laid_between_two_views_are_one_explanation(store):
    game, deal = _dealt()
    s = TableSession.create(store, "chains", 1)
    assert s.observe(_seen(game)).kind == "applied"
    truth = _to_temporary(game, 4, 9) + _to_temporary(game, 0, 8)
    # slot 0 first or slot 4 first: the same table, the same game after it; the camera saw only the end
    found = explain(s.game, _seen(game))
    assert len(found.sequences) == 1 and sorted(map(str, found.sequences[0])) == sorted(map(str, truth))
    out = s.observe(_seen(game))
    assert out.kind == "applied" and s.game == game and not s.prompts


def test_a_terminal_not_read_is_not_a_take(store):
    game, deal = _dealt()
    s = TableSession.create(store, "chains", 1)
    s.observe(_seen(game))
    moves = _to_temporary(game, 1, 7)
    # the terminal 8 lost by the reading for a while: its place looks empty, as if it were taken
    out = s.observe(_seen(game, unread={8}))
    assert out.kind == "applied" and out.moves == moves and not s.prompts
    version = s.version
    assert s.observe(_seen(game, unread={8, 9})).kind == "nothing" and s.version == version
    # a real take: the terminal 10 closes the empty work area (a set of one), its place empty
    take = Move.of(0, "take_terminal", card=deal.terminals[0][9])
    game.apply(take)
    out = s.observe(_seen(game))
    assert out.kind == "applied" and out.moves == [take]


def test_the_same_view_at_the_same_version_is_not_searched_again(store):
    game, deal = _dealt()
    s = TableSession.create(store, "chains", 1)
    s.observe(_seen(game))
    wrong = _seen(game)
    wrong["players"][0]["work"] = [deal.terminals[0][4]]     # the terminal 5 in the work area: no move does that
    first = s.observe(wrong)
    assert first.kind == "prompt" and s.searched > 0
    searched, version = s.searched, s.version
    again = s.observe(wrong)
    assert again.kind == "prompt" and again.prompt.id == first.prompt.id
    assert s.searched == searched and s.version == version
    assert s.observe(_seen(game)).kind == "nothing" and not s.prompts   # put right: the prompt closes


def test_a_deal_entered_with_other_copies_is_named_as_the_camera_reads_it(store):
    """The host page records any copy of each value; the camera reads the copies laid: the
    game's moves are renamed once, and the camera goes on."""
    laid = new_game("chains", 2)
    laid.apply(Move.of(CHANCE, "setup", terminals=[[f"C0{p + 1}-{v}-1" for v in range(1, 11)] for p in range(2)]))
    entered = Move.of(CHANCE, "setup", terminals=[[f"C0{p + 1}-{v}-{v}" for v in range(1, 11)] for p in range(2)])
    s = TableSession.create(store, "chains", 2)
    s.play(entered, by="host", expected_version=0)             # the last copy of each value
    move = Move.of(0, "deck_to_temporary", slot=2)
    laid.apply(move)
    reveal = Move.of(CHANCE, "reveal", card="C01-7-7")      # a copy the host's deal called a terminal
    laid.apply(reveal)
    out = s.observe(_seen(laid))
    assert out.kind == "applied" and out.moves == [move, reveal]
    assert s.game == laid and s.game.log[0] == laid.log[0]
    said = [e for e in s.history() if e["kind"] == "relabel"]
    assert len(said) == 1 and "deck 1: 7 (1/7) for deck 1: 7 (7/7)" in said[0]["text"] and said[0]["ja"]
    assert TableSession.open(store, s.id).game == laid        # the log replays to the same game
    s.undo(expected_version=s.version)                        # the moves stay renamed
    assert s.game.log == laid.log[:1]


def test_a_terminal_of_another_value_is_no_copy(store):
    laid = new_game("chains", 2)
    laid.apply(Move.of(CHANCE, "setup", terminals=[[f"C0{p + 1}-{v}-1" for v in range(1, 11)] for p in range(2)]))
    s = TableSession.create(store, "chains", 2)
    s.play(laid.log[0], by="host", expected_version=0)
    wrong = _seen(laid)
    wrong["terminals"][0][6] = {"card": "C01-8-2", "state": "available"}   # an 8 where the 7 lies
    assert s.observe(wrong).kind == "prompt"
    assert "relabel" not in {kind for _, kind, _, _ in store.entries(s.id)}

