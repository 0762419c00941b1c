"""A package whose attributes are imported when first used (PEP 562), so that ``import memkg``
costs what its caller uses, not every feature memkg has.

A package lists where each of its attributes lives and calls :func:`attributes_from` at its end:

>>> import types
>>> package = types.ModuleType("demo")
>>> where = {"dedent": "textwrap", "TextWrapper": "textwrap"}
>>> package.__getattr__, package.__dir__ = attributes_from(package, where)
>>> package.dedent("  a")
'a'
>>> "dedent" in vars(package)
True

A name that is also a subpackage's (``memkg.recall``, the function, beside the package
``memkg.recall``) keeps naming the attribute: the import system names a subpackage on its parent
when it first imports it, which could happen long after the parent bound the attribute, so the
parent becomes a :class:`LazyPackage`, which does not let a module replace an attribute it lists.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping


class LazyPackage(types.ModuleType):
    """A package whose listed attributes a subpackage of the same name does not replace."""

    _memkg_attributes: Mapping[str, str] = {}

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and name in self._memkg_attributes \
                and value.__name__ == f"{self.__name__}.{name}":
            return  # the import system naming the subpackage: the listed attribute keeps the name
        super().__setattr__(name, value)


def attributes_from(package: types.ModuleType | str,
                    where: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose attribute NAME is ``NAME`` in the
    module ``where[NAME]`` (relative to the package when it starts with a dot): imported on first
    use, then kept in the package."""
    module = sys.modules[package] if isinstance(package, str) else package
    name = module.__name__
    if module.__class__ is types.ModuleType:
        module.__class__ = LazyPackage
    object.__setattr__(module, "_memkg_attributes", dict(where))

    def __getattr__(attribute: str) -> object:
        home = where.get(attribute)
        if home is None:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        value = getattr(importlib.import_module(home, name), attribute)
        object.__setattr__(module, attribute, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(module)) | set(where))

    return __getattr__, __dir__


__all__ = ["LazyPackage", "attributes_from"]
