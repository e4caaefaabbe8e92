"""The strong player: information-set Monte Carlo search at the root.

Each playout deals the seat's unseen cards at random (``SeatView.sample``: a determinisation that
only uses what the seat knows), picks one of the seat's legal moves by UCB1 (the move whose average
result plus an exploration bonus is best), plays the game out with a fast policy for every seat
(the game's good rule) and chance at random, and credits the move with the result: the seat's
share of the win, plus a little for its score margin. After the budget of playouts it plays the
move tried most: it stops early once the rest of the budget could not change that move. The budget
counts playouts, never the clock, so a seed fixes every choice on any machine. Sampling a new deal for every
playout is what keeps the search honest about hidden cards: no playout knows where the other seat's
cards really are, and a move is judged over many deals (Cowling, Powley and Whitehouse 2012,
"Information Set Monte Carlo Tree Search"; here the tree is one level deep). Chains has its own
search (``companion.players.chains_fast``); solo Prussia uses the advice's odds.
"""
from __future__ import annotations

import math
import random
from typing import Any, Callable, Sequence

from companion.engine import CHANCE, TERMINAL, Game, Move

Policy = Callable[[Any, int, Sequence[Move], random.Random], Move]
FastPolicy = Callable[[Any, int, random.Random], Move]
Chance = Callable[[Any, random.Random], Move]
EXPLORATION = 0.7
"""UCB1's exploration constant for results between 0 and 1."""


def playout(game: Game, policy: Policy, rng: random.Random, limit: int = 10_000,
            fast: FastPolicy | None = None, chance: Chance | None = None) -> int:
    """Play ``game`` (a determinised copy) to its end: ``policy`` for seats (or ``fast``, the same
    rule without listing every legal move), chance at random; return the number of moves played."""
    for step in range(limit):
        turn = game.current_player()
        if turn == TERMINAL:
            return step
        if turn == CHANCE:
            move = chance(game, rng) if chance is not None else game.sample_chance(rng)
        elif fast is not None:
            move = fast(game, turn, rng)
        else:
            move = policy(game, turn, game.legal_moves(), rng)
        game._apply(move)   # the policy picks from the legal moves: no need to check it again
    raise RuntimeError(f"{game.title}: a playout did not end within {limit} moves")


def result(game: Game, seat: int, scale: float) -> float:
    """The seat's result of a finished game between 0 and 1: its share of the win (solo: its score
    over ``scale``), nudged by its score margin so that a lost game lost by less counts more."""
    scores = game.scores()
    if game.players == 1:
        return max(0.0, min(1.0, scores[0] / scale))
    winners = game.winners()
    share = 1 / len(winners) if seat in winners else 0.0
    margin = scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
    return 0.9 * share + 0.05 * (1 + math.tanh(margin / scale))


def decided(visits: Sequence[int], left: int) -> bool:
    """True when the move tried most leads every other by more than the playouts ``left``: no
    allocation of them can change which move is played (stopping is free of any loss of strength)."""
    first, second = sorted(visits, reverse=True)[:2]
    return first > second + left


def choose(view: Any, legal: Sequence[Move], rng: random.Random, policy: Policy,
           playouts: int, scale: float, fast: FastPolicy | None = None,
           chance: Chance | None = None) -> Move:
    """The move that did best over ``playouts`` determinised playouts (see the module's words)."""
    moves = list(legal)
    if len(moves) == 1:
        return moves[0]
    visits = [0] * len(moves)
    totals = [0.0] * len(moves)
    for n in range(playouts):
        if n < len(moves):
            i = n    # every move once first
        else:
            log_n = math.log(n)
            i = max(range(len(moves)), key=lambda j: totals[j] / visits[j]
                    + EXPLORATION * math.sqrt(log_n / visits[j]))
        game = view.sample(rng)
        game.quiet = True   # a throwaway copy: its events are never read
        game._apply(moves[i])
        playout(game, policy, rng, fast=fast, chance=chance)
        visits[i] += 1
        totals[i] += result(game, view.seat, scale)
        if n >= len(moves) and decided(visits, playouts - n - 1):
            break   # the rest of the budget could not change the move tried most
    return moves[max(range(len(moves)), key=lambda j: (visits[j], totals[j] / max(visits[j], 1)))]
