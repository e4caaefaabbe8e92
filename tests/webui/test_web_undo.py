"""An accepted undo request is one undo (issue: it became several entries, one per move).

When the host accepts a player's "take back my move" request that needs several moves undone, the
log gets ONE undo entry (back to and including the asker's move), the phones get ONE event ("Ann's
move was taken back, with the moves after it: …"), and the request is settled in the same SQLite
transaction. Real server on loopback, real SQLite; the crash cases reopen the file."""
from __future__ import annotations

import json
import sqlite3

import pytest

from companion.session import Store, TableSession
from tests.web_helpers import Live, make_app
from webui import create_app
from webui.core.server import RunningServer


def _entries(db: str, table_id: str) -> list[tuple[int, str, dict]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT version, kind, data FROM entries WHERE session = ? ORDER BY version",
                            (table_id,)).fetchall()
    return [(v, k, json.loads(d)) for v, k, d in rows]


def _play_round(live: Live, table: dict, phones: list[str]) -> list[dict]:
    """The circle laid by the host, then each seat takes its first legal card; the moves."""
    host = table["host_token"]
    tid = table["id"]
    status, _ = live.json("POST", f"/api/tables/{tid}/deal", {"version": 0}, host)
    assert status == 200
    played = []
    for _ in range(3):
        st = live.state(table, host)
        mover = phones[st["current_player"]]
        mine = live.state(table, mover)
        move = mine["legal_moves"][0]
        status, answer = live.json("POST", f"/api/tables/{tid}/move", {"version": st["version"], "move": move}, mover)
        assert status == 200, answer
        played.append(move)
    return played


@pytest.fixture()
def served(tmp_path):
    app = make_app(tmp_path)
    with RunningServer(app) as srv:
        yield app, Live(srv)


def test_an_accepted_request_is_one_undo_and_one_event(served):
    app, live = served
    table = live.new_table("wheel", 3)
    tid, host = table["id"], table["host_token"]
    phones = [live.seat(table, s) for s in range(3)]
    assert live.json("POST", f"/api/tables/{tid}/deal", {"version": 0}, host)[0] == 200
    laid = live.state(table, host)
    first = laid["current_player"]
    asker = phones[first]
    # the asker moves, then the next two seats: three moves to take back for one request
    for _ in range(3):
        st = live.state(table, host)
        mover = phones[st["current_player"]]
        move = live.state(table, mover)["legal_moves"][0]
        assert live.json("POST", f"/api/tables/{tid}/move", {"version": st["version"], "move": move}, mover)[0] == 200
    v = live.state(table, host)["version"]
    assert live.json("POST", f"/api/tables/{tid}/undo-request", {"version": v}, asker)[0] == 200
    status, answer = live.json("POST", f"/api/tables/{tid}/undo", {"version": v, "phone": asker.split(".")[0]}, host)
    assert status == 200 and answer["version"] == v + 1 and len(answer["undone"]) == 3, answer
    after = live.state(table, host)
    # the state is the laid circle again: the asker's turn, nothing taken
    assert after["version"] == v + 1 and after["layout"] == laid["layout"] and after["current_player"] == first
    assert after["moves"] == laid["moves"]
    entries = _entries(app.config["DB"], tid)
    assert [k for _, k, _ in entries].count("undo") == 1 and entries[-1][1] == "undo"
    assert entries[-1][2]["to"] == laid["version"] + 1 and entries[-1][0] == v + 1
    # one event on every phone, naming whose move it was, in both languages
    name = after["names"][first]
    for token in phones:
        st = live.state(table, token)
        undos = [e for e in st["events"] if e["kind"] == "undo"]
        assert len(undos) == 1, undos
        assert undos[0]["text"].startswith(f"{name}'s move was taken back, with the moves after it: ")
        assert undos[0]["ja"].startswith(f"{name}の手とその後の手を取り消しました")
    ja = live.request("GET", f"/t/{tid}/view?token={phones[1]}&lang=ja")[2].decode()
    assert f"{name}の手とその後の手を取り消しました" in ja and "Asks to take back" not in \
        live.request("GET", f"/t/{tid}/view?token={host}")[2].decode()
    # replayed from SQLite by a fresh session: the same state, and the request is gone
    again = TableSession.open(Store(app.config["DB"]), tid)
    assert again.version == v + 1 and again.game.layout() == laid["layout"] and not again.store.undo_requests(tid)


def test_one_move_taken_back_reads_as_the_askers_move(served):
    app, live = served
    table = live.new_table("hills", 2, options={"hidden_values": False})
    tid, host = table["id"], table["host_token"]
    ann, ben = live.seat(table, 0), live.seat(table, 1)
    st = live.state(table, ann)
    move = st["legal_moves"][0]
    assert live.json("POST", f"/api/tables/{tid}/move", {"version": st["version"], "move": move}, ann)[0] == 200
    v = st["version"] + 1
    assert live.json("POST", f"/api/tables/{tid}/undo-request", {"version": v}, ann)[0] == 200
    assert live.json("POST", f"/api/tables/{tid}/undo", {"version": v, "phone": ann.split(".")[0]}, host)[0] == 200
    for token, card_shown in ((ann, True), (ben, False)):
        undo = [e for e in live.state(table, token)["events"] if e["kind"] == "undo"]
        assert len(undo) == 1 and undo[0]["text"].startswith("Ann's move was taken back: "), undo
        # Ben never learns the card that went back into Ann's hand
        assert (move["card"] in json.dumps(undo)) == card_shown
        page = live.request("GET", f"/t/{tid}/view?token={token}")[2].decode()
        assert "Ann&#39;s move was taken back" in page


def test_a_request_survives_a_restart_and_a_failed_accept_changes_nothing(tmp_path):
    db = str(tmp_path / "web.db")
    app = create_app({"DB": db, "TESTING": True})
    with RunningServer(app) as srv:
        live = Live(srv)
        table = live.new_table("wheel", 3)
        tid, host = table["id"], table["host_token"]
        phones = [live.seat(table, s) for s in range(3)]
        _play_round(live, table, phones)
        v = live.state(table, host)["version"]
        asker = next(p for p in phones if live.state(table, p)["viewer"]["seat"] == _first_mover(db, tid))
        assert live.json("POST", f"/api/tables/{tid}/undo-request", {"version": v}, asker)[0] == 200
    # the server restarts: the request is still there for the host
    app = create_app({"DB": db, "TESTING": True})
    with RunningServer(app) as srv:
        live = Live(srv)
        page = live.request("GET", f"/t/{tid}/view?token={host}")[2].decode()
        assert "Asks to take back" in page and 'class="big primary undo-accept"' in page
        # an accept that fails inside its transaction (as if the process died there) leaves the log,
        # the state and the request as they were
        s = TableSession.open(Store(db), tid)
        target = s.store.undo_requests(tid)[0]["target"]

        def crash(conn):
            raise RuntimeError("killed between the entry and the request")
        with pytest.raises(RuntimeError):
            s.undo_back_to(target, asked_by="Ann", expected_version=v, after=crash)
        fresh = TableSession.open(Store(db), tid)
        assert fresh.version == v and len(fresh.state()["moves"]) == 4 and len(fresh.store.undo_requests(tid)) == 1
        assert [k for _, k, _ in _entries(db, tid)].count("undo") == 0
        # the real accept then goes through once
        status, answer = live.json("POST", f"/api/tables/{tid}/undo", {"version": v, "phone": asker.split(".")[0]}, host)
        assert status == 200 and answer["version"] == v + 1
        assert live.json("POST", f"/api/tables/{tid}/undo", {"version": v, "phone": asker.split(".")[0]}, host)[0] in (404, 409)


def _first_mover(db: str, tid: str) -> int:
    s = TableSession.open(Store(db), tid)
    return next(m["move"].player for m in s._st.moves if m["move"].player >= 0)
