"""Shared helpers of the blueprints: the table registry, language, tokens and JSON errors."""
from __future__ import annotations

import re
from typing import Any, NoReturn

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException

from webui.core import guard, render
from webui.core.errors import HTTP_SAYS, error_answer
from webui.core.i18n import (LANGUAGE_NAMES, N_, Text, both, choice_words, lang, nt, option_words, pick, player_count,
                             pt, t)
from webui.core.tables import Caller, Tables

TOKEN_HEADER = "X-Table-Token"


class ApiError(Exception):
    """A refused request: HTTP status and a message that says what to do."""

    def __init__(self, status: int, message: str | Text, **extra: Any) -> None:
        """``extra`` goes into the JSON answer; ``ja`` is the Japanese message where given (a
        ``Text`` message brings its own)."""
        if isinstance(message, Text):
            message, extra = message.en, {"ja": message.ja, **extra}
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


def get_session(table_id: str) -> Any:
    """The open session, or a 404 that says how to find the table."""
    session = session_module()
    try:
        return tables().get(table_id)
    except session.SessionError:
        raise ApiError(404, both("There is no table {table_id!r}. Check the join code on the host screen.", table_id=table_id)) from None


def request_json() -> Any:
    """The request's JSON (None if it is not JSON); too deep or too large bodies are refused here,
    before anything else reads them."""
    if not request.is_json:
        return None
    try:
        return request.get_json(silent=True)
    except RecursionError:
        raise ApiError(400, both("The JSON is nested too deeply; send a flat object such as {\"version\": 3, "
                                 "\"move\": {...}}.")) from None


def token_for(table_id: str, *, allow_cookie: bool) -> str | None:
    """The token a request presents for ``table_id`` (header, JSON body, query, or cookie)."""
    token = request.headers.get(TOKEN_HEADER)
    if not token:
        body = request_json()
        if isinstance(body, dict) and isinstance(body.get("token"), str):
            token = body["token"]
    if not token:
        token = request.args.get("token")
    if not token and allow_cookie:
        token = next((t for t in cookie_tokens(table_id) if t), None)
    return token


def cookie_tokens(table_id: str) -> tuple[str | None, str | None]:
    """This browser's tokens for the table from its cookies: the phone's, then the host's; the host's
    first for the host page's requests (``?as=host``): one browser may hold both (a table with one
    phone, the host screen that also took a seat), and the host screen must stay the host's."""
    phone, host = request.cookies.get(f"tc_{table_id}"), request.cookies.get(f"tch_{table_id}")
    return (host, phone) if request.args.get("as") == "host" else (phone, host)


def caller(table_id: str, *, allow_cookie: bool = False) -> Caller:
    """Who is asking (401 unless the request carries a token of this table)."""
    found = tables().caller(table_id, token_for(table_id, allow_cookie=allow_cookie))
    if found is None:
        raise ApiError(401, both("Join the table first (scan its QR code or type its code): only phones that "
                                 "joined may act on it."))
    return found


def host_by_cookie(table_id: str) -> Caller | None:
    """The host, by the host's cookie, or None: one browser may hold a seat's phone cookie too (a
    table with one phone, the host screen that also took a seat), which ``token_for`` reads first."""
    found = tables().caller(table_id, request.cookies.get(f"tch_{table_id}"))
    return found if found is not None and found.role == "host" else None


def require_role(table_id: str, needed: str, *, allow_cookie: bool = False) -> Caller:
    """Refuse (401/403) unless the request carries a token of ``needed`` ("player": any joined
    phone or the host; "host": the host only)."""
    found = caller(table_id, allow_cookie=allow_cookie)
    if needed == "host" and found.role != "host" and allow_cookie:
        found = host_by_cookie(table_id) or found
    if needed == "host" and found.role != "host":
        raise ApiError(403, both("Only the host may do this (undo, override, end or start a game, seats). "
                                 "Ask the host."))
    return found


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a 400 saying what was expected."""
    if not request.is_json:
        raise ApiError(415, both("Send a JSON object with Content-Type: application/json."))
    body = request_json()
    if not isinstance(body, dict):
        raise ApiError(400, both("The body is not a JSON object; send e.g. {\"version\": 3, ...}."))
    return body


def whole_number(value: Any) -> int | None:
    """``value`` as a whole number if it is one (an int, or a string of ASCII digits), else None.

    ``str.isdigit`` accepts '²' and '①', which ``int`` then refuses: only 0–9 count here."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"-?[0-9]{1,9}", text):
            return int(text)
    return None


def expected_version(body: dict[str, Any]) -> int:
    """The state version a write was based on (required, so stale writes can be refused)."""
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ApiError(400, both("Every write must carry \"version\": the state version it was based on (a "
                                 "whole number from the last state you fetched)."))
    return version


def fail(status: int, message: str | Text, **extra: Any) -> NoReturn:
    """Raise an ``ApiError``."""
    raise ApiError(status, message, **extra)


def too_many(wait: float, what: Text) -> NoReturn:
    """Refuse with 429: what was too many, and how long to wait in words (``Retry-After`` in seconds)."""
    seconds = guard.retry_after(wait)
    fail(429, both("{what}: wait {wait}, then try again.", what=what, wait=guard.wait_words(seconds)),
         retry_after=seconds)


def install_helpers(app: Flask) -> None:
    """Error handlers (JSON for machines, short pages in the page's language for browsers),
    request checks and template globals."""

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> tuple[Response, int]:
        extra = dict(err.extra)
        return error_answer(err.status, err.message, extra.pop("ja", ""), **extra)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Any:
        code = err.code or 500
        message, ja = {
            413: both("The request is too large (limit {most} bytes).", most=app.config["MAX_CONTENT_LENGTH"]),
            404: both("No such page or API route; see docs/webui.md for the routes."),
            405: both("This route does not take that method (writes are POST)."),
        }.get(code, (err.description or err.name, ""))
        if not ja:   # a status Werkzeug raised with its own English words: say what it means
            ja = t(HTTP_SAYS.get(code, N_("The request could not be handled ({code}).")), "ja", code=code)
        return error_answer(code, message, ja)

    @app.errorhandler(Exception)
    def _crash(err: Exception) -> Any:
        if isinstance(err, RecursionError):   # a hostile body that slipped past request_json
            return error_answer(400, *both("The request is nested too deeply."))
        app.logger.error("error on %s %s: %s", request.method, request.path, type(err).__name__,
                         exc_info=err)   # the path only: a query string may carry a token
        return error_answer(500, *both("Something went wrong on the server; nothing was changed. Try again."))

    guard.install(app)
    app.jinja_env.globals.update(t=t, pt=pt, nt=nt, N_=N_, LANGUAGE_NAMES=LANGUAGE_NAMES, pick=pick, csrf_token=guard.csrf_token, chip=render.chip, card_name=render.card_name,
                                 short=render.short, seat_name=render.seat_name,
                                 event_text=render.event_text, slot_label=render.slot_label,
                                 circle_xy=render.circle_xy, result_words=render.result_words,
                                 shows_total=render.shows_total, option_words=option_words,
                                 choice_words=choice_words, player_count=player_count,
                                 move_picker=render.move_picker, override_picker=render.override_picker,
                                 deal_words=render.deal_words, end_rows=render.end_rows,
                                 phone_words=render.phone_words)
