"""The phone's rules page in a real headless Chromium at a phone's size: a prompt's rule link opens the
game's full rules at the cited section, in Japanese and in English. Screenshots go to test-artifacts/web/."""
from __future__ import annotations

import re

import pytest

from tests.webui.test_web_browser import PHONE, SHOTS, _create, _join, _phone, _post, browser, server  # noqa: F401
from webui.rules.rules import rules_markdown

pytestmark = pytest.mark.browser


def _sentence(game: str, lang: str, heading: str) -> str:
    """The first plain sentence under a ``###`` heading of the docs page (no Markdown markup in it)."""
    text = rules_markdown(game, lang).split(f"### {heading}\n", 1)[1]
    block = next(b for b in map(str.strip, re.split(r"\n\s*\n", text)) if b and not re.search(r"[`\[\]<]", b)
                 and not re.match(r"[-\d>|#]", b))
    return re.split(r"(?<=[。.:])", block.replace("\n", " ").replace("*", ""))[0]   # as the page shows it


def test_a_prompts_rule_link_opens_the_full_rules_at_its_section(server, browser):  # noqa: F811
    table = _create(server, "spartacus", 3, ["Ann", "Ben", "Chie"])
    for v, move in enumerate([{"player": 0, "kind": "play", "card": "S-R5"}, {"player": 1, "kind": "pass"},
                              {"player": 2, "kind": "play", "card": "S-G3"}, {"player": 0, "kind": "pass"}]):
        _post(server, f"/api/tables/{table['id']}/move", {"version": v, "move": move}, table["host_token"])
    ctx, page = _phone(browser)
    _join(page, server, table["code"])
    page.tap("#lang-toggle")
    link = page.locator("a.rule-link")
    link.wait_for()
    assert link.inner_text() == "スパルタクスのルール: トリック"
    link.tap()
    page.wait_for_url(re.compile(r"/rules/spartacus\?lang=ja#a-trick$"))
    heading = page.locator("h3#a-trick")
    assert heading.inner_text() == "トリック"
    top = heading.bounding_box()["y"]
    assert 0 <= top < PHONE["height"] / 2, top   # the cited section is where the page opens
    words = _sentence("spartacus", "ja", "ゲームの終了")
    assert "誰か" in words and words in page.inner_text("main")   # the full text, not a summary
    assert page.locator("blockquote.ruling").count() >= 3 and page.locator("blockquote.option").count() >= 5
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]   # nothing to scroll sideways
    page.evaluate("document.getElementById('banner-as-joker').scrollIntoView()")   # a variant: badges
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "rules-spartacus-ja.png"))   # what the phone shows (docs/img/webui-rules.png)
    page.tap("#lang-toggle")   # the same page in English
    page.wait_for_selector("h3#a-trick >> text=A trick")
    english = page.inner_text("main")
    assert _sentence("spartacus", "en", "End of the game") in english and words not in english
    assert not page.errors
    ctx.close()


def test_every_games_rules_read_on_a_phone_without_sideways_scrolling(server, browser):  # noqa: F811
    ctx, page = _phone(browser)
    for game in ("wheel", "hills", "prussia", "chains"):
        for lang in ("ja", "en"):
            page.goto(f"{server.url}/rules/{game}?lang={lang}")
            assert page.locator("article.rules h3").count() >= 6
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], (game, lang)
            assert _sentence(game, lang, "準備" if lang == "ja" else "Setup")[:20] in page.inner_text("main")
    assert not page.errors
    ctx.close()
