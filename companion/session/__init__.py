"""The table session: one physical table bound to one game, its history safe in SQLite.

- ``table``: ``TableSession`` (observe, play, prompts, undo, override, series, export)
- ``reconcile``: a camera's observation → the legal moves that explain it
- ``store``: the append-only, versioned SQLite log
- ``view``: who sees what (``view_for``, ``export_for``: one place builds every viewer's state)
- ``cli``: ``companion session …``

It knows nothing of the play history: ``companion.history`` listens to it (``table.on_game_over``,
``store.on_open``). The simulated table is ``tablesim.scripted``; the bench ``benchmarks.session``.
"""
from companion.session.store import SessionError, StaleVersion, Store
from companion.session import view
from companion.session.table import IllegalMove, Outcome, Prompt, TableSession

__all__ = ["Store", "TableSession", "Prompt", "Outcome", "StaleVersion", "SessionError", "IllegalMove", "view"]
