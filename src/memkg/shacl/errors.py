"""The engine's one exception: a shapes graph that cannot be used.

A malformed shape is an error, never a silent pass: the message names the shape
and the rule of the specification it breaks, with a link to the paragraph.

>>> from pyoxigraph import NamedNode
>>> err = ShapeError("sh:minCount must be a non-negative xsd:integer, got \\"-1\\"",
...                  shape=NamedNode("http://example.org/S"), rule="SHACL §4.2.1 sh:minCount")
>>> str(err)
'shape <http://example.org/S>: sh:minCount must be a non-negative xsd:integer, got "-1" [SHACL §4.2.1 sh:minCount]'
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

from typing import Optional

from ..core.errors import MemkgError


class ShapeError(MemkgError, ValueError):
    """A shapes graph (or one shape in it) that is not well formed.

    ``shape`` is the offending shape node (``None`` for graph-level problems),
    ``rule`` names the specification paragraph (with a link when known) and
    ``reason`` is the bare explanation.
    """

    def __init__(
        self,
        reason: str,
        *,
        shape: Optional[object] = None,
        rule: str | None = None,
        link: str | None = None,
    ) -> None:
        self.reason = reason
        self.shape = shape
        self.rule = rule
        self.link = link
        head = f"shape {shape}: " if shape is not None else ""
        tail = ""
        if rule or link:
            tail = " [" + ", ".join(x for x in (rule, link) if x) + "]"
        super().__init__(f"{head}{reason}{tail}")
