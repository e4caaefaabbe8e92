"""Issue 20, point 7: a hidden card stays hidden in every game of a series (Flask's test client on
a real SQLite file). Two-player Prussia and Seven Hills series of three games are played to the
end by the seats' own phones (the host ends the second game early, hands still full); at every few steps, and after each new game begins, every answer a
seat or a watcher can fetch (state JSON, export, page, view fragment, the event stream's head) is
scanned for the cards hidden at the end of each earlier game (the other hand's never-played cards).

Card ids come back in the next game's deal, so each part is checked against its own game: the
export's games one by one, the state's events by the game they belong to; the HTML must name no
earlier game's secret that the (checked) JSON does not name too."""
from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from companion.session import Store, TableSession
from companion.session.view import WATCH, Viewer, hidden_cards
from tests.web_helpers import NAMES, make_app
from tests.webui.test_web_leaks import _ids, forbidden

GAMES = 3


def _named(text: str, cards: set[str]) -> set[str]:
    return {c for c in cards if re.search(rf"(?<![A-Za-z0-9-]){re.escape(c)}(?![A-Za-z0-9])", text)}


def _events_by_game(events: list[dict[str, Any]], count: int) -> list[list[dict[str, Any]]]:
    """The state's recent events split by the game each belongs to (the last "next game" starts
    the table's game)."""
    parts: list[list[dict[str, Any]]] = [[] for _ in range(count)]
    index = count - 1
    for e in reversed(events):
        parts[max(index, 0)].append(e)
        if e.get("kind") == "next_game":
            index -= 1
    return parts


def _check(client: Any, table: dict[str, Any], viewers: dict[Any, str], session: Any) -> int:
    """Scan every answer of every viewer; return how many secret cards were checked."""
    engines = [g for g, _, _ in session.refresh()._games()]
    checked = 0
    tid = table["id"]
    for who, token in viewers.items():
        viewer = WATCH if who == "watch" else Viewer.of_seat(who)
        secrets = [hidden_cards(g, viewer) for g in engines[:-1]]   # each earlier game, at its end
        checked += sum(map(len, secrets))
        state = client.get(f"/api/tables/{tid}/state", headers={"X-Table-Token": token}).get_json()
        export = client.get(f"/api/tables/{tid}/export", headers={"X-Table-Token": token}).get_json()
        assert len(export["games"]) == len(engines)
        for k, secret in enumerate(secrets):
            leaked = _ids(export["games"][k]) & secret
            assert not leaked, f"{who} sees game {k + 1}'s {leaked} in the export"
        now = forbidden(engines[-1], None if who == "watch" else who)
        assert not _ids(export["games"][-1]) & now, f"{who}: the table's game in the export"
        for k, part in enumerate(_events_by_game(state["events"], len(engines))):
            hidden = secrets[k] if k < len(secrets) else now
            assert not _ids(part) & hidden, f"{who} sees game {k + 1}'s {_ids(part) & hidden} in /state events"
        # the rest of the table game's state is test_web_leaks' walk (with its chance-list reading)
        said = _ids(state) | _ids(export)   # checked above, game by game
        suspects = set().union(*secrets) - said if secrets else set()
        for path in (f"/t/{tid}?token={token}", f"/t/{tid}/view?token={token}"):
            html = client.get(path).get_data(as_text=True)
            assert not _named(html, suspects), f"{who} sees an earlier game's {_named(html, suspects)} in {path}"
        stream = client.get(f"/api/tables/{tid}/events?since=-1&token={token}", buffered=False)
        head = b"".join(next(stream.response) for _ in range(2)).decode()
        stream.close()
        assert not _named(head, set().union(*secrets, now)), "an event stream named a card"
    return checked


def _host(client: Any, table: dict[str, Any]) -> dict[str, Any]:
    return client.get(f"/api/tables/{table['id']}/state", headers={"X-Table-Token": table["host_token"]}).get_json()


@pytest.mark.parametrize("game_id, options", [("prussia", {}), ("hills", {"hidden_values": False})])
def test_no_hidden_card_of_any_game_of_a_series_reaches_a_seat(tmp_path, game_id, options):
    app = make_app(tmp_path)
    client = app.test_client()
    table = client.post("/api/tables", json={"game": game_id, "players": 2, "rounds": GAMES,
                                              "names": NAMES[:2], "options": options}).get_json()
    tid, host = table["id"], {"X-Table-Token": table["host_token"]}
    viewers: dict[Any, str] = {}
    for seat in (0, 1):
        token = client.post("/api/join", json={"code": table["code"]}).get_json()["token"]
        assert client.post(f"/api/tables/{tid}/seat", json={"seat": seat},
                           headers={"X-Table-Token": token}).status_code == 200
        viewers[seat] = token
    viewers["watch"] = client.post("/api/join", json={"code": table["code"]}).get_json()["token"]
    session = TableSession.open(Store(app.config["DB"]), tid)
    rng, steps, games, checked, game_started = random.Random(20), 0, 1, 0, 0
    while True:
        st = _host(client, table)
        if st["is_over"]:
            checked += _check(client, table, viewers, session)
            if games == GAMES:
                break
            assert client.post(f"/api/tables/{tid}/next", json={"version": st["version"]},
                               headers=host).status_code == 200
            games, game_started = games + 1, steps
            checked += _check(client, table, viewers, session)   # the next game has begun
            continue
        v = st["version"]
        if games == 2 and steps == game_started + 12:
            # the host ends the second game early (someone leaves): both hands stay unplayed
            r = client.post(f"/api/tables/{tid}/end", json={"version": v}, headers=host)
        elif st["prompts"]:
            p = st["prompts"][0]
            r = client.post(f"/api/tables/{tid}/answer", json={"version": v, "prompt": p["id"],
                                                               "choice": p["choices"][0]["id"]}, headers=host)
        elif st["current_player"] == -1:
            r = client.post(f"/api/tables/{tid}/deal", json={"version": v}, headers=host)
        else:
            mover = {"X-Table-Token": viewers[st["current_player"]]}
            mine = client.get(f"/api/tables/{tid}/state", headers=mover).get_json()
            r = client.post(f"/api/tables/{tid}/move", json={"version": v, "move": rng.choice(mine["legal_moves"])},
                            headers=mover)
        assert r.status_code == 200, r.get_json()
        steps += 1
        assert steps < 3000, "the series did not end"
        if games > 1 and steps % 7 == 0:
            checked += _check(client, table, viewers, session)
    assert games == GAMES and checked > 0, "no earlier game hid anything: the walk proved nothing"
    assert json.dumps(_host(client, table)["series"])   # the series is recorded
