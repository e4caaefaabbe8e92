"""Issue 23, the details of a game night. Point 5: a Seven Hills log that speaks of players, an
override picker that offers each seat only the cards it could hold, and a face-down card corrected
by asking the seat's phone (the host cannot see it: the host proposes, that phone confirms or
denies with its own card in view). Point 6: the camera's picture beside a replayed move. Point 7:
a ruling is a thing to do, not a decision; the watcher's page. Point 10: Prussia's score and
places in words."""
from __future__ import annotations

import json
import re

import pytest

from tests.web_helpers import join, make_app

NAMES = ["Ann", "Ben"]


@pytest.fixture
def client(tmp_path):
    return make_app(tmp_path).test_client()


def _hills(client):
    """A Seven Hills table whose two seats are held by Ann's and Ben's phones; (table, tokens)."""
    r = client.post("/api/tables", json={"game": "hills", "players": 2, "names": NAMES})
    table = r.get_json()
    tokens = []
    for seat, name in enumerate(NAMES):
        token = join(client, table, name)
        assert client.post(f"/api/tables/{table['id']}/seat", json={"seat": seat},
                           headers={"X-Table-Token": token}).status_code == 200
        tokens.append(token)
    return table, tokens


def _state(client, table, token):
    return client.get(f"/api/tables/{table['id']}/state", headers={"X-Table-Token": token}).get_json()


def _post(client, table, what, body, token):
    version = _state(client, table, token)["version"]
    return client.post(f"/api/tables/{table['id']}/{what}", json=dict(body, version=version),
                       headers={"X-Table-Token": token})


def _place(client, table, token, seat, hill, card):
    r = _post(client, table, "move", {"move": {"player": seat, "kind": "place", "hill": hill, "card": card}}, token)
    assert r.status_code == 200, r.get_json()


def _log(state, lang="en"):
    return [e["text"] if lang == "en" else e["ja"] for e in state["events"]]


def test_the_log_lists_placements_and_reveals_by_player_name(client):
    table, (ann, ben) = _hills(client)
    for token, seat, hill, card in ((ann, 0, 3, "H-R5"), (ben, 1, 1, "H-B2"), (ann, 0, 2, "H-R7")):
        _place(client, table, token, seat, hill, card)
    for token in (ben, table["host_token"]):   # Ann's cards lie face down: named by nobody
        st = _state(client, table, token)
        assert _log(st) == ["Ann places a card face down at hill 3.", "Ben places a card face down at hill 1.",
                            "Ann places a card face down at hill 2."]
        assert "H-R7" not in json.dumps(st) and "red 7" not in json.dumps(st)
    assert _log(_state(client, table, ben), "ja")[0] == "Annが丘3にカードを伏せて置きました。"
    _place(client, table, ben, 1, 3, "H-B4")   # the second player arrives: hill 3 turns face up
    assert _log(_state(client, table, ann))[-2:] == ["Ben places a card face down at hill 3.",
                                                     "Hill 3 revealed: Ann 5; Ben 4."]
    _place(client, table, ann, 0, 6, "H-R8")
    _place(client, table, ben, 1, 7, "H-B7")
    _place(client, table, ann, 0, 3, "H-R9")   # at a face-up hill the card is seen
    assert _log(_state(client, table, ben))[-1] == "Ann places red 9 at hill 3."


def _picker_cards(client, table, tab):
    """The cards the host's override picker offers in seat tab ``tab`` (0 Ann, 1 Ben)."""
    client.set_cookie(f"tc_{table['id']}", table["host_token"])
    html = client.get(f"/t/{table['id']}/override").get_data(as_text=True)
    panel = html.split(f'<div class="ov-panel" data-panel="{tab}"')[1].split('<div class="ov-panel"')[0]
    return {json.loads(m).get("card") for m in re.findall(r"data-move='([^']+)'", panel)}


def test_the_override_picker_offers_each_seat_only_the_cards_it_could_hold(client):
    table, (ann, ben) = _hills(client)
    for token, seat, hill, card in ((ann, 0, 3, "H-R5"), (ben, 1, 1, "H-B2"), (ann, 0, 2, "H-R7"),
                                     (ben, 1, 3, "H-B4")):   # red 5 and blue 4 lie face up now
        _place(client, table, token, seat, hill, card)
    ann_cards, ben_cards = _picker_cards(client, table, 0), _picker_cards(client, table, 1)
    assert ann_cards == {f"H-R{v}" for v in range(1, 10) if v != 5} | {None}   # None: a face-down card
    # blue 4 is back in Ben's hand for a correction of his last move; no red card, no banner (no variant)
    assert ben_cards == {f"H-B{v}" for v in range(1, 10)} | {None}


def test_a_face_down_card_is_corrected_by_asking_its_seat(client):
    table, (ann, ben) = _hills(client)
    host = table["host_token"]
    _place(client, table, ann, 0, 3, "H-R5")
    # the host saw Ann lay it at hill 4: it proposes "a face-down card at hill 4" (it cannot see which)
    r = _post(client, table, "correct", {"move": {"player": 0, "kind": "place", "hill": 4, "card": None}}, host)
    assert r.status_code == 200 and r.get_json()["asked"] == 0, r.get_json()
    mine = _state(client, table, ann)["prompts"]
    assert [(p["kind"], p["card"], [c["id"] for c in p["choices"]]) for p in mine] == [("confirm", "H-R5", ["yes", "no"])]
    assert "red 5" in mine[0]["text"] and "hill 4" in mine[0]["text"]   # her phone words it with her card
    for token in (host, ben):   # nobody else sees the card, nor may say yes for Ann
        st = _state(client, table, token)
        assert "H-R5" not in json.dumps(st)
        assert [c["id"] for c in st["prompts"][0]["choices"]] == (["no"] if token == host else [])
    said = _log(_state(client, table, ben))[-1]
    assert said.startswith("The host asks Ann to confirm on their phone:") and "hill 4" in said
    assert _post(client, table, "answer", {"prompt": mine[0]["id"], "choice": "yes"}, host).status_code == 403
    assert _post(client, table, "answer", {"prompt": mine[0]["id"], "choice": "yes"}, ben).status_code == 403
    # the game waits for Ann's answer, and Ben's phone says whose
    client.set_cookie(f"tc_{table['id']}", ben)
    assert "Waiting for Ann&#39;s answer" in client.get(f"/t/{table['id']}/view").get_data(as_text=True)
    r = _post(client, table, "move", {"move": {"player": 1, "kind": "place", "hill": 2, "card": "H-B1"}}, ben)
    assert r.status_code in (400, 422) and _state(client, table, ben)["view"]["layout"]["hills"][1]["blue"] == []
    assert _post(client, table, "answer", {"prompt": mine[0]["id"], "choice": "yes"}, ann).status_code == 200
    st = _state(client, table, ben)
    hills = st["view"]["layout"]["hills"]
    assert (hills[2]["red"], hills[3]["red"]) == ([], ["B-HILLR"]) and not st["prompts"]
    # each move in quotes (session 9: the sentence read as one run-on before)
    assert _log(st)[-2:] == ["Host replaced “Ann (red) places a face-down card at hill 3” with “Ann (red) places a "
                             "face-down card at hill 4” (Ann confirmed it on their phone).",
                             "Ann places a card face down at hill 4."]
    # asked again, Ann says no: nothing changes, and the log says so
    r = _post(client, table, "correct", {"move": {"player": 0, "kind": "place", "hill": 6, "card": None}}, host)
    pid = _state(client, table, ann)["prompts"][0]["id"]
    assert _post(client, table, "answer", {"prompt": pid, "choice": "no"}, ann).status_code == 200
    st = _state(client, table, ben)
    assert st["view"]["layout"]["hills"][3]["red"] == ["B-HILLR"] and st["view"]["layout"]["hills"][5]["red"] == []
    assert _log(st)[-1] == "Ann said no: the move stays as it was."
    # a card the host sees (face up once hill 2 is revealed) is corrected at once, as before
    for token, seat, hill, card in ((ben, 1, 2, "H-B3"), (ann, 0, 5, "H-R1"), (ben, 1, 6, "H-B6"),
                                     (ann, 0, 2, "H-R2")):
        _place(client, table, token, seat, hill, card)
    r = _post(client, table, "correct", {"move": {"player": 0, "kind": "place", "hill": 2, "card": "H-R8"}}, host)
    assert r.status_code == 200 and "asked" not in r.get_json()
    assert _state(client, table, ben)["view"]["layout"]["hills"][1]["red"] == ["H-R8"]


def test_a_replay_shows_the_cameras_picture_only_where_one_was_kept(tmp_path):
    """Point 6: the camera's picture per move (kept by the camera feed, tests/webui/test_web_cli.py
    films a game) beside the replayed move; a move without one shows none; the store keeps it small."""
    import numpy as np

    from companion.session.store import FRAME_BYTES, FRAMES_KEPT
    from webui.camera.camera import small_jpeg
    app = make_app(tmp_path)
    tables = app.extensions["tables"]
    s = tables.create("hills", 2, names=NAMES, options={})
    from companion.engine import Move
    s.play(Move.of(0, "place", hill=3, card=None), expected_version=0)   # version 1 (the camera sees backs)
    s.play(Move.of(1, "place", hill=1, card=None), expected_version=1)   # version 2
    s.note({"said": "the camera asked"})                                  # version 3: no move
    s.play(Move.of(0, "place", hill=2, card=None), expected_version=3)   # version 4
    noisy = np.random.default_rng(1).integers(0, 255, (1080, 1920, 3), dtype=np.uint8)   # the worst case for JPEG
    picture = small_jpeg(noisy)
    assert picture is not None and len(picture) <= FRAME_BYTES
    assert tables.store.keep_frame(s.id, 1, picture)
    assert not tables.store.keep_frame(s.id, 2, b"\xff\xd8" + bytes(FRAME_BYTES))   # too big: refused
    assert not tables.store.keep_frame(s.id, 2, b"GIF89a")                          # no JPEG: refused
    s.end_game(expected_version=s.version)
    client = app.test_client()
    client.set_cookie(f"tch_{s.id}", tables.host_token(s.id))
    assert tables.store.keep_frame(s.id, 3, picture)   # the picture of a question the next move answered
    first, second, third = (client.get(f"/host/{s.id}/replay?step={n}").get_data(as_text=True) for n in (1, 2, 3))
    assert 'id="replay-frame"' in first and "/replay/frame/1.jpg" in first
    assert 'id="replay-frame"' not in second   # no picture kept for that move: none shown
    assert "/replay/frame/3.jpg" in third       # the move settled after the camera's question
    assert client.get(f"/host/{s.id}/replay/frame/2.jpg").status_code == 404
    assert client.get(f"/host/{s.id}/replay/frame/1.jpg").data == picture
    other = app.test_client()   # a phone that is not the host sees no picture
    assert other.get(f"/host/{s.id}/replay/frame/1.jpg").status_code in (401, 403)
    for version in range(5, FRAMES_KEPT + 13):   # bounded: the oldest pictures go
        tables.store.keep_frame(s.id, version, picture)
    assert len(tables.store.frame_versions(s.id)) == FRAMES_KEPT and 1 not in tables.store.frame_versions(s.id)


def test_a_chains_misfit_is_a_thing_to_do_not_a_decision(client):
    """Point 7: a ruling the players carry out by hand (a ruined work area to the dead pile) shows
    as "To do at the table" in the banner that says it, not as a "Needs a decision" box with nothing
    to decide."""
    from companion.engine import simulate
    from companion.games import new_game
    r = client.post("/api/tables", json={"game": "chains", "players": 2, "names": NAMES})
    table = r.get_json()
    ann = join(client, table, "Ann")
    client.post(f"/api/tables/{table['id']}/seat", json={"seat": 0}, headers={"X-Table-Token": ann})
    s = client.application.extensions["tables"].get(table["id"])
    for move, events in simulate(new_game("chains", 2), 2).turns:
        s.play(move, expected_version=s.version)
        if any(e.kind == "work_ruined" for e in events):
            break
    else:
        pytest.fail("no misfit in this game")
    assert [p.kind for p in s.prompts] == ["ruling"]
    client.set_cookie(f"tc_{table['id']}", ann)
    for lang, todo, decision in (("en", "To do at the table", "Needs a decision"), ("ja", "卓でやること", "判断が必要")):
        html = client.get(f"/t/{table['id']}/view?lang={lang}").get_data(as_text=True)
        # the banner says what to do already: its "Done" stands in it, no second box repeats it
        banner = html.split('prompt k-ruling"')[1].split("</div>")[0]
        assert todo in banner and 'data-choice="done"' in banner and decision not in html
        assert ("dead pile" in banner or "死に札" in banner) and 'class="prompt card' not in html


def test_the_watcher_page_speaks_to_a_watcher(client):
    """Point 7: a phone without a seat is told it watches and what it sees; while a seat is free it
    may still claim it, and it is told it may also just watch."""
    r = client.post("/api/tables", json={"game": "hills", "players": 2, "names": NAMES})
    table = r.get_json()
    ann = join(client, table, "Ann")
    client.post(f"/api/tables/{table['id']}/seat", json={"seat": 0}, headers={"X-Table-Token": ann})
    gran = join(client, table, "Gran")
    client.set_cookie(f"tc_{table['id']}", gran)
    html = client.get(f"/t/{table['id']}/view").get_data(as_text=True)
    assert 'id="seat-picker"' in html and "follows the table as a watcher" in html
    assert 'data-seat="1"' in html and 'class="big primary claim" data-seat="0"' not in html   # Ann's is taken
    ben = join(client, table, "Ben")
    client.post(f"/api/tables/{table['id']}/seat", json={"seat": 1}, headers={"X-Table-Token": ben})
    for lang, words in (("en", ("You are watching", "no one’s hand")), ("ja", ("観戦中", "誰の手札も見えません"))):
        html = client.get(f"/t/{table['id']}/view?lang={lang}").get_data(as_text=True)
        assert 'id="watching"' in html and all(w in html for w in words)
        assert 'id="seat-picker"' not in html and "Which seat is yours?" not in html and "あなたの席は" not in html


def test_prussia_explains_its_score_and_its_places_read_as_the_move(client):
    """Point 10: the victory score is explained beside the scores; a placement's buttons stand
    under the move they make ("Place ♠2 between…", each button the two nations)."""
    from tests.web_helpers import new_table
    table = new_table(client, "prussia", 1)
    token = table["token"]
    for lang, words in (("en", "0 defeat, 1 draw, 2 victory, 3 great victory"), ("ja", "0 敗北、1 引き分け、2 勝利、3 大勝利")):
        assert words in client.get(f"/t/{table['id']}/view?token={token}&lang={lang}").get_data(as_text=True)
    two = new_table(client, "prussia", 2)
    assert "1 for the side that wins" in client.get(f"/t/{two['id']}/view?token={two['token']}").get_data(as_text=True)
    s = client.application.extensions["tables"].get(table["id"])
    while not any(m.kind == "place" for m in s.legal_moves()):   # draw until a card is to be placed
        move = s.chance_moves()[0] if s.game.current_player() < 0 else s.legal_moves()[0]
        s.play(move, expected_version=s.version)
    drawn = s.game.describe_move(_draw(s.game.drawn), short=True)
    html = client.get(f"/t/{table['id']}/view?token={token}").get_data(as_text=True)
    title = re.search(r'<h3 class="pick-title">([^<]+)</h3>', html).group(1)
    assert title == f"Ann&#39;s move: Place {drawn} between…", title


def _draw(card):
    """The chance move that turned ``card`` up (its short words name the card as players say it)."""
    from companion.engine import CHANCE, Move
    return Move.of(CHANCE, "draw", card=card)


def test_one_card_in_hand_is_said_in_the_singular(client):
    """Point 10, plurals: a Seven Hills hand the camera knows only as a set says "1 card in your hand"."""
    from companion.engine import simulate
    from companion.games import new_game
    r = client.post("/api/tables", json={"game": "hills", "players": 2, "names": NAMES,
                                         "options": {"hidden_values": True}})
    table = r.get_json()
    ann = join(client, table, "Ann")
    client.post(f"/api/tables/{table['id']}/seat", json={"seat": 0}, headers={"X-Table-Token": ann})
    s = client.application.extensions["tables"].get(table["id"])
    for seed in range(20):
        game = new_game("hills", 2, {"hidden_values": True})
        turns = [m for m, _ in simulate(game, seed).turns]
        replay = new_game("hills", 2, {"hidden_values": True})
        for n, move in enumerate(turns):
            replay.apply(move)
            if replay.hand_count[0] == 1 and replay.hand(0) is None and replay.current_player() >= 0:
                break
        else:
            continue
        break
    for move in turns[:n + 1]:
        s.play(move, expected_version=s.version)
    client.set_cookie(f"tc_{table['id']}", ann)
    html = client.get(f"/t/{table['id']}/view").get_data(as_text=True)
    assert "1 card in your hand and" in html and "1 cards" not in html


def test_a_count_of_one_is_said_in_the_singular(client):
    """Point 10, plurals: "for 1 player", and a sticker sheet that is one sheet."""
    r = client.post("/api/tables", json={"game": "prussia", "players": 1, "names": ["Ann", "Ben"]})
    assert r.status_code == 400 and "2 names for 1 player:" in r.get_json()["error"]
    from types import SimpleNamespace

    from webui.printing.routes import Choice, summary
    with client.application.test_request_context():
        assert summary(Choice("stickers"), SimpleNamespace(cards=12, pages=1), "en") == "12 labels, 1 sheet of labels"
        assert summary(Choice("stickers"), SimpleNamespace(cards=109, pages=6), "en") == "109 labels, 6 sheets of labels"


def test_a_hand_the_app_does_not_know_is_picked_suit_first(client):
    """Point 10: a two-player Prussia hand dealt at the table (any unseen card) is picked by its
    suit, then the card; the second step asks which card, not where it goes."""
    from tests.web_helpers import new_table
    table = new_table(client, "prussia", 2)
    r = client.post(f"/api/tables/{table['id']}/deal", json={"version": 0}, headers={"X-Table-Token": table["token"]})
    assert r.status_code == 200, r.get_json()   # dealt at the table: the hands are not entered
    html = client.get(f"/t/{table['id']}/view?token={table['token']}").get_data(as_text=True)
    heads = re.findall(r'<p class="step2-head">(.*?)</p>', html, re.S)
    suits = [h for h in heads if re.search(r"<b>[♠♥♦♣]</b>", h)]
    assert len(suits) >= 2 and all("which card?" in h and "where does it go" not in h for h in suits)


def test_the_phone_camera_fold_out_says_what_k_cal_markers_are(client):
    """Point 10: the camera set-up says what the K-CAL markers are and where they are printed."""
    r = client.post("/api/tables", json={"game": "hills", "players": 2, "names": NAMES})
    table = r.get_json()
    for lang, words in (("en", ("K-CAL1 to K-CAL4", "companion print tokens", "calibration sheet")),
                        ("ja", ("K-CAL1〜K-CAL4", "companion print tokens", "キャリブレーションシート"))):
        client.set_cookie(f"tch_{table['id']}", table["host_token"])
        html = client.get(f"/host/{table['id']}?lang={lang}").get_data(as_text=True)
        said = html.split('id="phonecam-markers">')[1].split("</p>")[0]
        assert all(w in said for w in words) and 'href="/print' in said, said


def test_a_chains_card_turned_up_can_be_corrected_to_another_card_of_that_deck(client):
    """Game night: the host's "Replace the last move" for a card Ann turned over offered only the card
    the app had recorded (a 2), so a misread card could not be put right."""
    r = client.post("/api/tables", json={"game": "chains", "players": 2, "names": NAMES})
    table, host = r.get_json(), r.get_json()["host_token"]
    assert _post(client, table, "deal", {}, host).status_code == 200   # the terminals laid out
    r = _post(client, table, "move", {"move": {"player": 0, "kind": "deck_to_work"}}, host)
    assert r.status_code == 200, r.get_json()
    assert _post(client, table, "deal", {}, host).status_code == 200   # the app turns Ann's card over
    turned = _state(client, table, host)["moves"][-1]["card"]
    tabs = ["Ann", "Ben", "table"]
    offered = _picker_cards(client, table, tabs.index("table"))
    faces = [c.rsplit("-", 1)[0] for c in offered]   # a Chains card's deck and value (not which copy)
    assert sorted(faces) == sorted(f"C01-{v}" for v in range(2, 11)), offered   # 2-10 of Ann's deck, once each
    assert turned.rsplit("-", 1)[0] in faces
