"""The host's corrections of the history: a wrongly recorded score or name, a test game to delete,
and undo of either.

A correction is kept in ``play_edits`` beside the play, not written into the session's log: the log
stays the record of what was played at the table (phones, undo and replays read it), while the
correction is the host's word on its summary. ``record.sync`` lays every correction over the plays
it derives, so ``companion history rebuild`` (which derives every play from the logs again) and a
re-import keep them; undo deletes the correction and puts the play back as recorded.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

from companion.dates import iso_utc
from companion.history.record import Edit, HistoryError, Play, apply_changes, clean_location, delete_play, edit_of, \
    edits_of, keep_edit, read_plays, write_play
from companion.i18n import both

MAX_SCORE = 10**6
"""Scores beyond this are typing mistakes (the games score in tens)."""


@dataclass(frozen=True)
class SeatFix:
    """One seat as the host corrects it."""

    name: str
    score: int
    winner: bool


def _stored(db: Any, play_id: str) -> Play:
    found = read_plays(db, "WHERE p.id = ?", (play_id,))
    if not found:
        earlier = edit_of(db, play_id)
        if earlier is not None and earlier.deleted:
            raise HistoryError(*both("play {play_id!r} was deleted from the history; restoring it brings it "
                                     "back", play_id=play_id))
        raise HistoryError(*both("no play {play_id!r} in the history", play_id=play_id))
    return found[0]


def stored(store: Any, play_id: str) -> Play:
    """The play as it stands now (with the host's correction), or a HistoryError saying why not."""
    return _stored(store._db(), play_id)


def _seat_of(play: Play, name: str, option: str) -> int:
    """The seat of ``play`` called ``name`` (any case); a HistoryError naming the seats if none is."""
    wanted = name.strip().casefold()
    for i, seat in enumerate(play.seats):
        if seat.name.casefold() == wanted:
            return i
    names = ", ".join(s.name for s in play.seats)
    raise HistoryError(*both("{option}: play {play!r} has no seat named {name!r} (its seats: {names})", option=option,
                             play=play.id, name=name.strip(), names=names))


def fixes(play: Play, *, scores: dict[str, int] | None = None, winners: Sequence[str] | None = None,
          names: dict[str, str] | None = None) -> list[SeatFix]:
    """The seats of ``play`` with some scores, the winners and some names changed, each seat named by
    its name as the play stands (any case): what ``correct`` takes. ``winners`` None keeps them;
    an unknown name is refused, changing nothing."""
    seats = [SeatFix(s.name, s.score, s.winner) for s in play.seats]
    for name, score in (scores or {}).items():
        i = _seat_of(play, name, "--score")
        seats[i] = SeatFix(seats[i].name, score, seats[i].winner)
    if winners is not None:
        won = {_seat_of(play, name, "--winner") for name in winners}
        seats = [SeatFix(f.name, f.score, i in won) for i, f in enumerate(seats)]
    for old, new in (names or {}).items():
        i = _seat_of(play, old, "--names")
        seats[i] = SeatFix(new, seats[i].score, seats[i].winner)
    return seats


def _original(db: Any, play: Play) -> Play:
    """The play as recorded before any correction (what undo restores)."""
    edit = edit_of(db, play.id)
    return edit.original if edit else play


def _now() -> str:
    return iso_utc(time.time())


def correct(store: Any, play_id: str, seats: Sequence[SeatFix], duration_min: int | None = None,
            location: str | None = None) -> Play:
    """Correct a play's names, scores and winners (and its duration, in minutes, and where it was
    played: "" says nowhere, None keeps it); returns the play as it now stands. Refused with the
    reason, changing nothing, when the seats do not fit."""
    from companion.session.store import clean_text
    fixed = []
    for i, seat in enumerate(seats):
        name = clean_text(seat.name)
        if not name:
            raise HistoryError(*both("seat {n}: a name is needed", n=i + 1))
        if not -MAX_SCORE <= int(seat.score) <= MAX_SCORE:
            raise HistoryError(*both("seat {n}: a score between {low} and {high}", n=i + 1, low=-MAX_SCORE,
                                     high=MAX_SCORE))
        fixed.append({"name": name, "score": int(seat.score), "winner": bool(seat.winner)})
    if len({f["name"].casefold() for f in fixed}) != len(fixed):
        raise HistoryError(*both("two seats have the same name: each person sits once"))
    if duration_min is not None and not 0 <= duration_min <= 24 * 60:
        raise HistoryError(*both("the duration is between 0 and 1440 minutes"))
    with store._write() as db:
        play = _stored(db, play_id)
        if len(fixed) != len(play.seats):
            raise HistoryError(*both("the play has {seats} seats, the correction {fixed}", seats=len(play.seats),
                                     fixed=len(fixed)))
        original, earlier = _original(db, play), edit_of(db, play_id)
        changes: dict[str, Any] = {"seats": fixed, "scores_known": True}
        if duration_min is not None:
            changes["duration"] = duration_min * 60
        elif earlier and earlier.changes and earlier.changes.get("duration") is not None:
            changes["duration"] = earlier.changes["duration"]   # a second correction keeps the first's duration
        if location is not None:
            changes["location"] = clean_location(location)
        elif earlier and earlier.changes and "location" in earlier.changes:
            changes["location"] = earlier.changes["location"]
        keep_edit(db, Edit(play_id, _now(), False, changes, original))
        new = apply_changes(original, changes)
        write_play(db, new)
        return _stored(db, play_id)


def delete(store: Any, play_id: str) -> Play:
    """Leave a play out of the history (a test game); ``undo`` brings it back. Returns the play."""
    with store._write() as db:
        play = _stored(db, play_id)
        keep_edit(db, Edit(play_id, _now(), True, None, _original(db, play)))
        delete_play(db, play_id)
        return play


def undo(store: Any, play_id: str) -> Play:
    """Take back the host's correction or deletion of a play: it is again as recorded."""
    with store._write() as db:
        edit = edit_of(db, play_id)
        if edit is None:
            raise HistoryError(*both("play {play_id!r} was neither corrected nor deleted: nothing to undo",
                                     play_id=play_id))
        db.execute("DELETE FROM play_edits WHERE play = ?", (play_id,))
        write_play(db, edit.original)
        return _stored(db, play_id)


def edits(store: Any) -> list[Edit]:
    """Every correction and deletion, newest first."""
    return edits_of(store._db())


def deleted(store: Any) -> list[Edit]:
    """The plays the host deleted (newest deletion first), to restore."""
    return [e for e in edits(store) if e.deleted]
