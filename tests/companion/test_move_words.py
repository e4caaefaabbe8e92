"""Moves in words: every game says each of its moves in English and Japanese (``Game.describe_move``),
and the table session's prompts and the phone's buttons use exactly those words."""
from __future__ import annotations

import random
import re

import pytest

from companion.engine import CHANCE, Game, Move, Reason, third_person
from companion.games import game_class
from companion.session import Store, TableSession

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
RAW = re.compile(r"\w=|\b[WHSPCB]\d*-[A-Z0-9]")
"""What a player must never read: ``key=value`` or a catalogue id such as W-R5, H-RBAN, C03-7-2."""
NAMES = ["Ann", "Ben", "Chie", "Dai", "Emi"]
CHANCE_LIMIT = 60
"""Chance outcomes worded per state (a Seven Hills reveal may have thousands: the first ones do)."""

CONFIGS = [
    ("wheel", 3, {"single_card_fall": True}),
    ("hills", 2, {}),
    ("hills", 2, {"hidden_values": True, "banners": True}),
    ("spartacus", 4, {"joker": True}),
    ("chains", 2, {}),
    ("prussia", 1, {}),
    ("prussia", 2, {}),
]


def _face(move: Move) -> Move:
    """The move as the table sees it: copies of a Chains value and the two jokers are one card."""
    card = move.get("card")
    if isinstance(card, str):
        card = re.sub(r"^(C\d\d-\d+)-\d+$|^(P-JK)\d$", lambda m: m.group(1) or m.group(2), card)
        return Move.of(move.player, move.kind, **dict(dict(move.params), card=card))
    return move


def _check(game: Game, move: Move, words: Reason, short: bool) -> None:
    what = (game.id, str(move), short)
    assert isinstance(words, Reason) and str(words).strip() and words.ja.strip(), what
    assert not RAW.search(words) and not RAW.search(words.ja), (what, words, words.ja)
    if not short:   # a short chance button may be just the card's face ("♥6", "7")
        assert JAPANESE.search(words.ja), (what, words.ja)


def _check_without_card(game: Game, move: Move) -> None:
    """A move worded without its card (``session.view.moves_words`` for a viewer who may not see it:
    an undo of a card now back in a hand) says "a card", never "None" (seen at a QA game night:
    「Renの手を取り消しました: RenがNoneを出す」); an engine that cannot word it raises, and the view
    says "(its card is not shown)" instead."""
    try:
        words = game.describe_move(move.without("card"), NAMES[:game.players])
    except Exception:   # noqa: BLE001 - moves_words' fallback words it
        return
    assert "None" not in str(words) and "None" not in words.ja, (game.id, str(move), str(words), words.ja)


def _word_every_move(game: Game) -> None:
    """Word every legal move (and listable chance outcome) in both forms; seats' moves differ."""
    moves = game.legal_moves()
    if game.is_chance_node():
        moves = moves[:CHANCE_LIMIT]
    full = {}
    for move in moves:
        for names in (None, NAMES[:game.players]):
            _check(game, move, game.describe_move(move, names), short=False)
        _check(game, move, game.describe_move(move, short=True), short=True)
        full[_face(move)] = str(game.describe_move(move, NAMES[:game.players]))
        if move.get("card") is not None:   # as a phone that may not see the card reads it (an undo)
            _check_without_card(game, move)
    if not game.is_chance_node():   # a player reading the words can tell every move apart
        assert len(set(full.values())) == len(full), sorted(full.values())


@pytest.mark.parametrize("game_id,players,options", CONFIGS,
                         ids=[f"{g}-{n}-{'-'.join(o) or 'base'}" for g, n, o in CONFIGS])
def test_every_move_of_every_game_reads_in_both_languages(game_id, players, options):
    game = game_class(game_id)(players, options)
    rng = random.Random(5)
    while not game.is_over():
        _word_every_move(game)
        if game.is_chance_node():
            move = game.sample_chance(rng)   # a whole shuffle or deal too: summarised, never ids
            for short in (False, True):
                _check(game, move, game.describe_move(move, short=short), short)
        else:
            move = rng.choice(game.legal_moves())
        game.apply(move)


def test_full_and_short_forms_name_the_seat_and_the_card():
    game = game_class("wheel")(3, {"single_card_fall": True})
    game.apply(game.sample_chance(random.Random(2)))
    take = game.legal_moves()[0]
    card = take.card   # e.g. W-R5, "red 5 (Latins)" / "赤5(ラテン人)"
    from companion.catalogue import card as catalogue_card
    name = catalogue_card(card)
    full = game.describe_move(take, NAMES[:3])
    assert full == f"Ann takes {name.name}" and full.ja == f"Annが{name.ja}を取る"
    assert game.describe_move(take) == f"Player 1 takes {name.name}"
    short = game.describe_move(take, NAMES[:3], short=True)
    assert short == f"Take {name.name}" and short.ja == f"{name.ja}を取る"
    # a sequence: the same seat is not named twice, the second move is worded after the first
    both = game.describe_moves([take, Move.of(0, "keep")], NAMES[:3])
    assert both == f"Ann takes {name.name}, then keeps {name.name}"
    assert both.ja == f"Annが{name.ja}を取る、続いて{name.ja}を残す"


def test_chance_moves_read_as_what_the_table_did():
    hills = game_class("hills")(2, {"hidden_values": True})
    for seat, hill in ((0, 3), (1, 5), (0, 1), (1, 3)):   # blue arrives at hill 3: it turns up
        hills.apply(Move.of(seat, "place", hill=hill, card=None))
    reveal = Move.of(CHANCE, "reveal", hill=3, red=["H-R7"], blue=["H-B2"])
    assert reveal in hills.legal_moves()
    words = hills.describe_move(reveal, ["Ann", "Ben"])
    assert words == "Hill 3 turned face up: red 7; blue 2" and words.ja == "丘3が公開された: 赤 7、青 2"
    prussia = game_class("prussia")(2)
    deal = prussia.sample_chance(random.Random(1))   # 26 cards named: one line, no ids
    assert prussia.describe_move(deal) == "13 cards dealt to each player"


def test_a_move_the_game_does_not_know_gets_generic_words_without_ids():
    game = game_class("spartacus")(3)
    odd = Move.of(0, "swap", card="S-R5", cards=["S-R1", "S-R2", "S-R3", "S-R4", "S-R6"])
    words = game.describe_move(odd, NAMES[:3])
    assert "red 5" in words and "5 cards" in words and not RAW.search(words + words.ja)
    assert JAPANESE.search(words.ja)


@pytest.mark.parametrize("verb,expected", [("take", "takes"), ("pass", "passes"), ("carry", "carries"),
                                           ("play", "plays"), ("touch", "touches")])
def test_third_person(verb, expected):
    assert third_person(f"{verb} it") == f"{expected} it"


# ---------------------------------------------------------------- the session's prompts
@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "t.db")


def test_a_choose_prompt_words_each_choice_in_both_languages(store):
    s = TableSession.create(store, "spartacus", 3, names=NAMES[:3])
    for v, m in enumerate([Move.of(0, "play", card="S-R5"), Move.of(1, "pass"),
                           Move.of(2, "play", card="S-G3")]):
        s.play(m, expected_version=v)
    out = s.observe({"trick": [], "won": [0, 0, 1]})   # Ann passed or played her banner
    assert out.prompt.kind == "choose"
    words = {(c["label"], c["ja"]) for c in out.prompt.choices if c["moves"]}
    assert words == {("Ann (red) plays red banner", "Ann(赤)が赤の軍旗を出す"),
                     ("Ann (red) passes", "Ann(赤)がパスする")}
    # stored words survive a reopen
    again = TableSession.open(store, s.id).prompts[0]
    assert {(c["label"], c["ja"]) for c in again.choices if c["moves"]} == words


def test_a_choice_of_several_moves_reads_as_one_sentence(store):
    s = TableSession.create(store, "prussia", 2, names=["Ann", "Ben"])
    s.play(Move.of(CHANCE, "deal"), expected_version=0)
    layout = {k: v for k, v in s.game.layout().items() if k not in ("pile", "discard", "hands")}
    layout["drawn"] = "P-S3"
    out = s.observe(layout)
    words = sorted((c["label"], c["ja"]) for c in out.prompt.choices if c["moves"])
    assert words == [("Ann draws from the pile, then ♠3 turned up from the pile",
                      "Annが山札から引く、続いて山札から♠3がめくられた"),
                     ("Ann plays ♠3", "Annが♠3を出す")]


def test_an_override_quotes_the_move_in_words(store):
    s = TableSession.create(store, "hills", 2, names=["Ann", "Ben"])
    s.play(Move.of(0, "place", hill=3, card=None), expected_version=0)
    s.play(Move.of(1, "place", hill=4, card=None), expected_version=1)
    layout = s.game.layout()
    layout["hills"][3]["red"] = ["B-HILLR"]     # Ann goes where Ben just placed: against the rules
    out = s.observe(layout)
    assert out.prompt.kind == "illegal"
    override = next(c for c in out.prompt.choices if c["id"] == "override")
    assert override["label"] == "House ruling: accept “Ann (red) places a face-down card at hill 4”"
    assert override["ja"] == "ハウスルール:「Ann(赤)が丘4に伏せカードを置く」を認める"


def test_a_sequence_the_rules_refuse_is_still_worded_in_full():
    game = game_class("spartacus")(3)
    moves = [Move.of(0, "play", card="S-R5"), Move.of(0, "play", card="S-R4"), Move.of(2, "pass")]
    words = game.describe_moves(moves, NAMES[:3])   # the second move is out of turn: no state after it
    assert words == "Ann (red) plays red 5, then plays red 4, then Chie (green) passes"
    assert words.ja == "Ann(赤)が赤5を出す、続いて赤4を出す、続いてChie(緑)がパスする"
    six = game.describe_moves([Move.of(0, "pass")] * 6)
    assert six.endswith(", and 2 more moves") and six.ja.endswith("、ほか2手")


def test_a_taken_back_chains_turn_names_whose_deck_and_counts_one_more_move():
    """Game night: a host's undo said "then A 4 turned up from player 3's deck, … and 1 more moves"."""
    game, rng = game_class("chains")(3), random.Random(1)
    game.apply(game.sample_chance(rng))   # the terminals laid out
    start = game.clone()
    moves = []
    for _ in range(5):   # a seat's turn-over, then the card it turned up (from its own deck)
        move = game.sample_chance(rng) if game.is_chance_node() else game.legal_moves()[0]
        moves.append(move)
        game.apply(move)
    words = start.describe_moves(moves, NAMES[:3])
    assert "then a " in words and "turned up from Ann's deck" in words, words
    assert "player 1" not in words and "プレイヤー1" not in words.ja and "Annの山札から" in words.ja
    assert words.endswith(", and 1 more move"), words
    assert start.describe_move(moves[1], NAMES[:3]).startswith("A"), "a sentence of its own begins with a capital"


def test_a_prussia_place_names_no_card_of_the_state_it_is_worded_in():
    """A place carries only its slot: its card was the state's card drawn. Worded again later (an undo
    reworded for a viewer who may not see a card, ``session.view.moves_words``) it named the card drawn
    at the time of reading: Ren's log said "Aki places ♣9 between Italy and France" for the ♦3 that Aki
    had placed (QA game night, session 10). Its words name no card."""
    game = game_class("prussia")(2, {})
    rng = random.Random(2)
    places = 0
    while not game.is_over() and places < 20:
        moves = game.legal_moves()
        for move in (m for m in moves if m.kind == "place"):
            places += 1
            words = game.describe_move(move, NAMES[:2])
            assert not re.search(r"[♠♥♦♣]|joker|ジョーカー", str(words) + words.ja), (str(words), words.ja)
        game.apply(game.sample_chance(rng) if game.is_chance_node() else rng.choice(moves))
    assert places >= 20
