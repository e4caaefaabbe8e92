"""How cards and moves look on the phone: card chips, move buttons in groups (worded by the games)."""
from __future__ import annotations

import functools
import json
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from companion import catalogue
from companion.engine import CHANCE, Game, Move
from webui.core.charts import line_chart
from webui.core.i18n import N_, pick, t

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


@functools.lru_cache(maxsize=4096)
def chip(card_id: str | None, lang: str, extra: str = "") -> Markup:
    """A card as a small coloured chip with a shape letter for colour-blind players (remembered: a
    view draws dozens, each the same for a card, language and class; issue 23, tap → phones)."""
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
    if game == "chains":
        if kind in ("deck_to_work", "deck_to_temporary"):
            return t("Deck", lang)
        if kind == "temporary_to_work":
            return t("Temporary slots", lang)
        if kind == "take_terminal":
            return t("Terminal cards", lang)
        if kind == "reveal":
            return t("Tap the card that was turned over", lang)
    if kind == "deal":   # two-player Prussia: real cards dealt at the table, hands not entered
        return t("Or, if you dealt real cards at the table", lang)
    if move.get("player", 0) < 0:
        return t("Tap the card that was turned over", lang)
    return t("Moves", lang)


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
        key = _group_key(game, m, state, lang)
        if game == "prussia" and m.get("kind") == "place" and getattr(engine, "drawn", None):
            # the places read as the move they make: "Place ♥6 between …", each button two nations
            drawn = engine.describe_move(Move.of(CHANCE, "draw", card=engine.drawn), short=True)
            key = t("Place {card} between…", lang, card=pick(drawn, drawn.ja, lang))
        groups.setdefault(key, []).append(
            {"label": label, "move": m, "card": m.get("card") if isinstance(m.get("card"), str) else None,
             "kind": m.get("kind")})
    return list(groups.items())


PICK_LIMIT = 12
"""More moves than this in a group are chosen in two steps: the card, then where it goes."""


@dataclass(frozen=True)
class Choice:
    """One button of a move picker: it plays ``move`` at once, or opens the second step ``then``."""

    key: str
    label: str
    card: str | None = None
    move: dict[str, Any] | None = None
    then: tuple["Choice", ...] = ()
    words: str = ""
    """The whole move in words (what the host's picker shows once a move is chosen)."""
    note: str = ""
    """A small second line on the button ("face down")."""


@dataclass(frozen=True)
class Section:
    """A group of a picker: its title, its buttons, and whether they are chance outcomes."""

    title: str
    choices: tuple[Choice, ...]
    chance: bool = False
    cards_only: bool = False
    """Every card button does the same (play this card): the cards show as chips alone, a grid."""

    @property
    def two_step(self) -> bool:
        """True when a first tap opens a second step."""
        return any(c.then for c in self.choices)


def _first_step(game: str, move: dict[str, Any], lang: str) -> tuple[str, str, str | None]:
    """What a player names first: (key, words, card chip) — the card (a face-down card in Seven
    Hills), or for a drawn playing card its suit."""
    card = move.get("card")
    # a drawn card, or a card played from a hand the app does not know (any of ~50 unseen cards):
    # its suit first, then the card
    if game == "prussia" and isinstance(card, str) and (
            (move.get("kind") == "draw" and move.get("player", 0) < 0) or move.get("kind") == "play"):
        info = card_info(card)
        suit = info.suit if info and info.suit else "JK"
        return suit, catalogue.SUIT_SYMBOLS.get(suit, "JK"), None
    if isinstance(card, str):
        return card, card_name(card, lang), card
    if game == "hills" and move.get("kind") == "place":   # shown as the back of the seat's colour
        return "face-down", t("A face-down card", lang), "B-HILL" + ("R" if move.get("player", 0) == 0 else "B")
    return "", "", None


@functools.lru_cache(maxsize=1)
def _catalogue_order() -> dict[str, int]:
    return {c.id: i for i, c in enumerate(catalogue.all_cards())}


def _card_order(key: str) -> tuple[bool, int]:
    """Cards in the catalogue's order (a colour's cards together, by value); a face-down card last."""
    order = _catalogue_order()
    return (key not in order, order.get(key, 0))


def _face_down_by_card(buttons: list[dict[str, Any]], hand: list[str], lang: str) -> list[dict[str, Any]]:
    """Seven Hills as the camera sees it: a card laid on a face-down hill is recorded as "a face-down
    card" (the camera cannot read it). A player still thinks "my red 6, on hill 2": each card of the
    hand offers the face-down hills too, and tapping one records the face-down placement."""
    blind = [b for b in buttons if b["move"].get("kind") == "place" and b["move"].get("card") is None]
    if not blind or not hand:
        return buttons
    out = [b for b in buttons if b not in blind]
    for card in hand:
        out += [dict(b, card=card, note=t("face down", lang), blind_for=card) for b in blind]
    return out


def _picker_section(game: str, title: str, buttons: list[dict[str, Any]], lang: str,
                    chance: bool) -> Section:
    """One group of buttons, flat, or in two steps when it is long and names cards."""
    firsts = [(b["blind_for"], card_name(b["blind_for"], lang), b["blind_for"]) if b.get("blind_for")
              else _first_step(game, b["move"], lang) for b in buttons]
    firsts = [f if f[0] else (f"m{i}", "", None) for i, f in enumerate(firsts)]   # no card: one tap
    keys = list(OrderedDict.fromkeys(k for k, _, _ in firsts))
    if len(buttons) <= PICK_LIMIT or len(keys) == len(buttons):
        kinds = {b["move"].get("kind") for b in buttons if b.get("card")}
        cards = sum(1 for b in buttons if b.get("card"))
        return Section(title, tuple(Choice(f"m{i}", b["label"], b.get("card"), b["move"], words=b.get("words", ""))
                                    for i, b in enumerate(buttons)), chance,
                       cards_only=cards > 6 and len(kinds) == 1 and not chance)
    if game == "hills":
        keys.sort(key=_card_order)
    choices = []
    for key in keys:
        picked = [(b, f) for b, f in zip(buttons, firsts) if f[0] == key]
        _, words, card = picked[0][1]
        if not words:   # a move that names no card (a pass, a draw): its own button
            b = picked[0][0]
            choices.append(Choice(key, b["label"], None, b["move"], words=b.get("words", "")))
            continue
        then = tuple(Choice(f"{key}-{i}", b["label"], b.get("card") if chance else None, b["move"],
                            words=b.get("words", ""), note=b.get("note", "")) for i, (b, _) in enumerate(picked))
        if game == "hills":   # hills in order, face up or face down
            then = tuple(sorted(then, key=lambda c: c.move.get("hill", 0)))
        if len(then) == 1:   # one place only: the first tap is the move
            choices.append(Choice(key, words, card, then[0].move, words=then[0].words))
        else:
            choices.append(Choice(key, words, card, then=then))
    return Section(title, tuple(choices), chance)


def move_picker(groups: list[dict[str, Any]], game: str, lang: str,
                hand: list[str] | None = None) -> list[Section]:
    """The move buttons (``state_for``'s groups, built from the viewer's legal moves) as a picker:
    a long group that names cards becomes two steps — the card, then where it goes (Seven Hills:
    a card, then a hill; a drawn card: its suit, then the card). ``hand``: the cards the mover may
    hold, when a face-down card is recorded without its name (Seven Hills under a camera)."""
    sections = []
    for group in groups:
        buttons = group.get("moves") or []
        if game == "hills":
            buttons = _face_down_by_card(buttons, hand or [], lang)
        if buttons:
            chance = buttons[0]["move"].get("player", 0) < 0
            sections.append(_picker_section(game, group.get("title", ""), buttons, lang, chance))
    return sections


@dataclass(frozen=True)
class DealWords:
    """What the one tap at a chance node does, in the page's language: the button, a line under
    it, and what a phone that may not tap it reads meanwhile."""

    label: str
    hint: str
    waiting: str
    opening: bool = False
    """True for the move that lays out the whole table (the game cannot start otherwise)."""
    any_seat: bool = False
    """True when any seat's phone may tap it (``companion.session.view.laid_by_any_seat``)."""
    turned_over: bool = False
    """True when the tap draws one card a player turns over at a real table (not the opening, not a
    deal of hands): the phone of the player who turned it asks for that card first."""


CHANCE_IS_HOSTS = N_("A card is turned over at the table: the host or the scorekeeper enters it.")
CHANCE_WORDS = {
    # the opening move that lays out the whole table: one tap, said as what the table does
    "lay_circle": (N_("Lay the circle"),
                   N_("The app shuffles the 25 cards: lay them clockwise as the circle below shows, and the pawn "
                      "where it stands."),
                   N_("The host lays the circle (or enters the circle you laid).")),
    "setup": (N_("Lay the terminals"),
              N_("Each player takes one card of each value 1–10 out of their deck and lays them out as terminal "
                 "cards; the app records them (whichever copy of a value: a camera watching the table reads "
                 "the copies laid) and the decks are shuffled."),
              N_("The host lays out the terminal cards to begin.")),
    "deal": (N_("Let the app deal the hands"), "", CHANCE_IS_HOSTS),
    "draw": (N_("Let the app draw the card"), "", CHANCE_IS_HOSTS),
}
"""The chance kinds whose tap has words of its own; any other is "let the app shuffle / draw"."""


def deal_words(engine: Game, lang: str) -> DealWords:
    """The words of the app's tap at a chance node (``POST /deal``): "Lay the circle" at the start
    of the Wheel of History, "Lay the terminals" at the start of Chains, else a shuffle or draw."""
    import random
    from companion.session.view import laid_by_any_seat
    move = engine.sample_chance(random.Random(0)) if engine.is_chance_node() else None
    kind = move.kind if move is not None else ""
    label, hint, waiting = CHANCE_WORDS.get(kind, (N_("Let the app shuffle / draw"), "", CHANCE_IS_HOSTS))
    opening = kind in ("lay_circle", "setup")
    return DealWords(t(label, lang), t(hint, lang) if hint else "", t(waiting, lang),
                     opening=opening,
                     any_seat=move is not None and laid_by_any_seat(engine, move),
                     turned_over=move is not None and not opening and kind != "deal")


def _any_card_of(game: str, like: str) -> list[str]:
    """Every card of ``game`` of the same kind as ``like`` (a misread card may be any of them)."""
    info = card_info(like)
    kinds = {"playing", "joker"} if info and info.kind in ("playing", "joker") else {info.kind if info else None}
    return [c.id for c in catalogue.cards_of(game) if c.kind in kinds and c.kind != "back"]


def override_moves(engine: Game, templates: list[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """Every move of the shapes in ``templates`` (the moves legal now and the last move played)
    for any seat and any card: what a house ruling or a correction may name."""
    game = engine.id
    seen: "OrderedDict[str, dict[str, Any]]" = OrderedDict()
    values: dict[tuple[str, str], list[Any]] = {}
    for m in templates:   # the values each parameter of each kind takes
        for key, value in m.items():
            if key not in ("player", "kind") and not isinstance(value, (list, dict)):
                values.setdefault((m["kind"], key), [])
                if value not in values[(m["kind"], key)]:
                    values[(m["kind"], key)].append(value)
    if game == "hills":
        values[("place", "hill")] = list(range(1, 8))
        values[("place", "card")] = [c.id for c in catalogue.cards_of("hills")
                                     if c.kind in ("number", "banner")] + [None]
    if game == "prussia" and any(k == ("place", "slot") for k in values):
        values[("place", "slot")] = list(OrderedDict.fromkeys(
            [*values[("place", "slot")], *(engine.slot_name(k) for k in engine.table.all_slots())]))
    expanded: set[tuple[Any, ...]] = set()
    for m in templates:
        if any(isinstance(v, (list, dict)) for v in m.values()):
            continue   # a whole laid circle or a deal is no single card: not offered here
        chance = m.get("player", 0) < 0
        like = card_info(m.get("card")) if isinstance(m.get("card"), str) else None
        shape = (m["kind"], tuple(sorted(k for k in m if k not in ("player", "kind"))),
                 m["player"] if chance else None, like.kind if like else None)
        if shape in expanded:
            continue   # every template of one shape spans the same moves: expand it once
        expanded.add(shape)
        seats = [m["player"]] if chance else list(range(players))
        params = [k for k in m if k not in ("player", "kind")]
        options: list[dict[str, Any]] = [{}]
        for key in params:
            domain = values.get((m["kind"], key), [m[key]])
            if key == "card" and isinstance(m[key], str) and game not in ("hills", "chains"):
                # any card of that kind (Chains' 550 pairs cards stay the ones in play now)
                domain = list(OrderedDict.fromkeys([*domain, *_any_card_of(game, m[key])]))
            options = [dict(o, **{key: v}) for o in options for v in domain]
        for seat in seats:
            for o in options:
                move = {"player": seat, "kind": m["kind"], **{k: v for k, v in o.items() if v is not None}}
                if "card" in o and o["card"] is None:
                    move["card"] = None
                seen.setdefault(json.dumps(move, sort_keys=True), move)
    return list(seen.values())


def override_picker(engine: Game, names: list[str], lang: str) -> list[Section]:
    """The host's picker for an override or a correction: per seat (and the table's chance moves),
    every move of the right shape, chosen the way a player chooses a move. The shapes come from the
    engine (the moves legal now and the last move), not from the host's view, which hides hands;
    each seat is offered the cards it could hold as the table can tell (``possible_cards``: in
    Seven Hills its colour's unseen cards), so the picker tells nothing a hand holds."""
    from companion.session.view import possible_cards
    templates = [m.to_json() for m in engine.legal_moves()[:400]]
    last = engine.log[-1] if engine.log else None
    if last is not None:
        templates.append(last.to_json())
        if last.player < 0:   # a correction names another outcome: what the table could have turned up
            before = engine.clone()
            before.undo()
            templates += [m.to_json() for m in before.legal_moves()[:400]]
    moves = override_moves(engine, templates, len(names))
    # per seat only the cards it could hold, as the table can tell (the last move's card is back in
    # its hand for a correction): a red card for the blue seat is no correction anyone needs
    could: dict[int, set[str] | None] = {}
    for seat in range(len(names)):
        cards = possible_cards(engine, seat)
        if cards is not None and last is not None and last.player == seat and isinstance(last.get("card"), str):
            cards.add(last.get("card"))
        could[seat] = cards
    moves = [m for m in moves if not isinstance(m.get("card"), str) or m["player"] < 0
             or could.get(m["player"]) is None or m["card"] in could[m["player"]]]
    by_seat: "OrderedDict[int, list[dict[str, Any]]]" = OrderedDict()
    for m in moves:
        by_seat.setdefault(m["player"], []).append(m)
    sections = []
    for seat, seat_moves in sorted(by_seat.items(), key=lambda kv: (kv[0] < 0, kv[0])):
        kinds = list(OrderedDict.fromkeys(m["kind"] for m in seat_moves))   # the moves legal now first
        seat_moves.sort(key=lambda m: (kinds.index(m["kind"]), _card_order(m.get("card") or "")))
        buttons, said = [], set()
        for m in seat_moves:
            move = Move.from_json(m)
            short_words = engine.describe_move(move, short=True)
            if short_words.ja == engine._generic_words(move).ja:
                continue   # a move the game cannot even word (another seat's empty slot) is none here
            words = engine.describe_move(move, names)
            if str(words) in said:
                continue   # copies of one card (a Chains value) are one button: the table tells them not apart
            said.add(str(words))
            buttons.append({"label": pick(short_words, short_words.ja, lang), "move": m,
                            "card": m.get("card") if isinstance(m.get("card"), str) else None,
                            "words": pick(words, words.ja, lang)})
        title = t("The table (a card turned over)", lang) if seat < 0 else names[seat]
        sections.append(_picker_section(engine.id, title, buttons, lang, seat < 0))
    return sections


def circle_xy(index: int, count: int, radius: float = 42.0) -> tuple[float, float]:
    """Percent coordinates of place ``index`` of ``count`` on a clockwise circle from 12 o'clock."""
    angle = 2 * math.pi * index / count
    return 50 + radius * math.sin(angle), 50 - radius * math.cos(angle)


def phone_words(label: str, lang: str, player: str | None = None) -> str:
    """A phone as the host's page names it: its own name, or for a phone that gave none (the server
    names it "phone N") its player's ("Ann's phone") when it holds a seat, else "phone 3", in the
    page's language."""
    import re
    found = re.fullmatch(r"phone (\d+)", label or "")
    if found and player:
        return t("{name}'s phone", lang, name=player)
    return t("phone {n}", lang, n=int(found.group(1))) if found else label


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
    of each other (``webui.core.charts``); nothing for a single game: one game is no series."""
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


@dataclass(frozen=True)
class EndRow:
    """One line of the result table at a game's end (Board Game Arena's): rank, parts, total."""

    seat: int
    name: str
    rank: int
    tied: bool
    winner: bool
    parts: tuple[Any, ...]
    total: int
    note: str = ""
    """How the total came about, in words (Spartacus: every trick's formula and the hand)."""


def score_parts(engine: Game, lang: str) -> tuple[list[str], list[tuple[Any, ...]], list[str]]:
    """The columns of a game's scoring before its total: their headings, each seat's values and a
    line of words per seat (empty when the game has none)."""
    n, game = engine.players, engine.id
    if game == "spartacus":
        rows = engine.breakdown()
        return ([t("Tricks", lang), t("Hand", lang)],
                [(r["tricks_total"], r["hand"]["points"] if engine.is_over() else "—") for r in rows],
                [pick(r["text"], r["ja"], lang) for r in rows])
    if game == "chains":
        return [t("Sets", lang)], [(len(engine.scored_values(p)),) for p in range(n)], [""] * n
    if game == "hills" and engine.result is not None:
        return ([t("Hills", lang)], [(sum(1 for r in engine.result if r["winner"] == p),) for p in range(n)],
                [""] * n)
    return [], [() for _ in range(n)], [""] * n


def end_rows(engine: Game, names: list[str], winners: list[int], lang: str) -> tuple[list[str], list[EndRow]]:
    """The result table of a finished game, best first: a winner ranks above everyone else (the
    game's own tie-breaks decide who wins), then the higher score; equal places are shared, and a
    draw (nobody won: ``decided``) ranks everyone first together."""
    scores = engine.scores()
    from companion.session.table import name_seats
    heads, parts, notes = score_parts(engine, lang)
    notes = [name_seats(n, names) for n in notes]
    won = set(winners)

    def key(p: int) -> tuple[int, int]:
        return (0 if p in won or not won else 1, -scores[p] if won or len(names) == 1 else 0)

    rows = []
    for p in sorted(range(len(names)), key=lambda p: (key(p), p)):
        ahead = sum(1 for q in range(len(names)) if key(q) < key(p))
        tied = sum(1 for q in range(len(names)) if key(q) == key(p)) > 1
        rows.append(EndRow(p, names[p], ahead + 1, tied, p in won, parts[p], scores[p], notes[p]))
    return heads, rows
