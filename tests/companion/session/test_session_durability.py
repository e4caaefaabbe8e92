"""Nothing is ever lost: SIGKILLed writers, racing threads and processes."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.engine import Move
from companion.history import query
from companion.session import StaleVersion, Store, TableSession
from tests.companion.session.session_worker import reference_log

ROOT = Path(__file__).resolve().parents[3]


def _worker(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tests.companion.session.session_worker", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _versions(db: Path, session_id: str) -> list[int]:
    return [v for v, *_ in Store(db).entries(session_id)]


def test_sigkill_at_random_moments_loses_nothing_and_duplicates_nothing(tmp_path):
    db = tmp_path / "crash.db"
    session = TableSession.create(Store(db), "spartacus", 3, names=["Ann", "Ben", "Cy"])
    seed = 11
    expected = reference_log("spartacus", 3, session.game.options, seed)
    rng = random.Random(5)
    kills = 0
    while True:
        # the worker pauses 30 ms after each write; the kill lands 0–60 ms after an ack, so in a
        # write as often as in a pause, and the game outlasts 15 kills even on a loaded machine
        proc = _worker("script", str(db), session.id, str(seed), "0.03")
        lines: list[str] = []
        if kills < 15:
            # let it acknowledge a few writes, then kill it at a random moment of the next ones
            wait_for = rng.randint(1, 4)
            while sum(line.startswith("ack") for line in lines) < wait_for:
                line = proc.stdout.readline()
                if not line:
                    break
                lines.append(line)
            time.sleep(rng.uniform(0, 0.06))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
        out, err = proc.communicate(timeout=120)
        out = "".join(lines) + out
        acked = [int(line.split()[1]) for line in out.splitlines() if line.startswith("ack")]
        stored = Store(db).version(session.id)
        assert not acked or stored >= max(acked), "a write was acknowledged but not committed"
        versions = _versions(db, session.id)
        assert versions == list(range(1, len(versions) + 1)), "the log has a gap or a duplicate"
        reopened = TableSession.open(Store(db), session.id)
        assert reopened.game.log == expected[:len(reopened.game.log)], "a move was lost or doubled"
        assert proc.returncode in (0, -signal.SIGKILL), err
        if "done" in out.split():
            break
    final = TableSession.open(Store(db), session.id)
    assert kills >= 8
    assert final.game.log == expected and final.game.is_over()
    assert final.state() == TableSession.open(Store(db), session.id).state()
    # the killed workers kept the play history: the entry that ended the game wrote its one play
    [play] = query.plays(Store(db))
    assert play.id == f"{session.id}-1" and [s.score for s in play.seats] == final.game.scores()


def test_racing_threads_never_both_append_a_version(tmp_path):
    db = tmp_path / "race.db"
    sid = TableSession.create(Store(db), "wheel", 3).id
    first = TableSession.open(Store(db), sid)
    circle = [f"W-{c}{v}" for c in "RBGYP" for v in range(1, 6)]
    first.play(Move.of(-1, "lay_circle", circle=circle, pawn=0), expected_version=0)
    results: list[str] = []
    lock = threading.Lock()

    shared = Store(db)       # two threads share one Store; three hold their own, as a server might
    threads = [threading.Thread(target=_racer, args=(shared, sid, results, lock)) for _ in range(2)]
    threads += [threading.Thread(target=lambda: _racer(Store(db), sid, results, lock)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = TableSession.open(Store(db), sid)
    wins = results.count("won")
    print(f"threads: {wins} won, {results.count('stale')} stale")
    assert wins == len(final.game.log) - 1, "every accepted tap is exactly one move in the log"
    assert _versions(db, sid) == list(range(1, final.version + 1))
    assert final.game.is_over() or wins >= 10
    # the log is the game where the first legal move was always taken: nothing doubled or lost
    replay = TableSession.create(Store(tmp_path / "solo.db"), "wheel", 3)
    replay.play(Move.of(-1, "lay_circle", circle=circle, pawn=0), expected_version=0)
    for _ in range(wins):
        replay.play(replay.legal_moves()[0], expected_version=replay.version)
    assert replay.game.log == final.game.log


def _racer(store: Store, sid: str, results: list[str], lock: threading.Lock) -> None:
    """Tap the first legal move at the version last seen, 40 times (or until the game ends)."""
    s = TableSession.open(store, sid)
    for _ in range(40):
        s.refresh()
        moves = s.legal_moves()
        if not moves:
            return
        try:
            s.play(moves[0], by="thread", expected_version=s.version)
            outcome = "won"
        except StaleVersion:
            outcome = "stale"
        with lock:
            results.append(outcome)


def test_racing_processes_never_corrupt_the_log(tmp_path):
    db = tmp_path / "procs.db"
    session = TableSession.create(Store(db), "spartacus", 4)
    procs = [_worker("race", str(db), session.id, "30") for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err
    wins = sum(out.split().count("won") for out, _ in outs)
    print(f"processes: {wins} won, {sum(out.split().count('stale') for out, _ in outs)} stale")
    final = TableSession.open(Store(db), session.id)
    assert wins == len(final.game.log) > 0
    assert _versions(db, session.id) == list(range(1, final.version + 1))
    won_versions = [int(v) for out, _ in outs for v in out.split()[1::1] if v.isdigit()]
    assert sorted(won_versions) == list(range(1, final.version + 1)), "each version won exactly once"


def test_the_primary_key_refuses_a_second_version_n(tmp_path):
    store = Store(tmp_path / "pk.db")
    s = TableSession.create(store, "spartacus", 3)
    store.append(s.id, 1, "note", {}, "a", False)
    import pytest
    with pytest.raises(StaleVersion):
        store.append(s.id, 1, "note", {"other": True}, "b", False)
    # even a writer that skips the version check cannot insert a second entry 1
    import sqlite3
    db = sqlite3.connect(tmp_path / "pk.db")
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO entries (session, version, kind, data, by, created) VALUES (?,1,'note','{}','c',0)",
                   (s.id,))
    assert [e[0] for e in store.entries(s.id)] == [1]


def test_a_tap_synced_after_its_block_is_seen_at_once_and_fsynced_as_the_block_ends(tmp_path, monkeypatch):
    db = tmp_path / "later.db"
    store = Store(db)
    session = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Cy"])
    synced: list[str] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real_fsync(fd)))
    level = lambda: store._db().execute("PRAGMA synchronous").fetchone()[0]   # noqa: E731
    assert level() == 2                                       # FULL: every other write
    with store.sync_after():
        with store.sync_after():                              # nested: one sync, at the outer end
            assert level() == 1                               # NORMAL: written, not yet fsynced
            session.play(session.legal_moves()[0], by="t", expected_version=session.version)
        assert Store(db).version(session.id) == 1             # another connection sees it at once
        assert synced == []
    assert synced == [f"{db}-wal"] and level() == 2
    with pytest.raises(StaleVersion), store.sync_after():
        session.play(session.legal_moves()[0], by="t", expected_version=0)   # stale: refused
    assert level() == 2 and len(synced) == 2 and Store(db).version(session.id) == 1
