"""The host's pages: create a table, show the join QR and the camera, and the admin actions."""
from __future__ import annotations

import io
import re
from typing import Any

from flask import (Blueprint, Response, abort, current_app, make_response, redirect, render_template,
                   request, url_for)

from companion.games import describe_all
from companion.session import autoplay
from webui.api.api import ApiError, create_table, join_url
from webui.camera.camera import cameras, frame_of
from webui.companion.routes import seats_from_form
from webui.core.common import (Caller, error_answer, fail, get_session, lang, require_role, session_module, tables,
                               too_many, whole_number)
from webui.core.guard import csrf_ok, csrf_token, host_allowed, local_request
from webui.core.i18n import both, pick
from webui.phone.routes import redirect_with_token, view_context

bp = Blueprint("host", __name__, template_folder="templates")


@bp.get("/host")
def new() -> str:
    """The form that creates a table, and (from this machine) the tables in the database."""
    # a seat the app named for the companion in the words of this page, not of the page that made it
    listed = [dict(row, names=[autoplay.name_in(n, lang()) for n in row.get("names") or []])
              for row in (tables().sessions() if local_request() else [])]
    return render_template("host_new.html", lang=lang(), games=[g for g in describe_all()
                                                                 if g.get("implemented")],
                           listed=listed, error=None, local=local_request(), csrf=csrf_token())


@bp.post("/host")
def create() -> Any:
    """Create a table from the form; the host's cookie holds the host token."""
    form = request.form
    if not csrf_ok(form.get("csrf")):
        return error_answer(403, *both("This form is stale or was sent from another page: open /host again "
                                       "and create the table from there."))
    body: dict[str, Any] = {"game": form.get("game"), "players": form.get("players"),
                            "names": form.get("names", ""), "rounds": form.get("rounds"),
                            "target": form.get("target"), "location": form.get("location")}
    options: dict[str, Any] = {}
    for key, value in form.items():
        if key.startswith("opt_") and value != "":
            options[key[4:]] = _option_value(value)
    body["options"] = options
    try:
        # seats given to the companion (webui.companion): checked before the table exists
        body["companions"] = seats_from_form(form, whole_number(body["players"]))
        s = create_table(body)
    except ApiError as err:
        return render_template("host_new.html", lang=lang(), listed=[],
                               error=pick(err.message, err.extra.get("ja", ""), lang()),
                               games=[g for g in describe_all() if g.get("implemented")],
                               local=local_request(), csrf=csrf_token()), err.status
    return _host_redirect(s.id)


def _option_value(text: str) -> Any:
    lowered = text.strip().lower()
    if lowered in ("true", "on", "yes"):
        return True
    if lowered in ("false", "off", "no"):
        return False
    if re.fullmatch(r"-?[0-9]{1,9}", lowered):   # ASCII digits only: '²'.isdigit() is True
        return int(lowered)
    return text.strip()


def _host_redirect(table_id: str) -> Response:
    # the language the host chose (the form posts ?lang=) carries on to the table it created
    wanted = request.args.get("lang") if request.args.get("lang") in ("en", "ja") else None
    return redirect_with_token(url_for("host.table", table_id=table_id, lang=wanted), f"tch_{table_id}",
                               tables().host_token(table_id))


@bp.get("/host/<table_id>")
def table(table_id: str) -> Any:
    """The host screen: big join QR and code, camera view, admin actions, the game view."""
    s = get_session(table_id)
    if not host_allowed():
        # a page of another site that made its name point here (DNS rebinding) must not get the
        # host's token, whatever address the request seems to come from
        return error_answer(421, *both("This server does not answer to that name: open the host page at "
                                       "127.0.0.1 or the address it printed."))
    token = request.args.get("token")
    if token and tables().role(table_id, token) == "host":
        return _host_redirect(table_id)
    if tables().role(table_id, request.cookies.get(f"tch_{table_id}")) != "host":
        if not local_request():
            return error_answer(403, *both("This is the host's page: open it on the host's machine."))
        return _host_redirect(table_id)
    registry = cameras(current_app)
    here = registry.get(table_id)
    # a rematch took this table's camera on: say where it went instead of showing an empty box
    moved = registry.moved_to(table_id) if here is None else None
    return render_template("host.html", token=tables().host_token(table_id), join=join_url(table_id),
                           pokes=tables().hub.pokes(table_id),
                           camera=bool(current_app.config.get("FRAME_SOURCE")) or bool(here) or bool(moved),
                           camera_moved=url_for("host.table", table_id=moved, lang=request.args.get("lang"))
                           if moved else None,
                           **view_context(s, Caller(session_module().view.HOST), lang()))


@bp.get("/host/<table_id>/replay")
def replay(table_id: str) -> Any:
    """A finished game replayed move by move on the host's screen: the table after move ``step``."""
    s = get_session(table_id)
    require_role(table_id, "host", allow_cookie=True)
    if not s.is_over():
        return error_answer(409, *both("The game is still on: its replay opens once it is over."))
    step = request.args.get("step", type=int)
    with tables().lock(table_id):
        at = session_module().view.replay_for(s, Caller(session_module().view.HOST).viewer,
                                                   10 ** 6 if step is None else step)
    # the camera's picture from after the previous move up to this one (its own, or that of the
    # camera's question this move answered)
    pictured = None if at["version"] is None else tables().store.frame_between(table_id, at["after"], at["version"])
    return render_template("replay.html", s=s, lang=lang(), game=s.game_id, at=at, names=s.names_in(lang()),
                           layout=at["layout"], extra=at["view"], view=at["view"], seat=None, role="host",
                           pictured=pictured,
                           st={"current_player": at["current_player"], "events": [], "prompts": []})


@bp.get("/host/<table_id>/replay/frame/<int:version>.jpg")
def replay_frame(table_id: str, version: int) -> Response:
    """The camera's picture of the table kept for the move at log ``version`` (a replay shows it)."""
    get_session(table_id)
    require_role(table_id, "host", allow_cookie=True)
    jpeg = tables().store.frame(table_id, version)
    if jpeg is None:
        abort(404)
    resp = make_response(jpeg)
    resp.mimetype = "image/jpeg"
    resp.headers["Cache-Control"] = "private, max-age=86400"   # a kept picture never changes
    return resp


def qr_svg(data: str) -> str:
    """A QR code as an SVG document (server-side, no JavaScript)."""
    import qrcode
    import qrcode.image.svg
    img = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, box_size=12, border=2)
    out = io.BytesIO()
    img.save(out)
    return out.getvalue().decode()


@bp.get("/api/tables/<table_id>/qr.svg")
def qr(table_id: str) -> Response:
    """The join QR (points at /join?code=...) for the host screen."""
    require_role(table_id, "host", allow_cookie=True)
    resp = make_response(qr_svg(join_url(table_id)))
    resp.mimetype = "image/svg+xml"
    return resp


@bp.get("/api/tables/<table_id>/camera")
def camera(table_id: str) -> Response:
    """The latest camera frame with detections drawn, if a camera (or the demo) provides one."""
    require_role(table_id, "player", allow_cookie=True)
    get_session(table_id)
    frame = frame_of(current_app, table_id)
    registry = cameras(current_app)
    moved = registry.moved_to(table_id) if frame is None and registry.get(table_id) is None else None
    if moved:
        fail(404, both("The camera now watches the rematch: open its host page."),
             moved=url_for("host.table", table_id=moved, lang=lang()))
    if frame is None:
        fail(404, both("No camera frame: this table is scored by hand (start the server with --camera, "
                       "--video or --demo)."))
    data, mimetype = frame
    resp = make_response(data)
    resp.mimetype = mimetype
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/owner")
def pair_owner() -> Any:
    """Open the one-time pairing link ``companion serve --lan`` printed: this browser becomes the
    owner's (the play history, its exports and /print), and the link is spent."""
    from webui.core.guard import client, limit
    from webui.core.owner import OWNER_COOKIE, owner_token, pairing
    wait = limit("join").wait(client())
    if wait > 0:   # wrong pairing codes count with wrong join codes
        too_many(wait, both("Too many wrong codes from this address"))
    if not pairing().spend(request.args.get("code")):
        limit("join").spend(client())
        return error_answer(403, *both("This pairing link is wrong or was used already: start the companion "
                                       "again on its computer for a new one."))
    resp = redirect(url_for("history.page", lang=lang()), code=303)
    resp.set_cookie(OWNER_COOKIE, owner_token(), max_age=400 * 24 * 3600, samesite="Lax", httponly=True)
    return resp
