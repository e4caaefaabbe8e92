"""The full rules of the five games, read from each game's page in docs/ (the one source of truth).

``docs/<game>.md`` carries the rules in English under ``## Rules`` and in Japanese under ``## ルール``;
the phone's rules page renders that section with markdown-it-py, so what a player reads on the phone
and what anyone reads on GitHub are the same words. The ``###``/``####`` headings of both languages
run in parallel: each Japanese heading gets the anchor of its English twin (GitHub's slug of the
English heading), so a prompt that cites a rule links to the same section in either language.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from flask import Blueprint
from markdown_it import MarkdownIt

from companion.games import GAME_IDS, game_class
from webui.core.i18n import t

RULES_HEADING = {"en": "Rules", "ja": "ルール"}
"""The ``##`` heading of the rules section in each language."""

MARKS = {"Ruling": "ruling", "裁定": "ruling", "Option": "option", "オプション": "option"}
"""A blockquote that opens with one of these bold words is a ruling or an option (styled as a badge)."""


def docs_dir() -> Path:
    """The folder of the docs pages: beside the package in a checkout (the editable install ./run
    makes), or under the environment's ``share/`` when installed from a wheel."""
    for folder in (Path(__file__).resolve().parents[2] / "docs",
                   Path(sys.prefix) / "share" / "table-companion" / "docs"):
        if (folder / "wheel.md").is_file():
            return folder
    raise FileNotFoundError("the rules pages (docs/*.md) are not installed next to the webui package")


@dataclass(frozen=True)
class Section:
    """One ``###`` or ``####`` part of a game's rules: its anchor, level and title in one language."""

    anchor: str
    level: int
    title: str


@dataclass(frozen=True)
class RulesPage:
    """A game's rules in one language: the Markdown from docs/, its HTML and its sections."""

    game: str
    lang: str
    markdown: str
    html: str
    sections: tuple[Section, ...]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def split_sections(text: str) -> dict[str, str]:
    """The ``##`` sections of a Markdown page by heading (fenced code is not scanned for headings)."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            current = out.setdefault(line[3:].strip(), [])
            continue
        if not fenced and line.startswith("# "):
            current = None
            continue
        if current is not None:
            current.append(line)
    return {k: "\n".join(v).strip() + "\n" for k, v in out.items()}


def rules_markdown(game: str, lang: str) -> str:
    """The Markdown of a game's rules in ``lang`` ("en" or "ja") from ``docs/<game>.md``."""
    if game not in GAME_IDS or lang not in RULES_HEADING:
        raise KeyError(f"no rules for {game!r} in {lang!r}")
    sections = split_sections((docs_dir() / f"{game}.md").read_text(encoding="utf-8"))
    try:
        return sections[RULES_HEADING[lang]]
    except KeyError:
        raise KeyError(f"docs/{game}.md has no '## {RULES_HEADING[lang]}' section") from None


def markdown_renderer() -> MarkdownIt:
    """The Markdown renderer of the docs pages the phone shows: CommonMark (what GitHub renders) plus
    tables; raw HTML off, so a page shows only what its Markdown says."""
    return MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


_renderer = markdown_renderer


def _headings(md: MarkdownIt, text: str) -> list[tuple[int, str]]:
    tokens = md.parse(text)
    return [(int(tok.tag[1]), tokens[i + 1].content) for i, tok in enumerate(tokens)
            if tok.type == "heading_open" and tok.tag in ("h3", "h4")]


@lru_cache(maxsize=32)
def _rules_page(game: str, lang: str, mtime: float) -> RulesPage:
    md = _renderer()
    text = rules_markdown(game, lang)
    english = _headings(md, rules_markdown(game, "en"))
    tokens = md.parse(text)
    sections: list[Section] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag in ("h3", "h4"):
            n = len(sections)
            if n >= len(english):
                raise ValueError(f"docs/{game}.md: the {lang} rules have more headings than the English")
            anchor = slug(english[n][1])
            tok.attrSet("id", anchor)
            sections.append(Section(anchor, int(tok.tag[1]), tokens[i + 1].content))
        elif tok.type == "blockquote_open":
            first = next((t for t in tokens[i:] if t.type == "inline"), None)
            mark = re.match(r"\*\*(\w+)", first.content) if first else None
            if mark and mark.group(1) in MARKS:
                tok.attrSet("class", MARKS[mark.group(1)])
    html = md.renderer.render(tokens, md.options, {})
    return RulesPage(game, lang, text, html, tuple(sections))


def rules_page(game: str, lang: str) -> RulesPage:
    """A game's rules in ``lang`` rendered to HTML, with each section's anchor (re-read when edited)."""
    return _rules_page(game, lang, (docs_dir() / f"{game}.md").stat().st_mtime)


CITATIONS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    # (anchor, words of a citation or a refusal that point there); the first match wins
    "wheel": (("setup", ("setup", "circle must")), ("single-card-fall", ("discard", "single")),
              ("colour-and-value-scoring", ("colour and value", "variant")),
              ("a-turn", ("pawn", "take", "ahead")), ("scoring", ("colour", "tribe")),
              ("end-of-the-game", ("value", "end", "empty"))),
    "hills": (("setup", ("setup",)), ("same-value-banned", ("same value",)),
              ("banner-as-barricade", ("banner",)),
              ("highest-card-and-open-play", ("highest", "open play")),
              ("hidden-cards-and-revealing", ("reveal", "revealing", "face down", "face-down", "face up")),
              ("end-of-the-game", ("end and scoring", "game is over")), ("a-turn", ("a turn", "hill"))),
    "spartacus": (("setup", ("setup",)), ("a-trick", ("trick won",)), ("banner-as-joker", ("joker",)), ("no-banners", ("no_banners",)),
                  ("end-of-the-game", ("last card", "game over")), ("scoring", ("worth", "score")),
                  ("a-trick", ("trick", "lower", "pass", "lead", "banner"))),
    "prussia": (("setup", ("setup",)), ("two-players", ("two players", "2 players", "deal", "hand")),
                ("war", ("war", "surrender", "ignition", "step 3")), ("a-turn", ("step", "slot", "edge", "draw")),
                ("end-of-the-game", ("era", "victory", "defeat"))),
    "chains": (("setup", ("setup",)), ("stop-cards", ("stop",)), ("the-10-comes-later", ("not first", "ten_not_first")),
               ("end-of-the-game", ("out", "left the game")), ("scoring", ("score",)),
               ("a-turn", ("action", "work", "temporary", "terminal", "deck"))),
}


def rule_anchor(game: str, citation: str, about: str = "") -> str:
    """The anchor of the rules section a citation (``"seven-hills.md § A turn"``) is about, or "";
    when the citation names no section, the words of the prompt (``about``) may."""
    for text in (citation.lower(), about.lower()):
        for anchor, words in CITATIONS.get(game, ()):
            if any(re.search(rf"\b{re.escape(w)}\b", text) for w in words):
                return anchor
    return ""


class RuleLink(NamedTuple):
    """Where a prompt's rule citation links on the rules page, and the words of the link."""

    anchor: str
    label: str


def rule_link(game: str, citation: str, lang: str, about: str = "") -> RuleLink:
    """A readable link for a rule citation: the game's rules, and the section it points to."""
    cls = game_class(game)
    title = cls.title_ja if lang == "ja" else cls.title
    label = t("Rules of {title}", lang, title=title)
    anchor = rule_anchor(game, citation, about)
    section = next((s for s in rules_page(game, lang).sections if s.anchor == anchor), None)
    if section is not None:
        label += f": {section.title}"
    return RuleLink(anchor if section else "", label)


bp = Blueprint("rules", __name__, template_folder="templates")
"""No routes of its own (the page is ``phone.rules``): the rules page's template and ``rule_link`` for
the game view's templates."""
bp.add_app_template_global(rule_link, "rule_link")
