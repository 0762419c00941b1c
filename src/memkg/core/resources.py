"""Where the data the code reads lives: ontology, shapes, query templates, examples.

In a wheel these folders are copied into ``memkg/_data/``; in a checkout (an
editable install) they are read from the top of the repository, where people
edit them. Either way the code asks here and never builds the path itself.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # memkg/, where a wheel keeps _data/
_KINDS = ("ontology", "shapes", "queries", "examples")


@cache
def data_dir(kind: str) -> Path:
    """The folder holding ``kind`` (one of ontology, shapes, queries, examples).

    >>> data_dir("ontology").name
    'ontology'
    """
    if kind not in _KINDS:
        raise ValueError(f"unknown data folder {kind!r}; expected one of {', '.join(_KINDS)}")
    for candidate in (_PACKAGE_DIR / "_data" / kind, _PACKAGE_DIR.parent.parent / kind):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"memkg's {kind}/ folder is missing from this installation")


def ontology_path() -> Path:
    """The memkg ontology, ``ontology/memkg.ttl``."""
    return data_dir("ontology") / "memkg.ttl"
