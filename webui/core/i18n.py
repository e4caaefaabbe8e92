"""The web pages' words: English in the code (each msgid is its own English), Japanese in the gettext
catalogue ``companion/locale/ja/LC_MESSAGES/messages.po`` (docs/webui.md, "Translations", says how
to add a string and how to extract and update the catalogue). Game and card names come from the
engines and the catalogue of cards, which carry both languages themselves (``pick``)."""
from __future__ import annotations

from flask import request

from companion.i18n import CATALOGUE, LANGS, LANGUAGE_NAMES, N_, Nn_, Text, pick, player_count
from companion.option_words import CHOICES, OPTIONS, choice_words, option_words  # noqa: F401  (the pages' too)

__all__ = ["LANGS", "LANGUAGE_NAMES", "N_", "Nn_", "Text", "both", "choice_words", "lang", "nboth", "nt",
           "option_words", "pboth", "pick", "player_count", "pt", "t"]


def lang() -> str:
    """The page language: ``?lang=``, then the ``lang`` cookie, then the browser's preference."""
    wanted = request.args.get("lang") or request.cookies.get("lang")
    if wanted in LANGS:
        return wanted
    return request.accept_languages.best_match(LANGS, default="en") or "en"


# the words of the pages (companion.i18n.Catalogue says what each does; babel.cfg extracts their msgids)
t = CATALOGUE.t
pt = CATALOGUE.pt
nt = CATALOGUE.nt
both = CATALOGUE.both
pboth = CATALOGUE.pboth
nboth = CATALOGUE.nboth

