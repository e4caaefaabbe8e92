"""The camera (or a recorded video) watching one table: frames → vision pipeline → observations
→ ``TableSession.observe``; the latest annotated frame is what the host screen shows."""
from __future__ import annotations

import importlib
import threading
from typing import Any, Iterator


def vision_available() -> bool:
    """True when the vision pipeline (``vision.pipeline`` and ``vision.sources``) is installed."""
    try:
        importlib.import_module("vision.pipeline")
        importlib.import_module("vision.sources")
    except ModuleNotFoundError:
        return False
    return True


class FrameWorker:
    """A background thread that keeps the latest annotated frame of one table as JPEG."""

    def __init__(self, tables: Any, table_id: str, name: str) -> None:
        """Watch ``table_id`` of ``tables`` with a vision pipeline, in a thread called ``name``."""
        from vision.pipeline import Pipeline
        s = tables.get(table_id)
        self.tables, self.table_id = tables, table_id
        self.pipeline = Pipeline(s.game_id, s.players)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name=name)
        self._jpeg: bytes | None = None

    def _run(self) -> None:
        raise NotImplementedError

    def start(self):
        """Start the thread; return self."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop after the current frame."""
        self.stop_event.set()

    def frame(self, table_id: str) -> tuple[bytes, str] | None:
        """The latest annotated frame of this worker's table as JPEG (the app's FRAME_SOURCE)."""
        if table_id != self.table_id or self._jpeg is None:
            return None
        return self._jpeg, "image/jpeg"


class CameraFeed(FrameWorker):
    """Reads frames in a background thread and feeds each stable observation change to a table."""

    def __init__(self, tables: Any, table_id: str, *, camera: int | None = None,
                 video: str | None = None, images: str | None = None) -> None:
        from vision.sources import frames
        super().__init__(tables, table_id, "camera")
        self.frames: Iterator[Any] = frames(camera=camera, video=video, images=images)
        self.outcomes: list[str] = []
        self.error: str | None = None
        self.seen = 0
        self.done = threading.Event()

    def _run(self) -> None:
        try:
            for frame in self.frames:
                self.seen += 1
                if self.stop_event.is_set():
                    return
                observation = self.pipeline.step(frame)
                self._jpeg = self.pipeline.annotated_jpeg()
                if observation is None:
                    continue
                s = self.tables.get(self.table_id)
                with self.tables.lock(self.table_id):
                    self.outcomes.append(s.observe(observation, source="camera").kind)
                self.tables.changed(self.table_id)
        except Exception as err:  # a camera unplugged or a broken file: say so on the console
            self.error = f"{type(err).__name__}: {err}"
            print(f"companion serve: the camera stopped: {self.error}")
        finally:
            self.done.set()
