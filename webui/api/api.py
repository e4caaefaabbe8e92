"""The JSON API: create and join tables, read state, and every write (moves, prompts, host actions).

Every write carries ``version`` (the state it was based on): a stale write gets 409 and changes
nothing; an illegal move 422 with the rule's reason; bad input 400/415/413 with what to send.
"""
from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable, Mapping, NoReturn, Sequence

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from companion import catalogue
from companion.engine import CHANCE, GameError, IllegalMove, Move
from companion.games import GAME_IDS, describe_all, game_class
from companion.players import LEVELS
from companion.session.autoplay import companion_name, companion_name_number, level_words  # noqa: F401 (the pages' helpers)
from companion.session.autoplay import seat_names
from webui.core import guard
from webui.core.common import (ApiError, too_many, Caller, caller, expected_version, fail, get_session, json_body,
                          lang, require_role, session_module, tables, whole_number)
from webui.core.i18n import N_, Text, both, nboth, pick, t
from webui.core.render import move_groups

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_NAME = 40
"""A name as long as the session and the history keep (``clean_text``): the charts wrap a long name
at its line's end, so a table no longer cuts "Alexandra Konstantinopoulou" (27) to 24 characters."""
ODDS_SAMPLES = 200
ODDS_AT_ONCE = 2
"""Tables whose odds are worked out at the same time (each takes a core for a while)."""
ODDS_WAIT = 20.0
"""Seconds an odds request waits for its turn before a 503 that says to ask again."""


@bp.get("/games")
def games() -> Response:
    """Every game with its player counts and options."""
    return jsonify(describe_all())


def _int_field(body: dict[str, Any], name: str, *, required: bool = False,
               minimum: int = 1) -> int | None:
    value = body.get(name)
    if value is None or value == "":
        if required:
            fail(400, both("\"{name}\" is required (a whole number).", name=name))
        return None
    number = whole_number(value)
    if number is None or number < minimum:
        fail(400, both("\"{name}\" must be a whole number of at least {minimum}, got {value!r}.", name=name, minimum=minimum, value=value))
    return number


def create_table(body: dict[str, Any]) -> Any:
    """Create a table from a form or JSON body (game, players, names, options, rounds, target,
    companions, location)."""
    game = body.get("game")
    if game not in GAME_IDS:
        fail(400, both("Unknown game {game!r}: choose one of {games}.", game=game, games=", ".join(GAME_IDS)))
    cls = game_class(game)
    players = _int_field(body, "players", required=True)
    if not cls.min_players <= players <= cls.max_players:
        fail(400, both("{title} is for {count}, got {players}.", title=Text(cls.title, cls.title_ja),
                       count=Text(*cls.player_count()), players=players))
    names = body.get("names") or []
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",")]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        fail(400, both("\"names\" must be a list of strings (or one comma-separated string)."))
    if len(names) > players:
        fail(400, nboth("{given} names for {players} player: give at most one name per seat.",
                        "{given} names for {players} players: give at most one name per seat.", players,
                        given=len(names), players=players))
    companions = companion_seats(body.get("companions"), players)
    clean = session_module().store.clean_text
    names = companion_names([clean(n, MAX_NAME) for n in names], companions, lang())
    names = [(n or f"P{i + 1}") for i, n in enumerate(names)]
    names += [f"P{i + 1}" for i in range(len(names), players)]
    options = body.get("options") or {}
    if not isinstance(options, dict):
        fail(400, both("\"options\" must be a JSON object such as {\"banners\": true}."))
    try:
        cls.validate_options(options, players)
    except GameError as err:
        refuse(400, err)
    if game == "hills" and "hidden_values" not in options and not current_app.config.get("FRAME_SOURCE"):
        # scored by tapping, the app is told each card: no need for the camera's hidden-values mode
        options = dict(options, hidden_values=False)
    rounds = _int_field(body, "rounds")
    target = _int_field(body, "target")
    location = body.get("location")
    if location is not None and not isinstance(location, str):
        fail(400, both("\"location\" must be a text such as \"Café Meeple\"."))
    wait = guard.limit("create").wait(guard.client())
    if wait:
        too_many(wait, both("Too many new tables from this address"))
    try:
        s = tables().create(game, players, names=names, options=options, rounds=rounds,
                            target=target, companions=companions, location=location)
    except (GameError, session_module().SessionError) as err:
        refuse(400, err)
    guard.table_created(s.id)
    return s


def check_companion_seat(seat: int, players: int) -> None:
    """Refuse (400) a companion seat that is not at a table of ``players``."""
    if not 0 <= seat < players:
        raise ApiError(400, both("Seat {seat} is not at this table of {players}.", seat=seat + 1, players=players))


def companion_seats(value: Any, players: int) -> dict[int, str]:
    """The seats a JSON body gives to the companion: ``{"1": "good"}`` (0-based seat → level);
    absent or empty for none. A bad seat or level is refused (400) before anything is stored."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ApiError(400, both("\"companions\" must be an object of seat (0-based) to level, such as "
                                 "{{\"1\": \"good\"}}."))
    wanted: dict[int, str] = {}
    for key, level in value.items():
        seat = key if isinstance(key, int) else int(key) if str(key).isascii() and str(key).isdigit() else None
        if seat is None:
            raise ApiError(400, both("A companion seat is a seat number from 0, got {seat!r}.", seat=key))
        check_companion_seat(seat, players)
        if level not in LEVELS:
            raise ApiError(400, both("Unknown companion level {level!r} for seat {seat}: choose one of {levels}.",
                                     level=level, seat=seat + 1, levels=", ".join(LEVELS)))
        wanted[seat] = level
    return wanted


def companion_names(names: Sequence[str], wanted: Mapping[int, str], lang_: str) -> list[str]:
    """The seat names (``names``: one per seat in order, "" where none was typed) with each companion
    seat nobody named called for it and its level ("Companion (good)"; several seats at one level are
    numbered: "Companion 1 (good)", "Companion 2 (good)"). A name the app gave a companion seat
    before (a rematch after the host changed the seats) counts as no name: a seat now at strong is not
    called "Companion (good)", and a seat given back to a person is not called "Companion" at all."""
    out = [("" if named_for_companion(n) else n) for n in names]
    out += [""] * (max(wanted, default=-1) + 1 - len(out))
    return seat_names(out, wanted, [seat for seat in wanted if not out[seat].strip()], lang_)


def named_for_companion(name: str, level: str | None = None) -> bool:
    """True when ``name`` is a name a companion seat at ``level`` (None: any level) gets when nobody
    names it (in either language, numbered or not): a page then need not add "companion" to it."""
    return companion_name_number(name, level) is not False


def refuse(status: int, err: GameError | IllegalMove, *, names: Sequence[str] = (),
           names_ja: Sequence[str] | None = None, **extra: Any) -> NoReturn:
    """Answer a refusal of the rules or the session in the page's language: ``error`` is the
    Japanese words when wanted and given, ``reason`` and ``ja`` carry both, ``rule`` cites the rule;
    with ``names``, seats are named as the table named them ("Ben's turn", not "player 2's"; in the
    Japanese by ``names_ja``, default ``names``)."""
    from companion.session.table import name_seats
    reason = name_seats(err.reason if isinstance(err, IllegalMove) else str(err), names)
    ja = name_seats(getattr(err, "ja", ""), names if names_ja is None else names_ja)
    if isinstance(err, IllegalMove):
        extra["rule"] = err.rule
    fail(status, pick(reason, ja, lang()), reason=reason, ja=ja, **extra)


def join_url(table_id: str) -> str:
    """The URL a phone opens to join (the join QR encodes it)."""
    s = get_session(table_id)
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return base.rstrip("/") + url_for("phone.join", code=s.code)


@bp.post("/tables")
def new_table() -> tuple[Response, int]:
    """Create a table; the answer carries the host token (keep it) and the join code."""
    s = create_table(json_body())
    return jsonify({"id": s.id, "code": s.code, "version": s.version,
                    "host_token": tables().host_token(s.id), "join_url": join_url(s.id),
                    "host_url": url_for("host.table", table_id=s.id)}), 201


def find_table(code: str) -> str | None:
    """The table of a join code; wrong codes count against this client's join limit (429 once it
    is spent, whatever the code, unless it is a table this address has joined already: that tells
    a guesser nothing it did not know)."""
    wait = guard.limit("join").wait(guard.client())
    table_id = tables().find(code)
    if wait and not (table_id is not None and guard.joined_before(table_id)):
        too_many(wait, both("Too many wrong codes from this address"))
    if table_id is None:
        guard.limit("join").spend(guard.client())
    return table_id


def new_phone(table_id: str, name: Any) -> str:
    """Register a phone that found the table (counted per table and address: 429 past the limit);
    its token."""
    wait = guard.limit("phones").wait(f"{table_id} {guard.client()}")
    if wait:
        too_many(wait, both("Too many phones joined this table from this address"))
    token = tables().join(table_id, phone_label(name, table_id))
    guard.phone_joined(table_id)
    return token


def phone_label(name: Any, table_id: str) -> str:
    """The name a joining phone gives (cleaned), else "phone N"."""
    clean = session_module().store.clean_text(name, MAX_NAME) if isinstance(name, str) else ""
    return clean or f"phone {len(tables().store.phones(table_id)) + 1}"


@bp.post("/join")
def join() -> Response:
    """Exchange a join code for the table's id and this phone's own token (it then claims a seat)."""
    body = json_body()
    code = body.get("code")
    if not isinstance(code, str) or not code.strip() or len(code) > 20:
        fail(400, both("Send {\"code\": \"K7Q2\"}: the short code shown on the host screen."))
    table_id = find_table(code)
    if table_id is None:
        fail(404, both("No table has the code {code!r}. Check the host screen.", code=code.strip().upper()))
    token = new_phone(table_id, body.get("name"))
    return jsonify({"id": table_id, "token": token,
                    "url": url_for("phone.table", table_id=table_id)})


def seat_param(s: Any, who: Caller) -> None:
    """Refuse a ``?seat=`` that is not the caller's own seat: a phone sees only its own hand."""
    raw = request.args.get("seat", "")
    if raw in ("", "all", "none"):
        return
    seat = whole_number(raw)
    if seat is None or not 0 <= seat < s.players:
        fail(400, both("\"seat\" must be 0–{last}.", last=s.players - 1))
    if who.viewer.seat != seat:
        fail(403, both("A phone sees only the seat it holds; the host frees or moves seats."))


def state_for(s: Any, viewer: Any, language: str) -> dict[str, Any]:
    """The state as ``viewer`` may see it, plus its move buttons as labelled groups."""
    st = session_module().view.view_for(s, viewer, language)
    moves = st["legal_moves"] + st["chance_moves"]
    if (s.game_id == "prussia" and getattr(s.game, "phase", None) == "deal"
            and not st["prompts"] and (viewer.moves_for_everyone
                                       or session_module().view.chance_seat(s.game) == viewer.seat)):
        # two players dealt real cards at the table: the app need not know the hands
        moves.append({"player": CHANCE, "kind": "deal"})
    st["groups"] = [{"title": title, "moves": moves}
                    for title, moves in move_groups(s.game, moves, st, language)]
    return st


@bp.get("/tables/<table_id>/state")
def state(table_id: str) -> Response:
    """The state as this phone (or the host) may see it (fetched by version after a push)."""
    who = require_role(table_id, "player", allow_cookie=True)
    s = get_session(table_id)
    seat_param(s, who)
    return jsonify(state_for(s, who.viewer, lang()))


def _check_cards(s: Any, move: Move) -> None:
    """Refuse unknown cards and cards of another game with a clear message."""
    for key, value in move.to_json().items():
        if key != "card" or value is None:
            continue
        if not isinstance(value, str):
            fail(400, both("\"card\" must be a card id such as W-R5, got {value!r}.", value=value))
        try:
            info = catalogue.card(value)
        except (KeyError, ValueError):
            fail(400, both("Unknown card {value!r}: card ids look like W-R5, H-B9, S-G10, P-H8, C03-7-2.", value=value))
        if info.game != s.game_id:
            fail(400, both("{value} is a card of {game}, but this table plays {game_id}.", value=value, game=info.game, game_id=s.game_id))


WriteAction = Callable[[Any, int, dict[str, Any], Caller], Any]


def _write(table_id: str, role: str, action: WriteAction, *, versioned: bool = True) -> tuple[Response, int]:
    """Run one write under the table's lock and turn the session's refusals into 4xx answers.

    The version is checked first, before any other precondition: a stale or repeated write is a
    409 whatever else is wrong with it."""
    session = session_module()
    who = require_role(table_id, role)
    if who.role == "watch":
        fail(403, both("Claim a seat first (or ask the host): a phone that only watches cannot change the "
                       "game."))
    body = json_body()
    version = expected_version(body) if versioned else -1
    s = get_session(table_id)
    tables().note("write posted", table_id, version + 1)
    # the commit reaches the disk as the block ends: the phones draw the new version meanwhile,
    # the writer is answered after (the fsync was the tail of a tap: issue 23)
    with tables().store.sync_after():
        with tables().lock(table_id):
            tables().note("write locked", table_id, version + 1)
            s.refresh()
            if versioned and version != s.version:
                fail(409, both(STALE, seen=version, version=s.version), version=s.version, stale=True)
            try:
                result = action(s, version, body, who)
            except session.StaleVersion as err:
                fail(409, both(STALE, seen=err.expected, version=s.version), version=s.version, stale=True)
            except IllegalMove as err:
                refuse(422, err, names=s.names, names_ja=s.names_in("ja"), version=s.version)
            except (GameError, session.SessionError) as err:
                refuse(400, err, names=s.names, names_ja=s.names_in("ja"), version=s.version)
            new_version = s.version
        tables().note("write done", table_id, new_version)
        tables().changed(table_id)
    tables().note("synced", table_id, new_version)
    out: dict[str, Any] = {"version": new_version}
    if isinstance(result, list):
        out["events"] = [e.to_json() if hasattr(e, "to_json") else e for e in result]
    elif isinstance(result, Move):
        out["move"] = result.to_json()
    elif isinstance(result, dict):
        out.update(result)
    elif result is not None:
        out["result"] = result.to_json() if hasattr(result, "to_json") else str(result)
    return jsonify(out), 200


STALE = N_("The table changed (you saw version {seen}, it is now {version}); reload and try again.")
"""A write based on an older state than the table's (refused: the phone reloads)."""


def _parse_move(s: Any, data: Any, *, seats_only: bool = False) -> Move:
    try:
        move = Move.from_json(data)
    except GameError as err:
        why = Text(str(err), err.ja or t("The move is not in the right form", "ja"))
        fail(400, both("{why}. Send {{\"move\": {{\"player\": 0, \"kind\": \"take\", \"card\": \"W-R5\"}}, "
                       "\"version\": N}}.", why=why))
    lowest = 0 if seats_only else CHANCE
    if not isinstance(move.player, int) or isinstance(move.player, bool) or not lowest <= move.player < s.players:
        said = (N_("\"player\" must be a seat 0–{last}, got {player!r}.") if seats_only else
                N_("\"player\" must be a seat 0–{last} (or -1 for a card the table turned over), got {player!r}."))
        fail(400, both(said, last=s.players - 1, player=move.player))
    _check_cards(s, move)
    return move


REFUSED_MOVE = {
    "chance": N_("A card turned over at the table is entered on the phone of the seat that turned it "
                 "over ({turner}), or by the host or the table's scorekeeper."),
    "other": N_("Your phone holds {mine}: it moves only for {mine}. Ask the host for the table role (one "
                  "shared phone) if one phone should enter everyone's moves."),
    "watch": N_("Claim a seat first: a phone that only watches cannot move."),
}


def who_says(s: Any, who: Caller) -> str:
    """How the log and the host's page name a caller: the seat's name for a seat's phone."""
    if who.viewer.seat is not None and 0 <= who.viewer.seat < len(s.names):
        return s.names[who.viewer.seat]
    return who.label


def check_mover(s: Any, who: Caller, move: Move) -> None:
    """Refuse (403) a move this caller may not enter: a seat's phone moves only for its seat."""
    view = session_module().view
    why = view.may_move(s.game, who.viewer, move, s.companions)
    if why:
        mine = s.names[who.viewer.seat] if who.viewer.seat is not None else "?"
        turner = view.chance_seat(s.game)
        fail(403, both(REFUSED_MOVE[why], mine=mine, turner=s.names[turner] if turner is not None else "—"))


@bp.post("/tables/<table_id>/move")
def move(table_id: str) -> tuple[Response, int]:
    """Play a tapped move (or enter the card the table drew, as a chance move)."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        m = _parse_move(s, body.get("move"))
        check_mover(s, who, m)
        return s.play(m, by=who_says(s, who), expected_version=version)
    return _write(table_id, "player", act)


@bp.post("/tables/<table_id>/deal")
def deal(table_id: str) -> tuple[Response, int]:
    """Let the app shuffle or draw: a random chance move (for a table without a camera)."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        if not s.game.is_chance_node():
            fail(409, both("No shuffle or draw is due now: a player is to move."), version=s.version)
        m = s.game.sample_chance(random.Random())
        check_mover(s, who, m)
        return s.play(m, by=f"app ({who_says(s, who)})", expected_version=version)
    return _write(table_id, "player", act)


@bp.post("/tables/<table_id>/answer")
def answer(table_id: str) -> tuple[Response, int]:
    """Answer an open prompt: {"prompt": id, "choice": id, "version": N}."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        prompt, choice = body.get("prompt"), body.get("choice")
        if not isinstance(prompt, str) or not isinstance(choice, str):
            fail(400, both("Send {\"prompt\": id, \"choice\": id, \"version\": N} (ids from the state's prompts)."))
        shown = next((p for p in session_module().view.view_for(s, who.viewer)["prompts"]
                      if p["id"] == prompt), None)
        if shown is not None and shown.get("hidden"):
            fail(403, both("This question names cards you may not see: the host or the scorekeeper answers "
                           "it."))
        if shown is not None and shown.get("kind") == "confirm" and choice not in {c["id"] for c in shown["choices"]}:
            fail(403, both("Only {name}'s phone answers this: it alone sees the card.",
                           name=s.names[shown["seat"]]))
        return s.answer(prompt, choice, by=who_says(s, who), expected_version=version)
    return _write(table_id, "player", act)


@bp.post("/tables/<table_id>/undo-request")
def undo_request(table_id: str) -> tuple[Response, int]:
    """A phone asks the host to take back its own last move (the scorekeeper: the last move); the
    host's page shows who asks for which move, with accept and decline."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        asker = f"{table_id} {who.phone['phone'] if who.phone else 'host'}"
        wait = guard.limit("undo").wait(asker)
        if wait:
            too_many(wait, both("Too many undo requests from this phone"))
        guard.limit("undo").spend(asker)
        target, moves = s.last_moves_of(who.viewer.seat)
        if not moves:
            fail(400, both("There is no move of yours to take back in this game."))
        phone = who.phone["phone"] if who.phone else "host"
        tables().request_undo(table_id, phone, {
            "phone": phone, "by": who_says(s, who), "seat": who.viewer.seat, "version": version,
            "target": target, "moves": [m.to_json() for m in moves], "asked": time.time()})
        return {"requested": True}
    return _write(table_id, "player", act)


@bp.post("/tables/<table_id>/undo")
def undo(table_id: str) -> tuple[Response, int]:
    """Take back the last move: the host always; a player its own last turn until the next player
    acts (Board Game Arena's rule); the scorekeeper the last move it may enter. Anyone else asks.
    The host accepting a request (``{"phone": id}``) takes back every move back to and including
    the asker's as one undo in the log ("Ann's move was taken back")."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        if who.role != "host":
            last = s.last_turn()
            mine = last and all(session_module().view.may_move(s.game, who.viewer, m, s.companions) is None
                                for m in last)
            if not mine:
                fail(403, both("You may take back only your own last move, before the next player acts. Ask "
                               "the host to undo instead."))
        asked = body.get("phone")
        if who.role == "host" and isinstance(asked, str):
            request_ = next((r for r in tables().pending_undos(table_id) if r["phone"] == asked), None)
            if request_ is None:
                fail(404, both("That undo request is gone (declined, or a move was undone since)."))
            if request_["version"] != version:
                fail(409, both("The game moved on since the request: decline it, or undo by hand."), version=s.version)
            # one undo entry for all the moves back to the asker's, and the request settled in
            # the same transaction: a restart never finds it half done
            undone = s.undo_back_to(request_["target"], asked_by=request_["by"], expected_version=version,
                                    after=lambda db: tables().store.drop_undo_requests(table_id, db=db))
            result = {"undone": [m.to_json() for m in undone]}
        else:
            result = s.undo(by=who_says(s, who), expected_version=version)
        tables().settle_undos(table_id)
        return result
    return _write(table_id, "player", act)


@bp.post("/tables/<table_id>/undo-decline")
def undo_decline(table_id: str) -> tuple[Response, int]:
    """Host: decline a phone's undo request: {"phone": id, "version": N}."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        phone = body.get("phone")
        if not isinstance(phone, str):
            fail(400, both("Send {\"phone\": id, \"version\": N} (the id from the undo request)."))
        tables().settle_undos(table_id, phone)
        return {"declined": phone}
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/override")
def override(table_id: str) -> tuple[Response, int]:
    """Host: apply a move as a house ruling, with a reason that goes into the log."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        reason = body.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            fail(400, both("An override needs a \"reason\" (it is logged as a house ruling)."))
        return s.override(_parse_move(s, body.get("move"), seats_only=True), reason=reason.strip()[:200],
                          expected_version=version)
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/correct")
def correct(table_id: str) -> tuple[Response, int]:
    """Host: replace the last move by another (a misread or mistapped card), checked and logged."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        move = _parse_move(s, body.get("move"))
        last = s.game.log[-1:]
        if last and last[0].player >= 0 and move.player >= 0 and move.player != last[0].player:
            # the picker opens at the seat to move (an override's seat): the engine's "it is Ben's
            # turn, not Dai's" did not say that the correction must be the last mover's move
            seat = last[0].player
            fail(422, both("The last move was {name}'s: to replace it, choose a move of {name}'s (their tab in "
                           "the picker).", name=Text(s.names[seat], s.names_in("ja")[seat])), version=s.version)
        asked = _asked_of_seat(table_id, s, move)
        if asked is not None:
            prompt = s.ask_to_confirm(asked, by="host", expected_version=version)
            return {"asked": prompt.seat, "prompt": prompt.id}
        return s.correct(move, by="host", expected_version=version)
    return _write(table_id, "host", act)


def _asked_of_seat(table_id: str, s: Any, move: Move) -> Move | None:
    """The correction to ask of the last mover's phone instead of making it (None: make it): the
    last move names a card the host may not see (a Seven Hills card laid face down) and a phone
    holds that seat. A correction naming no card ("a face-down card at hill 4") keeps the card
    the seat laid: only its phone knows which."""
    view = session_module().view
    last = s.game.log[-1:]
    if not last or last[0].player < 0 or last[0].player != move.player:
        return None
    if not view.names_hidden(last[0].to_json(), view.hidden_cards(s.game, view.HOST)):
        return None
    if not any(p["role"] == "seat" and p["seat"] == move.player for p in tables().store.phones(table_id)):
        return None
    if move.get("card") is None and isinstance(last[0].get("card"), str):
        move = Move.of(move.player, move.kind, **dict(dict(move.params), card=last[0].get("card")))
    return move


@bp.post("/tables/<table_id>/next")
def next_game(table_id: str) -> tuple[Response, int]:
    """Host: start the next game of the series."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        return s.next_game(by="host", expected_version=version)
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/end")
def end_game(table_id: str) -> tuple[Response, int]:
    """Host: end the current game early (it is late, someone leaves): scores as they stand."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        return s.end_game(by="host", expected_version=version)
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/observe")
def observe(table_id: str) -> tuple[Response, int]:
    """Host/camera: a stable observation of the table (same shape as the game's layout); it is a
    picture of the table, not based on a version, so the session reconciles it with the log."""
    def act(s: Any, version: int, body: dict[str, Any], who: Caller) -> Any:
        observation = body.get("observation")
        if not isinstance(observation, dict):
            fail(400, both("Send {\"observation\": {...layout keys...}, \"version\": N}."))
        return s.observe(observation, source=str(body.get("source") or "camera")[:40])
    return _write(table_id, "host", act, versioned=False)


def seats_of(table_id: str, s: Any) -> list[dict[str, Any]]:
    """Each seat with the phone that holds it (None if free): what the host's page lists."""
    holders = {p["seat"]: p for p in tables().store.phones(table_id) if p["role"] == "seat"}
    return [{"seat": i, "name": n, "phone": holders.get(i)} for i, n in enumerate(s.names_in(lang()))]


@bp.post("/tables/<table_id>/seat")
def claim_seat(table_id: str) -> tuple[Response, int]:
    """A joined phone claims one free seat: {"seat": N}. Only the host frees or moves it later."""
    who = require_role(table_id, "player")
    body = json_body()
    s = get_session(table_id)
    if who.phone is None:
        fail(400, both("The host has no seat of its own: join from your phone (or this browser's join page) "
                       "to play a seat."))
    seat = whole_number(body.get("seat"))
    if seat is None or not 0 <= seat < s.players:
        fail(400, both("Send {{\"seat\": N}} with N from 0 to {last}.", last=s.players - 1))
    if who.role != "watch":
        fail(409, both("This phone already has a role at this table; the host frees or moves seats."))
    if seat in s.companions:
        fail(409, both("The companion plays this seat: tap your own name (the host can change the "
                       "companion's seats between games)."))
    if (table_id, who.phone["phone"]) in freed_phones():
        fail(409, both("The host freed this phone's seat: ask the host to give you a seat."))
    try:
        tables().store.set_phone(table_id, who.phone["phone"], "seat", seat, only_if_role="watch")
    except session_module().SessionError as err:
        if any(p["role"] == "seat" and p["seat"] == seat for p in tables().store.phones(table_id)):
            # two phones tapped one name at once: the slower one is told whose seat, and what to do
            fail(409, both("{name}'s seat was just taken by another phone: tap your own name, or ask the host.",
                           name=Text(s.names[seat], s.names_in("ja")[seat])))
        refuse(409, err)
    tables().hub.poke(table_id)
    return jsonify({"seat": seat, "name": s.names_in(lang())[seat]}), 200


def freed_phones() -> set[tuple[str, str]]:
    """(table, phone) of the phones whose seat the host freed (kept in memory, like the limits)."""
    return current_app.extensions.setdefault("freed_phones", set())


@bp.get("/tables/<table_id>/phones")
def phones(table_id: str) -> Response:
    """Host: the joined phones and who holds which seat."""
    require_role(table_id, "host", allow_cookie=True)
    s = get_session(table_id)
    return jsonify({"phones": tables().store.phones(table_id), "seats": seats_of(table_id, s)})


@bp.post("/tables/<table_id>/phones")
def manage_phone(table_id: str) -> tuple[Response, int]:
    """Host: {"phone": id, "role": "seat"|"table"|"watch"|"remove", "seat": N}: give a phone a
    seat (reassign), make it the table's scorekeeper, free its seat, or forget it (its token stops
    working)."""
    require_role(table_id, "host")
    body = json_body()
    s = get_session(table_id)
    phone, role = body.get("phone"), body.get("role")
    known = {p["phone"] for p in tables().store.phones(table_id)}
    if not isinstance(phone, str) or phone not in known:
        fail(404, both("No phone {phone!r} at this table (see GET /api/tables/{table_id}/phones).", phone=phone,
                       table_id=table_id))
    if role not in ("seat", "table", "watch", "remove"):
        fail(400, both("\"role\" is one of seat, table, watch, remove."))
    seat = None
    if role == "seat":
        seat = whole_number(body.get("seat"))
        if seat is None or not 0 <= seat < s.players:
            fail(400, both("\"seat\" must be 0–{last}.", last=s.players - 1))
    try:
        if role == "remove":
            tables().store.remove_phone(table_id, phone)
        else:
            tables().store.set_phone(table_id, phone, role, seat)
    except session_module().SessionError as err:
        refuse(409, err)
    # a phone the host freed does not claim a seat again by itself (only the host gives it one)
    (freed_phones().add if role == "watch" else freed_phones().discard)((table_id, phone))
    tables().settle_undos(table_id, phone) if role == "remove" else tables().hub.poke(table_id)
    return jsonify({"phones": tables().store.phones(table_id), "seats": seats_of(table_id, s)}), 200


@bp.get("/tables/<table_id>/odds")
def odds(table_id: str) -> Response:
    """Prussia (solo): the odds of each result for each choice of the decision now."""
    who = require_role(table_id, "player", allow_cookie=True)
    s = get_session(table_id)
    why = session_module().view.may_see_odds(s, who.viewer)
    if why:
        fail(400, str(why), ja=why.ja)
    from companion.advise import advice
    with tables().lock(table_id):
        game, version = s.game.clone(), s.version
    # the odds of one version are the same for every asker: one computation per table at a time,
    # at most ODDS_AT_ONCE tables at once, the answer kept (16 askers at once slowed /health to 2 s)
    state = current_app.extensions.setdefault("odds", {"cache": {}, "locks": {},
                                                        "slots": threading.BoundedSemaphore(ODDS_AT_ONCE)})
    lock = state["locks"].setdefault(table_id, threading.Lock())
    if not lock.acquire(timeout=ODDS_WAIT):
        fail(503, both("The odds are being worked out for this table; ask again in a moment."), retry_after=2)
    try:
        report = state["cache"].get((table_id, version))
        if report is None:
            if not state["slots"].acquire(timeout=ODDS_WAIT):
                fail(503, both("The server is working out other tables' odds; ask again in a moment."), retry_after=2)
            try:
                report = advice(game, samples=ODDS_SAMPLES)
            except GameError as err:
                refuse(400, err)
            finally:
                state["slots"].release()
            if len(state["cache"]) > 256:
                state["cache"].clear()
            state["cache"][(table_id, version)] = report
    finally:
        lock.release()
    language, seat = lang(), game.current_player()
    kind = {"place": ("place", "slot"), "joker": ("discard", "card")}.get(report["decision"])
    labels = {}
    for choice in report["odds"]:   # each choice in the words of the move buttons
        if kind is None:
            labels[choice] = t("The next draw", language)
        else:
            words = game.describe_move(Move.of(seat, kind[0], **{kind[1]: choice}), short=True)
            labels[choice] = pick(words, words.ja, language)
    columns = [t(N_("win"), language), t(N_("draw"), language), t(N_("defeat"), language)]
    return jsonify(dict(report, labels=labels, columns=columns))


@bp.get("/tables/<table_id>/export")
def export(table_id: str) -> Response:
    """The session's games as JSON and the BG Stats link; a game in play is redacted for everyone
    but the host (``companion.session.view.export_for``)."""
    from companion.history import bgstats
    who = require_role(table_id, "player", allow_cookie=True)
    s = get_session(table_id)
    with tables().lock(table_id):
        data = session_module().view.export_for(s, who.viewer)
        try:
            data = dict(data, bgstats=bgstats.session_link(s))
        except session_module().SessionError:  # no game finished yet: no BG Stats play to push
            data = dict(data, bgstats=None)
    return jsonify(data)


