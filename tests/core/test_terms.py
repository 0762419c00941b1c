"""The type aliases of ``memkg.core.terms`` are defined there once: no module of memkg
binds one of their names to something else, or spells one of them out again under
another name."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pyoxigraph

import memkg.core.terms as terms

TERMS = Path(terms.__file__).resolve()
PACKAGE = TERMS.parents[1]

#: core's aliases: name -> the pyoxigraph classes (or str) the union holds
ALIASES: dict[str, frozenset[str]] = {
    name: frozenset(getattr(arg, "__name__", str(arg)) for arg in typing.get_args(value))
    for name, value in vars(terms).items()
    if typing.get_origin(value) is typing.Union
}


def _members(node: ast.expr) -> frozenset[str] | None:
    """The class names a union written in code holds (``A | B``, ``Union[A, B]``), else None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _members(node.left), _members(node.right)
        return None if left is None or right is None else left | right
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).rsplit(".", 1)[-1] == "Union":
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        found = [_members(p) for p in parts]
        return None if any(f is None for f in found) else frozenset().union(*found)  # type: ignore[arg-type]
    if isinstance(node, (ast.Name, ast.Attribute)):
        return frozenset({ast.unparse(node).rsplit(".", 1)[-1]})
    return None


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The module an import names, relative imports resolved against ``path``'s package."""
    if not node.level:
        return node.module or ""
    package = ["memkg", *path.resolve().relative_to(PACKAGE).parent.parts]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def redefinitions(path: Path) -> list[str]:
    """Where ``path`` defines one of core's aliases again: a module-level assignment to one of
    their names, an import of one under another name (or of another name under one), or a
    union of the same classes under any name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(PACKAGE).as_posix() if path.is_relative_to(PACKAGE) else path.name
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            source = _absolute(path, node)
            for alias in node.names:
                bound = alias.asname or alias.name
                # core's aliases keep their names wherever they are imported from in memkg
                # (another memkg module re-exports core's); nothing else may take one of them
                ours = source == "memkg.core.terms" or source.startswith("memkg.") and alias.name in ALIASES
                if ours and bound != alias.name or not source.startswith("memkg.") and bound in ALIASES:
                    found.append(f"{where}:{node.lineno}: imports {alias.name} as {bound}")
            continue
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        else:
            continue
        members = _members(value)
        if name in ALIASES:
            found.append(f"{where}:{node.lineno}: binds {name}")
        elif members is not None and len(members) > 1 and members in ALIASES.values():
            same = next(n for n, m in ALIASES.items() if m == members)
            found.append(f"{where}:{node.lineno}: {name} spells out {same}")
    return found


def test_core_defines_the_aliases_the_code_names_terms_with() -> None:
    assert {"IRI", "Term", "Resource", "Graph", "GraphName", "Subject"} <= set(ALIASES)
    assert ALIASES["Subject"] == frozenset(
        c.__name__ for c in (pyoxigraph.NamedNode, pyoxigraph.BlankNode, pyoxigraph.Triple))


def test_no_module_redefines_an_alias_of_core() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path.resolve() != TERMS
             for hit in redefinitions(path)]
    assert found == []


def test_the_check_sees_a_redefinition(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text("from pyoxigraph import BlankNode, DefaultGraph, NamedNode\n"
                      "from memkg.core.terms import GraphName as Graph\n"
                      "from rdflib import Graph as RdflibGraph\n"
                      "Subject = NamedNode | BlankNode\n"
                      "Where = NamedNode | BlankNode | DefaultGraph\n"
                      "Piece = NamedNode | int\n")
    assert redefinitions(module) == [
        "module.py:2: imports GraphName as Graph",
        "module.py:4: binds Subject",
        "module.py:5: Where spells out GraphName",
    ]
