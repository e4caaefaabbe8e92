"""Chains: worked examples, the threshold table, hand-built positions and property tests."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from companion.engine import CHANCE, TERMINAL, GameError, IllegalMove, Move, simulate
from companion.games import load_game, new_game
from companion.games.chains import POINTS, Game, card_id, deck_cards, stop_threshold, value_of

# ----------------------------------------------------------------- helpers


def set_up(game: Game, copy_of=lambda seat, value: 1) -> None:
    """Lay out every player's terminal cards (copy 1 of each value unless told otherwise)."""
    rows = [[card_id(p + 1, v, copy_of(p, v)) for v in range(1, 11)] for p in range(game.players)]
    game.apply(Move.of(CHANCE, "setup", terminals=rows))


def a_copy(game: Game, seat: int, value: int) -> str:
    """Some card of ``value`` still in ``seat``'s deck."""
    return min((c for c in game.deck[seat] if value_of(c) == value), key=lambda c: int(c.split("-")[2]))


def draw_to_work(game: Game, value: int) -> list:
    """Action 1 for the player to move, the deck revealing a card of ``value``."""
    seat = game.current_player()
    game.apply(Move.of(seat, "deck_to_work"))
    return game.apply(Move.of(CHANCE, "reveal", card=a_copy(game, seat, value)))


def draw_to_temporary(game: Game, value: int | None = None) -> list:
    """Action 2 (ends the turn) into the first empty slot; reveals ``value`` (default: the lowest card)."""
    seat = game.current_player()
    slot = game.temporary[seat].index(None)
    game.apply(Move.of(seat, "deck_to_temporary", slot=slot))
    card = a_copy(game, seat, value) if value else min(game.deck[seat], key=value_of)
    return game.apply(Move.of(CHANCE, "reveal", card=card))


def build(game: Game, down_to: int) -> None:
    """The player to move turns over 10, 9, …, ``down_to`` into their work area."""
    for v in range(10, down_to - 1, -1):
        draw_to_work(game, v)


def close(game: Game, value: int) -> list:
    """Action 4: the player to move closes their work area with their terminal ``value``."""
    seat = game.current_player()
    return game.apply(Move.of(seat, "take_terminal", card=game.terminals[seat][value - 1]))


def build_and_close(game: Game, value: int) -> list:
    """Build the chain 10…value+1 and close it with terminal ``value`` (one whole turn)."""
    if value < 10:
        build(game, value + 1)
    return close(game, value)


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def rejected(game: Game, move: Move) -> str:
    """Apply an illegal move: it must raise and change nothing; return the reason."""
    before = json.dumps(game.snapshot())
    with pytest.raises(IllegalMove) as err:
        game.apply(move)
    assert json.dumps(game.snapshot()) == before
    return err.value.reason


# ----------------------------------------------------------------- worked examples


def test_example_1_third_three_stops_the_fourth():
    game = Game(4)
    set_up(game)
    for seat in range(2):
        assert kinds(build_and_close(game, 3))[-1] == "set_scored"
    assert game.state[3][2] == "available" and game.taken_count(3) == 2
    events = build_and_close(game, 3)  # player 3 takes the third 3: threshold 3 of 4 players
    stop = next(e for e in events if e.kind == "value_stopped")
    assert stop.get("value") == 3 and stop.get("cards") == ("C04-3-1",)
    assert "打ち止め" in stop.ja and "3 stopped" in stop.text
    assert game.layout()["terminals"][3][2] == {"card": "C04-3-1", "state": "stopped"}
    build(game, 4)  # player 4 builds 10…4 but may not close it with the stopped 3
    assert Move.of(3, "take_terminal", card="C04-3-1") not in game.legal_moves()
    assert "stopped" in rejected(game, Move.of(3, "take_terminal", card="C04-3-1"))


def test_example_2_scores_1_4_8_9_make_10():
    game = Game(1)
    set_up(game)
    for value in (9, 8, 4, 1):
        build_and_close(game, value)
    assert game.scores() == [5 + 3 + 1 + 1] == [10]
    assert [len(s) for s in game.layout()["players"][0]["discard"]] == [2, 3, 7, 10]


def test_example_3_tie_at_10_goes_to_the_larger_smallest_missing_value():
    game = Game(3)  # threshold 2: A and B may both take the same values
    set_up(game)
    plan = {0: [9, 8, 5, 1, 10], 1: [9, 8, 2, 1]}
    for round_ in range(5):
        for seat in range(3):
            assert game.current_player() == seat
            if seat in plan and round_ < len(plan[seat]):
                build_and_close(game, plan[seat][round_])
            else:
                draw_to_temporary(game)
    assert game.scores()[:2] == [10, 10]
    assert game.winners() == [1]
    text, ja = game.tie_break_line()
    assert text == "Tie at 10: P1 smallest missing 2, P2 smallest missing 3."
    assert "同点" in ja


def test_example_4_work_area_10_9_8_closes_with_7_not_6():
    game = Game(1)
    set_up(game)
    build(game, 8)
    legal = game.legal_moves()
    assert Move.of(0, "take_terminal", card="C01-7-1") in legal
    assert Move.of(0, "take_terminal", card="C01-6-1") not in legal
    assert "needs a 7" in rejected(game, Move.of(0, "take_terminal", card="C01-6-1"))
    events = close(game, 7)
    assert events[0].get("cards") == ("C01-10-2", "C01-9-2", "C01-8-2", "C01-7-1")
    assert "chain of 4" in events[0].text and game.scores() == [2]


# ----------------------------------------------------------------- thresholds and options


def test_threshold_table():
    table = {2: 1, 3: 2, 4: 3, 5: 3, 6: 4, 7: 5, 8: 5, 9: 6, 10: 6}
    assert {n: stop_threshold(n) for n in range(2, 11)} == table
    assert stop_threshold(1) is None
    assert all(Game(n).threshold == t for n, t in table.items())


@pytest.mark.parametrize("players,value,expected", [(1, "auto", False), (2, "auto", True),
                                                    (1, True, True), (4, False, False),
                                                    (1, "on", True), (3, None, True), (2, "off", False)])
def test_ten_not_first_option(players, value, expected):
    assert Game(players, {"ten_not_first": value}).ten_not_first is expected


def test_bad_options_are_refused_clearly():
    with pytest.raises(GameError, match="ten_not_first must be one of auto, on, off"):
        Game(2, {"ten_not_first": "maybe"})
    with pytest.raises(GameError, match="start_player must be a seat from 0 to 2"):
        Game(3, {"start_player": 3})
    with pytest.raises(GameError, match="misfit must be one of"):
        Game(2, {"misfit": "ignore"})
    with pytest.raises(GameError, match="1–10 players"):
        Game(11)
    assert Game.parse_options(["ten_not_first=true", "misfit=card_only"]) == {
        "ten_not_first": "true", "misfit": "card_only"}
    assert Game(1, Game.parse_options(["ten_not_first=true"])).options["ten_not_first"] == "on"


# ----------------------------------------------------------------- setup and chance


def test_setup_accepts_any_copy_and_leaves_45_cards_per_deck():
    game = Game(2)
    assert game.current_player() == CHANCE and game.legal_moves() == []
    assert game.layout() == {"terminals": [[], []], "out": [], "players": [
        {"work": [], "temporary": [None] * 5, "discard": [], "dead": 0, "deck": 55}] * 2}
    set_up(game, copy_of=lambda seat, value: value)  # the last copy of each value
    assert game.terminals[1][6] == "C02-7-7"
    assert [len(d) for d in game.deck] == [45, 45]
    assert game.current_player() == 0


@pytest.mark.parametrize("rows,message", [
    ([["C01-%d-1" % v for v in range(1, 11)]], "ten terminal cards of each of the 2 players"),
    ([["C01-%d-1" % v for v in range(1, 11)], ["C01-%d-1" % v for v in range(1, 11)]], "belongs to deck 1"),
    ([["C01-%d-1" % v for v in range(1, 11)], ["C02-%d-1" % v for v in range(10, 0, -1)]], "is not a 1"),
    ([["C01-%d-1" % v for v in range(1, 11)], ["C02-%d-1" % v for v in range(1, 10)]], "one card of each value"),
    ([["C01-%d-1" % v for v in range(1, 11)], ["C02-1-2"] + ["C02-%d-1" % v for v in range(2, 11)]], "one card of each"),
])
def test_bad_setup_is_refused(rows, message):
    game = Game(2)
    assert message in rejected(game, Move.of(CHANCE, "setup", terminals=rows))


def test_reveal_outcomes_are_that_decks_remaining_cards_uniformly():
    game = Game(3)
    set_up(game)
    draw_to_work(game, 10)
    game.apply(Move.of(0, "deck_to_temporary", slot=2))
    outcomes = game.chance_outcomes()
    assert sorted(m.card for m, _ in outcomes) == sorted(game.deck[0]) and len(outcomes) == 44
    assert all(p == pytest.approx(1 / 44) for _, p in outcomes)
    assert "not in player 1's deck: it is in the work area" in rejected(
        game, Move.of(CHANCE, "reveal", card=game.work[0][0]))
    assert "player 2's deck" in rejected(game, Move.of(CHANCE, "reveal", card="C02-5-1"))
    assert "say which card" in rejected(game, Move.of(0, "deck_to_work"))


# ----------------------------------------------------------------- the actions


def test_turn_continues_after_actions_1_and_3_and_ends_after_2_and_4():
    game = Game(2)
    set_up(game)
    draw_to_work(game, 10)
    assert game.current_player() == 0
    draw_to_temporary(game, 9)
    assert game.current_player() == 1 and game.temporary[0][0] == "C01-9-2"
    draw_to_temporary(game, 5)
    game.apply(Move.of(0, "temporary_to_work", slot=0))
    assert game.current_player() == 0 and game.work[0] == ["C01-10-2", "C01-9-2"]
    close(game, 8)
    assert game.current_player() == 1 and game.work[0] == []


def test_misfit_ruins_the_work_area_and_the_turn_continues():
    game = Game(2)
    set_up(game)
    build(game, 9)
    events = draw_to_work(game, 5)
    assert kinds(events) == ["work_ruined"] and game.current_player() == 0
    assert game.work[0] == [] and [value_of(c) for c in game.dead[0]] == [10, 9, 5]
    assert game.layout()["players"][0]["dead"] == 3
    events = draw_to_work(game, 7)  # on an empty work area only a 10 fits: the 7 alone dies
    assert kinds(events) == ["work_ruined"] and len(game.dead[0]) == 4


def test_misfit_card_only_option_keeps_the_work_area():
    game = Game(2, {"misfit": "card_only"})
    set_up(game)
    build(game, 9)
    draw_to_work(game, 5)
    assert [value_of(c) for c in game.work[0]] == [10, 9] and len(game.dead[0]) == 1


def test_rejections_in_player_words():
    game = Game(2)
    set_up(game)
    assert "10 not first" in rejected(game, Move.of(0, "take_terminal", card="C01-10-1"))
    assert "player 2's terminal card" in rejected(game, Move.of(0, "take_terminal", card="C02-9-1"))
    assert "not in play" in rejected(game, Move.of(0, "take_terminal", card="C05-9-1"))
    assert "your terminal 9 is C01-9-1" in rejected(game, Move.of(0, "take_terminal", card="C01-9-2"))
    assert "player 1's turn, not player 2's" in rejected(game, Move.of(1, "deck_to_work"))
    assert "needs a 10 first" in rejected(game, Move.of(0, "take_terminal", card="C01-9-1"))
    for _ in range(5):
        draw_to_temporary(game, 7)
        draw_to_temporary(game, 9)
    assert "temporary area is full" in rejected(game, Move.of(0, "deck_to_temporary", slot=0))
    assert "does not fit" in rejected(game, Move.of(0, "temporary_to_work", slot=0))
    assert "5 slots" in rejected(game, Move.of(0, "temporary_to_work", slot=7))


def test_ten_not_first_in_multiplayer_and_solitaire():
    game = Game(2)
    set_up(game)
    assert not any(m.get("card") == "C01-10-1" for m in game.legal_moves())
    build_and_close(game, 9)
    draw_to_temporary(game)
    assert Move.of(0, "take_terminal", card="C01-10-1") in game.legal_moves()
    solo = Game(1)
    set_up(solo)
    assert Move.of(0, "take_terminal", card="C01-10-1") in solo.legal_moves()
    strict = Game(1, {"ten_not_first": True})
    set_up(strict)
    assert "10 not first" in rejected(strict, Move.of(0, "take_terminal", card="C01-10-1"))


# ----------------------------------------------------------------- dead work areas and elimination


def test_work_area_dies_when_its_last_closing_terminal_is_stopped():
    game = Game(2)  # threshold 1
    set_up(game)
    build(game, 8)
    draw_to_temporary(game)
    game.state[0][:6] = ["stopped"] * 6  # hand-built: player 1's terminals 1–6 already stopped
    game.state[1][:6] = ["taken"] * 6
    events = build_and_close(game, 7)  # player 2 takes a 7: player 1's 7 is stopped
    assert kinds(events) == ["set_scored", "value_stopped", "work_dead"]
    dead = next(e for e in events if e.kind == "work_dead")
    assert dead.get("player") == 0 and "no terminal card below 8" in dead.text
    assert game.work[0] == [] and len(game.dead[0]) == 3


def test_lone_ten_with_ten_not_first_puts_a_player_out_and_the_others_play_on():
    game = Game(3)  # threshold 2
    set_up(game)
    for seat in (0, 1, 2):
        game.state[seat][1:8] = ["stopped"] * 7  # hand-built: 2–8 stopped for everyone
    game.state[1][0] = "stopped"
    build_and_close(game, 9)  # P1 takes a 9
    events = build_and_close(game, 9)  # P2 takes a 9 → P3's 9 is stopped; P3 keeps their 1
    assert game.state[2][8] == "stopped" and "player_out" not in kinds(events)
    game.state[2][0] = "stopped"  # hand-built: P3's 1 is stopped too: only a blocked 10 is left
    events = draw_to_work(game, 10)
    assert kinds(events)[-2:] == ["work_dead", "player_out"]
    assert game.out == {2: "no terminal card left to score"} and game.layout()["out"] == [2]
    assert game.current_player() == 0  # P2 (9 taken, so their 10 is free) plays on


def test_lone_ten_counts_when_ten_not_first_is_off():
    game = Game(2, {"ten_not_first": False})
    set_up(game)
    game.state[1][:8] = ["stopped"] * 8
    events = build_and_close(game, 9)  # P2's 9 is stopped; their 10 may still be taken first
    assert "player_out" not in kinds(events) and game.current_player() == 1
    events = close(game, 10)
    assert game.scores()[1] == 1 and game.out.get(1) == "no terminal card left to score"


def test_a_player_who_cannot_act_leaves_at_the_start_of_their_turn():
    game = Game(3)
    set_up(game)
    game.dead[1].extend(game.deck[1])  # hand-built: player 2's deck is used up …
    game.deck[1].clear()
    events = draw_to_temporary(game)  # … so when the turn passes to them they cannot act
    out = next(e for e in events if e.kind == "player_out")
    assert out.get("player") == 1 and out.get("reason") == "cannot perform any action"
    assert game.current_player() == 2
    draw_to_temporary(game)
    assert game.current_player() == 0  # player 2 is skipped from now on
    assert "has left the game" in rejected(game, Move.of(1, "deck_to_work"))


def test_a_player_who_cannot_act_during_their_turn_leaves_and_the_last_one_ends_the_game():
    game = Game(1)
    set_up(game)
    build_and_close(game, 9)
    draw_to_temporary(game, 10)
    draw_to_temporary(game, 5)
    game.dead[0].extend(game.deck[0])  # hand-built: the deck is used up
    game.deck[0].clear()
    events = game.apply(Move.of(0, "temporary_to_work", slot=0))
    assert kinds(events) == ["player_out", "game_over"]
    assert game.is_over() and game.current_player() == TERMINAL and game.legal_moves() == []
    assert "game is over" in rejected(game, Move.of(0, "deck_to_work"))


def test_out_players_terminals_still_stop():
    game = Game(2)
    set_up(game)
    game.out[1] = "cannot perform any action"  # hand-built: player 2 has left
    events = build_and_close(game, 9)
    assert game.state[1][8] == "stopped" and "value_stopped" in kinds(events)


# ----------------------------------------------------------------- perfect games and tie-breaks


def test_perfect_solitaire_game_uses_every_card_and_scores_23():
    game = Game(1)
    set_up(game)
    for value in range(9, 0, -1):
        build_and_close(game, value)
    assert game.deck[0] == set() and game.dead[0] == []
    events = close(game, 10)
    assert game.scores() == [23] and game.is_over()
    assert kinds(events) == ["set_scored", "player_out", "game_over"]
    assert sum(len(s) for s in game.discard[0]) == 55


@pytest.mark.parametrize("scored,winners", [
    ({0: range(1, 11), 1: range(1, 11), 2: [1, 2]}, [0, 1]),               # two perfect games share
    ({0: range(1, 11), 1: [1, 2, 3, 4, 5, 6, 7, 8, 9], 2: []}, [0]),      # 23 beats 22
    ({0: [1, 9], 1: [2, 3, 8], 2: [1, 8, 9]}, [2]),                      # 6, 7, 7: missing 2 > 1
    ({0: [2, 3, 4, 5, 6, 7, 8, 9, 10], 1: [1, 2, 3, 4, 5, 6, 8, 9], 2: [1, 5, 6, 7, 8, 9, 10]}, [1]),
    ({0: [1, 8], 1: [1, 9], 2: []}, [0, 1]),                              # same score, same missing 2
])
def test_winners_with_tie_breaks(scored, winners):
    game = Game(3)
    set_up(game)
    for seat, values in scored.items():
        for v in values:
            game.state[seat][v - 1] = "taken"
    assert game.winners() == winners
    top, second = sorted(game.scores())[-1:-3:-1]
    assert game.tie_break_line()[0].startswith("Tie at") == (top == second)


def test_game_over_event_names_the_tie_break():
    game = Game(3)
    set_up(game)
    for v in range(1, 11):
        game.state[0][v - 1] = game.state[1][v - 1] = "taken"
    event = game._game_over()[0]
    assert "P1 perfect, P2 perfect" in event.text and "Shared win: players 1 and 2." in event.text
    assert "パーフェクト" in event.ja and event.get("winners") == (0, 1)


# ----------------------------------------------------------------- property tests


def expected_moves(game: Game) -> set[Move]:
    """The legal actions, enumerated independently from the public layout."""
    seat = game.current_player()
    layout = game.layout()
    me = layout["players"][seat]
    top = value_of(me["work"][-1]) if me["work"] else None
    row = layout["terminals"][seat]
    ten_ok = not game.ten_not_first or any(t["state"] == "taken" for t in row[:9])
    out = set()
    if me["deck"]:
        out.add(Move.of(seat, "deck_to_work"))
        out |= {Move.of(seat, "deck_to_temporary", slot=i) for i, c in enumerate(me["temporary"]) if c is None}
    for i, c in enumerate(me["temporary"]):
        if c is not None and (value_of(c) == 10 if top is None else value_of(c) == top - 1):
            out.add(Move.of(seat, "temporary_to_work", slot=i))
    for v, t in enumerate(row, 1):
        closes = top is None and v == 10 or top == v + 1
        if t["state"] == "available" and closes and (v < 10 or ten_ok):
            out.add(Move.of(seat, "take_terminal", card=t["card"]))
    return out


def check_invariants(game: Game) -> None:
    """Conservation, descending work areas, stop thresholds, scores recomputed from the layout."""
    layout = game.layout()
    scores = game.scores()
    for seat, me in enumerate(layout["players"]):
        where = (list(game.deck[seat]) + me["work"] + [c for c in me["temporary"] if c]
                 + [c for s in me["discard"] for c in s] + game.dead[seat]
                 + [t["card"] for t in layout["terminals"][seat] if t["state"] != "taken"])
        assert sorted(where) == sorted(deck_cards(seat + 1)), f"cards of deck {seat + 1} not conserved"
        assert [value_of(c) for c in me["work"]] == list(range(10, 10 - len(me["work"]), -1))
        assert me["dead"] == len(game.dead[seat]) and me["deck"] == len(game.deck[seat])
        for chain in me["discard"]:
            k = value_of(chain[-1])
            assert [value_of(c) for c in chain] == list(range(10, k, -1)) + [k]
            assert layout["terminals"][seat][k - 1] == {"card": chain[-1], "state": "taken"}
        assert scores[seat] == sum(POINTS[value_of(s[-1])] for s in me["discard"])
        assert len(me["temporary"]) == 5
    if game.threshold is not None:
        for v in range(1, 11):
            states = [row[v - 1]["state"] for row in layout["terminals"]]
            assert states.count("taken") <= game.threshold
            assert ("stopped" in states) == (states.count("taken") >= game.threshold)
    else:
        assert all(t["state"] != "stopped" for row in layout["terminals"] for t in row)


def check_rejections(game: Game, legal: set[Move]) -> None:
    """Every candidate action not in ``legal`` is refused with a specific reason."""
    seat = game.current_player()
    other = (seat + 1) % game.players
    candidates = [Move.of(seat, "deck_to_work"), Move.of(other, "deck_to_work")]
    candidates += [Move.of(seat, k, slot=i) for k in ("deck_to_temporary", "temporary_to_work") for i in range(5)]
    candidates += [Move.of(seat, "take_terminal", card=card_id(p + 1, v, 1))
                   for p in {seat, other} for v in range(1, 11)]
    for move in candidates:
        if move in legal:
            continue
        with pytest.raises(IllegalMove) as err:
            game.check(move)
        assert "is not a legal move now" not in err.value.reason, move


def lucky_reveal(game: Game, rng: random.Random) -> Move:
    """A chance outcome biased towards cards that fit (any outcome is legal): drives games deep."""
    outcomes = [m for m, _ in game.chance_outcomes()]
    seat, slot = game.pending
    fitting = [m for m in outcomes if game.fits(seat, value_of(m.card))]
    return rng.choice(fitting if fitting and slot is None and rng.random() < 0.85 else outcomes)


def play(game: Game, rng: random.Random, greedy: bool, moves_seen: Counter, deep: bool = True,
         lucky: bool = False) -> None:
    """Play to the end, checking legality and invariants at every step."""
    steps = 0
    while not game.is_over():
        steps += 1
        assert steps < 2000, "the game did not end"
        if game.is_chance_node():
            move = lucky_reveal(game, rng) if lucky and game.set_up else game.sample_chance(rng)
        else:
            legal = game.legal_moves()
            assert set(legal) == expected_moves(game) and len(set(legal)) == len(legal)
            assert game.current_player() not in game.out
            if deep and steps % 7 == 0:
                check_rejections(game, set(legal))
            good = [m for m in legal if m.kind in ("take_terminal", "temporary_to_work")]
            move = rng.choice(good if greedy and good and rng.random() < 0.9 else legal)
        for event in game.apply(move):
            moves_seen[event.kind] += 1
            assert event.text and event.ja
            if event.kind == "player_out":
                moves_seen[event.get("reason")] += 1
        if deep:
            check_invariants(game)


# every count of players from 1 to 5 and the most, 10, by default (~2 s of CPU each from 7 on); 6 to 9
# play the same rules with the long runs (./run test --all, CI)
@pytest.mark.parametrize("players", [*range(1, 6), *(pytest.param(n, marks=pytest.mark.slow) for n in range(6, 10)), 10])
def test_random_games_keep_every_rule(players):
    seen: Counter = Counter()
    option_sets = [{}, {"ten_not_first": players == 1}, {"misfit": "card_only", "start_player": players - 1}]
    for seed in range(6):
        options = option_sets[seed % 3]
        game = Game(players, options)
        play(game, random.Random(seed), greedy=seed % 2 == 0, moves_seen=seen, lucky=seed % 3 != 1)
        assert len(game.out) == players and game.winners()
        assert game.events[-1].kind == "game_over"
        data = json.loads(json.dumps(game.to_json()))
        restored = load_game(data)
        assert restored == game and restored.snapshot() == game.snapshot()
        assert restored.layout() == game.layout()
    assert seen["set_scored"] and seen["work_ruined"] and seen["game_over"] == 6
    if players > 1:
        assert seen["value_stopped"]


def test_property_runs_reach_every_automatic_rule():
    seen: Counter = Counter()
    for players in (2, 3, 5):
        for seed in range(15):
            play(Game(players), random.Random(seed), greedy=True, moves_seen=seen, deep=False, lucky=True)
    for kind in ("work_dead", "value_stopped", "no terminal card left to score", "cannot perform any action"):
        assert seen[kind], kind


def test_undo_and_replay_give_the_same_state():
    rng = random.Random(7)
    game = Game(4)
    play(game, rng, greedy=True, moves_seen=Counter(), deep=False)
    for cut in sorted(rng.sample(range(1, len(game.log)), 5)):
        prefix = Game.replay(4, game.options, game.log[:cut])
        longer = Game.replay(4, game.options, game.log[:cut + 1])
        assert longer.undo() == game.log[cut]
        assert longer == prefix


def test_simulate_plays_whole_games_for_every_player_count():
    for players in range(1, 11):
        record = simulate(new_game("chains", players), seed=players)
        assert record.game.is_over() and record.to_json()["winner"] == record.game.winners()


def test_player_view_shows_counts_not_order():
    game = Game(2)
    set_up(game)
    draw_to_work(game, 10)
    view = game.player_view(1)
    assert view["layout"]["players"][0]["deck"] == 44 and view["stop_threshold"] == 1
    assert "C01-9-2" not in json.dumps(view)  # a card still in a deck is never named
    assert view["may_take_ten"] == [False, False] and view["taken"] == [0] * 10
