"""The demo's first look, in a real headless Chromium: ``./run demo``'s synthetic camera is set up
as the camera set-up check asks, so the host page's check is green (ready) for a new user."""
from __future__ import annotations


import pytest

from tests.webui.test_web_browser import SHOTS
from tests.web_helpers import make_app
from webui.camera.camera import cameras
from tablesim.demo import DemoCamera, demo_table, wait_until
from webui.core.server import RunningServer

pytestmark = pytest.mark.browser


@pytest.mark.slow   # the demo served and its camera checked in Chromium: ./run test --all and CI run it
def test_the_demo_camera_passes_the_set_up_check_on_the_host_page(tmp_path, chromium):
    app = make_app(tmp_path)
    tables = app.extensions["tables"]
    s = demo_table(tables, "wheel")           # ./run demo's game: the largest demo table
    camera = DemoCamera(tables, s.id)
    app.config["FRAME_SOURCE"] = camera.frame
    cameras(app).attach(s.id, camera)
    camera.start()
    try:
        assert wait_until(lambda: camera.frames >= 2 and camera.pipeline.calibration is not None, 90)
        with RunningServer(app) as server:
            context = chromium.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{server.url}/host/{s.id}")
            page.wait_for_selector("#camcheck:not([hidden])", timeout=15000)
            page.wait_for_function("document.getElementById('camcheck-img').naturalWidth === 960",
                                   timeout=15000)
            page.wait_for_function("document.getElementById('camcheck-next').textContent.length > 5",
                                   timeout=15000)
            check = page.evaluate(f"fetch('/api/tables/{s.id}/camera/check?lang=en').then(r => r.json())")
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.locator("#camcheck").screenshot(path=str(SHOTS / "demo-camera-check.png"))
            text = page.inner_text("#camcheck-next")
            context.close()
    finally:
        camera.stop()
        camera.thread.join(60)   # not inside OpenCV when the interpreter exits
    # green everywhere: every cell of the map at or above the line, and the check says ready
    assert text.startswith("Ready"), text
    assert check["ok"] and check["readable"] == 1.0, check
    assert check["lowest_px_per_mm"] >= check["need_px_per_mm"], check
    assert not errors, errors
