"""Shared pieces of the web UI tests: an app on a temporary database, tables, moves by API."""
from __future__ import annotations

import random
from typing import Any

from webui import create_app

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
"""Debian's Chromium and the arguments every browser test launches it with (tests/webui/conftest.py)."""
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
    return scorekeeper(client, r.get_json())


def scorekeeper(client: Any, table: dict[str, Any]) -> dict[str, Any]:
    """``table`` with ``token``: a phone that joined and that the host made the scorekeeper."""
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


def ready(page: Any) -> None:
    """Wait until the page's scripts have bound their listeners (app.js marks ``body[data-ready]``;
    app.css lets no script-only button take a tap before): a page reached by a tap or a form, not by
    ``goto`` (which waits for the load), is shown before app.js, which comes last, has run."""
    page.wait_for_selector("body[data-ready]", state="attached")


class Live:
    """Real HTTP to a live server on loopback (``webui.core.server.RunningServer``): raw requests, so
    the tests can send what a browser never would (chunked bodies, odd Host headers)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.host, self.port = server.host, server.port

    def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                headers: dict[str, str] | None = None, raw: bytes | None = None,
                timeout: float = 15) -> tuple[int, dict[str, str], bytes]:
        """One request; returns status, headers (lower-case names) and the body."""
        import http.client
        import json
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            sent = dict(headers or {})
            data = raw
            if body is not None:
                data = json.dumps(body).encode()
                sent.setdefault("Content-Type", "application/json")
            if token:
                sent["X-Table-Token"] = token
            conn.request(method, path, body=data, headers=sent)
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, body: Any = None, token: str | None = None,
             **kw: Any) -> tuple[int, Any]:
        """A request whose answer is JSON: status and the decoded body."""
        import json
        status, _, data = self.request(method, path, body, token, **kw)
        return status, json.loads(data) if data else None

    def new_table(self, game: str, players: int, **extra: Any) -> dict[str, Any]:
        """Create a table (the creator is the host)."""
        status, table = self.json("POST", "/api/tables", {"game": game, "players": players,
                                                          "names": NAMES[:players], **extra})
        assert status == 201, table
        return table

    def join(self, table: dict[str, Any], name: str = "") -> str:
        """A phone joins by the code; its token."""
        status, answer = self.json("POST", "/api/join", {"code": table["code"], "name": name})
        assert status == 200, answer
        return answer["token"]

    def seat(self, table: dict[str, Any], seat: int) -> str:
        """A phone that joined and claimed ``seat``; its token."""
        token = self.join(table, NAMES[seat])
        status, answer = self.json("POST", f"/api/tables/{table['id']}/seat", {"seat": seat}, token)
        assert status == 200, answer
        return token

    def state(self, table: dict[str, Any], token: str) -> dict[str, Any]:
        """The state as the phone (or host) of ``token`` sees it."""
        status, st = self.json("GET", f"/api/tables/{table['id']}/state", token=token)
        assert status == 200, st
        return st


def take_events(buf: bytes) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The whole events at the start of a server-sent stream's bytes, as (event, data), and the
    bytes left over (an event not yet complete)."""
    events = []
    while b"\n\n" in buf:
        block, buf = buf.split(b"\n\n", 1)
        lines = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line)
        if b"event" in lines:
            events.append((lines[b"event"], lines.get(b"data", b"")))
    return events, buf
