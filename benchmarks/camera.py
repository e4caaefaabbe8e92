"""``companion bench camera``: a phone as the table's camera, measured through a real server.

Frames of a dealt Wheel of History table are rendered from our printed cards (``tablesim.synthetic``,
a phone on a stand 65° above the table's near edge) and POSTed as a phone does it — one JPEG at a
time, the next after the answer — to a server on a real socket. Reported: how long a frame's POST
takes (the server decodes it and hands it to the pipeline), how many frames a second the pipeline
reads, how long until the session has applied the deal the frames show, and what the set-up check
and its picture cost. ``--new-sizes N`` (issue 20): N frames, each of a new size, from
``--clients`` phones at once, to one table: the server's resident memory and threads before and
after, and the pipelines still alive.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
import urllib.request
from typing import Any, Sequence

from companion.console import run_main

ANGLED_ELEVATION = 65.0
"""Degrees above the table of the benchmark's phone (its far side reads too small: a real case)."""


def dealt_wheel(count: int = 3, seed: int = 1, px_per_mm: float = 1.6,
                conditions: Any = None) -> tuple[list[Any], dict]:
    """``count`` BGR frames (1920 × 1080) of a three-player Wheel of History table just after the
    deal (25 cards in the circle), seen through ``conditions`` (default: a phone 65° above the near
    edge) at ``px_per_mm`` in the middle; and the engine layout they show."""
    from companion.engine import simulate
    from companion.games import new_game
    from tablesim import synthetic
    from vision.table import layouts
    conditions = conditions or synthetic.Conditions(elevation=ANGLED_ELEVATION)
    deal = simulate(new_game("wheel", 3, {}), seed).turns[0][0]
    after = new_game("wheel", 3, {})
    after.apply(deal)
    table = layouts.table_size("wheel", 3)
    placed = layouts.place("wheel", after.layout(), 3, random.Random(seed))
    cam = synthetic.Camera.looking_at(table, px_per_mm, seed, conditions=conditions)
    return [synthetic.render(cam, placed, i)[0] for i in range(count)], after.layout()


def jpeg(image: Any, quality: int = 90) -> bytes:
    """A frame as the phone page sends it (JPEG quality 0.9)."""
    import cv2
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered) * 1000, 1),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 1)}


def _wheel_table(folder: str) -> tuple[Any, Any, Any, str]:
    """The web app on a fresh database in ``folder``, its tables, a Wheel table and its host token."""
    from webui import create_app
    app = create_app({"DB": os.path.join(folder, "bench.db")})
    tables = app.extensions["tables"]
    s = tables.create("wheel", 3, names=["Ann", "Ben", "Chie"], options={})
    return app, tables, s, tables.host_token(s.id)


def run(frames: int = 30, interval: float = 0.3,
        table: tuple[list[bytes], dict] | None = None) -> dict[str, Any]:
    """Send ``frames`` frames, one every ``interval`` s at most (the phone page's pace), to a fresh
    server on a real socket; the figures as a dict. ``table``: the JPEG frames of a dealt Wheel of
    History table and its layout, if already rendered (default: ``dealt_wheel``)."""
    from webui.camera.camera import cameras
    from webui.core.server import RunningServer
    if table is None:
        images, shown = dealt_wheel()
        table = [jpeg(image) for image in images], shown
    bodies, shown = table
    load = [round(os.getloadavg()[0], 2)]
    with tempfile.TemporaryDirectory() as folder:
        app, tables, s, token = _wheel_table(folder)
        with RunningServer(app) as server:
            url = f"{server.url}/api/tables/{s.id}/camera/frame"
            posts: list[float] = []
            applied_after = None
            start = time.perf_counter()
            for n in range(frames):
                t0 = time.perf_counter()
                req = urllib.request.Request(url, data=bodies[n % len(bodies)], method="POST", headers={
                    "Content-Type": "image/jpeg", "X-Table-Token": token})
                with urllib.request.urlopen(req, timeout=30) as resp:
                    resp.read()
                posts.append(time.perf_counter() - t0)
                if applied_after is None and tables.get(s.id).version > 0:
                    applied_after = time.perf_counter() - start
                time.sleep(max(0.0, interval - (time.perf_counter() - t0)))
            elapsed = time.perf_counter() - start
            while applied_after is None and time.perf_counter() - start < elapsed + 20:
                if tables.get(s.id).version > 0:    # the pipeline still reading the last frames
                    applied_after = time.perf_counter() - start
                time.sleep(0.02)
            feed = cameras(app).get(s.id)
            read = feed.seen
            checks, pictures = [], []
            for _ in range(5):
                for path, times in (("check", checks), ("check.jpg", pictures)):
                    feed.checked = None          # measure the making, not the cache
                    t0 = time.perf_counter()
                    req = urllib.request.Request(f"{server.url}/api/tables/{s.id}/camera/{path}",
                                                 headers={"X-Table-Token": token})
                    with urllib.request.urlopen(req, timeout=30) as resp:
                        body = resp.read()
                    times.append(time.perf_counter() - t0)
                    if path == "check":
                        check = json.loads(body)
            from companion.engine import freeze
            same = freeze(tables.get(s.id).game.layout()) == freeze(shown)
    load.append(round(os.getloadavg()[0], 2))
    return {"frames_sent": frames, "frame_bytes": len(bodies[0]), "frame_size": [1920, 1080],
            "post_ms": _ms(posts), "sent_per_s": round(frames / elapsed, 2),
            "read_per_s": round(read / elapsed, 2), "frames_read": read,
            "deal_applied_after_s": None if applied_after is None else round(applied_after, 2),
            "deal_matches_frames": same, "check_ms": _ms(checks), "check_picture_ms": _ms(pictures),
            "check_next": check["next"]["key"], "lowest_px_per_mm": check["lowest_px_per_mm"],
            "highest_px_per_mm": check["highest_px_per_mm"], "load_average": load}


def _resident_mb() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmRSS"))


def new_sizes(count: int = 120, clients: int = 1) -> dict[str, Any]:
    """``count`` frames of a dealt table, each of a new size (4K down), POSTed by ``clients`` at
    once to one table of a server in this process: its memory and threads before and after."""
    import gc
    import threading
    import urllib.error
    import cv2
    from vision.pipeline import Pipeline
    from webui.camera.camera import cameras
    from webui.core.server import RunningServer
    base = dealt_wheel(count=1, seed=1)[0][0]
    load = [round(os.getloadavg()[0], 2)]
    with tempfile.TemporaryDirectory() as folder:
        app, tables, table, token = _wheel_table(folder)
        with RunningServer(app) as srv:
            before = {"rss_mb": _resident_mb(), "threads": len(os.listdir("/proc/self/task"))}
            answers: dict[int, int] = {}
            started = time.process_time()

            def send(k: int) -> None:
                for i in range(k, count, clients):
                    size = (3840 - 8 * i, 2160 - 4 * i)
                    data = jpeg(cv2.resize(base, size, interpolation=cv2.INTER_AREA))
                    req = urllib.request.Request(f"{srv.url}/api/tables/{table.id}/camera/frame", data=data,
                                                 method="POST", headers={"Content-Type": "image/jpeg",
                                                                         "X-Table-Token": token})
                    try:
                        with urllib.request.urlopen(req, timeout=120) as resp:
                            status = resp.status
                    except urllib.error.HTTPError as err:
                        status = err.code
                    answers[status] = answers.get(status, 0) + 1
            senders = [threading.Thread(target=send, args=(k,)) for k in range(clients)]
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            peak_threads = len(os.listdir("/proc/self/task"))
            feed = cameras(app).get(table.id)
            # the camera takes the newest frame when it is free: wait until it has read the last one
            deadline = time.monotonic() + 120
            while feed is not None and feed.frames.last_push is not None and time.monotonic() < deadline \
                    and getattr(feed, "size", None) not in (None, feed.frames.size):
                time.sleep(0.2)
            gc.collect()
            after = {"rss_mb": _resident_mb(), "threads": len(os.listdir("/proc/self/task")),
                     "threads_while_sending": peak_threads,
                     "pipelines_alive": sum(isinstance(o, Pipeline) for o in gc.get_objects())}
            cpu = time.process_time() - started
    load.append(round(os.getloadavg()[0], 2))
    return {"frames": count, "clients": clients, "answers": answers, "before": before, "after": after,
            "cpu_s": round(cpu, 1), "load_average": load}


def main(argv: Sequence[str] | None = None) -> int:
    """``companion bench camera [--frames N] [--json]``."""
    parser = argparse.ArgumentParser(prog="companion bench camera", description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30, help="frames to send (default 30)")
    parser.add_argument("--interval", type=float, default=0.3,
                        help="seconds between frames at most (the phone page's 0.3)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--new-sizes", type=int, default=0, metavar="N",
                        help="instead: N frames of new sizes to one table (memory and threads)")
    parser.add_argument("--clients", type=int, default=1, help="phones sending --new-sizes frames at once")
    args = parser.parse_args(argv)
    if args.new_sizes:
        report = new_sizes(args.new_sizes, args.clients)
        print(json.dumps(report, indent=1))
        return 0
    if args.frames < 3:
        parser.error("send at least 3 frames (the pipeline confirms a table on two still frames)")
    report = run(args.frames, args.interval)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['frames_sent']} frames of {report['frame_bytes'] // 1024} kB (1920×1080 JPEG) sent "
          f"at {report['sent_per_s']} /s; the pipeline read {report['read_per_s']} /s")
    print(f"POST of a frame: median {report['post_ms']['median']} ms, p95 {report['post_ms']['p95']} ms")
    print(f"the dealt circle applied by the session after {report['deal_applied_after_s']} s "
          f"(matches the frames: {report['deal_matches_frames']})")
    print(f"set-up check: {report['check_ms']['median']} ms, its picture "
          f"{report['check_picture_ms']['median']} ms (median, through HTTP); next step "
          f"'{report['check_next']}', {report['lowest_px_per_mm']}–{report['highest_px_per_mm']} px/mm")
    print(f"load average {report['load_average'][0]} → {report['load_average'][1]}")
    return 0 if report["deal_matches_frames"] else 1


if __name__ == "__main__":
    run_main(main)
