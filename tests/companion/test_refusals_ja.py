"""Every refusal and every event speaks English and Japanese.

Random illegal attempts over all five games (moves of other states and other seats, chance moves
at the wrong time, malformed moves) must each raise an ``IllegalMove`` whose ``reason`` is English and
whose ``ja`` is Japanese and not the English again; every event of simulated games has Japanese text.
"""
from __future__ import annotations

import random
import re

import pytest

from companion.engine import CHANCE, GameError, IllegalMove, Move, Reason, simulate, thaw
from companion.games import game_class

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
ENGLISH_PHRASE = re.compile(r"\b[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}\b")
"""Three English words in a row: an untranslated phrase (ids and move kinds are single words)."""

CASES = [
    ("wheel", 2, {}), ("wheel", 4, {"single_card_fall": True}), ("wheel", 3, {"colour_and_value": True}),
    ("hills", 2, {}), ("hills", 2, {"banners": True, "same_value_ban": True}),
    ("hills", 2, {"hidden_values": True, "banners": True}), ("hills", 2, {"open_play": True, "highest_card": True}),
    ("spartacus", 3, {}), ("spartacus", 4, {"joker": True, "joker_penalty": True}),
    ("spartacus", 5, {"no_banners": True}),
    ("prussia", 1, {}), ("prussia", 1, {"jokers": 1, "centre": "german_empire", "alliance": "chain"}),
    ("prussia", 2, {}),
    ("chains", 1, {}), ("chains", 3, {}), ("chains", 2, {"misfit": "card_only", "ten_not_first": "off"}),
]
IDS = [f"{g}-{p}-{'+'.join(o) or 'base'}" for g, p, o in CASES]
STATES = 12
"""States sampled along each simulated game."""


def assert_bilingual(en: str, ja: str, what: object) -> None:
    """English words in ``en``; Japanese, and no English phrase, in ``ja``."""
    assert en and re.search(r"[A-Za-z]{3}", en), (what, en)
    assert ja and JAPANESE.search(ja), (what, en, ja)
    assert en not in ja and not ENGLISH_PHRASE.search(ja), (what, ja)


def malformed(move: Move, rng: random.Random, players: int) -> list[Move]:
    """Broken versions of a move: unknown kind, bad or missing parameters, a stray parameter."""
    params = {k: thaw(v) for k, v in move.params}
    out = [Move.of(move.player, "no_such_move"), Move.of(move.player, move.kind, **params, zz=1),
           Move.of(rng.choice([CHANCE, *range(players)]), move.kind, **params)]
    for key in params:
        for bad in (None, "X-NOPE", 99, -1, "zz", [], ["W-R1"], "W-R1", "H-B3", "S-G2", "P-HQ", "C09-9-9"):
            out.append(Move.of(move.player, move.kind, **dict(params, **{key: bad})))
        out.append(Move.of(move.player, move.kind, **{k: v for k, v in params.items() if k != key}))
    return out


def attempts(game_id: str, players: int, options: dict, seed: int) -> tuple[int, list[str]]:
    """Drive random illegal attempts; return how many refusals were checked and their reasons."""
    cls = game_class(game_id)
    rng = random.Random(seed)
    record = simulate(cls(players, options), seed)
    log = [m for m, _ in record.turns]
    pool = list(dict.fromkeys(log))
    refused, reasons = 0, []
    for k in sorted(rng.sample(range(len(log) + 1), min(STATES, len(log) + 1))):
        state = cls.replay(players, options, log[:k])
        tries = rng.sample(pool, min(25, len(pool)))
        base = log[k] if k < len(log) else log[-1]
        tries += malformed(base, rng, players)
        tries += [Move(p, m.kind, m.params) for m in rng.sample(pool, min(8, len(pool)))
                  for p in (CHANCE, *range(players)) if p != m.player]
        for move in tries:
            try:
                state.check(move)
            except IllegalMove as err:
                assert_bilingual(err.reason, err.ja, (game_id, k, move))
                refused += 1
                reasons.append(err.reason)
            except (TypeError, KeyError, ValueError, AttributeError, IndexError) as err:  # pragma: no cover
                pytest.fail(f"{game_id} state {k}: {move} crashed the check ({type(err).__name__}: {err})")
    return refused, reasons


@pytest.mark.parametrize("game_id, players, options", CASES, ids=IDS)
def test_every_refusal_says_why_in_english_and_japanese(game_id, players, options):
    for seed in (7, 8):
        refused, reasons = attempts(game_id, players, options, seed)
        assert refused >= 150, f"only {refused} illegal attempts were refused: the test drove too few"
        assert len(set(reasons)) >= 5, "the refusals should be of several kinds"


def test_the_forbidden_hills_are_explained_in_both_languages():
    cls = game_class("hills")
    for options in ({}, {"banners": True}):
        record = simulate(cls(2, options), 5)
        game, barred = cls(2, options), 0
        for move, _ in record.turns:
            if game.current_player() >= 0:
                for why in game.forbidden_hills(game.current_player()).values():
                    assert_bilingual(why, why.ja, why)
                    barred += 1
            game.apply(move)
        assert barred >= 10


def test_a_finished_game_and_an_empty_log_refuse_in_both_languages():
    game = game_class("spartacus")(3)
    with pytest.raises(IllegalMove) as err:
        game.undo()
    assert_bilingual(err.value.reason, err.value.ja, "undo")
    simulate(game, 3)
    with pytest.raises(IllegalMove) as err:
        game.check(Move.of(0, "pass"))
    assert_bilingual(err.value.reason, err.value.ja, "over")


@pytest.mark.parametrize("game_id, players, options", [
    ("wheel", 1, {}), ("wheel", 3, {"start_player": 3}), ("wheel", 3, {"single_card_fall": "yes"}),
    ("spartacus", 3, {"joker_penalty": True}), ("spartacus", 3, {"joker": True, "no_banners": True}),
    ("hills", 2, {"start_player": 2}), ("hills", 2, {"no_such_option": 1}),
    ("prussia", 1, {"jokers": 3}), ("prussia", 1, {"nations": 5}), ("chains", 2, {"start_player": -1}),
])
def test_bad_settings_are_refused_in_both_languages(game_id, players, options):
    with pytest.raises(GameError) as err:
        game_class(game_id)(players, options)
    assert_bilingual(str(err.value), err.value.ja, options)


def test_a_reason_carries_both_languages_into_the_refusal():
    reason = Reason("Spartacus: 7 is not lower than 5.", "スパルタクス: 7は5より低くありません。")
    err = IllegalMove(reason, "spartacus.md")
    assert (err.reason, err.ja, err.rule) == (reason, reason.ja, "spartacus.md")
    assert type(err.reason) is str and str(err) == "Spartacus: 7 is not lower than 5. (spartacus.md)"
    assert IllegalMove("plain", ja="和文").ja == "和文" and IllegalMove("plain").ja == ""
    assert GameError(reason).ja == reason.ja and str(GameError(reason)) == reason


@pytest.mark.parametrize("game_id, players, options", CASES, ids=IDS)
def test_every_event_has_japanese_text(game_id, players, options):
    cls = game_class(game_id)
    for seed in range(3):
        for _, events in simulate(cls(players, options), seed).turns:
            for event in events:
                assert_bilingual(event.text, event.ja, event.kind)


# ----------------------------------------------------------------- the session and the phone page
@pytest.fixture
def store(tmp_path):
    from companion.session import Store
    return Store(str(tmp_path / "s.db"))


def test_an_illegal_observation_is_explained_in_japanese(store):
    from companion.session import TableSession
    s = TableSession.create(store, "spartacus", 3)
    s.play(Move.of(0, "play", card="S-R5"), expected_version=0)
    prompt = s.observe({"trick": ["S-R5", "S-B7"]}).prompt
    assert prompt.kind == "illegal" and "7 is not lower than 5" in prompt.text
    assert_bilingual(prompt.text, prompt.ja, prompt)
    assert prompt.ja.startswith("スパルタクス: 7は5より低くありません") and "ルール違反" not in prompt.ja

    s = TableSession.create(store, "hills", 2)
    s.play(Move.of(0, "place", hill=3, card=None), expected_version=s.version)
    s.play(Move.of(1, "place", hill=4, card=None), expected_version=s.version)
    layout = s.game.layout()
    layout["hills"][3]["red"] = ["B-HILLR"]           # red also goes where blue just placed
    prompt = s.observe(layout).prompt
    assert_bilingual(prompt.text, prompt.ja, prompt)
    assert "丘4" in prompt.ja and all(c["ja"] for c in prompt.choices)


def test_a_blocked_session_says_so_in_japanese(store):
    from companion.session import SessionError, TableSession
    s = TableSession.create(store, "spartacus", 3)
    s.play(Move.of(0, "play", card="S-R5"), expected_version=0)
    s.observe({"trick": ["S-R5", "S-B7"]})
    with pytest.raises(SessionError) as err:
        s.play(Move.of(1, "pass"), expected_version=s.version)
    assert_bilingual(str(err.value), err.value.ja, "blocked")


@pytest.fixture
def client(tmp_path):
    from tests.web_helpers import make_app
    return make_app(tmp_path).test_client()


def _illegal_take(client, lang: str):
    from tests.web_helpers import new_table, state
    table = new_table(client, "wheel")
    headers = {"X-Table-Token": table["token"]}
    st = state(client, table)
    client.post(f"/api/tables/{table['id']}/deal", json={"version": st["version"]}, headers=headers)
    st = state(client, table)
    reachable = {m["move"]["card"] for g in st["groups"] for m in g["moves"] if m.get("card")}
    far = next(c for c in st["layout"]["circle"] if c and c not in reachable)
    move = {"player": st["current_player"], "kind": "take", "card": far}
    return client.post(f"/api/tables/{table['id']}/move?lang={lang}", headers=headers,
                       json={"version": st["version"], "move": move})


def test_the_phone_gets_the_refusal_in_its_language(client):
    ja = _illegal_take(client, "ja")
    body = ja.get_json()
    assert ja.status_code == 422 and body["rule"]
    assert body["error"] == body["ja"] and body["reason"] not in body["error"]
    assert_bilingual(body["reason"], body["error"], body)
    assert "歴史の車輪" in body["error"] and "ポーン" in body["error"]
    en = _illegal_take(client, "en").get_json()
    assert en["error"] == en["reason"] and en["error"].startswith("Wheel of History: move the pawn")
    client.set_cookie("lang", "ja")       # the language cookie counts as well
    assert JAPANESE.search(_illegal_take(client, "").get_json()["error"])


def test_bad_settings_are_refused_in_the_hosts_language(client):
    r = client.post("/api/tables?lang=ja", json={"game": "spartacus", "players": 3,
                                                 "options": {"joker": True, "no_banners": True}})
    body = r.get_json()
    assert r.status_code == 400 and body["error"] == body["ja"]
    assert_bilingual(body["reason"], body["error"], body)
    r = client.post("/api/tables?lang=en", json={"game": "spartacus", "players": 3,
                                                 "options": {"joker": True, "no_banners": True}})
    assert r.get_json()["error"].startswith("options joker and no_banners cannot be combined")


@pytest.mark.parametrize("text", ["not json", '{"nations": 3}', '{"nations": [{"rank": "Z", "name": "X"}]}',
                                  '{"nations": []}'])
def test_a_bad_nations_file_is_refused_in_both_languages(tmp_path, text):
    path = tmp_path / "nations.json"
    path.write_text(text, "utf-8")
    with pytest.raises(GameError) as err:
        game_class("prussia")(1, {"nations": str(path)})
    assert_bilingual(str(err.value), err.value.ja, text)
    assert "nations.json" in err.value.ja
