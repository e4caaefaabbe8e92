"""The rules in the project: every game's docs page carries its full rules in English and Japanese,
with every option and its default, the phone shows them, and nothing a user reads points outside
the project (to ../shared)."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from companion.cli import build_parser
from companion.games import GAME_IDS, game_class
from tests.web_helpers import make_app, new_table
from webui.rules.rules import CITATIONS, rule_anchor, rule_link, rules_markdown, rules_page, slug, split_sections

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = {"setup": "setup", "turn": ("a-turn", "a-trick"), "scoring": "scoring", "end": "end-of-the-game"}
MARK_WORDS = {"en": ("Ruling", "Option", "default"), "ja": ("裁定", "オプション", "既定値")}
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _blocks(markdown: str) -> list[str]:
    """Paragraphs and blockquotes of a Markdown text, each joined on one line ("> " dropped)."""
    return [" ".join(line.removeprefix(">").strip() for line in block.splitlines())
            for block in re.split(r"\n\s*\n", markdown)]


def _default_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_page_has_the_full_rules_in_english_and_japanese(game):
    en, ja = rules_page(game, "en"), rules_page(game, "ja")
    anchors = {s.anchor for s in en.sections}
    for part, wanted in REQUIRED.items():
        options = (wanted,) if isinstance(wanted, str) else wanted
        assert anchors & set(options), f"docs/{game}.md: the rules have no {part} section"
    # the Japanese runs section by section beside the English (same anchors, same levels)
    assert [(s.anchor, s.level) for s in ja.sections] == [(s.anchor, s.level) for s in en.sections]
    assert all(CJK.search(s.title) for s in ja.sections), [s.title for s in ja.sections]
    # a full text, not a summary: and the Japanese section is Japanese, the English English
    assert len(en.markdown) > 3000 and len(ja.markdown) > 1500
    assert len(CJK.findall(ja.markdown)) > 0.5 * len(re.findall(r"[^\s\W\d_]", ja.markdown))
    after_title = en.markdown.split("\n\n", 1)[1]   # the opening names the game in Japanese too
    assert not CJK.findall(after_title), f"Japanese in the English rules: {CJK.findall(after_title)}"


@pytest.mark.parametrize("game", GAME_IDS)
def test_no_markup_is_left_over_in_the_rendered_rules(game):
    # CommonMark (GitHub's too) leaves "**" as text when it closes after "。" or ":" and before a
    # Japanese character: such emphasis must be written so that it renders
    for lang in ("en", "ja"):
        text = re.sub(r"<code>.*?</code>", "", rules_page(game, lang).html, flags=re.S)
        assert not re.findall(r".{0,20}[*_`].{0,20}", text), (game, lang)
        depth = 0   # and no bold swallowed the next one (a "**" that failed to close opens instead)
        for tag in re.findall(r"</?strong>", text):
            depth += 1 if tag == "<strong>" else -1
            assert depth in (0, 1), (game, lang, "nested bold: an emphasis did not close")
        source = re.sub(r"`[^`]*`", "", rules_markdown(game, lang))
        assert source.count("**") == 2 * text.count("<strong>"), (game, lang)


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_ruling_and_option_is_marked_in_both_languages(game):
    en, ja = rules_markdown(game, "en"), rules_markdown(game, "ja")
    for (ruling, option, _), (ruling_ja, option_ja, _) in [(MARK_WORDS["en"], MARK_WORDS["ja"])]:
        assert en.count(f"> **{ruling}**") >= 2 and en.count(f"> **{ruling}**") == ja.count(f"> **{ruling_ja}**")
        assert en.count(f"> **{option}**") == ja.count(f"> **{option_ja}**") >= 2
    html = rules_page(game, "ja").html
    assert '<blockquote class="ruling">' in html and '<blockquote class="option">' in html


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_option_is_documented_with_its_default(game):
    for lang in ("en", "ja"):
        blocks = _blocks(rules_markdown(game, lang))
        option_word, default_word = MARK_WORDS[lang][1], MARK_WORDS[lang][2]
        for opt in game_class(game).options_spec:
            found = [b for b in blocks if f"`--option {opt.name}=" in b]
            assert found, f"docs/{game}.md ({lang}): option {opt.name} is not documented"
            block = found[0]
            assert block.startswith(f"**{option_word}**"), block
            if opt.default is None:
                wanted = "default: none" if lang == "en" else "既定値なし"
            else:
                wanted = f"{default_word} `{opt.name}={_default_text(opt.default)}`"
            assert wanted in block, f"docs/{game}.md ({lang}): {opt.name} without its default: {block}"


def _user_facing_texts() -> dict[str, str]:
    """Everything a user of a clone reads: README, docs, the web pages' templates and scripts, the code
    that words messages and refusals, and the command line's help."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "webui").rglob("*.html")),
             *sorted((ROOT / "webui").rglob("static/*.*")),
             # messages, help and refusals are written in the code: none may cite a file a clone lacks
             *sorted((ROOT / "companion").rglob("*.py")), *sorted((ROOT / "webui").rglob("*.py")),
             *sorted((ROOT / "printables").rglob("*.py")), *sorted((ROOT / "vision").rglob("*.py"))]
    pictures = {".png", ".ico", ".jpg"}   # binary images: no words a user could follow to a file
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in files if p.suffix not in pictures}
    parser = build_parser()
    texts["companion --help"] = parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                texts[f"companion {name} --help"] = sub.format_help()
    return texts


def test_nothing_a_user_reads_points_outside_the_project():
    texts = _user_facing_texts()
    assert len(texts) > 20 and "companion serve --help" in texts
    bad = {name: m.group(0) for name, text in texts.items()
           for m in [re.search(r"(\.\./)?shared/(rules|seeds)|/work/", text)] if m}
    assert not bad, f"these point to files a clone does not have: {bad}"


def test_the_readme_links_to_each_games_rules_and_they_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[\w-]+\.md)#([^)]+)\)", readme)
    assert {Path(p).stem for p, a in links if a == "rules"} == set(GAME_IDS)
    for path, anchor in links:
        text = (ROOT / path).read_text(encoding="utf-8")
        headings = {slug(h) for h in re.findall(r"^#{2,4} (.+)$", text, re.M)}
        assert anchor in headings, f"README links to {path}#{anchor}, which is not a heading there"
    for game in GAME_IDS:   # each page's own links to its two languages resolve on GitHub
        assert set(split_sections((ROOT / "docs" / f"{game}.md").read_text(encoding="utf-8"))) >= {
            "Rules", "ルール", "Engine notes"}


def test_a_rule_citation_reads_as_the_games_rules_and_points_to_its_section():
    assert rule_link("spartacus", "spartacus.md", "en") == ("", "Rules of Spartacus")
    link = rule_link("spartacus", "spartacus.md", "ja", "Trick won by P3 (green) (worth 8 so far)")
    assert link == ("a-trick", "スパルタクスのルール: トリック")
    link = rule_link("hills", "seven-hills.md § Hidden cards and revealing", "en")
    assert link == ("hidden-cards-and-revealing", "Rules of Seven Hills of Rome: Hidden cards and revealing")
    assert rule_link("chains", "Chains, 10 not first", "ja").label == "チェーンズのルール: 10は後で"
    assert rule_anchor("chains", "chains.md", "the game goes on without you") == ""   # whole words only
    for game, entries in CITATIONS.items():   # every anchor a citation can point to is on the page
        anchors = {s.anchor for s in rules_page(game, "ja").sections}
        assert {a for a, _ in entries} <= anchors, game


@pytest.fixture()
def client(tmp_path):
    return make_app(tmp_path).test_client()


def _plain_sentence(markdown: str) -> str:
    """The opening of the first paragraph without any Markdown markup (it reads the same in HTML)."""
    block = next(b for b in _blocks(markdown)[1:] if len(b) > 30 and not re.search(r"[`*\[\]|<>&#_]", b)
                 and not re.match(r"[-\d]", b))
    return block[:30]


def test_the_phone_shows_the_full_rules_in_the_page_language(client):
    for game in GAME_IDS:
        ja_words, en_words = _plain_sentence(rules_markdown(game, "ja")), _plain_sentence(rules_markdown(game, "en"))
        ja = client.get(f"/rules/{game}?lang=ja").get_data(as_text=True)
        en = client.get(f"/rules/{game}?lang=en").get_data(as_text=True)
        assert ja_words in ja and en_words not in ja
        assert en_words in en and ja_words not in en
        assert '<h3 id="setup">準備</h3>' in ja and '<h3 id="setup">Setup</h3>' in en
        assert '<blockquote class="ruling">' in ja and '<blockquote class="option">' in en
        last = rules_page(game, "ja").sections[-1]   # the whole text, to its last section
        assert f'id="{last.anchor}">{last.title}<' in ja
    assert client.get("/rules/chess").status_code == 404


def test_a_prompts_rule_link_is_readable_in_both_languages(client):
    table = new_table(client, "spartacus", 3)
    for v, move in enumerate([{"player": 0, "kind": "play", "card": "S-R5"}, {"player": 1, "kind": "pass"},
                              {"player": 2, "kind": "play", "card": "S-G3"}, {"player": 0, "kind": "pass"}]):
        r = client.post(f"/api/tables/{table['id']}/move", json={"version": v, "move": move},
                        headers={"X-Table-Token": table["token"]})
        assert r.status_code == 200, r.get_json()
    client.get(f"/join?code={table['code']}")
    en = client.get(f"/t/{table['id']}?lang=en").get_data(as_text=True)
    ja = client.get(f"/t/{table['id']}?lang=ja").get_data(as_text=True)
    assert 'href="/rules/spartacus?lang=en#a-trick">Rules of Spartacus: A trick</a>' in en
    assert 'href="/rules/spartacus?lang=ja#a-trick">スパルタクスのルール: トリック</a>' in ja
    assert "spartacus.md" not in en + ja
