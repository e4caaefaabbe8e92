"""Spartacus engine: the spec's worked examples, hand-played games, and properties over many seeds."""
from __future__ import annotations

import itertools
import json
import random

import pytest

from companion import catalogue
from companion.cli import main as cli_main
from companion.engine import TERMINAL, GameError, IllegalMove, Move, simulate, thaw
from companion.games import new_game
from companion.games.spartacus import Game

OPTION_SETS = [
    {},
    {"no_banners": True},
    {"joker": True},
    {"joker": True, "joker_penalty": True},
    {"joker": True, "joker_spoils_trick": True},
    {"joker": True, "joker_penalty": True, "joker_spoils_trick": True},
]
"""Every allowed combination of the variant options."""


def play(game: Game, script: str) -> list:
    """Play a script such as ``"R8 B5 - RBAN"``: a card of the seat to move, or ``-`` for a pass."""
    events = []
    for token in script.split():
        seat = game.current_player()
        if token == "-":
            events += game.apply(Move.of(seat, "pass"))
        else:
            assert token[0] == catalogue.SPARTACUS_COLOURS[seat], f"{token} played out of turn"
            events += game.apply(Move.of(seat, "play", card="S-" + token))
    return events


def kinds(events) -> list[str]:
    """The kinds of a list of events."""
    return [e.kind for e in events]


# ------------------------------------------------------------------ an independent model of the rules
def value(card: str) -> int:
    """Number on a card id, 0 for a banner (parsed from the id, not from the engine)."""
    return 0 if card.endswith("BAN") else int(card[3:])


def expected_moves(game: Game, state: dict) -> set[Move]:
    """The legal moves, enumerated from the spec over the snapshot alone."""
    if state["over"]:
        return set()
    seat = state["turn"]
    joker = game.options["joker"]
    trick = [card for _, card in state["trick"]]
    numbers = [value(c) for c in trick if value(c)]
    moves = set()
    for card in state["hands"][seat]:
        if value(card) == 0 or not numbers or value(card) < min(numbers):
            moves.add(Move.of(seat, "play", card=card))
    if trick and (joker or numbers):
        moves.add(Move.of(seat, "pass"))
    return moves


def expected_scores(game: Game) -> list[int]:
    """Final scores recomputed from the snapshot's piles and hands."""
    state, opts = game.snapshot(), game.options
    out = []
    for seat in range(game.players):
        total = 0
        for pile in state["piles"][seat]:
            cards = pile["cards"]
            nums = sum(value(c) for c in cards)
            flags = sum(c.endswith("BAN") for c in cards)
            if not opts["joker"]:
                total += nums * 2 ** flags
            else:
                total += 0 if (opts["joker_spoils_trick"] and flags) else nums
                total -= 10 * flags if opts["joker_penalty"] else 0
        hand = state["hands"][seat]
        nums = sum(value(c) for c in hand)
        flags = sum(c.endswith("BAN") for c in hand)
        if not opts["joker"]:
            total -= nums * (2 if flags else 1)
        else:
            total -= nums + (10 * flags if opts["joker_penalty"] else 0)
        out.append(total)
    return out


def all_cards(state: dict) -> list[str]:
    """Every card of the seats in play, wherever it is (from a snapshot)."""
    cards = [c for hand in state["hands"] for c in hand]
    cards += [c for _, c in state["trick"]]
    cards += [c for piles in state["piles"] for pile in piles for c in pile["cards"]]
    return cards + state["out"]


def deck(game: Game) -> list[str]:
    """The cards dealt for this game."""
    per_seat = 10 if game.options["no_banners"] else 11
    return sorted(c.id for c in catalogue.cards_of("spartacus")
                  if c.colour in catalogue.SPARTACUS_COLOURS[:game.players]
                  and (per_seat == 11 or c.kind == "number"))


# ------------------------------------------------------------------ worked examples of the spec
def test_example_1_banner_after_the_lowest_card_does_not_take_the_trick():
    game = Game(3)
    events = play(game, "R8 B5 - RBAN")
    trick = [e for e in events if e.kind == "trick"]
    assert len(trick) == 1 and trick[0].get("winner") == 1
    assert thaw(trick[0].get("cards")) == ["S-R8", "S-B5", "S-RBAN"]
    assert trick[0].get("points") == 26 and "(8+5)×2 = 26" in trick[0].text
    assert trick[0].text.startswith("Trick won by P2 (blue) (worth 26 so far)")
    assert game.current_player() == 2            # C leads next
    assert game.layout() == {"trick": [], "won": [0, 1, 0], "out": []}


def test_example_2_hand_with_its_banner_is_doubled():
    assert Game(3).hand_score(["S-R3", "S-RBAN"])["points"] == -6
    assert Game(3).hand_score(["S-R3"])["points"] == -3


def test_example_3_two_banners_quadruple_a_trick():
    game = Game(3)
    events = play(game, "R7 BBAN G2 RBAN -")     # back to green, whose 2 is lowest
    trick = next(e for e in events if e.kind == "trick")
    assert trick.get("winner") == 2 and trick.get("points") == 36
    assert trick.get("formula").startswith("(7+2)×4 = 36")


def test_example_4_joker_is_a_little_lower_and_the_last_card_wins():
    game = Game(3, {"joker": True})
    play(game, "R6 BBAN")
    allowed = {m.get("card", "pass") for m in game.legal_moves()}
    assert allowed == {"S-G1", "S-G2", "S-G3", "S-G4", "S-G5", "S-GBAN", "pass"}
    with pytest.raises(IllegalMove) as err:
        game.apply(Move.of(2, "play", card="S-G6"))
    assert "does not beat the joker played after 6" in err.value.reason
    events = play(game, "G5 - -")
    trick = next(e for e in events if e.kind == "trick")
    assert trick.get("winner") == 2 and thaw(trick.get("cards")) == ["S-R6", "S-BBAN", "S-G5"]
    assert trick.get("points") == 11
    assert game.current_player() == 0


# ------------------------------------------------------------------ hand-played full games
BASE_GAME = """R10 B9 G8 - -
               R9 B8 G7 R6 - -
               B10 G9 R8 B7 - -
               GBAN R7 B6 G5 R4 B3 - -
               G10 R5 B4 G3 R2 B1 - -
               G6 R1 - -
               B5 G4 - B2 G1 BBAN"""


def test_full_base_game_with_known_scores():
    game = Game(3)
    events = play(game, BASE_GAME)
    assert game.is_over() and game.current_player() == TERMINAL
    # A: 30 + 7, hand {3, banner} −6 (example 2); B: 34 + 50 + 25; C: 27 + 24, hand {2} −2.
    assert game.scores() == [31, 109, 49]
    assert game.winners() == [1]
    assert game.snapshot()["hands"] == [["S-R3", "S-RBAN"], [], ["S-G2"]]
    assert kinds(events)[-6:] == ["last_card", "trick", "score", "score", "score", "game_over"]
    last = [e for e in events if e.kind == "trick"][-1]
    assert last.get("winner") == 2 and last.get("points") == 24    # lowest number so far wins
    assert [e.text for e in events if e.kind == "last_card"] == [
        "P2 (blue) played their last card — game over."]
    over = events[-1]
    rows = thaw(over.get("breakdown"))
    assert [r["total"] for r in rows] == [31, 109, 49]
    assert [[t["points"] for t in r["tricks"]] for r in rows] == [[30, 7], [34, 50, 25], [27, 24]]
    assert rows[0]["hand"]["points"] == -6 and rows[0]["hand"]["multiplier"] == 2
    assert "hand −3×2 = −6 (banner in hand)" in events[-4].text
    assert over.ja and "勝者" in over.ja


def test_full_game_whose_last_trick_holds_only_a_banner():
    game = Game(3, {"start_player": 1})
    events = play(game, """B10 G9 R8 B7 G6 - -
                           R10 B9 G8 R7 B6 G5 - -
                           R9 B8 G7 R6 B5 G4 R3 B2 G1 - -
                           R5 B4 G3 R2 B1 - -
                           G10 R4 B3 G2 R1 - -
                           BBAN""")
    assert game.is_over()
    assert game.layout() == {"trick": [], "won": [1, 1, 3], "out": ["S-BBAN"]}
    assert "trick_out" in kinds(events)
    assert game.scores() == [20, 15, 130]      # banners alone in hand cost nothing (0×2)


JOKER_GAME = """R6 BBAN G5 - -
                R10 B9 GBAN R8 B7 - -
                G10 R9 B8 G7 RBAN B6 - R5 B4 -
                G9 R7 B5 G4 R3 B2 G1 - -
                R4 B3 G2 R1 - -
                B10 G8 R2"""


@pytest.mark.parametrize("options, scores", [
    ({}, [30, 82, 33]),
    ({"joker_penalty": True}, [30, 62, 23]),
    ({"joker_spoils_trick": True}, [30, -1, 22]),
    ({"joker_penalty": True, "joker_spoils_trick": True}, [30, -21, 12]),
])
def test_full_joker_game_with_known_scores(options, scores):
    game = Game(3, {"joker": True, **options})
    events = play(game, JOKER_GAME)
    assert game.is_over() and game.scores() == scores
    last = [e for e in events if e.kind == "trick"][-1]
    assert last.get("winner") == 0 and last.get("points") == 20   # the last card takes it
    assert game.snapshot()["out"] == []


# ------------------------------------------------------------------ single rules
def test_must_play_while_only_banners_are_out_and_the_trick_goes_on():
    game = Game(3)
    play(game, "RBAN")
    with pytest.raises(IllegalMove) as err:
        game.apply(Move.of(1, "pass"))
    assert err.value.reason == "Spartacus: you must play a card: only banners are out."
    play(game, "BBAN GBAN")
    assert game.current_player() == 0 and game.layout()["won"] == [0, 0, 0]
    assert Move.of(0, "pass") not in game.legal_moves()
    play(game, "R9 - -")
    assert game.layout()["won"] == [1, 0, 0]
    assert game.pile_score(game.snapshot()["piles"][0][0]["cards"])["points"] == 9 * 8


def test_leader_cannot_pass_and_lower_is_required():
    game = Game(3)
    with pytest.raises(IllegalMove) as err:
        game.apply(Move.of(0, "pass"))
    assert "leader cannot pass" in err.value.reason
    play(game, "R5")
    with pytest.raises(IllegalMove) as err:
        game.apply(Move.of(1, "play", card="S-B7"))
    assert err.value.reason == "Spartacus: 7 is not lower than 5 — play a lower card, a banner, or pass."
    assert err.value.rule == "spartacus.md"


def test_a_pass_is_final_for_the_trick():
    game = Game(4)
    play(game, "R9 - G8 Y7 R6")
    assert game.current_player() == 2          # blue passed: skipped
    with pytest.raises(IllegalMove) as err:
        game.apply(Move.of(1, "play", card="S-B1"))
    assert "you passed in this trick" in err.value.reason
    play(game, "G5 - R4")                      # yellow passes; blue is skipped after red's 4
    assert game.current_player() == 2 and game.snapshot()["passed"] == [1, 3]
    play(game, "-")                            # green passes: back to red, who holds the lowest
    assert game.layout()["won"] == [1, 0, 0, 0] and game.current_player() == 1


def test_bad_moves_are_explained_and_change_nothing():
    game = Game(3)
    play(game, "R5")
    before = game.snapshot()
    cases = {
        Move.of(2, "play", card="S-G1"): "not player 3's turn",
        Move.of(1, "play", card="S-R1"): "red 1 is not yours",
        Move.of(1, "play", card="S-X1"): "not a Spartacus card",
        Move.of(1, "play", card="W-R1"): "not a Spartacus card",
        Move.of(1, "play"): "say which card",
        Move.of(1, "take", card="S-B1"): "no move 'take'",
        Move.of(7, "pass"): "no seat 7",
    }
    for move, words in cases.items():
        with pytest.raises(IllegalMove) as err:
            game.apply(move)
        assert words in err.value.reason, (move, err.value.reason)
    assert game.snapshot() == before and len(game.log) == 1
    play(game, "B4 - R3 B2 - G9")              # blue takes the trick; green leads the next
    with pytest.raises(IllegalMove) as err:
        game.apply(Move.of(0, "play", card="S-R5"))
    assert "red 5 is not in your hand" in err.value.reason
    with pytest.raises(IllegalMove) as err:
        Game(3, {"no_banners": True}).apply(Move.of(0, "play", card="S-RBAN"))
    assert "without banners" in err.value.reason


def test_joker_may_lead_and_everyone_may_pass():
    game = Game(3, {"joker": True})
    play(game, "RBAN")
    assert {m.get("card", "pass") for m in game.legal_moves()} == {
        *(f"S-B{v}" for v in range(1, 11)), "S-BBAN", "pass"}
    events = play(game, "- -")
    trick = next(e for e in events if e.kind == "trick")
    assert trick.get("winner") == 0 and trick.get("points") == 0
    assert game.current_player() == 1


def test_joker_beats_a_one_and_a_later_joker_beats_it():
    game = Game(3, {"joker": True})
    play(game, "R1 BBAN")
    assert {m.get("card", "pass") for m in game.legal_moves()} == {"S-GBAN", "pass"}
    events = play(game, "GBAN - -")
    trick = next(e for e in events if e.kind == "trick")
    assert trick.get("winner") == 2 and game.current_player() == 0


def test_no_banners_deals_ten_cards_and_never_doubles():
    game = Game(5, {"no_banners": True})
    assert [len(h) for h in game.snapshot()["hands"]] == [10] * 5
    assert game.pile_score(["S-R8", "S-B5"])["points"] == 13


# ------------------------------------------------------------------ options
@pytest.mark.parametrize("options, words", [
    ({"joker": True, "no_banners": True}, "cannot be combined"),
    ({"joker_penalty": True}, "needs option joker"),
    ({"joker_spoils_trick": True}, "needs option joker"),
    ({"start_player": 3}, "start_player must be a seat from 0 to 2"),
    ({"start_player": -1}, "at least 0"),
    ({"banners": True}, "no option 'banners'"),
])
def test_bad_options_are_rejected_at_creation(options, words):
    with pytest.raises(GameError) as err:
        Game(3, options)
    assert words in str(err.value)


def test_player_counts_and_start_player():
    for bad in (2, 6):
        with pytest.raises(GameError):
            Game(bad)
    game = new_game("spartacus", 5, Game.parse_options(["start_player=4", "joker=true"]))
    assert game.current_player() == 4 and game.options["joker"] is True


# ------------------------------------------------------------------ views
def test_player_view_hides_other_hands_and_pile_contents_until_the_end():
    game = Game(3)
    play(game, "R8 B5 - RBAN G9")
    view = game.player_view(0)
    assert view["hand"] == game.snapshot()["hands"][0] and view["hand_sizes"] == [9, 10, 10]
    assert view["trick"] == [{"player": 2, "card": "S-G9"}]
    assert view["won"] == [0, 1, 0] and view["won_worth"] == [0, 26, 0]
    text = json.dumps(view)
    hidden = game.snapshot()["hands"][1] + ["S-R8", "S-B5"]      # blue's hand, blue's pile
    assert not any(f'"{c}"' in text for c in hidden)
    assert "scores" not in view
    with pytest.raises(GameError):
        game.player_view(3)
    play(game, "R1 - -")
    assert game.player_view(2)["won_worth"] == [10, 26, 0] and game.layout()["won"] == [1, 1, 0]
    finished = Game(3)
    play(finished, BASE_GAME)
    end = finished.player_view(2)
    assert end["scores"] == [31, 109, 49] and end["winners"] == [1]
    assert [t["cards"] for t in end["breakdown"][1]["tricks"]][0] == ["S-B10", "S-G9", "S-R8", "S-B7"]


def test_cli_simulates_five_player_joker_game(capsys):
    assert cli_main(["simulate", "spartacus", "--players", "5", "--seed", "2",
                     "--option", "joker=true", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["state"]["over"] is True and len(record["scores"]) == 5
    assert record["events"][-1]["kind"] == "game_over"
    assert record["scores"] == [row["total"] for row in record["events"][-1]["data"]["breakdown"]]


# ------------------------------------------------------------------ properties over many games
def candidate_moves(game: Game) -> list[Move]:
    """Every move anyone could try: any card of the game by any seat, and passes."""
    ids = [c.id for c in catalogue.cards_of("spartacus")][: 11 * game.players]
    return [Move.of(p, "play", card=c) for p in range(game.players) for c in ids] + \
        [Move.of(p, "pass") for p in range(game.players)]


def check_invariants(game: Game, dealt: list[str]) -> None:
    """Conservation, legal moves against the independent model, and the layout contract."""
    state = game.snapshot()
    assert sorted(all_cards(state)) == dealt
    legal = game.legal_moves()
    assert set(legal) == expected_moves(game, state) and len(set(legal)) == len(legal)
    layout = game.layout()
    assert set(layout) == {"trick", "won", "out"}
    assert layout["trick"] == [c for _, c in state["trick"]]
    assert layout["won"] == [len(p) for p in state["piles"]]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "base")
def test_random_games_keep_every_rule(options):
    for seed in range(24):
        players = 3 + seed % 3
        rng = random.Random(seed)
        game = Game(players, {**options, "start_player": seed % players})
        dealt = deck(game)
        deep = seed < 2   # try every conceivable move in a few games (slower)
        steps = 0
        while not game.is_over():
            check_invariants(game, dealt)
            if deep:
                legal = set(game.legal_moves())
                for move in candidate_moves(game):
                    if move not in legal:
                        with pytest.raises(IllegalMove) as err:
                            game.check(move)
                        assert err.value.reason.startswith(("Spartacus", "It is not"))
            move = rng.choice(game.legal_moves())
            events = game.apply(move)
            assert events and all(e.text and e.ja for e in events)
            if any(e.kind == "trick" for e in events) and not game.is_over():
                winner = next(e for e in events if e.kind == "trick").get("winner")
                assert game.current_player() == (winner + 1) % players
            steps += 1
            assert steps <= len(dealt) * players
        check_invariants(game, dealt)
        assert game.scores() == expected_scores(game)
        assert min(len(h) for h in game.snapshot()["hands"]) == 0
        over = game.events[-1]
        assert over.kind == "game_over" and thaw(over.get("scores")) == game.scores()
        for row in thaw(over.get("breakdown")):
            assert row["total"] == sum(t["points"] for t in row["tricks"]) + row["hand"]["points"]
        if options.get("joker"):
            assert game.snapshot()["out"] == []
        saved = json.loads(json.dumps(game.to_json()))
        assert Game.from_json(saved) == game
        middle = Game.replay(players, game.options, game.log[: len(game.log) // 2])
        assert Game.from_json(json.loads(json.dumps(middle.to_json()))) == middle
        undone = game.clone()
        undone.undo()
        assert undone == middle.replay(players, game.options, game.log[:-1])


@pytest.mark.parametrize("options, players", list(itertools.product(OPTION_SETS, (3, 4, 5))))
def test_engine_simulate_plays_full_games(options, players):
    for seed in range(10):
        record = simulate(Game(players, options), seed)
        assert record.game.is_over()
        assert kinds(record.game.events).count("last_card") == 1
        assert record.game.scores() == expected_scores(record.game)


def test_equal_totals_share_the_win():
    game = simulate(Game(3), 76).game           # a random game that ends in a tie for the top
    assert game.scores() == [10, 82, 82] and game.winners() == [1, 2]
    over = game.events[-1]
    assert thaw(over.get("winners")) == [1, 2] and "(shared win)" in over.text


def test_a_game_stopped_before_its_end_does_not_subtract_the_hand_in_words_either():
    """The host ends a game early: its totals leave the hands out, so the breakdown that explains
    them must not list "hand −(2+3+…) = −54" beside "total 4" (nor name the hidden hands)."""
    game = Game(3, {"start_player": 0})
    play(game, "R10 B9 G8 - -")
    rows = game.breakdown()
    assert [r["total"] for r in rows] == [r["tricks_total"] for r in rows]
    for row in rows:
        assert "−" not in row["text"] and "hand not counted before the end" in row["text"]
        assert "手札は終了前なので数えない" in row["ja"]
