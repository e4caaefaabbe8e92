"""The house's layout holds: no import circle, no upward import, no product module reaching a bench.

Every import is read from the source (module level and inside functions, and every string literal
that names a project module: the registries that ``importlib.import_module`` reads), so an import hidden in a function to dodge a circle
still counts. The layers are the README's data flow: the game core, then what prints and what sees,
then the web page over them; the simulated table and the benchmarks stand outside the product.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "printables", "vision", "webui", "tablesim", "benchmarks")

LAYERS = [
    # (module prefix, layer): a module may import only modules of its own layer or a lower one
    ("companion.data", 0), ("companion.catalogue", 0), ("companion.engine", 0),
    ("companion.games", 1), ("companion.series", 1), ("companion.advise", 1), ("companion.players", 1),
    ("companion.session", 2),
    ("companion.history", 3),
    ("printables", 4),
    ("vision", 5),
    ("webui", 6),
    ("tablesim", 7),
    ("benchmarks", 8),
    ("companion.cli", 9), ("companion.__main__", 9), ("companion", 0),
]
"""Longest prefix wins. ``companion.cli`` is the command line's front door, above everything."""

COMPOSITION_ROOTS = {
    "companion.cli": "the command dispatcher: every area's commands and ``companion bench``",
    "webui.cli": "``companion serve --demo`` starts the simulated table (tablesim.demo)",
}
"""The only product modules that may reach past their layer, each for the reason given."""

OUTSIDE_PRODUCT = ("tablesim", "benchmarks")


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    """The project modules that ``module`` imports anywhere in its source."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in MODULES:
            names = [node.value]   # a module named to importlib (the command and bench registries)
        for name in names:
            target = _resolve(name)
            if target and target != module:
                found.add(target)
    return found


GRAPH = {m: imports_of(m) for m in MODULES}


def layer(module: str) -> int:
    """The layer of a module: the longest matching prefix in LAYERS."""
    best = max((p for p, _ in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return dict(LAYERS)[best]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_the_whole_house():
    assert {"companion.engine", "companion.session", "webui", "vision.pipeline", "printables.sheets",
            "tablesim.synthetic", "benchmarks.vision"} <= set(MODULES)
    assert "companion.engine" in GRAPH["companion.games.wheel"]


def test_the_walk_reads_imports_inside_functions_and_by_name():
    # companion.cli reaches the areas' commands by module-name strings and the benches in a function
    assert "benchmarks" in GRAPH["companion.cli"]
    assert "webui.cli" in GRAPH["companion.cli"]


def test_a_planted_circle_is_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle():
    assert circles(GRAPH) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_upward_import(module):
    if module in COMPOSITION_ROOTS:
        return
    upward = sorted(t for t in GRAPH[module] if layer(t) > layer(module))
    assert upward == [], f"{module} (layer {layer(module)}) imports higher layers: {upward}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith(OUTSIDE_PRODUCT)))
def test_no_product_module_imports_a_bench_or_the_simulated_table(module):
    reached = sorted(t for t in GRAPH[module] if t.startswith(OUTSIDE_PRODUCT))
    if module in COMPOSITION_ROOTS:
        return
    assert reached == [], f"{module} imports {reached}"


def test_every_bench_is_reached_by_companion_bench():
    from benchmarks import BENCHES
    on_disk = {m for m in MODULES if m.startswith("benchmarks.")}
    assert set(BENCHES.values()) == on_disk
    for module in on_disk:
        assert "def main(" in MODULES[module].read_text(encoding="utf-8"), module
