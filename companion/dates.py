"""Dates as people read them (local time, English or Japanese) and as machines read them (ISO 8601).

The store keeps instants as Unix seconds (sessions) or ISO 8601 UTC text (plays); every page and
command shows them through ``human`` in the reader's language, every JSON output through ``iso``.
"""
from __future__ import annotations

import re
from datetime import date, datetime, time, timezone

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEKDAYS_JA = ("月", "火", "水", "木", "金", "土", "日")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def instant(when: float | int | str | datetime) -> datetime:
    """An aware datetime in local time from Unix seconds, ISO 8601 text or a datetime."""
    if isinstance(when, datetime):
        moment = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    elif isinstance(when, str):
        moment = datetime.fromisoformat(when)
        if moment.tzinfo is None:
            moment = moment.astimezone()   # a naive text is local time
    else:
        moment = datetime.fromtimestamp(float(when), timezone.utc)
    return moment.astimezone()


def human(when: float | int | str | datetime, lang: str = "en", *, clock: bool = True) -> str:
    """``Tue 24 Nov 2026, 19:26`` / ``2026年11月24日(火) 19:26`` in local time."""
    m = instant(when)
    if lang == "ja":
        text = f"{m.year}年{m.month}月{m.day}日({WEEKDAYS_JA[m.weekday()]})"
        return f"{text} {m:%H:%M}" if clock else text
    text = f"{WEEKDAYS[m.weekday()]} {m.day} {MONTHS[m.month - 1]} {m.year}"
    return f"{text}, {m:%H:%M}" if clock else text


def iso(when: float | int | str | datetime) -> str:
    """ISO 8601 with the local offset, to the second: ``2026-11-24T19:26:51+00:00``."""
    return instant(when).isoformat(timespec="seconds")


def iso_utc(when: float | int | str | datetime) -> str:
    """ISO 8601 in UTC, to the second (what the plays table stores)."""
    return instant(when).astimezone(timezone.utc).isoformat(timespec="seconds")


def duration(seconds: int, lang: str = "en") -> str:
    """``1 h 05 min`` / ``1時間5分``; under a minute ``<1 min`` / ``1分未満``."""
    minutes = round(seconds / 60)
    if minutes < 1:
        return "1分未満" if lang == "ja" else "<1 min"
    h, m = divmod(minutes, 60)
    if lang == "ja":
        return f"{h}時間{m}分" if h else f"{m}分"
    return f"{h} h {m:02d} min" if h else f"{m} min"


def day_bounds(text: str, *, end: bool) -> str:
    """The ISO UTC instant where local day ``YYYY-MM-DD`` begins (or, with ``end``, ends)."""
    try:   # 2026/11/24 too: how a day is written in Japan
        year, month, day_ = re.fullmatch(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})", text.strip()).groups()
        day = date(int(year), int(month), int(day_))
    except (AttributeError, ValueError):
        raise ValueError(f"a date looks like 2026-11-24 (year-month-day), got {text!r}") from None
    moment = datetime.combine(day, time.max if end else time.min).astimezone()
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")
