"""End-to-end: the phone page in a real headless Chromium (Playwright) at a phone's viewport.

Phones join by typing the code, play each of the five games by tapping the move buttons, and a
second phone sees every change live. Screenshots go to test-artifacts/web/.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.web_helpers import ARGS, CHROMIUM, make_app, ready  # noqa: F401  (browser modules import them from here)
from webui.core.server import RunningServer

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
LIVE_MS = 15_000
"""How long a phone may take to show a change here: the page has no polling, so only a pushed
update arrives at all; the target (1 s) is benchmarked (companion bench web), and a CI machine
under load may take longer than the 3–5 s these tests allowed (a timing in a unit test)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = make_app(tmp_path_factory.mktemp("web"))
    with RunningServer(app) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(chromium):
    """The process's one Chromium (tests/webui/conftest.py), under the name the browser modules import."""
    return chromium


def _phone(browser, **kw):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True, **kw)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return ctx, page


def _shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _create(server, game, players, names):
    """Create a table as the host does, with the host page's form."""
    import json
    import urllib.request
    body = json.dumps({"game": game, "players": players, "names": names}).encode()
    req = urllib.request.Request(server.url + "/api/tables", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        return json.load(resp)


def _join(page, server, code, seat=None):
    """Join by typing the code; then claim ``seat`` (None: stay a watcher)."""
    page.goto(server.url + "/")
    page.fill("#code", code.lower())
    page.tap("#join-go")
    page.wait_for_selector(".gameview")
    # the view is parsed before app.js, which comes last: a tap before it ran found no listener and
    # was lost (CI under load tapped a seat that way and waited 30 s)
    ready(page)
    if seat is not None:
        page.tap(f"button.claim[data-seat='{seat}']")
        page.wait_for_selector("#seat-picker", state="detached")


def _scorekeeper(page, server, table):
    """Join, and the host makes this phone the table's scorekeeper (it moves for everyone)."""
    _join(page, server, table["code"])
    phone = page.evaluate("document.body.dataset.token").split(".")[0]
    _post(server, f"/api/tables/{table['id']}/phones", {"phone": phone, "role": "table"},
          table["host_token"])
    page.wait_for_selector("#moves")   # the host's change reaches the page live


def _version(page):
    return int(page.evaluate("document.body.dataset.version"))


def _tap_random_move(page, rng) -> bool:
    """Tap a random move through the picker: a card first where a move is chosen in two steps,
    then where it goes. False when the page offers no move."""
    buttons = page.locator("#moves button.pick:visible, #moves button.mv:visible")
    count = buttons.count()
    if not count:
        return False
    button = buttons.nth(rng.randrange(count))
    if "pick" in (button.get_attribute("class") or "").split():
        button.tap()
        places = page.locator("#moves .step2:visible button.mv")
        button = places.nth(rng.randrange(places.count()))
    button.tap()
    return True


def _tap_once(page, rng):
    """Tap the app's deal button at a chance node, else a random move button; wait for the update."""
    before = _version(page)
    if page.query_selector("#deal"):
        page.tap("#deal")
    else:
        if not _tap_random_move(page, rng):
            return False
    page.wait_for_function("v => +document.body.dataset.version > v", arg=before, timeout=10000)
    return True


def _play(page, rng, taps):
    for _ in range(taps):
        if page.query_selector(".gameview[data-over='1']"):
            return True
        if not _tap_once(page, rng):
            break
    return bool(page.query_selector(".gameview[data-over='1']"))


def test_join_by_code_and_a_second_phone_updates_live(server, browser):
    table = _create(server, "wheel", 3, ["Ann", "Ben", "Chie"])
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser)
    _scorekeeper(a, server, table)
    _join(b, server, table["code"], seat=1)
    assert "Wheel of History" in a.inner_text("h1") and "Ben" in b.inner_text(".whoami")
    rng = random.Random(4)
    for _ in range(4):
        _tap_once(a, rng)
        b.wait_for_function("v => +document.body.dataset.version >= v", arg=_version(a), timeout=LIVE_MS)
        assert b.inner_text(".log") == a.inner_text(".log")
    # Ben's phone has buttons only on Ben's turn; otherwise it waits
    turn = int(b.evaluate("document.querySelector('.gameview').dataset.current"))
    if turn == 1:
        assert b.locator("button.mv").count() > 0
    else:
        b.wait_for_selector("#moves >> text=Waiting for")
        assert b.locator("button.mv").count() == 0
    _shot(a, "wheel-live-a")
    _shot(b, "wheel-live-b")
    assert not a.errors and not b.errors
    ctx_a.close()
    ctx_b.close()


def test_a_phone_that_slept_catches_up(server, browser):
    table = _create(server, "spartacus", 3, ["Ann", "Ben", "Chie"])
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser)
    _scorekeeper(a, server, table)
    _join(b, server, table["code"])
    ctx_b.set_offline(True)
    rng = random.Random(2)
    for _ in range(5):
        _tap_once(a, rng)
    ctx_b.set_offline(False)
    b.wait_for_function("v => +document.body.dataset.version >= v", arg=_version(a), timeout=8000)
    assert b.inner_text(".trick") == a.inner_text(".trick")
    ctx_a.close()
    ctx_b.close()


@pytest.mark.slow   # whole games by taps in Chromium: ./run test --all and CI run them
@pytest.mark.parametrize("game, players, taps, whole", [
    ("wheel", 4, 60, True),
    ("hills", 2, 40, True),
    ("spartacus", 3, 80, False),
    ("prussia", 1, 40, False),
    ("chains", 3, 40, False),
])
def test_play_each_game_by_taps(server, browser, game, players, taps, whole):
    names = ["Ann", "Ben", "Chie", "Dai"][:players]
    table = _create(server, game, players, names)
    ctx, page = _phone(browser)
    watcher_ctx, watcher = _phone(browser)
    _scorekeeper(page, server, table)
    _join(watcher, server, table["code"])
    start = _version(page)
    over = _play(page, random.Random(7), taps)
    assert _version(page) > start + min(taps, 15) or over
    if whole:
        assert over, f"{game} did not end within {taps} taps"
        assert page.query_selector(".summary") and "Game over" in page.inner_text(".status")
    watcher.wait_for_function("v => +document.body.dataset.version >= v", arg=_version(page),
                              timeout=LIVE_MS)
    assert watcher.inner_text(".scores") == page.inner_text(".scores")
    _shot(page, f"{game}-play")
    assert not page.errors and not watcher.errors
    ctx.close()
    watcher_ctx.close()


def test_japanese_dark_rules_and_the_host_screen(server, browser):
    ctx, page = _phone(browser, color_scheme="dark")
    page.goto(server.url + "/host")
    page.select_option("#game", "prussia")
    page.fill("#players", "1")
    page.tap("#create")
    page.wait_for_selector("img.qr")
    code = page.inner_text("#join-code")
    assert len(code) >= 4
    page.wait_for_function("() => document.querySelector('img.qr').complete")
    assert page.evaluate("document.querySelector('img.qr').naturalWidth") > 100
    _shot(page, "host-prussia")
    phone_ctx, phone = _phone(browser, color_scheme="dark")
    _join(phone, server, code, seat=0)   # solo: the one player also turns the cards over
    phone.tap("#lang-toggle")
    phone.wait_for_selector("text=輪る七年戦争")
    # the table drew ♥8 from its own deck: tap that card instead of letting the app draw
    before = _version(phone)
    assert phone.query_selector("details.chance[open]")   # five suits: unfolded at once
    phone.tap("details.chance[open] button.pick[aria-label='♥']")   # its suit, then the card
    phone.tap("details.chance[open] .step2:visible button.mv:has([data-card='P-H8'])")
    phone.wait_for_function("v => +document.body.dataset.version > v", arg=before)
    assert phone.query_selector(".eraline [data-card='P-H8']")
    _play(phone, random.Random(1), 8)
    assert "時代" in phone.inner_text(".gameview")
    bg = phone.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(20, 20, 20)"   # dark by prefers-color-scheme
    phone.tap("#odds")
    phone.wait_for_selector("#odds-table table", timeout=20000)
    odds = phone.inner_text("#odds-table")   # choices named like the move buttons, in Japanese
    assert "勝利" in odds and ">" not in odds, odds
    _shot(phone, "prussia-ja-dark")
    phone.tap("#theme-toggle")
    assert phone.evaluate("getComputedStyle(document.body).backgroundColor") != bg
    phone.click("a.rules-link")
    phone.wait_for_selector("#war")
    assert "発火トランプ" in phone.inner_text("main")   # the full rules (docs/prussia.md), in Japanese
    # the host's page updated live with the phone's moves
    page.wait_for_function("v => +document.body.dataset.version >= v", arg=8, timeout=LIVE_MS)
    assert not phone.errors and not page.errors
    phone_ctx.close()
    ctx.close()


def test_a_stale_tap_is_refused_with_a_message_and_the_view_catches_up(server, browser):
    table = _create(server, "hills", 2, ["Ann", "Ben"])
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser)
    ctx_b.route("**/events*", lambda route: route.abort())   # b hears no pushes: its view goes stale
    _scorekeeper(a, server, table)
    _join(b, server, table["code"], seat=0)   # Ann starts: both phones show her buttons
    _tap_once(a, random.Random(1))
    assert _version(b) == 0 and _version(a) == 1
    b.locator("button.pick").first.tap()        # Seven Hills: a card, then a hill
    b.locator(".step2:visible button.mv").first.tap()
    b.wait_for_selector("#toast.bad")
    assert "table changed" in b.inner_text("#toast")
    b.wait_for_function("() => +document.body.dataset.version === 1")
    assert b.inner_text(".hills") == a.inner_text(".hills")     # refused, not applied twice
    ctx_a.close()
    ctx_b.close()


def test_a_role_granted_before_the_live_stream_starts_still_reaches_the_phone(server, browser):
    """A role change makes no new version; granted after the page drew its view but before its live
    stream opened, the stream counted it as old news and the phone never showed it (a CI run timed
    out waiting). The page now fetches its view once whenever the stream (re)opens."""
    table = _create(server, "wheel", 2, ["Ann", "Ben"])
    ctx, page = _phone(browser)
    held = []
    page.route("**/api/tables/*/events*", lambda route: held.append(route))   # the stream waits
    _join(page, server, table["code"])
    for _ in range(200):   # the stream's request reaches the route (a fixed 200 ms could end before)
        if held:
            break
        page.wait_for_timeout(50)
    assert held and page.locator("#moves").count() == 0
    phone = page.evaluate("document.body.dataset.token").split(".")[0]
    _post(server, f"/api/tables/{table['id']}/phones", {"phone": phone, "role": "table"}, table["host_token"])
    for route in held:
        route.continue_()
    page.unroute("**/api/tables/*/events*")
    page.wait_for_selector("#moves", timeout=10_000)
    ctx.close()


def test_a_tap_waits_for_the_pages_script(server, browser):
    """The seat buttons work only through app.js, which the page loads last: until it has bound its
    listeners (``body[data-ready]``) they take no tap (a tap would be lost unseen; Playwright's tap
    waits instead). Without the script the page stays not ready."""
    table = _create(server, "wheel", 2, ["Ann", "Ben"])
    ctx, page = _phone(browser)
    claim = "getComputedStyle(document.querySelector('button.claim')).pointerEvents"
    page.route("**/static/app.js*", lambda route: route.abort())
    page.goto(f"{server.url}/join?code={table['code']}")
    assert page.evaluate("document.body.dataset.ready") is None and page.evaluate(claim) == "none"
    page.unroute("**/static/app.js*")
    page.goto(f"{server.url}/join?code={table['code']}")
    assert page.evaluate("document.body.dataset.ready") == "1" and page.evaluate(claim) == "auto"
    page.tap("button.claim[data-seat='1']")
    page.wait_for_selector("#seat-picker", state="detached")
    assert "Ben" in page.inner_text(".whoami") and not page.errors
    for path in ("/host", "/history", "/rules/wheel"):     # pages with no table are made ready too
        page.goto(server.url + path)
        assert page.evaluate("document.body.dataset.ready") == "1", path
    ctx.close()


def test_the_table_enters_the_wheel_circle_it_laid(server, browser):
    table = _create(server, "wheel", 2, ["Ann", "Ben"])
    ctx, page = _phone(browser)
    _scorekeeper(page, server, table)
    order = [f"W-{c}{v}" for v in range(5, 0, -1) for c in "PYGBR"]   # any order the table laid
    for card in order[:3]:
        page.tap(f".circle-card[data-card='{card}']")
    page.tap("#circle-back")
    assert page.inner_text("#circle-count") == "2"
    for card in order[2:]:
        page.tap(f".circle-card[data-card='{card}']")
    page.tap("#circle-done")
    page.wait_for_function("() => +document.body.dataset.version === 1")
    # the first three cards clockwise from the pawn are the ones that can be taken
    takes = page.locator("button.mv").all_inner_texts()
    names = ["purple 5", "yellow 5", "green 5"]
    assert all(any(n in t for t in takes) for n in names) and len(takes) == 3
    _shot(page, "wheel-circle-entered")
    ctx.close()


def test_the_host_ends_the_game_early_and_the_phones_see_the_summary(server, browser):
    table = _create(server, "spartacus", 3, ["Ann", "Ben", "Chie"])
    host_ctx, host = _phone(browser)
    host.goto(server.url + table["host_url"] + "?token=" + table["host_token"])
    host.wait_for_selector(".gameview")
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser)
    _scorekeeper(a, server, table)
    _join(b, server, table["code"])
    # the reload asks for Japanese itself: the cookie the toggle writes may reach Chromium's network
    # process after the reload left (it came back in English once, under load)
    with b.expect_navigation(url=lambda url: "lang=ja" in url):
        b.tap("#lang-toggle")
    b.wait_for_selector("text=スパルタクス")
    _play(a, random.Random(3), 9)
    host.wait_for_function("v => +document.body.dataset.version >= v", arg=_version(a), timeout=LIVE_MS)
    # the confirm step: the red button is hidden until the host opens "End game"
    assert not host.is_visible("#end-game")
    host.tap("details.end-game summary")
    assert "Undo takes it back" in host.inner_text("details.end-game") and host.is_visible("#end-game")
    host.locator("details.end-game").scroll_into_view_if_needed()
    host.screenshot(path=str(SHOTS / "end-game-confirm.png"))
    before = _version(host)
    host.tap("#end-game")
    host.wait_for_function("v => +document.body.dataset.version > v", arg=before, timeout=10000)
    for phone in (a, b):   # both phones show the finished-game summary live, with the note
        phone.wait_for_selector(".summary .ended-early", timeout=LIVE_MS)
        assert phone.query_selector(".gameview[data-over='1']") and not phone.query_selector("button.mv")
    assert "The host ended this game early" in a.inner_text(".summary")
    assert "ended early by the host" in a.inner_text(".status")
    assert "ホストがこのゲームを途中で終了しました" in b.inner_text(".summary")
    assert a.inner_text(".scores") == host.inner_text(".scores")
    assert not host.query_selector("#end-game") and host.query_selector("#undo")
    _shot(host, "end-game-host")
    _shot(a, "end-game-phone")
    _shot(b, "end-game-phone-ja")
    assert not a.errors and not b.errors and not host.errors
    for ctx in (host_ctx, ctx_a, ctx_b):
        ctx.close()


def _post(server, path, body, token):
    """A write through the JSON API with a table token (what the camera or another phone sends)."""
    import json
    import urllib.request
    req = urllib.request.Request(server.url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", "X-Table-Token": token})
    with urllib.request.urlopen(req) as resp:
        return json.load(resp)


def test_a_prompt_asks_in_words_in_the_phones_language(server, browser):
    table = _create(server, "spartacus", 3, ["Ann", "Ben", "Chie"])
    for v, move in enumerate([{"player": 0, "kind": "play", "card": "S-R5"}, {"player": 1, "kind": "pass"},
                              {"player": 2, "kind": "play", "card": "S-G3"}]):
        _post(server, f"/api/tables/{table['id']}/move", {"version": v, "move": move}, table["host_token"])
    # the camera sees the trick gone to Chie: Ann passed or played her banner, the table must say
    _post(server, f"/api/tables/{table['id']}/observe", {"observation": {"trick": [], "won": [0, 0, 1]}},
          table["host_token"])
    ctx, page = _phone(browser)
    _scorekeeper(page, server, table)   # the shared phone: it may see and answer this prompt
    choices = page.locator(".prompt button.answer").all_inner_texts()
    assert "Ann (red) plays red banner" in choices and "Ann (red) passes" in choices
    page.tap("#lang-toggle")
    page.wait_for_selector(".prompt >> text=Ann(赤)が赤の軍旗を出す")
    assert "Ann(赤)がパスする" in page.locator(".prompt button.answer").all_inner_texts()
    _shot(page, "prompt-choose-ja")
    before = _version(page)
    page.tap(".prompt button.answer >> text=Ann(赤)がパスする")
    page.wait_for_function("v => +document.body.dataset.version > v", arg=before)
    assert not page.query_selector(".prompt")
    assert not page.errors
    ctx.close()


def test_the_host_page_of_a_table_without_camera_logs_no_404(server, browser):
    """No camera watches the table: the host page's set-up check is answered quietly (200,
    ``{"camera": null}``), polled slowly, its box stays hidden; the page's icon is served; nothing
    the page loads answers 4xx (the console shows no 404)."""
    table = _create(server, "hills", 2, ["Ann", "Ben"])
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    host = ctx.new_page()
    failed: list[str] = []
    checks: list[int] = []
    host.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    host.on("response", lambda r: checks.append(r.status) if "/camera/check" in r.url else None)
    with host.expect_response(lambda r: "/camera/check" in r.url) as first:
        host.goto(server.url + table["host_url"] + "?token=" + table["host_token"])
    assert first.value.status == 200 and first.value.json() == {"camera": None}
    host.wait_for_timeout(2500)   # the check of a table with a camera comes every 2 s; without, 8 s
    assert checks == [200] and host.is_hidden("#camcheck")
    icon = host.evaluate("fetch(document.querySelector('link[rel=icon]').href)"
                         ".then(r => [r.status, r.headers.get('content-type')])")
    assert icon == [200, "image/vnd.microsoft.icon"]
    assert failed == []
    ctx.close()
