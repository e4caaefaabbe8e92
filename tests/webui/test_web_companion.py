"""The companion at a table through the web: the host gives it seats (form, with a level each),
every page says its move, one tap plays it; whole games of every title with companions in every seat
but one."""
from __future__ import annotations

import random
import re

import pytest

from companion.players import rules
from companion.session.autoplay import companion_name
from tests.web_helpers import NAMES, join, make_app, seat_phone, state

GAMES = (("hills", 2), ("wheel", 3), ("spartacus", 3), ("prussia", 2), ("chains", 2))


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = make_app(tmp_path_factory.mktemp("companion"))
    return app.test_client()


def host_table(client, game: str, players: int, companions: dict[int, str], names: str = "",
               location: str = "") -> dict:
    """Create a table with the host page's form, companion seats included; its id and host cookie."""
    page = client.get("/host").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    form = {"csrf": csrf, "game": game, "players": str(players), "names": names, "location": location}
    form.update({f"companion_{seat}": level for seat, level in companions.items()})
    r = client.post("/host", data=form)
    assert r.status_code == 302, r.get_data(as_text=True)[:500]
    table_id = r.headers["Location"].split("/host/")[1].split("?")[0]
    host = client.get(r.headers["Location"], follow_redirects=True)
    assert host.status_code == 200
    token = re.search(r'data-token="([^"]+)"', host.get_data(as_text=True)).group(1)
    code = re.search(r'id="join-code">([^<]+)<', host.get_data(as_text=True)).group(1)
    return {"id": table_id, "code": code, "host_token": token, "host_page": host.get_data(as_text=True)}


@pytest.mark.parametrize("game,players", GAMES)
def test_a_whole_game_with_companions_in_every_seat_but_one(client, monkeypatch, game, players):
    """Seat 0 is a person's phone; the others are the companion (levels mixed); its moves are
    confirmed by a tap on the person's phone. Every move is the one every page announced."""
    from companion.players import chains_fast
    if game == "chains":   # Chains' strong player searches shared deals, not engine playouts
        monkeypatch.setattr(chains_fast, "ROUNDS", 3)
    else:
        monkeypatch.setattr(rules(game), "PLAYOUTS", 4)
    monkeypatch.setattr(rules("prussia"), "SOLO_SAMPLES", 4)
    levels = {seat: ("beginner", "good", "strong")[seat % 3] for seat in range(1, players)}
    table = host_table(client, game, players, levels)
    phone = seat_phone(client, table, 0)
    rng = random.Random(players)
    companion_moves = 0
    for _ in range(2000):
        st = state(client, table, phone)
        if st["is_over"]:
            break
        said = st["companion"]
        headers = {"X-Table-Token": phone}
        if st["current_player"] == -1:
            r = client.post(f"/api/tables/{table['id']}/deal", json={"version": st["version"]},
                            headers={"X-Table-Token": table["host_token"]})
        elif said is not None:
            assert said["seat"] == st["current_player"] and said["level"] == levels[said["seat"]]
            # the seat by the name every page gives it (two companion seats at one level are numbered)
            name = st["names"][said["seat"]]
            assert said["text"].startswith(f"{name} ") and "Player" not in said["text"]
            assert said["ja"].startswith(f"{companion_name(said['level'], 'ja')}が")   # in Japanese words
            assert f"({said['level']})" in name
            r = client.post(f"/api/tables/{table['id']}/companion", json={"version": st["version"]},
                            headers=headers)
            assert r.status_code == 200, r.get_json()
            # the host's export names every card: the move played is the one announced
            moves = client.get(f"/api/tables/{table['id']}/export",
                               headers={"X-Table-Token": table["host_token"]}).get_json()["games"][-1]["moves"]
            assert {k: v for k, v in moves[-1].items() if k not in ("version", "override")} == said["move"]
            companion_moves += 1
            continue
        else:
            assert st["current_player"] == 0
            moves = [m["move"] for g in st["groups"] for m in g["moves"]]
            r = client.post(f"/api/tables/{table['id']}/move",
                            json={"version": st["version"], "move": rng.choice(moves)}, headers=headers)
        assert r.status_code == 200, r.get_json()
    assert st["is_over"] and companion_moves > 0


def test_seats_given_by_the_host_are_named_and_kept_between_games(client):
    """The form names a companion seat for its level (the history keeps it as a player); the host
    changes seats between games, not during one; a bad level changes nothing."""
    table = host_table(client, "hills", 2, {1: "strong"}, names="Ann")
    st = state(client, table, table["host_token"])
    assert st["companions"] == {"1": "strong"}
    assert "Companion (strong)" in table["host_page"] and 'id="companion-seats"' in table["host_page"]
    page = client.get(f"/host/{table['id']}").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    bad = client.post(f"/host/{table['id']}/companions", data={"csrf": csrf, "companion_1": "godlike"})
    assert bad.status_code == 400 and "beginner|good|strong" in bad.get_data(as_text=True)
    assert state(client, table, table["host_token"])["companions"] == {"1": "strong"}
    phone = seat_phone(client, table, 0)
    st = state(client, table, phone)
    move = [m["move"] for g in st["groups"] for m in g["moves"]][0]
    assert client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": move},
                       headers={"X-Table-Token": phone}).status_code == 200
    during = client.post(f"/host/{table['id']}/companions", data={"csrf": csrf, "companion_1": "good"})
    assert during.status_code == 400 and "between games" in during.get_data(as_text=True)
    assert 'id="companion-seats"' not in client.get(f"/host/{table['id']}").get_data(as_text=True)
    # a watcher sees the companion's move but has no button for it
    watcher = join(client, table, "watcher")
    seen = state(client, table, watcher)
    assert seen["companion"]["seat"] == 1
    refused = client.post(f"/api/tables/{table['id']}/companion", json={"version": seen["version"]},
                          headers={"X-Table-Token": watcher})
    assert refused.status_code == 403
    assert len(NAMES) >= 2


def test_the_phone_help_on_the_companion_in_both_languages(client):
    """The help page (docs/players.md's table section) in English and in Japanese."""
    en = client.get("/help/companion?lang=en").get_data(as_text=True)
    ja = client.get("/help/companion?lang=ja").get_data(as_text=True)
    assert "Seats for the companion" in en and "Done: the card is laid" in en and "information-set" in en
    assert "コンパニオンの席" in ja and "置いた" in ja and "情報集合モンテカルロ法" in ja
    assert "テーブルで" not in en and "At the table" not in ja


def test_the_json_api_gives_seats_to_the_companion_and_the_history_shows_it(client):
    """POST /api/tables with "companions" (seat from 0 → level): named for it, given to it; a bad
    level or seat is a 400 that creates nothing. Once the game ends, the history lists the seat as
    the companion's and Ann's page shows her record against it per level, in both languages."""
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    import sqlite3
    db = client.application.config["DB"]
    tables_stored = lambda: sqlite3.connect(db).execute("SELECT COUNT(*) FROM sessions").fetchone()[0]  # noqa: E731
    count = tables_stored()
    for companions, words in (({"1": "godlike"}, "Unknown companion level 'godlike' for seat 2"),
                              ({"2": "good"}, "Seat 3 is not at this table of 2"),
                              (["good"], '"companions" must be an object')):
        r = client.post("/api/tables", json={"game": "hills", "players": 2, "names": ["Ann"],
                                             "companions": companions})
        assert r.status_code == 400 and words in r.get_json()["error"], r.get_json()
    assert tables_stored() == count
    r = client.post("/api/tables", json={"game": "spartacus", "players": 3, "names": ["Ann", "", "Ben"],
                                         "companions": {"1": "strong"}})
    assert r.status_code == 201, r.get_json()
    table = r.get_json()
    st = state(client, table, table["host_token"])
    assert st["companions"] == {"1": "strong"} and st["names"] == ["Ann", "Companion (strong)", "Ben"]
    s = TableSession.open(Store(db), table["id"])
    tap_through(s, 3)
    cookie = {"REMOTE_ADDR": "127.0.0.1"}
    history = client.get("/history?lang=en", environ_base=cookie).get_data(as_text=True)
    assert "Companion (strong)" in history
    en = client.get("/history/player?name=Ann&lang=en", environ_base=cookie).get_data(as_text=True)
    ja = client.get("/history/player?name=Ann&lang=ja", environ_base=cookie).get_data(as_text=True)
    assert 'id="against-companion"' in en and 'data-level="strong"' in en and "Against the companion" in en
    assert "コンパニオンとの対戦" in ja and "上級" in ja and "Against the companion" not in ja
    assert client.get("/history/player?name=Companion%20(strong)&lang=en",
                      environ_base=cookie).status_code == 404   # the companion is no person


def test_a_companion_seat_the_host_named_says_so_on_the_play_page_and_in_the_history(client):
    """Seat "Robo" given to the companion (good): the play page and the history add "companion, good"
    to the name (「コンパニオン・中級」 in Japanese); a seat called "Companion (good)" needs no tag."""
    table = host_table(client, "hills", 2, {1: "good"}, names="Ann,Robo")
    view = lambda lang: client.get(f"/t/{table['id']}/view?token={table['host_token']}&lang={lang}").get_data(as_text=True)  # noqa: E731
    assert 'Robo <span class="small muted companion-seat">(companion, good)</span>' in view("en")
    assert 'companion-seat">(コンパニオン・中級)</span>' in view("ja")
    assert view("en").count('class="small muted companion-seat"') == 1   # Ann is a person
    plain = host_table(client, "hills", 2, {1: "good"}, names="Ann")
    assert 'class="small muted companion-seat"' not in client.get(f"/t/{plain['id']}/view?token={plain['host_token']}&lang=en").get_data(as_text=True)
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    tap_through(TableSession.open(Store(client.application.config["DB"]), table["id"]), 5)
    history = client.get("/history?lang=en", environ_base={"REMOTE_ADDR": "127.0.0.1"}).get_data(as_text=True)
    assert "Robo (companion, good)" in history


def test_a_phone_cannot_take_the_companions_seat(client):
    """The seat picker offers only the persons' seats (a phone at the companion's seat would show its
    hidden hand, in Seven Hills the opponent's); claiming it anyway is refused, in both languages; the
    host's seat list says the companion plays it, with no "free" and no "→ seat" button for it."""
    table = host_table(client, "hills", 2, {1: "beginner"}, names="Ann, Ben")
    watcher = join(client, table, "Chie")
    client.set_cookie(f"tc_{table['id']}", watcher)
    page = client.get(f"/t/{table['id']}").get_data(as_text=True)
    assert 'data-seat="0"' in page and 'class="big primary claim" data-seat="1"' not in page
    refused = client.post(f"/api/tables/{table['id']}/seat", json={"seat": 1},
                          headers={"X-Table-Token": watcher})
    assert refused.status_code == 409 and refused.get_json()["ja"]
    assert "companion plays this seat" in refused.get_json()["error"]
    client.delete_cookie(f"tc_{table['id']}")
    host = client.get(f"/host/{table['id']}").get_data(as_text=True)
    admin = host.split('id="seat-admin"')[1].split("</details>")[0]
    assert "Ben</td>" in admin and "Companion: beginner" in admin
    assert 'data-seat="1">→' not in admin and 'data-seat="0">→ Ann' in admin


def test_a_named_companion_seat_never_becomes_a_player_and_the_location_carries_on(tmp_path):
    """The host names the companion's seat "Ben" and says where the table is: Ben is no known player
    (History's player list, the form's suggestions), not after a rematch either (the companion keeps
    its seat); both plays carry the location, which the next new-table form suggests."""
    from companion.history import query
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    client = make_app(tmp_path).test_client()
    table = host_table(client, "hills", 2, {1: "good"}, names="Ann, Ben", location="  Café   Meeple ")
    store = Store(client.application.config["DB"])
    tap_through(TableSession.open(store, table["id"]), 3)
    assert state(client, table, table["host_token"])["is_over"]   # the server's table catches up
    r = client.post("/history/rematch", data={"table": table["id"]}, headers={"X-Table-Token": table["host_token"]})
    assert r.status_code == 302
    new_id = r.headers["Location"].rsplit("/", 1)[-1].split("?")[0]
    again = TableSession.open(store, new_id)
    assert again.companions == {1: "good"} and again.location == "Café Meeple"
    tap_through(again, 4)
    assert query.known_players(store) == ["Ann"]
    plays = query.read_plays(store._db(), "", ())
    assert [p.location for p in plays] == ["Café Meeple", "Café Meeple"]
    assert all(p.seats[1].companion == "good" and p.seats[1].player is None for p in plays)
    history = client.get("/history?lang=en").get_data(as_text=True)
    players = history.split('name="player"')[1].split("</select>")[0]
    assert "Ann" in players and "Ben" not in players and "Companion" not in players
    assert "Ben (companion, good)" in history
    csrf = re.search(r'name="csrf" value="([^"]+)"', history).group(1)   # a rematch from a play of the history
    r = client.post("/history/rematch", data={"play": plays[0].id, "csrf": csrf})
    third = TableSession.open(store, r.headers["Location"].rsplit("/", 1)[-1].split("?")[0])
    assert third.companions == {1: "good"} and third.location == "Café Meeple" and third.id != again.id
    form = client.get("/host?lang=ja").get_data(as_text=True)
    assert 'list="known-locations"' in form and '<option value="Café Meeple">' in form
    assert "テーブルの場所" in form and 'data-name="Ben"' not in form


def test_the_companions_move_names_its_seat_and_two_seats_at_one_level_are_told_apart(client):
    """Spartacus, one person and two companions (good): the seats are "Companion 1 (good)" and
    "Companion 2 (good)" (「コンパニオン1(中級)」 on a Japanese form), and the move every page says
    names the seat that moves, not "Player 2" nor the engine's "P2 (blue)" (seen at a game night)."""
    table = host_table(client, "spartacus", 3, {1: "good", 2: "good"}, names="Ann")
    st = state(client, table, table["host_token"])
    assert st["names"] == ["Ann", "Companion 1 (good)", "Companion 2 (good)"]
    ja = host_table(client, "spartacus", 3, {1: "good", 2: "strong"}, names="Aki")
    assert state(client, ja, ja["host_token"])["names"][1:] == ["Companion (good)", "Companion (strong)"]
    page = client.get("/host?lang=ja").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    r = client.post("/host?lang=ja", data={"csrf": csrf, "game": "wheel", "players": "3", "names": "Aki",
                                           "companion_1": "beginner", "companion_2": "beginner"})
    wheel = r.headers["Location"].split("/host/")[1].split("?")[0]
    host = client.get(r.headers["Location"]).get_data(as_text=True)
    token = re.search(r'data-token="([^"]+)"', host).group(1)
    names = client.get(f"/api/tables/{wheel}/state?lang=ja", headers={"X-Table-Token": token}).get_json()["names"]
    assert names == ["Aki", "コンパニオン1(初級)", "コンパニオン2(初級)"]
    phone = seat_phone(client, table, 0)
    rng = random.Random(3)
    said_by = set()
    for _ in range(60):
        st = state(client, table, phone)
        said = st["companion"]
        if said:
            name, name_ja = st["names"][said["seat"]], f"コンパニオン{said['seat']}(中級)"
            assert said["text"].startswith(f"{name} ") and said["ja"].startswith(f"{name_ja}が")
            assert "P2" not in said["text"] and "P3" not in said["text"] and "Player" not in said["text"]
            said_by.add(said["seat"])
            r = client.post(f"/api/tables/{table['id']}/companion", json={"version": st["version"]},
                            headers={"X-Table-Token": phone})
        else:
            moves = [m["move"] for g in st["groups"] for m in g["moves"]]
            r = client.post(f"/api/tables/{table['id']}/move",
                            json={"version": st["version"], "move": rng.choice(moves)}, headers={"X-Table-Token": phone})
        assert r.status_code == 200, r.get_json()
        if said_by == {1, 2}:
            break
    assert said_by == {1, 2}


def test_a_rematch_names_the_companion_seat_for_its_new_level(tmp_path):
    """The host plays against "Companion (good)", makes it strong between games and taps Rematch: the
    new table calls the seat "Companion (strong)" (it said "Companion (good) (companion, strong)"),
    and the history names each play's seat for the level it played. A seat given back to a person
    is "P2", not "Companion (good)"."""
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    client = make_app(tmp_path).test_client()
    table = host_table(client, "hills", 2, {1: "good"}, names="Ann")
    store = Store(client.application.config["DB"])
    tap_through(TableSession.open(store, table["id"]), 3)
    assert state(client, table, table["host_token"])["is_over"]
    page = client.get(f"/host/{table['id']}").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert client.post(f"/host/{table['id']}/companions", data={"csrf": csrf, "companion_1": "strong"}).status_code == 302
    r = client.post("/history/rematch", data={"table": table["id"]}, headers={"X-Table-Token": table["host_token"]})
    again = TableSession.open(store, r.headers["Location"].rsplit("/", 1)[-1].split("?")[0])
    assert again.names == ["Ann", "Companion (strong)"] and again.companions == {1: "strong"}
    host = client.get(r.headers["Location"]).get_data(as_text=True)
    assert "(companion, strong)" not in host
    tap_through(again, 4)
    history = client.get("/history?lang=en").get_data(as_text=True)
    assert "(companion, strong)" not in history and "Companion (strong)" in history and "Companion (good)" in history
    page = client.get(f"/host/{again.id}").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    client.post(f"/host/{again.id}/companions", data={"csrf": csrf, "companion_1": ""})
    r = client.post("/history/rematch", data={"table": again.id}, headers={"X-Table-Token": again_host(client, again)})
    third = TableSession.open(store, r.headers["Location"].rsplit("/", 1)[-1].split("?")[0])
    assert third.names == ["Ann", "P2"] and third.companions == {}


def again_host(client, session) -> str:
    """The host token of a table the client's cookie hosts (a rematch's new table)."""
    page = client.get(f"/host/{session.id}").get_data(as_text=True)
    return re.search(r'data-token="([^"]+)"', page).group(1)


def test_a_name_typed_for_a_seat_later_given_to_the_companion_is_no_known_player(tmp_path):
    """Names "Ann, Robo", then the host gives Robo's seat to the companion before the game: the
    create form's picker no longer offers Robo (it was remembered as a person when the table was
    made); Ann, who played, stays."""
    from companion.history import query
    from companion.session import Store
    client = make_app(tmp_path).test_client()
    table = host_table(client, "hills", 2, {}, names="Ann, Robo")
    store = Store(client.application.config["DB"])
    assert query.known_players(store) == ["Ann", "Robo"]
    page = client.get(f"/host/{table['id']}").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert client.post(f"/host/{table['id']}/companions", data={"csrf": csrf, "companion_1": "good"}).status_code == 302
    assert query.known_players(store) == ["Ann"]
    assert 'data-name="Robo"' not in client.get("/host").get_data(as_text=True)


def test_the_history_score_chart_counts_the_persons_seats_not_the_companions(tmp_path):
    """Two plays of Ann against the companion: the Seven Hills section's score chart holds Ann's two
    scores, not four (the companion holds no record of its own), and its heading says so."""
    from markupsafe import escape
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    client = make_app(tmp_path).test_client()
    store = Store(client.application.config["DB"])
    for seed in (3, 4):
        table = host_table(client, "hills", 2, {1: "good"}, names="Ann")
        tap_through(TableSession.open(store, table["id"]), seed)
    for lang, heading in (("en", "Scores of the persons' seats (not the companion's)"),
                          ("ja", "人の席の得点分布(コンパニオンの席は除く)")):
        page = client.get(f"/history?lang={lang}").get_data(as_text=True)
        chart = page.split(f'aria-label="{escape(heading)}"')[1].split("</svg>")[0]
        counts = [int(n) for n in re.findall(r">(\d+) ?(?:seats?|席)<", chart)]
        assert sum(counts) == 2, (lang, counts)
        assert "Scores of all seats" not in page and "全員の得点分布" not in page


def test_at_the_end_the_hosts_rematch_comes_before_the_companions_seats_form(tmp_path):
    """Game over on the host screen: "Needs you" (Rematch) stands above the seats form, which pushed it
    below a phone's first screen (seen on a 360 px host), with a link down to the form (EN/JA)."""
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    client = make_app(tmp_path).test_client()
    table = host_table(client, "hills", 2, {1: "good"}, names="Ann")
    tap_through(TableSession.open(Store(client.application.config["DB"]), table["id"]), 3)
    for lang, words in (("en", "Change the companion&#39;s seats or level before the rematch"),
                        ("ja", "再戦の前にコンパニオンの席やレベルを変える")):
        page = client.get(f"/host/{table['id']}?lang={lang}").get_data(as_text=True)
        assert page.index('id="needs-host"') < page.index('id="rematch"') < page.index('id="companion-seats"')
        assert 'href="#companion-seats" id="companion-seats-link">' + words in page


def test_at_the_end_of_a_game_without_the_companion_the_host_is_told_it_can_take_a_seat(tmp_path):
    """Chie goes home after game 1: the form that gives her seat to the companion stood far down a
    phone-sized host screen with nothing pointing to it (the link was only for tables that had a
    companion already); "Needs you" now points to it (EN/JA)."""
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    client = make_app(tmp_path).test_client()
    table = host_table(client, "spartacus", 3, {}, names="Ann,Ben,Chie")
    tap_through(TableSession.open(Store(client.application.config["DB"]), table["id"]), 3)
    for lang, words in (("en", "Someone leaving? Give their seat to the companion for the rematch"),
                        ("ja", "帰る人がいますか? 再戦ではその席をコンパニオンに任せられます")):
        page = client.get(f"/host/{table['id']}?lang={lang}").get_data(as_text=True)
        needs = page.split('id="needs-host"')[1].split("</section>")[0]
        assert f'href="#companion-seats" id="companion-seats-link">{words}</a>' in needs
        assert page.index('id="needs-host"') < page.index('id="companion-seats"')


def test_the_hosts_seat_line_names_a_companion_seat_once(client):
    """The host's seat line said "Companion (good) (Companion)" / 「コンパニオン(上級) (コンパニオン)」;
    an app-named seat now needs no tag, a seat the host named gets "(companion, good)"."""
    plain = host_table(client, "hills", 2, {1: "good"}, names="Ann")
    named = host_table(client, "hills", 2, {1: "good"}, names="Ann,Robo")
    for lang, word in (("en", "Companion"), ("ja", "コンパニオン")):
        line = lambda t: client.get(f"/t/{t['id']}/view?token={t['host_token']}&lang={lang}").get_data(  # noqa: E731
            as_text=True).split('class="seat-line small"')[1].split("</summary>")[0]
        assert f"({word})" not in line(plain) and "companion-seat" not in line(plain)
        assert "Robo" in line(named) and ("(companion, good)" if lang == "en" else "(コンパニオン・中級)") in line(named)


def test_the_override_picker_opens_at_the_seat_to_move(client):
    """The host's override / correction picker opened on the first seat's tab whatever seat was to
    move (seen correcting the companion's move mid-game): it opens at the seat to move."""
    from tests.web_helpers import new_table, step
    table = new_table(client, "wheel", 3, companions={"2": "good"})
    rng = random.Random(2)
    while state(client, table)["current_player"] != 2:
        st = state(client, table)
        if st["companion"]:
            client.post(f"/api/tables/{table['id']}/companion", json={"version": st["version"]},
                        headers={"X-Table-Token": table["token"]})
        else:
            assert step(client, table, rng).status_code == 200
    html = client.get(f"/t/{table['id']}/override?token={table['host_token']}").get_data(as_text=True)
    on = re.search(r'class="big ov-seat on"[^>]*>([^<]+)<', html).group(1)
    assert on == state(client, table)["names"][2] == "Chie"   # the companion's seat, named by the host
    shown = re.findall(r'<div class="ov-panel" data-panel="(\d)"(?! hidden)>', html)
    assert shown == ["2"]


def _until_the_companion_moves(s) -> dict:
    """Tap seat 0's moves (and deal) until the companion is to move; its proposal."""
    from companion.session import autoplay
    rng = random.Random(5)
    while (said := autoplay.proposal(s)) is None:
        assert not s.is_over()
        move = s.game.sample_chance(rng) if s.game.is_chance_node() else rng.choice(s.legal_moves())
        s.play(move, by="phone", expected_version=s.version)
    return said


def _played_then_made_strong(tmp_path):
    """Ann against "Companion (good)" to the end of a Seven Hills game, then the host makes it strong
    for the next game: the client, the table and the store."""
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    client = make_app(tmp_path).test_client()
    table = host_table(client, "hills", 2, {1: "good"}, names="Ann")
    store = Store(client.application.config["DB"])
    tap_through(TableSession.open(store, table["id"]), 3)
    page = client.get(f"/host/{table['id']}").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert client.post(f"/host/{table['id']}/companions", data={"csrf": csrf, "companion_1": "strong"}).status_code == 302
    return client, table, store


def test_a_level_changed_between_games_of_a_series_renames_the_app_named_seat(tmp_path):
    """After a game against "Companion (good)" the host makes it strong and starts the series' next
    game (no rematch): the seat is "Companion (strong)" on every page and in its moves' words (it
    stayed "Companion (good)"); the first game's log still says what it was then."""
    from companion.session import TableSession, autoplay
    client, table, store = _played_then_made_strong(tmp_path)
    host = {"X-Table-Token": table["host_token"]}
    r = client.post(f"/api/tables/{table['id']}/next", json={"version": state(client, table, table["host_token"])["version"]},
                    headers=host)
    assert r.status_code == 200, r.get_json()
    assert state(client, table, table["host_token"])["names"] == ["Ann", "Companion (strong)"]
    s = TableSession.open(store, table["id"])
    said = _until_the_companion_moves(s)
    assert said["text"].startswith("Companion (strong) ") and said["ja"].startswith("コンパニオン(上級)が")
    autoplay.confirm(s, by="Ann (companion)", expected_version=s.version)
    last = s.history()[-1]
    assert last["text"].startswith("Companion (strong) ") and last["ja"].startswith("コンパニオン(上級)が"), last
    first_game = [e["text"] for e in s.history() if "Companion (" in e["text"]]
    assert any("Companion (good" in text for text in first_game)   # game 1 as it was played
    line = client.get(f"/t/{table['id']}/view?token={table['host_token']}&lang=en").get_data(as_text=True)
    seat_line = line.split('class="seat-line small"')[1].split("</summary>")[0]
    assert "Companion (strong)" in seat_line and "Companion (good)" not in seat_line


def test_an_app_named_seat_reads_in_the_viewers_language_on_every_page(tmp_path):
    """A table made on an English page: a Japanese page calls its companion seat 「コンパニオン(中級)」
    on the host screen, the phone's state, the move it says, the log and the end screen (the name
    stayed "Companion (good)" everywhere but History); and the other way round."""
    from companion.session import Store, TableSession, autoplay
    from tests.companion.history.test_history import tap_through
    client = make_app(tmp_path).test_client()
    table = host_table(client, "hills", 2, {1: "good"}, names="Ann")
    store = Store(client.application.config["DB"])
    s = TableSession.open(store, table["id"])
    assert _until_the_companion_moves(s)["ja"].startswith("コンパニオン(中級)が")
    autoplay.confirm(s, by="Ann (companion)", expected_version=s.version)
    view = lambda lang: client.get(f"/t/{table['id']}/view?token={table['host_token']}&lang={lang}").get_data(  # noqa: E731
        as_text=True)
    ja = client.get(f"/api/tables/{table['id']}/state?lang=ja", headers={"X-Table-Token": table["host_token"]}).get_json()
    assert ja["names"] == ["Ann", "コンパニオン(中級)"]
    said = [e for e in ja["events"] if "コンパニオン(中級" in e["ja"]]
    assert said and not [e for e in ja["events"] if "Companion" in e["ja"]]
    page = view("ja")
    assert "コンパニオン(中級)" in page and "Companion (good)" not in page
    assert "Companion (good)" in view("en") and "コンパニオン(中級)" not in view("en")
    tap_through(s, 2)
    end = view("ja")
    assert 'class="result"' in end and "コンパニオン(中級)" in end and "Companion (good)" not in end
    host = client.get(f"/host/{table['id']}?lang=ja").get_data(as_text=True)
    assert "コンパニオン(中級)" in host and "Companion (good)" not in host
    listing = client.get("/host?lang=ja").get_data(as_text=True)   # the tables of this machine
    assert "Ann, コンパニオン(中級)" in listing and "Companion (good)" not in listing
    # made on a Japanese page, read in English
    page = client.get("/host?lang=ja").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    r = client.post("/host?lang=ja", data={"csrf": csrf, "game": "hills", "players": "2", "names": "Aki",
                                           "companion_1": "strong"})
    other = r.headers["Location"].split("/host/")[1].split("?")[0]
    english = client.get(f"/host/{other}?lang=en").get_data(as_text=True)
    assert "Companion (strong)" in english and "コンパニオン" not in english


def test_any_seats_phone_enters_the_card_turned_over_for_the_companion(client):
    """A Chains flip of the companion's seat said on every phone "Companion (good) turns the card over
    and enters it on their phone": it has no phone, and only the host screen could enter it. Every
    seat's phone enters it now (someone turns its card over, as they lay its cards); a watcher may not."""
    table = host_table(client, "chains", 3, {2: "good"}, names="Ann,Ben")
    ann, ben = seat_phone(client, table, 0), seat_phone(client, table, 1)
    watcher = join(client, table, "Gran")
    host = {"X-Table-Token": table["host_token"]}
    rng = random.Random(2)
    for _ in range(300):
        st = state(client, table, ben)
        if st["current_player"] == -1 and st["turner"] == 2:
            break
        if st["prompts"]:
            p = st["prompts"][0]
            r = client.post(f"/api/tables/{table['id']}/answer", headers=host,
                            json={"prompt": p["id"], "choice": p["choices"][0]["id"], "version": st["version"]})
        elif st["current_player"] == -1:
            r = client.post(f"/api/tables/{table['id']}/deal", json={"version": st["version"]}, headers=host)
        elif st["companion"]:
            r = client.post(f"/api/tables/{table['id']}/companion", json={"version": st["version"]}, headers=host)
        else:
            mine = state(client, table, (ann, ben)[st["current_player"]])
            move = rng.choice([m["move"] for g in mine["groups"] for m in g["moves"]])
            r = client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": move},
                            headers={"X-Table-Token": (ann, ben)[st["current_player"]]})
        assert r.status_code == 200, r.get_json()
    else:
        pytest.fail("the companion's seat never turned a card over")
    for lang, said in (("en", "turn the companion&#39;s card over and enter it"),
                       ("ja", "コンパニオンのカードをめくって入力してください")):
        client.set_cookie(f"tc_{table['id']}", ben)
        page = client.get(f"/t/{table['id']}/view?lang={lang}").get_data(as_text=True)
        assert said in page and "on their phone" not in page and "details class=\"chance\" open" in page.replace("  ", " ")
    flips = [m["move"] for g in st["groups"] for m in g["moves"] if m["move"]["player"] == -1]
    assert flips, st["groups"]
    refused = client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": flips[0]},
                          headers={"X-Table-Token": watcher})
    assert refused.status_code == 403
    r = client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"], "move": flips[0]},
                    headers={"X-Table-Token": ben})
    assert r.status_code == 200, r.get_json()


def test_a_persons_seat_given_to_the_companion_after_a_game_is_the_companions(tmp_path):
    """Chie goes home after game 1 and the host gives her seat to the companion: her phone kept the
    seat (it showed the companion's hand and could move for it) and the rematch called the companion
    "Chie (companion, good)", with her phone following into that seat. Her phone watches now and the
    rematch names the seat for the companion; a companion the host named at creation keeps its name."""
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    client = make_app(tmp_path).test_client()
    table = host_table(client, "spartacus", 4, {3: "good"}, names="Ann,Ben,Chie,Robo")
    chie = join(client, table)   # joined by the QR with no name: "Chie's phone" while she holds the seat
    assert client.post(f"/api/tables/{table['id']}/seat", json={"seat": 2},
                       headers={"X-Table-Token": chie}).status_code == 200
    store = Store(client.application.config["DB"])
    tap_through(TableSession.open(store, table["id"]), 3)
    page = client.get(f"/host/{table['id']}").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    r = client.post(f"/host/{table['id']}/companions", data={"csrf": csrf, "companion_2": "good", "companion_3": "good"})
    assert r.status_code == 302
    mine = state(client, table, chie)
    assert mine["viewer"] == {"role": "watch", "seat": None}
    # the host's list still says whose phone it is (it said "phone 3", QA game night of session 10)
    listed = client.get(f"/host/{table['id']}?lang=en").get_data(as_text=True)
    assert "Chie" in re.search(r"Other phones(.*?)</table>", listed, re.S).group(1)
    r = client.post("/history/rematch", data={"table": table["id"]}, headers={"X-Table-Token": table["host_token"]})
    again = TableSession.open(store, r.headers["Location"].rsplit("/", 1)[-1].split("?")[0])
    assert again.names == ["Ann", "Ben", "Companion (good)", "Robo"] and again.companions == {2: "good", 3: "good"}
    assert not [p for p in store.phones(again.id) if p["role"] == "seat" and p["seat"] == 2]


def test_a_finished_game_names_its_companion_seat_for_the_level_it_played(tmp_path):
    """After the game the host makes the companion strong for the next one: the finished game's end
    screen said "Game over — Companion (strong) wins" though it played at good (History said good);
    it names the level played until the next game begins, and the rematch the new one."""
    from companion.session import TableSession
    client, table, store = _played_then_made_strong(tmp_path)
    st = state(client, table, table["host_token"])
    assert st["names"] == ["Ann", "Companion (good)"] and st["companions"] == {"1": "strong"}
    for lang, played, now in (("en", "Companion (good)", "Companion (strong)"), ("ja", "コンパニオン(中級)", "コンパニオン(上級)")):
        end = client.get(f"/t/{table['id']}/view?token={table['host_token']}&lang={lang}").get_data(as_text=True)
        table_part = end.split('id="end-table"')[1].split("</section>")[0]
        assert played in table_part and now not in table_part, lang
        seat_line = end.split('class="seat-line small"')[1].split("</summary>")[0]
        assert played in seat_line and "companion-seat" not in seat_line, lang   # not "(companion, strong)"
    r = client.post("/history/rematch", data={"table": table["id"]}, headers={"X-Table-Token": table["host_token"]})
    again = TableSession.open(store, r.headers["Location"].rsplit("/", 1)[-1].split("?")[0])
    assert again.names == ["Ann", "Companion (strong)"]


def test_saving_the_companions_seats_says_so(client):
    """"Save the seats" reloaded the host page at its top with no word that anything was saved (the
    form stands far below on a phone): the page says it (a toast, EN/JA)."""
    table = host_table(client, "hills", 2, {}, names="Ann,Ben")
    for lang, said in (("en", "The companion&#39;s seats are saved."), ("ja", "コンパニオンの席を保存しました。")):
        page = client.get(f"/host/{table['id']}?lang={lang}").get_data(as_text=True)
        assert "data-said" not in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        r = client.post(f"/host/{table['id']}/companions?lang={lang}", data={"csrf": csrf, "companion_1": "good"})
        assert r.status_code == 302
        page = client.get(r.headers["Location"]).get_data(as_text=True)
        assert f'data-said="{said}"' in page, lang
