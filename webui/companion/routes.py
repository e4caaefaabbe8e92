"""The companion at the table: the host gives seats to it (with a level each) when creating the
table or between games, every page says its move (``companion_turn.html``, included by the game
view), and a tap on "Done" plays that move once its card lies on the table."""
from __future__ import annotations

from typing import Any, Mapping

from flask import Blueprint, Response, redirect, render_template, request, url_for

from companion.players import LEVELS
from companion.session import autoplay
from webui.api.api import _write, check_companion_seat, level_words, named_for_companion, who_says
from webui.core.common import ApiError, Caller, get_session, lang, session_module, tables
from webui.core.errors import error_answer
from webui.core.guard import csrf_ok, csrf_token
from webui.core.i18n import N_, both, t
from webui.rules.rules import docs_dir, markdown_renderer, split_sections

bp = Blueprint("companion", __name__, template_folder="templates")

MOST_SEATS = 5
"""The table-creation form offers the companion this many seats (the page has no script for it)."""


def level_choices(lang_: str) -> list[tuple[str, str]]:
    """The levels as (value, words) for a select, after "a person"."""
    return [(level, level_words(level, lang_)) for level in LEVELS]


@bp.app_context_processor
def _helpers() -> dict[str, Any]:
    return {"companion_levels": level_choices, "companion_csrf": csrf_token, "companion_seats_offered": MOST_SEATS,
            "companion_tag": companion_tag, "level_words": level_words}


def companion_tag(name: str, level: str | None, lang_: str) -> str:
    """What a seat's name needs after it on the play page: "(companion, good)" for a companion seat
    the host named, nothing for a person or a seat the app named ("Companion (good)", also while a
    finished game's seat keeps the level it played and the next game's is another)."""
    if not level or named_for_companion(name):
        return ""
    return t("(companion, {level})", lang_, level=level_words(level, lang_))


def seats_from_form(form: Mapping[str, str], players: int | None = None) -> dict[int, str]:
    """The seats the form gives to the companion (fields ``companion_<seat>`` = a level; empty for a
    person); a bad field raises ``ApiError`` before anything is stored."""
    wanted: dict[int, str] = {}
    for key, value in form.items():
        if not key.startswith("companion_") or not value:
            continue
        seat = key[len("companion_"):]
        if not seat.isascii() or not seat.isdigit() or value not in LEVELS:
            raise ApiError(400, both("A companion seat is given as companion_<seat>=<{levels}>, got "
                                     "{field}={value!r}.", levels="|".join(LEVELS), field=key, value=value))
        if players is not None:
            check_companion_seat(int(seat), players)
        wanted[int(seat)] = value
    return wanted


@bp.post("/host/<table_id>/companions")
def seats(table_id: str) -> Any:
    """The host's form on the host screen: which seats the companion plays, at which level."""
    s = get_session(table_id)
    if tables().role(table_id, request.cookies.get(f"tch_{table_id}")) != "host":
        return error_answer(403, *both("Only the host gives seats to the companion: open the host page."))
    if not csrf_ok(request.form.get("csrf")):
        return error_answer(403, *both("This form is stale or was sent from another page: reload the host "
                                       "page."))
    try:
        wanted = seats_from_form(request.form, s.players)
        with tables().lock(table_id):
            s.refresh()
            s.set_companions(wanted, by="host")
            # the companion has no phone: a phone that held a seat now the companion's watches (it
            # would see the companion's hand and could move for it)
            for held in tables().store.phones(table_id):
                if held["role"] == "seat" and held["seat"] in wanted:
                    tables().store.set_phone(table_id, held["phone"], "watch", None)
                    # named after the person who held the seat, not "phone 3", on the host's list
                    tables().store.name_phone(table_id, held["phone"], s.names[held["seat"]])
    except ApiError as err:
        return error_answer(err.status, err.message, err.extra.get("ja", ""))
    except session_module().SessionError as err:
        return error_answer(400, str(err), getattr(err, "ja", ""))
    tables().changed(table_id)
    # the host page opens at its top: it says the seats were saved (the form stands far below)
    return redirect(url_for("host.table", table_id=table_id, lang=lang(), saved="seats"))


@bp.post("/api/tables/<table_id>/companion")
def confirm(table_id: str) -> tuple[Response, int]:
    """The tap that says the companion's card lies where it was asked: plays its proposed move."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        return autoplay.confirm(s, by=f"{who_says(s, who)} (companion)", expected_version=version)
    return _write(table_id, "player", act)


HELP_SECTION = N_("At the table")
"""The ``##`` section of docs/players.md the phone's help page shows (its Japanese twin is headed by
this msgid's translation)."""


@bp.get("/help/companion")
def help_page() -> str:
    """The phone's help on playing against the companion (docs/players.md, in the page language)."""
    language = lang()
    text = split_sections((docs_dir() / "players.md").read_text(encoding="utf-8"))[t(HELP_SECTION, language)]
    return render_template("companion_help.html", lang=language, html=markdown_renderer().render(text))
