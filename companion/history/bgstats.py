"""One mapping from a play to BG Stats, used by both ways of reaching the app: the one-play
``bgstats://app.pushPlay`` link (``TableSession.bgstats_link``) and the whole-history import file
(the app's backup JSON: ``games``, ``players``, ``locations``, ``plays`` with ``playerScores``)."""
from __future__ import annotations

import uuid
from typing import Any, Sequence

from companion.history.dates import instant
from companion.history.record import Play, Seat

SOURCE = "Table Companion"
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/table-companion")
"""Stable uuids: the same play exported twice is the same play to BG Stats (no duplicates)."""
ENDED_EARLY = "Ended early by the host: not played to the end; scores as they stood."


def stable_uuid(kind: str, key: str) -> str:
    """A uuid that depends only on what it names (uppercase, as the app writes them)."""
    return str(uuid.uuid5(NAMESPACE, f"{kind}:{key}")).upper()


def play_date(play: Play) -> str:
    """``YYYY-MM-DD HH:MM:SS`` in local time: when the play started."""
    return instant(play.started).strftime("%Y-%m-%d %H:%M:%S")


def game_fields(game_id: str) -> dict[str, Any]:
    """What BG Stats needs to know about one of our games."""
    from companion.games import game_class
    return {"name": game_class(game_id).title, "sourceGameId": f"table-companion:{game_id}",
            "highestWins": True, "noPoints": False, "cooperative": False}


def person_key(seat: Seat, play: Play) -> str:
    """Who a seat is across plays: the person's name, or for a placeholder seat that table's seat."""
    return f"seat:{play.session}:{seat.seat}" if anonymous(seat) else f"name:{seat.name.casefold()}"


def anonymous(seat: Seat) -> bool:
    """A seat nobody named (P1, P2, …): a seat, not a person."""
    from companion.session.store import PLACEHOLDER_NAME
    return bool(PLACEHOLDER_NAME.fullmatch(seat.name.strip()))


def seat_fields(seat: Seat) -> dict[str, Any]:
    """A seat's score, win, start and seat order as BG Stats writes them (scores are text)."""
    return {"score": str(seat.score), "winner": seat.winner, "startPlayer": seat.start,
            "seatOrder": seat.seat + 1}


def comments(play: Play) -> str | None:
    """The play's note: said when the host ended it early."""
    return ENDED_EARLY if play.ended_early else None


def push_payload(play: Play) -> dict[str, Any]:
    """The JSON of a ``bgstats://app.pushPlay`` link for one play."""
    game = game_fields(play.game)
    payload: dict[str, Any] = {
        "sourceName": SOURCE, "sourcePlayId": play.id, "playDate": play_date(play),
        "durationMin": round(play.duration / 60),
        "game": {k: game[k] for k in ("name", "sourceGameId", "highestWins", "noPoints")},
        "players": [{"name": s.name, "sourcePlayerId": f"table-companion:{person_key(s, play)}", **seat_fields(s)}
                    for s in play.seats],
    }
    if comments(play):
        payload["comments"] = comments(play)
    return payload


def export_file(plays: Sequence[Play]) -> dict[str, Any]:
    """A BG Stats import file holding ``plays`` (real dates and durations, one location)."""
    games: dict[str, dict[str, Any]] = {}
    players: dict[str, dict[str, Any]] = {}
    out_plays = []
    for play in plays:
        if play.game not in games:
            games[play.game] = {"id": len(games) + 1, "uuid": stable_uuid("game", play.game),
                                **game_fields(play.game), "bggId": 0}
        scores = []
        for seat in play.seats:
            key = person_key(seat, play)
            if key not in players:
                players[key] = {"id": len(players) + 1, "uuid": stable_uuid("player", key), "name": seat.name,
                                "isAnonymous": anonymous(seat)}
            rank = 1 + sum(other.score > seat.score for other in play.seats)
            scores.append({**seat_fields(seat), "playerRefId": players[key]["id"], "rank": rank,
                           "newPlayer": False})
        entry: dict[str, Any] = {
            "uuid": stable_uuid("play", play.id), "playDate": play_date(play),
            "durationMin": round(play.duration / 60), "gameRefId": games[play.game]["id"],
            "locationRefId": 1, "ignored": False, "manualWinner": False, "rounds": 0,
            "usesTeams": False, "scoringSetting": 0, "playerScores": scores,
            "sourcePlayId": play.id}
        if comments(play):
            entry["comments"] = comments(play)
        out_plays.append(entry)
    return {"games": list(games.values()), "players": list(players.values()),
            "locations": [{"id": 1, "uuid": stable_uuid("location", SOURCE), "name": SOURCE}],
            "plays": out_plays}
