"""Shared helpers of the blueprints: the table registry, language, tokens and JSON errors."""
from __future__ import annotations

from typing import Any, NoReturn

from flask import Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from webui import render
from webui.i18n import LANGS, choice_words, option_words, pick, player_count, t
from webui.rules import rule_link
from webui.tables import Tables

TOKEN_HEADER = "X-Table-Token"


class ApiError(Exception):
    """A refused request: HTTP status and a message that says what to do."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


def tables() -> Tables:
    """This app's table registry."""
    return current_app.extensions["tables"]


def session_module() -> Any:
    """``companion.session`` (imported late: the web app loads without it)."""
    from companion import session
    return session


def lang() -> str:
    """The page language: ``?lang=``, then the ``lang`` cookie, then the browser's preference."""
    wanted = request.args.get("lang") or request.cookies.get("lang")
    if wanted in LANGS:
        return wanted
    return request.accept_languages.best_match(LANGS, default="en") or "en"


def get_session(table_id: str) -> Any:
    """The open session, or a 404 that says how to find the table."""
    session = session_module()
    try:
        return tables().get(table_id)
    except session.SessionError:
        raise ApiError(404, f"There is no table {table_id!r}. Check the join code on the host "
                            f"screen.") from None


def token_for(table_id: str, *, allow_cookie: bool) -> str | None:
    """The token a request presents for ``table_id`` (header, JSON body, query, or cookie)."""
    token = request.headers.get(TOKEN_HEADER)
    if not token and request.is_json:
        body = request.get_json(silent=True)
        if isinstance(body, dict) and isinstance(body.get("token"), str):
            token = body["token"]
    if not token:
        token = request.args.get("token")
    if not token and allow_cookie:
        token = request.cookies.get(f"tch_{table_id}") or request.cookies.get(f"tc_{table_id}")
    return token


def require_role(table_id: str, needed: str, *, allow_cookie: bool = False) -> str:
    """Refuse (401/403) unless the request carries a token of ``needed`` ("player" or "host")."""
    role = tables().role(table_id, token_for(table_id, allow_cookie=allow_cookie))
    if role is None:
        raise ApiError(401, "Join the table first (scan its QR code or type its code): only phones "
                            "that joined may act on it.")
    if needed == "host" and role != "host":
        raise ApiError(403, "Only the host may do this (undo, override, end or start a game). Ask "
                            "the host.")
    return role


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a 400 saying what was expected."""
    if not request.is_json:
        raise ApiError(415, "Send a JSON object with Content-Type: application/json.")
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ApiError(400, "The body is not a JSON object; send e.g. {\"version\": 3, ...}.")
    return body


def expected_version(body: dict[str, Any]) -> int:
    """The state version a write was based on (required, so stale writes can be refused)."""
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ApiError(400, "Every write must carry \"version\": the state version it was based on "
                            "(a whole number from the last state you fetched).")
    return version


def fail(status: int, message: str, **extra: Any) -> NoReturn:
    """Raise an ``ApiError``."""
    raise ApiError(status, message, **extra)


def install_helpers(app: Flask) -> None:
    """Error handlers (JSON for /api/, short pages elsewhere) and template globals."""

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> tuple[Response, int]:
        return jsonify({"error": err.message, **err.extra}), err.status

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Any:
        if request.path.startswith("/api/"):
            message = {413: f"The request is too large (limit {app.config['MAX_CONTENT_LENGTH']} "
                            f"bytes).",
                       404: "No such API route; see docs/webui.md for the routes.",
                       405: "This route does not take that method (writes are POST)."}.get(
                err.code or 0, err.description or err.name)
            return jsonify({"error": message}), err.code
        return err

    app.jinja_env.globals.update(t=t, pick=pick, chip=render.chip, card_name=render.card_name,
                                 short=render.short, seat_name=render.seat_name,
                                 event_text=render.event_text, slot_label=render.slot_label, rule_link=rule_link,
                                 circle_xy=render.circle_xy, result_words=render.result_words,
                                 shows_total=render.shows_total, option_words=option_words,
                                 choice_words=choice_words, player_count=player_count,
                                 move_picker=render.move_picker, override_picker=render.override_picker)
