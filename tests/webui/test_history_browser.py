"""The History page and Rematch in a real headless Chromium at a phone's size (390×844), in English
and Japanese: no label of any chart overlaps another (measured on the rendered page), nothing scrolls
sideways, a filter and a rematch work by taps, and a phone at the finished table follows the host to
the rematch. Screenshots go to test-artifacts/web/ (docs/img/webui-history*.png are copies)."""
from __future__ import annotations

import random
import re

import pytest

from tests.webui.test_web_browser import PHONE, SHOTS, _join, _phone, browser, server  # noqa: F401
from tests.web_helpers import scorekeeper, state, step

pytestmark = pytest.mark.browser

OVERLAPS = """() => {
  const out = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
    for (const [s, r] of texts)
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.push('outside: ' + s);
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++) {
        const [a, p] = texts[i], [b, q] = texts[j];
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 0.5 && h > 0.5) out.push(a + ' / ' + b);
      }
  }
  return out;
}"""


END_LABELS = """() => [...document.querySelectorAll('svg.chart text.end')]
  .map(t => [...t.querySelectorAll('tspan')].map(s => s.textContent))"""
"""Every line chart's end labels, each as its lines (one tspan a line)."""


def _finish(client, table, seed):
    rng = random.Random(seed)
    for _ in range(2000):
        if state(client, table)["is_over"]:
            return
        assert step(client, table, rng).status_code == 200
    raise AssertionError("the game did not end")


def _make(server, game, names, seed):  # noqa: F811
    client = server.app.test_client()
    r = client.post("/api/tables", json={"game": game, "players": len(names), "names": names})
    table = scorekeeper(client, r.get_json())   # a scorekeeper phone taps every move
    _finish(client, table, seed)
    return table


def test_history_reads_like_a_play_log_in_both_languages(server, browser):  # noqa: F811
    for seed, game, names in ((1, "spartacus", ["Ann", "Ben", "Chie"]), (2, "spartacus", ["Ann", "Ben", "Chie"]),
                              (3, "spartacus", ["Ann", "Ben", "Dai"]), (4, "hills", ["Chie", "Ann"]),
                              (5, "wheel", ["Ann", "Ben", "Chie"])):
        _make(server, game, names, seed)
    ctx, page = _phone(browser)
    for lang, words in (("en", ("History", "Share of wins", "Rematch")),
                        ("ja", ("記録", "勝利の割合", "再戦"))):
        page.goto(f"{server.url}/history?lang={lang}")
        text = page.inner_text("main")
        assert all(w in text for w in words), (lang, text[:300])
        assert page.locator("article.play").count() >= 5
        assert not re.search(r"\bP[1-9]\b", text)                       # names, never P1/P2
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert page.locator("svg.chart").count() >= 7                   # win share; per game a line and a spread
        assert page.evaluate(OVERLAPS) == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"history-{lang}.png"))        # the top: what the host sees first
        page.locator("section.game-section").first.scroll_into_view_if_needed()
        page.evaluate("document.querySelector('section.game-section').scrollIntoView()")
        page.screenshot(path=str(SHOTS / f"history-stats-{lang}.png"))
    # filter by a player by taps: only Dai's play is left
    page.goto(f"{server.url}/history?lang=en")
    page.select_option("select[name=player]", "Dai")
    page.tap("#history-filter button[type=submit]")
    page.wait_for_url(re.compile(r"player=Dai"))
    assert page.locator("article.play").count() == 1 and "Dai" in page.inner_text("article.play")
    assert page.evaluate(OVERLAPS) == []
    # rematch a play of the history in one tap: the host screen of a new table with the same people
    names = page.locator("article.play ol.seats li").all_inner_texts()
    page.locator("article.play button.rematch").tap()
    page.wait_for_url(re.compile(r"/host/[0-9a-f]+$"))
    page.wait_for_selector(".gameview")
    scores = page.inner_text("section.scores")
    assert all(re.sub(r"[★\s\d-]+$", "", n).strip(" ★") in scores for n in names)
    assert not page.errors
    ctx.close()


def test_rematch_from_the_end_screen_and_the_phone_follows(server, browser):  # noqa: F811
    table = _make(server, "hills", ["Emi", "Fumi"], 7)
    host_ctx, host = _phone(browser)
    phone_ctx, phone = _phone(browser)
    host.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}&lang=ja")
    host.wait_for_selector("#rematch")
    _join(phone, server, table["code"])
    assert "<polyline" not in host.inner_html("section.summary")        # one game: no series chart
    host.locator("#rematch").scroll_into_view_if_needed()
    host.screenshot(path=str(SHOTS / "rematch-end-ja.png"))
    host.tap("#rematch")
    host.wait_for_url(re.compile(r"/host/[0-9a-f]+$"))
    new_id = host.url.rsplit("/", 1)[-1].split("?")[0]
    assert new_id != table["id"] and "Emi" in host.inner_text("section.scores")
    phone.wait_for_url(re.compile(f"/t/{new_id}"), timeout=5000)      # pushed to the phone: it follows, no tap
    assert "Fumi" in phone.inner_text("section.scores")
    assert not host.errors and not phone.errors
    host_ctx.close()
    phone_ctx.close()


def test_the_create_form_picks_known_players(server, browser):  # noqa: F811
    _make(server, "spartacus", ["Gen", "Hana", "Iku"], 8)
    ctx, page = _phone(browser)
    page.goto(f"{server.url}/host?lang=en")
    for name in ("Hana", "Gen"):
        page.tap(f".pick-player[data-name='{name}']")
    assert page.input_value("#names") == "Hana, Gen"
    page.select_option("#game", "hills")
    page.tap("#create")
    page.wait_for_url(re.compile(r"/host/[0-9a-f]+"))
    assert "Hana" in page.inner_text("section.scores") and "Gen" in page.inner_text("section.scores")
    assert not page.errors
    ctx.close()


def _series(server, names, seed):  # noqa: F811
    """A two-game Spartacus series of ``names`` played to its end by a scorekeeper's taps."""
    client = server.app.test_client()
    table = client.post("/api/tables", json={"game": "spartacus", "players": len(names), "rounds": 2,
                                             "names": names}).get_json()
    table = scorekeeper(client, table)
    _finish(client, table, seed)
    r = client.post(f"/api/tables/{table['id']}/next", json={"version": state(client, table)["version"]},
                    headers={"X-Table-Token": table["host_token"]})
    assert r.status_code == 200, r.get_json()
    _finish(client, table, seed + 1)
    return client, table


def test_the_end_of_a_series_charts_the_totals_with_names_apart(server, browser):  # noqa: F811
    client, table = _series(server, ["Ann", "Ben", "Chie", "Dai"], 9)
    ctx, page = _phone(browser, color_scheme="dark")
    page.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}")
    page.wait_for_selector("section.summary svg.chart")
    assert page.locator("section.summary svg.chart text.end").count() == 4
    assert page.evaluate(OVERLAPS) == []
    assert page.locator("#rematch").count() == 1                        # the series is over: play again
    page.locator("section.summary svg.chart").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "series-end-dark.png"))
    page.goto(f"{server.url}/history")
    assert page.evaluate(OVERLAPS) == []
    page.screenshot(path=str(SHOTS / "history-dark.png"))
    assert not page.errors
    ctx.close()


LONG_NAMES = ["Alexandra Konstantinopoulou", "長谷川きよしのすけ", "Bartholomew the Magnificent", "Dai"]


def test_long_names_at_the_line_ends_are_whole_on_the_table_and_the_history(server, browser):  # noqa: F811
    """The end of a two-game series on the host's table page, then the History page, in Japanese at
    390×844: every end label is the whole name and total (wrapped, never cut: before, "Alexandra
    Konstant…"), inside its chart and apart from every other label (measured in Chromium)."""
    client, table = _series(server, LONG_NAMES, 11)
    totals = state(client, table)["series"]["totals"]
    ctx, page = _phone(browser)
    page.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}&lang=ja")
    page.wait_for_selector("section.summary svg.chart")
    from tests.webui.test_history_web import joined, squashed
    ends = [squashed(joined(rows)) for rows in page.evaluate(END_LABELS)]
    assert sorted(ends) == sorted(squashed(f"{n} {t}") for n, t in zip(LONG_NAMES, totals)), ends
    assert page.evaluate(OVERLAPS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # the scores card: its table inside the card, each heading's phrase on one line ("このゲ|ームの")
    assert page.evaluate("""() => {
      const table = document.querySelector('section.scores table'), card = table.closest('section');
      const inside = table.getBoundingClientRect().right <= card.getBoundingClientRect().right - 8;
      const phrases = [...table.querySelectorAll('thead th')].flatMap(th => {
        const node = th.firstChild; let at = 0;
        return node.textContent.split('\u200b').map(part => {
          const range = document.createRange(); range.setStart(node, at); range.setEnd(node, at + part.length);
          at += part.length + 1; return range.getClientRects().length; }); });
      return inside && phrases.every(lines => lines === 1);
    }""")
    page.locator("section.summary svg.chart").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "series-end-long-names-ja.png"))
    page.goto(f"{server.url}/history?lang=ja&game=spartacus")
    ends = [squashed(joined(rows)) for rows in page.evaluate(END_LABELS)]
    assert all(any(e.startswith(squashed(n)) for e in ends) for n in LONG_NAMES), ends
    assert not any("…" in e for e in ends) and page.evaluate(OVERLAPS) == []
    page.locator("section.game-section svg.chart").first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "history-long-names-ja.png"))
    assert not page.errors
    ctx.close()


def test_an_open_host_page_says_where_the_camera_went_after_a_rematch(server, browser):  # noqa: F811
    """A host screen left open on a camera-watched table (a TV, say) while the rematch is started
    elsewhere: its empty camera box turns into "カメラは今、再戦のテーブルを見ています: 再戦を開く",
    whose link opens the rematch's host page with the camera (before: an empty box, for good)."""
    import queue
    from webui.camera.camera import CameraFeed, cameras
    client = server.app.test_client()
    table = client.post("/api/tables", json={"game": "wheel", "players": 3, "names": ["Ann", "Ben", "Chie"]}).get_json()
    tables = server.app.extensions["tables"]
    pending: "queue.Queue" = queue.Queue()
    feed = cameras(server.app).attach(table["id"], CameraFeed(tables, table["id"], source=iter(pending.get, None)).start())
    ctx, page = _phone(browser)
    try:
        page.goto(f"{server.url}/host/{table['id']}?token={table['host_token']}&lang=ja")
        page.wait_for_selector("img#camera.none", state="attached")    # no frame yet: the box waits
        host = {"X-Table-Token": table["host_token"]}
        assert client.post(f"/api/tables/{table['id']}/end", json={"version": 0}, headers=host).status_code == 200
        r = client.post("/history/rematch", data={"table": table["id"]}, headers=host)
        new_id = r.headers["Location"].rsplit("/", 1)[-1]
        assert cameras(server.app).get(new_id) is feed
        note = page.locator("#camera-moved")
        note.wait_for(timeout=10_000)                                   # pushed by the table's change
        assert note.inner_text() == "カメラは今、再戦のテーブルを見ています: 再戦を開く"
        assert page.locator("img#camera").count() == 0 and page.locator("#camcheck").is_hidden()
        page.screenshot(path=str(SHOTS / "camera-moved-ja.png"))
        note.locator("a").tap()
        page.wait_for_url(re.compile(f"/host/{new_id}"))
        assert page.locator("img#camera").count() == 1 and "Ann" in page.inner_text("section.scores")
        assert not page.errors
    finally:
        pending.put(None)
        ctx.close()
