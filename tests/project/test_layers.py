"""The architecture as the code has it: layers (import-linter's contracts in pyproject.toml),
no import cycle between any two modules, and a top level of at most twelve packages.

Imports inside functions count (they run, and close cycles at run time), and so do imports
under ``if TYPE_CHECKING:`` (a type a module names is a dependency too).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "memkg"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str], *, type_checking: bool = False) -> set[str]:
    """The memkg modules ``path`` imports at run time (anywhere in the file); with
    ``type_checking``, those it imports for the type checker only too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    checking_only = set() if type_checking else {
        id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
        and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in checking_only:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target.startswith("memkg") and target != name:
                found.add(target)
    return found


def import_graph(*, type_checking: bool = False) -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: imports_of(path, set(files), type_checking=type_checking) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_two_modules_import_each_other_even_inside_functions() -> None:
    graph = import_graph()
    assert len(graph) > 100  # the scan found the package
    assert cycles(graph) == []


def test_no_two_modules_import_each_other_even_for_the_type_checker() -> None:
    graph = import_graph(type_checking=True)
    assert cycles(graph) == []


def test_the_cycle_finder_sees_imports_for_the_type_checker_when_asked() -> None:
    records = PACKAGE / "tags" / "records.py"  # names Policy for the type checker only
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    assert "memkg.tags.policy" not in imports_of(records, modules)
    assert "memkg.tags.policy" in imports_of(records, modules, type_checking=True)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_top_level_holds_at_most_twelve_packages() -> None:
    entries = sorted(p.stem for p in PACKAGE.iterdir()
                     if p.name not in ("__init__.py", "__main__.py", "py.typed", "__pycache__")
                     and (p.suffix == ".py" or (p / "__init__.py").exists()))
    assert len(entries) <= 12, entries
    assert all((PACKAGE / e / "__init__.py").exists() for e in entries), "top-level entries are packages"


def test_the_import_contracts_hold() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed (it comes with the test extra)")
    run = subprocess.run([lint, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
