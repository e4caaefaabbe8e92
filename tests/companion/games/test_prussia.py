"""Solo rules of 輪る七年戦争: worked examples, placement, ignition, wars, refills, results."""
from __future__ import annotations

import pytest

from companion.engine import CHANCE, TERMINAL, IllegalMove, Move, thaw
from companion.games.prussia import Game
from companion.games.prussia_core import CENTRE, REFILL, Table, choose_ignition, load_nations
from tests.companion.games.prussia_positions import build, draw, ruling, steps_of


def place(game: Game, slot: str) -> list:
    return game.apply(Move.of(0, "place", slot=slot))


def refused(game: Game, move: Move) -> str:
    """The reason the engine gives for refusing ``move`` (it must refuse it)."""
    with pytest.raises(IllegalMove) as err:
        game.apply(move)
    return str(err.value)


def place_move(slot: str) -> Move:
    return Move.of(0, "place", slot=slot)


# ------------------------------------------------------------------ worked examples (spec)
def test_example_1_same_rank_single_card_ignites_war_britain_denmark():
    g = build(slots={"6>7": "P-C6", "5>6": "P-H5", "C-6": "P-SK"})
    events = draw(g, "P-H6")
    ign = steps_of(events, "ignition")
    assert [s["card"] for s in ign] == ["P-C6"] and ign[0]["rule"] == "rank" and ign[0]["beaten"] == []
    war = steps_of(events, "war")[0]
    assert {war["a"], war["b"]} == {6, 7}
    # era I: Britain 6 + Netherlands 5 (♥5) = 11 vs Denmark 3 → Denmark surrenders
    assert war["sides"][0][3] == 11 and war["sides"][1][3] == 3
    assert 7 not in g.table.alive
    assert "Drew ♥6 → event nation Great Britain" in ruling(events).text
    assert "ignition: ♣6 (same rank" in ruling(events).text


def test_example_2_two_same_rank_diamond_beats_club_then_follow_to_netherlands():
    g = build(slots={"6>7": "P-C6", "5>6": "P-D6", "C-6": "P-SK"})
    events = draw(g, "P-H6")
    text = ruling(events).text
    assert "ignition: ♦6 (same rank, ♦ beats ♣" in text
    assert "red: follow to Netherlands" in text
    first = steps_of(events, "ignition")[0]
    assert first["card"] == "P-D6" and first["beaten"] == ["P-C6"]
    # the Netherlands has no other relation card: no war, ♥6 takes ♦6's place, ♦6 is discarded
    assert steps_of(events, "dead_end")[0]["nation"] == 5
    assert g.layout()["slots"]["5>6"] == "P-H6"
    assert "P-D6" in g.table.discard
    assert events[0].kind == "ruling" and "発火トランプ: ♦6" in events[0].ja


def test_example_3_two_same_suit_stronger_rank():
    cands = [("P-H9", (5, 6)), ("P-H3", (6, 7)), ("P-CQ", (CENTRE, 6))]
    card, key, rule, beaten = choose_ignition(cands, "P-H5")
    assert (card, rule, beaten) == ("P-H9", "suit", ["P-H3"])
    # on the table: the Netherlands, moved to 6 after Britain's surrender, has three slots
    g = build(alive=[1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12], moved={5: 6},
              slots={"4>6": "P-H9", "6>7": "P-H3", "C-6": "P-CQ"})
    events = draw(g, "P-H5")
    assert steps_of(events, "ignition")[0]["card"] == "P-H9"
    assert "ignition: ♥9 (same suit, 9 beats 3" in ruling(events).text


def test_example_4_no_rank_no_suit_strongest_rank():
    cands = [("P-C9", (5, 6)), ("P-DQ", (6, 7)), ("P-S4", (CENTRE, 6))]
    assert choose_ignition(cands, "P-H7")[:3] == ("P-DQ", (6, 7), "strongest")
    # Denmark moved to 6 (Britain and the Netherlands gone)
    g = build(alive=[1, 2, 3, 4, 7, 8, 9, 10, 11, 12], moved={7: 6},
              slots={"4>6": "P-C9", "6>8": "P-DQ", "C-6": "P-S4"})
    events = draw(g, "P-H7")
    assert steps_of(events, "ignition")[0]["card"] == "P-DQ"
    assert "ignition: ♦Q (strongest rank" in ruling(events).text


def test_example_5_war_in_era_two_alliances_10_vs_5():
    g = build(era=1, slots={"5>6": "P-H5", "6>7": "P-C6", "7>8": "P-D8", "C-6": "P-SK"})
    events = draw(g, "P-S6")
    war = steps_of(events, "war")[0]
    assert war["sides"] == [[6, 7, [[5, 3]], 10], [7, 2, [[8, 3]], 5]]
    assert "Great Britain 7 + Netherlands 3 = 10 vs Denmark 2 + Sweden 3 = 5" in ruling(events).text
    assert 7 not in g.table.alive
    assert {"P-C6", "P-D8", "P-S6"} <= set(g.table.discard)
    surrender = [e for e in events if e.kind == "surrender"][0]
    assert surrender.text == "Denmark surrenders: remove it and its relation cards (♣6, ♦8)"
    assert surrender.ja.startswith("デンマークが降伏")
    # Britain and Sweden are neighbours now, with an empty slot between them
    assert g.layout()["slots"]["6>8"] is None


# ------------------------------------------------------------------ ignition rules
def test_rule_3_2_tie_on_rank_decided_by_suit():
    card, _, rule, beaten = choose_ignition([("P-C3", (1, 2)), ("P-S3", (2, 3))], "P-HQ")
    assert (card, rule, beaten) == ("P-S3", "strongest", ["P-C3"])


def test_ace_is_the_strongest_rank_and_spade_the_strongest_suit():
    assert choose_ignition([("P-DK", (1, 2)), ("P-CA", (2, 3))], "P-H5")[0] == "P-CA"
    assert choose_ignition([("P-H7", (1, 2)), ("P-S7", (2, 3)), ("P-D7", (3, 4))], "P-C7")[0] == "P-S7"


def test_following_red_cards_never_reuses_an_ignition_card_and_ends():
    # an all-red ring: every slot red, so following could loop forever without the exclusion
    reds = ["P-HA", "P-H2", "P-H3", "P-H4", "P-H5", "P-H6", "P-H7", "P-H8", "P-H9", "P-H10", "P-HJ", "P-HQ"]
    ring = {f"{r}>{r % 12 + 1}": c for r, c in zip(range(1, 13), reds)}
    prussia = {"C-3": "P-D3", "C-6": "P-D6", "C-9": "P-D9", "C-12": "P-DQ"}
    g = build(slots={**ring, **prussia})
    events = draw(g, "P-D5")
    ign = [s["card"] for s in steps_of(events, "ignition")]
    assert len(ign) == len(set(ign)) and len(ign) >= 2
    assert steps_of(events, "war") == [] and steps_of(events, "dead_end")
    # the drawn card replaced the first ignition card
    first = ign[0]
    assert first in g.table.discard and "P-D5" in g.table.cards.values()


def test_following_through_prussia_to_another_clock_nation():
    # Britain ♥K to Prussia, Prussia ♠4 to France: the red card leads through the centre
    g = build(slots={"5>6": "P-C2", "6>7": "P-C3", "C-6": "P-HK", "C-3": "P-S4"})
    events = draw(g, "P-H6")   # no rank 6, same suit ♥K → red → follow to Prussia → ♠4 (strongest)
    text = ruling(events).text
    assert "red: follow to Prussia" in text and "black: war Prussia vs France" in text
    # era I: Prussia 2 + Britain 6 (red ♥K) = 8 vs France 9 → Prussia surrenders → defeat
    assert g.result() == "defeat" and g.current_player() == TERMINAL
    assert g.layout()["centre"] is None
    assert [e.kind for e in events][-1] == "game_over"


# ------------------------------------------------------------------ placement
def test_ordinary_nation_only_its_two_ring_edges():
    g = build()
    draw(g, "P-H5")
    assert sorted(m.slot for m in g.legal_moves()) == ["4>5", "5>6"]


def test_prussia_edge_only_after_both_ring_edges_are_filled():
    g = build(slots={"5>6": "P-C2"})
    draw(g, "P-H6")
    assert [m.slot for m in g.legal_moves()] == ["6>7"]
    assert "Prussia edge only after both ring edges of Great Britain are filled" in refused(g, place_move("C-6"))
    place(g, "6>7")
    draw(g, "P-S6")
    assert [m.slot for m in g.legal_moves()] == ["C-6"]


def test_k_goes_only_to_prussia_edges():
    g = build(alive=[1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12], slots={"C-9": "P-C9"})
    events = draw(g, "P-HK")
    assert sorted(m.slot for m in g.legal_moves()) == ["C-12", "C-3"]
    assert "a Prussia edge" in ruling(events).text
    assert "A K names Prussia" in refused(g, place_move("1>2"))
    assert "already holds ♣9" in refused(g, place_move("C-9"))


def test_k_with_no_nation_at_3_6_9_12_is_discarded_but_counts_for_the_era():
    g = build(alive=[1, 2, 4])
    events = draw(g, "P-SK")
    assert "P-SK" in g.table.discard and g.table.era == 1
    assert any(e.kind == "era" and "Era II" in e.text for e in events)


def test_last_nation_not_at_a_special_position_takes_no_card():
    g = build(alive=[5])
    draw(g, "P-C5")
    assert "P-C5" in g.table.discard and g.phase == "draw"


def test_last_nation_at_a_special_position_uses_its_prussia_edge():
    g = build(alive=[6])
    draw(g, "P-C6")
    assert [m.slot for m in g.legal_moves()] == ["C-6"]


def test_two_nations_left_have_two_ring_edges_between_them():
    g = build(alive=[2, 5])
    assert set(g.layout()["slots"]) == {"2>5", "5>2"}
    draw(g, "P-C2")
    assert sorted(m.slot for m in g.legal_moves()) == ["2>5", "5>2"]


def test_card_of_a_surrendered_nation_is_discarded_and_drawn_again():
    g = build(alive=[1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12])
    events = draw(g, "P-S7")
    assert g.is_chance_node() and "P-S7" in g.table.discard
    assert "Drew ♠7: Denmark has surrendered → discard it and draw again" in ruling(events).text


def test_joker_discards_a_chosen_relation_card():
    g = build(slots={"1>2": "P-C2", "C-3": "P-H3"})
    draw(g, "P-JK1")
    assert sorted(m.card for m in g.legal_moves()) == ["P-C2", "P-H3"]
    assert g.layout()["drawn"] == "P-JK1"
    g.apply(Move.of(0, "discard", card="P-H3"))
    assert "P-H3" in g.table.discard and "P-JK1" in g.table.discard
    assert g.layout()["slots"]["C-3"] is None and g.phase == "draw"


def test_joker_with_no_relation_card_does_nothing():
    g = build()
    events = draw(g, "P-JK2")
    assert g.phase == "draw" and "joker" in ruling(events).text


def test_jokers_option_sets_the_deck():
    assert len(Game(1, {"jokers": 1}).table.pile) == 53
    assert len(Game(1).table.pile) == 54


# ------------------------------------------------------------------ wars
def test_tie_exchanges_drawn_card_with_first_ignition_card():
    # era I: Spain 6 vs Britain 6, nobody allied
    g = build(alive=[4, 6, 8, 10], slots={"4>6": "P-C4", "10>4": "P-S10"})
    events = draw(g, "P-H4")
    assert steps_of(events, "tie")
    assert g.layout()["slots"]["4>6"] == "P-H4" and "P-C4" in g.table.discard
    assert set(g.table.alive) == {4, 6, 8, 10}


def test_alliance_direct_versus_chain():
    # Britain–Denmark war; Denmark ♥ Sweden ♥ Russia: direct counts Sweden only, chain also Russia
    slots = {"5>6": "P-C5", "6>7": "P-C6", "7>8": "P-H7", "8>9": "P-H8", "C-6": "P-SK"}
    g = build(slots=slots)
    war = steps_of(draw(g, "P-S6"), "war")[0]
    assert war["sides"][1] == [7, 3, [[8, 7]], 10]
    g = build(1, {"alliance": "chain"}, slots=slots)
    war = steps_of(draw(g, "P-S6"), "war")[0]
    assert sorted(war["sides"][1][2]) == [[8, 7], [9, 4]] and war["sides"][1][3] == 14


def test_chain_never_passes_through_the_enemy():
    t = Table(load_nations(None, "prussia"), alliance="chain")
    t.cards = {(5, 6): "P-H5", (6, 7): "P-H6", (7, 8): "P-D8"}
    assert t.allies(5, 6) == []
    assert sorted(t.allies(6, 5)) == [7, 8]


def test_nation_joined_to_both_war_nations_counts_for_both():
    t = Table(load_nations(None, "prussia"))
    t.alive = [5, 6, 7]
    t.pos = {5: 5, 6: 6, 7: 7}
    t.special = {3: None, 6: 6, 9: None, 12: None}
    t.cards = {(5, 6): "P-C5", (6, 7): "P-H6", (7, 5): "P-D7"}
    assert t.allies(5, 6) == [7] and t.allies(6, 5) == [7]


# ------------------------------------------------------------------ refills of 3/6/9/12
REFILL_CASES = [(p, i) for p in (3, 6, 9, 12) for i in range(5)]


@pytest.mark.parametrize("position,index", REFILL_CASES)
def test_refill_list_entries(position, index):
    """The nation at 3/6/9/12 surrenders: the i-th entry of its list moves in (or none: empty)."""
    order = REFILL[position]
    dead = set(order[:index])
    t = Table(load_nations(None, "prussia"))
    for r in dead:
        t.surrender(r, None)
    t.cards[(CENTRE, position)] = "P-SK"
    steps: list = []
    t.surrender(position, steps)
    assert "P-SK" in t.discard and (CENTRE, position) not in t.cards
    if index < 4:
        mover = order[index]
        assert t.special[position] == mover and t.pos[mover] == position
        assert steps[-1]["moves"] == [mover, position]
    else:
        assert t.special[position] is None and steps[-1]["moves"] is None


def test_refill_skips_a_nation_already_at_another_special_position():
    t = Table(load_nations(None, "prussia"))
    for r in (2, 4, 1):       # Italy, Spain, Bavaria gone
        t.surrender(r, None)
    t.surrender(6, None)      # Britain gone: Netherlands (5) moves to 6
    assert t.special[6] == 5
    t.surrender(3, None)      # France gone: the Netherlands stands at 6 → skipped → 3 stays empty
    assert t.special[3] is None and t.pos[5] == 6


def test_surrender_instruction_names_the_mover_and_layout_shows_it():
    g = build(era=2, slots={"8>9": "P-C8", "9>10": "P-C9", "C-9": "P-C10"})
    events = draw(g, "P-S9")    # Russia 8 vs Sweden 2 (era III): same rank ♣9 → Russia–Poland
    surrender = [e for e in events if e.kind == "surrender"]
    assert surrender[0].text.startswith("Poland surrenders")
    g = build(era=0, alive=[1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12],
              slots={"8>9": "P-C8", "9>11": "P-C9", "C-9": "P-C10"})
    events = draw(g, "P-S9")    # same rank ♣9 → war Russia 4 vs Ottoman 7 (era I) → Russia surrenders
    text = [e.text for e in events if e.kind == "surrender"][0]
    assert text == "Russia surrenders: remove it and its relation cards (♣8, ♣9, ♣10); Sweden moves to 9"
    lay = g.layout()
    assert lay["clock"]["9"] == "P-N8" and lay["clock"]["8"] is None
    assert set(lay["slots"]) >= {"7>9", "9>11", "C-9"} and lay["slots"]["C-9"] is None


# ------------------------------------------------------------------ results
def _fourth_king(options=None, alive=(3, 6, 12), slots=None, card="P-HK", slot="C-6"):
    g = build(1, options, alive=list(alive), era=3, kings=3, slots=slots or {})
    draw(g, card)
    return g, place(g, slot)


def test_victory_with_the_red_alliance():
    g, events = _fourth_king()     # Prussia 8 + Britain 9 = 17 ≥ France 7 + Austria 5 = 12
    assert g.result() == "victory" and g.scores() == [2]
    assert "Prussia 8 + Great Britain 9 = 17 ≥ others France 7 + Austria 5 = 12 → victory" in ruling(events).text
    assert events[-1].kind == "game_over" and events[-1].get("result") == "victory"


def test_draw_when_the_centre_side_is_weaker():
    g, events = _fourth_king(slot="C-12")   # Prussia 8 + Austria 5 = 13 < France 7 + Britain 9 = 16
    assert g.result() == "draw" and g.scores() == [1]


def test_victory_strength_alone_option():
    g, _ = _fourth_king({"victory_strength": "alone"})   # Prussia 8 < 7 + 9 + 5
    assert g.result() == "draw"


def test_equal_strength_is_a_victory_and_german_empire_is_stronger():
    g, _ = _fourth_king({"victory_strength": "alone"}, alive=(6,), slot="C-6")   # 8 < 9
    assert g.result() == "draw"
    g, _ = _fourth_king({"victory_strength": "alone", "centre": "german_empire"}, alive=(6,), slot="C-6")
    assert g.result() == "victory"       # German Empire 9 ≥ Britain 9
    assert g.layout()["centre"] == "P-GER"


def test_defeat_when_the_centre_surrenders_in_the_war_of_the_fourth_king():
    g = build(alive=[6], era=3, kings=3, slots={"C-6": "P-C6"})
    events = draw(g, "P-SK")             # ignition ♣6 → war Prussia 8 vs Britain 9
    assert g.result() == "defeat" and g.scores() == [0]
    assert any(e.kind == "surrender" and "Prussia surrenders" in e.text for e in events)


def test_great_victory_when_the_last_clock_nation_surrenders():
    g = build(alive=[10], moved={10: 9}, era=2, slots={"C-9": "P-C9"})
    events = draw(g, "P-SK")              # Prussia 5 vs Poland 1 (era III) → great victory at once
    assert g.result() == "great_victory" and g.scores() == [3] and g.is_over()
    assert "great victory" in events[-1].text


def test_eras_advance_with_each_king_and_the_fourth_ends():
    g = build()
    for i, k in enumerate(["P-SK", "P-HK", "P-DK"], 1):
        draw(g, k)
        place(g, g.legal_moves()[0].slot)
        assert g.table.era == i and g.layout()["era"] == f"P-ERA{i + 1}"
    draw(g, "P-CK")
    place(g, g.legal_moves()[0].slot)
    assert g.is_over() and g.table.era == 3


# ------------------------------------------------------------------ explanations and JSON
def test_events_carry_structured_steps_as_json_objects():
    g = build(slots={"6>7": "P-C6", "5>6": "P-H5", "C-6": "P-SK"})
    data = ruling(draw(g, "P-H6")).to_json()
    assert data["data"]["steps"][0] == {"step": "draw", "card": "P-H6", "nation": 6, "from_pile": True}
    assert data["ja"] and "→" in data["ja"]
    assert thaw(ruling(draw(build(), "P-H6")).get("options")) == ["5>6", "6>7"]


def test_wrong_draw_and_wrong_phase_are_explained():
    g = build(slots={"5>6": "P-C2"})
    assert "not in the draw pile" in refused(g, Move.of(CHANCE, "draw", card="P-C2"))
    assert "Turn over the top card of the draw pile first" in refused(g, place_move("5>6"))
    draw(g, "P-H9")
    assert "♥9 names Russia" in refused(g, place_move("5>6"))
    assert "no slot '5>9'" in refused(g, place_move("5>9"))
    assert "player 1 must place ♥9 first" in refused(g, Move.of(CHANCE, "draw", card="P-S2"))
