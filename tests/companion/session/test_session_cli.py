"""``companion session …`` on the command line."""
from __future__ import annotations

import json

from companion.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_new_play_observe_show_export(tmp_path, capsys):
    db = str(tmp_path / "cli.db")
    code, out, _ = run(capsys, "session", "new", "spartacus", "--names", "Ann,Ben,Cy", "--db", db, "--json")
    assert code == 0
    sid = json.loads(out)["id"]
    code, out, _ = run(capsys, "session", "list", "--db", db)
    assert code == 0 and sid in out and "Ann, Ben, Cy" in out
    code, out, _ = run(capsys, "session", "play", sid, '{"player": 0, "kind": "play", "card": "S-R5"}', "--db", db)
    assert code == 0 and json.loads(out)["version"] == 1
    # P2 passes unseen, P3's card appears: the camera's observation explains both
    code, out, _ = run(capsys, "session", "observe", sid, '{"trick": ["S-R5", "S-G2"]}', "--db", db)
    result = json.loads(out)
    assert code == 0 and result["kind"] == "applied" and [m["kind"] for m in result["moves"]] == ["pass", "play"]
    code, out, _ = run(capsys, "session", "show", sid, "--json", "--db", db)
    state = json.loads(out)
    assert state["version"] == 2 and state["layout"]["trick"] == ["S-R5", "S-G2"] and state["current_player"] == 0
    code, out, _ = run(capsys, "session", "show", sid, "--db", db)
    assert "to move: Ann" in out
    code, out, _ = run(capsys, "session", "export", sid, "--db", db)
    assert json.loads(out)["games"][0]["moves"][0]["card"] == "S-R5"


def test_bad_input_says_what_to_do_and_changes_nothing(tmp_path, capsys):
    db = str(tmp_path / "cli.db")
    code, out, _ = run(capsys, "session", "new", "wheel", "--players", "2", "--db", db, "--json")
    sid = json.loads(out)["id"]
    code, _, err = run(capsys, "session", "play", sid, "{oops", "--db", db)
    assert code == 2 and "must be JSON" in err
    code, _, err = run(capsys, "session", "play", sid, '{"player": 0, "kind": "take", "card": "W-R1"}', "--db", db)
    assert code == 2 and "circle" in err
    code, _, err = run(capsys, "session", "show", "nosuch", "--db", db)
    assert code == 2 and "session list" in err
    code, _, err = run(capsys, "session", "export", sid, "--bgstats", "--db", db)
    assert code == 2 and "finished" in err
    code, out, _ = run(capsys, "session", "show", sid, "--json", "--db", db)
    assert json.loads(out)["version"] == 0


def test_db_from_environment(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COMPANION_DB", str(tmp_path / "env.db"))
    code, out, _ = run(capsys, "session", "new", "chains", "--players", "1")
    assert code == 0 and (tmp_path / "env.db").exists()


def test_end_game_and_undo_it(tmp_path, capsys):
    db = str(tmp_path / "cli.db")
    code, out, _ = run(capsys, "session", "new", "spartacus", "--names", "Ann,Ben,Cy", "--db", db, "--json")
    sid = json.loads(out)["id"]
    run(capsys, "session", "play", sid, '{"player": 0, "kind": "play", "card": "S-R5"}', "--db", db)
    code, _, err = run(capsys, "session", "end", sid, "--expected-version", "0", "--db", db)
    assert code == 2 and "reload" in err
    code, out, _ = run(capsys, "session", "end", sid, "--db", db)
    assert code == 0 and json.loads(out)["events"][0]["kind"] == "ended_by_host"
    code, out, _ = run(capsys, "session", "show", sid, "--db", db)
    assert "game over (ended early by the host)" in out
    code, out, _ = run(capsys, "session", "list", "--db", db)
    assert "finished" in out
    code, _, err = run(capsys, "session", "end", sid, "--db", db)
    assert code == 2 and "already over" in err
    code, out, _ = run(capsys, "session", "undo", sid, "--db", db)
    assert code == 0 and json.loads(out) == {"version": 3, "undone": "end_game"}
    code, out, _ = run(capsys, "session", "show", sid, "--db", db)
    assert "to move: Ben" in out


def test_the_command_line_names_the_seats_as_the_pages_do(tmp_path, capsys):
    """`session play` / `observe` printed the engine's "P1 (red) plays …" and `list` / `show` the
    names as stored (the companion's in the language of the page that made the table, at the level it
    was made with): the table's names now, in the reader's language (``said``), as the web pages."""
    from companion.session import Store, TableSession
    db = str(tmp_path / "cli.db")
    s = TableSession.create(Store(db), "spartacus", 3, names=["Ann", "Ben", "Companion (good)"],
                            companions={2: "good"})
    code, out, _ = run(capsys, "session", "list", "--db", db, "--lang", "ja")
    assert "Ann, Ben, コンパニオン(中級)" in out
    s.set_companions({2: "strong"})   # the host makes it strong before the first move
    code, out, _ = run(capsys, "session", "play", s.id, '{"player": 0, "kind": "play", "card": "S-R5"}', "--db", db)
    [event] = json.loads(out)["events"]
    assert "Ann" in event["text"] and "P1" not in event["text"] and "Ann" in event["ja"]
    assert event["said"] == event["text"]
    code, out, _ = run(capsys, "session", "observe", s.id, '{"trick": ["S-R5", "S-G2"]}', "--db", db, "--lang", "ja")
    said = [e["said"] for e in json.loads(out)["events"]]
    assert any("Ben" in line for line in said) and all("P2" not in line for line in said)
    assert said == [e["ja"] for e in json.loads(out)["events"]]
    code, out, _ = run(capsys, "session", "show", s.id, "--db", db, "--lang", "ja")
    assert "コンパニオン(上級)" in out and "Companion" not in out
