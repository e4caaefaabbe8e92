"""The phone web UI: a Flask app that shows every table's state live and takes tapped moves.

``create_app(config)`` builds the app; ``companion serve`` (webui/cli.py) runs it. Pages are rendered
on the server; a small script (webui/static/app.js) listens to Server-Sent Events and swaps in the fresh
game view when the table's version changes. Each blueprint is a folder with its routes, templates and
static files (phone, host, api with events, camera, history, printing, rules) over ``webui.core``;
the templates and static files several blueprints share (base.html, view.html, app.css, app.js ...)
stay in webui/templates and webui/static, on the app.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from flask import Flask, current_app, send_from_directory

MAX_BODY = 64 * 1024
"""Largest request body accepted (an observation of the whole Chains table is ~10 kB)."""


def default_db() -> str:
    """The default SQLite file in the user's data directory (shared with ``companion session``)."""
    import platformdirs
    return str(Path(platformdirs.user_data_dir("table-companion")) / "companion.db")


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The web app. Config keys: ``DB`` (SQLite path), ``PUBLIC_URL`` (what the join QR points at),
    ``FRAME_SOURCE`` (callable(table_id) -> (bytes, mimetype) or None: the camera view),
    ``TESTING``, ``SSE_KEEPALIVE`` (seconds)."""
    from webui.api import api, events
    from webui.camera import camera_page
    from webui.companion import routes as companion
    from webui.core.common import install_helpers
    from webui.core.tables import Tables
    from webui.history import routes as history
    from webui.host import routes as host
    from webui.phone import routes as phone
    from webui.printing import routes as printing
    from webui.rules import rules

    app = Flask(__name__)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY, DB=None, PUBLIC_URL=None, FRAME_SOURCE=None,
                      SSE_KEEPALIVE=15.0, JSON_SORT_KEYS=False)
    app.config.update(dict(config or {}))
    db = app.config["DB"] or default_db()
    app.config["DB"] = db
    app.extensions["tables"] = Tables(db)
    app.json.ensure_ascii = False
    install_helpers(app)
    for bp in (phone.bp, host.bp, api.bp, events.bp, camera_page.bp, history.bp, printing.bp, rules.bp,
               companion.bp):
        app.register_blueprint(bp)
    app.add_url_rule("/favicon.ico", "favicon", favicon)
    return app


def favicon() -> Any:
    """The site's small icon (a card on the accent colour): browsers ask for it on every page."""
    return send_from_directory(current_app.static_folder or "static", "favicon.ico",
                               mimetype="image/vnd.microsoft.icon", max_age=7 * 86400)
