"""The JSON API (``api`` blueprint, api.py) and the live updates as Server-Sent Events (``events``
blueprint, events.py)."""
