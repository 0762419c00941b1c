"""Every docstring example in memkg.shacl runs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import memkg.shacl

MODULES = ["memkg.shacl"] + sorted(m.name for m in pkgutil.walk_packages(memkg.shacl.__path__, "memkg.shacl."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_public_api_is_small_and_documented() -> None:
    assert sorted(memkg.shacl.__all__) == ["Path", "RuleError", "ShapeError", "Shapes", "ValidationReport", "Violation",
                                          "WrittenForms"]
    for name in memkg.shacl.__all__:
        assert getattr(memkg.shacl, name).__doc__


def test_registry_has_one_class_per_core_component() -> None:
    from memkg.shacl.components import SECTIONS, registry

    names = {c.__name__ for _, classes in SECTIONS for c in classes}
    assert len(names) >= 30 - 2  # qualified min/max share a parser
    assert all(cls.RULE and cls.ANCHOR for cls in set(registry().values()))
