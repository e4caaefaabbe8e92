"""The fast marker finder (vision.reading.markers) against OpenCV's ArucoDetector and the ground truth of
rendered tables: every marker ArUco reads, none that is not on the table, corners in ArUco's order
whichever way a marker is turned, small markers, foreign ids, blots and wood that are no markers."""
from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks import vision as bench
from companion import catalogue as cat
from vision.pipeline import Pipeline
from vision.reading.detect import Detector, aruco_detector
from vision.reading.markers import DICTIONARY, WINDOWS, MarkerFinder


def _table(game_id: str, px_per_mm: float) -> tuple[np.ndarray, set[int]]:
    """A mid-game table through tablesim.synthetic (lens, light, clutter, blur, noise, JPEG) as a grey
    frame, and the marker ids of everything lying on it (K-CAL included); rendered once per module."""
    grey, lying = _rendered(game_id, px_per_mm)
    return grey.copy(), set(lying)


@functools.lru_cache(maxsize=None)
def _rendered(game_id: str, px_per_mm: float) -> tuple[np.ndarray, frozenset[int]]:
    states = bench.game_states(game_id, 1)
    placed = bench.placements(game_id, states[len(states) // 2], seed=1)
    view = bench.View(game_id, px_per_mm, seed=1)
    grey = cv2.cvtColor(view.frame(placed, seed=1), cv2.COLOR_BGR2GRAY)
    lying = {cat.card(p.shown_id).marker for p in placed} | {cat.card(f"K-CAL{i}").marker for i in range(1, 5)}
    return grey, frozenset(lying)


def _aruco(grey: np.ndarray) -> list[tuple[int, np.ndarray]]:
    corners, ids, _ = aruco_detector().detectMarkers(grey)
    return [] if ids is None else [(int(i), c.reshape(4, 2)) for c, i in zip(corners, ids.ravel())]


@pytest.mark.parametrize("game_id,px_per_mm", [("wheel", 1.4), ("chains", 1.4), ("prussia", 2.0)])
def test_finds_every_marker_aruco_finds_with_the_same_corners_and_none_off_the_table(game_id, px_per_mm):
    grey, lying = _table(game_id, px_per_mm)
    ours = MarkerFinder().find(grey)
    theirs = _aruco(grey)
    assert len(theirs) > 15
    for marker, corners in theirs:
        # the same corners in the same order (ours are refined in a larger window, so they differ
        # by a pixel or so; a wrong order is off by a whole side, 20 px and more)
        same = [c for m, c in ours if m == marker and np.abs(c - corners).max() < 3
                and np.linalg.norm(c - corners, axis=1).mean() < 1.5]
        assert same, f"marker {marker} at {corners.mean(axis=0).round()} px missed or its corners differ"
    assert {m for m, _ in ours} <= lying, "a marker was read that no card on the table carries"
    assert len(ours) == len({(m, tuple(np.round(c.mean(axis=0) / 10))) for m, c in ours}), "one marker twice"


def test_small_markers_at_1_2_px_per_mm_at_least_as_many_as_aruco():
    grey, lying = _table("wheel", 1.2)        # 15 mm markers of ~18 px, blurred
    ours = MarkerFinder().find(grey)
    theirs = _aruco(grey)
    found = {(m, tuple(np.round(c.mean(axis=0)))) for m, c in ours}
    assert {m for m, _ in ours} <= lying
    assert len(ours) >= len(theirs) > 30
    missed = [m for m, c in theirs if not any(n == m and np.abs(np.array(p) - c.mean(axis=0)).max() < 3 for n, p in found)]
    assert len(missed) <= 1, missed


def _marker_image(marker: int, turn: int, tilt: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """A 24 px marker on white paper, turned by ``turn`` quarter turns and seen in perspective,
    blurred: the image and the marker's own corners (top-left first, clockwise) in it."""
    image = np.full((120, 120), 235, np.uint8)
    m = cv2.aruco.generateImageMarker(DICTIONARY, marker, 7 * 20, borderBits=1)
    src = np.array([[0, 0], [140, 0], [140, 140], [0, 140]], np.float32)
    dst = np.array([[48, 46], [73 + 4 * tilt, 47], [72, 71 + 3 * tilt], [47, 70]], np.float32)
    dst = np.roll(dst, turn, axis=0)             # the marker's top-left corner lies elsewhere
    warped = cv2.warpPerspective(m, cv2.getPerspectiveTransform(src, dst), (120, 120), flags=cv2.INTER_AREA,
                                 borderValue=255)
    mask = cv2.warpPerspective(np.full((140, 140), 255, np.uint8), cv2.getPerspectiveTransform(src, dst), (120, 120))
    image = np.where(mask > 127, warped, image).astype(np.uint8)
    return cv2.GaussianBlur(image, (0, 0), 0.8), dst.astype(np.float64)


@pytest.mark.parametrize("turn", range(4))
def test_corners_come_top_left_first_whichever_way_the_marker_is_turned(turn):
    image, corners = _marker_image(123, turn, tilt=1.0)
    found = MarkerFinder().find(image)
    assert [m for m, _ in found] == [123]
    assert np.abs(found[0][1] - corners).max() < 1.5      # a whole side (25 px) off if misordered
    (marker, theirs), = _aruco(image)
    assert marker == 123 and np.abs(found[0][1] - theirs).max() < 2.5


@pytest.mark.parametrize("edge,found", [(2, True), (-3, False)])
def test_a_marker_at_the_edge_of_the_view_is_read_whole_never_cut(edge, found):
    image, corners = _marker_image(123, 0)
    rows = int(np.ceil(corners[:, 1].max())) + edge     # the view ends this far below its corner
    cut = image[:rows]
    assert corners[:, 1].max() < rows - 1 if found else corners[:, 1].max() > rows
    markers = [m for m, _ in MarkerFinder().find(cut)]
    assert markers == ([123] if found else []), markers     # a cut marker is not guessed at


def test_one_wrong_bit_is_corrected_three_are_not_misread():
    dictionary_bits = cv2.aruco.Dictionary.getBitsFromByteList(DICTIONARY.bytesList[77:78], 5)
    image, _ = _marker_image(77, 0)
    cell = (25 / 7)                                         # px per cell of the 25 px marker
    def flip(img, row, col):
        out = img.copy()
        y, x = int(46 + (row + 1.5) * cell), int(48 + (col + 1.5) * cell)
        out[y - 1:y + 2, x - 1:x + 2] = 235 if dictionary_bits[row, col] == 0 else 20
        return out
    one = flip(image, 2, 2)
    assert [m for m, _ in MarkerFinder().find(one)] == [77]
    three = flip(flip(one, 0, 1), 4, 3)
    assert all(m != 77 for m, _ in MarkerFinder().find(three))
    assert all(cat.by_marker(m) is None or m == 77 for m, _ in MarkerFinder().find(three))


def test_blots_wood_and_noise_are_not_markers():
    rng = np.random.default_rng(4)
    wood = cv2.resize(rng.normal(120, 25, (60, 100)).astype(np.float32), (1000, 600), interpolation=cv2.INTER_CUBIC)
    image = np.clip(wood + rng.normal(0, 6, wood.shape), 0, 255).astype(np.uint8)
    for k in range(40):          # dark squares of every marker size: flat blots, ArUco's costly rejects
        x, y, s = 30 + 24 * k, 40 + 12 * (k % 20), 12 + k
        cv2.rectangle(image, (x % 950, y), (x % 950 + s, y + s), int(rng.integers(0, 60)), -1)
    assert MarkerFinder().find(image) == []


def test_a_foreign_marker_is_read_and_reported_foreign_not_a_card():
    assert cat.by_marker(999) is None
    image, _ = _marker_image(999, 1)
    found = Detector().detect(image)
    assert found.sightings == [] and found.calibration == {}
    assert found.foreign == ["marker 999: not one of our cards"]


def test_regions_read_as_the_whole_frame_does():
    grey, _ = _table("hills", 1.4)
    detector = Detector()
    whole = {(h.marker, tuple(np.round(h.corners.mean(axis=0)))) for h in detector.markers(grey)}
    boxes = [(0, 0, 1000, 600), (900, 500, 1920, 1080)]
    inside = {(m, c) for m, c in whole if any(x0 + 40 <= c[0] < x1 - 40 and y0 + 40 <= c[1] < y1 - 40
                                               for x0, y0, x1, y1 in boxes)}
    parts = {(h.marker, tuple(np.round(h.corners.mean(axis=0)))) for h in detector.markers(grey, boxes)}
    assert inside and inside <= parts


def test_both_detectors_read_the_same_table_and_a_wrong_name_is_refused():
    states = bench.game_states("spartacus", 1)
    placed = bench.placements("spartacus", states[len(states) // 2], seed=1)
    view = bench.View("spartacus", 1.4, seed=1)
    # three frames: the first is not still (not read), and a card read by one marker alone
    # (no QR code yet) is a card once a second frame reads it again
    frames = [view.frame(placed, seed=i) for i in range(3)]
    scenes = {}
    for kind in ("quads", "aruco"):
        pipeline = Pipeline("spartacus", 3, layout=view.layout, detector=kind)
        pipeline.calibration = view.true_calibration
        scenes[kind] = [pipeline.process(f) for f in frames][-1]
    ids = {kind: sorted(c.card_id for c in scene.cards) for kind, scene in scenes.items()}
    truth = sorted(card_id for card_id, _ in view.truth(placed) if not card_id.startswith("T-SEAT"))
    assert ids["quads"] == ids["aruco"]
    assert set(truth) <= set(ids["quads"])
    with pytest.raises(ValueError, match="unknown marker detector 'apriltag': choose one of quads, aruco"):
        Detector(detector="apriltag")


def test_pipelines_in_two_threads_read_what_each_reads_alone():
    """The finder's worker threads are shared: two pipelines at once must not mix their frames."""
    import threading

    from tests.vision.test_vision_detect import render
    from tests.vision.test_vision_detect_pipeline import SCATTER
    from vision.table.calibrate import CalibrationLayout
    tables = [SCATTER, SCATTER[:4]]
    frames = [[render(t, px_per_mm=1.4, seed=i) for i in range(3)] for t in tables]

    def read(table_frames):
        p = Pipeline("hills", 2, layout=CalibrationLayout.sheet())
        return sorted(c.card_id for c in [p.process(f) for f in table_frames][-1].cards)

    alone = [read(f) for f in frames]
    together: list = [None, None]
    threads = [threading.Thread(target=lambda i=i: together.__setitem__(i, read(frames[i]))) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone and len(alone[0]) == len(SCATTER) and len(alone[1]) == 4


def _scale_rule(rule, game: str, px_per_mm: float) -> tuple[bool, bool]:
    """A pipeline's window rule (``Pipeline._small_markers`` / ``_large_markers``) on a 1080p frame of
    ``game``'s table at ``px_per_mm``: before the table is calibrated, and with its true calibration."""
    view = bench.View(game, px_per_mm, seed=1)
    pipeline = Pipeline(game, 2, layout=view.layout)
    before = rule(pipeline, (1080, 1920))
    pipeline.calibration = view.true_calibration
    return before, rule(pipeline, (1080, 1920))


def test_the_small_marker_window_is_searched_only_where_markers_are_small():
    grey, lying = _table("chains", 1.4)
    finder = MarkerFinder()
    assert sorted(m for m, _ in finder.find(grey, small=False)) == sorted(m for m, _ in finder.find(grey))
    for px_per_mm, small in ((1.2, True), (1.4, False), (2.0, False)):
        # not calibrated: anything goes (the small window searched)
        before, after = _scale_rule(Pipeline._small_markers, "chains", px_per_mm)
        assert before is True and after is small, px_per_mm


def test_the_finest_window_is_left_out_only_where_every_marker_is_large():
    grey, lying = _table("prussia", 2.0)        # rendered for the ArUco test above too
    finder = MarkerFinder()
    assert finder.searched(small=False, large=True) == WINDOWS[1:2]
    assert finder.searched(small=True, large=True) == WINDOWS[1:]
    coarse = sorted(m for m, _ in finder.find(grey, small=False, large=True))
    assert len(coarse) > 15 and coarse == sorted(m for m, _ in finder.find(grey))
    for px_per_mm, large in ((1.4, False), (2.0, True)):
        # not calibrated: anything goes (every window searched)
        before, after = _scale_rule(Pipeline._large_markers, "prussia", px_per_mm)
        assert before is False and after is large, px_per_mm


def test_a_large_marker_cut_by_the_image_edge_is_still_searched_by_the_finest_window():
    # a seat token at the bottom edge of a 4K view (Chains for 10 at 2.6 px/mm, tablesim, frame 3 of
    # the 4K bench): neither larger window reads it (their means repeat its border at the edge)
    grey = cv2.imread(str(Path(__file__).parents[1] / "data" / "seat_token_at_the_edge_4k.png"), cv2.IMREAD_GRAYSCALE)
    seat = cat.card("T-SEAT8").marker
    assert seat not in [m for m, _ in MarkerFinder(windows=WINDOWS[1:]).find(grey)]
    assert seat in [m for m, _ in MarkerFinder().find(grey, small=False, large=True)]


def test_the_code_lookup_names_what_the_nearest_code_within_one_bit_names():
    from vision.reading.markers import _CODE_EXACT, _CODE_INDEX, _CODE_KEYS, CODES
    rng = np.random.default_rng(9)
    # every code, each one bit off, two bits off (never within one of any code: ≥ 5 apart) and random reads
    reads = np.concatenate([CODES, CODES ^ (1 << rng.integers(0, 25, len(CODES))),
                            CODES ^ (3 << rng.integers(0, 24, len(CODES))), rng.integers(0, 1 << 25, 4000)])
    reads = reads[::13]
    xor = np.bitwise_xor(reads[:, None], CODES[None, :])
    distance = np.unpackbits(xor.view(np.uint8), axis=1).reshape(len(reads), len(CODES), 64).sum(axis=2)
    at = np.minimum(np.searchsorted(_CODE_KEYS, reads), len(_CODE_KEYS) - 1)
    found = _CODE_KEYS[at] == reads
    assert np.array_equal(found, distance.min(axis=1) <= 1)
    assert np.array_equal(_CODE_INDEX[at][found], distance.argmin(axis=1)[found])
    assert np.array_equal(_CODE_EXACT[at][found], distance.min(axis=1)[found] == 0)


def test_only_specks_go_before_the_contours_and_every_long_outline_stays():
    """_without_specks drops blobs that fit a 3 x 3 square with an empty ring round them, nothing
    else: a marker-sized square, a blob inside a card's hole, a speck touching a stroke stay."""
    from vision.reading.markers import _without_specks
    binary = np.zeros((80, 120), np.uint8)
    cv2.rectangle(binary, (10, 10), (40, 40), 255, 2)              # a square's outline with a hole
    binary[24:27, 24:27] = 255                                       # a speck inside its hole
    cv2.rectangle(binary, (60, 10), (90, 40), 255, -1)               # a filled square
    binary[50, 5], binary[60:62, 70:73] = 255, 255                   # lone specks on the cloth
    binary[45:47, 60:63] = 255                                       # 3 px wide, ring not empty:
    binary[47, 63] = 255                                             # it joins a 4th px outside
    binary[70, 100:115] = 255                                        # a stroke longer than 3 px
    out = _without_specks(binary)
    gone = (binary > 0) & (out == 0)
    assert gone[24:27, 24:27].all() and gone[50, 5] and gone[60:62, 70:73].all()
    assert gone.sum() == 9 + 1 + 6                                   # the three specks, no more
    assert (out[45:48, 60:64] == binary[45:48, 60:64]).all() and (out[70] == binary[70]).all()

    def outlines(b):
        contours, hierarchy = cv2.findContours(b, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
        return sorted((c.tobytes(), int(h[3] < 0)) for c, h in zip(contours, hierarchy[0]) if len(c) >= 12)
    assert outlines(out) == outlines(binary) and len(outlines(binary)) == 4
