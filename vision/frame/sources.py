"""Where frames come from: a webcam, a video file or a folder of images, all as one iterator of BGR
frames (``frames(...)``), so the pipeline has a single code path for live play and replays; a phone
streaming its camera to the server is one more source (``PushedFrames``)."""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(ValueError):
    """A camera, video or image folder that cannot be read, with what to do about it."""


def camera_frames(index: int | str, width: int = 1920, height: int = 1080) -> Iterator[np.ndarray]:
    """Frames from webcam ``index`` (or a device path such as /dev/video2; asks for ``width`` ×
    ``height``), until it stops delivering."""
    # OpenCV prints its own "[ WARN ] can't open camera by index" lines for every backend it tries;
    # our SourceError says what to do, so its warnings stay quiet while the camera is opened
    quiet = getattr(getattr(cv2, "utils", None), "logging", None)
    level = quiet.getLogLevel() if quiet else None
    if quiet:
        quiet.setLogLevel(quiet.LOG_LEVEL_ERROR)
    try:
        capture = cv2.VideoCapture(index)
    finally:
        if quiet:
            quiet.setLogLevel(level)
    if capture.isOpened():
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
    yield from _read(capture, f"cannot open camera {index}: is it plugged in and free? "
                              "Try another --camera index (0, 1, ...) or use --video/--images")


def video_frames(path: str | Path) -> Iterator[np.ndarray]:
    """Every frame of a video file, in order."""
    path = Path(path)
    if not path.is_file():
        raise SourceError(f"no video file {str(path)!r}: give the path of a recorded video")
    yield from _read(cv2.VideoCapture(str(path)), f"cannot read {str(path)!r} as a video: record it as MP4 or AVI")


def image_frames(folder: str | Path) -> Iterator[np.ndarray]:
    """The images of a folder in name order (PNG, JPEG, ...); other files are skipped."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SourceError(f"no folder {str(folder)!r}: give a folder of frame images")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise SourceError(f"no images in {str(folder)!r}: expected {', '.join(IMAGE_SUFFIXES)} files")
    for path in files:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SourceError(f"cannot read image {str(path)!r}: is it a valid image file?")
        yield image


def _read(capture: cv2.VideoCapture, cannot_open: str) -> Iterator[np.ndarray]:
    if not capture.isOpened():
        raise SourceError(cannot_open)
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                return
            yield frame
    finally:
        capture.release()


def frames(camera: int | str | None = None, video: str | Path | None = None,
           images: str | Path | None = None) -> Iterator[np.ndarray]:
    """Frames from exactly one of a camera (an index, a device path, or a video file: ``--camera``
    takes what ``--video`` takes), a video file or an image folder."""
    given = [x is not None for x in (camera, video, images)]
    if sum(given) != 1:
        raise SourceError("give exactly one frame source: a camera index, a video file or an image folder")
    # opened eagerly, so that a bad source fails here with its message, not in the middle of a loop
    if isinstance(camera, str) and camera.strip().isdigit():
        camera = int(camera)
    if isinstance(camera, str):
        if Path(camera).is_file():
            return _primed(video_frames(camera))       # a recording given as the camera
        if not Path(camera).exists():
            raise SourceError(f"no camera {camera!r}: give a camera index (0, 1, ...), a device such as "
                              "/dev/video0, or a video file")
    if camera is not None:
        return _primed(camera_frames(camera))
    if video is not None:
        return _primed(video_frames(video))
    return _primed(image_frames(images))


def _primed(it: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
    """Run a generator up to its first frame now (so its errors surface at once)."""
    try:
        first = next(it)
    except StopIteration:
        return iter(())
    return _chain(first, it)


def _chain(first: np.ndarray, rest: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
    yield first
    yield from rest


class PushedFrames:
    """Frames pushed in from elsewhere (a phone streaming its camera to the server), read as an
    iterator like the other sources. The reader always gets the newest frame: one pushed while the
    pipeline was busy replaces the one waiting (a live view, not a replay), so a slow machine reads
    fewer frames but never falls behind the table."""

    def __init__(self, poll: float = 0.5) -> None:
        """``poll``: seconds the reader waits for a frame before looking whether it was closed."""
        self.poll = poll
        self._ready = threading.Condition()
        self._waiting: np.ndarray | None = None
        self._closed = False
        self.pushed = 0
        self.dropped = 0
        self.last_push: float | None = None
        self.started = time.monotonic()
        self._size: tuple[int, int] | None = None

    def push(self, frame: np.ndarray) -> None:
        """Hand one BGR frame to the reader (replacing a frame it has not taken yet)."""
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise SourceError(f"a pushed frame must be a BGR image (h × w × 3), not shape {frame.shape}")
        with self._ready:
            if self._closed:
                raise SourceError("this frame source is closed")
            self.dropped += self._waiting is not None
            self._waiting = frame
            self._size = (frame.shape[1], frame.shape[0])
            self.pushed += 1
            self.last_push = time.monotonic()
            self._ready.notify()

    def close(self) -> None:
        """End the stream: the reader's loop stops after the frame it holds."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    @property
    def size(self) -> tuple[int, int] | None:
        """(width, height) of the frames pushed last (None before the first)."""
        return self._size

    @property
    def closed(self) -> bool:
        """True once ``close()`` was called."""
        return self._closed

    def __iter__(self) -> Iterator[np.ndarray]:
        return self

    def __next__(self) -> np.ndarray:
        with self._ready:
            while self._waiting is None:
                if self._closed:
                    raise StopIteration
                self._ready.wait(self.poll)
            frame, self._waiting = self._waiting, None
            return frame
