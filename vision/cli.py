"""``companion watch``: read the real table from a webcam, a video or a folder of frames."""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import cv2

from companion.games import GAME_IDS, game_class
from companion.i18n import cli_lang, pick, tr
from vision.frame.sources import SourceError, frames
from vision.reading.detect import DECODERS, DETECTORS
from vision.table.calibrate import CalibrationLayout


def register(subparsers) -> None:
    """Add the ``watch`` command to the ``companion`` command line."""
    p = subparsers.add_parser(
        "watch", help=tr("watch the table through a camera (or a video / image folder) and print each stable "
                         "change of the layout"),
        description=tr("Recognise every card on the table and print the layout each time it changes and "
                       "stays still. Needs the four K-CAL markers in view."))
    p.add_argument("game", metavar="GAME", choices=GAME_IDS, help=", ".join(GAME_IDS))
    p.add_argument("--players", type=int, required=True, metavar="N", help=tr("number of players"))
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", metavar="N|DEVICE|FILE",
                     help=tr("webcam index (0 is the first), a device (/dev/video2) or a video file"))
    src.add_argument("--video", metavar="FILE", help=tr("a recorded video of the table"))
    src.add_argument("--images", metavar="DIR", help=tr("a folder of frames (read in name order)"))
    p.add_argument("--annotate", metavar="OUT", help=tr("write every frame, with what was recognised drawn "
                                                        "on it, into this folder"))
    p.add_argument("--sheet", action="store_true", help=tr("calibrate from the printed calibration sheet "
                                                           "(default: K-CAL1–4 in the corners of the game's "
                                                           "table plan)"))
    p.add_argument("--table", metavar="WxH", help=tr("the play area in mm with K-CAL1–4 in its corners, e.g. "
                                                     "1200x700"))
    p.add_argument("--decoder", choices=DECODERS, default="zxing", help=tr("QR decoder (default zxing)"))
    p.add_argument("--detector", choices=DETECTORS, default="quads",
                   help=tr("marker finder: quads (fast, default) or aruco (OpenCV's ArucoDetector, ~20x "
                           "slower)"))
    p.add_argument("--json", action="store_true", help=tr("one JSON observation per line"))
    p.add_argument("--verbose", action="store_true", help=tr("log what is ignored (foreign codes) and conflicts"))
    p.set_defaults(func=run)


def _layout(args: argparse.Namespace) -> CalibrationLayout | None:
    if args.sheet and args.table:
        raise SourceError("give --sheet or --table, not both")
    if args.sheet:
        return CalibrationLayout.sheet()
    if args.table:
        try:
            w, h = (float(x) for x in args.table.lower().split("x"))
            return CalibrationLayout.corners(w, h)
        except ValueError as err:
            raise SourceError(f"--table {args.table!r}: give width x height in mm, e.g. 1200x700 ({err})") from None
    return None


def run(args: argparse.Namespace) -> int:
    """Run ``companion watch``."""
    from vision.pipeline import Pipeline
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    cls = game_class(args.game)
    if not cls.min_players <= args.players <= cls.max_players:
        count, count_ja = cls.player_count()   # "2 players", not "2–2 players"
        print(tr("companion: {title} is for {count}, not {players}", title=pick(cls.title, cls.title_ja, cli_lang()),
                 count=pick(count, count_ja, cli_lang()), players=args.players), file=sys.stderr)
        return 2
    try:
        layout = _layout(args)
        stream = frames(camera=args.camera, video=args.video, images=args.images)
    except SourceError as err:
        print(tr("companion: {err}", err=err), file=sys.stderr)
        return 2
    out = Path(args.annotate) if args.annotate else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    try:
        pipeline = Pipeline(args.game, args.players, layout=layout, decoder=args.decoder, detector=args.detector)
    except ValueError as err:       # e.g. no table plan for this many players: say so, give --table
        print(tr("companion: {err}; give the play area with --table WxH or use --sheet", err=err), file=sys.stderr)
        return 2
    changes = 0
    for frame in stream:
        observation = pipeline.step(frame)
        if out is not None:
            cv2.imwrite(str(out / f"frame{pipeline.frame_index:05d}.jpg"), pipeline.annotated())
        if observation is None:
            continue
        changes += 1
        if args.json:
            print(json.dumps({"frame": pipeline.frame_index, "observation": observation}, ensure_ascii=False))
        else:
            print(tr("frame {n}: {observation}", n=pipeline.frame_index,
                     observation=json.dumps(observation, ensure_ascii=False)))
        sys.stdout.flush()
    if pipeline.calibration is None:
        print(tr("companion: never calibrated: the K-CAL markers were not in view"), file=sys.stderr)
        return 1
    if not args.json:
        print(tr("{frames} frames, {changes} stable changes", frames=pipeline.frame_index + 1, changes=changes))
    return 0
