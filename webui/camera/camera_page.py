"""A phone as the table's camera, and the camera set-up check.

``/camera/<table>`` (host only) is the page a phone opens to become the overhead camera: it streams
its rear camera as JPEG frames (``POST /api/tables/<table>/camera/frame``) into the same pipeline a
webcam feeds (``webui.camera.camera.CameraFeed`` on ``vision.frame.sources.PushedFrames``), so the table's
session gets the same observations. The set-up check (``vision.table.camera_check``) is served as JSON
and as a picture (the live view with the watched area and the px/mm map) for the host page and the
phone itself, for any camera a table has: webcam, video, the demo's or a phone.
"""
from __future__ import annotations

import hashlib
import hmac
import time
from typing import Any

from flask import (Blueprint, Response, current_app, jsonify, make_response, render_template,
                   request, url_for)

from webui.camera.camera import (FRAME_MAX_BYTES, PHONE_CAMERAS_MAX, PHONE_GONE_S, FrameRefused, cameras,
                                 vision_available)
from webui.core.common import error_answer, fail, get_session, host_by_cookie, lang, tables, token_for
from webui.core.guard import limit, local_request, same_secret
from webui.host.routes import qr_svg
from webui.phone.routes import COOKIE_AGE, redirect_with_token
from webui.core.i18n import both, t

bp = Blueprint("camera", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static/camera")

CAMERA_COOKIE = "tcc_"
"""The camera phone's cookie (``tcc_<table>``): the camera's token, kept out of the page's URL."""

CHECK_WIDTH = 960
"""Width of the set-up check's picture (a phone screen's worth)."""


def camera_token(registry: Any, table_id: str) -> str:
    """The token of the table's camera phone: it may stream frames and read the set-up check,
    nothing else (no undo, no override, no game view), so the link the host shows to the phone
    that will look down on the table gives away no more than a camera's eye."""
    return hmac.new(registry.secret, f"camera:{table_id}".encode(), hashlib.sha256).hexdigest()[:24]


def _camera_or_host(table_id: str) -> str:
    """"host" or "camera" for the request's token (header, query or cookie); else a 401/403."""
    token = token_for(table_id, allow_cookie=True)
    cookie = request.cookies.get(f"{CAMERA_COOKIE}{table_id}")
    camera = camera_token(tables(), table_id)
    if any(same_secret(t, camera) for t in (token, cookie)):
        return "camera"
    role = tables().role(table_id, token)
    if role == "host" or host_by_cookie(table_id) is not None:
        return "host"
    if role is None:
        fail(401, both("Open the camera page from the host screen's link: only the phone the host chose may "
                       "be the table's camera."))
    fail(403, both("A player's phone cannot be the table's camera: open the camera link from the host screen "
                   "on the phone that will look down on the table."))


@bp.get("/camera/<table_id>")
def page(table_id: str) -> Any:
    """The phone-camera page: the rear camera's preview, streamed to the server, and the next step."""
    s = get_session(table_id)
    token = request.args.get("token")
    here = url_for("camera.page", table_id=table_id)
    camera = camera_token(tables(), table_id)
    if token and (same_secret(token, camera) or tables().role(table_id, token) == "host"):
        # the link's token leaves the URL; the phone keeps the camera's token, never the host's
        return redirect_with_token(here, f"{CAMERA_COOKIE}{table_id}", camera)
    cookie = request.cookies.get(f"{CAMERA_COOKIE}{table_id}") or ""
    if not same_secret(cookie, camera):
        host = tables().role(table_id, request.cookies.get(f"tch_{table_id}")) == "host"
        if host or local_request():     # the host's device, or this computer (as for the host page)
            return redirect_with_token(here, f"{CAMERA_COOKIE}{table_id}", camera)
        return error_answer(403, *both("This is the table's camera page: open it with the link on the host "
                                       "screen."))
    return render_template("camera.html", s=s, lang=lang(), token=camera,
                           res="4k" if request.args.get("res") == "4k" else "hd",
                           title=s.game.title, title_ja=s.game.title_ja)


@bp.post("/api/tables/<table_id>/camera/frame")
def frame(table_id: str) -> tuple[Response, int]:
    """One JPEG frame of the table's phone camera (body: image/jpeg, host token). It is read by
    the table's pipeline when the pipeline is free (newer frames replace waiting ones)."""
    get_session(table_id)
    _camera_or_host(table_id)
    if not vision_available():
        fail(503, both("The camera pipeline (vision/) is not installed in this build: the table is scored by "
                       "tapping."))
    if request.mimetype != "image/jpeg":
        fail(415, both("Send one camera frame as the body, with Content-Type: image/jpeg."))
    if request.content_length is not None and request.content_length > FRAME_MAX_BYTES:
        fail(413, both("The frame is {content_length} bytes; at most {FRAME_MAX_BYTES} are taken (send "
                       "1920×1080 JPEG frames).", content_length=request.content_length, FRAME_MAX_BYTES=FRAME_MAX_BYTES))
    request.max_content_length = FRAME_MAX_BYTES     # this route takes frames, not 64 kB of JSON
    registry = cameras(current_app)
    # a rematch took this table's camera on to the new table: the frames go there
    target = registry.moved_to(table_id) if registry.get(table_id) is None else None
    try:
        # limits first (bytes, pixels, scans, this table's decoding time), then the one feed of the
        # table: a refused frame starts no pipeline and touches no game
        image = registry.decode(target or table_id, request.get_data(cache=False), limit("decode"))
        feed = registry.phone(tables(), target or table_id,
                              current_app.config.get("CAMERA_PHONES_MAX") or PHONE_CAMERAS_MAX)
    except FrameRefused as err:
        fail(err.status, err.message, ja=err.ja, **err.extra)
    try:
        feed.frames.push(image)
    except ValueError:      # (SourceError) the feed was stopped meanwhile (its table was closed)
        fail(409, both("The camera restarted: send the next frame."))
    out = {"frames": feed.frames.pushed, "read": feed.seen, "calibrated": feed.pipeline.calibration is not None,
           "size": [image.shape[1], image.shape[0]]}
    if target is None:
        return jsonify(out), 202
    # the camera page goes on with the new table: its camera-only token, its addresses
    token = camera_token(tables(), target)
    out["moved"] = {"id": target, "code": get_session(target).code, "token": token,
                    "page": url_for("camera.page", table_id=target),
                    "frame": url_for("camera.frame", table_id=target),
                    "check": url_for("camera.check_json", table_id=target) + f"?lang={lang()}"}
    resp = jsonify(out)
    resp.set_cookie(f"{CAMERA_COOKIE}{target}", token, max_age=COOKIE_AGE, samesite="Lax", httponly=True)
    return resp, 202


def _check(table_id: str) -> tuple[Any, Any, Any]:
    """(worker, check, raw frame) of the table's camera; 404 when the table has none."""
    from vision.table import camera_check
    worker = cameras(current_app).get(table_id)
    if worker is None:
        fail(404, both("No camera watches this table: open the camera page on a phone (the host screen's "
                       "link) or start the server with --camera."))
    raw, cached = worker.raw, worker.checked
    if cached is not None and cached[0] is raw:
        return worker, cached[1], raw
    pipeline = worker.pipeline
    result = camera_check.check(raw, pipeline.calibration, pipeline.layout.bounds(),
                                camera_check.quality_advice(pipeline.status()))
    worker.checked = (raw, result, None)
    return worker, result, raw


def _source(worker: Any) -> dict[str, Any]:
    """Where the table's frames come from and how they arrive."""
    from vision.frame.sources import PushedFrames
    frames = getattr(worker, "frames", None)
    if isinstance(frames, PushedFrames):
        age = None if frames.last_push is None else time.monotonic() - frames.last_push
        return {"source": "phone", "frames": frames.pushed, "read": worker.seen,
                "dropped": frames.dropped, "gone": age is None or age > PHONE_GONE_S,
                "last_frame_s": None if age is None else round(age, 1)}
    return {"source": "camera" if hasattr(worker, "seen") else "demo", "gone": False}


@bp.get("/api/tables/<table_id>/camera/check")
def check_json(table_id: str) -> Response:
    """The camera set-up check as JSON: the next step and warnings (in ``?lang=``), the figures;
    ``{"camera": null}`` while no camera watches the table."""
    get_session(table_id)
    _camera_or_host(table_id)
    if cameras(current_app).get(table_id) is None:
        # no camera yet: a quiet answer the host page polls slowly (no 404 in its console)
        resp = jsonify({"camera": None})
        resp.headers["Cache-Control"] = "no-store"
        return resp
    worker, result, _ = _check(table_id)
    resp = jsonify({**result.to_json(lang()), **_source(worker), "camera": True,
                    "image": url_for("camera.check_image", table_id=table_id)})
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/api/tables/<table_id>/camera/check.jpg")
def check_image(table_id: str) -> Response:
    """The set-up check's picture: the live view, the watched area and the px/mm map."""
    import cv2
    from vision.table import camera_check
    get_session(table_id)
    _camera_or_host(table_id)
    worker, result, raw = _check(table_id)
    if raw is None:
        fail(404, both("No frame from the camera yet."))
    cached = worker.checked
    data = cached[2] if cached is not None and cached[0] is raw else None
    if data is None:
        pipeline = worker.pipeline
        quality = pipeline.frame_quality
        picture = camera_check.draw(raw, result, pipeline.calibration, pipeline.layout.bounds(),
                                    CHECK_WIDTH, [g.box for g in quality.glare] if quality else ())
        data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
        worker.checked = (raw, result, data)
    resp = make_response(data)
    resp.mimetype = "image/jpeg"
    resp.headers["Cache-Control"] = "no-store"
    return resp


def camera_url(table_id: str) -> str:
    """The phone-camera page's address with the camera's token (what the camera phone opens)."""
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return (base.rstrip("/") + url_for("camera.page", table_id=table_id)
            + f"?token={camera_token(tables(), table_id)}")


@bp.get("/api/tables/<table_id>/camera/qr.svg")
def qr(table_id: str) -> Response:
    """The phone-camera link as a QR code, on the host screen (it carries the camera's token)."""
    get_session(table_id)
    if _camera_or_host(table_id) != "host":
        fail(403, both("Only the host screen shows the camera link."))
    resp = make_response(qr_svg(camera_url(table_id)))
    resp.mimetype = "image/svg+xml"
    resp.headers["Cache-Control"] = "no-store"
    return resp
