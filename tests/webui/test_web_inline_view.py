"""The page's own event stream (``?inline=1``) sends each phone its view with every new version
(issue 23: no fetch after the event), the same view the ``/view`` fetch gives that phone, hidden
cards hidden; a stream without it still sends only the version. A real server on a socket."""
from __future__ import annotations

import http.client
import json
import random
import threading
import time

from tests.web_helpers import make_app, new_table, seat_phone, step, take_events
from webui.core.server import RunningServer


def _events(resp, until: int, timeout: float = 10) -> list[tuple[str, str]]:
    """(event, data) from a stream until one of version ``until`` (a view or version event) came."""
    got, buf, deadline = [], b"", time.monotonic() + timeout
    while time.monotonic() < deadline:
        chunk = resp.read1(65536)
        if not chunk:
            break
        events, buf = take_events(buf + chunk)
        for kind, data in ((k.decode(), d.decode("utf-8")) for k, d in events):
            got.append((kind, data))
            version = json.loads(data)["version"] if kind == "view" else int(data)
            if version >= until:
                return got
    return got


def test_the_pages_stream_sends_each_phone_its_own_view(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    table = new_table(client, "spartacus", 3)
    tid = table["id"]
    seats = [seat_phone(client, table, k) for k in range(2)]
    with RunningServer(app) as srv:
        streams = []
        for token, inline in ((seats[0], "&inline=1"), (seats[1], "&inline=1&lang=ja"), (seats[0], "")):
            conn = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
            conn.request("GET", f"/api/tables/{tid}/events?since=0{inline}", headers={"Cookie": f"tc_{tid}={token}"})
            resp = conn.getresponse()
            assert resp.status == 200
            streams.append((conn, resp))
        done = threading.Event()

        def tap():
            time.sleep(0.3)
            step(client, table, random.Random(1))
            done.set()

        threading.Thread(target=tap).start()
        got = [_events(resp, 1) for _, resp in streams]
        assert done.wait(5)
        views = [json.loads(data) for kind, data in got[0] + got[1] if kind == "view"]
        mine, theirs = [v for v in views if v["role"] == "seat 0"][-1], [v for v in views if v["role"] == "seat 1"][-1]
        assert mine["version"] == theirs["version"] >= 1
        for answer, token, lang in ((mine, seats[0], "en"), (theirs, seats[1], "ja")):
            client.set_cookie(f"tc_{tid}", token)
            fetched = client.get(f"/t/{tid}/view?lang={lang}")
            assert fetched.headers["X-Version"] == str(answer["version"])
            assert fetched.get_data(as_text=True) == answer["html"]     # the fetch's view, sent with the event
        assert mine["html"] != theirs["html"]                          # each phone its own (hands hidden)
        assert [kind for kind, _ in got[2]] and {kind for kind, _ in got[2]} == {"version"}   # no inline asked
        for conn, _ in streams:
            conn.close()
