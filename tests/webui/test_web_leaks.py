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

The host's own screen is walked the same way (it shows no hand by design): its page, view
fragment, state, phone list, the table page opened with its token and its event stream, with an
undo request pending now and then (the host's page words it). Two lists on it name every card
whose place the host does not know and are checked to single nothing out instead: the buttons for
a card the table turns over (the hands' cards alike with the pile's) and the override picker
(every card of a kind). The host's export is the whole record by design and is not scanned.
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
from companion.session.view import chance_seat
from tests.web_helpers import Live, make_app
from webui.core.server import RunningServer

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


def host_forbidden(game: Any) -> set[str]:
    """What the host's screen may not show: what a watcher may not (the host plays too). Reading:
    in Seven Hills with hidden values the engine itself does not know which of a colour's unseen
    cards lie face down and which are in the hand, so naming them (the host's reveal buttons list
    every way a hill could turn up) tells nothing; they are not counted as hidden from the host."""
    hidden = forbidden(game, None)
    if game.id == "hills" and game.options.get("hidden_values"):
        hidden -= {c for seat in range(game.players) for c in game.public_unseen(seat)}
    return hidden


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


def _host_answers(live: Live, table: dict[str, Any]) -> dict[str, str]:
    """Everything the host's screen fetches: its page, view fragment, state, phone list and the
    table page opened with the host's token (the override picker is checked on its own). The host's
    export is the whole record by design (docs/webui.md, "Roles and seats"): not scanned."""
    tid, host = table["id"], table["host_token"]
    cookie = {"Cookie": f"tch_{tid}={host}"}
    out = {"host page": live.request("GET", f"/host/{tid}", headers=cookie),
           "host view": live.request("GET", f"/t/{tid}/view?token={host}"),
           "host state": live.request("GET", f"/api/tables/{tid}/state", token=host),
           "host phones": live.request("GET", f"/api/tables/{tid}/phones", token=host),
           "host table page": live.request("GET", f"/t/{tid}?token={host}")}
    texts = {}
    for name, (status, _, body) in out.items():
        assert status == 200, (name, status, body[:200])
        texts[name] = body.decode()
    assert 'class="hostgrid' in texts["host page"]   # the host's own screen, not a redirect
    return texts


def _singles_out_nothing(named: set[str], game: Any, hidden: set[str], public: set[str], what: str) -> int:
    """A list of cards that names a hidden card is no leak only if it names every card of the game
    in play of that kind and colour that nothing public places (not on the table, never seen
    played): then it singles out nothing a hand holds. Returns the hidden cards named."""
    in_play = _ids(game.snapshot())
    # copies with one face (Prussia's two jokers) are one button: the table tells them not apart,
    # so naming one names them all
    faces = {_face(c) for c in named}
    for card in named & hidden:
        like = catalogue.card(card)
        unseen = {c for c in in_play - public
                  if (catalogue.card(c).kind, catalogue.card(c).colour) == (like.kind, like.colour)}
        missing = {c for c in unseen - named if _face(c) not in faces}
        assert not missing, f"{what} singles out {sorted(missing)[:5]} beside {card}"
    return len(named & hidden)


def _face(card_id: str) -> tuple[Any, ...]:
    """What a card's face shows (two copies of one face are the same card to a player)."""
    c = catalogue.card(card_id)
    return (c.game, c.kind, c.colour, c.value, c.suit, c.rank, c.deck)


def _override_tells_nothing(live: Live, table: dict[str, Any], game: Any, hidden: set[str]) -> int:
    """The host's override picker offers each seat the cards it could hold as the table can tell
    (issue 23): in each seat's tab a hidden card is named only beside every card like it that
    nothing public places. Public: the table's layout and the moves as the host's state names them."""
    status, _, body = live.request("GET", f"/t/{table['id']}/override?token={table['host_token']}")
    assert status == 200
    status, _, state = live.request("GET", f"/api/tables/{table['id']}/state", token=table["host_token"])
    public = _ids(game.layout()) | _ids(json.loads(state)["moves"])
    named = 0
    for panel in body.decode().split('<div class="ov-panel"')[1:]:
        cards = _ids([json.loads(m) for m in re.findall(r"data-move='([^']+)'", panel)])
        named += _singles_out_nothing(cards, game, hidden, public, "the override picker")
    return named


CHANCE_BUTTON = re.compile(r"<button[^>]*data-move='(\{[^']*\"player\": -1[,}][^']*)'[^>]*>.*?</button>", re.S)


def _pool_alike(named: set[str], game: Any, hidden: set[str], what: str) -> None:
    """A list of the cards the table may turn over names the hands' cards alike with the pile's:
    it is the cards whose place the host does not know (the engine's outcomes and the hands),
    sorted by id and cut at the page's limit, so a card left out never sorts before one named."""
    pool = hidden | _ids([m.to_json() for m in game.legal_moves()] if game.is_chance_node() else [])
    assert named <= pool | _ids(game.layout()), (what, sorted(named - pool)[:5])
    if named & hidden:
        last = max(named & pool)
        assert not {c for c in pool - named if c < last}, \
            f"{what} leaves out {sorted(c for c in pool - named if c < last)[:5]}: it tells them apart"


def _without_chance_lists(name: str, text: str, game: Any, hidden: set[str]) -> str:
    """``text`` without the host's buttons for a card the table turns over, which list every card
    whose place the host does not know, hands' cards too (docs/webui.md: the pile alone would tell
    the hands by elimination); that list is checked to single out nothing instead."""
    if name in ("host state", "state"):
        st = json.loads(text)
        chance = [m for m in st["chance_moves"]] + [b["move"] for g in st["groups"] for b in g["moves"]
                                                     if b["move"].get("player") == -1]
        _pool_alike(_ids(chance), game, hidden, "the host's chance moves")
        st["chance_moves"] = []
        st["groups"] = [dict(g, moves=[b for b in g["moves"] if b["move"].get("player") != -1]) for g in st["groups"]]
        return json.dumps(st)
    named = _ids([json.loads(m) for m in CHANCE_BUTTON.findall(text)])
    _pool_alike(named, game, hidden, f"the chance buttons of the {name}")
    return CHANCE_BUTTON.sub("", text)


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
    checked = host_checked = override_named = 0
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
                    if who == chance_seat(game) and name in ("state", "page", "view"):
                        # the seat that turned the card over enters it: its list is checked like the host's
                        text = _without_chance_lists(name, text, game, hidden)
                    leaked = _leaks(text, hidden)
                    assert not leaked, f"{game_id} step {step}: {who} sees {leaked} in {name}"
            # the host's own screen shows no hand either (it shows none by design)
            hidden = host_forbidden(game)
            host_checked += len(hidden)
            texts = _host_answers(live, table)
            if step in (0, STEPS):
                texts["host events"] = _sse_head(live, table["id"], table["host_token"])
            for name, text in texts.items():
                if name != "host events":
                    text = _without_chance_lists(name, text, game, hidden)
                leaked = _leaks(text, hidden)
                where = text[max(0, text.find(leaked[0]) - 200):text.find(leaked[0]) + 60] if leaked else ""
                assert not leaked, f"{game_id} step {step}: the host sees {leaked} in {name}: …{where}…"
            if step % 6 == 0:
                override_named += _override_tells_nothing(live, table, game, hidden)
            if step % 5 == 2:   # a player asks to take back their move: the host's page words it
                v = live.state(table, table["host_token"])["version"]
                for token in phones.values():
                    live.json("POST", f"/api/tables/{table['id']}/undo-request", {"version": v}, token)
            if step < STEPS and not _step(live, table, phones, rng):
                break
        # the seat's own hidden cards do reach it (the walk would pass vacuously otherwise)
        st = live.state(table, phones[0])
        assert json.loads(live.request("GET", f"/api/tables/{table['id']}/state", token=phones[0])[2]) == st
    if game_id in ("hills", "spartacus") or (game_id == "prussia" and players == 2):
        assert checked > 0, "nothing was hidden: the walk proved nothing"
        if not options.get("hidden_values"):
            assert host_checked > 0, "nothing was hidden from the host: its walk proved nothing"
