"""Nothing lost to a missed reading: a deal the camera saw only in part is held, not refused, and
completed from a later observation (the deal and the moves after it applied together); the circle
entered on the host page and the camera's reading of it are matched by rotation."""
from __future__ import annotations

import random

import pytest

from companion.engine import CHANCE, Move
from companion.games import new_game
from companion.session.store import Store
from companion.session.table import TableSession


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "held.db")


def _deal(seed: int = 3):
    """A Wheel game for 3 with its circle laid (engine numbering = the camera's: slot 0 at 12)."""
    game = new_game("wheel", 3)
    deal = game.sample_chance(random.Random(seed))
    game.apply(deal)
    return game, deal


def _seen(game, hide=()):
    """The camera's observation of ``game``: its layout, the cards in ``hide`` not read."""
    layout = game.layout()
    return {"circle": [None if c in hide else c for c in layout["circle"]], "pawn": layout["pawn"],
            "taken": layout["taken"], "discarded": layout["discarded"]}


def test_a_deal_missing_a_card_is_held_then_completed_with_the_first_take(store):
    game, deal = _deal()
    hidden = deal.circle[(deal.pawn + 12) % 25]           # far from the pawn: not taken first
    s = TableSession.create(store, "wheel", 3)
    out = s.observe(_seen(game, {hidden}))
    assert out.kind == "held" and s.version == 0 and not s.prompts    # nothing written, nothing asked
    assert s.observe(_seen(game, {hidden})).kind == "held"           # seen again: still waiting
    take = game.legal_moves()[1]
    game.apply(take)
    out = s.observe(_seen(game))                            # the hand gone, the first card taken
    assert out.kind == "applied" and out.moves == [deal, take]
    assert s.game.log == [deal, take] and not s.prompts


def test_the_card_taken_first_never_seen_in_the_circle_fills_the_one_gap(store):
    game, deal = _deal(5)
    take = game.legal_moves()[2]                           # the 3rd card ahead
    s = TableSession.create(store, "wheel", 3)
    assert s.observe(_seen(game, {take.card})).kind == "held"
    game.apply(take)
    out = s.observe(_seen(game))
    assert out.kind == "applied" and out.moves == [deal, take]


def test_a_deal_never_seen_whole_is_never_guessed(store):
    game, deal = _deal(7)
    s = TableSession.create(store, "wheel", 3)
    two = (deal.circle[3], deal.circle[9])
    assert s.observe(_seen(game, two)).kind == "held"
    assert s.observe(_seen(game, two)).kind == "held"     # two gaps, two cards: which is where?
    assert s.game.log == [] and s.version == 0


def test_the_host_pages_circle_and_the_cameras_are_one_circle(store):
    """The host page lays the circle from the card after the pawn (pawn in slot 24); the camera
    counts from 12 o'clock. The camera's takes apply to the host's circle all the same."""
    game, deal = _deal(11)
    turn = deal.pawn + 1
    host = Move.of(CHANCE, "lay_circle", circle=list(deal.circle[turn:]) + list(deal.circle[:turn]), pawn=24)
    s = TableSession.create(store, "wheel", 3)
    s.play(host, by="host", expected_version=0)
    for _ in range(3):
        take = game.legal_moves()[0]
        game.apply(take)
        out = s.observe(_seen(game))
        assert out.kind == "applied" and out.moves == [take], out
    assert s.observe(_seen(game)).kind == "nothing"        # the same table again: nothing new
    assert [m.card for m in s.game.log[1:]] == [m.card for m in game.log[1:]]


def test_chains_terminal_rows_completed_from_a_held_observation(store):
    game = new_game("chains", 1)
    setup = game.sample_chance(random.Random(2))
    rows = [list(r) for r in setup.terminals]

    def seen(missing):
        return {"terminals": [[{"state": "taken"} if c == missing else {"card": c, "state": "available"}
                               for c in row] for row in rows],
                "players": [{"work": [], "temporary": [None] * 5}]}
    s = TableSession.create(store, "chains", 1)
    assert s.observe(seen(rows[0][3])).kind == "held"
    out = s.observe(seen(rows[0][7]))                      # another card hidden now: both together
    assert out.kind == "applied" and out.moves == [setup]


def test_a_held_deal_survives_a_restart_of_the_server(tmp_path):
    """The held observations live in the session's SQLite store: a session reopened from the same
    file (``serve`` restarted while a hand lay over the deal) completes the deal from later frames.
    Two takes since the held frame leave two gaps in the circle: only the held frame says which
    card lay in which, so without it the later frame alone is held again."""
    game, deal = _deal()
    hidden = deal.circle[(deal.pawn + 12) % 25]
    path = tmp_path / "restart.db"
    s = TableSession.create(Store(path), "wheel", 3)
    assert s.observe(_seen(game, {hidden})).kind == "held" and s.version == 0
    takes = []
    for _ in range(2):
        takes.append(game.legal_moves()[0])
        game.apply(takes[-1])
    # a new process: a new store on the same file, the session replayed from it
    again = TableSession.open(Store(path), s.id)
    out = again.observe(_seen(game))
    assert out.kind == "applied" and out.moves == [deal, *takes], out
    assert again.game.log == [deal, *takes] and not again.prompts
    assert Store(path).held(s.id) == (None, [])              # nothing held once it is explained


def test_without_the_held_frame_two_gaps_stay_held(store):
    """The control for the test above: the same later frame, seen by a session that never held
    the deal, cannot say which card lay where (nothing is guessed)."""
    game, deal = _deal()
    for _ in range(2):
        game.apply(game.legal_moves()[0])
    s = TableSession.create(store, "wheel", 3)
    assert s.observe(_seen(game)).kind == "held" and s.version == 0
