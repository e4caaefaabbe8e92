"""Every ``python -m benchmarks.NAME`` entry stops quietly when the reader of its output goes away
(``python -m benchmarks.players … | head``), as ``companion bench`` does: status 141, no traceback."""
from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

from benchmarks import BENCHES

ROOT = Path(__file__).resolve().parents[2]


def test_the_players_bench_ends_quietly_when_its_reader_goes_away():
    # the reader is gone before the first row is printed (`… | head -0`): it printed a BrokenPipeError
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.players", "--games", "2", "--game", "hills",
                             "--levels", "good:beginner"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_every_bench_module_runs_its_main_through_the_one_quiet_helper():
    """``python -m benchmarks.NAME`` of every bench ends in ``run_main(main)`` (companion.console; some had no entry at
    all, some their own ``sys.exit(main())`` that printed the traceback)."""
    for name, module in BENCHES.items():
        tree = ast.parse(Path(importlib.util.find_spec(module).origin).read_text(encoding="utf-8"))
        guards = [node for node in tree.body if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)]
        assert len(guards) == 1 and ast.unparse(guards[0].body[0]) == "run_main(main)", name
