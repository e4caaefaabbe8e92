"""Issue 23, point 9: locations from BG Stats (kept, shown, filtered, exported back), the History
page's date filter, the known players offered when a seat is renamed, chart colours by seat, and
"Log this play in BG Stats" sending the play as corrected. Flask's test client on a real SQLite file."""
from __future__ import annotations

import json
import random
import re
import sqlite3
import urllib.parse

from companion.cli import main
from companion.history import bgstats, edit, exchange, query
from companion.session.store import SCHEMA, Store
from tests.companion.history.test_history_stats import figures, play, store  # noqa: F401  (the hand-made plays)
from tests.web_helpers import make_app, new_table, state, step
from tests.webui.test_history_pages_web import EXAMPLE, REMOTE, client, csrf, upload  # noqa: F401
from webui.core import charts
from webui.history import routes

CAFE = "bgstats-B1000000-0000-4000-8000-000000000003"
"""The example export's Seven Hills play, at "Café Meeple" (the others are at "Home")."""


def imported(client) -> None:  # noqa: F811
    """The example BG Stats export imported through the page (preview, then confirm)."""
    token = csrf(client)
    html = upload(client, token, EXAMPLE.read_bytes()).get_data(as_text=True)
    pending = re.search(r'name="token" value="([^"]+)"', html).group(1)
    assert client.post("/history/import?lang=en", data={"csrf": token, "token": pending}).status_code == 303


def listed(html: str) -> set[str]:
    """The plays the page lists."""
    return set(re.findall(r'<article class="play" data-play="([^"]+)"', html))


def test_locations_come_from_bgstats_and_are_kept_shown_filtered_and_exported_back(client, tmp_path, capsys):  # noqa: F811
    store = client.application.extensions["tables"].store
    imported(client)
    where = {p.id: p.location for p in query.plays(store)}
    assert where[CAFE] == "Café Meeple" and where["bgstats-B1000000-0000-4000-8000-000000000001"] == "Home"
    assert where["t1-1"] is None                                     # a table's play: nobody said where
    assert query.locations(store) == ["Home", "Café Meeple"]          # most used first
    html = client.get("/history?lang=en").get_data(as_text=True)
    assert ">Café Meeple</span>" in html and ">Home</span>" in html and 'id="location-filter"' in html
    only = client.get("/history?location=caf%C3%A9+meeple&lang=en").get_data(as_text=True)   # any case
    assert listed(only) == {CAFE} and 'id="play-count">1<' in only
    assert 'id="filter-clear"' in only
    # exported back: BG Stats' file names each play's location, the backup and the CSV keep it
    back = json.loads(client.get("/history/export?format=bgstats").get_data(as_text=True))
    names = {loc["id"]: loc["name"] for loc in back["locations"]}
    by_source = {p["sourcePlayId"]: names[p["locationRefId"]] for p in back["plays"]}
    assert by_source[CAFE] == "Café Meeple" and by_source["t1-1"] == bgstats.SOURCE
    backup = json.loads(client.get("/history/export?format=json").get_data(as_text=True))
    assert {p["id"]: p.get("location") for p in backup["plays"]}[CAFE] == "Café Meeple"
    assert "Café Meeple" in client.get("/history/export?format=csv").get_data(as_text=True)
    # the command line filters by location too, and says where each play was
    assert main(["history", "list", "--db", str(store.path), "--location", "CAFÉ MEEPLE"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "@ Café Meeple" in out[0] and out[0].endswith(CAFE)
    # our BG Stats file read into an empty history gives every location back ("Table Companion" is none)
    fresh = Store(tmp_path / "fresh.db")
    exchange.import_text(fresh, json.dumps(back))
    assert {p.id: p.location for p in query.plays(fresh)} == where


def test_an_older_database_gains_the_location_column_and_keeps_its_plays(tmp_path, figures):  # noqa: F811
    path = tmp_path / "old.db"
    before = re.sub(r"\n\s*location\s+TEXT[^\n]*", "", SCHEMA).replace("tapped_moves INTEGER NOT NULL,",
                                                                       "tapped_moves INTEGER NOT NULL")
    assert before != SCHEMA and "location" not in before.split("CREATE TABLE IF NOT EXISTS plays")[1].split(");")[0]
    with sqlite3.connect(path) as db:   # the history's tables as they were before locations, with its plays
        db.executescript(before)
        db.execute("PRAGMA user_version = 1")
        db.execute("ATTACH ? AS h", (str(tmp_path / "h.db"),))
        for table in ("players", "play_seats"):
            db.execute(f"INSERT INTO {table} SELECT * FROM h.{table}")
        db.execute("INSERT INTO plays SELECT id, session, number, game, options, started, duration, ended_early, "
                   "camera_moves, tapped_moves FROM h.plays")
    old = Store(path)
    assert "location" in {row[1] for row in old._db().execute("PRAGMA table_info(plays)")}
    assert [p.id for p in query.plays(old)] == [p.id for p in figures]
    Store(path)                                                         # a second open changes nothing


def test_the_date_filter_is_followed_by_every_list_and_statistic(client):  # noqa: F811
    html = client.get("/history?from=2026-02-01&to=2026-02-28&lang=en").get_data(as_text=True)
    assert listed(html) == {"t3-1", "t4-1"} and 'id="play-count">2<' in html
    assert 'value="2026-02-01"' in html and 'value="2026-02-28"' in html   # the form (and export) keep it
    shares = re.search(r'id="win-share">(.*?)</section>', html, re.S).group(1)
    assert "Ann" in shares and "Chie" not in shares                      # Chie played neither
    assert "Wheel of History" not in re.sub(r"<select.*?</select>", "", html, flags=re.S)   # no section
    assert "37 min" in html                                              # time played: 25 + 12 minutes
    csv = client.get("/history/export?format=csv&from=2026-02-01&to=2026-02-28").get_data(as_text=True)
    assert {line.split(",")[3] for line in csv.splitlines()[1:]} == {"t3-1", "t4-1"}
    ja = client.get("/history?from=2026-02-01&to=2026-02-28&lang=ja").get_data(as_text=True)
    assert "すべてのプレイを表示" in ja
    assert client.get("/history?from=2026-13-40").status_code == 400      # a bad date is refused


def test_renaming_a_seat_offers_the_known_players(client):  # noqa: F811
    html = client.get("/history/play/t1-1?lang=en").get_data(as_text=True)
    assert re.findall(r'<input name="name\d" [^>]*list="known-players"', html) and html.count('list="known-players"') == 2
    offered = re.search(r'<datalist id="known-players">(.*?)</datalist>', html, re.S).group(1)
    assert re.findall(r'<option value="([^"]+)">', offered) == ["Ann", "Ben", "Chie"]   # most played first


def test_chart_colours_follow_the_seats(client):  # noqa: F811
    store = client.application.extensions["tables"].store
    # Ann sat in seat 1 at every play, Ben in seat 2 (mostly), Chie in 3 and 2: Chie takes the next free
    assert routes.person_colours(query.plays(store)) == {"Ann": charts.PALETTE[0], "Ben": charts.PALETTE[1],
                                                         "Chie": charts.PALETTE[2]}
    assert charts.seat_colours([("Dai", [3]), ("Eve", [3, 0])]) == {"Dai": charts.PALETTE[3],
                                                                    "Eve": charts.PALETTE[0]}
    html = client.get("/history?lang=en").get_data(as_text=True)
    shares = re.search(r'id="win-share">(.*?)</section>', html, re.S).group(1)
    assert re.search(r'>Ann</text><rect [^>]*fill="#c62828"', shares)   # the seat-1 red of the phones


def test_log_this_play_in_bgstats_sends_the_play_as_corrected(client):  # noqa: F811
    token = csrf(client, "/history/play/t1-1")
    form = {"name0": "Ann", "score0": "50", "winner0": "1", "name1": "Benjamin", "score1": "47", "minutes": "41",
            "location": "Club Meeple", "csrf": token}
    assert client.post("/history/play/t1-1?lang=en", data=form).status_code == 303
    html = client.get("/history?lang=en").get_data(as_text=True)
    button = re.search(r'<a class="button small to-bgstats" href="([^"]+/t1-1/bgstats)"', html).group(1)
    r = client.get(button)
    assert r.status_code == 303 and r.headers["Location"].startswith(bgstats.LINK)
    payload = json.loads(urllib.parse.unquote(r.headers["Location"].split("data=", 1)[1]))
    assert [(p["name"], int(p["score"]), p["winner"], p["rank"]) for p in payload["players"]] == [
        ("Ann", 50, True, 1), ("Benjamin", 47, False, 2)]                 # the corrected play, not the log's
    assert payload["durationMin"] == 41 and payload["location"] == "Club Meeple" and payload["sourcePlayId"] == "t1-1"
    assert client.get(button, environ_base=REMOTE).status_code == 403     # the host's only
    assert client.get("/history/play/nope-1/bgstats").status_code == 404


def test_the_end_screen_logs_the_table_s_play_in_bgstats_as_corrected(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    table = new_table(client, "hills", 2)
    rng = random.Random(3)
    while not state(client, table)["is_over"]:
        assert step(client, table, rng).status_code == 200
    tid = table["id"]
    client.set_cookie(f"tch_{tid}", table["host_token"])
    screen = client.get(f"/host/{tid}?lang=ja").get_data(as_text=True)
    assert f'href="/history/table/{tid}/bgstats" id="to-bgstats">このプレイをBG Statsに記録' in screen
    store = app.extensions["tables"].store
    played = query.plays(store)[0]
    edit.correct(store, played.id, [edit.SeatFix(s.name, s.score + 100 * (s.seat == 1), s.seat == 1)
                                    for s in played.seats])
    # the host who created the table from a phone (not this computer) may: the link is theirs
    r = client.get(f"/history/table/{tid}/bgstats", environ_base=REMOTE)
    assert r.status_code == 303 and r.headers["Location"].startswith(bgstats.LINK)
    payload = json.loads(urllib.parse.unquote(r.headers["Location"].split("data=", 1)[1]))
    assert [int(p["score"]) for p in payload["players"]] == [played.seats[0].score, played.seats[1].score + 100]
    assert [p["winner"] for p in payload["players"]] == [False, True]          # as corrected in History
    other = app.test_client()                                                  # a phone without the host's cookie
    assert other.get(f"/history/table/{tid}/bgstats", environ_base=REMOTE).status_code == 403


def test_a_filter_that_matches_no_play_says_so_not_no_plays_yet(client):  # noqa: F811
    """A date range with no play in it: the page says no play matches (and offers every play back),
    not "No plays yet", which told an owner with a full history that nothing was recorded."""
    for lang, said, wrong in (("en", "No play matches", "No plays yet"), ("ja", "条件に合うプレイはありません。", "まだ記録がありません")):
        html = client.get(f"/history?from=1990-01-01&to=1990-01-02&lang={lang}").get_data(as_text=True)
        assert 'id="play-count">0<' in html and said in html and wrong not in html
        assert 'id="filter-clear"' in html


def test_the_player_and_game_pages_follow_the_history_page_s_dates_and_location(client):  # noqa: F811
    """The History page's dates and location go with its links to a player's, a game's and the
    overview page, which count only those plays, say so, and offer every play back."""
    store = client.application.extensions["tables"].store
    if "Café Meeple" not in query.locations(store):
        imported(client)
    feb = "from=2026-02-01&to=2026-02-28"
    html = client.get(f"/history?{feb}&lang=en").get_data(as_text=True)
    links = re.findall(r'href="(/history/(?:player|game/|overview)[^"]*)"', html)
    assert len(links) >= 3 and all("from=2026-02-01" in u and "to=2026-02-28" in u for u in links)
    ann = client.get(f"/history/player?name=Ann&{feb}&lang=en").get_data(as_text=True)
    assert 'id="player-plays">2<' in ann and 'id="player-wins">1<' in ann    # t3 lost, t4 a draw
    assert 'id="scope"' in ann and "from 2026-02-01" in ann and 'id="scope-off" href="/history/player?name=Ann' in ann
    assert re.search(r'href="/history\?[^"]*from=2026-02-01', ann)          # back to the same History page
    whole = client.get("/history/player?name=Ann&lang=en").get_data(as_text=True)
    assert 'id="player-plays">2<' not in whole and 'id="scope"' not in whole
    cafe = client.get("/history/player?name=Ann&location=caf%C3%A9+meeple&lang=ja").get_data(as_text=True)
    assert 'id="player-plays">1<' in cafe and "すべての日付と場所" in cafe and "場所 caf" in cafe
    game = client.get(f"/history/game/spartacus?{feb}&lang=en").get_data(as_text=True)
    assert 'id="ov-plays">1<' in game and 'id="scope"' in game
    assert 'id="ov-plays">1<' not in client.get("/history/game/spartacus?lang=en").get_data(as_text=True)
    overview = client.get(f"/history/overview?{feb}&lang=en").get_data(as_text=True)
    assert 'id="ov-plays">2<' in overview
    assert client.get("/history/player?name=Ann&from=2026-13-40").status_code == 400   # refused as on History
