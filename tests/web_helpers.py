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
    """Create a table through the API; the answer has id, code, host_token and token."""
    players = players or PLAYERS[game]
    r = client.post("/api/tables", json={"game": game, "players": players,
                                          "names": NAMES[:players], **extra})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def state(client: Any, table: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
    """The table's state as a player sees it."""
    url = f"/api/tables/{table['id']}/state" + ("" if seat is None else f"?seat={seat}")
    r = client.get(url, headers={"X-Table-Token": table["token"]})
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
