"""The vision pipeline: camera frames in, table scenes and stable observation changes out.

``Pipeline(game_id, players).process(frame)`` returns a ``TableScene`` (None until the K-CAL markers
have been seen); ``Pipeline.changes(frames)`` yields each *stable observation change*: the
observation ``vision.table.layouts.read(game_id, scene, players)`` of a still scene, once it has read the
same for ``persist`` still frames in a row and differs from the last one yielded.
``Pipeline.annotated_jpeg()`` gives the latest frame with what the companion sees drawn on it.
"""
from __future__ import annotations

import logging
import math
import threading
from concurrent.futures import Future
from dataclasses import replace
from typing import Any, Iterable, Iterator

import cv2
import numpy as np

from companion import catalogue as cat
from vision.frame import deblur, quality
from vision.frame.pyramid import PyramidFinder
from vision.frame.quality import FrameQuality, QualityMeter
from vision.reading import byqr, plane, smeared, soft
from vision.reading.detect import Box, Detector, Sighting, card_pose_mm, cards_in_play, map_points, poses_on_table
from vision.reading.markers import pool
from vision.table.calibrate import Calibration, CalibrationLayout, calibrate
from vision.table.scene import SeenCard, TableScene
from vision.table.track import MotionMeter, Track, Tracker

log = logging.getLogger(__name__)

PATCH_PX_PER_MM = 1.0
"""Tracks remember their card's look at this resolution (63 × 88 px), to tell a missed read from a
card taken away."""

SAME_LOOK = 0.6
"""Normalised correlation above which a card's place still shows the same card."""

UNCOVERED_SHARE = 0.08
"""A card not read is compared with how it looked only where no card lies over it (a card read now
whose marker lies on it, or one laid or moved onto it since), if that is at least this share of it
(a cascade step leaves ~27 %, a terminal in Chains' rows ~13 %): a missed read still looks the
same there though the card on top is new; a card taken from under others shows what was below."""

SAME_PART = 0.85
"""The same, for the uncovered part only: a strip of another white card with black print (the card
that lay under the one taken) correlates up to ~0.7 with it; the same card missed, ~0.95 and more."""

MOVED_MM = 5.0
"""A card read this far from where it lay is a card moved (it now lies on top of what it overlaps)."""

RING_MM = 15.0
"""Around cards gone from view, this band of the table is compared too: when it changed as well,
something (a hand, an arm) lies over them; cards taken away change only their own places."""

RING_CHANGE = 10
"""Grey levels by which a band pixel (240 px wide frame) must change to count as covered."""

RING_SHARE = 0.04
"""Share of the band that must have changed: an arm crosses only a part of it."""

CALIBRATION_MOVED_PX = 1.5
"""The calibration is recomputed when a K-CAL marker's corners moved this much (camera bumped)."""

FULL_EVERY = 20
"""Once the scene has settled, still frames look for markers only where the image changed; every
this many still frames the whole frame is searched again (a card missed by every look so far)."""

GROW_MM = 50.0
"""A changed region is searched with this margin: enough to include the markers of a card of which
only a part changed (a card laid half over another)."""

RECHECK_MM = 10.0
"""A card read once by one marker (held back, ``CONFIRM_MM``) when the scene settled is read again
in the next still frame only in its own place grown by this margin, not by another full look."""

SMALL_PX_PER_MM = 1.35
"""Below this resolution anywhere on the table in view, 15 mm markers are under ~20 px wide and the
marker finder also searches the threshold window only small markers need (``vision.reading.markers``)."""

LARGE_PX_PER_MM = 1.6
"""At or above this resolution everywhere on the table in view, 15 mm markers are over ~24 px wide
and the marker finder leaves out its finest threshold window (``vision.reading.markers.FINE_ONLY``)."""

QR_TRIES = 3
"""A card whose QR code is not read after this many tries is left to its markers (e.g. a cascade)."""

CONFIRM_MM = 10.0
"""A card read by one marker alone, without its QR code and with no track, is held back until the
same id is read again this close to where it was, in a later frame (one misread is not a card)."""

CONFIRM_LOOKS = 3
"""...within this many looks: a lone marker at ~1.0 px/mm may read in one frame, not in the next,
and again in the one after (the conditions bench's frames at 1.0 px/mm: a dim room's card and a
blurred one, issue 24); two reads of one id in one place are two reads however far apart."""

QUALITY_EVERY = 8
"""Still frames in which nothing changed are judged for blur and glare every this many frames."""

GLARE_COVERS = 0.5
"""A card not read whose place is washed out by glare over more than this share of it is taken as
covered (kept, like a card under a hand): too little of it shows to tell whether it is still there."""


def default_layout(game_id: str, players: int) -> CalibrationLayout:
    """The game's planned table (vision.table.layouts.table_size) with K-CAL1..4 in its corners."""
    from vision.table import layouts
    return CalibrationLayout.corners(*layouts.table_size(game_id, players))


class Pipeline:
    """Detection, calibration, tracking and reading for one game at one table."""

    def __init__(self, game_id: str, players: int, *, layout: CalibrationLayout | None = None,
                 decoder: str = "zxing", detector: str = "quads", persist: int = 2, drop_after: int = 1,
                 qr_per_frame: int = 6) -> None:
        self.game_id = game_id
        self.players = players
        self.layout = layout or default_layout(game_id, players)
        self.detector = Detector(decoder, detector, cards_in_play(game_id, players))
        # a 4K frame: candidates at half size (vision.frame.pyramid); the second reader of coarse
        # squares as the detector's own finder (vision.reading.soft)
        first = self.detector.finder
        # ... and after it the QR reader of what it leaves (vision.reading.byqr)
        self.detector.finder = PyramidFinder(markers=first.markers, second_read=byqr.reader(first.second_read))
        self._sharp_finder = PyramidFinder(markers=first.markers,    # for sharpened frames (``_detect``)
                                           second_read=first.second_read)
        self.motion = MotionMeter()
        self.quality = QualityMeter()
        self.frame_quality: FrameQuality | None = None   # of the last frame assessed for reading
        self.refused: str | None = None                   # why the last frame was not read, or None
        self.smear: deblur.Smear | None = None            # the last frame read: its smear undone
        self.ignored: list[plane.Ignored] = []            # last frame read: not cards on the table
        self._told: set[tuple[str, str]] = set()
        self._since_quality = 0
        self.tracker = Tracker(drop_after=drop_after)
        self.persist = persist
        self.qr_per_frame = qr_per_frame
        self.calibration: Calibration | None = None
        self.frame_index = -1
        self._qr_tries: dict[int, int] = {}
        self._qr_budget = qr_per_frame
        self._qr_conflicts: dict[int, str] = {}
        self._scanned = False
        self._small: tuple[Calibration, float] | None = None    # (calibration, least px/mm in view)
        self._covered: tuple[int, set[int]] | None = None
        self._cal_seen: dict[str, np.ndarray] = {}
        self._reference: np.ndarray | None = None     # the small grey frame of the settled scene
        self._signature: tuple[str, ...] = ()
        self._settled = 0
        self._since_full = 0
        self._lock = threading.Lock()
        self._last: tuple[np.ndarray, TableScene | None] | None = None
        self._pending: tuple[Any, int] | None = None
        self.last_observation: dict | None = None
        self._patched: dict[int, int] = {}     # track number -> frame index of its patch
        self._marks: list[tuple[str, Any, np.ndarray]] = []   # this frame: id, corners, marker mm
        self._last_marks: dict[int, tuple[str, Any, np.ndarray]] = {}   # track -> the same, last read
        self._arrived: dict[int, tuple[tuple[float, float], int]] = {}   # -> (place, since frame)
        self._tentative: list[tuple[int, SeenCard]] = []    # (look, card) read once by one marker: held back
        self._recent: list[tuple[int, SeenCard]] = []       # (look, card) every read of the last looks
        self._reads = 0                                      # looks that read markers (``_confirmed``)
        self._recheck: list[SeenCard] = []      # tentative when the scene settled: read again next
        self._rechecking = False                # this frame reads only those places (``_on_table``)
        self.last_look: str = "none"
        """How the last frame was searched for markers: "full" (the whole frame), "changed" (only
        where it changed since the scene settled) or "none" (moving, or nothing changed)."""

    # --- one frame -------------------------------------------------------------------------------
    def process(self, frame: np.ndarray) -> TableScene | None:
        """Read one BGR frame: the scene of tracked cards in table mm, None until calibrated."""
        self.frame_index += 1
        self.last_look = "none"
        # (a copy of a grey frame: tracks keep it to cut out how cards looked, see _Look)
        grey = frame.copy() if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        still = self.motion.still(grey)
        self.quality.jumped(self.motion.previous, grey.shape[1])
        self.refused = None
        if not still and self.calibration is not None:
            # the scene moves (a hand, a card being laid): nothing on it is read until it settles,
            # so the tracks stand as they are and the markers are not searched (the costly part)
            self._scanned = False
            return self._scene(frame, still)
        boxes = self._changed_boxes(grey.shape)
        if boxes == []:
            self._since_full += 1       # still, and nothing changed since the scene settled
            # blur barely shows at the motion meter's size: a camera going out of focus, or shaking
            # faster than the frame rate, leaves the small frame as it was; look now and then
            # (every frame while the last look refused it, to notice at once when it is sharp)
            self._since_quality += 1
            if self._since_quality >= QUALITY_EVERY or (self.frame_quality and self.frame_quality.refused):
                self._assess(grey)
            if self.frame_quality is not None and self.frame_quality.refused:
                self.refused = self.frame_quality.refused
                return self._scene(frame, False)
            return self._scene(frame, still)
        # a frame smeared by shake or out of focus is not read: markers would be missed (and cards
        # taken for gone) or, worse, misread; the tracks stand as on a moving frame. It is judged
        # on another core while this one looks for markers (what was found is dropped if refused)
        self.last_look = "full" if boxes is None else "changed"
        judged = pool().submit(self._assess, grey)
        # once per settled scene, the frame is scanned for QR codes no marker points at (a card
        # whose both markers are covered, or a foreign code: logged and ignored), on another core
        # while this one looks for markers
        scan = pool().submit(self.detector.scan_qr_full, grey, boxes) \
            if still and not self._scanned and self.calibration is not None else None
        size = (grey.shape[1], grey.shape[0])
        # codes are read from ``sharp``: the frame itself, or with its motion smear undone
        # (``vision.frame.deblur``); while the camera keeps shaking, the judgement is awaited first
        sharp = self._sharpened(grey, judged.result()) if self.smear is not None else grey

        def calibration(markers: dict[str, np.ndarray]) -> Calibration | None:
            # the cards are grouped on the table through the calibration, which a refused
            # (smeared) frame does not update, nor corners read before its smear is undone
            q = judged.result()
            if boxes is not None:
                # only the changed regions were searched: the corners read before lie where they
                # were (two corners laid in a region must not replace the four the scene showed)
                markers = {**self._cal_seen, **markers}
            return self.calibration if q.refused or (sharp is grey and deblur.wanted(q)) \
                else self._calibrate(markers, still, size)
        self.detector.small_markers = self._small_markers(grey.shape)
        self.detector.large_markers = self._large_markers(grey.shape)
        found = self._detect(sharp, grey, boxes, calibration)
        if sharp is grey and deblur.wanted(judged.result()):
            # smeared, unlike the last frame: read again from the sharpened frame
            sharp = self._sharpened(grey, judged.result())
            found = self._detect(sharp, grey, boxes, calibration)
        if sharp is not grey and scan is not None:
            scan.result()
            scan = pool().submit(self.detector.scan_qr_full, sharp, boxes)
        self.refused = judged.result().refused
        if self.refused is not None:
            log.info("frame %d not read: %s (blur %.1f px, focus %.1f px)", self.frame_index, self.refused,
                     self.frame_quality.blur_px, self.frame_quality.focus_px)
            if scan is not None:
                scan.result()
            self._scanned = False
            if self.calibration is None:
                with self._lock:
                    self._last = (frame, None)
                return None
            return self._scene(frame, False)
        # a little smear (a shaky camera): what it reads is kept, but a card it misses is not taken
        # off (its look would not compare), as on a moving frame
        steady = still and self.frame_quality.blur_px <= quality.BLUR_WARN_PX
        if self.calibration is None:
            with self._lock:
                self._last = (frame, None)
            return None
        cal = self.calibration
        sightings = list(found.sightings)
        if still and not self._scanned:
            self._scanned = True
            codes = scan.result() if scan is not None else self.detector.scan_qr_full(sharp, boxes)
            sightings += self._qr_only(codes, sightings, cal)
        sightings = self._on_table(frame, grey, sightings, cal, self._rechecking)
        poses = poses_on_table(sightings, cal)
        seen: list[SeenCard] = [None] * len(sightings)     # type: ignore[list-item]
        # cards read by one marker first: their QR code is what confirms them soonest; the codes
        # this frame's budget allows are decoded on both cores (each crop alone), then applied in turn
        order = sorted(range(len(sightings)), key=lambda i: sightings[i].markers > 1)
        tracks = [self._track_of(sightings[i], poses[i]) for i in order]
        codes_read = [pool().submit(self.detector.read_qr, sharp, sightings[i]) if self._wants_qr(sightings[i], track)
                      else None for i, track in zip(order, tracks)]
        for i, track, code in zip(order, tracks, codes_read):
            seen[i] = self._read(sightings[i], cal, poses[i], track, code)
        keep = self._confirmed(sightings, seen)
        sightings = [s for s, k in zip(sightings, keep) if k]
        seen = [c for c, k in zip(seen, keep) if k]
        # where each sighting's read points lie on the table, mapped once for _visible and _marks
        marks_mm = np.split(cal.to_table(np.vstack([s.image_pts for s in sightings])),
                            np.cumsum([len(s.image_pts) for s in sightings])[:-1]) if sightings else []
        _visible(seen, marks_mm)
        self._marks = [(c.card_id, c.corners, m) for c, m in zip(seen, marks_mm)]
        scope = None if boxes is None else (lambda t: _inside(cal.to_image(np.array([t.card.centre]))[0], boxes))
        matched = self.tracker.update(seen, steady, lambda t, gone: self._looks(grey, t, gone), scope)
        for mark, track in zip(self._marks, matched):
            self._last_marks[track.number] = mark
        for s, track in zip(sightings, matched):
            track.qr = track.qr or s.qr == s.card_id
            track.upright_known = track.upright_known or s.upright_known
            if s.qr is not None and s.qr != s.card_id:
                self._qr_conflicts[track.number] = f"{s.card_id}: its QR code says {s.qr}"
                log.warning("conflict: %s", self._qr_conflicts[track.number])
            placed = self._arrived.get(track.number)
            if placed is None or math.dist(placed[0], track.card.centre) > MOVED_MM:
                self._arrived[track.number] = (track.card.centre, self.frame_index)
            if steady:
                track.patch = _Look(grey, track.card, cal)
                self._patched[track.number] = self.frame_index
        for track in self.tracker.tracks:
            if isinstance(track.patch, _Look):
                track.patch.keep_only(grey)     # no older frame stays in memory
        if len(self._arrived) > 2 * len(self.tracker.tracks) + 200:
            live = {t.number for t in self.tracker.tracks}
            self._arrived = {n: v for n, v in self._arrived.items() if n in live}
            self._patched = {n: v for n, v in self._patched.items() if n in live}
            self._last_marks = {n: v for n, v in self._last_marks.items() if n in live}
        self._settle(boxes, still)
        return self._scene(frame, still)

    def _on_table(self, frame: np.ndarray, grey: np.ndarray, sightings: list[Sighting],
                  cal: Calibration, recheck: bool = False) -> list[Sighting]:
        """The sightings that are cards lying on the table: not a picture on a screen, not held
        above the table, not outside the play area (``vision.reading.plane``); the others are kept in
        ``ignored`` (drawn on the annotated frame) and logged once. A ``recheck`` look (only the
        places of cards read once, nothing changed) adds to what was ignored, it does not replace it."""
        area = self.layout.bounds() if self.layout.name == "corners" else None
        reasons = plane.judge(sightings, frame, cal, area, grey)
        new = [plane.Ignored(s.card_id, r, tuple(map(tuple, s.outline_px().round(1).tolist())))
               for s, r in zip(sightings, reasons) if r is not None]
        again = {(i.card_id, i.reason) for i in new}
        self.ignored = ([i for i in self.ignored if (i.card_id, i.reason) not in again] if recheck else []) + new
        for item in self.ignored:
            if (item.card_id, item.reason) not in self._told:
                self._told.add((item.card_id, item.reason))
                log.info("ignored %s: %s", item.card_id, quality.message(item.reason))
        return [s for s, r in zip(sightings, reasons) if r is None]

    def _detect(self, sharp: np.ndarray, grey: np.ndarray, boxes: list[Box] | None,
                calibration: Any) -> Any:
        """``Detector.detect`` on ``sharp``; on a sharpened frame (not ``grey``) with the window for
        small markers on (a sharpened border is less crisp, and the small window finds many markers
        the others miss: 10 % more at 5 px of smear, 1.4 px/mm) and the coarse squares read through
        the smear (``vision.reading.smeared``). The 3 px window stays on: since the candidate mask it
        costs 6–17 ms there (was ~100 ms), and at 1.0 px/mm it finds squares the others outline badly
        (a lone marker of the conditions bench's 3 px smear, read exactly only there)."""
        if sharp is grey:
            return self.detector.detect(sharp, boxes, calibration)
        finder, small, large = self.detector.finder, self.detector.small_markers, self.detector.large_markers
        self.detector.finder, self.detector.small_markers, self.detector.large_markers = self._sharp_finder, True, False
        # coarse squares are read again through the smear and its filter (``vision.reading.smeared``)
        self._sharp_finder.second_read = byqr.reader(smeared.reader(self.smear) if self.smear is not None
                                                      else soft.second_read)
        try:
            return self.detector.detect(sharp, boxes, calibration)
        finally:
            self.detector.finder, self.detector.small_markers, self.detector.large_markers = finder, small, large

    def _sharpened(self, grey: np.ndarray, judged: FrameQuality) -> np.ndarray:
        """``grey`` with its motion smear undone if ``judged`` smeared enough (``vision.frame.deblur``),
        else ``grey`` itself; the smear is kept in ``smear``."""
        self.smear = deblur.smear_of(grey, judged)
        if self.smear is None:
            return grey
        log.debug("frame %d sharpened: a smear of %.1f px at %.0f°", self.frame_index, self.smear.length,
                  self.smear.angle)
        return deblur.sharpen(grey, self.smear)

    def _assess(self, grey: np.ndarray) -> FrameQuality:
        """Judge this frame's sharpness, glare and exposure (``vision.frame.quality``); kept for ``status``."""
        self._since_quality = 0
        self.frame_quality = self.quality.assess(grey, self.calibration, self.layout.bounds(), self.marker_outlines())
        return self.frame_quality

    def marker_outlines(self) -> list[np.ndarray]:
        """Frame px outlines (4, 2) of every marker (or QR code) of a tracked card where it was last
        read, so in view: glare over them counts whatever its size (no marker is mostly white)."""
        cal = self.calibration
        live = {t.number for t in self.tracker.tracks}
        marks = [m for n, (_, _, m) in self._last_marks.items() if n in live and len(m) % 4 == 0]
        if cal is None or not marks:
            return []
        return list(cal.to_image(np.vstack(marks)).reshape(-1, 4, 2))

    def _track_of(self, s: Sighting, pose: np.ndarray) -> Track | None:
        """The track a sighting (``pose``: its ``to_table``) continues, if any."""
        centre, _ = card_pose_mm(map_points(pose, s.outline_card()))
        return self.tracker.find(s.card_id, centre)

    def _wants_qr(self, s: Sighting, track: Track | None) -> bool:
        """Whether this sighting's QR code is read now: its track does not have it yet, within the
        frame's budget and the track's tries (both counted here)."""
        wants_qr = s.markers > 0 and cat.qr_rect(s.card_id) is not None and (
            track is None or (not track.qr and self._qr_tries.get(track.number, 0) < QR_TRIES))
        if not wants_qr or self._qr_budget <= 0:
            return False
        self._qr_budget -= 1
        if track is not None:
            self._qr_tries[track.number] = self._qr_tries.get(track.number, 0) + 1
        return True

    def _read(self, s: Sighting, cal: Calibration, pose: np.ndarray, track: Track | None,
              code: Future | None) -> SeenCard:
        """One sighting (``pose``: its ``to_table``; ``track``: ``_track_of``) into table mm, with its
        QR code's read (``code``: ``Detector.read_qr``'s, when ``_wants_qr``), its way up kept from
        the track."""
        if track is not None and track.qr:
            s.source = "marker+qr"
        if code is not None:
            if code.result() is not None:
                s.source = "marker+qr"
                pose = s.to_table(cal)
        elif track is not None and track.upright_known:
            _, angle = card_pose_mm(map_points(pose, s.outline_card()))
            if abs((angle - track.card.angle + 180) % 360 - 180) > 90:
                s.flip()        # keep the way up its QR code once showed
                s.upright_known = True
                pose = s.to_table(cal)
        return self._seen(s, pose)

    def _confirmed(self, sightings: list[Sighting], seen: list[SeenCard]) -> list[bool]:
        """Which sightings are cards: read by two markers, by the QR code, or the card of a track;
        any other is held back until another frame, within ``CONFIRM_LOOKS`` looks, reads the same
        id within ``CONFIRM_MM`` of it (a read of it as a card then counts too)."""
        self._reads += 1
        young = [(n, t) for n, t in self._recent if self._reads - n < CONFIRM_LOOKS]

        def again(card: SeenCard, reads: list[tuple[int, SeenCard]]) -> bool:
            return any(t.card_id == card.card_id and math.dist(t.centre, card.centre) <= CONFIRM_MM for _, t in reads)

        out, tentative = [], []
        for s, card in zip(sightings, seen):
            sure = s.markers > 1 or s.qr == s.card_id or s.source != "marker"
            if not sure:
                track = self.tracker.find(card.card_id, card.centre)
                sure = track is not None and math.dist(track.card.centre, card.centre) <= self.tracker.match_mm
            if not sure:
                sure = again(card, young)
                if not sure:
                    tentative.append((self._reads, card))
            out.append(sure)
        now = [(self._reads, c) for c in seen]
        self._tentative = [(n, t) for n, t in self._tentative
                           if self._reads - n < CONFIRM_LOOKS and not again(t, now)] + tentative
        self._recent = young + now
        return out

    def _changed_boxes(self, shape: tuple[int, ...]) -> list[Box] | None:
        """Where to look for markers in this still frame: None for the whole frame (not calibrated
        or settled yet, or the periodic full look), else the regions that changed since the scene
        last settled, grown by most of a card ([] when nothing changed)."""
        self._qr_budget = self.qr_per_frame
        recheck, self._recheck = self._recheck, []
        self._rechecking = False
        if self._reference is None or self.calibration is None or self._since_full >= FULL_EVERY:
            return None
        # the places of cards read once by one marker when the scene settled (``_settle``)
        again = [_box(self.calibration.to_image(np.array(c.corners)), RECHECK_MM * self.calibration.px_per_mm(c.centre),
                      shape) for c in recheck]
        small = self.motion.previous
        changed = (cv2.absdiff(small, self._reference) > self.motion.threshold).astype(np.uint8)
        if not changed.any():
            self._rechecking = bool(again)
            return again
        scale = shape[1] / small.shape[1]
        grow = int(np.ceil(GROW_MM * self.calibration.px_per_mm(self._table_centre()) / scale))
        changed = cv2.dilate(changed, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * grow + 1, 2 * grow + 1)))
        if changed.mean() > 0.5:
            return None
        count, _, stats, _ = cv2.connectedComponentsWithStats(changed)
        boxes = []
        for x, y, w, h, _ in stats[1:count]:
            boxes.append((int(x * scale), int(y * scale), min(int((x + w) * scale), shape[1]),
                          min(int((y + h) * scale), shape[0])))
        return boxes + again

    def _small_markers(self, shape: tuple[int, ...]) -> bool:
        """Whether markers may be small (under ``SMALL_PX_PER_MM`` somewhere on the table in view,
        or not calibrated yet): the finder then searches its extra window for them."""
        return self._least_px_per_mm(shape) < SMALL_PX_PER_MM

    def _large_markers(self, shape: tuple[int, ...]) -> bool:
        """Whether every marker is large (``LARGE_PX_PER_MM`` or more everywhere on the table in
        view, once calibrated): the finder then leaves out its finest window."""
        return self._least_px_per_mm(shape) >= LARGE_PX_PER_MM

    def _least_px_per_mm(self, shape: tuple[int, ...]) -> float:
        """The least px/mm over the table in view (0 when not calibrated or none of it is in view),
        worked out once per calibration."""
        cal = self.calibration
        if cal is None:
            return 0.0
        if self._small is None or self._small[0] is not cal:
            x0, y0, x1, y1 = self.layout.bounds()
            xs, ys = np.meshgrid(np.linspace(x0, x1, 13), np.linspace(y0, y1, 9))
            grid = np.column_stack([xs.ravel(), ys.ravel()])
            px, right, down = (cal.to_image(grid + step) for step in ((0, 0), (10, 0), (0, 10)))
            scale = (np.linalg.norm(right - px, axis=1) + np.linalg.norm(down - px, axis=1)) / 20
            seen = (px[:, 0] >= 0) & (px[:, 0] < shape[1]) & (px[:, 1] >= 0) & (px[:, 1] < shape[0])
            self._small = (cal, float(scale[seen].min()) if seen.any() else 0.0)
        return self._small[1]

    def _table_centre(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.layout.bounds()
        return ((x0 + x1) / 2, (y0 + y1) / 2)

    def _settle(self, boxes: list[Box] | None, still: bool) -> None:
        """Remember the frame as the settled scene once a full look at a still frame left nothing
        in doubt, or the cards on it stayed the same for ``persist`` still frames: later still
        frames look only where the image changed since."""
        self._since_full = 0 if boxes is None else self._since_full + 1
        signature = tuple(sorted(t.card.card_id for t in self.tracker.tracks))
        # a card about to be taken off, or one read once waiting for a second read
        missing = any(t.missing for t in self.tracker.tracks)
        pending = missing or bool(self._tentative)
        self._settled = 0 if pending else self._settled + 1 if signature == self._signature else 1
        self._signature = signature
        # a full look at a still frame that left nothing in doubt settles the scene at once (later
        # still frames look only where they change; every ``FULL_EVERY``-th looks whole again). Not
        # a stream's first frame: it is never still (nothing before it), and the scene's QR scan
        # (codes no marker points at) runs on its first still frame
        if self._settled >= (1 if boxes is None and still else self.persist):
            self._reference = self.motion.previous
        elif boxes is None and still and not missing:
            # in doubt only about cards read once by one marker (a fan's, a cascade's, a seat
            # token): settled too; the next still frame reads their places again, not the whole frame
            self._reference = self.motion.previous
        self._recheck = [c for _, c in self._tentative] if still and not missing and self._reference is not None else []

    def _scene(self, frame: np.ndarray, still: bool) -> TableScene:
        cards, seats = [], {}
        for card in self.tracker.cards():
            if card.card_id.startswith("T-SEAT"):
                seats[int(card.card_id[6:]) - 1] = card.centre
            else:
                cards.append(card)
        numbers = {t.number for t in self.tracker.tracks}
        conflicts = [text for n, text in self._qr_conflicts.items() if n in numbers]
        by_id: dict[str, list[SeenCard]] = {}
        for card in self.tracker.cards():
            if card.face_up:
                by_id.setdefault(card.card_id, []).append(card)
        for card_id, copies in by_id.items():
            if len(copies) > 1:
                where = ", ".join(f"({c.centre[0]:.0f}, {c.centre[1]:.0f}) mm" for c in copies)
                conflicts.append(f"{card_id}: {len(copies)} copies in view at {where}")
        scene = TableScene(tuple(cards), seats, still, tuple(conflicts), self.frame_index)
        with self._lock:
            self._last = (frame, scene)
        return scene

    def _qr_only(self, codes: list[tuple[str, np.ndarray]], sightings: list[Sighting],
                 cal: Calibration) -> list[Sighting]:
        """Cards found by QR codes (``Detector.scan_qr_full``) that no marker sighting explains: a
        code near a sighting of its card only confirms that card."""
        found = []
        centres = cal.to_table(np.array([s.centre_px() for s in sightings])) if sightings else np.zeros((0, 2))
        from_codes = [self.detector.sighting_from_qr(card_id, corners) for card_id, corners in codes]
        # every code's card centre through the calibration in one pass
        code_centres = cal.to_table(np.array([s.centre_px() for s in from_codes])) if codes else np.zeros((0, 2))
        for (card_id, _), s, centre in zip(codes, from_codes, code_centres):
            near = [o for o, c in zip(sightings, centres) if o.card_id == card_id
                    and np.linalg.norm(c - centre) < 40]
            if near:
                near[0].qr = card_id
                continue
            s.upright_known = True
            found.append(s)
        return found

    def _calibrate(self, markers: dict[str, np.ndarray], still: bool, frame: tuple[int, int]) -> Calibration | None:
        """Calibrate (again) from the K-CAL markers read, if they moved; the calibration to use."""
        current = self.calibration
        if current is not None and (not still or len(markers) < len(current.markers)):
            return current
        moved = [k for k in markers if k not in self._cal_seen
                 or np.abs(markers[k] - self._cal_seen[k]).max() > CALIBRATION_MOVED_PX]
        if current is None or moved:
            self._cal_seen = dict(markers)
            fresh = calibrate(markers, self.layout, frame)
            if fresh is not None:
                if current is None:
                    log.info("calibrated from %s (%.2f mm RMS)", ", ".join(fresh.markers), fresh.error_mm)
                self.calibration = fresh
        return self.calibration

    @staticmethod
    def _seen(s: Sighting, pose: np.ndarray) -> SeenCard:
        outline = map_points(pose, s.outline_card())
        centre, angle = card_pose_mm(outline)
        corners = tuple((round(float(x), 1), round(float(y), 1)) for x, y in outline)
        return SeenCard(s.card_id, s.face_up, (round(centre[0], 1), round(centre[1], 1)), angle,
                        corners, 1.0, 0, s.source)

    def _patch(self, grey: np.ndarray, card: SeenCard) -> np.ndarray:
        """The card's place in the frame with a ``RING_MM`` margin, rectified to ``PATCH_PX_PER_MM``."""
        return _patch(grey, card, self.calibration)

    def _looks(self, grey: np.ndarray, track: Track, missing: list[Track]) -> str:
        """How a card not read in this still frame looks where it lay: "same" (a missed read),
        "covered" (around it and the other cards gone from view with it, the table changed too: a
        hand or an arm lies there) or "changed" (taken away, alone or with its neighbours)."""
        if track.patch is None:
            return "changed"
        now, then = self._patch(grey, track.card), track.patch.image()
        m = int(RING_MM * PATCH_PX_PER_MM)
        now, then = now[m:-m, m:-m], then[m:-m, m:-m]
        open_part = self._uncovered(track, then.shape)
        # glare washing out part of it (its marker, most often) hides it, it does not take it away:
        # only what the glare leaves is compared, and a card mostly under glare is covered. A card
        # taken away bares white paper just as bright, but also the darker print of what lay under
        # it, and glare never darkens (``quality.glared``; a rule that looked only inside this
        # frame's glare spots failed: the bared paper over the taken card's marker was such a spot)
        washed = quality.glared(now, then, where=open_part)
        if washed.any():
            if (washed & open_part).sum() > GLARE_COVERS * open_part.sum():
                return "covered"
            seen = open_part & ~washed
            limit = SAME_LOOK if open_part.all() else SAME_PART
            # what the glare leaves of a cascade's strip may be small: half the strip's minimum
            # (~200 px at 1 px/mm) still tells a card from another one at SAME_PART
            same = seen.mean() >= UNCOVERED_SHARE / 2 and _correlation(now, then, seen) > limit
        elif open_part.all():
            same = cv2.matchTemplate(now, then, cv2.TM_CCOEFF_NORMED)[0, 0] > SAME_LOOK
        else:   # cards over it: its uncovered part (a cascade's strip) must look the same
            same = open_part.mean() >= UNCOVERED_SHARE and _correlation(now, then, open_part) > SAME_PART
        if same:
            return "same"
        if self._covered is None or self._covered[0] != self.frame_index:
            self._covered = (self.frame_index, self._covered_tracks(grey.shape, missing))
        return "covered" if track.number in self._covered[1] else "changed"

    def _uncovered(self, track: Track, shape: tuple[int, ...]) -> np.ndarray:
        """Where on ``track``'s card patch (``shape``) no card lies over it: one whose read marker
        lies on it (as in ``_visible``; for a card not read now, where it was last read), or one
        laid or moved there after the patch was taken."""
        h, w = shape[:2]
        to_patch = cv2.getPerspectiveTransform(np.array(track.card.corners, np.float32),
                                               np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
        open_part = np.ones((h, w), np.uint8)
        unread = [self._last_marks[t.number] for t in self.tracker.tracks      # not read now: where
                  if t is not track and t.card.source == "tracked" and t.number in self._last_marks]
        for card_id, corners, marks in self._marks + unread:                  # they were last read
            if card_id == track.card.card_id:
                continue
            at = cv2.perspectiveTransform(marks.reshape(1, -1, 2).astype(np.float32), to_patch)[0]
            if np.any((at[:, 0] > 0) & (at[:, 0] < w) & (at[:, 1] > 0) & (at[:, 1] < h)):
                pts = cv2.perspectiveTransform(np.array([corners], np.float32), to_patch)[0]
                cv2.fillPoly(open_part, [np.round(pts).astype(np.int32)], 0)
        since = self._patched.get(track.number, -1)
        for t in self.tracker.tracks:
            if t is track or t.card.source == "tracked":
                continue
            placed = self._arrived.get(t.number)
            if placed is not None and placed[1] <= since and math.dist(placed[0], t.card.centre) <= MOVED_MM:
                continue        # it lay there already: under or over, the patch shows it
            pts = cv2.perspectiveTransform(np.array([t.card.corners], np.float32), to_patch)[0]
            cv2.fillPoly(open_part, [np.round(pts).astype(np.int32)], 0)
        return open_part.astype(bool)

    def _covered_tracks(self, shape: tuple[int, ...], missing: list[Track]) -> set[int]:
        """Track numbers of the missing cards that something lies over: group the missing cards
        whose places touch; a group whose surroundings (a ``RING_MM`` band around it, outside every
        missing card) are crossed by a change reaching in from the edge of the view since the scene
        settled lies under a hand (and its arm); any other group was taken away."""
        small, reference = self.motion.previous, self._reference
        if reference is None:
            reference = small
        scale = small.shape[1] / shape[1]
        places = np.zeros(small.shape, np.uint8)
        centres = []
        for t in missing:
            pts = self.calibration.to_image(np.array(t.card.corners)) * scale
            cv2.fillPoly(places, [np.round(pts).astype(np.int32)], 1)
            centres.append(self.calibration.to_image(np.array([t.card.centre]))[0] * scale)
        r = 1 + max(2, int(np.ceil(RING_MM * self.calibration.px_per_mm(self._table_centre()) * scale)))
        grown = cv2.dilate(places, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
        count, labels = cv2.connectedComponents(grown)
        gain = float(reference.mean()) / max(float(small.mean()), 1.0)
        changed = (cv2.absdiff(cv2.convertScaleAbs(small, alpha=gain), reference) > RING_CHANGE).astype(np.uint8)
        # an arm reaches in from the edge of the view: only changes connected to the frame's border
        # count (cards taken away, with cards under them nobody saw, change the table in islands)
        n, blobs, stats, _ = cv2.connectedComponentsWithStats(changed)
        h, w = changed.shape
        x, y, bw, bh = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
        edge = (x == 0) | (y == 0) | (x + bw >= w) | (y + bh >= h)
        edge[0] = False
        changed = edge[blobs]
        # leave out the pixel blurred across each card's edge (small pixels are 5–8 mm wide)
        ring = (grown > 0) & (cv2.dilate(places, np.ones((3, 3), np.uint8)) == 0)
        covered_groups = set()
        for label in range(1, count):
            band = ring & (labels == label)
            if band.any() and np.count_nonzero(changed & band) > RING_SHARE * np.count_nonzero(band):
                covered_groups.add(label)
        out = set()
        for t, (x, y) in zip(missing, centres):
            yi, xi = min(max(int(y), 0), labels.shape[0] - 1), min(max(int(x), 0), labels.shape[1] - 1)
            if labels[yi, xi] in covered_groups:
                out.add(t.number)
        return out

    # --- what the table should fix ---------------------------------------------------------------
    def status(self) -> tuple[quality.Warning, ...]:
        """Table-level warnings for the host view now (codes with English and Japanese sentences,
        ``vision.frame.quality.MESSAGES``): a refused frame and why, shaking, focus, glare and its side,
        exposure; from the last frame assessed for reading and the view's recent jumps."""
        out = [w for w in (self.frame_quality.warnings() if self.frame_quality else ())
               if w.code != "refused" or self.refused is not None]
        if self.quality.shaking and not any(w.code == "shaking" for w in out):
            out.insert(1 if out and out[0].code == "refused" else 0, quality.Warning("shaking"))
        # a phone or a card held up: said, so the table knows why it is not counted (cards outside
        # the play area are not: Chains keeps its piles there)
        for reason in dict.fromkeys(i.reason for i in self.ignored if i.reason != "outside"):
            out.append(quality.Warning(reason))
        return tuple(out)

    # --- a stream of frames ----------------------------------------------------------------------
    def observe(self, scene: TableScene) -> dict:
        """The observation of a scene, shaped like the engine's ``layout()``."""
        from vision.table import layouts
        return layouts.read(self.game_id, scene, self.players)

    def step(self, frame: np.ndarray) -> dict | None:
        """Process one frame; the new observation if this frame completes a stable change."""
        scene = self.process(frame)
        if scene is None or not scene.stable:
            self._pending = None
            return None
        if scene.conflicts:
            self._pending = None
            return None
        observation = self.observe(scene)
        count = self._pending[1] + 1 if self._pending and self._pending[0] == observation else 1
        self._pending = (observation, count)
        if count >= self.persist and observation != self.last_observation:
            self.last_observation = observation
            return observation
        return None

    def changes(self, frames: Iterable[np.ndarray]) -> Iterator[dict]:
        """Each stable observation change over a stream of frames."""
        for frame in frames:
            observation = self.step(frame)
            if observation is not None:
                yield observation

    # --- what the companion sees -----------------------------------------------------------------
    def annotate(self, frame: np.ndarray, scene: TableScene | None) -> np.ndarray:
        """A copy of ``frame`` with the calibration, every card (outline, id, how it was read),
        the seats and any conflict drawn on it."""
        out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        cal = self.calibration
        if cal is None or scene is None:
            _label(out, "not calibrated: show the K-CAL markers", (20, 40), (0, 0, 255))
            return out
        x0, y0, x1, y1 = self.layout.bounds()
        table = cal.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        cv2.polylines(out, [table.astype(np.int32)], True, (255, 200, 0), 2)
        colours = {"marker": (0, 200, 0), "marker+qr": (0, 255, 255), "qr": (255, 128, 0),
                   "tracked": (0, 140, 255)}
        for card in scene.cards:
            pts = cal.to_image(np.array(card.corners))
            colour = colours.get(card.source, (255, 255, 255))
            cv2.polylines(out, [pts.astype(np.int32)], True, colour, 2)
            _label(out, card.card_id, tuple(pts.mean(axis=0).astype(int)), colour)
        for seat, centre in scene.seats.items():
            p = cal.to_image(np.array([centre]))[0].astype(int)
            cv2.circle(out, tuple(p), 18, (255, 0, 255), 3)
            _label(out, f"seat {seat + 1}", (int(p[0]) + 22, int(p[1])), (255, 0, 255))
        status = "still" if scene.stable else "moving"
        _label(out, f"frame {scene.frame_index}  {status}  {len(scene.cards)} cards", (20, 40), (255, 255, 255))
        for i, text in enumerate(scene.conflicts):
            _label(out, "CONFLICT " + text, (20, 80 + 34 * i), (0, 0, 255))
        for item in self.ignored:
            pts = np.array(item.outline_px, np.int32)
            cv2.polylines(out, [pts], True, (128, 128, 128), 2)
            _label(out, f"{item.card_id}: {item.reason}", tuple(pts.mean(axis=0).astype(int)), (160, 160, 160))
        _draw_status(out, self.frame_quality, self.status(), 80 + 34 * len(scene.conflicts))
        return out

    def annotated(self) -> np.ndarray | None:
        """The latest processed frame, annotated (None before the first frame)."""
        with self._lock:
            last = self._last
        return None if last is None else self.annotate(*last)

    def annotated_jpeg(self, quality: int = 80) -> bytes | None:
        """The latest annotated frame as JPEG bytes, for the web page (None before the first)."""
        image = self.annotated()
        if image is None:
            return None
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return data.tobytes() if ok else None


def _patch(grey: np.ndarray, card: SeenCard, cal: Calibration) -> np.ndarray:
    """The card's place in ``grey`` with a ``RING_MM`` margin, rectified to ``PATCH_PX_PER_MM``."""
    w, h = cat.card_size_mm(card.card_id)
    k, m = PATCH_PX_PER_MM, RING_MM * PATCH_PX_PER_MM
    size = (int((w + 2 * RING_MM) * k), int((h + 2 * RING_MM) * k))
    dst = np.array([[m, m], [m + w * k, m], [m + w * k, m + h * k], [m, m + h * k]], np.float32)
    src = cal.to_image(np.array(card.corners)).astype(np.float32)
    return cv2.warpPerspective(grey, cv2.getPerspectiveTransform(src, dst), size, flags=cv2.INTER_AREA)


class _Look:
    """How a card looked when last read on a still frame: its rectified place, cut out only when
    asked or when a later frame did not read the card again (a full look that reads every card
    again, as the next full look does, cuts out nothing)."""

    def __init__(self, grey: np.ndarray, card: SeenCard, cal: Calibration) -> None:
        self._source: tuple[np.ndarray, SeenCard, Calibration] | None = (grey, card, cal)
        self._image: np.ndarray | None = None

    def image(self) -> np.ndarray:
        """The rectified patch (``_patch``)."""
        if self._source is not None:
            self._image, self._source = _patch(*self._source), None    # let the frame go
        return self._image

    def keep_only(self, grey: np.ndarray) -> None:
        """Cut the patch out now unless it comes from ``grey`` (the frame just read): a card not
        read again in the next frame keeps a 60 × 90 px patch, not a whole frame."""
        if self._source is not None and self._source[0] is not grey:
            self.image()


def _box(corners_px: np.ndarray, margin_px: float, shape: tuple[int, ...]) -> Box:
    """The frame box (x0, y0, x1, y1) round these image points, grown by ``margin_px``, inside the frame."""
    (x0, y0), (x1, y1) = corners_px.min(axis=0) - margin_px, corners_px.max(axis=0) + margin_px
    return (max(int(x0), 0), max(int(y0), 0), min(int(np.ceil(x1)), shape[1]), min(int(np.ceil(y1)), shape[0]))


def _inside(point: np.ndarray, boxes: list[Box]) -> bool:
    return any(x0 <= point[0] < x1 and y0 <= point[1] < y1 for x0, y0, x1, y1 in boxes)


def _draw_status(image: np.ndarray, frame_quality: FrameQuality | None, warnings: tuple[quality.Warning, ...],
                 top: int) -> None:
    """Glare spots outlined and the table's warnings listed (in English: OpenCV draws no kana)."""
    for spot in frame_quality.glare if frame_quality else ():
        x0, y0, x1, y1 = spot.box
        cv2.rectangle(image, (x0, y0), (x1, y1), (0, 0, 255), 2)
    for i, warning in enumerate(warnings):
        _label(image, warning.text("en"), (20, top + 34 * i), (0, 165, 255))


def _label(image: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int]) -> None:
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 1, cv2.LINE_AA)


def _visible(seen: list[SeenCard], marks_mm: list[np.ndarray], grid: int = 6) -> None:
    """Estimate each card's visible share in place: a card lies above another when one of its read
    markers (``marks_mm``: each card's read points in table mm) lies on the other's area; the share
    of grid points that no card above covers."""
    n = len(seen)
    if n == 0:
        return
    corners = np.array([card.corners for card in seen], np.float64)        # (n, 4, 2)
    origins = corners[:, 0]
    ex, ey = corners[:, 1] - origins, corners[:, 3] - origins
    bases = np.linalg.inv(np.stack([ex, ey], axis=2))                     # (n, 2, 2): table -> card units

    def inside(points: np.ndarray) -> np.ndarray:
        """(n_cards, n_points) whether each point lies on each card."""
        local = np.einsum("cij,cpj->cpi", bases, points[None, :, :] - origins[:, None, :])
        return np.all((local >= 0) & (local <= 1), axis=2)

    counts = [len(m) for m in marks_mm]
    on = inside(np.vstack(marks_mm))                                      # (n, total marker points)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    above = np.logical_or.reduceat(on, starts, axis=1).T                  # above[a, b]: a over b
    np.fill_diagonal(above, False)
    u = (np.arange(grid) + 0.5) / grid
    gx, gy = np.repeat(u, grid), np.tile(u, grid)
    for b in np.flatnonzero(above.any(axis=0)):
        samples = origins[b] + gx[:, None] * ex[b] + gy[:, None] * ey[b]
        covered = inside(samples)[above[:, b]].any(axis=0)
        seen[b] = replace(seen[b], visible=round(1.0 - float(covered.mean()), 2))


def _correlation(a: np.ndarray, b: np.ndarray, where: np.ndarray) -> float:
    """Normalised correlation of two images over the pixels ``where`` is true."""
    x, y = a[where].astype(np.float64), b[where].astype(np.float64)
    x -= x.mean()
    y -= y.mean()
    return float((x * y).sum() / max(math.sqrt((x * x).sum() * (y * y).sum()), 1e-9))
