"""The move picker is never empty while a game waits for a move (issue: the host's picker at the
start of the Wheel of History and Chains, whose only move lays out the whole table).

Through Flask's test client on a real SQLite store: every game at every player count opens with
one clear tap for the host ("Lay the circle" / 「円を並べる」, "Lay the terminals" /
「終端カードを並べる」), that tap starts the game, and along a random game the host, the
scorekeeper and the phone whose turn it is each always have something to tap (or, for the host of
a game with hidden hands, the line that says the players move on their own phones)."""
from __future__ import annotations

import random
import re
from typing import Any

import pytest

from companion.games import describe_all, game_class
from tests.web_helpers import NAMES, join, make_app, seat_phone, set_role, state
from webui.core.i18n import t

GAMES = [g["id"] for g in describe_all() if g.get("implemented")]
HOST_NO_HANDS = "The host page shows no hands: players move on their own phones."
OVERRIDE_NOTHING = ("Nothing to override or replace yet: the game begins with the table laid out (the button "
                    "above).")
ANSWER_FIRST = "Answer the question above first: moves wait until it is settled."
"""Words of the page the tests look for (msgids: ``t`` gives them in each language)."""
OPENING = {"wheel": ("Lay the circle", "The app shuffles the 25 cards: lay them clockwise as the circle below "
                                       "shows, and the pawn where it stands."),
           "chains": ("Lay the terminals", "Each player takes one card of each value 1–10 out of their deck and lays "
                                           "them out as terminal cards; the app records them (whichever copy of "
                                           "a value: a camera watching the table reads the copies laid) and the "
                                           "decks are shuffled.")}
"""Games whose first move lays out the whole table, and the words of its one tap (button, hint)."""


def _moves_section(html: str) -> str:
    found = re.search(r'<section class="card moves[^"]*" id="moves">(.*?)</section>', html, re.S)
    assert found, "no move section while the game waits for a move"
    return found.group(1)


def _taps(section: str) -> list[str]:
    """The buttons of the move section that do something (play a move, open a card, let the app deal)."""
    return re.findall(r'<button[^>]*(?:class="big (?:primary )?(?:mv|pick)\b|id="deal")[^>]*>', section)


def _view(client: Any, table: dict[str, Any], token: str, lang: str = "en") -> str:
    r = client.get(f"/t/{table['id']}/view?token={token}&lang={lang}")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def _table(client: Any, game: str, players: int) -> dict[str, Any]:
    r = client.post("/api/tables", json={"game": game, "players": players, "names": NAMES[:players]}
                    if players <= len(NAMES) else {"game": game, "players": players})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


@pytest.mark.parametrize("game", GAMES)
def test_every_first_move_is_one_clear_tap_for_the_host(tmp_path, game):
    cls = game_class(game)
    client = make_app(tmp_path).test_client()
    for players in range(cls.min_players, cls.max_players + 1):
        table = _table(client, game, players)
        host = table["host_token"]
        for lang in ("en", "ja"):
            section = _moves_section(_view(client, table, host, lang))
            taps = _taps(section)
            state = client.get(f"/api/tables/{table['id']}/state", headers={"X-Table-Token": host}).get_json()
            hidden = state["current_player"] >= 0 and not state["legal_moves"]
            if hidden:   # Seven Hills, Spartacus: the first mover's cards are in a hand
                assert t(HOST_NO_HANDS, lang) in section, (game, players, lang)
                continue
            assert taps, f"{game} for {players}: the host has nothing to tap at the start ({lang})"
            if game in OPENING:
                deal = re.search(r'id="deal">([^<]*)<', section)
                assert deal and deal.group(1) == t(OPENING[game][0], lang), (game, players, lang, section[:300])
                assert t(OPENING[game][1], lang) in section
                assert ' dock"' in _view(client, table, host, lang)   # docked: no scrolling to find it
        if game in OPENING:   # the one tap starts the game: a player is to move
            r = client.post(f"/api/tables/{table['id']}/deal", json={"version": 0},
                            headers={"X-Table-Token": host})
            assert r.status_code == 200, r.get_json()
            state = client.get(f"/api/tables/{table['id']}/state", headers={"X-Table-Token": host}).get_json()
            assert state["current_player"] >= 0, (game, players)


def test_a_seat_waiting_for_the_opening_is_told_who_lays_it(tmp_path):
    client = make_app(tmp_path).test_client()
    table = _table(client, "wheel", 3)
    phone = seat_phone(client, table, 1)
    for lang in ("en", "ja"):
        section = _moves_section(_view(client, table, phone, lang))
        assert t("The host lays the circle (or enters the circle you laid).", lang) in section
        assert not _taps(section), lang


def test_any_seat_lays_the_chains_terminals_from_its_phone(tmp_path):
    """Every player lays their own terminal row in the open, any copy of each value (a camera reads
    the copies laid): each seat's phone has the one tap, and it starts the game (issue 24; before,
    only the host could, the seats read "The host lays out the terminal cards to begin.")."""
    client = make_app(tmp_path).test_client()
    table = _table(client, "chains", 3)
    phone = seat_phone(client, table, 2)
    label, hint = OPENING["chains"]
    for lang in ("en", "ja"):
        section = _moves_section(_view(client, table, phone, lang))
        assert t(label, lang) in section and t(hint, lang) in section, lang
        assert len(_taps(section)) == 1 and 'id="deal"' in _taps(section)[0], lang
    r = client.post(f"/api/tables/{table['id']}/deal", json={"version": 0}, headers={"X-Table-Token": phone})
    assert r.status_code == 200, r.get_json()
    after = state(client, table, phone)
    assert after["current_player"] >= 0 and all(len(row) == 10 for row in after["layout"]["terminals"])


def test_the_override_picker_says_why_it_is_empty_at_the_opening(tmp_path):
    client = make_app(tmp_path).test_client()
    table = _table(client, "wheel", 4)
    picker = f"/t/{table['id']}/override?token={table['host_token']}"
    for lang in ("en", "ja"):
        assert t(OVERRIDE_NOTHING, lang) in client.get(f"{picker}&lang={lang}").get_data(as_text=True)
    client.post(f"/api/tables/{table['id']}/deal", json={"version": 0},
                headers={"X-Table-Token": table["host_token"]})
    assert t(OVERRIDE_NOTHING, "en") not in client.get(picker).get_data(as_text=True)


@pytest.mark.parametrize("game, players", [("wheel", 3), ("hills", 2), ("spartacus", 3), ("prussia", 1),
                                           ("prussia", 2), ("chains", 2)])
def test_nobody_who_may_move_meets_an_empty_picker_during_a_game(tmp_path, game, players):
    """A random game by taps: at every step the host, the scorekeeper and the phone of the seat to
    move each have a button that moves the game on (the host of a hidden-hand game: the line that
    sends the players to their phones)."""
    client = make_app(tmp_path).test_client()
    table = _table(client, game, players)
    host = table["host_token"]
    phones = {seat: seat_phone(client, table, seat) for seat in range(players)}
    keeper = join(client, table, "keeper")
    set_role(client, table, keeper, "table")
    rng = random.Random(5)
    for _ in range(40):
        st = client.get(f"/api/tables/{table['id']}/state", headers={"X-Table-Token": keeper}).get_json()
        if st["is_over"]:
            break
        cur = st["current_player"]
        blocked = any(p["kind"] in ("choose", "illegal") for p in st["prompts"])
        for who, token in (("host", host), ("scorekeeper", keeper)) + ((("mover", phones[cur]),) if cur >= 0 else ()):
            section = _moves_section(_view(client, table, token))
            if blocked:
                assert t(ANSWER_FIRST, "en") in section, (game, who)
            elif who == "host" and cur >= 0 and not client.get(
                    f"/api/tables/{table['id']}/state", headers={"X-Table-Token": host}).get_json()["groups"]:
                assert t(HOST_NO_HANDS, "en") in section, (game, who)
            else:
                assert _taps(section), f"{game}: the {who} has nothing to tap at version {st['version']}"
        if blocked:
            p = next(p for p in st["prompts"] if p["kind"] in ("choose", "illegal"))
            r = client.post(f"/api/tables/{table['id']}/answer", json={
                "version": st["version"], "prompt": p["id"], "choice": p["choices"][0]["id"]},
                headers={"X-Table-Token": host})
        elif cur < 0:
            r = client.post(f"/api/tables/{table['id']}/deal", json={"version": st["version"]},
                            headers={"X-Table-Token": keeper})
        else:
            moves = [m["move"] for g in st["groups"] for m in g["moves"]]
            r = client.post(f"/api/tables/{table['id']}/move", json={"version": st["version"],
                                                                      "move": rng.choice(moves)},
                            headers={"X-Table-Token": phones[cur]})
        assert r.status_code == 200, r.get_json()


def test_a_question_that_blocks_moves_is_named_where_the_moves_would_be(tmp_path):
    """An observation the rules refuse opens a blocking question: the phone to move reads that it
    waits for the answer (before: an empty move section)."""
    client = make_app(tmp_path).test_client()
    table = _table(client, "wheel", 3)
    host = table["host_token"]
    phones = {seat: seat_phone(client, table, seat) for seat in range(3)}
    client.post(f"/api/tables/{table['id']}/deal", json={"version": 0}, headers={"X-Table-Token": host})
    st = client.get(f"/api/tables/{table['id']}/state", headers={"X-Table-Token": host}).get_json()
    other = (st["current_player"] + 1) % 3
    wrong = [[] for _ in range(3)]
    wrong[other] = [next(c for c in st["layout"]["circle"] if c)]   # taken by a seat not to move
    r = client.post(f"/api/tables/{table['id']}/observe", json={"observation": {"taken": wrong}},
                    headers={"X-Table-Token": host})
    assert r.status_code == 200 and r.get_json()["result"]["kind"] == "prompt", r.get_json()
    for lang in ("en", "ja"):
        section = _moves_section(_view(client, table, phones[st["current_player"]], lang))
        assert t(ANSWER_FIRST, lang) in section and not _taps(section)
