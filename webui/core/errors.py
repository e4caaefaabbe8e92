"""Error answers: JSON for machines, a short page in the page's language for browsers. Below both
common.py (the blueprints' helpers) and guard.py (the request checks), which answer with them."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify, make_response, render_template, request

from webui.core.i18n import N_, both, lang, pick

HTTP_WORDS = {400: both("Bad request"), 401: both("Join the table first"),
              403: both("Not allowed"), 404: both("Not found"),
              405: both("Wrong method"), 409: both("The table changed"),
              413: both("Too large"), 415: both("Not JSON"),
              421: both("Wrong address"), 422: both("Not allowed by the rules"),
              410: both("Gone"), 429: both("Too many attempts"),
              500: both("Server error"), 503: both("Not available")}
"""The heading of an HTML error page per status."""
HTTP_SAYS = {
    400: N_("The request could not be read. Reload the page and try again."),
    401: N_("Join the table first."),
    403: N_("This is not allowed."),
    408: N_("The request did not arrive in time. Try again."),
    410: N_("This page is gone."),
    411: N_("The request has no length."),
    416: N_("That range cannot be returned."),
    431: N_("The request's headers are too large."),
    501: N_("This method is not supported."),
    503: N_("Not available now. Try again in a while."),
}
"""What the statuses Werkzeug raises with its own English words mean, for a Japanese reader (the
English reader gets Werkzeug's words)."""


def wants_json() -> bool:
    """Machines get JSON errors (the API, or a client that prefers JSON); browsers get a page."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_answer(status: int, message: str, ja: str = "", **extra: Any) -> tuple[Response, int]:
    """An error as JSON or as a short HTML page in the page's language."""
    if wants_json():
        # "error" in the language the phone asked for (the page shows it as it is); both kept
        body = {"error": pick(message, ja, lang()), **extra, "en": extra.get("reason", message)}
        if ja:
            body["ja"] = ja
        resp = jsonify(body)
    else:
        language = lang()
        title = HTTP_WORDS.get(status, (str(status), str(status)))
        resp = make_response(render_template("error.html", lang=language, status=status,
                                             title=pick(title[0], title[1], language),
                                             message=pick(message, ja, language)))
    if status == 429 and "retry_after" in extra:
        resp.headers["Retry-After"] = str(extra["retry_after"])
    return resp, status
