"""Scripted tables: a simulated game seen through a (partial) camera, for tests and the session bench."""
from __future__ import annotations

import copy
import random
from typing import Any, Callable

from companion.engine import CHANCE, Game, Move, thaw
from companion.games import new_game
from companion.session import TableSession
from companion.session.reconcile import adapter

SAME_MOTION = {("chains", "deck_to_work"), ("chains", "deck_to_temporary"), ("prussia", "draw")}
"""Moves where taking a card from the deck and turning it over is one motion: the table is never
still between the player's move and the chance move that says which card it was."""

Camera = Callable[[dict[str, Any]], dict[str, Any]]


def full_view(layout: dict[str, Any]) -> dict[str, Any]:
    """A camera that sees the whole layout."""
    return layout


def without(*keys: str) -> Camera:
    """A camera that cannot see these top-level keys (pile counts and the like)."""
    return lambda layout: {k: v for k, v in layout.items() if k not in keys}


def table_move(game: Game, rng: random.Random) -> Move:
    """The next move of a random game as it happens at a real table (nobody sees a deal)."""
    if game.is_chance_node():
        move = game.sample_chance(rng)
        if move.kind == "deal":
            return Move.of(CHANCE, "deal")   # Prussia, 2 players: the hands stay unseen
        return move
    return rng.choice(game.legal_moves())


def play_through_camera(session: TableSession, seed: int, camera: Camera = full_view,
                        skip: float = 0.3, max_moves: int = 2000) -> dict[str, int]:
    """Play a random game beside ``session`` and feed it the camera's view after most moves.

    ``skip``: the chance that a frame is missed (so an observation must explain several moves).
    Choose prompts are answered with the true moves, which must be among the choices; any other
    blocking prompt fails the script. Returns counts of what happened.
    """
    rng = random.Random(seed)
    ref = new_game(session.game_id, session.players, session.game.options)
    depth = adapter(session.game_id).depth(ref)
    counts = {"observations": 0, "applied": 0, "choose": 0, "nothing": 0, "rulings": 0}
    unseen_player_moves = 0
    while not ref.is_over():
        assert len(ref.log) < max_moves
        move = table_move(ref, rng)
        before = ref.layout()
        events = ref.apply(move)
        unseen_player_moves += move.player != CHANCE
        # The camera may miss a frame, but not one where the table stops to carry out a ruling
        # (cards leave the table: before they do, everyone sees them), nor the one after a card
        # is turned over (a drawn card is known when turned over, even if it goes face down next).
        turned_over = move.player == CHANCE
        ruling = any(adapter(ref.id).is_ruling(e) for e in events)
        if not (ref.is_over() or turned_over or ruling) and rng.random() < skip \
                and unseen_player_moves < depth - 1:
            continue
        if (ref.id, move.kind) in SAME_MOTION and move.player != CHANCE and ref.is_chance_node():
            continue   # the card is turned over in the same motion: no stable frame in between
        unseen_player_moves = 0
        for frame in pre_ruling_layouts(ref.id, before, ref.layout(), events):   # the table before it carries out a ruling: the session waits for it
            pre = session.observe(camera(frame))
            counts["pending"] = counts.get("pending", 0) + 1
            if pre.kind == "prompt" and pre.prompt.kind == "choose":
                _answer_with_truth(session, ref, pre.prompt)
            elif pre.kind == "prompt":
                raise AssertionError(f"unexpected {pre.prompt.kind} prompt before a ruling: {pre.prompt.text}")
        outcome = session.observe(camera(ref.layout()))
        counts["observations"] += 1
        assert session.game.log == ref.log[:len(session.game.log)], \
            f"wrong explanation {[str(m) for m in outcome.moves]}; true: {[str(m) for m in ref.log[len(session.game.log) - len(outcome.moves):]]}"
        counts[outcome.kind if outcome.kind != "prompt" else outcome.prompt.kind] = \
            counts.get(outcome.kind if outcome.kind != "prompt" else outcome.prompt.kind, 0) + 1
        if outcome.kind == "prompt":
            assert outcome.prompt.kind == "choose", (
                f"unexpected {outcome.prompt.kind} prompt: {outcome.prompt.text}; the moves were "
                f"{[str(m) for m in ref.log[len(session.game.log):]]}")
            _answer_with_truth(session, ref, outcome.prompt)
        counts["rulings"] += sum(p.kind == "ruling" for p in session.prompts)
    assert session.game.log == ref.log, "the session's move log differs from the game played"
    assert session.game == ref
    return counts


def _answer_with_truth(session: TableSession, ref: Game, prompt: Any) -> None:
    """Answer a choose prompt with the true moves, or their start when the last ones are still
    invisible (they are inferred later)."""
    tail = [m.to_json() for m in ref.log[len(session.game.log):]]
    choice = max((c for c in prompt.choices if c["moves"] and c["moves"] == tail[:len(c["moves"])]),
                 key=lambda c: len(c["moves"]), default=None)
    assert choice is not None, f"the true moves {tail} are not among {prompt.choices}"
    session.answer(prompt.id, choice["id"], by="test", expected_version=session.version)


def _chains_misfit_frame(before: dict[str, Any], layout: dict[str, Any], event: Any) -> dict[str, Any]:
    """The table just after a misfit is turned over: it (and the cards it ruins) still lie face up
    in the work area; the dead pile has not grown yet."""
    frame = copy.deepcopy(layout)
    seat, cards = event.get("player"), list(thaw(event.get("cards")))
    frame["players"][seat]["work"] = frame["players"][seat]["work"] + cards
    frame["players"][seat]["dead"] -= len(cards)
    return frame


def _prussia_drawn_frame(before: dict[str, Any], layout: dict[str, Any], event: Any) -> dict[str, Any] | None:
    """The table just after a card is turned over that the rules resolve at once (a war, an
    exchange, a joker): it lies face up as the drawn card; nothing else has moved yet."""
    steps = thaw(event.get("steps")) or []
    if not steps or steps[0].get("step") not in ("draw", "gone") or not steps[0].get("card"):
        return None
    if not adapter("prussia").is_ruling(event) or before.get("drawn") is not None:
        return None
    return dict(copy.deepcopy(before), drawn=steps[0]["card"])


PRE_RULING_FRAMES: dict[str, dict[str, list[Callable[[dict[str, Any], dict[str, Any], Any], dict[str, Any] | None]]]] = {
    "chains": {"work_ruined": [_chains_misfit_frame]},
    "prussia": {"ruling": [_prussia_drawn_frame]},
}
"""Frames a camera sees between a move and the ruling the table carries out by hand."""


def pre_ruling_layouts(game_id: str, before: dict[str, Any], after: dict[str, Any], events: list[Any]) -> list[dict[str, Any]]:
    """The still tables a camera sees after a move and before the table carries out its rulings
    by hand (a Chains misfit lying turned over in the work area, a Prussia card drawn)."""
    return [frame for e in events for f in PRE_RULING_FRAMES.get(game_id, {}).get(e.kind, [])
            if (frame := f(before, after, e)) is not None]
