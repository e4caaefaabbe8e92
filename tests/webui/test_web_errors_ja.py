"""Every error a player or the host can meet speaks Japanese when the page does (issue: the 404 of
``webui.core.common.get_session`` had no Japanese).

A walk over the refusals of every route, through Flask's test client on a real SQLite store, each
asked with ``?lang=ja``: a JSON answer's ``error`` (what the page shows in its toast) and ``ja``
are Japanese, ``en`` keeps the English; an HTML page's message is Japanese. A second check reads
the source: every ``fail``/``ApiError``/``error_answer`` of ``webui/`` passes Japanese words, so a
new refusal cannot forget them."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from tests.web_helpers import join, make_app, new_table, seat_phone

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
ENGLISH_PHRASE = re.compile(r"\b[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}\b")
"""Three English words in a row: an untranslated sentence (ids and JSON keys are single words)."""


def japanese_only(text: str, what: Any) -> None:
    """``text`` is Japanese, without an English sentence in it."""
    assert text and JAPANESE.search(text), (what, text)
    assert not ENGLISH_PHRASE.search(text), (what, text)


@pytest.fixture()
def app(tmp_path):
    return make_app(tmp_path, JOIN_LIMIT=(3, 600.0), CREATE_LIMIT=(40, 600.0), MAX_CONTENT_LENGTH=4096)


def _json_cases(client: Any) -> list[tuple[str, int, str, str, Any, dict[str, str]]]:
    """(what, status, method, path, JSON body or raw bytes, headers) of refusals the API gives."""
    wheel = new_table(client, "wheel", 3)
    tid, host = wheel["id"], wheel["host_token"]
    seat = seat_phone(client, wheel, 0)
    watcher = join(client, wheel, "watcher")
    H = {"X-Table-Token": host}
    S = {"X-Table-Token": seat}
    api = f"/api/tables/{tid}"
    return [
        ("no token", 401, "GET", f"{api}/state", None, {}),
        ("not joined to write", 401, "POST", f"{api}/move", {"version": 0}, {}),
        ("watcher writes", 403, "POST", f"{api}/move", {"version": 0, "move": {}}, {"X-Table-Token": watcher}),
        ("a seat ends the game", 403, "POST", f"{api}/end", {"version": 0}, S),
        ("a seat overrides", 403, "POST", f"{api}/override", {"version": 0}, S),
        ("a seat reads another seat", 403, "GET", f"{api}/state?seat=1", None, S),
        ("seat out of range", 400, "GET", f"{api}/state?seat=9", None, S),
        ("unknown game", 400, "POST", "/api/tables", {"game": "go", "players": 2}, {}),
        ("players missing", 400, "POST", "/api/tables", {"game": "wheel"}, {}),
        ("players not a number", 400, "POST", "/api/tables", {"game": "wheel", "players": "²"}, {}),
        ("too many players", 400, "POST", "/api/tables", {"game": "hills", "players": 5}, {}),
        ("names not strings", 400, "POST", "/api/tables", {"game": "wheel", "players": 2, "names": [1, 2]}, {}),
        ("too many names", 400, "POST", "/api/tables", {"game": "wheel", "players": 2, "names": ["a", "b", "c"]}, {}),
        ("options not an object", 400, "POST", "/api/tables", {"game": "wheel", "players": 2, "options": [1]}, {}),
        ("unknown option", 400, "POST", "/api/tables", {"game": "wheel", "players": 2, "options": {"zz": 1}}, {}),
        ("bad option value", 400, "POST", "/api/tables", {"game": "chains", "players": 2, "options": {"misfit": "x"}}, {}),
        ("rounds not a number", 400, "POST", "/api/tables", {"game": "wheel", "players": 2, "rounds": "x"}, {}),
        ("not JSON", 415, "POST", "/api/join", b"code=K7Q2", {"Content-Type": "application/x-www-form-urlencoded"}),
        ("JSON not an object", 400, "POST", "/api/join", [1, 2], {}),
        ("no code", 400, "POST", "/api/join", {"code": ""}, {}),
        ("wrong code", 404, "POST", "/api/join", {"code": "QQQQ"}, {}),
        ("no version", 400, "POST", f"{api}/deal", {}, H),
        ("stale version", 409, "POST", f"{api}/deal", {"version": 7}, H),
        ("malformed move", 400, "POST", f"{api}/move", {"version": 0, "move": {"player": "x"}}, H),
        ("move not an object", 400, "POST", f"{api}/move", {"version": 0, "move": 3}, H),
        ("move with a stray field", 400, "POST", f"{api}/move", {"version": 0, "move": {"player": 0, "kind": "take",
                                                                                         "card": {"a": 1}}}, H),
        ("seat out of range in a move", 400, "POST", f"{api}/move", {"version": 0, "move": {"player": 7, "kind": "take"}}, H),
        ("unknown card", 400, "POST", f"{api}/move", {"version": 0, "move": {"player": 0, "kind": "take", "card": "W-Z9"}}, H),
        ("card of another game", 400, "POST", f"{api}/move", {"version": 0, "move": {"player": 0, "kind": "take",
                                                                                     "card": "H-R5"}}, H),
        ("illegal move", 422, "POST", f"{api}/move", {"version": 0, "move": {"player": 0, "kind": "take", "card": "W-R5"}}, H),
        ("answer without ids", 400, "POST", f"{api}/answer", {"version": 0}, H),
        ("answer to no prompt", 400, "POST", f"{api}/answer", {"version": 0, "prompt": "p9", "choice": "c1"}, H),
        ("override without reason", 400, "POST", f"{api}/override", {"version": 0, "move": {"player": 0, "kind": "take",
                                                                                             "card": "W-R5"}}, H),
        ("undo with nothing to undo", 400, "POST", f"{api}/undo", {"version": 0}, H),
        ("undo request without a move", 400, "POST", f"{api}/undo-request", {"version": 0}, S),
        ("accept a gone request", 404, "POST", f"{api}/undo", {"version": 0, "phone": "nobody"}, H),
        ("decline without a phone", 400, "POST", f"{api}/undo-decline", {"version": 0}, H),
        ("observe without observation", 400, "POST", f"{api}/observe", {"version": 0}, H),
        ("observation not an object", 400, "POST", f"{api}/observe", {"observation": 3}, H),
        ("next game while playing", 400, "POST", f"{api}/next", {"version": 0}, H),
        ("claim a bad seat", 400, "POST", f"{api}/seat", {"seat": 9}, {"X-Table-Token": watcher}),
        ("claim a second seat", 409, "POST", f"{api}/seat", {"seat": 1}, S),
        ("the host claims a seat", 400, "POST", f"{api}/seat", {"seat": 1}, H),
        ("unknown phone", 404, "POST", f"{api}/phones", {"phone": "nobody", "role": "watch"}, H),
        ("unknown role", 400, "POST", f"{api}/phones", {"phone": watcher.split(".")[0], "role": "king"}, H),
        ("a taken seat", 409, "POST", f"{api}/phones", {"phone": watcher.split(".")[0], "role": "seat", "seat": 0}, H),
        ("odds of another game", 400, "GET", f"{api}/odds", None, S),
        ("no camera frame", 404, "GET", f"{api}/camera", None, H),
        ("too large", 413, "POST", f"{api}/move", b"{" + b" " * 5000 + b"}", {"Content-Type": "application/json"}),
        ("too deep", 400, "POST", f"{api}/move", b"[" * 2000 + b"]" * 2000, {"Content-Type": "application/json"}),
        ("wrong method", 405, "GET", f"{api}/move", None, H),
        ("no such route", 404, "GET", "/api/nowhere", None, {}),
    ]


def test_every_json_refusal_speaks_japanese(app):
    client = app.test_client()
    for what, status, method, path, body, headers in _json_cases(client):
        url = path + ("&" if "?" in path else "?") + "lang=ja"
        kw: dict[str, Any] = {"headers": headers}
        if isinstance(body, bytes):
            kw["data"] = body
        elif body is not None:
            kw["json"] = body
        r = client.open(url, method=method, **kw)
        assert r.status_code == status, (what, r.status_code, r.get_data(as_text=True)[:300])
        answer = r.get_json()
        assert answer, (what, r.get_data(as_text=True)[:200])
        japanese_only(answer["error"], what)    # the toast shows "error" as it is
        japanese_only(answer["ja"], what)
        assert re.search(r"[A-Za-z]{3}", answer["en"]) and not JAPANESE.search(answer["en"]), (what, answer)
    # the same refusal in English keeps its English words
    r = client.get("/t/nosuch?lang=en", headers={"Accept": "application/json"})
    assert r.status_code == 404 and "There is no table" in r.get_json()["error"]


def test_the_limits_speak_japanese(app):
    client = app.test_client()
    for _ in range(3):
        client.post("/api/join?lang=ja", json={"code": "QQQQ"})
    r = client.post("/api/join?lang=ja", json={"code": "QQQQ"})
    assert r.status_code == 429 and r.headers["Retry-After"]
    japanese_only(r.get_json()["error"], "join limit")
    page = client.get("/join?code=QQQQ&lang=ja")
    assert page.status_code == 429
    japanese_only(_page_message(page.get_data(as_text=True)), "join limit page")


def test_the_join_pages_429_says_when_to_try_again(app):
    """The HTML join page's 429 carries ``Retry-After`` like the JSON answer, and its words say how
    long to wait (the limit here: 3 codes, then one every 600 s: about 10 minutes)."""
    client = app.test_client()
    for _ in range(3):
        assert client.get("/join?code=QQQQ").status_code == 404
    for lang, words in (("en", "wait about 10 minutes, then try again"), ("ja", "約10分待ってから")):
        page = client.get(f"/join?code=QQQQ&lang={lang}", headers={"Accept": "text/html"})
        assert page.status_code == 429 and page.mimetype == "text/html"
        assert 590 <= int(page.headers["Retry-After"]) <= 600, page.headers
        assert words in _page_message(page.get_data(as_text=True)), lang
    answer = client.post("/api/join", json={"code": "QQQQ"})
    assert answer.status_code == 429 and 590 <= int(answer.headers["Retry-After"]) <= 600
    assert "wait about 10 minutes" in answer.get_json()["error"]


def _page_message(html: str) -> str:
    found = re.search(r'<p class="error" role="alert"[^>]*>(.*?)</p>', html, re.S)
    assert found, html[:500]
    return found.group(1)


def test_every_error_page_speaks_japanese(app):
    client = app.test_client()
    wheel = new_table(client, "wheel", 3)
    seat = seat_phone(client, wheel, 0)
    html = {"Accept": "text/html"}
    cases = [
        ("no such table", 404, f"/t/nosuch", {}),
        ("no such table's view", 404, f"/t/nosuch/view", {}),
        ("no such host page", 404, f"/host/nosuch", {}),
        ("no such page", 404, "/nowhere", {}),
        ("no such rules", 404, "/rules/go", {}),
        ("the view without joining", 401, f"/t/{wheel['id']}/view", {}),
        ("a phone asks for the override picker", 403, f"/t/{wheel['id']}/override?token={seat}", {}),
        ("the host page from another machine", 403, f"/host/{wheel['id']}", {"REMOTE_ADDR": "192.168.1.20"}),
        ("an empty code", 400, "/join?code=", {}),
        ("a wrong code", 404, "/join?code=QQQQ", {}),
        # the host's Print page, its download and its preview (the two were English text/plain)
        ("print: not a printable", 400, "/print?game=nosuch", {}),
        ("print: too many decks", 400, "/print?game=chains&count=99", {}),
        ("print: a bleed out of range", 400, "/print?game=wheel&bleed=9", {}),
        ("print: stickers one a page", 400, "/print?game=stickers&single=1", {}),
        ("print: download of no printable", 400, "/print/pdf?game=nosuch", {}),
        ("print: download of a bad paper", 400, "/print/pdf?game=wheel&paper=a9", {}),
        ("print: preview of a bad count", 400, "/print/preview.png?game=tokens&count=x", {}),
        ("print: preview of a page it has not", 400, "/print/preview.png?game=wheel&page=9", {}),
        ("print: from another machine", 403, "/print", {"REMOTE_ADDR": "192.168.1.20"}),
    ]
    for what, status, path, environ in cases:
        url = path + ("&" if "?" in path else "?") + "lang=ja"
        r = client.get(url, headers=html, environ_base=environ)
        assert r.status_code == status, (what, r.status_code)
        text = r.get_data(as_text=True)
        assert '<html lang="ja">' in text, what
        japanese_only(_page_message(text), what)
        if what.startswith("print"):   # the same refusal in English keeps its English words
            english = client.get(url.replace("lang=ja", "lang=en"), headers=html, environ_base=environ)
            assert english.status_code == status and not JAPANESE.search(_page_message(english.get_data(as_text=True)))
    # the host's form refused in Japanese
    client.get("/host?lang=ja")
    csrf = client.get_cookie("csrf").value
    r = client.post("/host?lang=ja", data={"csrf": csrf, "game": "hills", "players": "5"})
    assert r.status_code == 400
    japanese_only(_page_message(r.get_data(as_text=True)), "the host's form")


REFUSALS = ("fail", "ApiError", "error_answer")


TRANSLATED = ("both", "pboth", "nboth")
"""A message built by these comes with its Japanese from the catalogue (every msgid there has Japanese:
tests/test_translations.py)."""


def _translated(node: ast.AST) -> bool:
    if isinstance(node, ast.Starred):
        node = node.value
    return isinstance(node, ast.Call) and getattr(node.func, "id", None) in TRANSLATED


def test_every_refusal_in_the_web_code_carries_japanese():
    """Every ``fail(...)``, ``ApiError(...)`` and ``error_answer(...)`` in webui/ passes ``ja`` (or,
    for ``error_answer``, its third argument), or a message from ``both(...)`` (English and Japanese
    from the catalogue): none can be added without Japanese."""
    missing = []
    for path in sorted(Path("webui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name not in REFUSALS:
                    continue
                if any(k.arg is None for k in node.keywords):
                    continue   # fail(status, message, **extra) passes on what it was given
                if "ja" in {k.arg for k in node.keywords} or (name == "error_answer" and len(node.args) >= 3):
                    continue
                if len(node.args) >= 2 and _translated(node.args[1]):
                    continue
                missing.append(f"{path}:{node.lineno} {name}")
    assert not missing, missing


def test_no_refusal_in_the_web_code_is_a_bare_response():
    """A refusal built as ``Response(words, status=4xx)`` speaks one language (the Print page's
    download and preview answered their English ``str(err)`` so): refusals go through ``fail``."""
    bare = []
    for path in sorted(Path("webui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Response":
                status = {k.arg: k.value for k in node.keywords}.get("status")
                if isinstance(status, ast.Constant) and isinstance(status.value, int) and status.value >= 400:
                    bare.append(f"{path}:{node.lineno}")
    assert not bare, bare


def test_a_join_link_in_japanese_opens_the_table_in_japanese(tmp_path):
    """Game night: a phone that opened /join?code=…&lang=ja (or typed the code on the Japanese start
    page) landed on an English table page: the redirect dropped the language."""
    client = make_app(tmp_path).test_client()
    table = new_table(client, "spartacus")
    r = client.get(f"/join?code={table['code']}&lang=ja")
    assert r.status_code == 302 and "lang=ja" in r.headers["Location"], r.headers.get("Location")
    page = client.get(r.headers["Location"]).get_data(as_text=True)
    assert '<html lang="ja"' in page, page[:400]
    start = client.get("/?lang=ja").get_data(as_text=True)   # the start page's form keeps it too
    assert '<input type="hidden" name="lang" value="ja">' in start
    again = client.get(f"/join?code={table['code']}&lang=ja")   # joined before: the same
    assert "lang=ja" in again.headers["Location"]
