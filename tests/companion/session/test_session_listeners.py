"""What the session announces: a game-over listener writes in the very transaction of the log entry
that ends or reopens a game (both or neither), and an open hook runs on every store opened."""
from __future__ import annotations

import sqlite3

import pytest

from companion.engine import Move
from companion.session import SessionError, Store, TableSession, store as store_module, table


def heard_rows(path) -> list[tuple[int, int]]:
    """What the test listener wrote: (log version, finished games) per call."""
    with sqlite3.connect(path) as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'heard'").fetchone():
            return []
        return db.execute("SELECT version, games FROM heard ORDER BY rowid").fetchall()


@pytest.fixture
def heard(monkeypatch):
    """Only the test's listener on the sessions (the play history's, if imported, is set aside)."""
    def listener(db: sqlite3.Connection, session_id: str, state) -> None:
        db.execute("CREATE TABLE IF NOT EXISTS heard (version INTEGER, games INTEGER)")
        version = db.execute("SELECT version FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]
        db.execute("INSERT INTO heard VALUES (?, ?)", (version, len(state.finished_games())))
    monkeypatch.setattr(table, "_game_over_listeners", [])
    table.on_game_over(listener)
    table.on_game_over(listener)            # registering twice registers once
    return listener


def test_the_end_and_the_reopening_are_heard_in_their_own_entry(tmp_path, heard):
    path = tmp_path / "l.db"
    s = TableSession.create(Store(path), "spartacus", 3, names=["Ann", "Ben", "Cy"])
    s.play(Move.of(0, "play", card="S-R5"), expected_version=0)
    assert heard_rows(path) == []                         # a move in play: nothing to announce
    s.end_game(expected_version=1)
    assert heard_rows(path) == [(2, 1)]                   # the end: the entry's version, one game over
    s.undo(expected_version=2)
    assert heard_rows(path) == [(2, 1), (3, 0)]           # reopened: heard again, no game over


def test_a_listener_that_fails_refuses_the_entry_and_nothing_is_kept(tmp_path, monkeypatch):
    path = tmp_path / "l.db"
    s = TableSession.create(Store(path), "spartacus", 3, names=["Ann", "Ben", "Cy"])

    def broken(db: sqlite3.Connection, session_id: str, state) -> None:
        db.execute("CREATE TABLE heard (version INTEGER, games INTEGER)")
        db.execute("INSERT INTO heard VALUES (1, 1)")
        raise SessionError("the listener broke")
    monkeypatch.setattr(table, "_game_over_listeners", [broken])
    with pytest.raises(SessionError, match="listener broke"):
        s.end_game(expected_version=0)
    assert heard_rows(path) == [] and Store(path).version(s.id) == 0   # neither the entry nor its row
    assert not s.is_over() and not TableSession.open(Store(path), s.id).is_over()


def test_every_store_opened_runs_the_open_hooks_once_each(tmp_path, monkeypatch):
    opened: list[str] = []

    def hook(store: Store) -> None:
        opened.append(store.path.name)
    monkeypatch.setattr(store_module, "_open_hooks", [])
    store_module.on_open(hook)
    store_module.on_open(hook)
    Store(tmp_path / "a.db")
    Store(tmp_path / "b.db")
    assert opened == ["a.db", "b.db"]
