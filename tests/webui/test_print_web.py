"""The host's Print page: Flask's test client for the form, the preview and the download (real
PDFs, rasterised by pypdfium2 and read back by OpenCV), then once in a real headless Chromium."""
from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion import catalogue as cat
from tests.web_helpers import make_app

REMOTE = {"REMOTE_ADDR": "192.168.1.23"}
"""A phone on the LAN: not the host's machine."""


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return make_app(tmp_path_factory.mktemp("print-web")).test_client()


def _markers(png: bytes) -> list[str]:
    """The card ids whose ArUco markers read on a preview image."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000))
    _, ids, _ = detector.detectMarkers(image)
    return [] if ids is None else [cat.by_marker(int(i)).id for i in ids.ravel()]


def _pages(pdfinfo: str) -> int:
    """The page count in poppler's ``pdfinfo`` output."""
    return int(re.search(r"^Pages:\s+(\d+)$", pdfinfo, re.M).group(1))


def test_the_form_speaks_both_languages_and_the_host_page_links_to_it(client):
    en = client.get("/print?lang=en").get_data(as_text=True)
    ja = client.get("/print?lang=ja").get_data(as_text=True)
    assert "Print the cards" in en and "Bleed (mm)" in en and "Wheel of History" in en
    assert "カードを印刷" in ja and "裁ち落とし(mm)" in ja and "輪る七年戦争" in ja and "Bleed (mm)" not in ja
    assert 'value="3"' in en                     # the default bleed is the print shops' 3 mm
    assert 'id="print-link"' in client.get("/host?lang=en").get_data(as_text=True)


def test_the_print_page_leads_back_and_names_what_it_prints(client):
    """Issue 23, point 10: a way back to the host's start page, and the tokens and stickers named
    for what they are (the calibration sheet's K-CAL markers are with the tokens)."""
    for lang, words in (("en", ("New table", "Seat tokens and calibration sheet (K-CAL)", "Stickers for Pairs decks")),
                        ("ja", ("新しいテーブル", "席トークンと較正シート(K-CAL)", "ペアーズのデッキ用ステッカー"))):
        page = client.get(f"/print?lang={lang}").get_data(as_text=True)
        back = re.search(r'<a href="([^"]+)" id="print-back">([^<]+)</a>', page)
        assert back and back.group(1).startswith("/host?") and words[0] in back.group(2)
        assert all(w in page for w in words[1:]), lang


def test_preview_shows_the_first_sheet_and_the_download_is_that_pdf(client, tmp_path):
    page = client.get("/print?game=hills&paper=letter&bleed=3&lang=en").get_data(as_text=True)
    assert "27 cards, 10 pages: 6 a sheet, 3 mm bleed" in page
    front = client.get("/print/preview.png?game=hills&paper=letter&bleed=3&page=1")
    back = client.get("/print/preview.png?game=hills&paper=letter&bleed=3&page=2")
    assert front.mimetype == back.mimetype == "image/png"
    image = cv2.imdecode(np.frombuffer(front.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[1] == 640 and abs(image.shape[0] / 640 - 279.4 / 215.9) < 0.01   # a Letter page
    # the preview is the real sheet: the first six Hills cards' markers read on it, twice each
    assert sorted(_markers(front.data)) == sorted(2 * [c.id for c in cat.cards_of("hills")[:6]])
    assert set(_markers(back.data)) == {"B-HILLR"}
    pdf = client.get("/print/pdf?game=hills&paper=letter&bleed=3")
    assert pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")
    assert "attachment" in pdf.headers["Content-Disposition"]
    assert "hills-letter-bleed3mm.pdf" in pdf.headers["Content-Disposition"]
    path = tmp_path / "hills.pdf"
    path.write_bytes(pdf.data)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    assert _pages(info) == 10 and "612 x 792 pts (letter)" in info


def test_single_cards_and_counts_reach_the_pdf(client, tmp_path):
    page = client.get("/print?game=chains&count=2&single=1&bleed=3&lang=ja").get_data(as_text=True)
    assert "110枚、220ページ: 1ページ1枚(表・裏の順)、裁ち落とし3 mm" in page
    pdf = client.get("/print/pdf?game=chains&count=2&single=1&bleed=3")
    path = tmp_path / "chains.pdf"
    path.write_bytes(pdf.data)
    boxes = subprocess.run(["pdfinfo", "-box", str(path)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"TrimBox:\s+8\.50\s+8\.50\s+187\.09\s+257\.95", boxes)


def _same_pdf(a: bytes, b: bytes) -> bool:
    """Two PDFs equal but for when they were written (ReportLab's dates and the trailer's /ID)."""
    def plain(pdf: bytes) -> bytes:
        pdf = re.sub(rb"D:\d{14}[^)]*", b"D:", pdf)
        return re.sub(rb"/ID\s*\[<[0-9a-f]+><[0-9a-f]+>\]", b"/ID[]", pdf)
    return plain(a) == plain(b)


@pytest.mark.parametrize("query, argv, name, en, ja", [
    ("game=hills&single=1&order=back-face&service=1", ["hills", "--single", "--order", "back-face", "--for-service"],
     "hills-single-backfirst-cmyk-bleed3mm.pdf",
     "27 cards, 54 pages: one card a page, back then face, 3 mm bleed; CMYK for a print service's press (PDF/X-1a:2003)",
     "27枚、54ページ: 1ページ1枚(裏・表の順)、裁ち落とし3 mm。印刷サービスの印刷機向けCMYK(PDF/X-1a:2003)"),
    ("game=wheel&service=1&paper=letter", ["wheel", "--for-service", "--paper", "letter"],
     "wheel-letter-cmyk-bleed3mm.pdf", "; CMYK for a print service's press", "。印刷サービスの印刷機向けCMYK"),
])
def test_print_service_and_page_order_give_the_pdf_the_cli_writes(client, tmp_path, query, argv, name, en, ja):
    """Issue 21: the page offers `--for-service` (CMYK, PDF/X-1a) and `--order back-face`; the PDF it
    serves is the very file `companion print` writes with those options (but for its date and /ID)."""
    from companion.cli import main
    assert en in html.unescape(client.get(f"/print?{query}&lang=en").get_data(as_text=True))
    assert ja in client.get(f"/print?{query}&lang=ja").get_data(as_text=True)
    served = client.get(f"/print/pdf?{query}")
    assert served.status_code == 200 and name in served.headers["Content-Disposition"]
    out = tmp_path / "cli.pdf"
    assert main(["print", *argv, "--out", str(out)]) == 0
    assert _same_pdf(served.data, out.read_bytes())
    assert b"/GTS_PDFX" in served.data and b"/DeviceRGB" not in served.data


def test_card_faces_are_the_games_art_unless_the_host_picks_another(client, tmp_path):
    """Issue 21: the form offers the faces (the game's art ticked by default, plain and colour fields;
    EN/JA); colour fields give the very PDF `companion print --faces colour` writes, and the default
    the one without the option."""
    from companion.cli import main
    page = html.unescape(client.get("/print?game=hills&lang=en").get_data(as_text=True))
    assert 'name="faces" value="art" checked' in page and "Colour fields in the card's colour" in page
    assert 'name="faces" value="plain"' in page and "The game's art on pale fields" in page
    ja = client.get("/print?game=hills&lang=ja").get_data(as_text=True)
    assert "カードの色の色面" in ja and "ゲームの絵" in ja
    for query, argv in (("game=hills&single=1&faces=colour", ["--faces", "colour"]), ("game=hills&single=1", [])):
        served = client.get(f"/print/pdf?{query}")
        assert served.status_code == 200
        assert ("-colour-" in served.headers["Content-Disposition"]) == bool(argv)
        out = tmp_path / f"cli{len(argv)}.pdf"
        assert main(["print", "hills", "--single", *argv, "--out", str(out)]) == 0
        assert _same_pdf(served.data, out.read_bytes())
    assert not _same_pdf(out.read_bytes(), (tmp_path / "cli2.pdf").read_bytes())


@pytest.mark.parametrize("query, en, ja", [
    ("game=poker", "Choose one of the listed things to print.", "一覧から印刷するものを選んでください。"),
    ("game=wheel&paper=a3", "Choose A4 or Letter paper.", "用紙はA4かレターを選んでください。"),
    ("game=wheel&bleed=7", "from 0 to 6 (3 is usual)", "0〜6 mmの数"),
    ("game=wheel&bleed=lots", "from 0 to 6 (3 is usual)", "0〜6 mmの数"),
    ("game=chains&count=11", "Chains Pairs decks: give a number from 1 to 10.", "1〜10の数"),
    ("game=spartacus&count=two", "Spartacus colour sets: give a number from 3 to 5.", "3〜5の数"),
    ("game=stickers&single=1", "Stickers are label sheets", "ステッカーはラベル用紙です"),
    ("game=stickers&service=1", "Stickers are label sheets you print yourself", "ステッカーは自分で印刷するラベル用紙"),
    ("game=wheel&order=back-face", "Back then face is an order for “one card a page”", "「裏・表の順」は「1ページ1枚」用"),
    ("game=wheel&single=1&order=sideways", "Choose the page order", "ページ順は「表・裏の順」か"),
    ("game=wheel&faces=pastel", "Choose the card faces: art, plain or colour fields.", "カードの表面を選んでください"),
])
def test_bad_choices_say_what_to_do_in_both_languages_and_build_nothing(tmp_path, query, en, ja):
    app = make_app(tmp_path)
    client = app.test_client()
    for lang, words in (("en", en), ("ja", ja)):
        r = client.get(f"/print?{query}&lang={lang}")
        assert r.status_code == 400 and words in r.get_data(as_text=True)
        r = client.get(f"/print/pdf?{query}&lang={lang}")
        assert r.status_code == 400 and words in r.get_data(as_text=True)
    folder = app.extensions.get("print_dir")
    assert folder is None or list(Path(folder).iterdir()) == []


def test_a_refused_choice_keeps_what_the_host_typed(client):
    """The message names the host's choice; the form under it shows that choice (it showed the
    default, Wheel of History, under "Chains Pairs decks: give a number from 1 to 10")."""
    html = client.get("/print?game=chains&count=11&paper=letter&bleed=2&lang=ja").get_data(as_text=True)
    assert "1〜10の数" in html
    assert re.search(r'<option value="chains" selected>', html)
    assert re.search(r'id="print-count"[^>]*value="11"', html, re.S)
    assert re.search(r'value="letter" checked', html) and re.search(r'id="print-bleed"[^>]*value="2"', html, re.S)
    html = client.get("/print?game=stickers&single=1&lang=en").get_data(as_text=True)
    assert '<option value="stickers" selected>' in html and re.search(r'id="print-single"[^>]*checked', html)


def test_only_the_host_prints(client):
    for url in ("/print", "/print?game=wheel", "/print/pdf?game=wheel", "/print/preview.png?game=wheel"):
        r = client.get(url + ("&" if "?" in url else "?") + "lang=en", environ_base=REMOTE)
        assert r.status_code == 403 and "Printing is the host's" in html.unescape(r.get_data(as_text=True))


@pytest.mark.browser
def test_the_host_prints_from_the_host_page_in_chromium(tmp_path, chromium):
    from tests.webui.test_web_browser import SHOTS
    from webui.core.server import RunningServer
    app = make_app(tmp_path)
    with RunningServer(app) as server:
        context = chromium.new_context(viewport={"width": 1100, "height": 900}, accept_downloads=True)
        try:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url + "/host?lang=ja")
            page.click("#print-link")
            page.wait_for_selector("#print-form")
            assert "カードを印刷" in page.inner_text("h1")
            page.select_option("#print-game", "spartacus")
            page.fill("#print-count", "3")
            page.check("input[name=paper][value=letter]")
            page.click("#print-preview")
            page.wait_for_selector("#print-summary")
            assert page.inner_text("#print-summary") == "33枚、12ページ: 1枚に6枚、裁ち落とし3 mm"
            page.wait_for_function("[...document.querySelectorAll('img.print-sheet')]"
                                   ".every(i => i.complete && i.naturalWidth === 640)")
            assert page.locator("figcaption").all_inner_texts() == ["1枚目の表", "1枚目の裏"]   # was "print_back"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "print-ja.png"), full_page=True)
            with page.expect_download() as download:
                page.click("#print-download")
            saved = tmp_path / download.value.suggested_filename
            download.value.save_as(saved)
            assert saved.name == "spartacus-3-letter-bleed3mm.pdf"
            info = subprocess.run(["pdfinfo", str(saved)], capture_output=True, text=True, check=True).stdout
            assert _pages(info) == 12
            # for a print service: one card a page, backs first, CMYK (issue 21)
            page.check("#print-single")
            page.check("input[name=order][value=back-face]")
            page.check("#print-service")
            page.click("#print-preview")
            page.wait_for_selector("#print-summary")
            assert page.inner_text("#print-summary") == ("33枚、66ページ: 1ページ1枚(裏・表の順)、裁ち落とし3 mm。"
                                                         "印刷サービスの印刷機向けCMYK(PDF/X-1a:2003)")
            assert page.is_checked("input[name=order][value=back-face]") and page.is_checked("#print-service")
            with page.expect_download() as download:
                page.click("#print-download")
            assert download.value.suggested_filename == "spartacus-3-single-backfirst-cmyk-bleed3mm.pdf"
            assert errors == []
        finally:
            context.close()
