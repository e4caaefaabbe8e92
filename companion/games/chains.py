"""Chains (チェーンズ) — solitaire and multiplayer with one Pairs deck per player. 1–10 players.

Rules: ``docs/chains.md`` (the solitaire rules there are rebuilt from the multiplayer
expansion's text; see its rulings). Seat ``n`` plays Pairs
deck ``n + 1``: physical cards ``C{deck:02d}-{value}-{copy}`` (``C03-7-2`` is deck 3's second 7).

Each player builds descending chains 10-9-8-… in their **work area** and closes a chain with one of
their own **terminal cards** from the shared terminal area: terminal *k* closes the chain 10…k+1 (the
terminal 10 closes an empty work area). The closed set goes to the player's discard pile and scores
by the terminal's value (1 → 5, 2–4 → 3, 5–7 → 2, 8–10 → 1).

Moves (seats are 0-based, temporary slots 0–4):

* ``Move(CHANCE, "setup", terminals=((ten card ids, values 1..10) per seat))`` — each player takes one
  card of each value out of their deck as terminal cards (any copy); the rest is their draw deck;
* ``Move(p, "deck_to_work")`` — action 1: turn over the top card of the deck into the work area
  (turn continues); it is followed by
* ``Move(CHANCE, "reveal", card=id)`` — which card it was (uniform over that deck's remaining cards;
  at a real table, the card the camera saw). A card that does not fit ruins the work area;
* ``Move(p, "deck_to_temporary", slot=i)`` — action 2: the top card into empty slot ``i`` (turn
  ends), followed by a ``reveal``;
* ``Move(p, "temporary_to_work", slot=i)`` — action 3: a fitting card from slot ``i`` (turn continues);
* ``Move(p, "take_terminal", card=id)`` — action 4: close the work area with an own terminal card and
  score it (turn ends).

After every action the engine applies the automatic rules: stop cards (打ち止め), dead work areas,
players leaving ("no terminal left" for everyone; "cannot act" for the player to move).

``layout()`` (what a camera sees)::

    {"terminals": [[{"card": id, "state": "available" | "taken" | "stopped"}
                    for values 1..10] per seat],          # [] per seat before the setup move
     "players": [{"work": [ids, bottom (the 10) first],
                  "temporary": [5 slots: id or None],
                  "discard": [[ids of each scored set, the terminal card last]],
                  "dead": number of face-down cards in the dead pile,
                  "deck": number of cards left in the deck} per seat],
     "out": [seats that left the game, ascending]}

A ``taken`` terminal card lies physically in its owner's discard pile (last card of a set); a
``stopped`` one lies face down in the terminal area.
"""
from __future__ import annotations

import math
import random
from functools import cache
from typing import Any, Mapping, Sequence

from companion import engine
from companion.engine import CHANCE, TERMINAL, Event, IllegalMove, Move, Option, Reason, seat_words

VALUES = tuple(range(1, 11))
SLOTS = 5
POINTS = {1: 5, 2: 3, 3: 3, 4: 3, 5: 2, 6: 2, 7: 2, 8: 1, 9: 1, 10: 1}
"""Points of a scored terminal card by its value (a perfect game: 23)."""
PERFECT = sum(POINTS.values())
RULES = "Chains"
TEN_NOT_FIRST = ("auto", "on", "off")
MISFIT = ("ruin", "card_only")
ACTION_PARAMS = {"deck_to_work": (), "deck_to_temporary": ("slot",), "temporary_to_work": ("slot",),
                 "take_terminal": ("card",)}
"""The parameters each action names."""
LEAVE_JA = {"no terminal card left to score": "得点化できる終端カードがありません",
            "cannot perform any action": "どのアクションも実行できません"}
"""Why a player left the game, in Japanese (the English is kept in the state)."""


def card_id(deck: int, value: int, copy: int) -> str:
    """The physical id of a Pairs card: deck 1–10, value 1–10, copy 1..value."""
    return f"C{deck:02d}-{value}-{copy}"


def value_of(card: str) -> int:
    """The value (1–10) of a Chains card id such as ``C03-7-2``."""
    return int(card.split("-")[1])


def deck_of(card: str) -> int:
    """The deck number (1–10) of a Chains card id such as ``C03-7-2``."""
    return int(card[1:3])


@cache
def deck_cards(deck: int) -> tuple[str, ...]:
    """All 55 cards of Pairs deck ``deck``, by value then copy."""
    return tuple(card_id(deck, v, c) for v in VALUES for c in range(1, v + 1))


def a_value(value: int) -> str:
    """"a 7", "an 8": a card value with its English article."""
    return f"an {value}" if value == 8 else f"a {value}"


def _is_card(card: Any) -> bool:
    if not isinstance(card, str) or len(card) < 7 or card[0] != "C":
        return False
    parts = card[1:].split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts) or len(parts[0]) != 2:
        return False
    deck, value, copy = (int(p) for p in parts)
    return 1 <= deck <= 10 and 1 <= value <= 10 and 1 <= copy <= value and card == card_id(deck, value, copy)


def _sort_key(card: str) -> tuple[int, int, int]:
    deck, value, copy = card[1:].split("-")
    return int(deck), int(value), int(copy)


def stop_threshold(players: int) -> int | None:
    """How many terminal cards of one value may be taken before the rest are stopped.

    ceil(0.6 × players), except 2 players → 1; ``None`` in solitaire (no stop cards).
    """
    if players < 2:
        return None
    if players == 2:
        return 1
    return math.ceil(players * 6 / 10)  # integer arithmetic: 0.6 * 5 is 3.0000000000000004


def tie_break_value(scored: set[int]) -> int:
    """The smallest terminal value not scored (11 for a perfect game): larger is better."""
    return min((v for v in VALUES if v not in scored), default=11)


class Game(engine.Game):
    """Chains: build descending chains from 10 and close them with your own terminal cards."""

    id = "chains"
    title = "Chains"
    title_ja = "チェーンズ"
    min_players = 1
    max_players = 10
    rules_file = "chains.md"
    options_spec = (
        Option("start_player", 0, "seat that plays first", minimum=0),
        Option("ten_not_first", "auto", "the terminal 10 may be taken only after one of 1–9 "
               "(auto: on in multiplayer, off in solitaire)", choices=TEN_NOT_FIRST),
        Option("misfit", "ruin", "a card turned over into the work area that does not fit: ruin "
               "(the whole work area goes to the dead pile) or card_only (only that card does)",
               choices=MISFIT),
    )

    @classmethod
    def validate_options(cls, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        """As the engine's, but ``ten_not_first`` also accepts true/false/None (None = auto)."""
        options = dict(options)
        if "ten_not_first" in options:
            aliases = {None: "auto", True: "on", False: "off", "true": "on", "false": "off"}
            value = options["ten_not_first"]
            if isinstance(value, str):
                value = value.strip().lower()
            if isinstance(value, (bool, str)) or value is None:
                options["ten_not_first"] = aliases.get(value, value)
        return super().validate_options(options, players)

    # ----------------------------------------------------------------- state
    def _setup(self) -> None:
        n = self.players
        self.ten_not_first = {"on": True, "off": False, "auto": n > 1}[self.options["ten_not_first"]]
        self.threshold = stop_threshold(n)
        self.deck: list[set[str]] = [set(deck_cards(p + 1)) for p in range(n)]
        self.terminals: list[list[str]] = [[] for _ in range(n)]   # card id of value v at [v - 1]
        self.state: list[list[str]] = [[] for _ in range(n)]       # available / taken / stopped
        self.work: list[list[str]] = [[] for _ in range(n)]
        self.temporary: list[list[str | None]] = [[None] * SLOTS for _ in range(n)]
        self.discard: list[list[list[str]]] = [[] for _ in range(n)]
        self.dead: list[list[str]] = [[] for _ in range(n)]
        self.out: dict[int, str] = {}                 # seat → reason, in the order they left
        self.turn = self.options["start_player"]
        self.pending: tuple[int, int | None] | None = None  # (seat, None=work | temporary slot)
        self.set_up = False
        self.over = False

    def current_player(self) -> int:
        """The seat to move; CHANCE for the setup and each turned-over card; TERMINAL when over."""
        if self.over:
            return TERMINAL
        if not self.set_up or self.pending is not None:
            return CHANCE
        return self.turn

    # ----------------------------------------------------------------- queries
    def top(self, seat: int) -> int | None:
        """The value of the top card of ``seat``'s work area (None when empty)."""
        work = self.work[seat]
        return value_of(work[-1]) if work else None

    def fits(self, seat: int, value: int) -> bool:
        """True when a card of ``value`` may be added to ``seat``'s work area (one below its top)."""
        top = self.top(seat)
        return value == 10 if top is None else value == top - 1

    def took_low(self, seat: int) -> bool:
        """True once ``seat`` has taken one of their terminal cards 1–9."""
        return "taken" in self.state[seat][:9]

    def may_take_ten(self, seat: int) -> bool:
        """False while "10 not first" forbids ``seat`` to take their terminal 10."""
        return not self.ten_not_first or self.took_low(seat)

    def scorable_terminals(self, seat: int) -> list[int]:
        """The values of ``seat``'s terminal cards still available to them (a blocked 10 excluded)."""
        return [v for v in VALUES if self.state[seat][v - 1] == "available"
                and (v < 10 or self.may_take_ten(seat))]

    def closer(self, seat: int) -> str | None:
        """The terminal card ``seat`` may close their work area with now (top − 1, or 10 if empty)."""
        top = self.top(seat)
        k = 10 if top is None else top - 1
        if k < 1 or self.state[seat][k - 1] != "available" or (k == 10 and not self.may_take_ten(seat)):
            return None
        return self.terminals[seat][k - 1]

    def taken_count(self, value: int) -> int:
        """How many terminal cards of ``value`` all players together have taken."""
        return sum(1 for row in self.state if row and row[value - 1] == "taken")

    def scored_values(self, seat: int) -> set[int]:
        """The terminal values ``seat`` has scored."""
        return {v for v in VALUES if self.state[seat] and self.state[seat][v - 1] == "taken"}

    def actions(self, seat: int) -> list[Move]:
        """The actions ``seat`` could perform now (their legal moves if it were their turn)."""
        moves: list[Move] = []
        if self.deck[seat]:
            moves.append(Move.of(seat, "deck_to_work"))
            moves.extend(Move.of(seat, "deck_to_temporary", slot=i)
                         for i, c in enumerate(self.temporary[seat]) if c is None)
        moves.extend(Move.of(seat, "temporary_to_work", slot=i)
                     for i, c in enumerate(self.temporary[seat]) if c is not None and self.fits(seat, value_of(c)))
        closer = self.closer(seat)
        if closer:
            moves.append(Move.of(seat, "take_terminal", card=closer))
        return moves

    def can_act(self, seat: int) -> bool:
        """True when ``seat`` can perform at least one action."""
        if self.deck[seat]:
            return True
        if any(c is not None and self.fits(seat, value_of(c)) for c in self.temporary[seat]):
            return True
        return self.closer(seat) is not None

    def legal_moves(self) -> list[Move]:
        """The player's actions; at a reveal every remaining card of that deck; [] at the setup."""
        turn = self.current_player()
        if turn == TERMINAL:
            return []
        if turn == CHANCE:
            if not self.set_up:
                return []  # (1·2·…·10)^players choices of copies: sample_chance picks, check() validates
            seat = self.pending[0]
            return [Move.of(CHANCE, "reveal", card=c) for c in sorted(self.deck[seat], key=_sort_key)]
        return self.actions(turn)

    def chance_stream(self) -> int:
        """Each deck is its own stream of chance (seat + 1; the setup 0): a seat's cards come up in
        the same order whatever any player did before."""
        return self.pending[0] + 1 if self.set_up and self.pending is not None else 0

    def sample_chance(self, rng: random.Random) -> Move:
        """The setup (a random copy of each value as terminal card) or the turned-over card."""
        if self.set_up:
            return super().sample_chance(rng)
        rows = [[card_id(p + 1, v, rng.randint(1, v)) for v in VALUES] for p in range(self.players)]
        return Move.of(CHANCE, "setup", terminals=rows)

    def check(self, move: Move) -> None:
        """Reject an illegal move with the rule it breaks; the setup is validated by its shape."""
        if not self.set_up and not self.over and move.player == CHANCE and move.kind == "setup":
            problem = self._setup_problem(move.get("terminals"))
            if problem:
                raise IllegalMove(problem, f"{RULES}: Setup")
            return
        super().check(move)

    def _setup_problem(self, rows: Any) -> Reason | None:
        if not isinstance(rows, tuple) or len(rows) != self.players:
            return Reason(f"The setup names the ten terminal cards of each of the {self.players} players.",
                          f"準備では{self.players}人それぞれの終端カード10枚を指定します。")
        for p, row in enumerate(rows):
            want = "one card of each value 1–10, in order"
            want_ja = "1〜10の各数字1枚ずつを順に並べたもの"
            if not isinstance(row, tuple) or len(row) != 10 or not all(_is_card(c) for c in row):
                example = card_id(p + 1, 7, 1)
                return Reason(f"Player {p + 1}'s terminal cards must be {want}, e.g. {example}.",
                              f"プレイヤー{p + 1}の終端カードは{want_ja}にしてください(例: {example})。")
            for v, c in zip(VALUES, row):
                if deck_of(c) != p + 1:
                    return Reason(f"{c} belongs to deck {deck_of(c)}; player {p + 1} plays deck {p + 1}.",
                                  f"{c}はデッキ{deck_of(c)}のカードです。プレイヤー{p + 1}のデッキは{p + 1}です。")
                if value_of(c) != v:
                    return Reason(f"Player {p + 1}'s terminal cards must be {want}: {c} is not {a_value(v)}.",
                                  f"プレイヤー{p + 1}の終端カードは{want_ja}にしてください。{c}は{v}ではありません。")
        return None

    def explain_illegal(self, move: Move) -> str:
        """Why ``move`` is illegal, in a player's words, citing the rule (English and Japanese)."""
        turn = self.current_player()
        if turn == CHANCE:
            if not self.set_up:
                return self.refusal("set up first — each player lays out one card of each value 1–10 as terminal "
                                    "cards.",
                                    "まず準備をしてください。各プレイヤーは1〜10の各数字のカードを1枚ずつ終端カードとして"
                                    "並べます。")
            seat = self.pending[0]
            if move.player != CHANCE or move.kind != "reveal":
                return self.refusal(f"player {seat + 1} has just turned over a card: say which card it was first.",
                                    f"プレイヤー{seat + 1}がカードをめくったところです。まずどのカードだったかを"
                                    "入力してください。")
            card = move.get("card")
            if not _is_card(card):
                return self._not_a_card(card, card_id(seat + 1, 7, 2))
            where, where_ja = self._where(card)
            return self.refusal(f"{card} is not in player {seat + 1}'s deck: {where}.",
                                f"{card}はプレイヤー{seat + 1}の山札にありません。{where_ja}。")
        if move.player != turn:
            if 0 <= move.player < self.players and move.player in self.out:
                why = self.out[move.player]
                return self.refusal(f"player {move.player + 1} has left the game ({why}).",
                                    f"プレイヤー{move.player + 1}はゲームから抜けました({LEAVE_JA[why]})。")
            who, who_ja = seat_words(move.player)
            return self.refusal(f"it is player {turn + 1}'s turn, not {who}'s.",
                                f"{who_ja}ではなく、プレイヤー{turn + 1}の手番です。")
        return self._explain_action(turn, move) or super().explain_illegal(move)

    def _not_a_card(self, card: Any, example: str, head: str = RULES, head_ja: str = "") -> Reason:
        return self.refusal(f"{card!r} is not a Chains card id (such as {example}).",
                            f"{card!r}はチェーンズのカードIDではありません({example}のような形です)。", head, head_ja)

    def _explain_action(self, seat: int, move: Move) -> Reason | None:
        slot = move.get("slot")
        wanted = ACTION_PARAMS.get(move.kind)
        if wanted is not None and set(dict(move.params)) != set(wanted):
            if not wanted:
                return self.refusal(f"the action {move.kind} names nothing more.",
                                    f"アクション {move.kind} にはなにも指定しません。")
            return self.refusal(f"the action {move.kind} names only {', '.join(wanted)}.",
                                f"アクション {move.kind} に指定するのは {'、'.join(wanted)} だけです。")
        if move.kind in ("deck_to_work", "deck_to_temporary") and not self.deck[seat]:
            return self.refusal("your deck is empty.", "あなたの山札はもうありません。", f"{RULES}, actions 1–2",
                                f"{self.title_ja}、アクション①②")
        if move.kind in ("deck_to_temporary", "temporary_to_work"):
            if not isinstance(slot, int) or not 0 <= slot < SLOTS:
                return self.refusal(f"the temporary area has exactly 5 slots (slot numbers 0–4 in a move, shown as 1–5); got {slot!r}.",
                                    f"一時置き場は5スロットです(手の番号は0〜4、画面では1〜5。{slot!r}が指定されました)。")
        if move.kind == "deck_to_temporary":
            head = (f"{RULES}, action 2", f"{self.title_ja}、アクション②")
            if None not in self.temporary[seat]:
                return self.refusal("your temporary area is full (5 slots): play a card from it or turn the top "
                                    "card over into your work area instead.",
                                    "一時置き場は一杯です(5スロット)。一時置き場からカードを出すか、山札の一番上の"
                                    "カードを作業場にめくってください。", *head)
            held = self.temporary[seat][slot]
            return self.refusal(f"slot {slot + 1} of your temporary area already holds {held}; choose an empty slot.",
                                f"一時置き場のスロット{slot + 1}にはすでに{held}があります。空いているスロットを選んで"
                                "ください。", *head)
        if move.kind == "temporary_to_work":
            head = (f"{RULES}, action 3", f"{self.title_ja}、アクション③")
            card = self.temporary[seat][slot]
            if card is None:
                return self.refusal(f"slot {slot + 1} of your temporary area is empty.",
                                    f"一時置き場のスロット{slot + 1}は空です。", *head)
            needs, needs_ja = self._needs(seat)
            return self.refusal(f"{card} does not fit your work area: {needs}.",
                                f"{card}はあなたの作業場に繋がりません。{needs_ja}。", *head)
        if move.kind == "take_terminal":
            return self._explain_take(seat, move.get("card"))
        return None

    def _explain_take(self, seat: int, card: Any) -> Reason:
        head = (f"{RULES}, action 4", f"{self.title_ja}、アクション④")
        if not _is_card(card):
            return self._not_a_card(card, card_id(seat + 1, 7, 1), *head)
        owner, v = deck_of(card) - 1, value_of(card)
        if owner != seat:
            if owner < self.players:
                whose, whose_ja = f"player {owner + 1}'s", f"プレイヤー{owner + 1}の"
            else:
                whose, whose_ja = f"deck {owner + 1}'s (not in play)", f"デッキ{owner + 1}(使っていないデッキ)の"
            return self.refusal(f"{card} is {whose} terminal card; you may only take your own (deck {seat + 1}).",
                                f"{card}は{whose_ja}終端カードです。取れるのは自分(デッキ{seat + 1})の終端カードだけです。",
                                *head)
        mine = self.terminals[seat][v - 1]
        if mine != card:
            return self.refusal(f"{card} is not one of your terminal cards; your terminal {v} is {mine}.",
                                f"{card}はあなたの終端カードではありません。あなたの終端カード{v}は{mine}です。", *head)
        state = self.state[seat][v - 1]
        if state == "taken":
            return self.refusal(f"you have already scored your terminal {v}.",
                                f"終端カード{v}はもう得点化しました。", *head)
        if state == "stopped":
            return self.refusal(f"the {v}s are stopped — {self.threshold} terminal {v}s have been taken, so the "
                                "rest are face down and nobody may take them.",
                                f"{v}は打ち止めです。終端カード{v}が{self.threshold}枚取られたので、残りは裏向きになり、"
                                "誰も取れません。", f"{RULES}, stop cards (打ち止め)", f"{self.title_ja}、打ち止め")
        if v == 10 and not self.may_take_ten(seat):
            return self.refusal("you may take your terminal 10 only after you have taken one of your terminal "
                                "cards 1–9.", "終端カード置き場の10は、1〜9のいずれかの終端カードを1枚取るまで"
                                "取れません。", f"{RULES}, 10 not first", f"{self.title_ja}、10は最初に取れない")
        chain = {10: ("an empty work area", "空の作業場"), 9: ("the chain 10", "10だけの組")}.get(
            v, (f"the chain 10…{v + 1}", f"10…{v + 1}の組"))
        needs, needs_ja = self._needs(seat)
        return self.refusal(f"terminal {v} closes {chain[0]}; {needs}.",
                            f"終端カード{v}で閉じられるのは{chain[1]}です。{needs_ja}。", *head)

    def _needs(self, seat: int, whose: str = "your") -> tuple[str, str]:
        """What the seat's work area needs next, in English and Japanese."""
        top = self.top(seat)
        if top is None:
            return f"{whose} work area is empty, it needs a 10 first", "作業場は空なので、まず10が必要です"
        if top == 1:
            return f"{whose} work area ends in a 1: nothing can follow it", "作業場は1で終わっているので、もう何も繋がりません"
        return (f"{whose} work area's top card is {a_value(top)}, it needs {a_value(top - 1)} next",
                f"作業場の一番上は{top}なので、次は{top - 1}が必要です")

    def _where(self, card: str) -> tuple[str, str]:
        """Where a card that is not in the pending deck is, in English and Japanese."""
        owner = deck_of(card) - 1
        if owner >= self.players:
            return f"deck {owner + 1} is not in play", f"デッキ{owner + 1}は使っていません"
        if owner != self.pending[0]:
            return f"it is from player {owner + 1}'s deck", f"プレイヤー{owner + 1}のデッキのカードです"
        for pile, en, ja in ((self.terminals, "a terminal card", "終端カード"), (self.work, "in the work area", "作業場"),
                             (self.temporary, "in the temporary area", "一時置き場"),
                             (self.dead, "in the dead pile", "死に札の山")):
            if card in pile[owner]:
                return (f"it is {en}", f"{ja}です" if pile is self.terminals else f"{ja}にあります")
        return "it is in the discard pile", "捨て場にあります"

    # ----------------------------------------------------------------- moves in words
    def _chance_words(self, move: Move, names: Sequence[str] | None) -> Reason | None:
        """A card turned over, from whose deck: "a 4 turned up from Chie's deck" (the seat's name
        where the table has names, else "player 3's")."""
        if move.kind != "reveal":
            return None
        v = value_of(move.card)
        seat = self.pending[0] if self.pending else deck_of(move.card) - 1
        if names and 0 <= seat < len(names) and names[seat]:
            return Reason(f"{a_value(v)} turned up from {names[seat]}'s deck", f"{names[seat]}の山札から{v}がめくられた")
        return Reason(f"{a_value(v)} turned up from player {seat + 1}'s deck",
                      f"プレイヤー{seat + 1}の山札から{v}がめくられた")

    def _move_words(self, move: Move, short: bool) -> Reason | None:
        """The four actions in the rules' words (temporary slots counted from 1 for people), a
        card turned over by its value, the setup summarised."""
        kind, slot = move.kind, move.get("slot")
        if kind == "setup":
            count = sum(len(row) for row in move.terminals)
            return Reason(f"terminal cards laid out ({count} cards); decks shuffled",
                          f"終端カード({count}枚)を並べ、山札を切った")
        if kind == "reveal":
            v = value_of(move.card)
            if short:
                return Reason(str(v), str(v))
            return self._chance_words(move, None)
        if kind == "deck_to_work":
            return (Reason("deck → work area", "山札 → 作業場") if short else
                    Reason("turn over the top card of the deck into the work area", "山札の一番上をめくって作業場に置く"))
        if kind == "deck_to_temporary":
            return (Reason(f"deck → temporary slot {slot + 1}", f"山札 → 一時置き場{slot + 1}") if short else
                    Reason(f"turn over the top card of the deck into temporary slot {slot + 1}",
                           f"山札の一番上をめくって一時置き場{slot + 1}に置く"))
        if kind == "temporary_to_work":
            v = value_of(self.temporary[move.player][slot])
            return (Reason(f"temporary slot {slot + 1} ({v}) → work area", f"一時置き場{slot + 1}({v}) → 作業場")
                    if short else Reason(f"move the {v} in temporary slot {slot + 1} to the work area",
                                         f"一時置き場{slot + 1}の{v}を作業場に移す"))
        if kind == "take_terminal":
            v = value_of(move.card)
            return Reason(f"close with terminal {v}", f"終端カード{v}で締める")
        return None

    # ----------------------------------------------------------------- moves
    def _apply(self, move: Move) -> list[Event]:
        kind = move.kind
        if kind == "setup":
            return self._apply_setup(move.terminals)
        if kind in ("deck_to_work", "deck_to_temporary"):
            self.pending = (move.player, move.get("slot"))
            return []
        if kind == "reveal":
            return self._apply_reveal(move.card)
        seat = move.player
        if kind == "temporary_to_work":
            card = self.temporary[seat][move.slot]
            self.temporary[seat][move.slot] = None
            self.work[seat].append(card)
            return self._after_action(seat, turn_ends=False)
        if kind == "take_terminal":
            return self._apply_take(seat, move.card)
        raise AssertionError(f"unchecked move {move}")

    def _apply_setup(self, rows: tuple[tuple[str, ...], ...]) -> list[Event]:
        for p, row in enumerate(rows):
            self.terminals[p] = list(row)
            self.state[p] = ["available"] * 10
            self.deck[p] -= set(row)
        self.set_up = True
        first = self.turn + 1
        return [Event.of("setup", f"Terminal cards laid out; decks shuffled. Player {first} starts.",
                         f"終端カードを並べ、山札を切りました。プレイヤー{first}から始めます。",
                         terminals=rows, start_player=self.turn)]

    def _apply_reveal(self, card: str) -> list[Event]:
        seat, slot = self.pending
        self.pending = None
        self.deck[seat].discard(card)
        v = value_of(card)
        if slot is not None:
            self.temporary[seat][slot] = card
            events = [Event.of("revealed", f"Player {seat + 1} turns over {a_value(v)} into temporary slot {slot + 1}.",
                               f"プレイヤー{seat + 1}は{v}を一時置き場(スロット{slot + 1})に置きました。",
                               player=seat, card=card, slot=slot)]
            return events + self._after_action(seat, turn_ends=True)
        if self.fits(seat, v):
            self.work[seat].append(card)
            events = [Event.of("revealed", f"Player {seat + 1} turns over {a_value(v)} into the work area.",
                               f"プレイヤー{seat + 1}は{v}を作業場に置きました。",
                               player=seat, card=card)]
            return events + self._after_action(seat, turn_ends=False)
        ruined = list(self.work[seat]) if self.options["misfit"] == "ruin" else []
        del self.work[seat][len(self.work[seat]) - len(ruined):]
        self.dead[seat].extend(ruined + [card])
        need, need_ja = self._needs(seat, "the") if not ruined else ("", "")
        if ruined:
            text = (f"Player {seat + 1} turns over {a_value(v)}, which does not fit: the work area "
                    f"({len(ruined)} card{'s' if len(ruined) > 1 else ''}) and the {v} go face down "
                    "to the dead pile.")
            ja = (f"プレイヤー{seat + 1}がめくった{v}は作業場に合いません。作業場({len(ruined)}枚)と{v}を"
                  "裏向きにして死に札の山へ。")
        else:
            text = (f"Player {seat + 1} turns over {a_value(v)}, which does not fit ({need}): "
                    f"it goes face down to the dead pile.")
            ja = f"プレイヤー{seat + 1}がめくった{v}は作業場に合いません({need_ja})。{v}を裏向きにして死に札の山へ。"
        events = [Event.of("work_ruined", text, ja, player=seat, card=card, cards=ruined + [card])]
        return events + self._after_action(seat, turn_ends=False)

    def _apply_take(self, seat: int, card: str) -> list[Event]:
        v = value_of(card)
        chain = self.work[seat] + [card]
        self.work[seat] = []
        self.discard[seat].append(chain)
        self.state[seat][v - 1] = "taken"
        points = POINTS[v]
        events = [Event.of("set_scored",
                           f"Player {seat + 1} closes a chain of {len(chain)} with terminal {v}: "
                           f"+{points} (total {self.scores()[seat]}).",
                           f"プレイヤー{seat + 1}は終端カード{v}で長さ{len(chain)}の組を完成:"
                           f"+{points}点(計{self.scores()[seat]}点)。",
                           player=seat, value=v, cards=chain, points=points)]
        events += self._stop(v)
        return events + self._after_action(seat, turn_ends=True)

    def _stop(self, value: int) -> list[Event]:
        if self.threshold is None or self.taken_count(value) < self.threshold:
            return []
        stopped = []
        for p in range(self.players):
            if self.state[p][value - 1] == "available":
                self.state[p][value - 1] = "stopped"
                stopped.append(self.terminals[p][value - 1])
        if not stopped:
            return []
        who = ", ".join(f"player {deck_of(c)}" for c in stopped)
        return [Event.of("value_stopped",
                         f"{value} stopped: {self.threshold} terminal {value}s taken; "
                         f"turn face down the {value}s of {who}.",   # the card ids are in the data
                         f"{value}は打ち止め:{value}が{self.threshold}枚取られました。"
                         f"{'、'.join(f'プレイヤー{deck_of(c)}' for c in stopped)}の{value}を裏向きに。",
                         value=value, cards=stopped, threshold=self.threshold)]

    def _after_action(self, seat: int, turn_ends: bool) -> list[Event]:
        """The automatic rules after an action: dead work areas, players leaving, the next turn."""
        events: list[Event] = []
        for p in range(self.players):
            if p not in self.out:
                events += self._check_dead(p)
        for p in range(self.players):
            if p not in self.out and not self.scorable_terminals(p):
                events += self._leave(p, "no terminal card left to score")
        if turn_ends or seat in self.out:
            events += self._next_turn(seat)
        else:
            events += self._check_can_act()
        return events

    def _check_dead(self, seat: int) -> list[Event]:
        top = self.top(seat)
        if top is None or any(v < top for v in self.scorable_terminals(seat)):
            return []
        cards = self.work[seat]
        self.work[seat] = []
        self.dead[seat].extend(cards)
        return [Event.of("work_dead",
                         f"Player {seat + 1}'s work area (10…{top}, {len(cards)} cards) can no longer be "
                         f"scored — no terminal card below {top} is available: face down to the dead pile.",
                         f"プレイヤー{seat + 1}の作業場(10…{top}、{len(cards)}枚)はもう得点化できません。"
                         "裏向きにして死に札の山へ。",
                         player=seat, cards=cards)]

    def _leave(self, seat: int, why: str) -> list[Event]:
        self.out[seat] = why
        why_ja = LEAVE_JA[why]
        return [Event.of("player_out", f"Player {seat + 1} is out: {why} (score {self.scores()[seat]}).",
                         f"プレイヤー{seat + 1}は脱落:{why_ja}(得点{self.scores()[seat]}点)。",
                         player=seat, reason=why, score=self.scores()[seat])]

    def _check_can_act(self) -> list[Event]:
        """Drop the player to move while they cannot act, passing the turn on; end the game if none is left."""
        events: list[Event] = []
        while len(self.out) < self.players:
            if self.turn not in self.out:
                if self.can_act(self.turn):
                    return events
                events += self._leave(self.turn, "cannot perform any action")
            self.turn = (self.turn + 1) % self.players
        return events + self._game_over()

    def _next_turn(self, seat: int) -> list[Event]:
        self.turn = (seat + 1) % self.players
        return self._check_can_act()

    def _game_over(self) -> list[Event]:
        self.over = True
        scores = self.scores()
        table = ", ".join(f"P{p + 1} {s}" for p, s in enumerate(scores))
        table_ja = "、".join(f"P{p + 1} {s}点" for p, s in enumerate(scores))
        winners = self.winners()
        seats = [str(p + 1) for p in winners]
        names = f"player {seats[0]}" if len(seats) == 1 else \
            f"players {', '.join(seats[:-1])} and {seats[-1]}"
        names_ja = "と".join(f"プレイヤー{p + 1}" for p in winners)
        line, line_ja = self.tie_break_line()
        text = f"Game over: {table}. " + (f"{line} " if line else "") + \
            (f"Shared win: {names}." if len(winners) > 1 else f"{names.capitalize()} wins.")
        ja = f"ゲーム終了:{table_ja}。" + (f"{line_ja}" if line_ja else "") + \
            (f"{names_ja}が勝利を分かち合います。" if len(winners) > 1 else f"{names_ja}の勝利。")
        return [Event.of("game_over", text, ja, scores=scores, winners=winners)]

    def tie_break_line(self) -> tuple[str, str]:
        """The tie-break sentence (English, Japanese) when the best score is shared, else empty."""
        scores = self.scores()
        tied = [p for p, s in enumerate(scores) if s == max(scores)]
        if len(tied) < 2:
            return "", ""

        def missing(p: int) -> tuple[str, str]:
            m = tie_break_value(self.scored_values(p))
            return ("perfect", "パーフェクト") if m == 11 else (f"smallest missing {m}", f"最小の未獲得{m}")
        parts = [(f"P{p + 1} {missing(p)[0]}", f"P{p + 1} {missing(p)[1]}") for p in tied]
        return (f"Tie at {max(scores)}: " + ", ".join(e for e, _ in parts) + ".",
                f"{max(scores)}点で同点:" + "、".join(j for _, j in parts) + "。")

    # ----------------------------------------------------------------- results
    def scores(self) -> list[int]:
        """Each seat's points: the sum over their scored terminal cards."""
        return [sum(POINTS[v] for v in self.scored_values(p)) for p in range(self.players)]

    def winners(self) -> list[int]:
        """Highest score; a tie goes to the larger smallest-unscored terminal value; else shared."""
        keys = [(s, tie_break_value(self.scored_values(p))) for p, s in enumerate(self.scores())]
        best = max(keys)
        return [p for p, k in enumerate(keys) if k == best]

    def snapshot(self) -> dict[str, Any]:
        """The whole state (deck contents as sorted sets: their order is chance's)."""
        return {"set_up": self.set_up, "over": self.over, "turn": self.turn,
                "pending": list(self.pending) if self.pending else None,
                "ten_not_first": self.ten_not_first, "threshold": self.threshold,
                "terminals": self.terminals, "state": self.state,
                "deck": [sorted(d, key=_sort_key) for d in self.deck],
                "work": self.work, "temporary": self.temporary, "discard": self.discard,
                "dead": self.dead, "out": [[p, why] for p, why in self.out.items()],
                "scores": self.scores()}

    def layout(self) -> dict[str, Any]:
        """The table as a camera sees it (see the module docstring for the contract)."""
        return {
            "terminals": [[{"card": c, "state": s} for c, s in zip(self.terminals[p], self.state[p])]
                          for p in range(self.players)],
            "players": [{"work": list(self.work[p]), "temporary": list(self.temporary[p]),
                         "discard": [list(s) for s in self.discard[p]], "dead": len(self.dead[p]),
                         "deck": len(self.deck[p])} for p in range(self.players)],
            "out": sorted(self.out),
        }

    def player_view(self, player: int) -> dict[str, Any]:
        """Everything public: the layout, scores, stop counts, who left and why (decks: counts only)."""
        return {"layout": self.layout(), "scores": self.scores(), "current_player": self.current_player(),
                "player": player, "stop_threshold": self.threshold, "ten_not_first": self.ten_not_first,
                "taken": [self.taken_count(v) for v in VALUES] if self.set_up else [],
                "may_take_ten": [self.may_take_ten(p) for p in range(self.players)],
                "out": [{"player": p, "reason": why} for p, why in self.out.items()],
                "pending": {"player": self.pending[0], "slot": self.pending[1]} if self.pending else None,
                "winners": self.winners() if self.over else []}
