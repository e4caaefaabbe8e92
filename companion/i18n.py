"""Translations in a gettext catalogue: ``companion/locale/ja/LC_MESSAGES/messages.po`` holds the
words of the web pages and of the command line (msgid = the English words, msgstr = the Japanese),
read with Babel and compiled to gettext's ``.mo`` form in memory when first used, so an edited
``.po`` is what runs (no build step to forget; reading it takes milliseconds).

The English needs no catalogue: a msgid is its own English. ``{name}`` placeholders are filled with
``str.format`` after translation, so both languages place the values where their grammar wants.
"""
from __future__ import annotations

import gettext
import io
import os
from pathlib import Path
from typing import Any, NamedTuple, Sequence

LANGS = ("en", "ja")
"""The languages of the product: English (the msgids) and Japanese (the catalogues)."""
LANGUAGE_NAMES = {"en": "English", "ja": "日本語"}
"""Each language's name in itself (what a language switch shows: never translated)."""


class Text(NamedTuple):
    """One message in both languages (what a JSON error carries as ``en`` and ``ja``)."""

    en: str
    ja: str

    def in_(self, lang: str) -> str:
        """The words in ``lang`` (English unless Japanese is asked for)."""
        return self.ja if lang == "ja" else self.en


def fill(text: str, lang: str, values: dict[str, Any]) -> str:
    """``text`` with its ``{placeholders}`` filled; a ``Text`` value gives the words of ``lang``."""
    if not values:
        return text
    return text.format(**{k: v.in_(lang) if isinstance(v, Text) else v for k, v in values.items()})


class Catalogue:
    """The translations of one package (``folder/<lang>/LC_MESSAGES/<domain>.po``)."""

    def __init__(self, folder: Path, domain: str) -> None:
        """Nothing is read until a first lookup."""
        self.folder, self.domain = folder, domain
        self._loaded: dict[str, gettext.NullTranslations] = {}

    def po_path(self, lang: str) -> Path:
        """Where the ``.po`` file of ``lang`` lives."""
        return self.folder / lang / "LC_MESSAGES" / f"{self.domain}.po"

    def translations(self, lang: str) -> gettext.NullTranslations:
        """gettext's translations for ``lang`` (English, or a missing file: the msgids themselves)."""
        found = self._loaded.get(lang)
        if found is None:
            found = gettext.NullTranslations()
            path = self.po_path(lang)
            if lang != "en" and path.exists():
                from babel.messages.mofile import write_mo
                from babel.messages.pofile import read_po
                with path.open("rb") as po:
                    catalog = read_po(po, locale=lang, domain=self.domain)
                mo = io.BytesIO()
                write_mo(mo, catalog)      # fuzzy entries are left out, as gettext's msgfmt does
                mo.seek(0)
                found = gettext.GNUTranslations(mo)
            self._loaded[lang] = found
        return found

    def t(self, msgid: str, lang: str, **values: Any) -> str:
        """``msgid`` in ``lang``, placeholders filled from ``values``."""
        return fill(self.translations(lang).gettext(msgid), lang, values)

    def pt(self, context: str, msgid: str, lang: str, **values: Any) -> str:
        """Like ``t`` for an English text that reads differently in Japanese in ``context``."""
        return fill(self.translations(lang).pgettext(context, msgid), lang, values)

    def nt(self, singular: str, plural: str, count: int, lang: str, **values: Any) -> str:
        """``singular`` or ``plural`` by ``count``, as the language counts (Japanese has one form)."""
        return fill(self.translations(lang).ngettext(singular, plural, count), lang, values)

    def both(self, msgid: str, **values: Any) -> Text:
        """``msgid`` in English and Japanese."""
        return Text(self.t(msgid, "en", **values), self.t(msgid, "ja", **values))

    def nboth(self, singular: str, plural: str, count: int, **values: Any) -> Text:
        """``nt`` in English and Japanese."""
        return Text(self.nt(singular, plural, count, "en", **values),
                    self.nt(singular, plural, count, "ja", **values))

    def pboth(self, context: str, msgid: str, **values: Any) -> Text:
        """``both`` with a context."""
        return Text(self.pt(context, msgid, "en", **values), self.pt(context, msgid, "ja", **values))


EXTRACT_KEYWORDS: dict[str, Any] = {
    "t": None, "pt": ((1, "c"), 2), "nt": (1, 2), "both": None, "pboth": ((1, "c"), 2), "nboth": (1, 2),
    "N_": None, "Nn_": (1, 2), "tr": None, "ntr": (1, 2),
}
"""The functions whose string arguments are msgids, as Babel's extractor reads them (babel.cfg's
``pybabel extract`` command names the same with ``-k``)."""


CATALOGUE = Catalogue(Path(__file__).resolve().parent / "locale", "messages")
"""The product's one catalogue (docs/webui.md, "Translations")."""


def N_(msgid: str) -> str:
    """Marks ``msgid`` for extraction where it is translated later (a table of words)."""
    return msgid


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a singular and plural pair for extraction (counted later with ``nt``)."""
    return singular, plural


def locale_lang(environ: dict[str, str] | None = None) -> str:
    """The language of the user's locale, gettext's way: the first of LANGUAGE, LC_ALL, LC_MESSAGES
    and LANG that is set ("ja_JP.UTF-8" -> "ja"); English when none names Japanese."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            first = value.split(":")[0]
            return "ja" if first.lower().startswith("ja") else "en"
    return "en"


def take_lang(argv: Sequence[str], environ: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """The command line's language and the arguments without it: ``--lang en|ja`` (or
    ``--lang=ja``, anywhere on the line) wins, else the locale."""
    rest, chosen, i = [], None, 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--lang" and i + 1 < len(argv) and argv[i + 1] in LANGS:
            chosen, i = argv[i + 1], i + 2
            continue
        if arg.startswith("--lang=") and arg[7:] in LANGS:
            chosen, i = arg[7:], i + 1
            continue
        rest.append(arg)
        i += 1
    return chosen or locale_lang(environ), rest


_cli = {"lang": "en"}
"""The language this process's command line speaks (set once by ``companion``'s ``main``)."""


def set_cli_lang(lang: str) -> None:
    """Speak ``lang`` on the command line from now on, argparse's own words ("usage:") included."""
    import argparse
    _cli["lang"] = lang if lang in LANGS else "en"
    # argparse words its usage, errors and help headings through gettext's module-level functions:
    # ours read the same catalogue (ARGPARSE_WORDS lists the ones we translate)
    argparse._ = lambda text: CATALOGUE.t(text, _cli["lang"])
    argparse.ngettext = lambda one, many, n: CATALOGUE.translations(_cli["lang"]).ngettext(one, many, n)


def cli_lang() -> str:
    """The command line's language."""
    return _cli["lang"]


def tr(msgid: str, **values: Any) -> str:
    """``msgid`` in the command line's language, ``{placeholders}`` filled from ``values``."""
    return CATALOGUE.t(msgid, _cli["lang"], **values)


def ntr(singular: str, plural: str, count: int, **values: Any) -> str:
    """``singular`` or ``plural`` by ``count`` in the command line's language."""
    return CATALOGUE.nt(singular, plural, count, _cli["lang"], **values)


def player_count(low: int, high: int, lang: str) -> str:
    """How many play a game, in ``lang``: "2 players", "3–5 players" / 「2人」「3〜5人」 (the pages and
    the messages alike)."""
    if low == high:
        return CATALOGUE.nt("{n} player", "{n} players", low, lang, n=low)
    return CATALOGUE.t("{low}–{high} players", lang, low=low, high=high)


def pick(text: str, ja: str, lang: str) -> str:
    """The Japanese of a bilingual datum (a card's or a game's name, an engine's words) when wanted
    and present, else the English. Words of the product's own go through the catalogue, not this."""
    return ja if lang == "ja" and ja else text


both = CATALOGUE.both
"""A message in English and Japanese (a ``Text``), e.g. for an error that carries both."""

ARGPARSE_WORDS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("the following arguments are required: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("unrecognized arguments: %s"),
    N_("argument %(argument_name)s: %(message)s"), N_("expected one argument"),
    N_("invalid %(type)s value: %(value)r"), N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"), N_("one of the arguments %s is required"),
    N_("expected at least one argument"), N_("expected at most one argument"),
)
"""argparse's own words that a Japanese command line shows translated (Python's argparse asks
gettext for them)."""
