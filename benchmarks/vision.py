"""``companion bench vision``: recognition and speed on rendered table frames.

Frames are rendered from the printed card faces (``printables.raster``) laid out by each game's
table plan (``vision.table.layouts.place``): perspective, a wooden table, blur, sensor noise, JPEG, hands.
Three parts:

* per scale (1.2, 1.4, 1.7, 2.0 px/mm): mid-game tables of all five games, each seen in a few still
  frames by a fresh pipeline; the share of visible cards (a marker not covered by another card)
  identified at the right place, the cards reported that are not there (misidentified), and the
  time per 1080p frame — against the baseline, pyzbar on the full frame;
* whole games: a simulated game of each of the five games, every still table (a hand frame between
  moves), streamed through one pipeline whose stable observations go into a table session
  (``companion.session``) as in the product; the share of the true moves the session's log
  recovered by the camera alone, with one tap on a prompt, or typed in; and the share of still
  tables whose stable observation equals what a perfect camera reads;
* conditions (``--part conditions``, only when asked): a real table (``tablesim.synthetic.Conditions``:
  a camera at 45–90° at several yaws, a barrel lens, motion blur of 3–9 px, glare, a phone screen
  held over the table, a lighting gradient) per scale; identified / visible (a marker seen at
  least as fine as the set-up check's line, ``--visible``, along the card's worse axis and not
  hidden), duplicates and misidentified cards
  (counted over every card, however coarse), against pyzbar on the full frame;
* surfaces (``--part surfaces``, only when asked): the table's surface (``tablesim.synthetic.SURFACES``:
  calm wood, busy wood grain, cloth, a patterned tablecloth, glass with reflections) at 1.0, 1.2,
  1.4, 1.7 and 2.0 px/mm: identified / visible, wrong reads, and the time of the pipeline's full
  look (wall and CPU) beside pyzbar's on the same full frame, with their ratio.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, replace
from typing import Any, Sequence

import cv2
import numpy as np

from companion import catalogue as cat
from companion.engine import CHANCE, Move
from companion.games import game_class
from printables.raster import render_back_png, render_card_png
from vision.table.calibrate import Calibration, CalibrationLayout
from companion.console import run_main

SCALES = (1.2, 1.4, 1.7, 2.0)
GAME_PLAYERS = {"wheel": 3, "hills": 2, "spartacus": 3, "prussia": 2, "chains": 2}
MATCH_MM = 20.0
"""A reported card counts as identified when a true card of its id lies within this distance."""

# --- rendering ---------------------------------------------------------------------------------
CARD_PX_PER_MM = 6.0


def camera(px_per_mm: float, size=(1920, 1080), tilt: float = 0.08, turn: float = 4.0,
           centre_mm=(95.0, 125.0)) -> np.ndarray:
    """A homography table mm -> image px: the table seen at ``px_per_mm`` near the centre of the
    frame, turned by ``turn`` degrees and tilted (perspective) by ``tilt``."""
    w, h = size
    a = math.radians(turn)
    s = px_per_mm
    to_centre = np.array([[1, 0, -centre_mm[0]], [0, 1, -centre_mm[1]], [0, 0, 1]], dtype=np.float64)
    rot = np.array([[s * math.cos(a), -s * math.sin(a), 0], [s * math.sin(a), s * math.cos(a), 0], [0, 0, 1]])
    persp = np.array([[1, 0, 0], [0, 1, 0], [0, tilt / 1000.0, 1]])  # far side (small y) smaller
    to_frame = np.array([[1, 0, w / 2], [0, 1, h / 2], [0, 0, 1]])
    return to_frame @ persp @ rot @ to_centre


def _paste(frame: np.ndarray, image: np.ndarray, to_frame: np.ndarray) -> None:
    """Warp ``image`` (its own px) into ``frame`` through ``to_frame``, only inside its bounding box."""
    ih, iw = image.shape[:2]
    box = cv2.perspectiveTransform(np.array([[[0, 0]], [[iw, 0]], [[iw, ih]], [[0, ih]]], np.float64), to_frame)
    x0, y0 = np.floor(box.reshape(-1, 2).min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(box.reshape(-1, 2).max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64) @ to_frame
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(image, shift, size, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((ih, iw), 255, np.uint8), shift, size, flags=cv2.INTER_LINEAR)
    roi = frame[y0:y1, x0:x1]
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    roi[:] = (warped * alpha + roi * (1 - alpha)).astype(np.uint8)


def card_image(card_id: str, face_up: bool = True) -> np.ndarray:
    """The printed face (or its back when face down) at ``CARD_PX_PER_MM``."""
    card = cat.card(card_id)
    if card.kind == "back":
        return np.asarray(render_back_png(card_id, CARD_PX_PER_MM))
    if face_up:
        return np.asarray(render_card_png(card_id, CARD_PX_PER_MM))
    back = cat.back_of(card)          # an era card's back is the other era's face
    if cat.card(back).kind != "back":
        return np.asarray(render_card_png(back, CARD_PX_PER_MM))
    return np.asarray(render_back_png(back, CARD_PX_PER_MM))


def placed(centre_mm, angle_deg: float, size_mm) -> np.ndarray:
    """Homography card mm -> table mm for a card lying at ``centre_mm`` turned by ``angle_deg``."""
    w, h = size_mm
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, centre_mm[0]], [s, c, centre_mm[1]], [0, 0, 1]]) @ \
        np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], dtype=np.float64)


def draw_hand(frame: np.ndarray, palm_px: tuple[float, float], scale: float) -> None:
    """An arm reaching in from the frame's bottom edge to a palm with fingers at ``palm_px``."""
    x, y = palm_px
    skin, shade = (110, 150, 205), (90, 125, 180)
    arm = np.array([[x - 45 * scale, y + 40 * scale], [x + 45 * scale, y + 40 * scale],
                    [x + 120 * scale, frame.shape[0] + 10], [x - 30 * scale, frame.shape[0] + 10]], np.int32)
    cv2.fillPoly(frame, [arm], shade)
    cv2.ellipse(frame, (int(x), int(y)), (int(55 * scale), int(65 * scale)), 0, 0, 360, skin, -1)
    for i, dx in enumerate((-40, -15, 10, 35)):
        tip = (int(x + dx * scale), int(y - (110 + 10 * (i % 2)) * scale))
        cv2.line(frame, (int(x + dx * scale), int(y - 30 * scale)), tip, skin, int(20 * scale))
    cv2.line(frame, (int(x + 50 * scale), int(y)), (int(x + 100 * scale), int(y - 50 * scale)), skin, int(22 * scale))


def render(cards, px_per_mm: float = 1.7, seed: int = 0, layout: CalibrationLayout | None = None,
           extra=(), blur: float = 0.8, noise: float = 4.0, jpeg: int = 85, cam: np.ndarray | None = None,
           hand: tuple[float, float] | None = None):
    """A 1920 × 1080 BGR frame of ``cards`` = [(card_id, face_up, (x, y) mm, angle)] in z order on a
    wooden-ish table, with the calibration sheet; ``extra`` = [(image, image-px -> table-mm)] drawn
    after the cards; ``hand``: a hand with its palm over this table point (mm)."""
    rng = np.random.default_rng(seed)       # this frame's sensor noise
    table_rng = np.random.default_rng(12345)  # the same table in every frame
    layout = layout or CalibrationLayout.sheet()
    cam = camera(px_per_mm) if cam is None else cam
    # a wooden table: low-frequency grain, not pixel noise
    grain = cv2.resize(table_rng.normal(0, 1, (34, 60)).astype(np.float32), (1920, 1080), interpolation=cv2.INTER_CUBIC)
    streaks = cv2.resize(table_rng.normal(0, 1, (180, 8)).astype(np.float32), (1920, 1080), interpolation=cv2.INTER_LINEAR)
    wood = 12 * grain + 8 * streaks
    frame = np.clip(np.array([70, 110, 150], np.float32) + wood[..., None], 0, 255).astype(np.uint8)
    # the calibration sheet: white paper with the four markers
    x0, y0, x1, y1 = layout.bounds()
    paper = np.full((int((y1 - y0 + 20) * 4), int((x1 - x0 + 20) * 4), 3), 245, np.uint8)
    _paste(frame, paper, cam @ np.array([[0.25, 0, x0 - 10], [0, 0.25, y0 - 10], [0, 0, 1]]))
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000)
    for card_id, rect in layout.markers.items():
        m = cv2.aruco.generateImageMarker(dictionary, cat.card(card_id).marker, 7 * 20, borderBits=1)
        s = rect.w / m.shape[0]
        _paste(frame, cv2.cvtColor(m, cv2.COLOR_GRAY2BGR), cam @ np.array([[s, 0, rect.x], [0, s, rect.y], [0, 0, 1]]))
    px = 1.0 / CARD_PX_PER_MM
    for card_id, face_up, centre, angle in cards:
        image = card_image(card_id, face_up)
        to_mm = placed(centre, angle, cat.card_size_mm(card_id)) @ np.diag([px, px, 1.0])
        _paste(frame, image, cam @ to_mm)
    for image, to_mm in extra:
        _paste(frame, image, cam @ to_mm)
    if hand is not None:
        palm, beside = cv2.perspectiveTransform(np.array([[hand, (hand[0] + 10, hand[1])]], np.float64), cam)[0]
        draw_hand(frame, tuple(palm), float(np.linalg.norm(beside - palm)) / 10 / 1.4)
    if blur:
        frame = cv2.GaussianBlur(frame, (0, 0), blur)
    if noise:
        frame = np.clip(frame + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)
    if jpeg:
        frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, jpeg])[1], cv2.IMREAD_COLOR)
    return frame




# --- tables of real games ------------------------------------------------------------------------
def game_states(game_id: str, seed: int, limit: int | None = None) -> list[dict]:
    """The engine's ``layout()`` after every move of a random game (the first one before any move)."""
    from companion.engine import simulate
    cls = game_class(game_id)
    record = simulate(cls(GAME_PLAYERS[game_id]), seed)
    game = cls(GAME_PLAYERS[game_id])
    states = [game.layout()]
    for move, _ in record.turns[:limit]:
        game.apply(move)
        states.append(game.layout())
    return states


def placements(game_id: str, layout: dict, seed: int, before: Sequence = (), players: int | None = None) -> list:
    """Where the cards of ``layout`` lie (vision.table.layouts, K-CAL markers included). A card that lay
    in (nearly) the same place ``before`` stays exactly where it was: players do not nudge the cards
    a move does not touch."""
    from vision.table import layouts
    placed_cards = layouts.place(game_id, layout, players or GAME_PLAYERS[game_id], random.Random(seed))
    old = {(p.card_id, p.face_up): p for p in before}
    out = []
    for p in placed_cards:
        q = old.get((p.card_id, p.face_up))
        if q is not None and math.dist(p.centre, q.centre) < 10 and abs(p.angle_deg - q.angle_deg) < 10:
            p = replace(p, centre=q.centre, angle_deg=q.angle_deg)
        out.append(p)
    return out


def table_layout(game_id: str, players: int | None = None) -> CalibrationLayout:
    """The game's table plan with K-CAL1..4 in its corners."""
    from vision.table import layouts
    return CalibrationLayout.corners(*layouts.table_size(game_id, players or GAME_PLAYERS[game_id]))


def frame_of(placed_cards: Sequence, layout: CalibrationLayout, cam: np.ndarray, seed: int,
             hand: tuple[float, float] | None = None) -> np.ndarray:
    """One frame of placements (``vision.table.layouts.Placement``) by this module's quick renderer."""
    cards = [(p.card_id, p.face_up, p.centre, p.angle_deg) for p in sorted(placed_cards, key=lambda p: p.z)
             if not p.card_id.startswith("K-CAL")]
    return render(cards, px_per_mm=0, seed=seed, layout=layout, cam=cam, hand=hand)


def fitting_camera(layout: CalibrationLayout, px_per_mm: float | None = None) -> tuple[np.ndarray, float]:
    """A camera over the table's centre: at ``px_per_mm``, or (None) as close as shows all of it."""
    x0, y0, x1, y1 = layout.bounds()
    fit = min(1840 / (x1 - x0), 1010 / (y1 - y0)) / 1.05
    scale = fit if px_per_mm is None else px_per_mm
    return camera(scale, centre_mm=((x0 + x1) / 2, (y0 + y1) / 2), turn=1.0, tilt=0.04), scale


class View:
    """A camera over one game's table at one scale: frames of placements, and what a perfect
    detector would identify in them. Uses ``tablesim.synthetic`` (lens distortion, uneven light,
    clutter) when it is installed, else this module's quick renderer."""

    def __init__(self, game_id: str, px_per_mm: float | None, seed: int = 0, players: int | None = None,
                 conditions: Any = None) -> None:
        self.game_id = game_id
        self.conditions = conditions
        self.layout = table_layout(game_id, players)
        table = (self.layout.bounds()[2], self.layout.bounds()[3])
        self.synthetic = _synthetic()
        if self.synthetic is not None:
            fits = self.synthetic.max_px_per_mm(table)
            self.px_per_mm = min(1.7, fits) if px_per_mm is None else px_per_mm
            self.whole_table = self.px_per_mm <= fits
            self.cam = self.synthetic.Camera.looking_at(table, self.px_per_mm, seed, self.whole_table,
                                                        conditions or self.synthetic.Conditions())
            self.true_calibration = Calibration(np.linalg.inv(self.cam.homography), (), 0.0, self.cam.k)
        else:
            self.cam, self.px_per_mm = fitting_camera(self.layout, px_per_mm)
            self.whole_table = px_per_mm is None
            self.true_calibration = Calibration(np.linalg.inv(self.cam), (), 0.0)

    def frame(self, placed_cards: Sequence, seed: int, hand: tuple[float, float] | None = None) -> np.ndarray:
        """One 1920 × 1080 BGR frame."""
        if self.synthetic is not None:
            return self.synthetic.render(self.cam, placed_cards, seed, hand_at=hand)[0]
        return frame_of(placed_cards, self.layout, self.cam, seed, hand)

    def truth(self, placed_cards: Sequence) -> list[tuple[str, tuple[float, float]]]:
        """(shown id, centre) of every card a perfect detector identifies (seat tokens included,
        calibration markers not)."""
        if self.synthetic is not None:
            found = [placed_cards[i] for i in self.synthetic.visible_truth(self.cam, placed_cards)]
        else:
            found = [placed_cards[i] for i in _visible(placed_cards, self.cam)]
        return [(p.shown_id, p.centre) for p in found if not p.card_id.startswith("K-CAL")]


def _synthetic():
    try:
        from tablesim import synthetic
    except ImportError:
        return None
    return synthetic


def _visible(placed_cards: Sequence, cam: np.ndarray) -> list[int]:
    """Indices of cards with a marker no card covers, inside the frame."""
    from vision.table import layouts
    cover = layouts.Cover(placed_cards)
    out = []
    for i, p in enumerate(placed_cards):
        if cover.visible_markers(i) == 0:
            continue
        for x, y, w, h in layouts.marker_squares(p.card_id):
            pts = [layouts.card_point(p.card_id, p.centre, p.angle_deg, x + dx, y + dy)
                   for dx in (0, w) for dy in (0, h)]
            px = cv2.perspectiveTransform(np.array([pts], np.float64), cam)[0]
            if np.all((px >= 2) & (px <= (1918, 1078))) and not cover.covered(i, np.array(pts)).any():
                out.append(i)
                break
    return out


def score(truth: list[tuple[str, tuple[float, float]]], reported: list[tuple[str, tuple[float, float]]],
          lying: list[tuple[str, tuple[float, float]]]) -> tuple[int, int]:
    """(identified, misidentified): reported cards matched one-to-one to visible true cards of the
    same id within ``MATCH_MM``; a reported card is misidentified when no card of its id lies
    there at all (``lying``: every card on the table; a card read by its QR code while both its
    markers are covered or out of view is right, though no perfect marker detector sees it)."""
    free, others = list(truth), list(lying)
    identified = wrong = 0
    for card_id, centre in reported:
        near = [t for t in free if t[0] == card_id and math.dist(t[1], centre) <= MATCH_MM]
        if near:
            free.remove(min(near, key=lambda t: math.dist(t[1], centre)))
            identified += 1
        elif not any(t[0] == card_id and math.dist(t[1], centre) <= MATCH_MM for t in others):
            wrong += 1
    return identified, wrong


def reported_cards(scene) -> list[tuple[str, tuple[float, float]]]:
    """(id, centre) of every card and seat token of a scene."""
    return [(c.card_id, c.centre) for c in scene.cards] + \
        [(f"T-SEAT{seat + 1}", centre) for seat, centre in scene.seats.items()]


def baseline(frame: np.ndarray, cal: Calibration) -> tuple[list[tuple[str, tuple[float, float]]], float]:
    """pyzbar on the full frame: the cards whose QR code it reads, and its time in ms."""
    from pyzbar import pyzbar
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    start = time.perf_counter()
    found = pyzbar.decode(grey, symbols=[pyzbar.ZBarSymbol.QRCODE])
    ms = (time.perf_counter() - start) * 1000
    out = []
    for r in found:
        try:
            card = cat.parse(r.data)
        except cat.PayloadError:
            continue
        qr_centre = cal.to_table(np.array([[r.rect.left + r.rect.width / 2, r.rect.top + r.rect.height / 2]]))[0]
        # the QR code is centred on the card (QR_TOP_MM + QR_MM / 2 = CARD_HEIGHT_MM / 2)
        out.append((card.id, (float(qr_centre[0]), float(qr_centre[1]))))
    return out, ms


# --- part 1: per scale ----------------------------------------------------------------------------
DETECTORS = ("quads", "aruco")
"""The marker finders compared per scale (``vision.reading.detect.DETECTORS``)."""


def _timed(pipeline, frame: np.ndarray) -> tuple[Any, float, float]:
    """``pipeline.process(frame)`` with its wall-clock and CPU ms (CPU: every thread of the
    process, so the finder's worker threads count)."""
    start, cpu = time.perf_counter(), time.process_time()
    scene = pipeline.process(frame)
    return scene, (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000


def _stream_frames(view: "View", game_id: str, states: list[dict], start: int, moves: int) -> list[np.ndarray]:
    """A short stream from the middle of a game: the table at rest (3 still frames), then for each
    of ``moves`` moves a hand over the cards it moves and 3 still frames of the new table."""
    frames: list[np.ndarray] = []
    placed_cards: list = []
    for n in range(start, min(start + moves + 1, len(states))):
        before = placed_cards
        placed_cards = placements(game_id, states[n], seed=1000 + n, before=before)
        if before:
            moved = [c for _, c in {(p.card_id, p.centre) for p in before} ^ {(p.card_id, p.centre) for p in placed_cards}]
            hand = tuple(np.mean(moved, axis=0)) if moved else tuple(np.mean([p.centre for p in placed_cards], axis=0))
            frames.append(view.frame(before, 500 + len(frames), hand=(float(hand[0]), float(hand[1]))))
        frames += [view.frame(placed_cards, 500 + len(frames) + i) for i in range(3)]
    return frames


def scale_bins(quick: bool, decoder: str, detectors: Sequence[str] = DETECTORS) -> dict[str, Any]:
    """Identification and speed per px/mm bin for each marker finder, against pyzbar on the full
    frame: a *full look* is a frame searched whole (the first still frames of a fresh pipeline:
    as at start, after a camera bump, and every ``FULL_EVERY``-th still frame); a *stream* is every
    frame of short games (hand frames, still frames searched only where they changed)."""
    from vision.pipeline import Pipeline
    # three frames of a fresh pipeline: the first is not still (not read); a card read by one
    # marker alone, its QR code not read yet, is a card once the next frame reads it again
    stills = 3
    picks = (0.5,) if quick else (0.3, 0.6, 0.9)
    moves = 2 if quick else 6
    out: dict[str, Any] = {}
    for scale in SCALES:
        load = [round(os.getloadavg()[0], 2)]
        totals = {"visible": 0, "baseline_identified": 0, "baseline_misidentified": 0, "frames": 0, "tables": 0}
        per = {d: {"identified": 0, "misidentified": 0, "full": [], "full_cpu": [], "stream": [], "stream_cpu": []}
               for d in detectors}
        base_ms: list[float] = []
        for game_id in GAME_PLAYERS:
            states = game_states(game_id, seed=1, limit=None)
            view = View(game_id, scale, seed=1)

            def fresh(detector: str):
                pipeline = Pipeline(game_id, GAME_PLAYERS[game_id], layout=view.layout, decoder=decoder,
                                    detector=detector)
                pipeline.calibration = view.true_calibration    # the corners may be out of view
                return pipeline

            for k, pick in enumerate(picks):
                placed_cards = placements(game_id, states[int(pick * (len(states) - 1))], seed=k)
                truth = view.truth(placed_cards)
                lying = [(p.shown_id, p.centre) for p in placed_cards]
                frames = [view.frame(placed_cards, seed=100 * k + i) for i in range(stills)]
                for detector in detectors:
                    pipeline, r = fresh(detector), per[detector]
                    for i, frame in enumerate(frames):
                        scene, ms, cpu = _timed(pipeline, frame)
                        if i > 0:       # the first frame of a fresh pipeline is not still: not read
                            r["full"].append(ms)
                            r["full_cpu"].append(cpu)
                    identified, wrong = score(truth, reported_cards(scene), lying)
                    r["identified"] += identified
                    r["misidentified"] += wrong
                for frame in frames:
                    found, ms = baseline(frame, view.true_calibration)
                    base_ms.append(ms)
                b_identified, b_wrong = score(truth, found, lying)
                totals["visible"] += len(truth)
                totals["baseline_identified"] += b_identified
                totals["baseline_misidentified"] += b_wrong
                totals["frames"] += stills
                totals["tables"] += 1
            stream = _stream_frames(view, game_id, states, (len(states) - 1) // 2, moves)
            for detector in detectors:
                pipeline, r = fresh(detector), per[detector]
                for frame in stream:
                    _, ms, cpu = _timed(pipeline, frame)
                    r["stream"].append(ms)
                    r["stream_cpu"].append(cpu)
        load.append(round(os.getloadavg()[0], 2))
        out[f"{scale}"] = {
            **totals, "load_average": load,
            "baseline_share": round(totals["baseline_identified"] / max(1, totals["visible"]), 4),
            "baseline_ms": _stats(base_ms),
            "detectors": {d: {
                "identified": r["identified"], "misidentified": r["misidentified"],
                "identified_share": round(r["identified"] / max(1, totals["visible"]), 4),
                "full_look_ms": _stats(r["full"]), "full_look_cpu_ms": _stats(r["full_cpu"]),
                "full_looks": len(r["full"]),
                "stream_ms": _stats(r["stream"]), "stream_cpu_ms": _stats(r["stream_cpu"]),
                "stream_frames": len(r["stream"])} for d, r in per.items()}}
    return out


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"median": float("nan"), "p95": float("nan")}
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 1),
            "p95": round(ordered[min(len(ordered) - 1, int(math.ceil(0.95 * len(ordered))) - 1)], 1)}


# --- part 3: conditions of a real table ----------------------------------------------------------
def conditions() -> dict[str, Any]:
    """The named conditions of ``--part conditions`` (``tablesim.synthetic.Conditions``)."""
    from tablesim.synthetic import Conditions
    return {
        "overhead": Conditions(elevation=90.0),
        "tilt 60°": Conditions(elevation=60.0, yaw=20.0),
        "tilt 45° yaw 0°": Conditions(elevation=45.0, yaw=0.0),
        "tilt 45° yaw 120°": Conditions(elevation=45.0, yaw=120.0),
        "tilt 45° yaw 250°": Conditions(elevation=45.0, yaw=250.0),
        "barrel": Conditions(elevation=90.0, barrel=0.09),
        "blur 3 px": Conditions(elevation=90.0, motion_blur=3.0),
        "blur 5 px": Conditions(elevation=90.0, motion_blur=5.0),
        "blur 7 px": Conditions(elevation=90.0, motion_blur=7.0),
        "blur 9 px": Conditions(elevation=90.0, motion_blur=9.0),
        "glare": Conditions(elevation=80.0, glare=6),
        "phone screen": Conditions(elevation=75.0, yaw=10.0, screen=True),
        "phone screen night": Conditions(elevation=75.0, yaw=10.0, screen="phone night"),
        "phone screen flat": Conditions(elevation=60.0, yaw=200.0, screen="phone flat"),
        "tablet screen": Conditions(elevation=75.0, yaw=10.0, screen="tablet"),
        "lighting gradient": Conditions(elevation=85.0, gradient=0.6),
        "dim room": Conditions(elevation=80.0, yaw=340.0, dim=0.6),
        "shadows": Conditions(elevation=70.0, yaw=30.0, shadows=3),
        "shallow focus 45°": Conditions(elevation=45.0, yaw=200.0, defocus=3.0),
    }


def score_reports(truth: list[tuple[str, tuple[float, float]]], reported: list[tuple[str, tuple[float, float]]],
                  lying: list[tuple[str, tuple[float, float]]], screen: str | None = None) -> dict[str, int]:
    """``score`` with every kind of error counted: identified (a visible true card, once),
    duplicates (a card already reported, reported again: one card taken for two), misidentified
    (no card of that id lies there: a wrong read, a card of a deck not in play, a card on a
    screen), from a screen (of those, the screen's card)."""
    free, unclaimed = list(truth), list(lying)
    out = {"identified": 0, "duplicates": 0, "misidentified": 0, "from_screen": 0}
    for card_id, centre in sorted(reported, key=lambda r: r[0]):
        near = [t for t in free if t[0] == card_id and math.dist(t[1], centre) <= MATCH_MM]
        there = [t for t in lying if t[0] == card_id and math.dist(t[1], centre) <= MATCH_MM]
        if near:
            t = min(near, key=lambda t: math.dist(t[1], centre))
            free.remove(t)
            if t in unclaimed:
                unclaimed.remove(t)
            out["identified"] += 1
        elif there:
            spare = [t for t in there if t in unclaimed]
            if spare:       # a true card not counted visible (covered, too coarse) read anyway
                unclaimed.remove(spare[0])
            else:
                out["duplicates"] += 1
        else:
            out["misidentified"] += 1
            out["from_screen"] += card_id == screen
    return out


def condition_bins(quick: bool, decoder: str, names: Sequence[str] | None = None,
                   scales: Sequence[float] | None = None, visible: float | None = None,
                   games: Sequence[str] | None = None) -> dict[str, Any]:
    """Per condition and scale: mid-game tables of all five games seen by a fresh pipeline
    (calibrating itself from the K-CAL markers when all four are in view, else given the true
    calibration); identified / visible (a marker seen at least ``visible`` px/mm along the card's
    worse axis — default the set-up check's line, ``camera_check.READ_PX_PER_MM``, where it
    promises cards will read —, not covered by a card, the hand, glare or the phone),
    duplicates, misidentified (cards from the screen among them), the full look's time; with
    pyzbar on the full frame as the baseline. ``games``: only these games' tables (each keeps its own
    camera and seeds, so a change to one deck's faces is measured on its table alone)."""
    from tablesim import synthetic
    from vision.pipeline import Pipeline
    from vision.table.camera_check import READ_PX_PER_MM
    visible = READ_PX_PER_MM if visible is None else visible
    chosen = conditions()
    names = list(chosen) if names is None else list(names)
    scales = ((1.2, 1.7) if quick else SCALES) if scales is None else scales
    stills = 3          # as ``scale_bins``
    picks = (0.5,) if quick else (0.3, 0.7)
    states = {g: game_states(g, seed=1, limit=None) for g in GAME_PLAYERS}
    out: dict[str, Any] = {}
    for name in names:
        cond = chosen[name]
        for scale in scales:
            load = [round(os.getloadavg()[0], 2)]
            r = {"visible": 0, "identified": 0, "duplicates": 0, "misidentified": 0, "from_screen": 0,
                 "baseline_identified": 0, "baseline_misidentified": 0, "tables": 0, "frames": 0,
                 "self_calibrated": 0, "below_visible": 0, "visible_px_per_mm": visible}
            full_ms: list[float] = []
            for g, game_id in enumerate(GAME_PLAYERS):
                if games is not None and game_id not in games:
                    continue
                view = View(game_id, scale, seed=g + 1, conditions=cond)
                for k, pick in enumerate(picks):
                    placed_cards = placements(game_id, states[game_id][int(pick * (len(states[game_id]) - 1))], seed=k)
                    shots = [synthetic.render_frame(view.cam, placed_cards, 100 * k + i) for i in range(stills)]
                    last = shots[-1]
                    found = [placed_cards[i] for i in synthetic.visible_truth(
                        view.cam, placed_cards, last.hidden, visible)]
                    truth = [(p.shown_id, p.centre) for p in found if not p.card_id.startswith("K-CAL")]
                    lying = [(p.shown_id, p.centre) for p in placed_cards if not p.card_id.startswith("K-CAL")]
                    res = synthetic.card_resolution(view.cam, placed_cards)
                    r["below_visible"] += int(sum(1 for p, m in zip(placed_cards, res)
                                                  if not p.card_id.startswith("K-CAL") and m.max() < visible))
                    pipeline = Pipeline(game_id, GAME_PLAYERS[game_id], layout=view.layout, decoder=decoder)
                    corners = [p for p in placed_cards if p.card_id.startswith("K-CAL")]
                    truth_cal = replace(view.true_calibration, markers=tuple(sorted(view.layout.markers)))
                    if len(synthetic.visible_truth(view.cam, corners)) < 4:
                        # a corner out of view: calibrated as with all four (earlier, or by the
                        # truth); the two or three in view must not replace it (from two corner
                        # markers a 45° camera misplaces far cards by ~20 mm)
                        pipeline.calibration = truth_cal
                    scene = None
                    for i, shot in enumerate(shots):
                        scene, ms, _ = _timed(pipeline, shot.image)
                        if i > 0:
                            full_ms.append(ms)
                    r["self_calibrated"] += pipeline.calibration is not truth_cal
                    screen = last.screen.card_id if last.screen is not None else None
                    counts = score_reports(truth, reported_cards(scene) if scene else [], lying, screen)
                    for key, n in counts.items():
                        r[key] += n
                    base, _ = baseline(last.image, view.true_calibration)
                    b = score_reports(truth, base, lying, screen)
                    r["baseline_identified"] += b["identified"]
                    r["baseline_misidentified"] += b["misidentified"] + b["duplicates"]
                    r["visible"] += len(truth)
                    r["tables"] += 1
                    r["frames"] += stills
            load.append(round(os.getloadavg()[0], 2))
            out.setdefault(name, {})[f"{scale}"] = {
                **r, "identified_share": round(r["identified"] / max(1, r["visible"]), 4),
                "baseline_share": round(r["baseline_identified"] / max(1, r["visible"]), 4),
                "full_look_ms": _stats(full_ms), "load_average": load}
    return out


SURFACE_SCALES = (1.0, 1.2, 1.4, 1.7, 2.0)
"""px/mm of ``--part surfaces``: down to 1.0, what a 1080p camera gives Wheel's circle at 45–70°."""


def surface_bins(quick: bool, decoder: str, surfaces: Sequence[str] | None = None,
                 scales: Sequence[float] = SURFACE_SCALES) -> dict[str, Any]:
    """Per table surface (``tablesim.synthetic.SURFACES``) and scale: mid-game tables of the five
    games under a near-overhead camera, each seen by a fresh pipeline in a few still frames;
    identified / visible (a marker in view and not covered: at these scales every card is seen at
    about the scale), wrong (misidentified or duplicated), the time of the pipeline's *full look*
    (the frame it searched whole: wall and CPU of all threads) and pyzbar's time on the same full
    frame, with their ratio."""
    from tablesim import synthetic
    from vision.pipeline import Pipeline
    surfaces = list(synthetic.SURFACE_NAMES if surfaces is None else surfaces)
    games = ("wheel",) if quick else tuple(GAME_PLAYERS)
    states = {g: game_states(g, seed=1, limit=None) for g in games}
    out: dict[str, Any] = {}
    for surface in surfaces:
        cond = synthetic.Conditions(surface=surface)
        for scale in scales:
            load = [round(os.getloadavg()[0], 2)]
            r = {"visible": 0, "identified": 0, "wrong": 0, "tables": 0, "settled_after_one": 0}
            wall: list[float] = []
            cpu: list[float] = []
            zbar: list[float] = []
            zbar_cpu: list[float] = []
            for g, game_id in enumerate(games):
                view = View(game_id, scale, seed=g + 1, conditions=cond)
                placed_cards = placements(game_id, states[game_id][len(states[game_id]) // 2], seed=g)
                frames = [view.frame(placed_cards, seed=10 * g + i) for i in range(3)]
                truth, lying = view.truth(placed_cards), [(p.shown_id, p.centre) for p in placed_cards]
                pipeline = Pipeline(game_id, GAME_PLAYERS[game_id], layout=view.layout, decoder=decoder)
                if not view.whole_table:
                    pipeline.calibration = view.true_calibration    # the corners are out of view
                scene = None
                looks = []
                for frame in frames:
                    scene, ms, cpu_ms = _timed(pipeline, frame)
                    looks.append(pipeline.last_look)
                    if pipeline.last_look == "full":
                        wall.append(ms)
                        cpu.append(cpu_ms)
                # the first frame is never still: settled after one full look of a still frame when
                # the third frame is not searched whole again (at most the places of cards read once)
                r["settled_after_one"] += looks[1:].count("full") == 1
                counts = score_reports(truth, reported_cards(scene) if scene else [], lying)
                r["identified"] += counts["identified"]
                r["wrong"] += counts["misidentified"] + counts["duplicates"]
                r["visible"] += len(truth)
                r["tables"] += 1
                before = time.process_time()
                zbar.append(baseline(frames[-1], view.true_calibration)[1])
                zbar_cpu.append((time.process_time() - before) * 1000)
            load.append(round(os.getloadavg()[0], 2))
            full, full_cpu, base, base_cpu = _stats(wall), _stats(cpu), _stats(zbar), _stats(zbar_cpu)
            out.setdefault(surface, {})[f"{scale}"] = {
                **r, "identified_share": round(r["identified"] / max(1, r["visible"]), 4),
                "full_look_ms": full, "full_look_cpu_ms": full_cpu, "full_looks": len(wall),
                "pyzbar_ms": base, "ratio_to_pyzbar": round(full["median"] / max(base["median"], 1e-6), 2),
                "pyzbar_cpu_ms": base_cpu,
                "cpu_ratio_to_pyzbar": round(full_cpu["median"] / max(base_cpu["median"], 1e-6), 2),
                "load_average": load}
    return out


def _print_surfaces(result: dict[str, Any]) -> None:
    print("surface      px/mm  visible  identified  wrong | full look ms wall (CPU), median/p95 | "
          "pyzbar full frame ms wall (CPU) | ratio wall (CPU) | settled after 1 look | load")
    for surface, per in result.items():
        for scale, r in per.items():
            full, cpu, zbar = r["full_look_ms"], r["full_look_cpu_ms"], r["pyzbar_ms"]
            print(f"{surface:<12} {scale:>5}  {r['visible']:>7}  {100 * r['identified_share']:>9.2f}%  "
                  f"{r['wrong']:>5} | {full['median']:>6}/{full['p95']:<6} ({cpu['median']}/{cpu['p95']}) "
                  f"| {zbar['median']:>6} ({r['pyzbar_cpu_ms']['median']}) | {r['ratio_to_pyzbar']:>5} "
                  f"({r['cpu_ratio_to_pyzbar']}) | {r['settled_after_one']}/{r['tables']} "
                  f"| {r['load_average'][0]}/{r['load_average'][1]}")
    sys.stdout.flush()


def _print_conditions(result: dict[str, Any]) -> None:
    print("condition            px/mm  visible  identified  dupl.  misid. (screen) | pyzbar  misid. | "
          "cards < line  self-cal.  full look ms  load")
    for name, per in result.items():
        for scale, r in per.items():
            print(f"{name:<20} {scale:>5}  {r['visible']:>7}  {100 * r['identified_share']:>9.2f}%  "
                  f"{r['duplicates']:>5}  {r['misidentified']:>6} ({r['from_screen']:>2})    | "
                  f"{100 * r['baseline_share']:>6.2f}%  {r['baseline_misidentified']:>5} | "
                  f"{r['below_visible']:>12}  {r['self_calibrated']:>4}/{r['tables']:<4} "
                  f"{r['full_look_ms']['median']:>6}/{r['full_look_ms']['p95']:<6} "
                  f"{r['load_average'][0]}/{r['load_average'][1]}")
    sys.stdout.flush()


# --- part 2: whole games -------------------------------------------------------------------------
STILLS = 4
"""Frames of each table state after the hand frame. The first is never still (the motion meter
compares it with the hand frame), so 3 still frames: one more than the pipeline's confirmation (the
same observation in 2 still frames) needs. A live camera at 15–30 fps sees dozens."""


@dataclass(frozen=True)
class TableStep:
    """One still table of a simulated game: what lies on it, and how many true moves led there."""

    layout: dict
    moves: int


def table_script(game_id: str, players: int, options: dict[str, Any], seed: int) -> tuple[list[Move], list[TableStep]]:
    """A random game as it happens at a real table (``tablesim.scripted.table_move``: nobody sees a deal),
    and the still tables a camera sees: one after each move, except between taking a card from the
    deck and turning it over (one motion), plus the table before a ruling is carried out by hand
    (a Chains misfit lying turned over, a Prussia card drawn)."""
    from companion.games import new_game
    from tablesim.scripted import SAME_MOTION, pre_ruling_layouts, table_move
    rng = random.Random(seed)
    ref = new_game(game_id, players, options)
    steps = [TableStep(ref.layout(), 0)]
    while not ref.is_over():
        move = table_move(ref, rng)
        before = ref.layout()
        events = ref.apply(move)
        if (game_id, move.kind) in SAME_MOTION and move.player != CHANCE and ref.is_chance_node():
            continue
        steps += [TableStep(shown, len(ref.log)) for shown in pre_ruling_layouts(game_id, before, ref.layout(), events)]
        steps.append(TableStep(ref.layout(), len(ref.log)))
    return list(ref.log), steps


class SessionScore:
    """A table session fed with the pipeline's observations as the product feeds it; the bench plays
    the people at the table: a "choose" prompt listing the true moves is answered with them (one
    tap); otherwise (an "illegal" prompt, a choice without the truth, a wrong move applied) the
    host undoes what is wrong and the true moves are tapped in on the phone page ("typed"), up to
    the table's present state. ``how[i]`` says how the session's i-th move came in."""

    def __init__(self, session: Any, truth: list[Move]) -> None:
        self.s, self.truth = session, truth
        self.how: list[str] = []
        self.wrong = 0                  # moves the session applied that were not the true ones
        self.prompts: dict[str, int] = {}
        self.observe_ms: list[float] = []
        self.notes: list[str] = []      # each prompt and correction, with the true moves

    def _log(self) -> list[Move]:
        return self.s.game.log

    def _entered(self, before: int, how: str) -> None:
        self.how = self.how[:before] + [how] * (len(self._log()) - before)

    def observe(self, observation: dict, upto: int) -> None:
        """Reconcile one stable observation; ``upto``: the true moves made when it was taken."""
        before = len(self._log())
        start = time.perf_counter()
        outcome = self.s.observe(observation)
        self.observe_ms.append((time.perf_counter() - start) * 1000)
        self._entered(before, "camera")
        if outcome.kind == "prompt":
            prompt = outcome.prompt
            self.prompts[prompt.kind] = self.prompts.get(prompt.kind, 0) + 1
            tail = [m.to_json() for m in self.truth[before:]]
            labels = " / ".join(c["label"] for c in prompt.choices if c["moves"])
            self.notes.append(f"move {before}: {prompt.kind} {prompt.text[:120]} [{labels[:240]}] | "
                              f"true: {'; '.join(map(str, self.truth[before:upto]))[:200]}")
            right = max((c for c in prompt.choices if c["moves"] and c["moves"] == tail[:len(c["moves"])]),
                        key=lambda c: len(c["moves"]), default=None) if prompt.kind == "choose" else None
            if right is not None:
                self.s.answer(prompt.id, right["id"], by="bench", expected_version=self.s.version)
                self._entered(before, "tap")
            elif prompt.kind in ("choose", "illegal"):
                self.s.answer(prompt.id, "none" if prompt.kind == "choose" else "fixed", by="bench",
                              expected_version=self.s.version)
                self.catch_up(upto)
        if self._log() != self.truth[:len(self._log())]:
            self._unwind()
            self.catch_up(upto)

    def _unwind(self) -> None:
        """The host undoes the moves that are not the true ones."""
        log = self._log()
        common = next((i for i, (a, b) in enumerate(zip(log, self.truth)) if a != b), min(len(log), len(self.truth)))
        self.notes.append(f"move {common}: wrong {'; '.join(map(str, log[common:]))[:160]} | "
                          f"true: {'; '.join(map(str, self.truth[common:common + 3]))[:160]}")
        self.wrong += len(log) - common
        while len(self._log()) > common:
            self.s.undo(by="bench", expected_version=self.s.version)
        self.how = self.how[:len(self._log())]

    def catch_up(self, upto: int) -> None:
        """Tap in the true moves the session lacks, up to the ``upto``-th."""
        for move in self.truth[len(self._log()):upto]:
            before = len(self._log())
            self.s.play(move, by="bench", expected_version=self.s.version)
            self._entered(before, "typed")

    def result(self) -> dict[str, Any]:
        """Counts over the true moves: by the camera alone, with one tap, typed; wrong ones applied."""
        n = len(self.truth)
        camera = self.how.count("camera")
        return {"moves": n, "camera": camera, "one_tap": self.how.count("tap"),
                "typed": self.how.count("typed"), "wrong_applied": self.wrong,
                "camera_share": round(camera / max(1, n), 4),
                "log_matches": self._log() == self.truth, "prompts": dict(self.prompts),
                "observe_ms": _stats(self.observe_ms), "notes": self.notes}


def whole_game(game_id: str, seed: int, quick: bool, decoder: str, moves: int | None = None,
               missed: float = 0.0, players: int | None = None) -> dict[str, Any]:
    """Stream a simulated game (a hand frame, then ``STILLS`` frames per still table) through one
    pipeline into a table session (its first ``moves`` moves only, if given; ``quick``: 8), and
    compare the session's move log with the true one. ``missed``: the share of still tables the
    camera does not see still (a hand stays over the table; never the last one)."""
    import tempfile
    from companion.session import Store, TableSession
    from companion.session.reconcile import adapter
    from vision.pipeline import Pipeline
    from vision.table import layouts
    from vision.table.layouts import scene_from_placements
    players = players or GAME_PLAYERS[game_id]
    limit = 8 if quick else moves
    view = View(game_id, None, seed, players)
    pipeline = Pipeline(game_id, players, layout=view.layout, decoder=decoder)
    rng, skips = random.Random(seed), random.Random(seed + 1)
    x0, y0, x1, y1 = view.layout.bounds()
    with tempfile.TemporaryDirectory(prefix="bench-vision-") as tmp:
        store = Store(f"{tmp}/bench.db")
        session = TableSession.create(store, game_id, players)
        truth, steps = table_script(game_id, players, adapter(game_id).session_options({}), seed)
        if limit is not None:
            truth, steps = truth[:limit], [t for t in steps if t.moves <= limit]
        score = SessionScore(session, truth)
        states_read, shown, frame_ms, cpu_ms, misses = 0, 0, [], [], []
        placed_cards: list = []
        for n, step in enumerate(steps):
            before = placed_cards
            placed_cards = placements(game_id, step.layout, seed=seed * 1000 + n, before=placed_cards,
                                      players=players)
            expected = layouts.read(game_id, scene_from_placements(placed_cards), players)
            frames = []
            if n > 0:       # the hand that made the move (over the cards it moved), then the table at rest
                moved = {(p.card_id, p.centre) for p in before} ^ {(p.card_id, p.centre) for p in placed_cards}
                hand = (float(np.mean([c[0] for _, c in moved])), float(np.mean([c[1] for _, c in moved]))) \
                    if moved else (rng.uniform(x0, x1), rng.uniform(y0, y1))
                frames.append(view.frame(before, 10 * n, hand=hand))
            seen_still = n == len(steps) - 1 or skips.random() >= missed
            if seen_still:
                frames += [view.frame(placed_cards, 10 * n + 1 + i) for i in range(STILLS)]
            for frame in frames:
                start, cpu = time.perf_counter(), time.process_time()
                observation = pipeline.step(frame)
                frame_ms.append((time.perf_counter() - start) * 1000)
                cpu_ms.append((time.process_time() - cpu) * 1000)
                if observation is not None:
                    score.observe(observation, step.moves)
            if not seen_still:
                continue
            shown += 1
            if pipeline.last_observation == expected:
                states_read += 1
            else:
                misses.append(n)
        score.catch_up(len(truth))      # what the camera never showed is tapped in at the end
        result = score.result()
        store.close()
    return {"game": game_id, "players": players, "seed": seed, "px_per_mm": round(view.px_per_mm, 2),
            "renderer": "tablesim.synthetic" if view.synthetic else "benchmarks.vision.render", "missed": missed,
            **result, "states": shown, "states_read": states_read,
            "states_share": round(states_read / max(1, shown), 4), "missed_states": misses[:10],
            "ms_per_frame": _stats(frame_ms), "cpu_ms_per_frame": _stats(cpu_ms)}


BENCH_TABLES = (("chains", 10), ("chains", 6), ("wheel", 3), ("spartacus", 3))
"""Tables for ``bench_4k``: the largest plan (Chains for 10), and three more."""


def bench_4k(quick: bool = False, decoder: str = "zxing") -> dict[str, Any]:
    """``--part 4k`` (``vision.frame.pyramid``): the same mid-game tables at 1080p and at 4K (the same view: the table as large as 1080p holds
    it, twice the px/mm at 4K): visible
    cards identified by a fresh pipeline, and the full look's time (median ms, wall and CPU)."""
    from tablesim import synthetic
    from vision.frame.pyramid import UHD
    from vision.pipeline import Pipeline
    from vision.table import layouts
    tables = BENCH_TABLES[:2] if quick else BENCH_TABLES
    stills = 3
    out: dict[str, Any] = {"tables": [], "load_average": [round(os.getloadavg()[0], 2)]}
    totals = {size: {"visible": 0, "identified": 0, "misidentified": 0, "full": [], "full_cpu": []}
              for size in ("1080p", "4k")}
    for game_id, players in tables:
        steps = table_script(game_id, players, {}, seed=1)[1]
        placed = placements(game_id, steps[len(steps) // 2].layout, seed=0, players=players)
        lying = [(p.shown_id, p.centre) for p in placed]
        row: dict[str, Any] = {"game": game_id, "players": players}
        table = layouts.table_size(game_id, players)
        base = synthetic.max_px_per_mm(table)
        hd = synthetic.FRAME_SIZE
        for name, size in (("1080p", hd), ("4k", UHD)):
            scale = base * size[0] / hd[0]          # the same view at either size
            with synthetic.frame_size(size):
                cam = synthetic.Camera.looking_at(table, scale, seed=1)
                frames = [synthetic.render(cam, placed, 100 + i)[0] for i in range(stills)]
                truth = [(placed[i].shown_id, placed[i].centre) for i in synthetic.visible_truth(cam, placed)
                         if not placed[i].card_id.startswith("K-CAL")]
            pipeline = Pipeline(game_id, players, decoder=decoder)
            pipeline.calibration = Calibration(np.linalg.inv(cam.homography), (), 0.0, cam.k, size)
            t = totals[name]
            looks = [_timed(pipeline, frame) for frame in frames]
            # the first frame of a fresh pipeline is not still (nothing read): the others are full looks
            t["full"] += [ms for _, ms, _ in looks[1:]]
            t["full_cpu"] += [cpu for _, _, cpu in looks[1:]]
            scene = looks[-1][0]
            identified, wrong = score(truth, reported_cards(scene), lying)
            t["visible"] += len(truth)
            t["identified"] += identified
            t["misidentified"] += wrong
            row[name] = {"px_per_mm": scale, "visible": len(truth), "identified": identified,
                         "misidentified": wrong, "ids": sorted(c for c, _ in reported_cards(scene))}
        row["same_cards"] = row["1080p"].pop("ids") == row["4k"].pop("ids")
        out["tables"].append(row)
    out["load_average"].append(round(os.getloadavg()[0], 2))
    for name, t in totals.items():
        out[name] = {"visible": t["visible"], "identified": t["identified"], "misidentified": t["misidentified"],
                     "identified_share": round(t["identified"] / max(1, t["visible"]), 4),
                     "full_look_ms": _stats(t["full"]), "full_look_cpu_ms": _stats(t["full_cpu"])}
    base, uhd = out["1080p"]["full_look_ms"]["median"], out["4k"]["full_look_ms"]["median"]
    out["ratio"] = round(uhd / base, 2) if base and not math.isnan(base) else float("nan")
    return out


def print_4k(result: dict[str, Any]) -> None:
    """The 4K benchmark as a table."""
    print("4K against 1080p: the same tables in the same view; full look ms median/p95 "
          "wall (CPU); load before/after", result["load_average"])
    for row in result["tables"]:
        a, b = row["1080p"], row["4k"]
        print(f"{row['game']:<10} {row['players']:>2}p  1080p {a['px_per_mm']:.2f} px/mm {a['identified']}/{a['visible']}"
              f" ({a['misidentified']} wrong)  4K {b['px_per_mm']:.2f} px/mm {b['identified']}/{b['visible']}"
              f" ({b['misidentified']} wrong)  same cards: {row['same_cards']}")
    for name in ("1080p", "4k"):
        r = result[name]
        print(f"{name:>5}: {100 * r['identified_share']:.2f}% of {r['visible']} visible, {r['misidentified']} misidentified;"
              f" full look {r['full_look_ms']['median']}/{r['full_look_ms']['p95']} ms"
              f" ({r['full_look_cpu_ms']['median']}/{r['full_look_cpu_ms']['p95']} CPU)")
    print(f"4K full look / 1080p full look (median wall): {result['ratio']}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; prints a table (or JSON with ``--json``)."""
    parser = argparse.ArgumentParser(prog="companion bench vision", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--quick", action="store_true", help="fewer tables and moves (a few minutes)")
    parser.add_argument("--decoder", choices=("zxing", "pyzbar"), default="zxing", help="QR decoder")
    parser.add_argument("--part", choices=("all", "scales", "games", "conditions", "surfaces", "4k"),
                        default="all",
                        help="all = scales and games; conditions (a real table: tilt, lens, blur, glare, "
                             "a phone screen, light), surfaces (busy wood, cloth, a tablecloth, glass at "
                             "1.0–2.0 px/mm, against pyzbar) and 4k (the same tables at 1080p and 4K, "
                             "vision.frame.pyramid) run only when asked")
    parser.add_argument("--surfaces", help="surfaces: comma-separated names (default all: wood, busy wood, "
                        "cloth, tablecloth, glass)")
    parser.add_argument("--conditions", help="conditions: comma-separated names (default all: "
                        + ", ".join(conditions()) + ")")
    parser.add_argument("--scales", help="conditions: comma-separated px/mm (default 1.2,1.7 with "
                        "--quick, else " + ",".join(map(str, SCALES)) + ")")
    parser.add_argument("--visible", type=float, help="conditions: a card counts as visible from this px/mm "
                        "along its worse axis (default: the set-up check's line, 1.1; 1.2 before branch read, 1.35 before that)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated games")
    parser.add_argument("--moves", type=int, help="games: only the first N moves of each game")
    parser.add_argument("--games", default=",".join(GAME_PLAYERS),
                        help="comma-separated games (games; conditions: only their tables, each with its own seeds)")
    parser.add_argument("--players", type=int, help="games: players at every game's table "
                        "(default: " + ", ".join(f"{g} {n}" for g, n in GAME_PLAYERS.items()) + ")")
    parser.add_argument("--missed", type=float, default=0.0,
                        help="games: share of still tables the camera misses (a hand stays over the table)")
    parser.add_argument("--detector", choices=(*DETECTORS, "both"), default="both",
                        help="scales: the marker finder(s) to measure (default both, compared)")
    args = parser.parse_args(list(argv or []))
    result: dict[str, Any] = {"decoder": args.decoder, "quick": args.quick}
    if args.part in ("all", "scales"):
        result["scales"] = scale_bins(args.quick, args.decoder,
                                      DETECTORS if args.detector == "both" else (args.detector,))
        if not args.json:
            _print_scales(result["scales"])
    if args.part == "conditions":
        names = None if not args.conditions else [n.strip() for n in args.conditions.split(",")]
        unknown = [n for n in names or () if n not in conditions()]
        if unknown:
            parser.error(f"unknown condition {unknown[0]!r}: choose from {', '.join(conditions())}")
        try:
            scales = None if not args.scales else [float(x) for x in args.scales.split(",")]
        except ValueError:
            parser.error(f"--scales {args.scales!r}: give px/mm numbers, e.g. 1.2,1.7")
        games = [g.strip() for g in args.games.split(",")]
        unknown = [g for g in games if g not in GAME_PLAYERS]
        if unknown:
            parser.error(f"unknown game {unknown[0]!r}: choose from {', '.join(GAME_PLAYERS)}")
        result["conditions"] = condition_bins(args.quick, args.decoder, names, scales, args.visible, games)
        if not args.json:
            _print_conditions(result["conditions"])
    if args.part == "surfaces":
        from tablesim.synthetic import SURFACE_NAMES
        names = None if not args.surfaces else [n.strip() for n in args.surfaces.split(",")]
        unknown = [n for n in names or () if n not in SURFACE_NAMES]
        if unknown:
            parser.error(f"unknown surface {unknown[0]!r}: choose from {', '.join(SURFACE_NAMES)}")
        try:
            scales = SURFACE_SCALES if not args.scales else tuple(float(x) for x in args.scales.split(","))
        except ValueError:
            parser.error(f"--scales {args.scales!r}: give px/mm numbers, e.g. 1.0,1.4")
        result["surfaces"] = surface_bins(args.quick, args.decoder, names, scales)
        if not args.json:
            _print_surfaces(result["surfaces"])
    if args.part == "4k":       # vision.frame.pyramid's part: 4K frames against 1080p
        result["4k"] = bench_4k(args.quick, args.decoder)
        if not args.json:
            print_4k(result["4k"])
    if args.part in ("all", "games"):
        result["games"] = []
        for game_id in args.games.split(","):
            if game_id not in GAME_PLAYERS:
                parser.error(f"unknown game {game_id!r}: choose from {', '.join(GAME_PLAYERS)}")
            result["games"].append(whole_game(game_id, args.seed, args.quick, args.decoder, args.moves,
                                              args.missed, args.players))
            if not args.json:
                _print_game(result["games"][-1])
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


def _print_scales(scales: dict[str, Any]) -> None:
    print("ms per 1080p frame, median/p95: wall (CPU of all threads); load = 1-min load average "
          "before/after (2 cores, shared)")
    print("px/mm  finder  visible  identified  misid. | full look ms        | stream ms           | load")
    for scale, r in scales.items():
        for name, d in r["detectors"].items():
            full, full_cpu, st, st_cpu = d["full_look_ms"], d["full_look_cpu_ms"], d["stream_ms"], d["stream_cpu_ms"]
            print(f"{scale:>5}  {name:<6}  {r['visible']:>7}  {100 * d['identified_share']:>9.2f}%  "
                  f"{d['misidentified']:>6} | {full['median']:>5}/{full['p95']:<5} ({full_cpu['median']}/{full_cpu['p95']}) "
                  f"| {st['median']:>5}/{st['p95']:<5} ({st_cpu['median']}/{st_cpu['p95']}) "
                  f"| {r['load_average'][0]}/{r['load_average'][1]}")
        print(f"{scale:>5}  pyzbar  {r['visible']:>7}  {100 * r['baseline_share']:>9.2f}%  "
              f"{r['baseline_misidentified']:>6} | full frame {r['baseline_ms']['median']}/{r['baseline_ms']['p95']}")
    sys.stdout.flush()


def _print_game(g: dict[str, Any]) -> None:
    print(f"{g['game']:<10} {g['players']} players, seed {g['seed']}, {g['px_per_mm']} px/mm: "
          f"{g['moves']} moves: {g['camera']} by the camera alone ({100 * g['camera_share']:.1f}%), "
          f"{g['one_tap']} with one tap, {g['typed']} typed, {g['wrong_applied']} wrong applied"
          f"{'' if g['log_matches'] else ' (LOG DIFFERS)'}; prompts {g['prompts']}; "
          f"{g['states_read']}/{g['states']} still tables read exactly; "
          f"ms/frame median {g['ms_per_frame']['median']} p95 {g['ms_per_frame']['p95']} "
          f"(cpu {g['cpu_ms_per_frame']['median']}/{g['cpu_ms_per_frame']['p95']}), "
          f"observe ms median {g['observe_ms']['median']} p95 {g['observe_ms']['p95']}"
          + (f", missed tables {g['missed_states']}" if g["missed_states"] else ""))
    for note in g["notes"]:
        print(f"    {note}")
    sys.stdout.flush()


if __name__ == "__main__":
    run_main(main)
