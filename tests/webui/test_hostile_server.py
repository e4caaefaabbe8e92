"""Issue 20 against the server itself (real sockets, real TLS, real SQLite): a silent TLS socket
does not freeze the server, a removed phone's open stream ends, pages cannot be framed, and under
HTTPS no cookie travels without ``Secure``. No sleep measures anything: each wait has a wide bound."""
from __future__ import annotations

import http.client
import socket
import ssl

import pytest

from tests.web_helpers import Live, make_app
from webui.core.server import RunningServer
from webui.core.tls import certificate


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    return certificate(["127.0.0.1"], tmp_path_factory.mktemp("tls"))


def _https(port: int, path: str, timeout: float, headers: dict[str, str] | None = None):
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout,
                                       context=ssl._create_unverified_context())
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def test_a_silent_tls_socket_does_not_hold_the_server(tmp_path, tls_files):
    # the development server shook hands in its accept loop: one socket that sent nothing held
    # every other client until it closed (20 s and 40 s /health timeouts in issue 20)
    app = make_app(tmp_path)
    with RunningServer(app, tls=tls_files, request_timeout=60) as srv:
        silent = [socket.create_connection(("127.0.0.1", srv.port), timeout=5) for _ in range(3)]
        try:
            for _ in range(3):   # a bound far above an answer's few ms, far below the 60 s timeout
                status, _, body = _https(srv.port, "/health", timeout=8)
                assert status == 200, body
        finally:
            for sock in silent:
                sock.close()


def test_https_cookies_are_secure_and_pages_cannot_be_framed(tmp_path, tls_files):
    app = make_app(tmp_path)
    with RunningServer(app, tls=tls_files) as srv:
        status, headers, _ = _https(srv.port, "/host", timeout=10)   # hands out the CSRF cookie
        assert status == 200
        cookies = headers.get_all("Set-Cookie")
        assert cookies and all("; Secure" in c for c in cookies), cookies
        assert headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]


def test_plain_http_cookies_stay_usable_and_pages_cannot_be_framed(tmp_path):
    app = make_app(tmp_path)
    with RunningServer(app) as srv:
        status, headers, _ = Live(srv).request("GET", "/host")
        assert status == 200 and headers["x-frame-options"] == "DENY"
        assert "Secure" not in headers["set-cookie"]   # a phone on http:// would drop it


def test_a_removed_phones_open_stream_ends(tmp_path):
    app = make_app(tmp_path, SSE_KEEPALIVE=30.0)
    with RunningServer(app) as srv:
        live = Live(srv)
        table = live.new_table("wheel", 3)
        token = live.join(table)
        conn = http.client.HTTPConnection(srv.host, srv.port, timeout=20)
        conn.request("GET", f"/api/tables/{table['id']}/events?since=0&token={token}")
        resp = conn.getresponse()
        assert resp.status == 200
        assert b"retry" in resp.read1(4096)
        status, _ = live.json("POST", f"/api/tables/{table['id']}/phones",
                              {"phone": token.split(".")[0], "role": "remove"}, table["host_token"])
        assert status == 200
        # the stream closes (the read returns its end) well before the 30 s keep-alive and the
        # 20 s socket timeout; while it stayed open it would have told the removed phone each move
        rest = b""
        while True:
            chunk = resp.read1(4096)
            if not chunk:
                break
            rest += chunk
        assert b"event: version" not in rest
        conn.close()
        assert live.json("GET", f"/api/tables/{table['id']}/state", token=token)[0] == 401


def test_a_stream_whose_phone_was_removed_before_it_waited_ends_without_waiting(tmp_path):
    """The removal's poke came before the stream read the table's pokes (a thread slow under load):
    no later poke would wake it, so it stayed open until the keep-alive. It ends at once now: the
    generator is run in a thread and must finish long before its 60 s keep-alive."""
    import threading

    from webui.core.tables import iter_sse
    app = make_app(tmp_path)
    tables = app.extensions["tables"]
    s = tables.create("wheel", 3, names=["Ann", "Ben", "Chie"], options={})
    sent: list[str] = []
    reader = threading.Thread(target=lambda: sent.extend(iter_sse(tables, s.id, s.version, keepalive=60.0,
                                                                  allowed=lambda: False)), daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive() and sent == ["retry: 1000\n\n"]
    tables.close()
