"""The player, game and overview pages, the host's corrections (CSRF-checked, host only, undoable)
and the BG Stats import through the web app: Flask's test client on a real SQLite file."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.history import query
from companion.history.record import backfill
from tests.companion.history.test_history_stats import figures, play, store  # noqa: F401  (the hand-made plays)
from tests.web_helpers import make_app
from webui.core import charts

REMOTE = {"REMOTE_ADDR": "192.168.1.23"}
EXAMPLE = Path(__file__).parents[1] / "data" / "bgstats-example.json"


@pytest.fixture
def client(tmp_path, figures):  # noqa: F811
    """The web app on the store holding the hand-made plays (Ann, Ben, Chie; spartacus, hills, wheel)."""
    return make_app(tmp_path, DB=str(tmp_path / "h.db")).test_client()


def csrf(client, url="/history") -> str:
    """The CSRF token a host page hands out (and sets as the cookie)."""
    html = client.get(url).get_data(as_text=True)
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_a_players_page_shows_figures_streaks_and_head_to_head(client):
    html = client.get("/history?lang=en").get_data(as_text=True)
    assert 'href="/history/player?name=Ann' in html                  # names lead to the player page
    filtered = client.get("/history?player=Ben&game=hills&lang=en").get_data(as_text=True)
    assert 'id="player-link" href="/history/player?name=Ben' in filtered
    assert 'id="game-link" href="/history/game/hills' in filtered
    page = client.get("/history/player?name=ann&lang=en").get_data(as_text=True)
    assert '<h1 class="person-name" id="player-name">Ann</h1>' in page
    assert 'id="streak-now">3<' in page and 'id="streak-best">3<' in page
    assert 'id="player-h">2<' in page and 'id="player-ph">2<' in page
    row = re.search(r'<tr data-other="Ben">(.*?)</tr>', page).group(1)
    assert re.findall(r'class="num">(\d+)<', row) == ["5", "3", "1", "1"]   # plays, won, lost, drawn
    assert page.count('class="game-chart"') == 3 and "<polyline" in page
    ja = client.get("/history/player?name=Ann&lang=ja").get_data(as_text=True)
    assert "対戦成績" in ja and "最長連勝" in ja and "得点の推移" in ja
    # a play's seats are listed as each language lists them (QA game night: "Ann 9, ★コンパニオン(中級) 19")
    seats = re.findall(r'<span class="small">(.*?)</span></div>', ja)
    assert seats and all(", " not in line and "、" in line for line in seats), seats[:3]
    assert client.get("/history/player?name=Zed").status_code == 404


def test_the_overview_and_a_game_page(client):
    page = client.get("/history/overview?lang=en").get_data(as_text=True)
    assert 'id="ov-plays">6<' in page and 'id="ov-h">2<' in page and 'id="ov-ph">2<' in page
    assert 'id="ov-most">Spartacus<' in page and 'class="chart columns"' in page
    assert re.search(r'data-record="h_highest"><th>Highest score</th><td class="num">70</td>', page)
    assert re.search(r'data-record="h_longest">.*?55 min', page)
    game = client.get("/history/game/hills?lang=ja").get_data(as_text=True)
    assert 'id="ov-plays">2<' in game and "最高記録" in game and "月ごとのプレイ数" in game
    assert client.get("/history/game/chess").status_code == 404


def test_pages_and_changes_are_the_hosts(client):
    for url in ("/history/overview", "/history/game/spartacus", "/history/player?name=Ann", "/history/play/t1-1"):
        assert client.get(url, environ_base=REMOTE).status_code == 403, url
    token = csrf(client)
    for url in ("/history/play/t1-1/delete", "/history/play/t1-1/undo", "/history/import"):
        assert client.post(url, data={"csrf": token}, environ_base=REMOTE).status_code == 403, url
    assert len(query.plays(client.application.extensions["tables"].store)) == 6


def test_a_correction_needs_the_forms_token_and_undo_takes_it_back(client):
    store = client.application.extensions["tables"].store
    before = {p.id: p for p in query.plays(store)}["t1-1"]
    form = {"name0": "Ann", "score0": "77", "winner0": "1", "name1": "Ben", "score1": "40", "minutes": "41"}
    token = csrf(client, "/history/play/t1-1")                                        # the cookie is set
    assert client.post("/history/play/t1-1", data=form).status_code == 403            # no token
    assert client.post("/history/play/t1-1", data=dict(form, csrf="forged-token-123456")).status_code == 403
    r = client.post("/history/play/t1-1", data=dict(form, csrf=token),
                    headers={"Origin": "http://evil.example"})
    assert r.status_code == 403                                                      # another site's page
    assert {p.id: p for p in query.plays(store)}["t1-1"] == before
    r = client.post("/history/play/t1-1?lang=en", data=dict(form, csrf=token))
    assert r.status_code == 303 and "done=corrected" in r.headers["Location"]
    fixed = {p.id: p for p in query.plays(store)}["t1-1"]
    assert [(s.score, s.winner) for s in fixed.seats] == [(77, True), (40, False)] and fixed.duration == 41 * 60
    html = client.get(r.headers["Location"]).get_data(as_text=True)
    assert "Play corrected." in html and 'id="undo-done"' in html and "corrected</span>" in html
    backfill(store)                                                                   # a rebuild keeps it
    assert {p.id: p for p in query.plays(store)}["t1-1"] == fixed
    bad = client.post("/history/play/t1-1?lang=ja", data=dict(form, score1="lots", csrf=token))
    assert bad.status_code == 400 and "整数" in bad.get_data(as_text=True)
    twice = client.post("/history/play/t1-1?lang=ja", data=dict(form, name1="ann", csrf=token))
    assert twice.status_code == 400 and "同じ名前の席が2つ" in twice.get_data(as_text=True)
    assert {p.id: p for p in query.plays(store)}["t1-1"] == fixed                    # refused: unchanged
    r = client.post("/history/play/t1-1/undo", data={"csrf": token})
    assert r.status_code == 303 and {p.id: p for p in query.plays(store)}["t1-1"] == before


def test_a_deleted_play_leaves_the_statistics_and_can_be_restored(client):
    store = client.application.extensions["tables"].store
    token = csrf(client)
    r = client.post("/history/play/t6-1/delete?lang=en", data={"csrf": token})
    assert r.status_code == 303
    html = client.get(r.headers["Location"]).get_data(as_text=True)
    assert "Play deleted." in html and 'data-play="t6-1"' in html            # listed under Deleted plays
    assert 'id="play-t6-1"' not in html
    assert query.overview(query.plays(store)).plays == 5
    assert 'id="ov-plays">5<' in client.get("/history/overview").get_data(as_text=True)
    assert client.post("/history/play/t6-1/undo", data={"csrf": token}).status_code == 303
    assert query.overview(query.plays(store)).plays == 6
    assert client.post("/history/play/t6-1/undo", data={"csrf": token}).status_code == 409   # nothing left to undo
    assert client.post("/history/play/nope-1/delete", data={"csrf": token}).status_code == 404


def upload(client, token, content: bytes, lang="en"):
    return client.post(f"/history/import?lang={lang}", data={"csrf": token, "file": (io.BytesIO(content), "export.json")},
                       content_type="multipart/form-data")


def test_a_bgstats_file_is_previewed_then_imported_with_a_merge(client):
    store = client.application.extensions["tables"].store
    token = csrf(client)
    r = upload(client, token, EXAMPLE.read_bytes())
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "3 plays of other games left out (Catan 2, Azul 1)" in html
    assert "matched by Japanese title" in html and "ignored in BG Stats" in html
    assert len(query.plays(store)) == 6                                        # a preview writes nothing
    ja = upload(client, token, EXAMPLE.read_bytes(), "ja").get_data(as_text=True)
    assert "件の他のゲームのプレイは読み込みません" in ja and "BG Statsで集計から除外" in ja
    pending = re.search(r'name="token" value="([^"]+)"', html).group(1)
    chie_s = re.search(r'<tr data-ref="(\d+)"><td class="who">Chie S\.', html).group(1)
    r = client.post("/history/import?lang=en", data={"csrf": token, "token": pending, f"merge{chie_s}": "Chie"})
    assert r.status_code == 303 and "n=4" in r.headers["Location"]
    assert "Imported from BG Stats: 4 plays" in client.get(r.headers["Location"]).get_data(as_text=True)
    assert len(query.plays(store)) == 10 and "Chie S." not in query.known_players(store)


def test_the_same_bgstats_file_twice_brings_nothing_new_and_keeps_the_merge(client):
    store = client.application.extensions["tables"].store
    token = csrf(client)
    html = upload(client, token, EXAMPLE.read_bytes()).get_data(as_text=True)
    pending = re.search(r'name="token" value="([^"]+)"', html).group(1)
    chie_s = re.search(r'<tr data-ref="(\d+)"><td class="who">Chie S\.', html).group(1)
    client.post("/history/import?lang=en", data={"csrf": token, "token": pending, f"merge{chie_s}": "Chie"})
    assert len(query.plays(store)) == 10
    again = upload(client, token, EXAMPLE.read_bytes()).get_data(as_text=True)
    assert "4 already imported, 0 new" in again and 'id="import-confirm"' not in again   # nothing to import
    assert "already imported from BG Stats before (4 plays)" in again
    ja = upload(client, token, EXAMPLE.read_bytes(), "ja").get_data(as_text=True)
    assert "読み込み済み4件、新規0件" in ja
    # a later export holds the same plays and new ones: only those are new, Chie S. is still Chie
    later = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    later["plays"] += [dict(p, uuid=f"{p['uuid'][:-4]}beef") for p in later["plays"] if "uuid" in p]
    html = upload(client, token, json.dumps(later).encode()).get_data(as_text=True)
    assert "4 already imported, 4 new" in html
    row = re.search(rf'<tr data-ref="{chie_s}">.*?</tr>', html, re.S).group(0)
    assert '<option value="">= Chie</option>' in row                            # the merge is remembered
    assert len(query.plays(store)) == 10


def test_the_web_restores_its_own_json_backup(client, tmp_path):
    backup = client.get("/history/export?format=json").get_data()
    fresh = make_app(tmp_path / "fresh", DB=str(tmp_path / "fresh.db")).test_client()
    store = fresh.application.extensions["tables"].store
    assert query.plays(store) == []
    token = csrf(fresh)
    html = upload(fresh, token, backup).get_data(as_text=True)
    assert "This backup holds 6 recorded plays and 3 players" in html and query.plays(store) == []   # a preview first
    pending = re.search(r'name="token" value="([^"]+)"', html).group(1)
    r = fresh.post("/history/import?lang=en", data={"csrf": token, "token": pending})
    assert r.status_code == 303 and "Backup restored: 6 plays" in fresh.get(r.headers["Location"]).get_data(as_text=True)
    assert sorted(p.id for p in query.plays(store)) == sorted(p.id for p in query.plays(client.application.extensions["tables"].store))


def test_the_import_page_counts_one_and_many_as_each_language_does(client):
    """Issue 23 point 10: "1 play of another game left out", not "1 plays" (and one form in Japanese)."""
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    ours = {g["id"] for g in data["games"] if g["name"] in ("Catan",)}
    data["plays"] = [p for p in data["plays"] if p["gameRefId"] not in ours]     # Azul's one play is left
    token = csrf(client)
    en = upload(client, token, json.dumps(data).encode()).get_data(as_text=True)
    assert "1 play of another game left out (Azul 1)" in en and "1 plays" not in en
    ja = upload(client, token, json.dumps(data).encode(), lang="ja").get_data(as_text=True)
    assert "1件の他のゲームのプレイは読み込みません" in ja


def test_a_large_export_is_read_and_a_bad_file_is_refused_changing_nothing(client):
    store = client.application.extensions["tables"].store
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    template = data["plays"][0]
    data["plays"] += [dict(template, uuid=f"C{i:07d}-0000-4000-8000-000000000000", gameRefId=4) for i in range(3000)]
    big = json.dumps(data).encode()
    assert len(big) > 1024 * 1024                                             # far over the app's 64 kB
    token = csrf(client)
    html = upload(client, token, big).get_data(as_text=True)
    assert "3003 plays of other games left out" in html
    for content, words in ((b"{", "cannot be imported"), (b'{"format": "x"}', "not a BG Stats export"),
                           (b"\xff\xfe", "not UTF-8")):
        r = upload(client, token, content)
        assert r.status_code == 400 and words in r.get_data(as_text=True), words
    assert len(query.plays(store)) == 6


@settings(max_examples=60, deadline=None)
@given(first=st.integers(0, 11), months=st.integers(1, 24), counts=st.data(), lang=st.sampled_from(["en", "ja"]))
def test_month_labels_never_touch_whatever_the_span(first, months, counts, lang):
    from webui.history.routes import month_chart
    per_month = [(f"{2025 + (first + i) // 12}-{(first + i) % 12 + 1:02d}", counts.draw(st.integers(0, 400)))
                 for i in range(months)]
    svg = str(month_chart(per_month, lang))
    height = float(re.search(r'viewBox="0 0 \d+ ([\d.]+)"', svg).group(1))
    texts = [(float(x), float(y), cls, text) for x, y, cls, text in
             re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*class="([^"]+)">([^<]*)</text>', svg)]
    for row in {y for _, y, cls, _ in texts if cls == "tick"}:   # month names (middle-anchored), counts
        boxes = sorted((x - charts.text_width(t, charts.TICK) / 2, x + charts.text_width(t, charts.TICK) / 2)
                       for x, y, cls, t in texts if y == row and cls in ("tick", "tick count") and "end" not in cls)
        assert all(a[1] <= b[0] for a, b in zip(boxes, boxes[1:])), (row, boxes)
    years = sorted((x, x + charts.text_width(t, charts.TICK)) for x, _, cls, t in texts if cls == "tick group")
    assert years and all(a[1] <= b[0] for a, b in zip(years, years[1:]))
    assert all(0 <= x and x + charts.text_width(t, charts.TICK) <= charts.WIDTH + 1 for x, _, cls, t in texts
               if cls == "tick group") and all(0 < y <= height for _, y, _, _ in texts)
    assert svg.count("<rect") == months


def test_an_empty_history_has_pages_that_say_so(tmp_path):
    client = make_app(tmp_path).test_client()
    for url in ("/history/overview?lang=en", "/history/game/wheel?lang=ja"):
        r = client.get(url)
        assert r.status_code == 200 and 'id="no-plays"' in r.get_data(as_text=True) and "<svg" not in r.get_data(as_text=True)


def test_renaming_a_seat_leaves_the_duration_as_it_was(client):
    """Only a name changed: the minutes field, sent back as the form showed it (rounded), must not
    turn a 41 min 20 s play into 41 min (nor a 30 s play into a minute, which the tiles then showed)."""
    store = client.application.extensions["tables"].store
    before = {p.id: p for p in query.plays(store)}["t2-1"]
    shown = re.search(r'name="minutes" value="(\d+)"', client.get("/history/play/t2-1").get_data(as_text=True))
    token = csrf(client, "/history/play/t2-1")
    store._db().execute("UPDATE plays SET duration = ? WHERE id = 't2-1'", (int(shown.group(1)) * 60 + 20,))
    seats = {f"{k}{i}": v for i, s in enumerate(before.seats)
             for k, v in (("name", s.name + "x"), ("score", str(s.score)), ("winner", "1" if s.winner else ""))}
    r = client.post("/history/play/t2-1?lang=en", data=dict(seats, minutes=shown.group(1), csrf=token))
    assert r.status_code == 303
    fixed = {p.id: p for p in query.plays(store)}["t2-1"]
    assert fixed.duration == int(shown.group(1)) * 60 + 20 and fixed.seats[0].name == before.seats[0].name + "x"
    assert client.post("/history/play/t2-1/undo", data={"csrf": token}).status_code == 303
