"""``companion bench web``: many tables, many phones, moves at a steady rate, latency to every phone.

The server runs as its own process (``companion serve`` on a free loopback port, a fresh database);
this process plays the phones: per table one "mover" taps a legal move at a steady rate, and every
phone holds a Server-Sent-Events stream and, like the real page, fetches the game view when told of
a new version. Latency = from sending the move to each phone having the new view (and, separately,
to the event arriving). Failed = any refused or broken request, or a version a phone never saw.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from webui.core.server import free_port
from companion.console import run_main

GAME = "wheel"
PLAYERS = 4
SERVERS = ("companion", "werkzeug", "cheroot-builtin", "waitress", "gunicorn")
"""``--server``: ``companion serve`` itself, or the app on another WSGI server to compare
(``serve_with``): werkzeug, the development server ``companion serve`` used before (threaded, TLS
in the accept loop); cheroot-builtin, cheroot with its own TLS adapter (handshake in the accept
loop); waitress, an asyncore loop and a fixed pool of worker threads, no TLS; gunicorn, one process
of ``gthread`` workers (Unix only). waitress and gunicorn are not dependencies: install them."""
_TLS: list[Any] = []   # the client's TLS context when the bench runs over --https


def _connect(port: int, timeout: float) -> http.client.HTTPConnection:
    """A connection to the server on loopback (HTTPS, certificate unchecked, under ``--https``)."""
    if _TLS:
        return http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=_TLS[0])
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)


def _request(port: int, method: str, path: str, body: Any = None, token: str | None = None,
             timeout: float = 10.0) -> tuple[int, Any]:
    conn = _connect(port, timeout)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["X-Table-Token"] = token
    try:
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        kind = resp.getheader("Content-Type", "")
        return resp.status, json.loads(data) if "json" in kind else data
    finally:
        conn.close()


def _join(port: int, table: dict[str, Any]) -> str:
    """A phone's own token for ``table`` (it joined by the code)."""
    status, answer = _request(port, "POST", "/api/join", {"code": table["code"]})
    if status != 200:
        raise RuntimeError(f"cannot join: {answer}")
    return answer["token"]


class Phone(threading.Thread):
    """One phone: an event stream, and a view fetch for each new version."""

    def __init__(self, port: int, table: dict[str, Any], stop: threading.Event, seat: int) -> None:
        super().__init__(daemon=True)
        self.port, self.table, self.stop_event, self.seat = port, table, stop, seat
        self.event_at: dict[int, float] = {}
        self.view_at: dict[int, float] = {}
        self.failures: list[str] = []
        self.ready = threading.Event()

    def run(self) -> None:
        tid = self.table["id"]
        try:
            # like a phone at the table: join by the code, then claim a free seat (the rest watch)
            token = _join(self.port, self.table)
            if self.seat < PLAYERS:
                status, answer = _request(self.port, "POST", f"/api/tables/{tid}/seat",
                                          {"seat": self.seat}, token=token)
                if status != 200:
                    self.failures.append(f"seat {status}: {answer}")
            conn = _connect(self.port, 30)
            conn.request("GET", f"/api/tables/{tid}/events?since=0&token={token}")
            resp = conn.getresponse()
            if resp.status != 200:
                self.failures.append(f"events {resp.status}")
                return
            self.ready.set()
            buf = b""
            while not self.stop_event.is_set():
                chunk = resp.read1(4096)
                if not chunk:
                    if not self.stop_event.is_set():
                        self.failures.append("event stream closed")
                    return
                buf += chunk
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    if b"event: version" in block:
                        version = int(block.rsplit(b"data: ", 1)[1])
                        self.event_at.setdefault(version, time.perf_counter())
                        self._fetch_view(tid, token)
        except (OSError, http.client.HTTPException) as err:
            if not self.stop_event.is_set():
                self.failures.append(f"stream: {err!r}")

    def _fetch_view(self, tid: str, token: str) -> None:
        conn = _connect(self.port, 10)
        try:
            conn.request("GET", f"/t/{tid}/view?token={token}")
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                self.failures.append(f"view {resp.status}")
                return
            version = int(resp.getheader("X-Version", "-1"))
            now = time.perf_counter()
            for v in self.event_at:   # a view shows every version up to its own
                if v <= version:
                    self.view_at.setdefault(v, now)
        except (OSError, http.client.HTTPException) as err:
            self.failures.append(f"view: {err!r}")
        finally:
            conn.close()


class Mover(threading.Thread):
    """Taps a legal move on one table every ``period`` seconds (the next game when one ends)."""

    def __init__(self, port: int, table: dict[str, Any], period: float, seconds: float,
                 seed: int) -> None:
        super().__init__(daemon=True)
        self.port, self.table, self.period, self.seconds = port, table, period, seconds
        self.rng = random.Random(seed)
        self.sent_at: dict[int, float] = {}
        self.failures: list[str] = []
        self.requests = 0

    def run(self) -> None:
        tid, token, host = self.table["id"], self.table["token"], self.table["host_token"]
        start = time.perf_counter() + self.rng.random() * self.period   # spread the tables out
        n = 0
        while True:
            due = start + n * self.period
            if due - start > self.seconds:
                return
            time.sleep(max(0.0, due - time.perf_counter()))
            n += 1
            try:
                status, st = _request(self.port, "GET", f"/api/tables/{tid}/state", token=token)
            except (OSError, http.client.HTTPException) as err:
                self.failures.append(f"state: {err!r}")
                continue
            self.requests += 1
            if status != 200:
                self.failures.append(f"state {status}")
                continue
            version = st["version"]
            if st["is_over"]:
                path, body, tok = f"/api/tables/{tid}/next", {"version": version}, host
            elif st["current_player"] == -1:
                path, body, tok = f"/api/tables/{tid}/deal", {"version": version}, token
            else:
                moves = [m["move"] for g in st["groups"] for m in g["moves"]]
                path, body, tok = f"/api/tables/{tid}/move", {"version": version,
                                                              "move": self.rng.choice(moves)}, token
            self.sent_at[version + 1] = time.perf_counter()
            try:
                status, answer = _request(self.port, "POST", path, body, token=tok)
            except (OSError, http.client.HTTPException) as err:
                status, answer = 0, repr(err)
            self.requests += 1
            if status != 200:
                self.sent_at.pop(version + 1, None)
                self.failures.append(f"{path.rsplit('/', 1)[1]} {status}: {answer}")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def start_server(kind: str = "companion", https: bool = False,
                 env_extra: dict[str, str | None] | None = None) -> tuple[subprocess.Popen, int]:
    """A server process on a free loopback port with a fresh database: ``companion serve`` or
    (``kind``) the app on another WSGI server; returns once ``/health`` answers. ``env_extra``:
    environment variables to set (None: to remove) for the server."""
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="bench-web-")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent) + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    for key, value in (env_extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    db = os.path.join(workdir, "bench.db")
    if kind == "companion":
        command = ["-m", "companion", "serve", "--port", str(port), "--db", db] + (["--https"] if https else [])
        # the certificate in the bench's own folder, not the user's data directory
        env["XDG_DATA_HOME"] = workdir
    else:
        command = ["-m", "benchmarks.web", "--serve-with", kind, "--port", str(port), "--db", db] + \
            (["--https"] if https else [])
    if https and not _TLS:
        import ssl
        _TLS.append(ssl._create_unverified_context())   # the server's own self-signed certificate
    # its output to a file: a pipe nobody reads fills up and stops a server that logs requests
    log = open(os.path.join(workdir, "server.log"), "wb")
    server = subprocess.Popen([sys.executable, *command], env=env, cwd=workdir,
                              stdout=subprocess.DEVNULL, stderr=log)
    log.close()
    deadline = time.monotonic() + 30
    while True:
        try:
            if _request(port, "GET", "/health", timeout=1)[0] == 200:
                return server, port
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            raise RuntimeError(f"the {kind} server did not start: "
                               + Path(workdir, "server.log").read_text(errors="replace")[-2000:])
        time.sleep(0.1)


def stop_server(server: subprocess.Popen) -> None:
    """End a server process started by ``start_server``."""
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()


def run(tables: int, phones: int, seconds: float, rate: float, kind: str = "companion",
        https: bool = False) -> dict[str, Any]:
    """Start a server process, load it, and return the figures."""
    server, port = start_server(kind, https)
    try:
        made = []
        for i in range(tables):
            status, t = _request(port, "POST", "/api/tables",
                                 {"game": GAME, "players": PLAYERS, "rounds": 1000})
            if status != 201:
                raise RuntimeError(f"cannot create a table: {t}")
            # the mover is the table's scorekeeper phone (granted by the host): it taps every move
            t["token"] = _join(port, t)
            status, answer = _request(port, "POST", f"/api/tables/{t['id']}/phones",
                                      {"phone": t["token"].split(".")[0], "role": "table"},
                                      token=t["host_token"])
            if status != 200:
                raise RuntimeError(f"cannot make the scorekeeper: {answer}")
            made.append(t)
        stop = threading.Event()
        all_phones = [Phone(port, t, stop, seat) for t in made for seat in range(phones)]
        for p in all_phones:
            p.start()
        for p in all_phones:
            p.ready.wait(10)
        movers = [Mover(port, t, 1.0 / rate, seconds, i) for i, t in enumerate(made)]
        started = time.perf_counter()
        for m in movers:
            m.start()
        for m in movers:
            m.join()
        time.sleep(2.0)          # let the last updates arrive
        threads = _threads(server.pid)   # while every phone's stream is still open
        stop.set()
        elapsed = time.perf_counter() - started
        event_ms, view_ms, missed = [], [], 0
        for table_index, mover in enumerate(movers):
            for phone in all_phones[table_index * phones:(table_index + 1) * phones]:
                for version, sent in mover.sent_at.items():
                    if version in phone.view_at:
                        view_ms.append((phone.view_at[version] - sent) * 1000)
                    else:
                        missed += 1
                    if version in phone.event_at:
                        event_ms.append((phone.event_at[version] - sent) * 1000)
        failures = [f for m in movers for f in m.failures] + [f for p in all_phones for f in p.failures]
        moves = sum(len(m.sent_at) for m in movers)
        return {"tables": tables, "phones_per_table": phones, "seconds": seconds,
                "moves_per_second_per_table": rate, "moves": moves,
                "moves_per_second": round(moves / elapsed, 1),
                "updates_measured": len(view_ms),
                "view_p50_ms": round(statistics.median(view_ms), 1) if view_ms else None,
                "view_p95_ms": round(_percentile(view_ms, 0.95), 1),
                "view_max_ms": round(max(view_ms), 1) if view_ms else None,
                "event_p50_ms": round(statistics.median(event_ms), 1) if event_ms else None,
                "event_p95_ms": round(_percentile(event_ms, 0.95), 1),
                "failed_requests": len(failures), "missed_updates": missed,
                "failures": failures[:10], "cpus": os.cpu_count(), "server": kind, "https": https,
                "server_threads": threads}
    finally:
        stop_server(server)


def _threads(pid: int) -> int:
    """The number of threads of process ``pid`` (Linux /proc; 0 where there is none)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def idle_tls(kind: str, count: int) -> dict[str, Any]:
    """Open ``count`` TCP connections to the HTTPS port that send nothing, then time ``/health``
    over HTTPS (a server that shakes hands in its accept loop waits for each silent one)."""
    import socket
    server, port = start_server(kind, https=True)
    socks = []
    try:
        for _ in range(count):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        times, statuses = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            try:
                statuses.append(_request(port, "GET", "/health", timeout=30)[0])
            except OSError as err:
                statuses.append(type(err).__name__)
            times.append(round((time.perf_counter() - t0) * 1000, 1))
        return {"server": kind, "silent_sockets": count, "health": statuses, "health_ms": times}
    finally:
        for sock in socks:
            sock.close()
        stop_server(server)


def half_open(count: int, marks: tuple[float, ...] = (1, 5, 9, 11, 13, 15)) -> list[dict[str, Any]]:
    """Open ``count`` connections that send half a request line and then nothing; at each mark
    (seconds after the first) report the server threads they still hold and how fast ``/health``
    answers meanwhile."""
    import socket
    from webui import create_app
    from webui.core.server import RunningServer
    app = create_app({"DB": os.path.join(tempfile.mkdtemp(prefix="bench-web-"), "half-open.db")})
    rows: list[dict[str, Any]] = []
    with RunningServer(app) as srv:
        base = threading.active_count()
        socks = []
        started = time.monotonic()
        try:
            for _ in range(count):
                sock = socket.create_connection((srv.host, srv.port), timeout=30)
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0")
                socks.append(sock)
            opened = time.monotonic() - started
            for mark in marks:
                time.sleep(max(0.0, started + mark - time.monotonic()))
                t0 = time.perf_counter()
                status = _request(srv.port, "GET", "/health")[0]
                rows.append({"seconds": mark, "threads_held": threading.active_count() - base,
                             "health_status": status, "health_ms": round((time.perf_counter() - t0) * 1000, 1),
                             "opened_in_s": round(opened, 1)})
        finally:
            for sock in socks:
                sock.close()
    return rows


VIEW_GAMES = (("wheel", 4), ("hills", 2), ("spartacus", 3), ("prussia", 1), ("prussia", 2), ("chains", 3))


def views(steps: int = 20, seed: int = 1) -> list[dict[str, Any]]:
    """The time to render each page a table's screens fetch, per game, in this process (Flask's
    test client on a fresh SQLite file): along a random game of ``steps`` taps, every version's
    host view, scorekeeper view, host page and (where the page has one) the host's override
    picker, each rendered afresh (a new version is never in the view cache)."""
    from webui import create_app
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DB": str(Path(tmp) / "views.db"), "TESTING": True})
        client = app.test_client()
        for game, players in VIEW_GAMES:
            table = client.post("/api/tables", json={"game": game, "players": players}).get_json()
            tid, host = table["id"], table["host_token"]
            keeper = client.post("/api/join", json={"code": table["code"]}).get_json()["token"]
            client.post(f"/api/tables/{tid}/phones", json={"phone": keeper.split(".")[0], "role": "table",
                                                            "version": 0}, headers={"X-Table-Token": host})
            client.set_cookie(f"tch_{tid}", host)   # the host's browser holds its cookie
            pages = {"scorekeeper view": f"/t/{tid}/view?token={keeper}",
                     "host view": f"/t/{tid}/view?token={host}", "host page": f"/host/{tid}",
                     "override picker": f"/t/{tid}/override?token={host}"}
            times: dict[str, list[float]] = {k: [] for k in pages}
            sizes: dict[str, list[int]] = {k: [] for k in pages}
            rng = random.Random(seed)
            for _ in range(steps):
                for name, url in pages.items():
                    start = time.perf_counter()
                    r = client.get(url)
                    if r.status_code == 404 and name == "override picker":
                        continue   # code without the lazy picker
                    assert r.status_code == 200, (name, r.status_code)
                    times[name].append((time.perf_counter() - start) * 1000)
                    sizes[name].append(len(r.data))
                st = client.get(f"/api/tables/{tid}/state", headers={"X-Table-Token": keeper}).get_json()
                if st["is_over"]:
                    break
                if st["current_player"] == -1:
                    client.post(f"/api/tables/{tid}/deal", json={"version": st["version"]},
                                headers={"X-Table-Token": keeper})
                else:
                    moves = [m["move"] for g in st["groups"] for m in g["moves"]]
                    client.post(f"/api/tables/{tid}/move", json={"version": st["version"], "move": rng.choice(moves)},
                                headers={"X-Table-Token": keeper})
            for name in pages:
                if times[name]:
                    rows.append({"game": f"{game} {players}", "page": name, "renders": len(times[name]),
                                 "median_ms": round(statistics.median(times[name]), 1),
                                 "max_ms": round(max(times[name]), 1),
                                 "kB": round(statistics.median(sizes[name]) / 1000, 1)})
    return rows


THREADS = 256
"""Worker threads of the fixed-pool servers: each open event stream holds one."""


def _app(db: str) -> Any:
    from webui import create_app
    return create_app({"DB": db})


def _tls(https: bool) -> tuple[str, str] | None:
    if not https:
        return None
    from webui.core.tls import certificate
    return tuple(map(str, certificate(["127.0.0.1"], os.path.join(os.getcwd(), "tls"))))  # type: ignore[return-value]


def serve_with(kind: str, port: int, db: str, https: bool) -> None:
    """Serve the app on ``kind`` until killed."""
    tls = _tls(https)
    app = _app(db) if kind != "gunicorn" else None   # gunicorn: made in its worker process
    if kind == "werkzeug":
        from werkzeug.serving import make_server
        srv = make_server("127.0.0.1", port, app, threaded=True, ssl_context=tls)
        srv.daemon_threads = True
        srv.serve_forever()
    elif kind == "cheroot-builtin":
        from cheroot import wsgi
        from cheroot.ssl.builtin import BuiltinSSLAdapter
        server = wsgi.Server(("127.0.0.1", port), app, numthreads=THREADS, timeout=10,
                             request_queue_size=128)
        if tls:
            server.ssl_adapter = BuiltinSSLAdapter(*tls)
        server.safe_start()
    elif kind == "waitress":
        if tls:
            sys.exit("waitress has no TLS")
        import waitress
        waitress.serve(app, host="127.0.0.1", port=port, threads=THREADS, channel_timeout=10,
                       connection_limit=2000, _quiet=True)
    elif kind == "gunicorn":
        from gunicorn.app.base import BaseApplication

        class One(BaseApplication):
            def load_config(self) -> None:
                options = {"bind": f"127.0.0.1:{port}", "workers": 1, "worker_class": "gthread",
                           "threads": THREADS, "timeout": 30, "keepalive": 10, "loglevel": "warning",
                           "worker_connections": 2000}
                if tls:
                    options.update(certfile=tls[0], keyfile=tls[1])
                for key, value in options.items():
                    self.cfg.set(key, value)

            def load(self) -> Any:
                return _app(db)

        One().run()
    else:
        sys.exit(f"unknown server {kind}")


ARRIVAL_JS = """(() => { const Plain = window.EventSource; window.__arrived = {};
  window.EventSource = function (url, options) {   // the page's stream: when each view event arrives
    const source = new Plain(url, options);
    source.addEventListener('view', e => { window.__arrived[JSON.parse(e.data).version] = Date.now(); });
    return source; }; })()"""
"""Run before the page's own script: the time each ``view`` event (the view sent with the version)
reaches the page, before the page draws it."""
SEEN_JS = """() => { window.__seen = {}; window.__fetched = {};
  document.body.addEventListener('tc:updated', e => {
    window.__seen[e.detail] = Date.now();
    // a view the page fetched instead (no view event for this version): when its answer came
    const views = performance.getEntriesByType('resource').filter(r => r.name.includes('/view?'));
    const last = views[views.length - 1];
    if (window.__arrived[e.detail] === undefined && last) window.__fetched[e.detail] = performance.timeOrigin + last.responseEnd;
    performance.clearResourceTimings();
  }); }"""
STAGES = (("tap → the move's request reaches the server (browser fetch, HTTP, worker thread, token check)", "tap", "write posted"),
          ("the write waits for the table's lock", "write posted", "write locked"),
          ("the move: engine and store (the commit below)", "write locked", "write done"),
          ("the phone's stream wakes, its view waits its turn (the views drawn before it, the table's lock)", "write done", "view locked"),
          ("its view drawn (the HTML)", "view locked", "view drawn"),
          ("the event made (JSON) and handed to the server", "view drawn", "event sent"),
          ("the event received by the page", "event sent", "arrived"),
          ("the page draws the view (HTML swapped in)", "arrived", "seen"))
"""The stages of a tap → other phone update, one after the other (their times add up to it): the
names of the marks they run between (the server's ``Tables.note`` marks and the pages' own). Each
phone's stream wakes when the write is done, then draws its view under the table's lock."""
EXTRA = (("of it: the store's commit (SQLite)", "commit begins", "committed"),
         ("beside: the write's fsync, after the phones were told (answers the tapper)", "write done", "synced"),
         ("beside: write done → the stream woke", "write done", "stream woke"),
         ("beside: the event sent → its write returned", "event sent", "event written"))
"""Parts inside the stages, told beside them."""
TAP_JS = """([index]) => { const b = document.querySelectorAll('#moves button.mv')[index];
    const t = Date.now(); b.click(); return t; }"""
BUSY = "while True: pass"
"""What each of ``--busy N`` processes runs (at normal priority: the load the goal names)."""


def _stats(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 1), "p95": round(_percentile(values, 0.95), 1),
            "max": round(max(values), 1)} if values else {}


def _stage_report(updates: list[dict[str, float]], total: list[float]) -> dict[str, Any]:
    """Per stage p50/p95/max over every update, and each stage's mean in the slowest 5% of updates
    (where the tail's time goes)."""
    slowest = sorted(range(len(total)), key=total.__getitem__)[-max(1, round(len(total) * 0.05)):]
    tail = [updates[i] for i in slowest]
    out: dict[str, Any] = {}
    for name, a, b in STAGES + EXTRA:
        values = [u[b] - u[a] for u in updates if a in u and b in u]
        slow = [u[b] - u[a] for u in tail if a in u and b in u]
        out[name] = dict(_stats(values), tail_mean=round(statistics.fmean(slow), 1) if slow else None)
    return out


def _serve_clocked(db: str, conn: Any) -> None:
    """The browser bench's server, in a process of its own as ``companion serve`` runs (the
    bench's Playwright client would share its GIL): sends its port, turns the tap clock on when
    told, and sends the clock's marks back when told to stop."""
    from webui import create_app
    from webui.core.server import RunningServer
    from webui.core.warm import warm_up
    app = create_app({"DB": db})
    warm_up(app)
    with RunningServer(app) as srv:
        conn.send(srv.port)
        conn.recv()
        app.extensions["tables"].start_clock()
        conn.send("on")
        conn.recv()
        conn.send(list(app.extensions["tables"].clock or []))


def browser(players: int = 4, taps: int = 60, game: str = "wheel", seed: int = 1,
            busy: int = 0) -> dict[str, Any]:
    """Tap → every other phone updated, in real headless Chromium: one browser context per player
    (390×844, as the phones at a table), each holding its own seat; the seat to move taps a move
    button on its own page and the time runs until each other page has drawn the new version
    (the page's ``tc:updated``, clocked in the pages themselves). The server runs in a process of
    its own, its tap clock on (``Tables.start_clock``), so each update splits into ``STAGES``. ``busy``:
    that many processes spin at normal priority while the taps are measured (the load goal)."""
    import multiprocessing

    import playwright.sync_api as playwright
    rng = random.Random(seed)
    latencies: list[float] = []
    updates: list[dict[str, float]] = []
    how: dict[str, int] = {}
    spinners: list[subprocess.Popen] = []
    load: list[float] = []
    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp, playwright.sync_playwright() as pw:
        conn, theirs = spawn.Pipe()
        server = spawn.Process(target=_serve_clocked, args=(str(Path(tmp) / "browser.db"), theirs), daemon=True)
        server.start()
        port = conn.recv()
        url = f"http://127.0.0.1:{port}"
        chromium = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                      args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        status, table = _request(port, "POST", "/api/tables", {"game": game, "players": players,
                                                                   "rounds": 1000})
        if status != 201:
            raise RuntimeError(f"cannot create a table: {table}")
        tid = table["id"]
        pages, names = [], []
        for seat in range(players):
            token = _join(port, table)
            _request(port, "POST", f"/api/tables/{tid}/seat", {"seat": seat}, token=token)
            ctx = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            # the phone's cookie, as joining by the code leaves it (the page's event stream sends it)
            ctx.add_cookies([{"name": f"tc_{tid}", "value": token, "url": url}])
            ctx.add_init_script(ARRIVAL_JS)
            page = ctx.new_page()
            page.goto(f"{url}/t/{tid}")
            page.wait_for_selector(".gameview")
            page.evaluate(SEEN_JS)
            pages.append(page)
            names.append(token[:8])
        conn.send("clock on")
        conn.recv()
        host = table["host_token"]
        taps_at: dict[int, tuple[float, int]] = {}
        spinners = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(busy)]
        try:
            if busy:
                time.sleep(2.0)   # let the spinners take their share first
            load.append(os.getloadavg()[0])
            done = 0
            while done < taps:
                _, st = _request(port, "GET", f"/api/tables/{tid}/state", token=host)
                if st["is_over"]:
                    _request(port, "POST", f"/api/tables/{tid}/next", {"version": st["version"]}, host)
                    continue
                if st["current_player"] < 0 or st["prompts"]:   # the table's own steps: not measured
                    if st["prompts"]:
                        p = st["prompts"][0]
                        _request(port, "POST", f"/api/tables/{tid}/answer",
                                 {"prompt": p["id"], "choice": p["choices"][0]["id"], "version": st["version"]}, host)
                    else:
                        _request(port, "POST", f"/api/tables/{tid}/deal", {"version": st["version"]}, host)
                    continue
                mover_seat = st["current_player"]
                mover = pages[mover_seat]
                mover.wait_for_function("v => +document.body.dataset.version >= v", arg=st["version"])
                count = mover.locator("#moves button.mv").count()
                if not count:
                    raise RuntimeError(f"no move button on seat {mover_seat}'s page")
                sent = mover.evaluate(TAP_JS, [rng.randrange(count)])
                version = st["version"] + 1
                taps_at[version] = (sent, mover_seat)
                for seat, page in enumerate(pages):
                    if page is not mover:
                        page.wait_for_function("v => window.__seen[v] !== undefined", arg=version, timeout=10000)
                        seen, arrived, fetched = page.evaluate(
                            "v => [window.__seen[v], window.__arrived[v], window.__fetched[v]]", version)
                        latencies.append(seen - sent)
                        u = {"tap": sent, "seen": seen, "seat": seat, "version": version}
                        if arrived is not None:
                            u["arrived"] = arrived
                            how["event"] = how.get("event", 0) + 1
                        else:
                            how["fetch"] = how.get("fetch", 0) + 1
                        updates.append(u)
                done += 1
            load.append(os.getloadavg()[0])
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
        chromium.close()
        conn.send("stop")
        marks = conn.recv()
        server.join(10)
    # the server's marks of each update: the write's (any stream) and that phone's stream's
    by_write: dict[tuple[str, int], float] = {}
    by_stream: dict[tuple[str, int, str], float] = {}
    for stage, table_id, version, who, at in marks:
        if table_id != tid:
            continue
        if who:
            by_stream.setdefault((stage, version, who), at)
        else:
            by_write.setdefault((stage, version), at)
    for u in updates:
        for stage in ("write posted", "write locked", "commit begins", "committed", "write done", "synced"):
            if (stage, u["version"]) in by_write:
                u[stage] = by_write[stage, u["version"]]
        for stage in ("stream woke", "view locked", "view drawn", "event sent", "event written"):
            at = by_stream.get((stage, u["version"], names[int(u["seat"])]))
            if at is not None:
                u[stage] = at
    return {"game": game, "players": players, "taps": done, "updates": len(latencies), "busy": busy,
            "p50_ms": round(statistics.median(latencies), 1), "p95_ms": round(_percentile(latencies, 0.95), 1),
            "max_ms": round(max(latencies), 1), "loadavg": load,
            "stages_ms": _stage_report(updates, latencies), "views_by": how}


def _timed_get(port: int, path: str, cookie: str | None = None) -> tuple[int, float]:
    """GET ``path`` with an optional cookie; (status, wall milliseconds to the last byte)."""
    start = time.perf_counter()
    conn = _connect(port, 30)
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        resp = conn.getresponse()
        resp.read()
        return resp.status, (time.perf_counter() - start) * 1000
    finally:
        conn.close()


def cold(runs: int = 3, pause: float = 0.0) -> list[dict[str, Any]]:
    """A fresh ``companion serve`` (new process, new database) per run: the time until it answers
    ``/health``, then the first host page (``/host``, ``pause`` seconds after ``/health`` answered:
    0 is the worst case, a person opening the printed address takes longer), a second one, and the
    first host screen and phone page of a new table. Wall milliseconds, with the load average.
    The runs share one new cache folder: the first is a server's first start ever (no compiled
    templates kept), the others a later start. The server runs with Python's bytecode files, as an
    installed package has them (this machine's PYTHONDONTWRITEBYTECODE would compile every module)."""
    rows = []
    cache = tempfile.mkdtemp(prefix="bench-cold-cache-")
    for run in range(runs):
        started = time.perf_counter()
        server, port = start_server(env_extra={"XDG_CACHE_HOME": cache, "PYTHONDONTWRITEBYTECODE": None})
        try:
            ready = (time.perf_counter() - started) * 1000
            time.sleep(pause)
            status, first = _timed_get(port, "/host")
            _, second = _timed_get(port, "/host")
            made = time.perf_counter()
            code, table = _request(port, "POST", "/api/tables", {"game": "spartacus", "players": 3})
            made = (time.perf_counter() - made) * 1000
            seen, host_screen = _timed_get(port, f"/host/{table['id']}", f"tch_{table['id']}={table['host_token']}")
            token = _join(port, table)
            shown, phone = _timed_get(port, f"/t/{table['id']}", f"tc_{table['id']}={token}")
            if (status, code, seen, shown) != (200, 201, 200, 200):
                raise RuntimeError(f"/host answered {status}, a new table {code}, its pages {seen} and {shown}")
            rows.append({"start": "first ever" if run == 0 else "later", "ready_ms": round(ready), "first_host_ms": round(first, 1), "second_host_ms": round(second, 1),
                         "new_table_ms": round(made, 1), "first_host_screen_ms": round(host_screen, 1), "first_phone_page_ms": round(phone, 1),
                         "loadavg": os.getloadavg()[0]})
        finally:
            stop_server(server)
    return rows


def main(argv: list[str] | None = None) -> int:
    """``companion bench web [--tables 20 --phones 6 --seconds S --rate R --json]``."""
    p = argparse.ArgumentParser(prog="companion bench web", description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--phones", type=int, default=6, help="phones (SSE clients) per table")
    p.add_argument("--seconds", type=float, default=20.0, help="how long the moves go on")
    p.add_argument("--rate", type=float, default=0.5, help="moves per second on each table")
    p.add_argument("--json", action="store_true")
    p.add_argument("--views", action="store_true",
                   help="instead: time rendering each game's host and scorekeeper pages (in this process)")
    p.add_argument("--half-open", type=int, metavar="N",
                   help="instead: open N silent half-sent connections and report the threads they hold")
    p.add_argument("--server", choices=SERVERS, default="companion",
                   help="the server: companion serve itself (default), or the app on another WSGI "
                        "server to compare (waitress and gunicorn must be installed)")
    p.add_argument("--https", action="store_true", help="over HTTPS (the server's own certificate)")
    p.add_argument("--idle-tls", type=int, metavar="N",
                   help="instead: hold N silent connections to the HTTPS port and time /health")
    p.add_argument("--serve-with", choices=SERVERS[1:], help=argparse.SUPPRESS)   # the server process
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--db", help=argparse.SUPPRESS)
    p.add_argument("--browser", action="store_true",
                   help="instead: tap → every other phone updated in headless Chromium, a context per player")
    p.add_argument("--cold", action="store_true",
                   help="instead: a fresh `companion serve` per run, the first host page and a new table's first pages")
    p.add_argument("--runs", type=int, default=3, help="--cold: fresh servers started")
    p.add_argument("--pause", type=float, default=0.0, help="--cold: seconds between the server answering and "
                                                            "the first page (0: at once, the worst case)")
    p.add_argument("--players", type=int, default=4, help="--browser: players (a phone each)")
    p.add_argument("--taps", type=int, default=60, help="--browser: taps measured")
    p.add_argument("--busy", type=int, default=0,
                   help="--browser: that many busy loops (normal priority) while the taps are measured")
    args = p.parse_args(argv)
    if args.serve_with:
        serve_with(args.serve_with, args.port, args.db, args.https)
        return 0
    if args.idle_tls is not None:
        row = idle_tls(args.server, args.idle_tls)
        print(json.dumps(row) if args.json else
              f"{row['server']}: {row['silent_sockets']} silent TLS sockets, /health {row['health']} "
              f"in {row['health_ms']} ms")
        return 0 if row["health"] == [200, 200, 200] else 1
    if args.cold:
        rows = cold(args.runs, args.pause)
        if args.json:
            print(json.dumps(rows, indent=2))
        for r in rows:
            print(f"{r['start']:>10} start: ready in {r['ready_ms']} ms; first /host {r['first_host_ms']} ms "
                  f"(then {r['second_host_ms']} ms), a new table {r['new_table_ms']} ms, its host screen {r['first_host_screen_ms']} ms, "
                  f"phone page {r['first_phone_page_ms']} ms  (load average {r['loadavg']:.1f})")
        worst = max(max(r["first_host_ms"], r["first_host_screen_ms"], r["first_phone_page_ms"]) for r in rows)
        print(f"worst first page (the host page, a new table's host screen or phone page): {worst:.0f} ms "
              f"(goal: under 300 ms)")
        return 0
    if args.browser:
        report = browser(args.players, args.taps, busy=args.busy)
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            load = " → ".join(f"{x:.1f}" for x in report["loadavg"])
            print(f"{report['game']} {report['players']} phones, {report['taps']} taps"
                  f"{f', {args.busy} busy loops' if args.busy else ''}: tap → every other phone "
                  f"updated p50 {report['p50_ms']} ms, p95 {report['p95_ms']} ms, max {report['max_ms']} ms "
                  f"({report['updates']} updates; load average {load})")
            print(f"  {'stage (one after the other; ms)':<100} {'p50':>6} {'p95':>6} {'max':>6} {'slowest 5%':>10}")
            for name, row in report["stages_ms"].items():
                if row.get("p50") is not None:
                    print(f"  {name:<100} {row['p50']:>6} {row['p95']:>6} {row['max']:>6} {row['tail_mean'] or 0:>10}")
            print(f"  views reached the pages by: {report['views_by']}  (slowest 5%: that stage's mean in the "
                  f"slowest 5% of updates)")
        return 0
    if args.views:
        rows = views()
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for r in rows:
                print(f"{r['game']:<12} {r['page']:<17} median {r['median_ms']:>6} ms  max {r['max_ms']:>6} ms  "
                      f"{r['kB']:>6} kB  ({r['renders']} renders)")
        return 0
    if args.half_open:
        rows = half_open(args.half_open)
        if args.json:
            print(json.dumps(rows, indent=2))
        for r in rows:
            print(f"t={r['seconds']:>4} s: threads held {r['threads_held']:>5}, /health {r['health_status']} "
                  f"in {r['health_ms']} ms  (all {args.half_open} opened in {r['opened_in_s']} s)")
        return 0 if rows and rows[-1]["health_status"] == 200 else 1
    if min(args.tables, args.phones) < 1 or args.seconds <= 0 or args.rate <= 0:
        p.error("tables and phones must be at least 1; seconds and rate above 0")
    report = run(args.tables, args.phones, args.seconds, args.rate, args.server, args.https)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['server']}{' over HTTPS' if args.https else ''}: {report['tables']} tables × "
              f"{report['phones_per_table']} phones, {report['moves']} moves in {report['seconds']} s "
              f"({report['moves_per_second']}/s), {report['server_threads']} server threads")
        print(f"move → every phone has the new view: p50 {report['view_p50_ms']} ms, "
              f"p95 {report['view_p95_ms']} ms, max {report['view_max_ms']} ms "
              f"({report['updates_measured']} updates)")
        print(f"move → event arrives:                p50 {report['event_p50_ms']} ms, "
              f"p95 {report['event_p95_ms']} ms")
        print(f"failed requests: {report['failed_requests']}, missed updates: {report['missed_updates']}")
        for f in report["failures"]:
            print("  ", f)
    ok = report["failed_requests"] == 0 and report["missed_updates"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    run_main(main)
