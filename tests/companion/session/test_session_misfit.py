"""A Chains misfit the camera never saw: the one table state of a whole game that cannot be told
apart. A card turned over into the work area that does not fit ruins it, and the player moves the
work area with the misfit to the dead pile, face down. A camera that saw the misfit lying face up
(the table stops for it: tests/webui/test_camera_games.py plays that whole game from rendered
frames) reads it; one that missed that moment sees only the work area gone, and no later table
says which card it was (it lies face down in the dead pile for the rest of the game; the copies
of a value differ in the deck the session keeps). So the session asks exactly then, naming each
copy as it is printed on the card's side, "deck 1: 10 (2/10)", and one tap lets the camera play
on to the end."""
from __future__ import annotations

import random

from companion.engine import simulate
from companion.games import new_game
from companion.session.store import Store
from companion.session.table import TableSession
from tablesim.scripted import pre_ruling_layouts
from vision.table import layouts


def _observations(seed: int, missed_after: int):
    """The camera's observations of a one-player Chains game (its layout reader on the placed
    cards), with the misfit of the first ruined work area after move ``missed_after`` not seen.
    Returns (moves, [(observation, moves made)], index of the move whose misfit was missed)."""
    moves = [m for m, _ in simulate(new_game("chains", 1), seed).turns]
    replay, shown, last, missed = new_game("chains", 1), [], None, None
    for n, move in enumerate(moves):
        before = replay.layout()
        events = replay.apply(move)
        pre = pre_ruling_layouts("chains", before, replay.layout(), events)
        if pre and missed is None and n >= missed_after:
            pre, missed = [], n
        for layout in pre + [replay.layout()]:
            now = layouts.knowable("chains", layout, 1)
            if now != last:
                last = now
                placed = layouts.place("chains", layout, 1, random.Random(seed))
                shown.append((layouts.read("chains", layouts.scene_from_placements(placed), 1), n + 1))
    return moves, shown, missed


def test_a_misfit_never_seen_is_asked_once_and_one_tap_plays_on(tmp_path):
    moves, shown, missed = _observations(2, 50)
    assert missed is not None
    s = TableSession.create(Store(tmp_path / "misfit.db"), "chains", 1)
    asked = []
    for obs, made in shown:
        out = s.observe(obs)
        if out.kind == "prompt":
            assert out.prompt.kind == "choose"
            asked.append(made)
            truth = [m.to_json() for m in moves[len(s.game.log):made]]
            tap = [c for c in out.prompt.choices if c["moves"] == truth]
            labels = [c["label"] for c in out.prompt.choices]
            assert len(tap) == 1 and len(set(labels)) == len(labels)     # every copy told apart
            assert "(deck 1: " in tap[0]["label"] and "(デッキ1: " in tap[0]["ja"]
            s.answer(out.prompt.id, tap[0]["id"], by="host", expected_version=s.version)
    assert asked == [missed + 1]                           # exactly then, and only then
    assert [m.to_json() for m in s.game.log] == [m.to_json() for m in moves]
    assert s.is_over()
    taps = [kind for _, kind, _, by in s.store.entries(s.id) if by != "camera"]
    assert taps == ["answer"]                              # one tap; every other move the camera's


def test_the_same_game_with_the_misfit_seen_asks_nothing(tmp_path):
    moves, shown, missed = _observations(2, len(simulate(new_game("chains", 1), 2).turns))
    assert missed is None
    s = TableSession.create(Store(tmp_path / "seen.db"), "chains", 1)
    assert all(s.observe(obs).kind != "prompt" for obs, _ in shown)
    assert [m.to_json() for m in s.game.log] == [m.to_json() for m in moves] and s.is_over()
