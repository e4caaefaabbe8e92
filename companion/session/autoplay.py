"""The companion's turn at a table: the move it makes now, in words for people, and the one tap
that plays it as a normal move of the session.

The host gives seats to the companion (``TableSession.set_companions``: a note in the log, so a
replay knows them). When such a seat is to move, ``proposal`` asks its player
(``companion.players``) with the seat's view only, and says the move on the host screen and every
phone by its seat's name ("Companion (good) places blue 7 face down at hill 3."), with the card to take from
the companion's face-down pile and where to lay it. Someone lays that card; with a camera the
session sees it like any move (a wrong card is caught like any misread move), without one a tap on
"Done" calls ``confirm``, which plays exactly the proposed move.

The choice is seeded by the session and the position (game number, moves so far) and kept per
position: every page shows the same move, asking again (a page refreshed) costs nothing, and a note
or a prompt in the log (a wrong card laid for it, caught by the camera) does not change it.
"""
from __future__ import annotations

import functools
import random
import re
import threading
from typing import Any, Collection, Mapping, Sequence

from companion.engine import Event, Move, third_person
from companion.i18n import CATALOGUE, LANGS, both, pick
from companion.players import LEVEL_WORDS, LEVELS, player, seat_view
from companion.session.store import SessionError

_KEPT = 64
_lock = threading.Lock()
_proposals: dict[tuple[str, int], dict[str, Any]] = {}


def proposal(session: Any) -> dict[str, Any] | None:
    """The companion's move now, with its words and card (None unless a companion seat is to move
    and nothing blocks moves)."""
    with session.lock:
        if session.blocked():
            return None
        return asked(session)


def asked(session: Any) -> dict[str, Any] | None:
    """The move the companion asks for at this position, even while a prompt is open (the camera
    checks a card laid for it against this); None unless a companion seat is to move."""
    with session.lock:
        if session.is_over():
            return None
        game = session.game
        seat = game.current_player()
        level = session.companions.get(seat)
        if seat < 0 or level is None:
            return None
        # seeded by the position, not the log version: a note or a prompt does not change the move
        key = (session.id, session.game_number(), len(game.log))
        with _lock:
            if key in _proposals:
                return dict(_proposals[key], version=session.version)
        view = seat_view(game, seat)   # all the player gets: the seat's knowledge, not the game
        legal = [m for m in session.legal_moves() if m.player == seat]
        version = session.version
    move = player(game.id, level).choose(view, legal, random.Random(":".join(map(str, key))))
    # the seat as every page names it ("Companion (good)", "Robo"): two companion seats are told
    # apart, where the engine's own sentence says "Player 2" or the seat's colour
    words = view.game.verb_phrase(move)   # "place blue 7 face down at hill 3"
    name, name_ja = session.names_in("en")[seat], session.names_in("ja")[seat]
    said = {"seat": seat, "level": level, "move": move.to_json(), "card": move.get("card"),
            "text": f"{name} {third_person(str(words))}.", "ja": f"{name_ja}が{words.ja}。"}
    with _lock:
        _proposals[key] = said
        while len(_proposals) > _KEPT:
            _proposals.pop(next(iter(_proposals)))
    return dict(said, version=version)


def confirm(session: Any, *, by: str, expected_version: int) -> list[Event]:
    """Play the companion's proposed move (the tap that says its card lies where it was asked)."""
    with session.lock:
        said = proposal(session)
        if said is None:
            raise SessionError(*both("It is not the companion's turn."))
        return session.play(Move.from_json(said["move"]), by=by, expected_version=expected_version)


def level_words(level: str, lang: str) -> str:
    """A companion level as people call it in ``lang`` ("good" / 「中級」; an unknown one as stored)."""
    words = LEVEL_WORDS.get(level)
    return level if words is None else pick(str(words), words.ja, lang)


def companion_name(level: str, lang: str, number: int | None = None) -> str:
    """The name of a companion seat nobody named: "Companion (good)", or "Companion 2 (good)" where
    several seats play at one level."""
    if number is None:
        return CATALOGUE.t("Companion ({level})", lang, level=level_words(level, lang))
    return CATALOGUE.t("Companion {number} ({level})", lang, number=number, level=level_words(level, lang))


def seat_names(names: Sequence[str], companions: Mapping[int, str], app_named: Collection[int],
               lang: str) -> list[str]:
    """The seats' names in ``lang``: a seat the app named for the companion (``app_named``) is called
    for the level it plays now ("Companion (strong)", 「コンパニオン(上級)」; several at one level are
    numbered), or "P2" once given back to a person; every other seat keeps the name it was given."""
    out = list(names)
    ours = sorted(seat for seat in app_named if 0 <= seat < len(out))
    playing = [seat for seat in ours if seat in companions]
    for seat in ours:
        if seat not in companions:
            out[seat] = f"P{seat + 1}"
            continue
        same = [s for s in playing if companions[s] == companions[seat]]
        out[seat] = companion_name(companions[seat], lang, same.index(seat) + 1 if len(same) > 1 else None)
    return out


@functools.lru_cache(maxsize=None)
def _patterns(template: str) -> tuple[re.Pattern[str], ...]:
    """``template`` ("Companion {number} ({level})", "{name} (companion, {level})") as each language
    says it, as regular expressions: ``level`` one of the levels' words, ``number`` a seat number,
    ``name`` any name."""
    marks = {"level": "\x00L", "number": "\x00N", "name": "\x00M"}
    out = []
    for lang in LANGS:   # each language with its own words for the levels
        groups = {"\x00L": "(?P<level>" + "|".join(re.escape(level_words(lvl, lang)) for lvl in LEVELS) + ")",
                  "\x00N": "(?P<number>[1-9][0-9]?)", "\x00M": "(?P<name>.*?)"}
        text = re.escape(CATALOGUE.t(template, lang, **marks))
        for mark, group in groups.items():
            text = text.replace(re.escape(mark), group)
        out.append(re.compile(text))
    return tuple(out)


def _match(template: str, text: str) -> dict[str, str] | None:
    """The fields of ``text`` said by ``template`` in either language (None if it is not)."""
    for pattern in _patterns(template):
        m = pattern.fullmatch(text)
        if m is not None:
            return {k: v for k, v in m.groupdict().items() if v is not None}
    return None


def _level_of(word: str) -> str:
    return next(lvl for lvl in LEVELS for lang in LANGS if level_words(lvl, lang) == word)


def app_name(name: str) -> tuple[str, int | None] | None:
    """(level, number) of a name the app gives a companion seat ("Companion 2 (good)" → ("good", 2),
    「コンパニオン(上級)」 → ("strong", None)), read in either language; None for any other name."""
    for template in ("Companion ({level})", "Companion {number} ({level})"):
        m = _match(template, name)
        if m:
            return _level_of(m["level"]), int(m["number"]) if "number" in m else None
    return None


def companion_name_number(name: str, level: str | None = None) -> int | None | bool:
    """The number in a name the app gave a companion seat ("Companion 2 (good)" → 2, "Companion
    (good)" → None), at ``level`` (None: any level), in either language; False for any other name."""
    found = app_name(name)
    return False if found is None or level not in (None, found[0]) else found[1]


def name_in(name: str, lang: str) -> str:
    """A seat's stored name as ``lang`` says it: a name the app gave a companion seat ("Companion
    (good)", 「コンパニオン2(中級)」) in that language's words, any other name as it was given."""
    found = app_name(name)
    return name if found is None else companion_name(found[0], lang, found[1])


def companion_label(name: str, level: str, lang: str) -> str:
    """A companion seat as a list of players names it: the app's name in ``lang`` at the level it
    played ("Companion (good)"), or the host's name with what it is ("Robo (companion, good)")."""
    number = companion_name_number(name)
    if number is not False:
        return companion_name(level, lang, number)
    return CATALOGUE.t("{name} (companion, {level})", lang, name=name, level=level_words(level, lang))


def companion_of_label(label: str) -> tuple[str, str] | None:
    """``companion_label`` read back: (level, the seat's name) for "Companion (good)" or "Robo
    (companion, good)" in either language; None for a person's name (a BG Stats file we wrote)."""
    found = app_name(label)
    if found is not None:
        return found[0], label
    m = _match("{name} (companion, {level})", label)
    if m and m["name"].strip():
        return _level_of(m["level"]), m["name"].strip()
    return None
