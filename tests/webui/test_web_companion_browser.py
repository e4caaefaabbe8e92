"""Seven Hills against the companion in real headless Chromium: the host gives blue to the companion
on the new-table form, one phone plays red, and the companion's moves are laid and confirmed by a tap
on that phone, the whole game. Screenshots in test-artifacts/web/ (companion-turn.png,
companion-host.png)."""
from __future__ import annotations

import random

import pytest

from tests.webui.test_web_browser import SHOTS, _join, _phone, _tap_once, _version, browser, server  # noqa: F401

pytestmark = pytest.mark.browser


def test_seven_hills_one_phone_against_the_companion(server, browser):  # noqa: F811
    host_ctx, host = _phone(browser)
    host.goto(server.url + "/host")
    host.select_option("#game", "hills")
    host.fill("#players", "2")
    host.fill("#names", "Ann")
    host.click("#companion-new summary")
    host.select_option("#companion-new-1", "good")
    host.tap("#create")
    host.wait_for_selector("#companion-seats")
    assert host.input_value("#companion-1") == "good"
    code = host.inner_text("#join-code")
    ctx, phone = _phone(browser)
    _join(phone, server, code, seat=0)
    rng = random.Random(5)
    companion_moves = 0
    SHOTS.mkdir(parents=True, exist_ok=True)
    for _ in range(40):
        if phone.query_selector(".gameview[data-over='1']"):
            break
        if phone.query_selector("#companion-confirm"):
            said = phone.inner_text("#companion-words")
            assert said.startswith("Companion (good) places blue ") and "at hill " in said
            assert phone.query_selector("#companion-turn .chip")   # the card's picture
            if companion_moves == 0:
                phone.screenshot(path=str(SHOTS / "companion-turn.png"), full_page=True)
                host.wait_for_selector("#companion-turn", timeout=5000)   # the host screen says it too
                assert host.inner_text("#companion-words") == said
                host.screenshot(path=str(SHOTS / "companion-host.png"), full_page=True)
            before = _version(phone)
            phone.tap("#companion-confirm")
            phone.wait_for_function("v => +document.body.dataset.version > v", arg=before, timeout=20000)
            companion_moves += 1
        else:
            assert _tap_once(phone, rng)
    assert phone.query_selector(".gameview[data-over='1']")
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
