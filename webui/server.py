"""Run the web app on a real socket (threaded werkzeug server): for ``companion serve``, the
browser tests and the benchmark."""
from __future__ import annotations

import socket
import threading
from typing import Any

from flask import Flask
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server


class QuietHandler(WSGIRequestHandler):
    """A request handler that does not print one line per request (phones poll the camera)."""

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        """Only errors are worth a line."""
        if str(code).startswith("5"):
            super().log_request(code, size)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class RunningServer:
    """A server started in a background thread; ``stop()`` shuts it down."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0,
                 tls: tuple[str, str] | None = None) -> None:
        """Serve ``app`` on ``host``:``port`` (0: a free one); over HTTPS with ``tls`` (certificate
        and key files, see ``webui.tls``)."""
        self.app = app
        self.server: BaseWSGIServer = make_server(host, port or free_port(host), app, threaded=True,
                                                   request_handler=QuietHandler,
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
