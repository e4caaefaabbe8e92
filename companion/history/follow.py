"""How the play history follows the table sessions without the sessions knowing of it.

``install`` (run when ``companion.history`` is first imported) registers three things on
``companion.session``: ``record.record`` as a game-over listener (a play is written, or withdrawn, in
the same transaction as the log entry that ends or reopens its game: a crash leaves both or
neither), ``record.migrate`` and ``record.backfill_once`` as store open hooks (an older database gets
the columns added since, and one from before the history gets its plays), and ``bgstats.session_link`` as the link of ``companion session export --bgstats``.
Whatever opens sessions for people (``companion.cli``, the web app's table registry) imports
``companion.history`` first.
"""
from __future__ import annotations

from companion.history import bgstats, record
from companion.session import cli, store, table


def install() -> None:
    """Make every session of this process keep the play history (registering twice registers once)."""
    table.on_game_over(record.record)
    store.on_open(record.migrate)   # first: the backfill writes the columns it adds
    store.on_open(record.backfill_once)
    cli.LINKS["bgstats"] = bgstats.session_link
