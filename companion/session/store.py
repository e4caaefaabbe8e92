"""The table session's event log in SQLite: every session's entries, versioned, append-only.

One row per committed log entry, keyed by ``(session, version)``: two writers racing for version N
cannot both succeed (the PRIMARY KEY refuses the second, which gets ``StaleVersion``). A write is
one transaction that is committed (WAL, ``synchronous=FULL``) before the caller is told it worked,
so a process killed at any moment leaves either the whole entry or nothing. Inside
``Store.sync_after`` (the web server's writes) the commit reaches the disk when the block ends
instead: the phones are told first, the writer after (issue 23: the fsync was the tail of a tap).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import sqlite3
import threading
import time
import unicodedata
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from companion.engine import GameError
from companion.i18n import both

CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
"""Join-code characters: no 0/O, 1/I/L, 2/Z, 5/S, 8/B, which people confuse."""
CODE_LENGTH = 4

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id       TEXT PRIMARY KEY,
    code     TEXT NOT NULL UNIQUE,
    game     TEXT NOT NULL,
    settings TEXT NOT NULL,          -- JSON: players, names, options, seats, rounds, target
    created  REAL NOT NULL,
    version  INTEGER NOT NULL DEFAULT 0,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS entries (
    session  TEXT NOT NULL REFERENCES sessions(id),
    version  INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    data     TEXT NOT NULL,          -- JSON
    by       TEXT NOT NULL,
    created  REAL NOT NULL,
    PRIMARY KEY (session, version)
);
CREATE TABLE IF NOT EXISTS phones (
    session  TEXT NOT NULL REFERENCES sessions(id),
    phone    TEXT NOT NULL,          -- short public id the host sees
    secret   TEXT NOT NULL,          -- sha256 of the phone's token (the token itself is not kept)
    label    TEXT NOT NULL,
    role     TEXT NOT NULL,          -- seat, table (scorekeeper) or watch
    seat     INTEGER,                -- the seat it holds (role seat), else NULL
    joined   REAL NOT NULL,
    PRIMARY KEY (session, phone)
);
CREATE UNIQUE INDEX IF NOT EXISTS phones_one_per_seat ON phones(session, seat) WHERE seat IS NOT NULL;
CREATE TABLE IF NOT EXISTS held (
    session  TEXT PRIMARY KEY REFERENCES sessions(id),
    at       TEXT NOT NULL,          -- JSON [games finished, moves of this game]: the deal they await
    data     TEXT NOT NULL           -- JSON: the observations, oldest first
);
CREATE TABLE IF NOT EXISTS move_frames (
    session  TEXT NOT NULL REFERENCES sessions(id),
    version  INTEGER NOT NULL,       -- the log entry the camera's observation applied
    jpeg     BLOB NOT NULL,          -- the camera's picture of the table then, small (FRAME_BYTES)
    PRIMARY KEY (session, version)
);
CREATE TABLE IF NOT EXISTS undo_requests (
    session  TEXT NOT NULL REFERENCES sessions(id),
    phone    TEXT NOT NULL,          -- the phone that asks (one request a phone)
    data     TEXT NOT NULL,          -- JSON: who asks, for which log version, its moves, the version seen
    asked    REAL NOT NULL,
    PRIMARY KEY (session, phone)
);
""" + """
-- The play history (companion/history, docs/history.md). A play is one finished game, written by
-- the same transaction as the log entry that ended it (and withdrawn by the one that reopens it;
-- companion.history does it, listening to the sessions, see companion.session.table.on_game_over):
-- the log stays the single source of truth, these rows are its durable summary. They carry no
-- foreign key to sessions: a play outlives its session and may come from an imported backup.
CREATE TABLE IF NOT EXISTS players (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL UNIQUE COLLATE NOCASE,   -- a person across tables: "ann" is Ann
    created  TEXT NOT NULL                          -- ISO 8601 UTC, first seen
);
CREATE TABLE IF NOT EXISTS plays (
    id           TEXT PRIMARY KEY,   -- "<session>-<game number>" for plays of this database
    session      TEXT,               -- the session it came from (NULL: imported)
    number       INTEGER NOT NULL,   -- the game's number in its session
    game         TEXT NOT NULL,      -- game id: wheel, hills, spartacus, prussia, chains
    options      TEXT NOT NULL,      -- JSON: the game's options, start player included
    started      TEXT NOT NULL,      -- ISO 8601 UTC: the first move
    duration     INTEGER NOT NULL,   -- seconds from the first move to the end
    ended_early  INTEGER NOT NULL,   -- 1: the host ended it, scores as they stood
    camera_moves INTEGER NOT NULL,   -- moves the camera read (observations, answered or not)
    tapped_moves INTEGER NOT NULL,   -- moves tapped on a phone, typed, or dealt by the app
    location     TEXT                -- where it was played (BG Stats' location, the host's); NULL: not said
);
CREATE INDEX IF NOT EXISTS plays_started ON plays (started);
CREATE TABLE IF NOT EXISTS play_seats (
    play     TEXT NOT NULL,
    seat     INTEGER NOT NULL,       -- 0-based seat order
    name     TEXT NOT NULL,          -- the name at this table
    player   INTEGER,                -- players.id; NULL for a seat nobody named (P1, P2, …)
    score    INTEGER NOT NULL,
    winner   INTEGER NOT NULL,
    start    INTEGER NOT NULL,       -- 1: this seat started
    companion TEXT,                  -- the companion's level (beginner, good, strong) if it played
                                     -- this seat, NULL for a person (added by history schema 2)
    PRIMARY KEY (play, seat)
);
CREATE INDEX IF NOT EXISTS play_seats_player ON play_seats (player);
CREATE TABLE IF NOT EXISTS play_sources (
    play     TEXT PRIMARY KEY,       -- a play that came from another app (BG Stats)
    source   TEXT NOT NULL,          -- "bgstats"
    unknown  TEXT NOT NULL           -- JSON list of what that app did not say: moves, duration, scores, start
);
CREATE TABLE IF NOT EXISTS play_merges (
    name     TEXT PRIMARY KEY COLLATE NOCASE,   -- a player's name in an imported BG Stats file
    player   TEXT NOT NULL                      -- the known player the host counted them as
);
CREATE TABLE IF NOT EXISTS play_edits (
    play     TEXT PRIMARY KEY,       -- a play the host corrected or deleted (companion/history/edit.py)
    made     TEXT NOT NULL,          -- ISO 8601 UTC
    deleted  INTEGER NOT NULL,       -- 1: left out of the history (a test game); undo restores it
    changes  TEXT,                   -- JSON {"seats": [{name, score, winner}], "duration"}; NULL if deleted
    original TEXT NOT NULL           -- JSON: the play as recorded (what undo puts back)
);
"""
FRAME_BYTES = 40_000
"""Largest camera picture kept for one move (a replay shows it beside the move; ~320 px wide)."""
FRAMES_KEPT = 400
"""At most this many pictures are kept per session (the oldest go first): 16 MB at most."""
PHONE_ROLES = ("seat", "table", "watch")
"""What a joined phone may be: one seat's phone, the table's scorekeeper (granted by the host), a watcher."""


OpenHook = Callable[["Store"], None]
_open_hooks: list[OpenHook] = []


def on_open(hook: OpenHook) -> None:
    """Run ``hook(store)`` whenever a ``Store`` is opened, once its schema is in place (the play
    history backfills the plays of a database from before it); registering twice registers once."""
    if hook not in _open_hooks:
        _open_hooks.append(hook)


class SessionError(GameError):
    """A session request that cannot be done: unknown session, bad request, wrong game."""


class StaleVersion(SessionError):
    """Someone else changed the session first; the request was refused and changed nothing."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"the session changed (you saw version {expected}, it is now {actual}): "
                         "reload and try again",
                         f"卓の状態が変わりました(版{expected}→{actual})。読み込み直してもう一度試してください")
        self.expected = expected
        self.actual = actual


def clean_text(text: str, limit: int = 40) -> str:
    """A name or label as it may be stored and printed: control and format characters (ESC, BEL,
    bidi overrides) removed, whitespace runs made one space, at most ``limit`` characters."""
    kept = "".join(" " if ch.isspace() else ch for ch in str(text)
                   if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn"))
    return " ".join(kept.split())[:limit]


def default_path() -> Path:
    """``$COMPANION_DB``, else ``companion.db`` in the user's data directory (platformdirs)."""
    env = os.environ.get("COMPANION_DB")
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_data_dir("table-companion", appauthor=False)) / "companion.db"


class Store:
    """A SQLite file holding every session's settings and log; safe across threads and processes."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        if str(self.path) == ":memory:":
            raise SessionError(*both("the store needs a file (several connections share it); use a temporary "
                                     "file"))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._db().executescript(SCHEMA)   # CREATE ... IF NOT EXISTS: safe from many processes
        for hook in list(_open_hooks):
            hook(self)

    # ----------------------------------------------------------------- connections
    def _db(self) -> sqlite3.Connection:
        """This thread's connection (SQLite connections must not be shared between threads)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self._local.wal = db.execute("PRAGMA journal_mode=WAL").fetchone()[0].lower() == "wal"
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    @contextmanager
    def sync_after(self) -> Iterator[None]:
        """This thread's commits inside the block are written at once but reach the disk (fsync)
        when the block ends, so the caller can tell others (a table's phones) before it answers
        the writer. A killed process loses nothing either way (the written WAL is the OS's); a
        power cut can lose only a write whose block had not ended, which its writer was never
        told had worked. Without WAL (a file system that refuses it) commits stay synchronous."""
        db = self._db()
        if not self._local.wal or getattr(self._local, "deferred", False):
            yield
            return
        db.execute("PRAGMA synchronous=NORMAL")   # in WAL mode: commit without the fsync
        self._local.deferred = True
        try:
            yield
        finally:
            self._local.deferred = False
            db.execute("PRAGMA synchronous=FULL")
            self._sync_wal()

    def _sync_wal(self) -> None:
        """fsync the write-ahead log (what ``synchronous=FULL`` does after each commit)."""
        try:
            fd = os.open(f"{self.path}-wal", os.O_RDWR | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:   # checkpointed into the database and removed: that synced it
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    class _Txn:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            self.db.execute("ROLLBACK" if exc_type else "COMMIT")

    def _write(self) -> "Store._Txn":
        return Store._Txn(self._db())

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    # ----------------------------------------------------------------- sessions
    def create_session(self, game: str, settings: dict[str, Any],
                       people: list[str] | None = None) -> tuple[str, str]:
        """Insert a new session; return its id and join code. ``people``: the names to remember as
        players (default: every seat's; a companion seat's name is no person)."""
        session_id = uuid.uuid4().hex[:12]
        for _ in range(100):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self._write() as db:
                    db.execute("INSERT INTO sessions (id, code, game, settings, created) VALUES (?,?,?,?,?)",
                               (session_id, code, game, json.dumps(settings), time.time()))
                    remember_players(db, settings.get("names") or [] if people is None else people)
                return session_id, code
            except sqlite3.IntegrityError:
                continue   # the code is taken: draw another
        raise SessionError(*both("could not find a free join code; delete old sessions"))

    def forget_people(self, names: list[str]) -> None:
        """``forget_players`` in a write of its own (the host gave these seats to the companion)."""
        with self._write() as db:
            forget_players(db, names)

    def session_row(self, session_id: str) -> dict[str, Any]:
        """A session's settings row; unknown ids raise ``SessionError``."""
        row = self._db().execute("SELECT id, code, game, settings, created, version, finished "
                                 "FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionError(*both("no session {session_id!r} (see `companion session list`)", session_id=session_id))
        return {"id": row[0], "code": row[1], "game": row[2], "settings": json.loads(row[3]),
                "created": row[4], "version": row[5], "finished": bool(row[6])}

    def sessions(self) -> list[dict[str, Any]]:
        """Every session, newest first: id, code, game, players, names, created, finished, version."""
        rows = self._db().execute("SELECT id, code, game, settings, created, version, finished "
                                  "FROM sessions ORDER BY created DESC").fetchall()
        out = []
        for sid, code, game, settings, created, version, finished in rows:
            s = json.loads(settings)
            out.append({"id": sid, "code": code, "game": game, "players": s["players"],
                        "names": s["names"], "created": created, "finished": bool(finished),
                        "version": version})
        return out

    def find_by_code(self, code: str) -> str | None:
        """The id of the session with join code ``code`` (case-insensitive), or None."""
        row = self._db().execute("SELECT id FROM sessions WHERE code = ?",
                                 (code.strip().upper(),)).fetchone()
        return row[0] if row else None

    # ----------------------------------------------------------------- the log
    def version(self, session_id: str) -> int:
        """The session's latest committed version (0 before the first entry)."""
        row = self._db().execute("SELECT version FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionError(*both("no session {session_id!r}", session_id=session_id))
        return row[0]

    def entries(self, session_id: str, after: int = 0) -> Iterator[tuple[int, str, dict[str, Any], str]]:
        """The session's entries with version > ``after``, in order: (version, kind, data, by)."""
        rows = self._db().execute("SELECT version, kind, data, by FROM entries WHERE session = ? "
                                  "AND version > ? ORDER BY version", (session_id, after)).fetchall()
        for version, kind, data, by in rows:
            yield version, kind, json.loads(data), by

    def append(self, session_id: str, version: int, kind: str, data: dict[str, Any], by: str,
               finished: bool, after: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """Commit entry ``version`` (must be the next one) or raise ``StaleVersion``, changing nothing;
        ``after`` runs in the same transaction once the entry is in (the game-over listeners)."""
        text = json.dumps(data, ensure_ascii=False)
        try:
            with self._write() as db:
                current = db.execute("SELECT version FROM sessions WHERE id = ?", (session_id,)).fetchone()
                if current is None:
                    raise SessionError(*both("no session {session_id!r}", session_id=session_id))
                if current[0] != version - 1:
                    raise StaleVersion(version - 1, current[0])
                db.execute("INSERT INTO entries (session, version, kind, data, by, created) "
                           "VALUES (?,?,?,?,?,?)", (session_id, version, kind, text, by, time.time()))
                db.execute("UPDATE sessions SET version = ?, finished = ? WHERE id = ?",
                           (version, int(finished), session_id))
                if after is not None:
                    after(db)
        except sqlite3.IntegrityError:
            # the UNIQUE key is the last line of defence should two writers slip past the check
            raise StaleVersion(version - 1, self.version(session_id)) from None

    # ----------------------------------------------------------------- held observations
    def held(self, session_id: str) -> tuple[list[int] | None, list[dict[str, Any]]]:
        """The observations of a deal the session holds until it is seen whole, and which deal
        they await (None, [] when none are held)."""
        row = self._db().execute("SELECT at, data FROM held WHERE session = ?", (session_id,)).fetchone()
        return (json.loads(row[0]), json.loads(row[1])) if row else (None, [])

    def hold(self, session_id: str, at: list[int], observations: list[dict[str, Any]]) -> None:
        """Keep these observations of the awaited deal ``at`` (replacing any held before), so
        that a restart of the server loses none of them."""
        with self._write() as db:
            db.execute("INSERT INTO held (session, at, data) VALUES (?,?,?) ON CONFLICT(session) "
                       "DO UPDATE SET at = excluded.at, data = excluded.data",
                       (session_id, json.dumps(at), json.dumps(observations, ensure_ascii=False)))

    def drop_held(self, session_id: str) -> None:
        """Forget the held observations (the deal was explained, or another state came)."""
        with self._write() as db:
            db.execute("DELETE FROM held WHERE session = ?", (session_id,))

    # ----------------------------------------------------------------- phones and seats
    def add_phone(self, session_id: str, label: str) -> tuple[str, str]:
        """Register a joined phone (a watcher until it claims a seat); return its id and token."""
        self.session_row(session_id)
        for _ in range(20):
            phone = secrets.token_hex(4)
            token = f"{phone}.{secrets.token_urlsafe(18)}"
            try:
                with self._write() as db:
                    db.execute("INSERT INTO phones (session, phone, secret, label, role, seat, joined) "
                               "VALUES (?,?,?,?,?,?,?)", (session_id, phone, _digest(token), clean_text(label),
                                                          "watch", None, time.time()))
                return phone, token
            except sqlite3.IntegrityError:
                continue   # the id is taken at this table: draw another
        raise SessionError(*both("could not register the phone; try again"))

    def name_phone(self, session_id: str, phone: str, label: str) -> None:
        """Give a phone that joined with no name of its own (the server's "phone N") ``label``."""
        with self._write() as db:
            db.execute("UPDATE phones SET label = ? WHERE session = ? AND phone = ? AND label GLOB 'phone [0-9]*'",
                       (clean_text(label), session_id, phone))

    def phone_for(self, session_id: str, token: str) -> dict[str, Any] | None:
        """The phone a token belongs to at this session, or None (unknown, freed or forged)."""
        phone = token.split(".", 1)[0]
        row = self._db().execute("SELECT phone, secret, label, role, seat, joined FROM phones "
                                 "WHERE session = ? AND phone = ?", (session_id, phone)).fetchone()
        if row is None or not hmac.compare_digest(row[1], _digest(token)):
            return None
        return {"phone": row[0], "label": row[2], "role": row[3], "seat": row[4], "joined": row[5]}

    def phones(self, session_id: str) -> list[dict[str, Any]]:
        """The session's joined phones in joining order: phone, label, role, seat, joined."""
        rows = self._db().execute("SELECT phone, label, role, seat, joined FROM phones WHERE session = ? "
                                  "ORDER BY joined, phone", (session_id,)).fetchall()
        return [{"phone": r[0], "label": r[1], "role": r[2], "seat": r[3], "joined": r[4]} for r in rows]

    def set_phone(self, session_id: str, phone: str, role: str, seat: int | None,
                  *, only_if_role: str | None = None) -> None:
        """Give a phone a role (and a seat); a seat held by another phone raises ``SessionError``
        and changes nothing (the unique index decides between two phones claiming at once)."""
        if role not in PHONE_ROLES or (role == "seat") != (seat is not None):
            raise SessionError(*both("bad phone role {role!r} / seat {seat!r}", role=role, seat=seat))
        try:
            with self._write() as db:
                row = db.execute("SELECT role FROM phones WHERE session = ? AND phone = ?",
                                 (session_id, phone)).fetchone()
                if row is None:
                    raise SessionError(*both("no phone {phone!r} at this table", phone=phone))
                if only_if_role is not None and row[0] != only_if_role:
                    raise SessionError(*both("this phone holds a seat already: ask the host to free or move "
                                             "it"))
                db.execute("UPDATE phones SET role = ?, seat = ? WHERE session = ? AND phone = ?",
                           (role, seat, session_id, phone))
        except sqlite3.IntegrityError:
            raise SessionError(*both("seat {seat} is taken by another phone",
                                     seat=seat + 1 if seat is not None else "?")) from None

    def copy_phones(self, source: str, target: str) -> int:
        """Seat ``source``'s phones at ``target`` as they were (a rematch: same seats, same roles,
        the same tokens work); how many."""
        with self._write() as db:
            cur = db.execute("INSERT OR IGNORE INTO phones (session, phone, secret, label, role, seat, joined) "
                             "SELECT ?, phone, secret, label, role, seat, joined FROM phones WHERE session = ?",
                             (target, source))
            return cur.rowcount

    def remove_phone(self, session_id: str, phone: str) -> bool:
        """Forget a phone (its token stops working) and its undo request; True if it was there."""
        with self._write() as db:
            cur = db.execute("DELETE FROM phones WHERE session = ? AND phone = ?", (session_id, phone))
            db.execute("DELETE FROM undo_requests WHERE session = ? AND phone = ?", (session_id, phone))
            return cur.rowcount > 0

    # ----------------------------------------------------------------- undo requests
    def ask_undo(self, session_id: str, phone: str, request: dict[str, Any]) -> None:
        """Keep a phone's request to take back its move (a newer one replaces it) until the host
        answers: a restart of the server does not forget it."""
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO undo_requests (session, phone, data, asked) VALUES (?,?,?,?)",
                       (session_id, phone, json.dumps(request, ensure_ascii=False), time.time()))

    def undo_requests(self, session_id: str) -> list[dict[str, Any]]:
        """The session's open undo requests, oldest first."""
        rows = self._db().execute("SELECT data FROM undo_requests WHERE session = ? ORDER BY asked, phone",
                                  (session_id,)).fetchall()
        return [json.loads(row[0]) for row in rows]

    def drop_undo_requests(self, session_id: str, phone: str | None = None,
                           db: sqlite3.Connection | None = None) -> None:
        """Forget one phone's undo request (declined), or all of a session's (a move was undone);
        ``db``: inside a transaction already open (the undo entry's own)."""
        where, args = ("session = ?", (session_id,)) if phone is None else \
            ("session = ? AND phone = ?", (session_id, phone))
        if db is not None:
            db.execute(f"DELETE FROM undo_requests WHERE {where}", args)
            return
        with self._write() as txn:
            txn.execute(f"DELETE FROM undo_requests WHERE {where}", args)


    # ----------------------------------------------------------------- the camera's pictures
    def keep_frame(self, session_id: str, version: int, jpeg: bytes) -> bool:
        """Keep the camera's picture of the table for the move applied at log ``version`` (a replay
        shows it); a picture over ``FRAME_BYTES`` is refused (False), and past ``FRAMES_KEPT``
        pictures the session's oldest goes."""
        if not isinstance(jpeg, bytes) or not jpeg.startswith(b"\xff\xd8") or len(jpeg) > FRAME_BYTES:
            return False
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO move_frames (session, version, jpeg) VALUES (?,?,?)",
                       (session_id, version, jpeg))
            db.execute("DELETE FROM move_frames WHERE session = ? AND version NOT IN (SELECT version FROM "
                       "move_frames WHERE session = ? ORDER BY version DESC LIMIT ?)",
                       (session_id, session_id, FRAMES_KEPT))
        return True

    def frame(self, session_id: str, version: int) -> bytes | None:
        """The camera's picture kept for the move at log ``version``, or None."""
        row = self._db().execute("SELECT jpeg FROM move_frames WHERE session = ? AND version = ?",
                                 (session_id, version)).fetchone()
        return bytes(row[0]) if row else None

    def frame_between(self, session_id: str, after: int, upto: int) -> int | None:
        """The newest log version in ``(after, upto]`` with a camera picture (a move settled by
        answering the camera's question has the picture of that question), or None."""
        row = self._db().execute("SELECT MAX(version) FROM move_frames WHERE session = ? AND version > ? "
                                 "AND version <= ?", (session_id, after, upto)).fetchone()
        return row[0] if row and row[0] is not None else None

    def frame_versions(self, session_id: str) -> set[int]:
        """The log versions of the session that have a camera picture."""
        rows = self._db().execute("SELECT version FROM move_frames WHERE session = ?", (session_id,))
        return {row[0] for row in rows}


def _digest(token: str) -> str:
    """What the store keeps of a phone token: its SHA-256 (a stolen database gives no tokens)."""
    return hashlib.sha256(token.encode()).hexdigest()


LOCATION_LIMIT = 80
"""Characters a location's name keeps ("Café Meeple, Shibuya, upstairs room")."""


def clean_location(text: Any) -> str | None:
    """A location's name as stored (control characters out, spaces made one, at most
    ``LOCATION_LIMIT`` characters); None for no name."""
    return clean_text(str(text), LOCATION_LIMIT) or None if text else None


PLACEHOLDER_NAME = re.compile(r"P\d+")
"""The names a table gets when nobody typed one (P1, P2, …): seats, not people."""


def forget_players(db: sqlite3.Connection, names: list[str]) -> None:
    """Take ``names`` off the known players unless a play has them in a person's seat: a name typed
    for a seat the host then gave to the companion is no person (the create form must not offer it)."""
    for name in names:
        db.execute("DELETE FROM players WHERE name = ? AND NOT EXISTS "
                   "(SELECT 1 FROM play_seats s WHERE s.player = players.id)", (name.strip(),))


def remember_players(db: sqlite3.Connection, names: list[str]) -> None:
    """Add the people behind ``names`` to the known players (placeholders like P1 are seats, not people)."""
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for name in names:
        if isinstance(name, str) and name.strip() and not PLACEHOLDER_NAME.fullmatch(name.strip()):
            db.execute("INSERT OR IGNORE INTO players (name, created) VALUES (?, ?)", (name.strip(), now))
