"""``companion serve --demo GAME``: a simulated game played on the table, seen as observations.

Until a camera is attached, the demo stands in for it: a seeded random game is played by the engine
and each successive table layout (what a camera would see) is fed to ``TableSession.observe`` at a
steady pace, so the phones show a live game with no camera and no cards. The one seam where the
vision pipeline plugs in is ``observations()``: it yields observation dicts (the shape of
``game.layout()``), whether they come from the simulation or from ``vision``'s pipeline.
"""
from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable, Iterator

from companion.engine import Move, freeze, simulate
from companion.games import game_class
from webui.camera.camera import FrameWorker

DEMO_PLAYERS = {"wheel": 4, "hills": 2, "spartacus": 3, "prussia": 1, "chains": 3}
"""Players at the demo table of each game."""


def simulated_steps(game_id: str, players: int, options: dict[str, Any],
                    seed: int) -> Iterator[tuple[dict[str, Any], Move]]:
    """Each move of a simulated game with the layout a camera would see after it."""
    cls = game_class(game_id)
    record = simulate(cls(players, options), seed)
    replay = cls(players, options)
    for move, _ in record.turns:
        replay.apply(move)
        yield replay.layout(), move


def simulated_observations(game_id: str, players: int, options: dict[str, Any],
                           seed: int) -> Iterator[dict[str, Any]]:
    """The layouts a camera would see after each move of a simulated game (chance included)."""
    for layout, _ in simulated_steps(game_id, players, options, seed):
        yield layout


def observations(game_id: str, players: int, options: dict[str, Any], seed: int,
                 source: Callable[..., Iterator[dict[str, Any]]] | None = None
                 ) -> Iterator[dict[str, Any]]:
    """THE seam: observations of the table, from ``source`` (the vision pipeline's stable
    observation changes) or, by default, from a simulated game."""
    if source is not None:
        return source(game_id, players, options, seed)
    return simulated_observations(game_id, players, options, seed)


class DemoDriver:
    """Feeds observations into one table's session in a background thread, game after game."""

    def __init__(self, tables: Any, table_id: str, interval: float = 1.5, seed: int = 1,
                 source: Callable[..., Iterator[dict[str, Any]]] | None = None,
                 pause_after_game: float = 8.0) -> None:
        self.tables, self.table_id = tables, table_id
        self.interval, self.seed, self.source = interval, seed, source
        self.pause_after_game = pause_after_game
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="demo")
        self.outcomes: list[str] = []

    def start(self) -> "DemoDriver":
        """Start feeding; return self."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop after the current observation."""
        self.stop_event.set()

    def _feed(self, observation: dict[str, Any], truth: Move | None = None,
              after: dict[str, Any] | None = None) -> str:
        """Observe; with a simulated game, where the camera cannot see a move (a pass, a card drawn
        face down) the demo enters the true move as a player would tap it."""
        s = self.tables.get(self.table_id)
        with self.tables.lock(self.table_id):
            outcome = s.observe(observation, source="demo")
            kind = outcome.kind
            for prompt in list(s.prompts):
                if prompt.kind == "choose" and prompt.choices:  # several readings: the demo picks
                    s.answer(prompt.id, prompt.choices[0]["id"], by="demo", expected_version=s.version)
            if truth is not None and freeze(s.game.snapshot()) != freeze(after):
                for prompt in list(s.prompts):
                    if prompt.kind == "illegal":
                        s.answer(prompt.id, prompt.choices[0]["id"], by="demo",
                                 expected_version=s.version)
                if truth in s.game.legal_moves() and not s.blocked():
                    s.play(truth, by="demo", expected_version=s.version)
                    kind = "tapped"
        self.tables.changed(self.table_id)
        return kind

    def _next_step(self, rng: random.Random) -> tuple[dict[str, Any], Move, dict[str, Any]] | None:
        """The simulated table's next move from the session's own state, and the layout after it
        (built from the session's state, so copies of a card are named as the session names them)."""
        with self.tables.lock(self.table_id):
            game = self.tables.get(self.table_id).game.clone()
        if game.is_over():
            return None
        move = game.sample_chance(rng) if game.is_chance_node() else rng.choice(game.legal_moves())
        game.apply(move)
        return game.layout(), move, game.snapshot()

    def _run(self) -> None:
        rng = random.Random(self.seed)
        game_no = 0
        while not self.stop_event.is_set():
            s = self.tables.get(self.table_id)
            if self.source is None:
                while (step := self._next_step(rng)) is not None:
                    if self.stop_event.wait(self.interval):
                        return
                    self.outcomes.append(self._feed(*step))
            else:
                for observation in observations(s.game_id, s.players, dict(s.options),
                                                self.seed + game_no, self.source):
                    if self.stop_event.wait(self.interval):
                        return
                    self.outcomes.append(self._feed(observation))
            game_no += 1
            if self.stop_event.wait(self.pause_after_game):
                return
            with self.tables.lock(self.table_id):
                if not s.game.is_over() or s.series()["is_over"]:
                    return
                s.next_game(by="demo", expected_version=s.version)
            self.tables.changed(self.table_id)


class DemoCamera(FrameWorker):
    """What a camera would show of the demo table: vision's synthetic renderer draws the session's
    layout, the vision pipeline reads it and annotates what it recognised (host screen only)."""

    WIDTH = 960
    """Width of the frame sent to the host page (a phone-sized JPEG, ~60–100 kB)."""

    def __init__(self, tables: Any, table_id: str, finest: float = 1.7) -> None:
        from tablesim import synthetic
        from vision.table import layouts
        s = tables.get(table_id)
        self.layouts, self.synthetic = layouts, synthetic
        table = layouts.table_size(s.game_id, s.players)
        # set up as the set-up check asks: straight over the middle, as close as the table allows
        # (a new user's first look at the check is a camera where every card reads)
        self.camera = synthetic.straight_down(table, 1, finest)
        super().__init__(tables, table_id, "demo-camera")
        self.frames = 0

    def _run(self) -> None:
        import cv2
        shown: Any = None
        still = 0
        while not self.stop_event.is_set():
            s = self.tables.get(self.table_id)
            with self.tables.lock(self.table_id):
                layout = s.game.layout()
            key = freeze(layout)
            # a few still frames after each change (a card read once is confirmed by the next
            # frame, a change stands after two), then none until the table changes again
            still = still + 1 if key == shown else 0
            if still >= 4:
                self.stop_event.wait(0.3)
                continue
            placed = self.layouts.place(s.game_id, layout, s.players, random.Random(1))
            image, _ = self.synthetic.render(self.camera, placed, self.frames)
            self.raw = image
            self.pipeline.step(image)
            annotated = self.pipeline.annotated()
            if annotated is not None:
                h, w = annotated.shape[:2]
                small = cv2.resize(annotated, (self.WIDTH, int(h * self.WIDTH / w)),
                                   interpolation=cv2.INTER_AREA)
                ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 75])
                if ok:
                    self._jpeg = data.tobytes()
            self.frames += 1
            shown = key


def demo_table(tables: Any, game_id: str) -> Any:
    """A new table for the demo (a long series so the demo keeps going)."""
    players = DEMO_PLAYERS[game_id]
    names = ["Ann", "Ben", "Chie", "Dai", "Emi"][:players]
    return tables.create(game_id, players, names=names, options={}, rounds=99)


def wait_until(predicate: Callable[[], bool], timeout: float) -> bool:
    """Poll ``predicate`` until true or ``timeout`` seconds (for the command line and tests)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


