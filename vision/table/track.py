"""Tracking and stability: which cards lie on the table, steady through hands, shadows and misses.

* ``MotionMeter`` says whether a frame is *still*: it barely differs from the one before (compared
  small and smoothed, so sensor noise and JPEG do not count, a hand or a card being laid does).
* ``Tracker`` keeps one track per physical card. A card seen again (by its id, near where it was)
  keeps its track number and its known way up. A card not read in a frame stays on the table as
  ``source="tracked"`` while the frame moves (a hand passing), and on still frames while its
  rectified image still looks as it did when last read (a marker lost to glare or blur) or while
  its surroundings changed with it (a hand lying still over it); only a card whose own place alone
  looks different for ``drop_after`` still frames in a row is taken off.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Any, Callable

import cv2
import numpy as np

from vision.table.scene import SeenCard

MOTION_WIDTH = 240
"""Frames are compared at this width (1920 → 240: each pixel averages 64, so noise cancels)."""


class MotionMeter:
    """Whether the scene moved since the previous frame."""

    def __init__(self, threshold: float = 14.0, share: float = 0.0015) -> None:
        self.threshold = threshold      # grey levels a small pixel must change by to count
        self.share = share              # share of changed small pixels that counts as motion
        self.previous: np.ndarray | None = None
        self.last_share = 1.0

    def small(self, grey: np.ndarray) -> np.ndarray:
        """The frame reduced for comparison."""
        h, w = grey.shape[:2]
        out = cv2.resize(grey, (MOTION_WIDTH, max(1, round(h * MOTION_WIDTH / w))), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(out, (3, 3), 0)

    def still(self, grey: np.ndarray) -> bool:
        """True when ``grey`` barely differs from the previous frame given (False for the first)."""
        small = self.small(grey)
        previous, self.previous = self.previous, small
        if previous is None or previous.shape != small.shape:
            self.last_share = 1.0
            return False
        # a global change of brightness (auto exposure, a cloud) is not motion: match the means first
        gain = float(previous.mean()) / max(float(small.mean()), 1.0)
        diff = cv2.absdiff(cv2.convertScaleAbs(small, alpha=gain), previous)
        self.last_share = float(np.count_nonzero(diff > self.threshold)) / diff.size
        return self.last_share < self.share


@dataclass
class Track:
    """One physical card followed across frames."""

    number: int
    card: SeenCard
    missing: int = 0                # still frames in a row where it was not read and looked changed
    upright_known: bool = False     # its way up came from a QR code
    qr: bool = False                # its QR code was read at least once
    patch: Any = None               # what it looked like when last read on a still frame: ``.image()``


Looks = Callable[[Track, list[Track]], str]
"""How a track's card looks where it lay, compared with when it was last read, given the other
tracks not read either: "same" (a missed read), "covered" (something lies over it and its
surroundings) or "changed" (it is gone)."""


class Tracker:
    """Tracks of every card on the table (see the module docstring)."""

    def __init__(self, drop_after: int = 2, match_mm: float = 40.0) -> None:
        self.drop_after = drop_after
        self.match_mm = match_mm
        self.tracks: list[Track] = []
        self._numbers = itertools.count(1)

    def update(self, seen: list[SeenCard], still: bool, looks: Looks | None = None,
               scope: Callable[[Track], bool] | None = None) -> list[Track]:
        """Fold one frame's sightings (``track`` ignored) into the tracks; returns the tracks the
        sightings matched, in the order of ``seen``; new cards get new tracks. With ``scope``, only
        the tracks it accepts were looked for (the rest of the frame did not change)."""
        in_scope = {t.number for t in self.tracks if scope is None or scope(t)}
        unmatched = list(self.tracks)
        matched: list[Track] = []
        for card in seen:
            same = [t for t in unmatched if t.card.card_id == card.card_id]
            track = None
            if len(same) == 1 and same[0].number in in_scope and \
                    sum(c.card_id == card.card_id for c in seen) == 1:
                track = same[0]     # the only copy of this card: the same card, however far it moved
            elif same:
                near = min(same, key=lambda t: math.dist(t.card.centre, card.centre))
                if math.dist(near.card.centre, card.centre) <= self.match_mm:
                    track = near
            if track is None:
                track = Track(next(self._numbers), card)
                self.tracks.append(track)
            else:
                unmatched.remove(track)
            track.card = replace(card, track=track.number)
            track.missing = 0
            matched.append(track)
        # a card lies in one place: read somewhere, any other track of it is where it was (a card
        # taken to a player's fan is not also left in the circle for the tracker to keep)
        moved = {c.card_id for c in seen if c.face_up}
        for track in [t for t in unmatched if t.card.face_up and t.card.card_id in moved]:
            unmatched.remove(track)
            self.tracks.remove(track)
        unmatched = [t for t in unmatched if t.number in in_scope]
        for track in unmatched:
            if track.card.source != "tracked":
                track.card = replace(track.card, source="tracked")
            if not still:
                continue            # something moves: a hand may cover it; decide when still
            look = "changed" if looks is None else looks(track, unmatched)
            if look == "same":
                track.missing = 0
            if look != "changed":
                continue
            track.missing += 1
            if track.missing >= self.drop_after:
                self.tracks.remove(track)
        return matched

    def cards(self) -> list[SeenCard]:
        """Every card believed on the table, by track number."""
        return [t.card for t in sorted(self.tracks, key=lambda t: t.number)]

    def find(self, card_id: str, centre: tuple[float, float]) -> Track | None:
        """The track of ``card_id`` nearest to ``centre`` (None if it has none)."""
        same = [t for t in self.tracks if t.card.card_id == card_id]
        return min(same, key=lambda t: math.dist(t.card.centre, centre)) if same else None
