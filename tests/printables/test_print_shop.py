"""Print-shop checks on the real PDFs (issue 21): the safe zone, titles inside their bars, backs of
different games apart in greyscale, contrast and type size of what a player reads, and the CMYK
print-service output (colour spaces, 100 % K black, ink limit, output intent, PDF/X keys).

`companion print all --single` is written once for the module; the text layer is read with
pypdfium2 (tight glyph boxes, as the rasteriser draws them) on every page, and pages of every kind
are rendered to check the same from the pixels."""
from __future__ import annotations

import ctypes
import itertools
import subprocess
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pikepdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from companion import catalogue as cat
from companion.catalogue import CARD_HEIGHT_MM as CH, CARD_WIDTH_MM as CW
from companion.cli import main
from printables import faces
from printables.raster import card_pdf
from printables.style import STYLES, contrast, style_of
from tests.printables.test_printables import grey_distance   # the measure the faces' test uses

PT_MM = 25.4 / 72
GAMES = ("wheel", "hills", "spartacus", "prussia", "chains", "tokens")
BAR_TOP, BAR_BOTTOM = faces.CASCADE + 2.2, CH - faces.CASCADE - 2.2   # where a side bar shows
FRAMES = {s.frame for s in STYLES.values()}


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> dict[str, Path]:
    """`companion print all --single` once: every card of the five games and the tokens, face page
    then back page."""
    out = tmp_path_factory.mktemp("single")
    assert main(["print", "all", "--single", "--out", str(out)]) == 0
    return {name: out / f"{name}-single.pdf" for name in GAMES}


def _colour(obj, stroke: bool = False) -> tuple[float, float, float]:
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    get = pdfium_c.FPDFPageObj_GetStrokeColor if stroke else pdfium_c.FPDFPageObj_GetFillColor
    assert get(obj.raw, *(ctypes.byref(v) for v in (r, g, b, a)))
    return (r.value / 255, g.value / 255, b.value / 255)


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(v * 255):02x}" for v in rgb)


def _filled(obj) -> bool:
    if obj.type == pdfium_c.FPDF_PAGEOBJ_TEXT:
        return True
    mode, stroke = ctypes.c_int(), ctypes.c_int()
    pdfium_c.FPDFPath_GetDrawMode(obj.raw, ctypes.byref(mode), ctypes.byref(stroke))
    return mode.value != 0


class CardPage:
    """One page of a --single PDF in card millimetres (origin the trim's top-left, y down)."""

    def __init__(self, page, index: int):
        self.page, self.index = page, index
        self.trim = page.get_trimbox()              # left, bottom, right, top in points

    def box(self, l: float, b: float, r: float, t: float) -> tuple[float, float, float, float]:
        """PDF points (l, b, r, t) → card mm (x0, y0, x1, y1)."""
        tl, _, _, tt = self.trim
        return ((l - tl) * PT_MM, (tt - t) * PT_MM, (r - tl) * PT_MM, (tt - b) * PT_MM)

    def chars(self) -> list[tuple[str, tuple[float, float, float, float], float]]:
        """Every printed character: (char, tight glyph box in card mm, em size in mm)."""
        tp = self.page.get_textpage()
        found = []
        for k in range(tp.count_chars()):
            ch = tp.get_text_range(k, 1)
            if not ch.strip():
                continue
            box = self.box(*tp.get_charbox(k, loose=False))
            if box[2] - box[0] <= 0 and box[3] - box[1] <= 0:
                continue
            l, b, r, t = tp.get_charbox(k, loose=True)   # the em square along the line (either way up)
            found.append((ch, box, max(r - l, t - b) * PT_MM))
        tp.close()
        return found

    def objects(self):
        """The page's own objects (frame patterns are forms, left out), with their card-mm boxes."""
        return [(o, self.box(*o.get_bounds())) for o in self.page.get_objects(max_depth=1)]


def pages(path: Path):
    doc = pdfium.PdfDocument(path)
    try:
        for i, page in enumerate(doc):
            yield CardPage(page, i)
    finally:
        doc.close()


def in_bar(box) -> bool:
    """A glyph on a side bar (the titles: they repeat what the index and the back say)."""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return (x < faces.BAR_MM or x > CW - faces.BAR_MM) and BAR_TOP - 1 < y < BAR_BOTTOM + 1


def gap(box) -> float:
    """How far a box stays inside the trim (mm)."""
    return min(box[0], box[1], CW - box[2], CH - box[3])


def test_no_text_within_the_safe_zone_on_any_face_or_back(single):
    """Issue 21: titles sat 1.0–1.4 mm from the cut on 462 of 464 faces; print services keep text
    3 mm inside the trim. Every glyph of every page of every deck, from the text layer."""
    worst, pages_seen = {}, 0
    for name, path in single.items():
        for page in pages(path):
            pages_seen += 1
            for ch, box, _ in page.chars():
                worst.setdefault(name, (99.0, ""))
                if gap(box) < worst[name][0]:
                    worst[name] = (gap(box), f"{ch!r} on page {page.index + 1}")
    assert pages_seen == 2 * (26 + 27 + 55 + 70 + 275 + 10)
    for name, (distance, where) in worst.items():
        assert distance >= faces.SAFE_MM, f"{name}: {where} is {distance:.2f} mm from the cut"


def test_no_marker_within_the_safe_zone_on_any_face_or_back(single):
    """The markers (and QR codes) from the PDF's own drawing, on every page: each is a filled path in
    our black (#212121), its outer corner on the 3 mm line (``catalogue.MARKER_INSET_MM``) or further
    in; every face and back carries its two (the pawn token one)."""
    ink = (0x21 / 255,) * 3
    for name, path in single.items():
        for page in pages(path):
            drawn = [gap(box) for obj, box in page.objects()
                     if obj.type == pdfium_c.FPDF_PAGEOBJ_PATH and _filled(obj) and _colour(obj) == ink]
            assert len(drawn) >= 2 or name == "wheel" and page.index >= 50, f"{name} p{page.index + 1}: {len(drawn)}"
            assert min(drawn, default=99) >= faces.SAFE_MM - 0.001, \
                f"{name} p{page.index + 1}: a mark {min(drawn):.3f} mm from the cut"


def test_titles_fit_their_bars(single):
    """Issue 21: titles overflowed their 43.6 mm bar by up to 0.68 mm ("Great Northern Wa"). Every
    glyph on a bar lies along the bar's visible length and across between the safe line and the
    white panel."""
    seen = 0
    for name in ("wheel", "prussia", "chains"):       # the longest titles: eras, nations, Pairs copies
        for page in pages(single[name]):
            for ch, box, _ in page.chars():
                if not in_bar(box):
                    continue
                seen += 1
                assert BAR_TOP <= box[1] and box[3] <= BAR_BOTTOM, f"{name} p{page.index + 1}: {ch!r} {box}"
                left = box[2] < CW / 2
                across = (box[0], box[2]) if left else (CW - box[2], CW - box[0])
                assert across[0] >= faces.SAFE_MM and across[1] <= faces.BAR_MM, \
                    f"{name} p{page.index + 1}: {ch!r} leaves its bar: {box}"
    assert seen > 5000


def test_titles_stand_out_on_their_bars(single):
    """The bars' titles (2.4 mm: they repeat what the index and the back say) stand ≥ 3:1 on the frame
    they lie on, on its colour and on its pattern's lines alike, on every face of every deck."""
    from printables.style import pattern_ink
    seen = 0
    for name, path in single.items():
        for page in pages(path):
            if page.index % 2:
                continue
            for obj, box in page.objects():
                if obj.type != pdfium_c.FPDF_PAGEOBJ_TEXT or not in_bar(box):
                    continue
                frame = STYLES["table" if name == "tokens" else name].frame
                seen += 1
                for ground in (frame, pattern_ink(frame)):
                    ratio = contrast(_hex(_colour(obj)), ground)
                    assert ratio >= 3.0, f"{name} p{page.index + 1}: title {_hex(_colour(obj))} on {ground} {ratio:.2f}:1"
    assert seen > 5000


def kinds(name: str) -> list[int]:
    """Pages of every kind in a --single file (0-based): the first face of each kind (number, banner,
    hill, nation, era, playing card, joker, pawn, seat, Pairs), the first back and the last."""
    from printables.sheets import slots
    cards = slots(name)
    first = {}
    for i, slot in enumerate(cards):
        first.setdefault(cat.card(slot.front).kind, i)
    last = max(i for i, slot in enumerate(cards) if (slot.back or "").startswith("B-"))
    return sorted({2 * i for i in first.values()} | {1, 2 * last + 1})


DPI_MM = 6.0   # 152 dpi: a pixel is 0.17 mm


def text_only(page: CardPage, px_per_mm: float) -> np.ndarray:
    """The page rendered with its text alone on a magenta ground (white lettering shows too): a
    mask of the pixels that text inks."""
    for obj in list(page.page.get_objects(max_depth=1)):
        if obj.type != pdfium_c.FPDF_PAGEOBJ_TEXT:
            page.page.remove_obj(obj)
    page.page.gen_content()
    img = page.page.render(scale=px_per_mm * 25.4 / 72, fill_color=(255, 0, 255, 255)).to_numpy()[:, :, :3]
    return np.any(np.abs(img.astype(int) - [255, 0, 255]) > 40, axis=2)


def test_rendered_text_and_markers_keep_the_safe_zone(single):
    """The same from the pixels: text drawn alone, and the markers read from the full render, on
    pages of every kind (each face design and every game's back)."""
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000),
                                  cv2.aruco.DetectorParameters())
    for name in GAMES:
        indices = kinds(name)
        doc = pdfium.PdfDocument(single[name])
        try:
            for i in indices:
                page = CardPage(doc[i], i)
                l, b, r, t = page.trim
                media_w, media_h = (v * PT_MM for v in doc[i].get_size())
                bleed = l * PT_MM
                full = doc[i].render(scale=DPI_MM * 25.4 / 72, grayscale=True).to_numpy().squeeze()
                scale = np.array([full.shape[1] / media_w, full.shape[0] / media_h])
                corners, ids, _ = det.detectMarkers(full)
                assert ids is not None, f"{name} p{i + 1}: no marker read"
                for quad in corners:
                    mm_pts = (quad.reshape(4, 2) + 0.5) / scale - bleed
                    box = (*mm_pts.min(axis=0), *mm_pts.max(axis=0))
                    # a marker's outer corner sits on the 3 mm line (catalogue.MARKER_INSET_MM): measured
                    # to within a third of a pixel
                    assert gap(box) >= faces.SAFE_MM - 0.05, f"{name} p{i + 1}: marker at {gap(box):.2f} mm"
                mask = text_only(page, DPI_MM)
                ys, xs = np.nonzero(mask)
                assert len(xs) > 50, f"{name} p{i + 1}: no text drawn"
                px = 1 / scale
                x0, x1 = xs.min() * px[0] - bleed, (xs.max() + 1) * px[0] - bleed
                y0, y1 = ys.min() * px[1] - bleed, (ys.max() + 1) * px[1] - bleed
                inside = min(x0, y0, CW - x1, CH - y1)
                assert inside >= faces.SAFE_MM - 0.17, f"{name} p{i + 1}: text ink {inside:.2f} mm from the cut"
        finally:
            doc.close()


@pytest.fixture(scope="module")
def single_colour(tmp_path_factory) -> dict[str, Path]:
    """`companion print all --single --faces colour` once: the colour-field faces of every card."""
    out = tmp_path_factory.mktemp("single-colour")
    assert main(["print", "all", "--single", "--faces", "colour", "--out", str(out)]) == 0
    return {name: out / f"{name}-single.pdf" for name in GAMES}


@pytest.fixture(scope="module")
def single_plain(tmp_path_factory) -> dict[str, Path]:
    """`companion print all --single --faces plain` once: the pale fields without the game's art."""
    out = tmp_path_factory.mktemp("single-plain")
    assert main(["print", "all", "--single", "--faces", "plain", "--out", str(out)]) == 0
    return {name: out / f"{name}-single.pdf" for name in GAMES}


@pytest.mark.parametrize("design", ["art", "plain", "colour"])
def test_what_a_player_reads_is_large_enough_and_stands_out(request, design):
    """Issue 21: yellow on white was 1.97:1 and Chains' deck label 1.6 mm type. Every glyph off the
    side bars is set at ≥ 2.5 mm (em), and every text and filled mark in the index corners stands
    ≥ 3:1 on what it lies on (the topmost filled shape under it, a colour field or the white; WCAG's
    ratio for large text and graphics): white lettering on a field counts like any other. Every face
    design (the default art, ``--faces plain`` and ``--faces colour``). With the game's art (a form, as
    the frame's pattern is), every mark on the field also stands ≥ 3:1 on the art's darkest tone, read
    from the art's forms in the PDF, since the value, symbol and emblem may lie on it; the art's own
    tones are checked in ``test_art_stays_pale_and_clear_of_the_markers``."""
    printed = request.getfixturevalue({"art": "single", "plain": "single_plain", "colour": "single_colour"}[design])
    checked_text = checked_marks = white_marks = on_art = 0
    from printables.sheets import slots
    for name in GAMES:
        fronts = slots(name)
        for page in pages(printed[name]):
            if page.index % 2:         # faces only; backs below
                continue
            for ch, box, em in page.chars():
                if ch.isalnum() and not in_bar(box):
                    checked_text += 1
                    assert em >= faces.PLAYER_TEXT_MM - 0.01, \
                        f"{name} p{page.index + 1}: {ch!r} is {em:.2f} mm type"
            objects = page.objects()
            art = _art_tone(page)           # the art's darkest tone, where the face has the game's art
            card = cat.card(fronts[page.index // 2].front)
            want_art = faces.art_of(card, design) is not None and card.id != "W-PAWN"   # the pawn: a token
            field = faces.field_of(card, design) and _hex(faces.field_of(card, design).rgb())
            assert (art is not None) == want_art, f"{card.id}: art {art}"
            for k, (obj, box) in enumerate(objects):
                index = box[1] >= faces.PAD_MM - 0.1 and box[3] <= faces.CASCADE + 0.1 or \
                    box[1] >= CH - faces.CASCADE - 0.1 and box[3] <= CH - faces.PAD_MM + 0.1
                if not index or obj.type not in (pdfium_c.FPDF_PAGEOBJ_TEXT, pdfium_c.FPDF_PAGEOBJ_PATH) \
                        or not _filled(obj):
                    continue
                fill = _colour(obj)
                if _is_field(box):
                    continue           # the colour field itself: the ground of the marks checked on it
                ground = _hex(_background(objects, k))
                if fill == (1.0, 1.0, 1.0) and ground in FRAMES:
                    continue           # the white corners and panel on the frame; white on a field counts
                checked_marks += 1
                white_marks += fill == (1.0, 1.0, 1.0)
                assert contrast(_hex(fill), ground) >= 3.0, \
                    f"{name} p{page.index + 1}: {_hex(fill)} on {ground} is {contrast(_hex(fill), ground):.2f}:1"
                if art is not None and ground == field:    # a mark on the field may lie on the art
                    on_art += 1
                    assert contrast(_hex(fill), art) >= 3.0, \
                        f"{name} p{page.index + 1}: {_hex(fill)} on the art's {art} is {contrast(_hex(fill), art):.2f}:1"
    assert checked_text > 5000 and checked_marks > 3000
    assert on_art > 2000 if design == "art" else on_art == 0, on_art
    # white lettering lies on the colour fields (plain faces: 336, white-on-colour symbols and the like)
    assert white_marks > 1000 if design == "colour" else white_marks < 500, white_marks


def _art_tone(page: CardPage) -> str | None:
    """The darkest colour the game's art is drawn in on a face (its forms inside the index fields;
    the frame's pattern form covers the whole card), or None without art."""
    darkest, forms = None, []
    for obj in page.page.get_objects(max_depth=2):
        if obj.level == 0:
            inside = obj.type == pdfium_c.FPDF_PAGEOBJ_FORM and _in_field(page.box(*obj.get_bounds()))
            forms.append(inside)
        elif forms and forms[-1] and obj.type == pdfium_c.FPDF_PAGEOBJ_PATH:
            mode, stroke = ctypes.c_int(), ctypes.c_int()
            pdfium_c.FPDFPath_GetDrawMode(obj.raw, ctypes.byref(mode), ctypes.byref(stroke))
            for used, is_stroke in ((mode.value != 0, False), (stroke.value != 0, True)):
                if used:
                    tone = _hex(_colour(obj, stroke=is_stroke))
                    if darkest is None or contrast(tone, "#ffffff") > contrast(darkest, "#ffffff"):
                        darkest = tone
    return darkest


def _in_field(box) -> bool:
    """Whether a box is centred in an index field (top, or turned at the bottom): the art's forms are
    (their shapes run off the field, which clips them); the frame's pattern spans the card."""
    x0, y0, x1, y1 = faces.FIELD
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return box[2] - box[0] < CW * 0.75 and any(a <= x <= c and b <= y <= d for a, b, c, d in
                                               ((x0, y0, x1, y1), (CW - x1, CH - y1, CW - x0, CH - y0)))


def _is_field(box) -> bool:
    """Whether a box is an index's colour field (``faces.FIELD``, top or turned at the bottom)."""
    x0, y0, x1, y1 = faces.FIELD
    return any(np.allclose(box, want, atol=0.1) for want in ((x0, y0, x1, y1), (CW - x1, CH - y1, CW - x0, CH - y0)))


def _background(objects, k: int):
    """The fill colour under object ``k``: the topmost earlier filled object whose box holds it."""
    _, box = objects[k]
    for obj, under in reversed(objects[:k]):
        if obj.type == pdfium_c.FPDF_PAGEOBJ_PATH and _filled(obj) and under[0] <= box[0] + 0.05 \
                and under[1] <= box[1] + 0.05 and under[2] >= box[2] - 0.05 and under[3] >= box[3] - 0.05:
            return _colour(obj)
    return (1.0, 1.0, 1.0)


def test_backs_lettering_and_owner_symbols_stand_out():
    """On every back: its lettering ≥ 3:1 on the cartouche, type ≥ 2.5 mm, and a player's deck's
    symbol ≥ 3:1 on their colour in the seal (yellow takes a black symbol)."""
    seals = 0
    for back in cat.BACKS:
        doc = pdfium.PdfDocument(card_pdf(back, "back"))
        try:
            page = CardPage(doc[0], 0)
            page.trim = (0, 0, *doc[0].get_size())
            for ch, _, em in page.chars():
                assert not ch.isalnum() or em >= faces.PLAYER_TEXT_MM - 0.01, f"{back}: {ch!r} {em:.2f} mm"
            objects = page.objects()
            for k, (obj, box) in enumerate(objects):
                centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
                seal = np.hypot(*(centre - [faces.SEAL_X, faces.SEAL_Y])) < 1 and box[2] - box[0] < 2 * faces.SEAL_R - 2
                if obj.type == pdfium_c.FPDF_PAGEOBJ_TEXT or (seal and obj.type == pdfium_c.FPDF_PAGEOBJ_PATH):
                    ratio = contrast(_hex(_colour(obj)), _hex(_background(objects, k)))
                    assert ratio >= 3.0, f"{back}: {_hex(_colour(obj))} on {_hex(_background(objects, k))} {ratio:.2f}:1"
                    seals += seal
        finally:
            doc.close()
    assert seals == sum(1 for b in cat.BACKS if cat.card(b).colour)


def back_greys(back_id: str, px_per_mm: float = 4.0) -> np.ndarray:
    """The whole back in greyscale, as a black-and-white printer renders it."""
    doc = pdfium.PdfDocument(card_pdf(back_id, "back"))
    try:
        return doc[0].render(scale=px_per_mm * 25.4 / 72, grayscale=True).to_numpy().astype(float).ravel()
    finally:
        doc.close()


def test_backs_of_different_games_tell_apart_in_greyscale_colour_and_emblem():
    """Issue 21: Spartacus' and Chains' backs were 2.4–3.8 grey levels apart with chain links on
    both. Now every back of one game is ≥ 25 levels from every back of another over the whole
    back (seat tokens are no deck), the games' emblems differ, and Prussia's two backs differ by
    more than a line of text (the playing cards show the four suits in a ruled border)."""
    backs = [b for b in cat.BACKS if b != "B-TOKEN"]
    greys = {b: back_greys(b) for b in backs}
    closest = min((grey_distance(greys[a], greys[b]), a, b) for a, b in itertools.combinations(backs, 2)
                  if style_of(a).game != style_of(b).game)
    assert closest[0] >= 25.0, f"{closest[1]} and {closest[2]} are {closest[0]:.1f} grey levels apart"
    assert len({STYLES[g].emblem for g in ("wheel", "hills", "spartacus", "prussia", "chains")}) == 5
    nation, play = (back_greys(b).reshape(-1) for b in ("B-NATION", "B-PLAY"))
    assert np.mean(np.abs(nation - play) > 100) > 0.03


def test_print_all_prints_each_card_once(single, tmp_path):
    """Issue 21: `print all` printed W-PAWN twice (wheel and tokens). Every card's face is on one
    page of one file: counted from the files' faces by their markers."""
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000),
                                  cv2.aruco.DetectorParameters())
    found = Counter()
    for name in ("wheel", "tokens"):         # the two that both held the pawn
        doc = pdfium.PdfDocument(single[name])
        try:
            for i in range(0, len(doc), 2):
                img = doc[i].render(scale=3 * 25.4 / 72, grayscale=True).to_numpy().squeeze()
                _, ids, _ = det.detectMarkers(img)
                assert ids is not None, f"{name} page {i + 1}"
                found.update({cat.by_marker(int(m)).id for m in ids.ravel()})
        finally:
            doc.close()
    assert found["W-PAWN"] == 1
    assert all(n == 1 for n in found.values()), [k for k, n in found.items() if n > 1]


# ---------------------------------------------------------------- the print-service output (CMYK)

COLOUR_OPS = {"rg", "RG", "g", "G", "k", "K", "cs", "CS", "sc", "SC", "scn", "SCN"}


def colour_use(path: Path) -> tuple[Counter, Counter, Counter]:
    """Every colour operator of every page and form (pikepdf), the CMYK fills and the fills under
    which text is shown."""
    ops, fills, text_fills = Counter(), Counter(), Counter()
    seen = set()

    def walk(obj) -> None:
        fill, stack = None, []
        for operands, op in pikepdf.parse_content_stream(obj):
            o = str(op)
            if o in COLOUR_OPS:
                ops[o] += 1
                if o == "k":
                    fill = tuple(round(float(v), 4) for v in operands)
                    fills[fill] += 1
            elif o == "q":
                stack.append(fill)
            elif o == "Q":
                fill = stack.pop()
            elif o in ("Tj", "TJ", "'", '"'):
                text_fills[fill] += 1
        for x in obj.get("/Resources", {}).get("/XObject", {}).values():
            if x.objgen not in seen:
                seen.add(x.objgen)
                walk(x)
    with pikepdf.open(path) as pdf:
        for page in pdf.pages:
            walk(page.obj)
    return ops, fills, text_fills


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """`print wheel --single --for-service --order back-face` and `print prussia --for-service`
    (sheets), and the home (RGB) Prussia file to compare with."""
    out = tmp_path_factory.mktemp("service")
    assert main(["print", "wheel", "--single", "--for-service", "--order", "back-face", "--out",
                 str(out / "wheel.pdf")]) == 0
    assert main(["print", "prussia", "--for-service", "--out", str(out / "prussia.pdf")]) == 0
    assert main(["print", "prussia", "--out", str(out / "prussia-rgb.pdf")]) == 0
    return out


def test_service_output_is_cmyk_with_black_on_one_plate(service):
    """No RGB anywhere; what the home file draws in our black (#212121: text, QR codes, markers, cut
    marks) is K 100 % alone, exactly as often; at most 300 % ink; black text never four-colour."""
    for name in ("wheel", "prussia"):
        ops, fills, text_fills = colour_use(service / f"{name}.pdf")
        assert set(ops) <= {"k", "K"}, f"{name}: {ops}"
        assert max(sum(f) for f in fills) <= 3.0
        assert (0, 0, 0, 1) in fills
        four = [f for f in fills if min(f) > 0]      # grey component replacement: never all four inks
        assert not four, f"{name}: fills in four inks: {four}"
        assert all(f is not None for f in text_fills)
    rgb_ops, _, _ = colour_use(service / "prussia-rgb.pdf")
    assert "rg" in rgb_ops and "k" not in rgb_ops          # the home file stays RGB
    _, cmyk_fills, text_fills = colour_use(service / "prussia.pdf")
    with pikepdf.open(service / "prussia-rgb.pdf") as pdf:
        blacks = sum(1 for page in pdf.pages for operands, op in pikepdf.parse_content_stream(page.obj)
                     if str(op) == "rg" and [round(float(v), 4) for v in operands] == [round(0x21 / 255, 4)] * 3)
    assert blacks > 300 and cmyk_fills[(0, 0, 0, 1)] == blacks
    assert text_fills[(0, 0, 0, 1)] > 100                 # black lettering: one plate


def test_service_output_declares_its_output_intent_and_pdfx(service):
    """PDF/X-1a:2003 (ISO 15930-4) as far as it can be checked here: the GTS_PDFX output intent
    (registered FOGRA39), GTS_PDFXVersion, Trapped /False, an /ID, PDF 1.4, a TrimBox on every page
    inside the BleedBox and MediaBox, fonts embedded (poppler's pdffonts), no images (pdfimages), no
    transparency, no annotations."""
    for name in ("wheel", "prussia"):
        path = service / f"{name}.pdf"
        with pikepdf.open(path) as pdf:
            intent, = pdf.Root.OutputIntents
            assert intent.S == "/GTS_PDFX" and str(intent.OutputConditionIdentifier) == "FOGRA39"
            assert str(intent.RegistryName) == "http://www.color.org"
            assert str(pdf.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003"
            assert pdf.docinfo["/Trapped"] == "/False" and "/Title" in pdf.docinfo
            assert pdf.trailer.get("/ID") is not None and pdf.pdf_version <= "1.4"
            for page in pdf.pages:
                media, trim = [float(v) for v in page.MediaBox], [float(v) for v in page.TrimBox]
                bleed = [float(v) for v in page.get("/BleedBox", page.MediaBox)]
                assert bleed[0] >= media[0] and bleed[2] <= media[2] and trim[0] >= bleed[0] and trim[2] <= bleed[2]
                assert "/Annots" not in page
                for gs in page.get("/Resources", {}).get("/ExtGState", {}).values():
                    assert float(gs.get("/ca", 1)) == 1 and float(gs.get("/CA", 1)) == 1 and "/SMask" not in gs
        fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout
        rows = fonts.splitlines()[2:]
        assert rows and all(" yes yes " in row for row in rows), fonts
        images = subprocess.run(["pdfimages", "-list", str(path)], capture_output=True, text=True, check=True).stdout
        assert len(images.splitlines()) == 2, images          # the header alone: marks are vectors


def test_single_back_face_order_puts_each_back_first(service):
    """--order back-face: page 1 is the first card's back, page 2 its face (the face's two markers
    and QR code), and so on."""
    doc = pdfium.PdfDocument(service / "wheel.pdf")
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000),
                                  cv2.aruco.DetectorParameters())
    try:
        assert len(doc) == 52
        read = []
        for i in (0, 1, 2, 3):
            img = doc[i].render(scale=4 * 25.4 / 72, grayscale=True).to_numpy().squeeze()
            _, ids, _ = det.detectMarkers(img)
            read.append(sorted(cat.by_marker(int(m)).id for m in ids.ravel()))
    finally:
        doc.close()
    assert read == [["B-WHEEL", "B-WHEEL"], ["W-R1", "W-R1"], ["B-WHEEL", "B-WHEEL"], ["W-R2", "W-R2"]]


@pytest.mark.parametrize("argv, words", [
    (["print", "stickers", "--for-service"], "label sheets"),
    (["print", "wheel", "--order", "back-face"], "--order is for --single"),
    (["print", "wheel", "--for-service", "--send"], "--for-service"),
    # the messages of printables.sheets come from the catalogue, in the command line's language
    (["print", "wheel", "--order", "back-face", "--lang", "ja"], "--order は --single(1ページ1枚)用です"),
    (["print", "stickers", "--for-service", "--lang", "ja"], "ステッカーは自分で印刷するラベル用紙"),
    (["print", "prussia", "--bleed", "7", "--lang", "ja"], "0〜6 mmで指定してください"),
    (["print", "spartacus", "--players", "6", "--lang", "ja"], "spartacus は色のセットを3〜5印刷します"),
    (["print", "wheel", "--players", "3", "--lang", "ja"], "--players は wheel には使えません"),
    (["print", "wheel", "--out", "cards.txt", "--lang", "ja"], ".pdf で終わるファイル名"),
])
def test_bad_service_options_say_what_to_do_and_write_nothing(tmp_path, monkeypatch, capsys, argv, words):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert words in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.pdf"))


def test_print_errors_carry_both_languages():
    """A page in either language can show a printables error (``PrintError.words``)."""
    from printables.sheets import PrintError, check
    with pytest.raises(PrintError) as err:
        check("chains", players=11)
    assert err.value.words.en == "chains prints 1–10 Pairs decks: --players 11 is out of range"
    assert err.value.words.ja == "chains はペアーズのデッキを1〜10印刷します。--players 11 は範囲外です"
    from companion.i18n import cli_lang
    assert str(err.value) == err.value.words.in_(cli_lang())     # the command line's language


FACE_KINDS = ["W-R1", "W-Y4", "W-P5", "H-R6", "H-B9", "H-H3", "H-RBAN", "S-G10", "S-YBAN", "P-N3", "P-ERA2",
              "P-HQ", "P-JK1", "C05-10-10", "C04-9-2", "T-SEAT9", "T-SEAT10"]


def _ring(img: np.ndarray, rect, quiet: float, ppm: float) -> np.ndarray:
    """The pixels within ``quiet`` mm of ``rect`` (card mm), 0.3 mm short of either edge (smoothing)."""
    inside = np.full(img.shape[:2], 255, np.uint8)
    cv2.rectangle(inside, (round(rect.x * ppm), round(rect.y * ppm)),
                  (round((rect.x + rect.w) * ppm) - 1, round((rect.y + rect.h) * ppm) - 1), 0, -1)
    away = cv2.distanceTransform(inside, cv2.DIST_L2, 5) / ppm
    return img[(away > 0.3) & (away < quiet - 0.3)]


@pytest.mark.parametrize("design", ["art", "plain", "colour"])
@pytest.mark.parametrize("card_id", FACE_KINDS)
def test_fields_keep_the_codes_quiet_zones_white(card_id, design):
    """Issue 21 point 6: the faces' index fields (pale by default, full with ``--faces colour``) never
    reach the QR code's 4 mm quiet zone nor a marker's 2.2 mm one (rendered: every pixel there is
    paper white; the camera's screen rule, vision.reading.plane, takes a face's white from the QR's
    quiet zone), and a field is light enough: a full one for that rule (a side whose strip 6 mm inside
    is mostly under 0.2 of the card's white is not framed), luma ≥ FIELD_LUMA; a pale one for every
    threshold that looks for white paper (the marker finder's, the glare check's), luma ≥ PALE_LUMA."""
    from printables import render_card_png
    from printables.style import FIELD_LUMA, PALE_LUMA, luma
    ppm = 6.0
    img = cv2.cvtColor(np.asarray(render_card_png(card_id, ppm, faces=design)), cv2.COLOR_BGR2GRAY)
    ring = _ring(img, cat.qr_rect(card_id), cat.QR_QUIET_MM, ppm)
    assert ring.min() >= 250, f"{card_id}: QR quiet zone reaches grey {ring.min()}"
    for rect in cat.marker_rects(card_id):
        ring = _ring(img, rect, 2.2, ppm)
        assert ring.min() >= 250, f"{card_id}: marker quiet zone reaches grey {ring.min()}"
    ground = faces.field_of(cat.card(card_id), design)
    least = FIELD_LUMA if design == "colour" else PALE_LUMA
    assert ground is None or luma(ground) >= least, f"{card_id}: field luma {luma(ground):.2f}"
    if ground is not None:        # the field is there, in the index strip, top and bottom
        x, y = round((faces.FIELD[0] + 0.3) * ppm), round((faces.FIELD[1] + faces.FIELD[3]) / 2 * ppm)
        assert abs(int(img[y, x]) - 255 * luma(ground)) < 6 and abs(int(img[-y, -x]) - 255 * luma(ground)) < 6
        assert int(img[y, x]) < 245 if design != "colour" else luma(ground) < PALE_LUMA - 0.2   # a field, not paper


# The white share (grey ≥ 250 at 4 px/mm) of the top index strip (faces.FIELD) of the playing card and
# the joker, rendered once from e1ebed5: they keep their white index in every design, as a deck of cards has.
CARD_INDEX_WHITE = {"P-HQ": 0.729, "P-JK1": 0.794}


def _strip(card_id: str, design: str | None) -> np.ndarray:
    from printables import render_card_png
    img = np.asarray(render_card_png(card_id, 4.0) if design is None else render_card_png(card_id, 4.0, design))
    x0, y0, x1, y1 = (round(v * 4) for v in faces.FIELD)
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[y0:y1, x0:x1]


@pytest.mark.parametrize("card_id", FACE_KINDS)
def test_default_faces_are_the_art_faces(card_id):
    """The default faces are ``--faces art``: pixel-identical renders, whose top strip is the pale
    field (its ground at the field's own grey, ≥ PALE_LUMA, no paper white left but under the marks)
    with the game's art on it; ``--faces plain`` is the same field without the art, ``--faces colour``
    puts its full field there; playing cards and jokers keep e1ebed5's white index in all three (a
    broken default, or an option that does nothing, fails here)."""
    from printables import render_card_png
    from printables.style import PALE_LUMA, luma
    assert faces.DEFAULT_FACES == "art"
    assert np.array_equal(render_card_png(card_id, 4.0), render_card_png(card_id, 4.0, "art"))
    card = cat.card(card_id)
    if faces.field_of(card, "art") is None:       # playing cards and jokers stay white either way
        for design in faces.FACES:
            assert (_strip(card_id, design) >= 250).mean() == pytest.approx(CARD_INDEX_WHITE[card_id], abs=0.004)
        return
    for design in faces.FACES:
        ground = round(255 * luma(faces.field_of(card, design)))
        strip = _strip(card_id, design)
        at = int(strip[strip.shape[0] // 2, 1])     # the field's left end, beside the marker's white corner
        assert abs(at - ground) <= 3, (card_id, design, at, ground)
        # white left: the lettering on a full field, nations' white boxes (e1ebed5's white strips: 73–83 %)
        assert (strip >= 250).mean() < 0.5, f"{card_id}: {design} leaves its strip {(strip >= 250).mean():.0%} white"
    assert luma(faces.field_of(card, "art")) == luma(faces.field_of(card, "plain"))
    assert luma(faces.field_of(card, "plain")) >= PALE_LUMA > luma(faces.field_of(card, "colour")) + 0.2
    # the art is there on the games' cards (tokens have none): the strip right of ART_X0 is not the plain one
    from printables.art import ART_X0
    right = slice(round((ART_X0 - faces.FIELD[0]) * 4), None)
    changed = (np.abs(_strip(card_id, "art")[:, right].astype(int) - _strip(card_id, "plain")[:, right]) > 8).mean()
    assert changed > 0.15 if card.game in faces.ART_OF_GAME else changed == 0, (card_id, changed)


ARTS = [("W-R1", "wheel"), ("H-H4", "hills"), ("H-B6", "hills"), ("S-G10", "shield"), ("P-N3", "flag"),
        ("P-N11", "flag"), ("P-N6", "flag"), ("P-ERA2", "cross"), ("C04-9-2", "chain")]


@pytest.mark.parametrize("card_id, art", ARTS)
def test_art_stays_pale_and_clear_of_the_markers(card_id, art):
    """The game's art (``--faces art``) is drawn on the pale field alone (nothing else on the canvas),
    rendered at 8 px/mm: no pixel of it is darker than ART_LUMA (so the reading code's thresholds, the
    glare check and the screen rule see ground about as pale as the field), nothing of it lies left of
    ART_X0 (the marker finder's windows at 1.0 px/mm end there) nor outside the field, and it is
    there: its dark tone covers part of the field."""
    import io
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas
    from printables.art import ART_LUMA, ART_X0, art_form
    from printables.raster import render_page
    from printables.style import luma
    card = cat.card(card_id)
    assert faces.art_of(card, "art") == art and faces.art_of(card, "plain") is None
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(CW * mm, CH * mm))
    c.translate(0, CH * mm)
    c.scale(mm, -mm)
    c.setFillColor(faces.field_of(card, "art"))
    c.rect(*faces.FIELD[:2], faces.FIELD[2] - faces.FIELD[0], faces.FIELD[3] - faces.FIELD[1], stroke=0, fill=1)
    highlight = card.value if card.kind == "hill" else faces.nation_of(card)["name"] if card.kind == "nation" else 0
    c.doForm(art_form(c, art, faces.hue_of(card), faces.FIELD, 2.2, 45.0, highlight))
    c.showPage()
    c.save()
    ppm = 8.0
    grey = cv2.cvtColor(render_page(buf.getvalue(), px_per_mm=ppm), cv2.COLOR_BGR2GRAY).astype(int)
    field = round(255 * luma(faces.field_of(card, "art")))
    x0, y0, x1, y1 = (round(v * ppm) for v in faces.FIELD)
    inside = grey[y0 + 2:y1 - 2, x0 + 2:x1 - 2]
    assert inside.min() >= 255 * ART_LUMA - 3, f"{card_id}: art at grey {inside.min()}"
    left = grey[y0 + 2:y1 - 2, x0 + 2:round((ART_X0 - 0.2) * ppm)]
    assert np.abs(left - field).max() <= 2, f"{card_id}: art left of {ART_X0} mm"
    outside = grey.copy()
    outside[y0 - 1:y1 + 1, x0 - 1:x1 + 1] = 255     # the field and its anti-aliased edge
    assert outside.min() == 255, f"{card_id}: art outside the field"
    assert (inside <= 255 * ART_LUMA + 12).mean() > 0.03, f"{card_id}: no art's dark tone"


def test_each_nation_card_shows_its_own_flag():
    """Prussia's 14 nation cards (``--faces art``) each show their nation's flag (``art.FLAGS``) between
    the strength boxes, top and turned at the bottom: every colour of the flag, lightened to ART_LUMA
    (white as white), is printed there, and no two nations' flags look alike (``--faces plain``: the
    same pale field, no flag)."""
    from printables import render_card_png
    from printables.art import ART_LUMA, FLAG_MM, FLAGS
    from printables.style import field
    ppm, crops = 6.0, {}
    cx, cy = faces.FIELD[0] + 0.6 + 11 + (faces.FIELD[2] - faces.FIELD[0] - 1.2 - 22) / 2, \
        (faces.FIELD[1] + faces.FIELD[3]) / 2
    w, h = FLAG_MM
    for card in cat.cards_of("prussia", "nation"):
        nation = faces.nation_of(card)["name"]
        img = np.asarray(render_card_png(card.id, ppm)).astype(int)
        x0, x1, y0, y1 = (round(v * ppm) for v in (cx - w / 2 + 0.5, cx + w / 2 - 0.5, cy - h / 2 + 0.5, cy + h / 2 - 0.5))
        top, bottom = img[y0:y1, x0:x1], img[::-1, ::-1][y0:y1, x0:x1]
        plain = np.asarray(render_card_png(card.id, ppm, "plain")).astype(int)[y0:y1, x0:x1]
        for colour in FLAGS[nation][1]:
            rgb = field(colour, ART_LUMA)
            bgr = np.array([rgb.blue, rgb.green, rgb.red]) * 255
            for crop in (top, bottom):
                share = (np.abs(crop - bgr).max(axis=2) <= 6).mean()
                assert share > 0.04, f"{card.id} ({nation}): {colour} covers {share:.1%} of the flag"
            if colour != "#ffffff":     # the plain faces: the pale field and the rank, no flag
                assert (np.abs(plain - bgr).max(axis=2) <= 6).mean() < 0.01, f"{card.id}: plain shows {colour}"
        crops[card.id] = top
    assert len(crops) == 14
    for a, b in itertools.combinations(crops, 2):
        assert np.abs(crops[a] - crops[b]).max(axis=2).mean() > 12, f"{a} and {b}: flags alike"


def test_print_faces_option_reaches_the_pdf(tmp_path):
    """`companion print hills --faces colour` draws the full fields in the PDF, `--faces plain` the pale
    ones alone, the default the pale ones with the hills on them (its strip's ground, left of the art,
    is the pale field's; the hills make it darker on the right); an unknown design is refused with
    what to choose and writes nothing."""
    from printables.art import ART_X0
    paths = {design: tmp_path / f"{design}.pdf" for design in ("art", "plain", "colour")}
    assert main(["print", "hills", "--single", "--out", str(paths["art"])]) == 0
    for design in ("plain", "colour"):
        assert main(["print", "hills", "--single", "--faces", design, "--out", str(paths[design])]) == 0

    def strip(path: Path) -> np.ndarray:
        doc = pdfium.PdfDocument(str(path))
        ppm, bleed = 4.0, 3.0
        grey = doc[0].render(scale=ppm * 25.4 / 72, grayscale=True).to_numpy().squeeze()
        x0, y0, x1, y1 = (round((v + bleed) * ppm) for v in faces.FIELD)
        return grey[y0:y1, x0:x1].astype(int)

    from printables.style import luma
    card = cat.card("H-R1")       # the first page: the red 1's field, pale by default, full with colour
    left, right = slice(None, round((ART_X0 - faces.FIELD[0]) * 4)), slice(round((ART_X0 - faces.FIELD[0]) * 4), None)
    for design, path in paths.items():
        ground = np.median(strip(path)[:, left])
        assert abs(ground - 255 * luma(faces.field_of(card, design))) <= 3, (design, ground)
    assert strip(paths["art"])[:, right].mean() < strip(paths["plain"])[:, right].mean() - 8   # the hills
    from printables.sheets import PrintError, build
    with pytest.raises(PrintError, match="art or plain or colour"):
        build("hills", single=True, faces="pastel", out=tmp_path / "no.pdf")
    assert not (tmp_path / "no.pdf").exists()
