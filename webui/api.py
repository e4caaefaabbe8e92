"""The JSON API: create and join tables, read state, and every write (moves, prompts, host actions).

Every write carries ``version`` (the state it was based on): a stale write gets 409 and changes
nothing; an illegal move 422 with the rule's reason; bad input 400/415/413 with what to send.
"""
from __future__ import annotations

import random
from typing import Any, Callable, NoReturn

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from companion import catalogue
from companion.engine import CHANCE, GameError, IllegalMove, Move
from companion.games import GAME_IDS, describe_all, game_class
from webui.common import (ApiError, expected_version, fail, get_session, json_body, lang,
                          require_role, session_module, tables)
from webui.i18n import pick, t
from webui.render import move_groups

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_NAME = 24
ODDS_SAMPLES = 200


@bp.get("/games")
def games() -> Response:
    """Every game with its player counts and options."""
    return jsonify(describe_all())


def _int_field(body: dict[str, Any], name: str, *, required: bool = False,
               minimum: int = 1) -> int | None:
    value = body.get(name)
    if value is None or value == "":
        if required:
            fail(400, f"\"{name}\" is required (a whole number).")
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        fail(400, f"\"{name}\" must be a whole number of at least {minimum}, got {value!r}.")
    return value


def create_table(body: dict[str, Any]) -> Any:
    """Create a table from a form or JSON body (game, players, names, options, rounds, target)."""
    game = body.get("game")
    if game not in GAME_IDS:
        fail(400, f"Unknown game {game!r}: choose one of {', '.join(GAME_IDS)}.")
    cls = game_class(game)
    players = _int_field(body, "players", required=True)
    if not cls.min_players <= players <= cls.max_players:
        fail(400, f"{cls.title} is for {cls.min_players}–{cls.max_players} players, got {players}.")
    names = body.get("names") or []
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",")]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        fail(400, "\"names\" must be a list of strings (or one comma-separated string).")
    if len(names) > players:
        fail(400, f"{len(names)} names for {players} players: give at most one name per seat.")
    names = [(n.strip()[:MAX_NAME] or f"P{i + 1}") for i, n in enumerate(names)]
    names += [f"P{i + 1}" for i in range(len(names), players)]
    options = body.get("options") or {}
    if not isinstance(options, dict):
        fail(400, "\"options\" must be a JSON object such as {\"banners\": true}.")
    try:
        cls.validate_options(options, players)
    except GameError as err:
        refuse(400, err)
    if game == "hills" and "hidden_values" not in options and not current_app.config.get("FRAME_SOURCE"):
        # scored by tapping, the app is told each card: no need for the camera's hidden-values mode
        options = dict(options, hidden_values=False)
    rounds = _int_field(body, "rounds")
    target = _int_field(body, "target")
    try:
        return tables().create(game, players, names=names, options=options, rounds=rounds,
                               target=target)
    except (GameError, session_module().SessionError) as err:
        refuse(400, err)


def refuse(status: int, err: GameError | IllegalMove, **extra: Any) -> NoReturn:
    """Answer a refusal of the rules or the session in the page's language: ``error`` is the
    Japanese words when wanted and given, ``reason`` and ``ja`` carry both, ``rule`` cites the rule."""
    reason = err.reason if isinstance(err, IllegalMove) else str(err)
    ja = getattr(err, "ja", "")
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
                    "host_token": tables().host_token(s.id), "token": tables().join_token(s.id),
                    "join_url": join_url(s.id),
                    "host_url": url_for("host.table", table_id=s.id)}), 201


@bp.post("/join")
def join() -> Response:
    """Exchange a join code for the table's id and a token that lets this phone act on it."""
    code = json_body().get("code")
    if not isinstance(code, str) or not code.strip():
        fail(400, "Send {\"code\": \"K7Q2\"}: the short code shown on the host screen.")
    table_id = tables().find(code)
    if table_id is None:
        fail(404, f"No table has the code {code.strip().upper()!r}. Check the host screen.")
    return jsonify({"id": table_id, "token": tables().join_token(table_id),
                    "url": url_for("phone.table", table_id=table_id)})


def _seat(s: Any) -> int | None:
    seat = request.args.get("seat", "")
    if seat in ("", "all", "none"):
        return None
    if not seat.lstrip("-").isdigit() or not 0 <= int(seat) < s.players:
        fail(400, f"\"seat\" must be 0–{s.players - 1} (or omitted for the whole table).")
    return int(seat)


def state_for(s: Any, seat: int | None, language: str) -> dict[str, Any]:
    """The session state plus the legal moves as labelled groups for the phone."""
    st = s.state(seat)
    moves = (st.get("legal_moves") or []) + (st.get("chance_moves") or [])
    if s.game_id == "prussia" and getattr(s.game, "phase", None) == "deal" and not s.prompts:
        # two players dealt real cards at the table: the app need not know the hands
        moves.append({"player": CHANCE, "kind": "deal"})
    st["groups"] = [{"title": title, "moves": moves}
                    for title, moves in move_groups(s.game, moves, st, language)]
    return st


@bp.get("/tables/<table_id>/state")
def state(table_id: str) -> Response:
    """The full state (fetched by version after a push or a wake-up)."""
    require_role(table_id, "player", allow_cookie=True)
    s = get_session(table_id)
    with tables().lock(table_id):
        return jsonify(state_for(s, _seat(s), lang()))


def _check_cards(s: Any, move: Move) -> None:
    """Refuse unknown cards and cards of another game with a clear message."""
    for key, value in move.to_json().items():
        if key != "card" or value is None:
            continue
        if not isinstance(value, str):
            fail(400, f"\"card\" must be a card id such as W-R5, got {value!r}.")
        try:
            info = catalogue.card(value)
        except (KeyError, ValueError):
            fail(400, f"Unknown card {value!r}: card ids look like W-R5, H-B9, S-G10, P-H8, C03-7-2.")
        if info.game != s.game_id:
            fail(400, f"{value} is a card of {info.game}, but this table plays {s.game_id}.")


def _write(table_id: str, role: str, action: Callable[[Any, int, dict[str, Any]], Any], *,
           versioned: bool = True) -> tuple[Response, int]:
    """Run one write under the table's lock and turn the session's refusals into 4xx answers."""
    session = session_module()
    require_role(table_id, role)
    body = json_body()
    version = expected_version(body) if versioned else -1
    s = get_session(table_id)
    with tables().lock(table_id):
        try:
            result = action(s, version, body)
        except session.StaleVersion as err:
            fail(409, f"{err} The table is now at version {s.version}; reload and try again.",
                 version=s.version)
        except IllegalMove as err:
            refuse(422, err, version=s.version)
        except (GameError, session.SessionError) as err:
            refuse(400, err, version=s.version)
        new_version = s.version
    tables().changed(table_id)
    out: dict[str, Any] = {"version": new_version}
    if isinstance(result, list):
        out["events"] = [e.to_json() if hasattr(e, "to_json") else e for e in result]
    elif isinstance(result, Move):
        out["move"] = result.to_json()
    elif result is not None:
        out["result"] = result.to_json() if hasattr(result, "to_json") else str(result)
    return jsonify(out), 200


def _parse_move(s: Any, data: Any) -> Move:
    try:
        move = Move.from_json(data)
    except GameError as err:
        fail(400, f"{err}. Send {{\"move\": {{\"player\": 0, \"kind\": \"take\", \"card\": \"W-R5\"}}, "
                  f"\"version\": N}}.")
    _check_cards(s, move)
    return move


@bp.post("/tables/<table_id>/move")
def move(table_id: str) -> tuple[Response, int]:
    """Play a tapped move (or enter the card the table drew, as a chance move)."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        return s.play(_parse_move(s, body.get("move")), by=str(body.get("by") or "phone")[:40],
                      expected_version=version)
    return _write(table_id, "player", act)


@bp.post("/tables/<table_id>/deal")
def deal(table_id: str) -> tuple[Response, int]:
    """Let the app shuffle or draw: a random chance move (for a table without a camera)."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        if not s.game.is_chance_node():
            fail(409, "No shuffle or draw is due now: a player is to move.", version=s.version)
        return s.play(s.game.sample_chance(random.Random()), by="app", expected_version=version)
    return _write(table_id, "player", act)


@bp.post("/tables/<table_id>/answer")
def answer(table_id: str) -> tuple[Response, int]:
    """Answer an open prompt: {"prompt": id, "choice": id, "version": N}."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        prompt, choice = body.get("prompt"), body.get("choice")
        if not isinstance(prompt, str) or not isinstance(choice, str):
            fail(400, "Send {\"prompt\": id, \"choice\": id, \"version\": N} (ids from the state's "
                      "prompts).")
        return s.answer(prompt, choice, by=str(body.get("by") or "phone")[:40],
                        expected_version=version)
    return _write(table_id, "player", act)


@bp.post("/tables/<table_id>/undo-request")
def undo_request(table_id: str) -> tuple[Response, int]:
    """A phone asks the host to take back the last move (the host's page shows it)."""
    require_role(table_id, "player")
    body = json_body()
    version = expected_version(body)
    s = get_session(table_id)
    if version != s.version:
        fail(409, f"The table moved on (now version {s.version}); check the last move again.",
             version=s.version)
    tables().request_undo(table_id, str(body.get("by") or "a phone")[:40], version)
    return jsonify({"version": s.version, "requested": True}), 200


@bp.post("/tables/<table_id>/undo")
def undo(table_id: str) -> tuple[Response, int]:
    """Host: take back the last move."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        tables().undo_requests.pop(table_id, None)
        return s.undo(by="host", expected_version=version)
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/override")
def override(table_id: str) -> tuple[Response, int]:
    """Host: apply a move as a house ruling, with a reason that goes into the log."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        reason = body.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            fail(400, "An override needs a \"reason\" (it is logged as a house ruling).")
        return s.override(_parse_move(s, body.get("move")), reason=reason.strip()[:200],
                          expected_version=version)
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/correct")
def correct(table_id: str) -> tuple[Response, int]:
    """Host: replace the last move by another (a misread or mistapped card), checked and logged."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        return s.correct(_parse_move(s, body.get("move")), by="host", expected_version=version)
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/next")
def next_game(table_id: str) -> tuple[Response, int]:
    """Host: start the next game of the series."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        return s.next_game(by="host", expected_version=version)
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/end")
def end_game(table_id: str) -> tuple[Response, int]:
    """Host: end the current game early (it is late, someone leaves): scores as they stand."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        return s.end_game(by="host", expected_version=version)
    return _write(table_id, "host", act)


@bp.post("/tables/<table_id>/observe")
def observe(table_id: str) -> tuple[Response, int]:
    """Host/camera: a stable observation of the table (same shape as the game's layout); it is a
    picture of the table, not based on a version, so the session reconciles it with the log."""
    def act(s: Any, version: int, body: dict[str, Any]) -> Any:
        observation = body.get("observation")
        if not isinstance(observation, dict):
            fail(400, "Send {\"observation\": {...layout keys...}, \"version\": N}.")
        return s.observe(observation, source=str(body.get("source") or "camera")[:40])
    return _write(table_id, "host", act, versioned=False)


@bp.get("/tables/<table_id>/odds")
def odds(table_id: str) -> Response:
    """Prussia (solo): the odds of each result for each choice of the decision now."""
    require_role(table_id, "player", allow_cookie=True)
    s = get_session(table_id)
    if s.game_id != "prussia":
        fail(400, f"Odds are offered for the Prussia game only; this table plays {s.game_id}.")
    from companion.advise import advice
    with tables().lock(table_id):
        game = s.game.clone()
    try:
        report = advice(game, samples=ODDS_SAMPLES)
    except GameError as err:
        refuse(400, err)
    language, seat = lang(), game.current_player()
    kind = {"place": ("place", "slot"), "joker": ("discard", "card")}.get(report["decision"])
    labels = {}
    for choice in report["odds"]:   # each choice in the words of the move buttons
        if kind is None:
            labels[choice] = t("next_draw", language)
        else:
            words = game.describe_move(Move.of(seat, kind[0], **{kind[1]: choice}), short=True)
            labels[choice] = pick(words, words.ja, language)
    columns = [t(f"odds_{c}", language) for c in ("win", "draw", "defeat")]
    return jsonify(dict(report, labels=labels, columns=columns))


@bp.get("/tables/<table_id>/export")
def export(table_id: str) -> Response:
    """The finished game(s) as JSON, and the BG Stats link."""
    require_role(table_id, "player", allow_cookie=True)
    s = get_session(table_id)
    with tables().lock(table_id):
        data = s.export()
        try:
            data = dict(data, bgstats=s.bgstats_link())
        except session_module().SessionError:  # no game finished yet: no BG Stats play to push
            data = dict(data, bgstats=None)
    return jsonify(data)


@bp.errorhandler(ApiError)
def _error(err: ApiError) -> tuple[Response, int]:
    return jsonify({"error": err.message, **err.extra}), err.status
