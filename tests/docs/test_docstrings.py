"""Every docstring example in the package runs (pyoxigraph's habit: docs that cannot rot)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import memkg

# Every module, subpackages included (memkg.recall.ranking, memkg.shacl.components.…).
MODULES = sorted(m.name for m in pkgutil.walk_packages(memkg.__path__, "memkg.") if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
