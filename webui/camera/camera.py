"""The camera (or a recorded video) watching one table: frames → vision pipeline → observations
→ ``TableSession.observe``; the latest annotated frame is what the host screen shows."""
from __future__ import annotations

import ctypes
import importlib
import threading
import time
from typing import Any, Iterator, NamedTuple

from webui.core.guard import retry_after, wait_words
from webui.core.i18n import both


def vision_available() -> bool:
    """True when the vision pipeline (``vision.pipeline`` and ``vision.frame.sources``) is installed."""
    try:
        importlib.import_module("vision.pipeline")
        importlib.import_module("vision.frame.sources")
    except ModuleNotFoundError:
        return False
    return True


class FrameWorker:
    """A background thread that keeps the latest annotated frame of one table as JPEG."""

    def __init__(self, tables: Any, table_id: str, name: str) -> None:
        """Watch ``table_id`` of ``tables`` with a vision pipeline, in a thread called ``name``."""
        self.tables, self.table_id = tables, table_id
        self.pipeline = self._new_pipeline()
        self.size: tuple[int, int] | None = None
        """(width, height) of the frames the pipeline reads; a frame of another size starts it over."""
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name=name)
        self._jpeg: bytes | None = None
        self.raw: Any = None
        """The latest frame as it came from the camera (BGR), for the set-up check."""
        self.checked: tuple[Any, Any, bytes | None] | None = None
        """(frame, its set-up check, its picture as JPEG): made once per frame (webui.camera.camera_page)."""
        self.restarts = 0
        """Times a frame of a new size started the pipeline over."""

    def _run(self) -> None:
        raise NotImplementedError

    def _new_pipeline(self) -> Any:
        from vision.pipeline import Pipeline
        s = self.tables.get(self.table_id)
        return Pipeline(s.game_id, s.players)

    def _sized(self, frame: Any) -> None:
        """Start the pipeline over for a frame of a new size (a phone turned: calibration and tracks
        start over, the session keeps the game). The old pipeline is dropped, not kept beside the
        new one: this thread is the only one that ever runs it, so a camera has one pipeline."""
        size = (frame.shape[1], frame.shape[0])
        if size == self.size:
            return
        turned, self.size = self.size is not None, size
        if turned:
            self.pipeline = self._new_pipeline()
            self._jpeg = None
            self.raw = self.checked = None
            give_back_memory()
            self.restarts += 1

    def retarget(self, table_id: str) -> None:
        """Watch ``table_id`` from now on (a rematch at the same table): the same source and the same
        pipeline, so its calibration and what it has seen carry over; a scene left as it was is
        not sent again, the next change goes to the new table."""
        self.table_id = table_id
        self.checked = None

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

    def __init__(self, tables: Any, table_id: str, *, camera: int | str | None = None,
                 video: str | None = None, images: str | None = None,
                 source: Iterator[Any] | None = None) -> None:
        """Watch a webcam, a video, an image folder, or any iterator of BGR frames (``source``:
        e.g. ``vision.frame.sources.PushedFrames``, a phone's camera)."""
        from vision.frame.sources import frames
        super().__init__(tables, table_id, "camera")
        self.frames: Iterator[Any] = source if source is not None else frames(
            camera=camera, video=video, images=images)
        self.outcomes: list[str] = []
        self.error: str | None = None
        self.seen = 0
        self.done = threading.Event()

    def stop(self) -> None:
        """Stop after the current frame (a phone's stream is closed, which wakes its reader)."""
        from vision.frame.sources import PushedFrames
        super().stop()
        if isinstance(self.frames, PushedFrames):
            self.frames.close()

    def _run(self) -> None:
        try:
            for frame in self.frames:
                self.seen += 1
                if self.stop_event.is_set():
                    return
                self._sized(frame)
                self.raw = frame
                observation = self.pipeline.step(frame)
                self._jpeg = self.pipeline.annotated_jpeg()
                if observation is None:
                    continue
                s = self.tables.get(self.table_id)
                with self.tables.lock(self.table_id):
                    outcome = s.observe(observation, source="camera")
                    self.outcomes.append(outcome.kind)
                if outcome.kind in ("applied", "prompt"):   # the table as the camera saw it: the replay shows it
                    picture = small_jpeg(frame)
                    if picture is not None:
                        self.tables.store.keep_frame(self.table_id, outcome.version, picture)
                self.tables.changed(self.table_id)
        except Exception as err:  # a camera unplugged or a broken file: say so on the console
            self.error = f"{type(err).__name__}: {err}"
            print(f"companion serve: the camera stopped: {self.error}")
        finally:
            self.done.set()


def small_jpeg(frame: Any, width: int = 320) -> bytes | None:
    """A camera frame (BGR) as a small JPEG for the replay, ``width`` px wide, made smaller until it
    fits the store's bound (``FRAME_BYTES``); None if it cannot be encoded."""
    import cv2
    from companion.session.store import FRAME_BYTES
    h, w = frame.shape[:2]
    for scale, quality in ((1.0, 70), (0.75, 60), (0.5, 50)):
        size = (max(1, int(width * scale)), max(1, int(h * width * scale / w)))
        ok, data = cv2.imencode(".jpg", cv2.resize(frame, size, interpolation=cv2.INTER_AREA),
                                [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok and len(data) <= FRAME_BYTES:
            return data.tobytes()
    return None


FRAME_MAX_BYTES = 8 * 1024 * 1024
"""Largest frame a phone may POST: a 4K JPEG at high quality is 2–4 MB, a 1080p one 0.3–0.8 MB."""

FRAME_MAX_PIXELS = 3840 * 2160
"""Largest frame a phone may send (4K); checked in the JPEG header, before anything is decoded."""

PHONE_GONE_S = 10.0
"""A phone camera that sent no frame for this long is shown as gone (screen off, page closed)."""


class FrameRefused(ValueError):
    """A pushed frame that is not taken: HTTP status and what to do about it."""

    def __init__(self, status: int, message: str, ja: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.ja, self.extra = status, message, ja, extra


FRAME_MAX_SCANS = 32
"""Most scans a progressive JPEG frame may have: a phone's has about 10 (libjpeg's script). Each scan
is another pass over every block of the image, so scans, not bytes, set the decoding cost: 2,000 empty
12-byte scans of a 1920×1080 frame are 36 kB and cost 2.4 s of CPU; 32 scans of a 4K frame ~0.2 s."""

PHONE_CAMERAS_MAX = 6
"""Phone cameras (each a thread and a vision pipeline) one server runs at once; a phone that sent
nothing for ``PHONE_GONE_S`` gives its place up to a new one (the app config's ``CAMERA_PHONES_MAX``)."""

_DECODERS = threading.BoundedSemaphore(2)
"""Frames decoded at once in the whole server (two cores): more wait their turn."""


class JpegHeader(NamedTuple):
    """What a JPEG's markers say before anything is decoded."""

    width: int
    height: int
    scans: int


def jpeg_header(data: bytes) -> JpegHeader | None:
    """Size and scan count of a JPEG from its markers alone; None if it is no JPEG or its markers
    are broken. The segments are walked by their lengths up to the first scan (an EXIF thumbnail is
    a JPEG inside one: skipped); after it, coded data never holds FF DA (an FF there is followed by
    00 or a restart), so the scans are counted with one search in C (a table between scans that
    happened to hold FF DA would count one scan too many, never one too few)."""
    if data[:3] != b"\xff\xd8\xff":
        return None
    size: tuple[int, int] | None = None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:                       # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if length < 2 or marker == 0xD9:
            return None
        # SOF0..SOF15 carry the size; C4 (Huffman tables), C8 and CC are not frame headers
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC) and size is None:
            if i + 9 > len(data):
                return None
            size = int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        if marker == 0xDA:                       # the first scan
            if size is None:                     # image data before any frame header: broken
                return None
            return JpegHeader(size[0], size[1], 1 + data.count(b"\xff\xda", i + 2 + length))
        i += 2 + length
    return None if size is None else JpegHeader(size[0], size[1], 0)   # cut off before its data


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's frame header, without decoding it; None if it is no JPEG."""
    header = jpeg_header(data)
    return None if header is None else (header.width, header.height)


def decode_frame(data: bytes) -> Any:
    """A pushed JPEG as a BGR frame, or ``FrameRefused`` saying what was wrong with it: its bytes,
    pixels and scans are checked in its markers before the decoder sees it."""
    import cv2
    import numpy as np
    if len(data) > FRAME_MAX_BYTES:
        raise FrameRefused(413, *both("The frame is {size} bytes; at most {most} are taken (send 1920×1080 JPEG "
                                     "frames).", size=len(data), most=FRAME_MAX_BYTES))
    header = jpeg_header(data)
    if header is None:
        raise FrameRefused(415, *both("The frame is not a JPEG image: send the camera frame as image/jpeg."))
    if header.width * header.height > FRAME_MAX_PIXELS or min(header.width, header.height) < 16:
        raise FrameRefused(413, *both("A {width}×{height} frame is not taken: send between 16×16 and 3840×2160 "
                                     "pixels (1920×1080 is best).", width=header.width, height=header.height))
    if header.scans > FRAME_MAX_SCANS:
        raise FrameRefused(413, *both("A progressive JPEG of more than {most} scans is not taken (a phone's camera "
                                     "makes about 10): send the camera's own JPEG frames.", most=FRAME_MAX_SCANS))
    frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if frame is None or (frame.shape[1], frame.shape[0]) != (header.width, header.height):
        raise FrameRefused(400, *both("The JPEG frame is damaged and cannot be decoded; send the next one."))
    return frame


def _silent_for(frames: Any) -> float:
    """Seconds since a phone's last frame (its start if it never sent one)."""
    return time.monotonic() - (frames.last_push if frames.last_push is not None else frames.started)


def give_back_memory() -> None:
    """Return freed heap to the system (glibc keeps a dropped pipeline's frame buffers otherwise:
    120 frames of new sizes left 575 MB resident with one pipeline alive); nothing elsewhere."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):   # not glibc: its allocator is left to itself
        pass


class Cameras:
    """Every table's frame worker in one server: a webcam, a video, the demo's or a phone's."""

    def __init__(self) -> None:
        self._workers: dict[str, FrameWorker] = {}
        self._moved: dict[str, str] = {}   # a finished table -> the rematch its camera went on to
        self._phones: list[CameraFeed] = []   # phone feeds whose thread may still run
        self._decoding: dict[str, threading.Lock] = {}   # a table's frame being decoded
        self._lock = threading.Lock()

    def move(self, old: str, new: str) -> FrameWorker | None:
        """A rematch of ``old`` is played at ``new``: the camera that watched ``old`` (webcam, video,
        a phone) watches ``new`` with the same source and calibration; None if ``old`` had none."""
        with self._lock:
            worker = self._workers.pop(old, None)
            if worker is None or new in self._workers:
                if worker is not None:
                    self._workers[old] = worker
                return None
            worker.retarget(new)
            self._workers[new] = worker
            self._moved[old] = new
            while old in self._moved.values():   # a chain of rematches: every old link leads here
                earlier = next(k for k, v in self._moved.items() if v == old)
                self._moved[earlier] = new
        return worker

    def moved_to(self, table_id: str) -> str | None:
        """The table the camera of finished ``table_id`` went on to (a rematch), or None."""
        return self._moved.get(table_id)

    def attach(self, table_id: str, worker: FrameWorker) -> FrameWorker:
        """Register ``worker`` as ``table_id``'s camera; return it."""
        with self._lock:
            self._workers[table_id] = worker
        return worker

    def get(self, table_id: str) -> FrameWorker | None:
        """The table's camera worker, or None."""
        return self._workers.get(table_id)

    def phone(self, tables: Any, table_id: str, most: int = PHONE_CAMERAS_MAX) -> CameraFeed:
        """The table's phone-camera feed, started on first use and again after it stopped: one per
        table, whatever the size of its frames (a new size starts its pipeline over, in its thread).
        A ``FrameRefused``: 409 when another camera already watches the table, 503 when ``most``
        phone cameras run in this server and none of them is gone (a gone one gives its place up)."""
        from vision.frame.sources import PushedFrames
        with self._lock:
            worker = self._workers.get(table_id)
            if isinstance(worker, CameraFeed) and isinstance(worker.frames, PushedFrames):
                if not worker.done.is_set():
                    return worker
            elif worker is not None:
                raise FrameRefused(409, *both("Another camera already watches this table (started with the "
                                              "server): stop it before using a phone as the camera."))
            self._phones = [f for f in self._phones if not f.done.is_set()]   # (a stopped one still reading counts)
            if len(self._phones) >= most:
                gone = [f for f in self._phones if not f.frames.closed and _silent_for(f.frames) > PHONE_GONE_S]
                if not gone:
                    raise FrameRefused(503, *both("This server already runs {most} phone cameras: stop one (close its "
                                                  "camera page) before starting another.", most=most))
                max(gone, key=lambda f: _silent_for(f.frames)).stop()
            feed = CameraFeed(tables, table_id, source=PushedFrames())
            self._workers[table_id] = feed
            self._phones.append(feed)
        return feed.start()

    def decode(self, table_id: str, data: bytes, budget: Any) -> Any:
        """Decode a frame pushed for ``table_id`` (``decode_frame``'s checks first), one at a time per
        table and two in the server, charging its CPU time to ``budget`` (a ``RateLimit`` in
        milliseconds): a 429 ``FrameRefused`` while the table's budget is spent or another of its
        frames is being decoded."""
        wait = budget.wait(table_id)
        if wait > 0:
            seconds = retry_after(wait)
            raise FrameRefused(429, *both("This camera's frames took too much time to decode: send smaller frames "
                                          "(1920×1080), then wait {wait}.", wait=wait_words(seconds)),
                               retry_after=seconds)
        with self._lock:
            busy = self._decoding.setdefault(table_id, threading.Lock())
        if not busy.acquire(blocking=False):
            raise FrameRefused(429, *both("A frame of this table is being read already: send one frame at a time."))
        try:
            with _DECODERS:
                started = time.thread_time()
                try:
                    return decode_frame(data)
                finally:
                    budget.spend(table_id, (time.thread_time() - started) * 1000)
        finally:
            busy.release()

    def frame(self, table_id: str) -> tuple[bytes, str] | None:
        """The table's latest annotated frame as JPEG (a ``FRAME_SOURCE``), or None."""
        worker = self._workers.get(table_id)
        return worker.frame(table_id) if worker is not None else None

    def close(self) -> None:
        """Stop every worker (the server is stopping)."""
        with self._lock:
            workers = list(self._workers.values())
        for worker in workers:
            worker.stop()


def cameras(app: Any) -> Cameras:
    """The app's camera registry (made on first use)."""
    with _REGISTRY_LOCK:
        return app.extensions.setdefault("cameras", Cameras())


_REGISTRY_LOCK = threading.Lock()


def follow_rematch(app: Any, old: str | None, new: str) -> FrameWorker | None:
    """The camera of table ``old`` goes on to watch its rematch ``new`` (same source, calibration)
    once ``old``'s game is over; the worker, or None if there was no camera to move."""
    if not old:
        return None
    tables = app.extensions["tables"]
    try:
        if not tables.get(old).is_over():   # a series that plays on keeps its camera
            return None
    except Exception:   # the play came from a session this database no longer has
        return None
    return cameras(app).move(old, new)


def frame_of(app: Any, table_id: str) -> tuple[bytes, str] | None:
    """The camera view of a table: its registered camera's frame, else the app's ``FRAME_SOURCE``."""
    frame = cameras(app).frame(table_id)
    if frame is None and app.config.get("FRAME_SOURCE"):
        frame = app.config["FRAME_SOURCE"](table_id)
    return frame
