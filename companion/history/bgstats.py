"""One mapping from a play to BG Stats, used by both ways of reaching the app: the one-play link
(``play_link``, ``session_link``: BG Stats' documented "createPlay" link, which opens the app's
import dialog on a phone where it is installed) and the whole-history import file (the app's backup
JSON: ``games``, ``players``, ``locations``, ``plays`` with ``playerScores``)."""
from __future__ import annotations

import json
import urllib.parse
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Collection, Mapping, Sequence

from companion.dates import instant
from companion.history.record import HistoryError, Play, Seat, clean_location, plays_of
from companion.i18n import N_, both
from companion.session.autoplay import companion_label, companion_name, companion_name_number, companion_of_label

if TYPE_CHECKING:
    from companion.session.table import TableSession

SOURCE = "Table Companion"
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/table-companion")
"""Stable uuids: the same play exported twice is the same play to BG Stats (no duplicates)."""
ENDED_EARLY = "Ended early by the host: not played to the end; scores as they stood."
LINK = "https://app.bgstatsapp.com/createPlay.html?data="
"""BG Stats' link for one play from another app (bgstatsapp.com, "Push plays to BG Stats from other apps
or websites"): on a phone with the app it opens the app's import dialog, elsewhere the app's web page."""


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


def minutes(play: Play) -> int:
    """The play's whole minutes, as BG Stats keeps them (0, "not recorded", when unknown)."""
    return round(play.duration / 60) if play.knows("duration") else 0


def person_key(seat: Seat, play: Play) -> str:
    """Who a seat is across plays: the person's name, or for a placeholder seat that table's seat; the
    companion is one player per level (and per name the host gave it), never a person of that name."""
    if seat.companion:
        return f"companion:{seat.companion}" + ("" if _app_named(seat) else f":{seat.name.casefold()}")
    return f"seat:{play.session or play.id}:{seat.seat}" if anonymous(seat) else f"name:{seat.name.casefold()}"


def _app_named(seat: Seat) -> bool:
    return anonymous(seat) or companion_name_number(seat.name) is not False


def player_name(seat: Seat) -> str:
    """A seat's player as BG Stats lists it: the person's name; the companion says what it is and its
    level ("Companion (good)", "Robo (companion, good)"), so the app's statistics per player give the
    record against each level, as for an Automa."""
    if not seat.companion:
        return seat.name
    return companion_name(seat.companion, "en") if anonymous(seat) else companion_label(seat.name, seat.companion, "en")


def anonymous(seat: Seat) -> bool:
    """A seat nobody named (P1, P2, …): a seat, not a person."""
    from companion.session.store import PLACEHOLDER_NAME
    return bool(PLACEHOLDER_NAME.fullmatch(seat.name.strip()))


def seat_fields(seat: Seat, play: Play) -> dict[str, Any]:
    """A seat's score, win, start and seat order as BG Stats writes them (scores are text; empty, and
    no start player, where the play does not know them)."""
    return {"score": str(seat.score) if play.knows("scores") else "", "winner": seat.winner,
            "startPlayer": seat.start and play.knows("start"), "seatOrder": seat.seat + 1}


def comments(play: Play) -> str | None:
    """The play's note: said when the host ended it early."""
    return ENDED_EARLY if play.ended_early else None


def rank(seat: Seat, play: Play) -> int:
    """The seat's place by score (1 for the highest, ties share it); 0 when the scores are unknown."""
    return 1 + sum(other.score > seat.score for other in play.seats) if play.knows("scores") else 0


def push_payload(play: Play) -> dict[str, Any]:
    """The JSON of the one-play link (``LINK``) for ``play`` as the history holds it (corrected)."""
    game = game_fields(play.game)
    payload: dict[str, Any] = {
        "sourceName": SOURCE, "sourcePlayId": play.id, "playDate": play_date(play),
        "durationMin": minutes(play),
        "game": {k: game[k] for k in ("name", "sourceGameId", "highestWins", "noPoints")},
        "players": [{"name": player_name(s), "sourcePlayerId": f"table-companion:{person_key(s, play)}",
                     "rank": rank(s, play), **seat_fields(s, play)} for s in play.seats],
    }
    if comments(play):
        payload["comments"] = comments(play)
    if play.location:
        payload["location"] = play.location
    return payload


def link(payload: Mapping[str, Any]) -> str:
    """The one-play link (``LINK``) carrying ``payload`` (``push_payload``'s JSON)."""
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return LINK + urllib.parse.quote(data, safe="")


def play_link(play: Play) -> str:
    """The one-play link that records ``play`` in the BG Stats app."""
    return link(push_payload(play))


def session_payload(session: "TableSession", number: int | None = None) -> dict[str, Any]:
    """The "push play" JSON of a finished game of ``session`` (default: the last finished one),
    derived from its log as the play history derives it and as the host corrected it in History,
    so the link, the History page's button and the file agree."""
    from companion.history.record import amended
    from companion.session.store import SessionError
    with session.lock:
        session.refresh()
        db = session.store._db()
        plays = [amended(db, p) or p for p in plays_of(db, session.id, session)]   # a deleted play: as played
    if not plays:
        raise SessionError(*both("no game of this session is finished yet"))
    if number is None:
        return push_payload(plays[-1])
    match = [p for p in plays if p.number == number]
    if not match:
        raise SessionError(*both("game {number} is not a finished game of this session", number=number))
    return push_payload(match[0])


def session_link(session: "TableSession", number: int | None = None) -> str:
    """The one-play link (``LINK``) that records a game of ``session`` in the BG Stats app."""
    return link(session_payload(session, number))


def export_file(plays: Sequence[Play]) -> dict[str, Any]:
    """A BG Stats import file holding ``plays`` (real dates and durations; each play's location, or
    "Table Companion" for a play whose location nobody said)."""
    games: dict[str, dict[str, Any]] = {}
    players: dict[str, dict[str, Any]] = {}
    locations: dict[str, dict[str, Any]] = {}
    out_plays = []
    for play in plays:
        if play.game not in games:
            games[play.game] = {"id": len(games) + 1, "uuid": stable_uuid("game", play.game),
                                **game_fields(play.game), "bggId": 0}
        scores = []
        for seat in play.seats:
            key = person_key(seat, play)
            if key not in players:
                players[key] = {"id": len(players) + 1, "uuid": stable_uuid("player", key), "name": player_name(seat),
                                "isAnonymous": anonymous(seat) and not seat.companion}
            scores.append({**seat_fields(seat, play), "playerRefId": players[key]["id"], "rank": rank(seat, play),
                           "newPlayer": False})
        where = play.location or SOURCE
        if where not in locations:
            locations[where] = {"id": len(locations) + 1, "uuid": stable_uuid("location", where), "name": where}
        entry: dict[str, Any] = {
            "uuid": stable_uuid("play", play.id), "playDate": play_date(play),
            "durationMin": minutes(play), "gameRefId": games[play.game]["id"],
            "locationRefId": locations[where]["id"], "ignored": False, "manualWinner": False, "rounds": 0,
            "usesTeams": False, "scoringSetting": 0, "playerScores": scores,
            "sourcePlayId": play.id}
        if comments(play):
            entry["comments"] = comments(play)
        out_plays.append(entry)
    return {"games": list(games.values()), "players": list(players.values()),
            "locations": list(locations.values())
            or [{"id": 1, "uuid": stable_uuid("location", SOURCE), "name": SOURCE}],
            "plays": out_plays}


# ----------------------------------------------------------------------------- reading the app's file
LEFT_OUT = {"ignored": N_("ignored in BG Stats"), "no_players": N_("no players"), "no_date": N_("no date"),
            "same_person": N_("the same person twice"), "not_a_play": N_("not a play"),
            "already_here": N_("already in the history from our own table (kept as recorded there)"),
            "already_imported": N_("already imported from BG Stats before")}
"""Why a play of our games was left out (English msgids: the catalogue has the Japanese)."""


@dataclass(frozen=True)
class GameMatch:
    """One of the file's games that is one of ours, and how we knew."""

    ref: int
    name: str
    game: str
    how: str
    """``source`` (our own export's ``sourceGameId``), ``bgg`` (the BGG id), ``title`` or ``title_ja``."""


@dataclass(frozen=True)
class Person:
    """One of the file's players who sat in a play of our games, and who they are here."""

    ref: int
    name: str
    plays: int
    known: str | None
    """The known player they are (same name in any case, or merged by the host); None: a new player."""
    looks_like: str | None
    """A known player with a similar name, offered for merging (never merged unasked)."""
    anonymous: bool = False
    suggestions: tuple[str, ...] = ()
    """The known players the import page offers first (``looks_like`` first, then close names)."""


@dataclass(frozen=True)
class Reading:
    """What an import of a BG Stats file would do: the plays it brings and what it leaves out."""

    games: tuple[GameMatch, ...]
    people: tuple[Person, ...]
    plays: tuple[Play, ...]
    other_games: tuple[tuple[str, int], ...]
    """(name, plays) of the games that are not ours, most played first: left out."""
    left_out: tuple[tuple[str, int], ...]
    """(reason, plays) of plays of our games left out; the reasons are keys of ``LEFT_OUT``."""
    unknown: tuple[tuple[str, int], ...]
    """(field, plays) of what the file did not say (moves, duration, scores, start)."""

    @property
    def other_plays(self) -> int:
        """How many plays of other games the file has."""
        return sum(n for _, n in self.other_games)


def _folded(text: str) -> str:
    """A title compared loosely: NFKC, no case, no spaces or punctuation, no leading "the"."""
    import unicodedata
    text = unicodedata.normalize("NFKC", str(text)).casefold().strip()
    if text.startswith("the "):
        text = text[4:]
    return "".join(ch for ch in text if ch.isalnum())


def is_file(data: Any) -> bool:
    """True for what looks like a BG Stats export (games, players and plays with playerScores)."""
    return isinstance(data, dict) and isinstance(data.get("plays"), list) and isinstance(data.get("games"), list) \
        and "format" not in data


def match_games(games: Sequence[Any]) -> list[GameMatch]:
    """The file's games that are ours: by our export's ``sourceGameId``, a BGG id our game declares
    (``bgg_id``; none does yet), or the English or Japanese title (any case, spacing, a leading "The")."""
    from companion.games import GAME_IDS, game_class
    titles: dict[str, tuple[str, str]] = {}
    bgg: dict[int, str] = {}
    for gid in GAME_IDS:
        cls = game_class(gid)
        titles[_folded(cls.title)] = (gid, "title")
        titles[_folded(cls.title_ja)] = (gid, "title_ja")
        if getattr(cls, "bgg_id", 0):
            bgg[int(cls.bgg_id)] = gid
    found = []
    for g in games:
        if not isinstance(g, dict) or not isinstance(g.get("id"), int):
            continue
        name = str(g.get("name") or g.get("bggName") or "")
        source = str(g.get("sourceGameId") or "")
        if source.startswith("table-companion:") and source.split(":", 1)[1] in GAME_IDS:
            found.append(GameMatch(g["id"], name, source.split(":", 1)[1], "source"))
        elif isinstance(g.get("bggId"), int) and g["bggId"] in bgg:
            found.append(GameMatch(g["id"], name, bgg[g["bggId"]], "bgg"))
        elif _folded(name) in titles or _folded(g.get("bggName") or "") in titles:
            gid, how = titles.get(_folded(name)) or titles[_folded(g.get("bggName") or "")]
            found.append(GameMatch(g["id"], name, gid, how))
    return found


SUGGESTIONS = 3
"""Known players offered per new name on the import page (the closest first); any other is typed."""


class KnownNames:
    """The known players, indexed once for all of an import's names: the same name in any case,
    a first name, a name that differs by a typo, or one that begins with a known name. Each name
    costs a few dict look-ups and one C pass (rapidfuzz) over the known names; difflib's check of
    every pair was 61 s of CPU for 1,500 new names against 1,713 known."""

    def __init__(self, known: Sequence[str]) -> None:
        self.folded = {k.casefold(): k for k in known}
        self.keys = list(self.folded)

    def _close(self, key: str) -> list[tuple[str, float]]:
        """(folded known name, score 0–100) of the names like ``key``, closest first."""
        from rapidfuzz import fuzz, process
        found = process.extract(key, self.keys, scorer=fuzz.ratio, score_cutoff=CLOSE_SCORE, limit=None)
        return [(k, score) for k, score, _ in found]

    def looks_like(self, name: str) -> str | None:
        """A known player whose name is close to ``name`` ("Ann S." and "Ann", "Benjamin" and "Ben")."""
        import difflib
        key = name.casefold().strip()
        if key in self.folded:
            return None
        first = key.replace(".", " ").split()[0] if key.split() else key
        if first in self.folded and first != key:
            return self.folded[first]
        # rapidfuzz's ratio (longest common subsequence) is never below difflib's (its matching blocks
        # are one such subsequence): it finds every name difflib would, and difflib picks among them
        # as ``difflib.get_close_matches(key, known, n=1, cutoff=0.8)`` did over all of them
        scored = [(difflib.SequenceMatcher(None, k, key).ratio(), k) for k, _ in self._close(key)]
        close = max((pair for pair in scored if pair[0] >= 0.8), default=None)
        if close:
            return self.folded[close[1]]
        prefix = next((key[:n] for n in range(len(key) - 1, 2, -1) if key[:n] in self.folded), None)
        return self.folded[prefix] if prefix else None

    def suggestions(self, name: str, first: str | None = None, most: int = SUGGESTIONS) -> tuple[str, ...]:
        """Up to ``most`` known players ``name`` may be: ``first`` (``looks_like``'s), then the closest."""
        key = name.casefold().strip()
        out = [first] if first else []
        for k, _ in self._close(key):
            if len(out) >= most:
                break
            if self.folded[k] not in out and k != key:
                out.append(self.folded[k])
        return tuple(out)


CLOSE_SCORE = 79.9
"""rapidfuzz's cutoff (0–100) for a name like another: difflib's 0.8, less a rounding margin."""


def looks_like(name: str, known: Sequence[str]) -> str | None:
    """A known player whose name is close to ``name`` (``KnownNames.looks_like``; index once for many)."""
    return KnownNames(known).looks_like(name)


def _ref(value: Any) -> bool:
    """True for a value that can be an id (a number or a text; a list or an object cannot)."""
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _score(text: Any) -> int | None:
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, (int, float)):
        number = float(text)
    else:
        try:
            number = float(str(text).strip().replace(",", ".")[:40])
        except ValueError:
            return None
    # a text score of "1e400" or "nan" is no score (the JSON reader bounds the numbers themselves)
    return int(round(number)) if abs(number) <= 2 ** 53 else None


def _when(text: Any) -> str:
    """``YYYY-MM-DD HH:MM:SS`` (or a date alone) in the app's local time → ISO 8601 UTC."""
    from datetime import datetime
    from companion.dates import iso_utc
    text = str(text or "").strip()
    for shape in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"):
        try:
            return iso_utc(datetime.strptime(text, shape).astimezone())
        except ValueError:
            continue
    raise ValueError(text)


def read_file(data: Any, known: Sequence[str], merge: Mapping[str, str] | None = None,
              recorded: Collection[str] = (), imported: Collection[str] = ()) -> Reading:
    """What importing a BG Stats export would bring: our five games' plays, players matched to the
    known ones by name (any case) or as ``merge`` says ({file name: known name}), the rest counted.
    A play of ours the file carries back (``recorded``: ids of plays our tables recorded here) is
    left as recorded: the table knew more (camera or taps, options, the exact duration). A play
    imported before (``imported``: ids of plays an earlier import wrote) is counted, not brought again."""
    from companion.session.store import PLACEHOLDER_NAME, clean_text
    if not is_file(data):
        raise HistoryError(*both("not a BG Stats export: expected \"games\", \"players\" and \"plays\" lists"))
    merge = {k.casefold().strip(): v for k, v in (merge or {}).items()}
    known_by = {k.casefold(): k for k in known}
    index = KnownNames(known)
    for wanted in merge.values():
        if wanted.casefold() not in known_by:
            raise HistoryError(*both("--merge: {wanted!r} is not a known player (see `companion history "
                                     "players`)", wanted=wanted))
    games = {m.ref: m for m in match_games(data["games"])}
    names = {g["id"]: str(g.get("name") or "?") for g in data["games"] if isinstance(g, dict) and _ref(g.get("id"))}
    players = {p["id"]: p for p in data.get("players") or [] if isinstance(p, dict) and isinstance(p.get("id"), int)}
    # where each play was (our own "Table Companion" is no place: it stands for a location nobody said)
    places = {loc["id"]: clean_location(loc.get("name")) for loc in data.get("locations") or []
              if isinstance(loc, dict) and _ref(loc.get("id")) and loc.get("name") != SOURCE} \
        if isinstance(data.get("locations"), list) else {}
    other: dict[str, int] = {}
    left: dict[str, int] = {}
    unknown: dict[str, int] = {}
    used: dict[int, int] = {}
    plays: list[Play] = []
    for i, raw in enumerate(data["plays"]):
        if not isinstance(raw, dict):
            left["not_a_play"] = left.get("not_a_play", 0) + 1
            continue
        ref = raw.get("gameRefId")
        if not _ref(ref) or ref not in games:   # a list or object id names no game
            name = names.get(ref, f"game {ref}") if _ref(ref) else "?"
            other[name] = other.get(name, 0) + 1
            continue
        match = games[ref]
        if raw.get("ignored"):
            left["ignored"] = left.get("ignored", 0) + 1
            continue
        scores = [s for s in raw.get("playerScores") or [] if isinstance(s, dict) and _ref(s.get("playerRefId"))
                  and s["playerRefId"] in players] if isinstance(raw.get("playerScores"), list) else []
        if not scores:
            left["no_players"] = left.get("no_players", 0) + 1
            continue
        try:
            started = _when(raw.get("playDate"))
        except ValueError:
            left["no_date"] = left.get("no_date", 0) + 1
            continue
        if all(isinstance(s.get("seatOrder"), int) and s["seatOrder"] > 0 for s in scores):
            scores = sorted(scores, key=lambda s: s["seatOrder"])
        seat_names, missing, machine = [], set(), {}
        for k, s in enumerate(scores):
            person = players[s["playerRefId"]]
            name = clean_text(str(person.get("name") or "")) or f"P{k + 1}"
            seat = companion_of_label(name)
            if seat is not None:   # the companion as our export names it: a seat it played, no person
                machine[k], name = seat
                seat_names.append(name)
                continue
            if person.get("isAnonymous") and not PLACEHOLDER_NAME.fullmatch(name):
                name = f"P{k + 1}"   # a seat, not a person: counted for nobody, as our P1, P2, …
            name = merge.get(name.casefold(), known_by.get(name.casefold(), name))
            seat_names.append(name)
        if len({n.casefold() for n in seat_names}) != len(seat_names):
            left["same_person"] = left.get("same_person", 0) + 1
            continue
        points = [_score(s.get("score")) for s in scores]
        if any(p is None for p in points):
            missing.add("scores")
        starts = [bool(s.get("startPlayer")) for s in scores]
        if not any(starts):
            missing.add("start")
        minutes = raw.get("durationMin")
        if not isinstance(minutes, (int, float)) or isinstance(minutes, bool) or minutes <= 0:
            missing.add("duration")
            minutes = 0
        missing.add("moves")
        first = starts.index(True) if any(starts) else 0
        seats = tuple(Seat(k, n, points[k] or 0, bool(s.get("winner")), any(starts) and k == first,
                           companion=machine.get(k))
                      for k, (n, s) in enumerate(zip(seat_names, scores)))
        for k, s in enumerate(scores):
            if k not in machine:
                used[s["playerRefId"]] = used.get(s["playerRefId"], 0) + 1
        ours = match.how == "source" and isinstance(raw.get("sourcePlayId"), str) and raw["sourcePlayId"]
        if ours and raw["sourcePlayId"] in recorded:
            left["already_here"] = left.get("already_here", 0) + 1
            continue
        if ours:
            play_id = raw["sourcePlayId"]
            head, _, tail = play_id.rpartition("-")
            session, number = (head, int(tail)) if head and tail.isdigit() else (None, 1)
        else:
            play_id = f"bgstats-{raw.get('uuid') or stable_uuid('import', json.dumps(raw, sort_keys=True))}"
            session, number = None, 1
        if play_id in imported:
            left["already_imported"] = left.get("already_imported", 0) + 1
            continue
        early = raw.get("comments") == ENDED_EARLY
        for what in missing:
            unknown[what] = unknown.get(what, 0) + 1
        where = raw.get("locationRefId")
        plays.append(Play(play_id, session, number, match.game, {"start_player": first}, started,
                          int(minutes) * 60, early, 0, 0, seats, "bgstats", tuple(sorted(missing)),
                          places.get(where) if _ref(where) else None))
    people = []
    for ref, count in used.items():
        person = players[ref]
        name = clean_text(str(person.get("name") or ""))
        anon = bool(person.get("isAnonymous")) or not name
        target = None if anon else merge.get(name.casefold(), known_by.get(name.casefold()))
        looks = None if anon or target else index.looks_like(name)
        offered = () if anon else tuple(k for k in index.suggestions(name, looks) if k != target)
        people.append(Person(ref, name, count, target, looks, anon, offered))
    people.sort(key=lambda p: (-p.plays, p.name.casefold()))
    return Reading(tuple(games.values()), tuple(people), tuple(plays),
                   tuple(sorted(other.items(), key=lambda kv: (-kv[1], kv[0]))),
                   tuple(sorted(left.items())), tuple(sorted(unknown.items())))
