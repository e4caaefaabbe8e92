"""The phone pages: join by code or QR, the live game view of a table, and the rules at hand."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Response, abort, make_response, redirect, render_template, request, url_for

from companion.engine import Move
from companion.games import GAME_IDS, game_class
from webui.api.api import find_table, new_phone, state_for
from webui.core.common import ApiError, Caller, cookie_tokens, get_session, lang, session_module, tables, token_for
from webui.core.i18n import LANGS, both, pick, t
from webui.core.render import override_picker, score_chart
from webui.rules.rules import rules_page

bp = Blueprint("phone", __name__, template_folder="templates")

COOKIE_AGE = 7 * 24 * 3600


def redirect_with_token(url: str, cookie: str, token: str) -> Response:
    """A redirect that also stores a table token in a cookie (joined phones and the host alike)."""
    resp = redirect(url)
    resp.set_cookie(cookie, token, max_age=COOKIE_AGE, samesite="Lax", httponly=True)
    return resp


def view_context(s: Any, who: Caller, language: str) -> dict[str, Any]:
    """Everything the game-view templates need, built from what ``who`` may see (``view_for``)."""
    st = state_for(s, who.viewer, language)
    series = st.get("series") or {}
    names = st.get("names") or [f"P{i + 1}" for i in range(s.players)]
    host = who.role == "host"
    asked = tables().pending_undos(s.id)
    undos = [_worded(s, r, who) for r in asked] if host else []
    mine = who.phone["phone"] if who.phone else None
    view = session_module().view
    return {"st": st, "s": s, "game": s.game_id, "seat": who.viewer.seat, "lang": language,
            "role": who.role, "names": names, "view": st.get("view") or {},
            "layout": st.get("layout") or {},
            "chart": score_chart(series.get("games") or [], names),
            "undo_requests": undos, "undo_request": undos[-1] if undos else None,
            "may_undo": _may_undo(s, who), "seats": seat_choices(s), "phone": who.phone,
            "phones": tables().store.phones(s.id) if host else [],
            "turner": view.chance_seat(s.game) if not s.is_over() else None,
            "undo_pending": bool(mine) and any(r.get("phone") == mine for r in asked),
            "next_table": tables().rematch_of(s.id) if s.is_over() else None,
            "extra": st.get("view") or {}}


def _worded(s: Any, asked: dict[str, Any], who: Caller) -> dict[str, Any]:
    """An undo request with its moves in words as ``who`` may read them (never a hidden card)."""
    moves = [Move.from_json(m) for m in asked.get("moves", [])]
    en, ja = session_module().view.moves_words(s.game, s.names, moves, who.viewer, names_ja=s.names_in("ja"))
    return dict(asked, move=en, move_ja=ja)


def _may_undo(s: Any, who: Caller) -> bool:
    """True if the undo button takes the move back at once (else the phone asks the host)."""
    if who.role == "host":
        return True
    last = s.last_turn()
    view = session_module().view
    return bool(last) and who.role in ("seat", "table") and all(
        view.may_move(s.game, who.viewer, m, s.companions) is None for m in last)


def page_caller(table_id: str) -> Caller | None:
    """Who opens a page of the table: ``?token=``, then this browser's cookies (``cookie_tokens``)."""
    for token in (request.args.get("token"), *cookie_tokens(table_id)):
        if token:
            found = tables().caller(table_id, token)
            if found is not None:
                return found
    return None


def seat_choices(s: Any) -> list[dict[str, Any]]:
    """The seats with whether each is free (the picker a watching phone shows); a seat the companion
    plays is no person's to take (its phone would show the companion's hidden hand)."""
    taken = {p["seat"] for p in tables().store.phones(s.id) if p["role"] == "seat"}
    bots = s.companions
    return [{"seat": i, "name": n, "free": i not in taken and i not in bots, "companion": bots.get(i)}
            for i, n in enumerate(s.names_in(lang()))]


@bp.get("/")
def index() -> str:
    """The start page: type a join code (or scan the QR), or host a table."""
    return render_template("index.html", lang=lang(), error=None, code="")


@bp.get("/join")
def join() -> Any:
    """Join by code (typed, or from the QR's URL): this phone gets a token of its own (kept in a
    cookie) and opens the table, where it claims a free seat."""
    code = request.args.get("code", "")[:20]
    try:
        table_id = find_table(code) if code.strip() else None
    except ApiError as err:   # too many wrong codes from this address
        return _refused_join(err)
    if table_id is None:
        msg = (t("Type the code shown on the host screen.", lang())
               if not code.strip() else
               t("No table has the code {code!r}. Check the host screen.", lang(), code=code.strip().upper()))
        return render_template("index.html", lang=lang(), error=msg, code=code), 404 if code else 400
    # a language chosen in the link (?lang=ja) stays chosen on the table's page
    chosen = {"lang": request.args["lang"]} if request.args.get("lang") in LANGS else {}
    if tables().caller(table_id, request.cookies.get(f"tc_{table_id}")) is not None:
        return redirect(url_for("phone.table", table_id=table_id, **chosen))   # joined before: keep its seat
    try:
        token = new_phone(table_id, request.args.get("name"))
    except ApiError as err:   # too many phones from this address at this table
        return _refused_join(err)
    return redirect_with_token(url_for("phone.table", table_id=table_id, **chosen), f"tc_{table_id}", token)


def _refused_join(err: ApiError) -> Any:
    """The start page with a join refusal in words; a 429 also says when to try again in
    ``Retry-After``, as the JSON answer does."""
    headers = {"Retry-After": str(err.extra["retry_after"])} if "retry_after" in err.extra else {}
    return render_template("index.html", lang=lang(), code="",
                           error=pick(err.message, err.extra.get("ja", ""), lang())), err.status, headers


@bp.get("/t/<table_id>")
def table(table_id: str) -> Any:
    """The live game view of one table for one phone (a seat picker until it claims a seat)."""
    s = get_session(table_id)
    who = page_caller(table_id)
    if who is None:
        return redirect(url_for("phone.index"))
    token = tables().host_token(table_id) if who.role == "host" else (
        request.args.get("token") or request.cookies.get(f"tc_{table_id}"))
    pokes = tables().hub.pokes(table_id)
    return render_template("table.html", token=token, pokes=pokes, **view_context(s, who, lang()))


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


def view_answer(table_id: str) -> dict[str, Any]:
    """The game view fragment of the version now for whoever asks (this request's token, seat and
    language): ``{"version", "pokes", "role", "html"}``. The ``/view`` fetch answers it, and a
    page's event stream sends it with each new version (no fetch after the event: issue 23)."""
    s = get_session(table_id)
    who = page_caller(table_id)
    if who is None:
        raise ApiError(401, both("Join the table first (scan its QR code or type its code)."))
    language = lang()
    # one version, caught up with the store once (the view's reads ask it no more: issue 23)
    with tables().lock(table_id), s.steady():
        pokes = tables().hub.pokes(table_id)       # before drawing: a later poke is news
        version = s.version
        _note("view locked", table_id, version)
        pending = tables().pending_undos(table_id)
        if who.role != "host":   # a phone sees only whether its own request is pending
            pending = [r.get("phone") == (who.phone or {}).get("phone") for r in pending]
        seats = seat_choices(s) if who.role in ("watch", "host") else None
        phones = tables().store.phones(table_id) if who.role == "host" else None
        key = (tables().db_path, table_id, version, who.viewer, language, repr(pending),
               _may_undo(s, who), repr(seats), repr(phones))
        html = _cached_view(key, lambda: render_template(
            "view.html", **view_context(s, who, language)))
        _note("view drawn", table_id, version)
    return {"version": version, "pokes": pokes, "html": html,
            "role": who.role if who.viewer.seat is None else f"seat {who.viewer.seat}"}


def _note(stage: str, table_id: str, version: int) -> None:
    """The tap clock's mark of this phone's view (``Tables.note``, named by its token's start)."""
    if tables().clock is not None:
        tables().note(stage, table_id, version, (token_for(table_id, allow_cookie=True) or "")[:8])


@bp.record_once
def _offer_views(state: Any) -> None:
    # the event stream (webui.api.events) draws views through this, without importing the phone pages
    state.app.extensions["view_answer"] = view_answer


@bp.get("/t/<table_id>/view")
def view(table_id: str) -> Any:
    """The game view fragment for the version now (fetched by the page when it opens or its seat
    changes, or after a ``version`` event)."""
    answer = view_answer(table_id)
    resp = make_response(answer["html"])
    resp.headers["X-Version"] = str(answer["version"])
    resp.headers["X-Pokes"] = str(answer["pokes"])
    resp.headers["X-Role"] = answer["role"]
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/t/<table_id>/next")
def follow(table_id: str) -> Any:
    """A phone of a finished table follows to its rematch in the seat it held (the rematch copied
    the phones): no new code, no tap. A phone the rematch does not know joins by its code."""
    who = page_caller(table_id)
    found = tables().rematch_of(table_id)
    if who is None or found is None:
        return redirect(url_for("phone.table", table_id=table_id))
    token = request.args.get("token") or request.cookies.get(f"tc_{table_id}")
    if token and who.phone is not None and tables().caller(found["id"], token) is not None:
        return redirect_with_token(url_for("phone.table", table_id=found["id"]), f"tc_{found['id']}", token)
    if who.role == "host":
        return redirect(url_for("host.table", table_id=found["id"]))
    return redirect(url_for("phone.join", code=found["code"]))


@bp.get("/t/<table_id>/log")
def log(table_id: str) -> Any:
    """The whole log of the table, every game of it, numbered as it happened (as the caller may read it)."""
    s = get_session(table_id)
    who = page_caller(table_id)
    if who is None:
        return redirect(url_for("phone.index"))
    with tables().lock(table_id):
        events = session_module().view.events_for(s, who.viewer)
        st = state_for(s, who.viewer, lang())
    return render_template("log.html", lang=lang(), s=s, st=st, events=events, game=s.game_id,
                           back=url_for("host.table", table_id=table_id) if who.role == "host"
                           else url_for("phone.table", table_id=table_id))


@bp.get("/t/<table_id>/override")
def override(table_id: str) -> Any:
    """The host's override / correction picker for the version now: fetched when the host opens
    the fold-out (in Seven Hills it is ~300 buttons, most of the host view's rendering time)."""
    s = get_session(table_id)
    who = page_caller(table_id)
    if who is None or who.role != "host":
        raise ApiError(403, both("Only the host overrides or replaces a move."))
    language = lang()
    with tables().lock(table_id):
        version = s.refresh().version
        key = (tables().db_path, table_id, version, "override", language)
        html = _cached_view(key, lambda: _override_html(s, language))
    resp = make_response(html)
    resp.headers["X-Version"] = str(version)
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _override_html(s: Any, language: str) -> str:
    """The override picker, open at the tab of the seat to move (a correction is most often of the
    move being made: the companion's card laid elsewhere); the first tab when the table is to move."""
    names = s.names_in(language)
    sections = override_picker(s.game, names, language)
    cur = s.game.current_player()
    titles = [sec.title for sec in sections]
    first = titles.index(names[cur]) if 0 <= cur < len(names) and names[cur] in titles else 0
    return render_template("override.html", lang=language, ov=sections, first=first)


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
