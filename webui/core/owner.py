"""The owner: the person who runs the companion, whose play history (names, scores, exports,
player pages, corrections, /print) it is.

The owner is this computer (a request from loopback to one of the server's own names), or a
browser the owner paired: ``companion serve --lan`` prints a one-time pairing link once in the
terminal; opening it stores the owner's cookie (signed with the server's key, so it survives a
restart) and the link is spent. A table's host cookie gives rights over that table only: whoever
creates a table on the LAN hosts it, and sees no one's history.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading

from flask import Flask, current_app, request

from webui.core.guard import local_request, same_secret

OWNER_COOKIE = "tco"
"""The cookie of a paired owner's browser."""
PAIR_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Pairing codes are typeable: no 0/O, 1/I."""
PAIR_LENGTH = 12
"""32**12 = 2**60 codes; wrong codes count against the join allowance as well."""


def owner_token(app: Flask | None = None) -> str:
    """The value of a paired owner's cookie (derived from the server's signing key)."""
    secret = (app or current_app).extensions["tables"].secret
    return hmac.new(secret, b"owner:history", hashlib.sha256).hexdigest()[:32]


def is_owner() -> bool:
    """True for the owner: this computer, or a browser holding the paired owner's cookie."""
    return local_request() or same_secret(request.cookies.get(OWNER_COOKIE), owner_token())


class Pairing:
    """The one pairing code of this server run (made when asked for, spent when used)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._code: str | None = None

    def new(self) -> str:
        """A fresh code (the previous one no longer works)."""
        with self._lock:
            self._code = "".join(secrets.choice(PAIR_CHARS) for _ in range(PAIR_LENGTH))
            return self._code

    def spend(self, code: object) -> bool:
        """True once for the current code; it is then gone."""
        if not isinstance(code, str):
            return False
        code = code.strip().upper().replace(" ", "").replace("-", "")
        with self._lock:
            if self._code is not None and same_secret(code, self._code):
                self._code = None
                return True
            return False


def pairing(app: Flask | None = None) -> Pairing:
    """The app's pairing code keeper."""
    return (app or current_app).extensions.setdefault("owner_pairing", Pairing())
