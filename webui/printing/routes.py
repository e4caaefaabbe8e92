"""The host's Print page: choose what to print (a game's decks, tokens or stickers), how many decks,
the paper and the bleed, one card a page (its page order) and the print service's CMYK, see the first sheet (front and back, rasterised with pypdfium2) and
download the PDF that ``companion print`` would write.

Only the host may use it (like the History page): building a PDF takes seconds of CPU, and the
players' phones have no need for it. PDFs are built once per choice into a folder of this app.
"""
from __future__ import annotations

import functools
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from flask import Blueprint, Response, current_app, render_template, request, send_file

from printables.faces import DEFAULT_FACES, FACES
from printables.fonts import FontMissing
from printables.press import CONFORMANCE
from printables.sheets import (DEFAULT_BLEED_MM, MAX_BLEED_MM, ORDERS, PAPERS, PLAYERS, TARGETS, TITLES,
                               SheetLayout, build, players_for)
from webui.core.common import fail, lang, whole_number
from webui.core.owner import is_owner
from webui.core.i18n import N_, both, nt, pick, t

bp = Blueprint("printing", __name__, template_folder="templates")

PREVIEW_PX = 640
"""Width of a preview image: a sheet's detail shows on a laptop, and a phone scales it down."""

COUNT_WHAT = {"spartacus": both("Spartacus colour sets"),
              "chains": both("Chains Pairs decks"),
              "tokens": both("seat tokens"), "stickers": both("Pairs decks to label")}


class Refused(ValueError):
    """A choice the page cannot print: ``str(err)`` is the English message, ``ja`` the Japanese."""

    def __init__(self, msgid: str, **values: Any) -> None:
        """The message ``msgid`` filled with ``values`` (a ``Text`` value gives each language its words)."""
        super().__init__(t(msgid, "en", **values))
        self.ja = t(msgid, "ja", **values)


@dataclass(frozen=True)
class Choice:
    """What the host chose: one target's PDF, as ``companion print`` would write it."""

    target: str = "wheel"
    players: int | None = None
    paper: str = "a4"
    bleed: float = DEFAULT_BLEED_MM
    single: bool = False
    order: str = "face-back"    # --single's page order (``printables.sheets.ORDERS``)
    service: bool = False       # --for-service: CMYK, PDF/X-1a for a print service's press
    faces: str = DEFAULT_FACES  # --faces: pale fields with the game's art (the default), pale alone, or full colour fields (``printables.faces.FACES``)

    @property
    def query(self) -> dict[str, Any]:
        """The choice as URL parameters."""
        q: dict[str, Any] = {"game": self.target, "paper": self.paper, "bleed": f"{self.bleed:g}"}
        if self.players is not None:
            q["count"] = self.players
        if self.single:
            q["single"] = "1"
        if self.order != "face-back":
            q["order"] = self.order
        if self.service:
            q["service"] = "1"
        if self.faces != DEFAULT_FACES:
            q["faces"] = self.faces
        return q

    @property
    def filename(self) -> str:
        """The download's name, which says what is in it."""
        count = "" if self.players is None else f"-{self.players}"
        kind = "-single" if self.single else f"-{self.paper}"
        order = "-backfirst" if self.order == "back-face" else ""
        faces = "" if self.faces == DEFAULT_FACES else f"-{self.faces}"
        return f"{self.target}{count}{kind}{order}{faces}{'-cmyk' if self.service else ''}-bleed{self.bleed:g}mm.pdf"


def target_title(target: str, language: str) -> str:
    """A target's name in the page language (``TITLES`` holds both, English first)."""
    en, _, ja = TITLES[target].partition(" · ")
    return ja if language == "ja" and ja else en


def choice_from(args: Any) -> Choice:
    """Read and check the form's parameters; Refused says what to change."""
    target = args.get("game", "wheel")
    if target not in TARGETS:
        raise Refused(N_("Choose one of the listed things to print."))
    paper = args.get("paper", "a4")
    if paper not in PAPERS:
        raise Refused(N_("Choose A4 or Letter paper."))
    try:
        bleed = float(args.get("bleed", DEFAULT_BLEED_MM))
        SheetLayout(paper, bleed)
    except ValueError:   # not a number, or PrintError: out of range
        raise Refused(N_("The bleed is a number of millimetres from 0 to {most} (3 is usual)."),
                      most=f"{MAX_BLEED_MM:g}") from None
    single = args.get("single") in ("1", "on", "true")
    if single and target == "stickers":
        raise Refused(N_("Stickers are label sheets: print them without “one card a page”."))
    service = args.get("service") in ("1", "on", "true")
    if service and target == "stickers":
        raise Refused(N_("Stickers are label sheets you print yourself: print them without “for a print service”."))
    order = args.get("order") or "face-back"
    if order not in ORDERS:
        raise Refused(N_("Choose the page order: face then back, or back then face."))
    if order != "face-back" and not single:
        raise Refused(N_("Back then face is an order for “one card a page”: tick it, or keep face then back "
                         "(sheets print each front page before its back page)."))
    faces = args.get("faces") or DEFAULT_FACES
    if faces not in FACES:
        raise Refused(N_("Choose the card faces: art, plain or colour fields."))
    players = None
    if target in PLAYERS:
        low, high, default = PLAYERS[target]
        text = (args.get("count") or "").strip()
        try:
            players = players_for(target, int(text) if text else default)
        except ValueError:
            raise Refused(N_("{what}: give a number from {low} to {high}."), what=COUNT_WHAT[target], low=low,
                          high=high) from None
    return Choice(target, players, paper, bleed, single, order, service, faces)


_building = threading.Lock()


def pdf_of(choice: Choice) -> tuple[Path, Any]:
    """The choice's PDF (built once, then reused) and what is in it."""
    folder = current_app.extensions.get("print_dir")
    if folder is None:
        folder = current_app.extensions["print_dir"] = Path(tempfile.mkdtemp(prefix="tc-print-"))
    path = folder / choice.filename
    with _building:   # one build at a time: two taps on Preview must not write the same file at once
        cache = current_app.extensions.setdefault("print_built", {})
        if choice not in cache or not path.exists():
            part = path.with_suffix(".part.pdf")
            cache[choice] = build(choice.target, players=choice.players, paper=choice.paper,
                                  bleed=choice.bleed, out=part, single=choice.single, order=choice.order,
                                  service=choice.service, faces=choice.faces)
            os.replace(part, path)
        return path, cache[choice]


def summary(choice: Choice, printed: Any, language: str) -> str:
    """One line: how many cards and pages, how they sit on the sheet."""
    if choice.target == "stickers":
        return nt("{cards} labels, {pages} sheet of labels", "{cards} labels, {pages} sheets of labels", printed.pages,
                  language, cards=printed.cards, pages=printed.pages)
    if not choice.single:
        said = N_("{cards} cards, {pages} pages: {per} a sheet, {bleed} mm bleed")
    elif choice.order == "back-face":
        said = N_("{cards} cards, {pages} pages: one card a page, back then face, {bleed} mm bleed")
    else:
        said = N_("{cards} cards, {pages} pages: one card a page, face then back, {bleed} mm bleed")
    line = t(said, language).format(cards=printed.cards, pages=printed.pages, bleed=f"{choice.bleed:g}",
                                    per=SheetLayout(choice.paper, choice.bleed).per_sheet)
    if choice.service:
        line += t("; CMYK for a print service's press ({conformance})", language, conformance=CONFORMANCE)
    return line


def typed(choice: Choice, args: Any = None) -> dict[str, str]:
    """The form's fields as the host filled them: ``choice``'s, or, after a refusal, what was typed
    (the message names the host's choice: the form must not show another one)."""
    form = {"game": choice.target, "count": "" if choice.players is None else str(choice.players),
            "paper": choice.paper, "bleed": f"{choice.bleed:g}", "single": "1" if choice.single else "",
            "order": choice.order, "service": "1" if choice.service else "", "faces": choice.faces}
    if args is not None:
        form.update({key: str(args.get(key, ""))[:20] for key in form if key in args})
        for box in ("single", "service"):
            form[box] = "1" if args.get(box) in ("1", "on", "true") else ""
    return form


def _page(choice: Choice, *, error: str | None = None, printed: Any = None, status: int = 200,
          form: dict[str, str] | None = None) -> Any:
    language = lang()
    targets = [(name, target_title(name, language)) for name in TARGETS]
    pages = 0 if printed is None else (1 if choice.target == "stickers" else 2)
    return render_template("print.html", lang=language, choice=choice, targets=targets, error=error,
                           form=form or typed(choice),
                           printed=printed, pages=pages, players=PLAYERS, papers=sorted(PAPERS), orders=ORDERS,
                           faces=FACES,
                           max_bleed=MAX_BLEED_MM,
                           line=summary(choice, printed, language) if printed else ""), status


def _refuse() -> Any:
    return render_template("index.html", lang=lang(), code="", error=t("Printing is the host's: open this page on the "
                                                                       "host's machine, or on the phone that created a "
                                                                       "table.", lang())), 403


def host_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse (403, in words) anyone but the owner (this computer or the browser it paired)."""
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return view(*args, **kwargs) if is_owner() else _refuse()
    return wrapped


def _chosen() -> tuple[Choice, Path, Any]:
    """The request's choice, its PDF and what is in it (Refused for a bad choice)."""
    choice = choice_from(request.args)
    path, printed = pdf_of(choice)
    return choice, path, printed


@bp.get("/print")
@host_only
def page() -> Any:
    """The form; with a choice in the URL, the preview of its first sheet and the download link."""
    if "game" not in request.args:
        return _page(Choice())
    try:
        choice, _, printed = _chosen()
    except Refused as err:
        return _page(Choice(), error=pick(str(err), err.ja, lang()), status=400,
                     form=typed(Choice(), request.args))
    except FontMissing:
        return _page(Choice(), error=t("The Japanese print font is missing on the host: install it with "
                                       "`sudo apt-get install fonts-ipaexfont-gothic`.", lang()), status=500)
    return _page(choice, printed=printed)


@bp.get("/print/pdf")
@host_only
def pdf() -> Any:
    """The chosen PDF, as a download."""
    try:
        choice, path, _ = _chosen()
    except Refused as err:
        fail(400, str(err), ja=err.ja)
    return send_file(path, mimetype="application/pdf", as_attachment=True, download_name=choice.filename)


@bp.get("/print/preview.png")
@host_only
def preview() -> Any:
    """Page ``page`` (1: the first sheet's front, 2: its back) of the chosen PDF as a PNG."""
    import cv2

    from printables.raster import render_page
    try:
        _, path, printed = _chosen()
    except Refused as err:
        fail(400, str(err), ja=err.ja)
    number = whole_number(request.args.get("page", "1"))
    last = min(2, printed.pages)
    if number is None or not 1 <= number <= last:
        fail(400, both("The preview has pages 1 to {last} (page=1: the front, page=2: the back).", last=last))
    image = render_page(path, number - 1, width_px=PREVIEW_PX)
    ok, png = cv2.imencode(".png", image)
    assert ok
    return Response(png.tobytes(), mimetype="image/png", headers={"Cache-Control": "max-age=3600"})
