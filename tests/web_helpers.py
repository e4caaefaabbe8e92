"""Shared pieces of the web UI tests: an app on a temporary database, tables, moves by API."""
from __future__ import annotations

import random
from typing import Any

from webui import create_app

NAMES = ["Ann", "Ben", "Chie", "Dai", "Emi"]
PLAYERS = {"wheel": 3, "hills": 2, "spartacus": 3, "prussia": 1, "chains": 2}


def make_app(tmp_path: Any, **config: Any) -> Any:
    """The web app on a fresh SQLite file in ``tmp_path``."""
    return create_app({"DB": str(tmp_path / "web.db"), "TESTING": True, **config})


def new_table(client: Any, game: str, players: int | None = None, **extra: Any) -> dict[str, Any]:
    """Create a table through the API; the answer has id, code and host_token, and ``token`` is
    a phone that joined and that the host made the table's scorekeeper (it moves for everyone)."""
    players = players or PLAYERS[game]
    r = client.post("/api/tables", json={"game": game, "players": players,
                                          "names": NAMES[:players], **extra})
    assert r.status_code == 201, r.get_json()
    table = r.get_json()
    table["token"] = join(client, table, "scorekeeper")
    set_role(client, table, table["token"], "table")
    return table


def join(client: Any, table: dict[str, Any], name: str = "") -> str:
    """A phone joins by the table's code; its token (a watcher until it claims a seat)."""
    r = client.post("/api/join", json={"code": table["code"], "name": name})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["token"]


def set_role(client: Any, table: dict[str, Any], token: str, role: str, seat: int | None = None) -> Any:
    """The host gives the phone of ``token`` a role (seat, table, watch) or removes it."""
    body = {"phone": token.split(".")[0], "role": role, "version": 0}
    if seat is not None:
        body["seat"] = seat
    r = client.post(f"/api/tables/{table['id']}/phones", json=body,
                    headers={"X-Table-Token": table["host_token"]})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def seat_phone(client: Any, table: dict[str, Any], seat: int) -> str:
    """A phone that joined and claimed ``seat`` itself; its token."""
    token = join(client, table, NAMES[seat])
    r = client.post(f"/api/tables/{table['id']}/seat", json={"seat": seat},
                    headers={"X-Table-Token": token})
    assert r.status_code == 200, r.get_json()
    return token


def state(client: Any, table: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    """The table's state as a phone sees it (default: the scorekeeper's)."""
    url = f"/api/tables/{table['id']}/state"
    r = client.get(url, headers={"X-Table-Token": token or table["token"]})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def step(client: Any, table: dict[str, Any], rng: random.Random) -> Any:
    """One tap: the app deals at a chance node, else a random legal move button is pressed."""
    st = state(client, table)
    headers = {"X-Table-Token": table["token"]}
    if st["current_player"] == -1:
        return client.post(f"/api/tables/{table['id']}/deal", json={"version": st["version"]},
                           headers=headers)
    moves = [m["move"] for g in st["groups"] for m in g["moves"]]
    return client.post(f"/api/tables/{table['id']}/move",
                       json={"version": st["version"], "move": rng.choice(moves)}, headers=headers)
