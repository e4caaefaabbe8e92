"""輪る七年戦争 — The Turning Seven Years' War (rules: docs/prussia.md), solo and 2 players.

Moves (``Move.kind``):

* ``deal`` (chance, 2 players): ``hands`` = the two 13-card hands; the rest is the draw pile. At a
  real table nobody sees the hands: a ``deal`` without ``hands`` deals 13 *unseen* cards to each
  player, and a later ``play`` may then name any unseen card while the seat still holds cards;
* ``draw`` (chance): ``card`` = the playing card turned over from the pile (uniform over unseen cards);
* ``place`` (player): ``slot`` = where the drawn card goes (a slot key, below);
* ``discard`` (player, after a joker): ``card`` = the relation card removed from the table;
* ``play`` / ``draw`` / ``pass`` (player, 2 players): play ``card`` from hand, ask for the top card
  of the pile (a chance ``draw`` follows), or pass (no hand, empty pile).

Everything else (war check, ignition cards, wars, surrenders, refills, eras, the end) is resolved by
the engine and explained step by step in the events (``ruling``, ``surrender``, ``era``,
``game_over``; ``text`` English, ``ja`` Japanese, ``data.steps`` the structured steps).

``layout()`` — what a camera sees::

    {"clock":   {"1": "P-N1" | null, …, "12": …},   # nation card standing at each clock position
     "centre":  "P-PRU" | "P-GER" | null,            # null once the centre nation has surrendered
     "slots":   {slot key: card id | null},          # every slot that exists now, empty ones null
     "era":     "P-ERA1" … "P-ERA4",
     "drawn":   card id | null,    # turned over (from pile or hand), not yet placed or resolved
     "hands":   [count, count],    # 2 players only
     "pile":    cards left in the pile,
     "discard": number of discarded cards}

Slot keys: a ring edge is ``"a>b"`` with ``a`` and ``b`` the clock positions of two neighbouring
nations, ``b`` the next one clockwise (ring order is rank order, so a nation moved into 3/6/9/12
keeps its neighbours); with two nations left both ``"a>b"`` and ``"b>a"`` exist. A Prussia edge is
``"C-3"``, ``"C-6"``, ``"C-9"`` or ``"C-12"`` (between the centre and the nation at that position).
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any, Optional

from companion.engine import (CHANCE, TERMINAL, Event, Game as BaseGame, GameError, IllegalMove, Move, Option,
                              Reason)
from companion.games.prussia_core import (CARDS, CENTRE, ERA_NAMES, JOKERS, POLICIES, RESULT_NAMES, RESULTS,
                                          Key, Table, deck, label, label_ja, load_nations,
                                          random_playout)
from companion.games.prussia_text import Namer, render, surrender_instruction

HAND = 13
CENTRE_CARDS = {"prussia": "P-PRU", "german_empire": "P-GER"}
DRAW_FIRST = Reason("Turn over the top card of the draw pile first (step 1: draw).",
                    "まず山札の一番上のトランプを1枚めくってください(手順1: トランプ引き)。")


class Game(BaseGame):
    """The Prussia game: a clock of nations, relation cards, wars and four eras."""

    id = "prussia"
    title = "The Turning Seven Years' War"
    title_ja = "輪る七年戦争"
    min_players = 1
    max_players = 2
    rules_file = "prussia.md"
    options_spec = (
        Option("start_player", 0, "seat that moves first (2 players: the seat playing Prussia's side)",
               minimum=0),
        Option("jokers", 2, "jokers in the deck", choices=(1, 2)),
        Option("centre", "prussia", "centre nation (the German Empire is easier)",
               choices=("prussia", "german_empire")),
        Option("alliance", "direct", "allies in a war: joined by one red card (direct) or by a chain "
               "of red cards not through the enemy (chain)", choices=("direct", "chain")),
        Option("victory_strength", "alliance", "at the end the centre nation counts with its red "
               "alliance (alliance) or alone (alone)", choices=("alliance", "alone")),
        Option("nations", None, "path to a nations file (same shape as companion/data/nations.json); "
               "default: this edition's table"),
    )

    # ------------------------------------------------------------------ setup
    @classmethod
    def _check_options(cls, options: dict[str, Any], players: int) -> None:
        if options["nations"] is not None and not isinstance(options["nations"], str):
            raise GameError(f"option nations takes a file path, got {options['nations']!r}",
                            f"オプションnationsにはファイルのパスを指定してください({options['nations']!r}が指定されました)")
        load_nations(options["nations"], options["centre"])

    def _setup(self) -> None:
        o = self.options
        self.nations = load_nations(o["nations"], o["centre"])
        self.namer = Namer(self.nations)
        self.table = Table(self.nations, o["jokers"], o["alliance"], o["victory_strength"])
        self.seat = o["start_player"]
        self.actor = self.seat
        self.phase = "deal" if self.players == 2 else "draw"
        self.drawn: Optional[str] = None      # the card being resolved (turned over, not placed)
        self.options_now: list[Key] = []       # the slots of the pending decision
        self.hands: list[list[str]] = [[] for _ in range(self.players)]
        self.hidden = [0] * self.players       # cards in hand nobody has seen (a deal without hands)
        self.drew_last = [False] * self.players

    def clone(self) -> "Game":
        """An independent copy; the nation table and its namer are shared (they never change)."""
        twin = copy.copy(self)
        twin.table = self.table.copy()
        twin.hands = [list(h) for h in self.hands]
        twin.hidden, twin.drew_last = list(self.hidden), list(self.drew_last)
        twin.options_now = list(self.options_now)
        twin.options, twin.log, twin.events = dict(self.options), list(self.log), list(self.events)
        return twin

    # ------------------------------------------------------------------ queries
    def current_player(self) -> int:
        """CHANCE for the deal and draws, TERMINAL at the end, else the deciding seat."""
        if self.phase == "over":
            return TERMINAL
        if self.phase in ("deal", "draw"):
            return CHANCE
        return self.seat

    def slot_name(self, key: Key) -> str:
        """The layout key of an internal slot."""
        a, b = key
        pos = self.table.pos
        return f"C-{b}" if a == CENTRE else f"{pos[a]}>{pos[b]}"

    def slot_key(self, name: str) -> Optional[Key]:
        """The internal slot of a layout key, or None when no such slot exists now."""
        for key in self.table.all_slots():
            if self.slot_name(key) == name:
                return key
        return None

    def pile_size(self) -> int:
        """Cards in the physical draw pile (the unseen cards minus those hidden in hands)."""
        return len(self.table.pile) - sum(self.hidden)

    def hand_size(self, seat: int) -> int:
        """How many cards a seat holds."""
        return len(self.hands[seat]) + self.hidden[seat]

    def playable(self, seat: int) -> list[str]:
        """The cards a seat may play: its known hand, or any unseen card while it holds hidden ones."""
        unseen = self.table.pile if self.hidden[seat] else []
        return sorted(set(self.hands[seat]) | set(unseen))

    def may_draw(self) -> bool:
        """2 players: whether the seat to move may draw from the pile now."""
        return self.pile_size() > 0 and not (self.drew_last[self.seat] and self.hand_size(self.seat))

    def legal_moves(self) -> list[Move]:
        """Every legal move now (empty at the deal: too many outcomes; see ``sample_chance``)."""
        phase, seat = self.phase, self.seat
        if phase == "draw":
            return [Move.of(CHANCE, "draw", card=c) for c in sorted(self.table.pile)]
        if phase == "place":
            return [Move.of(seat, "place", slot=self.slot_name(k)) for k in self.options_now]
        if phase == "joker":
            return [Move.of(seat, "discard", card=self.table.cards[k]) for k in self.options_now]
        if phase == "turn":
            moves = [Move.of(seat, "play", card=c) for c in self.playable(seat)]
            if self.may_draw():
                moves.append(Move.of(seat, "draw"))
            return moves or [Move.of(seat, "pass")]
        return []

    def check(self, move: Move) -> None:
        """As the engine's, but the deal is checked by its content (it is not enumerated)."""
        if self.phase == "deal" and move.player == CHANCE and move.kind == "deal":
            self._check_deal(move)
            return
        if (self.phase == "draw" and move.player == CHANCE and move.kind == "draw"
                and len(move.params) == 1 and move.get("card") in self.table.pile):
            return      # the common case, without listing every card of the pile
        super().check(move)

    def _check_deal(self, move: Move) -> None:
        hands = move.get("hands")
        if hands is None and len(move.params) == 0:
            return      # a deal nobody saw
        cards = deck(self.options["jokers"])
        if (not isinstance(hands, tuple) or len(hands) != 2
                or any(not isinstance(h, tuple) or len(h) != HAND for h in hands)):
            raise IllegalMove(f"The deal gives {HAND} cards to each of the 2 players.", "prussia.md, Two players",
                              f"2人のプレイヤーそれぞれに{HAND}枚ずつ配ってください。")
        dealt = [c for h in hands for c in h]
        bad = [c for c in dealt if c not in cards]
        if bad or len(set(dealt)) != len(dealt):
            raise IllegalMove(f"The deal must use distinct cards of this deck (bad: {bad or 'duplicates'}).",
                              "prussia.md, Two players",
                              f"配るのはこのゲームのトランプで、同じカードは1回だけです(誤り: {bad or '重複'})。")

    def sample_chance(self, rng: random.Random) -> Move:
        """The deal is a shuffle of the whole deck; draws are uniform over the pile."""
        if self.phase == "deal":
            cards = deck(self.options["jokers"])
            rng.shuffle(cards)
            return Move.of(CHANCE, "deal", hands=[sorted(cards[:HAND]), sorted(cards[HAND:2 * HAND])])
        if self.phase == "draw":
            return Move.of(CHANCE, "draw", card=rng.choice(sorted(self.table.pile)))
        return super().sample_chance(rng)

    def result(self) -> Optional[str]:
        """``defeat``, ``draw``, ``victory`` or ``great_victory`` once over, else None."""
        return self.table.result

    def scores(self) -> list[int]:
        """Solo: 0 defeat, 1 draw, 2 victory, 3 great victory. 2 players: 1 for the winning side."""
        res = self.table.result
        if res is None:
            return [0] * self.players
        if self.players == 1:
            return [RESULTS.index(res)]
        prussia = self.options["start_player"]
        prussia_wins = res in ("victory", "great_victory")
        return [int((seat == prussia) == prussia_wins) for seat in range(2)]

    # ------------------------------------------------------------------ moves
    def _apply(self, move: Move) -> list[Event]:
        kind, t = move.kind, self.table
        steps: list[dict[str, Any]] = []
        self.actor = self.seat          # whose turn it is (rulings name the player with 2 players)
        if kind == "deal":
            if move.get("hands") is None:
                self.hidden = [HAND, HAND]
            else:
                self.hands = [list(h) for h in move.hands]
                t.pile = [c for c in t.pile if c not in self.hands[0] and c not in self.hands[1]]
            self.phase = "turn"
            pile = self.pile_size()
            return [Event.of("deal", f"Deal {HAND} cards to each player; the other {pile} cards "
                             f"are the draw pile. Player {self.seat + 1} (Prussia's side) begins.",
                             f"各プレイヤーに{HAND}枚配り、残り{pile}枚を山札にする。"
                             f"プロイセン側のプレイヤー{self.seat + 1}から始める。", pile=pile)]
        if kind == "draw" and move.player == CHANCE:
            t.pile.remove(move.card)
            return self._begin(move.card, True, steps)
        if kind == "draw":
            self.drew_last[self.seat] = True
            self.phase = "draw"
            return [Event.of("draw_chosen", f"Player {self.seat + 1} draws from the pile.",
                             f"プレイヤー{self.seat + 1}は山札から引く。", seat=self.seat)]
        if kind == "play":
            if move.card in self.hands[self.seat]:
                self.hands[self.seat].remove(move.card)
            else:       # one of the seat's unseen cards
                t.pile.remove(move.card)
                self.hidden[self.seat] -= 1
            self.drew_last[self.seat] = False
            return self._begin(move.card, False, steps)
        if kind == "pass":
            events = [Event.of("pass", f"Player {self.seat + 1} has no card and the pile is empty: pass.",
                               f"プレイヤー{self.seat + 1}は手札も山札もないのでパス。", seat=self.seat)]
            return events + self._end_turn(None, [])
        card = self.drawn
        assert card is not None
        if kind == "place":
            t.place(card, self.slot_key(move.slot), steps)
        else:   # discard after a joker
            key = next(k for k in self.options_now if t.cards[k] == move.card)
            t.joker_discard(key, steps)
        return self._end_turn(card, steps)

    def _begin(self, card: str, from_pile: bool, steps: list) -> list[Event]:
        """Resolve a card turned over from the pile or played from hand, up to a decision."""
        t = self.table
        self.drawn = card
        outcome, opts = t.begin(card, from_pile, steps)
        self.options_now = opts
        if outcome == "again":
            if self.pile_size() > 0:
                self.phase = "draw"
                self.drawn = None
                return self._events(steps)
            return self._end_turn(None, steps)
        if outcome == "place":
            self.phase = "place"
            if self.quiet:
                return []
            n = CARDS[card][0]
            # players know slots by the nations at their ends, not by layout keys like "2>3"
            spots = [self.namer.between(list(t.ends(k))) for k in opts]
            names, names_ja = "; ".join(en for en, _ in spots), "、".join(ja for _, ja in spots)
            prompt = (f" → place it {names if len(opts) == 1 else 'in one of: ' + names}",
                      f" → {names_ja}{'に置く' if len(opts) == 1 else 'のどれかに置く'}")
            if n == CENTRE:
                prompt = (prompt[0] + " (a Prussia edge)", prompt[1] + "（プロイセンとの間）")
            return self._events(steps, prompt, options=[self.slot_name(k) for k in opts])
        if outcome == "joker":
            self.phase = "joker"
            if self.quiet:
                return []
            prompt = (" → choose a relation card to discard", " → 捨札にする関係トランプを1枚選ぶ")
            return self._events(steps, prompt, options=[t.cards[k] for k in opts])
        return self._end_turn(card, steps)

    def _end_turn(self, card: Optional[str], steps: list) -> list[Event]:
        """Step 4, then the next turn (solo: the next draw; 2 players: the other seat)."""
        t = self.table
        if card is not None:
            t.end_turn(card, steps)
        self.drawn = None
        self.options_now = []
        if t.result is not None:
            self.phase = "over"
        elif self.players == 1:
            self.phase = "draw"
        else:
            self.phase = "turn"
            self.seat = 1 - self.seat
        return self._events(steps)

    def _events(self, steps: list, prompt: tuple[str, str] = ("", ""), **facts: Any) -> list[Event]:
        """The ruling (whole explanation), then surrender, era and game-over events."""
        if not steps or self.quiet:
            return []
        who = (f"Player {self.actor + 1}: ", f"プレイヤー{self.actor + 1}: ") if self.players == 2 else ("", "")
        en, ja = render(steps, self.namer, who)
        events = [Event.of("ruling", en + prompt[0], ja + prompt[1], steps=steps, **facts)]
        for step in steps:
            if step["step"] == "surrender":
                s_en, s_ja = surrender_instruction(step, self.namer)
                events.append(Event.of("surrender", s_en, s_ja, nation=self.namer.en(step["nation"]),
                                       moves=step.get("moves")))
            elif step["step"] == "era":
                era = ERA_NAMES[step["era"]]
                events.append(Event.of("era", f"Era {era} begins: show era card {era}.",
                                       f"時代{era}へ: 時代カード{era}を表にする。", era=step["era"] + 1))
        if self.phase == "over":
            events.append(self._game_over_event())
        return events

    def _game_over_event(self) -> Event:
        res = self.table.result
        en, ja = RESULT_NAMES[res]
        if self.players == 2:
            prussia = self.options["start_player"]
            winner = prussia if res in ("victory", "great_victory") else 1 - prussia
            side = ("Prussia's side", "プロイセン側") if winner == prussia else ("the other nations' side", "その他の国側")
            return Event.of("game_over", f"Game over: {en} — player {winner + 1} ({side[0]}) wins.",
                            f"ゲーム終了: {ja} — プレイヤー{winner + 1}（{side[1]}）の勝ち。",
                            result=res, winner=winner)
        return Event.of("game_over", f"Game over: {en}.", f"ゲーム終了: {ja}。", result=res)

    # ------------------------------------------------------------------ illegal moves
    def _move_words(self, move: Move, short: bool) -> Reason | None:
        """Cards by the names players say (♥6, joker), slots by the nations they join, the deal and
        a card turned over from the pile as what the table did."""
        kind, card = move.kind, move.get("card")
        if move.player == CHANCE and kind == "deal":
            if move.get("hands") is None:
                return Reason("dealt at the table (hands not entered)", "卓で配った(手札は入力しない)")
            return Reason(f"{HAND} cards dealt to each player", f"各プレイヤーに{HAND}枚配った")
        # a move worded for a viewer who may not see its card (an undo of a card now back in a hand)
        if card is None and kind == "play":
            return Reason("play a card", "カードを出す")
        if card is None and kind == "discard":
            return Reason("discard a relation card", "関係カードを捨てる")
        if card is None and move.player == CHANCE and kind == "draw":
            return Reason("a card turned up from the pile", "山札からカードがめくられた")
        if move.player == CHANCE and kind == "draw":
            if short:
                return Reason(label(card), label_ja(card))
            return Reason(f"{label(card)} turned up from the pile", f"山札から{label_ja(card)}がめくられた")
        if kind == "play":
            return Reason(f"play {label(card)}", f"{label_ja(card)}を出す")
        if kind == "draw":
            return Reason("draw from the pile", "山札から引く")
        if kind == "pass":
            return Reason("pass (no card and the pile is empty)", "パスする(手札も山札もない)")
        if kind == "discard":
            return Reason(f"discard relation card {label(card)}", f"関係カード{label_ja(card)}を捨てる")
        if kind == "place":
            a, b = self.table.ends(self.slot_key(move.slot))
            if short:
                return Reason(f"{self.namer.en(a)} – {self.namer.en(b)}", f"{self.namer.ja(a)} – {self.namer.ja(b)}")
            en, ja = self.namer.between([a, b])
            # the card placed is the state's card drawn, not the move's: worded again in a later state
            # (an undo in a log) it named the card drawn then; the play or draw before names it
            return Reason(f"place the card {en}", f"カードを{ja}に置く")
        return None

    def explain_illegal(self, move: Move) -> str:
        """Why a move is not legal now, citing the rule (a ``Reason``: English and Japanese)."""
        turn = self.current_player()
        t, phase = self.table, self.phase
        if move.player != turn:
            if turn == CHANCE:
                return (Reason("Deal the cards first (2 players: setup).", "まずトランプを配ってください(2人プレイ: セットアップ)。")
                        if phase == "deal" else DRAW_FIRST)
            if move.player == CHANCE:
                doing = {"place": (f"place {label(self.drawn)}", f"{label_ja(self.drawn)}を置か"),
                         "joker": ("choose the relation card to discard", "捨札にする関係トランプを選ば"),
                         "turn": ("play a card or draw", "手札から出すか山札から引か")}[phase]
                return Reason(f"No card is turned over now: player {turn + 1} must {doing[0]} first.",
                              f"今はトランプをめくる時ではありません。先にプレイヤー{turn + 1}が{doing[1]}なければなりません。")
            return super().explain_illegal(move)
        if phase == "deal":
            return Reason("First deal 13 cards to each player (2 players: setup).",
                          "まず各プレイヤーに13枚ずつ配ってください(2人プレイ: セットアップ)。")
        if phase == "draw":
            card = move.get("card")
            if move.kind != "draw" or card is None:
                return DRAW_FIRST
            if card not in CARDS and card not in JOKERS:
                return Reason(f"{card} is not a playing card of this game.", f"{card}はこのゲームのトランプではありません。")
            return Reason(f"{label(card)} cannot be drawn: it is not in the draw pile (it is on the table, "
                          f"in a hand or discarded).",
                          f"{label_ja(card)}は引けません。山札にはありません(場にあるか、手札にあるか、捨札です)。")
        if phase == "turn":
            return self._explain_turn(move)
        if phase == "joker":
            listed = [label(t.cards[k]) for k in self.options_now]
            return Reason("Choose one relation card on the table to discard for the joker (step 1: joker): "
                          + ", ".join(listed) + ".",
                          "ジョーカーを引いたので、場の関係トランプを1枚選んで捨札にしてください(手順1: ジョーカー): "
                          + "、".join(listed) + "。")
        return self._explain_place(move)

    def _explain_turn(self, move: Move) -> Reason:
        """2 players: why a play, draw or pass is not allowed now."""
        card = move.get("card", "?")
        if move.kind == "play":
            if self.hidden[self.seat]:
                return Reason(f"{label(card)} has already been seen (on the table or discarded): it cannot be "
                              f"in your hand.", f"{label_ja(card)}はすでに場か捨札に出ているので、手札にはありえません。")
            return Reason(f"{label(card)} is not in your hand.", f"{label_ja(card)}は手札にありません。")
        if move.kind == "draw":
            if self.pile_size() <= 0:
                return Reason("The draw pile is empty: play a card from your hand.",
                              "山札がありません。手札からトランプを出してください。")
            return Reason("You drew on your last turn: while you hold cards you may not draw twice in a row "
                          "(2 players: play a card from your hand).",
                          "前の手番で山札から引きました。手札がある間は2回連続で山札から引くことはできません"
                          "(2人プレイ: 手札から出してください)。")
        if move.kind == "pass":
            return Reason("You may pass only with no card in hand and an empty pile.",
                          "パスできるのは手札も山札もないときだけです。")
        return Reason("Play a card from your hand or draw from the pile (2 players).",
                      "手札からトランプを出すか、山札から引いてください(2人プレイ)。")

    def _explain_place(self, move: Move) -> Reason:
        t, card = self.table, self.drawn
        n = CARDS[card][0]
        name, name_ja = self.namer.en(n), self.namer.ja(n)
        if move.kind != "place":
            return Reason(f"Place {label(card)} first: it goes in an empty slot of {name} (step 2).",
                          f"先に{label_ja(card)}を置いてください。{name_ja}の空いている場所に置きます(手順2)。")
        slot = move.get("slot")
        key = self.slot_key(slot) if isinstance(slot, str) else None
        allowed = ", ".join(self.slot_name(k) for k in self.options_now)
        allowed_ja = "、".join(self.slot_name(k) for k in self.options_now)
        if key is None:
            return Reason(f"There is no slot {slot!r} on the table; {label(card)} may go in {allowed}.",
                          f"場に{slot!r}という場所はありません。{label_ja(card)}を置けるのは{allowed_ja}です。")
        if n not in t.ends(key):
            if n == CENTRE:
                return Reason(f"A K names {name}: it goes only in an empty Prussia edge ({allowed}) (step 2).",
                              f"Kのイベント国は{name_ja}です。プロイセンとの間の空いている場所({allowed_ja})"
                              f"にだけ置けます(手順2)。")
            return Reason(f"{label(card)} names {name}: it goes only in an empty slot of {name} ({allowed}) "
                          f"(step 2).", f"{label_ja(card)}のイベント国は{name_ja}です。{name_ja}と隣国の間の"
                          f"空いている場所({allowed_ja})にだけ置けます(手順2)。")
        if key in t.cards:
            return Reason(f"Slot {slot} already holds {label(t.cards[key])}: a slot holds at most one card "
                          f"(step 2).", f"場所{slot}にはすでに{label_ja(t.cards[key])}があります。"
                          f"国と国の間に置ける関係トランプは1枚だけです(手順2)。")
        return Reason(f"Prussia edge only after both ring edges of {name} are filled (step 2); use {allowed}.",
                      f"プロイセンとの間に置けるのは、{name_ja}と隣国の間(2箇所)がすでに関係トランプで埋まって"
                      f"いるときだけです(手順2)。{allowed_ja}に置いてください。")

    # ------------------------------------------------------------------ views
    def layout(self) -> dict[str, Any]:
        """The table as a camera sees it (see the module docstring)."""
        t = self.table
        clock: dict[str, Optional[str]] = {str(p): None for p in range(1, 13)}
        for r, p in t.pos.items():
            clock[str(p)] = f"P-N{r}"
        out: dict[str, Any] = {
            "clock": clock,
            "centre": None if t.result == "defeat" else CENTRE_CARDS[self.options["centre"]],
            "slots": {self.slot_name(k): t.cards.get(k) for k in t.all_slots()},
            "era": f"P-ERA{t.era + 1}",
            "drawn": self.drawn,
            "pile": self.pile_size(),
            "discard": len(t.discard),
        }
        if self.players == 2:
            out["hands"] = [self.hand_size(seat) for seat in range(2)]
        return out

    def player_view(self, player: int) -> dict[str, Any]:
        """The layout, scores, and (2 players) the seat's own hand."""
        view = super().player_view(player)
        if self.players == 2:
            view["hand"] = sorted(self.hands[player])
        view["result"] = self.table.result
        return view

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON data."""
        t = self.table
        return {"phase": self.phase, "seat": self.seat, "drawn": self.drawn,
                "options_now": [self.slot_name(k) for k in self.options_now],
                "alive": list(t.alive), "pos": {str(r): p for r, p in t.pos.items()},
                "special": {str(p): r for p, r in t.special.items()},
                "slots": {self.slot_name(k): t.cards.get(k) for k in t.all_slots()},
                "era": t.era, "kings": t.kings, "pile": sorted(t.pile), "discard": list(t.discard),
                "result": t.result, "hands": [sorted(h) for h in self.hands], "hidden": list(self.hidden),
                "drew_last": list(self.drew_last)}

    def cards_everywhere(self) -> Counter:
        """Every playing card with how often it is found in pile, table, hands, discard or drawn.

        Cards hidden in hands (a deal nobody saw) are counted in the pile: they are unseen."""
        t = self.table
        where = Counter(t.pile) + Counter(t.cards.values()) + Counter(t.discard)
        for h in self.hands:
            where.update(h)
        if self.drawn is not None and self.phase in ("place",):
            where[self.drawn] += 1
        return where


# ---------------------------------------------------------------------- odds
def _finish_choice(t: Table, phase: str, key: Key, drawn: str) -> None:
    if phase == "place":
        t.place(drawn, key, None)
    else:
        t.joker_discard(key, None)
    t.end_turn(drawn, None)


def odds(game: Game, samples: int = 400, seed: int = 0, policy: str = "greedy") -> dict[str, dict[str, float]]:
    """Monte Carlo odds of each result for each choice of the decision now (solo).

    Choices are slot keys (placing the drawn card) or relation card ids (discarding for a joker);
    with no decision pending (a draw is next) the single choice ``"draw"`` gives the odds from here.
    Later decisions follow ``policy``: ``greedy`` (default) takes the choice that leaves the centre
    side's strength margin highest right away (ties at random), ``random`` plays uniformly at random.
    Each choice sees the same ``samples`` deck orders (common random numbers), so differences between
    choices are not noise from the deal.
    """
    if game.players != 1:
        raise GameError("odds are computed for solo games only", "確率は1人プレイのゲームでだけ計算します")
    if game.is_over():
        raise GameError(f"the game is over ({game.result()})",
                        f"ゲームは終了しています({RESULT_NAMES[game.result()][1]})")
    if samples < 1:
        raise GameError(f"samples must be at least 1, got {samples}")
    if policy not in POLICIES:
        raise GameError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    if game.phase in ("place", "joker"):
        choices = {(game.slot_name(k) if game.phase == "place" else game.table.cards[k]): k
                   for k in game.options_now}
    else:
        choices = {"draw": None}
    out: dict[str, dict[str, float]] = {}
    for name, key in choices.items():
        counts = dict.fromkeys(RESULTS, 0)
        for i in range(samples):
            t = game.table.copy()
            if key is not None:
                _finish_choice(t, game.phase, key, game.drawn)
            res = t.result or random_playout(t, random.Random(seed * 1_000_003 + i), policy)
            counts[res] += 1
        out[name] = {r: c / samples for r, c in counts.items()}
    return out
