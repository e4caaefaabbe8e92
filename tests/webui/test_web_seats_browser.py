"""Seats in real headless Chromium at a phone's size: the seat picker, the host's seat list (free a
seat, the phone picks again), and an undo request the host accepts. Screenshots in
test-artifacts/web/ (seat-picker.png, host-seats.png, undo-request-host.png)."""
from __future__ import annotations

import random

import pytest

from tests.webui.test_web_browser import SHOTS, _create, _join, _phone, _tap_once, _version, browser, server  # noqa: F401

pytestmark = pytest.mark.browser


def test_seats_are_claimed_freed_and_an_undo_is_asked_for(server, browser):  # noqa: F811
    table = _create(server, "hills", 2, ["Ann", "Ben"])
    host_ctx, host = _phone(browser)
    host.goto(server.url + table["host_url"] + "?token=" + table["host_token"])
    host.wait_for_selector("#seat-admin")
    ann_ctx, ann = _phone(browser)
    ben_ctx, ben = _phone(browser)
    _join(ann, server, table["code"])
    assert ann.locator("button.claim").all_inner_texts() == ["Ann", "Ben"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    ann.screenshot(path=str(SHOTS / "seat-picker.png"), full_page=True)
    ann.tap("button.claim[data-seat='0']")
    ann.wait_for_selector("#seat-picker", state="detached")
    assert "Ann" in ann.inner_text(".whoami") and ann.locator("section.card h2 >> text=Hand").count() == 1
    _join(ben, server, table["code"])
    assert ben.locator("button.claim").all_inner_texts() == ["Ben"]     # Ann's seat is taken
    ben.tap("button.claim[data-seat='1']")
    ben.wait_for_selector("#seat-picker", state="detached")
    # the host sees who holds which seat, live
    host.wait_for_function("() => document.querySelectorAll('#seat-admin button.phone-role').length === 2")
    # every seat taken: the list folds to one line that still names who sits; opened, who holds them
    assert host.get_attribute("#seat-admin", "open") is None
    assert "Ann" in host.inner_text("#seat-admin summary") and "Ben" in host.inner_text("#seat-admin summary")
    host.tap("#seat-admin summary")
    assert "phone" in host.inner_text("#seat-admin table")
    host.locator("#seat-admin").screenshot(path=str(SHOTS / "host-seats.png"))
    # Ann moves, then takes it back herself before Ben acts
    _tap_once(ann, random.Random(2))
    ann.wait_for_selector("#undo")
    before = _version(ann)
    ann.tap("#undo")
    ann.wait_for_function("v => +document.body.dataset.version > v", arg=before)
    # Ann moves, Ben answers: now Ann may only ask; the host sees who asks for which move
    _tap_once(ann, random.Random(3))
    ben.wait_for_function("v => +document.body.dataset.version >= v", arg=_version(ann), timeout=5000)
    _tap_once(ben, random.Random(4))
    ann.wait_for_function("v => +document.body.dataset.version >= v", arg=_version(ben), timeout=5000)
    ann.tap("#undo-request")
    host.wait_for_selector(".undo-ask", timeout=5000)
    assert "Ann" in host.inner_text(".undo-ask")
    host.locator(".undo-ask").screenshot(path=str(SHOTS / "undo-request-host.png"))
    before = _version(host)
    host.tap("button.undo-accept")
    host.wait_for_function("v => +document.body.dataset.version > v", arg=before)
    assert not host.query_selector(".undo-ask")
    # the host frees Ben's seat: his phone offers the free seat again
    assert host.get_attribute("#seat-admin", "open") is not None   # opened by hand: it stayed open
    host.tap("#seat-admin button.phone-role[data-role='watch'] >> nth=1")
    ben.wait_for_selector("button.claim[data-seat='1']", timeout=5000)
    assert not ann.errors and not ben.errors and not host.errors
    for ctx in (host_ctx, ann_ctx, ben_ctx):
        ctx.close()
