"""The tap clock the browser bench reads (webui.core.tables: ``Tables.start_clock``/``note``) and the
bench's split of an update into stages that add up to it (benchmarks/web.py)."""
from __future__ import annotations

import threading

from benchmarks.web import EXTRA, STAGES, _stage_report
from tests.web_helpers import make_app, new_table
from webui.core.tables import iter_sse


def test_the_tap_clock_notes_a_writes_stages_in_order_and_a_streams(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    table = new_table(client, "wheel")
    registry = app.extensions["tables"]
    client.post(f"/api/tables/{table['id']}/deal", json={"version": 0}, headers={"X-Table-Token": table["token"]})
    registry.note("before the clock", table["id"], 0)
    assert registry.clock is None                          # off unless a bench turns it on
    registry.start_clock()
    stream = iter_sse(registry, table["id"], 1, keepalive=5, draw=lambda: {"version": 2}, who="phone-a")
    assert next(stream).startswith("retry")               # the stream at version 1 waits for 2
    sent: list[str] = []
    waiting = threading.Thread(target=lambda: sent.append(next(stream)))
    waiting.start()
    st = client.get(f"/api/tables/{table['id']}/state", headers={"X-Table-Token": table["token"]}).get_json()
    move = [m["move"] for g in st["groups"] for m in g["moves"]][0]
    r = client.post(f"/api/tables/{table['id']}/move", json={"version": 1, "move": move},
                    headers={"X-Table-Token": table["token"]})
    assert r.status_code == 200
    waiting.join(5)
    assert sent and sent[0].startswith("event: view")
    writes = [stage for stage, tid, version, who, _ in registry.clock if version == 2 and not who]
    assert writes == ["write posted", "write locked", "commit begins", "committed", "write done", "synced"]
    streams = [stage for stage, tid, version, who, _ in registry.clock if who == "phone-a"]
    assert streams[:2] == ["stream woke", "event sent"]
    times = [at for *_, at in registry.clock]
    assert times == sorted(times)
    stream.close()


def test_the_stages_tile_an_update_and_the_tail_is_the_slowest_updates():
    marks = ["tap"] + [b for _, _, b in STAGES]
    assert [a for _, a, _ in STAGES] == marks[:-1]          # each stage starts where the last ended
    fast = {m: float(i) for i, m in enumerate(marks)}
    slow = dict(fast, seen=fast["seen"] + 100)              # 100 ms more in the page's drawing
    updates = [fast] * 19 + [slow]
    total = [u["seen"] - u["tap"] for u in updates]
    report = _stage_report(updates, total)
    assert sum(report[name]["p50"] for name, _, _ in STAGES) == total[0]
    drawing = STAGES[-1][0]
    assert report[drawing]["max"] == 101 and report[drawing]["tail_mean"] == 101
    assert all(report[name]["tail_mean"] == 1 for name, _, _ in STAGES[:-1])
    assert report[EXTRA[0][0]] == {"tail_mean": None}       # no commit marks in these updates
