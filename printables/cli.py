"""``companion print``: write the PDFs, optionally hand them to the printer (CUPS ``lp``)."""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

from companion.i18n import N_, tr
from printables.faces import DEFAULT_FACES, FACES
from printables.fonts import FontMissing
from printables.press import CONFORMANCE, OUTPUT_CONDITION
from printables.sheets import (DEFAULT_BLEED_MM, ORDERS, PAPERS, PLAYERS, TARGETS, Printed, PrintError, build,
                               check, default_path)

ALL_ORDER = TARGETS


def register(subparsers) -> None:
    """Add the ``print`` command to the ``companion`` command line."""
    p = subparsers.add_parser(
        "print", help=tr("write print-ready PDFs of the decks, tokens, stickers and calibration sheet"),
        description=tr("Write print-ready PDFs: as many poker-size cards a page as fit with their bleed (A4: "
                       "8, Letter: 6 at the default 3 mm; 9 with no bleed), cut marks, backs for long-edge "
                       "duplex; or with --single one card a page for print services. Print at 100 % (actual "
                       "size)."))
    p.add_argument("game", metavar="GAME", choices=(*TARGETS, "all"),
                   help=tr("{targets}, or all", targets=", ".join(TARGETS)))
    p.add_argument("--players", type=int, metavar="N",
                   help=tr("spartacus: colour sets 3–5 (default 5); chains: Pairs decks 1–10 (default 5); "
                           "tokens: seat tokens 1–10 (default 10); stickers: Pairs decks to label 0–10 "
                           "(default 1); all: spartacus, chains and stickers (default 5)"))
    p.add_argument("--paper", choices=sorted(PAPERS), default="a4", help=tr("paper size (default a4)"))
    p.add_argument("--bleed", type=float, default=DEFAULT_BLEED_MM, metavar="MM",
                   help=tr("run each card's art MM beyond its cut line, on faces and backs (0–6, default "
                           "{DEFAULT_BLEED_MM:g}, what print shops ask for)", DEFAULT_BLEED_MM=DEFAULT_BLEED_MM))
    p.add_argument("--single", action="store_true",
                   help=tr("one card a page (card + bleed, TrimBox and BleedBox), face then back: for print "
                           "services; out/GAME-single.pdf"))
    p.add_argument("--order", choices=tuple(ORDERS), default="face-back",
                   help=tr("with --single: face-back (each card's face page, then its back: the default) or "
                           "back-face (its back page first, as some print services' uploads ask)"))
    p.add_argument("--for-service", action="store_true", dest="service",
                   help=tr("for a print service's press: CMYK only (black text, QR codes and markers 100 %% K, "
                           "at most 300 %% ink), output intent {condition}, {conformance}; out/GAME-cmyk.pdf "
                           "(with --single: out/GAME-single-cmyk.pdf)", condition=OUTPUT_CONDITION,
                           conformance=CONFORMANCE))
    p.add_argument("--faces", choices=tuple(FACES), default=DEFAULT_FACES,
                   help=tr("art (the default: pale index fields in the card's colour with the game's art on them: "
                           "a wheel, the seven hills, a shield, a cross (each nation's flag on Prussia's nation "
                           "cards), a chain; white around the codes), plain (the same pale fields without the art) or "
                           "colour (full colour fields in the card's colour; reads a little worse from a screen and "
                           "under glare, see docs/printables.md)"))
    p.add_argument("--out", metavar="FILE",
                   help=tr("the PDF to write (default out/GAME.pdf); for all, a folder (default out)"))
    p.add_argument("--send", action="store_true", help=tr("send the PDF to the printer with lp (CUPS)"))
    p.add_argument("--printer", metavar="NAME", help=tr("with --send: the CUPS printer (default: lp's)"))
    p.set_defaults(func=run)


def _jobs(args: argparse.Namespace) -> list[tuple[str, int | None, Path]]:
    """(target, players, path) of every PDF to write; raises PrintError on bad options."""
    if args.printer and not args.send:
        raise PrintError(N_("--printer needs --send (to print now), or leave it out"))
    if args.single and args.send:
        raise PrintError(N_("--single is for print services; to print at home leave it out (with --send)"))
    if args.service and args.send:
        raise PrintError(N_("--for-service writes CMYK for a print service's press; to print at home leave it "
                            "out (with --send)"))
    if args.game != "all":
        path = Path(args.out) if args.out else default_path(args.game, args.single, args.service)
        if args.out and path.is_dir():
            path = path / default_path(args.game, args.single, args.service).name
        return [(args.game, args.players, path)]
    folder = Path(args.out) if args.out else Path("out")
    if folder.suffix.lower() == ".pdf":
        raise PrintError(N_("--out {folder}: `print all` writes several PDFs, give a folder"), folder=folder)
    if folder.exists() and not folder.is_dir():
        raise PrintError(N_("--out {folder}: a file of that name is there; `print all` writes several PDFs, "
                            "give a folder"), folder=folder)
    n = 5 if args.players is None else args.players
    if not 1 <= n <= 10:
        raise PrintError(N_("print all prints for 1–10 players: --players {n} is out of range"), n=n)
    counts = {"spartacus": min(max(n, PLAYERS["spartacus"][0]), PLAYERS["spartacus"][1]),
              "chains": n, "stickers": n}
    # labels are sheets you print yourself: not one a page, not for a press
    targets = [t for t in ALL_ORDER if not ((args.single or args.service) and t == "stickers")]
    return [(t, counts.get(t), folder / default_path(t, args.single, args.service).name) for t in targets]


def _send(printed: Printed, paper: str, printer: str | None) -> bool:
    lp = shutil.which("lp")
    if lp is None:
        return False
    sides = "one-sided" if printed.target == "stickers" else "two-sided-long-edge"
    cmd = [lp, "-o", f"sides={sides}", "-o", "print-scaling=none", "-o", "fit-to-page=false",
           "-o", f"media={'A4' if paper == 'a4' else 'Letter'}", "-t", f"Table Companion {printed.target}"]
    if printer:
        cmd += ["-d", printer]
    done = subprocess.run(cmd + [str(printed.path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise PrintError(N_("lp could not print {path}: {why}"), path=printed.path,
                         why=done.stderr.strip() or done.stdout.strip())
    print(tr("sent to the printer: {job}", job=done.stdout.strip()))
    return True


def run(args: argparse.Namespace) -> int:
    """Write the requested PDFs (and send them); exit status 2 on bad options, 1 if lp is missing."""
    try:
        jobs = _jobs(args)
        # check every option of every job before writing anything
        for target, players, path in jobs:
            check(target, players=players, paper=args.paper, bleed=args.bleed, out=path, single=args.single,
                  order=args.order, service=args.service, faces=args.faces)
        written: list[Printed] = []
        start = time.perf_counter()
        for i, (target, players, path) in enumerate(jobs, 1):
            t0 = time.perf_counter()
            printed = build(target, players=players, paper=args.paper, bleed=args.bleed, out=path,
                            single=args.single, order=args.order, service=args.service, faces=args.faces)
            written.append(printed)
            took = time.perf_counter() - t0
            prefix = f"[{i}/{len(jobs)}] " if len(jobs) > 1 else ""
            print(f"{prefix}{printed.summary()} ({took:.1f} s)", flush=True)
        if len(written) > 1:
            size = sum(p.path.stat().st_size for p in written)
            print(tr("all: {cards} cards and labels, {pages} pages, {mb:.1f} MB in {seconds:.1f} s",
                     cards=sum(p.cards for p in written), pages=sum(p.pages for p in written), mb=size / 1e6,
                     seconds=time.perf_counter() - start))
        if args.send:
            for printed in written:
                if not _send(printed, args.paper, args.printer):
                    print(tr("companion print: cannot send: the CUPS command `lp` is missing. Install it "
                             "with `sudo apt-get install cups-client` (and set up a printer), or print the "
                             "PDF yourself at 100 % (actual size), double-sided, flip on long edge."),
                          file=sys.stderr)
                    return 1
    except (PrintError, FontMissing) as err:
        print(tr("companion print: {err}", err=err), file=sys.stderr)
        return 2
    return 0
