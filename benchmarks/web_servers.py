"""The web app on other WSGI servers, to compare them with ``companion serve`` (``companion bench
web --server NAME``): ``python -m benchmarks.web_servers NAME PORT DB [--https]``.

werkzeug: the development server ``companion serve`` used before (threaded, TLS in the accept
loop); cheroot-builtin: cheroot with its own TLS adapter (handshake in the accept loop); waitress:
an asyncore loop and a fixed pool of worker threads, no TLS; gunicorn: one process of ``gthread``
workers (Unix only; the app's tables and their change hub live in one process). waitress and
gunicorn are not dependencies: install them to compare.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any

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


def serve(kind: str, port: int, db: str, https: bool) -> None:
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


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and serve."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.web_servers")
    p.add_argument("kind", choices=("werkzeug", "cheroot-builtin", "waitress", "gunicorn"))
    p.add_argument("port", type=int)
    p.add_argument("db")
    p.add_argument("--https", action="store_true")
    args = p.parse_args(argv)
    serve(args.kind, args.port, args.db, args.https)
    return 0


if __name__ == "__main__":
    sys.exit(main())
