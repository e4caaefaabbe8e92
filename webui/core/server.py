"""Run the web app on a real socket: ``companion serve``, the browser tests and the benchmarks.

The server is cheroot (CherryPy's WSGI server, pure Python, on every OS), chosen by measurement
(docs/figures.md, "Web server"; the why in docs/webui.md, "The server"):

- a connection that sends nothing waits in cheroot's selector and holds no thread;
- a connection with a request in progress, or an open event stream, holds one worker thread: the
  pool grows with them (``GrowingPool``, up to ``MAX_THREADS``) and lets spare threads go again, so
  120 phones' event streams and 800 half-sent requests are all served, as the threaded development
  server served them;
- over HTTPS the TLS handshake runs in the worker thread on the connection's first read
  (``WorkerTLS``), never in the accept loop: cheroot's own adapter shakes hands in the loop that
  accepts every connection, so one silent socket held every new client for the timeout.
"""
from __future__ import annotations

import logging
import queue
import socket
import ssl
import threading
from typing import Any

from cheroot import wsgi
from cheroot.ssl.builtin import BuiltinSSLAdapter
from cheroot.workers import threadpool
from flask import Flask

REQUEST_TIMEOUT = 10.0
"""Seconds a connection may stay silent while the server waits for (the rest of) a request's
headers or body, or for a slow phone to take a write; then the connection and its thread are let
go. 800 half-open connections thus hold their 800 threads for 10 s, not forever (docs/webui.md)."""
MIN_THREADS = 8
"""Worker threads kept even when nothing happens."""
MAX_THREADS = 2000
"""At most this many requests at once (each open event stream is one): a café of 20 tables of 10
phones holds 200 streams; a client past the cap waits in the accept queue."""
SPARE_IDLE = 2.0
"""Seconds a worker above ``MIN_THREADS`` may sit idle before it ends."""
MAX_HEADER = 32 * 1024
"""Largest request line plus headers (a long query string carries at most a token)."""

log = logging.getLogger("webui.server")


class GrowingPool(threadpool.ThreadPool):
    """cheroot's worker pool, grown by one thread whenever a connection finds none idle (an event
    stream holds its thread for its life) and shrunk again when threads sit idle."""

    def __init__(self, server: Any, min_threads: int, max_threads: int, spare_idle: float) -> None:
        super().__init__(server, min=min_threads, max=max_threads)
        self._spare_idle = spare_idle
        self._sizing = threading.Lock()
        self.get = self._get   # the workers call pool.get() for their next connection

    def _spawn_worker(self) -> threadpool.WorkerThread:
        # daemon threads: a `companion serve` that gives up before serving (no such camera)
        # exits instead of waiting for workers nobody will stop
        worker = threadpool.WorkerThread(self.server)
        worker.daemon = True
        worker.name = f"webui worker {worker.name}"
        worker.start()
        return worker

    def put(self, obj: Any) -> None:
        """Queue a connection for the workers; start one more worker if none is free."""
        with self._sizing:
            self._clear_dead_threads()
            if self.idle <= self._queue.qsize() and len(self._threads) < self.max:
                # not grow(): it sleeps 0.1 s until the new thread is ready, in the accept loop
                self._threads.append(self._spawn_worker())
        super().put(obj)

    def _get(self) -> Any:
        while True:
            try:
                return self._queue.get(timeout=self._spare_idle)
            except queue.Empty:
                with self._sizing:
                    me = threading.current_thread()
                    alive = [t for t in self._threads if t.is_alive()]
                    if len(alive) > self.min and me in self._threads:
                        self._threads.remove(me)
                        return threadpool._SHUTDOWNREQUEST   # this worker ends


class WorkerTLS(BuiltinSSLAdapter):
    """TLS with the handshake on the connection's first read, in its worker thread (under the
    request timeout), not in the accept loop where one silent client holds everyone."""

    def wrap(self, sock: socket.socket) -> tuple[ssl.SSLSocket, dict[str, str]]:
        """The connection wrapped without shaking hands yet, and its WSGI environ entries."""
        wrapped = self.context.wrap_socket(sock, do_handshake_on_connect=False, server_side=True)
        return wrapped, {"wsgi.url_scheme": "https", "HTTPS": "on"}


class _Server(wsgi.Server):
    """cheroot's WSGI server that tells only real trouble (a phone that went away, a failed or
    plain-HTTP handshake and a silent connection let go are ordinary), through ``logging``."""

    # the selector wakes every 100 ms instead of cheroot's 500: ``stop()`` waits for its next wake,
    # so every stop (Ctrl+C, each test's server) took up to half a second of nothing (now ~15 ms);
    # an idle server's CPU goes from ~1.1 to ~3-4 ms a second (two runs at load ~10)
    expiration_interval = 0.1

    def error_log(self, msg: str = "", level: int = 20, traceback: bool = False) -> None:
        """One line for errors (never a query string: cheroot's lines name no request)."""
        if level >= logging.ERROR or (traceback and level >= logging.WARNING):
            log.log(level, "%s", msg, exc_info=traceback)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class RunningServer:
    """A server started in a background thread; ``stop()`` shuts it down."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0,
                 tls: tuple[str, str] | None = None,
                 request_timeout: float = REQUEST_TIMEOUT) -> None:
        """Serve ``app`` on ``host``:``port`` (0: a free one); over HTTPS with ``tls`` (certificate
        and key files, see ``webui.core.tls``); a silent connection is let go after ``request_timeout`` s."""
        self.app = app
        self.server = _Server((host, port), app, numthreads=MIN_THREADS, timeout=request_timeout,
                              request_queue_size=128,
                              shutdown_timeout=2, server_name="table-companion")
        self.server.max_request_header_size = MAX_HEADER
        self.server.requests = GrowingPool(self.server, MIN_THREADS, MAX_THREADS, SPARE_IDLE)
        if tls:
            self.server.ssl_adapter = WorkerTLS(*map(str, tls))
        self.server.prepare()       # binds now: a taken port fails here, in the caller
        self.host, self.port = host, self.server.bind_addr[1]
        self.scheme = "https" if tls else "http"
        self.thread = threading.Thread(target=self.server.serve, daemon=True, name="webui")

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:5123``."""
        return f"{self.scheme}://{self.host}:{self.port}"

    def start(self) -> "RunningServer":
        """Start serving in the background; return self."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and let waiting event streams end."""
        cameras = self.app.extensions.get("cameras")
        if cameras is not None:     # phone cameras' pipelines stop before the sessions close
            cameras.close()
        self.app.extensions["tables"].close()
        self.server.stop()
        self.thread.join(5)

    def __enter__(self) -> "RunningServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
