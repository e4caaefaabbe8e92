"""The QR-confirmed reader (vision.reading.byqr) on the conditions bench's dim room at 1.0 px/mm: a
lone coarse marker that the bits and the whole-grid reader leave unnamed is named once its card's QR
code, read where the square puts it, names that card and puts one of its markers there; a square
whose QR code names another card, says something else, or puts no marker there is refused."""
from __future__ import annotations

import cv2
import numpy as np

from benchmarks import vision as bench
from companion import catalogue as cat
from vision.reading import byqr, soft
from vision.reading import markers as M

from tests.vision.test_vision_smeared_read import _identified, _table     # one render of each table


def _square(table: dict, card_id: str, frame: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(the finder's image of the frame, the corners of ``card_id``'s marker as the QR reader read it)."""
    grey = cv2.cvtColor(table["frames"][frame], cv2.COLOR_BGR2GRAY)
    markers = table["pipeline"].detector.finder.markers
    reads = M.MarkerFinder(markers=markers, second_read=byqr.reader(soft.second_read)).reads(grey)
    corners = [q for m, q, exact in reads if m == cat.card(card_id).marker and exact]
    assert len(corners) == 1
    return M.unsharp_masked(grey), corners[0]


def test_a_dim_rooms_lone_markers_are_named_by_their_cards_qr_codes():
    table = _table("prussia", "dim room")
    # main at 8efb609 lost P-N5 (one marker not found as a square, the other fitting 0.85 with a
    # margin of 0.05), 45 of 47 on the dim room's five tables
    assert _identified(table, "P-N5")
    counts = bench.score_reports(table["truth"], table["reported"], table["lying"])
    assert counts["identified"] == len(table["truth"]) and counts["misidentified"] == counts["duplicates"] == 0


def test_the_qr_code_names_a_square_the_other_readers_leave():
    table = _table("prussia", "dim room")
    grey = cv2.cvtColor(table["frames"][1], cv2.COLOR_BGR2GRAY)
    markers = table["pipeline"].detector.finder.markers
    want = cat.card("P-N5").marker
    plain = {m: e for m, _, e in M.MarkerFinder(markers=markers, second_read=soft.second_read).reads(grey)}
    assert plain.get(want) is not True               # the bits and the whole-grid reader: not beyond doubt
    sharp, corners = _square(table, "P-N5")          # the QR reader: beyond doubt
    assert byqr.confirmed(sharp, "P-N5", corners)


def test_a_square_is_refused_when_the_qr_code_names_another_card_or_puts_no_marker_there():
    table = _table("prussia", "dim room")
    sharp, corners = _square(table, "P-N5")
    # the same square taken for another card of the table: its QR code names P-N5
    assert not byqr.confirmed(sharp, "P-N4", corners)
    # the code's own top-left finder pattern (a square of a marker's size), taken for P-N5: the code
    # names P-N5 but puts none of its markers there
    pose = byqr.read_qr(sharp, "P-N5", byqr.card_to_image("P-N5", corners), byqr._zxing)
    assert pose is not None
    qr = cat.qr_rect("P-N5")
    finder = np.array([[qr.x, qr.y], [qr.x + 14, qr.y], [qr.x + 14, qr.y + 14], [qr.x, qr.y + 14]], np.float64)
    at = cv2.perspectiveTransform(finder.reshape(-1, 1, 2), pose).reshape(4, 2)
    assert not byqr.confirmed(sharp, "P-N5", at)


def test_a_foreign_qr_code_over_the_card_is_refused():
    """A sticker with another QR code ("HTTPS://EXAMPLE.COM") over the card's code: nothing names P-N5."""
    table = _table("prussia", "dim room")
    sharp, corners = _square(table, "P-N5")
    pose = byqr.read_qr(sharp, "P-N5", byqr.card_to_image("P-N5", corners), byqr._zxing)
    sticker = cv2.QRCodeEncoder.create().encode("HTTPS://EXAMPLE.COM")   # 21 modules, 2 of quiet zone
    qr = cat.qr_rect("P-N5")
    side, module = sticker.shape[0], qr.w / 21
    big = cv2.resize(sticker, (side * 8, side * 8), interpolation=cv2.INTER_NEAREST)
    # sticker px (8 a module) -> card mm (the code's place, its quiet zone on the card's) -> frame px
    to_frame = pose @ np.array([[module / 8, 0, qr.x - 2 * module], [0, module / 8, qr.y - 2 * module], [0, 0, 1]])
    warped = cv2.warpPerspective(big, to_frame, sharp.shape[::-1], flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.full_like(big, 255), to_frame, sharp.shape[::-1], flags=cv2.INTER_NEAREST) > 0
    covered = sharp.copy()
    covered[inside] = (warped[inside].astype(np.int16) * 200 // 255 + 30).astype(np.uint8)   # printed, not pure
    assert not byqr.confirmed(covered, "P-N5", corners)
    decoded = [text for ppm in byqr.PX_PER_MM for text, _ in byqr._zxing(_crop(covered, pose, ppm))]
    assert "HTTPS://EXAMPLE.COM" in decoded          # the sticker itself is readable there: refused, not missed


def _crop(grey: np.ndarray, pose: np.ndarray, ppm: float) -> np.ndarray:
    """The card's QR region (with ``byqr.PAD_MM``) rectified from ``pose`` at ``ppm``."""
    qr, pad = cat.qr_rect("P-N5"), byqr.PAD_MM
    size = int(round((qr.w + 2 * pad) * ppm))
    to_image = pose @ np.array([[1 / ppm, 0, qr.x - pad], [0, 1 / ppm, qr.y - pad], [0, 0, 1]])
    return cv2.warpPerspective(grey, to_image, (size, size), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP)
