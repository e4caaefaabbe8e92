"""``companion serve``: the phone web UI for the table (and a demo that needs no camera)."""
from __future__ import annotations

import argparse
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.games import GAME_IDS, game_class
from companion.i18n import tr

DEFAULT_PORT = 8000


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("10.255.255.255", 1))
            return sock.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def print_qr(url: str, out: Any = None) -> None:
    """The URL as a QR code drawn with text characters (scan it from the terminal)."""
    import qrcode
    qr = qrcode.QRCode(border=1)
    qr.add_data(url)
    qr.print_ascii(out=out or sys.stdout, invert=True)


def _serve(args: argparse.Namespace) -> int:
    from tablesim.demo import DemoDriver, demo_table   # the one webui module that reaches the simulated table
    from webui import create_app
    from webui.camera.camera import CameraFeed, cameras, vision_available
    from webui.core.server import RunningServer

    watching = args.camera is not None or bool(args.video) or bool(args.images)
    if watching and not vision_available():
        print(tr("companion serve: the camera pipeline (vision/) is not available in this build; use --demo "
                 "GAME to see the companion working, or serve without a camera and tap moves in."), file=sys.stderr)
        return 2
    if watching and not args.game:
        print(tr("companion serve: with --camera, --video or --images, say which game is on the table: "
                 "--game GAME --players N."), file=sys.stderr)
        return 2
    if not watching and (args.game or args.players is not None):   # else silently ignored (./run demo --players 3)
        print(tr("companion serve: --game and --players are for a camera source (--camera, --video, --images); "
                 "a demo plays its own table, and without a camera the host page creates the table."), file=sys.stderr)
        return 2
    host = "0.0.0.0" if args.lan else "127.0.0.1"
    public_host = lan_address() if args.lan else "127.0.0.1"
    scheme = "https" if args.https else "http"
    tls = None
    if args.https:
        try:
            from webui.core.tls import certificate
            tls = certificate([public_host])
        except (ImportError, OSError) as err:
            print(tr("companion serve: cannot make the HTTPS certificate ({err}); install the 'cryptography' "
                     "package, or serve without --https.", err=err), file=sys.stderr)
            return 2
    config: dict[str, Any] = {"PUBLIC_URL": f"{scheme}://{public_host}:{args.port}"}
    demo_dir = None
    if args.db:
        config["DB"] = args.db
    elif args.demo:   # a demo's games are nobody's: they never enter the user's own history
        demo_dir = tempfile.TemporaryDirectory(prefix="companion-demo-")
        config["DB"] = str(Path(demo_dir.name) / "demo.db")
        print(tr("Demo database (deleted when the demo stops): {db}", db=config["DB"]))
    app = create_app(config)
    from webui.core.warm import keep_compiled_templates, warm_up
    keep_compiled_templates(app)
    warm_up(app)   # the host's and a table's pages and the game engines, before the server answers
    tables = app.extensions["tables"]
    try:
        server = RunningServer(app, host, args.port, tls=tls)
    except OSError as err:
        print(tr("companion serve: cannot listen on port {port} ({strerror}); choose another with --port.", port=args.port, strerror=err.strerror or err), file=sys.stderr)
        return 2
    base = app.config["PUBLIC_URL"] = f"{scheme}://{public_host}:{server.port}"
    driver: Any = None
    url = f"{base}/"
    if watching:
        cls = game_class(args.game)
        players = args.players or cls.min_players
        s = tables.create(args.game, players, names=[f"P{i + 1}" for i in range(players)],
                          options={})
        try:
            driver = CameraFeed(tables, s.id, camera=args.camera, video=args.video,
                                images=args.images)
        except ValueError as err:   # vision.frame.sources.SourceError: no such camera or file
            print(tr("companion serve: {err}", err=err), file=sys.stderr)
            return 2
        app.config["FRAME_SOURCE"] = driver.frame
        cameras(app).attach(s.id, driver)
        driver.start()
        url = f"{base}/join?code={s.code}"
        what = f"camera {args.camera}" if args.camera is not None else (args.video or args.images)
        print(tr("Watching {what} for a {title} game at table {code}.", what=what, title=s.game.title, code=s.code))
        # no token on the terminal (scrollback, screen sharing): this computer opens the host page
        # without one and gets the host's cookie
        print(tr("Host screen (open it on this computer): http://127.0.0.1:{port}/host/{id}", port=server.port, id=s.id))
    if args.demo:
        s = demo_table(tables, args.demo)
        url = f"{base}/join?code={s.code}"
        driver = DemoDriver(tables, s.id, interval=args.interval).start()
        if vision_available():   # show the table as the camera would see it, read by the pipeline
            from tablesim.demo import DemoCamera
            try:
                camera = DemoCamera(tables, s.id)
            except Exception as err:   # no renderer for this game yet: the demo runs without
                print(tr("(no synthetic camera view: {err})", err=err))
            else:
                app.config["FRAME_SOURCE"] = camera.frame
                cameras(app).attach(s.id, camera)
                camera.start()
        print(tr("Demo: a simulated {title} game is being played at table {code}.", title=s.game.title, code=s.code))
        # no token on the terminal (scrollback, screen sharing): this computer opens the host page
        # without one and gets the host's cookie
        print(tr("Host screen (open it on this computer): http://127.0.0.1:{port}/host/{id}", port=server.port, id=s.id))
    print(tr("Table Companion is serving at {base}/  (database: {DB})", base=base, DB=app.config['DB']))
    if not (watching or args.demo):   # no table yet: the host creates one on the host page
        print(tr("Host page (create a table, then show its join code): {base}/host", base=base))
    print(tr("Phones join at: {url}", url=url))
    print_qr(url)
    if args.lan:   # the play history is the owner's: this computer, or the one browser it pairs
        from webui.core.owner import pairing
        print(f"The play history is yours: this computer opens {base}/history; to open it on your "
              f"own phone too, open this link there once (it then stops working): "
              f"{base}/owner?code={pairing(app).new()}")
    if not args.lan:
        print(tr("Only this computer can connect; start with --lan to let phones on your network join."))
    if tls:
        print_https_note(tls[0])
    elif args.lan:
        print(tr("A phone can be the table's camera (the host page's \"Use a phone as the camera\") only over "
                 "HTTPS: start with --lan --https."))
    try:
        server.start()
        # a service manager's stop ends it as Ctrl+C does; only once the server runs: raised in
        # the middle of starting its threads it could leave a lock held and the stop would hang
        signal.signal(signal.SIGTERM, _stop_on_term)
        print(tr("Press Ctrl+C to stop."))
        while True:
            # short sleeps: a SIGTERM the kernel hands to another thread only sets Python's flag,
            # and its handler runs when the main thread wakes (a 3600 s sleep kept a stopped demo
            # running for good once, under load)
            time.sleep(0.5)
    except KeyboardInterrupt:
        print(tr("\nStopping."))
    finally:
        if driver:
            driver.stop()
        server.stop()
        if demo_dir:
            demo_dir.cleanup()
    return 0


def _stop_on_term(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def print_https_note(cert_path: Any) -> None:
    """Explain the browser's one-time warning about the self-signed certificate."""
    from webui.core.tls import fingerprint
    print(tr("HTTPS with this computer's own certificate ({cert_path}).", cert_path=cert_path))
    print(tr("Each phone warns once that the connection is not private (no public authority signed it); "
             "accept it once:"))
    print(tr("  Android Chrome: Advanced → Proceed to … (unsafe).   iPhone Safari: Show Details → visit this "
             "website → Visit Website."))
    print(tr("  Firefox: Advanced… → Accept the Risk and Continue."))
    print(tr("  The warning shows the certificate; its SHA-256 fingerprint is {fingerprint}",
             fingerprint=fingerprint(cert_path)))


def _port(text: str) -> int:
    """A TCP port from the command line: 0 (any free one) to 65535, else argparse's error says so."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(tr("a port is a number from 0 to 65535 (0 picks a free one), got {text!r}",
                                            text=text))
    return port


def register(subparsers: Any) -> None:
    """Add ``companion serve``."""
    p = subparsers.add_parser("serve", help=tr("the phone web UI: live scores, prompts, tapped moves"))
    p.add_argument("--lan", action="store_true", help=tr("listen on the local network (default: this "
                                                         "computer only)"))
    p.add_argument("--port", type=_port, default=DEFAULT_PORT,
                   help=tr("port (default {port}; 0 picks a free one)", port=DEFAULT_PORT))
    p.add_argument("--https", action="store_true", help=tr("serve over HTTPS with a self-signed certificate "
                                                           "kept in your data directory (a phone's camera "
                                                           "page needs it off this computer; each browser "
                                                           "warns once)"))
    p.add_argument("--db", help=tr("SQLite file for the table sessions (default: your user data directory; "
                                   "with --demo a throw-away file)"))
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", metavar="N|DEVICE|FILE",
                     help=tr("watch the table with camera N (or a device such as /dev/video2, or a video file)"))
    src.add_argument("--video", metavar="FILE", help=tr("watch a recorded video of the table"))
    src.add_argument("--images", metavar="FOLDER", help=tr("watch a folder of table photos, in name order"))
    src.add_argument("--demo", choices=GAME_IDS, metavar="GAME",
                     help=tr("play a simulated game with no camera ({games})", games=", ".join(GAME_IDS)))
    p.add_argument("--interval", type=float, default=1.5, help=tr("demo: seconds between moves"))
    p.add_argument("--game", choices=GAME_IDS, help=tr("with a camera source: the game on the table"))
    p.add_argument("--players", type=int, help=tr("with a camera source: number of players"))
    p.set_defaults(func=_serve)
