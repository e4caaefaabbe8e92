"""How cards and moves look on the phone: card chips, move buttons in groups (worded by the games)."""
from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

from markupsafe import Markup, escape

from companion import catalogue
from companion.engine import Game, Move
from webui.i18n import pick, t

BLACK_SUITS = ("S", "C")


def card_info(card_id: str | None) -> catalogue.Card | None:
    """The catalogue card, or None for an unknown id or an empty place."""
    if not card_id:
        return None
    try:
        return catalogue.card(card_id)
    except (KeyError, ValueError):
        return None


def card_name(card_id: str | None, lang: str) -> str:
    """A card's full name in ``lang`` (the id itself when the catalogue does not know it)."""
    info = card_info(card_id)
    if info is None:
        return str(card_id or "—")
    return pick(info.name, info.ja, lang)


def short(card_id: str | None) -> str:
    """The few characters printed big on a card chip: 5, ⚑, ♥8, JK."""
    info = card_info(card_id)
    if info is None:
        return "?"
    if info.kind == "back":
        return "?"
    if info.kind == "banner":
        return "⚑"
    if info.kind == "joker":
        return "JK"
    if info.kind == "playing":
        return f"{catalogue.SUIT_SYMBOLS[info.suit]}{info.rank}"
    if info.kind == "era":
        return catalogue.ERA_FACES[(info.value or 1) - 1]
    if info.kind == "hill":
        return str(info.value)
    if info.value is not None and info.kind in ("number", "pairs"):
        return str(info.value)
    return info.name


def chip(card_id: str | None, lang: str, extra: str = "") -> Markup:
    """A card as a small coloured chip with a shape letter for colour-blind players."""
    info = card_info(card_id)
    if info is None:
        return Markup('<span class="chip empty %s">·</span>') % extra
    cls = ["chip", f"k-{info.kind}"]
    style = ""
    if info.kind == "playing":
        cls.append("red" if info.suit not in BLACK_SUITS else "black")
    elif info.colour and info.colour in catalogue.COLOURS:
        colour = catalogue.COLOURS[info.colour]
        style = f' style="--c:{colour.hex}"'
        cls.append(f"s-{colour.symbol}")
    if info.kind == "back":
        cls.append("back")
    if extra:
        cls.append(extra)
    return Markup('<span class="%s"%s title="%s" data-card="%s">%s</span>') % (
        " ".join(cls), Markup(style), card_name(card_id, lang), card_id, short(card_id))


def seat_name(state: dict[str, Any], seat: int) -> str:
    """The name the table gave a seat (``P1`` when none)."""
    names = state.get("names") or []
    if 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"P{seat + 1}"


def slot_label(slot: str, layout: dict[str, Any], lang: str) -> str:
    """A Prussia slot such as ``4>5`` or ``C-3`` named by the nations at its ends."""
    clock = layout.get("clock", {})
    if slot.startswith("C-"):
        centre = card_name(layout.get("centre"), lang)
        return f"{card_name(clock.get(slot[2:]), lang)} – {centre}"
    a, _, b = slot.partition(">")
    return f"{card_name(clock.get(a), lang)} – {card_name(clock.get(b), lang)}"


def _group_key(game: str, move: dict[str, Any], state: dict[str, Any], lang: str) -> str:
    kind = move.get("kind", "")
    ja = lang == "ja"
    if game == "hills" and kind == "place":  # pick the card, then the hill: 9 short rows, not 63 buttons
        return card_name(move.get("card"), lang) if move.get("card") else ("伏せカード" if ja else "Face down")
    if game == "prussia" and kind == "draw" and move.get("player", 0) < 0:
        info = card_info(move.get("card"))
        return catalogue.SUIT_SYMBOLS.get(info.suit, "JK") if info and info.suit else "JK"
    if game == "chains":
        if kind in ("deck_to_work", "deck_to_temporary"):
            return t("deck", lang)
        if kind == "temporary_to_work":
            return t("temporary", lang)
        if kind == "take_terminal":
            return t("terminals", lang)
        if kind == "reveal":
            return t("enter_drawn", lang)
    if move.get("player", 0) < 0:
        return t("enter_drawn", lang)
    return t("moves", lang)


SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3}


def _order(game: str, move: dict[str, Any]) -> tuple[Any, ...]:
    """Chance buttons in the order players name cards: by suit (♠♥♦♣), then rank A…K."""
    info = card_info(move.get("card"))
    if info is None or info.kind not in ("playing", "joker"):
        return (0,)
    rank = catalogue.RANKS.index(info.rank) if info.rank in catalogue.RANKS else 99
    return (SUIT_ORDER.get(info.suit or "", 9), rank)


def move_groups(engine: Game, moves: list[dict[str, Any]], state: dict[str, Any],
                lang: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """The legal moves as big buttons in sensible groups: ``[(title, [{label, move, card}])]``;
    a button says the move in the game's own short words (``Game.describe_move(short=True)``)."""
    game = engine.id
    if game == "hills" and any(m.get("card") for m in moves):
        moves = [m for m in moves if m.get("card") or m.get("kind") != "place"]
    if game == "chains":  # copies of one value are the same card to the table: one button per value
        seen: set[tuple[Any, ...]] = set()
        unique = []
        for m in moves:
            key = (m.get("kind"), short(m.get("card")) if m.get("kind") == "reveal" else m.get("card"),
                   m.get("slot"))
            if key not in seen:
                seen.add(key)
                unique.append(m)
        moves = unique
    if game == "prussia":
        moves = sorted(moves, key=lambda m: _order(game, m))
    groups: "OrderedDict[str, list[dict[str, Any]]]" = OrderedDict()
    for m in moves:
        words = engine.describe_move(Move.from_json(m), short=True)
        label = pick(words, words.ja, lang)
        groups.setdefault(_group_key(game, m, state, lang), []).append(
            {"label": label, "move": m, "card": m.get("card") if isinstance(m.get("card"), str) else None,
             "kind": m.get("kind")})
    return list(groups.items())


def circle_xy(index: int, count: int, radius: float = 42.0) -> tuple[float, float]:
    """Percent coordinates of place ``index`` of ``count`` on a clockwise circle from 12 o'clock."""
    angle = 2 * math.pi * index / count
    return 50 + radius * math.sin(angle), 50 - radius * math.cos(angle)


def result_words(names: list[str], winners: list[int], lang: str) -> str:
    """A finished game's result for the status line: "Ann wins.", "Shared win: …", or a draw."""
    from companion.session.table import verdict
    en, ja = verdict(names, winners or [])
    return pick(en, ja, lang)


def shows_total(series: dict[str, Any] | None) -> bool:
    """True when the table plays a series (a number of games or a target), or has played more than
    one game: only then has a series total anything to add to the game's score."""
    series = series or {}
    return bool(series.get("rounds") or series.get("target") or len(series.get("games") or []) > 1)


def event_text(event: dict[str, Any], lang: str) -> str:
    """An engine event's sentence in ``lang``."""
    return pick(str(event.get("text", "")), str(event.get("ja", "")), lang)


def score_chart(games: list[list[int]], names: list[str], width: int = 340, height: int = 160) -> Markup:
    """Running totals over a series as an inline SVG line chart, names at the line ends, never on top
    of each other (``webui.charts``); nothing for a single game: one game is no series."""
    from webui.charts import line_chart
    if len(games) < 2:
        return Markup("")
    lines = []
    for p in range(len(games[0])):
        total, points = 0, [(0, 0)]
        for i, scores in enumerate(games, 1):
            total += scores[p]
            points.append((i, total))
        lines.append((names[p] if p < len(names) else f"P{p + 1}", points))
    return line_chart(lines, label="score chart", height=height)
