"""The History page, Rematch, the known-player picker and human dates in the web app (Flask's test
client on a real SQLite file); the end-of-game chart (issue 14, points 5 and 9)."""
from __future__ import annotations

import json
import random
import re
import sqlite3
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import dates
from tests.web_helpers import make_app, new_table, scorekeeper, state, step
from webui.core import charts
from webui.core.render import score_chart

REMOTE = {"REMOTE_ADDR": "192.168.1.23"}
"""A phone on the LAN: not the host's machine."""


def finish(client, table, seed=3):
    """Tap random legal moves until the game is over; return the final state."""
    rng = random.Random(seed)
    for _ in range(2000):
        st_ = state(client, table)
        if st_["is_over"]:
            return st_
        assert step(client, table, rng).status_code == 200
    raise AssertionError("the game did not end")


def view(client, table, token_key="host_token", lang="en"):
    r = client.get(f"/t/{table['id']}/view?token={table[token_key]}&lang={lang}")
    assert r.status_code == 200
    return r.get_data(as_text=True)


# ------------------------------------------------------------------------ point 9: the end chart
def test_one_finished_game_draws_no_series_chart_and_offers_a_rematch(tmp_path):
    client = make_app(tmp_path).test_client()
    table = new_table(client, "spartacus")
    finish(client, table)
    html = view(client, table)
    assert "<polyline" not in html and 'class="series"' not in html    # no 0→1 "series" of one game
    assert 'id="rematch"' in html
    assert 'id="rematch"' not in view(client, table, "token")          # the host's button, not a phone's


def end_lines(svg: str) -> list[tuple[float, float, list[str]]]:
    """Each end label of a line chart: x, first baseline, its lines (one ``tspan`` each)."""
    return [(float(x), float(y), re.findall(r"<tspan[^>]*>([^<]*)</tspan>", inner)) for x, y, inner in
            re.findall(r'<text x="([\d.]+)" y="([\d.]+)" fill="[^"]+" class="end">(.*?)</text>', svg)]


def joined(rows: list[str]) -> str:
    """A wrapped label's lines as one text again, a word broken with a hyphen joined (a line break
    stands where a space or nothing was: compare with ``squashed``)."""
    text = ""
    for row in rows:
        text = (text[:-1] if text.endswith("-") and text[-2:-1].isalpha() else text + " ") + row
    return text.strip()


def squashed(text: str) -> str:
    """``text`` without spaces: a wrapped label and its whole text compare equal."""
    return text.replace(" ", "")


def end_labels(svg: str) -> list[tuple[float, float, str]]:
    """Each end label with its lines joined as written."""
    return [(x, y, joined(rows)) for x, y, rows in end_lines(svg)]


def test_series_chart_names_never_overlap_even_when_totals_are_equal():
    svg = str(score_chart([[10, 10, 10, 10], [5, 5, 5, 5]], ["Ann", "Ben", "Chie", "Dai"]))
    labels = end_labels(svg)
    assert [t for _, _, t in labels] == ["Ann 15", "Ben 15", "Chie 15", "Dai 15"]
    ys = sorted(y for _, y, _ in labels)
    assert all(b - a >= charts.FONT for a, b in zip(ys, ys[1:]))
    height = float(re.search(r'viewBox="0 0 \d+ ([\d.]+)"', svg).group(1))
    assert all(charts.FONT <= y <= height for y in ys)


@pytest.mark.parametrize("names", [["アレクサンドラ・ミハイロヴナ", "Bartholomew the Magnificent"],
                                   ["Alexandra Konstantinopoulou", "長谷川きよしのすけ", "Ann", "Supercalifragilisticexpialidocious"]])
def test_long_and_japanese_names_are_wrapped_whole_within_the_chart(names):
    """A long name at a line's end is wrapped onto more lines, each within the chart, never cut
    (before: "Bartholomew the Magn…"); the lines of two labels never share a baseline."""
    games = [[3 + i for i in range(len(names))], [2 * i for i in range(len(names))]]
    svg = str(score_chart(games, names))
    labels = end_labels(svg)
    totals = [sum(g[i] for g in games) for i in range(len(names))]
    assert [squashed(t) for _, _, t in labels] == [squashed(f"{n} {t}") for n, t in zip(names, totals)]   # whole
    assert "…" not in svg
    baselines = []
    for x, y, rows in end_lines(svg):
        assert all(x + charts.text_width(row, charts.BOLD) <= charts.WIDTH + 1 for row in rows), rows
        baselines += [y + k * charts.GAP for k in range(len(rows))]
    height = float(re.search(r'viewBox="0 0 \d+ ([\d.]+)"', svg).group(1))
    baselines.sort()
    assert all(b - a >= charts.GAP - 0.01 for a, b in zip(baselines, baselines[1:]))
    assert all(charts.FONT <= y <= height for y in baselines)
    assert len(end_lines(svg)[0][2]) >= 2                                     # the long name wrapped


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-50, 400, allow_nan=False), min_size=1, max_size=12))
def test_spread_keeps_order_gap_and_bounds(wanted):
    low, high = 0.0, max(300.0, len(wanted) * charts.GAP)
    ys = charts.spread(wanted, charts.GAP, low, high)
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    placed = [ys[i] for i in order]
    assert all(b - a >= charts.GAP - 1e-9 for a, b in zip(placed, placed[1:]))
    assert all(low - 1e-9 <= y <= high + 1e-9 for y in ys)


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("ab Kx長谷川き-ö"), min_size=1, max_size=60), st.floats(5, 200))
def test_wrap_keeps_every_character_and_each_line_fits(text, width):
    rows = charts.wrap(text, width, charts.BOLD)
    def letters(t: str) -> str:
        return squashed(t).replace("-", "")
    assert letters("".join(rows)) == letters(text)      # nothing cut (a hyphen may mark a break)
    for row in rows:   # a line is wider than asked only when it is one character (and its hyphen)
        assert charts.text_width(row, charts.BOLD) <= width + 1e-9 or len(row.rstrip("-")) <= 1, (rows, width)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(-50, 400, allow_nan=False), st.integers(1, 4)), min_size=1, max_size=12))
def test_spread_gives_a_label_of_several_lines_its_room(labels):
    wanted, lines = [w for w, _ in labels], [n for _, n in labels]
    low, high = 0.0, max(300.0, sum(lines) * charts.GAP)
    ys = charts.spread(wanted, charts.GAP, low, high, lines)
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    for a, b in zip(order, order[1:]):     # the next label starts below the last line of this one
        assert ys[b] - ys[a] >= lines[a] * charts.GAP - 1e-9
    assert all(low - 1e-9 <= ys[i] and ys[i] + (lines[i] - 1) * charts.GAP <= high + 1e-9 for i in order)


# ------------------------------------------------------------------------ point 5: dates on pages
def test_the_tables_list_shows_dates_people_read_in_both_languages(tmp_path):
    client = make_app(tmp_path).test_client()
    table = new_table(client, "spartacus")
    with sqlite3.connect(tmp_path / "web.db") as db:
        created = db.execute("SELECT created FROM sessions WHERE id = ?", (table["id"],)).fetchone()[0]
    for lang in ("en", "ja"):
        html = client.get(f"/host?lang={lang}").get_data(as_text=True)
        assert str(created) not in html and not re.search(r"\d{10}\.\d+", html)
        assert dates.human(created, lang) in html


# ------------------------------------------------------------------------ Rematch
def test_rematch_from_the_end_screen_takes_the_same_players_and_phones_follow(tmp_path):
    client = make_app(tmp_path).test_client()
    table = new_table(client, "spartacus")
    finish(client, table)
    before = state(client, table)["version"]
    r = client.post("/history/rematch", data={"table": table["id"]},
                    headers={"X-Table-Token": table["host_token"]})
    assert r.status_code == 302
    new_id = r.headers["Location"].rsplit("/", 1)[-1]
    assert new_id != table["id"] and f"tch_{new_id}=" in r.headers["Set-Cookie"]
    with sqlite3.connect(tmp_path / "web.db") as db:
        game, settings_ = db.execute("SELECT game, settings FROM sessions WHERE id = ?", (new_id,)).fetchone()
        code = db.execute("SELECT code FROM sessions WHERE id = ?", (new_id,)).fetchone()[0]
    settings_ = json.loads(settings_)
    assert game == "spartacus" and settings_["names"] == ["Ann", "Ben", "Chie"]
    assert settings_["options"]["start_player"] == 1                     # the next seat starts
    assert state(client, table)["version"] == before + 1                 # every phone's page refreshes
    phone = view(client, table, "token")
    follow = f"/t/{table['id']}/next"
    assert f'data-follow="{follow}"' in phone and 'id="rematch-join"' in phone and code in phone
    r = client.get(f"{follow}?token={table['token']}")     # the page goes there by itself
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{new_id}")
    assert f"tc_{new_id}=" in r.headers["Set-Cookie"]
    # the phone keeps its role at the new table with the token it had: no new code, no tap
    assert state(client, {"id": new_id, "token": table["token"]})["viewer"]["role"] == "table"
    assert f"/host/{new_id}" in view(client, table)
    again = client.post("/history/rematch", data={"table": table["id"]},
                        headers={"X-Table-Token": table["host_token"]})
    assert again.headers["Location"].endswith(new_id)                    # a second tap: the same table


def test_another_game_with_these_players_takes_the_phones_along_and_a_late_comers_seat(tmp_path):
    """An evening of several games (QA game night, session 10): after the Wheel every phone typed the
    Spartacus table's code and took its seat again, and the finished table's page said nothing of it.
    The host's end screen starts another game with these players, a late-comer's name added at the end:
    the phones follow in their seats (as at a rematch), the new seat is free for the late-comer."""
    client = make_app(tmp_path).test_client()
    table = new_table(client, "wheel")
    finish(client, table)
    host = {"X-Table-Token": table["host_token"]}
    html = view(client, table)
    assert 'id="another-game"' in html and 'value="Ann, Ben, Chie"' in html
    offered = re.findall(r'<option value="(\w+)">', html.split('id="another-game-choice"')[1].split("</select>")[0])
    assert offered == ["spartacus", "chains", "hills", "prussia"], offered   # those three can play first
    assert "Another game with these players" in html and "同じメンバーで別のゲーム" in view(client, table, lang="ja")
    for names, said in (("Ann, Ben", "Keep everyone&#39;s name"), ("Ben, Ann, Chie", "Keep everyone&#39;s name"),
                        ("Ann, Ben, Chie, Dai, Emi, Fumi", "is for 3–5")):
        r = client.post("/history/rematch", data={"table": table["id"], "game": "spartacus", "names": names},
                        headers=host)   # a form: the refusal is a page
        assert r.status_code == 400 and said in r.get_data(as_text=True), r.get_data(as_text=True)[-800:]
    assert client.post("/history/rematch", data={"table": table["id"], "game": "chess"}, headers=host).status_code == 400
    ja = view(client, table, lang="ja")   # the Japanese page's form: its names, its language
    action = re.search(r'<form method="post" action="([^"]+)" id="another-game">', ja).group(1)
    r = client.post(action, data={"table": table["id"], "game": "spartacus", "names": "Ann, Ben"}, headers=host)
    assert r.status_code == 400 and "全員の名前を同じ順番のまま" in r.get_data(as_text=True)
    r = client.post("/history/rematch", data={"table": table["id"], "game": "spartacus",
                                              "names": "Ann, Ben, Chie, Dai"}, headers=host)
    assert r.status_code == 302
    new_id = r.headers["Location"].rsplit("/", 1)[-1]
    with sqlite3.connect(tmp_path / "web.db") as db:
        game, settings_ = db.execute("SELECT game, settings FROM sessions WHERE id = ?", (new_id,)).fetchone()
    assert game == "spartacus" and json.loads(settings_)["names"] == ["Ann", "Ben", "Chie", "Dai"]
    phone = {"id": new_id, "token": table["token"]}
    assert state(client, phone)["viewer"]["role"] == "table"   # the scorekeeper phone came along
    assert client.get(f"/t/{table['id']}/next?token={table['token']}").headers["Location"].endswith(f"/t/{new_id}")
    said = view(client, table, "token")   # the finished table's way on names no rematch
    assert "Next game: to the new table in your seat" in said and "Rematch" not in said
    assert "Next game: open the new table" in view(client, table)

def test_only_the_host_may_rematch_and_only_a_finished_game(tmp_path):
    client = make_app(tmp_path).test_client()
    table = new_table(client, "spartacus")
    r = client.post("/history/rematch", data={"table": table["id"]},
                    headers={"X-Table-Token": table["host_token"]})
    assert r.status_code == 409
    finish(client, table)
    r = client.post("/history/rematch", data={"table": table["id"]}, headers={"X-Table-Token": table["token"]})
    assert r.status_code == 403
    with sqlite3.connect(tmp_path / "web.db") as db:
        assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1


# ------------------------------------------------------------------------ the History page
def test_history_is_the_owners_page(tmp_path):
    # issue 20: a table's host cookie opens that table, not the history (anyone on the LAN may
    # create a table and host it); the owner is this computer or the browser it paired once
    app = make_app(tmp_path)
    client = app.test_client()
    table = new_table(client, "spartacus")
    finish(client, table)
    assert client.get("/history", environ_base=REMOTE).status_code == 403
    assert client.get("/history/export?format=json", environ_base=REMOTE).status_code == 403
    client.set_cookie(f"tc_{table['id']}", table["token"])               # a player's phone
    assert client.get("/history", environ_base=REMOTE).status_code == 403
    assert client.post("/history/rematch", data={"play": f"{table['id']}-1"}, environ_base=REMOTE).status_code == 403
    client.set_cookie(f"tch_{table['id']}", table["host_token"])         # the host's phone
    assert client.get("/history", environ_base=REMOTE).status_code == 403
    assert client.get("/history").status_code == 200                     # the owner's machine
    from webui.core.owner import pairing
    code = pairing(app).new()                                            # printed once by serve --lan
    assert client.get("/owner?code=WRONGCODE", environ_base=REMOTE).status_code == 403
    assert client.get("/history", environ_base=REMOTE).status_code == 403
    assert client.get(f"/owner?code={code}", environ_base=REMOTE).status_code == 303
    assert client.get("/history", environ_base=REMOTE).status_code == 200    # the paired phone
    assert client.get("/history/export?format=json", environ_base=REMOTE).status_code == 200
    other = app.test_client()                                            # the link works once
    assert other.get(f"/owner?code={code}", environ_base=REMOTE).status_code == 403
    assert other.get("/history", environ_base=REMOTE).status_code == 403


def test_history_lists_plays_with_names_stats_and_filters(tmp_path):
    client = make_app(tmp_path).test_client()
    for seed in (1, 2):
        finish(client, new_table(client, "spartacus"), seed)
    finish(client, new_table(client, "hills"), 3)
    html = client.get("/history?lang=en").get_data(as_text=True)
    assert html.count('class="play"') == 3 and "Spartacus" in html and "Seven Hills" in html
    shown = re.sub(r'name="csrf" value="[^"]*"', "", html)   # a random token may spell "P1"
    assert "P1" not in shown and "Ann" in html and "Chie" in html
    assert html.count('<svg class="chart') >= 4                           # win share; line + spread per game
    assert dates.human(time.time(), "en", clock=False) in html
    only = client.get("/history?game=hills").get_data(as_text=True)
    assert only.count('class="play"') == 1 and "Spartacus</b>" not in only
    chie = client.get("/history?player=chie").get_data(as_text=True)
    assert chie.count('class="play"') == 2
    ja = client.get("/history?lang=ja").get_data(as_text=True)
    assert "記録" in ja and "勝利の割合" in ja and "同じメンバーで再戦" in ja and "スパルタクス" in ja
    assert "Rematch" not in ja and "Share of wins" not in ja


def test_rematch_from_a_play_of_the_history(tmp_path):
    client = make_app(tmp_path).test_client()
    table = new_table(client, "hills")
    finish(client, table)
    assert client.post("/history/rematch", data={"play": f"{table['id']}-1"}).status_code == 403  # no CSRF token
    client.get("/history")                                   # the page's forms carry the server's token
    csrf = client.get_cookie("csrf").value
    r = client.post("/history/rematch", data={"play": f"{table['id']}-1", "csrf": csrf})
    assert r.status_code == 302
    new_id = r.headers["Location"].rsplit("/", 1)[-1]
    with sqlite3.connect(tmp_path / "web.db") as db:
        game, settings_ = db.execute("SELECT game, settings FROM sessions WHERE id = ?", (new_id,)).fetchone()
    assert game == "hills" and json.loads(settings_)["names"] == ["Ann", "Ben"]
    assert client.post("/history/rematch", data={"play": "nope-1", "csrf": csrf}).status_code == 404


def test_export_downloads_and_a_backup_restores(tmp_path):
    (tmp_path / "a").mkdir()
    client = make_app(tmp_path / "a").test_client()
    table = new_table(client, "spartacus")
    finish(client, table)
    csv_text = client.get("/history/export?format=csv").get_data(as_text=True)
    assert csv_text.splitlines()[0].startswith("date,game,title,play") and len(csv_text.splitlines()) == 4
    bg = client.get("/history/export?format=bgstats").get_json()
    assert len(bg["plays"]) == 1 and len(bg["plays"][0]["playerScores"]) == 3
    r = client.get("/history/export?format=json")
    assert "attachment" in r.headers["Content-Disposition"]
    backup = tmp_path / "backup.json"
    backup.write_bytes(r.get_data())
    from companion.cli import main
    assert main(["history", "import", str(backup), "--db", str(tmp_path / "b.db")]) == 0
    for name in ("players", "plays", "play_seats"):
        with sqlite3.connect(tmp_path / "a" / "web.db") as a, sqlite3.connect(tmp_path / "b.db") as b:
            assert a.execute(f"SELECT * FROM {name} ORDER BY 1, 2").fetchall() == \
                b.execute(f"SELECT * FROM {name} ORDER BY 1, 2").fetchall()
    assert client.get("/history/export?format=xml").status_code == 400
    assert client.get("/history/export?format=csv&from=yesterday").status_code == 400


def test_the_create_form_offers_known_players(tmp_path):
    client = make_app(tmp_path).test_client()
    new_table(client, "spartacus")                   # Ann, Ben, Chie
    html = client.get("/host").get_data(as_text=True)
    assert 'id="known-players"' in html
    assert re.findall(r'data-name="([^"]+)"', html) == ["Ann", "Ben", "Chie"]
    assert "players.js" in html


def test_a_long_history_lists_the_recent_plays_and_counts_them_all(tmp_path):
    from benchmarks.history import random_plays
    from companion.history.record import write_play
    app = make_app(tmp_path)
    store = app.extensions["tables"].store
    with store._write() as db:
        for play in random_plays(130):
            write_play(db, play)
    client = app.test_client()
    html = client.get("/history").get_data(as_text=True)
    assert html.count('class="play"') == 100 and 'id="show-all"' in html
    assert '<b id="play-count">130</b>' in html
    assert client.get("/history?all=1").get_data(as_text=True).count('class="play"') == 130
    for svg in re.findall(r"<svg class=\"chart\".*?</svg>", html):
        assert svg.count("<circle") <= 8 * 30                      # the last 30 plays of a game, 8 players


def test_a_seat_nobody_named_reads_as_a_seat_not_p1(tmp_path):
    client = make_app(tmp_path).test_client()
    r = client.post("/api/tables", json={"game": "hills", "players": 2, "names": ["Ann"]})
    finish(client, scorekeeper(client, r.get_json()))   # the scorekeeper phone taps every move
    html = client.get("/history").get_data(as_text=True)
    assert "Seat 2" in html and "P2" not in html and "Ann" in html
    assert "席2" in client.get("/history?lang=ja").get_data(as_text=True)


def test_a_play_says_which_options_it_changed_in_words(tmp_path):
    client = make_app(tmp_path).test_client()
    table = new_table(client, "spartacus", options={"joker": True})
    finish(client, table)
    html = client.get("/history").get_data(as_text=True)
    from webui.core.i18n import option_words
    assert f'<p class="play-options small muted">{option_words("spartacus", "joker", "en")[0]}</p>' in html
    ja = client.get("/history?lang=ja").get_data(as_text=True)
    assert option_words("spartacus", "joker", "ja")[0] in ja and "joker" not in ja.split('id="plays"')[1]


def test_another_site_cannot_start_a_rematch_from_the_hosts_browser(tmp_path):
    client = make_app(tmp_path).test_client()
    table = new_table(client, "hills")
    finish(client, table)
    r = client.post("/history/rematch", data={"play": f"{table['id']}-1"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    client.get("/history")
    r = client.post("/history/rematch", data={"play": f"{table['id']}-1", "csrf": client.get_cookie("csrf").value},
                    headers={"Origin": "http://localhost"})
    assert r.status_code == 302                       # the page's own origin
    with sqlite3.connect(tmp_path / "web.db") as db:
        assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 2


def test_a_stranger_on_the_network_is_not_shown_the_known_players(tmp_path):
    client = make_app(tmp_path).test_client()
    new_table(client, "spartacus")
    assert 'id="known-players"' not in client.get("/host", environ_base=REMOTE).get_data(as_text=True)
    assert 'id="known-players"' in client.get("/host").get_data(as_text=True)


def test_refusals_read_in_the_hosts_language(tmp_path):
    client = make_app(tmp_path).test_client()
    r = client.get("/history?lang=ja", environ_base=REMOTE, headers={"Accept": "text/html"})
    assert r.status_code == 403 and "記録はホスト専用です" in r.get_data(as_text=True)
    r = client.get("/history?from=24/11/2026", headers={"Accept": "text/html"})
    assert r.status_code == 400 and "2026-11-24" in r.get_data(as_text=True)
