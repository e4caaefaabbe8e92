"""Card detection in one frame: identity and pose from the corner markers, the QR code as a check.

Every card face carries its own 15 mm DICT_5X5_1000 marker in the top-left index corner and again,
turned 180°, in the bottom-right one; backs carry their deck's marker the same way (design.md). A
single marker fixes the whole card outline: in the marker's own frame the card always extends the
same way (the card reads the same either way up), so a card at the bottom of a cascade, with only
its top strip in view, is located as exactly as a card lying alone. Which way up the card lies is
not known from its markers (the first one read is taken as the top-left one, right for the top strip
of a cascade); the QR code settles it when read, and the tracker keeps it (``vision.table.track``).

QR codes are decoded on rectified, upscaled crops located from the marker pose (design.md: reading
the full frame fails at webcam resolution); ``scan_qr_full`` looks at the whole frame for codes no
marker points at (cards whose markers are both covered, foreign codes to ignore).
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from functools import cache
from typing import Callable, Collection

import cv2
import numpy as np

from companion import catalogue as cat
from vision.reading import soft
from vision.reading.markers import MIN_PERIMETER_PX, MarkerFinder
from vision.table.calibrate import Calibration, rect_corners

log = logging.getLogger(__name__)

QR_PX_PER_MM = 4.0
"""Crops for the QR decoder are rectified to this resolution (a 2 mm module becomes 8 px)."""

SAME_CARD_MM = 20.0
"""Two markers of one id whose card outlines' centres lie closer than this are one physical card
(in table mm once calibrated, where a card keeps its size however the camera looks at it)."""

SAME_CARD_DEG = 15.0
"""... and whose card outlines point the same way (or opposite ways: the other corner's marker is
printed turned 180°) to within this many degrees."""

MIN_PX_PER_MODULE = 2.0
"""A marker read coarser than this (px per module along its worse axis; a 15 mm marker is 7 modules
across, its border included: 2.0 is 0.93 px/mm) is not an identification, at most "something is
there". Measured on rendered tables seen at 45–70° (docs/vision.md): of the markers in view the
finder reads 98–100 % from 3 px per module, 52 % at 2.0, 32 % at 1.75, 4 % at 1.5: below 2 it
reads by luck, and there a far-side card (~1.7) was once read as another deck's marker."""

COARSE_PAIR_PX_PER_MODULE = 1.7
"""A marker read coarser than ``MIN_PX_PER_MODULE`` but at least this fine (a 1080p camera's 1.0 px/mm
at a card turned or seen at an angle: ~1.8–2.1) counts when the card's other marker is read too,
where the card's geometry puts it: two reads of one id that agree on one card's pose are no misread
by luck. Alone it counts only when read beyond doubt (``MarkerHit.exact``: its 25 bits matched its
code with no bit corrected — another code is ≥ 5 bits away — or the second reader,
``vision.reading.soft``, named it by its whole grid with a margin), else it stays "something
there"; a card read by one
marker still waits for a second frame (``vision.pipeline.CONFIRM_MM``). Measured on the cached
frames of the surfaces and conditions benches: 506 markers read at 1.7–2.0, 0 of another card.
(issue 24: identification at 1.0 px/mm)"""

DECODERS = ("zxing", "pyzbar")

DETECTORS = ("quads", "aruco")
"""Marker finders: ``quads`` (``vision.reading.markers``: our candidate stage, OpenCV's dictionary; ~20×
faster on a full frame) or ``aruco`` (OpenCV's ``ArucoDetector`` with ``aruco_params()``)."""


Box = tuple[int, int, int, int]
"""A region of the frame, (x0, y0, x1, y1) in px."""


def aruco_params(longest_side: int = 1920) -> cv2.aruco.DetectorParameters:
    """design.md's measured settings (minMarkerPerimeterRate 0.02 of 1080p) for an image or region
    whose longest side is ``longest_side`` px; sub-pixel corners for a steady pose."""
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = min(1.0, MIN_PERIMETER_PX / max(longest_side, 1))
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 3
    # read each bit from 8 × 8 samples, not 4 × 4: recovers blurred markers (the middle card of a
    # fan) at the same cost (measured: 3.5 % more cards at 1.2–1.4 px/mm, none wrong)
    params.perspectiveRemovePixelPerCell = 8
    return params


def aruco_detector() -> cv2.aruco.ArucoDetector:
    """The marker detector: DICT_5X5_1000 with ``aruco_params()``."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000)
    return cv2.aruco.ArucoDetector(dictionary, aruco_params())


@dataclass(frozen=True)
class MarkerHit:
    """One marker found in the image: its id and its four corners in px (OpenCV's order)."""

    marker: int
    corners: np.ndarray         # (4, 2) float64
    exact: bool = False         # read beyond doubt: no bit corrected, or by ``vision.reading.soft`` (``MarkerFinder.reads``)

    @property
    def px_per_module(self) -> float:
        """The resolution it was read at: px per module (of the 7 across) along its worse axis."""
        return px_per_module(self.corners[None])[0]


def px_per_module(corners: np.ndarray) -> np.ndarray:
    """``MarkerHit.px_per_module`` of many markers' corners (M, 4, 2) at once."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=1), axis=2)          # (M, 4)
    return np.minimum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]) / 2 / cat.MARKER_BITS


@cache
def cards_in_play(game_id: str, players: int) -> frozenset[str]:
    """Every id that can lie on this game's table: its cards (Chains: the players' decks only),
    their backs, the seat tokens of its seats and the calibration markers."""
    cards = [c for c in cat.cards_of(game_id) if game_id != "chains" or (c.deck or 0) <= players]
    return frozenset({c.id for c in cards} | {cat.back_of(c) for c in cards}
                     | {f"T-SEAT{n}" for n in range(1, players + 1)}
                     | {c.id for c in cat.cards_of("table", "calibration")})


@dataclass
class Sighting:
    """One physical card (or back, or token) found in one frame.

    ``card_pts`` are points printed on the card (mm, in the upright hypothesis of its first marker)
    and ``image_pts`` where they were seen (px); ``to_image`` maps card mm to image px."""

    card_id: str
    face_up: bool
    card_pts: np.ndarray        # (N, 2) card mm
    image_pts: np.ndarray       # (N, 2) image px
    to_image: np.ndarray        # 3 × 3 homography: card mm -> image px
    markers: int                # how many of its markers were read
    qr: str | None = None       # the card id the QR code gave, when read
    source: str = "marker"
    upright_known: bool = False  # the QR code showed which way up the card lies

    def flip(self) -> None:
        """Take the other way up: the card's top is where we thought its bottom was."""
        w, h = self.size_mm
        turn = np.array([[-1.0, 0, w], [0, -1.0, h], [0, 0, 1]])
        self.card_pts = np.array([w, h]) - self.card_pts
        self.to_image = self.to_image @ turn

    @property
    def size_mm(self) -> tuple[float, float]:
        """The card's printed (width, height)."""
        return cat.card_size_mm(self.card_id)

    def outline_card(self) -> np.ndarray:
        """The card's corners TL, TR, BR, BL in card mm."""
        w, h = self.size_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)

    def outline_px(self) -> np.ndarray:
        """The card's corners TL, TR, BR, BL in image px, shape (4, 2)."""
        return map_points(self.to_image, self.outline_card())

    def centre_px(self) -> np.ndarray:
        """The card's centre in image px."""
        w, h = self.size_mm
        return map_points(self.to_image, np.array([[w / 2, h / 2]], dtype=np.float64))[0]

    def to_table(self, calibration: Calibration) -> np.ndarray:
        """The card's pose on the table, 3 × 3 card mm -> table mm: a rigid fit (the card's size
        is known) of its read points mapped through the calibration; also re-aims ``to_image``
        through it, which is steadier than one marker's own homography."""
        pose = rigid_fit(self.card_pts, calibration.to_table(self.image_pts))
        outline = self.outline_card()
        self.to_image = cv2.getPerspectiveTransform(
            outline.astype(np.float32), calibration.to_image(map_points(pose, outline)).astype(np.float32)).astype(np.float64)
        return pose


@dataclass
class FrameDetections:
    """Everything read from one frame: cards, calibration markers, and what was ignored."""

    sightings: list[Sighting]
    calibration: dict[str, np.ndarray]          # K-CAL id -> (4, 2) px corners
    conflicts: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    faint: list[MarkerHit] = field(default_factory=list)   # too coarse to say which: something is there


def poses_on_table(sightings: list[Sighting], calibration: Calibration) -> list[np.ndarray]:
    """``Sighting.to_table`` of many sightings at once (one pass through the calibration each way
    for all of them): the same poses, and the same re-aimed ``to_image``."""
    if not sightings:
        return []
    counts = [len(s.image_pts) for s in sightings]
    on_table = np.split(calibration.to_table(np.vstack([s.image_pts for s in sightings])), np.cumsum(counts)[:-1])
    poses: list[np.ndarray] = [np.eye(3)] * len(sightings)
    for n in {len(s.card_pts) for s in sightings}:      # one batch per number of points
        chosen = [i for i, s in enumerate(sightings) if len(s.card_pts) == n]
        fits = rigid_fits(np.array([sightings[i].card_pts for i in chosen]), np.array([on_table[i] for i in chosen]))
        for i, fit in zip(chosen, fits):
            poses[i] = fit
    outlines = [s.outline_card() for s in sightings]
    corners = calibration.to_image(np.vstack([map_points(p, o) for p, o in zip(poses, outlines)])).reshape(-1, 4, 2)
    for s, outline, px in zip(sightings, outlines, corners):
        s.to_image = cv2.getPerspectiveTransform(outline.astype(np.float32), px.astype(np.float32)).astype(np.float64)
    return poses


def map_points(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (N, 2) through a 3 × 3 homography."""
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(-1, 2)


class _Logged:
    """Log each foreign code once per detector, not once per frame."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def once(self, what: str) -> None:
        if what not in self.seen:
            self.seen.add(what)
            log.info("ignored %s", what)


class Detector:
    """Finds cards in frames: markers first, then QR codes on rectified per-card crops."""

    def __init__(self, decoder: str = "zxing", detector: str = "quads", cards: Collection[str] | None = None) -> None:
        """``cards``: the ids that can be on this table (``cards_in_play``); others are foreign."""
        if decoder not in DECODERS:
            raise ValueError(f"unknown QR decoder {decoder!r}: choose one of {', '.join(DECODERS)}")
        if detector not in DETECTORS:
            raise ValueError(f"unknown marker detector {detector!r}: choose one of {', '.join(DETECTORS)}")
        self.decoder = decoder
        self.kind = detector
        self.aruco = aruco_detector()
        self.cards = None if cards is None else frozenset(cards)
        self.finder = MarkerFinder(markers=None if self.cards is None else frozenset(
            cat.card(c).marker for c in self.cards), second_read=soft.second_read)
        self.small_markers = True   # markers may be under ~20 px: the finder's extra window (``find``)
        self.large_markers = False  # every marker over ~24 px: the finder's finest window left out
        self._logged = _Logged()

    # --- markers -------------------------------------------------------------------------------
    def markers(self, grey: np.ndarray, boxes: list[Box] | None = None) -> list[MarkerHit]:
        """Every DICT_5X5_1000 marker in a grey image, or only inside ``boxes``."""
        if boxes is None:
            return self._markers(grey, (0, 0))
        found: list[MarkerHit] = []
        for x0, y0, x1, y1 in boxes:
            if self.kind == "aruco":
                self.aruco.setDetectorParameters(aruco_params(max(x1 - x0, y1 - y0)))
            for hit in self._markers(grey[y0:y1, x0:x1], (x0, y0)):
                # overlapping regions may both see a marker: keep it once
                if not any(h.marker == hit.marker and np.abs(h.corners - hit.corners).max() < 3 for h in found):
                    found.append(hit)
        self.aruco.setDetectorParameters(aruco_params())
        return found

    def _markers(self, grey: np.ndarray, offset: tuple[int, int]) -> list[MarkerHit]:
        if self.kind == "quads":
            reads = self.finder.reads(grey, self.small_markers, self.large_markers)
            return [MarkerHit(i, c + offset, e) for i, c, e in reads]
        corners, ids, _ = self.aruco.detectMarkers(grey)
        if ids is None:
            return []
        return [MarkerHit(int(i), c.reshape(4, 2).astype(np.float64) + offset) for c, i in zip(corners, ids.ravel())]

    def detect(self, frame: np.ndarray, boxes: list[Box] | None = None,
               calibrate: Callable[[dict[str, np.ndarray]], Calibration | None] | None = None) -> FrameDetections:
        """Cards and calibration markers in one BGR (or grey) frame (or only inside ``boxes``),
        from markers alone. A marker read coarser than ``MIN_PX_PER_MODULE`` is only "something
        there" (``faint``); one of a card not in play is foreign. ``calibrate``: given the K-CAL
        corners read, the calibration to use (or None): markers of one id are then grouped into
        cards on the table, in mm, by the card's own geometry; without it, in the image."""
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        hits: dict[str, list[MarkerHit]] = {}
        calibration: dict[str, np.ndarray] = {}
        foreign: list[str] = []
        faint: list[MarkerHit] = []
        found = self.markers(grey, boxes)
        resolution = px_per_module(np.array([h.corners for h in found])) if found else np.zeros(0)
        coarse: list[MarkerHit] = []      # read between COARSE_PAIR_PX_PER_MODULE and MIN_PX_PER_MODULE
        for hit, ppm in zip(found, resolution):
            card = cat.by_marker(hit.marker)
            readable = ppm >= MIN_PX_PER_MODULE
            if not readable and ppm >= COARSE_PAIR_PX_PER_MODULE and card is not None \
                    and card.kind != "calibration" and (self.cards is None or card.id in self.cards):
                coarse.append(hit)        # a card only with its other marker (below)
                hits.setdefault(card.id, []).append(hit)
                continue
            if not readable:
                faint.append(hit)
            elif card is None:
                what = f"marker {hit.marker}: not one of our cards"
                self._logged.once(what)
                foreign.append(what)
            elif self.cards is not None and card.id not in self.cards:
                what = f"marker {hit.marker}: {card.id}, not in this game"
                self._logged.once(what)
                foreign.append(what)
            elif card.kind == "calibration":
                calibration[card.id] = hit.corners
            else:
                hits.setdefault(card.id, []).append(hit)
        doubtful = [h for h in coarse if not h.exact]
        cal = calibrate(calibration) if calibrate is not None else None
        sightings: list[Sighting] = []
        conflicts: list[str] = []
        ordered = [(card_id, hit) for card_id, group in hits.items() for hit in group]
        if cal is not None:
            fits, on_table = _table_poses([c for c, _ in ordered], [hit.corners for _, hit in ordered], cal)
            first, mapped = iter(fits), iter(on_table)
        else:
            first = iter(rigid_fits(np.array([_upright(c) for c, _ in ordered]),
                                    np.array([hit.corners for _, hit in ordered]), scale=True)) if ordered else iter(())
        poses = {card_id: np.array([next(first) for _ in group]) for card_id, group in hits.items()}
        grouped: dict[str, list[Sighting]] = {}
        if cal is not None:
            corners_mm = {card_id: [next(mapped) for _ in group] for card_id, group in hits.items()}
            placed = [(card_id, p) for card_id, group in hits.items()
                      for p in _group_on_table(card_id, group, poses[card_id], corners_mm[card_id])]
            for (card_id, _), s in zip(placed, _aim([p for _, p in placed], cal)):
                grouped.setdefault(card_id, []).append(s)
        for card_id, group in hits.items():
            found_cards = _group(card_id, group, poses[card_id]) if cal is None else grouped[card_id]
            # a coarse marker alone is a card only when read beyond doubt, and only where no other
            # sighting of its id is (two coarse reads that do not agree on one card: a picture on
            # a tilted screen, not two copies of a card) — but a deck's back lies face down many
            # times over: there copies are no sign of a picture
            unsure = doubtful if len(found_cards) < 2 or card_id.startswith("B-") else coarse
            if unsure:
                alone = [s for s in found_cards if s.markers == 1 and any(s.image_pts is h.corners for h in unsure)]
                faint += [h for h in unsure if any(s.image_pts is h.corners for s in alone)]
                found_cards = [s for s in found_cards if not any(s is a for a in alone)]
            if len(found_cards) > 1 and not card_id.startswith("B-"):
                where = ", ".join(f"({x:.0f}, {y:.0f}) px" for x, y in (s.centre_px() for s in found_cards))
                conflicts.append(f"{card_id}: {len(found_cards)} copies in view at {where}")
                log.warning("conflict: %s", conflicts[-1])
            sightings.extend(found_cards)
        return FrameDetections(sightings, calibration, conflicts, foreign, faint)

    # --- QR codes ------------------------------------------------------------------------------
    def read_qr(self, grey: np.ndarray, sighting: Sighting) -> str | None:
        """Decode the QR code of a sighted card on a rectified, upscaled crop; the card id it names,
        or None when unreadable (covered, blurred, out of view). Foreign payloads are logged.
        The code's orientation settles which way up the card lies (``sighting.flip()``)."""
        rect = cat.qr_rect(sighting.card_id)
        if rect is None:
            return None
        pad = cat.QR_QUIET_MM
        size = int(round((rect.w + 2 * pad) * QR_PX_PER_MM))
        s = 1.0 / QR_PX_PER_MM
        crop_to_card = np.array([[s, 0, rect.x - pad], [0, s, rect.y - pad], [0, 0, 1]])
        # the QR is symmetric about the card's centre only up to 180°: try the crop either way up
        crop = cv2.warpPerspective(grey, sighting.to_image @ crop_to_card, (size, size),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=255)
        for payload, upside_down in self._decode(crop):
            card = self._parse(payload)
            if card is not None:
                sighting.qr = card.id
                sighting.upright_known = True
                if upside_down:
                    sighting.flip()
                return card.id
        return None

    def scan_qr_full(self, grey: np.ndarray, boxes: list[Box] | None = None) -> list[tuple[str, np.ndarray]]:
        """QR codes anywhere in the frame (or inside ``boxes``): (card id, (4, 2) px corners of the
        symbol, TL TR BR BL in the symbol's own orientation); foreign codes are logged, left out."""
        found = []
        for x0, y0, x1, y1 in boxes if boxes is not None else [(0, 0, grey.shape[1], grey.shape[0])]:
            for payload, corners in self._decode_full(grey[y0:y1, x0:x1]):
                card = self._parse(payload)
                if card is not None and corners is not None:
                    found.append((card.id, corners + (x0, y0)))
        return found

    def sighting_from_qr(self, card_id: str, corners: np.ndarray) -> Sighting:
        """A card located from its QR code alone (both markers covered)."""
        rect = cat.qr_rect(card_id)
        assert rect is not None, card_id
        pts = rect_corners(rect)
        h = cv2.getPerspectiveTransform(pts.astype(np.float32), corners.astype(np.float32))
        return Sighting(card_id, True, pts, corners, h.astype(np.float64), 0, card_id, "qr")

    def _parse(self, payload: str) -> cat.Card | None:
        try:
            card = cat.parse(payload)
        except cat.PayloadError as err:
            self._logged.once(f"QR code: {err}")
            return None
        if self.cards is not None and card.id not in self.cards:
            self._logged.once(f"QR code: {card.id}, not in this game")
            return None
        return card

    def _decode(self, crop: np.ndarray) -> list[tuple[str, bool]]:
        """(payload, upside down?) of each QR code in an upright card crop."""
        if self.decoder == "zxing":
            import zxingcpp
            return [(r.text, abs(r.orientation) > 135)
                    for r in zxingcpp.read_barcodes(crop, formats=zxingcpp.BarcodeFormat.QRCode,
                                                    try_downscale=False, try_invert=False)]
        from pyzbar import pyzbar
        return [(r.data.decode("latin-1"), r.orientation == "DOWN")
                for r in pyzbar.decode(crop, symbols=[pyzbar.ZBarSymbol.QRCODE])]

    def _decode_full(self, grey: np.ndarray) -> list[tuple[str, np.ndarray | None]]:
        if self.decoder == "zxing":
            import zxingcpp
            out = []
            # no downscaled or turned retries: the same codes on the rendered tables (60 frames,
            # 1.2–2.0 px/mm), in 2/3 of the time (measured)
            for r in zxingcpp.read_barcodes(grey, formats=zxingcpp.BarcodeFormat.QRCode, try_invert=False,
                                            try_downscale=False, try_rotate=False):
                p = r.position
                pts = np.array([[q.x, q.y] for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)],
                               dtype=np.float64)
                out.append((r.text, pts))
            return out
        from pyzbar import pyzbar
        # pyzbar's polygon does not say which corner is the symbol's top-left: no pose from it
        return [(r.data.decode("latin-1"), None)
                for r in pyzbar.decode(grey, symbols=[pyzbar.ZBarSymbol.QRCODE])]


def _group(card_id: str, group: list[MarkerHit], first: np.ndarray) -> list[Sighting]:
    """Markers of one id -> physical cards: markers whose outlines agree are one card, refined from
    all its markers together; outlines far apart are separate copies. ``first`` (H, 3, 3): card mm
    -> image px from each marker alone, taking it as the card's upright one (a similarity, which
    extrapolates from a 15 mm marker to the whole card far more steadily than a homography)."""
    card = cat.card(card_id)
    w, h = cat.card_size_mm(card_id)
    upright = _upright(card_id)
    centres = first[:, :2, :2] @ np.array([w / 2, h / 2]) + first[:, :2, 2]      # (H, 2) px
    corners = np.array([hit.corners for hit in group])
    sides = np.linalg.norm(corners - np.roll(corners, 1, axis=1), axis=2).mean(axis=1)
    px_per_mm = sides / cat.marker_rects(card_id)[0].w
    out = []
    cards = _clusters(centres, SAME_CARD_MM * px_per_mm)
    for members in cards:
        to_image = first[members[0]]
        if len(members) == 1:
            card_pts, image_pts = upright, group[members[0]].corners
        else:
            card_pts, image_pts = _points(card_id, [group[i] for i in members], to_image)
            to_image = rigid_fit(card_pts, image_pts, scale=True)
        out.append(Sighting(card_id, card.kind != "back", card_pts, image_pts, to_image, len(members)))
    return out


def _clusters(centres: np.ndarray, near: np.ndarray, angles: np.ndarray | None = None) -> list[list[int]]:
    """Markers -> cards: each marker joins the first card whose first marker's outline centre lies
    within ``near`` (per marker) of its own (and, given ``angles``, points the same or the
    opposite way within ``SAME_CARD_DEG``), else it starts a card."""
    cards: list[list[int]] = []
    for i in range(len(centres)):
        for members in cards:
            first = members[0]
            turn = 0.0 if angles is None else (angles[i] - angles[first]) % 180.0
            if np.linalg.norm(centres[first] - centres[i]) < near[i] and min(turn, 180 - turn) < SAME_CARD_DEG:
                members.append(i)
                break
        else:
            cards.append([i])
    return cards


def _table_poses(card_ids: list[str], corners: list[np.ndarray], cal: Calibration) -> tuple[np.ndarray, np.ndarray]:
    """(H, 3, 3) card mm -> table mm from each marker alone, taking it as the card's upright one,
    and the markers' corners in table mm (H, 4, 2):
    its corners mapped through the calibration (the full table homography and the lens), then a
    similarity fit in table mm (never in the image: the table mapping has taken the perspective
    out). Its scale is ~1 for a card on the table; it is left free so that the two markers of a
    picture held above the table (mapped too large) still agree on one card, whose joint rigid fit
    then shows it is not a card lying flat (``vision.reading.plane``)."""
    if not card_ids:
        return np.zeros((0, 3, 3)), np.zeros((0, 4, 2))
    on_table = cal.to_table(np.vstack(corners)).reshape(-1, 4, 2)
    return rigid_fits(np.array([_upright(c) for c in card_ids]), on_table, scale=True), on_table


def _group_on_table(card_id: str, group: list[MarkerHit], poses: np.ndarray,
                    corners_mm: list[np.ndarray]) -> list[tuple[Sighting, np.ndarray]]:
    """``_group`` in table mm: markers of one id are one card when the card outlines they give
    (``_table_poses``) have their centres within ``SAME_CARD_MM`` and point the same way or
    opposite ways (the card's two printed markers) within ``SAME_CARD_DEG``; each card is then
    fitted to all its markers' corners together (``corners_mm``: each marker's corners in table mm,
    as ``_table_poses`` mapped them): (sighting, its pose card mm -> table mm), the sighting's
    ``to_image`` still to be set from the pose (``_aim``)."""
    card = cat.card(card_id)
    w, h = cat.card_size_mm(card_id)
    upright = _upright(card_id)
    centres = poses[:, :2, :2] @ np.array([w / 2, h / 2]) + poses[:, :2, 2]
    angles = np.degrees(np.arctan2(poses[:, 1, 0], poses[:, 0, 0]))      # (scale does not turn)
    cards = _clusters(centres, np.full(len(group), SAME_CARD_MM), angles)
    out = []
    for members in cards:
        pose = poses[members[0]]
        if len(members) == 1:
            card_pts, image_pts = upright, group[members[0]].corners
        else:
            src = []
            for i in members:      # the same printed marker as the first, or the card's other one
                turn = abs((angles[i] - angles[members[0]] + 180.0) % 360.0 - 180.0)
                src.append(upright if turn < 90 else np.array([w, h]) - upright)
            card_pts, image_pts = np.vstack(src), np.vstack([group[i].corners for i in members])
            pose = rigid_fit(card_pts, np.vstack([corners_mm[i] for i in members]), scale=True)
        # the outline as seen (its scale free, as each marker's: a picture held up shows larger);
        # the card's pose on the table is the rigid fit of these points (``poses_on_table``). Its
        # ``to_image`` through the calibration is set by ``_aim`` for every card of the frame at once
        out.append((Sighting(card_id, card.kind != "back", card_pts, image_pts, pose, len(members)), pose))
    return out


def _aim(placed: list[tuple[Sighting, np.ndarray]], cal: Calibration) -> list[Sighting]:
    """Each sighting's ``to_image`` from its pose in table mm (``_group_on_table``): its outline
    mapped into the image through ``cal``, all cards' outlines in one pass (the same per-point
    mapping as one call a card, without its fixed cost ~30 times a frame)."""
    if not placed:
        return []
    outlines = [s.outline_card() for s, _ in placed]
    px = cal.to_image(np.vstack([map_points(pose, o) for (_, pose), o in zip(placed, outlines)])).reshape(-1, 4, 2)
    for (s, _), outline, corners in zip(placed, outlines, px):
        s.to_image = cv2.getPerspectiveTransform(outline.astype(np.float32), corners.astype(np.float32)).astype(np.float64)
    return [s for s, _ in placed]


@cache
def _upright(card_id: str) -> np.ndarray:
    """The corners of the card's upright (top-left) marker in card mm, OpenCV's order (shared:
    read-only)."""
    corners = rect_corners(cat.marker_rects(card_id)[0])
    corners.setflags(write=False)
    return corners


def _points(card_id: str, members: list[MarkerHit], first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Card-mm and image-px points of every marker of one card, in the first marker's frame."""
    w, h = cat.card_size_mm(card_id)
    upright = rect_corners(cat.marker_rects(card_id)[0])
    src, dst = [], []
    for hit in members:
        # which printed marker is it? the one whose corners the first hypothesis maps nearest
        as_first = upright
        as_turned = np.array([w, h]) - upright      # the other marker, seen in this card frame
        err_first = np.linalg.norm(map_points(first, as_first) - hit.corners)
        err_turned = np.linalg.norm(map_points(first, as_turned) - hit.corners)
        src.append(as_first if err_first <= err_turned else as_turned)
        dst.append(hit.corners)
    return np.vstack(src), np.vstack(dst)


def rigid_fit(src: np.ndarray, dst: np.ndarray, scale: bool = False) -> np.ndarray:
    """The rotation + translation (+ uniform scale if ``scale``; a card keeps its size on the
    table) that best maps ``src`` points onto ``dst`` points in the least-squares sense, as a 3 × 3
    matrix (Umeyama's solution in its closed 2-D form: no reflection, no SVD)."""
    return rigid_fits(src[None], dst[None], scale)[0]


def rigid_fits(src: np.ndarray, dst: np.ndarray, scale: bool = False) -> np.ndarray:
    """``rigid_fit`` of many point sets at once: ``src``, ``dst`` (H, N, 2) -> (H, 3, 3)."""
    src_c, dst_c = src.mean(axis=1), dst.mean(axis=1)
    s, d = src - src_c[:, None], dst - dst_c[:, None]
    a = (s * d).sum(axis=(1, 2))                                            # Σ s·d
    b = (s[..., 0] * d[..., 1] - s[..., 1] * d[..., 0]).sum(axis=1)         # Σ s×d
    norm = np.hypot(a, b)
    turn = norm > 0
    c = np.where(turn, a / np.where(turn, norm, 1.0), 1.0)
    sn = np.where(turn, b / np.where(turn, norm, 1.0), 0.0)
    k = norm / np.maximum((s * s).sum(axis=(1, 2)), 1e-12) if scale else np.ones_like(a)
    out = np.zeros((len(a), 3, 3))
    out[:, 0, 0] = out[:, 1, 1] = c * k
    out[:, 0, 1], out[:, 1, 0] = -sn * k, sn * k
    out[:, 2, 2] = 1.0
    out[:, :2, 2] = dst_c - np.einsum("hij,hj->hi", out[:, :2, :2], src_c)
    return out


def card_pose_mm(outline_mm: np.ndarray) -> tuple[tuple[float, float], float]:
    """(centre, angle) of a card from its outline TL, TR, BR, BL in table mm; the angle is the
    direction of the card's up (BL→TL) in degrees, 0 = towards -y, clockwise positive in the image
    (up = (sin a, -cos a)), in (-180, 180]."""
    centre = outline_mm.mean(axis=0)
    up = ((outline_mm[0] - outline_mm[3]) + (outline_mm[1] - outline_mm[2])) / 2
    angle = math.degrees(math.atan2(up[0], -up[1]))
    return (float(centre[0]), float(centre[1])), round(angle if angle > -180 else angle + 360, 1)
