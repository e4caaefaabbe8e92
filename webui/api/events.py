"""Server-Sent Events: every phone of a table hears of each new state version within a second.

The stream sends the version number; the page then fetches the view for that version, so a phone
that slept and missed several versions simply catches up with one fetch. The page's own stream
(``?inline=1``) sends the view itself with each version instead (a ``view`` event: the version, the
pokes, the role and the view's HTML), which saves the fetch after every tap (issue 23).
"""
from __future__ import annotations

from flask import Blueprint, Response, current_app, request, stream_with_context

from webui.core.common import get_session, require_role, tables, token_for, whole_number
from webui.core.tables import iter_sse

bp = Blueprint("events", __name__)


@bp.get("/api/tables/<table_id>/events")
def stream(table_id: str) -> Response:
    """``text/event-stream`` of ``version`` events (and ``notice`` events for the host)."""
    require_role(table_id, "player", allow_cookie=True)
    get_session(table_id)
    since = request.headers.get("Last-Event-ID") or request.args.get("since") or "-1"
    version = whole_number(since)
    if version is None:
        version = -1
    keepalive = float(current_app.config["SSE_KEEPALIVE"])
    seen_pokes = whole_number(request.args.get("pokes", ""))
    registry, token = tables(), token_for(table_id, allow_cookie=True)
    # a phone the host removes hears nothing more on its open stream: the token is asked again
    # after every wake-up
    # ?inline=1 (the page's own stream): each new version comes as a ``view`` event holding this
    # phone's view (its seat and language from this request), so the page draws it at once
    draw = current_app.extensions.get("view_answer") if request.args.get("inline") == "1" else None
    body = stream_with_context(iter_sse(registry, table_id, version, keepalive, seen_pokes=seen_pokes,
                                        allowed=lambda: registry.role(table_id, token) is not None,
                                        draw=(lambda: draw(table_id)) if draw else None,
                                        who=(token or "")[:8]))
    return Response(body, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
