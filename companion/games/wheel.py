"""Das Rad der Geschichte — Wheel of History (歴史の車輪), Reiner Knizia. 2–5 players.

Rules: ``docs/wheel.md`` (every ruling there is the default). The 25 cards (five tribes × values 1–5) lie in a
circle of 25 *slots*; a taken card leaves a gap. The pawn stands at a slot: ``pawn == j`` means it
stands in the gap at slot ``j``, or, before the first take, just after the card in slot ``j``; either
way "the 1st card ahead" is the first card in slots ``j+1, j+2, …`` (clockwise).

Moves:
* ``Move(CHANCE, "lay_circle", circle=(25 card ids, clockwise), pawn=slot)`` — the shuffle;
* ``Move(p, "take", card=id)`` — move the pawn 1, 2 or 3 cards ahead and take that card;
* with ``single_card_fall``: ``Move(p, "discard", card=id)`` or ``Move(p, "keep")`` right after a
  take, while the player still has their one discard.

``layout()`` (what a camera sees)::

    {"circle": [card id or None] * 25,   # slot by slot, clockwise
     "pawn": slot or None,
     "taken": [[card ids, sorted] per seat],
     "discarded": number of face-down discarded cards}
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any

from companion import engine
from companion.catalogue import COLOURS, WHEEL_COLOURS, WHEEL_TRIBES, card as catalogue_card
from companion.engine import CHANCE, TERMINAL, Event, IllegalMove, Move, Option, Reason, seat_words

CARDS = tuple(f"W-{c}{v}" for c in WHEEL_COLOURS for v in range(1, 6))
SLOTS = len(CARDS)


def colour_of(card_id: str) -> str:
    """The colour key (R B G Y P) of a Wheel card id such as ``W-R5``."""
    return card_id[2]


def value_of(card_id: str) -> int:
    """The value (1–5) of a Wheel card id such as ``W-R5``."""
    return int(card_id[3])


def inverted_worth(value: int) -> int:
    """The colour-and-value variant's worth of a card of a fallen value: 1→5, 2→4, … 5→1."""
    return 6 - value


def _colour_words(colour: str) -> tuple[str, str]:
    tribe, tribe_ja = WHEEL_TRIBES[colour]
    return f"{COLOURS[colour].name.capitalize()} ({tribe})", f"{COLOURS[colour].ja}({tribe_ja})"


class Game(engine.Game):
    """Wheel of History: take cards from a circle; complete tribes score, a fallen class costs."""

    id = "wheel"
    title = "Wheel of History"
    title_ja = "歴史の車輪"
    min_players = 2
    max_players = 5
    rules_file = "wheel-of-history.md"
    options_spec = (
        Option("start_player", 0, "seat that takes the first card", minimum=0),
        Option("single_card_fall", False, "variant: once per game a player may discard the card "
               "they just took"),
        Option("colour_and_value", False, "variant: a completed value scores inverted worth "
               "(1→5 … 5→1); the game ends once a colour and a value have scored"),
    )

    # ----------------------------------------------------------------- state
    def _setup(self) -> None:
        self.circle: list[str | None] = [None] * SLOTS
        self.laid = False
        self.pawn: int | None = None
        self.taken: list[list[str]] = [[] for _ in range(self.players)]
        self.discarded: list[str] = []
        self.discard_used = [False] * self.players
        self.pending: str | None = None          # a card just taken, awaiting keep/discard
        self.turn = self.options["start_player"]
        self.points = [0] * self.players
        self.colours_scored: list[str] = []
        self.values_scored: list[int] = []
        self.ended_by: str | None = None          # "value", "circle", "colour_and_value"

    def current_player(self) -> int:
        """The seat to move, CHANCE before the circle is laid, TERMINAL when over."""
        if self.ended_by:
            return TERMINAL
        return self.turn if self.laid else CHANCE

    def remaining(self) -> list[int]:
        """Slots that still hold a card, clockwise from just after the pawn."""
        assert self.pawn is not None
        order = [(self.pawn + 1 + i) % SLOTS for i in range(SLOTS)]
        return [s for s in order if self.circle[s] is not None]

    def targets(self) -> list[str]:
        """The cards the pawn may move to: 1st, 2nd or 3rd card ahead (wrapping, each once)."""
        ahead = self.remaining()
        if not ahead:
            return []
        picks = [self.circle[ahead[i % len(ahead)]] for i in range(3)]
        return list(dict.fromkeys(picks))  # a small circle wraps onto the same cards

    def legal_moves(self) -> list[Move]:
        """The takes (or, after a take in the variant, keep/discard) open to the player to move."""
        turn = self.current_player()
        if turn == TERMINAL or turn == CHANCE:
            return []  # 25! circles: sample_chance draws one, check() validates any other
        if self.pending:
            return [Move.of(turn, "keep"), Move.of(turn, "discard", card=self.pending)]
        return [Move.of(turn, "take", card=c) for c in self.targets()]

    def sample_chance(self, rng: random.Random) -> Move:
        """Shuffle the 25 cards into a circle and put the pawn between two of them."""
        circle = list(CARDS)
        rng.shuffle(circle)
        return Move.of(CHANCE, "lay_circle", circle=circle, pawn=rng.randrange(SLOTS))

    def check(self, move: Move) -> None:
        """Reject an illegal move with the rule it breaks."""
        if self.current_player() == CHANCE and move.player == CHANCE and move.kind == "lay_circle":
            circle, pawn = move.get("circle"), move.get("pawn")
            if not isinstance(circle, tuple) or sorted(circle) != sorted(CARDS):
                raise IllegalMove("The circle must hold each of the 25 cards exactly once.",
                                  "Wheel of History: Setup", "円には25枚のカードを1枚ずつ、すべて並べてください。")
            if not isinstance(pawn, int) or not 0 <= pawn < SLOTS:
                raise IllegalMove(f"The pawn must stand at a slot 0–{SLOTS - 1}.", "Wheel of History: Setup",
                                  f"ポーンは円の位置0〜{SLOTS - 1}のどこかに置いてください。")
            return
        super().check(move)

    def explain_illegal(self, move: Move) -> str:
        """Why a move is illegal, in the words of the rules (a ``Reason``: English and Japanese)."""
        turn = self.current_player()
        if turn == CHANCE:
            return Reason("Lay out the circle first: shuffle the 25 cards and put the pawn between two of them.",
                          "まず円を並べてください: 25枚のカードをシャッフルして円に並べ、ポーンを2枚のカードの間に置きます。")
        if move.player != turn:
            who, who_ja = seat_words(move.player)
            return self.refusal(f"it is player {turn + 1}'s turn, not {who}'s.",
                                f"{who_ja}ではなく、プレイヤー{turn + 1}の手番です。")
        if self.pending:
            return self.refusal(f"first decide whether to keep or discard {self.pending} (single-card fall).",
                           f"まず{_ja(self.pending)}を残すか捨てるかを決めてください(単独カードの没落)。")
        if move.kind == "take":
            card = move.get("card")
            if card not in CARDS or card not in self.circle:   # None would match a gap
                return self.refusal(f"{card} is not in the circle.", f"{_ja(card)}は円の上にありません。")
            ahead = [self.circle[s] for s in self.remaining()]
            n, targets = ahead.index(card) + 1, self.targets()
            return self.refusal(f"move the pawn to the 1st, 2nd or 3rd card ahead; {card} is card {n} ahead. "
                           f"You may take {', '.join(targets)}.",
                           f"ポーンは隣のカードか2つ先か3つ先のカードまでしか進められません。{_ja(card)}は"
                           f"{n}枚先です。取れるのは{'、'.join(map(_ja, targets))}です。")
        if move.kind in ("keep", "discard"):
            if not self.options["single_card_fall"]:
                return self.refusal("discarding is the single-card fall variant, which is off.",
                               "カードを捨てるのは変形ルール「単独カードの没落」で、このゲームでは使っていません。")
            if self.discard_used[move.player]:
                return self.refusal("you have already used your one discard this game.",
                               "このゲームで1回だけの廃棄はもう使いました。")
            return self.refusal("you may only discard the card you have just taken.",
                           "捨てられるのは今取ったカードだけです。")
        return super().explain_illegal(move)

    # ----------------------------------------------------------------- moves in words
    def _move_words(self, move: Move, short: bool) -> Reason | None:
        """Take / keep / discard a card by its name; the shuffle as the circle laid."""
        if move.kind == "lay_circle":
            pawn = move.pawn + 1
            return Reason(f"the circle of {len(move.circle)} cards was laid, the pawn at place {pawn}",
                          f"{len(move.circle)}枚の円が並べられ、ポーンが{pawn}番目の位置に置かれた")
        if move.kind == "keep":
            card = catalogue_card(self.pending) if self.pending else None
            return (Reason(f"keep {card.name}", f"{card.ja}を残す") if card
                    else Reason("keep the card just taken", "今取ったカードを残す"))
        card = catalogue_card(move.card)
        if move.kind == "take":
            return Reason(f"take {card.name}", f"{card.ja}を取る")
        if move.kind == "discard":
            return Reason(f"discard {card.name} face down (single-card fall)",
                          f"{card.ja}を伏せて捨てる(単独の没落)")
        return None

    # ----------------------------------------------------------------- moves
    def _apply(self, move: Move) -> list[Event]:
        if move.kind == "lay_circle":
            self.circle = list(move.circle)
            self.pawn = move.pawn
            self.laid = True
            return [Event.of("circle_laid", "The circle is laid; the pawn is placed.",
                             "円が並べられ、ポーンが置かれました。", pawn=move.pawn)]
        player = move.player
        if move.kind == "take":
            slot = self.circle.index(move.card)
            self.circle[slot] = None
            self.pawn = slot
            self.taken[player].append(move.card)
            taken = catalogue_card(move.card)
            events = [Event.of("card_taken", f"P{player + 1} takes {taken.name}.",
                               f"P{player + 1}が{taken.ja}を取りました。", player=player, card=move.card)]
            if self.options["single_card_fall"] and not self.discard_used[player]:
                self.pending = move.card
                return events
            return events + self._after_take(move.card)
        # keep or discard (single-card fall)
        card, self.pending = self.pending, None
        assert card is not None
        events = []
        if move.kind == "discard":
            self.taken[player].remove(card)
            self.discarded.append(card)
            self.discard_used[player] = True
            events.append(Event.of("card_discarded",
                                   f"P{player + 1} discards {catalogue_card(card).name} face down: colour "
                                   f"{_colour_words(colour_of(card))[0]} and value {value_of(card)} "
                                   f"can no longer complete.",
                                   f"P{player + 1}が{catalogue_card(card).ja}を伏せて捨てました。",
                                   player=player, card=card))
        return events + self._after_take(card)

    def _after_take(self, card: str) -> list[Event]:
        """Colour scoring, value scoring or fall, end checks; then the turn passes."""
        events: list[Event] = []
        colour, value = colour_of(card), value_of(card)
        held = [c for hand in self.taken for c in hand]
        if card not in self.discarded and sum(colour_of(c) == colour for c in held) == 5:
            gains = [sum(value_of(c) for c in hand if colour_of(c) == colour) for hand in self.taken]
            self._add(gains)
            self.colours_scored.append(colour)
            en, ja = _colour_words(colour)
            events.append(Event.of("colour_scored", f"{en} complete — scoring: " + _gains_text(gains),
                                   f"{ja}が揃いました — 得点: " + _gains_text(gains),
                                   colour=colour, points=gains))
        value_complete = card not in self.discarded and sum(value_of(c) == value for c in held) == 5
        if value_complete and not self.options["colour_and_value"]:
            losses = [-sum(value_of(c) for c in hand if value_of(c) == value) for hand in self.taken]
            self._add(losses)
            self.values_scored.append(value)
            self.ended_by = "value"
            events.append(Event.of("value_fell", f"Value {value} complete — game over, class {value} "
                                   f"falls: " + _gains_text(losses),
                                   f"数字{value}が揃いました — ゲーム終了、階層{value}の没落: "
                                   + _gains_text(losses), value=value, points=losses))
        elif value_complete:
            gains = [sum(inverted_worth(value) for c in hand if value_of(c) == value)
                     for hand in self.taken]
            self._add(gains)
            self.values_scored.append(value)
            events.append(Event.of("value_scored", f"Value {value} scored (each worth "
                                   f"{inverted_worth(value)}): " + _gains_text(gains),
                                   f"数字{value}の精算(1枚{inverted_worth(value)}点): " + _gains_text(gains),
                                   value=value, points=gains))
        if not self.ended_by and self.options["colour_and_value"]:
            if self.colours_scored and self.values_scored:
                self.ended_by = "colour_and_value"
            elif events and events[-1].kind in ("colour_scored", "value_scored"):
                need = "a value" if self.colours_scored else "a colour"
                need_ja = "数字" if self.colours_scored else "色"
                events.append(Event.of("still_needed", f"The game goes on until {need} is scored too.",
                                       f"{need_ja}の精算が残っています。", needed=need))
        if not self.ended_by and all(c is None for c in self.circle):
            self.ended_by = "circle"
            events.append(Event.of("circle_empty", "Circle empty — game over.", "円が空になりました — ゲーム終了。"))
        if self.ended_by:
            scores = self.scores()
            events.append(Event.of("game_over", "Game over. Scores: " + _gains_text(scores, signed=False),
                                   "ゲーム終了。得点: " + _gains_text(scores, signed=False),
                                   scores=scores, winners=self.winners(), ended_by=self.ended_by))
        else:
            self.turn = (self.turn + 1) % self.players
        return events

    def _add(self, points: list[int]) -> None:
        self.points = [a + b for a, b in zip(self.points, points)]

    # ----------------------------------------------------------------- queries
    def scores(self) -> list[int]:
        """Each player's total: colour scorings plus value fall (or value scorings)."""
        return list(self.points)

    def gone(self) -> dict[int, int]:
        """How many cards of each value have left the circle (taken or discarded): the end trigger."""
        counts = Counter(value_of(c) for hand in self.taken for c in hand)
        counts.update(value_of(c) for c in self.discarded)
        return {v: counts.get(v, 0) for v in range(1, 6)}

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-able data."""
        return {"circle": list(self.circle), "laid": self.laid, "pawn": self.pawn,
                "taken": [list(h) for h in self.taken], "discarded": list(self.discarded),
                "discard_used": list(self.discard_used), "pending": self.pending, "turn": self.turn,
                "points": list(self.points), "colours_scored": list(self.colours_scored),
                "values_scored": list(self.values_scored), "ended_by": self.ended_by}

    def layout(self) -> dict[str, Any]:
        """The table as the camera sees it (see the module docstring)."""
        return {"circle": list(self.circle), "pawn": self.pawn,
                "taken": [sorted(h) for h in self.taken], "discarded": len(self.discarded)}

    def player_view(self, player: int) -> dict[str, Any]:
        """Everything is public in this game: the layout, scores, and what is still to come."""
        return {"layout": self.layout(), "scores": self.scores(), "current_player": self.current_player(),
                "targets": self.targets() if self.laid and not self.ended_by else [],
                # JSON object keys are strings: give them as such so a view is the same before
                # and after a trip through JSON
                "gone": {str(v): n for v, n in self.gone().items()}, "colours_scored": list(self.colours_scored),
                "values_scored": list(self.values_scored), "pending": self.pending,
                "discard_available": (self.options["single_card_fall"]
                                      and not self.discard_used[player])}


def _ja(card_id: Any) -> str:
    """A card's Japanese name for a refusal (the id itself when it is no card of this game)."""
    return catalogue_card(card_id).ja if card_id in CARDS else repr(card_id)


def _gains_text(points: list[int], signed: bool = True) -> str:
    fmt = "{:+d}" if signed else "{:d}"
    return ", ".join(f"P{p + 1} " + fmt.format(v) for p, v in enumerate(points))


assert all(catalogue_card(c).game == "wheel" for c in CARDS)
