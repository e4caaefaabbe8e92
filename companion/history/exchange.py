"""Export and import of the play history: CSV (one row per seat), JSON (the exact backup) and the
BG Stats import file. Importing a JSON export into an empty database reproduces its rows exactly;
into a used one it adds the plays it does not have (same play id: replaced) and matches players by
name. A file that does not fit is refused with the reason, and nothing is changed."""
from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timezone
from typing import Any, Sequence

from companion.engine import GameError
from companion.history import bgstats
from companion.history.dates import iso, iso_utc
from companion.history.record import Play, Seat, write_play

FORMAT = "table-companion-history/1"
FORMATS = ("csv", "json", "bgstats")
CSV_FIELDS = ("date", "game", "title", "play", "duration_min", "seat", "name", "score", "winner",
              "start_player", "ended_early", "kept_by", "options")


class HistoryError(GameError):
    """A history request that cannot be done: a file that does not fit, a bad date, an unknown format."""


def players_of(db: Any, plays: Sequence[Play] | None) -> list[dict[str, Any]]:
    """The players rows (all of them, or those the plays name), by id."""
    rows = db.execute("SELECT id, name, created FROM players ORDER BY id").fetchall()
    if plays is not None:
        used = {s.player for p in plays for s in p.seats}
        rows = [r for r in rows if r[0] in used]
    return [{"id": i, "name": n, "created": c} for i, n, c in rows]


def play_json(play: Play) -> dict[str, Any]:
    """One play as the JSON export writes it."""
    return {"id": play.id, "session": play.session, "number": play.number, "game": play.game,
            "options": dict(play.options), "started": play.started, "duration": play.duration,
            "ended_early": play.ended_early, "camera_moves": play.camera_moves,
            "tapped_moves": play.tapped_moves, "kept_by": play.kept_by, "winners": play.winners,
            "seats": [{"seat": s.seat, "name": s.name, "player": s.player, "score": s.score,
                       "winner": s.winner, "start": s.start} for s in play.seats]}


def export_json(db: Any, plays: Sequence[Play], *, everything: bool) -> dict[str, Any]:
    """The backup: every player (or those the plays name) and the plays, ISO 8601 dates."""
    return {"format": FORMAT, "exported": iso(datetime.now(timezone.utc)),
            "players": players_of(db, None if everything else plays),
            "plays": [play_json(p) for p in plays]}


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
            writer.writerow([when, p.game, titles[p.game], p.id, round(p.duration / 60), s.seat + 1, s.name,
                             s.score, int(s.winner), int(s.start), int(p.ended_early), p.kept_by, options])
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
        raise HistoryError(f"{where} is not an object")
    game = _need(data, "game", str, where)
    if game not in GAME_IDS:
        raise HistoryError(f"{where}: unknown game {game!r} (known: {', '.join(GAME_IDS)})")
    started = _need(data, "started", str, where)
    try:
        if iso_utc(started) != started:
            raise ValueError
    except ValueError:
        raise HistoryError(f"{where}: 'started' must be ISO 8601 UTC like 2026-11-24T19:26:51+00:00, "
                           f"got {started!r}") from None
    seats = []
    for i, s in enumerate(_need(data, "seats", list, where)):
        at = f"{where} seat {i + 1}"
        if not isinstance(s, dict):
            raise HistoryError(f"{at} is not an object")
        player = s.get("player")
        if player is not None and (not isinstance(player, int) or isinstance(player, bool)):
            raise HistoryError(f"{at}: 'player' must be a player id or null")
        seats.append(Seat(_need(s, "seat", int, at), _need(s, "name", str, at), _need(s, "score", int, at),
                          _need(s, "winner", bool, at), _need(s, "start", bool, at), player))
    session = data.get("session")
    if session is not None and not isinstance(session, str):
        raise HistoryError(f"{where}: 'session' must be text or null")
    return Play(_need(data, "id", str, where), session, _need(data, "number", int, where), game,
                _need(data, "options", dict, where), started, _need(data, "duration", int, where),
                _need(data, "ended_early", bool, where), _need(data, "camera_moves", int, where),
                _need(data, "tapped_moves", int, where), tuple(seats))


def import_text(store: Any, text: str) -> tuple[int, int]:
    """Import a JSON export (our backup format); return (players added, plays written). All or nothing."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise HistoryError(f"not JSON ({err.msg} at line {err.lineno}); give a file made by "
                           "`companion history export --format json`") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        hint = " (a BG Stats file goes to the BG Stats app, not back here)" \
            if isinstance(data, dict) and "playerScores" in json.dumps(data.get("plays", ""))[:2000] else ""
        raise HistoryError(f"not a history backup: expected \"format\": \"{FORMAT}\"{hint}")
    people = _need(data, "players", list, "the file")
    plays = [_play_from(p, f"play {i + 1}") for i, p in enumerate(_need(data, "plays", list, "the file"))]
    added = 0
    with store._write() as db:
        ids: dict[int, int] = {}
        for i, person in enumerate(people):
            at = f"player {i + 1}"
            if not isinstance(person, dict):
                raise HistoryError(f"{at} is not an object")
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
        for play in plays:
            for s in play.seats:
                if s.player is not None and s.player not in ids:
                    raise HistoryError(f"play {play.id}: seat {s.seat + 1} names player {s.player}, "
                                       "who is not in the file's players")
            seats = tuple(Seat(s.seat, s.name, s.score, s.winner, s.start,
                               ids[s.player] if s.player is not None else None) for s in play.seats)
            write_play(db, Play(play.id, play.session, play.number, play.game, play.options, play.started,
                                play.duration, play.ended_early, play.camera_moves, play.tapped_moves, seats))
    return added, len(plays)
