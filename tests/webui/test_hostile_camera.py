"""Issue 20, point 4: the phone camera upload cannot exhaust memory or CPU (Flask's test client, real
JPEGs from Pillow and OpenCV, the real vision pipeline). A frame of a new size starts the table's one
pipeline over and frees the old one; a JPEG is judged by its markers (pixels, scans) before it is
decoded; the decoding time of a table and the phone cameras of a server are bounded. Nothing here
measures time: the tests count pipelines, threads, scans and refusals."""
from __future__ import annotations

import io
import threading
import weakref
from contextlib import contextmanager

import cv2
import numpy as np
from PIL import Image

from tablesim.demo import wait_until
from tests.web_helpers import make_app
from vision.reading.markers import THREADS
from webui.camera.camera import FRAME_MAX_SCANS, cameras, jpeg_header
from webui.core.guard import DECODE_LIMIT, RateLimit


def _pillow_jpeg(width: int, height: int, progressive: bool = True, flat: bool = False) -> bytes:
    """A frame as a phone would send it (a grey gradient, or one grey: Pillow's encoder)."""
    ramp = np.linspace(40, 220, width, dtype=np.uint8)[None, :, None]
    image = np.full((height, width, 3), 128, np.uint8) if flat else np.broadcast_to(ramp, (height, width, 3)).copy()
    out = io.BytesIO()
    Image.fromarray(image).save(out, "JPEG", quality=85, progressive=progressive)
    return out.getvalue()


def _scan_bomb(width: int, height: int, repeats: int) -> bytes:
    """A valid progressive JPEG whose last scan (with its Huffman table) is repeated ``repeats``
    times: a few bytes each, and each another pass of the decoder over every block (the attack
    of issue 20 was 16,000 scans in 205 kB, 5–10 s of CPU a request)."""
    data = _pillow_jpeg(width, height, flat=True)     # its refinement scans are a dozen bytes
    last = data.rindex(b"\xff\xda")
    unit_start = data.rindex(b"\xff\xc4", 0, last)    # libjpeg puts each scan's table before it
    if data.find(b"\xff", unit_start + 2, last) != last:
        unit_start = last
    unit = data[unit_start:-2]                         # up to the end-of-image marker
    return data[:-2] + unit * repeats + data[-2:]


@contextmanager
def _served(tmp_path, **config):
    """The app (its cameras stopped at the end), its tables and a client."""
    app = make_app(tmp_path, **config)
    try:
        yield app, app.extensions["tables"], app.test_client()
    finally:
        cameras(app).close()


def _wheel(tables):
    """A new Wheel table and its host's token."""
    s = tables.create("wheel", 3, names=["Ann", "Ben", "Chie"], options={})
    return s, tables.host_token(s.id)


def _post(client, table_id, data, token):
    return client.post(f"/api/tables/{table_id}/camera/frame", data=data,
                       headers={"Content-Type": "image/jpeg", "X-Table-Token": token})


def _threads() -> set[threading.Thread]:
    """The threads of this process but the finders' pool (shared, of fixed size, started lazily)."""
    return {t for t in threading.enumerate() if not t.name.startswith("markers")}


def _in_both(answer: dict, words: str, japanese: str) -> None:
    assert words in answer["error"] and japanese in answer["ja"], answer


def test_the_markers_tell_size_and_scans_before_decoding():
    assert jpeg_header(_pillow_jpeg(640, 480)) == (640, 480, 10)             # libjpeg's progressive script
    assert jpeg_header(_pillow_jpeg(640, 480, progressive=False)) == (640, 480, 1)
    baseline = cv2.imencode(".jpg", np.zeros((90, 160, 3), np.uint8))[1].tobytes()
    assert jpeg_header(baseline) == (160, 90, 1)
    bomb = _scan_bomb(320, 240, 200)
    assert jpeg_header(bomb).scans == 10 + 200
    decoded = cv2.imdecode(np.frombuffer(bomb, np.uint8), cv2.IMREAD_COLOR)   # a real image, not junk
    assert decoded is not None and decoded.shape == (240, 320, 3)


def test_a_many_scan_jpeg_is_refused_and_a_phones_progressive_one_is_read(tmp_path):
    with _served(tmp_path) as (app, tables, client):
        s, host = _wheel(tables)
        r = _post(client, s.id, _scan_bomb(1920, 1080, 2000), host)   # 36 kB, 2.4 s of CPU to decode
        assert r.status_code == 413
        _in_both(r.get_json(), f"more than {FRAME_MAX_SCANS} scans", "スキャン")
        assert cameras(app).get(s.id) is None and tables.get(s.id).version == 0   # nothing started
        r = _post(client, s.id, _pillow_jpeg(1280, 720), host)         # a phone's progressive frame
        assert r.status_code == 202 and r.get_json()["size"] == [1280, 720]
        feed = cameras(app).get(s.id)
        assert wait_until(lambda: feed.size == (1280, 720), 30) and feed.error is None


def test_frames_of_new_sizes_leave_one_pipeline_and_one_thread(tmp_path):
    with _served(tmp_path) as (app, tables, client):
        s, host = _wheel(tables)
        assert _post(client, s.id, _pillow_jpeg(640, 480), host).status_code == 202
        feed = cameras(app).get(s.id)
        assert wait_until(lambda: feed.size == (640, 480), 30)
        threads = _threads()                   # the camera's thread is up
        pipelines = [weakref.ref(feed.pipeline)]
        for i in range(1, 13):                 # before: each size a new feed, thread and pipeline kept
            r = _post(client, s.id, _pillow_jpeg(640 + 16 * i, 480 + 8 * i), host)
            assert r.status_code == 202, r.get_json()
            assert wait_until(lambda: feed.restarts == i, 30), feed.error
            pipelines.append(weakref.ref(feed.pipeline))
        assert cameras(app).get(s.id) is feed and feed.thread.is_alive() and feed.restarts == 12
        assert [p() is not None for p in pipelines] == [False] * 12 + [True]   # every old one freed
        assert _threads() == threads
        assert sum(t.name.startswith("markers") for t in threading.enumerate()) <= THREADS   # a fixed pool


def test_a_server_runs_few_phone_cameras_and_a_gone_one_gives_its_place_up(tmp_path):
    frame = _pillow_jpeg(640, 480)
    with _served(tmp_path, CAMERA_PHONES_MAX=2) as (app, tables, client):
        made = [_wheel(tables)[0] for _ in range(3)]
        for s in made[:2]:
            assert _post(client, s.id, frame, tables.host_token(s.id)).status_code == 202
        third = made[2]
        r = _post(client, third.id, frame, tables.host_token(third.id))
        assert r.status_code == 503
        _in_both(r.get_json(), "already runs 2 phone cameras", "2")
        assert cameras(app).get(third.id) is None and tables.get(third.id).version == 0
        # the first phone went quiet (its page closed long ago): the third takes its place
        first = cameras(app).get(made[0].id)
        first.frames.last_push -= 3600        # (its clock, not a wait: an hour without a frame)
        assert _post(client, third.id, frame, tables.host_token(third.id)).status_code == 202
        assert first.frames.closed and first.done.wait(30)
        assert cameras(app).get(made[1].id).thread.is_alive()             # the busy one goes on


def test_a_tables_decoding_time_is_bounded(tmp_path):
    # a budget of 1 ms of decoding, refilled once in ~11 days: the first 1920×1080 frame (~7 ms
    # of CPU) spends it, the next is refused before it is decoded
    frame = _pillow_jpeg(1920, 1080)
    with _served(tmp_path, DECODE_LIMIT=(1, 1e6)) as (app, tables, client):
        s, host = _wheel(tables)
        assert _post(client, s.id, frame, host).status_code == 202
        feed = cameras(app).get(s.id)
        r = _post(client, s.id, frame, host)
        assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
        _in_both(r.get_json(), "took too much time to decode", "デコード")
        assert feed.frames.pushed == 1 and tables.get(s.id).version == 0
        # another table's camera has its own budget
        other, other_host = _wheel(tables)
        assert _post(client, other.id, frame, other_host).status_code == 202


def test_a_costly_decode_is_owed_not_forgiven():
    # 3 s of decoding at once, then 300 ms a second: a frame that cost 2.5 s with 2.1 s left
    # leaves 0.4 s owed, and the next frame waits for it (a bucket that stopped at zero would have
    # let the next one in after 3 ms, whatever the last one cost)
    budget = RateLimit(*DECODE_LIMIT)
    budget.spend("t", 900.0)
    assert budget.wait("t") == 0
    budget.spend("t", 2500.0)
    assert 1.2 < budget.wait("t") <= 401 / 300
    assert budget.wait("another table") == 0
