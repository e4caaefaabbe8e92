"""The history as good as BG Stats: importing the app's export (our games matched, players merged,
what it lacks marked), the round trip through our own BG Stats file, the host's corrections and
deletions surviving a rebuild, player figures (streaks, head-to-head), the overview (months,
h-indexes, records) and ``companion history player|stats --json``. Real SQLite files throughout."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from companion.cli import main
from companion import dates
from companion.history import Play, Seat, edit, exchange, query
from companion.history.record import backfill, write_play
from companion.session import Store, TableSession
from tests.companion.history.test_history import histories, tap_through, through_a_file

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "bgstats-example.json"


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "h.db")


def known(store, names=("Ann", "Ben", "Chie")):
    """Name the people at a table (they become known players) without any play."""
    TableSession.create(store, "spartacus", len(names), names=list(names))


# ------------------------------------------------------------------------------ importing BG Stats
def test_a_bgstats_export_brings_the_plays_of_our_games_and_says_what_it_left_out(store):
    known(store)
    done = exchange.import_text(store, EXAMPLE.read_text(encoding="utf-8"))
    reading = done.reading
    assert done.kind == "bgstats" and done.plays == 4
    assert {(m.name, m.game, m.how) for m in reading.games} == {
        ("Spartacus", "spartacus", "title"), ("ローマ七丘", "hills", "title_ja"),
        ("wheel of history", "wheel", "title")}
    assert reading.other_games == (("Catan", 2), ("Azul", 1)) and reading.other_plays == 3
    assert reading.left_out == (("ignored", 1),)
    people = {p.name: p for p in reading.people}
    assert people["ben"].known == "Ben" and people["Ann"].known == "Ann"       # any case: the same person
    assert people["Chie S."].known is None and people["Chie S."].looks_like == "Chie"   # offered, not merged
    assert people["Anonymous player"].anonymous
    plays = {p.id: p for p in query.plays(store)}
    first = plays["bgstats-B1000000-0000-4000-8000-000000000001"]
    assert first.game == "spartacus" and first.duration == 35 * 60 and first.source == "bgstats"
    assert [(s.name, s.score, s.winner, s.start) for s in first.seats] == [
        ("Ann", 48, True, True), ("Ben", 31, False, False), ("Chie S.", 40, False, False)]
    assert first.kept_by == "unknown" and first.unknown == ("moves",)
    assert dates.iso(first.started).startswith("2026-10-02T19:30:00")
    hills = plays["bgstats-B1000000-0000-4000-8000-000000000003"]
    assert [s.name for s in hills.seats] == ["Ann", "花子"] and hills.seats[0].start     # seat order kept
    blank = plays["bgstats-B1000000-0000-4000-8000-000000000002"]
    assert set(blank.unknown) == {"moves", "duration", "scores", "start"}
    assert blank.seats[2].name == "P3" and blank.seats[2].player is None           # a seat, not a person
    # unknown scores and durations count for nobody's average, best or time
    stats = {(r.name, r.game): r for r in query.player_stats(query.plays(store))}
    assert stats[("Ben", "spartacus")].plays == 2 and stats[("Ben", "spartacus")].wins == 1
    assert stats[("Ben", "spartacus")].scored == 1 and stats[("Ben", "spartacus")].average == 31
    assert query.overview(query.plays(store)).time_played == (35 + 22 + 41) * 60
    table = csv.DictReader(io.StringIO(exchange.export(store, query.plays(store), "csv", everything=True)))
    blank_rows = [r for r in table if r["play"] == "bgstats-B1000000-0000-4000-8000-000000000002"]
    assert [(r["name"], r["score"], r["duration_min"], r["start_player"], r["winner"], r["kept_by"])
            for r in blank_rows] == [("Ann", "", "", "", "0", "unknown"), ("Ben", "", "", "", "1", "unknown"),
                                     ("P3", "", "", "", "0", "unknown")]      # unknown is empty, not 0
    # importing again changes nothing (the plays' ids come from the app's uuids)
    before = query.plays(store)
    exchange.import_text(store, EXAMPLE.read_text(encoding="utf-8"))
    assert query.plays(store) == before


def test_merging_a_bgstats_player_into_a_known_one_and_the_cli_report(tmp_path, capsys):
    db = tmp_path / "h.db"
    known(Store(db))
    assert main(["history", "import", str(EXAMPLE), "--db", str(db), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "3 plays of other games left out (Catan 2, Azul 1)" in out
    assert "'ローマ七丘' is Seven Hills of Rome (matched by Japanese title)" in out
    assert "--merge 'Chie S.=Chie'" in out and "would import 4 plays" in out
    assert "1 play left out: ignored in BG Stats" in out and "1 play: no scores" in out
    assert query.plays(Store(db)) == []                                    # a dry run writes nothing
    assert main(["history", "import", str(EXAMPLE), "--db", str(db), "--merge", "Chie S.=Chie"]) == 0
    assert "imported 4 plays (1 new player)" in capsys.readouterr().out     # 花子
    chie = query.player_summary(query.plays(Store(db)), "chie")
    assert chie is not None and chie.plays == 1 and chie.games[0].best == 40
    assert "Chie S." not in query.known_players(Store(db))
    assert main(["history", "import", str(EXAMPLE), "--db", str(db), "--merge", "Chie S.=Nobody"]) == 2
    assert "'Nobody' is not a known player" in capsys.readouterr().err


def test_our_own_plays_coming_back_from_bgstats_stay_as_our_tables_recorded_them(store):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    tap_through(s, 1)
    before = query.plays(store)
    text = exchange.export(store, before, "bgstats", everything=True)
    done = exchange.import_text(store, text)
    assert done.plays == 0 and done.reading.left_out == (("already_here", 1),)
    assert query.plays(store) == before and before[0].kept_by == "taps"    # not made "unknown"


def test_a_file_of_other_games_only_imports_nothing_and_says_so(store):
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data["games"] = [g for g in data["games"] if g["name"] in ("Catan", "Azul")]
    done = exchange.import_text(store, json.dumps(data))
    assert done.plays == 0 and done.reading.other_plays == 8 and query.plays(store) == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
def test_our_bgstats_export_imported_reproduces_our_plays(tmp_path_factory, history):
    source, target, text = through_a_file(tmp_path_factory.mktemp("bg"), history, "bgstats")
    done = exchange.import_text(target, text)     # twice: the same plays again, nothing added
    assert [m.how for m in done.reading.games] == ["source"] * len({p.game for p in history})
    back = {p.id: p for p in query.plays(target)}
    assert sorted(back) == sorted(p.id for p in history)
    for play in query.plays(source):
        got = back[play.id]
        assert (got.game, got.started, got.ended_early, got.names) == (play.game, play.started,
                                                                       play.ended_early, play.names)
        assert [s.winner for s in got.seats] == [s.winner for s in play.seats]
        assert got.knows("scores") == play.knows("scores")
        if play.knows("scores"):
            assert [s.score for s in got.seats] == [s.score for s in play.seats]
        assert got.knows("start") == play.knows("start")
        if play.knows("start"):
            assert [s.start for s in got.seats] == [s.start for s in play.seats]
            assert got.options["start_player"] == play.options["start_player"]
        minutes = round(play.duration / 60)     # BG Stats keeps whole minutes; 0 is "not recorded"
        assert got.knows("duration") == (play.knows("duration") and minutes > 0)
        if got.knows("duration"):
            assert got.duration == minutes * 60
        assert got.kept_by == "unknown" and got.source == "bgstats"   # camera or taps: BG Stats does not say


# ------------------------------------------------------------------------------ corrections and deletions
def test_a_correction_and_a_deletion_survive_a_rebuild_and_undo_restores(store, tmp_path):
    first = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    tap_through(first, 1)
    test_game = TableSession.create(store, "hills", 2, names=["Ann", "Ben"])
    tap_through(test_game, 2)
    play_id = f"{first.id}-1"
    recorded = {p.id: p for p in query.plays(store)}[play_id]
    fixed = edit.correct(store, play_id, [edit.SeatFix("Ann", 90, True), edit.SeatFix("Ben", 1, False),
                                          edit.SeatFix("Dai", 2, False)], duration_min=45)
    assert [(s.name, s.score, s.winner) for s in fixed.seats] == [("Ann", 90, True), ("Ben", 1, False),
                                                                   ("Dai", 2, False)]
    assert fixed.duration == 45 * 60 and fixed.seats[2].person == "Dai"
    edit.delete(store, f"{test_game.id}-1")
    after = query.plays(store)
    assert [p.id for p in after] == [play_id]
    backfill(store)                                   # `companion history rebuild`: derive from the logs again
    assert query.plays(store) == after
    assert main(["history", "rebuild", "--db", str(store.path)]) == 0
    assert query.plays(Store(store.path)) == after
    # a backup that still has the deleted play does not bring it back
    backup = exchange.export(store, query.plays(store), "json", everything=True)
    data = json.loads(backup)
    data["plays"].append(exchange.play_json(edit.deleted(store)[0].original))
    exchange.import_text(store, json.dumps(data))
    assert [p.id for p in query.plays(store)] == [play_id]
    # undo: as recorded again, and still so after a rebuild
    edit.undo(store, play_id)
    edit.undo(store, f"{test_game.id}-1")
    backfill(store)
    again = {p.id: p for p in query.plays(store)}
    assert again[play_id] == recorded and len(again) == 2
    with pytest.raises(exchange.HistoryError, match="nothing to undo"):
        edit.undo(store, play_id)


def test_a_bad_correction_is_refused_and_changes_nothing(store):
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Ben", "Chie"])
    tap_through(s, 1)
    before = query.plays(store)
    for seats, words in (([edit.SeatFix("Ann", 1, True)], "3 seats"),
                         ([edit.SeatFix("Ann", 1, True), edit.SeatFix("ann", 2, False),
                           edit.SeatFix("Chie", 3, False)], "same name"),
                         ([edit.SeatFix("", 1, True), edit.SeatFix("Ben", 2, False),
                           edit.SeatFix("Chie", 3, False)], "a name is needed")):
        with pytest.raises(exchange.HistoryError, match=words):
            edit.correct(store, f"{s.id}-1", seats)
    with pytest.raises(exchange.HistoryError, match="no play"):
        edit.delete(store, "nope-1")
    assert query.plays(store) == before and edit.edits(store) == []


# ------------------------------------------------------------------------------ figures
def play(i: int, game: str, seats: list[tuple[str, int, bool]], *, day: int, minutes: int = 30) -> Play:
    """A hand-made play on day ``day`` of 2026 (UTC noon)."""
    when = dates.iso_utc(1_767_268_800 + day * 86_400)   # 2026-01-01 12:00 UTC
    return Play(f"t{i}-1", f"t{i}", 1, game, {"start_player": 0}, when, minutes * 60, False, 0, 5,
                tuple(Seat(k, n, sc, w, k == 0) for k, (n, sc, w) in enumerate(seats)))


@pytest.fixture
def figures(store):
    plays = [
        play(1, "spartacus", [("Ann", 50, True), ("Ben", 40, False)], day=0, minutes=40),
        play(2, "spartacus", [("Ann", 60, True), ("Ben", 20, False), ("Chie", 30, False)], day=1, minutes=55),
        play(3, "spartacus", [("Ann", 10, False), ("Ben", 70, True)], day=40, minutes=25),
        play(4, "hills", [("Ann", 9, True), ("Ben", 9, True)], day=41, minutes=12),
        play(5, "hills", [("Ann", 5, True), ("Chie", 3, False)], day=95, minutes=20),
        play(6, "wheel", [("Ann", 7, True), ("Ben", 2, False), ("P3", 1, False)], day=96, minutes=33),
    ]
    with store._write() as db:
        for p in plays:
            write_play(db, p)
    return query.plays(store)


def test_a_players_streaks_head_to_head_and_scores(figures):
    ann = query.player_summary(figures, "ANN")
    assert ann.name == "Ann" and (ann.plays, ann.wins) == (6, 5)
    assert (ann.current_streak, ann.longest_streak) == (3, 3) and ann.last.id == "t6-1"
    h2h = {h.other: (h.plays, h.wins, h.losses, h.draws) for h in ann.head_to_head}
    assert h2h == {"Ben": (5, 3, 1, 1), "Chie": (2, 2, 0, 0)}       # P3 is a seat, not a person
    assert ann.scores["spartacus"] == [(1, 50), (2, 60), (3, 10)]
    assert {r.game: (r.plays, r.wins, r.best) for r in ann.games} == {
        "spartacus": (3, 2, 60), "hills": (2, 2, 9), "wheel": (1, 1, 7)}
    assert query.streaks([True, True, False, True]) == (1, 2) and query.streaks([]) == (0, 0)
    assert ann.h_index == 2 and ann.player_h_index == 2       # games 3, 2, 1; with Ben 5, Chie 2
    assert query.player_summary(figures, "Nobody") is None


def test_the_overview_months_h_indexes_and_records(figures):
    o = query.overview(figures)
    assert o.plays == 6 and o.time_played == (40 + 55 + 25 + 12 + 20 + 33) * 60
    assert o.most_played == ("spartacus", 3) and dict(o.per_game) == {"spartacus": 3, "hills": 2, "wheel": 1}
    assert o.per_month == (("2026-01", 2), ("2026-02", 2), ("2026-03", 0), ("2026-04", 2))
    assert o.h_index == 2               # two games played at least twice, not three thrice
    assert o.player_h_index == 2        # Ann 6, Ben 5, Chie 2: not three people with three plays each
    assert (o.highest.value, o.highest.who, o.highest.play.id) == (70, "Ben", "t3-1")
    assert (o.margin.value, o.margin.who, o.margin.play.id) == (60, "Ben", "t3-1")
    assert (o.longest.value, o.longest.play.id) == (55 * 60, "t2-1")
    assert (o.shortest.value, o.shortest.play.id) == (12 * 60, "t4-1")
    assert o.first.id == "t1-1" and o.last.id == "t6-1"
    assert query.h_index([5, 5, 5, 1]) == 3 and query.h_index([]) == 0 and query.h_index([1]) == 1


def test_cli_player_and_game_stats_say_the_same_figures_as_json(figures, store, capsys):
    assert main(["history", "player", "ann", "--json", "--db", str(store.path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["name"], out["plays"], out["wins"], out["current_streak"], out["longest_streak"]) == \
        ("Ann", 6, 5, 3, 3)
    assert (out["h_index"], out["player_h_index"]) == (2, 2)
    assert {h["other"]: h["wins"] for h in out["head_to_head"]} == {"Ben": 3, "Chie": 2}
    assert main(["history", "stats", "--game", "spartacus", "--json", "--db", str(store.path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["overview"]["plays"] == 3 and out["overview"]["records"]["highest_score"]["value"] == 70
    assert out["overview"]["per_month"] == {"2026-01": 2, "2026-02": 1}
    assert {r["name"]: r["wins"] for r in out["players"]} == {"Ann": 2, "Ben": 1, "Chie": 0}
    assert main(["history", "player", "Ann", "--db", str(store.path)]) == 0
    text = capsys.readouterr().out
    assert "6 plays, 5 wins (83%)" in text and "win streak 3 now, longest 3" in text
    assert main(["history", "player", "Zed", "--db", str(store.path)]) == 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
def test_player_and_overview_figures_add_up(tmp_path_factory, history):
    from tests.companion.history.test_history import stored
    plays = query.plays(stored(tmp_path_factory.mktemp("fig") / "a.db", history))
    o = query.overview(plays)
    assert o.plays == len(plays) == sum(n for _, n in o.per_game) == sum(n for _, n in o.per_month)
    assert 0 <= o.h_index <= min(len(o.per_game), o.plays) and o.time_played == sum(
        p.duration for p in plays if p.knows("duration"))
    for person in {s.person for p in plays for s in p.seats if s.person}:
        me = query.player_summary(plays, person)
        assert me.plays == sum(r.plays for r in me.games) and me.wins == sum(r.wins for r in me.games)
        assert me.longest_streak >= me.current_streak and me.longest_streak <= me.wins
        for h in me.head_to_head:
            assert h.wins + h.losses + h.draws == h.plays
            them = {x.other: x for x in query.player_summary(plays, h.other).head_to_head}[me.name]
            assert (them.plays, them.wins, them.losses, them.draws) == (h.plays, h.losses, h.wins, h.draws)


def test_the_companion_holds_no_record_of_its_own():
    """Game night: after Ann lost four Seven Hills games to the companion, the overview's records
    said "Highest score 21 Ben", "Biggest margin 14 Ben": Ben was the companion's seat."""
    lost = play(1, "hills", [("Ann", 7, False), ("Ben", 21, True)], day=3)
    lost = replace(lost, seats=(lost.seats[0], replace(lost.seats[1], companion="good")))
    won = play(2, "hills", [("Ann", 12, True), ("Ben", 9, False)], day=4)
    won = replace(won, seats=(won.seats[0], replace(won.seats[1], companion="good")))
    o = query.overview([lost, won])
    assert (o.highest.value, o.highest.who) == (12, "Ann")
    assert (o.margin.value, o.margin.who) == (3, "Ann")   # Ann's one lead; the companion's 14 is none
