"""Printables, checked through a real rasteriser: `companion print all` is rendered at 150 dpi with
pypdfium2 and every QR code (pyzbar) and every marker (OpenCV ArucoDetector) is read back."""
from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest
from pyzbar.pyzbar import ZBarSymbol, decode

from companion import catalogue as cat
from companion.cli import main
from printables.sheets import LABELS, sticker_cards

DPI = 150
GAMES = ("wheel", "hills", "spartacus", "prussia", "chains")


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = 15   # clean renders: one pass
    params.minMarkerPerimeterRate = 0.1     # 15 mm markers on a page; skips the QR codes' squares
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000), params)


@dataclass
class Mark:
    """A marker read from a page: its card, its four corners in page millimetres, its turn."""

    card: str
    corners: np.ndarray

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)

    @property
    def axis(self) -> np.ndarray:
        """Unit vector along the marker's top edge (corner 0 → 1): the card's x axis, or its reverse."""
        v = self.corners[1] - self.corners[0]
        return v / np.linalg.norm(v)

    @property
    def upright(self) -> bool:
        return bool(self.axis[0] > 0.9)


@dataclass
class Page:
    width_mm: float
    height_mm: float
    marks: list[Mark]
    qr: dict[str, list[str]]    # card id → QR payloads read in its card (or label)
    image: np.ndarray | None = None
    px_per_mm: np.ndarray | None = None


MARKER_OFFSET = np.array(cat.marker_rects("W-R1")[1].centre) - np.array(cat.marker_rects("W-R1")[0].centre)


def pairs(marks: list[Mark]) -> list[tuple[Mark, Mark]]:
    """The two index markers of every two-marker card on a page, upright or turned: the partner of a
    marker lies ``MARKER_OFFSET`` away along the card's axes (found from the marker's own turn)."""
    found, used = [], set()
    for i, m in enumerate(marks):
        if i in used:
            continue
        u = m.axis
        v = np.array([-u[1], u[0]])          # the card's y axis (y down, no mirror)
        want = m.centre + MARKER_OFFSET[0] * u + MARKER_OFFSET[1] * v
        for j, d in enumerate(marks):
            if j != i and j not in used and d.card == m.card and np.linalg.norm(d.centre - want) < 1.0:
                found.append((m, d))
                used |= {i, j}
                break
    return found


def _crop(img: np.ndarray, px_per_mm: np.ndarray, centre: np.ndarray, w: float, h: float) -> np.ndarray:
    x0, y0 = (centre - np.array([w, h]) / 2 - 1.0) * px_per_mm
    x1, y1 = (centre + np.array([w, h]) / 2 + 1.0) * px_per_mm
    return img[max(int(y0), 0):int(y1), max(int(x0), 0):int(x1)]


def scan(path: Path, label=None, keep_images: bool = False) -> list[Page]:
    """Render every page and read every marker, then every QR code in each card (found from its
    two markers, upright or turned) or in the label each upright marker starts."""
    detector = _detector()
    pages = []
    doc = pdfium.PdfDocument(path)
    try:
        for page in doc:
            w_pt, h_pt = page.get_size()
            img = page.render(scale=DPI / 72, grayscale=True).to_numpy().squeeze()
            # pdfium fits the page to a whole number of pixels: measure with the bitmap's own scale
            px_per_mm = np.array([img.shape[1], img.shape[0]]) / (np.array([w_pt, h_pt]) / 72 * 25.4)
            corners, ids, _ = detector.detectMarkers(img)
            marks = []
            for quad, marker in zip(corners, [] if ids is None else ids.ravel()):
                card = cat.by_marker(int(marker))
                assert card is not None, f"{path.name}: marker {marker} is not in the catalogue"
                marks.append(Mark(card.id, (quad.reshape(4, 2) + 0.5) / px_per_mm))   # pixel centres → edges
            qr = {}
            if label is not None:
                for m in marks:
                    if m.upright:
                        first = cat.marker_rects(m.card)[0]
                        centre = m.corners[0] - np.array([first.x, first.y]) + np.array([label.w, label.h]) / 2
                        crop = _crop(img, px_per_mm, centre, label.w, label.h)
                        qr[m.card] = [r.data.decode() for r in decode(crop, symbols=[ZBarSymbol.QRCODE])]
            else:
                for a, b in pairs(marks):
                    w, h = (cat.CARD_WIDTH_MM, cat.CARD_HEIGHT_MM) if abs(a.axis[0]) > 0.5 else \
                        (cat.CARD_HEIGHT_MM, cat.CARD_WIDTH_MM)
                    crop = _crop(img, px_per_mm, (a.centre + b.centre) / 2, w, h)
                    qr.setdefault(a.card, []).extend(r.data.decode() for r in decode(crop, symbols=[ZBarSymbol.QRCODE]))
            pages.append(Page(w_pt / 72 * 25.4, h_pt / 72 * 25.4, marks, qr,
                              img if keep_images else None, px_per_mm))
    finally:
        doc.close()
    return pages


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """`companion print all` into a fresh folder, each PDF scanned once."""
    out = tmp_path_factory.mktemp("print-all")
    assert main(["print", "all", "--out", str(out)]) == 0
    files = {p.stem: p for p in out.glob("*.pdf")}
    assert set(files) == {*GAMES, "tokens", "stickers"}
    scans = {name: scan(path, LABELS["a4"] if name == "stickers" else None) for name, path in files.items()}
    return files, scans


def expected_faces(name: str) -> set[str]:
    """The faces a file must carry, straight from the catalogue and the rules' counts."""
    if name == "chains":
        return {c.id for c in cat.cards_of("chains") if c.deck <= 5}
    if name == "tokens":
        return {c.id for c in cat.cards_of("table")}     # the pawn is printed with the Wheel only
    return {c.id for c in cat.cards_of(name)}


RULE_COUNTS = {"wheel": 26, "hills": 27, "spartacus": 55, "prussia": 72, "chains": 275, "tokens": 14}
"""Wheel 25 + pawn; Hills 2 × 9 + 2 banners + 7 hills; Spartacus 5 × 11; Prussia 14 nations + 4 era
faces + 52 + 2 jokers; Chains 5 decks × 55; tokens 10 seats + 4 calibration markers."""


@pytest.mark.parametrize("name", [*GAMES, "tokens"])
def test_every_code_reads_and_matches_the_catalogue(printed, name):
    _, scans = printed
    faces = [m for page in scans[name] for m in page.marks if not m.card.startswith("B-")]
    count = Counter(m.card for m in faces)
    assert set(count) == expected_faces(name)
    assert len(count) == RULE_COUNTS[name]
    for card_id, n in count.items():   # two index corners per card; one marker on pawn and K-CAL
        corners = 1 if card_id.startswith("K-CAL") else len(cat.marker_rects(card_id))
        assert n == corners, card_id
    payloads = Counter(p for page in scans[name] for card_id, found in page.qr.items()
                       if not card_id.startswith("B-") for p in found)
    want = {cat.card(c).payload for c in expected_faces(name) if cat.qr_rect(c) is not None}
    assert set(payloads) == want                  # 100 % of the QR codes read …
    assert all(v == 1 for v in payloads.values())  # … and none twice
    for page in scans[name]:
        for card_id, found in page.qr.items():      # each QR sits on the card its markers name
            if not card_id.startswith("B-") and cat.qr_rect(card_id) is not None:
                assert found == [cat.card(card_id).payload]


@pytest.mark.parametrize("name", [*GAMES, "tokens"])
def test_backs_carry_only_a_deck_marker(printed, name):
    _, scans = printed
    for page in scans[name]:
        for card_id, found in page.qr.items():
            if card_id.startswith("B-"):
                assert found == [], f"a back shows a QR code: {found}"


def card_centres(page: Page) -> dict[tuple[float, float], tuple[str, np.ndarray]]:
    """Centre of every two-marker card on a page (midpoint of its two index markers), measured,
    with the card's id and its x axis on the page."""
    return {tuple(float(v) for v in (a.centre + b.centre) / 2): (a.card, a.axis) for a, b in pairs(page.marks)}


def expected_back(front: str) -> str:
    """What must be printed behind a face: its deck's back, or the other face of an era card."""
    return {"P-ERA1": "P-ERA2", "P-ERA3": "P-ERA4"}.get(front) or cat.back_of(cat.card(front))


def check_registration(pages: list[Page]) -> int:
    """Every back's centre mirrors its front's across the page's vertical axis within 0.1 mm, the
    back lies the same way (a card turned on its side has its back turned too), and it is the right
    back."""
    checked = 0
    for front, back in zip(pages[0::2], pages[1::2]):
        fronts, backs = card_centres(front), card_centres(back)
        assert len(fronts) == len(backs)
        for (x, y), (card_id, axis) in fronts.items():
            mirrored = np.array([front.width_mm - x, y])
            (bx, by), (back_id, back_axis) = min(backs.items(),
                                                 key=lambda kv: np.linalg.norm(np.array(kv[0]) - mirrored))
            assert np.linalg.norm(np.array([bx, by]) - mirrored) < 0.1, (card_id, (x, y), (bx, by))
            assert abs(float(np.dot(axis, back_axis))) > 0.99, (card_id, axis, back_axis)
            assert back_id == expected_back(card_id)
            checked += 1
    return checked


@pytest.mark.parametrize("name", GAMES)
def test_backs_land_behind_their_fronts_in_long_edge_duplex(printed, name):
    _, scans = printed
    assert check_registration(scans[name]) == RULE_COUNTS[name] - (1 if name == "wheel" else 0) - (
        2 if name == "prussia" else 0)   # the pawn's back has no marker; era II and IV are backs themselves


def test_print_all_prints_each_card_in_one_file(printed):
    """Issue 21: W-PAWN was on wheel.pdf and tokens.pdf (two pawns, one marker id)."""
    _, scans = printed
    files = {}
    for name, pages in scans.items():
        if name != "stickers":      # labels for cards you own, not cards
            for m in (m for page in pages for m in page.marks if not m.card.startswith("B-")):
                files.setdefault(m.card, set()).add(name)
    assert files["W-PAWN"] == {"wheel"}
    assert all(len(names) == 1 for names in files.values()), {c: n for c, n in files.items() if len(n) > 1}


@pytest.mark.parametrize("paper, bleed, per_sheet, turned", [
    ("a4", 3, 8, True),        # the default: 2 × 4 on their side (3 × 3 upright needs 207 mm across)
    ("letter", 3, 6, True),    # 2 × 3 on their side (upright: 2 × 2)
    ("a4", 0, 9, False),       # no bleed: 3 × 3 upright, as before
    ("letter", 0.5, 9, False),   # 1.5 mm would leave 8 (2 × 4 on their side)
])
def test_layout_holds_most_cards_and_registers(tmp_path, paper, bleed, per_sheet, turned):
    from printables.sheets import PRINTER_MARGIN_MM, SheetLayout
    layout = SheetLayout(paper, bleed)
    assert (layout.per_sheet, layout.grid[2]) == (per_sheet, turned)
    # nothing, bleed included, lies in the printer's 5 mm margin, and no two bleeds overlap
    w, h = layout.page
    boxes = []
    for i in range(per_sheet):
        for place in (layout.front(i), layout.back(i)):
            x0, y0 = place.x - bleed, place.y - bleed
            x1, y1 = place.x + place.size[0] + bleed, place.y + place.size[1] + bleed
            assert x0 >= PRINTER_MARGIN_MM - 1e-9 and y0 >= PRINTER_MARGIN_MM - 1e-9
            assert x1 <= w - PRINTER_MARGIN_MM + 1e-9 and y1 <= h - PRINTER_MARGIN_MM + 1e-9
        boxes.append((x0, y0, x1, y1))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] + 1e-9 or b[2] <= a[0] + 1e-9 or a[3] <= b[1] + 1e-9 or b[3] <= a[1] + 1e-9
    out = tmp_path / "hills.pdf"
    assert main(["print", "hills", "--paper", paper, "--bleed", str(bleed), "--out", str(out)]) == 0
    pages = scan(out)
    assert round(pages[0].width_mm, 1) == PAGES[paper][0] and round(pages[0].height_mm, 1) == PAGES[paper][1]
    assert len(pages) == 2 * -(-27 // per_sheet)
    assert check_registration(pages) == 27
    read = {p for page in pages for card_id, found in page.qr.items() if not card_id.startswith("B-") for p in found}
    assert read == {c.payload for c in cat.cards_of("hills")}


PAGES = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


def _ring_ink(img: np.ndarray, px_per_mm: np.ndarray, x: float, y: float, w: float, h: float,
              bleed: float) -> float:
    """Share of the bleed ring around a card outline (x, y, w, h) that is printed (not paper white)."""
    outer = _crop(img, px_per_mm, np.array([x + w / 2, y + h / 2]), w + 2 * bleed - 2, h + 2 * bleed - 2)
    ring = np.ones(outer.shape, bool)
    inset = int(round((bleed + 0.5) * px_per_mm[0]))
    ring[inset:-inset, inset:-inset] = False
    return float((outer[ring] < 235).mean())


def test_art_runs_into_the_bleed_on_faces_and_backs(printed):
    from printables.sheets import SheetLayout
    files, _ = printed
    layout = SheetLayout("a4", 3)
    doc = pdfium.PdfDocument(files["spartacus"])
    for number, where in enumerate((layout.front, layout.back)):
        img = doc[number].render(scale=DPI / 72, grayscale=True).to_numpy().squeeze()
        px_per_mm = np.array([img.shape[1] / 210.0, img.shape[0] / 297.0])
        for i in range(layout.per_sheet):
            place = where(i)
            share = _ring_ink(img, px_per_mm, place.x, place.y, *place.size, 3.0)
            assert share > 0.9, (i, share)    # the frame's colour, bar the guide notches
    doc.close()


def _boxes(path: Path) -> list[dict[str, list[float]]]:
    """Every page's boxes in points, from poppler's own PDF parser (`pdfinfo -box`)."""
    out = subprocess.run(["pdfinfo", "-box", "-f", "1", "-l", "9999", str(path)], capture_output=True,
                         text=True, check=True).stdout
    pages: dict[int, dict[str, list[float]]] = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) == 7 and words[0] == "Page" and words[2].endswith("Box:"):
            pages.setdefault(int(words[1]), {})[words[2][:-1]] = [float(v) for v in words[3:]]
    return [pages[k] for k in sorted(pages)]


def test_single_cards_for_print_services_declare_trim_and_bleed(tmp_path):
    out = tmp_path / "wheel-single.pdf"
    assert main(["print", "wheel", "--single", "--out", str(out)]) == 0
    pt = 72 / 25.4
    b, w, h = 3.0, cat.CARD_WIDTH_MM, cat.CARD_HEIGHT_MM
    boxes = _boxes(out)
    assert len(boxes) == 2 * 26         # face then back for each card (the pawn's back is the Wheel's frame)
    for page in boxes:
        assert np.allclose(page["MediaBox"], [0, 0, (w + 2 * b) * pt, (h + 2 * b) * pt], atol=0.01)
        assert np.allclose(page["BleedBox"], page["MediaBox"], atol=0.01)
        assert np.allclose(page["TrimBox"], [b * pt, b * pt, (b + w) * pt, (b + h) * pt], atol=0.01)
    pages = scan(out, keep_images=True)
    faces = {}
    for number, page in enumerate(pages):
        for (x, y), (card_id, _) in card_centres(page).items():
            # the card sits on the TrimBox: its measured centre is the trim's centre (pdfinfo's y is up)
            assert abs(x - (b + w / 2)) < 0.1 and abs(y - (b + h / 2)) < 0.1, (card_id, x, y)
            if number % 2 == 0:
                faces[card_id] = page.qr.get(card_id)
            else:
                assert card_id == expected_back(pages_face(pages[number - 1]))
        if number < 2 * 25:    # every card but the pawn token (cut out along its outline), both sides
            assert _ring_ink(page.image, page.px_per_mm, b, b, w, h, b) > 0.9, number
    assert set(faces) == {c.id for c in cat.cards_of("wheel", "number")}
    assert all(found == [cat.card(card_id).payload] for card_id, found in faces.items())
    # issue 21: the pawn's back was an all-white page; now the Wheel's frame covers the token (its
    # laurel in white on it), 1.5 mm beyond the token's cut line
    back, half = pages[-1], cat.PAWN_TOKEN_MM / 2
    (cx, cy), ppm = (b + w / 2, b + h / 2), back.px_per_mm
    token = back.image[round((cy - half) * ppm[1]):round((cy + half) * ppm[1]),
                       round((cx - half) * ppm[0]):round((cx + half) * ppm[0])]
    assert (token < 200).mean() > 0.6, f"the pawn's back is {(token < 200).mean():.0%} inked"


def pages_face(page: Page) -> str:
    """The one card whose face a single-card page shows."""
    (card_id, _), = card_centres(page).values()
    return card_id


def test_tokens_and_calibration_sheet(printed):
    _, scans = printed
    seats = {m.card for page in scans["tokens"] for m in page.marks if m.card.startswith("T-SEAT")}
    assert seats == {f"T-SEAT{i}" for i in range(1, 11)}
    calibration = scans["tokens"][-1]
    marks = {m.card: m for m in calibration.marks}
    assert set(marks) == {"K-CAL1", "K-CAL2", "K-CAL3", "K-CAL4"}
    rects = cat.calibration_marker_rects()
    # measured marker layout = catalogue layout (vision's table millimetres), within 0.2 mm
    origin = marks["K-CAL1"].corners[0]
    for card_id, rect in rects.items():
        assert np.allclose(marks[card_id].corners[0] - origin, [rect.x, rect.y], atol=0.2), card_id
        side = np.linalg.norm(marks[card_id].corners[1] - marks[card_id].corners[0])
        assert abs(side - cat.CALIBRATION_MARKER_MM) < 0.2


def test_stickers_read_and_cover_a_deck_and_five_pairs_decks(printed):
    _, scans = printed
    marks = Counter(m.card for page in scans["stickers"] for m in page.marks)
    assert set(marks) == set(sticker_cards(5)) and len(marks) == 54 + 5 * 55
    assert all(n == 1 for n in marks.values())
    for page in scans["stickers"]:
        for card_id, found in page.qr.items():
            assert found == [cat.card(card_id).payload]


def test_pdfs_embed_their_fonts_and_ask_for_no_scaling(printed):
    files, _ = printed
    for name, path in files.items():
        rows = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True,
                              check=True).stdout.splitlines()[2:]
        assert rows, f"{name}: no fonts"
        for row in rows:
            assert "IPAexGothic" in row and row.split()[-5] == "yes", f"{name}: {row}"   # emb column
        data = path.read_bytes()
        assert b"/PrintScaling /None" in data and b"/Duplex /" in data


def test_summary_lines_and_progress(tmp_path, capsys):
    assert main(["print", "spartacus", "--players", "3", "--out", str(tmp_path / "s.pdf")]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(str(tmp_path / "s.pdf")) and "33 cards (2 × 4 a sheet, on their side, 3 mm bleed), 10 pages" in line
    pages = scan(tmp_path / "s.pdf")
    assert {m.card[2] for p in pages for m in p.marks if not m.card.startswith("B-")} == {"R", "B", "G"}


@pytest.mark.parametrize("argv, words", [
    (["print", "spartacus", "--players", "6"], "3–5 colour sets"),
    (["print", "chains", "--players", "0"], "1–10 Pairs decks"),
    (["print", "wheel", "--players", "3"], "does not apply"),
    (["print", "prussia", "--bleed", "7"], "give 0–6 mm"),
    (["print", "prussia", "--bleed", "-1"], "give 0–6 mm"),
    (["print", "stickers", "--single"], "stickers are label sheets"),
    (["print", "hills", "--single", "--send"], "--single is for print services"),
    (["print", "wheel", "--out", "cards.txt"], "ending in .pdf"),
    (["print", "all", "--out", "x.pdf"], "give a folder"),
    (["print", "hills", "--printer", "office"], "--printer needs --send"),
])
def test_bad_options_say_what_to_do_and_write_nothing(tmp_path, monkeypatch, capsys, argv, words):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert words in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_print_all_into_a_file_says_give_a_folder(tmp_path, monkeypatch, capsys):
    """`print all --out` naming a file that is there: a clear refusal, not mkdir's traceback."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes").write_text("mine")
    assert main(["print", "all", "--out", "notes"]) == 2
    assert "a file of that name is there" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes"] and (tmp_path / "notes").read_text() == "mine"


def test_send_without_lp_says_how_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["print", "hills", "--send", "--out", str(tmp_path / "h.pdf")]) == 1
    assert "cups-client" in capsys.readouterr().err
    assert (tmp_path / "h.pdf").exists()


def test_send_hands_the_pdf_to_lp_duplex_unscaled(tmp_path, monkeypatch, capsys):
    # CUPS cannot run here: a stand-in `lp` on PATH records the command line it was given
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    lp = bin_dir / "lp"
    lp.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/lp-args\necho "request id is office-1"\n')
    lp.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert main(["print", "hills", "--send", "--printer", "office", "--out", str(tmp_path / "h.pdf")]) == 0
    args = (tmp_path / "lp-args").read_text().split()
    assert args[-1] == str(tmp_path / "h.pdf")
    assert "sides=two-sided-long-edge" in args and "print-scaling=none" in args
    assert args[args.index("-d") + 1] == "office"


def test_missing_font_is_a_clear_error(tmp_path, monkeypatch, capsys):
    from printables import fonts
    monkeypatch.setenv("TC_FONT", str(tmp_path / "no-such-font.ttf"))
    fonts.register_font.cache_clear()
    try:
        assert main(["print", "hills", "--out", str(tmp_path / "h.pdf")]) == 2
        assert "apt-get install fonts-ipaexfont-gothic" in capsys.readouterr().err
        assert not (tmp_path / "h.pdf").exists()
    finally:
        monkeypatch.delenv("TC_FONT")
        fonts.register_font.cache_clear()
        fonts.register_font()


def test_letter_stickers_read(tmp_path):
    out = tmp_path / "stickers.pdf"
    assert main(["print", "stickers", "--paper", "letter", "--players", "0", "--out", str(out)]) == 0
    pages = scan(out, LABELS["letter"])
    assert len(pages) == 2    # 54 labels, 30 a sheet
    read = {card_id: found for page in pages for card_id, found in page.qr.items()}
    assert set(read) == set(sticker_cards(0)) and len(read) == 54
    assert all(found == [cat.card(card_id).payload] for card_id, found in read.items())


@pytest.mark.parametrize("card_id", ["H-R5", "P-N3", "P-HQ", "C07-10-4", "T-SEAT2", "P-ERA2"])
def test_render_card_png_puts_marks_where_the_catalogue_says(card_id):
    from printables import render_card_png
    ppm = 6.0
    img = render_card_png(card_id, ppm)
    assert img.dtype == np.uint8 and img.shape[2] == 3 and not img.flags.writeable
    assert abs(img.shape[1] - cat.CARD_WIDTH_MM * ppm) <= 1 and abs(img.shape[0] - cat.CARD_HEIGHT_MM * ppm) <= 1
    framed = cv2.copyMakeBorder(img, 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    corners, ids, _ = _detector().detectMarkers(cv2.cvtColor(framed, cv2.COLOR_BGR2GRAY))
    assert sorted(ids.ravel()) == [cat.card(card_id).marker] * 2
    want = []
    for rect in cat.marker_rects(card_id):   # corner 0: top-left upright, bottom-right turned
        want.append((rect.x, rect.y) if rect.rotation == 0 else (rect.x + rect.w, rect.y + rect.h))
    got = sorted(((q.reshape(4, 2)[0] - 10 + 0.5) / ppm).tolist() for q in corners)
    assert np.allclose(got, sorted(want), atol=0.25)
    (qr,) = decode(img, symbols=[ZBarSymbol.QRCODE])
    assert qr.data.decode() == cat.card(card_id).payload
    rect = cat.qr_rect(card_id)
    assert np.allclose([qr.rect.left / ppm, qr.rect.top / ppm, qr.rect.width / ppm],
                       [rect.x, rect.y, rect.w], atol=0.5)


def test_render_back_png_shows_the_deck_marker_only():
    from printables import render_back_png, render_card_png
    img = render_back_png("B-C03", 5.0)
    _, ids, _ = _detector().detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert sorted(ids.ravel()) == [cat.card("B-C03").marker] * 2
    assert decode(img, symbols=[ZBarSymbol.QRCODE]) == []
    pawn = render_card_png("W-PAWN", 5.0)
    assert abs(pawn.shape[0] - cat.PAWN_TOKEN_MM * 5) <= 1
    with pytest.raises(ValueError, match="is a back"):
        render_card_png("B-WHEEL")
    with pytest.raises(ValueError, match="not a back"):
        render_back_png("W-R1")
    with pytest.raises(KeyError, match="no card"):
        render_card_png("W-R9")


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_render_calibration_png_places_the_markers_of_the_catalogue(paper):
    from printables import calibration_origin, render_calibration_png
    ppm = 3.0
    img = render_calibration_png(ppm, paper)
    corners, ids, _ = _detector().detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    found = {cat.by_marker(int(i)).id: q.reshape(4, 2)[0] for q, i in zip(corners, ids.ravel())}
    ox, oy = calibration_origin(paper)
    assert set(found) == set(cat.calibration_marker_rects())
    for card_id, rect in cat.calibration_marker_rects().items():
        assert np.allclose((found[card_id] + 0.5) / ppm, [ox + rect.x, oy + rect.y], atol=0.4)


DECK_FACES = {"wheel": ("W-R1", "W-P5"), "hills": ("H-R1", "H-H7", "H-BBAN"), "spartacus": ("S-R1", "S-PBAN"),
              "prussia": ("P-N1", "P-SA", "P-HK", "P-ERA1", "P-JK1"), "chains": ("C01-1-1", "C10-10-1")}
"""Faces of every kind in each deck (number, hill, banner, nation, playing card, era, joker)."""
GREY_APART = 25.0


def frame_greys(card_id: str, px_per_mm: float = 4.0) -> np.ndarray:
    """The grey levels of a face's frame (its two bars beside the QR code), rasterised by pdfium
    in greyscale, as a black-and-white printer would see the page."""
    from printables.raster import card_pdf
    doc = pdfium.PdfDocument(card_pdf(card_id))
    try:
        img = doc[0].render(scale=px_per_mm * 25.4 / 72, grayscale=True).to_numpy().squeeze()
    finally:
        doc.close()
    y0, y1 = int((cat.CASCADE_GUIDE_MM + 1) * px_per_mm), int((cat.CARD_HEIGHT_MM - cat.CASCADE_GUIDE_MM - 1) * px_per_mm)
    bar = int(5.2 * px_per_mm)
    return np.concatenate([img[y0:y1, :bar].ravel(), img[y0:y1, -bar:].ravel()]).astype(float)


def grey_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Earth mover's distance between two frames' grey-level histograms, in grey levels (of 255):
    the mean gap between their quantile functions, i.e. how far each grey of one frame must move,
    on average, to match the other. It grows with a lighter or darker frame and with a different
    pattern (stripes, cross-hatch, checks … spread the greys differently); lettering counts too."""
    q = np.linspace(0, 1, 257)[1:-1]
    return float(np.mean(np.abs(np.quantile(a, q) - np.quantile(b, q))))


def test_decks_tell_apart_in_greyscale():
    """Every face of one deck differs clearly from every face of every other deck when printed in
    black and white (tokens are no deck).

    Threshold: 25 grey levels of 255 (about 10 % of the range). A person tells two greys apart side
    by side at about 1–2 % of lightness, but a greyscale print halftones each tone, the room's light
    varies over a table and cheap printers drift by several percent from page to page; 10 % leaves
    a wide margin over all of that. Measured: ≥ 28.5 between decks (Prussia's era I against
    Spartacus' red 1), ≤ 9.2 within one (a nation against an era card: only their lettering
    differs)."""
    greys = {card_id: frame_greys(card_id) for ids in DECK_FACES.values() for card_id in ids}
    for game, ids in DECK_FACES.items():
        for card_id in ids:
            for other, other_ids in DECK_FACES.items():
                if other == game:
                    continue
                for other_id in other_ids:
                    d = grey_distance(greys[card_id], greys[other_id])
                    assert d >= GREY_APART, f"{card_id} ({game}) and {other_id} ({other}) are {d:.1f} apart"
    within = [grey_distance(greys[a], greys[b]) for ids in DECK_FACES.values() for a in ids for b in ids]
    assert max(within) < GREY_APART / 2      # the measure sees frames, not the card's own lettering


def test_japanese_is_set_upright_in_vertical_lines():
    from printables.faces import tategaki_cells
    assert tategaki_cells("デッキ2・7(1/7)") == [
        ("upright", "デ"), ("small", "ッ"), ("upright", "キ"), ("tcy", "2"), ("upright", "・"), ("tcy", "7"),
        ("upright", "︵"), ("tcy", "1/7"), ("upright", "︶")]     # brackets in their vertical forms
    assert tategaki_cells("ローマ七丘") == [("upright", "ロ"), ("turned", "ー"), ("upright", "マ"),
                                          ("upright", "七"), ("upright", "丘")]
    assert [k for k, _ in tategaki_cells("1800年頃")] == ["upright"] * 6     # a year digit by digit
    assert tategaki_cells("♠A Prussia") == [("upright", "♠"), ("tcy", "A"), ("space", " "), ("latin", "Prussia")]


@pytest.mark.parametrize("back_id, words", [("B-NATION", ["輪る七年戦争", "国家 · nations"]),
                                            ("B-PLAY", ["輪る七年戦争", "トランプ · playing cards"]),
                                            ("B-WHEEL", ["歴史の車輪", "Wheel of History"]),
                                            ("B-C03", ["チェーンズ", "デッキ3 · deck 3"])])
def test_backs_carry_the_games_own_title(tmp_path, back_id, words):
    from printables.raster import card_pdf
    path = tmp_path / "back.pdf"
    path.write_bytes(card_pdf(back_id, "back"))
    said = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    assert all(w in said for w in words), said


def test_pdfium_is_used_by_one_thread_at_a_time():
    """pdfium is not thread-safe: rendered from several threads at once it failed to load documents
    ("Data format error") or crashed the process (SIGTRAP in libpdfium.so, the print page's front and
    back previews fetched at once). Every render goes through ``raster.render_page``'s lock."""
    from concurrent.futures import ThreadPoolExecutor

    from printables import raster
    pdfs = [raster.card_pdf(c.id, "face") for c in cat.cards_of("wheel")[:8]]
    with ThreadPoolExecutor(max_workers=8) as pool:
        shapes = list(pool.map(lambda k: raster.render_page(pdfs[k % len(pdfs)], px_per_mm=4.0).shape, range(800)))
    assert len(shapes) == 800 and len(set(shapes)) == 1
