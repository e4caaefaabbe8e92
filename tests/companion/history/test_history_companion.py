"""The history knows which seats the companion played and at which level: recorded from the log,
kept through an old database's migration and through export/import, and a person's record against
it per level."""
from __future__ import annotations

import json
import sqlite3

import pytest

from companion.history import exchange, query
from companion.history.record import HistoryError
from companion.session import Store, TableSession
from tests.companion.history.test_history import rows, tap_through


def companion_series(store: Store) -> TableSession:
    """Two games of Spartacus: Ann against the companion (good, then strong) and Ben."""
    s = TableSession.create(store, "spartacus", 3, names=["Ann", "Companion (good)", "Ben"])
    s.set_companions({1: "good"})
    tap_through(s, 1)
    s.set_companions({1: "strong"})   # between games: the first game keeps "good"
    s.next_game(expected_version=s.version)
    tap_through(s, 2)
    return s


def test_each_play_records_the_companions_seats_and_level(tmp_path):
    store = Store(tmp_path / "h.db")
    companion_series(store)
    first, second = query.plays(store)
    assert [x.companion for x in first.seats] == [None, "good", None]
    assert [x.companion for x in second.seats] == [None, "strong", None]
    assert first.seats[1].player is None and first.seats[0].player is not None   # it is no person
    assert {r.name for r in query.player_stats([first, second])} == {"Ann", "Ben"}
    ann = query.player_summary([first, second], "Ann")
    assert [h.other for h in ann.head_to_head] == ["Ben"]
    against = {h.other: h for h in ann.against_companion}
    assert list(against) == ["good", "strong"]
    for play, level in ((first, "good"), (second, "strong")):
        result = query.ahead(play, play.seats[0], play.seats[1])
        h = against[level]
        assert (h.plays, h.wins, h.losses, h.draws) == (1, int(result > 0), int(result < 0), int(result == 0))


def test_an_old_database_gets_the_companion_column_and_its_levels(tmp_path):
    path = tmp_path / "old.db"
    companion_series(Store(path))
    before = rows(path)
    with sqlite3.connect(path) as db:   # the database as schema 1 left it: no column, the seat a player
        # (schema 1 remembered the seat's name as a person; the session now forgets a name once its
        # seat is the companion's, so the old row is put back as that code left it)
        db.executescript("ALTER TABLE play_seats DROP COLUMN companion; PRAGMA user_version = 1; "
                         "INSERT OR IGNORE INTO players (name, created) VALUES ('Companion (good)', "
                         "'2026-01-01T00:00:00+00:00'); "
                         "UPDATE play_seats SET player = (SELECT id FROM players WHERE name = 'Companion (good)') "
                         "WHERE seat = 1;")
        assert db.execute("SELECT COUNT(*) FROM play_seats WHERE player IS NULL").fetchone()[0] == 0
        assert "companion" not in {r[1] for r in db.execute("PRAGMA table_info(play_seats)")}
    store = Store(path)
    assert store._db().execute("PRAGMA user_version").fetchone()[0] == 2
    assert rows(path)["play_seats"] == before["play_seats"]
    assert [x.companion for p in query.plays(store) for x in p.seats] == [None, "good", None, None, "strong", None]


def test_an_export_and_import_keeps_the_companions_seats_and_a_bad_level_is_refused(tmp_path):
    source, target = Store(tmp_path / "a.db"), Store(tmp_path / "b.db")
    companion_series(source)
    text = exchange.export(source, query.plays(source), "json", everything=True)
    assert '"companion": "strong"' in text
    exchange.import_text(target, text)
    assert rows(tmp_path / "b.db") == rows(tmp_path / "a.db")
    fresh = Store(tmp_path / "c.db")
    bad = text.replace('"companion": "strong"', '"companion": "godlike"')
    with pytest.raises(HistoryError, match="'companion' must be one of beginner, good, strong"):
        exchange.import_text(fresh, bad)
    assert rows(tmp_path / "c.db")["plays"] == []


def test_the_cli_player_page_gives_the_record_against_the_companion(tmp_path, capsys):
    from companion.cli import main
    companion_series(Store(tmp_path / "h.db"))
    assert main(["history", "player", "Ann", "--db", str(tmp_path / "h.db")]) == 0
    out = capsys.readouterr().out
    assert "against the companion (good): 1 plays" in out and "against the companion (strong): 1 plays" in out
    assert main(["history", "player", "Ann", "--db", str(tmp_path / "h.db"), "--json"]) == 0
    assert [r["level"] for r in json.loads(capsys.readouterr().out)["against_companion"]] == \
        ["good", "strong"]


def test_the_csv_and_bg_stats_exports_say_which_seats_the_companion_played(tmp_path):
    """CSV: a `companion` column with the level (empty for a person). BG Stats: the companion is one
    player per level named for what it is ("Companion (good)", the host's "Robo" as "Robo (companion,
    good)"), never a person of that name nor anonymous; the file read back gives the same companion
    seats and no known player for them."""
    import csv
    import io
    store = Store(tmp_path / "h.db")
    companion_series(store)
    robo = TableSession.create(store, "hills", 2, names=["Ann", "Robo"], companions={1: "good"})
    tap_through(robo, 3)
    plays = query.plays(store)
    table = list(csv.DictReader(io.StringIO(exchange.export(store, plays, "csv", everything=True))))
    assert [(r["name"], r["companion"]) for r in table] == [
        ("Ann", ""), ("Companion (good)", "good"), ("Ben", ""), ("Ann", ""), ("Companion (good)", "strong"),
        ("Ben", ""), ("Ann", ""), ("Robo", "good")]
    data = json.loads(exchange.export(store, plays, "bgstats", everything=True))
    names = {p["name"]: p for p in data["players"]}
    assert set(names) == {"Ann", "Ben", "Companion (good)", "Companion (strong)", "Robo (companion, good)"}
    assert not any(p["isAnonymous"] for p in data["players"])
    fresh = Store(tmp_path / "fresh.db")
    exchange.import_text(fresh, json.dumps(data))
    back = query.plays(fresh)
    assert [[s.companion for s in p.seats] for p in back] == [[s.companion for s in p.seats] for p in plays]
    assert [s.name for s in back[-1].seats] == ["Ann", "Robo"]
    assert query.known_players(fresh) == ["Ann", "Ben"]
