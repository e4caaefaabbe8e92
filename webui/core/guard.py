"""The server's defences that are not about one table: how often a client may try join codes or
create tables, which ``Host`` names the server answers to, the chunked-body limit and the CSRF
token of the host form.

The numbers are in docs/webui.md ("Limits"); tests may change them through the app config
(``JOIN_LIMIT``, ``PHONE_LIMIT``, ``CREATE_LIMIT``: ``(burst, seconds per further attempt)``).
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import io
import math
import secrets
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from webui.core.errors import error_answer
from webui.core.i18n import Text, both, nboth

JOIN_LIMIT = (10, 6.0)
"""Wrong join codes: 10 at once, then one more every 6 s (10 a minute; all 390,625 codes would take
about 27 days from one address instead of ~10 minutes). A wrong code names no table, so it counts
per address; the first phone of an address that joins a table gives the address its 10 back, and
a table an address has joined is looked up even while the address is limited (a guesser learns
nothing from a table it already knows): a family behind one router that mistypes is not locked
out of its own table."""
PHONE_LIMIT = (24, 10.0)
"""New phones joining one table from one address: 24 at once, then one more every 10 s (a table of
10 and its watchers join at once; one client cannot fill a table's phone list)."""
CREATE_LIMIT = (20, 30.0)
"""New tables: 20 at once, then one more every 30 s (120 an hour) per client address."""
DECODE_LIMIT = (3000, 1 / 300)
"""Milliseconds of CPU one table's phone camera may spend decoding JPEG frames: 3 s at once, then
300 ms a second (a phone at three frames a second needs ~20 ms a second at 1920×1080 and ~220 ms
at 4K progressive); a camera past it is refused with 429 until the budget refills."""
UNDO_ASK_LIMIT = (3, 20.0)
"""Undo requests of one phone at one table: 3 at once, then one every 20 s (each wakes every page
of the table: 300 in 3.4 s refreshed every phone 300 times)."""
CSRF_COOKIE = "csrf"


class RateLimit:
    """A token bucket per client address: ``burst`` attempts at once, then one per ``every`` s."""

    def __init__(self, burst: int, every: float) -> None:
        self.burst, self.every = burst, every
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}   # address -> (tokens, when)

    def _level(self, key: str, now: float) -> float:
        tokens, when = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - when) / self.every)

    def wait(self, key: str) -> float:
        """Seconds ``key`` must wait before its next attempt (0: it may try now: a whole token is left)."""
        with self._lock:
            level = self._level(key, time.monotonic())
            return 0.0 if level >= 1.0 else (1.0 - level) * self.every

    def refill(self, key: str) -> None:
        """Give ``key`` its whole burst back."""
        with self._lock:
            self._buckets.pop(key, None)

    def spend(self, key: str, cost: float = 1.0) -> None:
        """Count one attempt of ``key``. A ``cost`` of more tokens than one (the decode limit counts
        milliseconds, known only afterwards) may leave the bucket owing: the next attempt waits
        until what was spent beyond the budget has refilled too."""
        with self._lock:
            now = time.monotonic()
            level = self._level(key, now) - cost
            self._buckets[key] = (level if cost > 1.0 else max(0.0, level), now)
            if len(self._buckets) > 10_000:   # forget clients whose bucket is full again
                self._buckets = {k: v for k, v in self._buckets.items()
                                 if self._level(k, now) < self.burst}


def retry_after(wait: float) -> int:
    """Whole seconds to wait (never 0: a client told 0 would try at once and be refused again)."""
    return max(1, math.ceil(wait))


def wait_words(seconds: int) -> Text:
    """How long ``seconds`` is in words, English and Japanese ("7 seconds", "about 3 minutes")."""
    if seconds < 60:
        return nboth("{n} second", "{n} seconds", seconds, n=seconds)
    if seconds < 3600:
        minutes = math.ceil(seconds / 60)
        return nboth("about {n} minute", "about {n} minutes", minutes, n=minutes)
    hours = math.ceil(seconds / 3600)
    return nboth("about {n} hour", "about {n} hours", hours, n=hours)


def limit(name: str) -> RateLimit:
    """The app's limiter ``name`` ("join", "phones", "create", "undo" or "decode")."""
    return current_app.extensions["limits"][name]


class Joined:
    """Which addresses have joined which tables (kept in memory, like the buckets: see docs/webui.md,
    "Limits", for why a restart may forget them)."""

    LIMIT = 20_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], float] = {}

    def __contains__(self, key: tuple[str, str]) -> bool:
        with self._lock:
            return key in self._seen

    def add(self, key: tuple[str, str]) -> bool:
        """Remember ``(table, address)``; True if it is new."""
        with self._lock:
            new = key not in self._seen
            self._seen[key] = time.monotonic()
            if len(self._seen) > self.LIMIT:   # forget the oldest half
                keep = sorted(self._seen.items(), key=lambda kv: kv[1])[self.LIMIT // 2:]
                self._seen = dict(keep)
            return new


def joined_before(table_id: str) -> bool:
    """True if this client's address has joined ``table_id`` already."""
    return (table_id, client()) in current_app.extensions["joined"]


def phone_joined(table_id: str) -> None:
    """Count a phone of this address joining ``table_id``; the address's first phone at the table
    gives it back its wrong-code allowance (its typos before were a family's, not a guesser's),
    unless another device made that table from this address (a guesser joining its own new tables
    refilled its allowance: 214 codes in 150 s instead of 34); this computer is the owner's."""
    limit("phones").spend(f"{table_id} {client()}")
    first = current_app.extensions["joined"].add((table_id, client()))
    if first and (local_request() or (table_id, client()) not in current_app.extensions["created"]):
        limit("join").refill(client())


def table_created(table_id: str) -> None:
    """Count a new table against this address's creation limit (the API, the host form and a
    rematch alike) and remember who made it."""
    limit("create").spend(client())
    current_app.extensions["created"].add((table_id, client()))


def client() -> str:
    """The client's address (the key of the limits)."""
    return request.remote_addr or "?"


def host_name() -> str:
    """The host name the request was sent to (its ``Host`` header, without the port)."""
    return urlsplit("//" + (request.host or "")).hostname or ""


def host_allowed() -> bool:
    """True if the request names this server by an address it answers to: an IP address (a
    DNS-rebinding page needs a name of its own, so an address literal is safe), ``localhost``,
    the name in ``PUBLIC_URL`` or one of ``ALLOWED_HOSTS``."""
    name = host_name()
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    allowed = {"localhost"} | set(current_app.config.get("ALLOWED_HOSTS") or ())
    public = current_app.config.get("PUBLIC_URL")
    if public:
        allowed.add(urlsplit(public).hostname or "")
    return name in allowed


def local_request() -> bool:
    """True for a request from this machine to one of this server's own names (only it may list
    every table and open a host page without the host token)."""
    return request.remote_addr in ("127.0.0.1", "::1", None) and host_allowed()


def same_secret(given: object, expected: str) -> bool:
    """True if ``given`` is the string ``expected`` (constant time; a non-ASCII or non-string value
    is simply wrong, where ``hmac.compare_digest`` would raise a TypeError: a 500)."""
    return (isinstance(given, str) and given.isascii() and len(given) < 256
            and hmac.compare_digest(given, expected))


def _csrf_signed(nonce: str) -> str:
    secret = current_app.extensions["tables"].secret
    return nonce + "." + hmac.new(secret, b"csrf:" + nonce.encode(), hashlib.sha256).hexdigest()[:24]


def _csrf_valid(token: object) -> bool:
    """True for a token this server made (a nonce and its signature): a cookie someone else set,
    with a field to match, is refused."""
    if not isinstance(token, str) or "." not in token:
        return False
    return same_secret(token, _csrf_signed(token.split(".", 1)[0]))


def csrf_token() -> str:
    """The token the host's forms carry (the same as its cookie, signed by this server: a page of
    another site can neither read the cookie nor make a token of its own)."""
    token = request.cookies.get(CSRF_COOKIE)
    if not _csrf_valid(token):
        token = getattr(request, "_csrf_new", None) or _csrf_signed(secrets.token_urlsafe(18))
        request._csrf_new = token   # type: ignore[attr-defined]
    return str(token)


def csrf_ok(form_value: str | None) -> bool:
    """True if a form's CSRF field matches the cookie and this server made it."""
    cookie = request.cookies.get(CSRF_COOKIE)
    return _csrf_valid(cookie) and same_secret(form_value, str(cookie))


def install(app: Flask) -> None:
    """Create the app's limiters and set the CSRF cookie on pages that handed out a new token."""
    join = app.config.get("JOIN_LIMIT") or JOIN_LIMIT
    create = app.config.get("CREATE_LIMIT") or CREATE_LIMIT
    phones = app.config.get("PHONE_LIMIT") or PHONE_LIMIT
    app.extensions["limits"] = {"join": RateLimit(*join), "create": RateLimit(*create),
                                "phones": RateLimit(*phones),
                                "undo": RateLimit(*(app.config.get("UNDO_ASK_LIMIT") or UNDO_ASK_LIMIT)),
                                "decode": RateLimit(*(app.config.get("DECODE_LIMIT") or DECODE_LIMIT))}
    app.extensions["joined"] = Joined()
    app.extensions["created"] = Joined()   # (table, address) of each table made here

    @app.before_request
    def _known_host() -> Any:
        # every page, not only the host's: a page of another site that made its own name point
        # at this server (DNS rebinding) could otherwise read the host's pages and the history
        if not host_allowed():
            return error_answer(421, *both("This server does not answer to the name {name!r}: open it at its "
                                           "address (e.g. 127.0.0.1), as printed when it started.",
                                           name=host_name()))
        return None

    @app.before_request
    def _same_origin_forms() -> Any:
        # A form another site's page submits in the host's browser carries that site's Origin:
        # refuse it for every form (the host form also has its CSRF token; the history's rematch
        # form relies on this). JSON writes need the X-Table-Token header, which no form can send.
        if request.method != "POST" or request.is_json:
            return None
        origin = request.headers.get("Origin")
        if origin and origin != "null" and urlsplit(origin).netloc != request.host:
            return error_answer(403, *both("This form was sent from another site's page: nothing was done."))
        if origin == "null":
            return error_answer(403, *both("This form was sent from a page without an origin: nothing was "
                                           "done."))
        return None

    @app.before_request
    def _chunked_body_limit() -> None:
        # A chunked body has no Content-Length for Werkzeug to refuse up front, and its limited
        # stream silently stops at the limit (the JSON then looks broken: a misleading 400). Read
        # it here, at most one byte past the limit, and refuse it whole.
        if request.content_length is not None or "chunked" not in \
                request.headers.get("Transfer-Encoding", "").lower():
            return
        limit = int(app.config["MAX_CONTENT_LENGTH"])
        stream, data = request.environ["wsgi.input"], b""
        while len(data) <= limit:
            piece = stream.read(min(65536, limit + 1 - len(data)))
            if not piece:
                break
            data += piece
        if len(data) > limit:
            raise RequestEntityTooLarge()
        request.environ.update({"wsgi.input": io.BytesIO(data), "CONTENT_LENGTH": str(len(data))})
        request.environ.pop("HTTP_TRANSFER_ENCODING", None)

    @app.after_request
    def _hardened(resp: Any) -> Any:
        # (registered first, so Flask runs it last: it sees every cookie the others set)
        # no page of ours may be framed by another site's (a hidden host page under a decoy
        # button); over HTTPS no cookie of ours travels over plain HTTP
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Content-Security-Policy", "frame-ancestors 'none'")
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        if request.is_secure:
            resp.headers.setlist("Set-Cookie", [c if "; secure" in c.lower() else c + "; Secure"
                                                for c in resp.headers.getlist("Set-Cookie")])
        return resp

    @app.after_request
    def _csrf_cookie(resp: Any) -> Any:
        token = getattr(request, "_csrf_new", None)
        if token:
            resp.set_cookie(CSRF_COOKIE, token, samesite="Strict", httponly=True)
        return resp
