"""The host ends a game early: scores as they stand, over for every reader, undo reopens it."""
from __future__ import annotations

import json
import random
import urllib.parse

import pytest

from companion.engine import CHANCE, TERMINAL, IllegalMove, Move
from companion.history import bgstats
from companion.session import SessionError, StaleVersion, Store, TableSession
from companion.session.table import decided
from tablesim.scripted import play_through_camera, table_move


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "t.db")


def spartacus_after_one_trick(store, **kw):
    """Ann wins the first trick (5 points); its ruling prompt (pile the trick) is still open."""
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Cy"], **kw)
    for m in [Move.of(0, "play", card="S-R5"), Move.of(1, "pass"), Move.of(2, "pass")]:
        s.play(m, expected_version=s.version)
    return s


def test_end_game_scores_as_they_stand_and_closes_everything(store):
    s = spartacus_after_one_trick(store)
    assert [p.kind for p in s.prompts] == ["ruling"] and s.legal_moves()
    events = s.end_game(by="host", expected_version=3)
    assert s.version == 4 and [e.kind for e in events] == ["ended_by_host"]
    assert "ended the game early" in events[0].text and "Ann 5" in events[0].text and "Ann wins" in events[0].text
    assert "途中で終了" in events[0].ja and "Annの勝利" in events[0].ja
    st = s.state()
    assert st["is_over"] and st["ended_by_host"] and st["scores"] == [5, 0, 0] and st["winners"] == [0]
    assert st["current_player"] == TERMINAL and st["view"]["current_player"] == TERMINAL
    assert st["legal_moves"] == [] and st["chance_moves"] == [] and st["prompts"] == []
    assert st["events"][-1]["kind"] == "ended_by_host" and st["events"][-1]["version"] == 4
    assert s.legal_moves() == [] and s.chance_moves() == [] and s.prompts == []
    assert store.sessions()[0]["finished"]
    # every reader of the log agrees: replayed from SQLite it is the same state
    again = TableSession.open(store, s.id)
    assert again.state() == st and again.ended_by_host and again.game == s.game


def test_writes_to_an_ended_game_are_refused_and_change_nothing(store):
    s = spartacus_after_one_trick(store)
    ruling = s.prompts[0].id
    s.end_game(expected_version=s.version)
    with pytest.raises(IllegalMove, match="ended this game early"):
        s.play(Move.of(1, "play", card="S-B1"), expected_version=4)
    with pytest.raises(SessionError, match="nothing left to answer"):
        s.answer(ruling, "done", by="host", expected_version=4)
    with pytest.raises(SessionError, match="ended this game early"):
        s.override(Move.of(1, "play", card="S-B1"), reason="house rule", expected_version=4)
    with pytest.raises(SessionError, match="ended this game early"):
        s.correct(Move.of(2, "play", card="S-G1"), expected_version=4)
    out = s.observe({"trick": ["S-B1"]})          # the table is being cleared: nothing to read
    assert out.kind == "nothing" and out.moves == [] and out.prompt is None
    with pytest.raises(SessionError, match="already over"):
        s.end_game(expected_version=4)
    assert s.version == 4 and len(list(store.entries(s.id))) == 4


def test_end_game_checks_the_version(store):
    s = spartacus_after_one_trick(store)
    other = TableSession.open(store, s.id)
    other.play(Move.of(1, "play", card="S-B1"), expected_version=3)
    with pytest.raises(StaleVersion, match="reload"):
        s.end_game(expected_version=3)
    assert s.version == 4 and not s.is_over() and s.legal_moves()


def test_a_game_over_by_the_rules_cannot_be_ended(store):
    s = TableSession.create(store, "spartacus", 3)
    play_through_camera(s, seed=4, skip=0)
    version = s.version
    with pytest.raises(SessionError, match="ended by the rules"):
        s.end_game(expected_version=version)
    assert s.version == version and not s.state()["ended_by_host"]


def test_undo_right_after_takes_back_the_end(store):
    s = spartacus_after_one_trick(store)
    before = s.state()
    s.end_game(expected_version=3)
    assert s.undo(expected_version=4) is None       # the end, not Ann's trick, is taken back
    st = s.state()
    assert not st["is_over"] and not st["ended_by_host"] and st["winners"] == []
    assert st["legal_moves"] == before["legal_moves"] and st["current_player"] == before["current_player"]
    assert st["prompts"] == before["prompts"]       # the open ruling is back
    assert st["events"][-1]["kind"] == "reopened" and st["events"][-1]["ja"]
    assert not store.sessions()[0]["finished"]
    s.play(Move.of(1, "play", card="S-B1"), expected_version=5)
    assert TableSession.open(store, s.id).state() == s.state()
    # a second undo takes back moves again
    assert s.undo(expected_version=6) == Move.of(1, "play", card="S-B1")


def test_end_at_a_chance_node_before_any_move(store):
    s = TableSession.create(store, "wheel", 2, names=["Ann", "Ben"])
    assert s.game.is_chance_node() and s.state()["current_player"] == CHANCE
    events = s.end_game(expected_version=0)
    assert "Nobody is ahead: a draw." in events[0].text and "引き分け" in events[0].ja
    assert s.chance_moves() == [] and s.state()["winners"] == []   # a draw: nobody won, not a shared win
    assert s.undo(expected_version=1) is None and s.game.is_chance_node()
    with pytest.raises(SessionError, match="no move to undo"):
        s.undo(expected_version=2)


def test_winners_are_the_engines_ranking_of_the_scores_now(store):
    """Each engine ranks its own scores (Chains breaks ties on the smallest missing terminal)."""
    for game_id, players, moves in (("chains", 3, 60), ("hills", 2, 9), ("wheel", 3, 12), ("prussia", 2, 20)):
        s = TableSession.create(store, game_id, players)
        rng = random.Random(5)
        for _ in range(moves):
            s.play(table_move(s.game, rng), expected_version=s.version)
        assert not s.is_over()
        s.end_game(expected_version=s.version)
        st = s.state()
        assert st["scores"] == s.game.scores() and st["winners"] == decided(players, s.game.winners())
        assert st["winners"] == ([] if len(s.game.winners()) == players else s.game.winners())
        assert st["events"][-1]["data"] == {"scores": st["scores"], "winners": st["winners"]}


def test_series_counts_the_ended_game_and_goes_on(store):
    s = spartacus_after_one_trick(store, rounds=2)
    s.end_game(expected_version=3)
    series = s.series()
    assert series["games"] == [[5, 0, 0]] and series["totals"] == [5, 0, 0] and not series["is_over"]
    assert series["ended_by_host"] == [True]
    s.next_game(expected_version=4)
    assert s.game.options["start_player"] == 1 and not s.is_over() and not s.ended_by_host
    assert s.legal_moves()
    play_through_camera(s, seed=2, skip=0)
    series = s.series()
    second = s.game.scores()
    assert series["is_over"] and series["games"] == [[5, 0, 0], second]
    assert series["totals"] == [5 + second[0], second[1], second[2]] and series["ended_by_host"] == [True, False]
    assert TableSession.open(store, s.id).series() == series
    exported = s.export()
    first = exported["games"][0]
    assert first["finished"] and first["ended_by_host"] and first["scores"] == [5, 0, 0] and first["winners"] == [0]
    assert [m["kind"] for m in first["moves"]] == ["play", "pass", "pass"]
    assert exported["games"][1]["finished"] and not exported["games"][1]["ended_by_host"]
    json.dumps(exported)
    # BG Stats: the ended game is a play with its scores and a note that it was not finished
    payload = bgstats.session_payload(s, 1)
    assert [p["score"] for p in payload["players"]] == ["5", "0", "0"]
    assert [p["winner"] for p in payload["players"]] == [True, False, False]
    assert "not played to the end" in payload["comments"]
    assert "comments" not in bgstats.session_payload(s, 2)
    link = bgstats.session_link(s, 1)
    assert json.loads(urllib.parse.unquote(link.split("data=", 1)[1])) == payload


def test_a_single_ended_game_is_exported_and_pushed(store):
    s = spartacus_after_one_trick(store)
    with pytest.raises(SessionError, match="finished"):
        bgstats.session_payload(s)
    s.end_game(expected_version=3)
    assert s.export()["games"][0]["ended_by_host"] and s.series()["is_over"]
    assert bgstats.session_payload(s)["sourcePlayId"] == f"{s.id}-1"
