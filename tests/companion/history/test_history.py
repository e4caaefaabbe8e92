"""The play history: plays recorded when games end (and withdrawn when reopened), the migration of an
old database, statistics, export (CSV, JSON, BG Stats) and import, dates for people and machines."""
from __future__ import annotations

import csv
import io
import json
import os
import random
import sqlite3
import time
import urllib.parse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.engine import Move
from companion import dates
from companion.history import Play, Seat, bgstats, edit, exchange, query
from companion.history.record import write_play
from companion.session import Store, TableSession
from tablesim.scripted import play_through_camera


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "h.db")


def tap_through(s: TableSession, seed: int = 1) -> None:
    """Play the current game to its end by taps (the app deals at chance nodes)."""
    rng = random.Random(seed)
    while not s.is_over():
        if s.game.is_chance_node():
            s.play(s.game.sample_chance(rng), by="app", expected_version=s.version)
        else:
            s.play(rng.choice(s.legal_moves()), by="phone", expected_version=s.version)


def rows(db_path) -> dict[str, list[tuple]]:
    """Every row of the history tables, in a fixed order."""
    with sqlite3.connect(db_path) as db:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                for t in ("players", "plays", "play_seats", "play_sources", "play_edits")}


def test_a_game_played_by_taps_is_a_play_when_it_ends(store):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    s.play(Move.of(0, "play", card="S-R5"), expected_version=0)
    assert query.plays(store) == []            # not over: not a play
    tap_through(s)
    [play] = query.plays(store)
    assert play.id == f"{s.id}-1" and play.session == s.id and play.game == "spartacus"
    assert play.names == ["Ann", "Ben", "Chie"] and [x.score for x in play.seats] == s.game.scores()
    assert play.winners == [["Ann", "Ben", "Chie"][w] for w in s.game.winners()]
    assert play.kept_by == "taps" and play.camera_moves == 0 and play.tapped_moves == len(s.game.log)
    assert not play.ended_early and play.seats[0].start and not play.seats[1].start
    assert play.started.endswith("+00:00") and play.duration >= 0
    assert all(x.player is not None for x in play.seats)
    assert query.known_players(store)[:3] == ["Ann", "Ben", "Chie"]


def test_undo_of_the_last_move_withdraws_the_play_and_the_end_records_it_again(store):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    tap_through(s)
    first = query.plays(store)
    assert len(first) == 1
    s.undo(expected_version=s.version)
    assert query.plays(store) == []
    tap_through(s, seed=1)
    assert len(query.plays(store)) == 1


def test_a_game_ended_early_is_marked_and_undo_takes_it_back(store):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    for m in [Move.of(0, "play", card="S-R5"), Move.of(1, "pass"), Move.of(2, "pass")]:
        s.play(m, expected_version=s.version)
    s.end_game(expected_version=s.version)
    [play] = query.plays(store)
    assert play.ended_early and [x.score for x in play.seats] == [5, 0, 0] and play.winners == ["Ann"]
    assert bgstats.push_payload(play)["comments"].startswith("Ended early")
    s.undo(expected_version=s.version)
    assert query.plays(store) == []


def test_a_series_is_one_play_per_game_with_real_start_times(store):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"], rounds=2)
    tap_through(s, 1)
    time.sleep(1.1)
    s.next_game(expected_version=s.version)
    tap_through(s, 2)
    one, two = query.plays(store)
    assert (one.number, two.number) == (1, 2) and two.started > one.started
    assert two.seats[1].start    # the start player moved one seat on
    assert bgstats.session_payload(s, 2)["sourcePlayId"] == two.id


def test_camera_kept_games_say_so(store):
    s = TableSession.create(store, "wheel", 3, names=["Ann", "Ben", "Chie"])
    play_through_camera(s, seed=7, skip=0.0)
    [play] = query.plays(store)
    assert play.camera_moves > 0 and play.kept_by in ("camera", "camera+taps")


def test_an_old_database_is_backfilled_on_first_open(tmp_path):
    path = tmp_path / "old.db"
    s = TableSession.create(Store(path), "spartacus", 3, names=["Ann", "Ben", "Chie"])
    tap_through(s)
    unfinished = TableSession.create(Store(path), "hills", 2, names=["Dai", "Emi"])
    unfinished.play(unfinished.legal_moves()[0], expected_version=0) if unfinished.legal_moves() else None
    before = rows(path)
    with sqlite3.connect(path) as db:   # the database as the previous version left it
        db.executescript("DROP TABLE plays; DROP TABLE play_seats; DROP TABLE players; PRAGMA user_version = 0;")
    Store(path)
    after = rows(path)
    assert after["plays"] == before["plays"] and after["play_seats"] == before["play_seats"]
    assert sorted(r[1] for r in after["players"]) == ["Ann", "Ben", "Chie", "Dai", "Emi"]


def test_statistics_per_player_and_game(store):
    for seed in (1, 2, 3):
        tap_through(TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"]), seed)
    tap_through(TableSession.create(store, "spartacus", 3, names=["ann", "P2", "Dai"]), 4)
    plays = query.plays(store)
    stats = {r.name: r for r in query.player_stats(plays)}
    assert set(stats) == {"Ann", "Ben", "Chie", "Dai"}          # "ann" is Ann; P2 is a seat, not a person
    ann = [x for p in plays for x in p.seats if x.name.lower() == "ann"]
    assert stats["Ann"].plays == 4 and stats["Ann"].wins == sum(x.winner for x in ann)
    assert stats["Ann"].best == max(x.score for x in ann)
    assert stats["Ann"].average == pytest.approx(sum(x.score for x in ann) / 4)
    assert sum(c for _, _, c in query.distribution(plays, "spartacus")) == 12
    assert len(query.plays(store, query.Filter(player="ANN"))) == 4
    assert len(query.plays(store, query.Filter(player="Ben"))) == 3
    assert query.plays(store, query.Filter(game="wheel")) == []
    lines = query.score_lines(plays, "spartacus")
    dai = next(i for i, p in enumerate(plays, 1) if "Dai" in p.names)
    assert [i for i, _ in lines["Ann"]] == [1, 2, 3, 4] and lines["Dai"] == [(dai, plays[dai - 1].seats[2].score)]


# ---------------------------------------------------------------------------- export and import
names = st.sampled_from(["Ann", "Ben", "Chie", "Dai", "Emi", "P1", "P2", "Åsa", "花子"])


@st.composite
def histories(draw):
    plays = []
    for i in range(draw(st.integers(0, 6))):
        people = draw(st.lists(names, min_size=1, max_size=5, unique_by=str.casefold))
        scores = draw(st.lists(st.integers(-20, 120), min_size=len(people), max_size=len(people)))
        top = max(scores)
        start = draw(st.integers(0, len(people) - 1))
        seats = tuple(Seat(k, n, sc, sc == top, k == start) for k, (n, sc) in enumerate(zip(people, scores)))
        when = dates.iso_utc(draw(st.integers(1_700_000_000, 1_900_000_000)))
        plays.append(Play(f"s{i}-{draw(st.integers(1, 3))}", draw(st.one_of(st.none(), st.just(f"s{i}"))),
                          draw(st.integers(1, 3)), draw(st.sampled_from(["wheel", "hills", "spartacus", "chains"])),
                          {"start_player": start, "x": draw(st.booleans())}, when,
                          draw(st.integers(0, 20000)), draw(st.booleans()), draw(st.integers(0, 80)),
                          draw(st.integers(0, 80)), seats, *draw(st.sampled_from(SOURCES))))
    return plays


SOURCES = [(None, ()), ("bgstats", ("moves",)), ("bgstats", ("duration", "moves", "scores", "start"))]
"""Plays of our tables, and plays imported from BG Stats that did not say some things."""


def stored(path, history) -> Store:
    """A store at ``path`` holding the plays of ``history``."""
    store = Store(path)
    with store._write() as db:
        for play in history:
            write_play(db, play)
    return store


def through_a_file(base, history, fmt: str, changes=()):
    """``history`` stored in ``base``/a.db (with the host's ``changes``: (play index, delete?, score
    shift)), exported as ``fmt`` and imported into an empty b.db: (source, target, the file's text)."""
    source = stored(base / "a.db", history)
    for index, delete, shift in changes:
        current = {p.id: p for p in query.plays(source)}
        play = current.get(history[index % len(history)].id) if history else None
        if play is None:
            continue
        if delete:
            edit.delete(source, play.id)
        else:
            edit.correct(source, play.id, [edit.SeatFix(x.name, x.score + shift, x.winner) for x in play.seats],
                         duration_min=abs(shift))
    text = exchange.export(source, query.plays(source), fmt, everything=True)
    target = Store(base / "b.db")
    exchange.import_text(target, text)
    return source, target, text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories(), changes=st.lists(st.tuples(st.integers(0, 5), st.booleans(), st.integers(-5, 5)),
                                             max_size=3))
def test_an_import_of_an_export_reproduces_the_same_rows(tmp_path_factory, history, changes):
    base = tmp_path_factory.mktemp("rt")
    _, target, text = through_a_file(base, history, "json", changes)   # corrections and deletions too
    assert rows(base / "b.db") == rows(base / "a.db")
    exchange.import_text(target, text)          # importing twice changes nothing
    assert rows(base / "b.db") == rows(base / "a.db")


def test_the_cli_round_trip_of_real_games_restores_exactly(tmp_path, capsys):
    db, fresh, backup = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "backup.json"
    s = TableSession.create(Store(db), "spartacus", 3, names=["Ann", "Ben", "Chie"], rounds=2)
    tap_through(s, 1)
    s.next_game(expected_version=s.version)
    tap_through(s, 2)
    TableSession.create(Store(db), "wheel", 2, names=["Dai", "P2"])     # a known player with no play yet
    assert main(["history", "export", "--format", "json", "--db", str(db), "-o", str(backup)]) == 0
    assert main(["history", "import", str(backup), "--db", str(fresh)]) == 0
    assert "imported 2 plays (4 new players)" in capsys.readouterr().out
    assert rows(fresh) == rows(db)


def test_a_bad_import_changes_nothing(tmp_path, capsys):
    db = tmp_path / "a.db"
    tap_through(TableSession.create(Store(db), "spartacus", 3, names=["Ann", "Ben", "Chie"]))
    good = json.loads(exchange.export(Store(db), query.plays(Store(db)), "json", everything=True))
    before = rows(db)
    bad = dict(good, plays=good["plays"] + [dict(good["plays"][0], id="x-1", game="chess")])
    for text, words in ((json.dumps(bad), "unknown game 'chess'"), ("{", "not JSON"),
                        (json.dumps({"plays": []}), "not a history backup"),
                        (json.dumps(dict(good, plays=[dict(good["plays"][0], started="yesterday")])), "ISO 8601")):
        path = tmp_path / "bad.json"
        path.write_text(text)
        assert main(["history", "import", str(path), "--db", str(db)]) == 2
        assert words in capsys.readouterr().err
        assert rows(db) == before


def test_csv_and_bgstats_exports_of_a_date_range(tmp_path, capsys):
    db = tmp_path / "a.db"
    store = Store(db)
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "P3"])
    tap_through(s)
    with store._write() as txn:    # an older play, from last year
        write_play(txn, Play("old-1", None, 1, "wheel", {"start_player": 0}, "2025-03-01T18:00:00+00:00",
                             2700, False, 30, 0, (Seat(0, "Ann", 12, False, True), Seat(1, "Ben", 15, True, False))))
    assert main(["history", "export", "--format", "csv", "--from", "2026-01-01", "--db", str(db)]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["name"] for r in table] == ["Ann", "Ben", "P3"] and {r["play"] for r in table} == {f"{s.id}-1"}
    assert main(["history", "export", "--format", "bgstats", "--db", str(db)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {g["name"] for g in data["games"]} == {"Spartacus", "Wheel of History"}
    old = next(p for p in data["plays"] if p["sourcePlayId"] == "old-1")
    assert old["durationMin"] == 45 and old["playDate"][:10] == dates.instant("2025-03-01T18:00:00+00:00").strftime("%Y-%m-%d")
    assert len(old["playDate"]) == 19 and old["playDate"][10] == " "
    players = {p["id"]: p for p in data["players"]}
    assert [players[x["playerRefId"]]["name"] for x in old["playerScores"]] == ["Ann", "Ben"]
    assert [x["winner"] for x in old["playerScores"]] == [False, True] and old["playerScores"][0]["score"] == "12"
    assert [p["isAnonymous"] for p in data["players"] if p["name"] == "P3"] == [True]
    # the same play through the push link and through the file: one mapping, the same facts
    new = next(p for p in data["plays"] if p["sourcePlayId"] == f"{s.id}-1")
    pushed = json.loads(urllib.parse.unquote(bgstats.session_link(s).split("data=", 1)[1]))
    assert pushed["playDate"] == new["playDate"] and pushed["durationMin"] == new["durationMin"]
    assert [(p["score"], p["winner"], p["startPlayer"], p["seatOrder"]) for p in pushed["players"]] == \
        [(x["score"], x["winner"], x["startPlayer"], x["seatOrder"]) for x in new["playerScores"]]


def test_bad_dates_are_refused_with_the_shape_to_use(tmp_path, capsys):
    assert main(["history", "export", "--from", "24/11/2026", "--db", str(tmp_path / "a.db")]) == 2
    assert "2026-11-24" in capsys.readouterr().err


# ---------------------------------------------------------------------------- dates (issue 14, point 5)
@pytest.fixture
def tokyo():
    old = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Tokyo"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_dates_for_people_in_both_languages_and_iso_for_machines(tokyo):
    when = 1795520011.1250637            # the timestamp the issue saw on the tables list
    assert dates.human(when) == "Tue 24 Nov 2026, 20:33"
    assert dates.human(when, "ja") == "2026年11月24日(火) 20:33"
    assert dates.iso(when).endswith("+09:00") and "T" in dates.iso(when)
    assert dates.iso_utc(when).endswith("+00:00")
    assert dates.duration(3900) == "1 h 05 min" and dates.duration(3900, "ja") == "1時間5分"
    assert dates.duration(20) == "<1 min" and dates.duration(20, "ja") == "1分未満"


def test_session_list_shows_dates_and_its_json_is_iso(tmp_path, capsys, tokyo):
    db = str(tmp_path / "cli.db")
    main(["session", "new", "spartacus", "--names", "Ann,Ben,Cy", "--db", db, "--json"])
    capsys.readouterr()
    assert main(["session", "list", "--db", db]) == 0
    out = capsys.readouterr().out
    today = dates.human(time.time())
    assert today[:-3] in out        # the date and hour, as people read them
    assert main(["session", "list", "--db", db, "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert isinstance(row["created"], str) and row["created"].endswith("+09:00")
    assert main(["session", "show", row["id"], "--db", db]) == 0
    assert f"created: {today[:-3]}" in capsys.readouterr().out


def test_a_failing_history_never_blocks_the_game_and_rebuild_brings_it_back(store, tmp_path, monkeypatch, capsys):
    import companion.history.record as record
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])

    def broken(*_):
        raise RuntimeError("a bug in the history")
    with monkeypatch.context() as m:
        m.setattr(record, "plays_of", broken)
        tap_through(s)                          # the game still ends: the log has every move
    assert s.is_over() and query.plays(store) == []
    assert main(["history", "rebuild", "--db", str(tmp_path / "h.db")]) == 0
    assert "1 plays derived" in capsys.readouterr().out
    [play] = query.plays(store)
    assert play.id == f"{s.id}-1" and [x.score for x in play.seats] == s.game.scores()


def test_an_empty_history_says_where_plays_come_from(tmp_path, capsys):
    """A new user runs `./run demo`, then `history list` (README's tour): the empty answer says the
    demo's games are not kept, and how a play is recorded."""
    assert main(["history", "list", "--db", str(tmp_path / "empty.db")]) == 0
    out = capsys.readouterr().out
    assert "no plays yet" in out and "companion serve" in out and "the demo's games are not kept" in out


def test_a_history_filtered_to_nothing_says_so_not_no_plays_yet(store, tmp_path, capsys):
    """`history list --game chains` with only Spartacus plays said "no plays yet" (and `stats` too): it
    says there are no plays of that game and names the games that have plays; other filters that let
    nothing through say so (EN and JA)."""
    tap_through(TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"]))
    db = str(tmp_path / "h.db")
    for command in ("list", "stats"):
        assert main(["history", command, "--db", db, "--game", "chains"]) == 0
        out = capsys.readouterr().out
        assert "no plays yet" not in out and "no plays of Chains yet; the games with plays: Spartacus (1 play)" in out
        assert main(["history", command, "--db", db, "--player", "Zoe"]) == 0
        assert "no plays match these filters (1 play in all)" in capsys.readouterr().out
    assert main(["--lang", "ja", "history", "list", "--db", db, "--game", "chains"]) == 0
    assert "チェーンズのプレイはまだありません。プレイのあるゲーム: スパルタクス (1回)" in capsys.readouterr().out
