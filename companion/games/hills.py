"""The Seven Hills of Rome (ローマ七丘, Reiner Knizia): rules engine for 2 players.

Rules: ``docs/hills.md`` (every ruling there is the default; every
option is an ``Option``). Seat 0 plays red (``H-R1`` … ``H-R9``, ``H-RBAN``), seat 1 blue.

Moves
-----
* ``Move.of(seat, "place", hill=H, card=ID)``: the seat lays a card by hill ``H`` (1–7). ``card`` is a
  card id from ``companion.catalogue`` (``H-R6``, ``H-BBAN``).
* With option ``hidden_values`` the engine runs the game as the camera sees it: a card that goes
  face down (any card laid at a hill that is not face up yet) is placed with ``card=None``; its value
  is learned when the hill is turned face up, by a chance move
  ``Move.of(CHANCE, "reveal", hill=H, red=[ids], blue=[ids])`` naming every card at that hill per
  colour in cascade order (first placed first). A reveal is due when the second player arrives at a
  hill and, at the end of the game, for every hill still face down (lowest hill first). Banner and
  same-value effects are applied at that moment exactly as if the values had been known all along:
  known and hidden values share one code path (``_reveal``), only the moment the ids arrive differs.
  Cards laid at a face-up hill are seen, so they are always placed with their id. A player's hand is
  then known only as a set: their cards not yet seen (``unseen``); a placed unknown card is one of them.

Layout (the camera contract; vision and the table session produce and compare exactly this)
--------------------------------------------------------------------------------------------
``layout()`` returns::

    {"hills": [{"hill": 1, "revealed": False, "red": ["B-HILLR", "B-HILLR"], "blue": []},
               {"hill": 2, "revealed": True, "red": ["H-R6"], "blue": ["H-B3", "H-BBAN"]},
               ... seven entries, hills 1..7 in order ...],
     "out": ["H-RBAN", "H-R8"]}

``red``/``blue`` list the cards lying at the hill on that colour's side in cascade order (first
placed first); a face-down card appears as its back ``"B-HILLR"``/``"B-HILLB"``
(``catalogue.back_of``). ``revealed`` is true once the hill is face up (always under ``open_play``).
``out`` lists the cards removed from the game (same-value ban) or cancelled by a banner, in the order
they left; their ids are always known because every such card was seen face up first.

Events
------
``hill_revealed``, ``cards_cancelled`` (banner), ``card_removed`` (same-value ban), ``hill_awarded``
(one per hill at the end, with the sums or compared cards) and ``game_over`` (the per-hill table),
each with English ``text`` and Japanese ``ja``.
"""
from __future__ import annotations

import itertools
import random
from typing import Any

from companion import catalogue, engine
from companion.engine import CHANCE, TERMINAL, Event, IllegalMove, Move, Option, Reason, seat_words

HILLS = tuple(range(1, 8))
COLOURS = ("R", "B")
COLOUR_WORDS = (("red", "赤"), ("blue", "青"))
SIDES = ("red", "blue")
REVEAL_ENUMERATION_LIMIT = 5040
"""At most this many reveal outcomes are listed by ``legal_moves()`` (more: sampled, checked)."""


def deck(seat: int, banners: bool) -> list[str]:
    """The cards a seat starts with, in catalogue order (1..9, then the banner)."""
    ids = [f"H-{COLOURS[seat]}{v}" for v in range(1, 10)]
    return ids + [f"H-{COLOURS[seat]}BAN"] if banners else ids


_SEAT_OF = {card: seat for seat in (0, 1) for card in deck(seat, True)}


def seat_of(card_id: str) -> int | None:
    """The seat whose colour a hills card id belongs to, or None for anything else."""
    return _SEAT_OF.get(card_id) if isinstance(card_id, str) else None


def is_banner(card_id: str | None) -> bool:
    """True for a banner card (value 0, the barricade)."""
    return card_id is not None and card_id.endswith("BAN")


def value(card_id: str) -> int:
    """The printed value of a red or blue card (banner 0)."""
    return catalogue.card(card_id).value or 0


def name(card_id: str) -> tuple[str, str]:
    """A card's short English and Japanese name: ("red 6", "赤6"), ("blue banner", "青の軍旗")."""
    en, ja = COLOUR_WORDS[seat_of(card_id)]
    if is_banner(card_id):
        return f"{en} banner", f"{ja}の軍旗"
    return f"{en} {value(card_id)}", f"{ja}{value(card_id)}"


def short(card_id: str) -> tuple[str, str]:
    """A card's face without its colour: ("6", "6") or ("banner", "軍旗")."""
    return ("banner", "軍旗") if is_banner(card_id) else (str(value(card_id)),) * 2


def names(card_ids: list[str]) -> tuple[str, str]:
    """Several cards' names joined for a sentence."""
    pairs = [name(c) for c in card_ids]
    return " and ".join(p[0] for p in pairs), "と".join(p[1] for p in pairs)


def shown(sides: list[list[str]], by_seat: bool = False) -> tuple[str, str]:
    """A hill's cards per colour as a reveal shows them: ("red 7, banner; blue 5", "赤 7・軍旗、青 5");
    ``by_seat``: per player instead, as the log says it ("P1 7, banner; P2 5", named by the table)."""
    heads = [who(s) if by_seat else (SIDES[s], COLOUR_WORDS[s][1]) for s in (0, 1)]
    en = "; ".join(f"{heads[s][0]} {', '.join(short(c)[0] for c in sides[s])}" for s in (0, 1) if sides[s])
    ja = "、".join(f"{heads[s][1]} {'・'.join(short(c)[1] for c in sides[s])}" for s in (0, 1) if sides[s])
    return en, ja


def who(seat: int) -> tuple[str, str]:
    """A seat in an event's words, "P1" / "プレイヤー1": the table names it ("Ann"), so the log
    speaks of players, not colours."""
    return f"P{seat + 1}", f"プレイヤー{seat + 1}"


def _reason(en: str, ja: str) -> Reason:
    """A refusal headed by the game's short name in both languages."""
    return Game.refusal(en, ja, "Seven Hills")


def _ja(card_id: str) -> str:
    """A card's Japanese name in a refusal (the id as given when it is no card of this game)."""
    return name(card_id)[1] if seat_of(card_id) is not None else repr(card_id)


def rule_section(reason: str) -> str:
    """The spec section a refusal cites, from the words of the reason."""
    for words, section in (("(banner)", "Variant: banner as barricade"),
                           ("(same value banned)", "Variant: same value banned"),
                           ("turn over", "Hidden cards and revealing"), ("reveal", "Hidden cards and revealing"),
                           ("face down", "Hidden cards and revealing"), ("face-down", "Hidden cards and revealing"),
                           ("face up", "Hidden cards and revealing"),
                           ("game is over", "End and scoring")):
        if words in reason:
            return section
    return "A turn"


class Game(engine.Game):
    """One game of the Seven Hills of Rome: red (seat 0) against blue (seat 1)."""

    id = "hills"
    title = "Seven Hills of Rome"
    title_ja = "ローマ七丘"
    min_players = 2
    max_players = 2
    rules_file = "seven-hills.md"
    options_spec = (
        Option("start_player", 0, "the seat that starts (0 red, 1 blue); equal hills go to this player",
               choices=(0, 1)),
        Option("same_value_ban", False, "variant: a player may not add a value the opponent already "
               "has at that hill (found at the reveal on face-down hills)"),
        Option("banners", False, "variant: each player also gets a banner (value 0) that cancels the "
               "next card placed at its hill"),
        Option("highest_card", False, "variant: the single highest card wins a hill, not the sum"),
        Option("open_play", False, "variant: hands lie open and every card is placed face up"),
        Option("hidden_values", False, "camera mode: face-down cards are placed with card=None and "
               "learned by a 'reveal' move when their hill turns face up"),
    )

    # ----------------------------------------------------------------- state
    def _setup(self) -> None:
        banners = self.options["banners"]
        self.unseen: list[list[str]] = [deck(s, banners) for s in (0, 1)]
        """Per seat: its cards not yet seen (in hand or face down with unknown value)."""
        self.hand_count = [len(self.unseen[0]), len(self.unseen[1])]
        self.hills: list[dict[str, Any]] = [
            {"revealed": self.options["open_play"], "barricade": False, "cards": []} for _ in HILLS]
        """Per hill: face up yet, whether its last card is a face-up banner still waiting to cancel
        the next card, and the cards there in placement order as {"seat", "card"} (card None: unknown)."""
        self.out: list[str] = []
        self.turn = self.options["start_player"]
        self.last_hill: list[int | None] = [None, None]
        self.bound: list[list[int]] = [[], []]
        """Per seat: the hills banner cancellations bar on that seat's next turn (two are possible:
        its own card cancelled at one hill, then its banner's follower at another)."""
        self.pending: int | None = None
        """The hill whose face-down cards must be named by a reveal move (hidden values)."""
        self.result: list[dict[str, Any]] | None = None

    def current_player(self) -> int:
        """The seat to move, CHANCE while a reveal is due, TERMINAL once scored."""
        if self.result is not None:
            return TERMINAL
        if self.pending is not None:
            return CHANCE
        return self.turn

    def hand(self, seat: int) -> list[str] | None:
        """The seat's hand, or None while it holds unknown face-down cards (hidden values)."""
        unknown = sum(1 for hill in self.hills for c in hill["cards"] if c["seat"] == seat and c["card"] is None)
        return list(self.unseen[seat]) if unknown == 0 else None

    def public_unseen(self, seat: int) -> list[str]:
        """The seat's cards nobody has seen face up: its hand and its face-down cards, as one set."""
        seen = set(self.out) | {c["card"] for x in self.hills if x["revealed"] for c in x["cards"]}
        return [c for c in deck(seat, self.options["banners"]) if c not in seen]

    def _numbers(self, hill: int, seat: int) -> list[int]:
        """The values of the seat's number cards lying at the hill (banners excluded)."""
        return [value(c["card"]) for c in self.hills[hill - 1]["cards"]
                if c["seat"] == seat and c["card"] is not None and not is_banner(c["card"])]

    # ----------------------------------------------------------------- legality
    def _place_reason(self, move: Move) -> Reason | None:
        """Why a placement is illegal now, in a player's words; None when it is legal."""
        p, o = move.player, 1 - move.player
        hill_no, card_id = move.get("hill"), move.get("card")
        extra = {k for k, _ in move.params} - {"hill", "card"}
        if extra:
            listed = ", ".join(sorted(extra))
            return _reason(f"a placement names only hill and card, not {listed}.",
                           f"カードを置く手に指定するのは hill と card だけです({listed} は不要です)。")
        if not isinstance(hill_no, int) or isinstance(hill_no, bool) or hill_no not in HILLS:
            return _reason(f"choose a hill from 1 to 7 (got {hill_no!r}).",
                           f"丘は1〜7から選んでください({hill_no!r}が指定されました)。")
        if self.hand_count[p] == 0:
            return _reason("you have no cards left in hand.", "手札はもう残っていません。")
        hill = self.hills[hill_no - 1]
        face_down = not hill["revealed"]
        colour, colour_ja = COLOUR_WORDS[p]
        if card_id is None:
            if not self.options["hidden_values"]:
                return _reason("say which card you place (card=ID); the engine tracks known values.",
                               "置くカードを指定してください(card=ID)。このゲームでは出したカードの数字を記録します。")
            if not face_down:
                return _reason(f"hill {hill_no} is face up, so the card placed there is seen: give its id.",
                               f"丘{hill_no}は公開済みなので、そこに置くカードは見えています。カードのIDを指定してください。")
        else:
            if not isinstance(card_id, str) or seat_of(card_id) is None or (
                    is_banner(card_id) and not self.options["banners"]):
                return _reason(f"{card_id!r} is not a card of this game (you play {colour}).",
                               f"{card_id!r}はこのゲームのカードではありません(あなたは{colour_ja}です)。")
            if seat_of(card_id) != p:
                return _reason(f"{card_id} is not one of your cards (you play {colour}).",
                               f"{name(card_id)[1]}はあなたのカードではありません(あなたは{colour_ja}です)。")
            if card_id not in self.unseen[p]:
                return _reason(f"{card_id} is no longer in your hand (it has been played).",
                               f"{name(card_id)[1]}はもう手札にありません(すでに出しました)。")
            if face_down and self.options["hidden_values"]:
                return _reason(f"hill {hill_no} is face down, so the camera cannot see the card: place it with "
                               f"card=None; its value is learned when the hill is revealed.",
                               f"丘{hill_no}のカードは裏向きなので、カメラには見えません。card=None で置いてください。"
                               f"数字は丘のカードが公開されたときに分かります。")
        barred = self._hill_bar(p, hill_no)
        if barred:
            return barred
        if (self.options["same_value_ban"] and not face_down and card_id is not None
                and not is_banner(card_id) and value(card_id) in self._numbers(hill_no, o)):
            v = value(card_id)
            return Reason(f"Seven Hills (same value banned): you may not add a {v} at hill {hill_no} — your "
                          f"opponent already has a {v} there.",
                          f"{Game.title_ja}(変形ルール: 同じ値の禁止): 丘{hill_no}には相手がすでに{v}を出しているので、"
                          f"{v}は出せません。")
        return None

    def _hill_bar(self, seat: int, hill_no: int) -> Reason | None:
        """Why the seat may not use this hill at all on its turn (last-hill and banner rules)."""
        if self.last_hill[1 - seat] == hill_no:
            return _reason(f"you may not place on hill {hill_no} — your opponent just placed there.",
                           f"相手が直前にカードを置いた丘{hill_no}には、カードを置くことはできません。")
        if hill_no in self.bound[seat]:
            return Reason(f"Seven Hills (banner): you may not place on hill {hill_no} — your card there was "
                          f"cancelled by a banner, so your next card must go to a different hill.",
                          f"{Game.title_ja}(旗印カード): 丘{hill_no}には置けません。そこに出したカードが旗印カードで"
                          f"無効化されたので、次のカードは違う丘に出さなければいけません。")
        return None

    def _reveal_reason(self, move: Move) -> Reason | None:
        """Why a reveal move does not fit the pending hill; None when it does."""
        if move.get("hill") != self.pending:
            return _reason(f"the cards at hill {self.pending} are the ones to turn over now.",
                           f"今公開するのは丘{self.pending}のカードです。")
        extra = {k for k, _ in move.params} - {"hill", "red", "blue"}
        if extra:
            listed = ", ".join(sorted(extra))
            return _reason(f"a reveal names only hill, red and blue, not {listed}.",
                           f"公開の手に指定するのは hill、red、blue だけです({listed} は不要です)。")
        cards = self.hills[self.pending - 1]["cards"]
        for seat, side in enumerate(SIDES):
            side_ja = COLOUR_WORDS[seat][1]
            given = move.get(side, ())
            if not isinstance(given, (tuple, list)) or not all(isinstance(c, str) for c in given):
                return _reason(f"{side} must list card ids, got {given!r}.",
                               f"{side_ja}({side})にはカードIDを並べてください({given!r}が指定されました)。")
            there = [c["card"] for c in cards if c["seat"] == seat]
            if len(given) != len(there):
                return _reason(f"hill {self.pending} has {len(there)} {side} card(s); the reveal names "
                               f"{len(given)}.", f"丘{self.pending}には{side_ja}のカードが{len(there)}枚ありますが、"
                               f"公開で指定されたのは{len(given)}枚です。")
            if len(set(given)) != len(given):
                return _reason(f"the reveal names a {side} card twice: {list(given)}.",
                               f"公開で{side_ja}の同じカードが2回指定されています: {list(given)}。")
            for known, card_id in zip(there, given):
                if known is not None and known != card_id:
                    return _reason(f"the {side} card placed as {known} cannot turn up as {card_id}.",
                                   f"{_ja(known)}として置かれた{side_ja}のカードが{_ja(card_id)}になることはありません。")
                if known is None and card_id not in self.unseen[seat]:
                    return _reason(f"{card_id} cannot be a face-down {side} card here: it is not one of {side}'s "
                                   f"unseen cards.", f"{_ja(card_id)}はここに裏向きで置かれた{side_ja}のカードでは"
                                   f"ありえません。{side_ja}のまだ見えていないカードではないからです。")
        return None

    def illegal_reason(self, move: Move) -> Reason | None:
        """Why ``move`` is illegal now in a player's words (English and Japanese), or None when legal."""
        turn = self.current_player()
        if turn == TERMINAL:
            return _reason("the game is over.", "ゲームは終了しています。")
        if turn == CHANCE:
            if move.player != CHANCE or move.kind != "reveal":
                return _reason(f"first turn over the cards at hill {self.pending} (a reveal naming them).",
                               f"まず丘{self.pending}のカードを公開してください(カードを指定する公開の手)。")
            return self._reveal_reason(move)
        if move.player != turn:
            colour, colour_ja = COLOUR_WORDS[turn]
            who, who_ja = seat_words(move.player)
            return _reason(f"it is {colour}'s turn (player {turn + 1}), not {who}'s.",
                           f"{who_ja}ではなく、{colour_ja}(プレイヤー{turn + 1})の手番です。")
        if move.kind != "place":
            return _reason(f"on your turn you place one card at a hill ('place'), not {move.kind!r}.",
                           f"手番ではカードを1枚丘に置きます('place')。{move.kind!r}はできません。")
        return self._place_reason(move)

    def check(self, move: Move) -> None:
        """Raise ``IllegalMove`` with the rule's reason and its section unless ``move`` is legal now."""
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMove(reason, f"{self.rules_file} § {rule_section(reason)}")

    def explain_illegal(self, move: Move) -> str:
        """Why ``move`` is not legal now, in a player's words."""
        return self.illegal_reason(move) or Reason(f"{move} is legal now.", f"{move} は今指せる手です。")

    def forbidden_hills(self, seat: int) -> dict[int, str]:
        """Hills the seat may not use on its turn at all, with the reason."""
        return {h: why for h in HILLS if (why := self._hill_bar(seat, h))}

    def legal_moves(self) -> list[Move]:
        """Every legal move now; at a reveal every naming of the cards (empty if too many)."""
        turn = self.current_player()
        if turn == TERMINAL:
            return []
        if turn == CHANCE:
            return self._reveal_outcomes()
        candidates = [Move.of(turn, "place", hill=h, card=c)
                      for h in HILLS for c in [*self.unseen[turn], None]]
        return [m for m in candidates if self._place_reason(m) is None]

    def _unknown_slots(self) -> list[tuple[int, list[int]]]:
        """Per seat at the pending hill: positions (in that seat's cascade) of unknown cards."""
        cards = self.hills[self.pending - 1]["cards"]
        slots = []
        for seat in (0, 1):
            mine = [c["card"] for c in cards if c["seat"] == seat]
            slots.append((seat, [i for i, c in enumerate(mine) if c is None]))
        return slots

    def _reveal_move(self, picks: dict[int, tuple[str, ...]]) -> Move:
        cards = self.hills[self.pending - 1]["cards"]
        lists = {}
        for seat, side in enumerate(SIDES):
            fill = iter(picks[seat])
            lists[side] = [c["card"] if c["card"] is not None else next(fill)
                           for c in cards if c["seat"] == seat]
        return Move.of(CHANCE, "reveal", hill=self.pending, **lists)

    def _reveal_outcomes(self) -> list[Move]:
        slots = self._unknown_slots()
        count = 1
        for seat, positions in slots:
            n, k = len(self.unseen[seat]), len(positions)
            for i in range(k):
                count *= n - i
        if count > REVEAL_ENUMERATION_LIMIT:
            return []
        options = [list(itertools.permutations(self.unseen[seat], len(positions)))
                   for seat, positions in slots]
        return [self._reveal_move({0: r, 1: b}) for r, b in itertools.product(*options)]

    def sample_chance(self, rng: random.Random) -> Move:
        """A random naming of the pending hill's face-down cards, drawn from the unseen cards."""
        picks = {seat: tuple(rng.sample(self.unseen[seat], len(positions)))
                 for seat, positions in self._unknown_slots()}
        return self._reveal_move(picks)

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        """The reveal outcomes with equal probabilities (empty when too many to list)."""
        moves = self._reveal_outcomes()
        return [(m, 1 / len(moves)) for m in moves]

    # ----------------------------------------------------------------- moves in words
    def seat_label(self, seat: int, names: Any = None) -> Reason:
        """A seat by its colour: "Ann (red)", or "Red" when the table gave no names."""
        en, ja = COLOUR_WORDS[seat]
        if names and 0 <= seat < len(names) and names[seat]:
            return engine.with_aside(str(names[seat]), en, ja)
        return Reason(en.capitalize(), ja)

    def _move_words(self, move: Move, short: bool) -> Reason | None:
        """A placement by card and hill (a button: just the hill, its group names the card); a
        reveal as the hill turning face up with its cards, in the event's words."""
        if move.kind == "reveal":
            en, ja = shown([list(move.get(side, ())) for side in SIDES])
            if short:
                return Reason(en, ja)
            return Reason(f"hill {move.hill} turned face up: {en}", f"丘{move.hill}が公開された: {ja}")
        if move.kind != "place":
            return None
        hill = move.hill
        if short:
            return Reason(f"hill {hill}", f"丘{hill}")
        card = move.get("card")
        if card is None:
            return Reason(f"place a face-down card at hill {hill}", f"丘{hill}に伏せカードを置く")
        en, ja = name(card)
        if self.hills[hill - 1]["revealed"]:
            return Reason(f"place {en} at hill {hill}", f"{ja}を丘{hill}に置く")
        return Reason(f"place {en} face down at hill {hill}", f"{ja}を丘{hill}に伏せて置く")

    # ----------------------------------------------------------------- playing
    def _apply(self, move: Move) -> list[Event]:
        if move.kind == "reveal":
            hill = self.hills[move.hill - 1]
            for seat, side in enumerate(SIDES):
                named = iter(move.get(side, ()))
                for c in hill["cards"]:
                    if c["seat"] == seat:
                        card_id = next(named)
                        if c["card"] is None:
                            c["card"] = card_id
                            self.unseen[seat].remove(card_id)
            self.pending = None
            return self._reveal(move.hill) + self._continue()
        p, hill_no, card_id = move.player, move.hill, move.get("card")
        hill = self.hills[hill_no - 1]
        self.bound[p] = []            # a banner's bar lasts one turn: this one
        if card_id is not None:
            self.unseen[p].remove(card_id)
        self.hand_count[p] -= 1
        self.last_hill[p] = hill_no
        self.turn = 1 - p
        hill["cards"].append({"seat": p, "card": card_id})
        events: list[Event] = [] if self.quiet else [self._placed_event(p, hill_no, card_id, hill["revealed"])]
        if hill["revealed"]:
            if hill["barricade"]:
                events += self._cancel(hill_no, [len(hill["cards"]) - 2, len(hill["cards"]) - 1], p)
            elif is_banner(card_id):
                hill["barricade"] = True
        elif len({c["seat"] for c in hill["cards"]}) == 2:
            if any(c["card"] is None for c in hill["cards"]):
                self.pending = hill_no
                return events
            events += self._reveal(hill_no)
        return events + self._continue()

    def _placed_event(self, seat: int, hill_no: int, card_id: str | None, face_up: bool) -> Event:
        """The log's line for a placement, by player: the card only when it lies face up (a face-down
        card is named by nobody, its owner included, until the hill turns face up)."""
        en, ja = who(seat)
        if face_up and card_id is not None:
            card_en, card_ja = name(card_id)
            return Event.of("card_placed", f"{en} places {card_en} at hill {hill_no}.",
                            f"{ja}が{card_ja}を丘{hill_no}に置きました。", player=seat, hill=hill_no, card=card_id)
        return Event.of("card_placed", f"{en} places a card face down at hill {hill_no}.",
                        f"{ja}が丘{hill_no}にカードを伏せて置きました。", player=seat, hill=hill_no)

    def _cancel(self, hill_no: int, positions: list[int], bound: int) -> list[Event]:
        """A banner cancels a card: both leave the game; ``bound`` may not return there next turn."""
        hill = self.hills[hill_no - 1]
        gone = [hill["cards"][i]["card"] for i in positions]
        hill["cards"] = [c for i, c in enumerate(hill["cards"]) if i not in positions]
        hill["barricade"] = False
        self.out += gone
        if hill_no not in self.bound[bound]:
            self.bound[bound].append(hill_no)
        en, ja = names(gone)
        who_en, who_ja = who(bound)
        text = f"Banner at hill {hill_no}: {en} leave the game."
        text_ja = f"丘{hill_no}の軍旗: {ja}がゲームから除外されます。"
        if self.hand_count[bound]:
            text += f" {who_en} may not place at hill {hill_no} on their next turn."
            text_ja += f"{who_ja}は次の手番で丘{hill_no}に置けません。"
        return [Event.of("cards_cancelled", text, text_ja, hill=hill_no, cards=gone,
                                bound=bound)]

    def _reveal(self, hill_no: int) -> list[Event]:
        """Turn a hill face up and apply face-down banners and the same-value ban (spec rulings)."""
        hill = self.hills[hill_no - 1]
        cards = hill["cards"]
        hill["revealed"] = True
        final = len({c["seat"] for c in cards}) == 1
        events: list[Event] = []
        if not self.quiet:
            sides = [[c["card"] for c in cards if c["seat"] == s] for s in (0, 1)]
            shown_en, shown_ja = shown(sides, by_seat=True)
            if final:
                text, text_ja = f"Final reveal at hill {hill_no}: {shown_en}.", f"丘{hill_no}の最終公開: {shown_ja}。"
            else:
                text, text_ja = f"Hill {hill_no} revealed: {shown_en}.", f"丘{hill_no}が公開されました: {shown_ja}。"
            events.append(Event.of("hill_revealed", text, text_ja, hill=hill_no, red=sides[0],
                                   blue=sides[1], final=final))
        revealing = None if final else cards[-1]
        owner = cards[0]["seat"]
        hidden = cards if final else cards[:-1]
        flag = next((i for i, c in enumerate(hidden) if is_banner(c["card"])), None)
        if flag is not None and flag < len(hidden) - 1:
            # the card directly after the owner's banner is cancelled; the revealing card stays
            events += self._cancel(hill_no, [flag, flag + 1], owner)
            if revealing is not None and is_banner(revealing["card"]):
                hill["barricade"] = True
        elif flag is not None and revealing is not None:
            # the banner was its owner's last card there: it cancels the revealing card
            events += self._cancel(hill_no, [flag, len(cards) - 1], revealing["seat"])
        elif revealing is not None and is_banner(revealing["card"]):
            hill["barricade"] = True   # RULING: a revealing banner lies face up and waits
        if (revealing is not None and self.options["same_value_ban"]
                and any(c is revealing for c in hill["cards"])
                and not is_banner(revealing["card"])
                and value(revealing["card"]) in self._numbers(hill_no, owner)):
            hill["cards"].remove(revealing)
            self.out.append(revealing["card"])
            en, ja = name(revealing["card"])
            v = value(revealing["card"])
            events.append(Event.of(
                "card_removed",
                f"Same value banned at hill {hill_no}: {en} is removed from the game "
                f"({who(owner)[0]} already has a {v} there).",
                f"丘{hill_no}で同じ値は禁止: {ja}はゲームから除外されます({who(owner)[1]}が既に{v}を置いています)。",
                hill=hill_no, card=revealing["card"], seat=revealing["seat"]))
        return events

    def _continue(self) -> list[Event]:
        """After a move: once both hands are empty, reveal the face-down hills, then score."""
        if self.pending is not None or sum(self.hand_count):
            return []
        events = []
        for hill_no in HILLS:
            hill = self.hills[hill_no - 1]
            if hill["revealed"] or not hill["cards"]:
                continue
            if any(c["card"] is None for c in hill["cards"]):
                self.pending = hill_no
                return events
            events += self._reveal(hill_no)
        return events + self._score()

    # ----------------------------------------------------------------- scoring
    def hill_result(self, hill_no: int) -> dict[str, Any]:
        """Who takes the hill now, and why: sums or compared cards, tie to the start player."""
        red, blue = self._numbers(hill_no, 0), self._numbers(hill_no, 1)
        start = self.options["start_player"]
        out: dict[str, Any] = {"hill": hill_no, "red": red, "blue": blue,
                               "red_sum": sum(red), "blue_sum": sum(blue)}
        if not red and not blue:
            return {**out, "winner": None, "reason": "empty"}
        if not red or not blue:
            return {**out, "winner": 0 if red else 1, "reason": "alone"}
        if self.options["highest_card"]:
            a, b = sorted(red, reverse=True), sorted(blue, reverse=True)
            reason = "highest"
        else:
            a, b = sum(red), sum(blue)
            reason = "sum"
        if a == b:
            return {**out, "winner": start, "reason": "tie"}
        return {**out, "winner": 0 if a > b else 1, "reason": reason}

    def _award_event(self, r: dict[str, Any]) -> Event:
        h, w = r["hill"], r["winner"]
        if w is None:
            return Event.of("hill_awarded", f"Hill {h}: nobody is there; nobody takes it.",
                                   f"丘{h}: 誰もいないので獲得者なし。", **r)
        en, ja = who(w)
        (red, red_ja), (blue, blue_ja) = who(0), who(1)
        if r["reason"] == "alone":
            return Event.of("hill_awarded", f"Hill {h} goes to {en} (only {en} is there).",
                                   f"丘{h}は{ja}が獲得({ja}のみ)。", **r)
        if self.options["highest_card"]:
            cmp_en = (f"highest cards {red} {', '.join(map(str, sorted(r['red'], reverse=True)))} "
                      f"against {blue} {', '.join(map(str, sorted(r['blue'], reverse=True)))}")
            cmp_ja = (f"最強カード {red_ja} {'・'.join(map(str, sorted(r['red'], reverse=True)))} 対 "
                      f"{blue_ja} {'・'.join(map(str, sorted(r['blue'], reverse=True)))}")
        else:
            cmp_en = (f"{red} {'+'.join(map(str, r['red']))} = {r['red_sum']}, "
                      f"{blue} {'+'.join(map(str, r['blue']))} = {r['blue_sum']}")
            cmp_ja = (f"{red_ja} {'+'.join(map(str, r['red']))}={r['red_sum']}、"
                      f"{blue_ja} {'+'.join(map(str, r['blue']))}={r['blue_sum']}")
        if r["reason"] == "tie":
            cmp_en += f"; equal, so the start player ({en}) takes it"
            cmp_ja += f"、同点なので先手番({ja})"
        return Event.of("hill_awarded", f"Hill {h} goes to {en}: {cmp_en}.",
                               f"丘{h}は{ja}が獲得: {cmp_ja}。", **r)

    def _score(self) -> list[Event]:
        self.result = [self.hill_result(h) for h in HILLS]
        events = [self._award_event(r) for r in self.result]
        scores = self.scores()
        if scores[0] == scores[1]:
            verdict, verdict_ja = "A draw.", "引き分け。"
        else:
            w = 0 if scores[0] > scores[1] else 1
            verdict, verdict_ja = f"{who(w)[0]} wins.", f"{who(w)[1]}の勝ち。"
        (red, red_ja), (blue, blue_ja) = who(0), who(1)
        events.append(Event.of(
            "game_over", f"Last card played — scoring: {red} {scores[0]}, {blue} {scores[1]}. {verdict}",
            f"最後のカードが出されました — 決算: {red_ja} {scores[0]}点、{blue_ja} {scores[1]}点。{verdict_ja}",
            table=self.result, scores=scores, winners=self.winners()))
        return events

    def scores(self) -> list[int]:
        """Each seat's yellow hill cards: 0 until the game is scored at the end."""
        if self.result is None:
            return [0, 0]
        return [sum(r["hill"] for r in self.result if r["winner"] == s) for s in (0, 1)]

    # ----------------------------------------------------------------- views
    def snapshot(self) -> dict[str, Any]:
        """The whole state, hidden values included, as JSON-able data."""
        return {"turn": self.turn, "unseen": [list(u) for u in self.unseen],
                "hand_count": list(self.hand_count),
                "hills": [{"hill": h, "revealed": x["revealed"], "barricade": x["barricade"],
                           "cards": [dict(c) for c in x["cards"]]} for h, x in zip(HILLS, self.hills)],
                "out": list(self.out), "last_hill": list(self.last_hill), "bound": [list(b) for b in self.bound],
                "pending": self.pending, "result": self.result}

    def layout(self) -> dict[str, Any]:
        """The table as the camera sees it (shape in the module docstring)."""
        hills = []
        for h, x in zip(HILLS, self.hills):
            entry: dict[str, Any] = {"hill": h, "revealed": x["revealed"]}
            for seat, side in enumerate(SIDES):
                entry[side] = [c["card"] if x["revealed"] else f"B-HILL{COLOURS[seat]}"
                               for c in x["cards"] if c["seat"] == seat]
            hills.append(entry)
        return {"hills": hills, "out": list(self.out)}

    def player_view(self, player: int) -> dict[str, Any]:
        """What seat ``player`` may know: the layout, their own hand, everyone's unseen cards."""
        open_play = self.options["open_play"]
        view: dict[str, Any] = {
            "layout": self.layout(), "scores": self.scores(), "current_player": self.current_player(),
            "seat": player, "colour": SIDES[player], "hand_count": list(self.hand_count),
            "hand": self.hand(player),
            "unseen": {side: self.public_unseen(s) for s, side in enumerate(SIDES)},
            "start_player": self.options["start_player"],
            "forbidden": ({str(h): why for h, why in self.forbidden_hills(player).items()}
                          if self.current_player() == player else {}),
            "leading": {str(h): self.hill_result(h)["winner"] for h in HILLS
                        if self.hills[h - 1]["revealed"]},
        }
        if open_play:
            view["hands"] = {side: self.hand(s) for s, side in enumerate(SIDES)}
        if self.result is not None:
            view["result"] = self.result
        return view
