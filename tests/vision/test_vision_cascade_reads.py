"""A card in a cascade or fan whose marker is missed just after a card is laid on it stays on the table
(Chains seed 1, state 199 of the games bench); a card covered whole by the card laid is dropped."""
from __future__ import annotations

import copy
import random

import pytest

from companion.engine import simulate
from companion.games import game_class, new_game
from tablesim import synthetic
from vision.table import layouts
from vision.table.layouts import chains  # noqa: F401  (layouts.chains.terminal_point)
from vision.pipeline import Pipeline

PLAYERS = 2


def _cascade_step() -> tuple[dict, dict]:
    """Two states of a Chains game: seat 0's work cascade of ≥ 4 cards, then one more laid on it."""
    cls = game_class("chains")
    record = simulate(cls(PLAYERS), 1)
    game = cls(PLAYERS)
    before = game.layout()
    for move, _ in record.turns:
        game.apply(move)
        after = game.layout()
        old, new = before["players"][0]["work"], after["players"][0]["work"]
        if len(old) >= 4 and new[:-1] == old and before["terminals"] == after["terminals"]:
            return before, after
        before = after
    raise AssertionError("no cascade step in the simulated game")


def _missing(pipeline: Pipeline, card_id: str) -> None:
    """From now on the pipeline's marker search misses ``card_id`` (a read lost to blur)."""
    detect = pipeline.detector.detect

    def without(grey, boxes=None, calibrate=None):
        found = detect(grey, boxes, calibrate)
        found.sightings = [s for s in found.sightings if s.card_id != card_id]
        return found
    pipeline.detector.detect = without


@pytest.fixture(scope="module")
def step():
    before, after = _cascade_step()
    cam = synthetic.Camera.looking_at(layouts.table_size("chains", PLAYERS), 1.4, seed=1)
    return before, after, cam


def _watch(cam, first: list, then: list, missed: str) -> tuple[Pipeline, dict | None]:
    p = Pipeline("chains", PLAYERS)
    for i in range(3):
        p.step(synthetic.render(cam, first, seed=i)[0])
    assert missed in [c.card_id for c in p.process(synthetic.render(cam, first, seed=3)[0]).cards]
    _missing(p, missed)
    for i in range(3):
        p.step(synthetic.render(cam, then, seed=10 + i)[0])
    return p, p.last_observation


def test_a_cascade_card_missed_under_a_new_card_stays(step):
    before, after, cam = step
    first = layouts.place("chains", before, PLAYERS, random.Random(5))
    then = layouts.place("chains", after, PLAYERS, random.Random(5))
    under = before["players"][0]["work"][-1]          # its strip still shows beside the new card
    p, observation = _watch(cam, first, then, under)
    assert observation["players"][0]["work"] == after["players"][0]["work"]
    assert under in [c.card_id for c in p.tracker.cards()]


def test_a_card_covered_whole_by_the_card_laid_is_dropped(step):
    before, after, cam = step
    first = layouts.place("chains", before, PLAYERS, random.Random(5))
    top = first[max(i for i, q in enumerate(first) if q.card_id == before["players"][0]["work"][-1])]
    new = after["players"][0]["work"][-1]
    # the new card laid exactly over the last one, which is taken away underneath (a swap)
    then = [q for q in first if q is not top and q.card_id != new] + [layouts.Placement(new, True, top.centre, top.angle_deg, top.z + 1)]
    p, observation = _watch(cam, first, then, top.card_id)
    assert top.card_id not in [c.card_id for c in p.tracker.cards()]
    assert observation["players"][0]["work"] == before["players"][0]["work"][:-1] + [new]


def test_a_terminal_taken_from_under_its_neighbours_is_dropped():
    """Chains, 6 players: a terminal card shows only a corner strip (the next card of its row and
    the next row lie over it); taken away, that strip shows the card below, so it is dropped."""
    players = 6
    game = new_game("chains", players)
    rng = random.Random(1)
    while game.is_chance_node():
        game.apply(game.sample_chance(rng))
    before = game.layout()
    after = copy.deepcopy(before)
    after["terminals"][0][7] = {"state": "taken"}          # seat 1's 8: under its 9 and seat 2's row
    taken = before["terminals"][0][7]["card"]
    cam = synthetic.Camera.looking_at(layouts.table_size("chains", players), 1.7, seed=2)
    first = layouts.place("chains", before, players, random.Random(3))
    then = [p for p in first if p.card_id != taken]
    p = Pipeline("chains", players)
    for i in range(3):
        p.step(synthetic.render(cam, first, seed=i)[0])
    assert taken in [c.card_id for c in p.tracker.cards()]
    p.step(synthetic.render(cam, first, seed=5, hand_at=layouts.chains.terminal_point(0, 8, players))[0])
    for i in range(3):
        p.step(synthetic.render(cam, then, seed=10 + i)[0])
    assert taken not in [c.card_id for c in p.tracker.cards()]
    assert p.last_observation["terminals"] == layouts.knowable("chains", after, players)["terminals"]
