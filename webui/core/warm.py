"""Warming a freshly started server so its first pages answer at once (issue 23: a cold first host
page under 300 ms). A fresh ``companion serve`` spent most of its first request importing the five
game engines and compiling the page templates (Jinja compiles each on first use); ``warm_up`` does
both as the server starts, before it answers, and ``keep_compiled_templates`` keeps the compiled
templates on disk for the next start. ``companion bench web --cold`` measures it."""
from __future__ import annotations

import time
from typing import Any

HOST_PAGE = ("host_new.html", "base.html", "history_players.html", "companion_new.html")
"""The templates of the host's first page (the create form)."""
TABLE_PAGES = ("host.html", "view.html", "table.html", "index.html", "end_table.html", "picker.html",
               "companion_seats.html", "companion_turn.html", "camera_check.html", "history_rematch.html",
               *(f"games/{game}.html" for game in ("wheel", "hills", "spartacus", "prussia", "chains")))
"""The templates of a table's host screen and phone page."""
FIRST = HOST_PAGE + TABLE_PAGES


PARTS = ("host page templates", "game engines", "table templates")
"""What ``warm`` does, in order."""


def warm(app: Any, parts: tuple[str, ...] = PARTS) -> dict[str, float]:
    """Compile the host's first page, import every game engine, then compile the templates of a
    table's pages (``TABLE_PAGES``; the history, print and rules pages compile when first opened:
    warming them too kept the CPU busy while the host's first table opened), or those of ``parts``;
    returns the milliseconds of each part (for the bench)."""
    from companion.games import describe_all
    env = app.jinja_env
    steps = {"host page templates": lambda: [env.get_template(n) for n in HOST_PAGE],
             "game engines": describe_all,   # the create form describes every game
             "table templates": lambda: [env.get_template(n) for n in TABLE_PAGES]}
    spent: dict[str, float] = {}
    for what in parts:
        start = time.perf_counter()
        steps[what]()
        spent[what] = round((time.perf_counter() - start) * 1000, 1)
    return spent


def keep_compiled_templates(app: Any, folder: str | None = None) -> str | None:
    """Keep the compiled templates on disk (Jinja's bytecode cache, in the user's cache directory):
    a server started again loads them instead of compiling them. Jinja checks each against its
    template's source, so an edited template is compiled afresh. Returns the folder (None if it
    cannot be made: the server then compiles as before)."""
    import os
    from jinja2 import FileSystemBytecodeCache
    if folder is None:
        import platformdirs
        folder = os.path.join(platformdirs.user_cache_dir("table-companion", appauthor=False), "templates")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    app.jinja_env.bytecode_cache = FileSystemBytecodeCache(folder)
    return folder


def warm_up(app: Any) -> dict[str, float]:
    """Warm everything a first page asks for (``warm``) before the server answers. The table's
    pages used to compile in a background thread while the server answered: a table opened the
    moment the server answered then waited for that thread (the GIL, the same templates compiled
    twice): 680 ms at load 14 on a first start ever. On a later start the kept templates load in
    milliseconds, so waiting for them costs nothing (issue 23, docs/figures.md)."""
    return warm(app)
