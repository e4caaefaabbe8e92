"""``companion bench history``: how long the play history takes with a large log of plays.

Writes N random plays (3–5 seats, a dozen people, the five games, two years of dates) into a fresh
SQLite file, then times: recording one play as a game ends, reading every play, the statistics,
each export format, importing the JSON backup into an empty file (checked row for row), the host's
History page rendered by the web app (charts included), the player, overview and game pages (each
page the median of five requests), their figures alone, importing our BG Stats file into an empty
file, and a correction kept through a rebuild. ``--names NEWxKNOWN`` (default 1500x1713, issue 20):
the CPU time of the web import's preview of a BG Stats file whose NEW people are all new to a history
that knows KNOWN players, and the page's size and options.
"""
from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from companion import dates
from companion.history import exchange, query
from companion.history.record import Play, Seat, write_play
from companion.console import run_main

PEOPLE = ("Ann", "Ben", "Chie", "Dai", "Emi", "Fumi", "Gen", "Hana", "Iku", "Jun", "Kei", "Lea")
GAMES = ("wheel", "hills", "spartacus", "prussia", "chains")


def random_plays(count: int, seed: int = 1) -> list[Play]:
    """``count`` plausible plays, reproducible from ``seed``."""
    rng = random.Random(seed)
    start = 1_735_689_600   # 2025-01-01
    plays = []
    for i in range(count):
        people = rng.sample(PEOPLE, rng.randint(3, 5))
        scores = [rng.randint(-10, 90) for _ in people]
        first = rng.randrange(len(people))
        seats = tuple(Seat(k, n, sc, sc == max(scores), k == first) for k, (n, sc) in enumerate(zip(people, scores)))
        camera = rng.randint(0, 60)
        plays.append(Play(f"bench{i // 3}-{i % 3 + 1}", f"bench{i // 3}", i % 3 + 1, rng.choice(GAMES),
                          {"start_player": first}, dates.iso_utc(start + i * 63_000 + rng.randint(0, 3600)),
                          rng.randint(600, 5400), rng.random() < 0.05, camera, rng.randint(0, 60 - camera), seats))
    return plays


def _timed(what: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = what()
    return (time.perf_counter() - t0) * 1000, out


def _median(what: Callable[[], Any], runs: int = 5) -> tuple[float, Any]:
    """The median time of ``runs`` calls (a page: one slow call on a shared machine says little)."""
    results = [_timed(what) for _ in range(runs)]
    return sorted(t for t, _ in results)[runs // 2], results[-1][1]


SYLLABLES = ("ka", "ki", "ku", "ke", "ko", "sa", "shi", "su", "se", "so", "ta", "chi", "tsu", "te", "to",
             "na", "ni", "nu", "ne", "no", "ha", "hi", "fu", "he", "ho", "ma", "mi", "mu", "me", "mo",
             "ya", "yu", "yo", "ra", "ri", "ru", "re", "ro", "wa", "n", "an", "el", "or", "is")


def person_names(count: int, seed: int) -> list[str]:
    """``count`` different plausible names ("Kanami Soto"), reproducible from ``seed``."""
    rng = random.Random(seed)
    names: set[str] = set()
    while len(names) < count:
        given = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        family = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))).capitalize()
        names.add(f"{given} {family}")
    return sorted(names)


def names_to_import(tmp: Path, new: int, known: int) -> tuple[Any, str, str, list[str]]:
    """A history in ``tmp`` that knows ``known`` players and a BG Stats file of plays by ``new``
    others: the web app's client (the host's, on this computer), its CSRF token, the file's text
    and the new names."""
    import re
    from companion.session.store import Store
    from webui import create_app
    names = person_names(known + new, seed=7)
    random.Random(7).shuffle(names)

    def plays_of(people: list[str], prefix: str) -> list[Play]:
        out = []
        for i, play in enumerate(random_plays((len(people) + 4) // 5, seed=3)):
            sitting = people[i * 5:i * 5 + 5]
            sitting += [n for n in people[:5] if n not in sitting][:max(0, 3 - len(sitting))]   # a short last table
            seats = tuple(Seat(k, n, 10 * k, k == 0, k == 0) for k, n in enumerate(sitting))
            out.append(Play(f"{prefix}{i}-1", f"{prefix}{i}", 1, play.game, {"start_player": 0}, play.started,
                            play.duration, False, 0, 0, seats))
        return out
    for db_name, people, prefix in (("names.db", names[:known], "known"), ("elsewhere.db", names[known:], "new")):
        with Store(tmp / db_name)._write() as db:
            for play in plays_of(people, prefix):
                write_play(db, play)
    elsewhere = Store(tmp / "elsewhere.db")
    text = exchange.export(elsewhere, query.plays(elsewhere), "bgstats", everything=True)
    client = create_app({"DB": str(tmp / "names.db"), "TESTING": True}).test_client()
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/history").get_data(as_text=True)).group(1)
    return client, csrf, text, names[known:]


def preview(client: Any, csrf: str, text: str) -> Any:
    """The web import's preview of the BG Stats file ``text`` (the page the host confirms on)."""
    import io
    return client.post("/history/import?lang=en", data={"csrf": csrf, "file": (io.BytesIO(text.encode()), "x.json")},
                       content_type="multipart/form-data")


def import_preview(tmp: Path, new: int, known: int) -> dict[str, Any]:
    """The web import's preview of a BG Stats file of ``new`` people, none of them among the
    ``known`` players the history has: CPU seconds of the request, the page's kB and its options."""
    client, csrf, text, _ = names_to_import(tmp, new, known)
    t0 = time.process_time()
    page = preview(client, csrf, text)
    cpu = time.process_time() - t0
    html = page.get_data(as_text=True)
    return {"import preview, names": f"{new} new x {known} known",
            "import preview (CPU s)": cpu, "import preview (kB)": round(len(html.encode()) / 1024),
            "import preview options": html.count("<option"), "import preview answered": page.status_code == 200}


def rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the history tables."""
    with sqlite3.connect(path) as db:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in ("players", "plays", "play_seats")}


def main(argv: Sequence[str] | None = None) -> int:
    """Print the time of each step for N plays (``--plays``; ``--quick``: 200)."""
    from companion.session.store import Store
    parser = argparse.ArgumentParser(prog="companion bench history")
    parser.add_argument("--plays", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="200 plays")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--names", default="1500x1713", help="NEWxKNOWN people of the import preview")
    parser.add_argument("--only-names", action="store_true", help="time the import preview alone")
    args = parser.parse_args(argv)
    new, known = (int(n) for n in args.names.lower().split("x"))
    if args.only_names:
        with tempfile.TemporaryDirectory() as tmp:
            found = import_preview(Path(tmp), new, known)
        print(json.dumps(found, indent=2) if args.json else
              "\n".join(f"{key:<36} {round(v, 2) if isinstance(v, float) else v}" for key, v in found.items()))
        return 0 if found["import preview answered"] else 1
    count = 200 if args.quick else args.plays
    plays = random_plays(count)
    out: dict[str, Any] = {"plays": count}
    with tempfile.TemporaryDirectory() as tmp:
        source = Store(Path(tmp) / "a.db")
        with source._write() as db:
            for play in plays[:-1]:
                write_play(db, play)

        def record_last() -> None:
            with source._write() as db:
                write_play(db, plays[-1])
        out["record one play (ms)"], _ = _timed(record_last)
        out["read every play (ms)"], everything = _timed(lambda: query.plays(source))
        out["statistics (ms)"], _ = _timed(lambda: (query.player_stats(everything), query.win_share(everything)))
        texts = {}
        for fmt in exchange.FORMATS:
            out[f"export {fmt} (ms)"], texts[fmt] = _timed(
                lambda fmt=fmt: exchange.export(source, query.plays(source), fmt, everything=True))
            out[f"export {fmt} (kB)"] = round(len(texts[fmt].encode()) / 1024)
        target = Store(Path(tmp) / "b.db")
        out["import json (ms)"], _ = _timed(lambda: exchange.import_text(target, texts["json"]))
        out["restored exactly"] = rows(Path(tmp) / "a.db") == rows(Path(tmp) / "b.db")
        from webui import create_app
        client = create_app({"DB": str(Path(tmp) / "a.db"), "TESTING": True}).test_client()
        client.get("/history")   # templates compiled once
        out["History page (ms)"], page = _median(lambda: client.get("/history"))
        out["History page (kB)"] = round(len(page.get_data()) / 1024)
        out["History page, one player (ms)"], _ = _median(lambda: client.get("/history?player=Ann"))
        for name, url in (("player page", "/history/player?name=Ann"), ("overview page", "/history/overview"),
                          ("game page", "/history/game/spartacus")):
            client.get(url)   # templates compiled once
            out[f"{name} (ms)"], answer = _median(lambda url=url: client.get(url))
            out[f"{name} (kB)"] = round(len(answer.get_data()) / 1024)
            out["pages answered"] = out.get("pages answered", True) and answer.status_code == 200
        out["player figures (ms)"], _ = _timed(lambda: query.player_summary(everything, "Ann"))
        out["overview figures (ms)"], _ = _timed(lambda: query.overview(everything))
        fresh = Store(Path(tmp) / "c.db")
        out["import BG Stats file (ms)"], done = _timed(lambda: exchange.import_text(fresh, texts["bgstats"]))
        out["BG Stats plays back"] = done.plays == len(plays)
        out["correct a play, then rebuild (ms)"], _ = _timed(lambda: _correct_and_rebuild(source, plays[0]))
        out.update(import_preview(Path(tmp), new, known))
    for key, value in out.items():
        if isinstance(value, float):
            out[key] = round(value, 1)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for key, value in out.items():
            print(f"{key:<36} {value}")
    return 0 if out["restored exactly"] and out["BG Stats plays back"] and out["pages answered"] \
        and out["import preview answered"] else 1


def _correct_and_rebuild(store: Any, play: Play) -> None:
    """The host corrects a play's first score; a rebuild from the logs keeps it (checked)."""
    from companion.history import edit
    from companion.history.record import backfill
    seats = [edit.SeatFix(s.name, s.score + (1 if i == 0 else 0), s.winner) for i, s in enumerate(play.seats)]
    edit.correct(store, play.id, seats)
    backfill(store)
    again = [p for p in query.plays(store) if p.id == play.id][0]
    assert again.seats[0].score == play.seats[0].score + 1


if __name__ == "__main__":
    run_main(main)
