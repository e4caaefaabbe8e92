"""The pipeline over short streams of rendered frames: stability under a hand, foreign codes,
conflicting copies, the annotated view, and the frame sources (image folder, video file)."""
from __future__ import annotations

import logging

import cv2
import numpy as np
import pytest
import qrcode

from companion import catalogue as cat
from tests.vision.test_vision_detect import render
from vision.frame.sources import SourceError, frames
from vision.pipeline import Pipeline
from vision.table.calibrate import CalibrationLayout

# the detector's scatter (tests.vision.test_vision_detect), as a table of Seven Hills: cards of other games
# are not cards here
SCATTER = [("H-R1", True, (-300.0, -100.0), 0.0), ("H-R2", True, (-220.0, 20.0), 10.0),
           ("H-R5", True, (-140.0, -100.0), 20.0), ("H-R7", True, (-60.0, 20.0), 30.0),
           ("H-H1", True, (20.0, -100.0), 40.0), ("H-BBAN", True, (100.0, 20.0), 50.0),
           ("H-RBAN", True, (180.0, -100.0), 60.0), ("H-H3", False, (300.0, 300.0), 30.0)]
CASCADE = [(f"H-B{k}", True, (-300.0, 250.0 + 20 * k), 0.0) for k in range(1, 7)]
TABLE = SCATTER + CASCADE + [("T-SEAT1", True, (250.0, 420.0), 180.0)]


def pipeline() -> Pipeline:
    return Pipeline("hills", 2, layout=CalibrationLayout.sheet())


def ids(scene) -> list[str]:
    return sorted(c.card_id for c in scene.cards)


def test_a_hand_over_the_table_changes_nothing():
    p = pipeline()
    expected = sorted(("B-HILLY" if not up else cid) for cid, up, _, _ in SCATTER + CASCADE)
    scenes = [p.process(render(TABLE, px_per_mm=1.4, seed=i)) for i in range(3)]
    assert scenes[-1].stable and ids(scenes[-1]) == expected
    # the hand sweeps in over the cascade, rests there for 5 frames, and leaves
    path = [(-200.0, 500.0), (-250.0, 420.0), (-290.0, 360.0), (-300.0, 330.0), (-300.0, 320.0)]
    path += [(-300.0, 320.0)] * 5
    for i, palm in enumerate(path):
        scene = p.process(render(TABLE, px_per_mm=1.4, seed=10 + i, hand=palm))
        assert ids(scene) == expected, f"hand frame {i}"
        assert scene.seats.keys() == {0}
    assert any(s.source == "tracked" for s in scene.cards), "the hand must have covered something"
    for i in range(3):
        scene = p.process(render(TABLE, px_per_mm=1.4, seed=30 + i))
        assert ids(scene) == expected
    assert scene.stable and all(c.source != "tracked" for c in scene.cards)


def test_a_card_taken_away_is_dropped_after_still_frames():
    p = pipeline()
    for i in range(3):
        p.process(render(TABLE, px_per_mm=1.4, seed=i))
    fewer = [c for c in TABLE if c[0] != "H-R7"]
    p.process(render(fewer, px_per_mm=1.4, seed=5, hand=(-60.0, 20.0)))     # the hand takes it
    scenes = [p.process(render(fewer, px_per_mm=1.4, seed=6 + i)) for i in range(4)]
    assert "H-R7" not in ids(scenes[-1])
    assert len(scenes[-1].cards) == len(SCATTER + CASCADE) - 1


def foreign_qr(text: str) -> np.ndarray:
    qr = qrcode.QRCode(border=4, box_size=10)
    qr.add_data(text)
    return cv2.cvtColor((np.array(qr.make_image().convert("L"))), cv2.COLOR_GRAY2BGR)


def test_foreign_qr_code_and_marker_are_ignored_with_a_log_line(caplog):
    assert cat.by_marker(999) is None
    code = foreign_qr("HTTPS://EXAMPLE.COM/MENU")
    s = 60.0 / code.shape[0]                         # a 60 mm code (menu, box, phone) on the table
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000)
    marker = cv2.cvtColor(cv2.aruco.generateImageMarker(dictionary, 999, 140, borderBits=1), cv2.COLOR_GRAY2BGR)
    marker = cv2.copyMakeBorder(marker, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    m = 30.0 / marker.shape[0]
    extra = [(code, np.array([[s, 0, 200.0], [0, s, 150.0], [0, 0, 1]])),
             (marker, np.array([[m, 0, 320.0], [0, m, 150.0], [0, 0, 1]]))]
    p = pipeline()
    with caplog.at_level(logging.INFO, logger="vision"):
        for i in range(3):
            # a card of another game (Wheel) on the Seven Hills table: its marker and its QR code
            # are read, and it is not a card of this game
            scene = p.process(render(SCATTER + [("W-R1", True, (-300.0, 200.0), 5.0)], px_per_mm=1.7, seed=i,
                                     extra=extra))
    logged = caplog.text
    assert "marker 999: not one of our cards" in logged
    assert f"marker {cat.card('W-R1').marker}: W-R1, not in this game" in logged
    assert "foreign QR code 'HTTPS://EXAMPLE.COM/MENU'" in logged
    assert ids(scene) == sorted(("B-HILLY" if not up else cid) for cid, up, _, _ in SCATTER)
    assert not scene.conflicts


def test_two_copies_of_one_card_are_a_conflict_not_merged():
    table = SCATTER + [("H-R1", True, (150.0, 250.0), 15.0)]        # a second H-R1
    p = pipeline()
    for i in range(3):
        scene = p.process(render(table, px_per_mm=1.4, seed=i))
    assert [c.card_id for c in scene.cards].count("H-R1") == 2
    assert any(c.startswith("H-R1: 2 copies") for c in scene.conflicts)
    assert p.step(render(table, px_per_mm=1.4, seed=9)) is None     # no observation from it


def test_annotated_jpeg_shows_the_frame():
    p = pipeline()
    assert p.annotated_jpeg() is None
    p.process(render(SCATTER, px_per_mm=1.4, seed=1))
    data = p.annotated_jpeg()
    assert data[:2] == b"\xff\xd8"
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (1080, 1920, 3)


def test_sources_image_folder_and_video_file(tmp_path):
    shots = [render(SCATTER, px_per_mm=1.4, seed=i) for i in range(3)]
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, shot in enumerate(shots):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), shot)
    (folder / "notes.txt").write_text("not a frame")
    read = list(frames(images=folder))
    assert len(read) == 3 and all(np.array_equal(a, b) for a, b in zip(read, shots))
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1920, 1080))
    for shot in shots:
        writer.write(shot)
    writer.release()
    p = pipeline()
    scenes = [p.process(f) for f in frames(video=video)]
    assert len(scenes) == 3
    assert ids(scenes[-1]) == sorted(("B-HILLY" if not up else cid) for cid, up, _, _ in SCATTER)
    with pytest.raises(SourceError, match="no video file"):
        frames(video=tmp_path / "missing.mp4")
    with pytest.raises(SourceError, match="no images"):
        frames(images=tmp_path / "frames" / "..")    # tmp_path holds no images
    with pytest.raises(SourceError, match="exactly one"):
        frames()
    # --camera takes what --video takes (a recording played as the camera), an index or a device
    as_camera = list(frames(camera=str(video)))
    assert len(as_camera) == 3 and all(np.array_equal(a, b) for a, b in zip(as_camera, frames(video=video)))
    with pytest.raises(SourceError, match="no camera '/dev/no-such-camera'"):
        frames(camera="/dev/no-such-camera")
    with pytest.raises(SourceError, match="cannot open camera 97"):
        frames(camera="97")                                  # an index, as text from the command line


def test_cards_keep_their_look_without_keeping_old_frames():
    """A track keeps how its card looked (to tell a missed read from a card taken away) as a small
    patch, not as a reference to the whole frame it was read in."""
    p = pipeline()
    fewer = [c for c in TABLE if c[0] != "H-R7"]
    for i in range(4):                  # the scene settles: later frames are searched where they change
        p.process(render(TABLE, px_per_mm=1.4, seed=i))
    p.process(render(fewer, px_per_mm=1.4, seed=5, hand=(-60.0, 20.0)))     # the hand takes one card
    for i in range(2):                  # only the region around it is read again
        scene = p.process(render(fewer, px_per_mm=1.4, seed=6 + i))
    assert "H-R7" not in ids(scene) and len(scene.cards) == len(TABLE) - 2
    frames = {id(t.patch._source[0]) for t in p.tracker.tracks if t.patch is not None and t.patch._source is not None}
    assert len(frames) <= 1
    shapes = {t.patch.image().shape for t in p.tracker.tracks if t.patch is not None}
    assert shapes and all(h < 150 and w < 150 for h, w in shapes)


def test_a_still_scene_settles_after_one_full_look():
    """Cards read by both markers: the first still frame's full look settles the scene, and the
    later frames search nothing. (A stream's first frame is never still: nothing came before it.
    A card of which one marker shows, as in a cascade, waits for a second read: one more look.)"""
    frame = render(SCATTER, px_per_mm=1.4, seed=1)
    calibrated = pipeline()
    calibrated.process(frame)
    p = pipeline()
    p.calibration = calibrated.calibration          # as after a camera bump: calibrated, new scene
    looks = []
    for _ in range(4):
        scene = p.process(frame)
        looks.append(p.last_look)
    assert looks == ["none", "full", "none", "none"]     # moving (the first frame), one look, settled
    assert scene.stable and len(scene.cards) == len(SCATTER)


def test_cards_read_by_one_marker_settle_after_one_full_look():
    """A cascade's cards and a seat token show one marker each and wait for a second read: the
    full look settles the scene all the same, and the next still frame reads only their places
    again (a "changed" look), which confirms them; then nothing is searched."""
    frame = render(TABLE, px_per_mm=1.4, seed=1)
    calibrated = pipeline()
    calibrated.process(frame)
    p = pipeline()
    p.calibration = calibrated.calibration
    looks, scenes = [], []
    for _ in range(4):
        scenes.append(p.process(frame))
        looks.append(p.last_look)
    assert looks == ["none", "full", "changed", "none"]
    expected = sorted(("B-HILLY" if not up else cid) for cid, up, _, _ in SCATTER + CASCADE)
    assert not {f"H-B{k}" for k in range(1, 7)} <= set(ids(scenes[1]))     # held back after one read
    assert ids(scenes[-1]) == expected and scenes[-1].seats.keys() == {0}


def test_a_card_read_at_a_new_place_is_not_kept_at_its_old_one():
    """Its old place was not searched (only the changed region around the new one was): the
    tracker still knows the card lies in one place only."""
    from vision.table.scene import SeenCard
    from vision.table.track import Tracker

    def card(x):
        return SeenCard("W-R5", True, (x, 100.0), 0.0, ((x - 31, 56), (x + 31, 56), (x + 31, 144), (x - 31, 144)),
                        1.0, 0, "marker")
    t = Tracker(drop_after=1)
    t.update([card(100.0)], True)
    t.update([card(600.0)], True, lambda track, gone: "same", scope=lambda track: track.card.centre[0] > 300)
    assert [c.centre for c in t.cards()] == [(600.0, 100.0)]
