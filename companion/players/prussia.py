"""Prussia (輪る七年戦争): the beginner's and the good player's rules.

Prussia's side (the start player; the solo player) wants the centre's alliance strong, the other side
(two players) wants it weak. ``margin`` (the centre's alliance minus every other survivor, from
``companion.games.prussia_core``) measures it, as in the solo odds' greedy playouts.

* beginner: after a joker, throw away the card beside Prussia that hurts your side (a black one,
  hostility, for Prussia's side; a red one, an alliance, for the other side); otherwise the first
  slot offered, and on a turn with two players the first card in hand (a draw when the hand is
  empty). The older rule ("a Prussia edge when one is offered") never chose anything: the rules
  offer a Prussia edge only when no ring edge is free, or only Prussia edges (a K), so it took the
  first slot every time and won no more than random play (50.2 % of 1,000 two-player games).
* good: a choice that wins the game at once, never one that loses it at once (a defeat or, with
  two players, the end of the game without a victory); else the choice that leaves the margin
  best for its side right away (the solo odds' greedy rule), and of those the one that leaves the
  fewest hostile (black) cards beside Prussia for Prussia's side, the most for the other side; on a
  turn, the card from hand that does best, or a draw when no card helps. Without the first and the
  last part it did not see a war that Prussia loses (the table keeps the margin at a defeat) and
  won only 51.5 % of 1,000 games against the new beginner.
* strong, solo: the choice with the best chance of victory by ``companion advise``'s odds (the same
  playouts); two players: the shared information-set search (``companion.players.search``).
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from companion.engine import Move
from companion.games.prussia_core import CENTRE, greedy_choice, is_red, margin

SOLO_SAMPLES = 150
"""Playouts per choice for the strong solo player (``companion advise`` uses 500 for its odds)."""


def _side(game: Any, seat: int) -> int:
    """+1 for Prussia's side (wants a high margin), -1 for the other side."""
    return 1 if game.players == 1 or seat == game.options["start_player"] else -1


def beginner(game: Any, seat: int, legal: Sequence[Move], rng: random.Random) -> Move:
    """After a joker, discard the card beside Prussia that hurts your side; else the first slot
    offered; on a turn, the first card in hand."""
    if game.phase == "joker":
        mine = _side(game, seat) > 0      # a red card beside Prussia helps Prussia's side
        hurting = [m for m, key in zip(legal, game.options_now)
                   if CENTRE in key and is_red(game.table.cards[key]) != mine]
        return (hurting or legal)[0]
    if game.phase == "turn":
        plays = [m for m in legal if m.kind == "play"]
        return plays[0] if plays else legal[-1]
    return legal[0]


WON = 1000.0
"""What a game won at once is worth against the margin (a margin never comes near it)."""


def _outlook(table: Any) -> tuple[float, int]:
    """How things stand for Prussia's side: the result once the game is over (won: ``WON``, a
    defeat or a draw: ``-WON``), else the margin; then the hostile (black) cards beside Prussia,
    the threats of a war against it, negated (fewer is better for Prussia's side)."""
    if table.result is not None:
        return (WON if table.result in ("victory", "great_victory") else -WON), 0
    threats = sum(1 for key, card in table.cards.items() if key[0] == CENTRE and not is_red(card))
    return margin(table), -threats


def _after(game: Any, move: Move) -> tuple[float, int]:
    """The outlook right after ``move`` is resolved (a draw's card unknown: the outlook now)."""
    copy = game.clone()
    copy._apply(move)
    return _outlook(copy.table)


def good(game: Any, seat: int, legal: Sequence[Move], rng: random.Random,
         hidden: Sequence[str] = ()) -> Move:
    """The choice that wins at once, never one that loses at once; else the one that leaves the
    margin best for this seat's side right away, and of those the fewest hostile cards beside
    Prussia (Prussia's side; the most for the other side)."""
    side = _side(game, seat)
    # on a turn a play is weighed by the change it makes against a draw (its card unknown: no change)
    now = _outlook(game.table) if game.phase == "turn" else (0.0, 0)
    rated = []
    for m in legal:
        after = _after(game, m) if m.kind != "draw" else now
        rated.append(((side * (after[0] - now[0]), side * (after[1] - now[1])), m))
    top = max(r for r, _ in rated)
    return rng.choice([m for r, m in rated if r == top])


def strong(view: Any, legal: Sequence[Move], rng: random.Random) -> Move | None:
    """Solo: the choice with the best chance of victory by the advise odds; else None (search)."""
    game = view.game
    if game.players != 1 or game.phase not in ("place", "joker"):
        return None
    from companion.games.prussia import odds
    table = odds(game, SOLO_SAMPLES, rng.randrange(2 ** 31), "greedy")
    win = {c: p["victory"] + p["great_victory"] for c, p in table.items()}
    by_choice = {(m.get("slot") if m.kind == "place" else m.get("card")): m for m in legal}
    best = max(win, key=lambda c: (win[c], -table[c]["defeat"]))
    return by_choice[best]


playout = beginner
"""The strong player's playouts (two players): ``playout_move``, the good rule's placements."""
PLAYOUTS = 60
SCALE = 1.0


def playout_move(game: Any, seat: int, rng: random.Random) -> Move:
    """The good rule's placements (without copying the game); on a turn, the first card in hand."""
    if game.phase in ("place", "joker") and len(game.options_now) > 1:
        key = greedy_choice(game.table, game.phase, game.drawn, game.options_now, rng, _side(game, seat))
        if game.phase == "place":
            return Move.of(seat, "place", slot=game.slot_name(key))
        return Move.of(seat, "discard", card=game.table.cards[key])
    return beginner(game, seat, game.legal_moves(), rng)
