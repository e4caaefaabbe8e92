"""The command line: games listing, simulations (same seed, same game), clear errors."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.i18n import set_cli_lang
from companion.games import GAME_IDS

ROOT = Path(__file__).resolve().parents[2]


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_games_lists_all_five_with_options(capsys):
    games = run_json(capsys, "games", "--json")
    assert [g["id"] for g in games] == list(GAME_IDS) == ["wheel", "hills", "spartacus", "prussia", "chains"]
    assert all(g["implemented"] for g in games)
    hills = next(g for g in games if g["id"] == "hills")
    assert {"same_value_ban", "banners", "highest_card", "open_play"} <= {o["name"] for o in hills["options"]}


@pytest.mark.parametrize("argv", [
    ["wheel", "--players", "4"], ["hills", "--players", "2", "--option", "banners=true"],
    ["spartacus", "--players", "5", "--option", "joker=true"], ["chains", "--players", "4"],
    ["chains", "--players", "1"], ["prussia", "--players", "1"], ["prussia", "--players", "2"]])
def test_simulate_plays_a_full_game_deterministically(capsys, argv):
    first = run_json(capsys, "simulate", *argv, "--seed", "7", "--json")
    again = run_json(capsys, "simulate", *argv, "--seed", "7", "--json")
    assert first == again
    assert {"game", "players", "moves", "events", "scores", "winner"} <= set(first)
    assert first["game"] == argv[0] and len(first["scores"]) == int(argv[2])
    assert first["moves"] and any(e["kind"] == "game_over" for e in first["events"])
    other = run_json(capsys, "simulate", *argv, "--seed", "8", "--json")
    assert other["moves"] != first["moves"]


@pytest.mark.parametrize("game,players", [("wheel", 3), ("hills", 2), ("spartacus", 3), ("prussia", 1), ("chains", 2)])
def test_simulate_prints_each_move_in_words(capsys, game, players):
    assert main(["simulate", game, "--players", str(players), "--seed", "2"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line[:5].strip().rstrip(".").isdigit()]
    assert len(lines) > 5
    # "Player 1 takes red 5 (Latins)", never the raw "P1 take card=W-R5"
    assert not [line for line in lines if "=" in line or "_" in line], lines[:5]


def test_series_on_the_command_line(capsys):
    out = run_json(capsys, "simulate", "hills", "--rounds", "2", "--seed", "1", "--json")
    assert len(out["games"]) == 2 and out["totals"] == [sum(s) for s in zip(*out["games"])]
    assert [r["options"]["start_player"] for r in out["records"]] == [0, 1]


@pytest.mark.parametrize("argv, words", [
    (["simulate", "wheel", "--players", "9"], "2–5 players"),
    (["simulate", "hills", "--players", "3"], "Seven Hills of Rome is for 2 players, got 3"),   # not "2–2"
    (["--lang", "ja", "simulate", "hills", "--players", "3"], "ローマ七丘は2人用です"),
    (["simulate", "wheel", "--option", "banners=true"], "no option 'banners'"),
    (["simulate", "hills", "--option", "banners=maybe"], "true or false"),
    (["simulate", "spartacus", "--players", "3", "--option", "joker=true", "--option", "no_banners=true"], "joker"),
    (["simulate", "spartacus", "--players", "3", "--option", "joker_penalty=true"], "needs option joker"),
])
def test_bad_requests_exit_2_with_a_message(capsys, argv, words):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def test_own_nations_file(capsys, tmp_path):
    table = json.loads((ROOT / "companion/data/nations.json").read_text())
    table["nations"][2]["strength"] = [1, 1, 1, 1]      # a weak France
    path = tmp_path / "nations.json"
    path.write_text(json.dumps(table, ensure_ascii=False))
    out = run_json(capsys, "simulate", "prussia", "--nations", str(path), "--seed", "1", "--json")
    assert out["options"]["nations"] == str(path)
    path.write_text("{ not json")
    assert main(["simulate", "prussia", "--nations", str(path)]) == 2
    assert "nations" in capsys.readouterr().err


def test_console_entry_point_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "companion.cli", "games"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Wheel of History" in done.stdout and "輪る七年戦争" in done.stdout


def test_python_dash_m_companion_is_the_command():
    done = subprocess.run([sys.executable, "-m", "companion", "games"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Seven Hills of Rome" in done.stdout


def test_a_reader_that_stops_early_ends_the_command_quietly():
    # `companion simulate … | head -1`: the pipe closes long before a 10-player game is printed
    proc = subprocess.Popen([sys.executable, "-m", "companion", "simulate", "chains", "--players", "10",
                             "--json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"{"
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_bench_help_says_what_each_benchmark_measures(capsys):
    """`companion bench --help` names every benchmark with what it measures, and `companion bench`
    alone answers with that list (not argparse's "NAME, ARGS are required")."""
    from benchmarks import BENCHES
    with pytest.raises(SystemExit) as done:
        main(["bench", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and line.split()}
    assert set(BENCHES) <= set(lines) and "win rates" in lines["players"] and "phone" in lines["web"]
    assert main(["bench"]) == 2
    err = capsys.readouterr().err
    assert "name a benchmark" in err and "required" not in err and all(f"  {n} " in err for n in BENCHES)
    try:
        with pytest.raises(SystemExit):
            main(["--lang", "ja", "bench", "--help"])
        assert "勝率" in capsys.readouterr().out
    finally:
        set_cli_lang("en")   # the next test's words in English


def test_games_in_japanese_counts_players_in_japanese(capsys):
    """`companion --lang ja games` said "2–5 players": its msgid sat inside an f-string, unextracted."""
    try:
        assert main(["--lang", "ja", "games"]) == 0
        out = capsys.readouterr().out
        assert "歴史の車輪 — 2〜5人" in out and "ローマ七丘 — 2人" in out and "— 2–5 players" not in out
        # each option in the host form's Japanese words, not the engine's English help
        assert "variant" not in out and "seat that" not in out
        assert all(re.search(r"[\u3040-\u30ff\u4e00-\u9faf]", line.split("  ", 1)[1]) for line in out.splitlines() if "--option" in line)
    finally:
        set_cli_lang("en")
