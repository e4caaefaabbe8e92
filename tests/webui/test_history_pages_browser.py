"""The player, game and overview pages, the correction of a play and the BG Stats import in a real
headless Chromium, at a phone's size (390×844) and a desktop's (1280×900), in English and Japanese:
no chart label overlaps another or leaves its chart (the History page's measure), numbers are
right-aligned, names are not cut, nothing scrolls sideways; a play is corrected, deleted and brought
back by taps, and a BG Stats file is imported through the page. Screenshots go to
test-artifacts/web/ (docs/img/webui-history-*.png are copies)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion import dates
from companion.history import Play, Seat, query
from companion.history.record import write_play
from tests.webui.test_history_browser import END_LABELS, OVERLAPS
from tests.webui.test_history_web import joined, squashed
from tests.webui.test_web_browser import PHONE, SHOTS, _phone, browser, server  # noqa: F401

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PEOPLE = ("Ann", "Ben", "Chie", "花子", "Bartholomew the Magnificent", "アレクサンドラ・ミハイロヴナ")
EXAMPLE = Path(__file__).parents[1] / "data" / "bgstats-example.json"

LAYOUT = """() => {
  const out = [];
  for (const td of document.querySelectorAll('td.num, th.num')) {
    if (getComputedStyle(td).textAlign !== 'right') out.push('not right-aligned: ' + td.textContent);
  }
  for (const el of document.querySelectorAll('td.who, .person-name, .tile b')) {
    if (el.scrollWidth > el.clientWidth + 1) out.push('cut: ' + el.textContent);
  }
  if (document.documentElement.scrollWidth > window.innerWidth) out.push('scrolls sideways');
  return out;
}"""


def plays_over_fifteen_months() -> list[Play]:
    """90 plays of all five games, a play every five days from January 2025, long and Japanese names."""
    plays = []
    start = 1_735_732_800   # 2025-01-01 12:00 UTC
    for i in range(90):
        names = [PEOPLE[(i + k) % len(PEOPLE)] for k in range(3 + i % 2)]
        scores = [(i * 7 + k * 13) % 60 - 5 for k in range(len(names))]
        seats = tuple(Seat(k, n, sc, sc == max(scores), k == i % len(names)) for k, (n, sc) in enumerate(zip(names, scores)))
        plays.append(Play(f"br{i}-1", f"br{i}", 1, ("wheel", "hills", "spartacus", "prussia", "chains")[i % 5],
                          {"start_player": i % len(names)}, dates.iso_utc(start + i * 5 * 86_400),
                          900 + (i * 137) % 3600, False, 0, 20, seats))
    return plays


@pytest.fixture(scope="module")
def history(server):  # noqa: F811
    store = server.app.extensions["tables"].store
    with store._write() as db:
        for play in plays_over_fifteen_months():
            write_play(db, play)
    return store


def look(page, url: str, name: str, *, whole: bool = True) -> None:
    """Open ``url``, check the layout and every chart's labels, and keep a screenshot (of the whole
    page, or of what the first screen shows)."""
    page.goto(url)
    assert page.evaluate(OVERLAPS) == [], url
    assert page.evaluate(LAYOUT) == [], url
    assert not page.errors
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=whole)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_player_game_and_overview_pages_read_cleanly_in_both_languages(server, browser, history, size):  # noqa: F811
    ctx, page = _phone(browser) if size == "phone" else _desktop(browser)
    for lang in ("en", "ja"):
        look(page, f"{server.url}/history?lang={lang}", f"history-page-{lang}-{size}", whole=False)
        page.locator("#plays").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"history-plays-{lang}-{size}.png"))
        look(page, f"{server.url}/history/overview?lang={lang}", f"history-overview-{lang}-{size}")
        assert page.locator("svg.chart.columns").count() == 1
        assert page.locator("svg.chart.columns text.tick:not(.count):not(.group)").count() >= 6   # month names
        assert page.locator("#records tr").count() == 6
        look(page, f"{server.url}/history/game/spartacus?lang={lang}", f"history-game-{lang}-{size}")
        assert page.locator("svg.chart").count() >= 3
        # a long name at its line's end is wrapped whole (before: cut, and written out under the chart)
        ends = [squashed(joined(rows)) for rows in page.evaluate(END_LABELS)]
        assert any(e.startswith("BartholomewtheMagnificent") for e in ends), ends
        assert any(e.startswith("アレクサンドラ・ミハイロヴナ") for e in ends), ends
        assert not any("…" in e for e in ends)
        look(page, f"{server.url}/history/player?name=Bartholomew%20the%20Magnificent&lang={lang}",
             f"history-player-long-{lang}-{size}")
        look(page, f"{server.url}/history/player?name=%E8%8A%B1%E5%AD%90&lang={lang}", f"history-player-{lang}-{size}")
        assert page.locator("#head-to-head tbody tr").count() == len(PEOPLE) - 1
        text = page.inner_text("main")
        assert ("Head to head" if lang == "en" else "対戦成績") in text
    ctx.close()


def _desktop(browser):  # noqa: F811
    ctx = browser.new_context(viewport=DESKTOP, device_scale_factor=1)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return ctx, page


def test_names_lead_from_the_history_to_a_players_page(server, browser, history):  # noqa: F811
    ctx, page = _phone(browser)
    page.goto(f"{server.url}/history?lang=en")
    page.locator("article.play ol.seats a", has_text="花子").first.tap()
    page.wait_for_url(re.compile(r"/history/player\?name="))
    assert page.inner_text("#player-name") == "花子"
    summary = query.player_summary(query.plays(history), "花子")
    assert page.inner_text("#player-plays") == str(summary.plays)
    assert page.inner_text("#streak-best") == str(summary.longest_streak)
    ctx.close()


def test_a_play_is_corrected_deleted_and_restored_by_taps(server, browser, history):  # noqa: F811
    ctx, page = _phone(browser)
    page.goto(f"{server.url}/history?lang=ja")
    newest = page.locator("article.play").first
    play_id = newest.get_attribute("data-play")
    before = {p.id: p for p in query.plays(history)}[play_id]
    newest.locator("a.edit").tap()
    page.wait_for_url(re.compile(r"/history/play/"))
    page.fill("input[name=score0]", "123")
    page.check("input[name=winner0]")
    page.screenshot(path=str(SHOTS / "history-edit-ja-phone.png"), full_page=True)
    page.tap("#save-edit")
    page.wait_for_url(re.compile(r"done=corrected"))
    assert "修正しました" in page.inner_text("#done")
    assert page.locator(f"article.play[data-play='{play_id}'] .corrected").count() == 1
    assert {p.id: p for p in query.plays(history)}[play_id].seats[0].score == 123
    page.locator(f"article.play[data-play='{play_id}']").screenshot(path=str(SHOTS / "history-corrected-ja-phone.png"))
    page.tap("#undo-done")                         # undo the correction
    page.wait_for_url(re.compile(r"done=restored"))
    assert {p.id: p for p in query.plays(history)}[play_id] == before
    page.locator(f"article.play[data-play='{play_id}'] a.edit").tap()
    page.tap("#delete-button")
    page.wait_for_url(re.compile(r"done=deleted"))
    assert page.locator(f"article.play[data-play='{play_id}']").count() == 0
    assert play_id not in {p.id for p in query.plays(history)}
    page.tap("#undo-done")                         # and bring the deleted play back
    page.wait_for_url(re.compile(r"done=restored"))
    assert {p.id: p for p in query.plays(history)}[play_id] == before
    ctx.close()


def test_a_bgstats_file_is_imported_through_the_page(server, browser, history):  # noqa: F811
    ctx, page = _phone(browser)
    page.goto(f"{server.url}/history?lang=en")
    page.locator("#import summary").tap()
    page.set_input_files("#import input[type=file]", str(EXAMPLE))
    page.locator("#import button").tap()
    page.wait_for_url(re.compile(r"/history/import"))
    assert "3 plays of other games left out (Catan 2, Azul 1)" in page.inner_text("#import-count")
    assert page.evaluate(LAYOUT) == []
    page.screenshot(path=str(SHOTS / "history-import-en-phone.png"), full_page=True)
    row = page.locator("tr", has_text="Chie S.")
    assert "looks like Chie" in row.inner_text()
    row.locator("select").select_option("Chie")        # merge Chie S. into the known Chie
    page.tap("#import-button")
    page.wait_for_url(re.compile(r"done=imported"))
    assert "4 plays" in page.inner_text("#done")
    imported = [p for p in query.plays(history) if p.source == "bgstats"]
    assert len(imported) == 4 and "Chie" in imported[0].names and "Chie S." not in query.known_players(history)
    assert page.locator("article.play .badge.info", has_text="from BG Stats").count() >= 1
    ctx.close()


def test_the_history_is_filtered_by_location_and_dates_by_taps(server, browser, history):  # noqa: F811
    from companion.history import edit
    target = query.plays(history)[10]                 # 2025-02-20: given a location by a correction
    edit.correct(history, target.id, [edit.SeatFix(s.name, s.score, s.winner) for s in target.seats],
                 location="Café Meeple")
    try:
        ctx, page = _phone(browser)
        page.goto(f"{server.url}/history?lang=ja")
        page.select_option("#location-filter", "Café Meeple")
        page.fill("#filter-from", "2025-02-01")
        page.fill("#filter-to", "2025-02-28")
        page.locator("#history-filter button[type=submit]").tap()
        page.wait_for_url(re.compile(r"location=Caf"))
        assert page.locator("article.play").count() == 1 and page.inner_text("#play-count") == "1"
        assert "Café Meeple" in page.inner_text("article.play .badge.location")
        assert page.evaluate(LAYOUT) == [] and page.evaluate(OVERLAPS) == []
        page.screenshot(path=str(SHOTS / "history-filtered-ja-phone.png"), full_page=True)
        page.tap("#filter-clear")                         # every play again
        page.wait_for_url(re.compile(r"/history\?lang=ja$"))
        assert page.inner_text("#play-count") == str(len(query.plays(history)))
        ctx.close()
    finally:
        edit.undo(history, target.id)


def test_the_date_fields_show_the_pages_language_not_the_browsers(server, browser, history):  # noqa: F811
    """A Japanese History page in an English (en-US) browser: the browser's own date field showed
    mm/dd/yyyy; the day fields take and show 2025/02/01 or 2025-02-01, say 年-月-日, and the
    calendar button's choice is written back as 2025-03-05."""
    ctx, page = _phone(browser, locale="en-US")
    page.goto(f"{server.url}/history?lang=ja")
    field = page.locator("#filter-from")
    assert field.get_attribute("placeholder") == "年-月-日"
    page.fill("#filter-from", "2025/02/01")
    page.fill("#filter-to", "2025-02-28")
    page.locator("#history-filter button[type=submit]").tap()
    page.wait_for_url(re.compile(r"from=2025"))
    feb = [p for p in query.plays(history) if "2025-02-01" <= dates.iso(p.started)[:10] <= "2025-02-28"]
    assert feb and page.inner_text("#play-count") == str(len(feb))
    assert field.input_value() == "2025/02/01" and page.locator("#filter-to").input_value() == "2025-02-28"
    page.evaluate("""() => { const p = document.querySelector('#filter-from').parentElement.querySelector('.day-picker');
                             p.value = '2025-03-05'; p.dispatchEvent(new Event('change')); }""")
    assert field.input_value() == "2025-03-05"
    assert page.evaluate(LAYOUT) == [] and not page.errors
    page.screenshot(path=str(SHOTS / "history-dates-ja-phone.png"), full_page=True)
    ctx.close()
