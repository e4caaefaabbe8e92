"""Two-player 輪る七年戦争: the deal, play-or-draw, no two draws in a row, winner by side."""
from __future__ import annotations

import random

import pytest

from companion.engine import CHANCE, IllegalMove, Move
from companion.games.prussia import Game
from tests.companion.games.prussia_positions import build, draw, ruling


def deal(game: Game, first: list[str], second: list[str]) -> None:
    """Deal hands starting with the given cards, filled up with low non-K cards from the pile."""
    fill = [c for c in sorted(game.table.pile) if c not in first + second and c[-1] != "K"
            and c not in ("P-JK1", "P-JK2")]
    h0 = first + fill[:13 - len(first)]
    h1 = second + fill[13 - len(first):26 - len(first) - len(second)]
    game.apply(Move.of(CHANCE, "deal", hands=[h0, h1]))


def test_deal_gives_13_cards_each_and_prussia_side_moves_first():
    g = Game(2, {"start_player": 1})
    assert g.is_chance_node() and g.legal_moves() == []
    g.apply(g.sample_chance(random.Random(1)))
    assert [len(h) for h in g.hands] == [13, 13] and len(g.table.pile) == 28
    assert g.current_player() == 1 and g.layout()["hands"] == [13, 13]
    kinds = {m.kind for m in g.legal_moves()}
    assert kinds == {"play", "draw"}


def test_a_deal_nobody_saw_lets_a_seat_play_any_unseen_card():
    g = build(2, slots={"1>2": "P-C2"})
    g.apply(Move.of(CHANCE, "deal"))
    assert g.layout()["hands"] == [13, 13] and g.layout()["pile"] == 28 - 1
    plays = {m.card for m in g.legal_moves() if m.kind == "play"}
    assert "P-SA" in plays and "P-C2" not in plays
    assert "already been seen" in str(pytest.raises(IllegalMove, g.apply, Move.of(0, "play", card="P-C2")).value)
    g.apply(Move.of(0, "play", card="P-S9"))
    assert g.layout()["hands"] == [12, 13] and g.hidden == [12, 13]
    g.apply(g.legal_moves()[0])           # place ♠9
    g.apply(Move.of(1, "draw"))
    draw(g, "P-S8")                        # drawn from the pile: hands unchanged
    assert g.layout()["hands"] == [12, 13] and g.layout()["pile"] == 27 - 1


def test_bad_deal_is_rejected():
    g = Game(2)
    with pytest.raises(IllegalMove) as err:
        g.apply(Move.of(CHANCE, "deal", hands=[["P-SA"] * 13, ["P-H2"] * 13]))
    assert "distinct" in str(err.value)
    with pytest.raises(IllegalMove):
        g.apply(Move.of(CHANCE, "deal", hands=[["P-SA"], ["P-H2"]]))
    assert g.phase == "deal" and not g.log


def test_no_two_draws_in_a_row_while_holding_cards():
    g = Game(2)
    deal(g, [], [])
    g.apply(Move.of(0, "draw"))
    draw(g, "P-SQ")                                  # Austria: choose a slot
    g.apply(g.legal_moves()[0])
    assert g.current_player() == 1
    g.apply(Move.of(1, "play", card=g.hands[1][0]))
    if g.current_player() == 1:                      # a placement decision for player 2
        g.apply(g.legal_moves()[0])
    assert g.current_player() == 0
    assert all(m.kind == "play" for m in g.legal_moves())
    with pytest.raises(IllegalMove) as err:
        g.apply(Move.of(0, "draw"))
    assert "may not draw twice in a row" in str(err.value)


def test_with_an_empty_hand_a_player_may_draw_every_turn_and_passes_at_the_end():
    g = build(2)
    deal(g, [], [])
    g.hands = [[], ["P-C2"]]
    g.drew_last = [True, False]
    assert [m.kind for m in g.legal_moves()] == ["draw"]
    g.table.pile = []
    assert [m.kind for m in g.legal_moves()] == ["pass"]
    events = g.apply(Move.of(0, "pass"))
    assert events[0].kind == "pass" and g.current_player() == 1
    assert [m.kind for m in g.legal_moves()] == ["play"]


def test_played_card_of_a_surrendered_nation_is_discarded_without_drawing_again():
    g = build(2, alive=[1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12])
    deal(g, ["P-S7"], [])
    events = g.apply(Move.of(0, "play", card="P-S7"))
    assert ruling(events).text.startswith("Player 1: Played ♠7: Denmark has surrendered → discard it")
    assert ruling(events).ja.startswith("プレイヤー1: ♠7を出した")
    assert "draw again" not in ruling(events).text
    assert "P-S7" in g.table.discard and g.current_player() == 1


def test_draw_again_with_an_empty_pile_ends_the_turn():
    g = build(2, alive=[1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12])
    deal(g, [], [])
    g.table.pile = ["P-S7"]
    g.apply(Move.of(0, "draw"))
    draw(g, "P-S7")
    assert g.current_player() == 1 and g.phase == "turn"


@pytest.mark.parametrize("slot,result,winner", [("C-6", "victory", 1), ("C-12", "draw", 0)])
def test_winner_by_side(slot, result, winner):
    g = build(2, {"start_player": 1}, alive=[3, 6, 12], era=3, kings=3)
    deal(g, [], ["P-HK"])
    g.apply(Move.of(1, "play", card="P-HK"))
    assert g.current_player() == 1                  # the player who played it chooses the slot
    events = g.apply(Move.of(1, "place", slot=slot))
    assert g.result() == result
    assert g.winners() == [winner] and g.scores()[winner] == 1
    assert events[-1].get("winner") == winner
    side = "Prussia's side" if winner == 1 else "the other nations' side"
    assert side in events[-1].text


def test_player_view_hides_the_other_hand():
    g = Game(2)
    g.apply(g.sample_chance(random.Random(3)))
    view = g.player_view(1)
    assert view["hand"] == sorted(g.hands[1]) and view["layout"]["hands"] == [13, 13]
    assert all(c not in str(view["layout"]) for c in g.hands[0])


def test_playing_a_card_not_in_hand_is_explained():
    g = Game(2)
    deal(g, ["P-SA"], ["P-HA"])
    with pytest.raises(IllegalMove) as err:
        g.apply(Move.of(0, "play", card="P-HA"))
    assert "♥A is not in your hand" in str(err.value)
    with pytest.raises(IllegalMove) as err:
        g.apply(Move.of(1, "play", card="P-HA"))
    assert "not player 2's turn" in str(err.value)
