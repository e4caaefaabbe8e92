"""A process that writes to a session, for the crash and race tests (run: python -m tests.companion.session.session_worker).

``script DB ID SEED [PAUSE]``: play a seeded game into session ID, half the moves tapped (committed
in ``Store.sync_after``, as the web server does) and half seen by the camera, resuming wherever the session stands (so it can be killed and restarted
at any moment). Prints ``ack VERSION`` after every write that returned, ``done`` at the end; waits
PAUSE seconds after each write, so that a loaded machine's killer still finds the game unfinished.

``race DB ID N``: N times, try to tap the first legal move at the version this process last saw;
prints ``won VERSION`` or ``stale`` for each try.
"""
from __future__ import annotations

import random
import sys
import time

import companion.history  # noqa: F401  (as the server and the CLI: the game's end writes its play)
from companion.engine import Move
from companion.session import StaleVersion, Store, TableSession
from tablesim.scripted import table_move


def reference_log(game_id: str, players: int, options: dict, seed: int) -> list[Move]:
    """The scripted game's moves (the same every run)."""
    from companion.games import new_game
    rng = random.Random(seed)
    ref = new_game(game_id, players, options)
    while not ref.is_over():
        ref.apply(table_move(ref, rng))
    return list(ref.log)


def script(db: str, session_id: str, seed: int, pause: float = 0.0) -> None:
    """Drive the session to the end of the scripted game, from wherever it is."""
    session = TableSession.open(Store(db), session_id)
    moves = reference_log(session.game_id, session.players, session.game.options, seed)
    while True:
        session.refresh()
        for prompt in session.prompts:   # a prompt committed just before a kill: answer it now
            if prompt.kind == "choose":
                done = len(session.game.log)
                choice = next(c for c in prompt.choices
                              if c["moves"] == [m.to_json() for m in moves[done:done + len(c["moves"])]])
                session.answer(prompt.id, choice["id"], by="worker", expected_version=session.version)
                print(f"ack {session.version}", flush=True)
        done = len(session.game.log)
        if done == len(moves):
            break
        assert session.game.log == moves[:done], "the session's log left the script"
        move = moves[done]
        if done % 2 == 0:   # a tap, as the web server writes it: synced after its block
            with session.store.sync_after():
                session.play(move, by="worker", expected_version=session.version)
        else:
            ahead = session.game.clone()   # the table one move on, as the camera sees it
            ahead.apply(move)
            if session.observe(ahead.layout()).kind == "nothing":   # an invisible pass: tap it
                session.play(move, by="worker", expected_version=session.version)
        print(f"ack {session.version}", flush=True)
        time.sleep(pause)
    print("done", flush=True)


def race(db: str, session_id: str, tries: int) -> None:
    """Tap the first legal move again and again; another process does the same."""
    session = TableSession.open(Store(db), session_id)
    for _ in range(tries):
        session.refresh()
        moves = session.legal_moves()
        if not moves:
            break
        try:
            session.play(moves[0], by="racer", expected_version=session.version)
            print(f"won {session.version}", flush=True)
        except StaleVersion:
            print("stale", flush=True)


if __name__ == "__main__":
    mode, db, sid = sys.argv[1:4]
    if mode == "script":
        script(db, sid, int(sys.argv[4]), float(sys.argv[5]) if len(sys.argv) > 5 else 0.0)
    else:
        race(db, sid, int(sys.argv[4]))
