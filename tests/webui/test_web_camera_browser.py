"""End to end: a phone as the table's camera, in a real headless Chromium whose camera is fake.

Chromium's fake capture device plays a Y4M file rendered from our printed cards (a dealt Wheel of
History table); the /camera page opens the rear camera with getUserMedia over HTTPS (the server's
own self-signed certificate), streams JPEG frames to the server, the vision pipeline reads the
table and the session applies the deal. The host page shows the set-up check. Screenshots go to
test-artifacts/web/.
"""
from __future__ import annotations

import pytest

from companion.engine import freeze
from tests.camera_helpers import dealt_wheel, write_y4m
from tests.webui.test_web_browser import ARGS, CHROMIUM, PHONE, SHOTS
from tests.web_helpers import make_app
from webui.camera.camera import cameras
from webui.camera.camera_page import camera_token
from tablesim.demo import wait_until
from webui.core.server import RunningServer
from webui.core.tls import certificate

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def fake_camera(tmp_path_factory):
    images, shown = dealt_wheel(count=3)
    return write_y4m(tmp_path_factory.mktemp("camera") / "table.y4m", images), shown


@pytest.fixture(scope="module")
def browser(fake_camera, playwright_driver):
    """A Chromium of its own (its fake camera is a launch argument), from the process's one driver."""
    args = ARGS + ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                   f"--use-file-for-fake-video-capture={fake_camera[0]}"]
    b = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=args)
    yield b
    b.close()


@pytest.mark.slow   # a phone streams a whole deal over HTTPS in Chromium: ./run test --all and CI run it
def test_a_phone_streams_the_table_and_the_session_applies_it(tmp_path, browser, fake_camera):
    _, shown = fake_camera
    app = make_app(tmp_path)
    tables = app.extensions["tables"]
    s = tables.create("wheel", 3, names=["Ann", "Ben", "Chie"], options={})
    cert = certificate(["127.0.0.1"], tmp_path / "tls")
    with RunningServer(app, tls=cert) as server:
        ctx = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True,
                                  has_touch=True, ignore_https_errors=True)
        phone = ctx.new_page()
        errors: list[str] = []
        phone.on("pageerror", lambda e: errors.append(str(e)))
        phone.goto(f"{server.url}/camera/{s.id}?token={camera_token(tables, s.id)}")   # the host's link
        assert phone.evaluate("window.isSecureContext")
        phone.wait_for_function("document.getElementById('preview').videoWidth === 1920",
                                timeout=15000)
        # frames reach the pipeline, which reads the 25 dealt cards: the session applies the deal
        assert wait_until(lambda: tables.get(s.id).version > 0, 90), \
            (phone.inner_text("#camera-page"), getattr(cameras(app).get(s.id), "outcomes", None))
        feed = cameras(app).get(s.id)
        assert feed.error is None and feed.outcomes.count("applied") == 1
        assert freeze(tables.get(s.id).game.layout()) == freeze(shown)
        assert "1920×1080" in phone.inner_text("#cam-status")
        phone.wait_for_function("document.getElementById('cam-next').textContent.length > 5",
                                timeout=10000)
        assert "px/mm" in phone.inner_text("#cam-next")
        SHOTS.mkdir(parents=True, exist_ok=True)
        phone.screenshot(path=str(SHOTS / "phone-camera.png"))
        # the host page (same browser: the host's cookie) shows the set-up check of this camera
        host = ctx.new_page()
        host.on("pageerror", lambda e: errors.append(str(e)))
        host.goto(f"{server.url}/host/{s.id}")
        host.wait_for_selector("#camcheck:not([hidden])", timeout=10000)
        host.wait_for_function("document.getElementById('camcheck-img').naturalWidth === 960",
                               timeout=10000)
        assert "px/mm" in host.inner_text("#camcheck-figures")
        host.locator("#camcheck").screenshot(path=str(SHOTS / "camera-check.png"))
        # in Japanese: the page restarts its stream and says the same step in Japanese
        phone.goto(f"{server.url}/camera/{s.id}?lang=ja")
        phone.wait_for_function("document.getElementById('cam-next').textContent.indexOf('真下') >= 0",
                                timeout=15000)
        phone.wait_for_function("document.getElementById('cam-status').textContent.indexOf('送信中') >= 0",
                                timeout=15000)
        phone.screenshot(path=str(SHOTS / "phone-camera-ja.png"))
        # asking for 4K restarts the camera with the new size (the fake camera stays 1080p)
        before = cameras(app).get(s.id).frames.pushed
        phone.select_option("#cam-res", "3840x2160")
        phone.wait_for_function("() => { const s = document.getElementById('preview').srcObject;"
                                " return s && s.getVideoTracks()[0].getConstraints().width === 3840; }",
                                timeout=10000)   # (Chromium reports an ideal value bare)
        assert wait_until(lambda: cameras(app).get(s.id).frames.pushed > before + 2, 20)
        phone.tap("#cam-stop")
        assert "停止しました" in phone.inner_text("#cam-status")
        assert not errors, errors
        ctx.close()


def test_the_camera_page_waits_out_a_spent_decoding_budget_and_goes_on(tmp_path, browser):
    # 1 ms of decoding, then 1 ms every 0.5 s: after the first frame (several ms) the next is
    # refused with 429 and a few seconds' Retry-After; the page waits them out and sends again,
    # where before it stopped for good on any 4xx but 400
    app = make_app(tmp_path, DECODE_LIMIT=(1, 0.5))
    tables = app.extensions["tables"]
    s = tables.create("wheel", 3, names=["Ann", "Ben", "Chie"], options={})
    cert = certificate(["127.0.0.1"], tmp_path / "tls")
    with RunningServer(app, tls=cert) as server:
        ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, ignore_https_errors=True)
        phone = ctx.new_page()
        answers: list[int] = []
        phone.on("response", lambda r: answers.append(r.status) if r.url.endswith("/camera/frame") else None)
        phone.goto(f"{server.url}/camera/{s.id}?token={camera_token(tables, s.id)}")

        def went_on() -> bool:   # a 202 after a 429
            return 429 in answers and 202 in answers[answers.index(429):]
        for _ in range(300):     # (Playwright delivers the responses while it waits: a bound of 60 s)
            if went_on():
                break
            phone.wait_for_timeout(200)
        assert went_on(), answers
        assert "Stopped" not in phone.inner_text("#cam-status")
        ctx.close()
