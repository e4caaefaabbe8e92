"""The web UI's JSON API and pages through Flask's test client, on a real SQLite session store."""
from __future__ import annotations

import http.client
import json
import random
import re
import threading
import time

import pytest

from companion.engine import CHANCE
from tests.web_helpers import NAMES, PLAYERS, make_app, new_table, seat_phone, state, step, take_events
from webui.core.server import RunningServer


@pytest.fixture()
def app(tmp_path):
    return make_app(tmp_path)


@pytest.fixture()
def client(app):
    return app.test_client()


def _host(table):
    return {"X-Table-Token": table["host_token"]}


def _player(table):
    return {"X-Table-Token": table["token"]}


def _take_first(client, table):
    """Deal the wheel's circle and return the state after it (a player is to move)."""
    st = state(client, table)
    r = client.post(f"/api/tables/{table['id']}/deal", json={"version": st["version"]},
                    headers=_player(table))
    assert r.status_code == 200, r.get_json()
    return state(client, table)


# ---------------------------------------------------------------- creating and joining
def test_games_lists_all_five(client):
    ids = [g["id"] for g in client.get("/api/games").get_json()]
    assert ids == ["wheel", "hills", "spartacus", "prussia", "chains"]


def test_create_table_gives_code_tokens_and_names(client):
    table = new_table(client, "wheel", 3, options={"single_card_fall": True}, rounds=2)
    assert len(table["code"]) >= 4 and table["host_token"] != table["token"]
    st = state(client, table)
    assert st["names"] == NAMES[:3] and st["options"]["single_card_fall"] is True
    assert table["join_url"].endswith(f"/join?code={table['code']}")


@pytest.mark.parametrize("body, status, words", [
    ({"game": "chess", "players": 2}, 400, "Unknown game"),
    ({"game": "hills", "players": 3}, 400, "Seven Hills of Rome is for 2 players, got 3."),
    ({"game": "wheel", "players": "many"}, 400, "whole number"),
    ({"game": "wheel", "players": 3, "options": {"colour": 1}}, 400, "no option"),
    ({"game": "wheel", "players": 2, "names": ["a", "b", "c"]}, 400, "at most one name"),
    ({"game": "wheel", "players": 2, "options": [1]}, 400, "JSON object"),
])
def test_create_table_refuses_bad_settings(client, body, status, words):
    before = len(client.application.extensions["tables"].sessions())
    r = client.post("/api/tables", json=body)
    assert r.status_code == status and words in r.get_json()["error"]
    assert len(client.application.extensions["tables"].sessions()) == before


def test_malformed_json_non_json_and_huge_bodies_are_refused(client):
    r = client.post("/api/tables", data="{not json", content_type="application/json")
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    r = client.post("/api/tables", data="game=wheel", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415
    r = client.post("/api/tables", data="x" * 200_000, content_type="application/json")
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    assert client.application.extensions["tables"].sessions() == []


def test_join_by_code(client):
    table = new_table(client, "spartacus")
    r = client.post("/api/join", json={"code": " " + table["code"].lower() + " "})
    answer = r.get_json()
    assert r.status_code == 200 and answer["id"] == table["id"] and answer["url"] == f"/t/{table['id']}"
    # every phone gets a token of its own (not the scorekeeper's, not the host's): a watcher at first
    assert answer["token"] not in (table["token"], table["host_token"])
    assert state(client, table, answer["token"])["viewer"] == {"role": "watch", "seat": None}
    assert client.post("/api/join", json={"code": "ZZZZZZ"}).status_code == 404
    assert client.post("/api/join", json={}).status_code == 400


# ---------------------------------------------------------------- reading
def test_state_needs_a_token_and_shows_only_the_phones_own_seat(client):
    # new rule (issue 13): the viewer is the phone's token, not a ?seat= anyone may pick
    table = new_table(client, "hills")
    url = f"/api/tables/{table['id']}/state"
    assert client.get(url).status_code == 401
    assert client.get(url, headers={"X-Table-Token": "forged"}).status_code == 401
    assert client.get(url + "?seat=5", headers=_player(table)).status_code == 400
    assert client.get(url + "?seat=0", headers=_player(table)).status_code == 403
    assert client.get("/api/tables/nosuch/state", headers=_player(table)).status_code in (401, 404)
    ann = seat_phone(client, table, 0)
    mine = state(client, table, ann)
    assert mine["view"]["hand"] and "hand" not in state(client, table)["view"]
    assert client.get(url + "?seat=1", headers={"X-Table-Token": ann}).status_code == 403


def test_state_of_another_tables_token_is_refused(client):
    a, b = new_table(client, "wheel"), new_table(client, "wheel")
    r = client.get(f"/api/tables/{a['id']}/state", headers=_player(b))
    assert r.status_code == 401


# ---------------------------------------------------------------- moves
def test_a_tapped_move_is_applied_once_and_a_stale_one_refused(client):
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    move = st["groups"][0]["moves"][0]["move"]
    url = f"/api/tables/{table['id']}/move"
    r = client.post(url, json={"version": st["version"], "move": move}, headers=_player(table))
    assert r.status_code == 200 and r.get_json()["version"] == st["version"] + 1
    assert any(e["kind"] == "card_taken" for e in r.get_json()["events"])
    after = state(client, table)
    # the same tap again, based on the old version: refused, nothing changes
    r = client.post(url, json={"version": st["version"], "move": move}, headers=_player(table))
    assert r.status_code == 409 and "version" in r.get_json()["error"]
    assert r.get_json()["version"] == after["version"]
    assert state(client, table)["layout"] == after["layout"]


@pytest.mark.parametrize("move, status, words", [
    ({"player": 0, "kind": "take", "card": "W-Q9"}, 400, "Unknown card"),
    ({"player": 0, "kind": "take", "card": "S-R5"}, 400, "this table plays wheel"),
    ({"player": 0, "kind": "take", "card": 5}, 400, "card id"),
    ({"kind": "take"}, 400, "integer 'player'"),
    ("take W-R5", 400, "JSON object"),
    ({"player": 0, "kind": "play", "card": "W-R5"}, 422, ""),
])
def test_bad_moves_get_a_clear_4xx_and_change_nothing(client, move, status, words):
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    r = client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": move},
                    headers=_player(table))
    assert r.status_code == status and words in r.get_json()["error"]
    assert state(client, table)["version"] == st["version"]


def test_an_illegal_move_is_refused_with_the_rules_reason(client):
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    reachable = {m["move"]["card"] for m in st["groups"][0]["moves"]}
    far = next(c for c in st["layout"]["circle"] if c and c not in reachable)
    r = client.post(f"/api/tables/{table['id']}/move", headers=_player(table),
                    json={"version": st["version"],
                          "move": {"player": st["current_player"], "kind": "take", "card": far}})
    assert r.status_code == 422 and r.get_json()["error"]
    assert state(client, table)["version"] == st["version"]


def test_writes_need_a_token_and_a_version(client):
    table = new_table(client, "wheel")
    url = f"/api/tables/{table['id']}/deal"
    assert client.post(url, json={"version": 0}).status_code == 401
    r = client.post(url, json={}, headers=_player(table))
    assert r.status_code == 400 and "version" in r.get_json()["error"]
    r = client.post(url, json={"version": True}, headers=_player(table))
    assert r.status_code == 400


def test_deal_only_at_a_chance_node(client):
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    assert st["current_player"] != CHANCE and len(st["layout"]["circle"]) == 25
    r = client.post(f"/api/tables/{table['id']}/deal", json={"version": st["version"]},
                    headers=_player(table))
    assert r.status_code == 409 and "No shuffle" in r.get_json()["error"]


def test_the_table_can_enter_a_drawn_card_as_the_chance_move(client):
    table = new_table(client, "prussia", 1)
    st = state(client, table)
    assert st["current_player"] == CHANCE
    draws = [m for g in st["groups"] for m in g["moves"] if m["move"]["kind"] == "draw"]
    assert len(draws) > 40  # every card of the pile is a button, grouped by suit
    pick = next(m["move"] for m in draws if m["move"]["card"] == "P-H8")
    r = client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": pick},
                    headers=_player(table))
    assert r.status_code == 200
    assert state(client, table)["layout"]["drawn"] == "P-H8"


@pytest.mark.parametrize("game", ["wheel", "hills", "spartacus", "prussia"])
def test_a_whole_game_by_taps(client, game):
    table = new_table(client, game)
    rng = random.Random(3)
    for _ in range(400):
        if state(client, table)["is_over"]:
            break
        r = step(client, table, rng)
        assert r.status_code == 200, r.get_json()
    st = state(client, table)
    assert st["is_over"] and st["winners"] and st["series"]["games"] == [st["scores"]]


def test_a_good_part_of_a_chains_game_by_taps(client):
    table = new_table(client, "chains", 3)
    rng = random.Random(1)
    for _ in range(60):
        assert step(client, table, rng).status_code == 200
    st = state(client, table)
    assert st["version"] == 60 and any(p["work"] or any(p["temporary"]) for p in st["layout"]["players"])


# ---------------------------------------------------------------- host actions
def test_undo_of_anothers_move_is_refused_and_the_host_takes_it_back(client):
    # new rule (issue 13): a seat's phone takes back only its own last move; the circle was laid by
    # the scorekeeper, so seat 1's phone must ask the host
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    url = f"/api/tables/{table['id']}/undo"
    r = client.post(url, json={"version": st["version"]}, headers={"X-Table-Token": seat_phone(client, table, 1)})
    assert r.status_code == 403 and "host" in r.get_json()["error"]
    r = client.post(url, json={"version": st["version"]}, headers=_host(table))
    assert r.status_code == 200 and r.get_json()["move"]["kind"] == "lay_circle"
    assert state(client, table)["current_player"] == CHANCE


def test_undo_request_reaches_the_host_page(client):
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    r = client.post(f"/api/tables/{table['id']}/undo-request", json={"version": st["version"], "by": "Ben"},
                    headers=_player(table))
    assert r.status_code == 200
    page = client.get(f"/t/{table['id']}/view", headers=_host(table), query_string={"token": table["host_token"]})
    assert "scorekeeper" in page.get_data(as_text=True)   # who asks: the phone's name
    stale = client.post(f"/api/tables/{table['id']}/undo-request", json={"version": 0},
                        headers=_player(table))
    assert stale.status_code == 409


def test_override_applies_an_illegal_move_with_a_reason(client):
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    reachable = {m["move"]["card"] for m in st["groups"][0]["moves"]}
    far = next(c for c in st["layout"]["circle"] if c and c not in reachable)
    move = {"player": st["current_player"], "kind": "take", "card": far}
    url = f"/api/tables/{table['id']}/override"
    assert client.post(url, json={"version": st["version"], "move": move},
                       headers=_host(table)).status_code == 400          # no reason
    assert client.post(url, json={"version": st["version"], "move": move, "reason": "house"},
                       headers=_player(table)).status_code == 403
    r = client.post(url, json={"version": st["version"], "move": move, "reason": "we agreed"},
                    headers=_host(table))
    assert r.status_code == 200
    assert far in state(client, table)["layout"]["taken"][st["current_player"]]


def test_correct_replaces_the_last_move(client):
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    first, second = [m["move"] for m in st["groups"][0]["moves"]][:2]
    url = f"/api/tables/{table['id']}/move"
    assert client.post(url, json={"version": st["version"], "move": first},
                       headers=_player(table)).status_code == 200
    fix = f"/api/tables/{table['id']}/correct"
    v = st["version"] + 1
    assert client.post(fix, json={"version": v, "move": second}, headers=_player(table)).status_code == 403
    r = client.post(fix, json={"version": v, "move": second}, headers=_host(table))
    assert r.status_code == 200
    taken = state(client, table)["layout"]["taken"][st["current_player"]]
    assert taken == [second["card"]]


def test_a_correction_naming_another_seat_says_whose_move_the_last_was(client):
    """The host's picker opens at the seat to move; "Replace the last move" with that seat's move
    answered "it is Ben's turn, not Chie's": it says the last move was Ben's and to choose his (EN/JA),
    and changes nothing."""
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    mover = st["current_player"]
    first = [m["move"] for m in st["groups"][0]["moves"]][0]
    assert client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": first},
                       headers=_player(table)).status_code == 200
    after = state(client, table)
    other = dict(first, player=after["current_player"])
    fix = f"/api/tables/{table['id']}/correct"
    name = NAMES[mover]
    for lang, said in (("en", f"The last move was {name}'s: to replace it, choose a move of {name}'s"),
                       ("ja", f"最後の手は{name}の手です。置き換えるには{name}の手を選んでください")):
        r = client.post(f"{fix}?lang={lang}", json={"version": after["version"], "move": other}, headers=_host(table))
        assert r.status_code == 422 and said in r.get_json()["error"], r.get_json()
    assert state(client, table)["version"] == after["version"]


def test_a_correction_of_another_shape_says_what_may_replace_the_last_move(app, client):
    """Prussia at a QA game night: Aki played ♣9 and was to place it; the host's picker (the moves of
    now) offered the places, and "Replace the last move" with one answered only the rules' "Play a
    card from your hand or draw from the pile": it names the last move and asks for a move that could
    have been made instead of it (EN/JA), and changes nothing."""
    import random
    table = new_table(client, "prussia", 2)
    s = app.extensions["tables"].get(table["id"])
    rng = random.Random(3)
    while not (s.game.log and s.game.log[-1].kind == "play" and s.game.log[-1].player >= 0
               and s.legal_moves() and s.legal_moves()[0].kind == "place"):
        move = s.game.sample_chance(rng) if s.game.is_chance_node() else rng.choice(s.legal_moves())
        s.play(move, by="phone", expected_version=s.version)
    played, place = s.game.log[-1], s.legal_moves()[0]
    name, card = NAMES[played.player], played.get("card")
    fix = f"/api/tables/{table['id']}/correct"
    for lang, said in (("en", f"To replace the last move, “{name} plays "), ("ja", f"直前の手「{name}が")):
        r = client.post(f"{fix}?lang={lang}", json={"version": s.version, "move": place.to_json()},
                        headers=_host(table))
        error = r.get_json()["error"]
        assert r.status_code == 422 and said in error and card[-1] in error, error
    assert "instead of it" in client.post(fix, json={"version": s.version, "move": place.to_json()},
                                          headers=_host(table)).get_json()["error"]
    assert s.game.log[-1] == played

def test_one_phone_as_the_host_screen_and_a_seat_keeps_the_hosts_pages(client):
    """A table with one phone (QA game night, 360 px): the host tapped the join link on the host page
    and took Ann's seat in the same browser; back on the host page its join QR, the camera check and
    the game's replay answered 403 (the seat's phone cookie was read before the host's)."""
    table = new_table(client, "spartacus")
    tid = table["id"]
    client.set_cookie(f"tch_{tid}", table["host_token"])   # the host page was opened here
    client.set_cookie(f"tc_{tid}", seat_phone(client, table, 0))   # then Ann's seat was claimed here
    assert client.get(f"/api/tables/{tid}/qr.svg").status_code == 200
    assert client.get(f"/api/tables/{tid}/camera/check").status_code == 200
    assert client.get(f"/api/tables/{tid}/phones").status_code == 200
    assert "Your seat" in client.get(f"/t/{tid}/view").get_data(as_text=True)   # Ann's page
    host_view = client.get(f"/t/{tid}/view?as=host").get_data(as_text=True)      # the host page's
    assert "Your seat" not in host_view and "Undo last move" in host_view
    # the host page's links and its override picker ask as the host too (Ann's export had her hand only)
    for link in re.findall(r'(?:href|data-src)="(/(?:api/tables|t)/[^"]*/(?:export|override)[^"]*)"', host_view):
        assert "as=host" in link, link
        assert client.get(link.replace("&amp;", "&")).status_code == 200, link
    assert client.get(f"/t/{tid}/override").status_code == 403   # Ann's phone alone is no host
    client.post(f"/api/tables/{tid}/end", json={"version": state(client, table)["version"]}, headers=_host(table))
    assert client.get(f"/host/{tid}/replay").status_code == 200
    other = new_table(client, "spartacus")   # a seat's cookie alone is still no host
    client.set_cookie(f"tc_{other['id']}", seat_phone(client, other, 0))
    assert client.get(f"/api/tables/{other['id']}/qr.svg").status_code == 403

def test_prussia_two_players_can_deal_at_the_table(client):
    table = new_table(client, "prussia", 2)
    st = state(client, table)
    deal = [m["move"] for g in st["groups"] for m in g["moves"] if m["move"]["kind"] == "deal"]
    assert deal == [{"player": -1, "kind": "deal"}]
    r = client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": deal[0]},
                    headers=_player(table))
    assert r.status_code == 200
    st = state(client, table, seat_phone(client, table, 0))
    plays = [m["move"] for g in st["groups"] for m in g["moves"] if m["move"]["kind"] == "play"]
    assert len(plays) > 40 and st["view"]["hand"] == []   # any unseen card may be the one played


def test_next_game_of_a_series(client):
    table = new_table(client, "wheel", 2, rounds=2)
    url = f"/api/tables/{table['id']}/next"
    st = state(client, table)
    r = client.post(url, json={"version": st["version"]}, headers=_host(table))
    assert r.status_code == 400 and "not over" in r.get_json()["error"]
    rng = random.Random(5)
    while not state(client, table)["is_over"]:
        assert step(client, table, rng).status_code == 200
    st = state(client, table)
    r = client.post(url, json={"version": st["version"]}, headers=_host(table))
    assert r.status_code == 200
    after = state(client, table)
    assert not after["is_over"] and after["series"]["games"] == [st["scores"]]


def test_end_game_is_host_only_versioned_and_shown_on_the_phones(client):
    table = new_table(client, "spartacus")
    first = state(client, table)
    tap = {"player": first["current_player"], "kind": "play", "card": "S-R5"}
    assert client.post(f"/api/tables/{table['id']}/move", json={"version": 0, "move": tap},
                       headers=_player(table)).status_code == 200
    url = f"/api/tables/{table['id']}/end"
    r = client.post(url, json={"version": 1})
    assert r.status_code == 401 and "Join" in r.get_json()["error"]
    r = client.post(url, json={"version": 1}, headers=_player(table))
    assert r.status_code == 403 and "host" in r.get_json()["error"]
    r = client.post(url, json={}, headers=_host(table))
    assert r.status_code == 400 and "version" in r.get_json()["error"]
    r = client.post(url, json={"version": 0}, headers=_host(table))
    assert r.status_code == 409 and r.get_json()["version"] == 1 and "reload" in r.get_json()["error"]
    assert not state(client, table)["is_over"]                     # refused: nothing changed
    r = client.post(url, json={"version": 1}, headers=_host(table))
    assert r.status_code == 200 and r.get_json()["version"] == 2
    assert r.get_json()["events"][0]["kind"] == "ended_by_host"
    st = state(client, table)
    assert st["is_over"] and st["ended_by_host"] and st["groups"] == [] and st["legal_moves"] == []
    assert st["series"]["games"] == [st["scores"]]
    # phones see the summary with the note, in both languages; the host no longer sees the button
    client.get(f"/join?code={table['code']}")
    en = client.get(f"/t/{table['id']}/view?lang=en").get_data(as_text=True)
    ja = client.get(f"/t/{table['id']}/view?lang=ja").get_data(as_text=True)
    assert 'class="card summary"' in en and "The host ended this game early" in en and "ended early" in en
    assert "ホストがこのゲームを途中で終了しました" in ja and "ホストがゲームを途中で終了しました" in ja
    host = client.get(f"/t/{table['id']}/view", query_string={"token": table["host_token"]}).get_data(as_text=True)
    assert 'id="end-game"' not in host and 'id="undo"' in host
    r = client.post(url, json={"version": 2}, headers=_host(table))
    assert r.status_code == 400 and "already over" in r.get_json()["error"]
    r = client.post(f"/api/tables/{table['id']}/move", json={"version": 2, "move": {"player": 1, "kind": "pass"}},
                    headers=_player(table))
    assert r.status_code == 422 and "ended this game early" in r.get_json()["error"]
    # the host tapped by mistake: undo takes the end back and the game goes on
    r = client.post(f"/api/tables/{table['id']}/undo", json={"version": 2}, headers=_host(table))
    assert r.status_code == 200 and "move" not in r.get_json()
    st = state(client, table)
    assert not st["is_over"] and st["groups"] and st["moves"] == [dict(tap, version=1, override=False)]
    host = client.get(f"/t/{table['id']}/view", query_string={"token": table["host_token"]}).get_data(as_text=True)
    assert 'id="end-game"' in host and "ゲーム終了" not in host


def test_observe_and_answer_a_prompt(client):
    table = new_table(client, "wheel")
    st = _take_first(client, table)
    url = f"/api/tables/{table['id']}/observe"
    assert client.post(url, json={"observation": st["layout"]}, headers=_player(table)).status_code == 403
    r = client.post(url, json={"observation": "circle"}, headers=_host(table))
    assert r.status_code == 400
    # the camera sees a card gone that no legal move explains: a prompt asks the table
    circle = list(st["layout"]["circle"])
    reachable = {m["move"]["card"] for m in st["groups"][0]["moves"]}
    far = next(i for i, c in enumerate(circle) if c and c not in reachable)
    circle[far] = None
    r = client.post(url, json={"observation": {"circle": circle}}, headers=_host(table))
    assert r.status_code == 200 and r.get_json()["result"]["kind"] == "prompt"
    prompts = state(client, table)["prompts"]
    assert prompts and prompts[0]["choices"]
    v = state(client, table)["version"]
    answer = f"/api/tables/{table['id']}/answer"
    bad = client.post(answer, json={"version": v, "prompt": prompts[0]["id"], "choice": "nope"},
                      headers=_player(table))
    assert bad.status_code == 400 and "no choice" in bad.get_json()["error"]
    assert client.post(answer, json={"version": v}, headers=_player(table)).status_code == 400
    r = client.post(answer, json={"version": v, "prompt": prompts[0]["id"],
                                  "choice": prompts[0]["choices"][0]["id"]}, headers=_player(table))
    assert r.status_code == 200
    assert state(client, table)["prompts"] == []


def test_odds_for_prussia_solo_only(client):
    table = new_table(client, "prussia", 1)
    r = client.get(f"/api/tables/{table['id']}/odds", headers=_player(table))
    assert r.status_code == 200
    odds = r.get_json()
    assert set(odds["odds"]) == {"draw"} and abs(sum(odds["odds"]["draw"].values()) - 1) < 1e-9
    assert odds["labels"] == {"draw": "The next draw"} and odds["columns"] == ["win", "draw", "defeat"]
    # the table drew ♣4: it goes next to the event nation 4, on one side or the other
    r = client.post(f"/api/tables/{table['id']}/move", json={"version": 0, "move": {"player": CHANCE, "kind": "draw",
                                                                                    "card": "P-C4"}}, headers=_player(table))
    assert r.status_code == 200, r.get_json()
    odds = client.get(f"/api/tables/{table['id']}/odds?lang=ja", headers=_player(table)).get_json()
    st = client.get(f"/api/tables/{table['id']}/state?lang=ja", headers=_player(table)).get_json()
    buttons = {m["move"]["slot"]: m["label"] for g in st["groups"] for m in g["moves"]}
    # each choice is named as its move button names it: the two nations the slot joins, in Japanese
    assert odds["labels"] == buttons and set(buttons) == {"3>4", "4>5"}
    assert all(" – " in words and not any(ch.isdigit() for ch in words) for words in buttons.values())
    assert odds["columns"] == ["勝利", "引き分け", "敗北"]
    wheel = new_table(client, "wheel")
    assert client.get(f"/api/tables/{wheel['id']}/odds", headers=_player(wheel)).status_code == 400


def test_export_qr_and_camera(app, client):
    table = new_table(client, "wheel", 2)
    r = client.get(f"/api/tables/{table['id']}/export", headers=_player(table))
    assert r.status_code == 200 and r.get_json()["bgstats"] is None
    rng = random.Random(2)
    while not state(client, table)["is_over"]:
        assert step(client, table, rng).status_code == 200
    r = client.get(f"/api/tables/{table['id']}/export", headers=_player(table))
    assert r.get_json()["bgstats"].startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    assert r.get_json()["games"][0]["finished"]
    r = client.get(f"/api/tables/{table['id']}/qr.svg", headers=_host(table))
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    assert client.get(f"/api/tables/{table['id']}/qr.svg", headers=_player(table)).status_code == 403
    r = client.get(f"/api/tables/{table['id']}/camera", headers=_player(table))
    assert r.status_code == 404 and "scored by hand" in r.get_json()["error"]
    app.config["FRAME_SOURCE"] = lambda table_id: (b"\x89PNG fake", "image/png")
    r = client.get(f"/api/tables/{table['id']}/camera", headers=_player(table))
    assert r.status_code == 200 and r.data == b"\x89PNG fake"


def test_unknown_api_route_and_method_answer_json(client):
    assert client.get("/api/nothing").get_json()["error"]
    assert client.get("/api/tables").status_code == 405


# ---------------------------------------------------------------- pages
def test_join_page_sets_the_token_cookie_and_opens_the_table(client):
    table = new_table(client, "hills")
    assert client.get(f"/t/{table['id']}").status_code == 302          # not joined yet
    r = client.get(f"/join?code={table['code']}")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{table['id']}")
    page = client.get(f"/t/{table['id']}")
    html = page.get_data(as_text=True)
    # the page carries this phone's own token (from its cookie) and offers the free seats
    token = client.get_cookie(f"tc_{table['id']}").value
    assert page.status_code == 200 and "Seven Hills of Rome" in html and token in html
    assert token != table["token"] and 'class="big primary claim" data-seat="0"' in html
    assert client.get("/join?code=NOPE").status_code == 404


def test_pages_in_japanese(client):
    table = new_table(client, "spartacus")
    client.get(f"/join?code={table['code']}")
    html = client.get(f"/t/{table['id']}?lang=ja").get_data(as_text=True)
    assert "スパルタクス" in html and "得点" in html
    for game in PLAYERS:
        en = client.get(f"/rules/{game}?lang=en").get_data(as_text=True)
        ja = client.get(f"/rules/{game}?lang=ja").get_data(as_text=True)
        assert 'id="setup"' in en and "準備" in ja
    assert client.get("/rules/chess").status_code == 404


def test_host_form_creates_a_table(client):
    assert "Seven Hills" in client.get("/host").get_data(as_text=True)
    csrf = client.get_cookie("csrf").value   # the form's hidden field carries the same token
    r = client.post("/host", data={"game": "chains", "players": "3", "names": "A, B, C",
                                   "opt_misfit": "card_only", "csrf": csrf})
    assert r.status_code == 302
    page = client.get(r.headers["Location"])
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "qr.svg" in html and "Chains" in html
    r = client.post("/host", data={"game": "chains", "players": "11", "csrf": csrf})
    assert r.status_code == 400 and "1–10 players" in r.get_data(as_text=True)


# ---------------------------------------------------------------- live updates
def _read_events(resp, until, timeout):
    """Version numbers from an event stream until version ``until`` arrived (or ``timeout`` passed).

    The server may fold versions that follow each other closely into one event, so this waits for a
    version, not for a number of events."""
    got, buf, deadline = [], b"", time.monotonic() + timeout
    while not (got and got[-1] >= until) and time.monotonic() < deadline:
        chunk = resp.read1(4096) if hasattr(resp, "read1") else resp.read(1)
        if not chunk:
            break
        events, buf = take_events(buf + chunk)
        got += [int(data) for kind, data in events if kind == b"version"]
    return got


def test_server_sent_events_push_each_new_version(app):
    client = app.test_client()
    table = new_table(client, "wheel")
    with RunningServer(app) as srv:
        conn = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
        conn.request("GET", f"/api/tables/{table['id']}/events?since=0&token={table['token']}")
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/event-stream")
        done = threading.Event()

        def tap():
            time.sleep(0.3)
            rng = random.Random(1)
            for _ in range(2):
                assert step(client, table, rng).status_code == 200
            done.set()

        threading.Thread(target=tap).start()
        start = time.monotonic()
        versions = _read_events(resp, 2, timeout=10)   # pushed on the open stream
        assert done.wait(5)
        assert versions and versions[-1] == 2 and versions == sorted(versions)
        assert time.monotonic() - start < 5
        conn.close()
        # a phone that slept reconnects with the version it last saw and is told at once
        conn = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
        conn.request("GET", f"/api/tables/{table['id']}/events?since=0",
                     headers={"Cookie": f"tc_{table['id']}={table['token']}"})
        assert _read_events(conn.getresponse(), 2, timeout=5) == [2]
        conn.close()
        conn = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
        conn.request("GET", f"/api/tables/{table['id']}/events")
        assert conn.getresponse().status == 401
        conn.close()


def test_the_hub_stops_polling_a_table_nobody_listens_to(monkeypatch):
    from webui.core import tables as tables_module
    monkeypatch.setattr(tables_module, "IDLE_AFTER", 0.2)
    monkeypatch.setattr(tables_module, "WAIT_SLICE", 0.05)
    calls = []

    def waiter(table_id, version, timeout):    # a store that never changes
        calls.append(table_id)
        time.sleep(timeout)
        return version

    hub = tables_module.Hub(waiter)
    assert hub.wait("t1", 0, 0, 0.01, current=0) == (0, 0)
    assert "t1" in hub._threads
    deadline = time.monotonic() + 5
    while "t1" in hub._threads and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "t1" not in hub._threads
    polled = len(calls)
    time.sleep(0.3)
    assert len(calls) == polled                     # idle: no more polling
    hub.notify("t1", 3)                             # a write in this process still wakes clients
    assert hub.wait("t1", 0, 0, 0.01, current=3) == (3, 0)
    assert "t1" in hub._threads                     # and a new client starts watching again
    hub.stop()


def test_buttons_and_prompt_choices_speak_the_page_language(client):
    table = new_table(client, "spartacus", 3)      # Ann red, Ben blue, Chie green
    for v, move in enumerate([{"player": 0, "kind": "play", "card": "S-R5"}, {"player": 1, "kind": "pass"}]):
        r = client.post(f"/api/tables/{table['id']}/move", json={"version": v, "move": move}, headers=_player(table))
        assert r.status_code == 200, r.get_json()
    chie = seat_phone(client, table, 2)
    view = f"/t/{table['id']}/view?token={chie}"
    # the buttons: the game's short words, without the seat (it is the phone's own move)
    en, ja = (client.get(f"{view}&lang={lang}").get_data(as_text=True) for lang in ("en", "ja"))
    # (a hand of cards shows as chips: each card button's name is its words, aria-label)
    assert 'aria-label="Play green 4"' in en and "<span>Pass</span>" in en and "Chie" not in en.split('class="step1')[-1]
    assert 'aria-label="緑4を出す"' in ja and "<span>パスする</span>" in ja
    r = client.post(f"/api/tables/{table['id']}/move", json={"version": 2, "move": {"player": 2, "kind": "play", "card": "S-G3"}},
                    headers=_player(table))
    assert r.status_code == 200
    # Ann passed or played her banner: the camera cannot tell, the phones ask in their language
    r = client.post(f"/api/tables/{table['id']}/observe", json={"observation": {"trick": [], "won": [0, 0, 1]}},
                    headers=_host(table))
    assert r.get_json()["result"]["kind"] == "prompt"
    # the choices name Ann's banner: Chie's phone may not learn it, the host's page asks
    mine = client.get(f"{view}&lang=en").get_data(as_text=True)
    assert "red banner" not in mine and "the host or scorekeeper answers" in mine
    view = f"/t/{table['id']}/view?token={table['host_token']}"
    en, ja = (client.get(f"{view}&lang={lang}").get_data(as_text=True) for lang in ("en", "ja"))
    assert "Ann (red) plays red banner" in en and "Ann (red) passes" in en and "Ann(赤)" not in en
    assert "Ann(赤)が赤の軍旗を出す" in ja and "Ann(赤)がパスする" in ja and "plays red banner" not in ja
