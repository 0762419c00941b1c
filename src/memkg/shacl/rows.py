"""One solution of a generated validation query: a candidate or an actual result."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pyoxigraph import Literal

from .terms import Term

if TYPE_CHECKING:
    from .compiler import Branch


@dataclass
class Row:
    """One solution of a generated query (a candidate or actual result)."""

    branch: Branch
    root: Term
    route: tuple[Term, ...]
    focus: Term
    value: Term | None
    path: Term | None = None
    key: Term | None = None
    aux: Term | None = None
    message: Literal | None = None
    bindings: dict[str, Term] | None = None
    #: Whether focus and value are already the terms as written (decided in Python).
    as_written: bool = False

    @property
    def group(self) -> tuple[Term, ...]:
        """Identifies the focus node together with the route that reached it."""
        return (self.root, *self.route)

    def without_value(self) -> "Row":
        return replace(self, value=None)

    def without_key(self) -> "Row":
        return replace(self, key=None)

    def with_solution(self, *, value: Term | None, path: Term | None, message: Literal | None,
                      bindings: dict[str, Term]) -> "Row":
        return replace(self, value=value, path=path, message=message, bindings=bindings)
