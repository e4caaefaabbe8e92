"""Reconciling: which legal moves explain what the camera sees now?

An observation is a dict shaped like ``game.layout()``, possibly partial: keys it leaves out are not
compared, and the string ``"?"`` anywhere stands for "could not see". ``explain(game, obs)`` searches
sequences of legal moves from the current state (chance outcomes included: the card turned over is
read from the observation) and returns those whose resulting layout matches.

* Shortest first: a sequence is only reported if no shorter one matches, so an invisible move (a
  Spartacus pass, a Wheel "keep") is inferred only when a later visible change needs it.
* Depth: each game allows a few *player* moves between two stable frames (``ADAPTERS``); chance moves
  are free because they are read off the table. Two passes: the first only tries moves whose named
  cards are visible in the observation (fast), the second, if the first found nothing, tries all.
* A ruling the table must carry out by hand (remove a cancelled card, pile a won trick) is part of
  the engine's move, but the table shows it a moment later. A *pending* match accepts a layout where
  the parts a ruling changes still look as before the move; the session keeps the ruling prompt open.
* Nothing matches: ``interpret`` reads the nearest physical move off the difference (the card that
  moved) and the engine's ``IllegalMove`` says why it is not allowed.
* A deal read off the table (Wheel's circle, Chains' terminal rows) needs every card of it; an
  observation that misses one (not read yet, a hand over it) is *held* by the session and passed
  back as ``held``: the deal is completed from it and the newer observation together, so a later
  state that implies the deal (the deal, then a take) applies both.
* ``Adapter.align`` brings an observation into the game's own numbering first (Wheel: the camera
  counts the circle from 12 o'clock, the host page from the card after the pawn: matched by rotation).
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from companion import catalogue
from companion.games import wheel
from companion.engine import CHANCE, Game, IllegalMove, Move, Reason, freeze, thaw

UNSEEN = "?"
"""In an observation: the camera could not see this value."""

_MISSING = object()


# --------------------------------------------------------------------------- comparing layouts
def compare(obs: Any, after: Any, before: Any = _MISSING, ruling_cards: frozenset[str] = frozenset()) -> str | None:
    """``"exact"`` if ``obs`` matches ``after`` where observed; ``"pending"`` if every difference
    still shows ``before`` (or only ruling cards differ); otherwise None."""
    if obs == UNSEEN:
        return "exact"
    if isinstance(obs, dict) and isinstance(after, dict):
        worst = "exact"
        for key, value in obs.items():
            sub_before = before.get(key, _MISSING) if isinstance(before, dict) else _MISSING
            got = compare(value, after.get(key, _MISSING), sub_before, ruling_cards)
            if got is None:
                return None
            if got == "pending":
                worst = "pending"
        return worst
    if (isinstance(obs, list) and isinstance(after, list) and len(obs) == len(after)
            and any(isinstance(o, (dict, list)) for o in obs)):
        before_list = before if isinstance(before, list) and len(before) == len(obs) else None
        worst = "exact"
        for i, (o, a) in enumerate(zip(obs, after)):
            got = compare(o, a, before_list[i] if before_list else _MISSING, ruling_cards)
            if got is None:
                return None
            if got == "pending":
                worst = "pending"
        return worst
    if _leaf_equal(obs, after):
        return "exact"
    if before is _MISSING:
        return None
    if _leaf_equal(obs, before):
        return "pending"
    if ruling_cards and isinstance(obs, str) and obs in ruling_cards and (after is None or after in ruling_cards):
        return "pending"   # a card the ruling moves still lies where it was turned over
    if ruling_cards and isinstance(obs, list) and isinstance(after, list):
        if [c for c in obs if c not in ruling_cards] == [c for c in after if c not in ruling_cards]:
            return "pending"
    return None


def _leaf_equal(obs: Any, actual: Any) -> bool:
    if obs == UNSEEN:
        return True
    if isinstance(obs, list) and isinstance(actual, list):
        return len(obs) == len(actual) and all(_leaf_equal(o, a) for o, a in zip(obs, actual))
    return obs is not _MISSING and obs == actual


def matches(obs: dict[str, Any], layout: dict[str, Any]) -> bool:
    """True if the observation agrees with the layout wherever it saw something."""
    return compare(obs, layout) == "exact"


def differences(obs: Any, layout: Any, path: str = "") -> list[str]:
    """The paths (``hills[3].red``) where the observation disagrees with the layout."""
    if obs == UNSEEN:
        return []
    if isinstance(obs, dict) and isinstance(layout, dict):
        out: list[str] = []
        for key, value in obs.items():
            sub = f"{path}.{key}" if path else str(key)
            if key not in layout:
                out.append(sub)
            else:
                out += differences(value, layout[key], sub)
        return out
    if (isinstance(obs, list) and isinstance(layout, list) and len(obs) == len(layout)
            and any(isinstance(o, (dict, list)) for o in obs)):
        return [d for i, (o, a) in enumerate(zip(obs, layout)) for d in differences(o, a, f"{path}[{i}]")]
    return [] if _leaf_equal(obs, layout) else [path or "(whole table)"]


def strings(value: Any) -> set[str]:
    """Every string inside a JSON value (the card ids an observation shows)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def _is_card(text: str) -> bool:
    try:
        catalogue.card(text)
        return True
    except Exception:  # the catalogue raises for anything that is not a printed card
        return False


def named_cards(move: Move) -> set[str]:
    """The printed cards a move names (its visible content)."""
    return {s for s in strings(thaw(tuple(v for _, v in move.params))) if _is_card(s)}


# --------------------------------------------------------------------------- per-game knowledge
@dataclass(frozen=True)
class Adapter:
    """What the reconciler needs to know about one game."""

    depth: Callable[[Game], int]
    """Player moves allowed between two stable frames."""
    ruling_kinds: frozenset[str] = frozenset()
    """Event kinds that ask the table to do something by hand."""
    chance_from_obs: Callable[[Game, dict[str, Any], Sequence[dict[str, Any]]], list[Move]] = \
        lambda game, obs, held: []
    """Chance moves the engine does not list (a whole shuffle), built from what the table shows now
    and, for what it does not show (a card not read yet, one taken since), from held observations."""
    align: Callable[[Game, dict[str, Any]], dict[str, Any]] = lambda game, obs: obs
    """The observation in the game's own numbering (Wheel: the circle turned to match)."""
    complete: Callable[[dict[str, Any], Sequence[dict[str, Any]]], dict[str, Any]] = lambda obs, held: obs
    """The observation of a deal with what held observations saw where it saw nothing (a card
    under a hand now, read before)."""
    interpret: Callable[[Game, dict[str, Any]], list[Move]] = lambda game, obs: []
    """The physical moves the difference suggests (for explaining an illegal change)."""
    session_options: Callable[[dict[str, Any]], dict[str, Any]] = lambda options: options
    """Options a camera-watched table needs (hidden values where cards lie face down)."""
    ruling_steps: frozenset[str] = frozenset()
    """For events that list ``steps``: only these steps ask the table to act (Prussia)."""
    copies: Callable[[Game, dict[str, Any]], dict[str, str]] = lambda game, obs: {}
    """Card ids the game has where the camera reads other copies of the same card (a Chains deal
    entered on the host page names any copy of each value): each id the game has → the id the
    table shows; the session swaps each pair in the game's moves so far (a ``relabel`` entry)."""
    doubt: Callable[[Game, dict[str, Any]], dict[str, Any]] = lambda game, obs: obs
    """The observation with what may be a card not read made unseen (a Chains terminal read as
    taken, its place empty, that the game has available): tried when nothing explains it as read."""

    def is_ruling(self, event: Any) -> bool:
        """True if ``event`` asks the table to carry something out by hand."""
        if event.kind not in self.ruling_kinds:
            return False
        steps = thaw(event.get("steps")) if self.ruling_steps else None
        if not steps:
            return True
        return any(isinstance(s, dict) and s.get("step") in self.ruling_steps for s in steps)


def _wheel_chance(game: Game, obs: dict[str, Any], held: Sequence[dict[str, Any]] = ()) -> list[Move]:
    """The circle laid: read whole off the table, or completed from held observations of the deal
    (a card read only later, a card taken since: its slot from when it was seen there)."""
    circle = obs.get("circle")
    if not isinstance(circle, list) or len(circle) != wheel.SLOTS:
        return []
    slots: list[Any] = [c if isinstance(c, str) and c in wheel.CARDS else None for c in circle]
    for earlier in reversed(held):      # the newest first
        seen = earlier.get("circle")
        if not isinstance(seen, list) or len(seen) != wheel.SLOTS:
            continue
        for i, card in enumerate(seen):
            if slots[i] is None and isinstance(card, str) and card in wheel.CARDS and card not in slots:
                slots[i] = card
    empty = [i for i, c in enumerate(slots) if c is None]
    unplaced = sorted(set(wheel.CARDS) - set(slots))
    if len(empty) == 1 and len(unplaced) == 1:
        slots[empty[0]] = unplaced[0]   # the one card never seen in the circle lay in its one gap
    if sorted(c for c in slots if c is not None) != sorted(wheel.CARDS):
        return []
    taken = [c for seat in obs.get("taken") or [] if isinstance(seat, list) for c in seat]
    before = [h["pawn"] for h in held if isinstance(h.get("pawn"), int)]
    here = obs.get("pawn")
    if before:
        pawns = before[-1:]             # where it stood in the deal, last seen before any take
    elif isinstance(here, int) and not taken:
        pawns = [here]
    elif isinstance(here, int):
        # it stood 1 to 3 cards before the card taken first (no gap yet): each is a candidate
        pawns = [(here - k) % wheel.SLOTS for k in (1, 2, 3)]
    else:
        pawns = []
    return [Move.of(CHANCE, "lay_circle", circle=slots, pawn=p) for p in pawns]


def _wheel_complete(obs: dict[str, Any], held: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A gap of the circle where a held observation saw a card that is seen nowhere now."""
    circle = obs.get("circle")
    if not isinstance(circle, list) or len(circle) != wheel.SLOTS:
        return obs
    out = list(circle)
    seen = strings(obs)
    for earlier in reversed(held):
        then = earlier.get("circle")
        if isinstance(then, list) and len(then) == wheel.SLOTS:
            for i, card in enumerate(then):
                if out[i] is None and isinstance(card, str) and card not in seen:
                    out[i] = card
                    seen.add(card)
    return dict(obs, circle=out)


def _wheel_align(game: Game, obs: dict[str, Any]) -> dict[str, Any]:
    """The observed circle turned into the game's numbering: the turn that puts the most observed
    cards where the game has them (the host page counts from the card after the pawn, the camera
    from 12 o'clock; either may enter the deal)."""
    circle, laid = obs.get("circle"), game.layout()["circle"]
    if not isinstance(circle, list) or len(circle) != wheel.SLOTS or not any(laid):
        return obs
    n = wheel.SLOTS
    where = {card: i for i, card in enumerate(laid) if card is not None}
    turns = [(where[c] - i) % n for i, c in enumerate(circle) if isinstance(c, str) and c in where]
    if not turns:
        return obs
    best = max(set(turns), key=lambda t: (turns.count(t), t == 0))
    if best == 0 or turns.count(best) <= turns.count(0):
        return obs
    out = dict(obs, circle=[circle[(i - best) % n] for i in range(n)])
    if isinstance(obs.get("pawn"), int):
        out["pawn"] = (obs["pawn"] + best) % n
    return out


def _wheel_interpret(game: Game, obs: dict[str, Any]) -> list[Move]:
    now = game.layout()
    out = []
    for seat, cards in enumerate(obs.get("taken") or []):
        if isinstance(cards, list) and seat < len(now["taken"]):
            out += [Move.of(seat, "take", card=c) for c in cards if c not in now["taken"][seat]]
    return out


def _hills_options(options: dict[str, Any]) -> dict[str, Any]:
    # RULING (session): face-down cards are unknown to the table until their hill is revealed, so a
    # camera session runs the engine in hidden-values mode unless hands are open or it was set.
    if "hidden_values" not in options and not options.get("open_play"):
        return dict(options, hidden_values=True)
    return options


def _hills_interpret(game: Game, obs: dict[str, Any]) -> list[Move]:
    now = game.layout()["hills"]
    out = []
    for i, hill in enumerate(obs.get("hills") or []):
        if not isinstance(hill, dict) or i >= len(now):
            continue
        for seat, side in enumerate(("red", "blue")):
            seen, had = hill.get(side), now[i][side]
            if isinstance(seen, list) and len(seen) > len(had):
                card = seen[-1]
                hidden = game.options.get("hidden_values") and card.startswith("B-")
                out.append(Move.of(seat, "place", hill=i + 1, card=None if hidden else card))
    return out


def _spartacus_interpret(game: Game, obs: dict[str, Any]) -> list[Move]:
    trick, had = obs.get("trick"), game.layout()["trick"]
    if not isinstance(trick, list):
        return []
    out = []
    for card in trick:
        if card not in had and isinstance(card, str) and card.startswith("S-") and len(card) > 2:
            seat = catalogue.SPARTACUS_COLOURS.index(card[2]) if card[2] in catalogue.SPARTACUS_COLOURS else -1
            if 0 <= seat < game.players:
                out.append(Move.of(seat, "play", card=card))
    return out


def _chains_chance(game: Game, obs: dict[str, Any], held: Sequence[dict[str, Any]] = ()) -> list[Move]:
    """The terminal rows laid: read off the table, a card not read now taken from a held
    observation of the same place."""
    rows = obs.get("terminals")
    if not isinstance(rows, list) or len(rows) != game.players:
        return []
    cards = []
    for p, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 10:
            return []
        line = [t.get("card") if isinstance(t, dict) else t for t in row]
        for earlier in reversed(held):
            rows_then = earlier.get("terminals")
            if isinstance(rows_then, list) and p < len(rows_then) and isinstance(rows_then[p], list) \
                    and len(rows_then[p]) == 10:
                line = [c if isinstance(c, str) else (t.get("card") if isinstance(t, dict) else None)
                        for c, t in zip(line, rows_then[p])]
        cards.append(line)
    if any(not isinstance(c, str) for line in cards for c in line):
        return []
    return [Move.of(CHANCE, "setup", terminals=cards)]


def _chains_complete(obs: dict[str, Any], held: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A terminal not seen now (read as taken) where a held observation saw its card."""
    rows = obs.get("terminals")
    if not isinstance(rows, list):
        return obs
    out = [list(row) if isinstance(row, list) else row for row in rows]
    seen = strings(obs)
    for earlier in reversed(held):
        then = earlier.get("terminals")
        if not isinstance(then, list) or len(then) != len(out):
            continue
        for row, row_then in zip(out, then):
            if not isinstance(row, list) or not isinstance(row_then, list) or len(row) != len(row_then):
                continue
            for i, (now, was) in enumerate(zip(row, row_then)):
                card = was.get("card") if isinstance(was, dict) else None
                if isinstance(now, dict) and "card" not in now and isinstance(card, str) and card not in seen:
                    row[i] = dict(was)
                    seen.add(card)
    return dict(obs, terminals=out)


def _chains_copies(game: Game, obs: dict[str, Any]) -> dict[str, str]:
    """The terminal cards the camera reads as other copies of the same deck and value than the
    game has (a deal entered on the host page: the app picked the copies): each pair swapped, so
    that the game and the table name every card alike (``Adapter.copies``). Nothing unless every terminal read either
    matches or is such a copy (a card of another value or deck there is something else)."""
    rows, now = obs.get("terminals"), game.layout()["terminals"]
    if not isinstance(rows, list) or len(rows) != len(now) or not any(now):
        return {}
    swap: dict[str, str] = {}
    for row, had in zip(rows, now):
        if not isinstance(row, list) or len(row) != len(had):
            return {}
        for t, h in zip(row, had):
            card = t.get("card") if isinstance(t, dict) else None
            if not isinstance(card, str) or card == h["card"]:
                continue
            try:
                seen, ours = catalogue.card(card), catalogue.card(h["card"])
            except KeyError:
                return {}
            if (seen.deck, seen.value) != (ours.deck, ours.value) or h["state"] != "available":
                return {}
            swap[h["card"]] = card
    return swap


def _chains_doubt(game: Game, obs: dict[str, Any]) -> dict[str, Any]:
    """A terminal read as taken (no card seen at its place) that the game has available: perhaps
    taken, perhaps only not read this time (its track lost for a few frames)."""
    rows, now = obs.get("terminals"), game.layout()["terminals"]
    if not isinstance(rows, list) or len(rows) != len(now):
        return obs
    seen, out = strings(obs), []
    for row, had in zip(rows, now):
        if isinstance(row, list) and len(row) == len(had):
            row = [UNSEEN if isinstance(t, dict) and t.get("state") == "taken" and "card" not in t
                   and h["state"] == "available" and h["card"] not in seen else t for t, h in zip(row, had)]
        out.append(row)
    return dict(obs, terminals=out)


def _chains_interpret(game: Game, obs: dict[str, Any]) -> list[Move]:
    now = game.layout()
    out = []
    seat = game.current_player()
    for p, row in enumerate(obs.get("terminals") or []):
        for i, t in enumerate(row if isinstance(row, list) else []):
            if isinstance(t, dict) and t.get("state") == "taken" and p < len(now["terminals"]) \
                    and i < len(now["terminals"][p]) and now["terminals"][p][i]["state"] != "taken":
                # the camera may not name it (a taken terminal lies under its set): the row knows it
                out.append(Move.of(p, "take_terminal", card=t.get("card") or now["terminals"][p][i]["card"]))
    if seat >= 0:
        players = obs.get("players") or []
        if seat < len(players) and isinstance(players[seat], dict):
            work = players[seat].get("work")
            temp = now["players"][seat]["temporary"]
            if isinstance(work, list):
                for slot, card in enumerate(temp):
                    if card is not None and card in work and card not in now["players"][seat]["work"]:
                        out.append(Move.of(seat, "temporary_to_work", slot=slot))
    return out


def _prussia_chance(game: Game, obs: dict[str, Any], held: Sequence[dict[str, Any]] = ()) -> list[Move]:
    # At a real table nobody sees the hands: the deal is recorded without them.
    if game.players == 2 and game.current_player() == CHANCE and not game.log:
        return [Move.of(CHANCE, "deal")]
    return []


def _prussia_interpret(game: Game, obs: dict[str, Any]) -> list[Move]:
    now = game.layout()
    seat = game.current_player()
    out = []
    drawn = obs.get("drawn")
    if seat >= 0 and game.players == 2 and isinstance(drawn, str) and drawn != now.get("drawn"):
        out.append(Move.of(seat, "play", card=drawn))
    slots = obs.get("slots")
    if seat >= 0 and isinstance(slots, dict):
        for key, card in slots.items():
            if card not in (None, UNSEEN) and now["slots"].get(key) != card:
                out.append(Move.of(seat, "place", slot=key))
    return out


ADAPTERS: dict[str, Adapter] = {
    # one take per turn; the single-card-fall variant adds a keep/discard after it
    "wheel": Adapter(depth=lambda g: 3 if g.options.get("single_card_fall") else 2,
                     chance_from_obs=_wheel_chance, interpret=_wheel_interpret, align=_wheel_align,
                     complete=_wheel_complete),
    # one placement per turn; a reveal (chance) follows when the second colour arrives
    "hills": Adapter(depth=lambda g: 2, ruling_kinds=frozenset({"cards_cancelled", "card_removed"}),
                     interpret=_hills_interpret, session_options=_hills_options),
    # a card and up to a round of invisible passes (which end the trick) between two frames
    "spartacus": Adapter(depth=lambda g: g.players + 1, ruling_kinds=frozenset({"trick", "trick_out"}),
                         interpret=_spartacus_interpret),
    # a turn may chain actions 1 and 3 several times before action 2 or 4 ends it
    "chains": Adapter(depth=lambda g: 4, ruling_kinds=frozenset({"value_stopped", "work_dead", "work_ruined"}),
                      chance_from_obs=_chains_chance, interpret=_chains_interpret,
                      complete=_chains_complete, doubt=_chains_doubt, copies=_chains_copies),
    # play (or draw) then place or discard; the engine resolves wars and surrenders itself
    "prussia": Adapter(depth=lambda g: 3, ruling_kinds=frozenset({"ruling", "surrender", "era"}),
                       ruling_steps=frozenset({"exchange", "discard_drawn", "gone", "surrender", "era"}),
                       chance_from_obs=_prussia_chance, interpret=_prussia_interpret),
}
DEFAULT_ADAPTER = Adapter(depth=lambda g: 2)


def adapter(game_id: str) -> Adapter:
    """The reconciler's knowledge of a game (a generic one for games it does not know)."""
    return ADAPTERS.get(game_id, DEFAULT_ADAPTER)


# --------------------------------------------------------------------------- the search
@dataclass
class Explanation:
    """The result of ``explain``: matching sequences (shortest first), and how they matched."""

    sequences: list[list[Move]] = field(default_factory=list)
    pending: bool = False
    """True if the table still shows the state before a ruling the last move caused."""
    waiting: list[bool] = field(default_factory=list)
    """Per sequence: True if it leaves a ruling the table has not carried out yet."""
    searched: int = 0
    exhausted: bool = False
    """True if the search stopped at its budget (a longer explanation may exist)."""


NODE_BUDGET = 4000
"""States visited per pass; keeps a reconcile well under a second on a loaded machine."""
TIME_BUDGET = 3.0
"""CPU seconds of the searching thread per pass, the same bound in work: a thread's CPU time, not
the wall clock, so a loaded machine (a busy server, a test run beside others) finds the same
explanations, only later."""
MAX_SEQUENCES = 60
"""More explanations than this: the prompt lists these and says to enter the move by hand."""


def _candidates(game: Game, obs: dict[str, Any], seen: set[str], ad: Adapter,
                held: Sequence[dict[str, Any]] = ()) -> tuple[list[Move], bool]:
    """The moves to try from ``game``, and whether they are unseen chance outcomes."""
    if game.is_over():
        return [], False
    moves = game.legal_moves()
    if not game.is_chance_node():
        return moves, False
    if not moves:
        return ad.chance_from_obs(game, obs, held), False
    # The card turned over is read off the table: try the outcomes whose cards are in view (or
    # already on the table); if none is, the card went face down at once and all are possible.
    known = seen | strings(game.layout())
    visible = [m for m in moves if named_cards(m) <= known]
    return (visible, False) if visible else (moves, True)


def observed_strings(layout: Any, obs: Any) -> set[str]:
    """The strings of ``layout`` in the places the observation looked at."""
    if obs == UNSEEN:
        return set()
    if isinstance(obs, dict) and isinstance(layout, dict):
        return set().union(set(), *(observed_strings(layout[k], v) for k, v in obs.items() if k in layout))
    if isinstance(obs, list) and isinstance(layout, list) and len(obs) == len(layout):
        return set().union(set(), *(observed_strings(a, o) for a, o in zip(layout, obs)))
    return strings(layout)


def _project(layout: Any, obs: Any) -> Any:
    """``layout`` cut down to the places ``obs`` looked at (to compare two layouts as seen)."""
    if isinstance(obs, dict) and isinstance(layout, dict):
        return {k: _project(layout[k], v) for k, v in obs.items() if k in layout}
    if isinstance(obs, list) and isinstance(layout, list) and len(obs) == len(layout):
        return [_project(a, o) for a, o in zip(layout, obs)]
    return UNSEEN if obs == UNSEEN else layout


def _ruling_cards(events: list[Any], ad: Adapter) -> frozenset[str]:
    out: set[str] = set()
    for e in events:
        if ad.is_ruling(e):
            out |= {s for s in strings(thaw(e.data)) if _is_card(s)}
    return frozenset(out)


def explain(game: Game, obs: dict[str, Any], *, budget: int = NODE_BUDGET,
            held: Sequence[dict[str, Any]] = (), seconds: float = TIME_BUDGET) -> Explanation:
    """The shortest legal move sequences from ``game`` whose layout matches ``obs`` (``held``:
    earlier observations the session kept because nothing explained them, see the module docstring).

    Breadth first, so the shortest explanations come first. A move that brings a card into view
    (out of a hand or a deck) where the camera looked but did not see it is a dead end: this
    prunes almost every wrong card at once, while a card that went straight out of view (a trick
    piled face down, a card discarded by a war) stays possible, and several such are asked about.

    Nothing explains the observation as read: the search runs again with the adapter's doubts (a
    card perhaps only not read made unseen). The passes share ``budget`` states and ``seconds``
    (the second has a quarter of each at least: at most 1.25 × either in all); sequences that leave the same game are reported once (``one_per_outcome``).
    """
    start = time.thread_time()
    found = _search(game, obs, budget, held, seconds)
    if not found.sequences:
        doubted = adapter(game.id).doubt(game, obs)
        if doubted != obs:
            # the two passes share the budget: the second gets what the first left, a quarter at least
            left = max(seconds - (time.thread_time() - start), seconds / 4)
            again = _search(game, doubted, max(budget - found.searched, budget // 4), held, left)
            again.searched += found.searched
            again.exhausted = again.exhausted or (found.exhausted and not again.sequences)
            return again
    return found


def _search(game: Game, obs: dict[str, Any], budget: int, held: Sequence[dict[str, Any]],
            seconds: float) -> Explanation:
    """``explain``'s breadth-first search for one reading of the table."""
    ad = adapter(game.id)
    result = Explanation()
    if matches(obs, game.layout()):
        result.sequences = [[]]
        return result
    seen = strings(obs)
    depth = ad.depth(game)
    start = time.thread_time()
    # A sequence is a list of steps; a step lists moves the camera cannot tell apart (unseen
    # chance outcomes that leave the same layout): only the first is searched further.
    Step = tuple
    # A level is one visible step. A player move that changes nothing in view by itself (asking to
    # draw, taking the top card of the deck) is expanded within the level, with the card turned
    # over in the same motion: so "played ♠3 from the hand" and "drew ♠3 from the pile" are
    # weighed alike and the table is asked.
    frontier: list[tuple[Game, list[Step], int]] = [(game, [], 0)]
    exact: list[list[Step]] = []
    pending: list[list[Step]] = []
    # stop at the first level that explains the table, exactly or with a ruling still to carry out
    while frontier and not exact and not pending and not result.exhausted:
        nxt: list[tuple[Game, list[Step], int]] = []
        for node, seq, used in frontier:
            if result.exhausted:
                break
            before = node.layout()
            on_table = strings(before)
            moves, unseen = _candidates(node, obs, seen, ad, held)
            groups: dict[Any, list[Any]] = {}
            for move in moves:
                cost = 0 if move.player == CHANCE else 1
                if used + cost > depth:
                    continue
                if result.searched >= budget or time.thread_time() - start > seconds:
                    result.exhausted = True
                    break
                result.searched += 1
                child = node.clone()
                try:
                    events = child.apply(move)
                except IllegalMove:
                    continue   # e.g. a shuffle built from a misread circle
                after = child.layout()
                key = freeze(after) if unseen else len(groups)
                if key in groups:
                    groups[key][0].append(move)   # looks the same as an outcome already tried
                    continue
                groups[key] = [[move], child, events, after, cost]
            for alternatives, child, events, after, cost in groups.values():
                path = seq + [Step(alternatives)]
                if compare(obs, after) == "exact":
                    exact.append(path)
                    continue
                if any(ad.is_ruling(e) for e in events) and \
                        compare(obs, after, before, _ruling_cards(events, ad)) == "pending":
                    pending.append(path)
                new_cards = named_cards(alternatives[0]) - on_table
                if new_cards & observed_strings(after, obs) - seen:
                    continue   # it brought into view a card the camera does not see
                if child.is_over():
                    continue
                # a player move that shows nothing yet waits for its card within this level
                silent = cost == 1 and child.is_chance_node() and compare(_project(before, obs), after) == "exact"
                (frontier if silent else nxt).append((child, path, used + cost))
        frontier = nxt
    if exact:
        result.sequences = _expand(game, obs, exact, pending=False)
    elif pending:
        # every pending path was found at this visible step; keep those with the fewest player
        # moves (chance moves are read off the table: a draw and the card it turned over are one
        # motion, not two steps — counting them as two took "played ♦9 from the hand" for the
        # truth over "drew ♦9", which the rules resolve at once, in a 2-player Prussia game)
        fewest = min(map(_player_moves, pending))
        result.sequences = _expand(game, obs, [p for p in pending if _player_moves(p) == fewest], pending=True)
        result.pending = bool(result.sequences)
    result.sequences = one_per_outcome(game, result.sequences)
    result.waiting = [result.pending] * len(result.sequences)
    return result


def one_per_outcome(game: Game, sequences: list[list[Move]]) -> list[list[Move]]:
    """``sequences`` with those that are the same moves in another order and leave the same game
    (equal snapshots) kept once, the first: a state the camera missed (two cards turned into two
    empty slots between two views) leaves their order unknown, and nothing after it depends on
    it. Different moves stay apart, even to the same state (a Seven Hills reveal names its cards
    in the order they were laid: the log would say another order)."""
    if len(sequences) < 2:
        return sequences
    out, outcomes = [], set()
    for seq in sequences:
        trial = game.clone()
        try:
            for move in seq:
                trial.apply(move)
        except IllegalMove:
            continue
        outcome = (freeze(trial.snapshot()), tuple(sorted(str(m) for m in seq)))
        if outcome not in outcomes:
            outcomes.add(outcome)
            out.append(seq)
    return out


def _player_moves(path: list[tuple[Move, ...]]) -> int:
    """The player moves of a path of steps (chance steps are free)."""
    return sum(1 for step in path if step[0].player != CHANCE)


def _expand(game: Game, obs: dict[str, Any], paths: list[list[tuple[Move, ...]]], pending: bool) -> list[list[Move]]:
    """Concrete move sequences from paths of steps; combinations with several unseen outcomes are
    replayed to check them (a card turned over twice cannot be)."""
    out: list[list[Move]] = []
    for path in paths:
        if all(len(step) == 1 for step in path):
            out.append([step[0] for step in path])
        else:
            for combo in itertools.product(*path):
                if len(out) >= MAX_SEQUENCES:
                    break
                if _replays(game, obs, list(combo), pending):
                    out.append(list(combo))
        if len(out) >= MAX_SEQUENCES:
            break
    return out[:MAX_SEQUENCES]


def _replays(game: Game, obs: dict[str, Any], moves: list[Move], pending: bool) -> bool:
    trial = game.clone()
    try:
        for move in moves:
            trial.apply(move)
    except IllegalMove:
        return False
    return pending or matches(obs, trial.layout())


def why_not(game: Game, obs: dict[str, Any], names: list[str] | None = None) -> tuple[Reason, str, list[Move]]:
    """What looks wrong (a ``Reason``: English, and Japanese in ``.ja``), the rule it breaks, and
    the physical moves tried (nearest first); ``names`` name the seats in a quoted move."""
    ad = adapter(game.id)
    tried = ad.interpret(game, obs)
    for move in tried:
        try:
            game.check(move)
        except IllegalMove as err:
            return _titled(game, err.reason, err.ja), err.rule, tried
    diffs = differences(obs, game.layout())
    where = ", ".join(diffs[:6]) + (" …" if len(diffs) > 6 else "")
    if tried:
        label = game.describe_move(tried[0], names)
        return (Reason(f"{game.title}: “{label}” is allowed, but the table does not show what it leads to "
                       f"(look at: {where}).",
                       f"{game.title_ja}:「{label.ja}」は認められる手ですが、卓がその結果と一致しません(確認する場所: {where})。"),
                game.rules_file, tried)
    return (Reason(f"{game.title}: the table does not match any legal move from here (look at: {where}).",
                   f"{game.title_ja}: 卓の様子が、ここから指せるどの手とも一致しません(確認する場所: {where})。"),
            game.rules_file, tried)


def _titled(game: Game, reason: str, ja: str = "") -> Reason:
    """``Seven Hills of Rome: …`` unless the engine's reason already names its game (both languages;
    an engine that gives no Japanese leaves ``ja`` empty, for the caller to fall back on)."""
    head = reason.split(":", 1)[0].strip().lower() if ":" in reason[:40] else ""
    en = reason if head and (head in game.title.lower() or head == game.id) else f"{game.title}: {reason}"
    if ja and not ja.startswith(game.title_ja):
        ja = f"{game.title_ja}: {ja}"
    return Reason(en, ja)
