"""The per-seat leak walk: for each game, a real server on loopback, one phone per seat (and one
that only watches) and the host turning cards over; after every step every JSON, HTML and SSE
answer each phone can get is scanned for a card that phone may not see.

What a seat may not see comes from the engine, not from the server's own rule
(``companion.session.view.hidden_cards``): the cards any *other* seat's ``player_view`` shows
(its hand), plus Spartacus' face-down won tricks while the game is on, minus everything this
seat's own ``player_view`` shows. One reading: Seven Hills' ``player_view`` also lists the other
colour's unseen cards (a set anyone can count); the server leaves that list out of a seat's view,
since beside a hand or a hill it reads as "these are where they are", so the walk counts it as not
seen. A card id also covers its QR payload (``TC:`` + id).
"""
from __future__ import annotations

import http.client
import json
import random
import re
import socket
from typing import Any

import pytest

from companion import catalogue
from companion.session import Store, TableSession
from tests.web_helpers import Live, make_app
from webui.server import RunningServer

CARD_IDS = {c.id for c in catalogue.all_cards()}
STEPS = 36


def _ids(value: Any) -> set[str]:
    """Every card id named anywhere in JSON ``value``."""
    if isinstance(value, str):
        return {value} if value in CARD_IDS else set()
    if isinstance(value, dict):
        return set().union(*(_ids(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(_ids(v) for v in value)) if value else set()
    return set()


def _seat_view(game: Any, seat: int) -> dict[str, Any]:
    view = game.player_view(seat)
    if game.id == "hills" and isinstance(view.get("unseen"), dict):
        view = dict(view, unseen={view["colour"]: view["unseen"][view["colour"]]})
    return view


def forbidden(game: Any, seat: int | None) -> set[str]:
    """The card ids seat ``seat`` (None: a watcher) may not see now, derived from the engine."""
    seats = range(game.players)
    others = set().union(*(_ids(game.player_view(s)) for s in seats if s != seat))
    if game.id == "spartacus" and not game.is_over():
        others |= {c for piles in game.piles for p in piles for c in p["cards"]}
    mine = _ids(_seat_view(game, seat)) if seat is not None else _ids(game.layout())
    return others - mine


def _leaks(text: str, cards: set[str]) -> list[str]:
    return [c for c in cards if re.search(rf"(?<![A-Za-z0-9-]){re.escape(c)}(?![A-Za-z0-9])", text)]


def _sse_head(live: Live, table_id: str, token: str) -> str:
    """The first bytes of the phone's event stream (it should carry version numbers only)."""
    conn = http.client.HTTPConnection(live.host, live.port, timeout=5)
    try:
        conn.request("GET", f"/api/tables/{table_id}/events?since=-1&token={token}")
        resp = conn.getresponse()
        assert resp.status == 200
        data = b""
        try:
            while b"event: version" not in data or not data.endswith(b"\n\n"):
                chunk = resp.read1(4096)
                if not chunk:
                    break
                data += chunk
        except (socket.timeout, TimeoutError):
            pass
        return data.decode()
    finally:
        conn.close()


def _answers(live: Live, table: dict[str, Any], token: str, game_id: str, odds: bool) -> dict[str, str]:
    tid = table["id"]
    out = {"state": live.request("GET", f"/api/tables/{tid}/state", token=token),
           "page": live.request("GET", f"/t/{tid}?token={token}"),
           "view": live.request("GET", f"/t/{tid}/view?token={token}"),
           "export": live.request("GET", f"/api/tables/{tid}/export", token=token)}
    if odds:   # a Monte Carlo run each: every sixth step is enough
        out["odds"] = live.request("GET", f"/api/tables/{tid}/odds", token=token)
    texts = {}
    for name, (status, _, body) in out.items():
        assert status in (200, 400) if name == "odds" else status == 200, (name, status, body[:200])
        texts[name] = body.decode()
    return texts


def _step(live: Live, table: dict[str, Any], phones: dict[int, str], rng: random.Random) -> bool:
    """One move: the host turns a card over or answers a prompt, else the mover's own phone taps."""
    host = table["host_token"]
    st = live.state(table, host)
    if st["is_over"]:
        return False
    tid, v = table["id"], st["version"]
    if st["prompts"]:
        p = st["prompts"][0]
        status, answer = live.json("POST", f"/api/tables/{tid}/answer",
                                   {"version": v, "prompt": p["id"], "choice": p["choices"][0]["id"]}, host)
    elif st["current_player"] == -1:
        status, answer = live.json("POST", f"/api/tables/{tid}/deal", {"version": v}, host)
    else:
        mine = live.state(table, phones[st["current_player"]])
        assert mine["legal_moves"], mine
        status, answer = live.json("POST", f"/api/tables/{tid}/move",
                                   {"version": v, "move": rng.choice(mine["legal_moves"])},
                                   phones[st["current_player"]])
    assert status == 200, answer
    return True


@pytest.mark.parametrize("game_id, players, options", [
    ("wheel", 3, {}),
    ("hills", 2, {"hidden_values": False}),
    ("hills", 2, {"hidden_values": True}),
    ("spartacus", 3, {}),
    ("prussia", 1, {}),
    ("prussia", 2, {}),
    ("chains", 2, {}),
])
def test_no_answer_shows_a_seat_a_card_it_may_not_see(tmp_path, game_id, players, options):
    app = make_app(tmp_path)
    rng = random.Random(13)
    checked = 0
    with RunningServer(app) as srv:
        live = Live(srv)
        table = live.new_table(game_id, players, options=options)
        phones = {seat: live.seat(table, seat) for seat in range(players)}
        viewers = dict(phones, watch=live.join(table, "watcher"))
        store = Store(app.config["DB"])
        session = TableSession.open(store, table["id"])
        for step in range(STEPS + 1):
            game = session.refresh().game
            for who, token in viewers.items():
                hidden = forbidden(game, None if who == "watch" else who)
                checked += len(hidden)
                texts = _answers(live, table, token, game_id, game_id == "prussia" and step % 6 == 0)
                if step in (0, STEPS):
                    texts["events"] = _sse_head(live, table["id"], token)
                for name, text in texts.items():
                    leaked = _leaks(text, hidden)
                    assert not leaked, f"{game_id} step {step}: {who} sees {leaked} in {name}"
            if step < STEPS and not _step(live, table, phones, rng):
                break
        # the seat's own hidden cards do reach it (the walk would pass vacuously otherwise)
        st = live.state(table, phones[0])
        assert json.loads(live.request("GET", f"/api/tables/{table['id']}/state", token=phones[0])[2]) == st
    if game_id in ("hills", "spartacus") or (game_id == "prussia" and players == 2):
        assert checked > 0, "nothing was hidden: the walk proved nothing"
