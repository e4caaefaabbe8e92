"""The benchmarks behind every figure in docs/figures.md, one module each, run by ``companion bench NAME``.

They live outside the product packages: no module of companion/, printables/, vision/ or webui/
imports them (tests/test_architecture.py checks it). Each module has ``main(argv) -> int``.
"""
from __future__ import annotations

from companion.i18n import N_

BENCHES = {
    "vision": "benchmarks.vision",        # cards identified and full-look time; --part 4k: vision.frame.pyramid's 4K search
    "quality": "benchmarks.quality",      # the frame quality checks (blur, exposure, screens)
    "deblur": "benchmarks.deblur",        # motion-blur estimate and deconvolution
    "web": "benchmarks.web",              # phone update latency, page times, half-open connections
    "camera": "benchmarks.camera",        # camera frames through the server to the phones
    "session": "benchmarks.session",      # the table session against a partial camera
    "history": "benchmarks.history",      # History pages and BG Stats import on a large history
    "prussia": "benchmarks.prussia",      # the Prussia solo odds (advise)
    "players": "benchmarks.players",      # the companion's players: win rates and decision times
}
"""``companion bench NAME`` runs ``main(argv)`` of the module named here."""

ABOUT = {
    "vision": N_("cards identified on rendered table surfaces, and the time of a full look at a frame"),
    "quality": N_("the limits of the frame quality checks: motion blur and glare on rendered tables"),
    "deblur": N_("the motion-blur estimate and the sharpening, their accuracy and cost"),
    "web": N_("many tables and phones: a move reaching every phone (--browser: a tap in Chromium)"),
    "camera": N_("a phone as the table's camera: its frames through a real server"),
    "session": N_("the time of reconciling a camera's view with the game, per game"),
    "history": N_("the History pages, recording and a BG Stats import on a large log of plays"),
    "prussia": N_("Prussia: simulated games a second and the time of advise"),
    "players": N_("each companion level against the others: win rates and the time of a decision"),
}
"""What each benchmark measures, for ``companion bench --help`` (translated there)."""
