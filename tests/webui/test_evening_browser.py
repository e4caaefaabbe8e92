"""A game night's seams found by playing it in headless Chromium (issue 22, session 9 qa): what the
host must do comes first on a phone-sized host screen, at every game's end and with a ruling open."""
from __future__ import annotations

import pytest

from tests.companion.history.test_history import tap_through
from tests.web_helpers import PLAYERS, Live, ready
from tests.webui.test_web_browser import SHOTS, browser, server  # noqa: F401

pytestmark = pytest.mark.browser

SMALL = {"width": 360, "height": 740}
LINES = """cells => cells.map(c => { const r = document.createRange(); r.selectNodeContents(c);
    return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; })"""
"""How many lines each cell's text takes."""


def _top(page, selector: str) -> float:
    """Where ``selector``'s first element starts on the page (CSS px from the page's top)."""
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().top + window.scrollY")


def _bottom(page, selector: str) -> float:
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().bottom + window.scrollY")


def _first_seats_phone(server, browser, table: dict) -> tuple:  # noqa: F811
    """A 360 px phone that joined ``table`` by its code and took the first seat: (context, page)."""
    ctx = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(f"{server.url}/join?code={table['code']}")
    page.wait_for_load_state("load")
    page.tap("button.claim[data-seat='0']")
    page.wait_for_selector("#seat-picker", state="detached")
    return ctx, page


def test_on_a_360_px_host_what_needs_the_host_comes_first(server, browser):  # noqa: F811
    """At every game's end the join QR card and the last move's banners stood above "Needs you"
    (Rematch): on a 360 px host screen what needs the host is on the first screen, above both; so is
    a ruling to carry out (a Spartacus trick to collect) during a game, EN and JA."""
    live, tables = Live(server), server.app.extensions["tables"]
    ctx = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    SHOTS.mkdir(parents=True, exist_ok=True)
    for game, players in PLAYERS.items():
        table = live.new_table(game, players)
        tap_through(tables.get(table["id"]), 3)
        lang = "ja" if game in ("hills", "spartacus") else "en"
        page.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}&lang={lang}")
        needs = _top(page, "#needs-host")
        assert needs < _top(page, ".joinbox") and needs < _top(page, ".banners"), game
        assert _bottom(page, "#rematch") <= SMALL["height"], game   # Rematch on the first screen
        # the end table's headings stay whole words (「トリック」 broke into 「トリッ」「ク」 at 360 px)
        assert page.eval_on_selector_all("#end-table thead th", LINES) == [1] * page.locator("#end-table thead th").count(), game
        if game == "spartacus":
            page.screenshot(path=str(SHOTS / "host-360-end.png"))
    table = live.new_table("spartacus", 3)
    s = tables.get(table["id"])
    for _ in range(3):   # three cards make a trick: collecting it is a ruling carried out by hand
        s.play(s.legal_moves()[0], by="phone", expected_version=s.version)
        if s.prompts:
            break
    assert [p.kind for p in s.prompts] == ["ruling"]
    for lang in ("en", "ja"):
        page.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}&lang={lang}")
        done = "button[data-choice='done']"
        assert _top(page, done) < _top(page, ".joinbox"), lang
        assert _bottom(page, done) <= SMALL["height"], lang
    page.screenshot(path=str(SHOTS / "host-360-ruling.png"))
    ctx.close()


def test_a_card_entered_in_two_steps_does_not_stay_picked(server, browser):  # noqa: F811
    """Prussia: a card drawn that the rules discard at once (its nation surrendered) is drawn again.
    Entered in two steps (♣, then ♣8), the next draw's picker opened at "♣: which card?", as if ♣ were
    picked for it (seen entering the companion's draws); after a move the picker starts afresh."""
    import random

    live, tables = Live(server), server.app.extensions["tables"]
    table = live.new_table("prussia", 1)
    s = tables.get(table["id"])
    rng, redraw = random.Random(1), None
    while redraw is None and not s.is_over():   # to a draw the rules discard at once, drawing again
        game = s.game
        if game.is_chance_node() and len(game.log) > 2:
            for m in game.legal_moves():
                after = game.clone()
                after.apply(m)
                if m.kind == "draw" and after.is_chance_node() and not after.is_over():
                    redraw = m
                    break
        if redraw is None:
            move = game.sample_chance(rng) if game.is_chance_node() else rng.choice(s.legal_moves())
            s.play(move, by="phone", expected_version=s.version)
    assert redraw is not None
    ctx, page = _first_seats_phone(server, browser, table)
    button = page.locator(f"#moves .step2 button.mv[data-move*='\"{redraw.get('card')}\"']")
    page.tap(f"#moves .pick[data-step='{button.evaluate('b => b.closest(`.step2`).dataset.for')}']")
    before = int(page.evaluate("document.body.dataset.version"))
    button.tap()
    page.wait_for_function("v => +document.body.dataset.version > v", arg=before, timeout=10000)
    page.wait_for_selector("#moves .picker")
    assert page.locator("#moves .picker .step2:not([hidden])").count() == 0, page.inner_text("#moves")
    assert page.locator("#moves .picker .step1:not([hidden]) button.pick").count() == 5   # ♠ ♥ ♦ ♣ JK
    ctx.close()


def test_one_phone_as_the_host_screen_and_a_seat_stays_the_host_screen(server, browser):  # noqa: F811
    """A table with one phone (QA game night, session 10): the host tapped the join link on the host
    page and took Ann's seat in the same browser; back on the host page, the first live update drew
    Ann's seat view into it ("Your seat: Ann", no Undo, no Rematch): the page's view and stream now
    ask for the host's view, by the host's cookie."""
    live, tables = Live(server), server.app.extensions["tables"]
    table = live.new_table("spartacus", 3)
    ctx = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}")
    page.goto(f"{server.url}/join?code={table['code']}")
    page.tap("button.claim[data-seat='0']")
    page.wait_for_selector("#seat-picker", state="detached")
    page.goto(f"{server.url}/host/{table['id']}")
    s = tables.get(table["id"])
    before = int(page.evaluate("document.body.dataset.version"))
    s.play(s.legal_moves()[0], by="phone", expected_version=s.version)   # a move: the stream redraws
    page.wait_for_function("v => +document.body.dataset.version > v", arg=before, timeout=10000)
    assert page.locator(".whoami").count() == 0, page.inner_text(".whoami")
    assert page.locator("#undo").inner_text() == "Undo last move"
    ctx.close()


def test_a_stale_tab_and_a_seat_taken_meanwhile_say_what_to_do(server, browser):  # noqa: F811
    """Bad input at a QA game night (session 10): two phones tapped Ann's seat at once, and the slower
    one read "The table changed meanwhile; refreshed — please tap again. (seat 1 is taken by another
    phone)"; a stale tab of Ann's (its stream gone) tapped a card and read "… please tap again. (The
    table changed (you saw version 1, it is now 2); reload and try again.)". Each says one thing now:
    the seat by its name, the stale tap the page's own sentence; neither changes the game."""
    live, tables = Live(server), server.app.extensions["tables"]
    table = live.new_table("spartacus", 3)
    phones = []
    for late in (False, True):
        ctx = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)
        page = ctx.new_page()
        if late:   # a phone that has not heard of the other's claim yet (its stream is slow)
            page.route("**/events*", lambda route: route.abort())
        page.goto(f"{server.url}/join?code={table['code']}")
        phones.append(page)
    ann, late = phones
    ann.tap("button.claim[data-seat='0']")
    ann.wait_for_selector("#seat-picker", state="detached")
    late.tap("button.claim[data-seat='0']")
    late.wait_for_selector("#toast:not([hidden])")
    said = late.inner_text("#toast")
    assert "Ann's seat was just taken by another phone" in said and "tap again" not in said, said
    assert late.inner_text(".whoami") == "Watching (no seat)"
    ann.wait_for_selector("#moves button.mv")
    stale = ann.context.new_page()
    stale.route("**/events*", lambda route: route.abort())   # this tab hears nothing from now on
    stale.goto(f"{server.url}/t/{table['id']}")
    s = tables.get(table["id"])
    before = s.version
    ann.locator("#moves button.mv").first.tap()   # Ann plays a card: the stale tab does not hear it
    ann.wait_for_function("v => +document.body.dataset.version > v", arg=before, timeout=10000)
    version = s.version
    stale.locator("#moves button.mv").last.tap()
    stale.wait_for_function("v => +document.body.dataset.version >= v", arg=version, timeout=10000)
    assert stale.inner_text("#toast") == stale.evaluate("document.body.dataset.stale")
    assert s.version == version
    for page in phones:
        page.context.close()


def test_a_tap_that_never_reached_the_server_says_so(server, browser):  # noqa: F811
    """The server was down for a moment (QA game night, session 10): Ann tapped a card and read only
    "Reconnecting…", as if the tap would go once the table was back; it was lost. A tap that did not
    reach the server says so and asks for it again (EN/JA), and changes nothing."""
    live, tables = Live(server), server.app.extensions["tables"]
    table = live.new_table("spartacus", 3)
    for lang, said in (("en", "Not sent"), ("ja", "送信できませんでした")):
        ctx = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)
        page = ctx.new_page()
        page.goto(f"{server.url}/join?code={table['code']}&lang={lang}")
        page.wait_for_selector("button.claim")
        if lang == "en":   # Ann's phone taps a card; the Japanese one, a watcher, a free seat
            page.tap("button.claim[data-seat='0']")
            page.wait_for_selector("#moves button.mv")
        page.route("**/move?*", lambda route: route.abort("connectionrefused"))   # the server is gone
        page.route("**/seat?*", lambda route: route.abort("connectionrefused"))
        page.locator("#moves button.mv, button.claim").first.tap()
        page.wait_for_selector("#toast:not([hidden])")
        assert said in page.inner_text("#toast"), page.inner_text("#toast")
        ctx.close()
    assert tables.get(table["id"]).version == 0


@pytest.mark.slow
def test_an_evening_of_three_games_with_a_late_comer_and_someone_going_home(server, browser):  # noqa: F811
    """The QA game night of session 10 as one run: the Wheel for Ann, Ben and Chie (a Japanese phone);
    "Another game with these players" takes every phone to Spartacus in its seat, and Dai, who came
    late, takes the seat added for him by the new code; after it Chie goes home, the host gives her
    seat to the companion and taps Rematch: Ann, Ben and Dai follow in their seats, Chie's phone
    watches, and the seat is the companion's by name."""
    import re
    live, tables = Live(server), server.app.extensions["tables"]
    table = live.new_table("wheel", 3)
    contexts = []

    def phone(locale: str = "en-US"):
        ctx = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True,
                                  locale=locale)
        contexts.append(ctx)
        return ctx.new_page()

    host_ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    contexts.append(host_ctx)
    host = host_ctx.new_page()
    host.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}")
    phones = {}
    for seat, name in enumerate(["Ann", "Ben", "Chie"]):
        page = phone("ja-JP" if name == "Chie" else "en-US")
        page.goto(f"{server.url}/join?code={table['code']}")
        page.tap(f"button.claim[data-seat='{seat}']")
        page.wait_for_selector("#seat-picker", state="detached")
        phones[name] = page
    tap_through(tables.get(table["id"]), 1)
    host.wait_for_selector("details.another-game")   # the end screen, drawn live
    host.click("details.another-game > summary")
    host.select_option("#another-game-choice", "spartacus")
    host.fill("#another-game-names", host.input_value("#another-game-names") + ", Dai")
    host.click("#another-game button[type=submit]")
    host.wait_for_url(re.compile(r"/host/(?!%s)\w+" % table["id"]))
    second = host.url.split("/host/")[1].split("?")[0]
    for name, page in phones.items():   # every phone went on by itself, in its seat
        page.wait_for_url(f"**/t/{second}*")
        page.wait_for_selector(".whoami")
        assert page.inner_text(".whoami").endswith(name), (name, page.inner_text(".whoami"))
    dai = phone()
    dai.goto(f"{server.url}/join?code={host.inner_text('#join-code')}")
    dai.tap("button.claim[data-seat='3']")
    dai.wait_for_selector("#seat-picker", state="detached")
    assert dai.inner_text(".whoami") == "Your seat: Dai"
    tap_through(tables.get(second), 2)
    host.wait_for_selector("#companion-seats-link")   # "Someone leaving? …"
    host.select_option("#companion-2", "good")
    host.click("#companion-save")
    host.wait_for_selector("#rematch")
    host.click("#rematch")
    host.wait_for_url(re.compile(r"/host/(?!%s)\w+" % second))
    third = host.url.split("/host/")[1].split("?")[0]
    phones["Dai"] = dai
    for name, page in phones.items():
        page.wait_for_url(f"**/t/{third}*")
        page.wait_for_selector(".whoami")
        said = page.inner_text(".whoami")
        assert said == "観戦中(席なし)" if name == "Chie" else said.endswith(name), (name, said)
    assert tables.get(third).names_in("en") == ["Ann", "Ben", "Companion (good)", "Dai"]
    for ctx in contexts:
        ctx.close()


def test_a_card_turned_over_is_entered_first_and_the_apps_draw_comes_second(server, browser):  # noqa: F811
    """A player who turned a real card over enters it on their phone: "which card was it?" comes
    first, and the app's own draw (a random card, for a table without the cards) comes after it, not
    as the first big button, where a reflex tap recorded a card nobody turned over (QA game nights,
    sessions 9 and 10)."""
    import random

    live, tables = Live(server), server.app.extensions["tables"]
    table = live.new_table("prussia", 1)
    s = tables.get(table["id"])
    while not (s.game.is_chance_node() and any(m.kind == "draw" for m in s.game.legal_moves())):
        game = s.game
        move = game.sample_chance(random.Random(1)) if game.is_chance_node() else s.legal_moves()[0]
        s.play(move, by="phone", expected_version=s.version)
    ctx, page = _first_seats_phone(server, browser, table)
    ready(page)
    entry = "#moves .picker details.chance"
    assert page.locator(entry).get_attribute("open") is not None
    assert page.inner_text(f"{entry} > summary") == "Tap the card that was turned over"
    assert _top(page, entry) < _top(page, "#deal"), page.inner_text("#moves")
    assert "primary" not in (page.get_attribute("#deal", "class") or "")
    page.screenshot(path=str(SHOTS / "phone-card-turned-over.png"))
    ctx.close()
