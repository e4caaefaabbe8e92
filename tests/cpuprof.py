"""A pytest plugin that writes each test phase's wall and CPU time, per worker, to a TSV:
``pytest -p tests.cpuprof`` (file: $CPUPROF_OUT, default test-artifacts/cpuprof.tsv; columns: test,
phase, wall s, CPU s of the worker, CPU s of its children (reaped or live), worker pid, the phase's end in
seconds since the epoch: when each worker went idle shows a run's tail). On a shared machine
the wall times say little; the CPU times are what a test costs (docs/figures.md, "The test suite")."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

OUT = Path(os.environ.get("CPUPROF_OUT", Path(__file__).resolve().parents[1] / "test-artifacts" / "cpuprof.tsv"))


TICK = os.sysconf("SC_CLK_TCK")


def _live_children_cpu(pid: int) -> float:
    """CPU s of ``pid``'s live descendants and of what they reaped (Playwright's driver, Chromium and
    its renderers: a worker reaps none of them before it exits, so ``os.times`` never counts them)."""
    total = 0.0
    try:
        kids = [int(k) for tid in os.listdir(f"/proc/{pid}/task")
                for k in open(f"/proc/{pid}/task/{tid}/children").read().split()]
    except OSError:
        return 0.0
    for kid in kids:
        try:
            fields = open(f"/proc/{kid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(v) for v in fields[11:15]) / TICK + _live_children_cpu(kid)
    return total


def _cpu() -> tuple[float, float]:
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system + _live_children_cpu(os.getpid())


def _measure(item: pytest.Item, phase: str):
    w0, (c0, k0) = time.perf_counter(), _cpu()
    yield
    w1, (c1, k1) = time.perf_counter(), _cpu()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("a") as f:
        f.write(f"{item.nodeid}\t{phase}\t{w1 - w0:.3f}\t{c1 - c0:.3f}\t{k1 - k0:.3f}\t{os.getpid()}\t{time.time():.3f}\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """Times the setup (the fixtures a test is the first to ask for)."""
    yield from _measure(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Times the test itself."""
    yield from _measure(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    """Times the teardown."""
    yield from _measure(item, "teardown")
