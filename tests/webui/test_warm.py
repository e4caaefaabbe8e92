"""The warm-up of a fresh server (webui/core/warm.py): the host's and a table's templates compiled
and the game engines imported before the first page asks; compiled templates kept on disk for the
next start. (Its timing is `companion bench web --cold`, docs/figures.md.)"""
from __future__ import annotations

import sys

from tests.web_helpers import make_app
from webui.core.warm import FIRST, keep_compiled_templates, warm, warm_up


def test_warm_compiles_the_first_pages_templates_and_imports_the_games(tmp_path):
    app = make_app(tmp_path)
    spent = warm_up(app)    # as the server starts: all of it done before the server answers
    assert set(spent) == {"host page templates", "game engines", "table templates"}
    cached = {key[1] for key in app.jinja_env.cache._mapping}   # (loader weakref, name)
    assert set(FIRST) <= cached and "history.html" not in cached
    assert all(f"companion.games.{g}" in sys.modules for g in ("wheel", "hills", "spartacus", "prussia", "chains"))
    assert app.test_client().get("/host").status_code == 200


def test_compiled_templates_are_kept_for_the_next_start(tmp_path):
    first = make_app(tmp_path / "a")
    folder = keep_compiled_templates(first, str(tmp_path / "cache"))
    warm(first)
    kept = sorted((tmp_path / "cache").iterdir())
    assert folder and len(kept) >= len(FIRST)
    again = make_app(tmp_path / "b")                 # a later start loads them instead of compiling
    keep_compiled_templates(again, folder)
    compiled = []
    plain = again.jinja_env.compile
    again.jinja_env.compile = lambda source, name=None, *a, **k: compiled.append(name) or plain(source, name, *a, **k)
    assert again.test_client().get("/host").status_code == 200
    assert compiled == []
    cold = make_app(tmp_path / "c")                   # without the kept ones: compiled (the count can fail)
    plain_cold = cold.jinja_env.compile
    cold.jinja_env.compile = lambda source, name=None, *a, **k: compiled.append(name) or plain_cold(source, name, *a, **k)
    cold.test_client().get("/host")
    assert "host_new.html" in compiled
