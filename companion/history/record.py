"""Plays: each finished game of a session, derived from its log and written when the game ends.

The session log (``entries``) is the single source of truth. The transaction that commits the entry
ending a game (its last move, or the host's end) also writes that game's play; an entry that reopens
it (an undo) withdraws the play in the same transaction. So ``plays`` always agrees with the logs,
a crash leaves both or neither, and a play outlives its session (no foreign key: deleting a session
keeps its plays; an imported backup brings plays of sessions this database never had).
"""
from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from companion.dates import iso_utc
from companion.engine import GameError
from companion.i18n import N_
from companion.session.store import LOCATION_LIMIT, clean_location  # noqa: F401 (the history's callers use them)
from companion.session.table import decided

if TYPE_CHECKING:
    from companion.session.store import Store

TAPPED, CAMERA, BOTH, UNKNOWN = "taps", "camera", "camera+taps", "unknown"
UNKNOWN_WORDS = {"moves": N_("camera or taps unknown"), "duration": N_("no duration"), "scores": N_("no scores"),
                 "start": N_("no start player")}
"""What a play from another app may not say (camera or taps, how long, the scores, who started), in words
(English msgids: the catalogue has the Japanese)."""
UNKNOWN_FIELDS = tuple(UNKNOWN_WORDS)
log = logging.getLogger(__name__)


class HistoryError(GameError):
    """A history request that cannot be done: a file that does not fit, a bad date, an unknown format."""


@dataclass(frozen=True)
class Seat:
    """One seat of a play: who sat there, the score, whether they won or started."""

    seat: int
    name: str
    score: int
    winner: bool
    start: bool
    player: int | None = None
    """``players.id`` (None for a seat nobody named, P1, P2, …)."""
    person: str | None = field(default=None, compare=False)
    """The known player's name as first written ("ann" at one table is Ann); None for a placeholder."""
    companion: str | None = None
    """The companion's level (``companion.players.LEVELS``) when it played this seat; None for a person.
    A companion seat is no person: it has no ``player``, and statistics count a person against it."""


@dataclass(frozen=True)
class Play:
    """One finished game: when, how long, what, who, the scores, and how it was kept."""

    id: str
    session: str | None
    number: int
    game: str
    options: Mapping[str, Any]
    started: str
    """ISO 8601 UTC: the first move."""
    duration: int
    """Seconds from the first move to the end."""
    ended_early: bool
    camera_moves: int
    tapped_moves: int
    seats: tuple[Seat, ...] = field(default_factory=tuple)
    source: str | None = None
    """Where the play came from when not from a table of ours: ``bgstats``."""
    unknown: tuple[str, ...] = ()
    """What that source did not say (``UNKNOWN_FIELDS``): such values are stored as 0 and never counted."""
    location: str | None = None
    """Where it was played ("Home", "Café Meeple"): from BG Stats, or the host's correction; None: not said."""

    def knows(self, what: str) -> bool:
        """False when the play's source did not say ``what`` (moves, duration, scores, start)."""
        return what not in self.unknown

    @property
    def kept_by(self) -> str:
        """``camera``, ``taps`` or ``camera+taps``: who recorded the moves (``unknown`` for an import)."""
        if not self.knows("moves"):
            return UNKNOWN
        if self.camera_moves and self.tapped_moves:
            return BOTH
        return CAMERA if self.camera_moves else TAPPED

    @property
    def names(self) -> list[str]:
        """The names in seat order."""
        return [s.name for s in self.seats]

    @property
    def winners(self) -> list[str]:
        """The winners' names."""
        return [s.name for s in self.seats if s.winner]




def _camera_read(version: int, kinds: dict[int, str], data: dict[int, dict[str, Any]]) -> bool:
    """True when the entry at ``version`` came from the camera: an observation, or the table's
    answer to a prompt an observation raised (choosing between what the camera saw)."""
    entry = data.get(version, {})
    if "observation" in entry:
        return True
    prompt = str(entry.get("prompt", "")) if kinds.get(version) == "answer" else ""
    if prompt.startswith("p") and prompt[1:].isdigit():
        return "observation" in data.get(int(prompt[1:]), {})
    return False


def companions_by_version(kinds: Mapping[int, str], data: Mapping[int, Mapping[str, Any]],
                          version: int) -> dict[int, str]:
    """The seats the companion played (seat → level) as the log stood at ``version``: the host's
    last "companions" note before it (``TableSession.set_companions``)."""
    seats: dict[int, str] = {}
    for v in sorted(v for v, kind in kinds.items() if kind == "note" and v <= version):
        if isinstance(data[v].get("companions"), dict):
            seats = {int(k): str(level) for k, level in data[v]["companions"].items()}
    return seats


def plays_of(db: sqlite3.Connection, session_id: str, state: Any) -> list[Play]:
    """The plays of a session whose log is in ``db``; ``state``: a ``TableSession``, or the state a
    game-over listener is given (both have ``game_id``, ``names`` and ``finished_games()``)."""
    rows = db.execute("SELECT version, kind, data, created FROM entries WHERE session = ? ORDER BY version",
                      (session_id,)).fetchall()
    kinds = {v: k for v, k, _, _ in rows}
    data = {v: json.loads(d) for v, _, d, _ in rows}
    created = {v: c for v, _, _, c in rows}
    opened = [1] + [v + 1 for v, k, _, _ in rows if k == "next_game"]   # each game's first possible entry
    row = db.execute("SELECT settings FROM sessions WHERE id = ?", (session_id,)).fetchone()
    location = clean_location(json.loads(row[0]).get("location")) if row else None   # where the host said it is
    plays = []
    for number, (game, moves, ended) in enumerate(state.finished_games(), 1):
        versions = [m["version"] for m in moves]
        end = ended["version"] if ended else max(versions)
        start = min(versions) if versions else min(opened[number - 1], end)
        camera = sum(_camera_read(v, kinds, data) for v in versions)
        scores, winners = game.scores(), set(decided(len(state.names), game.winners()))   # a draw: nobody won
        first = game.options.get("start_player", 0)
        companions = companions_by_version(kinds, data, end)
        seats = tuple(Seat(i, name, int(scores[i]), i in winners, i == first, companion=companions.get(i))
                      for i, name in enumerate(state.names))
        plays.append(Play(f"{session_id}-{number}", session_id, number, state.game_id, dict(game.options),
                          iso_utc(created[start]), max(0, round(created[end] - created[start])),
                          ended is not None, camera, len(versions) - camera, seats, location=location))
    return plays


def player_id(db: sqlite3.Connection, name: str, created: str) -> int | None:
    """The known player called ``name`` (added if new); None for a placeholder seat name."""
    from companion.session.store import PLACEHOLDER_NAME
    if PLACEHOLDER_NAME.fullmatch(name.strip()):
        return None
    db.execute("INSERT OR IGNORE INTO players (name, created) VALUES (?, ?)", (name.strip(), created))
    return db.execute("SELECT id FROM players WHERE name = ?", (name.strip(),)).fetchone()[0]


def write_play(db: sqlite3.Connection, play: Play) -> None:
    """Insert or replace one play and its seats (players are added as needed)."""
    db.execute("DELETE FROM play_seats WHERE play = ?", (play.id,))
    db.execute("INSERT OR REPLACE INTO plays (id, session, number, game, options, started, duration, "
               "ended_early, camera_moves, tapped_moves, location) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
               (play.id, play.session, play.number, play.game, json.dumps(dict(play.options), sort_keys=True),
                play.started, play.duration, int(play.ended_early), play.camera_moves, play.tapped_moves,
                play.location or None))
    for s in play.seats:
        if s.companion is not None:
            pid = None   # the companion is no person: never a player of its own
        else:
            pid = s.player if s.player is not None else player_id(db, s.name, play.started)
        db.execute("INSERT INTO play_seats (play, seat, name, player, score, winner, start, companion) "
                   "VALUES (?,?,?,?,?,?,?,?)",
                   (play.id, s.seat, s.name, pid, s.score, int(s.winner), int(s.start), s.companion))
    db.execute("DELETE FROM play_sources WHERE play = ?", (play.id,))
    if play.source or play.unknown:
        db.execute("INSERT INTO play_sources (play, source, unknown) VALUES (?,?,?)",
                   (play.id, play.source or "", json.dumps(sorted(play.unknown))))


def delete_play(db: sqlite3.Connection, play_id: str) -> None:
    """Remove one play and its seats."""
    db.execute("DELETE FROM play_seats WHERE play = ?", (play_id,))
    db.execute("DELETE FROM play_sources WHERE play = ?", (play_id,))
    db.execute("DELETE FROM plays WHERE id = ?", (play_id,))


def sync(db: sqlite3.Connection, session_id: str, plays: Sequence[Play]) -> None:
    """Make the stored plays of ``session_id`` exactly ``plays`` as the host corrected them (an
    unchanged play is left alone; a play the host deleted stays out)."""
    plays = [p for p in (amended(db, play) for play in plays) if p is not None]
    wanted = {p.id: p for p in plays}
    for (play_id,) in db.execute("SELECT id FROM plays WHERE session = ?", (session_id,)).fetchall():
        if play_id not in wanted:
            delete_play(db, play_id)
    for play in plays:
        stored = read_plays(db, "WHERE p.id = ?", (play.id,))
        if not stored or _comparable(stored[0]) != _comparable(play):
            write_play(db, play)


def _comparable(play: Play) -> tuple[Any, ...]:
    seats = tuple((s.seat, s.name, s.score, s.winner, s.start, s.companion) for s in play.seats)
    return (play.id, play.session, play.number, play.game, json.dumps(dict(play.options), sort_keys=True),
            play.started, play.duration, play.ended_early, play.camera_moves, play.tapped_moves, seats,
            play.source, tuple(sorted(play.unknown)), play.location or None)


def record(db: sqlite3.Connection, session_id: str, state: Any) -> None:
    """The session's game-over listener (``companion.session.table.on_game_over``), run in the
    transaction of the entry that ends or reopens a game: bring this session's plays up to date.
    A failure here is logged and never refuses the entry: the game outranks its summary, and
    ``companion history rebuild`` derives the plays from the logs again."""
    try:
        db.execute("SAVEPOINT history")
        sync(db, session_id, plays_of(db, session_id, state))
        db.execute("RELEASE history")
    except Exception:
        db.execute("ROLLBACK TO history")
        db.execute("RELEASE history")
        log.exception("the play history of session %s was not updated (run `companion history rebuild`)",
                      session_id)


def read_plays(db: sqlite3.Connection, where: str = "", params: Sequence[Any] = ()) -> list[Play]:
    """Plays (with their seats) matching a WHERE clause on ``plays p``, oldest first."""
    rows = db.execute("SELECT p.id, p.session, p.number, p.game, p.options, p.started, p.duration, "
                      "p.ended_early, p.camera_moves, p.tapped_moves, src.source, src.unknown, p.location FROM plays p "
                      "LEFT JOIN play_sources src ON src.play = p.id "
                      f"{where} ORDER BY p.started, p.rowid", tuple(params)).fetchall()
    if not rows:
        return []
    seats: dict[str, list[Seat]] = {}
    marks = ",".join("?" * len(rows))
    for play, seat, name, player, score, winner, start, person, companion in db.execute(
            "SELECT s.play, s.seat, s.name, s.player, s.score, s.winner, s.start, pl.name, s.companion "
            f"FROM play_seats s LEFT JOIN players pl ON pl.id = s.player WHERE s.play IN ({marks}) "
            "ORDER BY s.play, s.seat", [r[0] for r in rows]).fetchall():
        seats.setdefault(play, []).append(Seat(seat, name, score, bool(winner), bool(start), player, person,
                                               companion))
    return [Play(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], bool(r[7]), r[8], r[9],
                 tuple(seats.get(r[0], [])), r[10] or None, tuple(json.loads(r[11])) if r[11] else (), r[12] or None)
            for r in rows]


# ----------------------------------------------------------------------------- the host's corrections
def play_dict(play: Play) -> dict[str, Any]:
    """A play as plain JSON values (the backup's play, and what a correction keeps to undo)."""
    out = {"id": play.id, "session": play.session, "number": play.number, "game": play.game,
           "options": dict(play.options), "started": play.started, "duration": play.duration,
           "ended_early": play.ended_early, "camera_moves": play.camera_moves,
           "tapped_moves": play.tapped_moves,
           "seats": [{"seat": s.seat, "name": s.name, "player": s.player, "score": s.score,
                      "winner": s.winner, "start": s.start, **({"companion": s.companion} if s.companion else {})}
                     for s in play.seats]}
    if play.source or play.unknown:
        out.update(source=play.source, unknown=sorted(play.unknown))
    if play.location:
        out["location"] = play.location
    return out


def play_of_dict(data: Mapping[str, Any]) -> Play:
    """The play ``play_dict`` wrote (trusted input: the database's own rows)."""
    seats = tuple(Seat(s["seat"], s["name"], s["score"], s["winner"], s["start"], s.get("player"),
                       companion=s.get("companion")) for s in data["seats"])
    return Play(data["id"], data["session"], data["number"], data["game"], data["options"], data["started"],
                data["duration"], data["ended_early"], data["camera_moves"], data["tapped_moves"], seats,
                data.get("source"), tuple(data.get("unknown") or ()), data.get("location") or None)


@dataclass(frozen=True)
class Edit:
    """The host's correction of one play: deleted (a test game), or its seats and duration changed."""

    play: str
    made: str
    deleted: bool
    changes: Mapping[str, Any] | None
    original: Play


def edit_of(db: sqlite3.Connection, play_id: str) -> Edit | None:
    """The host's correction of ``play_id``, if any."""
    row = db.execute("SELECT play, made, deleted, changes, original FROM play_edits WHERE play = ?",
                     (play_id,)).fetchone()
    if row is None:
        return None
    return Edit(row[0], row[1], bool(row[2]), json.loads(row[3]) if row[3] else None,
                play_of_dict(json.loads(row[4])))


def keep_edit(db: sqlite3.Connection, edit: Edit) -> None:
    """Store the host's correction or deletion of a play (replacing an earlier one)."""
    db.execute("INSERT OR REPLACE INTO play_edits (play, made, deleted, changes, original) VALUES (?,?,?,?,?)",
               (edit.play, edit.made, int(edit.deleted), json.dumps(edit.changes) if edit.changes is not None
                else None, json.dumps(play_dict(edit.original), ensure_ascii=False)))


def edits_of(db: sqlite3.Connection) -> list[Edit]:
    """Every correction and deletion, newest first."""
    rows = db.execute("SELECT play FROM play_edits ORDER BY made DESC, rowid DESC").fetchall()
    found = [edit_of(db, r[0]) for r in rows]
    return [e for e in found if e is not None]


def apply_changes(play: Play, changes: Mapping[str, Any]) -> Play:
    """``play`` with the host's corrected names, scores, winners and duration (a correction made for
    another number of seats, e.g. the game was reopened and changed since, is not applied)."""
    seats = changes.get("seats") or []
    if len(seats) != len(play.seats):
        log.warning("the correction of play %s is for %d seats, the play has %d: not applied",
                    play.id, len(seats), len(play.seats))
        return play
    new_seats = tuple(Seat(old.seat, str(new["name"]), int(new["score"]), bool(new["winner"]), old.start,
                           None if str(new["name"]).strip().casefold() != old.name.strip().casefold()
                           else old.player, companion=old.companion)
                      for old, new in zip(play.seats, seats))
    duration = changes.get("duration")
    unknown = tuple(u for u in play.unknown if not (u == "duration" and duration is not None)
                    and not (u == "scores" and changes.get("scores_known")))
    location = play.location if "location" not in changes else (changes["location"] or None)
    return replace(play, duration=play.duration if duration is None else int(duration), seats=new_seats,
                   unknown=unknown, location=location)


def amended(db: sqlite3.Connection, play: Play) -> Play | None:
    """``play`` as the host left it: None if deleted, corrected if corrected, else unchanged."""
    edit = edit_of(db, play.id)
    if edit is None:
        return play
    if edit.deleted:
        return None
    return apply_changes(play, edit.changes or {})


def backfill(store: "Store") -> int:
    """Record the finished games of every stored session (a database from before the history, or
    ``companion history rebuild``); returns how many plays there are. A session whose log cannot be
    replayed is left out."""
    from companion.session.table import TableSession
    db = store._db()
    count = 0
    from companion.session.store import remember_players
    for (session_id, settings) in db.execute("SELECT id, settings FROM sessions ORDER BY created").fetchall():
        try:
            session = TableSession.open(store, session_id)
            with store._write() as txn:   # a companion seat's name is no person
                remember_players(txn, [n for i, n in enumerate(json.loads(settings).get("names") or [])
                                       if i not in session.companions])
            with store._write() as txn:
                plays = plays_of(txn, session_id, session)
                sync(txn, session_id, plays)
        except Exception as err:   # a damaged log: its games cannot be known; the rest still are
            log.warning("session %s left out of the play history: %s", session_id, err)
            continue
        count += len(plays)
    return count


ADDED_COLUMNS = (("plays", "location", "TEXT"), ("play_seats", "companion", "TEXT"))
"""Columns the history's tables gained after their first release: (table, column, SQL type)."""


def migrate(store: "Store") -> None:
    """The store's open hook that brings an older database's history tables up to the schema (``CREATE
    TABLE IF NOT EXISTS`` leaves an existing table as it was): each added column, once."""
    db = store._db()
    for table_name, column, kind in ADDED_COLUMNS:
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table_name})")}
        if column not in have:
            try:
                db.execute(f"ALTER TABLE {table_name} ADD COLUMN {column} {kind}")
            except sqlite3.OperationalError as err:   # another process added it a moment ago
                if "duplicate column" not in str(err):
                    raise


HISTORY_SCHEMA_VERSION = 2
"""``PRAGMA user_version`` once the play history was backfilled from the sessions already stored:
1, the plays; 2, which seats the companion played (``play_seats.companion``)."""


def backfill_once(store: "Store") -> None:
    """The store's open hook (``companion.session.store.on_open``): a database from before the play
    history gets the games its sessions finished recorded, once; one from before schema 2 gets its
    plays recorded again (``migrate`` added the companion column) (the logs say which seats the companion played)."""
    db = store._db()
    if db.execute("PRAGMA user_version").fetchone()[0] < HISTORY_SCHEMA_VERSION:
        backfill(store)
        db.execute(f"PRAGMA user_version = {HISTORY_SCHEMA_VERSION}")
