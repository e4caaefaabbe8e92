"""Chains for the strong player's playouts: the rules on plain numbers, and a search that knows the
good rule as its default.

The engine's Chains (``companion.games.chains``) names every card, writes an event in two languages
for every action and checks every move: right for a table, but a whole game costs ~10 ms, and the
strong player needs thousands of playouts a game. ``Fast`` keeps what the rules need as small
numbers (each deck as a shuffled list of values, the work area's top, the temporary slots' values,
each terminal's state) and applies the same rules (docs/chains.md; the engine's ``_after_action``:
dead work areas, players leaving, the turn passing on). ``tests/companion/test_players.py`` plays
whole games on both and checks they agree move by move.

``strong(view, legal, rng)``: the good rule's move, unless the search shows another one better.
Each round deals every deck in a random order (the only thing nobody knows in Chains: the order of
the cards still in the decks) and plays every candidate move on that same deal (common random
numbers: the moves are compared on the same cards, so a small difference shows in few rounds), the
rest of the game by the good rule for every seat. A move other than the good rule's is played only
when its results beat the good rule's by more than ``MARGIN`` standard errors of the paired
difference: without a clear sign the search keeps the good rule's choice. Every ``CHECK`` deals it
stops when no move has yet done better than the good rule's (most turns: the moves end alike).
"""
from __future__ import annotations

import math
import random
from typing import Any, Callable, Sequence

from companion.engine import Move
from companion.games.chains import PERFECT, POINTS, VALUES, tie_break_value, value_of

AVAILABLE, TAKEN, STOPPED = "a", "t", "s"
_STATE = {"available": AVAILABLE, "taken": TAKEN, "stopped": STOPPED}
ROUNDS = 40
"""Deals per decision (each plays every candidate move once)."""
CHECK = 10
"""Every this many deals the search stops if no move has done better than the good rule's so far."""
MARGIN = 1.0
"""How many standard errors a move must beat the good rule's move by to be played instead."""
SCALE = 8.0
"""A typical score margin (points), for the results (``companion.players.search.result``)."""
MANY_FROM = 5
"""From this many players the search deals ``MANY_ROUNDS`` times ``ROUNDS`` and never leaves the good
rule to draw onto a built chain: with four its departures of that kind lost (29 of 117, -0.006 of a
game's result each; docs/figures.md, issue 22 session 9), and with five the strong player's edge is
small enough that every departure must be sure (the decision's CPU p95 was ~40 ms of a 1 s allowance).
Four players and fewer keep the search their bench rows were measured with."""
MANY_ROUNDS = 2
"""How many times ``ROUNDS`` deals the search plays from ``MANY_FROM`` players."""


def reachable(temporary: Sequence[int | None], top: int | None,
              closer: Callable[[int | None], int | None]) -> list[tuple[int, list[int]]]:
    """Each close a work area topped by ``top`` reaches with the temporary cards' values: (terminal
    value, slots to move first, in order); ``closer(top)`` is the terminal that closes at ``top``."""
    slots = {v: i for i, v in enumerate(temporary) if v is not None}
    moved: list[int] = []
    closes = []
    while True:
        k = closer(top)
        if k is not None:
            closes.append((k, list(moved)))
        need = 10 if top is None else top - 1
        if need not in slots:
            return closes
        moved.append(slots.pop(need))
        top = need


def best_close(closes: Sequence[tuple[int, list[int]]], longer: bool = False) -> tuple[int, list[int]]:
    """The close worth most; of closes worth the same, the one using the fewest temporary cards, or
    (``longer``) the most: the longer run keeps the terminal the shorter run would take for a later,
    cheaper chain (the strong player's default with four or more players; docs/players.md)."""
    return max(closes, key=lambda c: (POINTS[c[0]], len(c[1]) if longer else -len(c[1])))


class Fast:
    """A Chains position on plain numbers (see the module's words); ``deck[p]`` is drawn from its end."""

    __slots__ = ("players", "deck", "top", "temp", "state", "out", "turn", "threshold",
                 "ten_not_first", "ruin", "over", "longer")

    def copy(self) -> "Fast":
        """An independent copy."""
        f = Fast.__new__(Fast)
        f.players, f.threshold, f.ten_not_first, f.ruin = (self.players, self.threshold,
                                                          self.ten_not_first, self.ruin)
        f.deck = [list(d) for d in self.deck]
        f.top = list(self.top)
        f.temp = [list(t) for t in self.temp]
        f.state = [list(s) for s in self.state]
        f.out, f.turn, f.over = set(self.out), self.turn, self.over
        f.longer = self.longer
        return f

    # ------------------------------------------------------------------ rules (docs/chains.md)
    def may_take_ten(self, p: int) -> bool:
        """False while "10 not first" forbids ``p`` their terminal 10."""
        return not self.ten_not_first or TAKEN in self.state[p][:9]

    def closer(self, p: int, top: int | None) -> int | None:
        """The terminal value that closes a work area topped by ``top``, if ``p`` may take it."""
        k = 10 if top is None else top - 1
        if k < 1 or self.state[p][k - 1] != AVAILABLE or (k == 10 and not self.may_take_ten(p)):
            return None
        return k

    def fits(self, p: int, v: int) -> bool:
        """Whether a card of value ``v`` may go onto ``p``'s work area."""
        top = self.top[p]
        return v == 10 if top is None else v == top - 1

    def scorable(self, p: int) -> bool:
        """Whether ``p`` has a terminal card left they could still score."""
        st = self.state[p]
        return AVAILABLE in st[:9] or (st[9] == AVAILABLE and self.may_take_ten(p))

    def can_act(self, p: int) -> bool:
        """Whether ``p`` can perform any action."""
        return bool(self.deck[p]) or any(v is not None and self.fits(p, v) for v in self.temp[p]) \
            or self.closer(p, self.top[p]) is not None

    def draw_to_work(self, p: int) -> None:
        """Action 1: the deck's top card onto the work area (a misfit ruins it); the turn goes on."""
        v = self.deck[p].pop()
        if self.fits(p, v):
            self.top[p] = v
        elif self.ruin:
            self.top[p] = None
        self._after(p, False)

    def draw_to_temp(self, p: int, slot: int) -> None:
        """Action 2: the deck's top card into a temporary slot; the turn ends."""
        self.temp[p][slot] = self.deck[p].pop()
        self._after(p, True)

    def move_to_work(self, p: int, slot: int) -> None:
        """Action 3: a fitting temporary card onto the work area; the turn goes on."""
        self.top[p] = self.temp[p][slot]
        self.temp[p][slot] = None
        self._after(p, False)

    def take(self, p: int, k: int) -> None:
        """Action 4: close the work area with terminal ``k`` (stop cards follow); the turn ends."""
        self.state[p][k - 1] = TAKEN
        self.top[p] = None
        if self.threshold is not None and sum(s[k - 1] == TAKEN for s in self.state) >= self.threshold:
            for s in self.state:
                if s[k - 1] == AVAILABLE:
                    s[k - 1] = STOPPED
        self._after(p, True, everyone=True)

    def _after(self, seat: int, turn_ends: bool, everyone: bool = False) -> None:
        """The automatic rules after an action (the engine's ``_after_action``). Only a close
        (``everyone``: it may stop other seats' terminals) changes what another seat can score, so
        after any other action only the acting seat is checked."""
        for p in range(self.players) if everyone else (seat,):
            if p in self.out:
                continue
            top, st = self.top[p], self.state[p]
            if top is not None and AVAILABLE not in st[:top - 1]:
                self.top[p] = None   # a dead work area (the 10 is never below a top)
            if not self.scorable(p):
                self.out.add(p)
        if turn_ends or seat in self.out:
            self.turn = (seat + 1) % self.players
        while len(self.out) < self.players:
            if self.turn not in self.out:
                if self.can_act(self.turn):
                    return
                self.out.add(self.turn)
            self.turn = (self.turn + 1) % self.players
        self.over = True

    # ------------------------------------------------------------------ results
    def scored(self, p: int) -> set[int]:
        """The terminal values ``p`` has scored."""
        return {v for v in VALUES if self.state[p][v - 1] == TAKEN}

    def scores(self) -> list[int]:
        """Each seat's points."""
        return [sum(POINTS[v] for v in self.scored(p)) for p in range(self.players)]

    def winners(self) -> list[int]:
        """Highest score; a tie to the larger smallest unscored terminal; else shared (the engine's)."""
        keys = [(s, tie_break_value(self.scored(p))) for p, s in enumerate(self.scores())]
        return [p for p, k in enumerate(keys) if k == max(keys)]

    # ------------------------------------------------------------------ the good rule
    def closes(self, p: int) -> list[tuple[int, list[int]]]:
        """Each close the temporary cards can reach: (terminal value, slots to move first, in order)
        (``companion.players.chains.run_closes``)."""
        return reachable(self.temp[p], self.top[p], lambda top: self.closer(p, top))

    def good(self, p: int) -> tuple[str, int]:
        """The good rule's action for ``p`` as (kind, slot or terminal value)
        (``companion.players.chains.good``; the longer run's close for the seats in ``longer``).
        The walk along the run is ``closes`` and ``best_close`` written out: the playouts spend
        most of their time here."""
        top, temp, st = self.top[p], self.temp[p], self.state[p]
        sign = 1 if p in self.longer else -1
        ten = not self.ten_not_first or TAKEN in st[:9]
        best_key, best_k, best_first = None, 0, None
        t, moved, first = top, 0, None
        while True:
            k = 10 if t is None else t - 1   # the terminal that closes at t, and the card that extends
            if k >= 1 and st[k - 1] == AVAILABLE and (k != 10 or ten):
                key = (POINTS[k], sign * moved)
                if best_key is None or key > best_key:
                    best_key, best_k, best_first = key, k, first
            if k not in temp:
                break
            slot = len(temp) - 1 - temp[::-1].index(k)   # the last slot holding it, as ``reachable``
            if first is None:
                first = slot
            moved, t = moved + 1, k
        if best_key is not None:
            return ("take_terminal", best_k) if best_first is None else ("temporary_to_work", best_first)
        need = 10 if top is None else top - 1
        if need in temp:
            return "temporary_to_work", temp.index(need)
        if self.deck[p]:
            if top is None or None not in temp:
                return "deck_to_work", 0
            return "deck_to_temporary", temp.index(None)
        return "none", 0   # the engine lets the player go before this can happen

    def act(self, p: int, kind: str, arg: int) -> None:
        """Apply an action given as (kind, slot or terminal value)."""
        if kind == "deck_to_work":
            self.draw_to_work(p)
        elif kind == "deck_to_temporary":
            self.draw_to_temp(p, arg)
        elif kind == "temporary_to_work":
            self.move_to_work(p, arg)
        elif kind == "take_terminal":
            self.take(p, arg)
        else:
            raise AssertionError(f"no action {kind}")

    def play_out(self) -> None:
        """Play to the end, every seat by the good rule."""
        while not self.over:
            p = self.turn
            self.act(p, *self.good(p))


def fast(game: Any, rng: random.Random) -> Fast:
    """The engine's position ``game`` (between actions) as a ``Fast``, each deck in a random order."""
    f = Fast.__new__(Fast)
    f.players, f.threshold, f.ten_not_first = game.players, game.threshold, game.ten_not_first
    f.ruin = game.options["misfit"] == "ruin"
    f.deck = []
    for d in game.deck:
        values = sorted(value_of(c) for c in d)
        rng.shuffle(values)
        f.deck.append(values)
    f.top = [game.top(p) for p in range(game.players)]
    f.temp = [[None if c is None else value_of(c) for c in t] for t in game.temporary]
    f.state = [[_STATE[s] for s in row] for row in game.state]
    f.out, f.turn, f.over = set(game.out), game.turn, game.over
    f.longer = frozenset()
    return f


def action(move: Move) -> tuple[str, int]:
    """An engine move of a seat as (kind, slot or terminal value)."""
    if move.kind == "take_terminal":
        return move.kind, value_of(move.card)
    return move.kind, move.get("slot") or 0


def candidates(game: Any, legal: Sequence[Move]) -> list[Move]:
    """The legal moves that differ: one empty temporary slot stands for all (which one is free
    makes no difference), and one slot for each value of fitting temporary card."""
    seen, out = set(), []
    for m in legal:
        key = (m.kind, value_of(game.temporary[m.player][m.slot])) if m.kind == "temporary_to_work" \
            else (m.kind,) if m.kind == "deck_to_temporary" else (m.kind, m.get("card"))
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


def searched(game: Any, seat: int, legal: Sequence[Move], default: Move) -> list[Move]:
    """The moves the search weighs against the good rule's ``default``: the ``candidates`` and the
    default; from ``MANY_FROM`` players no drawing onto a built chain unless the good rule does."""
    moves = candidates(game, legal)
    if default not in moves:
        moves.append(default)
    if game.players >= MANY_FROM and game.top(seat) is not None and default.kind != "deck_to_work":
        moves = [m for m in moves if m.kind != "deck_to_work"]
    return moves


def strong(view: Any, legal: Sequence[Move], rng: random.Random, default: Move,
           longer: bool = False) -> Move:
    """The good rule's move ``default`` unless another candidate beats it clearly over ``ROUNDS``
    shared deals (the module's words; from ``MANY_FROM`` players more deals, and no drawing onto a
    built chain unless the good rule does); ``longer``: the seat plays on by ``best_close(longer=True)``
    in the playouts, as it will at the table."""
    from companion.players.search import result
    game, seat = view.game, view.seat
    moves = searched(game, seat, legal, default)
    many = game.players >= MANY_FROM
    if len(moves) == 1:
        return moves[0]
    base = moves.index(default)
    rounds = ROUNDS * MANY_ROUNDS if many else ROUNDS
    scale = SCALE if game.players > 1 else PERFECT   # solo: the score itself, out of a perfect 23
    diffs: list[list[float]] = [[] for _ in moves]
    for n in range(rounds):
        if n and n % CHECK == 0 and all(sum(d) <= 0 for d in diffs):
            break   # nothing has done better than the good rule's move so far: keep it
        deal = fast(game, rng)
        if longer:
            deal.longer = frozenset((seat,))
        outcome = []
        for m in moves:
            f = deal.copy()
            f.act(seat, *action(m))
            f.play_out()
            outcome.append(result(f, seat, scale))
        for i, r in enumerate(outcome):
            diffs[i].append(r - outcome[base])
    best, best_mean = default, 0.0
    for i, d in enumerate(diffs):
        if i == base:
            continue
        mean = sum(d) / len(d)
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / max(1, len(d) - 1))
        if mean > MARGIN * sd / math.sqrt(len(d)) and mean > best_mean:
            best, best_mean = moves[i], mean
    return best
