"""Reading the play history: plays by date filtered by game, player and dates; statistics per player
and per game, in the shapes the History page, its charts and ``companion history stats`` show."""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Iterable, Iterator, Sequence

from companion.history.record import Play, Seat, read_plays
from companion.players import LEVELS


@dataclass(frozen=True)
class Filter:
    """Which plays: a game id, a player's name (any case), a date range (ISO UTC instants) and a
    location (any case)."""

    game: str | None = None
    player: str | None = None
    since: str | None = None
    until: str | None = None
    location: str | None = None

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
        if self.location:   # ``plays`` gives the location as stored (SQLite folds only ASCII case)
            parts.append("p.location = ?")
            params.append(self.location)
        return ("WHERE " + " AND ".join(parts) if parts else ""), params


def plays(store: Any, which: Filter = Filter()) -> list[Play]:
    """The plays that match, oldest first (a location in any case: "CAFÉ MEEPLE" is Café Meeple)."""
    if which.location:
        wanted = which.location.strip().casefold()
        stored = [name for name in locations(store) if name.casefold() == wanted]
        which = replace(which, location=stored[0] if stored else which.location.strip())
    where, params = which.where()
    return read_plays(store._db(), where, params)


def known_players(store: Any) -> list[str]:
    """Every known player's name: the most-played first, then alphabetically (the create form's picker)."""
    rows = store._db().execute(
        "SELECT pl.name, COUNT(s.play) AS n FROM players pl LEFT JOIN play_seats s ON s.player = pl.id "
        "GROUP BY pl.id ORDER BY n DESC, pl.name COLLATE NOCASE").fetchall()
    return [name for name, _ in rows]


def locations(store: Any) -> list[str]:
    """Every location a play names: the most used first, then alphabetically (the page's filter)."""
    rows = store._db().execute(
        "SELECT location, COUNT(*) AS n FROM plays WHERE location IS NOT NULL AND location != '' "
        "GROUP BY location ORDER BY n DESC, location").fetchall()
    return [name for name, _ in rows]


@dataclass(frozen=True)
class PlayerStats:
    """One person's record at one game: plays, wins, win rate, average and best score (over the
    plays whose scores are known: ``scored``; a BG Stats play may have none)."""

    name: str
    game: str
    plays: int
    wins: int
    average: float
    best: int
    scored: int = 0

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
    table: dict[tuple[str, str], list[tuple[int | None, bool]]] = defaultdict(list)
    for play, seat, person in people(history):
        table[(person, play.game)].append((seat.score if play.knows("scores") else None, seat.winner))
    out = []
    for (person, game), rows in table.items():
        known = [s for s, _ in rows if s is not None]
        out.append(PlayerStats(person, game, len(rows), sum(w for _, w in rows),
                               sum(known) / len(known) if known else 0.0, max(known, default=0), len(known)))
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
    for play, seat, person in people(p for p in history if p.game == game and p.knows("scores")):
        lines.setdefault(person, []).append((index[play.id], seat.score))
    return lines


def distribution(history: Sequence[Play], game: str, bins: int = 6) -> list[tuple[int, int, int]]:
    """The scores of every person's seat at ``game`` as a histogram: [(low, high, count)], at most
    ``bins`` rows. The companion's seats are left out: it holds no record of its own, and a table's
    chart of how people score must not mix in how it scores."""
    scores = [s.score for p in history if p.game == game and p.knows("scores") for s in p.seats
              if not s.companion]
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    width = max(1, math.ceil((hi - lo + 1) / bins))
    rows = []
    for start in range(lo, hi + 1, width):
        end = start + width - 1
        rows.append((start, end, sum(start <= s <= end for s in scores)))
    return rows


def games_stored(store: Any) -> list[str]:
    """The game ids that have plays in the store, most played first (without reading the plays)."""
    rows = store._db().execute("SELECT game, COUNT(*) AS n FROM plays GROUP BY game ORDER BY n DESC, game")
    return [game for game, _ in rows.fetchall()]


def games_played(history: Sequence[Play]) -> list[str]:
    """The game ids that occur, most played first."""
    count: dict[str, int] = defaultdict(int)
    for play in history:
        count[play.game] += 1
    return sorted(count, key=lambda g: (-count[g], g))


# ----------------------------------------------------------------------------- a player's page
def h_index(counts: Iterable[int]) -> int:
    """BG Stats' h-index: the largest n such that n of the counts are at least n."""
    ranked = sorted(counts, reverse=True)
    return max((n for n, c in enumerate(ranked, 1) if c >= n), default=0)


def ahead(play: Play, a: Seat, b: Seat) -> int:
    """1 if seat ``a`` finished ahead of ``b``, -1 if behind, 0 for a draw: a winner is ahead of a
    non-winner; between two winners or two others the higher score (when the play has scores)."""
    key_a = (a.winner, a.score if play.knows("scores") else 0)
    key_b = (b.winner, b.score if play.knows("scores") else 0)
    return (key_a > key_b) - (key_a < key_b)


@dataclass(frozen=True)
class HeadToHead:
    """One person against another in the plays both sat in: wins, losses and draws."""

    other: str
    plays: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class PlayerSummary:
    """Everything the player page shows about one person."""

    name: str
    plays: int
    wins: int
    games: tuple[PlayerStats, ...]
    current_streak: int
    """Wins in a row up to the latest play (0 if the latest was not a win)."""
    longest_streak: int
    first: Play
    last: Play
    time_played: int
    """Seconds, over the plays whose duration is known."""
    head_to_head: tuple[HeadToHead, ...]
    scores: dict[str, list[tuple[int, int]]]
    """Per game, (the person's play number, score) for the plays with scores: the score-over-time chart."""
    others: dict[str, list[tuple[int, float]]]
    """Per game, (the same play number, the other seats' average score): what the score was up against."""
    against_companion: tuple[HeadToHead, ...] = ()
    """The person against the companion, one row per level it played (``other`` is the level),
    weakest level first."""

    @property
    def win_rate(self) -> float:
        """Wins per play, 0–1."""
        return self.wins / self.plays if self.plays else 0.0

    @property
    def h_index(self) -> int:
        """BG Stats' h-index for this person: n games they played at least n times each."""
        return h_index(r.plays for r in self.games)

    @property
    def player_h_index(self) -> int:
        """BG Stats' player h-index for this person: n people they played with at least n times each."""
        return h_index(h.plays for h in self.head_to_head)


def streaks(results: Sequence[bool]) -> tuple[int, int]:
    """(current, longest) run of wins in ``results`` (oldest first)."""
    longest = run = 0
    for won in results:
        run = run + 1 if won else 0
        longest = max(longest, run)
    return run, longest


def player_summary(history: Sequence[Play], name: str) -> PlayerSummary | None:
    """One person's plays, wins, per-game figures, streaks, head-to-head and scores (None: no play)."""
    key = name.strip().casefold()
    mine = [(play, seat) for play, seat, person in people(history) if person.casefold() == key]
    if not mine:
        return None
    person = mine[0][1].person or name
    current, longest = streaks([seat.winner for _, seat in mine])
    versus: dict[str, list[int]] = {}
    machine: dict[str, list[int]] = {}   # level → plays, wins, losses, draws against the companion
    for play, seat in mine:
        for other in play.seats:
            if other is seat:
                continue
            if other.companion:
                row = machine.setdefault(other.companion, [0, 0, 0, 0])
            elif other.player is None or not other.person or other.person.casefold() == key:
                continue
            else:
                row = versus.setdefault(other.person, [0, 0, 0, 0])
            result = ahead(play, seat, other)
            row[0] += 1
            row[1 if result > 0 else 2 if result < 0 else 3] += 1
    h2h = sorted((HeadToHead(o, *r) for o, r in versus.items()), key=lambda h: (-h.plays, h.other.casefold()))
    order = {level: i for i, level in enumerate(LEVELS)}
    companion = tuple(HeadToHead(level, *r) for level, r in sorted(machine.items(),
                                                                   key=lambda kv: order.get(kv[0], 9)))
    scores: dict[str, list[tuple[int, int]]] = {}
    others: dict[str, list[tuple[int, float]]] = {}
    counter: dict[str, int] = defaultdict(int)
    for play, seat in mine:
        counter[play.game] += 1
        if play.knows("scores"):
            scores.setdefault(play.game, []).append((counter[play.game], seat.score))
            rest = [s.score for s in play.seats if s is not seat]
            if rest:
                others.setdefault(play.game, []).append((counter[play.game], round(sum(rest) / len(rest), 1)))
    games = tuple(r for r in player_stats([play for play, _ in mine]) if r.name.casefold() == key)
    return PlayerSummary(person, len(mine), sum(seat.winner for _, seat in mine),
                         tuple(sorted(games, key=lambda r: (-r.plays, r.game))), current, longest,
                         mine[0][0], mine[-1][0], sum(p.duration for p, _ in mine if p.knows("duration")),
                         tuple(h2h), scores, others, companion)


# ----------------------------------------------------------------------------- a game's page, the overview
@dataclass(frozen=True)
class Record:
    """A record of the plays shown: its value, the play, and who set it (for a score)."""

    value: int
    play: Play
    who: str | None = None


@dataclass(frozen=True)
class Overview:
    """The figures of a set of plays: counts, time, months, h-indexes, records, first and last."""

    plays: int
    time_played: int
    """Seconds, over the plays whose duration is known (``timed`` of them)."""
    timed: int
    per_game: tuple[tuple[str, int], ...]
    """(game, plays), most played first."""
    per_month: tuple[tuple[str, int], ...]
    """("YYYY-MM", plays) for every month from the first play's to the last's (local time)."""
    h_index: int
    """n games played at least n times each."""
    player_h_index: int
    """n people who played at least n times each."""
    first: Play | None
    last: Play | None
    highest: Record | None
    margin: Record | None
    """The biggest lead of a play's top score over the next (who: the winner)."""
    longest: Record | None
    shortest: Record | None

    @property
    def most_played(self) -> tuple[str, int] | None:
        """(game, plays) of the most played game."""
        return self.per_game[0] if self.per_game else None


def months(history: Sequence[Play]) -> list[tuple[str, int]]:
    """Plays per local month, every month from the first to the last (empty months count 0)."""
    from companion.dates import instant
    count: dict[tuple[int, int], int] = defaultdict(int)
    for play in history:
        moment = instant(play.started)
        count[(moment.year, moment.month)] += 1
    if not count:
        return []
    (y, m), end = min(count), max(count)
    out = []
    while (y, m) <= end:
        out.append((f"{y:04d}-{m:02d}", count.get((y, m), 0)))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def overview(history: Sequence[Play]) -> Overview:
    """Counts, time played, plays per month, the h-indexes, records, the first and last play."""
    per_game: dict[str, int] = defaultdict(int)
    for play in history:
        per_game[play.game] += 1
    per_person: dict[str, int] = defaultdict(int)
    for _, _, person in people(history):
        per_person[person] += 1
    timed = [p for p in history if p.knows("duration")]
    lasting = [p for p in timed if p.duration > 0]   # a play of no seconds (a test tap-through) is no record
    highest = margin = None
    for play in history:
        persons = [s for s in play.seats if not s.companion]   # the companion holds no record of its own
        if not play.knows("scores") or not persons:
            continue
        top = max(persons, key=lambda s: (s.score, s.winner))
        if highest is None or top.score > highest.value:
            highest = Record(top.score, play, top.person or top.name)
        if len(play.seats) > 1:
            first, second = sorted((s.score for s in play.seats), reverse=True)[:2]
            leader = next((s for s in persons if s.winner and s.score == first),
                          top if top.score == first else None)   # a person's lead, not the companion's
            if leader is not None and (margin is None or first - second > margin.value):
                margin = Record(first - second, play, leader.person or leader.name)
    longest = max(lasting, key=lambda p: p.duration, default=None)
    shortest = min(lasting, key=lambda p: p.duration, default=None)
    return Overview(len(history), sum(p.duration for p in timed), len(timed),
                    tuple(sorted(per_game.items(), key=lambda kv: (-kv[1], kv[0]))), tuple(months(history)),
                    h_index(per_game.values()), h_index(per_person.values()),
                    history[0] if history else None, history[-1] if history else None, highest, margin,
                    Record(longest.duration, longest) if longest else None,
                    Record(shortest.duration, shortest) if shortest else None)
