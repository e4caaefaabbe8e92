"""``companion history edit / delete / restore``: the History page's corrections on the command line,
through the same code (``companion.history.edit``, kept in ``play_edits``), so ``history rebuild``
keeps them; an unknown play or name is refused with its reason and changes nothing."""
from __future__ import annotations

import json

import pytest

from companion.cli import main
from companion.history import edit, query
from companion.session import Store, TableSession
from tests.companion.history.test_history import rows, tap_through


@pytest.fixture
def played(tmp_path):
    """A database with two finished Spartacus games; (db path, store, first play's id)."""
    store = Store(tmp_path / "h.db")
    for seed in (1, 2):
        tap_through(TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"]), seed)
    first = min(query.plays(store), key=lambda p: p.started)
    return str(tmp_path / "h.db"), store, first.id


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["history", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def listed(capsys, db: str) -> dict[str, dict]:
    code, out, _ = run(capsys, "list", "--db", db, "--json")
    assert code == 0
    return {p["id"]: p for p in json.loads(out)}


def test_edit_corrects_a_play_and_rebuild_keeps_it(played, capsys):
    db, store, play = played
    code, out, _ = run(capsys, "list", "--db", db)
    assert code == 0 and play in out                      # the text list shows each play's id
    code, out, _ = run(capsys, "edit", play, "--db", db, "--score", "ann=99", "--winner", "Ann",
                       "--duration", "42", "--names", "Ben=Benjamin", "--json")
    assert code == 0, out
    now = json.loads(out)
    assert now["done"] == "corrected" and now["duration"] == 42 * 60
    assert [(s["name"], s["score"], s["winner"]) for s in now["seats"]][:2] == [("Ann", 99, True),
                                                                                ("Benjamin", now["seats"][1]["score"], False)]
    assert now["winners"] == ["Ann"]
    [kept] = edit.edits(store)                            # where the web page keeps its corrections
    assert kept.play == play and not kept.deleted and kept.original.seats[1].name == "Ben"
    assert run(capsys, "rebuild", "--db", db)[0] == 0     # every play derived from the logs again
    again = listed(capsys, db)[play]
    assert [(s["name"], s["score"]) for s in again["seats"]][:2] == [("Ann", 99), ("Benjamin", now["seats"][1]["score"])]
    assert again["duration"] == 42 * 60 and again["winners"] == ["Ann"]
    # a second correction keeps the first one's duration; the text answer says what it did
    code, out, _ = run(capsys, "edit", play, "--db", db, "--score", "Chie=7")
    assert code == 0 and out.startswith(f"corrected {play}: Spartacus") and "Chie 7" in out
    assert listed(capsys, db)[play]["duration"] == 42 * 60
    # restore: the play as recorded
    code, out, _ = run(capsys, "restore", play, "--db", db, "--json")
    back = json.loads(out)
    assert code == 0 and back["done"] == "restored" and back["seats"][1]["name"] == "Ben"
    assert back["seats"][0]["score"] == kept.original.seats[0].score and edit.edits(store) == []


def test_delete_and_restore_a_play(played, capsys):
    db, store, play = played
    code, out, _ = run(capsys, "delete", play, "--db", db)
    assert code == 0 and out.startswith(f"deleted {play}")
    assert play not in listed(capsys, db) and len(listed(capsys, db)) == 1
    assert run(capsys, "rebuild", "--db", db)[0] == 0
    assert play not in listed(capsys, db)                 # a deleted play stays out of a rebuild
    code, out, err = run(capsys, "delete", play, "--db", db)
    assert code == 2 and "was deleted from the history; restoring it brings it back" in err
    code, out, _ = run(capsys, "restore", play, "--db", db, "--json")
    assert code == 0 and json.loads(out)["id"] == play and play in listed(capsys, db)


@pytest.mark.parametrize("argv, words", [
    (["edit", "nosuch-1", "--score", "Ann=3"], "no play 'nosuch-1' in the history"),
    (["edit", "{play}", "--score", "Zed=3"], "--score: play '{play}' has no seat named 'Zed' (its seats: Ann, Ben, Chie)"),
    (["edit", "{play}", "--winner", "Ann", "--winner", "Zed"], "--winner: play '{play}' has no seat named 'Zed'"),
    (["edit", "{play}", "--score", "Ann=3", "--names", "Zed=Ann"], "--names: play '{play}' has no seat named 'Zed'"),
    (["edit", "{play}", "--names", "Ben=ann"], "two seats have the same name"),
    (["edit", "{play}", "--score", "Ann=x"], "--score Ann=x: a score is a whole number"),
    (["edit", "{play}", "--score", "Ann"], "--score 'Ann': write it as NAME=N"),
    (["edit", "{play}", "--duration", "2000"], "the duration is between 0 and 1440 minutes"),
    (["edit", "{play}"], "say what to correct"),
    (["delete", "nosuch-1"], "no play 'nosuch-1' in the history"),
    (["restore", "{play}"], "neither corrected nor deleted: nothing to undo"),
])
def test_refusals_say_why_and_change_nothing(played, capsys, argv, words):
    db, _, play = played
    before = rows(db)
    argv = [a.format(play=play) for a in argv]
    code, out, err = run(capsys, *argv, "--db", db)
    assert code == 2 and words.format(play=play) in err, err
    code, out, _ = run(capsys, *argv, "--db", db, "--json")   # for machines: both languages
    refused = json.loads(out)
    assert code == 2 and words.format(play=play) in refused["error"]
    assert any("\u3040" <= ch <= "\u9fff" for ch in refused["ja"]), refused
    assert rows(db) == before
