"""A phone as the table's camera, through the server: pushed JPEG frames go through the same
pipeline as a webcam and the session applies what they show; bad frames are refused and change
nothing; HTTPS with the self-signed certificate."""
from __future__ import annotations

import json
import os
import re
import ssl
import subprocess
import sys
import time
import urllib.request
import weakref
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.engine import freeze
from tests.camera_helpers import dealt_wheel, jpeg
from tests.web_helpers import make_app
from vision.frame.sources import PushedFrames, SourceError
from webui.camera.camera import FRAME_MAX_BYTES, CameraFeed, FrameRefused, cameras, decode_frame, jpeg_size
from webui.camera.camera_page import camera_token, camera_url
from tablesim.demo import wait_until


@pytest.fixture(scope="module")
def wheel_frames():
    images, shown = dealt_wheel()
    return [jpeg(i) for i in images], shown


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path)
    yield app
    cameras(app).close()


def _table(app):
    tables = app.extensions["tables"]
    s = tables.create("wheel", 3, names=["Ann", "Ben", "Chie"], options={})
    return tables, s, tables.host_token(s.id)


def _post(client, table_id, data, token, kind="image/jpeg"):
    return client.post(f"/api/tables/{table_id}/camera/frame", data=data,
                       headers={"Content-Type": kind, "X-Table-Token": token})


def test_phone_frames_go_through_the_pipeline_to_a_move(app, wheel_frames):
    frames, shown = wheel_frames
    tables, s, host = _table(app)
    client = app.test_client()
    quiet = client.get(f"/api/tables/{s.id}/camera/check", headers={"X-Table-Token": host})
    assert quiet.status_code == 200 and quiet.get_json() == {"camera": None}   # no camera yet: no 404
    assert quiet.headers["Cache-Control"] == "no-store"
    for i in range(12):
        r = _post(client, s.id, frames[i % len(frames)], host)
        assert r.status_code == 202, r.get_json()
        assert r.get_json()["size"] == [1920, 1080]
        if tables.get(s.id).version > 0:
            break
        time.sleep(0.6)     # a phone sends about three frames a second
    feed = cameras(app).get(s.id)
    assert wait_until(lambda: tables.get(s.id).version > 0, 30), (feed.outcomes, feed.error)
    # the deal came from the camera (the feed is the only writer here): the session's table is
    # the one the frames show
    assert feed.error is None and feed.outcomes.count("applied") == 1
    session = tables.get(s.id)
    assert freeze(session.game.layout()) == freeze(shown)
    # the host screen shows the phone's view, annotated, and the set-up check
    r = client.get(f"/api/tables/{s.id}/camera", headers={"X-Table-Token": host})
    assert r.status_code == 200 and r.data[:2] == b"\xff\xd8"
    check = client.get(f"/api/tables/{s.id}/camera/check?lang=ja", headers={"X-Table-Token": host}).get_json()
    assert check["source"] == "phone" and check["calibrated"] and not check["gone"]
    # the phone stands at the near edge, 65° up: the cards in view read (the line is 1.0 px/mm), but
    # the table's far part is cut off and raising the phone to fit it would leave the far side
    # below the line; from straight above the table fits at 1.45 px/mm: move it over the middle
    assert check["frames"] >= 2 and 1.0 < check["lowest_px_per_mm"] < 1.4 < check["highest_px_per_mm"] < 2.1
    assert check["in_view"] < 1 and check["readable"] == check["in_view"]
    assert check["next"]["key"] == "overhead_fit" and "真下" in check["next"]["text"]     # in Japanese
    assert "1.45 px/mm" in check["next"]["text"]
    image = client.get(check["image"], headers={"X-Table-Token": host})
    assert image.status_code == 200 and image.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(image.data, np.uint8), cv2.IMREAD_COLOR).shape[1] == 960


def test_bad_frames_are_refused_and_change_nothing(app, wheel_frames):
    frames, _ = wheel_frames
    tables, s, host = _table(app)
    player = tables.join(s.id, "phone")
    client = app.test_client()
    png = cv2.imencode(".png", np.zeros((40, 40, 3), np.uint8))[1].tobytes()
    # a JPEG header claiming 8000 × 6000 pixels (no decoder gets to allocate them)
    header = bytearray(frames[0][:4000])
    at = next(i for i in range(2, len(header) - 9) if header[i] == 0xFF and header[i + 1] == 0xC0)
    header[at + 5:at + 9] = (6000).to_bytes(2, "big") + (8000).to_bytes(2, "big")
    cases = [
        ("nope", frames[0], host, "image/jpeg", 404, "no table"),
        (s.id, frames[0], "", "image/jpeg", 401, "Open the camera page"),
        (s.id, frames[0], player, "image/jpeg", 403, "player's phone"),
        (s.id, png, host, "image/png", 415, "image/jpeg"),
        (s.id, png, host, "image/jpeg", 415, "not a JPEG"),
        (s.id, b'{"version": 0}', host, "application/json", 415, "image/jpeg"),
        (s.id, bytes(header), host, "image/jpeg", 413, "8000×6000"),
        (s.id, frames[0][:200], host, "image/jpeg", 400, "damaged"),
        (s.id, b"\xff\xd8\xff" + bytes(FRAME_MAX_BYTES), host, "image/jpeg", 413, "at most"),
    ]
    for table_id, data, token, kind, status, words in cases:
        r = _post(client, table_id, data, token, kind)
        assert r.status_code == status, (words, r.status_code, r.get_json())
        assert words.lower() in r.get_json()["error"].lower(), r.get_json()
        if table_id == s.id:    # (an unknown table is webui.core.common's refusal, English only)
            assert any("\u3040" <= c <= "\u9fff" for c in r.get_json()["ja"]), r.get_json()
    assert cameras(app).get(s.id) is None and tables.get(s.id).version == 0
    # a table watched by a camera the server started takes no phone frames
    other = tables.create("wheel", 3, names=["A", "B", "C"], options={})
    cameras(app).attach(other.id, CameraFeed(tables, other.id, source=iter(())))
    r = _post(client, other.id, frames[0], tables.host_token(other.id))
    assert r.status_code == 409 and "Another camera" in r.get_json()["error"] and "別のカメラ" in r.get_json()["ja"]


def test_the_camera_page_is_for_the_phone_the_host_chose(app, wheel_frames):
    frames, _ = wheel_frames
    tables, s, host = _table(app)
    camera = camera_token(tables, s.id)
    assert camera != host and camera != camera_token(tables, "another")
    phone = app.test_client()
    phone.environ_base["REMOTE_ADDR"] = "192.168.1.7"   # a phone, not this computer
    assert phone.get(f"/camera/{s.id}").status_code == 403
    assert phone.get(f"/camera/{s.id}?token={tables.join(s.id, 'phone')}").status_code == 403
    # the host screen offers the link; it carries the camera's token, never the host's
    desk = app.test_client()
    host_page = desk.get(f"/host/{s.id}", follow_redirects=True).get_data(as_text=True)
    assert "Use a phone as the camera" in host_page and 'id="camcheck"' in host_page
    assert desk.get(f"/api/tables/{s.id}/camera/qr.svg").status_code == 200
    with app.test_request_context():
        link = camera_url(s.id)
    assert link.endswith(f"/camera/{s.id}?token={camera}") and host not in link
    r = phone.get(f"/camera/{s.id}?token={camera}")
    assert r.status_code == 302 and "token=" not in r.headers["Location"]   # kept in a cookie
    page = phone.get(f"/camera/{s.id}?lang=ja")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "スマホカメラ" in text and host not in text
    assert f'data-frame="/api/tables/{s.id}/camera/frame"' in text and f'data-token="{camera}"' in text
    # the camera phone streams frames (by its cookie alone) and reads the check; it is no host
    r = phone.post(f"/api/tables/{s.id}/camera/frame", data=frames[0], headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 202, r.get_json()
    assert phone.get(f"/api/tables/{s.id}/camera/check").status_code == 200
    as_camera = {"X-Table-Token": camera}
    assert phone.post(f"/api/tables/{s.id}/undo", json={"version": 0}, headers=as_camera).status_code == 401
    assert phone.get(f"/api/tables/{s.id}/camera/qr.svg", headers=as_camera).status_code == 403
    assert phone.get(f"/host/{s.id}").status_code == 403
    assert phone.get(f"/api/tables/{s.id}/camera/qr.svg",
                     headers={"X-Table-Token": tables.join(s.id, "phone")}).status_code == 403
    # the host's own device opens the camera page without the link: it gets the camera's cookie
    remote_host = app.test_client()
    remote_host.environ_base["REMOTE_ADDR"] = "192.168.1.9"
    remote_host.get(f"/host/{s.id}?token={host}")
    assert remote_host.get(f"/camera/{s.id}", follow_redirects=True).status_code == 200


def test_jpeg_size_reads_the_header_only():
    image = np.zeros((720, 1280, 3), np.uint8)
    for flags in ([], [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]):
        data = cv2.imencode(".jpg", image, flags)[1].tobytes()
        assert jpeg_size(data) == (1280, 720)
        assert decode_frame(data).shape == (720, 1280, 3)
    assert jpeg_size(b"GIF89a....") is None and jpeg_size(b"\xff\xd8\xff") is None
    with pytest.raises(FrameRefused) as err:
        decode_frame(cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
    assert err.value.status == 413


def test_pushed_frames_give_the_newest_and_end_when_closed():
    source = PushedFrames(poll=0.05)
    a, b = np.zeros((4, 4, 3), np.uint8), np.ones((4, 4, 3), np.uint8)
    source.push(a)
    source.push(b)      # the reader was busy: the newer frame replaces the waiting one
    assert next(source) is b and source.dropped == 1 and source.pushed == 2
    with pytest.raises(SourceError):
        source.push(np.zeros((4, 4), np.uint8))
    source.close()
    assert list(source) == []
    with pytest.raises(SourceError):
        source.push(a)


def test_https_certificate_is_made_once_and_serves(tmp_path):
    from webui.core.server import RunningServer
    from webui.core.tls import certificate, covered, fingerprint
    cert, key = certificate(["192.168.1.20"], tmp_path)
    first = fingerprint(cert)
    assert certificate(["192.168.1.20"], tmp_path) == (cert, key) and fingerprint(cert) == first
    assert (key.stat().st_mode & 0o777) == 0o600
    # on another network the address is not in it: a new certificate covers it
    certificate(["10.0.0.5"], tmp_path)
    from cryptography import x509
    names = covered(x509.load_pem_x509_certificate(cert.read_bytes()))
    assert "10.0.0.5" in names and "127.0.0.1" in names and fingerprint(cert) != first
    app = make_app(tmp_path)
    with RunningServer(app, tls=(str(cert), str(key))) as server:
        assert server.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(cert))   # trust exactly this certificate
        with urllib.request.urlopen(server.url + "/host", context=context, timeout=10) as resp:
            assert resp.status == 200 and b"<html" in resp.read()
        with pytest.raises(urllib.error.URLError):      # an unknown certificate is refused
            urllib.request.urlopen(server.url + "/host", timeout=10)


def test_a_turned_phone_starts_the_camera_over_and_a_webcam_has_the_check_too(app, wheel_frames, tmp_path):
    frames, _ = wheel_frames
    tables, s, host = _table(app)
    client = app.test_client()
    assert _post(client, s.id, frames[0], host).status_code == 202
    feed = cameras(app).get(s.id)
    assert wait_until(lambda: feed.seen == 1, 30)
    first = weakref.ref(feed.pipeline)
    turned = jpeg(cv2.rotate(cv2.imdecode(np.frombuffer(frames[0], np.uint8), cv2.IMREAD_COLOR),
                             cv2.ROTATE_90_CLOCKWISE))
    r = _post(client, s.id, turned, host)
    assert r.status_code == 202 and r.get_json()["size"] == [1080, 1920]
    # the same feed and thread go on; its pipeline starts over and the old one is freed
    assert cameras(app).get(s.id) is feed and wait_until(lambda: feed.restarts == 1, 30)
    assert first() is None and feed.pipeline is not None and feed.size == (1080, 1920)
    assert _post(client, s.id, turned, host).status_code == 202 and cameras(app).get(s.id) is feed
    # a camera the server started (here a folder of frames) has the same set-up check
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, data in enumerate(frames):
        (folder / f"f{i}.jpg").write_bytes(data)
    webcam = tables.create("wheel", 3, names=["A", "B", "C"], options={})
    feed = cameras(app).attach(webcam.id, CameraFeed(tables, webcam.id, images=str(folder))).start()
    assert feed.done.wait(60) and feed.error is None
    check = client.get(f"/api/tables/{webcam.id}/camera/check",
                       headers={"X-Table-Token": tables.host_token(webcam.id)}).get_json()
    assert check["source"] == "camera" and check["calibrated"] and check["next"]["key"] == "overhead_fit"
    assert _post(client, webcam.id, frames[0], tables.host_token(webcam.id)).status_code == 409


def test_serve_takes_https():
    from companion.cli import build_parser
    args = build_parser().parse_args(["serve", "--lan", "--https", "--port", "0"])
    assert args.https and args.lan
    assert not build_parser().parse_args(["serve"]).https


def test_serve_https_makes_its_certificate_in_the_data_directory_and_explains_the_warning(tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"), PYTHONUNBUFFERED="1")
    companion = Path(sys.executable).with_name("companion")
    proc = subprocess.Popen([str(companion), "serve", "--https", "--port", "0", "--db",
                             str(tmp_path / "t.db")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "Press Ctrl+C" in line:
                break
        out = "".join(lines)
        cert = tmp_path / "data" / "table-companion" / "tls" / "companion-cert.pem"
        assert cert.is_file() and str(cert) in out, out
        assert "Proceed to" in out and "Visit Website" in out and "SHA-256 fingerprint" in out
        url = re.search(r"serving at (https://\S+)/", out).group(1)
        context = ssl.create_default_context(cafile=str(cert))
        with urllib.request.urlopen(url + "/host", context=context, timeout=10) as resp:
            assert resp.status == 200
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_4k_phone_is_taken_and_reads_at_twice_the_resolution(app, wheel_frames):
    frames, _ = wheel_frames
    tables, s, host = _table(app)
    client = app.test_client()
    headers = {"X-Table-Token": host}
    hd = decode_frame(frames[0])
    uhd = jpeg(cv2.resize(hd, (3840, 2160), interpolation=cv2.INTER_CUBIC))   # the same view, 4K
    assert len(uhd) > 2 * len(frames[0])
    checks = {}
    for name, data in (("hd", frames[0]), ("uhd", uhd)):
        for _ in range(3):
            r = _post(client, s.id, data, host)
            assert r.status_code == 202, r.get_json()
            time.sleep(0.3)
        feed = cameras(app).get(s.id)
        assert wait_until(lambda: feed.pipeline.calibration is not None and feed.seen >= 2, 30)
        checks[name] = client.get(f"/api/tables/{s.id}/camera/check", headers=headers).get_json()
    assert checks["uhd"]["frame"] == [3840, 2160] and checks["hd"]["frame"] == [1920, 1080]
    for key in ("lowest_px_per_mm", "highest_px_per_mm"):
        assert checks["uhd"][key] == pytest.approx(2 * checks["hd"][key], rel=0.03)
    # every card in view reads in both (the line is 1.0 px/mm), but only the 4K phone keeps the
    # table readable when raised to fit it all: it is told to go up, the 1080p one to go overhead
    assert checks["uhd"]["readable"] == checks["uhd"]["in_view"] >= checks["hd"]["readable"]
    assert checks["uhd"]["next"]["key"] == "raise" and checks["hd"]["next"]["key"] == "overhead_fit"


def test_camera_bench_runs_a_phone_through_a_real_server(wheel_frames):
    from benchmarks import camera as camera_bench
    report = camera_bench.run(8, table=wheel_frames)
    json.dumps(report)
    assert report["frames_sent"] == 8 and 2 <= report["frames_read"] <= 8
    assert report["deal_matches_frames"] and report["deal_applied_after_s"] is not None
    assert report["check_next"] == "overhead_fit" and report["post_ms"]["median"] > 0


def _push_until(client, table_id, frames, token, done, tries=24):
    """Send frames like the phone (about three a second) until ``done()``; the last answer."""
    answer = None
    for i in range(tries):
        r = _post(client, table_id, frames[i % len(frames)], token)
        assert r.status_code == 202, r.get_json()
        answer = r.get_json()
        if done():
            break
        time.sleep(0.4)
    return answer


def test_a_rematch_keeps_the_phone_camera_watching(app, wheel_frames):
    """The host ends a camera-watched game and taps Rematch: the same phone camera (its pipeline and
    calibration) watches the new table, and the phone's page is told where to send its frames
    (before: the new table had no camera and the phone kept feeding the finished table)."""
    frames, shown = wheel_frames
    tables, s, host = _table(app)
    client = app.test_client()
    phone = camera_token(tables, s.id)
    _push_until(client, s.id, frames, phone, lambda: tables.get(s.id).version > 0)
    feed = cameras(app).get(s.id)
    assert wait_until(lambda: tables.get(s.id).version > 0, 30), (feed.outcomes, feed.error)
    calibration = feed.pipeline.calibration
    assert calibration is not None
    assert client.post(f"/api/tables/{s.id}/end", json={"version": tables.get(s.id).version},
                       headers={"X-Table-Token": host}).status_code == 200
    r = client.post("/history/rematch", data={"table": s.id}, headers={"X-Table-Token": host})
    assert r.status_code == 302
    new_id = r.headers["Location"].rsplit("/", 1)[-1]
    # the same camera watches the new table; the finished one has none
    assert cameras(app).get(new_id) is feed and feed.table_id == new_id and cameras(app).get(s.id) is None
    assert feed.pipeline.calibration is calibration
    desk = app.test_client()
    desk.set_cookie(f"tch_{new_id}", tables.host_token(new_id))
    page = desk.get(f"/host/{new_id}")
    assert 'class="card camera"' in page.get_data(as_text=True)
    # the phone still sends to the finished table: its frame goes on, with the new addresses
    answer = _post(client, s.id, frames[0], phone).get_json()
    moved = answer["moved"]
    assert moved["id"] == new_id and moved["code"] == tables.get(new_id).code
    assert moved["token"] == camera_token(tables, new_id) and moved["frame"] == f"/api/tables/{new_id}/camera/frame"
    # the circle still lies as it was: nothing is sent to the new game until the table changes
    assert tables.get(new_id).version == 0
    again, shown_again = dealt_wheel(count=3, seed=2)
    _push_until(client, new_id, [jpeg(i) for i in again], moved["token"], lambda: tables.get(new_id).version > 0)
    assert wait_until(lambda: tables.get(new_id).version > 0, 30), (feed.outcomes, feed.error)
    assert freeze(tables.get(new_id).game.layout()) == freeze(shown_again)   # the new deal, read
    assert tables.get(s.id).is_over() and freeze(tables.get(s.id).game.layout()) != freeze(shown_again)


def test_a_rematch_keeps_a_webcam_watching(app, wheel_frames):
    """A camera the server started (``serve --camera``) moves to the rematch too; a series that
    plays on keeps its camera on its own table."""
    import queue
    tables, s, host = _table(app)
    pending: "queue.Queue" = queue.Queue()
    def source():
        while (image := pending.get()) is not None:
            yield image
    feed = CameraFeed(tables, s.id, source=source()).start()
    cameras(app).attach(s.id, feed)
    client = app.test_client()
    client.post(f"/api/tables/{s.id}/end", json={"version": 0}, headers={"X-Table-Token": host})
    r = client.post("/history/rematch", data={"table": s.id}, headers={"X-Table-Token": host})
    new_id = r.headers["Location"].rsplit("/", 1)[-1]
    assert cameras(app).get(new_id) is feed and feed.table_id == new_id
    images, shown = dealt_wheel(count=3, seed=3)
    for image in images * 2:
        pending.put(image)
    assert wait_until(lambda: tables.get(new_id).version > 0, 30), (feed.outcomes, feed.error)
    assert freeze(tables.get(new_id).game.layout()) == freeze(shown)
    assert tables.get(s.id).version == 2   # the end and the rematch note: no observation went there
    pending.put(None)
    # a table whose game is still on keeps its camera (a rematch from the history of its play)
    from webui.camera.camera import follow_rematch
    other = tables.create("wheel", 3, names=["A", "B", "C"], options={})
    cameras(app).attach(other.id, CameraFeed(tables, other.id, source=iter(())))
    assert follow_rematch(app, other.id, "elsewhere") is None and cameras(app).get(other.id) is not None


def test_the_finished_tables_host_page_says_where_the_camera_went(app):
    """``serve --camera``: after a rematch the camera watches the new table, and the finished table's
    host page says so with a link to the rematch, in both languages (it showed an empty camera box:
    the app's frame source has no frame for a table its camera left)."""
    import queue
    tables, s, host = _table(app)
    pending: "queue.Queue" = queue.Queue()
    feed = CameraFeed(tables, s.id, source=iter(pending.get, None)).start()
    app.config["FRAME_SOURCE"] = feed.frame          # as webui.cli does for --camera
    cameras(app).attach(s.id, feed)
    client = app.test_client()
    client.set_cookie(f"tch_{s.id}", host)
    before = client.get(f"/host/{s.id}").get_data(as_text=True)
    assert 'id="camera"' in before and "camera-moved" not in before
    client.post(f"/api/tables/{s.id}/end", json={"version": 0}, headers={"X-Table-Token": host})
    r = client.post("/history/rematch", data={"table": s.id}, headers={"X-Table-Token": host})
    new_id = r.headers["Location"].rsplit("/", 1)[-1]
    assert cameras(app).get(new_id) is feed
    for lang, words in (("en", "The camera now watches the rematch: <a href=\"/host/{new}?lang=en\">open it</a>"),
                        ("ja", "カメラは今、再戦のテーブルを見ています: <a href=\"/host/{new}?lang=ja\">再戦を開く</a>")):
        old = client.get(f"/host/{s.id}?lang={lang}").get_data(as_text=True)
        assert words.format(new=new_id) in old, lang
        assert '<img id="camera"' not in old                # no empty box that waits for frames
    # the old camera box of a page left open asks its frame: the 404 names the rematch's host page
    r = client.get(f"/api/tables/{s.id}/camera?lang=ja", headers={"Accept": "application/json"})
    assert r.status_code == 404 and r.get_json()["moved"] == f"/host/{new_id}?lang=ja"
    assert "再戦" in r.get_json()["error"] and "rematch" in r.get_json()["en"]
    # the link leads the host to the camera
    new = client.get(f"/host/{new_id}?lang=en").get_data(as_text=True)
    assert '<img id="camera"' in new and "camera-moved" not in new
    pending.put(None)
