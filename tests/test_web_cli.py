"""``companion serve``'s demo (a simulated game fed to the session as observations) and the web
benchmark at a small load."""
from __future__ import annotations

import importlib.util
import json

import pytest

from companion.cli import build_parser, main
from tests.web_helpers import make_app
from webui import bench
from webui.demo import DemoDriver, demo_table, simulated_observations, wait_until


def test_serve_is_a_command():
    args = build_parser().parse_args(["serve", "--demo", "hills", "--port", "0", "--lan"])
    assert args.demo == "hills" and args.port == 0 and args.lan
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--demo", "wheel", "--video", "x.mp4"])


@pytest.mark.skipif(importlib.util.find_spec("vision.pipeline") is not None,
                    reason="the vision pipeline is installed")
def test_camera_without_the_vision_pipeline_says_so(capsys):
    assert main(["serve", "--video", "table.mp4", "--port", "0"]) == 2
    assert "not available" in capsys.readouterr().err


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
    assert "applied" in driver.outcomes          # moves came in as observations, not only taps
    st = tables.get(s.id).state()
    assert st["is_over"] and st["series"]["games"] == [st["scores"]]


def test_bench_small_load_has_no_failures(capsys):
    assert bench.main(["--tables", "2", "--phones", "2", "--seconds", "2", "--rate", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["moves"] >= 4 and report["updates_measured"] == report["moves"] * 2
    assert report["failed_requests"] == 0 and report["view_p95_ms"] > 0
