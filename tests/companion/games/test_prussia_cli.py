"""Nation files, ``companion advise prussia``, ``companion bench prussia`` and the odds API."""
from __future__ import annotations

import copy
import json
import random

import pytest

from companion.catalogue import default_nations
from companion.cli import main
from companion.engine import GameError, Move
from companion.games.prussia import Game, odds
from benchmarks.prussia import decision_position
from companion.games.prussia_core import CENTRE, greedy_choice, load_nations
from tests.companion.games.prussia_positions import build, draw


def write(tmp_path, data, name="nations.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return str(path)


def edited(change):
    data = copy.deepcopy(default_nations())
    change(data["nations"])
    return data


BAD_FILES = [
    (edited(lambda ns: ns.pop(2)), "missing nation(s) of rank 3"),
    (edited(lambda ns: ns[4].update(strength=[5, 3, 2])), "Netherlands: needs 4 strengths (eras I–IV), got 3"),
    (edited(lambda ns: ns[0].update(strength=[3, "x", 4, 3])), "Bavaria: strength 'x' is not a number"),
    (edited(lambda ns: ns[0].update(strength=[3, True, 4, 3])), "Bavaria: strength True is not a number"),
    (edited(lambda ns: ns.pop(12)), "missing the centre nation 'prussia'"),
    (edited(lambda ns: ns[1].update(rank="Z")), "rank must be one of A, 2–10, J, Q, K, got 'Z'"),
    (edited(lambda ns: ns[1].update(rank="A", position=1)), "rank A appears twice"),
    (edited(lambda ns: ns[1].update(rank="A")), "rank A stands at position 1, not 2"),
    ('{"nations": [', "is not valid JSON (line 1"),
    ('[1, 2]', 'needs a list "nations"'),
]


@pytest.mark.parametrize("data,problem", BAD_FILES)
def test_bad_nations_files_name_the_problem(tmp_path, data, problem):
    path = write(tmp_path, data)
    with pytest.raises(GameError) as err:
        Game(1, {"nations": path})
    assert problem in str(err.value) and path in str(err.value)


def test_missing_nations_file(tmp_path):
    with pytest.raises(GameError) as err:
        load_nations(str(tmp_path / "nope.json"), "prussia")
    assert "cannot be read" in str(err.value)


def test_own_nations_table_changes_the_war(tmp_path):
    # example 5 with a stronger Denmark (20 in era II): now Britain surrenders
    path = write(tmp_path, edited(lambda ns: ns[6].update(strength=[3, 20, 2, 1])))
    g = build(1, {"nations": path}, era=1, slots={"5>6": "P-H5", "6>7": "P-C6", "7>8": "P-D8", "C-6": "P-SK"})
    draw(g, "P-S6")
    assert 6 not in g.table.alive and 7 in g.table.alive


def test_simulate_with_a_bad_nations_option_exits_with_a_message(tmp_path, capsys):
    path = write(tmp_path, edited(lambda ns: ns.pop(5)))
    assert main(["simulate", "prussia", "--option", f"nations={path}"]) == 2
    assert "missing nation(s) of rank 6" in capsys.readouterr().err


def test_simulate_both_player_counts_json(capsys):
    for players in ("1", "2"):
        assert main(["simulate", "prussia", "--players", players, "--seed", "1", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["game"] == "prussia" and out["events"][-1]["kind"] == "game_over"
        ruling = next(e for e in out["events"] if e["kind"] == "ruling")
        assert isinstance(ruling["data"]["steps"][0], dict)


def test_odds_on_a_decided_position():
    # 4th K: C-6 joins Britain → victory for sure; C-12 joins Austria → draw for sure
    g = build(alive=[3, 6, 12], era=3, kings=3)
    draw(g, "P-HK")
    table = odds(g, 5)
    assert table["C-6"]["victory"] == 1.0 and table["C-12"]["draw"] == 1.0
    with pytest.raises(GameError):
        odds(Game(2), 5)


def test_greedy_policy_prefers_the_strongest_ally_and_keeps_red_cards():
    t = build(alive=[3, 6, 12], era=3).table
    rng = random.Random(0)
    assert greedy_choice(t, "place", "P-HK", [(CENTRE, 3), (CENTRE, 6), (CENTRE, 12)], rng) == (CENTRE, 6)
    t.cards = {(CENTRE, 6): "P-HK", (3, 6): "P-C3"}
    assert greedy_choice(t, "joker", "P-JK1", [(CENTRE, 6), (3, 6)], rng) == (3, 6)
    assert t.cards == {(CENTRE, 6): "P-HK", (3, 6): "P-C3"}      # the trial choices were undone


def test_odds_policies_and_a_bad_policy():
    g = build(alive=[3, 6, 12], era=3, kings=3)
    draw(g, "P-HK")
    assert odds(g, 5, policy="random") == odds(g, 5, policy="greedy")    # no later decision here
    with pytest.raises(GameError) as err:
        odds(g, 5, policy="clever")
    assert "policy must be one of random, greedy" in str(err.value)


def test_odds_for_a_joker_choice_name_relation_cards():
    g = build(slots={"1>2": "P-C2", "C-3": "P-H3"})
    draw(g, "P-JK1")
    assert set(odds(g, 3)) == {"P-C2", "P-H3"}
    g.apply(Move.of(0, "discard", card="P-C2"))
    assert set(odds(g, 3)) == {"draw"}


def test_advise_command_json_and_text(tmp_path, capsys):
    game = decision_position()
    path = write(tmp_path, game.to_json(), "state.json")
    assert main(["advise", "prussia", "--state", path, "--samples", "40", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["odds"]) == {m.slot for m in game.legal_moves()}
    assert report["best"] in report["odds"] and report["decision"] == "place"
    assert set(report["choices"]) == set(report["odds"]) and "–" in report["choices"][report["best"]]
    assert main(["advise", "prussia", "--state", path, "--samples", "40", "--policy", "random"]) == 0
    out = capsys.readouterr().out
    assert "Best chance to win" in out and "where to place" in out and "at random" in out


def test_advise_with_a_bad_state_file(tmp_path, capsys):
    path = write(tmp_path, "{not json", "state.json")
    assert main(["advise", "prussia", "--state", path]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    path = write(tmp_path, {"game": "wheel", "players": 2, "moves": []}, "other.json")
    assert main(["advise", "prussia", "--state", path]) == 2
    assert "not 'prussia'" in capsys.readouterr().err


def test_advise_with_another_nations_file(tmp_path, capsys):
    game = decision_position()
    state = write(tmp_path, game.to_json(), "state.json")
    nations = write(tmp_path, edited(lambda ns: ns.pop(0)))
    assert main(["advise", "prussia", "--state", state, "--nations", nations]) == 2
    assert "missing nation(s) of rank A" in capsys.readouterr().err


def test_bench_runs_and_reports_figures(capsys):
    assert main(["bench", "prussia", "--games", "20", "--samples", "5", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["core_playouts_per_s"] > 0 and figures["advise_choices"] >= 2
