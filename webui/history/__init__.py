"""The ``history`` blueprint (routes.py): the play history pages, charts, edits and BG Stats files."""
