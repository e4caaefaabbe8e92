"""The web layer's hold on the table sessions: open sessions, locks, join/host tokens, change hub.

The sessions themselves (game, log, SQLite) belong to ``companion.session``; this module only keeps
the open ``TableSession`` objects of one server process, serialises writes to each of them, signs
the tokens that let a phone act on a table, and fans one ``wait_for_change`` per table out to every
Server-Sent-Events client of that table (so 120 phones cost 20 waiting threads, not 120).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

WAIT_SLICE = 10.0
"""Seconds one ``wait_for_change`` call may block before the hub looks again (for shutdown)."""
IDLE_AFTER = 60.0
"""A table nobody has waited on for this long is no longer polled (a new client restarts it)."""


def _session_module() -> Any:
    """``companion.session``, imported when first needed (the web app imports without it), with
    ``companion.history`` listening to it (every table's finished games become plays)."""
    import companion.history  # noqa: F401  (registers itself on the sessions)
    from companion import session
    return session


def load_secret(db_path: str) -> bytes:
    """The server's signing key, kept beside the database so tokens survive a restart."""
    path = Path(str(db_path) + ".secret")
    try:
        data = path.read_bytes()
        if len(data) >= 16:
            return data
    except OSError:
        pass
    data = secrets.token_bytes(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return data


class Hub:
    """One waiting thread per watched table; every SSE client of that table waits on its condition."""

    def __init__(self, waiter: Callable[[str, int, float], int]) -> None:
        self._waiter = waiter
        self._lock = threading.Lock()
        self._versions: dict[str, int] = {}
        self._pokes: dict[str, int] = {}
        self._conds: dict[str, threading.Condition] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._last_wait: dict[str, float] = {}
        self._stopping = threading.Event()

    def _watch(self, table_id: str) -> None:
        cond = self._conds[table_id]
        while not self._stopping.is_set():
            with self._lock:   # nobody has listened for a while: stop polling this table
                if time.monotonic() - self._last_wait.get(table_id, 0.0) > IDLE_AFTER:
                    del self._threads[table_id]
                    return
            try:
                version = self._waiter(table_id, self._versions[table_id], WAIT_SLICE)
            except Exception:  # a deleted or broken session: stop watching, clients time out
                self._stopping.wait(1.0)
                continue
            if version != self._versions[table_id]:
                with cond:
                    self._versions[table_id] = version
                    cond.notify_all()

    def notify(self, table_id: str, version: int) -> None:
        """Wake the table's clients now (a write in this process; saves the store's poll delay)."""
        cond = self._conds.get(table_id)
        if cond is None:
            return
        with cond:
            if version > self._versions.get(table_id, -1):
                self._versions[table_id] = version
                cond.notify_all()

    def pokes(self, table_id: str) -> int:
        """How many times the table was poked (a page drawn now has seen these); reading them
        starts no watcher (a table nobody has poked or listened to has 0, as ``_ensure`` starts it)."""
        return self._pokes.get(table_id, 0)

    def poke(self, table_id: str) -> None:
        """Wake the table's clients without a new version (an undo request for the host)."""
        self._ensure(table_id, None)
        with self._conds[table_id]:
            self._pokes[table_id] += 1
            self._conds[table_id].notify_all()

    def _ensure(self, table_id: str, current: int | None) -> None:
        with self._lock:
            self._last_wait[table_id] = time.monotonic()
            if table_id not in self._threads:
                if table_id not in self._conds:
                    self._versions[table_id] = current if current is not None else -1
                    self._pokes[table_id] = 0
                    self._conds[table_id] = threading.Condition()
                thread = threading.Thread(target=self._watch, args=(table_id,), daemon=True,
                                          name=f"hub-{table_id}")
                self._threads[table_id] = thread
                thread.start()

    def wait(self, table_id: str, version: int, pokes: int, timeout: float,
             current: int) -> tuple[int, int]:
        """Block until the table's version exceeds ``version``, it is poked past ``pokes``, or
        ``timeout``; return ``(version, pokes)``."""
        self._ensure(table_id, current)
        cond = self._conds[table_id]
        with cond:
            if self._versions[table_id] < current:
                self._versions[table_id] = current
            cond.wait_for(lambda: self._versions[table_id] > version or self._pokes[table_id] != pokes
                          or self._stopping.is_set(), timeout)
            return self._versions[table_id], self._pokes[table_id]

    @property
    def stopping(self) -> threading.Event:
        """Set when the server stops: every event stream ends."""
        return self._stopping

    def stop(self) -> None:
        """Let every waiting client and watcher finish."""
        self._stopping.set()
        for cond in list(self._conds.values()):
            with cond:
                cond.notify_all()


class Caller:
    """Who made a request: a viewer (host, scorekeeper, a seat's phone, a watcher) and its phone."""

    def __init__(self, viewer: Any, phone: dict[str, Any] | None = None) -> None:
        self.viewer = viewer
        self.phone = phone

    @property
    def role(self) -> str:
        """``host``, ``table``, ``seat`` or ``watch``."""
        return self.viewer.role

    @property
    def label(self) -> str:
        """How the log names this caller (a phone's label, or "host")."""
        return "host" if self.phone is None else self.phone["label"]


class Tables:
    """The open table sessions of this server, their locks and tokens."""

    def __init__(self, db_path: str, secret: bytes | None = None) -> None:
        session = _session_module()
        self.db_path = str(db_path)
        Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
        self.store = session.Store(self.db_path)
        self.secret = secret or load_secret(self.db_path)
        self._open: dict[str, Any] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()
        self._watchers: dict[str, Any] = {}
        self.hub = Hub(self._wait_store)
        self.clock: list[tuple[str, str, int, str, float]] | None = None

    # ------------------------------------------------------------------ the tap clock
    def start_clock(self) -> None:
        """Note where each write's and each event stream's time goes from now on (``note``; the
        browser bench reads ``clock``), the store's commits included."""
        self.clock = []
        append = self.store.append

        def timed_append(session: str, version: int, *args: Any, **kwargs: Any) -> Any:
            self.note("commit begins", session, version)
            try:
                return append(session, version, *args, **kwargs)
            finally:
                self.note("committed", session, version)
        self.store.append = timed_append

    def note(self, stage: str, table_id: str, version: int, who: str = "") -> None:
        """The wall-clock time (ms since the epoch, as a browser's ``Date.now()``) a write or a
        phone's stream (``who``: its token's start) reached ``stage`` of ``version``; nothing unless
        ``start_clock`` was called."""
        if self.clock is not None:
            self.clock.append((stage, table_id, version, who, time.time() * 1000))

    # ------------------------------------------------------------------ sessions
    def create(self, game: str, players: int, *, names: list[str], options: dict[str, Any],
               rounds: int | None = None, target: int | None = None,
               companions: dict[int, str] | None = None, location: str | None = None) -> Any:
        """A new persisted table session (``companions``: seat → level; ``location``: where it is)."""
        session = _session_module()
        s = session.TableSession.create(self.store, game, players, options=options, names=names,
                                        rounds=rounds, target=target, companions=companions, location=location)
        with self._guard:
            self._open[s.id] = s
            self._locks[s.id] = threading.RLock()
        return s

    def get(self, table_id: str) -> Any:
        """The open session ``table_id`` (opened from the store on first use)."""
        with self._guard:
            s = self._open.get(table_id)
            if s is not None:
                return s
        s = _session_module().TableSession.open(self.store, table_id)
        with self._guard:
            self._locks.setdefault(table_id, threading.RLock())
            return self._open.setdefault(table_id, s)

    def lock(self, table_id: str) -> threading.RLock:
        """The lock that serialises reads and writes of one table in this process."""
        self.get(table_id)
        return self._locks[table_id]

    def find(self, code: str) -> str | None:
        """The table id for a join code (case and spaces ignored)."""
        return self.store.find_by_code(code.strip().upper().replace(" ", ""))

    def _wait_store(self, table_id: str, version: int, timeout: float) -> int:
        # The hub's thread waits on a session object of its own: waiting may catch up with the
        # store, which must not race a request thread using the shared object.
        watcher = self._watchers.get(table_id)
        if watcher is None:
            watcher = self._watchers[table_id] = _session_module().TableSession.open(self.store, table_id)
        return watcher.wait_for_change(version, timeout)

    def wait(self, table_id: str, version: int, pokes: int, timeout: float) -> tuple[int, int]:
        """Block until the table changes past ``version`` or is poked (see ``Hub``)."""
        return self.hub.wait(table_id, version, pokes, timeout, self.get(table_id).version)

    def request_undo(self, table_id: str, phone: str, request: dict[str, Any]) -> None:
        """Keep a phone's undo request (one per phone, in SQLite: a restart keeps it) and wake the
        host's page."""
        self.store.ask_undo(table_id, phone, request)
        self.hub.poke(table_id)

    def pending_undos(self, table_id: str) -> list[dict[str, Any]]:
        """The open undo requests of a table, oldest first (for the host's page)."""
        return self.store.undo_requests(table_id)

    def settle_undos(self, table_id: str, phone: str | None = None) -> None:
        """Forget one phone's undo request (declined), or all of a table's (a move was undone)."""
        self.store.drop_undo_requests(table_id, phone)
        self.hub.poke(table_id)

    def changed(self, table_id: str) -> None:
        """Tell waiting clients of a write made through this process."""
        self.hub.notify(table_id, self.get(table_id).version)

    def rematch_of(self, table_id: str) -> dict[str, str] | None:
        """The table a rematch of ``table_id`` was set up at: {"id", "code"}, or None."""
        row = self.store._db().execute(
            "SELECT data FROM entries WHERE session = ? AND kind = 'note' AND data LIKE '%\"rematch\"%' "
            "ORDER BY version DESC LIMIT 1", (table_id,)).fetchone()
        if row is None:
            return None
        found = json.loads(row[0]).get("rematch")
        return found if isinstance(found, dict) and isinstance(found.get("id"), str) else None

    # ------------------------------------------------------------------ tokens
    def _sign(self, role: str, table_id: str) -> str:
        mac = hmac.new(self.secret, f"{role}:{table_id}".encode(), hashlib.sha256)
        return mac.hexdigest()[:24]

    def join(self, table_id: str, label: str) -> str:
        """Register a phone that typed or scanned the code; return its token (a watcher until it
        claims a seat)."""
        _, token = self.store.add_phone(table_id, label)
        self.hub.poke(table_id)   # the host's page lists the new phone
        return token

    def host_token(self, table_id: str) -> str:
        """The token of the table's host (undo, override, end game, next game)."""
        return self._sign("host", table_id)

    def caller(self, table_id: str, token: str | None) -> Caller | None:
        """Who presents ``token`` at ``table_id``: the host, a joined phone (by its role), or None."""
        view = _session_module().view
        if not token or not isinstance(token, str) or len(token) > 200 or not token.isascii():
            return None   # compare_digest raises on non-ASCII text: such a token is simply wrong
        if hmac.compare_digest(token, self.host_token(table_id)):
            return Caller(view.HOST)
        phone = self.store.phone_for(table_id, token)
        if phone is None:
            return None
        if phone["role"] == "seat":
            return Caller(view.Viewer.of_seat(phone["seat"]), phone)
        return Caller(view.TABLE if phone["role"] == "table" else view.WATCH, phone)

    def role(self, table_id: str, token: str | None) -> str | None:
        """``"host"``, ``"table"``, ``"seat"``, ``"watch"`` or None for a token at ``table_id``."""
        found = self.caller(table_id, token)
        return found.role if found else None

    def sessions(self) -> list[dict[str, Any]]:
        """The stored sessions, newest first."""
        return sorted(self.store.sessions(), key=lambda d: str(d.get("created", "")), reverse=True)

    def close(self) -> None:
        """Stop the change hub (server shutdown)."""
        self.hub.stop()


def iter_sse(tables: Tables, table_id: str, since: int, keepalive: float = 15.0,
             stop: threading.Event | None = None, seen_pokes: int | None = None,
             allowed: Callable[[], bool] | None = None,
             draw: Callable[[], dict[str, Any]] | None = None, who: str = "") -> Iterator[str]:
    """Server-Sent Events for one table: a ``version`` event on each change, comments to keep alive;
    ``seen_pokes``: the pokes the page's view was drawn after (a poke since then is told at once);
    the stream ends when ``stop`` is set (or the server stops) or ``allowed()`` turns false (the
    phone was removed from the table). With ``draw`` (the phone's view now: version, pokes, role,
    html) a change is a ``view`` event holding it, one JSON line (a ``version`` event if it fails);
    ``who`` names the stream on the tap clock (``Tables.note``)."""
    stop = stop or tables.hub.stopping

    def changed(version: int) -> str:
        if draw is not None:
            try:
                return f"event: view\ndata: {json.dumps(draw(), ensure_ascii=False, separators=(',', ':'))}\n\n"
            except Exception:   # e.g. the phone's token no longer opens the table: the page fetches and is told
                pass
        return f"event: version\ndata: {version}\n\n"

    yield "retry: 1000\n\n"
    version, pokes = since, 0
    current = tables.get(table_id).version
    if current != version:
        version = current
        yield changed(version)
    _, pokes = tables.wait(table_id, version, -1, 0)
    if allowed is not None and not allowed():
        # removed before these pokes were read: the removal's poke is among them and will not
        # wake the wait below (the stream stayed open until the keep-alive, seen once under load)
        return
    if seen_pokes is not None and seen_pokes != pokes:
        # a role granted or a request made after the page drew its view, before this stream opened
        yield f"event: notice\ndata: {version}\n\n"
    while not stop.is_set():
        new, new_pokes = tables.wait(table_id, version, pokes, keepalive)
        if stop.is_set() or (allowed is not None and not allowed()):
            return
        if new != version:
            version = new
            tables.note("stream woke", table_id, version, who)
            event = changed(version)
            tables.note("event sent", table_id, version, who)
            yield event
            tables.note("event written", table_id, version, who)
        elif new_pokes != pokes:
            yield f"event: notice\ndata: {version}\n\n"
        else:
            yield ": keepalive\n\n"
        pokes = new_pokes
