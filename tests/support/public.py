"""memkg's public callables, and all an answer says as text (for tests generated over the code)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import memkg


def modules() -> Iterator[ModuleType]:
    """Every module of memkg (not ``__main__``, which runs the CLI)."""
    for info in pkgutil.walk_packages(memkg.__path__, "memkg."):
        if not info.name.endswith("__main__"):
            yield importlib.import_module(info.name)


def callables() -> Iterator[tuple[ModuleType, str, Callable[..., Any], type | None]]:
    """(module, name, callable, class) for every public function a module defines and exports
    (every one, in a module without ``__all__``), and every public method of every public class
    it defines (``name`` is then ``Class.method``)."""
    for module in modules():
        exported = getattr(module, "__all__", None)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj):
                for method, fn in vars(obj).items():
                    if not method.startswith("_") and inspect.isfunction(fn):
                        yield module, f"{name}.{method}", fn, obj
            elif inspect.isfunction(obj) and (exported is None or name in exported):
                yield module, name, obj, None


def answer_text(value: Any) -> str:
    """Everything an answer says, as text: its JSON form where it has one, its fields, its repr."""
    parts = [repr(value)]
    for method in ("to_dict", "to_json", "json"):
        if callable(getattr(value, method, None)):
            try:
                parts.append(json.dumps(getattr(value, method)(), default=str))
            except TypeError:
                pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts += [repr(getattr(value, f.name)) for f in dataclasses.fields(value)]
    if isinstance(value, (list, tuple)):
        parts += [answer_text(v) for v in value]
    for render in ("mermaid", "dot", "svg", "text", "render"):
        attr = getattr(value, render, None)
        if callable(attr):
            try:
                parts.append(str(attr()))
            except TypeError:
                pass
        elif isinstance(attr, str):
            parts.append(attr)
    return "\n".join(parts)
