"""Export and import of the play history: CSV (one row per seat), JSON (the exact backup) and the
BG Stats import file. Importing a JSON export into an empty database reproduces its rows exactly;
into a used one it adds the plays it does not have (same play id: replaced) and matches players by
name. A file that does not fit is refused with the reason, and nothing is changed."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Sequence

from companion.dates import iso, iso_utc
from companion.history import bgstats
from companion.history.record import UNKNOWN_FIELDS, Edit, HistoryError, Play, Seat, amended, clean_location, \
    edits_of, keep_edit, play_dict, write_play
from companion.i18n import both
from companion.players import LEVELS

FORMAT = "table-companion-history/1"
FORMATS = ("csv", "json", "bgstats")
CSV_FIELDS = ("date", "game", "title", "play", "duration_min", "seat", "name", "score", "winner",
              "start_player", "ended_early", "kept_by", "options", "location", "companion")


def players_of(db: Any, plays: Sequence[Play] | None) -> list[dict[str, Any]]:
    """The players rows (all of them, or those the plays name), by id."""
    rows = db.execute("SELECT id, name, created FROM players ORDER BY id").fetchall()
    if plays is not None:
        used = {s.player for p in plays for s in p.seats}
        rows = [r for r in rows if r[0] in used]
    return [{"id": i, "name": n, "created": c} for i, n, c in rows]


def play_json(play: Play) -> dict[str, Any]:
    """One play as the JSON export writes it (``source`` and ``unknown`` only for an imported one)."""
    return dict(play_dict(play), kept_by=play.kept_by, winners=play.winners)


def edit_json(edit: Edit) -> dict[str, Any]:
    """The host's correction or deletion of a play as the backup writes it."""
    return {"play": edit.play, "made": edit.made, "deleted": edit.deleted, "changes": edit.changes,
            "original": play_dict(edit.original)}


def export_json(db: Any, plays: Sequence[Play], *, everything: bool) -> dict[str, Any]:
    """The backup: every player (or those the plays name), the plays, and the host's corrections and
    deletions (all of them, or those of the plays), ISO 8601 dates."""
    shown = {p.id for p in plays}
    edits = [e for e in edits_of(db) if everything or e.play in shown]
    people = None if everything else list(plays) + [e.original for e in edits]
    return {"format": FORMAT, "exported": iso(datetime.now(timezone.utc)),
            "players": players_of(db, people), "plays": [play_json(p) for p in plays],
            "edits": [edit_json(e) for e in edits]}


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""A spreadsheet reads a cell that starts so as a formula (=HYPERLINK(...) in a player's name)."""


def spreadsheet_text(value: Any) -> Any:
    """A text cell as a spreadsheet shows it, never as a formula (a leading ' marks it as text);
    numbers stay numbers (a negative score is no formula)."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value


def export_csv(plays: Sequence[Play]) -> str:
    """One row per seat of every play (a spreadsheet's view), local ISO dates."""
    from companion.games import game_class
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    titles = {g: game_class(g).title for g in {p.game for p in plays}}
    for p in plays:
        when, options = iso(p.started), json.dumps(dict(p.options), sort_keys=True)
        for s in p.seats:
            # what an imported play did not say stays empty (0 would read as a real score or duration)
            writer.writerow([spreadsheet_text(cell) for cell in (
                when, p.game, titles[p.game], p.id, round(p.duration / 60) if p.knows("duration") else "",
                s.seat + 1, s.name, s.score if p.knows("scores") else "", int(s.winner),
                int(s.start) if p.knows("start") else "", int(p.ended_early), p.kept_by, options,
                p.location or "", s.companion or "")])   # the companion's level where it played the seat
    return out.getvalue()


def export(store: Any, plays: Sequence[Play], fmt: str, *, everything: bool) -> str:
    """The plays as text in ``fmt`` (csv, json or bgstats)."""
    if fmt == "csv":
        return export_csv(plays)
    if fmt == "json":
        return json.dumps(export_json(store._db(), plays, everything=everything), ensure_ascii=False, indent=1)
    if fmt == "bgstats":
        return json.dumps(bgstats.export_file(plays), ensure_ascii=False, indent=1)
    raise HistoryError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")


# ----------------------------------------------------------------------------- import
def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise HistoryError(f"{where}: {key!r} is missing or not a {getattr(kind, '__name__', kind)}")
    return value


def _play_from(data: Any, where: str) -> Play:
    from companion.games import GAME_IDS
    if not isinstance(data, dict):
        raise HistoryError(*both("{where} is not an object", where=where))
    game = _need(data, "game", str, where)
    if game not in GAME_IDS:
        raise HistoryError(f"{where}: unknown game {game!r} (known: {', '.join(GAME_IDS)})")
    started = _need(data, "started", str, where)
    try:
        if iso_utc(started) != started:
            raise ValueError
    except ValueError:
        raise HistoryError(*both("{where}: 'started' must be ISO 8601 UTC like 2026-11-24T19:26:51+00:00, "
                                 "got {started!r}", where=where, started=started)) from None
    seats = []
    for i, s in enumerate(_need(data, "seats", list, where)):
        at = f"{where} seat {i + 1}"
        if not isinstance(s, dict):
            raise HistoryError(*both("{at} is not an object", at=at))
        player = s.get("player")
        if player is not None and (not isinstance(player, int) or isinstance(player, bool)):
            raise HistoryError(*both("{at}: 'player' must be a player id or null", at=at))
        companion = s.get("companion")
        if companion is not None and companion not in LEVELS:
            raise HistoryError(*both("{at}: 'companion' must be one of {levels} or absent, got {value!r}",
                                     at=at, levels=", ".join(LEVELS), value=companion))
        seats.append(Seat(_need(s, "seat", int, at), _need(s, "name", str, at), _need(s, "score", int, at),
                          _need(s, "winner", bool, at), _need(s, "start", bool, at), player,
                          companion=companion))
    session = data.get("session")
    if session is not None and not isinstance(session, str):
        raise HistoryError(*both("{where}: 'session' must be text or null", where=where))
    source, unknown = data.get("source"), data.get("unknown") or []
    if source is not None and not isinstance(source, str):
        raise HistoryError(*both("{where}: 'source' must be text or null", where=where))
    if not isinstance(unknown, list) or any(u not in UNKNOWN_FIELDS for u in unknown):
        raise HistoryError(f"{where}: 'unknown' lists some of {', '.join(UNKNOWN_FIELDS)}")
    location = data.get("location")
    if location is not None and not isinstance(location, str):
        raise HistoryError(*both("{where}: 'location' must be text or null", where=where))
    return Play(_need(data, "id", str, where), session, _need(data, "number", int, where), game,
                _need(data, "options", dict, where), started, _need(data, "duration", int, where),
                _need(data, "ended_early", bool, where), _need(data, "camera_moves", int, where),
                _need(data, "tapped_moves", int, where), tuple(seats), source, tuple(sorted(unknown)),
                clean_location(location))


def _local(play: Play, ids: dict[int, int]) -> Play:
    """``play`` with the file's player ids turned into this database's (an unknown one: found by name)."""
    seats = tuple(Seat(s.seat, s.name, s.score, s.winner, s.start, ids.get(s.player) if s.player is not None
                       else None, companion=s.companion) for s in play.seats)
    return replace(play, seats=seats)


def _edit_from(data: Any, where: str) -> Edit:
    if not isinstance(data, dict):
        raise HistoryError(*both("{where} is not an object", where=where))
    changes = data.get("changes")
    if changes is not None and not (isinstance(changes, dict) and isinstance(changes.get("seats"), list)):
        raise HistoryError(*both("{where}: 'changes' must hold the corrected 'seats' (or be null for a "
                                 "deletion)", where=where))
    if changes is not None and changes.get("location") is not None and not isinstance(changes["location"], str):
        raise HistoryError(*both("{where}: 'location' must be text or null", where=where))
    for i, seat in enumerate((changes or {}).get("seats", [])):
        if not (isinstance(seat, dict) and isinstance(seat.get("name"), str) and isinstance(seat.get("score"), int)
                and isinstance(seat.get("winner"), bool)):
            raise HistoryError(f"{where} seat {i + 1}: name, score and winner")
    deleted = _need(data, "deleted", bool, where)
    if deleted == (changes is not None):
        raise HistoryError(*both("{where}: a deletion has no changes, a correction has them", where=where))
    original = _play_from(data.get("original"), f"{where} original")
    play = _need(data, "play", str, where)
    if play != original.id:
        raise HistoryError(*both("{where}: 'play' is {play!r} but its original is play {id!r}", where=where, play=play,
                                 id=original.id))
    return Edit(play, _need(data, "made", str, where), deleted, changes, original)


@dataclass(frozen=True)
class Imported:
    """What an import did (or, for a dry run, would do)."""

    kind: str
    """``backup`` (our JSON) or ``bgstats``."""
    players_added: int
    plays: int
    reading: bgstats.Reading | None = None
    """For a BG Stats file: the games matched, the players, what was left out and what was unknown."""


def _store_play(db: Any, play: Play) -> None:
    """Write an imported play as the host left it: a play the host deleted stays deleted, a
    corrected one stays corrected."""
    kept = amended(db, play)
    if kept is not None:
        write_play(db, kept)


NUMBER_LIMIT = 2 ** 53
"""Largest number an imported file may hold (a score, minutes, an id): exact in a JSON reader and
far inside SQLite's 64-bit integers (10**30 made the confirm step fail with an overflow)."""
DEPTH_HINT = 200
"""Our files nest a few levels; a reader that recurses fails long before a hostile 100,000."""


def _bounded(text: str) -> float | int:
    number = float(text) if any(c in text for c in ".eE") else (int(text) if len(text) < 20 else None)
    if number is None or number != number or abs(number) > NUMBER_LIMIT:
        raise HistoryError(*both("the number {number} is out of range (a score, duration or id is at most {limit})",
                                 number=text[:24] + ("…" if len(text) > 24 else ""), limit=f"{NUMBER_LIMIT:,}"))
    return number


def _no_constant(name: str) -> Any:
    raise HistoryError(*both("the file holds {name}, which is not a number a play can have", name=name))


def load_json(text: str) -> Any:
    """A history or BG Stats file's JSON, every number in range and no NaN/Infinity; anything else
    is a ``HistoryError`` saying what is wrong (never a traceback: the CLI and the web page show it)."""
    try:
        return json.loads(text, parse_int=_bounded, parse_float=_bounded, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise HistoryError(*both("not JSON ({msg} at line {lineno}); give a file made by `companion history "
                                 "export --format json` or BG Stats' JSON export", msg=err.msg,
                                 lineno=err.lineno)) from None
    except RecursionError:
        raise HistoryError(*both("the file is nested too deeply to be a history or BG Stats export")) from None


def import_text(store: Any, text: str, *, merge: dict[str, str] | None = None, dry_run: bool = False) -> Imported:
    """Import our JSON backup or a BG Stats export (``merge``: {BG Stats name: known player}); all or
    nothing. ``dry_run`` reads and checks the file and says what it would do, writing nothing."""
    data = load_json(text)
    if bgstats.is_file(data):
        return import_bgstats(store, data, merge=merge, dry_run=dry_run)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise HistoryError(*both("not a history backup (expected \"format\": \"{FORMAT}\") nor a BG Stats export "
                                 "(\"games\", \"players\", \"plays\")", FORMAT=FORMAT))
    if merge:
        raise HistoryError(*both("--merge is for BG Stats files: a backup's players are matched by name"))
    people = _need(data, "players", list, "the file")
    plays = [_play_from(p, f"play {i + 1}") for i, p in enumerate(_need(data, "plays", list, "the file"))]
    edits = [_edit_from(e, f"edit {i + 1}") for i, e in enumerate(data.get("edits") or [])]
    added = 0
    with store._write() as db:
        if dry_run:
            db.execute("SAVEPOINT dry")
        ids: dict[int, int] = {}
        for i, person in enumerate(people):
            at = f"player {i + 1}"
            if not isinstance(person, dict):
                raise HistoryError(*both("{at} is not an object", at=at))
            pid, name, created = _need(person, "id", int, at), _need(person, "name", str, at), \
                _need(person, "created", str, at)
            row = db.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
            if row is None:
                taken = db.execute("SELECT 1 FROM players WHERE id = ?", (pid,)).fetchone()
                cur = db.execute("INSERT INTO players (id, name, created) VALUES (?,?,?)",
                                 (None if taken else pid, name, created))
                row = (cur.lastrowid,)
                added += 1
            ids[pid] = row[0]
        for edit in edits:   # first: the plays are stored as the host left them
            keep_edit(db, Edit(edit.play, edit.made, edit.deleted, edit.changes, _local(edit.original, ids)))
        for play in plays:
            for s in play.seats:
                if s.player is not None and s.player not in ids:
                    raise HistoryError(f"play {play.id}: seat {s.seat + 1} names player {s.player}, "
                                       "who is not in the file's players")
            _store_play(db, _local(play, ids))
        if dry_run:
            db.execute("ROLLBACK TO dry")
            db.execute("RELEASE dry")
    return Imported("backup", added, len(plays))


def import_bgstats(store: Any, data: Any, *, merge: dict[str, str] | None = None,
                   dry_run: bool = False) -> Imported:
    """Import the plays of our five games from a BG Stats export (see ``bgstats.read_file``)."""
    from companion.history.query import known_players
    db = store._db()
    recorded = {r[0] for r in db.execute(
        "SELECT p.id FROM plays p LEFT JOIN play_sources s ON s.play = p.id WHERE s.play IS NULL")}
    # a second import of the same export brings nothing twice, and the host's merges stand
    imported = {r[0] for r in db.execute("SELECT play FROM play_sources WHERE source = 'bgstats'")}
    imported |= {r[0] for r in db.execute("SELECT play FROM play_edits WHERE play LIKE 'bgstats-%'")}
    known = known_players(store)
    folded = {k.casefold() for k in known}
    merges = {name: player for name, player in db.execute("SELECT name, player FROM play_merges")
              if player.casefold() in folded}
    merges.update(merge or {})
    reading = bgstats.read_file(data, known, merges, recorded, imported)
    if dry_run:
        added = sum(1 for p in reading.people if p.known is None and not p.anonymous)
        return Imported("bgstats", added, len(reading.plays), reading)
    with store._write() as db:
        before = db.execute("SELECT COUNT(*) FROM players").fetchone()[0]
        for play in reading.plays:
            _store_play(db, play)
        for name, player in (merge or {}).items():
            db.execute("INSERT OR REPLACE INTO play_merges (name, player) VALUES (?, ?)", (name, player))
        added = db.execute("SELECT COUNT(*) FROM players").fetchone()[0] - before
    return Imported("bgstats", added, len(reading.plays), reading)
