"""Issue 14 on the phone and host pages (Flask's test client, a real SQLite store): a finished
game reads right, names everywhere, Japanese complete, scores explained, the host told where to go.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.webui.test_web_api import _host, app, client  # noqa: F401  (the same app and client fixtures)
from tests.web_helpers import new_table, seat_phone, state

ROOT = Path(__file__).resolve().parents[2]


def view(client, table, lang="en", seat=None):
    """The game view as a phone fetches it: the table's scorekeeper phone, or the phone that
    claimed ``seat`` (issue 13: a phone sees only its own seat)."""
    token = table["token"]
    if seat is not None:
        seats = table.setdefault("seat_tokens", {})
        token = seats[seat] = seats.get(seat) or seat_phone(client, table, seat)
    r = client.get(f"/t/{table['id']}/view?lang={lang}&token={token}")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def text(html: str) -> str:
    """The words a reader sees (tags and attributes dropped)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def play_through(client, table, seed=1, limit=600):
    """Random legal moves by API until the game is over (no prompt answered)."""
    import random
    from tests.web_helpers import step
    rng = random.Random(seed)
    for _ in range(limit):
        if state(client, table)["is_over"]:
            return
        r = step(client, table, rng)
        assert r.status_code == 200, r.get_json()
    raise AssertionError("not over")


# ----------------------------------------------------------------- point 2: no prompt at the end
def test_spartacus_played_to_the_end_shows_no_prompt(client):
    table = new_table(client, "spartacus")
    play_through(client, table, seed=3)
    html = view(client, table)
    assert 'class="prompt' not in html and "Needs a decision" not in html
    assert state(client, table)["prompts"] == []


# ----------------------------------------------------------------- point 3: a tie reads as a draw
def test_a_tie_ended_early_says_draw_not_three_winners(client):
    table = new_table(client, "spartacus")
    r = client.post(f"/api/tables/{table['id']}/end", json={"version": 0}, headers=_host(table))
    assert r.status_code == 200
    words = text(view(client, table))
    assert "a draw" in words and "Winner: Ann, Ben, Chie" not in words
    assert "Winner:" not in words
    assert "引き分け" in text(view(client, table, "ja"))


# ----------------------------------------------------------------- point 4: names, never P1
def test_history_and_final_scores_use_names(client):
    table = new_table(client, "spartacus")
    play_through(client, table, seed=5)
    for lang in ("en", "ja"):
        words = text(view(client, table, lang))
        assert not re.search(r"(?<![A-Za-z0-9-])P[1-9](?![0-9])|[Pp]layer [1-9]|プレイヤー[1-9]", words), words
        assert "Ann" in words


# ----------------------------------------------------------------- point 6: Japanese complete
def test_the_new_table_form_in_japanese_names_every_option_in_japanese(client):
    html = client.get("/host?lang=ja").get_data(as_text=True)
    words = text(html)
    for raw in ("hidden_values", "same_value_ban", "card=None", "start_player", "single_card_fall",
                "victory_strength", "ten_not_first", "card_only", "german_empire"):
        assert raw not in words, raw
    assert "軍旗" in words and "同じ数字の禁止" in words and "中央の国" in words
    english = text(client.get("/host?lang=en").get_data(as_text=True))
    assert "Same value banned" in english and "card=None" not in english and "hidden_values" not in english
    assert not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", english.replace("日本語", "")), "Japanese in English"


def test_a_table_created_from_the_japanese_form_opens_in_japanese(client):
    client.get("/host?lang=ja")   # the form's page sets the CSRF cookie its hidden field repeats
    r = client.post("/host?lang=ja", data={"game": "hills", "players": "2", "names": "Ann, Ben",
                                           "csrf": client.get_cookie("csrf").value})
    assert r.status_code == 302
    page = client.get(r.headers["Location"]).get_data(as_text=True)
    assert '<html lang="ja">' in page and "ローマ七丘" in page
    listed = text(client.get("/host?lang=ja").get_data(as_text=True))   # the tables list, by name
    assert "ローマ七丘 — Ann, Ben" in listed and "hills —" not in listed


def test_player_counts_in_words(client):
    words = text(client.get("/host?lang=en").get_data(as_text=True))
    assert "(2–2)" not in words and "Seven Hills of Rome (2 players)" in words
    assert "Spartacus (3–5 players)" in words
    assert "ローマ七丘 (2人)" in text(client.get("/host?lang=ja").get_data(as_text=True))


def test_one_wording_of_the_player_count_serves_the_pages_and_the_messages(client, capsys):
    """The host form said "Seven Hills of Rome (2 players)" from webui's helper, the engines' messages
    built "2" / "2–5" apart and `companion watch` said "Seven Hills of Rome is for 2–2 players":
    one ``player_count`` says it everywhere, EN and JA."""
    from markupsafe import escape

    from companion.cli import main
    from companion.games import GAME_IDS, game_class
    for lang in ("en", "ja"):
        form = client.get(f"/host?lang={lang}").get_data(as_text=True)
        for game in GAME_IDS:
            cls = game_class(game)
            count = cls.player_count()[lang == "ja"]
            assert str(escape(f"{cls.title_ja if lang == 'ja' else cls.title} ({count})")) in form, (game, lang)
    refused = client.post("/api/tables?lang=ja", json={"game": "spartacus", "players": 7}).get_json()
    assert "スパルタクスは3〜5人用です(7人が指定されました)。" in json.dumps(refused, ensure_ascii=False)
    nothing = ["--images", "no-such-folder"]   # refused before the source is opened
    for argv, said in ((["watch", "hills", "--players", "3", *nothing], "companion: Seven Hills of Rome is for 2 players, not 3"),
                       (["--lang", "ja", "watch", "spartacus", "--players", "2", *nothing], "スパルタクスは3〜5人用です(2人ではできません)")):
        assert main(argv) == 2
        assert said in capsys.readouterr().err


def test_the_moves_heading_says_what_to_do_in_japanese(client):
    table = new_table(client, "spartacus")   # a hand of cards: "choose a card"
    words = text(view(client, table, "ja"))
    assert "Annの番: カードを選ぶ" in words and " 手 " not in words
    mine = text(view(client, table, "ja", seat=0))   # Ann's own phone
    assert "あなたの番: カードを選ぶ" in mine
    wheel = new_table(client, "wheel")        # three cards to take: "choose a move"
    client.post(f"/api/tables/{wheel['id']}/deal", json={"version": 0}, headers={"X-Table-Token": wheel["token"]})
    words = text(view(client, wheel, "ja"))
    assert re.search(r"(Ann|Ben|Chie)の番: 指し手を選ぶ", words) and " 手 " not in words


def test_odds_note_is_in_the_page_language(client):
    table = new_table(client, "prussia")
    client.post(f"/api/tables/{table['id']}/move", json={"version": 0, "move": {"player": -1, "kind": "draw", "card": "P-H8"}},
                headers={"X-Table-Token": table["token"]})
    html = view(client, table, "ja")
    assert 'data-note="各選択肢につき{n}回' in html and "その場で国力差" in html


# ----------------------------------------------------------------- point 10: scores and totals
def test_scores_and_series_total_are_explained(client):
    table = new_table(client, "spartacus", rounds=3)
    r = client.post(f"/api/tables/{table['id']}/end", json={"version": 0}, headers=_host(table))
    r = client.post(f"/api/tables/{table['id']}/next", json={"version": 1}, headers=_host(table))
    assert r.status_code == 200
    words = text(view(client, table))
    assert "This game" in words and "Series total" in words and "Scores Total" not in words
    assert "Series total: the score of the 1 finished game of this series" in words   # one game, singular
    single = new_table(client, "spartacus")
    assert "Series total" not in text(view(client, single))


def test_the_end_of_a_series_says_who_won_it(client):
    """Played at a QA game night (session 10): at the end of a game of a series the note under the
    scores said "…; this game counts once it ends" though it had ended and counted, and the series'
    last game named only that game's winner: nobody was told who won the series."""
    table = new_table(client, "spartacus", rounds=2)
    play_through(client, table, seed=3)
    words = text(view(client, table))
    assert "Series total: the score of the 1 game played in this series." in words
    assert "counts once it ends" not in words and "Series over" not in words   # one game to go
    client.post(f"/api/tables/{table['id']}/next", json={"version": state(client, table)["version"]},
                headers=_host(table))
    assert "this game counts once it ends" in text(view(client, table))   # game 2 is on
    play_through(client, table, seed=4)
    series = state(client, table)["series"]
    best = [n for n, t in zip(["Ann", "Ben", "Chie"], series["totals"]) if t == max(series["totals"])]
    for lang, said in (("en", "Series over — "), ("ja", "シリーズ終了 — ")):
        words = text(view(client, table, lang))
        assert said in words, lang
        assert all(name in words.split(said, 1)[1][:60] for name in best), (best, words)
    words = text(view(client, table))
    assert "the scores of the 2 games played in this series, added up." in words
    assert "counts once it ends" not in words


def _serve(*args: str, until: str, timeout: float = 60.0) -> tuple[str, str]:
    """``companion serve ARGS`` in its own process: its output up to the line holding ``until``
    (or its whole output if it exits first)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if until in line:
                break
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    return "".join(lines) + out, err


def test_plain_serve_says_where_the_host_page_is(tmp_path):
    out, err = _serve("--port", "0", "--db", str(tmp_path / "s.db"), until="Ctrl+C")
    assert re.search(r"Host page .*http://127\.0\.0\.1:\d+/host\b", out), out + err


def test_a_missing_camera_gives_our_message_without_opencv_warnings(tmp_path):
    out, err = _serve("--camera", "57", "--game", "wheel", "--players", "3", "--port", "0",
                      "--db", str(tmp_path / "c.db"), until="Ctrl+C")
    assert "cannot open camera 57" in err and "[ WARN" not in err + out, err


def test_a_refusal_names_the_players(client):
    table = new_table(client, "spartacus")   # Ann to lead; the scorekeeper taps Ben's card
    r = client.post(f"/api/tables/{table['id']}/move?lang=en", headers={"X-Table-Token": table["token"]},
                    json={"version": 0, "move": {"player": 1, "kind": "play", "card": "S-B5"}})
    body = r.get_json()
    assert r.status_code == 422 and "Ann" in body["reason"] + body["ja"], body
    assert not re.search(r"[Pp]layer [1-9]|プレイヤー[1-9]|(?<![A-Za-z0-9-])P[1-9](?![0-9])", body["reason"] + body["ja"]), body


CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
CARD_ID = re.compile(r"\b(?:[WHSP]-[A-Z]+\d*|C\d\d-\d+-\d+|B-[A-Z]+)\b")
IDENTIFIER = re.compile(r"\b[a-z]+_[a-z_]+\b|\bpt\b")


@pytest.mark.parametrize("game", ["wheel", "hills", "spartacus", "prussia", "chains"])
def test_views_speak_one_language_and_no_ids(client, game):
    """English views: no Japanese words, no internal card ids; Japanese views: no raw identifiers
    (the host's page too, with its override picker), over the first steps of a game."""
    import random
    from tests.web_helpers import step
    table = new_table(client, game)
    rng = random.Random(3)
    for _ in range(25):
        st = state(client, table)
        if st["is_over"]:
            break
        for token in (table["token"], table["host_token"]):
            pages = ["view", "override"] if token == table["host_token"] else ["view"]
            english = " ".join(text(client.get(f"/t/{table['id']}/{p}?lang=en&token={token}").get_data(as_text=True))
                               for p in pages)
            japanese = " ".join(text(client.get(f"/t/{table['id']}/{p}?lang=ja&token={token}").get_data(as_text=True))
                                for p in pages)
            assert not CJK.search(english.replace("日本語", "")), english
            assert not CARD_ID.search(english) and not CARD_ID.search(japanese)
            assert not IDENTIFIER.search(japanese), IDENTIFIER.search(japanese).group(0)
        if st["prompts"]:
            p = st["prompts"][0]
            client.post(f"/api/tables/{table['id']}/answer", headers={"X-Table-Token": table["token"]},
                        json={"version": st["version"], "prompt": p["id"], "choice": p["choices"][0]["id"]})
        else:
            assert step(client, table, rng).status_code == 200


def test_the_hosts_picker_offers_every_card_a_seat_could_hold_from_the_start(client):
    """Issue 14, point 7: the override/correction picker covers all moves of the right shape for
    every seat — even though the host's page shows no hand — and takes no typed JSON; issue 23: a
    seat is offered only the cards it could hold (Seven Hills: its own colour)."""
    table = new_table(client, "hills")
    view = client.get(f"/t/{table['id']}/view?token={table['host_token']}").get_data(as_text=True)
    assert "ov-move" not in view and f"/t/{table['id']}/override" in view   # fetched when opened
    html = client.get(f"/t/{table['id']}/override?token={table['host_token']}").get_data(as_text=True)
    moves = [json.loads(m) for m in re.findall(r"class=\"big ov-move[^\"]*\" data-move='([^']+)'", html)]
    assert {(m["player"], m.get("card")) for m in moves} >= {(0, "H-R9"), (1, "H-B1"), (0, None)}
    assert (1, "H-R3") not in {(m["player"], m.get("card")) for m in moves}   # a red card is no blue move
    assert {m["hill"] for m in moves} == set(range(1, 8)) and "<textarea" not in html


def test_the_hosts_override_picker_is_a_fragment_only_the_host_gets(client):
    """The host view no longer carries the ~300 buttons of the override picker (Seven Hills): it is
    fetched when the fold-out opens, from the host only (403 in both languages for a phone)."""
    table = new_table(client, "hills")
    host = table["host_token"]
    view = client.get(f"/t/{table['id']}/view?token={host}").get_data(as_text=True)
    picker = client.get(f"/t/{table['id']}/override?token={host}")
    assert picker.status_code == 200 and picker.headers["X-Version"] == "0"
    # each seat's nine cards and a face-down one, at any of the seven hills
    assert picker.get_data(as_text=True).count("ov-move") == 2 * 10 * 7 and view.count("<button") < 60
    for lang, words in (("en", "Only the host"), ("ja", "ホストだけ")):
        r = client.get(f"/t/{table['id']}/override?token={table['token']}&lang={lang}",
                       headers={"Accept": "text/html"})
        assert r.status_code == 403 and words in r.get_data(as_text=True)
    assert client.get(f"/t/{table['id']}/override").status_code == 403


def test_the_series_next_game_is_what_needs_the_host_at_a_games_end(client):
    """Game 1 of 2 over: "Next game in the series" stood at the foot of the host screen among the
    actions (below the board, the scores and the log's banners); it stands in "Needs you" now, first."""
    from companion.session import Store, TableSession
    from tests.companion.history.test_history import tap_through
    table = new_table(client, "hills", rounds=2)
    tap_through(TableSession.open(Store(client.application.config["DB"]), table["id"]), 3)
    for lang, words in (("en", "Next game in the series"), ("ja", "シリーズの次のゲーム")):
        page = client.get(f"/t/{table['id']}/view?token={table['host_token']}&lang={lang}").get_data(as_text=True)
        needs = page.split('id="needs-host"')[1].split("</section>")[0]
        assert f'id="next-game">{words}</button>' in needs and page.count('id="next-game"') == 1
        assert page.index('id="needs-host"') < page.index('class="banners"')
