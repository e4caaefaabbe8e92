"""Properties of 輪る七年戦争 over many seeds and options: conservation, termination, replay, layout."""
from __future__ import annotations

import itertools
import json
import random

import pytest

from companion.engine import CHANCE, Game as BaseGame, Move, freeze, simulate
from companion.games.prussia import Game, odds
from companion.games.prussia_core import RESULTS, SPECIAL, deck

OPTION_SETS = [dict(zip(("jokers", "centre", "alliance", "victory_strength"), values))
               for values in itertools.product((1, 2), ("prussia", "german_empire"), ("direct", "chain"),
                                               ("alliance", "alone"))]


def check_state(game: Game) -> None:
    """Every playing card is in exactly one place; the clock and slots are consistent."""
    where = game.cards_everywhere()
    cards = deck(game.options["jokers"])
    assert sorted(where.elements()) == sorted(cards), "a card was lost or duplicated"
    t = game.table
    lay = game.layout()
    standing = [c for c in lay["clock"].values() if c]
    assert sorted(standing) == sorted(f"P-N{r}" for r in t.alive)
    for p in SPECIAL:
        r = t.special[p]
        assert r is None or (r in t.alive and t.pos[r] == p)
    for key in t.cards:
        assert key in t.all_slots(), "a relation card lies in a slot that no longer exists"
    assert lay["pile"] == game.pile_size() >= 0 and lay["discard"] == len(t.discard)
    if game.players == 2:
        assert lay["hands"] == [len(h) + n for h, n in zip(game.hands, game.hidden)]


def play(players: int, options: dict, seed: int, hidden_deal: bool = False) -> Game:
    """A random game, checking the invariants after every move."""
    game, rng = Game(players, options), random.Random(seed)
    if hidden_deal:
        game.apply(Move.of(CHANCE, "deal"))
    limit = 3 * len(deck(game.options["jokers"])) + 10
    while not game.is_over():
        assert len(game.log) < limit, "the game did not end"
        move = game.sample_chance(rng) if game.is_chance_node() else rng.choice(game.legal_moves())
        game.apply(move)
        check_state(game)
    return game


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(map(str, o.values())))
@pytest.mark.parametrize("players", [1, 2])
def test_random_games_conserve_cards_and_end(players, options):
    for seed in range(3):
        game = play(players, options, seed)
        assert game.result() in RESULTS
        if players == 1:
            assert game.scores() == [RESULTS.index(game.result())]
        else:
            assert sorted(game.scores()) == [0, 1]


def test_two_player_games_with_a_deal_nobody_saw():
    for seed in range(6):
        game = play(2, {}, seed, hidden_deal=True)
        assert game.result() in RESULTS and sum(game.hidden) + game.pile_size() == len(game.table.pile)


def test_solo_results_cover_several_outcomes():
    results = {play(1, {}, seed).result() for seed in range(40)}
    assert {"defeat", "victory"} <= results


@pytest.mark.parametrize("players", [1, 2])
def test_json_round_trip_and_undo(players):
    record = simulate(Game(players), 11)
    game = record.game
    again = Game.from_json(game.to_json())
    assert again == game and freeze(again.layout()) == freeze(game.layout())
    before = Game.replay(players, game.options, game.log[:-1])
    game.undo()
    assert game == before


def test_engine_simulate_plays_both_player_counts_over_seeds():
    for seed in range(10):
        for players in (1, 2):
            record = simulate(Game(players, {"start_player": seed % players}), seed)
            assert record.game.is_over()
            json.dumps(record.to_json())
            for seat in range(players):
                json.dumps(record.game.player_view(seat))
            kinds = {e.kind for _, evs in record.turns for e in evs}
            assert "game_over" in kinds and "ruling" in kinds


def test_explanations_are_bilingual_everywhere():
    record = simulate(Game(1), 4)
    for _, events in record.turns:
        for e in events:
            assert e.text and e.ja, e


def test_odds_are_probabilities_for_every_choice_and_reproducible():
    game, rng = Game(1), random.Random(2)
    while not (game.phase == "place" and len(game.options_now) > 1):
        game.apply(game.sample_chance(rng) if game.is_chance_node() else rng.choice(game.legal_moves()))
    table = odds(game, 60, seed=3)
    assert set(table) == {m.slot for m in game.legal_moves()}
    for probs in table.values():
        assert set(probs) == set(RESULTS) and abs(sum(probs.values()) - 1) < 1e-9
    assert odds(game, 60, seed=3) == table
    assert isinstance(game, BaseGame) and game.phase == "place"   # odds left the game untouched
    check_state(game)
