"""Issue 20 against the play history and the tokens (Flask's test client on a real SQLite file, the
CLI in this process): a stranger on the LAN who hosts a table of its own reaches nobody's history;
hostile tokens, numbers and files are clear 4xx answers or messages, never a 500 or a traceback."""
from __future__ import annotations

import io
import json
import sqlite3

import pytest

from companion import cli
from tests.web_helpers import NAMES, make_app, new_table, scorekeeper
from tests.webui.test_history_web import finish

REMOTE = {"REMOTE_ADDR": "192.168.1.66"}
"""Mallory's phone on the LAN."""


@pytest.fixture()
def played(tmp_path):
    """An app whose owner played one Seven Hills game on this computer."""
    app = make_app(tmp_path)
    client = app.test_client()
    table = new_table(client, "hills")
    finish(client, table)
    return app, table


def _csrf(client) -> str:
    """The server's CSRF token, as the History page hands it to the owner's browser."""
    assert client.get("/history").status_code == 200
    return client.get_cookie("csrf").value


def _plays(tmp_path) -> list[tuple]:
    with sqlite3.connect(tmp_path / "web.db") as db:
        return db.execute("SELECT p.id, s.name, s.score FROM plays p JOIN play_seats s ON s.play = p.id "
                          "ORDER BY p.id, s.seat").fetchall()


def test_a_stranger_who_hosts_a_table_reaches_no_history(played, tmp_path):
    app, owners = played
    before = _plays(tmp_path)
    mallory = app.test_client()
    r = mallory.post("/api/tables", json={"game": "wheel", "players": 3}, environ_base=REMOTE)
    assert r.status_code == 201                        # anyone may host a table of their own
    mine = r.get_json()
    mallory.set_cookie(f"tch_{mine['id']}", mine["host_token"])
    assert mallory.get(f"/host/{mine['id']}", environ_base=REMOTE).status_code == 200
    play = f"{owners['id']}-1"
    for url in ("/history", "/history/export?format=csv", "/history/export?format=json",
                "/history/export?format=bgstats", "/history/overview", "/history/game/hills",
                f"/history/player?name={NAMES[0]}",
                f"/history/play/{play}", "/print"):
        assert mallory.get(url, environ_base=REMOTE).status_code == 403, url
    csrf = mallory.get("/host", environ_base=REMOTE)   # a CSRF token of its own does not help
    token = mallory.get_cookie("csrf").value
    for url, form in ((f"/history/play/{play}", {"name0": "Mallory", "score0": "999"}),
                      (f"/history/play/{play}/delete", {}), ("/history/rematch", {"play": play})):
        assert mallory.post(url, data={**form, "csrf": token}, environ_base=REMOTE).status_code == 403, url
    assert csrf.status_code == 200 and _plays(tmp_path) == before


def test_history_forms_take_only_the_servers_own_csrf_token(played, tmp_path):
    app, table = played
    client = app.test_client()
    before = _plays(tmp_path)
    forged = "f" * 40                                   # an equal cookie/field pair of the attacker's
    client.set_cookie("csrf", forged)
    r = client.post(f"/history/play/{table['id']}-1/delete", data={"csrf": forged})
    assert r.status_code == 403 and _plays(tmp_path) == before
    client.get("/history")                              # the page hands out the server's token
    token = client.get_cookie("csrf").value
    assert token != forged
    assert client.post(f"/history/play/{table['id']}-1/delete", data={"csrf": token}).status_code == 303
    assert _plays(tmp_path) == []


@pytest.mark.parametrize("token", ["ü" * 24, "é", "トークン"])
def test_a_non_ascii_token_is_a_401_not_a_500(played, token):
    app, table = played
    client = app.test_client()
    tid = table["id"]
    for url in (f"/api/tables/{tid}/state?token={token}", f"/t/{tid}/view?token={token}",
                f"/api/tables/{tid}/events?token={token}", f"/api/tables/{tid}/export?token={token}",
                f"/api/tables/{tid}/phones?token={token}", f"/api/tables/{tid}/odds?token={token}"):
        r = client.get(url, headers={"Accept": "application/json"})
        assert r.status_code in (401, 403), (url, r.status_code)
    for path in ("move", "undo", "undo-request", "next", "end", "phones", "seat"):
        r = client.post(f"/api/tables/{tid}/{path}", json={"token": token, "version": 0})
        assert r.status_code in (400, 401, 403), (path, r.status_code)
    client.set_cookie(f"tch_{tid}", token)
    client.set_cookie(f"tcc_{tid}", token)
    assert client.get(f"/camera/{tid}?token={token}", environ_base=REMOTE).status_code in (401, 403)
    assert client.get(f"/host/{tid}", environ_base=REMOTE).status_code in (401, 403)
    client.set_cookie("csrf", token)
    assert client.post(f"/history/play/{tid}-1/delete", data={"csrf": token}).status_code == 403


def _bgstats(score, minutes=30, game_id=1, player_id=1) -> dict:
    return {"games": [{"id": game_id, "name": "Seven Hills"}],
            "players": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}],
            "plays": [{"gameRefId": game_id, "playDate": "2026-01-02 20:00:00", "durationMin": minutes,
                       "playerScores": [{"playerRefId": player_id, "score": score, "winner": True},
                                        {"playerRefId": 2, "score": "3"}]}]}


HUGE = ("1e400", "1e30", "1" + "0" * 30, "-1e30", "NaN", "Infinity")


@pytest.mark.parametrize("number", HUGE)
def test_bg_stats_numbers_out_of_range_are_a_400_and_write_nothing(played, tmp_path, number):
    app, _ = played
    client = app.test_client()
    before = _plays(tmp_path)
    token = _csrf(client)
    for text in (json.dumps(_bgstats(0)).replace('"durationMin": 30', f'"durationMin": {number}'),
                 json.dumps(_bgstats(0)).replace('"score": 0', f'"score": {number}')):
        r = client.post("/history/import", data={"csrf": token, "file": (io.BytesIO(text.encode()), "x.json")},
                        headers={"Accept": "application/json"})
        assert r.status_code == 400, (number, r.status_code, r.get_data(as_text=True)[:300])
        assert "out of range" in r.get_json()["error"] or "not a number" in r.get_json()["error"]
    assert _plays(tmp_path) == before


@pytest.mark.parametrize("ids", [([1], 1), ({"a": 1}, 1), (1, [1]), (1, {"x": 2})])
def test_bg_stats_list_or_object_ids_are_no_500(played, tmp_path, ids):
    app, _ = played
    client = app.test_client()
    before = _plays(tmp_path)
    token = _csrf(client)
    data = _bgstats(5, game_id=ids[0], player_id=ids[1])
    data["plays"][0]["gameRefId"] = ids[0]
    r = client.post("/history/import", data={"csrf": token, "file": (io.BytesIO(json.dumps(data).encode()), "x.json")},
                    headers={"Accept": "application/json"})
    assert r.status_code < 500, r.get_data(as_text=True)[:300]
    assert _plays(tmp_path) == before


HOSTILE_FILES = {
    "nan.json": '{"format": "table-companion-history/1", "players": [], "plays": [NaN]}',
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "deep-object.json": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "huge-int.json": json.dumps(_bgstats(0)).replace('"score": 0', '"score": ' + "9" * 5000),
    "huge-float.json": json.dumps(_bgstats(0)).replace('"durationMin": 30', '"durationMin": 1e400'),
    "huge-id.json": '{"format": "table-companion-history/1", "players": [{"id": 100000000000000000000000000000, '
                    '"name": "A", "created": "2026-01-01"}], "plays": []}',
    "list-ids.json": json.dumps(_bgstats(1, game_id=[1], player_id={"a": 1})),
    "not-json.json": "{'plays': ",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_the_cli_import_of_a_hostile_file_is_a_message_not_a_traceback(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_text(HOSTILE_FILES[name])
    db = str(tmp_path / "cli.db")
    code = cli.main(["history", "import", str(path), "--db", db])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if name == "list-ids.json":        # a play naming no game or player is left out, and said so
        assert code == 0 and "imported 0 plays" in out
    else:
        assert code == 2 and err.startswith("companion: "), (code, out, err)


def test_csv_cells_never_start_a_formula(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    names = ['=HYPERLINK("http://evil.example","x")', "+1+1", "@SUM(A1)"]
    r = client.post("/api/tables", json={"game": "wheel", "players": 3, "names": names})
    assert r.status_code == 201
    finish(client, scorekeeper(client, r.get_json()))
    csv_text = client.get("/history/export?format=csv").get_data(as_text=True)
    for name in names:
        assert f"'{name}" in csv_text.replace('""', '"')
    for line in csv_text.splitlines()[1:]:
        for cell in line.split(","):
            assert not cell.startswith(("=", "+", "@")), line
