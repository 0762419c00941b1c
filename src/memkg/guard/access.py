"""Who may see and change what: bearer tokens, tenants and the dataset a request runs over.

docs/contract.md section 6: with a tokens file (JSON ``{"TOKEN": {"tenants": [GRAPH-IRI, …], "write":
bool}}``) every request carries a token (over HTTP an ``Authorization: Bearer TOKEN``
header, read by :func:`bearer_grant`); a token sees
its tenants' graphs plus the shared default graph (and the ontology graph, the shared
vocabulary), and writes only where ``write`` is true, whatever the request names (``GRAPH``, ``FROM``,
``FROM NAMED``, ``SERVICE``, protocol parameters).

This module is the one place that decides it, for the endpoint and anything else that
serves more than one tenant. Without a tokens file every request gets :data:`OPEN`, the
whole store.

How confinement works (measured on pyoxigraph 0.5.13, see ``tests/guard/test_access.py``):
``Store.query``'s ``default_graph`` argument replaces the query's ``FROM`` clauses and
its ``named_graphs`` argument replaces ``FROM NAMED``, each independently; a graph left
out of ``named_graphs`` is invisible to ``GRAPH <g>`` and ``GRAPH ?g`` alike, in
subqueries, ``EXISTS``, property paths and ``DESCRIBE`` too. So a restricted query always
runs with *both* arguments set to visible graphs only: whatever the text says, nothing
else is read. ``FROM``/``FROM NAMED`` and constant ``GRAPH <g>`` are still scanned
(:mod:`memkg.core.sparql`) so that a clause naming a visible graph is honoured and one
naming any other graph is refused (403) rather than silently ignored or answered empty. ``SERVICE`` is different: Oxigraph has an HTTP client and
executes ``SERVICE <url>`` (a POST to the URL) whatever the dataset, so a restricted
query mentioning it is refused outright.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pyoxigraph import BlankNode, DefaultGraph, NamedNode

from ..core import sparql as sparql_lexer
from ..core.errors import MemkgError, ParseError
from ..core.terms import GraphName
from ..core.vocab import ONTOLOGY_GRAPH, PREFIXES


class Unauthorized(MemkgError, PermissionError):
    """No token, or a token the server does not know (HTTP 401)."""


class Forbidden(MemkgError, PermissionError):
    """A known token asking beyond its rights (HTTP 403)."""


@dataclass(frozen=True)
class Grant:
    """What one request may do. ``tenants`` None means every graph (no tokens configured)."""

    tenants: frozenset[NamedNode] | None
    write: bool
    token_name: str | None = None  #: for logs: never the token itself

    @property
    def restricted(self) -> bool:
        return self.tenants is not None

    @property
    def who(self) -> str:
        """How a refusal names this token: its name from the tokens file, or "this token"."""
        if not self.token_name:
            return "this token"
        return self.token_name if self.token_name.startswith("token ") else f"token {self.token_name}"

    def visible_named_graphs(self) -> list[NamedNode]:
        """The named graphs a restricted grant can read: its tenants and the ontology graph."""
        return sorted({*(self.tenants or ()), ONTOLOGY_GRAPH}, key=str)

    def readable_graphs(self) -> list[NamedNode | DefaultGraph] | None:
        """Every graph the grant may read: the shared default graph, its tenants and the ontology
        graph (None: every graph of the store). What reading a name may look at (no oracle)."""
        return None if not self.restricted else [DefaultGraph(), *self.visible_named_graphs()]

    def can_see(self, graph: NamedNode | DefaultGraph | BlankNode) -> bool:
        if not self.restricted or isinstance(graph, DefaultGraph):
            return True
        return graph == ONTOLOGY_GRAPH or graph in (self.tenants or ())


#: The grant of every request when the server has no tokens file.
OPEN = Grant(tenants=None, write=True)



# -- tokens ----------------------------------------------------------------------------

_ABSOLUTE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_ENTRY_KEYS = {"tenants", "write", "name"}


def _masked(token: str) -> str:
    """A token as it may appear in messages and logs: at most its first four characters."""
    return f"{token[:4]}…" if len(token) >= 12 else "…"


class Tokens:
    """The bearer tokens of a tokens file, each with its :class:`Grant`.

    >>> import json, tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    ...     json.dump({"s3cret-token-lia": {"tenants": ["urn:memkg:lia"], "write": True}}, f)
    >>> tokens = Tokens.load(f.name)
    >>> sorted(str(g) for g in tokens.holder("s3cret-token-lia").tenants)
    ['<urn:memkg:lia>']
    """

    def __init__(self, grants: Mapping[str, Grant]) -> None:
        self._grants = dict(grants)

    def __len__(self) -> int:
        return len(self._grants)

    @classmethod
    def load(cls, path: str | Path) -> "Tokens":
        """Read a tokens file; ValueError naming the file and the faulty entry (never its secret)."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{err.lineno}:{err.colno}: not valid JSON: {err.msg}") from None
        except UnicodeDecodeError as err:
            raise ValueError(f"{path}: not UTF-8 text ({err.reason})") from None
        if not isinstance(data, dict):
            raise ValueError(f'{path}: expected a JSON object {{"TOKEN": {{"tenants": [...], "write": bool}}}}')
        return cls({token: _read_entry(path, n, token, entry) for n, (token, entry) in enumerate(data.items(), 1)})

    def holder(self, secret: str) -> Grant:
        """The grant of the token ``secret``; :class:`Unauthorized` if it is none we know.

        How a request carries its token (an HTTP ``Authorization: Bearer`` header) is
        read by :func:`bearer_grant`.
        """
        found: Grant | None = None
        offered = secret.encode()
        for token, grant in self._grants.items():
            # Compare with every token, in constant time each, so timing tells nothing.
            if hmac.compare_digest(offered, token.encode()):
                found = grant
        if found is None:
            raise Unauthorized("unknown token")
        return found



class TokenCheck(Protocol):
    """What reads a request's token: :class:`Tokens`, or a test's stand-in."""

    def holder(self, secret: str) -> Grant: ...


def bearer_grant(tokens: TokenCheck, authorization: str | None) -> Grant:
    """The grant of an HTTP ``Authorization: Bearer TOKEN`` header (RFC 6750 §2.1; the
    scheme is case-insensitive); :class:`Unauthorized` without one we know. The agent
    tools' HTTP transport uses the same rule.

    >>> tokens = Tokens({"s3cret-token-lia": OPEN})
    >>> bearer_grant(tokens, "bearer  s3cret-token-lia ") is OPEN
    True
    >>> bearer_grant(tokens, "Basic czNjcmV0")
    Traceback (most recent call last):
    memkg.guard.access.Unauthorized: the Authorization header must be 'Bearer TOKEN'
    """
    if not authorization or not authorization.strip():
        raise Unauthorized("this endpoint needs an 'Authorization: Bearer TOKEN' header")
    scheme, _, secret = authorization.strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise Unauthorized("the Authorization header must be 'Bearer TOKEN'")
    return tokens.holder(secret)


def _read_entry(path: Path, n: int, token: str, entry: Any) -> Grant:
    where = f"{path}: token #{n} ({_masked(token)})"
    if not token:
        raise ValueError(f"{where}: the token is empty")
    if not isinstance(entry, dict):
        raise ValueError(f'{where}: expected an object {{"tenants": [...], "write": bool}}, got {type(entry).__name__}')
    unknown = sorted(set(entry) - _ENTRY_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; expected tenants, write, name")
    tenants = entry.get("tenants")
    if not isinstance(tenants, list) or not all(isinstance(t, str) for t in tenants):
        raise ValueError(f"{where}: 'tenants' must be a list of graph IRIs (strings)")
    write = entry.get("write", False)
    if not isinstance(write, bool):
        raise ValueError(f"{where}: 'write' must be true or false, got {json.dumps(write)}")
    name = entry.get("name", f"token #{n}")
    if not isinstance(name, str):
        raise ValueError(f"{where}: 'name' must be a string")
    graphs = set()
    for t in tenants:
        try:
            if not _ABSOLUTE_IRI.match(t):
                raise ValueError("no scheme")
            graph = NamedNode(t)
        except ValueError:
            raise ValueError(f"{where}: tenant {t!r} is not an absolute IRI") from None
        if graph == ONTOLOGY_GRAPH:
            raise ValueError(f"{where}: {t} is the shared ontology graph, not a tenant")
        graphs.add(graph)
    return Grant(tenants=frozenset(graphs), write=write, token_name=name)


# -- reading ---------------------------------------------------------------------------


def _graph_node(iri: str | NamedNode, what: str) -> NamedNode:
    if isinstance(iri, NamedNode):
        return iri
    try:
        if not _ABSOLUTE_IRI.match(iri):
            raise ValueError("no scheme")
        return NamedNode(iri)
    except ValueError:
        raise ValueError(f"{what} {iri!r} is not an absolute IRI") from None


def _require_visible(grant: Grant, graphs: Iterable[NamedNode], what: str) -> None:
    for g in graphs:
        if not grant.can_see(g):
            raise Forbidden(f"{what} names graph {g}, which this token may not read")


@dataclass(frozen=True)
class DatasetClauses:
    """A query's ``FROM`` and ``FROM NAMED`` graphs, and the graphs its patterns name with a
    constant ``GRAPH <g>``, as the parser will resolve them."""

    default: tuple[NamedNode, ...] = ()
    named: tuple[NamedNode, ...] = ()
    patterns: tuple[NamedNode, ...] = ()

    @property
    def given(self) -> bool:
        return bool(self.default or self.named)


def scan_query(
    text: str, *, prefixes: Mapping[str, str] | None = PREFIXES, base_iri: str | None = None
) -> DatasetClauses:
    """The dataset clauses of a query; Forbidden if it mentions ``SERVICE``.

    Used for restricted grants only. A clause that cannot be resolved with
    certainty (undeclared prefix, relative IRI without base, keywords run
    together) is refused rather than guessed.
    """
    try:
        tokens = sparql_lexer.tokenize(text, source="<query>")
    except ParseError:
        # `1<2&&'>'!=''`: read with "less than" (Oxigraph's reading in an expression) or not at all
        try:
            tokens = sparql_lexer.tokenize(text, source="<query>", quotes_in_iris=False)
        except ParseError:
            pass
        else:
            return _dataset_clauses(tokens, prefixes, base_iri)
        raise
    clauses = _dataset_clauses(tokens, prefixes, base_iri)
    odd = sparql_lexer.ambiguous_iri(tokens)
    if odd is None:
        return clauses
    # `<` may be "less than" here, which pairs the text's quotes otherwise: the graphs either
    # reading names must all be visible, and a text one reading cannot read is refused.
    try:
        other = _dataset_clauses(sparql_lexer.tokenize(text, source="<query>", quotes_in_iris=False),
                                 prefixes, base_iri)
    except ParseError:
        raise Forbidden(
            f"line {odd.line}, column {odd.column}: {odd.text[:40]!r} reads as an IRI or as '<' then a string, "
            "which hides or shows the rest of the query: write a quote inside an IRI as \\u0027"
        ) from None
    return DatasetClauses(tuple(dict.fromkeys(clauses.default + other.default)),
                          tuple(dict.fromkeys(clauses.named + other.named)),
                          tuple(dict.fromkeys(clauses.patterns + other.patterns)))


def _dataset_clauses(tokens: list[sparql_lexer.Token], prefixes: Mapping[str, str] | None,
                     base_iri: str | None) -> DatasetClauses:
    prologue = sparql_lexer.Prologue(base=base_iri, prefixes=dict(prefixes or {}))
    default: list[NamedNode] = []
    named: list[NamedNode] = []
    patterns: list[NamedNode] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if sparql_lexer.hides_keyword(tok, "SERVICE"):
            raise Forbidden(
                f"line {tok.line}, column {tok.column}: SERVICE (federated query) is not allowed for this token"
            )
        after = prologue.declare(tokens, i)
        if after != i:
            i = after
            continue
        if tok.is_word("FROM"):
            is_named = i + 1 < len(tokens) and tokens[i + 1].is_word("NAMED")
            target = i + 2 if is_named else i + 1
            if target >= len(tokens) or tokens[target].kind not in ("IRI", "PNAME"):
                raise Forbidden(f"line {tok.line}, column {tok.column}: cannot tell which graph FROM names")
            try:
                graph = NamedNode(prologue.resolve(tokens[target]))
            except ValueError as err:
                raise Forbidden(f"line {tok.line}, column {tok.column}: cannot tell which graph FROM names: {err}") from None
            (named if is_named else default).append(graph)
            i = target + 1
            continue
        if tok.kind in ("WORD", "PNAME") and tok.text.upper().startswith("FROM") and not tok.is_word("FROM"):
            raise Forbidden(f"line {tok.line}, column {tok.column}: ambiguous dataset clause {tok.text!r}: separate the keywords")
        if tok.is_word("GRAPH") and i + 1 < len(tokens) and tokens[i + 1].kind in ("IRI", "PNAME"):
            try:
                patterns.append(NamedNode(prologue.resolve(tokens[i + 1])))
            except ValueError as err:
                raise Forbidden(f"line {tok.line}, column {tok.column}: cannot tell which graph GRAPH names: {err}") from None
            i += 2
            continue
        i += 1
    return DatasetClauses(tuple(default), tuple(named), tuple(patterns))


_NAMES_GRAPHS = re.compile(r"(?<![\w:])(FROM|GRAPH|SERVICE)(?![\w:])", re.IGNORECASE)


def dataset_for(tenant: NamedNode | None) -> dict[str, Any]:
    """``Store.query`` options giving a reader its dataset: one tenant's graph plus the shared
    default graph and the ontology graph, or (``None``) every graph as one."""
    if tenant is None:
        return {"use_default_graph_as_union": True}
    return {"default_graph": [tenant, DefaultGraph(), ONTOLOGY_GRAPH]}


def query_options(
    grant: Grant,
    query_text: str,
    *,
    default_graph_uris: Iterable[str | NamedNode] = (),
    named_graph_uris: Iterable[str | NamedNode] = (),
    prefixes: Mapping[str, str] | None = PREFIXES,
    base_iri: str | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``Store.query`` giving a query the dataset ``grant`` allows.

    Unrestricted grant, SPARQL 1.1 Protocol semantics: the protocol's
    ``default-graph-uri``/``named-graph-uri`` (if any is given) replace the
    query's ``FROM``/``FROM NAMED``; else the query's own clauses apply; else the
    store's default graph and every named graph.

    Restricted grant: the same precedence, but every graph named must be
    visible (the grant's tenants and the ontology graph), else
    :class:`Forbidden` naming it; without any dataset the default graph is the
    store's (shared) default graph, exactly as an unrestricted query sees it,
    and the named graphs are the visible ones. ``SERVICE`` is Forbidden. The
    result always sets both ``default_graph`` and ``named_graphs``, which
    Oxigraph lets override anything the query text says.

    >>> opts = query_options(Grant(frozenset({NamedNode("urn:t:lia")}), False), "SELECT * { ?s ?p ?o }")
    >>> [str(g) for g in opts["named_graphs"]]
    ['<https://w3id.org/memkg>', '<urn:t:lia>']
    """
    protocol_default = [_graph_node(u, "default-graph-uri") for u in default_graph_uris]
    protocol_named = [_graph_node(u, "named-graph-uri") for u in named_graph_uris]
    protocol_given = bool(protocol_default or protocol_named)
    if not grant.restricted:
        if protocol_given:
            return {"default_graph": protocol_default, "named_graphs": protocol_named, "use_default_graph_as_union": False}
        return {"use_default_graph_as_union": False}
    try:
        clauses = scan_query(query_text, prefixes=prefixes, base_iri=base_iri)
    except ParseError:
        # memkg's lexer can read a valid query otherwise than Oxigraph does (``?a<?b&&'>'``:
        # an IRI, then a string, to it). Without a FROM, GRAPH or SERVICE anywhere in the text there is no clause
        # to read, and the dataset below confines the query whatever it says (Oxigraph lets
        # these arguments override the text); with one, or a GRAPH or SERVICE that may name
        # another graph or a remote service, refusing beats guessing.
        if _NAMES_GRAPHS.search(query_text):
            raise
        clauses = DatasetClauses((), ())
    _require_visible(grant, protocol_default, "default-graph-uri")
    _require_visible(grant, protocol_named, "named-graph-uri")
    _require_visible(grant, clauses.default, "FROM")
    _require_visible(grant, clauses.named, "FROM NAMED")
    _require_visible(grant, clauses.patterns, "GRAPH")
    default: list[GraphName]
    if protocol_given:
        default, named = list(protocol_default), protocol_named
    elif clauses.given:
        default, named = list(clauses.default), list(clauses.named)
    else:
        default, named = [DefaultGraph()], grant.visible_named_graphs()
    return {"default_graph": default, "named_graphs": named, "use_default_graph_as_union": False}


def view_options(grant: Grant, tenant: NamedNode | None) -> dict[str, Any]:
    """Keyword arguments for ``Store.query`` giving a view (:mod:`memkg.store.views`) its dataset.

    Unrestricted: :func:`dataset_for` (one tenant plus the shared
    graphs, or every graph). Restricted: ``tenant`` must be one of the grant's
    (else :class:`Forbidden`); without one, the union of the grant's tenants and
    the shared graphs, never every graph.
    """
    if not grant.restricted:
        return dataset_for(tenant)
    if tenant is not None and tenant not in (grant.tenants or ()):
        raise Forbidden(f"tenant {tenant} is not one of this token's tenants")
    tenants = [tenant] if tenant is not None else sorted(grant.tenants or (), key=str)
    return {
        "default_graph": [*tenants, DefaultGraph(), ONTOLOGY_GRAPH],
        "named_graphs": grant.visible_named_graphs(),
        "use_default_graph_as_union": False,
    }


# -- writing ---------------------------------------------------------------------------


def can_write_graph(grant: Grant, graph: GraphName) -> bool:
    """Whether ``grant`` may add to or remove from ``graph``.

    A restricted grant writes only its own tenant graphs, and only with
    ``write``: the shared default graph is read-only for it, since whatever it
    wrote there every other tenant would read. No grant writes the ontology
    graph: it is memkg's copy of ``ontology/memkg.ttl``, refreshed from that file.
    """
    if not grant.write or graph == ONTOLOGY_GRAPH:
        return False
    if not grant.restricted:
        return True
    return isinstance(graph, NamedNode) and graph in (grant.tenants or ())


def require_write(grant: Grant) -> None:
    """Forbidden unless ``grant`` may write somewhere."""
    if not grant.write:
        raise Forbidden("this token is read-only")
