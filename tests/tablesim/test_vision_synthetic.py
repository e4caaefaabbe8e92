"""Synthetic camera frames: the printed cards, where the plan puts them, seen through a rough camera."""
from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from companion import catalogue as cat
from companion.games import new_game
from tablesim import synthetic
from vision.table import layouts
from vision.table.layouts import Placement


detect = synthetic.aruco_ids


@pytest.fixture(scope="module")
def hills_frames():
    return list(synthetic.frames_for_game("hills", 2, seed=4, px_per_mm=1.4, stills=2, hand_frames=1,
                                          max_moves=6))


def test_frames_follow_the_game_with_stills_and_hands(hills_frames):
    frames = hills_frames
    assert [f.kind for f in frames[:5]] == ["still", "still", "hand", "still", "still"]
    assert [f.state for f in frames if f.kind == "still"] == [s for s in range(7) for _ in range(2)]
    replay = new_game("hills", 2)
    for f in frames:
        assert f.image.shape == (1080, 1920, 3) and f.image.dtype == np.uint8
        assert len(f.moves) == f.state
        if f.kind == "still":   # the truth is the engine's layout after exactly these moves
            from companion.engine import Move
            g = new_game("hills", 2)
            for m in f.moves:
                g.apply(Move.from_json(m))
            assert f.layout == g.layout()
    assert replay.layout() == frames[0].layout
    assert frames[-1].placements == layouts.place("hills", frames[-1].layout, 2, random.Random(4))


def test_markers_of_visible_cards_are_found_and_nothing_else(hills_frames):
    for f in (hills_frames[-1], hills_frames[-4]):
        found = detect(f.image)
        truth = {cat.card(i).marker for i in f.visible}
        placed = {cat.card(p.shown_id).marker for p in f.placements}
        assert {cat.card(f"K-CAL{i}").marker for i in range(1, 5)} <= found
        assert len(found & truth) >= 0.9 * len(truth), sorted(truth - found)
        assert found <= placed, "a marker that is not on the table"


def test_a_hand_occludes_what_it_covers(hills_frames):
    hand = next(f for f in hills_frames if f.kind == "hand" and f.hand is not None and f.hand.any())
    still = next(f for f in hills_frames if f.kind == "still" and f.state == hand.state)
    assert hand.placements == still.placements
    covered = hand.hand > 0
    assert 0.005 < covered.mean() < 0.4
    diff = np.abs(hand.image.astype(int) - still.image.astype(int)).sum(axis=2)
    assert diff[covered].mean() > 4 * diff[~covered].mean() + 5
    assert set(hand.visible) <= set(still.visible)
    cam = hand.camera
    # a card under the palm: its markers project into the hand's mask and are not reported
    target = Placement("H-R1", True, (400.0, 340.0), 0.0, 0)
    image, mask = synthetic.render(cam, [target], seed=1, hand_at=(400.0, 340.0))
    assert cat.card("H-R1").marker not in detect(image)
    assert synthetic.visible_truth(cam, [target], mask) == []
    image, mask = synthetic.render(cam, [target], seed=1)
    assert mask is None and cat.card("H-R1").marker in detect(image)


def test_rendering_is_deterministic_by_seed():
    cam = synthetic.Camera.looking_at((1000.0, 620.0), 1.4, seed=7)
    cards = layouts.place("spartacus", {"trick": ["S-R9", "S-B5", "S-G2"], "won": [1, 2, 0], "out": []},
                          3, random.Random(1))
    a, _ = synthetic.render(cam, cards, seed=3, hand_at=(500.0, 300.0))
    b, _ = synthetic.render(synthetic.Camera.looking_at((1000.0, 620.0), 1.4, seed=7), cards, seed=3,
                            hand_at=(500.0, 300.0))
    c, _ = synthetic.render(cam, cards, seed=4, hand_at=(500.0, 300.0))
    other, _ = synthetic.render(synthetic.Camera.looking_at((1000.0, 620.0), 1.4, seed=8), cards, seed=3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.abs(a.astype(int) - other.astype(int)).mean() > 5


@pytest.mark.parametrize("scale", [1.2, 1.4])
def test_scale_and_perspective(scale):
    table = (800.0, 680.0)
    cam = synthetic.Camera.looking_at(table, scale, seed=1)
    pts = cam.project(np.array([(0.0, 340.0), (800.0, 340.0), (400.0, 0.0), (400.0, 680.0)]))
    across = np.linalg.norm(pts[1] - pts[0]) / 800.0
    down = np.linalg.norm(pts[3] - pts[2]) / 680.0
    assert abs(across - scale) < 0.06 * scale and abs(down - scale) < 0.06 * scale
    corners = cam.project(np.array([(0.0, 0.0), (800.0, 0.0), (800.0, 680.0), (0.0, 680.0)]))
    assert (corners >= 0).all() and (corners[:, 0] < 1920).all() and (corners[:, 1] < 1080).all()
    far, near = np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[2] - corners[3])
    assert near > far * 1.005, "the far edge should look shorter (perspective)"


def test_a_table_too_big_for_the_scale_says_what_to_do():
    with pytest.raises(ValueError, match=r"at most 1\.40 px/mm \(choose a smaller scale"):
        synthetic.Camera.looking_at(layouts.table_size("wheel", 4), 2.0)
    close = synthetic.Camera.looking_at(layouts.table_size("wheel", 4), 2.0, whole_table=False)
    corner = close.project(np.array([(0.0, 0.0)]))[0]
    assert corner[0] < 0 or corner[1] < 0     # the table's corner is out of view
    assert synthetic.max_px_per_mm((800.0, 680.0)) >= 1.4


def test_clutter_and_light_make_a_rough_table():
    cam = synthetic.Camera.looking_at((1000.0, 620.0), 1.4, seed=3)
    empty, _ = synthetic.render(cam, [], seed=0)
    plain, _ = synthetic.render(cam, [], seed=0, effects=synthetic.Effects(blur=0, noise=0, jpeg=0,
                                                                           clutter=False))
    assert detect(empty) == set()
    grey = cv2.cvtColor(plain, cv2.COLOR_BGR2GRAY).astype(float)
    assert grey.std() > 4                          # wood and uneven light, not a flat colour
    left, right = grey[:, :300].mean(), grey[:, -300:].mean()
    top, bottom = grey[:200].mean(), grey[-200:].mean()
    assert max(abs(left - right), abs(top - bottom)) > 1.0


def test_a_game_written_to_a_folder_replays_with_its_truth(tmp_path, capsys):
    import json
    out = tmp_path / "frames"
    assert synthetic.main(["spartacus", "--players", "3", "--out", str(out), "--moves", "2",
                           "--scale", "1.2", "--check"]) == 0
    assert "ArUco found" in capsys.readouterr().out
    truth = json.loads((out / "truth.json").read_text())
    files = sorted(p.name for p in out.glob("frame-*.jpg"))
    assert [f["file"] for f in truth["frames"]] == files and len(files) == 3 * 2 + 2
    assert truth["frames"][-1]["state"] == 2 and len(truth["frames"][-1]["moves"]) == 2
    assert cv2.imread(str(out / files[0])).shape == (1080, 1920, 3)
    bad = tmp_path / "never"
    with pytest.raises(SystemExit):
        synthetic.main(["spartacus", "--players", "9", "--out", str(bad)])
    assert "3–5 players" in capsys.readouterr().err
    assert not bad.exists()
