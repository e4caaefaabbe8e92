"""Reading the play history: plays by date filtered by game, player and dates; statistics per player
and per game, in the shapes the History page, its charts and ``companion history stats`` show."""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from companion.history.record import Play, Seat, read_plays


@dataclass(frozen=True)
class Filter:
    """Which plays: a game id, a player's name (any case), and a date range (ISO UTC instants)."""

    game: str | None = None
    player: str | None = None
    since: str | None = None
    until: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """The SQL WHERE clause on ``plays p`` and its parameters."""
        parts, params = [], []
        if self.game:
            parts.append("p.game = ?")
            params.append(self.game)
        if self.player:
            parts.append("EXISTS (SELECT 1 FROM play_seats s WHERE s.play = p.id AND s.name = ? COLLATE NOCASE)")
            params.append(self.player.strip())
        if self.since:
            parts.append("p.started >= ?")
            params.append(self.since)
        if self.until:
            parts.append("p.started <= ?")
            params.append(self.until)
        return ("WHERE " + " AND ".join(parts) if parts else ""), params


def plays(store: Any, which: Filter = Filter()) -> list[Play]:
    """The plays that match, oldest first."""
    where, params = which.where()
    return read_plays(store._db(), where, params)


def known_players(store: Any) -> list[str]:
    """Every known player's name: the most-played first, then alphabetically (the create form's picker)."""
    rows = store._db().execute(
        "SELECT pl.name, COUNT(s.play) AS n FROM players pl LEFT JOIN play_seats s ON s.player = pl.id "
        "GROUP BY pl.id ORDER BY n DESC, pl.name COLLATE NOCASE").fetchall()
    return [name for name, _ in rows]


@dataclass(frozen=True)
class PlayerStats:
    """One person's record at one game: plays, wins, win rate, average and best score."""

    name: str
    game: str
    plays: int
    wins: int
    average: float
    best: int

    @property
    def win_rate(self) -> float:
        """Wins per play, 0–1."""
        return self.wins / self.plays if self.plays else 0.0


def people(history: Iterable[Play]) -> Iterator[tuple[Play, Seat, str]]:
    """Every seat taken by a known person: (play, seat, the person's name as the players table
    spells it: "ann" at one table is Ann). Placeholder seats are left out: P1 today is not P1 tomorrow."""
    for play in history:
        for seat in play.seats:
            if seat.player is not None and seat.person:
                yield play, seat, seat.person


def player_stats(history: Sequence[Play]) -> list[PlayerStats]:
    """Per player and game: plays, wins, average and best score (by game, then best win rate)."""
    table: dict[tuple[str, str], list[tuple[int, bool]]] = defaultdict(list)
    for play, seat, person in people(history):
        table[(person, play.game)].append((seat.score, seat.winner))
    out = [PlayerStats(person, game, len(rows), sum(w for _, w in rows),
                       sum(s for s, _ in rows) / len(rows), max(s for s, _ in rows))
           for (person, game), rows in table.items()]
    return sorted(out, key=lambda r: (r.game, -r.win_rate, -r.plays, r.name.casefold()))


def win_share(history: Sequence[Play]) -> list[tuple[str, int, int]]:
    """Per player: (name, wins, plays), most wins first."""
    wins: dict[str, list[int]] = {}
    for _, seat, person in people(history):
        row = wins.setdefault(person, [0, 0])
        row[0] += int(seat.winner)
        row[1] += 1
    return sorted(((k, w, n) for k, (w, n) in wins.items()), key=lambda r: (-r[1], -r[2], r[0].casefold()))


def score_lines(history: Sequence[Play], game: str) -> dict[str, list[tuple[int, int]]]:
    """Per player, their scores at ``game`` over the plays in date order: {name: [(play index, score)]}."""
    index = {p.id: i for i, p in enumerate((p for p in history if p.game == game), 1)}
    lines: dict[str, list[tuple[int, int]]] = {}
    for play, seat, person in people(p for p in history if p.game == game):
        lines.setdefault(person, []).append((index[play.id], seat.score))
    return lines


def distribution(history: Sequence[Play], game: str, bins: int = 6) -> list[tuple[int, int, int]]:
    """The scores of every seat at ``game`` as a histogram: [(low, high, count)], at most ``bins`` rows."""
    scores = [s.score for p in history if p.game == game for s in p.seats]
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    width = max(1, math.ceil((hi - lo + 1) / bins))
    rows = []
    for start in range(lo, hi + 1, width):
        end = start + width - 1
        rows.append((start, end, sum(start <= s <= end for s in scores)))
    return rows


def games_played(history: Sequence[Play]) -> list[str]:
    """The game ids that occur, most played first."""
    count: dict[str, int] = defaultdict(int)
    for play in history:
        count[play.game] += 1
    return sorted(count, key=lambda g: (-count[g], g))
