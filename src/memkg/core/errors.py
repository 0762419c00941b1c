"""memkg's exceptions.

Few and specific, each carrying the identifiers a user needs to find the fault:
file, line and column for bad input; shape and focus node for a refused write.
They derive from the standard exceptions callers already catch (``SyntaxError``,
``ValueError``, ``OSError``), the way pyoxigraph's do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pyoxigraph import BlankNode, NamedNode, Triple

from .sparql_errors import explain
from .terms import GraphName, Term
from .vocab import local_name, sh


class MemkgError(Exception):
    """Base class of every error memkg raises on purpose."""


def rebuilt(cls: type[BaseException], args: tuple[Any, ...], keywords: dict[str, Any]) -> BaseException:
    """``cls(*args, **keywords)``: how an error with keyword-only fields is unpickled (the
    first load hands its errors from another process, :mod:`memkg.loading.first_load`)."""
    return cls(*args, **keywords)


class ParseError(MemkgError, SyntaxError):
    """RDF or SPARQL input that does not parse.

    ``file``, ``line`` and ``column`` locate the fault (1-based; any may be None
    when the parser could not tell, e.g. for text given inline).
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.column = column
        self.reason = message
        where = ":".join(str(x) for x in (self.file or "<input>", line, column) if x is not None)
        super().__init__(f"{where}: {message}")
        # SyntaxError's own fields, so tracebacks and IDEs point at the spot.
        self.filename, self.lineno, self.offset = self.file, line, column
        self.msg = f"{where}: {message}"

    def __str__(self) -> str:  # SyntaxError.__str__ would append "(file, line N)" again
        return self.msg

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt, (type(self), (self.reason,), {"file": self.file, "line": self.line, "column": self.column})

    @classmethod
    def from_syntax_error(cls, err: SyntaxError, *, file: str | Path | None = None,
                          sparql: str | None = None, update: bool = False) -> "ParseError":
        """Wrap a pyoxigraph ``SyntaxError``, keeping its position. Given the ``sparql`` text
        that failed, the reason is said in one plain line (:mod:`memkg.core.sparql_errors`)."""
        reason = str(err.args[0]) if err.args else str(err)
        line, column = err.lineno, err.offset
        if line is None:  # SPARQL errors carry the position in the text: "error at 3:14: …"
            m = re.match(r"error at (\d+):(\d+): ?(.*)", reason, re.DOTALL)
            if m:
                line, column, reason = int(m.group(1)), int(m.group(2)), m.group(3)
        # pyoxigraph repeats the position in its message; ours leads with it already.
        reason = re.sub(r"^Parser error at line \d+ column \d+: ", "", reason)
        if sparql is not None:
            reason = explain(reason, sparql, line, column, update=update)
        return cls(reason, file=file or err.filename, line=line, column=column)


class UnknownFormatError(MemkgError, ValueError):
    """A file whose RDF format cannot be told from its extension."""


class UnreadableName(MemkgError, ValueError):
    """Text given for a node (an argument, an option, a parameter) that names no IRI in any form
    memkg reads (:mod:`memkg.core.names`); the message names the text and the forms accepted."""


class AmbiguousName(UnreadableName):
    """A compact IRI whose prefix was declared for several namespaces, that names nothing in
    the first of them but a node in another; the message names every IRI it could mean."""


class NotFoundError(MemkgError, KeyError):
    """An identifier (IRI, view name, …) that names nothing in the store."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class UnknownIRIError(NotFoundError):
    """An IRI that no graph in the read's scope holds: named with the scope (a tenant, or every
    graph the caller may read) and the nearest IRIs the scope does hold, if any are near."""

    def __init__(self, iri: str, scope: str, nearest: tuple[str, ...] = ()) -> None:
        self.iri, self.scope, self.nearest = iri, scope, tuple(nearest)
        near = f"; nearest known: {', '.join(self.nearest)}" if self.nearest else ""
        super().__init__(f"{iri} is in no graph of the scope ({scope}){near}")

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt, (type(self), (self.iri, self.scope, self.nearest), {})


class AmbiguousIRIError(MemkgError, ValueError):
    """An IRI found in several tenants' graphs where a command needs one: named with the graphs."""

    def __init__(self, iri: str, graphs: tuple[str, ...]) -> None:
        self.iri, self.graphs = iri, tuple(graphs)
        super().__init__(f"{iri} is in several tenants' graphs ({', '.join(self.graphs)}): name the one meant "
                         "as the tenant")

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt, (type(self), (self.iri, self.graphs), {})


class ResultPath(Protocol):
    """A SHACL path as the native engine reports it (:class:`memkg.shacl.paths.Path`)."""

    @property
    def predicate(self) -> NamedNode | None:
        """The predicate of a path that is one, else None."""

    def sparql(self) -> str:
        """The path in SPARQL (``str()`` gives the same)."""

    def to_triples(self) -> tuple[Term, list[Triple]]:
        """The path as a SHACL path node and the triples that describe it."""


@dataclass(frozen=True)
class Violation:
    """One validation result, the one type from the engine that finds it to the error that
    refuses a write: which shape, on which focus node, and why; the path, the value, the
    severity and the constraint when known, and where the focus node is written.

    Terms stay pyoxigraph terms; ``str()`` is the line people read. The native engine gives
    the shape that produced the result as ``shape``; validation names the invariant (the
    named shape it belongs to) and keeps the producer in ``source_shape``.
    """

    shape: Term
    focus: Term
    message: str = ""
    #: a predicate, a path as the engine reports it, or its SPARQL text (pySHACL's complex paths)
    path: Term | ResultPath | str | None = None
    value: Term | None = None
    severity: NamedNode = sh.Violation
    #: the SHACL constraint component, e.g. sh:MinCountConstraintComponent (a custom one may be a blank node)
    component: NamedNode | BlankNode | None = None
    source_shape: Term | None = None  #: the (possibly blank) shape that produced it
    source_constraint: Term | None = None
    language: str | None = None  #: the message's language tag, when the shape gave one
    graph: GraphName | None = None  #: the graph it was found in
    #: where the focus node's offending triple (or the focus node) is written, when the data
    #: came from files (:mod:`memkg.core.positions`)
    file: str | None = None
    line: int | None = None
    column: int | None = None

    @property
    def where(self) -> str | None:
        """``data.ttl:12:5`` (or ``data.ttl`` when the files never write the focus node)."""
        if self.file is None:
            return None
        return ":".join(str(x) for x in (self.file, self.line, self.column) if x is not None)

    def key(self) -> tuple[str, str, str, str, str]:
        """What identifies a result across engines: focus, path, value, shape, component."""
        return (str(self.focus), str(self.path or ""), str(self.value or ""), str(self.shape), str(self.component))

    def __str__(self) -> str:
        path = f" path {self.path}" if self.path is not None else ""
        val = f" value {self.value}" if self.value is not None else ""
        at = f"{self.where}: " if self.where else ""
        return f"{at}{local_name(self.severity)}: {self.shape} on {self.focus}{path}{val}: {self.message}"


class Refused(MemkgError, ValueError):
    """A write refused because it breaks a rule (an invariant, a policy, a reserved name); nothing was written.

    Every adapter maps this one class: the command line to exit code 1, the
    endpoint to 400, the agent tools to a tool error.
    """


class ValidationError(Refused):
    """A write refused because it breaks invariants; nothing was written."""

    def __init__(self, violations: list[Violation], *, source: str | None = None) -> None:
        self.violations = list(violations)
        self.source = source
        head = f"{source}: " if source else ""
        lines = [f"{head}write refused, {len(self.violations)} violation(s); nothing was written"]
        lines += [f"  {v}" for v in self.violations[:20]]
        if len(self.violations) > 20:
            lines.append(f"  … and {len(self.violations) - 20} more")
        super().__init__("\n".join(lines))

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt, (type(self), (self.violations,), {"source": self.source})


class StoreLockedError(MemkgError, OSError):
    """The store directory is already open for writing by another process.

    ``server``: the URL of the ``memkg serve`` that holds it (``http://HOST:PORT/``), when one
    does, through which the store is reached (``--endpoint URL/sparql --update-endpoint
    URL/update``); ``tokens``: whether that server wants a token.
    """

    def __init__(self, message: str, *, server: str | None = None, tokens: bool = False) -> None:
        super().__init__(message)
        self.server = server
        self.tokens = tokens

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt, (type(self), (str(self),), {"server": self.server, "tokens": self.tokens})


class NotAStoreError(MemkgError, OSError):
    """A folder that holds no memkg store where one was needed: missing or empty for a read
    (a read never creates a store), or holding files of something else (refused for writes too)."""
