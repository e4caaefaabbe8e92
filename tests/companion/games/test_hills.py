"""Seven Hills of Rome: the spec's worked examples, variants, hidden values and property tests."""
from __future__ import annotations

import functools
import itertools
import json
import random

import pytest

from companion import catalogue
from companion.engine import CHANCE, GameError, IllegalMove, Move, simulate, thaw
from companion.games import game_class
from companion.games.hills import Game
from companion.series import Series

SWITCHES = ("same_value_ban", "banners", "highest_card", "open_play", "hidden_values")
ALL_OPTIONS = [dict(zip(SWITCHES, bits), start_player=start)
               for bits in itertools.product((False, True), repeat=len(SWITCHES)) for start in (0, 1)]


def cid(token: str) -> str:
    """'R6' → 'H-R6', 'RB' → 'H-RBAN'."""
    return f"H-{token[0]}{'BAN' if token[1:] == 'B' else token[1:]}"


def play(game: Game, script: str) -> list:
    """Apply placements written 'R6@2' (red 6 at hill 2), 'RB@4' (banner), 'R?@3' (unknown); return
    the events they caused after each one's own log line (``card_placed``, checked here)."""
    events = []
    for token in script.split():
        card, hill = token.split("@")
        seat = "RB".index(card[0])
        assert game.current_player() == seat, f"{token}: it is seat {game.current_player()}'s turn"
        said = game.apply(Move.of(seat, "place", hill=int(hill), card=None if card[1:] == "?" else cid(card)))
        assert said[0].kind == "card_placed" and (fact(said[0], "player"), fact(said[0], "hill")) == (seat, int(hill))
        assert said[0].text.startswith(f"P{seat + 1} places ")
        events += said[1:]
    return events


def fact(event, key: str):
    """An event's fact as plain JSON data (lists, not tuples)."""
    return thaw(event.get(key))


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def arrange(plan: dict[int, tuple[str, str]], **options) -> Game:
    """A full game whose hills end as planned, {hill: ("9 1", "6 4")}, in some legal order."""
    queues = {(s, h): [int(v) for v in plan.get(h, ("", ""))[s].split()] for s in (0, 1) for h in range(1, 8)}
    assert all(sorted(v for (s, _), q in queues.items() if s == seat for v in q) == list(range(1, 10))
               for seat in (0, 1)), "a plan must use each colour's 1..9 once"

    @functools.lru_cache(maxsize=None)
    def order(taken: tuple, turn: int, barred: int | None) -> tuple | None:
        if all(taken[(s * 7) + h - 1] == len(queues[s, h]) for s in (0, 1) for h in range(1, 8)):
            return ()
        for h in range(1, 8):
            i = turn * 7 + h - 1
            if h != barred and taken[i] < len(queues[turn, h]):
                rest = order(taken[:i] + (taken[i] + 1,) + taken[i + 1:], 1 - turn, h)
                if rest is not None:
                    return ((turn, h, queues[turn, h][taken[i]]),) + rest
        return None

    game = Game(2, options)
    steps = order((0,) * 14, game.options["start_player"], None)
    assert steps is not None, "no legal order for this plan"
    for seat, hill, v in steps:
        game.apply(Move.of(seat, "place", hill=hill, card=f"H-{'RB'[seat]}{v}"))
    return game


# --------------------------------------------------------------------- the spec's worked examples
EXAMPLE_1 = ("R9@7 B1@1 R1@7 B2@2 R2@3 B4@7 R3@4 B6@7 R4@5 B3@6 "
             "R5@5 B5@6 R6@5 B7@6 R7@5 B8@6 R8@5 B9@6")

MIRRORED_1 = ("B6@7 R2@1 B4@7 R3@2 B1@3 R9@7 B2@4 R1@7 B3@5 R4@6 "
              "B5@5 R5@6 B7@5 R6@6 B8@5 R7@6 B9@5 R8@6")

def test_example_1_equal_sums_go_to_the_start_player_red():
    game = Game(2)
    events = play(game, EXAMPLE_1)
    hill7 = game.result[6]
    assert (hill7["red_sum"], hill7["blue_sum"], hill7["winner"], hill7["reason"]) == (10, 10, 0, "tie")
    assert game.scores() == [3 + 4 + 5 + 7, 1 + 2 + 6] and game.winners() == [0]
    award = [e for e in events if e.kind == "hill_awarded" and fact(e, "hill") == 7][0]
    assert "P1 9+1 = 10" in award.text and "start player (P1)" in award.text and "同点" in award.ja
    assert events[-1].kind == "game_over" and fact(events[-1], "scores") == [19, 9]


def test_example_1_mirrored_the_tie_goes_to_blue_when_blue_starts():
    game = Game(2, {"start_player": 1})
    play(game, MIRRORED_1)
    assert game.result[6]["winner"] == 1 and game.result[6]["reason"] == "tie"
    assert game.scores() == [1 + 2 + 6, 3 + 4 + 5 + 7]


def test_example_2_a_hill_with_only_blue_cards_goes_to_blue():
    game = arrange({3: ("", "2 5"), 1: ("1 2 3", "1"), 2: ("4 5", "3 4"), 4: ("6", "6 7"),
                    5: ("7 8 9", ""), 6: ("", "8 9")})
    assert game.result[2] == {"hill": 3, "red": [], "blue": [2, 5], "red_sum": 0, "blue_sum": 7,
                              "winner": 1, "reason": "alone"}
    assert game.result[6]["winner"] is None and game.result[6]["reason"] == "empty"
    # 1: 6 v 1 red, 2: 9 v 7 red, 3 blue, 4: 6 v 13 blue, 5 red, 6 blue, 7 nobody
    assert game.scores() == [1 + 2 + 5, 3 + 4 + 6]


def test_example_3_highest_card_compares_the_second_card():
    plan = {5: ("9 2", "9 4"), 1: ("1 3", "1 2"), 2: ("4 5", "3"), 3: ("6", "5 6"), 4: ("7 8", "7 8")}
    game = arrange(plan, highest_card=True)
    assert game.result[4]["winner"] == 1 and game.result[4]["reason"] == "highest"
    award = [e for e in game.events if e.kind == "hill_awarded" and fact(e, "hill") == 5][0]
    assert "P1 9, 2 against P2 9, 4" in award.text
    # hill 4: 8,7 against 8,7 → every compared card equal → the start player (red)
    assert game.result[3]["winner"] == 0 and game.result[3]["reason"] == "tie"
    # hill 3: red {6} against blue {6, 5} → red has no second card and loses
    assert game.result[2]["winner"] == 1


def test_highest_card_differs_from_sums():
    plan = {1: ("9", "5 6"), 2: ("1 2 3 4", "1 2 3 7 8"), 3: ("5 6 7 8", "4 9")}
    by_sum, by_highest = arrange(plan), arrange(plan, highest_card=True)
    assert by_sum.result[0]["winner"] == 1 and by_highest.result[0]["winner"] == 0
    assert by_sum.result[2]["winner"] == 0 and by_highest.result[2]["winner"] == 1


def test_example_4_same_value_ban_on_a_face_down_hill():
    game = Game(2, {"same_value_ban": True})
    play(game, "R6@2 B1@1 R1@3")
    events = play(game, "B6@2")
    assert kinds(events) == ["hill_revealed", "card_removed"]
    assert fact(events[1], "card") == "H-B6" and "blue 6 is removed" in events[1].text
    assert game.layout()["hills"][1] == {"hill": 2, "revealed": True, "red": ["H-R6"], "blue": []}
    assert game.layout()["out"] == ["H-B6"]
    assert game.current_player() == 0
    assert all(m.hill != 2 for m in game.legal_moves())
    assert game.explain_illegal(Move.of(0, "place", hill=2, card="H-R2")) == (
        "Seven Hills: you may not place on hill 2 — your opponent just placed there.")


def test_example_5_face_down_banner_cancels_the_card_right_after_it():
    game = Game(2, {"banners": True})
    play(game, "RB@4 B1@1 R8@4 B2@2 R1@3")
    events = play(game, "B3@4")
    assert kinds(events) == ["hill_revealed", "cards_cancelled"]
    assert fact(events[1], "cards") == ["H-RBAN", "H-R8"]
    assert game.layout()["hills"][3] == {"hill": 4, "revealed": True, "red": [], "blue": ["H-B3"]}
    assert game.layout()["out"] == ["H-RBAN", "H-R8"]


# --------------------------------------------------------------------- banners
def test_banner_as_last_card_cancels_the_revealing_card_and_bars_its_player():
    game = Game(2, {"banners": True})
    play(game, "RB@4 B1@1 R1@3")
    events = play(game, "B3@4")
    assert fact(events[1], "cards") == ["H-RBAN", "H-B3"] and fact(events[1], "bound") == 1
    assert "P2 may not place at hill 4 on their next turn" in events[1].text
    play(game, "R2@5")
    bar = game.explain_illegal(Move.of(1, "place", hill=4, card="H-B4"))
    assert "banner" in bar and "different hill" in bar
    assert all(m.hill not in (4, 5) for m in game.legal_moves())
    play(game, "B4@6 R3@7")
    assert any(m.hill == 4 for m in game.legal_moves())  # the bar lasted one turn


def test_two_face_down_banners_cancel_each_other():
    game = Game(2, {"banners": True})
    play(game, "R5@4 B1@1 RB@4 B2@2 R1@3")
    events = play(game, "BB@4")
    assert fact(events[1], "cards") == ["H-RBAN", "H-BBAN"] and fact(events[1], "bound") == 1
    assert game.layout()["hills"][3]["red"] == ["H-R5"]


def test_a_revealing_banner_lies_face_up_and_cancels_the_next_card():
    game = Game(2, {"banners": True})
    play(game, "R5@4 B1@1 R1@3")
    events = play(game, "BB@4")
    assert kinds(events) == ["hill_revealed"]
    assert game.layout()["hills"][3] == {"hill": 4, "revealed": True, "red": ["H-R5"], "blue": ["H-BBAN"]}
    play(game, "R2@5 B2@6")
    events = play(game, "R3@4")
    assert kinds(events) == ["cards_cancelled"] and fact(events[0], "cards") == ["H-BBAN", "H-R3"]
    assert fact(events[0], "bound") == 0


def test_revealing_banner_with_a_banner_inside_the_cascade():
    """Red's banner is followed by red's 7: that pair goes; blue's revealing banner then waits."""
    game = Game(2, {"banners": True})
    play(game, "RB@4 B1@1 R7@4 B2@2 R1@3")
    events = play(game, "BB@4")
    assert fact(events[1], "cards") == ["H-RBAN", "H-R7"]
    assert game.snapshot()["hills"][3]["barricade"] is True
    play(game, "R2@5 B3@6")
    assert fact(play(game, "R3@4")[0], "cards") == ["H-BBAN", "H-R3"]


def test_face_up_banner_cancels_its_owners_own_next_card_too():
    game = Game(2, {"banners": True})
    play(game, "R5@4 B1@1 R1@3 B4@4")          # hill 4 revealed: red 5, blue 4
    play(game, "R2@5 B2@2 RB@4 B3@6")          # red guards hill 4 with a face-up banner
    events = play(game, "R9@4")
    assert fact(events[0], "cards") == ["H-RBAN", "H-R9"] and fact(events[0], "bound") == 0


def test_two_face_up_banners_in_a_row_cancel_each_other():
    game = Game(2, {"banners": True})
    play(game, "R5@4 B1@1 R1@3 B4@4 R2@5 B2@2 RB@4 B3@6 R3@5")
    events = play(game, "BB@4")
    assert fact(events[0], "cards") == ["H-RBAN", "H-BBAN"] and fact(events[0], "bound") == 1


def test_final_reveal_applies_face_down_banners():
    game = Game(2, {"banners": True})
    events = play(game, "RB@1 B1@2 R1@1 B2@3 R2@4 BB@5 R3@6 B3@7 "
                  "R4@4 B4@7 R5@6 B5@7 R6@4 B6@7 R7@6 B7@7 R8@4 B8@2 R9@6 B9@2")
    final = [e for e in events if e.kind == "hill_revealed"]
    assert all(fact(e, "final") for e in final)
    assert [fact(e, "cards") for e in events if e.kind == "cards_cancelled"] == [["H-RBAN", "H-R1"]]
    # blue's banner stays alone on hill 5: worth 0, blue counts as absent there
    assert game.layout()["hills"][4]["blue"] == ["H-BBAN"]
    assert game.result[4]["winner"] is None and game.result[0]["winner"] is None


def test_banners_resolve_before_the_same_value_ban():
    game = Game(2, {"banners": True, "same_value_ban": True})
    play(game, "RB@4 B1@1 R3@4 B2@2 R6@4 B4@1")
    events = play(game, "R1@2")    # hill 2: blue 2, red 1 — nothing happens there
    assert kinds(events) == ["hill_revealed"]
    events = play(game, "B3@4")
    # the banner takes red's 3 with it; blue's 3 is then compared with red's 6 only and stays
    assert kinds(events) == ["hill_revealed", "cards_cancelled"]
    assert game.layout()["hills"][3] == {"hill": 4, "revealed": True, "red": ["H-R6"], "blue": ["H-B3"]}
    game = Game(2, {"banners": True, "same_value_ban": True})
    play(game, "RB@4 B1@1 R3@4 B2@2 R6@4 B4@1 R1@2")
    events = play(game, "B6@4")
    assert kinds(events) == ["hill_revealed", "cards_cancelled", "card_removed"]
    assert game.layout()["out"] == ["H-RBAN", "H-R3", "H-B6"]


def test_full_game_with_banners_and_same_value_ban():
    game = Game(2, {"banners": True, "same_value_ban": True})
    play(game, "RB@4 B6@2 R8@4 BB@5 R6@2 B9@1 R1@5 B3@4")
    # red lost a card to a banner at hill 5, then at hill 4: both are barred this turn
    assert "banner" in game.explain_illegal(Move.of(0, "place", hill=5, card="H-R2"))
    assert {m.hill for m in game.legal_moves()} == {1, 2, 3, 6, 7}
    play(game, "R9@1 B1@3 R2@4 B2@6 R3@3 B4@4 R4@7 B5@3 R5@6 B7@7 R7@5 B8@6")
    assert game.layout()["out"] == ["H-R6", "H-BBAN", "H-R1", "H-RBAN", "H-R8", "H-R9"]
    assert [r["winner"] for r in game.result] == [1, 1, 1, 1, 0, 1, 1]
    assert game.scores() == [5, 23] and game.winners() == [1]


# --------------------------------------------------------------------- legality and messages
def test_same_value_ban_on_a_face_up_hill_is_an_illegal_move():
    game = Game(2, {"same_value_ban": True})
    play(game, "R6@2 B1@1 R1@3 B2@2 R2@4")       # hill 2 face up: red 6, blue 2
    with pytest.raises(IllegalMove) as err:
        game.apply(Move.of(1, "place", hill=2, card="H-B6"))
    assert "same value banned" in err.value.reason and "already has a 6" in err.value.reason
    assert err.value.rule == "seven-hills.md § Variant: same value banned"
    assert Move.of(1, "place", hill=2, card="H-B5") in game.legal_moves()


def test_open_play_reveals_nothing_and_banners_guard_at_once():
    game = Game(2, {"open_play": True, "banners": True, "same_value_ban": True})
    assert all(h["revealed"] for h in game.layout()["hills"])
    events = play(game, "R6@2 B1@1")
    assert events == [] and game.layout()["hills"][1]["red"] == ["H-R6"]
    assert game.player_view(1)["hands"]["red"] == [f"H-R{v}" for v in (1, 2, 3, 4, 5, 7, 8, 9)] + ["H-RBAN"]
    play(game, "RB@3 B2@2")
    assert "same value" in game.explain_illegal(Move.of(0, "place", hill=1, card="H-R1"))
    assert fact(play(game, "R1@3")[0], "cards") == ["H-RBAN", "H-R1"]


@pytest.mark.parametrize("move, words", [
    (Move.of(1, "place", hill=1, card="H-B1"), "red's turn"),
    (Move.of(0, "take", hill=1, card="H-R1"), "place one card"),
    (Move.of(0, "place", hill=8, card="H-R1"), "hill from 1 to 7"),
    (Move.of(0, "place", hill=True, card="H-R1"), "hill from 1 to 7"),
    (Move.of(0, "place", hill=1, card="H-B1"), "not one of your cards"),
    (Move.of(0, "place", hill=1, card="H-RBAN"), "not a card of this game"),
    (Move.of(0, "place", hill=1, card="W-R1"), "not a card of this game"),
    (Move.of(0, "place", hill=1, card=None), "say which card"),
    (Move.of(0, "place", hill=1, card="H-R1", colour="red"), "only hill and card"),
    (Move.of(CHANCE, "reveal", hill=1, red=[], blue=[]), "red's turn"),
])
def test_bad_moves_are_refused_with_a_reason_and_change_nothing(move, words):
    game = Game(2)
    before = game.snapshot()
    with pytest.raises(IllegalMove) as err:
        game.apply(move)
    assert words in err.value.reason and err.value.reason == game.explain_illegal(move)
    assert err.value.rule.startswith("seven-hills.md § ")
    assert game.snapshot() == before and game.log == []


def test_a_played_card_cannot_be_played_again_and_the_game_over_is_final():
    game = Game(2)
    play(game, "R1@1 B1@2")
    assert "no longer in your hand" in game.explain_illegal(Move.of(0, "place", hill=3, card="H-R1"))
    play(game, "R2@3 B2@4 R3@5 B3@6 R4@7 B4@1 R5@2 B5@3 R6@4 B6@5 R7@6 B7@7 "
               "R8@1 B8@2 R9@3 B9@4")
    assert game.is_over() and game.legal_moves() == []
    assert "game is over" in game.explain_illegal(Move.of(0, "place", hill=1, card="H-R1"))


def test_options_are_validated():
    with pytest.raises(GameError):
        Game(2, {"start_player": 2})
    with pytest.raises(GameError):
        Game(3)
    with pytest.raises(GameError):
        Game(2, {"banners": "yes"})
    assert game_class("hills") is Game
    assert Game.parse_options(["banners=true", "start_player=1"]) == {"banners": True, "start_player": 1}


# --------------------------------------------------------------------- hidden information
def test_player_view_hides_face_down_values_even_from_their_owner():
    a, b = Game(2), Game(2)
    play(a, "R6@2 B1@1 R1@3")
    play(b, "R1@2 B1@1 R6@3")       # same cards, the face-down values swapped
    for game in (a, b):
        assert game.layout()["hills"][1]["red"] == ["B-HILLR"]
        text = json.dumps(game.player_view(0)["layout"]) + json.dumps(game.player_view(1)["layout"])
        assert "H-R6" not in text and "H-R1" not in text and "H-B1" not in text
        assert "H-B1" not in game.player_view(1)["hand"]
    assert a.player_view(1) == b.player_view(1)
    assert a.player_view(0)["hand"] == b.player_view(0)["hand"] == [f"H-R{v}" for v in (2, 3, 4, 5, 7, 8, 9)]
    play(a, "B2@2")                 # the second player arrives: hill 2 is revealed to everyone
    assert a.player_view(1)["layout"]["hills"][1] == {"hill": 2, "revealed": True,
                                                      "red": ["H-R6"], "blue": ["H-B2"]}
    assert a.player_view(1)["leading"] == {"2": 0}


def test_player_view_names_the_forbidden_hill():
    game = Game(2)
    play(game, "R1@4")
    assert game.player_view(1)["forbidden"] == {"4": "Seven Hills: you may not place on hill 4 — "
                                                     "your opponent just placed there."}
    assert game.player_view(0)["forbidden"] == {}


def test_hidden_values_example_4_learns_the_values_at_the_reveal():
    game = Game(2, {"same_value_ban": True, "hidden_values": True})
    play(game, "R?@2 B?@1 R?@3")
    assert play(game, "B?@2") == [] and game.current_player() == CHANCE
    assert game.layout()["hills"][1] == {"hill": 2, "revealed": False,
                                         "red": ["B-HILLR"], "blue": ["B-HILLB"]}
    outcomes = game.legal_moves()
    assert len(outcomes) == 9 * 9 and all(game.illegal_reason(m) is None for m in outcomes)
    events = game.apply(Move.of(CHANCE, "reveal", hill=2, red=["H-R6"], blue=["H-B6"]))
    assert kinds(events) == ["hill_revealed", "card_removed"]
    assert game.layout()["out"] == ["H-B6"] and game.current_player() == 0
    assert "H-R6" not in game.unseen[0] and "H-B6" not in game.unseen[1]
    assert game.hand(0) is None            # red's cards at hill 3 are still unknown


def test_hidden_values_refuses_impossible_reveals_and_known_face_down_cards():
    game = Game(2, {"hidden_values": True})
    with pytest.raises(IllegalMove, match="card=None"):
        game.apply(Move.of(0, "place", hill=1, card="H-R1"))
    play(game, "R?@2 B?@1 R?@3 B?@2")
    for move, words in [
        (Move.of(CHANCE, "reveal", hill=3, red=["H-R1"], blue=[]), "hill 2 are the ones"),
        (Move.of(CHANCE, "reveal", hill=2, red=["H-R1", "H-R2"], blue=["H-B1"]), "has 1 red card"),
        (Move.of(CHANCE, "reveal", hill=2, red=["H-B1"], blue=["H-B2"]), "not one of red's unseen"),
        (Move.of(0, "place", hill=4, card=None), "first turn over the cards at hill 2"),
    ]:
        with pytest.raises(IllegalMove) as err:
            game.apply(move)
        assert words in err.value.reason
    game.apply(Move.of(CHANCE, "reveal", hill=2, red=["H-R1"], blue=["H-B1"]))
    # hill 2 is face up now: the card laid there is seen, so it is named; a face-down id is refused
    assert "give its id" in game.explain_illegal(Move.of(0, "place", hill=2, card=None))
    play(game, "R?@4 B?@3")
    with pytest.raises(IllegalMove) as err:   # red's unknown card at hill 3 cannot turn up as R1
        game.apply(Move.of(CHANCE, "reveal", hill=3, red=["H-R1"], blue=["H-B5"]))
    assert "not one of red's unseen" in err.value.reason


def to_hidden(options: dict, moves: list[Move]) -> Game:
    """Replay a known-values game as the camera sees it: face-down cards unknown, then revealed."""
    hidden = Game(2, {**options, "hidden_values": True})
    placed: dict[int, list[tuple[int, str]]] = {h: [] for h in range(1, 8)}
    for move in moves:
        face_up = hidden.layout()["hills"][move.hill - 1]["revealed"]
        hidden.apply(Move.of(move.player, "place", hill=move.hill, card=move.card if face_up else None))
        placed[move.hill].append((move.player, move.card))
        while hidden.current_player() == CHANCE:
            hill = hidden.pending
            hidden.apply(Move.of(CHANCE, "reveal", hill=hill,
                                 red=[c for s, c in placed[hill] if s == 0],
                                 blue=[c for s, c in placed[hill] if s == 1]))
    return hidden


@pytest.mark.parametrize("options", [o for o in ALL_OPTIONS if not o["hidden_values"]],
                         ids=lambda o: ",".join(k for k, v in o.items() if v is True) + f"/s{o['start_player']}")
def test_known_and_unknown_then_revealed_values_end_in_the_same_state(options):
    for seed in range(6):
        known = simulate(Game(2, options), seed).game
        hidden = to_hidden(options, known.log)
        assert hidden.is_over()
        assert [e.to_json() for e in hidden.events] == [e.to_json() for e in known.events]
        assert hidden.snapshot() == known.snapshot() and hidden.scores() == known.scores()
        assert hidden.layout() == known.layout()


def test_known_and_hidden_layouts_agree_move_by_move():
    options = {"banners": True, "same_value_ban": True}
    for seed in range(10):
        known = simulate(Game(2, options), seed).game
        for n in range(1, len(known.log) + 1):
            prefix = Game.replay(2, options, known.log[:n])
            assert to_hidden(options, known.log[:n]).layout() == prefix.layout()


# --------------------------------------------------------------------- properties
def expected_moves(game: Game) -> set[Move]:
    """An independent reading of the rules: every placement allowed now."""
    state, p = game.snapshot(), game.current_player()
    moves = set()
    for h in range(1, 8):
        if state["last_hill"][1 - p] == h or h in state["bound"][p]:
            continue
        hill = state["hills"][h - 1]
        if not hill["revealed"] and game.options["hidden_values"]:
            moves.add(Move.of(p, "place", hill=h, card=None))
            continue
        theirs = {catalogue.card(c["card"]).value for c in hill["cards"]
                  if c["seat"] != p and not c["card"].endswith("BAN")}
        for card_id in state["unseen"][p]:
            banned = (game.options["same_value_ban"] and hill["revealed"] and not card_id.endswith("BAN")
                      and catalogue.card(card_id).value in theirs)
            if not banned:
                moves.add(Move.of(p, "place", hill=h, card=card_id))
    return moves


def score_from_layout(layout: dict, options: dict) -> list[int]:
    """Final scores recomputed from the camera's view of the finished table."""
    totals = [0, 0]
    for hill in layout["hills"]:
        values = [sorted((catalogue.card(c).value for c in hill[side] if not c.endswith("BAN")),
                         reverse=True) for side in ("red", "blue")]
        if not values[0] and not values[1]:
            continue
        if not values[0] or not values[1]:
            totals[0 if values[0] else 1] += hill["hill"]
            continue
        a, b = (values if options["highest_card"] else [sum(values[0]), sum(values[1])])
        totals[options["start_player"] if a == b else (0 if a > b else 1)] += hill["hill"]
    return totals


def check_invariants(game: Game) -> None:
    state = game.snapshot()
    for seat, colour in enumerate("RB"):
        full = sorted(c.id for c in catalogue.cards_of("hills")
                      if c.colour == colour and (c.kind == "number" or (c.kind == "banner" and game.options["banners"])))
        on_hills = [c["card"] for h in state["hills"] for c in h["cards"] if c["seat"] == seat]
        known = [c for c in on_hills if c is not None]
        out = [c for c in state["out"] if c.startswith(f"H-{colour}")]
        assert sorted(state["unseen"][seat] + known + out) == full       # card conservation
        assert state["hand_count"][seat] + on_hills.count(None) == len(state["unseen"][seat])
    layout = game.layout()
    assert [h["hill"] for h in layout["hills"]] == list(range(1, 8))
    for hill, raw in zip(layout["hills"], state["hills"]):
        assert set(hill) == {"hill", "revealed", "red", "blue"}
        if not hill["revealed"]:
            assert set(hill["red"]) <= {"B-HILLR"} and set(hill["blue"]) <= {"B-HILLB"}
            # two players at a hill means it is face up (or being turned over: a reveal is due)
            assert not (hill["red"] and hill["blue"]) or state["pending"] == hill["hill"]
        assert len(hill["red"]) + len(hill["blue"]) == len(raw["cards"])
    assert set(layout) == {"hills", "out"}


@pytest.mark.parametrize("options", ALL_OPTIONS,
                         ids=lambda o: ",".join(k for k, v in o.items() if v is True) + f"/s{o['start_player']}")
def test_random_games_keep_every_invariant(options):
    for seed in range(4):
        game, rng = Game(2, options), random.Random(seed)
        places = 0
        while not game.is_over():
            check_invariants(game)
            if game.is_chance_node():
                move = game.sample_chance(rng)
            else:
                legal = game.legal_moves()
                assert set(legal) == expected_moves(game) and len(legal) == len(set(legal))
                wrong = Move.of(game.current_player(), "place", hill=rng.randint(1, 7),
                                card=rng.choice(game.unseen[1 - game.current_player()]
                                                + game.unseen[game.current_player()] + [None]))
                if wrong not in legal:
                    before = game.snapshot()
                    with pytest.raises(IllegalMove):
                        game.apply(wrong)
                    assert game.snapshot() == before
                move = rng.choice(legal)
                places += 1
            game.apply(move)
        check_invariants(game)
        assert places == 2 * (10 if options["banners"] else 9)              # termination
        assert all(h["revealed"] or not (h["red"] or h["blue"]) for h in game.layout()["hills"])
        assert game.scores() == score_from_layout(game.layout(), game.options)
        assert game.events[-1].kind == "game_over" and fact(game.events[-1], "scores") == game.scores()
        assert sum(game.scores()) <= 28
        restored = Game.from_json(json.loads(json.dumps(game.to_json())))
        assert restored == game and restored.events == game.events
        middle = Game.replay(2, options, game.log[:len(game.log) // 2])
        assert Game.from_json(json.loads(json.dumps(middle.to_json()))) == middle


def test_undo_restores_the_state_before_a_reveal():
    game = Game(2, {"banners": True})
    play(game, "RB@4 B1@1 R8@4 B2@2 R1@3")
    before = game.snapshot()
    play(game, "B3@4")
    game.undo()
    assert game.snapshot() == before


def test_cli_simulate_plays_a_full_game(capsys):
    from companion.cli import main
    assert main(["simulate", "hills", "--players", "2", "--seed", "3", "--option", "banners=true",
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert len([m for m in record["moves"] if m["kind"] == "place"]) == 20
    assert record["events"][-1]["kind"] == "game_over" and record["events"][-1]["ja"]
    result = record["state"]["result"]
    assert record["scores"] == [sum(r["hill"] for r in result if r["winner"] == s) for s in (0, 1)]


def test_every_event_speaks_english_and_japanese():
    for options in ALL_OPTIONS[::5]:
        for seed in range(3):
            for event in simulate(Game(2, options), seed).game.events:
                assert event.text and event.ja and event.text != event.ja
                json.dumps(event.to_json(), ensure_ascii=False)


# --------------------------------------------------------------------- series
def test_a_two_game_series_alternates_the_start_player_and_sums_totals():
    series = Series("hills", 2, {}, rounds=2)
    first = series.new_game()
    assert first.options["start_player"] == 0
    play(first, EXAMPLE_1)                       # red takes the tied hill 7: 19–9
    series.record(first)
    second = series.new_game()
    assert second.options["start_player"] == 1 and not series.is_over()
    play(second, MIRRORED_1)                     # now blue starts and takes the tied hill 7: 9–19
    series.record(second)
    assert series.is_over() and series.totals() == [28, 28]
    assert series.winners() == [0, 1]            # a drawn series stays a draw
    third = Series("hills", 2, {"banners": True}, rounds=2)
    game = third.new_game()
    play(game, "RB@4 B6@2 R8@4 BB@5 R6@2 B9@1 R1@5 B3@4 R9@1 B1@3 R2@4 B2@6 R3@3 B4@4 "
               "R4@7 B5@3 R5@6 B7@7 R7@5 B8@6")
    third.record(game)
    assert third.totals() == game.scores() and third.new_game().options["banners"] is True
