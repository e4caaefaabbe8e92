"""The companion's move confirmed by the camera: the table lays the card the companion asked for,
the camera sees it appear at its place (frames rendered from our printed pages, through the
server's camera source as in test_camera_games.py), and the session plays it with no tap; a wrong
card laid for it is caught like a misread move (an "illegal" prompt) until the table is put right."""
from __future__ import annotations

import random
from typing import Any, Iterator

import numpy as np
from companion.engine import Move
from companion.games import new_game
from companion.session import autoplay
from tablesim.synthetic import Camera, frame_size, max_px_per_mm, render_frame
from tests.webui.test_camera_games import WHEEL_FRAME, _entries, app  # noqa: F401  (the app fixture)
from vision.table import layouts
from webui.camera.camera import CameraFeed

STILLS = 4
"""Equal frames per table state: the first reads as motion, the others as a still table."""


class Table:
    """A Wheel table for two where people lay the cards: seat 0 at random, seat 1 the card the
    companion asks for (read from the server's session, as a person reads it off a screen)."""

    def __init__(self, app: Any, table_id: str, seed: int) -> None:
        self.tables, self.table_id, self.rng = app.extensions["tables"], table_id, random.Random(seed)
        self.game = new_game("wheel", 2)
        size = layouts.table_size("wheel", 2)
        with frame_size(WHEEL_FRAME):
            self.cam = Camera.looking_at(size, max_px_per_mm(size), seed)
        self.seed, self.shown, self.last = seed, None, None
        self.wrong: list[Move] = []
        self.prompts_seen: list[str] = []

    def still(self, game: Any) -> Iterator[np.ndarray]:
        """Frames of ``game``'s table (nothing new when a camera could not tell it from the last)."""
        now = layouts.knowable("wheel", game.layout(), 2)
        if now == self.shown:
            return
        self.shown = now
        placed = layouts.place("wheel", game.layout(), 2, random.Random(self.seed))
        with frame_size(WHEEL_FRAME):
            self.last = render_frame(self.cam, placed, self.seed).image
        yield from [self.last] * STILLS

    def session(self) -> Any:
        return self.tables.get(self.table_id)

    def wait_for_the_session(self) -> Iterator[np.ndarray]:
        """The table stays as it is until the session has read every card laid so far."""
        for _ in range(10):
            if [m.to_json() for m in self.session().game.log] == [m.to_json() for m in self.game.log]:
                return
            yield self.last
        raise AssertionError("the camera did not read the table")

    def frames(self, companion_moves: int, lay_wrong_first: bool = False) -> Iterator[np.ndarray]:
        """Play until the companion has made ``companion_moves`` moves; with ``lay_wrong_first``, its
        first card is first laid wrong (another take), then taken back, then laid as asked."""
        done = 0
        while not self.game.is_over() and done < companion_moves:
            if self.game.is_chance_node():
                move = self.game.sample_chance(self.rng)
            elif self.game.current_player() == 1:
                yield from self.wait_for_the_session()
                said = autoplay.proposal(self.session())
                assert said is not None and said["seat"] == 1
                move = Move.from_json(said["move"])
                if lay_wrong_first and done == 0:
                    yield from self.lay_wrong(move)
                done += 1
            else:
                move = self.rng.choice(self.game.legal_moves())
            self.game.apply(move)
            yield from self.still(self.game)
        yield from self.wait_for_the_session()

    def lay_wrong(self, asked: Move) -> Iterator[np.ndarray]:
        """Lay another card than the one asked for, wait for the session's word, take it back."""
        here = layouts.knowable("wheel", self.game.layout(), 2)
        for other in self.game.legal_moves():
            trial = self.game.clone()
            trial.apply(other)
            if other != asked and layouts.knowable("wheel", trial.layout(), 2) != here:
                break
        self.wrong.append(other)
        yield from self.still(trial)
        for _ in range(10):
            prompt = self.session().blocked()
            if prompt is not None:
                self.prompts_seen.append(prompt.text)
                break
            yield self.last
        yield from self.still(self.game)   # the wrong card taken back: the table as before
        for _ in range(10):
            if self.session().blocked() is None:
                return
            yield self.last


def watch(app: Any, table: Table, frames: Iterator[np.ndarray]) -> Any:
    feed = CameraFeed(app.extensions["tables"], table.table_id, source=frames).start()
    assert feed.done.wait(600) and feed.error is None, feed.error
    return table.session()


def companion_table(app: Any, seed: int) -> Table:  # noqa: F811
    s = app.extensions["tables"].create("wheel", 2, names=["Ann", "Companion (beginner)"], options={})
    s.set_companions({1: "beginner"})
    return Table(app, s.id, seed)


def test_the_camera_confirms_the_companions_moves_without_a_tap(app):  # noqa: F811
    table = companion_table(app, 3)
    s = watch(app, table, table.frames(companion_moves=3))
    assert [m.to_json() for m in s.game.log] == [m.to_json() for m in table.game.log]
    assert sum(m.player == 1 for m in s.game.log) == 3                     # the companion's moves
    assert {kind for kind, by in _entries(s)} == {"note", "moves"}         # the seats note, then moves
    assert all(by == "camera" for kind, by in _entries(s) if kind == "moves")   # no tap confirmed any


def test_a_wrong_card_laid_for_the_companion_is_caught_until_the_table_is_put_right(app):  # noqa: F811
    table = companion_table(app, 5)
    s = watch(app, table, table.frames(companion_moves=1, lay_wrong_first=True))
    assert table.wrong and table.prompts_seen, "the wrong card was not caught"
    assert table.prompts_seen[0].startswith("The table shows another move for the companion's seat")
    assert table.wrong[0].to_json() not in [m.to_json() for m in s.game.log]   # never played
    assert [m.to_json() for m in s.game.log] == [m.to_json() for m in table.game.log]
    assert s.blocked() is None and s.game.log[-1].player == 1                   # then laid as asked
