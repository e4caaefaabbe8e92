"""The benchmarks behind every figure in docs/figures.md, one module each, run by ``companion bench NAME``.

They live outside the product packages: no module of companion/, printables/, vision/ or webui/
imports them (tests/test_architecture.py checks it). Each module has ``main(argv) -> int``.
"""
from __future__ import annotations

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
