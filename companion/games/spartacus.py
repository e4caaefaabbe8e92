"""Spartacus (スパルタクス), Reiner Knizia 2002: a trick game where low beats high.

Rules: ``docs/spartacus.md``. Seat ``n`` plays colour ``catalogue.SPARTACUS_COLOURS[n]``
(red, blue, green, yellow, purple) and holds that colour's number cards 1–10 and banner, ids such as
``S-R8`` and ``S-RBAN``. There is no chance: the hands are dealt by colour.

Moves: ``Move.of(seat, "play", card="S-R8")`` and ``Move.of(seat, "pass")``.

Readings of the rules this engine implements (see docs/spartacus.md):

* a trick ends when the turn, skipping players who passed, comes back to the owner of the winning
  card: the lowest number card in the base game, the last card played in the joker variant;
* a number card may be played when it is lower than the last number card of the trick (numbers in a
  trick always fall, so that is the lowest one; after a joker it is "the number before the joker");
  a banner may always be played; passing is not allowed to the leader, nor in the base game while
  only banners are out;
* the game ends the moment any hand empties; the trick in progress goes to its winner so far, or out
  of the game if it holds only banners (base game);
* ``scores()`` during play counts won tricks only; hand penalties are subtracted when the game ends.

What a camera sees (``layout()``): the cards of the trick in play order, the number of face-down
won-trick piles in front of each seat and the cards that left the game. **Passes are not visible
on the table**: a pass puts no card down, so the table session has to ask the player (or take a tap)
for a pass; a played card is read from the trick.

Public information (``player_view``): the trick, hand sizes, passes, the number of won piles and
their announced worth (the companion announces each trick's worth as it is won, and the cards were
played face up); the cards inside the face-down piles only once the game is over.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from companion import catalogue
from companion.engine import TERMINAL, Event, GameError, Move, Option, Reason, with_aside
from companion.engine import Game as EngineGame

JOKER_PENALTY = 10
"""Points lost per joker with the ``joker_penalty`` option."""


def is_banner(card_id: str) -> bool:
    """True for a banner card (``S-RBAN``); in the joker variant banners are jokers."""
    return card_id.endswith("BAN")


@cache
def card_value(card_id: str) -> int:
    """The number on a card (0 for a banner)."""
    return catalogue.card(card_id).value or 0


def card_name(card_id: str) -> str:
    """The card's English name, e.g. ``red 8``."""
    return catalogue.card(card_id).name


def card_name_ja(card_id: str) -> str:
    """The card's Japanese name, e.g. ``赤8``."""
    return catalogue.card(card_id).ja


def _sum_text(values: list[int]) -> str:
    """``8+5``; ``0`` when there is nothing to add."""
    return "+".join(map(str, values)) or "0"


def _number(value: int) -> str:
    """An integer with a typographic minus sign, as printed in formulas."""
    return f"−{-value}" if value < 0 else str(value)


def _formula(expression: str, points: int) -> str:
    """``(8+5)×2 = 26``; just ``6`` when the expression is already the result."""
    result = _number(points)
    return result if expression == result else f"{expression} = {result}"


class Game(EngineGame):
    """One game of Spartacus for 3–5 players."""

    id = "spartacus"
    title = "Spartacus"
    title_ja = "スパルタクス"
    min_players = 3
    max_players = 5
    rules_file = "spartacus.md"
    options_spec = (
        Option("start_player", 0, "seat that leads the first trick (0 = P1); series rotate it",
               minimum=0),
        Option("joker", False, "banner as joker: it beats the card before it and the last card "
               "played wins the trick; jokers score 0, no doubling"),
        Option("joker_penalty", False, "joker variant: −10 for each joker in a player's won "
               "tricks or hand at the end", requires=("joker",)),
        Option("joker_spoils_trick", False, "joker variant: a won trick holding a joker is "
               "worth 0", requires=("joker",)),
        Option("no_banners", False, "play without the banner cards: 10 cards each, no doubling"),
    )

    @classmethod
    def _check_options(cls, options: dict[str, Any], players: int) -> None:
        if options["joker"] and options["no_banners"]:
            raise GameError("options joker and no_banners cannot be combined: the joker variant "
                            "plays the banner cards as jokers; switch one of them off",
                            "オプションjokerとno_bannersは同時に使えません。ジョーカーの変形ルールでは旗印カードを"
                            "ジョーカーとして使います。どちらかをオフにしてください")

    # ----------------------------------------------------------------- state
    def _setup(self) -> None:
        self.joker: bool = self.options["joker"]
        self.hands: list[list[str]] = [self._deal(p) for p in range(self.players)]
        self.trick: list[tuple[int, str]] = []      # (seat, card) in play order
        self.passed: set[int] = set()
        self.leader: int = self.options["start_player"]
        self.turn: int = self.leader
        self.tricks_played = 0
        self.piles: list[list[dict[str, Any]]] = [[] for _ in range(self.players)]
        self.out: list[str] = []                     # cards that left the game (a trick to nobody)
        self.over = False
        self.ended_by: int | None = None

    def _deal(self, seat: int) -> list[str]:
        colour = catalogue.SPARTACUS_COLOURS[seat]
        cards = [f"S-{colour}{v}" for v in range(1, 11)]
        return cards if self.options["no_banners"] else cards + [f"S-{colour}BAN"]

    def colour(self, seat: int) -> str:
        """The colour key a seat plays (``R``, ``B`` …)."""
        return catalogue.SPARTACUS_COLOURS[seat]

    def seat_name(self, seat: int) -> str:
        """``P2 (blue)``: how events name a seat."""
        return f"P{seat + 1} ({catalogue.COLOURS[self.colour(seat)].name})"

    def seat_name_ja(self, seat: int) -> str:
        """``P2(青)``: the Japanese form of ``seat_name``."""
        return f"P{seat + 1}({catalogue.COLOURS[self.colour(seat)].ja})"

    def _card_text(self, card_id: str) -> str:
        return card_name(card_id) + (" (joker)" if self.joker and is_banner(card_id) else "")

    def _card_text_ja(self, card_id: str) -> str:
        return card_name_ja(card_id) + ("(ジョーカー)" if self.joker and is_banner(card_id) else "")

    # ----------------------------------------------------------------- moves in words
    def seat_label(self, seat: int, names: Any = None) -> Reason:
        """A seat with its colour, as events name it: "Ann (red)", or "P1 (red)" without names."""
        if names and 0 <= seat < len(names) and names[seat]:
            colour = catalogue.COLOURS[self.colour(seat)]
            return with_aside(str(names[seat]), colour.name, colour.ja)
        return Reason(self.seat_name(seat), self.seat_name_ja(seat))

    def _move_words(self, move: Move, short: bool) -> Reason | None:
        """Play a card (by the events' card words) or pass."""
        if move.kind == "pass":
            return Reason("pass", "パスする")
        if move.kind == "play" and move.get("card") is None:   # a card now face down in a won trick
            return Reason("play a card", "カードを出す")
        if move.kind == "play":
            return Reason(f"play {self._card_text(move.card)}", f"{self._card_text_ja(move.card)}を出す")
        return None

    # ----------------------------------------------------------------- trick queries
    def last_number(self) -> int | None:
        """The last number card's value in the trick (its lowest number), or None if none yet."""
        for _, card in reversed(self.trick):
            if not is_banner(card):
                return card_value(card)
        return None

    def trick_winner(self) -> int | None:
        """Who would take the trick now: lowest number's owner (base) or last card's (joker)."""
        if self.joker:
            return self.trick[-1][0] if self.trick else None
        for seat, card in reversed(self.trick):
            if not is_banner(card):
                return seat
        return None

    def _may_pass(self) -> bool:
        # The leader must play; in the base game so must everyone while only banners are out.
        if not self.trick:
            return False
        return self.joker or self.last_number() is not None

    def _playable(self, card: str) -> bool:
        # A banner (joker) may always be played; a number must be lower than the last number.
        if is_banner(card):
            return True
        low = self.last_number()
        return low is None or card_value(card) < low

    # ----------------------------------------------------------------- engine hooks
    def current_player(self) -> int:
        """The seat to move, or ``TERMINAL``."""
        return TERMINAL if self.over else self.turn

    def legal_moves(self) -> list[Move]:
        """Plays of every card that may go on the trick, then pass when passing is allowed."""
        if self.over:
            return []
        seat = self.turn
        moves = [Move.of(seat, "play", card=c) for c in self.hands[seat] if self._playable(c)]
        if self._may_pass():
            moves.append(Move.of(seat, "pass"))
        return moves

    def _apply(self, move: Move) -> list[Event]:
        seat = move.player
        if move.kind == "pass":
            self.passed.add(seat)
            events = [Event.of("pass", f"{self.seat_name(seat)} passes.",
                               f"{self.seat_name_ja(seat)}はパス。", player=seat)]
            return events + self._advance()
        card = move.card
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        events = [Event.of("play", f"{self.seat_name(seat)} plays {self._card_text(card)}.",
                           f"{self.seat_name_ja(seat)}が{self._card_text_ja(card)}を出した。",
                           player=seat, card=card)]
        if not self.hands[seat]:
            return events + self._finish(seat)
        return events + self._advance()

    def _next_seat(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            nxt = (seat + step) % self.players
            if nxt not in self.passed:
                return nxt
        raise AssertionError("every seat passed: the winning card's owner never passes")

    def _advance(self) -> list[Event]:
        """Hand the turn on; close the trick when it comes back to the winning card's owner."""
        nxt = self._next_seat(self.turn)
        winner = self.trick_winner()
        if winner is not None and nxt == winner:
            events = self._award(winner)
            self.leader = self.turn = (winner + 1) % self.players
            return events
        self.turn = nxt
        return []

    def _award(self, winner: int) -> list[Event]:
        """Give the trick to ``winner`` as a separate face-down pile."""
        self.tricks_played += 1
        plays = [[s, c] for s, c in self.trick]
        cards = [c for _, c in self.trick]
        self.piles[winner].append({"trick": self.tricks_played, "cards": cards})
        self.trick, self.passed = [], set()
        score = self.pile_score(cards)
        so_far = sum(self.pile_score(p["cards"])["points"] for p in self.piles[winner])
        listed = ", ".join(self._card_text(c) for c in cards)
        listed_ja = "、".join(self._card_text_ja(c) for c in cards)
        return [Event.of(
            "trick", f"Trick won by {self.seat_name(winner)} (worth {_number(so_far)} so far): "
            f"{listed} = {score['formula']}.",
            f"{self.seat_name_ja(winner)}がトリックを獲得(ここまで{_number(so_far)}点):"
            f"{listed_ja} = {score['formula_ja']}。",
            winner=winner, trick=self.tricks_played, plays=plays, cards=cards,
            points=score["points"], formula=score["formula"], so_far=so_far)]

    def _finish(self, seat: int) -> list[Event]:
        """The game ends at once: settle the trick in progress, then score."""
        self.over, self.ended_by = True, seat
        events = [Event.of("last_card", f"{self.seat_name(seat)} played their last card — game over.",
                           f"{self.seat_name_ja(seat)}が最後の手札を出した — ゲーム終了。",
                           player=seat)]
        winner = self.trick_winner()
        if winner is not None:
            events += self._award(winner)
        else:  # only banners: the last trick goes to nobody
            cards = [c for _, c in self.trick]
            self.out.extend(cards)
            self.trick, self.passed = [], set()
            listed = ", ".join(map(card_name, cards))
            listed_ja = "、".join(map(card_name_ja, cards))
            events.append(Event.of(
                "trick_out", f"The last trick holds only banners ({listed}): it goes to nobody "
                "and its cards leave the game.",
                f"最後のトリックは軍旗だけ({listed_ja}):誰のものにもならず、ゲームから除かれる。",
                cards=cards))
        breakdown = self.breakdown()
        for row in breakdown:
            events.append(Event.of("score", row["text"], row["ja"], **{k: v for k, v in row.items()
                                                                      if k not in ("text", "ja")}))
        scores = self.scores()
        winners = self.winners()
        names = ", ".join(map(self.seat_name, winners))
        names_ja = "、".join(map(self.seat_name_ja, winners))
        shared = " (shared win)" if len(winners) > 1 else ""
        events.append(Event.of(
            "game_over", "Final scores: " + ", ".join(f"{self.seat_name(p)} {_number(s)}"
                                                       for p, s in enumerate(scores))
            + f". Winner: {names}{shared}.",
            "最終得点:" + "、".join(f"{self.seat_name_ja(p)} {_number(s)}点" for p, s in enumerate(scores))
            + f"。勝者:{names_ja}" + ("(同点で勝利を分け合う)" if shared else "") + "。",
            scores=scores, winners=winners, breakdown=breakdown, out=list(self.out)))
        return events

    # ----------------------------------------------------------------- scoring
    def pile_score(self, cards: list[str]) -> dict[str, Any]:
        """What one won trick is worth (``points``), with the reasons and a formula."""
        return self._score(cards, in_hand=False)

    def hand_score(self, cards: list[str]) -> dict[str, Any]:
        """The penalty for cards left in hand (``points`` ≤ 0), with the reasons and a formula."""
        return self._score(cards, in_hand=True)

    def _score(self, cards: list[str], in_hand: bool) -> dict[str, Any]:
        numbers = [card_value(c) for c in cards if not is_banner(c)]
        flags = sum(map(is_banner, cards))
        notes: list[tuple[str, str]] = []
        if not self.joker:
            # A won trick doubles per banner; a hand is doubled once if it holds its banner.
            multiplier = (2 if flags else 1) if in_hand else 2 ** flags
            spoiled, penalty, banners, jokers = False, 0, flags, 0
            if multiplier > 1:
                notes.append(("banner in hand", "手札に軍旗") if in_hand else
                             (f"{flags} banner{'s' if flags > 1 else ''}", f"軍旗{flags}枚"))
        else:  # jokers score 0 and never double
            multiplier, banners, jokers = 1, 0, flags
            spoiled = not in_hand and self.options["joker_spoils_trick"] and flags > 0
            penalty = JOKER_PENALTY * flags if self.options["joker_penalty"] else 0
            if spoiled:
                notes.append(("spoiled by a joker", "ジョーカー入りで無価値"))
            if penalty:
                notes.append((f"{flags} joker{'s' if flags > 1 else ''}", f"ジョーカー{flags}枚"))
        value = 0 if spoiled else sum(numbers) * multiplier
        points = (-value if in_hand else value) - penalty
        terms = _sum_text(numbers)
        core = f"({terms})" if len(numbers) > 1 and (multiplier > 1 or in_hand) else terms
        core = "0" if spoiled else core + (f"×{multiplier}" if multiplier > 1 else "")
        core = ("−" if in_hand else "") + core + (f" − {penalty}" if penalty else "")
        formula = _formula(core, points)
        return {"cards": list(cards), "numbers": numbers, "banners": banners, "jokers": jokers,
                "multiplier": multiplier, "spoiled": spoiled, "joker_penalty": penalty,
                "points": points,
                "formula": formula + (f" ({'; '.join(n for n, _ in notes)})" if notes else ""),
                "formula_ja": formula + (f"({'、'.join(j for _, j in notes)})" if notes else "")}

    def breakdown(self) -> list[dict[str, Any]]:
        """Per seat: every won trick's worth, the hand penalty and the total (scores explained).

        The hand penalty counts in ``total`` only once the game is over.
        """
        rows = []
        for seat in range(self.players):
            tricks = [dict(self.pile_score(p["cards"]), trick=p["trick"]) for p in self.piles[seat]]
            tricks_total = sum(t["points"] for t in tricks)
            hand = self.hand_score(self.hands[seat])
            total = tricks_total + (hand["points"] if self.over else 0)
            parts = "; ".join(f"trick {t['trick']}: {t['formula']}" for t in tricks) or "no tricks"
            parts_ja = "; ".join(f"トリック{t['trick']}: {t['formula_ja']}" for t in tricks) or "トリックなし"
            hand_text = f"hand {hand['formula']}" if hand["cards"] else "hand empty"
            hand_ja = f"手札 {hand['formula_ja']}" if hand["cards"] else "手札なし"
            if not self.over and hand["cards"]:
                # not in the total yet (a game the host ended stops here): no "−54" beside "total 4",
                # and no hand's cards named while they are still hidden
                hand_text, hand_ja = "hand not counted before the end", "手札は終了前なので数えない"
            rows.append({
                "seat": seat, "colour": self.colour(seat), "tricks": tricks,
                "tricks_total": tricks_total, "hand": hand, "total": total,
                "text": f"{self.seat_name(seat)}: {parts}; tricks {_number(tricks_total)}; {hand_text}; "
                        f"total {_number(total)}.",
                "ja": f"{self.seat_name_ja(seat)}: {parts_ja}; トリック計{_number(tricks_total)}点; {hand_ja}; "
                      f"合計{_number(total)}点。"})
        return rows

    def scores(self) -> list[int]:
        """Won tricks so far; at the end minus the hand penalties (the final totals)."""
        return [row["total"] for row in self.breakdown()]

    # ----------------------------------------------------------------- views
    def snapshot(self) -> dict[str, Any]:
        """The whole state, with the scores and their breakdown."""
        rows = self.breakdown()
        return {"hands": [list(h) for h in self.hands], "trick": [[s, c] for s, c in self.trick],
                "passed": sorted(self.passed), "leader": self.leader, "turn": self.turn,
                "tricks_played": self.tricks_played,
                "piles": [[{"trick": p["trick"], "cards": list(p["cards"])} for p in piles]
                          for piles in self.piles],
                "out": list(self.out), "over": self.over, "ended_by": self.ended_by,
                "scores": [row["total"] for row in rows],
                "breakdown": [{k: v for k, v in row.items() if k not in ("text", "ja")}
                              for row in rows]}

    def layout(self) -> dict[str, Any]:
        """The table for the camera: the trick in play order, won piles per seat, cards out."""
        return {"trick": [c for _, c in self.trick], "won": [len(p) for p in self.piles],
                "out": list(self.out)}

    def player_view(self, player: int) -> dict[str, Any]:
        """What ``player`` may know: own hand, others' hand sizes, the trick, piles (contents at end)."""
        if not isinstance(player, int) or not 0 <= player < self.players:
            raise GameError(f"there is no seat {player!r}: seats are 0–{self.players - 1}",
                            f"席{player!r}はありません。席は0〜{self.players - 1}です")
        view: dict[str, Any] = {
            "seat": player, "colour": self.colour(player), "hand": list(self.hands[player]),
            "hand_sizes": [len(h) for h in self.hands],
            "trick": [{"player": s, "card": c} for s, c in self.trick],
            "passed": sorted(self.passed), "leader": self.leader,
            "current_player": self.current_player(), "layout": self.layout(),
            "won": [len(p) for p in self.piles],
            "won_worth": [sum(self.pile_score(p["cards"])["points"] for p in piles)
                          for piles in self.piles],
            "out": list(self.out), "over": self.over,
            "legal_moves": [m.to_json() for m in self.legal_moves()
                            if m.player == player],
        }
        if self.over:
            view["scores"] = self.scores()
            view["winners"] = self.winners()
            view["breakdown"] = self.snapshot()["breakdown"]
        return view

    # ----------------------------------------------------------------- illegal moves
    def explain_illegal(self, move: Move) -> str:
        """Why ``move`` is not legal, citing the rule in a player's words (English and Japanese)."""
        seat = move.player
        if move.kind not in ("play", "pass"):
            return self.refusal(f"there is no move {move.kind!r}: play a card (play card=S-R8) or pass.",
                           f"{move.kind!r}という手はありません。カードを出す(play card=S-R8)かパスしてください。")
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            return self.refusal(f"there is no seat {seat!r}: seats are 0–{self.players - 1}.",
                           f"席{seat!r}はありません。席は0〜{self.players - 1}です。")
        if seat in self.passed and seat != self.turn:
            return self.refusal("you passed in this trick: you cannot play again until the next trick.",
                           "このトリックではパスしたので、次のトリックまでカードを出せません。")
        if seat != self.turn:
            return super().explain_illegal(move)
        if move.kind == "pass":
            if move.params:
                return self.refusal("a pass takes no card.", "パスにカードは要りません。")
            if not self.trick:
                return self.refusal("you lead this trick: play any card from your hand (the leader cannot pass).",
                               "あなたがこのトリックを開始するので、手札から任意のカードを1枚出してください"
                               "(最初のプレイヤーはパスできません)。")
            return self.refusal("you must play a card: only banners are out.",
                           "まだ旗印カードしか出されていないので、カードを1枚出さなければいけません。")
        return self._explain_play(seat, move)

    def _explain_play(self, seat: int, move: Move) -> Reason:
        card = move.get("card")
        if set(dict(move.params)) != {"card"} or not isinstance(card, str):
            return self.refusal('say which card to play, e.g. play card="S-R8".',
                           '出すカードを指定してください(例: play card="S-R8")。')
        try:
            found = catalogue.card(card)
        except KeyError:
            found = None
        if found is None or found.game != "spartacus":
            return self.refusal(f"{card!r} is not a Spartacus card (ids look like S-R8, S-RBAN).",
                           f"{card!r}はスパルタクスのカードではありません(S-R8、S-RBANのようなIDです)。")
        colour = catalogue.COLOURS[self.colour(seat)]
        if found.colour != self.colour(seat):
            return self.refusal(f"{found.name} is not yours: {self.seat_name(seat)} plays {colour.name}.",
                           f"{found.ja}はあなたのカードではありません。{self.seat_name_ja(seat)}のカードは{colour.ja}です。")
        if is_banner(card) and self.options["no_banners"]:
            return self.refusal("this game is played without banners (option no_banners).",
                           "このゲームは旗印カードを使わない変形ルールです(オプションno_banners)。")
        if card not in self.hands[seat]:
            return self.refusal(f"{found.name} is not in your hand: it has already been played.",
                           f"{found.ja}は手札にありません。もう出したカードです。")
        low = self.last_number()
        if self.joker and self.trick and is_banner(self.trick[-1][1]):
            return Reason(f"Spartacus (joker variant): {found.value} does not beat the joker played "
                          f"after {low} — play a number lower than {low}, a joker, or pass.",
                          f"{self.title_ja}(旗印カードをジョーカーとして使う): {found.value}は{low}の後に"
                          f"出されたジョーカーに勝てません。{low}より低い数字カードかジョーカーを出すか、パスしてください。")
        other = ("a joker", "ジョーカー") if self.joker else ("a banner", "旗印カード")
        return self.refusal(f"{found.value} is not lower than {low} — play a lower card, {other[0]}, or pass.",
                       f"{found.value}は{low}より低くありません。より低い数字カードか{other[1]}を出すか、"
                       f"パスしてください。")

