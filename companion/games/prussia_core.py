"""The table of 輪る七年戦争 as plain data, and the rules that change it (shared by engine and odds).

``Table`` is deliberately small and fast to copy: the engine (``prussia.Game``) wraps it with moves,
events and phases, and the Monte Carlo odds play thousands of games on copies of it.

Nodes are nations by rank: 1 … 12 for the clock nations (A … Q), ``CENTRE`` (13, the K) for
Prussia or the German Empire. A clock nation keeps its rank for life; its *position* on the clock is
its rank until it moves into a vacated position 3, 6, 9 or 12. Slot keys inside the table:

* ring edge ``(a, b)``: between clock nations ``a`` and ``b``, ``b`` the next surviving rank
  clockwise after ``a`` (with two nations left, ``(a, b)`` and ``(b, a)`` are both ring edges);
* Prussia edge ``(CENTRE, p)``: between the centre and the nation standing at position ``p``.

Explanations are lists of *steps* (dicts); ``render`` turns them into English and Japanese text.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from companion.catalogue import SUIT_SYMBOLS, default_nations
from companion.engine import GameError

CENTRE = 13
SPECIAL = (3, 6, 9, 12)
REFILL = {3: (2, 4, 1, 5), 6: (5, 7, 4, 8), 9: (8, 10, 7, 11), 12: (11, 1, 10, 2)}
"""Who moves into a vacated position 3, 6, 9 or 12, in order of priority (ranks)."""
RESULTS = ("defeat", "draw", "victory", "great_victory")
RESULT_NAMES = {"defeat": ("defeat", "敗北"), "draw": ("draw (historical)", "引分"),
                "victory": ("victory", "勝利"), "great_victory": ("great victory", "大勝利")}
CLOCK_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q")
ERA_NAMES = ("I", "II", "III", "IV")
SUIT_ORDER = {"S": 4, "H": 3, "D": 2, "C": 1}     # ♠ > ♥ > ♦ > ♣
SUIT_JA = {"S": "スペード", "H": "ハート", "D": "ダイヤ", "C": "クラブ"}

Key = tuple[int, int]


# ---------------------------------------------------------------------------- the cards
def _card_info() -> dict[str, tuple[int, int, int, bool, str]]:
    """Card id → (rank number 1..13, rank strength, suit strength, red?, label)."""
    info = {}
    for suit in "SHDC":
        for n, rank in enumerate(CLOCK_RANKS + ("K",), 1):
            strength = 14 if n == 1 else n      # A > K > Q > … > 2
            info[f"P-{suit}{rank}"] = (n, strength, SUIT_ORDER[suit], suit in "HD",
                                       f"{SUIT_SYMBOLS[suit]}{rank}")
    return info


CARDS = _card_info()
JOKERS = ("P-JK1", "P-JK2")


def deck(jokers: int) -> list[str]:
    """The playing cards of one game: 52 cards and 1 or 2 jokers."""
    return list(CARDS) + list(JOKERS[:jokers])


def label(card: str) -> str:
    """A card as players name it: ♥6, ♠K, joker (anything else as given)."""
    return CARDS[card][4] if card in CARDS else "joker" if card in JOKERS else str(card)


def label_ja(card: str) -> str:
    """A card as Japanese players name it: ♥6, ♠K, ジョーカー."""
    return "ジョーカー" if card in JOKERS else label(card)


def is_red(card: str) -> bool:
    """Red relation cards (♥ ♦) are alliances, black ones (♠ ♣) hostility."""
    return CARDS[card][3]


# ---------------------------------------------------------------------------- the nations
@dataclass(frozen=True)
class Nations:
    """The nation table in use: names and per-era strengths by node (1..12 clock, 13 centre)."""

    names: tuple[str, ...]
    ja: tuple[str, ...]
    strength: tuple[tuple[float, ...], ...]
    centre: str
    source: str

    def power(self, node: int, era: int) -> float:
        """A nation's strength in era index 0..3."""
        return self.strength[node][era]


def _fail(source: str, problem: str, problem_ja: str) -> GameError:
    return GameError(f"nations file {source}: {problem}. It must look like companion/data/nations.json "
                     f"(12 clock nations A–Q and the centre nation, each with 4 era strengths).",
                     f"国ファイル{source}: {problem_ja}。companion/data/nations.json と同じ形(時計の12か国A〜Qと"
                     f"中央の国、それぞれ時代I〜IVの4つの戦力)にしてください。")


def load_nations(path: Optional[str], centre: str) -> Nations:
    """Read and check a nation table (``None``: the shipped one); problems raise ``GameError``."""
    if path is None:
        data, source = default_nations(), "(shipped)"
    else:
        source = str(path)
        try:
            text = Path(path).read_text("utf-8")
        except OSError as err:
            raise _fail(source, f"cannot be read ({err.strerror or err})",
                        f"読めません({err.strerror or err})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise _fail(source, f"is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})",
                        f"正しいJSONではありません({err.lineno}行{err.colno}列: {err.msg})") from None
    entries = data.get("nations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise _fail(source, 'needs a list "nations"', 'リスト "nations" が必要です')
    names = [""] * 14
    ja = [""] * 14
    strength: list[tuple[float, ...]] = [()] * 14
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _fail(source, f"entry {i + 1} is not an object", f"{i + 1}番目の項目がオブジェクトではありません")
        rank, key = entry.get("rank"), entry.get("key")
        name = entry.get("name")
        where = f"entry {i + 1} ({name or rank!r})"
        where_ja = f"{i + 1}番目の項目({name or rank!r})"
        if rank == "K":
            if key not in ("prussia", "german_empire"):
                raise _fail(source, f'{where}: a K nation needs "key" prussia or german_empire',
                            f'{where_ja}: Kの国には "key" に prussia か german_empire が必要です')
            if key != centre:
                continue
            node = CENTRE
        elif rank in CLOCK_RANKS:
            node = CLOCK_RANKS.index(rank) + 1
            if "position" in entry and entry["position"] != node:
                raise _fail(source, f"{where}: rank {rank} stands at position {node}, not {entry['position']!r}",
                            f"{where_ja}: {rank}の国の位置は{entry['position']!r}ではなく{node}です")
        else:
            raise _fail(source, f"{where}: rank must be one of A, 2–10, J, Q, K, got {rank!r}",
                        f"{where_ja}: rank は A、2〜10、J、Q、K のどれかです({rank!r}が指定されました)")
        if not isinstance(name, str) or not name:
            raise _fail(source, f'{where}: needs a "name"', f'{where_ja}: "name" が必要です')
        if strength[node]:
            raise _fail(source, f"{where}: rank {rank} appears twice", f"{where_ja}: {rank}が2回出てきます")
        values = entry.get("strength")
        if not isinstance(values, list) or len(values) != 4:
            got = len(values) if isinstance(values, list) else repr(values)
            raise _fail(source, f"{name}: needs 4 strengths (eras I–IV), got {got}",
                        f"{name}: 戦力が4つ(時代I〜IV)必要です({got}が指定されました)")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or v != v:
                raise _fail(source, f"{name}: strength {v!r} is not a number ≥ 0",
                            f"{name}: 戦力{v!r}は0以上の数ではありません")
        names[node], ja[node] = name, entry.get("ja") or name
        strength[node] = tuple(values)
    missing = [CLOCK_RANKS[n - 1] for n in range(1, 13) if not strength[n]]
    if missing:
        raise _fail(source, f"missing nation(s) of rank {', '.join(missing)}",
                    f"{'、'.join(missing)}の国がありません")
    if not strength[CENTRE]:
        raise _fail(source, f"missing the centre nation {centre!r} (rank K)",
                    f"中央の国{centre!r}(K)がありません")
    return Nations(tuple(names), tuple(ja), tuple(strength), centre, source)


# ---------------------------------------------------------------------------- ignition
def choose_ignition(cands: list[tuple[str, Key]], drawn: str) -> tuple[str, Key, str, list[str]]:
    """Pick the ignition card among ``(card, slot)`` by rule 1 (rank), 2 (suit), 3 (strongest).

    Returns the card, its slot, the rule used (``rank``, ``suit``, ``strongest``) and the cards it
    beat under that rule (for the explanation).
    """
    d_rank, _, d_suit_order, _, _ = CARDS[drawn]
    same = [c for c in cands if CARDS[c[0]][0] == d_rank]
    if same:
        rule, pool = "rank", same
        order = lambda c: CARDS[c[0]][2]                      # noqa: E731 — strongest suit
    else:
        same = [c for c in cands if CARDS[c[0]][2] == d_suit_order]
        if same:
            rule, pool = "suit", same
            order = lambda c: CARDS[c[0]][1]                  # noqa: E731 — strongest rank
        else:
            rule, pool = "strongest", cands
            order = lambda c: (CARDS[c[0]][1], CARDS[c[0]][2])  # noqa: E731
    best = max(pool, key=order)
    beaten = [c for c, _ in pool if c != best[0]]
    if rule == "strongest":   # only the ties on rank were decided by suit
        beaten = [c for c in beaten if CARDS[c][1] == CARDS[best[0]][1]]
    return best[0], best[1], rule, beaten


# ---------------------------------------------------------------------------- the table
class Table:
    """Nations, relation cards, era and cards of one game; the rules of a turn as methods."""

    __slots__ = ("nations", "alliance", "victory_strength", "alive", "pos", "special", "cards",
                 "era", "kings", "pile", "discard", "result")

    def __init__(self, nations: Nations, jokers: int = 2, alliance: str = "direct",
                 victory_strength: str = "alliance") -> None:
        self.nations = nations
        self.alliance = alliance
        self.victory_strength = victory_strength
        self.alive: list[int] = list(range(1, 13))     # surviving clock nations, in rank order
        self.pos: dict[int, int] = {r: r for r in range(1, 13)}
        self.special: dict[int, Optional[int]] = {p: p for p in SPECIAL}
        self.cards: dict[Key, str] = {}
        self.era = 0
        self.kings = 0
        self.pile: list[str] = deck(jokers)
        self.discard: list[str] = []
        self.result: Optional[str] = None

    def copy(self) -> "Table":
        """An independent copy (the nation table is shared: it never changes)."""
        t = Table.__new__(Table)
        t.nations, t.alliance, t.victory_strength = self.nations, self.alliance, self.victory_strength
        t.alive, t.pos, t.special = list(self.alive), dict(self.pos), dict(self.special)
        t.cards, t.pile, t.discard = dict(self.cards), list(self.pile), list(self.discard)
        t.era, t.kings, t.result = self.era, self.kings, self.result
        return t

    # ------------------------------------------------------------ geometry
    def ring_slots(self, n: int) -> list[Key]:
        """The ring edges of clock nation ``n`` (anticlockwise one first)."""
        alive = self.alive
        if len(alive) < 2:
            return []
        i = alive.index(n)
        return [(alive[i - 1], n), (n, alive[(i + 1) % len(alive)])]

    def special_of(self, n: int) -> Optional[int]:
        """The position 3/6/9/12 where clock nation ``n`` stands, if any."""
        p = self.pos[n]
        return p if p in self.special and self.special[p] == n else None

    def slots(self, n: int) -> list[Key]:
        """Every slot of a nation (ring edges, then its Prussia edge; all Prussia edges for the centre)."""
        if n == CENTRE:
            return [(CENTRE, p) for p in SPECIAL if self.special[p] is not None]
        out = self.ring_slots(n)
        sp = self.special_of(n)
        if sp is not None:
            out.append((CENTRE, sp))
        return out

    def all_slots(self) -> list[Key]:
        """Every slot on the table: ring edges clockwise, then Prussia edges."""
        alive = self.alive
        ring = [(a, alive[(i + 1) % len(alive)]) for i, a in enumerate(alive)] if len(alive) > 1 else []
        return ring + self.slots(CENTRE)

    def other(self, key: Key, n: int) -> int:
        """The nation on the other side of slot ``key`` from ``n``."""
        a, b = key
        if a == CENTRE:
            return self.special[b] if n == CENTRE else CENTRE    # type: ignore[return-value]
        return b if n == a else a

    def ends(self, key: Key) -> tuple[int, int]:
        """The two nations a slot joins."""
        return key if key[0] != CENTRE else (self.special[key[1]], CENTRE)   # type: ignore[return-value]

    def relation_cards(self, n: int) -> list[tuple[str, Key]]:
        """The relation cards in a nation's slots, with their slots."""
        cards = self.cards
        return [(cards[k], k) for k in self.slots(n) if k in cards]

    def allowed(self, n: int) -> Optional[list[Key]]:
        """Empty slots the event nation's card may go to; ``[]`` all full; ``None`` no slot at all."""
        cards = self.cards
        if n == CENTRE:
            slots = self.slots(CENTRE)
            return [k for k in slots if k not in cards] if slots else None
        ring = self.ring_slots(n)
        empty = [k for k in ring if k not in cards]
        if empty:
            return empty
        sp = self.special_of(n)
        if sp is None:
            return [] if ring else None
        return [] if (CENTRE, sp) in cards else [(CENTRE, sp)]

    def power(self, n: int) -> float:
        """A nation's strength in the current era."""
        return self.nations.strength[n][self.era]

    def allies(self, n: int, enemy: Optional[int]) -> list[int]:
        """Nations joined to ``n`` by red relation cards (directly, or through chains; never ``enemy``)."""
        cards = self.cards
        found: list[int] = []
        frontier = [n]
        seen = {n} if enemy is None else {n, enemy}
        while frontier:
            node = frontier.pop()
            for k in self.slots(node):
                c = cards.get(k)
                if c is not None and CARDS[c][3]:
                    o = self.other(k, node)
                    if o not in seen:
                        seen.add(o)
                        found.append(o)
                        if self.alliance == "chain":
                            frontier.append(o)
        return found

    # ------------------------------------------------------------ a turn
    def begin(self, card: str, from_pile: bool, steps: Optional[list]) -> tuple[str, list]:
        """Resolve a card just turned over, up to the next decision.

        Returns ``("place", slots)``, ``("joker", slots holding cards)``, ``("again", [])`` (draw
        again) or ``("done", [])``. The caller has already taken the card from pile or hand.
        """
        if card in JOKERS:
            self.discard.append(card)
            if steps is not None:
                steps.append({"step": "joker", "card": card, "from_pile": from_pile})
            return ("joker", sorted(self.cards)) if self.cards else ("done", [])
        n = CARDS[card][0]
        if n != CENTRE and n not in self.pos:
            self.discard.append(card)
            if steps is not None:
                steps.append({"step": "gone", "card": card, "nation": n, "from_pile": from_pile})
            return ("again", []) if from_pile else ("done", [])
        if steps is not None:
            steps.append({"step": "draw", "card": card, "nation": n, "from_pile": from_pile})
        opts = self.allowed(n)
        if opts is None:
            self.discard.append(card)
            if steps is not None:
                steps.append({"step": "no_slot", "card": card, "nation": n})
            return "done", []
        if opts:
            return "place", opts
        if steps is not None:
            steps.append({"step": "full", "nation": n})
        self.war_check(n, card, steps)
        return "done", []

    def place(self, card: str, key: Key, steps: Optional[list]) -> None:
        """Put the drawn card in an empty slot of its event nation."""
        self.cards[key] = card
        if steps is not None:
            steps.append({"step": "place", "card": card, "slot": list(key), "ends": list(self.ends(key))})

    def joker_discard(self, key: Key, steps: Optional[list]) -> None:
        """The joker's effect: discard the relation card in ``key``."""
        card = self.cards.pop(key)
        self.discard.append(card)
        if steps is not None:
            steps.append({"step": "joker_discard", "card": card, "ends": list(self.ends(key))})

    def exchange(self, key: Key, drawn: str, steps: Optional[list]) -> None:
        """The drawn card takes the place of the first ignition card, which is discarded."""
        old = self.cards[key]
        self.cards[key] = drawn
        self.discard.append(old)
        if steps is not None:
            steps.append({"step": "exchange", "card": drawn, "old": old, "ends": list(self.ends(key))})

    def war_check(self, n: int, drawn: str, steps: Optional[list]) -> None:
        """Step 3: pick ignition cards, follow red ones, and resolve a war or the exchange."""
        used: set[str] = set()
        first: Optional[Key] = None
        node = n
        while True:
            cands = [(c, k) for c, k in self.relation_cards(node) if c not in used]
            if not cands:
                if steps is not None:
                    steps.append({"step": "dead_end", "nation": node})
                self.exchange(first, drawn, steps)     # type: ignore[arg-type]
                return
            card, key, rule, beaten = choose_ignition(cands, drawn)
            used.add(card)
            if first is None:
                first = key
            other = self.other(key, node)
            if steps is not None:
                steps.append({"step": "ignition", "card": card, "rule": rule, "beaten": beaten,
                              "nation": node, "other": other})
            if not CARDS[card][3]:
                self.war(node, other, drawn, first, steps)
                return
            if steps is not None:
                steps.append({"step": "follow", "nation": other})
            node = other

    def side(self, n: int, enemy: Optional[int]) -> tuple[float, list[int]]:
        """A war side's strength and its allies."""
        allies = self.allies(n, enemy)
        strength = self.nations.strength
        return strength[n][self.era] + sum(strength[a][self.era] for a in allies), allies

    def war(self, a: int, b: int, drawn: str, first: Key, steps: Optional[list]) -> None:
        """Step 3c: compare the two sides; the weaker war nation surrenders, a tie is an exchange."""
        sa, allies_a = self.side(a, b)
        sb, allies_b = self.side(b, a)
        if steps is not None:
            steps.append({"step": "war", "a": a, "b": b, "era": self.era,
                          "sides": [[a, self.power(a), [[x, self.power(x)] for x in allies_a], sa],
                                    [b, self.power(b), [[x, self.power(x)] for x in allies_b], sb]]})
        if sa == sb:
            if steps is not None:
                steps.append({"step": "tie"})
            self.exchange(first, drawn, steps)
            return
        self.surrender(b if sa > sb else a, steps)
        self.discard.append(drawn)
        if steps is not None:
            steps.append({"step": "discard_drawn", "card": drawn})

    def surrender(self, x: int, steps: Optional[list]) -> None:
        """A nation leaves the table with its relation cards; a vacated 3/6/9/12 is refilled."""
        if x == CENTRE:
            self.result = "defeat"
            if steps is not None:
                steps.append({"step": "surrender", "nation": x, "cards": [], "moves": None})
            return
        gone = [k for k in self.slots(x) if k in self.cards]
        removed = [self.cards.pop(k) for k in gone]
        self.discard.extend(removed)
        sp = self.special_of(x)
        self.alive.remove(x)
        del self.pos[x]
        moved = None
        if sp is not None:
            self.special[sp] = None
            for r in REFILL[sp]:
                if r in self.pos and self.special_of(r) is None:
                    self.special[sp] = r
                    self.pos[r] = sp
                    moved = [r, sp]
                    break
        if steps is not None:
            steps.append({"step": "surrender", "nation": x, "cards": removed, "moves": moved,
                          "position": sp})
        if not self.alive:
            self.result = "great_victory"
            if steps is not None:
                steps.append({"step": "great_victory"})

    def end_turn(self, card: str, steps: Optional[list]) -> None:
        """Step 4: a K advances the era; the 4th K ends the game and scores it."""
        if self.result is not None or CARDS.get(card, (0,))[0] != CENTRE:
            return
        self.kings += 1
        if self.kings < 4:
            self.era = self.kings
            if steps is not None:
                steps.append({"step": "era", "era": self.era, "kings": self.kings})
            return
        self.score(steps)

    def score(self, steps: Optional[list]) -> None:
        """The end after the 4th K: victory if the centre's side is at least as strong as the rest."""
        if self.victory_strength == "alliance":
            mine, allies = self.side(CENTRE, None)
        else:
            mine, allies = self.power(CENTRE), []
        others = [n for n in self.alive if n not in allies]
        theirs = sum(self.power(n) for n in others)
        self.result = "victory" if mine >= theirs else "draw"
        if steps is not None:
            steps.append({"step": "score", "centre": [self.power(CENTRE), [[x, self.power(x)] for x in allies],
                                                      mine],
                          "others": [[x, self.power(x)] for x in others], "total": theirs,
                          "result": self.result})


POLICIES = ("random", "greedy")
"""How playouts make later decisions: uniformly at random, or greedily (see ``greedy_choice``)."""


def margin(t: Table) -> float:
    """The centre's red alliance minus the other survivors, in the current era (the greedy policy's
    yardstick; an alliance also defends the centre in wars, so it is used with either
    ``victory_strength``)."""
    mine, allies = t.side(CENTRE, None)
    return mine - sum(t.power(n) for n in t.alive if n not in allies)


def greedy_choice(t: Table, kind: str, card: str, opts: list[Key], rng: random.Random,
                  sign: int = 1) -> Key:
    """The choice that leaves the best ``margin`` right away (ties broken at random); ``sign`` -1
    for the other side of a two-player game, who wants the margin low."""
    best: list[Key] = []
    top = None
    for key in opts:
        if kind == "place":
            t.cards[key] = card
            value = sign * margin(t)
            del t.cards[key]
        else:
            old = t.cards.pop(key)
            value = sign * margin(t)
            t.cards[key] = old
        if top is None or value > top:
            top, best = value, [key]
        elif value == top:
            best.append(key)
    return best[0] if len(best) == 1 else rng.choice(best)


def random_playout(t: Table, rng: random.Random, policy: str = "random") -> str:
    """Play ``t`` (at the start of a turn) to the end with ``policy``'s choices; return the result."""
    pile = t.pile
    rng.shuffle(pile)
    greedy = policy == "greedy"
    while t.result is None:
        if not pile:      # cannot happen in solo (a K is always left); guard against endless play
            raise RuntimeError("the pile ran out before the 4th K")
        card = pile.pop()
        kind, opts = t.begin(card, True, None)
        if kind == "again":
            continue
        if kind in ("place", "joker"):
            key = greedy_choice(t, kind, card, opts, rng) if greedy and len(opts) > 1 else rng.choice(opts)
            if kind == "place":
                t.place(card, key, None)
            else:
                t.joker_discard(key, None)
        t.end_turn(card, None)
    return t.result
