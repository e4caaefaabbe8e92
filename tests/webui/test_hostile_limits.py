"""Issue 20, point 6: the limits hold when walked around (Flask's test client on a real SQLite
file): joining one's own new tables gives no wrong codes back, a rematch is a new table under
the creation limit, undo requests and the odds cannot be asked without end."""
from __future__ import annotations

import threading

from tests.web_helpers import make_app, new_table
from tests.webui.test_history_web import finish

GUESSER = {"REMOTE_ADDR": "192.168.1.66"}


def test_joining_ones_own_new_table_gives_no_wrong_codes_back(tmp_path):
    client = make_app(tmp_path, JOIN_LIMIT=(10, 600.0)).test_client()
    mine = client.post("/api/tables", json={"game": "wheel", "players": 3}, environ_base=GUESSER).get_json()
    wrong = [client.post("/api/join", json={"code": f"ZZZ{i}"}, environ_base=GUESSER).status_code
             for i in range(9)]
    assert wrong == [404] * 9                             # one wrong code left
    assert client.post("/api/join", json={"code": mine["code"]}, environ_base=GUESSER).status_code == 200
    # before: that join refilled the allowance (214 codes in 150 s instead of 34)
    answers = [client.post("/api/join", json={"code": f"ZZY{i}"}, environ_base=GUESSER).status_code
               for i in range(2)]
    assert answers == [404, 429]


def test_a_family_joining_a_table_it_did_not_make_still_gets_its_typos_back(tmp_path):
    client = make_app(tmp_path, JOIN_LIMIT=(10, 600.0)).test_client()
    table = new_table(client, "wheel")                    # the host made it on its computer
    family = {"REMOTE_ADDR": "192.168.1.40"}
    assert [client.post("/api/join", json={"code": f"ZZZ{i}"}, environ_base=family).status_code
            for i in range(9)] == [404] * 9
    assert client.post("/api/join", json={"code": table["code"]}, environ_base=family).status_code == 200
    assert [client.post("/api/join", json={"code": f"ZZY{i}"}, environ_base=family).status_code
            for i in range(3)] == [404] * 3


def test_a_rematch_counts_against_the_creation_limit(tmp_path):
    client = make_app(tmp_path, CREATE_LIMIT=(2, 600.0)).test_client()
    table = new_table(client, "hills")                    # 1 of 2
    finish(client, table)
    client.get("/history")
    csrf = client.get_cookie("csrf").value
    play = {"play": f"{table['id']}-1", "csrf": csrf}
    assert client.post("/history/rematch", data=play).status_code == 302      # 2 of 2
    r = client.post("/history/rematch", data=play, headers={"Accept": "application/json"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1       # before: 40 in a row
    assert len(make_app(tmp_path).extensions["tables"].sessions()) == 2


def test_undo_requests_of_one_phone_are_limited(tmp_path):
    client = make_app(tmp_path).test_client()
    table = client.post("/api/tables", json={"game": "hills", "players": 2}).get_json()
    token = client.post("/api/join", json={"code": table["code"]}).get_json()["token"]
    seat = client.post(f"/api/tables/{table['id']}/seat", json={"seat": 0}, headers={"X-Table-Token": token})
    assert seat.status_code == 200
    headers = {"X-Table-Token": token}
    st = client.get(f"/api/tables/{table['id']}/state", headers=headers).get_json()
    if st["current_player"] == -1:   # deal first (the host)
        client.post(f"/api/tables/{table['id']}/deal", json={"version": st["version"]},
                    headers={"X-Table-Token": table["host_token"]})
        st = client.get(f"/api/tables/{table['id']}/state", headers=headers).get_json()
    move = next(m["move"] for g in st["groups"] for m in g["moves"] if m["move"]["player"] == 0)
    assert client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": move},
                       headers={"X-Table-Token": table["host_token"]}).status_code == 200
    version = st["version"] + 1
    answers = [client.post(f"/api/tables/{table['id']}/undo-request", json={"version": version},
                           headers=headers).status_code for _ in range(6)]
    assert answers[:3] == [200] * 3 and set(answers[3:]) == {429}, answers


def test_the_odds_of_one_version_are_worked_out_once_however_many_ask(tmp_path, monkeypatch):
    import companion.advise
    real, calls = companion.advise.advice, []

    def counted(*args, **kwargs):   # the real computation, counted
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(companion.advise, "advice", counted)
    app = make_app(tmp_path)
    table = new_table(app.test_client(), "prussia", 1)
    answers: list[int] = []

    def ask() -> None:
        answers.append(app.test_client().get(f"/api/tables/{table['id']}/odds",
                                             headers={"X-Table-Token": table["token"]}).status_code)
    askers = [threading.Thread(target=ask) for _ in range(8)]
    for thread in askers:
        thread.start()
    for thread in askers:
        thread.join(120)
    assert answers == [200] * 8 and len(calls) == 1       # before: 8 computations at once


def test_a_phone_the_host_freed_does_not_claim_a_seat_again(tmp_path):
    client = make_app(tmp_path).test_client()
    table = client.post("/api/tables", json={"game": "hills", "players": 2}).get_json()
    token = client.post("/api/join", json={"code": table["code"]}).get_json()["token"]
    mine, host = {"X-Table-Token": token}, {"X-Table-Token": table["host_token"]}
    assert client.post(f"/api/tables/{table['id']}/seat", json={"seat": 0}, headers=mine).status_code == 200
    phone = token.split(".")[0]
    assert client.post(f"/api/tables/{table['id']}/phones", json={"phone": phone, "role": "watch"},
                       headers=host).status_code == 200
    for seat in (0, 1):   # before: it took a seat back at once
        assert client.post(f"/api/tables/{table['id']}/seat", json={"seat": seat}, headers=mine).status_code == 409
    assert client.post(f"/api/tables/{table['id']}/phones", json={"phone": phone, "role": "seat", "seat": 1},
                       headers=host).status_code == 200                      # the host gives it one
