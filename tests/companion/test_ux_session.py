"""Issue 14, a first game that feels finished: what the session and the command line say.

Point 1 (advise reads the files the product writes), 2 (no open prompt once a game is over),
3 (a tie ended early reads as a draw), 4 (names, never P1/P2) and 10 (``session show`` from the
start, player counts in words).
"""
from __future__ import annotations

import json
import random

import pytest

from companion.cli import main
from companion.engine import Move
from companion.session import Store, TableSession
from companion.session.table import name_seats, verdict


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "ux.db"))


def play_to_the_end(s: TableSession, seed: int, limit: int = 2000) -> None:
    """Random legal moves (and chance) tapped in until the game is over, answering nothing."""
    rng = random.Random(seed)
    for _ in range(limit):
        if s.is_over():
            return
        game = s.game
        move = game.sample_chance(rng) if game.is_chance_node() else rng.choice(s.legal_moves())
        s.play(move, by="test", expected_version=s.version)
    raise AssertionError("the game did not end")


# ----------------------------------------------------------------- point 1: advise reads our files
def prussia_at_a_decision(store) -> TableSession:
    s = TableSession.create(store, "prussia", 1, names=["Ann"])
    rng = random.Random(3)
    while s.game.phase not in ("place", "joker"):
        game = s.game
        move = game.sample_chance(rng) if game.is_chance_node() else rng.choice(s.legal_moves())
        s.play(move, by="test", expected_version=s.version)
    return s


@pytest.mark.parametrize("command", [["session", "export"], ["session", "show", "--json"]])
def test_advise_reads_what_session_export_and_show_write(store, tmp_path, capsys, command):
    s = prussia_at_a_decision(store)
    code, out, err = run(capsys, *command[:2], s.id, *command[2:], "--db", str(store.path))
    assert code == 0, err
    saved = tmp_path / "game.json"
    saved.write_text(out, encoding="utf-8")
    code, out, err = run(capsys, "advise", "prussia", "--state", str(saved), "--samples", "20", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["decision"] == s.game.phase and len(report["odds"]) == len(s.legal_moves())


def test_advise_help_names_the_files_in_user_words(capsys):
    with pytest.raises(SystemExit):
        main(["advise", "--help"])
    out = capsys.readouterr().out
    assert "session export" in out and "session show" in out


def test_prussia_docs_give_a_relative_advise_example():
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "docs" / "prussia.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if "advise prussia" in line]
    assert lines and not any("/work/" in line or "/home/" in line for line in lines), lines


# ----------------------------------------------------------------- point 2: nothing open at the end
@pytest.mark.parametrize("seed", [1, 2, 5])
def test_spartacus_played_to_the_end_leaves_no_prompt(store, seed):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    play_to_the_end(s, seed)
    assert s.prompts == [] and s.state()["prompts"] == []
    again = TableSession.open(store, s.id)   # rebuilt from the log: the same
    assert again.prompts == []


def test_a_ruling_mid_game_still_asks(store):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    for move in ([0, "play", "S-R5"], [1, "pass"], [2, "pass"]):
        params = {"card": move[2]} if len(move) > 2 else {}
        s.play(Move.of(move[0], move[1], **params), expected_version=s.version)
    assert [p.kind for p in s.prompts] == ["ruling"]
    assert "Ann (red)" in s.prompts[0].text and "P1" not in s.prompts[0].text


# ----------------------------------------------------------------- point 3: a tie reads as a draw
def test_verdict_words():
    assert verdict(["Ann", "Ben", "Chie"], [0, 1, 2])[0] == "Nobody is ahead: a draw."
    assert verdict(["Ann", "Ben", "Chie"], [0, 2])[0] == "Shared win: Ann, Chie."
    assert verdict(["Ann", "Ben"], [1]) == ("Ben wins.", "Benの勝利。")


def test_session_show_of_a_tie_ended_early_says_draw(store, capsys):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    s.end_game(expected_version=s.version)
    code, out, _ = run(capsys, "session", "show", s.id, "--db", str(store.path))
    assert code == 0 and "a draw" in out and "Ann, Ben, Chie wins" not in out


# ----------------------------------------------------------------- point 4: names, never P1
def test_name_seats():
    names = ["Ann", "Ben"]
    assert name_seats("Trick won by P1 (red): P2 passes.", names) == "Trick won by Ann (red): Ben passes."
    assert name_seats("It is player 2's turn. Player 1 starts.", names) == "It is Ben's turn. Ann starts."
    assert name_seats("P1(赤)がトリックを獲得。プレイヤー2の手番", names) == "Ann(赤)がトリックを獲得。Benの手番"
    assert name_seats("P-H8 and C02-9-5 and P3", names) == "P-H8 and C02-9-5 and P3"   # ids and unknown seats stay


def test_a_seat_named_with_brackets_takes_its_colour_inside_them():
    """Spartacus's log said "Companion 2 (good) (green) plays green 8" (seen at the session-8 evening):
    a name ending in brackets takes the colour inside them, in the events and in the moves' words."""
    from companion.games import game_class
    names = ["Ann", "Companion 2 (good)", "コンパニオン2(中級)"]
    assert name_seats("P2 (green) plays green 8. P1 (red) passes.", names) == \
        "Companion 2 (good, green) plays green 8. Ann (red) passes."
    assert name_seats("P3(緑)が緑8を出す。P1(赤)", names) == "コンパニオン2(中級、緑)が緑8を出す。Ann(赤)"
    for game in ("spartacus", "hills"):
        label = game_class(game)(3 if game == "spartacus" else 2, {}).seat_label(1, names)
        assert "(good, " in label and ") (" not in label and "(中級、" not in label.ja
        assert label.endswith(")") and label.count("(") == 1 and label.ja.count("(") == 1


@pytest.mark.parametrize("game, players", [("spartacus", 3), ("wheel", 3), ("chains", 2)])
def test_events_and_final_scores_use_the_names(store, capsys, game, players):
    names = ["Ann", "Ben", "Chie"][:players]
    s = TableSession.create(store, game, players, names=names)
    play_to_the_end(s, 4)
    texts = [e["text"] + " " + e["ja"] for e in s.history()]
    assert not [t for t in texts if name_seats(t, ["X"] * 9) != t], "a seat number instead of a name"
    final = [e for e in s.history() if e["kind"] == "game_over"]
    assert final and "Ann" in final[-1]["text"]
    code, out, _ = run(capsys, "session", "show", s.id, "--db", str(store.path))
    assert code == 0 and "P1" not in out and "Player 1" not in out and "Ann" in out


# ----------------------------------------------------------------- point 10: the whole log
def test_session_show_starts_at_the_start_and_ends_with_the_winner(store, capsys):
    s = TableSession.create(store, "wheel", 3, names=["Ann", "Ben", "Chie"])
    play_to_the_end(s, 2)
    assert len(s.history()) > 10   # more than `show` printed before
    code, out, _ = run(capsys, "session", "show", s.id, "--db", str(store.path))
    lines = out.splitlines()
    first = s.history()[0]["text"]
    assert code == 0 and any(line.endswith(first) for line in lines[:6]), lines[:6]
    assert f"v1: {first}" in out and len([line for line in lines if line.startswith("  v")]) == len(s.history())
    winners = ", ".join(s.names[w] for w in s.game.winners())
    assert lines[-1].startswith("game over (played to the end)") and winners.split(",")[0] in lines[-1]


def test_games_says_two_players_not_two_to_two(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0 and "2–2" not in out and "Seven Hills of Rome / ローマ七丘 — 2 players" in out


def test_a_spartacus_trick_taken_face_down_still_says_who_played_and_who_took_it(store):
    """Cards in a won trick lie face down, so the log may not name them; it said "A card that is face
    down now or in a hand (not shown here)." for every play and trick (seven lines of it after two
    tricks). It says who played a card and who took the trick, and still names no card."""
    from companion.session.view import HIDDEN_EVENT, Viewer, events_for
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    for move in ([0, "play", "S-R5"], [1, "play", "S-B3"], [2, "pass"], [0, "pass"]):
        params = {"card": move[2]} if len(move) > 2 else {}
        s.play(Move.of(move[0], move[1], **params), expected_version=s.version)
    events = events_for(s, Viewer.of_seat(2))
    texts = [e["text"] for e in events] + [e["ja"] for e in events]
    assert HIDDEN_EVENT[0] not in texts and HIDDEN_EVENT[1] not in texts
    assert "Ann (red) plays a card." in texts and "Ann(赤)がカードを出した。" in texts
    assert any(t.startswith("Trick won by Ben (blue) (worth 8 so far)") for t in texts)
    assert any(t.startswith("Ben(青)がトリックを獲得(ここまで8点)") for t in texts)
    said = json.dumps(events, ensure_ascii=False)
    assert "S-R5" not in said and "S-B3" not in said and "red 5" not in said and "赤5" not in said
