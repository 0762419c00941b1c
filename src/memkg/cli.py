"""The ``memkg`` command line: parse arguments, call one library method, format the result.

Library errors become command-line errors at one place, :func:`main`, with the
exit codes of the contract: 0 ok, 1 invalid data (nothing written), 2 a parse
or usage error (nothing written).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyoxigraph import (
    BlankNode,
    Literal,
    NamedNode,
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    QueryTriples,
    RdfFormat,
    Triple,
    serialize,
)

from . import __version__, views
from .errors import MemkgError, NotFoundError, ParseError, StoreLockedError, ValidationError
from .policy import PolicyError
from .store import DEFAULT_STORE_PATH, FORMAT_NAMES, MemoryStore, stderr_progress
from .tags import LaneError, ReservedLabelError
from .vocab import MEM, MEMX, PREFIXES, RDF

EXIT_OK, EXIT_INVALID, EXIT_ERROR = 0, 1, 2

RESULT_FORMATS = {
    "json": QueryResultsFormat.JSON,
    "xml": QueryResultsFormat.XML,
    "csv": QueryResultsFormat.CSV,
    "tsv": QueryResultsFormat.TSV,
}
GRAPH_FORMATS = {**FORMAT_NAMES}
QUERY_FORMATS = ["table", *RESULT_FORMATS, *GRAPH_FORMATS]


class UsageError(MemkgError):
    """A command line that cannot be carried out as written."""


# -- formatting ----------------------------------------------------------------------

_SHORT = {**PREFIXES, "memx": MEMX}


def short(term: Any) -> str:
    """A term for people: prefixed names, plain numbers and dates, quoted strings."""
    if term is None:
        return ""
    if isinstance(term, NamedNode):
        for prefix, ns in _SHORT.items():
            if term.value.startswith(ns) and term.value[len(ns):].replace("_", "a").isalnum():
                return f"{prefix}:{term.value[len(ns):]}"
        return f"<{term.value}>"
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    if isinstance(term, Literal):
        dt = term.datatype.value
        if term.language:
            return f'"{term.value}"@{term.language}'
        if dt.endswith("#string"):
            return f'"{term.value}"'
        return term.value
    if isinstance(term, Triple):
        return f"<<( {short(term.subject)} {short(term.predicate)} {short(term.object)} )>>"
    return str(term)


def print_table(solutions: QuerySolutions, out: Any) -> None:
    names = [v.value for v in solutions.variables]
    rows = [[short(row[n]) for n in names] for row in solutions]
    widths = [max([len(n), *(len(r[i]) for r in rows)]) for i, n in enumerate(names)]
    out.write("  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in rows:
        out.write("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n")
    out.write(f"({len(rows)} row{'s' if len(rows) != 1 else ''})\n")


def write_results(results: Any, fmt: str) -> None:
    out = sys.stdout
    if isinstance(results, QueryTriples):
        if fmt == "table":
            fmt = "turtle"
        if fmt not in GRAPH_FORMATS:
            raise UsageError(f"a CONSTRUCT or DESCRIBE result is a graph: use --format {'|'.join(GRAPH_FORMATS)}")
        rdf_fmt = GRAPH_FORMATS[fmt]
        prefixes = PREFIXES if rdf_fmt in (RdfFormat.TURTLE, RdfFormat.TRIG) else None
        out.flush()
        sys.stdout.buffer.write(serialize(results, format=rdf_fmt, prefixes=prefixes) or b"")
        return
    if fmt in GRAPH_FORMATS:
        raise UsageError(f"a SELECT or ASK result is a table: use --format {'|'.join(['table', *RESULT_FORMATS])}")
    if fmt == "table":
        if isinstance(results, QueryBoolean):
            out.write(("true" if bool(results) else "false") + "\n")
        else:
            print_table(results, out)
        return
    out.flush()
    sys.stdout.buffer.write(results.serialize(format=RESULT_FORMATS[fmt]) or b"")
    if fmt == "json":
        sys.stdout.buffer.write(b"\n")


# -- commands ------------------------------------------------------------------------


def open_store(args: argparse.Namespace, *, write: bool) -> MemoryStore:
    """Open the store for a command. Readers open it read-write too: Oxigraph calls a
    read-only open *undefined behaviour* while another process writes, whereas a
    read-write open fails cleanly (StoreLockedError) when a server holds the store."""
    if getattr(args, "endpoint", None):
        from .remote import RemoteStore, token_from_env

        remote = RemoteStore(args.endpoint, update_url=args.update_endpoint, dialect=args.endpoint_dialect,
                             token=token_from_env(args.token), read_only=not write)
        args.store = remote.client.endpoint  # messages name where the data went (never a password)
        return remote
    path = Path(args.store)
    if not write and not path.exists():
        raise UsageError(f"no store at {path}; load something first: memkg --store {path} load FILE…")
    return MemoryStore(path)


def cmd_load(args: argparse.Namespace) -> int:
    progress = stderr_progress()
    with open_store(args, write=True) as store:
        report = store.load(*args.files, graph=args.graph, format=args.format, progress=progress)
    if progress:
        sys.stderr.write("\r\x1b[K")
    where = f" into graph <{args.graph}>" if args.graph else ""
    print(
        f"loaded {report.parsed:,} quads from {len(report.files)} file(s){where}: "
        f"{report.added:,} new (index included), store {args.store}"
    )
    return EXIT_OK


def read_query_argument(text: str) -> str:
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise UsageError(f"{path}: no such query file")
        return path.read_text(encoding="utf-8")
    return text


def cmd_query(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        results = store.query(read_query_argument(args.query), use_default_graph_as_union=args.union)
        write_results(results, args.format)
    return EXIT_OK


def parse_params(pairs: Sequence[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--param takes key=value, got {pair!r}")
        params[key.strip()] = value
    return params


def cmd_view(args: argparse.Namespace) -> int:
    if args.list or not args.name:
        for v in views.list_views():
            params = ", ".join(
                f"{p.name}{'' if p.required else '?'}" for p in v.params
            )
            print(f"{v.name:<16} {v.description}  [{params}]")
        return EXIT_OK
    params = parse_params(args.param)
    if args.tenant:
        params["tenant"] = args.tenant
    with open_store(args, write=False) as store:
        write_results(store.view(args.name, params), args.format)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        data = store.export(
            args.output,
            format=args.format,
            graph=args.graph,
            with_index=args.with_index,
            with_ontology=args.with_ontology,
        )
    if data is not None:
        sys.stdout.buffer.write(data)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from .validation import validate_files, validate_store

    if args.files:
        report = validate_files(args.files, engine=args.engine, extra_shapes=args.shapes, format=args.input_format)
    else:
        with open_store(args, write=False) as store:
            report = validate_store(store, engine=args.engine, extra_shapes=args.shapes)
    if args.format == "json":
        print(report.to_json())
    elif args.format == "turtle":
        sys.stdout.write(report.to_turtle())
    else:
        sys.stdout.write(report.to_text())
    return EXIT_OK if report.conforms else EXIT_INVALID


STATS_QUERY = f"""
SELECT ?g ?class (COUNT(DISTINCT ?x) AS ?n) WHERE {{
  GRAPH ?g {{ ?x a ?class }}
  FILTER(?g != <https://w3id.org/memkg>)
}} GROUP BY ?g ?class ORDER BY ?g DESC(?n) ?class
"""


def cmd_stats(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        graphs: dict[str, list[tuple[str, int]]] = {}
        for row in store.query(STATS_QUERY):
            graphs.setdefault(short(row["g"]), []).append((short(row["class"]), int(row["n"].value)))
        default = store.query(
            "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
        )
        n_default = int(next(iter(default))["n"].value)
        total = len(store)
        print(f"store {args.store}: {total:,} quads (index and ontology included)")
        print(f"default graph: {n_default:,} triples")
        for g, counts in graphs.items():
            print(f"graph {g}:")
            for cls, n in counts:
                print(f"  {n:>7,}  {cls}")
    return EXIT_OK


def parse_term(text: str) -> Any:
    """A term as written in Turtle: <iri>, a prefixed name (mem:, prov:, rdf:, rdfs:, xsd:, owl:),
    "a literal", "x"@en, "1"^^xsd:decimal, 42, true. Parsed by pyoxigraph, never pasted into queries."""
    from pyoxigraph import RdfFormat, parse

    head = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in PREFIXES.items())
    try:
        (quad,) = list(parse(f'{head}<urn:memkg:s> <urn:memkg:p> {text} .', format=RdfFormat.TURTLE))
    except (SyntaxError, ValueError):
        raise UsageError(f"not an RDF term: {text!r} (write <iri>, prefix:name, \"text\", 42 or true)") from None
    return quad.object


def parse_time(text: str | None) -> Any:
    from datetime import datetime

    if text is None:
        return None
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"not a date-time: {text!r} (write 2026-01-01T00:00:00Z)") from None
    if t.tzinfo is None:
        raise UsageError(f"{text!r} has no timezone: memkg times carry one (…Z or …+01:00)")
    return t


def cmd_supersede(args: argparse.Namespace) -> int:
    from dataclasses import replace

    with open_store(args, write=True) as store:
        old, graph = store.get_claim(args.claim, graph=args.graph)
        new = replace(
            old,
            id=args.id,
            subject=parse_term(args.subject) if args.subject else old.subject,
            predicate=parse_term(args.predicate) if args.predicate else old.predicate,
            object=parse_term(args.object) if args.object else old.object,
            confidence=float(args.confidence) if args.confidence is not None else old.confidence,
            valid_from=parse_time(args.valid_from) if args.valid_from else old.valid_from,
            valid_until=parse_time(args.valid_until) if args.valid_until else old.valid_until,
            asserted_by=parse_term(args.asserted_by) if args.asserted_by else old.asserted_by,
            extra=[],
        )
        node = store.supersede(old.node(), new, graph=graph)
    print(node.value)
    return EXIT_OK


def cmd_retract(args: argparse.Namespace) -> int:
    with open_store(args, write=True) as store:
        node = store.retract(*args.targets, reason=args.reason, graph=args.graph)
    print(node.value)
    return EXIT_OK


def cmd_ingest(args: argparse.Namespace) -> int:
    from .ingest import IngestError, ingest_file

    with open_store(args, write=True) as store:
        try:
            report = ingest_file(store, args.file, graph=args.graph)
        except IngestError as err:
            print(f"memkg: {err}", file=sys.stderr)
            return EXIT_INVALID
    print(f"ingested {report.lines} line(s) from {args.file}: {len(report.versions)} new version(s), "
          f"{report.unchanged} unchanged")
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    from . import timeline

    with open_store(args, write=False) as store:
        versions = timeline.history(store, args.claim, tenant=args.tenant)
    for v in versions:
        print(f"{short(v.recorded_at) or '(no recordedAt)'}  {short(v.claim)}")
        print(f"    {short(v.subject)} {short(v.predicate)} {short(v.object)}")
        valid = f"[{short(v.valid_from) or '-∞'}, {short(v.valid_until) or '∞'})"
        print(f"    valid {valid}")
        blame = [
            ("asserted by", v.asserted_by),
            ("from", v.attributed_to),
            ("generated by", v.generated_by),
            ("run by", v.agents),
        ]
        for label, nodes in blame:
            if nodes:
                print(f"    {label} {', '.join(short(n) for n in nodes)}")
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    from . import timeline

    with open_store(args, write=False) as store:
        change = timeline.diff(store, parse_time(args.from_time), parse_time(args.to_time), tenant=args.tenant)
    for sign, rows in (("+", change.added), ("-", change.removed)):
        for claim, s, p, o in rows:
            print(f"{sign} {short(claim)}  {short(s)} {short(p)} {short(o)}")
    print(f"({len(change.added)} added, {len(change.removed)} removed)")
    return EXIT_OK


def cmd_bisect(args: argparse.Namespace) -> int:
    from . import timeline

    with open_store(args, write=False) as store:
        found = timeline.bisect(store, read_query_argument(args.ask), tenant=args.tenant)
    answer = lambda b: "true" if b else "false"  # noqa: E731
    if found.first is None:
        print(f"never flips: {answer(found.before)} throughout ({found.steps} questions)")
    else:
        stamp = found.first.isoformat().replace("+00:00", "Z")
        print(f"{stamp}: {answer(found.before)} → {answer(found.after)} ({found.steps} questions)")
    return EXIT_OK


def cmd_index(args: argparse.Namespace) -> int:
    if args.action == "rebuild":
        with open_store(args, write=True) as store:
            store.rebuild_index()
        print("claim index rebuilt")
        return EXIT_OK
    with open_store(args, write=False) as store:
        report = store.check_index()
    for g, r, part in report.missing:
        print(f"missing: {r} in {g}: no index triple for its {part}")
    for g, r, part in report.orphaned:
        print(f"orphaned: {r} in {g}: index {part} matches no rdf:reifies triple")
    if report.consistent:
        print("claim index consistent")
        return EXIT_OK
    return EXIT_INVALID


# -- edge properties (memkg.tags) -------------------------------------------------------

TAG_WRITES = {"add", "update", "remove", "connect", "disconnect", "group", "ungroup", "adjusts", "unadjust"}


def _print_change(change: Any) -> None:
    if change.version is None:
        print(f"{change.record.value}: nothing changed")
    else:
        print(f"{change.record.value}: new version {change.version.value}")
    for what, items in (("added", change.added), ("removed", change.removed),
                        ("already held", change.already_held), ("not held", change.not_held)):
        for p in items:
            print(f"  {what}: {p}")
    for r in change.rejected:
        print(f"  rejected: {r.text} ({r.reason})")


def cmd_tags(args: argparse.Namespace) -> int:
    from .policy import Policy
    from .tags import Tags

    policy = Policy.load(args.policy) if getattr(args, "policy", None) else None
    a = args.action
    with open_store(args, write=a in TAG_WRITES) as store:
        tags = Tags(store, graph=args.graph, policy=policy)
        as_of = parse_time(getattr(args, "as_of", None))
        if a == "add":
            _print_change(tags.add(args.record, args.props, lane=args.lane, source_type=args.source_type))
        elif a == "update":
            _print_change(tags.update(args.record, args.props, lane=args.lane, source_type=args.source_type))
        elif a == "remove":
            _print_change(tags.remove(args.record, args.label, args.values or None))
        elif a in ("connect", "disconnect", "group", "ungroup", "adjusts", "unadjust"):
            if a == "connect":
                link = tags.connect(args.a, args.b)
            elif a == "disconnect":
                link = tags.disconnect(args.a, args.b)
            elif a == "group":
                link = tags.group(args.records, into=args.into)
            elif a == "ungroup":
                link = tags.ungroup(args.value, args.records or None)
            elif a == "adjusts":
                link = tags.adjusts(args.new, args.old)
            else:
                link = tags.unadjust(args.record)
            print(link.edge if link.edge is not None else "no hyperedge")
            for change in link.changes:
                _print_change(change)
        elif a == "show":
            if args.history:
                for v in tags.history(args.record):
                    props = ", ".join(sorted(map(str, v.properties))) or "(none)"
                    print(f"{v.recorded_at.isoformat()}  {v.iri.value}  [{v.schema}]  {props}")
            else:
                for d in tags.properties(args.record, as_of=as_of):
                    print(f"{d.id}  {d.label}:{d.value}")
        elif a == "labels":
            rows = [(lc.label, str(lc.records), str(lc.values)) for lc in tags.labels(as_of=as_of)]
            _print_rows(("label", "records", "values"), rows)
        elif a == "values":
            _print_rows(("value", "records"), [(v, str(n)) for v, n in tags.values(args.label, as_of=as_of)])
        elif a in ("intersect", "union"):
            records = (tags.intersect if a == "intersect" else tags.union)(args.props, as_of=as_of)
            if args.count:
                print(len(records))
            else:
                for r in records:
                    print(r.value)
        elif a == "timeline":
            for r, t in tags.timeline(args.props, mode="any" if args.any else "all", as_of=as_of):
                print(f"{t.isoformat() if t else '-'}  {r.value}")
        elif a == "traverse":
            for s in tags.traverse(args.record, depth=args.depth, labels=args.label or None, limit=args.limit,
                                   as_of=as_of):
                print(f"{s.depth}  {s.record.value}  via {s.via}  from {s.source.value}")
        elif a == "chain":
            for r in tags.chain(args.record, as_of=as_of):
                print(r.value)
    return EXIT_OK


def _print_rows(names: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max([len(n), *(len(r[i]) for r in rows)]) for i, n in enumerate(names)]
    print("  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def cmd_policy(args: argparse.Namespace) -> int:
    from .policy import Policy

    policy = Policy.load(args.file)
    if args.action == "shapes":
        text = policy.shapes_turtle(include_base=not args.policy_only)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return EXIT_OK
    for lane in sorted(policy.lanes.values(), key=lambda lane: lane.name):
        print(f"lane {lane.name}: {'closed' if lane.closed else 'open'}")
        for st in sorted(lane.source_types.values(), key=lambda s: s.name):
            rules = ", ".join(f"{r.label}" + ("" if r.values is None and r.pattern is None else f" ({r.explain()})")
                              for r in sorted(st.labels.values(), key=lambda r: r.label))
            print(f"  source type {st.name}: {rules or 'no labels'}")
    return EXIT_OK



# -- provenance and evidence (memkg.provenance, memkg.evidence, memkg.extraction) ----------


def _iri_or_blank(term: Any) -> str:
    return "" if term is None else short(term)


def _emit_json(data: Any) -> None:
    import json

    print(json.dumps(data, indent=2, ensure_ascii=False))


def cmd_lineage(args: argparse.Namespace) -> int:
    from .provenance import lineage

    with open_store(args, write=False) as store:
        lin = lineage(store, args.claim, tenant=args.tenant)
    if args.format == "json":
        _emit_json({
            "claim": lin.claim.value,
            "links": [{"from": str(k.node), "kind": k.kind, "source": str(k.source),
                       "group": None if k.group is None else str(k.group), "support": k.is_support}
                      for k in lin.links],
            "grounds": [str(n) for n in lin.grounds],
            "openEnds": [str(n) for n in lin.open_ends],
        })
        return EXIT_OK
    _print_rows(["from", "kind", "source", "group"],
                [[short(k.node), k.kind, short(k.source), _iri_or_blank(k.group)] for k in lin.links])
    print("grounds: " + (" ".join(short(n) for n in lin.grounds) or "none"))
    print("open ends: " + (" ".join(short(n) for n in lin.open_ends) or "none"))
    return EXIT_OK


def cmd_dependents(args: argparse.Namespace) -> int:
    from .provenance import impact

    with open_store(args, write=False) as store:
        found = impact(store, args.source, tenant=args.tenant, with_downstream=args.all)
    if args.format == "json":
        _emit_json({"source": args.source, "fallen": [n.value for n in found.fallen],
                    "weakened": [n.value for n in found.weakened],
                    "downstream": [n.value for n in found.downstream]})
        return EXIT_OK
    for n in found.fallen:
        print(n.value)
    if args.all:
        for n in found.weakened:
            print(f"{n.value}\tweakened")
        for n in found.downstream:
            print(f"{n.value}\tdownstream")
    return EXIT_OK


def cmd_support(args: argparse.Namespace) -> int:
    from .provenance import minimal_support, support

    with open_store(args, write=False) as store:
        s = support(store, args.claim, tenant=args.tenant)
        sets = minimal_support(store, args.claim, tenant=args.tenant) if args.minimal else None
    if args.format == "json":
        _emit_json({
            "claim": s.claim.value, "status": s.status, "stands": s.stands,
            "groups": [{"group": None if g.node is None else str(g.node), "members": [str(m) for m in g.members],
                        "stands": g.stands, "failing": [str(m) for m in g.failing]} for g in s.groups],
            "withdrawnBy": [str(w) for w in s.withdrawn_by], "refutedBy": [str(r) for r in s.refuted_by],
            **({"minimal": [sorted(str(m) for m in ms) for ms in sets]} if sets is not None else {}),
        })
        return EXIT_OK
    print(f"{short(s.claim)}: {s.status}" + (" (stands)" if s.stands else " (does not stand)"))
    _print_rows(["group", "members", "stands", "failing"],
                [[_iri_or_blank(g.node) or "(leg)", " ".join(short(m) for m in g.members),
                  "yes" if g.stands else "no", " ".join(short(m) for m in g.failing)] for g in s.groups])
    for r in s.refuted_by:
        print(f"refuted by {short(r)} (unresolved)")
    for ms in sets or ():
        print("minimal: " + " ".join(sorted(short(m) for m in ms)))
    return EXIT_OK


def cmd_withdraw(args: argparse.Namespace) -> int:
    from .provenance import withdraw

    with open_store(args, write=True) as store:
        result = withdraw(store, args.source, reason=args.reason, graph=args.graph)
    print(result.retraction.value)
    for label, nodes in (("fallen", result.fallen), ("weakened", result.weakened),
                         ("downstream", result.impact.downstream)):
        for n in nodes:
            print(f"{n.value}\t{label}")
    return EXIT_OK


def cmd_erase(args: argparse.Namespace) -> int:
    from .provenance import erase

    with open_store(args, write=True) as store:
        result = erase(store, args.source, reason=args.reason, graph=args.graph)
    print(result.record.value)
    for n in result.removed:
        print(f"{n}\tremoved")
    for n in result.kept:
        print(f"{n.value}\tkept")
    print(f"{result.quads_removed} quads removed", file=sys.stderr)
    return EXIT_OK


def cmd_packet(args: argparse.Namespace) -> int:
    from .evidence import packet

    with open_store(args, write=False) as store:
        p = packet(store, args.claims, tenant=args.tenant, max_vertices=args.max_vertices,
                   max_hops=args.max_hops, strict=args.strict)
    sys.stdout.write(p.to_json() + "\n" if args.format == "json" else p.to_turtle())
    if not p.complete:
        print(f"memkg: the budget cannot hold the mandatory evidence: {len(p.omitted)} item(s) left out "
              "(listed in the packet)", file=sys.stderr)
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from .evidence import verify

    with open_store(args, write=False) as store:
        v = verify(store, args.end, tenant=args.tenant)
    _print_rows(["depth", "stage", "kind", "verdict", "reason"],
                [[str(st.depth), short(st.node), st.kind, st.verdict, st.reason] for st in v.stages])
    print(f"verdict: {v.verdict}")
    for n in v.entered_at:
        print(f"unsupported content entered at {short(n)}")
    return EXIT_OK if v.verdict != "not supported" else EXIT_INVALID


def cmd_assess(args: argparse.Namespace) -> int:
    from .evidence import assess

    with open_store(args, write=False) as store:
        a = assess(store, args.claim, tenant=args.tenant, default_reliability=args.default_reliability)
    def num(x: float | None) -> str:
        return "not recorded" if x is None else f"{x:g}"
    print(f"claim confidence (recorded):      {num(a.confidence)}")
    print(f"extraction confidence (recorded): {num(a.extraction_confidence)}")
    print(f"evidence (independent support):   {num(a.evidence)} from {a.independent} independent piece(s)")
    print(f"memory utility:                   {num(a.utility)}")
    for c in a.clusters:
        legs = "; ".join(" + ".join(short(m) for m in g.members) for g in c.alternatives)
        shared = f" (shared: {' '.join(short(n) for n in c.shared)})" if c.shared else ""
        print(f"  {c.strength:g}  {legs}{shared}")
    for n, r in sorted(a.reliabilities.items(), key=lambda kv: str(kv[0])):
        print(f"  reliability {short(n)} = {r:g}" + (" (assumed)" if n in a.assumed else ""))
    return EXIT_OK


def cmd_extract(args: argparse.Namespace) -> int:
    from . import extraction

    extractor = {"sentences": extraction.SENTENCES, "constrained": extraction.CONSTRAINED,
                 "abstaining": extraction.ABSTAINING}[args.extractor]
    with open_store(args, write=True) as store:
        result = extraction.extract(store, args.source, extractor=extractor, graph=args.graph,
                                    **({"predicate": args.predicate} if args.predicate else {}))
    print(result.extraction.value)
    for claim, span in zip(result.claims, result.spans):
        flags = f" [{', '.join(sorted(span.flags))}]" if span.flags else ""
        print(f"{claim.value}\t{span.text}{flags}")
    for a in result.abstentions:
        print(f"abstained\t{a.text}\t{a.reason}")
    return EXIT_OK


def cmd_echoes(args: argparse.Namespace) -> int:
    from .provenance import accept_echoes, propose_echoes

    with open_store(args, write=args.accept) as store:
        proposals = propose_echoes(store, tenant=args.tenant, threshold=args.threshold)
        if args.accept and proposals:
            accept_echoes(store, proposals, graph=args.tenant)
    for p in proposals:
        print(f"{p.score:.4f}\t{p.echo.value}\techoOf\t{p.original.value}")
    if args.accept:
        print(f"{len(proposals)} echo link(s) recorded", file=sys.stderr)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from .endpoint import ServeOptions, serve

    if args.timeout is not None and args.timeout < 0:
        raise UsageError("--timeout takes a number of seconds (0: no limit)")
    if args.workers < 0:
        raise UsageError("--workers takes a positive number (0: two per CPU)")
    options = ServeOptions(
        store=Path(args.store),
        host=args.host,
        port=args.port,
        tokens=Path(args.tokens) if args.tokens else None,
        read_only=args.read_only,
        timeout=args.timeout or None,
        workers=args.workers,
        log_requests=args.log_requests,
    )
    return serve(options)


# -- argument parsing ----------------------------------------------------------------


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memkg",
        description="memkg: an AI agent's memory as an RDF 1.2 knowledge graph.",
        epilog=(
            "examples:\n"
            "  memkg load examples/lia-tea.trig\n"
            "  memkg view current\n"
            "  memkg query 'SELECT ?c WHERE { GRAPH ?g { ?c a mem:Claim } }'\n"
            "\nexit codes: 0 ok; 1 invalid data or inconsistency (nothing written); "
            "2 parse or usage error (nothing written)"
        ),
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"memkg {__version__}")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--store",
        default=str(DEFAULT_STORE_PATH),
        metavar="PATH",
        help="the store directory (default: ./memkg-store)",
    )
    where.add_argument("--endpoint", metavar="URL",
                       help="use a running SPARQL 1.1 server instead of a store directory (see memkg.remote)")
    parser.add_argument("--update-endpoint", metavar="URL",
                        help="the server's update URL (default: the endpoint, or …/update for …/query)")
    parser.add_argument("--endpoint-dialect", default="auto", choices=["auto", "rdf12", "rdf11"],
                        help="rdf12: the server stores triple terms; rdf11: memkg encodes them (Virtuoso); "
                             "auto: ask the server (default)")
    parser.add_argument("--token", metavar="TOKEN", help="bearer token for the endpoint (default: $MEMKG_TOKEN)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, example: str, func: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name, help=help, description=help, epilog=f"example:\n  {example}", formatter_class=_Formatter
        )
        p.set_defaults(func=func)
        return p

    p = command(
        "load",
        "Load Turtle, TriG, N-Triples or N-Quads 1.2 files in one atomic, validated write.",
        "memkg load examples/lia-tea.trig --graph https://example.org/tenants/lia",
        cmd_load,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="files to load (format from the extension)")
    p.add_argument("--graph", metavar="IRI", help="graph for the files' default-graph triples (a tenant)")
    p.add_argument("--format", choices=sorted(FORMAT_NAMES), help="force the input format")

    p = command(
        "query",
        "Run a SPARQL 1.2 query (text, or @file.rq); mem:, prov:, rdf:, rdfs:, xsd:, owl: are predeclared.",
        "memkg query 'SELECT ?c WHERE { GRAPH ?g { ?c rdf:reifies <<( ?s ?p ?o )>> } }' --format json",
        cmd_query,
    )
    p.add_argument("query", metavar="QUERY", help="the query text, or @FILE to read it from a file")
    p.add_argument("--format", default="table", choices=QUERY_FORMATS, help="output format (default: table)")
    p.add_argument(
        "--union", action="store_true", help="query the union of all graphs as the default graph"
    )

    p = command(
        "view",
        "Run a query template from queries/ by name, with parameters bound as RDF terms.",
        "memkg view current --tenant https://example.org/tenants/lia",
        cmd_view,
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the view (see --list)")
    p.add_argument("--list", action="store_true", help="list the views and their parameters")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a parameter (repeatable)")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")
    p.add_argument("--format", default="table", choices=QUERY_FORMATS, help="output format (default: table)")

    p = command(
        "export",
        "Write the store's data (index triples and the ontology left out unless asked).",
        "memkg export --format nquads -o backup.nq",
        cmd_export,
    )
    p.add_argument("--format", default="trig", choices=sorted(FORMAT_NAMES), help="output format (default: trig)")
    p.add_argument("--graph", metavar="IRI", help="export only this graph")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--with-index", action="store_true", help="include memkg's claim-index triples")
    p.add_argument("--with-ontology", action="store_true", help="include the ontology graph")

    p = command(
        "validate",
        "Check files (or, without files, the whole store) against memkg's invariants; exit 1 on violations.",
        "memkg validate examples/*.trig --format json",
        cmd_validate,
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="files to validate (default: the store)")
    p.add_argument("--format", default="text", choices=["text", "turtle", "json"],
                   help="report format: text (one line per result), turtle (sh:ValidationReport), json")
    p.add_argument("--engine", default="native", choices=["native", "pyshacl"],
                   help="native (shapes compiled to SPARQL, default) or pyshacl (the reference)")
    p.add_argument("--shapes", action="append", default=[], metavar="FILE",
                   help="your own SHACL shapes, checked with memkg's (repeatable)")
    p.add_argument("--input-format", choices=sorted(FORMAT_NAMES), help="force the files' format")

    command(
        "stats",
        "Show what is in memory: quads, and things by class in each graph.",
        "memkg stats",
        cmd_stats,
    )

    p = command(
        "supersede",
        "Record a new version of a claim (nothing is overwritten): prints the new claim's IRI.",
        "memkg supersede https://example.org/lia/cName1 --object '\"Amy\"' --graph https://example.org/tenants/lia",
        cmd_supersede,
    )
    p.add_argument("claim", metavar="CLAIM", help="the IRI of the claim to supersede")
    p.add_argument("--object", metavar="TERM", help="the new object (<iri>, prefix:name, \"text\", 42)")
    p.add_argument("--subject", metavar="TERM", help="a new subject (default: the old one)")
    p.add_argument("--predicate", metavar="TERM", help="a new predicate (default: the old one)")
    p.add_argument("--confidence", type=float, metavar="X", help="the new version's confidence in [0, 1]")
    p.add_argument("--valid-from", metavar="TIME", help="start of validity, e.g. 2026-03-01T00:00:00Z")
    p.add_argument("--valid-until", metavar="TIME", help="end of validity (exclusive)")
    p.add_argument("--asserted-by", metavar="TERM", help="the message that asserts the new version")
    p.add_argument("--id", metavar="IRI", help="the new claim's IRI (default: minted)")
    p.add_argument("--graph", metavar="IRI", help="the tenant graph (default: the old claim's)")

    p = command(
        "retract",
        "Withdraw claims (or sources) from current knowledge, recording a mem:Retraction; prints its IRI.",
        "memkg retract https://example.org/lia/c2 --reason 'Lia corrected it' --graph https://example.org/tenants/lia",
        cmd_retract,
    )
    p.add_argument("targets", nargs="+", metavar="IRI", help="the claims or sources to withdraw")
    p.add_argument("--reason", help="why (kept as mem:reason)")
    p.add_argument("--graph", metavar="IRI", help="the tenant graph")

    p = command(
        "ingest",
        "Ingest JSON Lines memory nodes (one per line, versioned by id) in one atomic write.",
        "memkg ingest notes.jsonl --graph https://example.org/tenants/lia",
        cmd_ingest,
    )
    p.add_argument("file", metavar="FILE.jsonl", help='lines like {"id": …, "content": …, "content_kind": '
                   '"note"|"claim", "provenance": {…}, "event_time": …}')
    p.add_argument("--graph", metavar="IRI", help="the tenant graph")

    p = command(
        "history",
        "Every version of a claim, oldest first, with who recorded each and from what (blame).",
        "memkg history https://example.org/lia/cName1",
        cmd_history,
    )
    p.add_argument("claim", metavar="IRI", help="any version of the claim")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")

    p = command(
        "diff",
        "Claims added to and removed from current knowledge between two transaction times.",
        "memkg diff --from 2026-01-02T00:00:00Z --to 2026-02-23T00:00:00Z",
        cmd_diff,
    )
    p.add_argument("--from", dest="from_time", required=True, metavar="TIME", help="the earlier transaction time")
    p.add_argument("--to", dest="to_time", required=True, metavar="TIME", help="the later transaction time")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")

    p = command(
        "bisect",
        "The first transaction time at which an ASK over current knowledge (the audit view) flips.",
        "memkg bisect --ask 'ASK { <https://example.org/lia/Lia> mem:displayName \"Amelia\" }'",
        cmd_bisect,
    )
    p.add_argument("--ask", required=True, metavar="QUERY", help="an ASK query (text or @file.rq), asked of "
                   "the claims known and valid at each transaction time, as plain triples")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")

    p = command(
        "index",
        "Check the claim index against the data (exit 1 if inconsistent), or rebuild it.",
        "memkg index check",
        cmd_index,
    )
    p.add_argument("action", choices=["check", "rebuild"], help="check or rebuild")

    p = command(
        "tags",
        "Edge properties (label:value hyperedges over records): write, list and gather them.",
        "memkg tags intersect org:Acme person:Sarah --graph https://example.org/tenants/acme",
        cmd_tags,
    )
    tag_sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    def tag_action(name: str, help: str, example: str) -> argparse.ArgumentParser:
        q = tag_sub.add_parser(name, help=help, description=help, epilog=f"example:\n  {example}",
                               formatter_class=_Formatter)
        q.add_argument("--graph", metavar="IRI", help="the tenant graph (default: the shared default graph)")
        q.add_argument("--policy", metavar="FILE", help="a policy (TOML) every write must keep")
        return q

    def as_of(q: argparse.ArgumentParser) -> None:
        q.add_argument("--as-of", metavar="TIME", help="read the store as it was at this transaction time")

    for name, help, example in (
        ("add", "Add properties to a record (values it holds are reported, not repeated; e_ labels are rejected).",
         "memkg tags add https://example.org/acme/m1 org:Acme person:Sarah 'topic:contract renewal'"),
        ("update", "Replace all values of each label named; other labels stay. Changing nothing writes nothing.",
         "memkg tags update https://example.org/acme/m1 topic:pricing"),
    ):
        q = tag_action(name, help, example)
        q.add_argument("record", metavar="RECORD", help="the record's IRI")
        q.add_argument("props", nargs="+", metavar="LABEL:VALUE", help="properties (no colon: label general)")
        q.add_argument("--lane", metavar="NAME", help="the record's lane (fixed at its first version)")
        q.add_argument("--source-type", metavar="NAME", help="the record's source type in its lane")
    q = tag_action("remove", "Remove a label (all its values) or only the values given.",
                   "memkg tags remove https://example.org/acme/m1 topic renewal")
    q.add_argument("record", metavar="RECORD", help="the record's IRI")
    q.add_argument("label", metavar="LABEL", help="the label")
    q.add_argument("values", nargs="*", metavar="VALUE", help="only these values (default: every value)")
    for name, help in (("connect", "Join two records with an e_connect hyperedge."),
                       ("disconnect", "Remove the e_connect hyperedge between two records.")):
        q = tag_action(name, help, f"memkg tags {name} https://example.org/acme/m1 https://example.org/acme/m2")
        q.add_argument("a", metavar="RECORD")
        q.add_argument("b", metavar="RECORD")
    q = tag_action("group", "Join two or more records with an e_group hyperedge (or add them to one with --into).",
                   "memkg tags group https://example.org/acme/m1 https://example.org/acme/m2 https://example.org/acme/m3")
    q.add_argument("records", nargs="+", metavar="RECORD")
    q.add_argument("--into", metavar="VALUE", help="an existing group's value (e_group_…)")
    q = tag_action("ungroup", "Take records out of a group (all without RECORD); below two members it dissolves.",
                   "memkg tags ungroup e_group_0123456789abcdef0123456789abcdef")
    q.add_argument("value", metavar="VALUE", help="the group's value (e_group_…)")
    q.add_argument("records", nargs="*", metavar="RECORD")
    q = tag_action("adjusts", "Record that NEW adjusts OLD: both join OLD's e_adjustment chain.",
                   "memkg tags adjusts https://example.org/acme/m3 https://example.org/acme/m1")
    q.add_argument("new", metavar="NEW")
    q.add_argument("old", metavar="OLD")
    q = tag_action("unadjust", "Take a record out of its adjustment chain.",
                   "memkg tags unadjust https://example.org/acme/m3")
    q.add_argument("record", metavar="RECORD")
    q = tag_action("show", "A record's properties with their stable ids (ep_…), or every version with --history.",
                   "memkg tags show https://example.org/acme/m1 --history")
    q.add_argument("record", metavar="RECORD")
    q.add_argument("--history", action="store_true", help="every version, oldest first")
    as_of(q)
    q = tag_action("labels", "Every label in use, with how many records carry it and its distinct values.",
                   "memkg tags labels --graph https://example.org/tenants/acme")
    as_of(q)
    q = tag_action("values", "The values of a label, with how many records carry each.", "memkg tags values org")
    q.add_argument("label", metavar="LABEL")
    as_of(q)
    for name, help in (("intersect", "The records carrying every property given."),
                       ("union", "The records carrying any property given.")):
        q = tag_action(name, help, f"memkg tags {name} org:Acme person:Sarah --count")
        q.add_argument("props", nargs="+", metavar="LABEL:VALUE")
        q.add_argument("--count", action="store_true", help="print how many, not which")
        as_of(q)
    q = tag_action("timeline", "The records of intersect (or union, with --any), oldest first.",
                   "memkg tags timeline org:Acme --any")
    q.add_argument("props", nargs="+", metavar="LABEL:VALUE")
    q.add_argument("--any", action="store_true", help="any property (union) instead of every (intersect)")
    as_of(q)
    q = tag_action("traverse", "From a record along its shared properties to other records.",
                   "memkg tags traverse https://example.org/acme/m1 --depth 2 --label person")
    q.add_argument("record", metavar="RECORD")
    q.add_argument("--depth", type=int, default=1, help="hops at most (default 1)")
    q.add_argument("--label", action="append", metavar="LABEL", help="follow only this label (repeatable)")
    q.add_argument("--limit", type=int, metavar="N", help="stop after N records")
    as_of(q)
    q = tag_action("chain", "The adjustment chain a record belongs to, in time order.",
                   "memkg tags chain https://example.org/acme/m1")
    q.add_argument("record", metavar="RECORD")
    as_of(q)

    p = command(
        "policy",
        "Lanes and source types: show a policy file, or write the SHACL shapes that enforce it.",
        "memkg policy shapes policy.toml -o policy-shapes.ttl && memkg validate --shapes policy-shapes.ttl",
        cmd_policy,
    )
    p.add_argument("action", choices=["show", "shapes"], help="show the lanes, or write the shapes (Turtle)")
    p.add_argument("file", metavar="FILE", help="the policy (TOML)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the shapes to FILE instead of standard output")
    p.add_argument("--policy-only", action="store_true", help="leave memkg's edge-property invariants out")

    p = command(
        "lineage",
        "Every source a claim reaches through support, derivation or echo links, with the kind of each link.",
        "memkg lineage https://example.org/acme/cAnswerLoss --tenant https://example.org/tenants/acme",
        cmd_lineage,
    )
    p.add_argument("claim", metavar="CLAIM", help="the claim's IRI")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")
    p.add_argument("--format", default="table", choices=["table", "json"], help="output format (default: table)")

    p = command(
        "dependents",
        "The claims that lose all support if SOURCE is withdrawn (recursively); nothing is written.",
        "memkg dependents https://example.org/acme/adr --tenant https://example.org/tenants/acme",
        cmd_dependents,
    )
    p.add_argument("source", metavar="SOURCE", help="the source (message, document, claim) to withdraw")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")
    p.add_argument("--all", action="store_true", help="also the claims that would weaken or are drawn from it")
    p.add_argument("--format", default="table", choices=["table", "json"], help="output format (default: table)")

    p = command(
        "support",
        "A claim's support groups and whether each still stands (recursively).",
        "memkg support https://example.org/acme/cMigration --minimal",
        cmd_support,
    )
    p.add_argument("claim", metavar="CLAIM", help="the claim's IRI")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")
    p.add_argument("--minimal", action="store_true", help="also the minimal support sets (grounds)")
    p.add_argument("--format", default="table", choices=["table", "json"], help="output format (default: table)")

    p = command(
        "withdraw",
        "Withdraw a source: record a mem:Retraction of it and list the claims to re-evaluate (fallen, weakened, "
        "downstream).",
        "memkg withdraw https://example.org/acme/benchmark --reason 'misconfigured host' "
        "--graph https://example.org/tenants/acme",
        cmd_withdraw,
    )
    p.add_argument("source", metavar="SOURCE", help="the source to withdraw")
    p.add_argument("--reason", required=True, help="why (kept as mem:reason)")
    p.add_argument("--graph", metavar="IRI", help="the tenant graph")

    p = command(
        "erase",
        "Erase a source (consent revoked) and what was derived only from it; records the erasure by identifier.",
        "memkg erase https://example.org/acme/benchmark --reason 'consent revoked' "
        "--graph https://example.org/tenants/acme",
        cmd_erase,
    )
    p.add_argument("source", metavar="SOURCE", help="the source to erase")
    p.add_argument("--reason", required=True, help="why (kept as mem:reason on the record)")
    p.add_argument("--graph", metavar="IRI", help="the tenant graph")

    p = command(
        "packet",
        "An evidence packet for a reader: mandatory provenance, competing and qualifying claims, within budgets.",
        "memkg packet https://example.org/acme/cSelection --max-vertices 20 --format json",
        cmd_packet,
    )
    p.add_argument("claims", nargs="+", metavar="CLAIM", help="the seed claims")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")
    p.add_argument("--max-vertices", type=int, default=50, metavar="N", help="vertex budget (default 50)")
    p.add_argument("--max-hops", type=int, default=3, metavar="N", help="hop budget (default 3)")
    p.add_argument("--strict", action="store_true",
                   help="fail (exit 2) instead of reporting when the budget cannot hold the mandatory evidence")
    p.add_argument("--format", default="turtle", choices=["turtle", "json"], help="output format (default: turtle)")

    p = command(
        "verify",
        "Walk a derivation chain back from its end, with a verdict per stage; exit 1 if the end is not supported.",
        "memkg verify https://example.org/acme/answer --tenant https://example.org/tenants/acme",
        cmd_verify,
    )
    p.add_argument("end", metavar="END", help="the end of the chain (an answer, a summary, a claim)")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")

    p = command(
        "assess",
        "A claim's evidence without double counting, beside its recorded confidence (kept apart).",
        "memkg assess https://example.org/acme/cCutover",
        cmd_assess,
    )
    p.add_argument("claim", metavar="CLAIM", help="the claim's IRI")
    p.add_argument("--tenant", metavar="IRI", help="restrict to one tenant's graph")
    p.add_argument("--default-reliability", type=float, default=0.5, metavar="X",
                   help="reliability of sources that record none (default 0.5)")

    p = command(
        "extract",
        "Extract claims from a source's mem:content with a deterministic baseline extractor (recorded in PROV).",
        "memkg extract https://example.org/acme/adr --extractor abstaining --graph https://example.org/tenants/acme",
        cmd_extract,
    )
    p.add_argument("source", metavar="SOURCE", help="the source whose mem:content to read")
    p.add_argument("--extractor", default="constrained", choices=["sentences", "constrained", "abstaining"],
                   help="which baseline (default: constrained)")
    p.add_argument("--predicate", metavar="IRI", help="the claims' predicate (default: mem:states)")
    p.add_argument("--graph", metavar="IRI", help="the tenant graph")

    p = command(
        "echoes",
        "Propose mem:echoOf between near-duplicate sources (token overlap), with scores; --accept records them.",
        "memkg echoes --tenant https://example.org/tenants/acme --threshold 0.6",
        cmd_echoes,
    )
    p.add_argument("--tenant", metavar="IRI", help="restrict to (and, with --accept, write into) one tenant's graph")
    p.add_argument("--threshold", type=float, default=0.55, metavar="X", help="minimum score (default 0.55)")
    p.add_argument("--accept", action="store_true", help="record the proposals as mem:echoOf (validated)")

    p = command(
        "serve",
        "Serve the store over HTTP: SPARQL 1.1 Protocol, Graph Store Protocol, views and a query page.",
        "memkg serve --port 7878 --timeout 30",
        cmd_serve,
    )
    p.epilog = f"{p.epilog}\n\n{SERVE_EPILOG}"
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=7878, help="port to listen on; 0 picks a free one (default: 7878)")
    p.add_argument(
        "--tokens", metavar="FILE",
        help='bearer tokens, JSON {"TOKEN": {"tenants": [GRAPH-IRI, …], "write": true|false}}; '
        "without it every request may read and write everything",
    )
    p.add_argument("--read-only", action="store_true", help="refuse every write (403)")
    p.add_argument(
        "--timeout", type=float, default=60.0, metavar="SECONDS",
        help="stop a query running longer than this and answer 503 (default: 60; 0: no limit)",
    )
    p.add_argument(
        "--workers", type=int, default=0, metavar="N",
        help="query worker processes, the queries that can run at once (default: two per CPU, at most 16)",
    )
    p.add_argument("--log-requests", action="store_true", help="log every request to standard error")

    return parser


SERVE_EPILOG = """\
endpoints:
  GET  /                          a query page (works offline)
  GET|POST /sparql                SPARQL query: ?query=… or a POSTed form or application/sparql-query body;
                                  default-graph-uri / named-graph-uri set the dataset
  POST /update                    SPARQL Update: a form (update=…) or application/sparql-update body
  GET|HEAD|PUT|POST|DELETE /store Graph Store Protocol: ?default or ?graph=IRI (GET /store: all graphs)
  GET  /views, /views/NAME?k=v    list the view templates; run one (tenant=IRI selects a tenant)
  GET  /health                    liveness, as JSON

Results follow the Accept header (q-values honoured; 406 if nothing fits) or ?format=NAME:
  tables: json, xml, csv, tsv; graphs: turtle, ntriples, trig, nquads, rdfxml.
Writes are validated like every memkg write (400 with the violations, nothing written).
Queries run in worker processes on snapshots of the store; one past --timeout is killed.
SIGTERM or Ctrl-C: finish requests in flight (within --timeout, else 10 s), close the store, exit 0.

with curl:
  curl -H 'Accept: text/csv' 'http://127.0.0.1:7878/sparql?query=SELECT%20*%20WHERE%20%7B?s%20?p%20?o%7D%20LIMIT%205'
  curl -X PUT -H 'Content-Type: application/trig' --data-binary @examples/lia-tea.trig \\
       'http://127.0.0.1:7878/store?graph=https://example.org/tenants/lia'
  curl 'http://127.0.0.1:7878/views/current?tenant=https://example.org/tenants/lia'
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse exits 2 on usage errors, with a hint
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return args.func(args)
    except (ValidationError, PolicyError, ReservedLabelError, LaneError) as err:  # refused: nothing written
        print(f"memkg: {err}", file=sys.stderr)
        return EXIT_INVALID
    except (ParseError, UsageError, NotFoundError, StoreLockedError) as err:
        print(f"memkg: {err}", file=sys.stderr)
        return EXIT_ERROR
    except (ValueError, OSError) as err:
        print(f"memkg: {err}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # e.g. `memkg export | head`
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
