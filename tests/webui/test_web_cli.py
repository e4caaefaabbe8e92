"""``companion serve``'s demo (a simulated game fed to the session as observations) and the web
benchmark at a small load."""
from __future__ import annotations

import json
import random

import pytest

from companion.cli import build_parser, main
from tests.web_helpers import make_app
from benchmarks import web as bench
from tablesim.demo import DemoDriver, demo_table, simulated_observations, wait_until


def test_serve_is_a_command():
    args = build_parser().parse_args(["serve", "--demo", "hills", "--port", "0", "--lan"])
    assert args.demo == "hills" and args.port == 0 and args.lan
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--demo", "wheel", "--video", "x.mp4"])


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_serve_refuses_a_port_out_of_range(capsys, port):
    """A port past 65535 was cheroot's OverflowError traceback; now argparse says the range."""
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["serve", "--port", port])
    assert done.value.code == 2 and "from 0 to 65535" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--demo", "hills", "--players", "3"], ["--game", "wheel"], ["--players", "4"]])
def test_serve_refuses_game_and_players_without_a_camera(capsys, argv):
    """`./run demo --players 3` served a 4-player demo without a word: --game/--players belong to a camera."""
    assert main(["serve", "--port", "0", *argv]) == 2
    assert "--game and --players are for a camera source" in capsys.readouterr().err


def test_simulated_observations_are_layouts_until_the_end():
    layouts = list(simulated_observations("wheel", 3, {}, seed=1))
    assert len(layouts[0]["circle"]) == 25 and all(c is None for c in layouts[-1]["circle"]) is False
    assert sum(len(t) for t in layouts[-1]["taken"]) >= 5


@pytest.mark.parametrize("game", ["wheel", "hills", "spartacus", "prussia"])
def test_demo_plays_a_whole_game_through_the_session(tmp_path, game):
    app = make_app(tmp_path)
    tables = app.extensions["tables"]
    s = demo_table(tables, game)
    driver = DemoDriver(tables, s.id, interval=0.0, pause_after_game=30).start()
    try:
        assert wait_until(lambda: tables.get(s.id).game.is_over(), 60)
    finally:
        driver.stop()
        driver.thread.join(30)
    assert "applied" in driver.outcomes          # moves came in as observations, not only taps
    st = tables.get(s.id).state()
    assert st["is_over"] and st["series"]["games"] == [st["scores"]]


def test_bench_small_load_has_no_failures(capsys):
    assert bench.main(["--tables", "2", "--phones", "2", "--seconds", "2", "--rate", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["moves"] >= 4 and report["updates_measured"] == report["moves"] * 2
    assert report["failed_requests"] == 0 and report["view_p95_ms"] > 0


def test_camera_frames_reach_the_host_screen(tmp_path):
    import cv2
    import numpy as np

    from webui.camera.camera import CameraFeed
    folder = tmp_path / "frames"
    folder.mkdir()
    rng = np.random.default_rng(1)
    for i in range(3):   # a table with no calibration sheet in view: frames, but no observation
        cv2.imwrite(str(folder / f"f{i}.jpg"), rng.integers(0, 255, (540, 960, 3), dtype=np.uint8))
    app = make_app(tmp_path)
    tables = app.extensions["tables"]
    s = tables.create("wheel", 3, names=["A", "B", "C"], options={})
    feed = CameraFeed(tables, s.id, images=str(folder))
    app.config["FRAME_SOURCE"] = feed.frame
    feed.start()
    assert feed.done.wait(60) and feed.error is None and feed.seen == 3
    client = app.test_client()
    r = client.get(f"/api/tables/{s.id}/camera", headers={"X-Table-Token": tables.join(s.id, "phone")})
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    assert feed.outcomes == [] and tables.get(s.id).version == 0
    assert feed.frame("another-table") is None


def test_serve_with_a_camera_needs_the_game(capsys):
    assert main(["serve", "--images", "nowhere", "--port", "0"]) == 2
    assert "--game" in capsys.readouterr().err


@pytest.mark.slow
def test_a_filmed_game_reaches_the_phones(tmp_path):
    """Frames of a real table layout (vision's own test renderer) → pipeline → session → state."""
    import cv2

    from companion.engine import simulate
    from companion.games import game_class
    from tests.vision.test_vision_detect import camera, render
    from vision.pipeline import default_layout
    from vision.table import layouts
    from webui.camera.camera import CameraFeed

    cls = game_class("wheel")
    record = simulate(cls(3), seed=1)
    replay = cls(3)
    width, height = layouts.table_size("wheel", 3)
    folder = tmp_path / "frames"
    folder.mkdir()
    n = 0
    for k, (move, _) in enumerate(record.turns[:3]):          # the circle laid, then two takes
        replay.apply(move)
        placed = sorted(layouts.place("wheel", replay.layout(), 3, random.Random(k)), key=lambda p: p.z)
        cards = [(p.card_id, p.face_up, p.centre, p.angle_deg) for p in placed
                 if not p.card_id.startswith("K-CAL")]
        # four frames a state: the first after a change moves; a card first read by one marker is
        # held back until a second still frame reads it again; a change stands after two still frames
        for _ in range(4):
            frame = render(cards, px_per_mm=1.3, seed=n, layout=default_layout("wheel", 3),
                           cam=camera(1.3, centre_mm=(width / 2, height / 2)))
            cv2.imwrite(str(folder / f"f{n:03d}.jpg"), frame)
            n += 1
    app = make_app(tmp_path)
    tables = app.extensions["tables"]
    s = tables.create("wheel", 3, names=["A", "B", "C"], options={})
    feed = CameraFeed(tables, s.id, images=str(folder)).start()
    assert feed.done.wait(120) and feed.error is None
    st = tables.get(s.id).state()
    assert st["layout"] == replay.layout() and feed.outcomes.count("applied") == 3
    # each move the camera applied keeps its picture of the table, small: the finished game's
    # replay shows it beside the move
    from companion.session.store import FRAME_BYTES
    versions = [m["version"] for m in st["moves"]]
    assert tables.store.frame_versions(s.id) == set(versions)
    assert all(tables.store.frame(s.id, v)[:2] == b"\xff\xd8" and len(tables.store.frame(s.id, v)) <= FRAME_BYTES
               for v in versions)
    tables.get(s.id).end_game(expected_version=st["version"])
    client = app.test_client()
    client.set_cookie(f"tch_{s.id}", tables.host_token(s.id))
    page = client.get(f"/host/{s.id}/replay?step=2").get_data(as_text=True)
    assert f"/host/{s.id}/replay/frame/{versions[1]}.jpg" in page
    r = client.get(f"/host/{s.id}/replay/frame/{versions[1]}.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data == tables.store.frame(s.id, versions[1])


@pytest.mark.slow
def test_demo_shows_the_synthetic_camera_frame(tmp_path):
    from tablesim.demo import DemoCamera
    app = make_app(tmp_path)
    tables = app.extensions["tables"]
    s = demo_table(tables, "wheel")
    camera = DemoCamera(tables, s.id)
    app.config["FRAME_SOURCE"] = camera.frame
    camera.start()
    try:
        assert wait_until(lambda: camera.frames >= 1, 90)
    finally:
        camera.stop()
        camera.thread.join(60)   # not inside OpenCV when the interpreter exits
    r = app.test_client().get(f"/api/tables/{s.id}/camera",
                              headers={"X-Table-Token": tables.join(s.id, "phone")})
    assert r.status_code == 200 and r.data[:2] == b"\xff\xd8" and 10_000 < len(r.data) < 400_000


def test_the_demo_never_touches_the_users_own_history(tmp_path):
    import os
    import re
    import subprocess
    import sys
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--demo", "wheel", "--port", "0",
                             "--interval", "60"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    out = ""
    try:
        for line in proc.stdout:
            out += line
            if "Press Ctrl+C" in line:
                break
    finally:
        proc.terminate()
        proc.wait(30)
    demo_db = re.search(r"Demo database \(deleted when the demo stops\): (\S+)", out)
    assert demo_db, out
    assert not (tmp_path / "data" / "table-companion" / "companion.db").exists()
    assert not os.path.exists(demo_db.group(1))   # gone with the demo
