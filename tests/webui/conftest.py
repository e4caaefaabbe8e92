"""One Playwright driver and one headless Chromium per test process (xdist worker), shared by every
browser test module: starting the driver and the browser cost about 1 s of CPU each time, and
Playwright's sync API allows one driver per thread, so a test that needs a browser with other
launch arguments launches it from ``playwright_driver`` rather than starting a driver of its own.
Each test opens its own contexts (its own cookies and storage) and closes them."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.web_helpers import ARGS, CHROMIUM


@pytest.fixture(scope="session")
def playwright_driver():
    """The process's one Playwright (sync API) driver."""
    import playwright.sync_api as playwright
    # a missing browser is a missing install step, not a reason to skip: ./run test installs it
    assert Path(CHROMIUM).exists(), "Debian's chromium is not installed: run ./run test as root"
    with playwright.sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def chromium(playwright_driver):
    """The process's one headless Chromium with the tests' usual arguments."""
    b = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield b
    b.close()
