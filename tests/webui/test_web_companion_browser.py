"""Seven Hills against the companion in real headless Chromium: the host gives blue to the companion
on the new-table form, one phone plays red, and the companion's moves are laid and confirmed by a tap
on that phone, the whole game. Screenshots in test-artifacts/web/ (companion-phone.png,
companion-host.png)."""
from __future__ import annotations

import random
import re

import pytest

from tests.webui.test_web_browser import SHOTS, _join, _phone, _tap_once, _version, browser, server  # noqa: F401

pytestmark = pytest.mark.browser


def _create_hills_against_the_companion(server, host):
    """The host page's form: Seven Hills for Ann, blue to the companion (good)."""
    host.goto(server.url + "/host")
    host.select_option("#game", "hills")
    host.fill("#players", "2")
    host.fill("#names", "Ann")
    host.click("#companion-new summary")
    host.select_option("#companion-new-1", "good")
    host.tap("#create")
    host.wait_for_selector("#companion-seats")


def test_seven_hills_one_phone_against_the_companion(server, browser):  # noqa: F811
    host_ctx, host = _phone(browser)
    _create_hills_against_the_companion(server, host)
    assert host.input_value("#companion-1") == "good"
    code = host.inner_text("#join-code")
    ctx, phone = _phone(browser)
    _join(phone, server, code, seat=0)
    rng = random.Random(5)
    SHOTS.mkdir(parents=True, exist_ok=True)
    companion_moves = _play_against_the_companion(phone, host, rng, "good", shots="companion")
    assert companion_moves == 9   # blue's nine cards, each laid for the companion and confirmed
    assert not phone.errors and not host.errors
    ctx.close()
    host_ctx.close()


def test_the_new_table_form_offers_the_companion_only_the_tables_seats(server, browser):  # noqa: F811
    """Seven Hills (2 players) offered the companion seats 1 to 5; the form shows as many seats as
    players, following the game and the player count."""
    ctx, host = _phone(browser)
    host.goto(server.url + "/host")
    host.click("#companion-new summary")
    shown = lambda: [host.is_visible(f"#companion-new-{i}") for i in range(5)]  # noqa: E731
    host.select_option("#game", "hills")
    assert shown() == [True, True, False, False, False]
    host.select_option("#game", "spartacus")
    host.fill("#players", "4")
    assert shown() == [True, True, True, True, False]
    host.select_option("#game", "wheel")
    host.fill("#players", "5")
    assert shown() == [True] * 5
    ctx.close()


def _play_against_the_companion(phone, host, rng, level, shots=""):
    """Play one Seven Hills game on ``phone`` (seat 0), confirming each companion move by a tap once
    both screens say it by its seat's name, with the card's picture; the number of its moves."""
    companion_moves = 0
    for _ in range(40):
        if phone.query_selector(".gameview[data-over='1']"):
            break
        if phone.query_selector("#companion-confirm"):
            said = phone.inner_text("#companion-words")
            assert re.fullmatch(rf"Companion \({level}\) places blue \d( face down)? at hill \d\.", said), said
            card = phone.get_attribute("#companion-turn .chip", "data-card")
            assert card and card.startswith("H-B") and card[3:] == said.split("blue ")[1][0]   # the card said
            host.wait_for_function("w => (document.querySelector('#companion-words') || {}).innerText === w",
                                   arg=said, timeout=10000)   # the host screen says it too
            if shots and companion_moves == 0:
                phone.screenshot(path=str(SHOTS / f"{shots}-phone.png"), full_page=True)
                host.screenshot(path=str(SHOTS / f"{shots}-host.png"), full_page=True)
            before = _version(phone)
            phone.tap("#companion-confirm")
            phone.wait_for_function("v => +document.body.dataset.version > v", arg=before, timeout=30000)
            companion_moves += 1
        else:
            assert _tap_once(phone, rng)
    assert phone.query_selector(".gameview[data-over='1']")
    return companion_moves


@pytest.mark.slow   # two whole games, one against the strong player (~20 s)
def test_an_evening_against_the_companion_rematch_at_strong_and_the_record(server, browser):  # noqa: F811
    """The host's evening on a 360 px phone: Seven Hills for Ann and the companion (good), every
    companion move said by its seat's name with its card and confirmed by a tap; at the end the host
    makes it strong and taps Rematch (the new table calls it "Companion (strong)"), a second game on
    the same phone; History's page for Ann shows her record against each level."""
    host_ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    host = host_ctx.new_page()
    host.errors = []
    host.on("pageerror", lambda e: host.errors.append(str(e)))
    _create_hills_against_the_companion(server, host)
    ctx, phone = _phone(browser)
    _join(phone, server, host.inner_text("#join-code"), seat=0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    rng = random.Random(11)
    assert _play_against_the_companion(phone, host, rng, "good", "evening-good") == 9
    host.wait_for_selector("#rematch")
    assert host.evaluate("document.querySelector('#rematch').getBoundingClientRect().top") < \
        host.evaluate("document.querySelector('#companion-seats').getBoundingClientRect().top")
    host.tap("#companion-seats-link")
    host.select_option("#companion-1", "strong")
    host.tap("#companion-save")
    host.wait_for_selector("#rematch")
    host.screenshot(path=str(SHOTS / "evening-host-end-360.png"), full_page=True)
    host.tap("#rematch")
    host.wait_for_url(re.compile(r"/host/"))
    host.wait_for_selector("#companion-seats")
    assert "Companion (strong)" in host.inner_text("#view") and "(companion, strong)" not in host.inner_text("#view")
    phone.wait_for_function("!document.querySelector(\".gameview[data-over='1']\")", timeout=20000)
    assert _play_against_the_companion(phone, host, rng, "strong", "evening-strong") == 9
    host.goto(server.url + "/history/player?name=Ann&lang=en")
    record = host.inner_text("#against-companion")
    assert "good" in record and "strong" in record
    assert host.locator("#against-companion tr[data-level]").count() == 2
    assert "(companion, strong)" not in host.inner_text("body")
    assert host.evaluate("document.documentElement.scrollWidth") <= 360
    host.screenshot(path=str(SHOTS / "evening-history-ann-360.png"), full_page=True)
    assert not phone.errors and not host.errors
    ctx.close()
    host_ctx.close()


def test_a_finished_seven_hills_fits_a_360_px_phone_with_the_companions_name(server, browser):  # noqa: F811
    """Game over: each hill names who took it; "Companion (good)" under five hills made the row 392 px
    wide on a 360 px phone and host screen (here both names are long, so every hill has one)."""
    import json
    import urllib.request
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    body = json.dumps({"game": "hills", "players": 2, "names": ["Bartholomew Magnificent"],
                       "companions": {"1": "good"}}).encode()
    req = urllib.request.Request(server.url + "/api/tables", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        table = json.load(resp)
    tap_through(TableSession.open(Store(server.app.config["DB"]), table["id"]), 2)
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}")
    page.wait_for_selector(".hillcol.revealed .hillcard small")
    assert "Companion (good)" in page.inner_text(".hills")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    ctx.close()
