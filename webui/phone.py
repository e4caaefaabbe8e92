"""The phone pages: join by code or QR, the live game view of a table, and the rules at hand."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Response, abort, make_response, redirect, render_template, request, url_for

from companion.games import GAME_IDS, game_class
from webui.api import state_for
from webui.common import get_session, lang, tables
from webui.render import score_chart
from webui.rules import rules_page

bp = Blueprint("phone", __name__)

COOKIE_AGE = 7 * 24 * 3600


def redirect_with_token(url: str, cookie: str, token: str) -> Response:
    """A redirect that also stores a table token in a cookie (joined phones and the host alike)."""
    resp = redirect(url)
    resp.set_cookie(cookie, token, max_age=COOKIE_AGE, samesite="Lax", httponly=True)
    return resp


def seat_of(s: Any) -> int | None:
    """The seat this phone shows (``?seat=`` or its cookie); None shows the whole table."""
    raw = request.args.get("seat", request.cookies.get(f"seat_{s.id}", ""))
    if raw.isdigit() and int(raw) < s.players:
        return int(raw)
    return None


def view_context(s: Any, seat: int | None, language: str, role: str) -> dict[str, Any]:
    """Everything the game-view templates need."""
    st = state_for(s, seat, language)
    series = st.get("series") or {}
    names = st.get("names") or [f"P{i + 1}" for i in range(s.players)]
    return {"st": st, "s": s, "game": s.game_id, "seat": seat, "lang": language, "role": role,
            "names": names, "view": st.get("view") or {}, "layout": st.get("layout") or {},
            "chart": score_chart(series.get("games") or [], names),
            "undo_request": tables().undo_requests.get(s.id) if role == "host" else None,
            "extra": game_extra(s)}


def game_extra(s: Any) -> dict[str, Any]:
    """Public facts a game view shows beyond the layout, read from the engine (never a hand)."""
    game = s.game
    turn = game.current_player()
    if s.game_id in ("wheel", "chains"):  # everything is public in these games
        return dict(game.player_view(max(turn, 0)))
    if s.game_id == "hills":
        view = game.player_view(0)
        return {"forbidden": game.forbidden_hills(turn) if turn >= 0 else {},
                "leading": view.get("leading", {}), "hand_count": view.get("hand_count", []),
                "start_player": view.get("start_player", 0)}
    if s.game_id == "spartacus":
        view = game.player_view(0)
        return {k: view[k] for k in ("trick", "passed", "leader", "won", "won_worth", "hand_sizes",
                                     "out") if k in view} | {"breakdown": view.get("breakdown")}
    if s.game_id == "prussia":
        table = getattr(game, "table", None)
        return {"kings": getattr(table, "kings", None), "phase": getattr(game, "phase", None),
                "drawn": getattr(game, "drawn", None), "solo": game.players == 1,
                "result": getattr(table, "result", None)}
    return {}


def _role(table_id: str) -> str | None:
    token = request.args.get("token") or request.cookies.get(f"tch_{table_id}") \
        or request.cookies.get(f"tc_{table_id}")
    return tables().role(table_id, token)


@bp.get("/")
def index() -> str:
    """The start page: type a join code (or scan the QR), or host a table."""
    return render_template("index.html", lang=lang(), error=None, code="")


@bp.get("/join")
def join() -> Any:
    """Join by code (typed, or from the QR's URL): remember the token in a cookie, open the table."""
    code = request.args.get("code", "")
    table_id = tables().find(code) if code.strip() else None
    if table_id is None:
        msg = ("Type the code shown on the host screen." if not code.strip() else
               f"No table has the code {code.strip().upper()!r}. Check the host screen.")
        return render_template("index.html", lang=lang(), error=msg, code=code), 404 if code else 400
    return redirect_with_token(url_for("phone.table", table_id=table_id), f"tc_{table_id}",
                               tables().join_token(table_id))


@bp.get("/t/<table_id>")
def table(table_id: str) -> Any:
    """The live game view of one table for one phone."""
    s = get_session(table_id)
    role = _role(table_id)
    if role is None:
        return redirect(url_for("phone.index"))
    language = lang()
    token = tables().host_token(table_id) if role == "host" else tables().join_token(table_id)
    return render_template("table.html", token=token, **view_context(s, seat_of(s), language, role))


VIEW_CACHE_SIZE = 512
_views: "OrderedDict[tuple[Any, ...], str]" = OrderedDict()
_views_lock = threading.Lock()


def _cached_view(key: tuple[Any, ...], make: Any) -> str:
    """The rendered view for ``key`` (table, version, seat, language, role, undo request): all
    phones of a table that see the same thing share one rendering per version."""
    with _views_lock:
        html = _views.get(key)
        if html is not None:
            _views.move_to_end(key)
            return html
    html = make()
    with _views_lock:
        _views[key] = html
        while len(_views) > VIEW_CACHE_SIZE:
            _views.popitem(last=False)
    return html


@bp.get("/t/<table_id>/view")
def view(table_id: str) -> Any:
    """The game view fragment for the version now (fetched by the page after each push)."""
    s = get_session(table_id)
    role = _role(table_id)
    if role is None:
        return {"error": "Join the table first."}, 401
    seat, language = seat_of(s), lang()
    with tables().lock(table_id):
        version = s.refresh().version
        pending = tables().undo_requests.get(table_id) if role == "host" else None
        key = (tables().db_path, table_id, version, seat, language, role, repr(pending))
        html = _cached_view(key, lambda: render_template(
            "view.html", **view_context(s, seat, language, role)))
    resp = make_response(html)
    resp.headers["X-Version"] = str(version)
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/rules/<game>")
def rules(game: str) -> Any:
    """A game's full rules in the page language (from docs/<game>.md), with anchors prompts link to."""
    if game not in GAME_IDS:
        abort(404)
    language = lang()
    return render_template("rules.html", lang=language, game=game, cls=game_class(game),
                           page=rules_page(game, language))


@bp.get("/health")
def health() -> Response:
    """For scripts and tests: the server is up."""
    return Response("ok", mimetype="text/plain")
