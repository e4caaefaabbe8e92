"""The play history: people who persist across tables, every finished game as a play, statistics,
export and backup (CSV, JSON, a BG Stats file), and ``companion history …``; docs/history.md.

- ``record``: a ``Play`` derived from a session's log, written when its game ends; the backfill
- ``follow``: importing this package makes every session keep the history (listeners, see there)
- ``query``: plays by date, filtered by game and player; per-player and per-game statistics
- ``exchange``: export (CSV, JSON, BG Stats) and import (JSON backup, BG Stats export)
- ``bgstats``: the one mapping to BG Stats (push link, export file) and reading the app's export
- ``edit``: the host's corrections and deletions, kept beside the plays so a rebuild keeps them
- ``cli``: ``companion history list|stats|player|players|export|import|rebuild``
"""
from companion.history import follow
from companion.history.record import Play, Seat

follow.install()

__all__ = ["Play", "Seat"]
