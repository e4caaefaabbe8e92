"""Run the web app on a real socket (threaded werkzeug server): for ``companion serve``, the
browser tests and the benchmark."""
from __future__ import annotations

import socket
import threading
from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server


REQUEST_TIMEOUT = 10.0
"""Seconds a connection may stay silent while the server waits for (the rest of) a request's
headers or body; then the connection and its thread are let go. 800 half-open connections thus
hold their 800 threads for 10 s, not forever (measured in docs/webui.md)."""


class QuietHandler(WSGIRequestHandler):
    """A request handler that does not print one line per request (phones poll the camera), and
    never prints a query string (it may carry a table's token)."""

    timeout = REQUEST_TIMEOUT   # socketserver sets it on the connection: bounded header/body reads

    def log_error(self, format: str, *args: Any) -> None:
        """A silent connection let go at the timeout is expected (a phone went away): no line."""
        if "timed out" not in format:
            super().log_error(format, *args)

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        """Only errors are worth a line: method, path without the query, status."""
        if str(code).startswith("5"):
            path = urlsplit(getattr(self, "path", "") or "").path
            self.log("error", "%s %s %s", getattr(self, "command", "-"), path, code)


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
        handler = type("Handler", (QuietHandler,), {"timeout": request_timeout})
        self.server: BaseWSGIServer = make_server(host, port or free_port(host), app, threaded=True,
                                                   request_handler=handler,
                                                   ssl_context=tuple(map(str, tls)) if tls else None)
        self.server.daemon_threads = True
        self.host, self.port = host, self.server.server_port
        self.scheme = "https" if tls else "http"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True, name="webui")

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
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "RunningServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
