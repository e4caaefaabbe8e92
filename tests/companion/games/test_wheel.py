"""Wheel of History: the specification's worked examples, every RULING, and properties."""
import pytest
from hypothesis import given, settings, strategies as st

from companion import catalogue
from companion.engine import CHANCE, IllegalMove, Move, simulate
from companion.games.wheel import CARDS, Game, colour_of, inverted_worth, value_of
from companion.series import Series


def laid(players=3, circle=CARDS, pawn=24, **options) -> Game:
    game = Game(players, options)
    game.apply(Move.of(CHANCE, "lay_circle", circle=list(circle), pawn=pawn))
    return game


def take(game: Game, card: str, keep: bool | None = None):
    events = game.apply(Move.of(game.current_player(), "take", card=card))
    if keep is not None:
        events += game.apply(Move.of(game.current_player(), "keep" if keep else "discard",
                                     **({} if keep else {"card": card})))
    return events


def force(game: Game, holdings: dict[int, list[str]]) -> None:
    """Put cards in players' hands directly (a mid-game position built by hand)."""
    for player, cards in holdings.items():
        for c in cards:
            game.circle[game.circle.index(c)] = None
            game.taken[player].append(c)


def test_example_1_colour_scores_each_players_own_cards():
    game = laid(3)
    force(game, {0: ["W-R5", "W-R2"], 1: ["W-R4", "W-R1"]})
    game.turn, game.pawn = 2, game.circle.index("W-R3") - 1
    events = take(game, "W-R3")
    scored = [e for e in events if e.kind == "colour_scored"]
    assert scored and scored[0].get("points") == (7, 5, 3)
    assert game.scores() == [7, 5, 3] and not game.is_over()


def test_example_2_fallen_value_costs_count_times_value():
    game = laid(4)
    force(game, {0: ["W-B4", "W-G4"], 1: ["W-R4"], 3: ["W-Y4"]})
    game.turn, game.pawn = 3, game.circle.index("W-P4") - 1
    events = take(game, "W-P4")
    assert game.is_over() and game.scores() == [-8, -4, 0, -8]
    assert [e.kind for e in events][-2:] == ["value_fell", "game_over"]
    assert "class 4 falls" in events[-2].text


def test_example_3_colour_and_value_scores_inverted_worth():
    game = laid(3, colour_and_value=True)
    force(game, {0: ["W-R1", "W-B1"], 1: ["W-G1", "W-Y1"]})
    game.turn, game.pawn = 2, game.circle.index("W-P1") - 1
    events = take(game, "W-P1")
    assert game.scores() == [10, 10, 5] and not game.is_over()
    assert any(e.kind == "still_needed" and "colour" in e.text for e in events)


def test_example_4_pawn_skips_gaps():
    # clockwise from the pawn: c1, gap, c2, gap, gap, c3, c4
    game = laid(2, pawn=24)
    c1, c2, c3 = game.circle[0], game.circle[2], game.circle[5]
    for slot in (1, 3, 4):
        game.circle[slot] = None
    assert game.targets() == [c1, c2, c3]
    assert {m.card for m in game.legal_moves()} == {c1, c2, c3}
    with pytest.raises(IllegalMove, match="1st, 2nd or 3rd card ahead; .* is card 4 ahead"):
        game.apply(Move.of(0, "take", card=game.circle[6]))


def test_small_circle_wraps_and_counts_each_target_once():
    game = laid(2)
    keep = ["W-R1", "W-B2"]
    for slot, c in enumerate(game.circle):
        if c not in keep:
            game.circle[slot] = None
    assert sorted(game.targets()) == sorted(keep)
    for slot, c in enumerate(game.circle):
        if c == "W-B2":
            game.circle[slot] = None
    assert game.targets() == ["W-R1"]


def test_pawn_stays_in_the_gap_and_turns_go_clockwise():
    game = laid(3, start_player=2)
    assert game.current_player() == 2
    target = game.targets()[1]
    take(game, target)
    assert game.pawn == CARDS.index(target) and game.circle[game.pawn] is None
    assert game.current_player() == 0


def test_colour_scored_before_the_value_ends_the_game():
    game = laid(2)
    force(game, {0: ["W-R1", "W-R2", "W-R3", "W-R4", "W-B5", "W-G5"], 1: ["W-Y5", "W-P5"]})
    game.turn, game.pawn = 0, game.circle.index("W-R5") - 1
    events = take(game, "W-R5")
    kinds = [e.kind for e in events]
    assert kinds.index("colour_scored") < kinds.index("value_fell")
    assert game.scores() == [15 - 15, -10]


def test_circle_empty_ends_the_game_without_penalty():
    # 5 players each discard a card of a different value: no value can complete any more
    game = laid(5, single_card_fall=True)
    for value in range(1, 6):
        card = f"W-{'RBGYP'[value - 1]}{value}"
        game.pawn = (game.circle.index(card) - 1) % 25
        take(game, card, keep=False)
    while not game.is_over():
        move = game.legal_moves()[0]
        game.apply(move)
    assert game.ended_by == "circle" and all(c is None for c in game.circle)
    assert game.values_scored == [] and game.scores() == recomputed(game)
    assert game.events[-2].kind == "circle_empty"


def test_single_card_fall_blocks_the_colour_and_the_value():
    game = laid(2, single_card_fall=True)
    force(game, {0: ["W-R1", "W-R2", "W-R3"], 1: ["W-B4", "W-G4", "W-Y4", "W-P4"]})
    game.turn, game.pawn = 1, game.circle.index("W-R4") - 1
    take(game, "W-R4", keep=False)           # discarded: red and value 4 can never complete
    assert game.gone()[4] == 5 and not game.is_over()
    assert game.discard_used == [False, True]
    game.pawn = game.circle.index("W-R5") - 1
    take(game, "W-R5", keep=True)
    assert game.scores() == [0, 0] and "R" not in game.colours_scored
    with pytest.raises(IllegalMove):         # player 2's discard is spent
        game.turn = 1
        take(game, game.targets()[0], keep=False)


def test_discard_decision_comes_before_scoring():
    game = laid(2, single_card_fall=True)
    force(game, {0: ["W-R1", "W-R2", "W-R3", "W-R4"]})
    game.turn, game.pawn = 1, game.circle.index("W-R5") - 1
    events = take(game, "W-R5")
    assert game.pending == "W-R5" and not any(e.kind == "colour_scored" for e in events)
    events = game.apply(Move.of(1, "keep"))
    assert any(e.kind == "colour_scored" for e in events) and game.scores() == [10, 5]


def test_colour_and_value_variant_ends_once_both_are_scored():
    game = laid(2, colour_and_value=True)
    force(game, {0: ["W-R1", "W-R2", "W-R3", "W-R4"], 1: ["W-B5", "W-G5", "W-Y5", "W-P5"]})
    game.turn, game.pawn = 0, game.circle.index("W-R5") - 1
    events = take(game, "W-R5")
    assert game.is_over() and game.ended_by == "colour_and_value"
    assert [e.kind for e in events] == ["card_taken", "colour_scored", "value_scored", "game_over"]
    assert game.scores() == [15 + 1, 0 + 4]   # red 1–5 summed; one 5 worth 1 vs four
    assert min(game.scores()) >= 0


def test_events_name_cards_as_players_say_them():
    game = laid(2)
    events = take(game, "W-R5" if "W-R5" in game.targets() else game.targets()[0])
    card = events[0].get("card")
    assert events[0].text == f"P1 takes {catalogue.card(card).name}." and "W-" not in events[0].text
    assert catalogue.card(card).ja in events[0].ja


def test_layout_shows_what_the_camera_sees():
    game = laid(2)
    card = game.targets()[0]
    take(game, card)
    layout = game.layout()
    assert layout["circle"].count(None) == 1 and layout["pawn"] == CARDS.index(card)
    assert layout["taken"] == [[card], []]


def test_player_view_counts_values_gone_and_survives_json():
    import json
    game = laid(2)
    force(game, {0: ["W-R4", "W-B4"], 1: ["W-G1"]})
    view = game.player_view(0)
    assert view["gone"] == {"1": 1, "2": 0, "3": 0, "4": 2, "5": 0}
    assert json.loads(json.dumps(view)) == view


def test_lay_circle_is_validated():
    game = Game(2)
    with pytest.raises(IllegalMove, match="25 cards exactly once"):
        game.apply(Move.of(CHANCE, "lay_circle", circle=list(CARDS[:-1]) + ["W-R1"], pawn=0))
    with pytest.raises(IllegalMove, match="Lay out the circle first"):
        game.apply(Move.of(0, "take", card="W-R1"))
    assert game.log == []


def recomputed(game: Game) -> list[int]:
    """Scores from holdings alone, following the rules' text."""
    totals = [0] * game.players
    for colour in game.colours_scored:
        for p, hand in enumerate(game.taken):
            totals[p] += sum(value_of(c) for c in hand if colour_of(c) == colour)
    for value in game.values_scored:
        for p, hand in enumerate(game.taken):
            n = sum(value_of(c) == value for c in hand)
            totals[p] += n * inverted_worth(value) if game.options["colour_and_value"] else -n * value
    return totals


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 5),
       fall=st.booleans(), cv=st.booleans())
def test_properties_over_random_games(seed, players, fall, cv):
    game = simulate(Game(players, {"single_card_fall": fall, "colour_and_value": cv}), seed).game
    held = [c for hand in game.taken for c in hand]
    on_table = [c for c in game.circle if c]
    assert sorted(held + on_table + game.discarded) == sorted(CARDS)     # cards are conserved
    assert game.scores() == recomputed(game)
    assert len(game.discarded) <= players and len(set(game.discarded)) == len(game.discarded)
    if game.ended_by == "value":
        assert game.gone()[game.values_scored[-1]] == 5
    if cv:
        assert min(game.scores()) >= 0
    # every colour complete in the holdings was scored, exactly once
    for colour in "RBGYP":
        complete = sum(colour_of(c) == colour for c in held) == 5
        assert (colour in game.colours_scored) == complete or (game.ended_by and not complete)
        assert game.colours_scored.count(colour) <= 1


def test_series_first_to_target_rotates_the_start_player():
    series = Series("wheel", 3, target=15, max_rounds=50)
    starts = []
    seed = 0
    while not series.is_over():
        game = series.new_game()
        starts.append(game.options["start_player"])
        series.record(simulate(game, seed).game)
        seed += 1
    assert starts[:4] == [0, 1, 2, 0][:len(starts[:4])]
    totals = series.totals()
    assert totals == [sum(g.scores()[p] for g in series.finished) for p in range(3)]
    assert max(totals) >= 15 or len(series.finished) == 50
    # it stopped right after the round in which someone first reached the target
    before = [sum(g.scores()[p] for g in series.finished[:-1]) for p in range(3)]
    assert max(before) < 15 or len(series.finished) == 1


def test_fixed_rounds_series():
    series = Series("wheel", 2, rounds=3)
    for seed in range(3):
        series.record(simulate(series.new_game(), seed).game)
    assert series.is_over() and len(series.to_json()["games"]) == 3
    assert series.winners() == [p for p, t in enumerate(series.totals()) if t == max(series.totals())]
