"""Nothing lost when the camera sees fewer table states (issue #24): two moves between two views
whose order the table cannot show are one explanation; a Chains terminal not read this time is not
taken for a take; the same view at the same version is never searched twice."""
from __future__ import annotations

import random

import pytest

from companion.engine import Move
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
    terminal values in ``unread`` not read, so their places look empty (taken)."""
    layout = game.layout()
    row = [{"state": "taken"} if t["state"] == "taken" or value in unread else dict(t)
           for value, t in enumerate(layout["terminals"][0], start=1)]
    p = layout["players"][0]
    return {"players": [{"work": list(p["work"]), "temporary": list(p["temporary"])}], "terminals": [row]}


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
