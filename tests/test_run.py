"""``./run``, the one entry point: what it answers before it installs anything."""
from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_run_demo_refuses_an_unknown_game_before_installing_anything(tmp_path):
    """`./run demo hills` plays Seven Hills (README); a misspelt game is refused with the list of games,
    before apt-get or pip run (a copy of the script in an empty folder: no .venv appears)."""
    script = tmp_path / "run"
    script.write_text((ROOT / "run").read_text())
    done = subprocess.run(["bash", str(script), "demo", "hils"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "no game 'hils'" in done.stderr and "wheel|hills|spartacus|prussia|chains" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_run_help_lists_the_commands_and_an_unknown_one_is_refused(tmp_path):
    """`./run --help` (or `./run` alone) says what each command does and exits 0; `./run foo` exits 2
    naming it; neither installs anything."""
    script = tmp_path / "run"
    script.write_text((ROOT / "run").read_text())
    for argv in (["--help"], []):
        done = subprocess.run(["bash", str(script), *argv], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0 and "./run demo [GAME]" in done.stdout and "--all" in done.stdout
    done = subprocess.run(["bash", str(script), "foo"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "no command 'foo'" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["run"]
