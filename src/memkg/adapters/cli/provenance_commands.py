"""Provenance and evidence: where a claim comes from (lineage, support), what hangs on a source
(dependents, withdraw, erase), what a reader is shown (packet, verify, assess), and how claims
and echo links are proposed (extract, echoes).

Over memkg.provenance, memkg.provenance.evidence and memkg.loading.extraction.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pyoxigraph import NamedNode

from ...loading import extraction
from ...provenance import (
    Erasure,
    ErasurePlan,
    accept_echoes,
    erase,
    erasure_plan,
    erasure_plans,
    impact,
    lineage,
    minimal_support,
    propose_echoes,
    support,
    withdraw,
)
from ...provenance.evidence import assess, packet, verify
from .arguments import format_option, graph_option, open_store, tenant_option
from .exit_codes import EXIT_INVALID, EXIT_OK, UsageError
from .output import print_rows, short
from .picture_output import PICTURE_FORMATS, draw, picture_options, wants_picture
from .registry import AddCommand


def _iri_or_blank(term: Any) -> str:
    return "" if term is None else short(term)


def _emit_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def cmd_lineage(args: argparse.Namespace) -> int:
    if wants_picture(args):
        return draw(args, "lineage", args.claim)
    with open_store(args, write=False) as store:
        lin = lineage(store, store.read_iri(args.claim, what="claim"), tenant=args.tenant)
    if args.format == "json":
        _emit_json(lin.to_dict())
        return EXIT_OK
    print_rows(["from", "kind", "source", "group"],
                [[short(k.node), k.kind, short(k.source), _iri_or_blank(k.group)] for k in lin.links])
    print("grounds: " + (" ".join(short(n) for n in lin.grounds) or "none"))
    print("open ends: " + (" ".join(short(n) for n in lin.open_ends) or "none"))
    return EXIT_OK


def cmd_dependents(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        source = store.read_iri(args.source, what="source")
        found = impact(store, source, tenant=args.tenant, with_downstream=args.all)
        erasures = erasure_plans(store, source, tenant=args.tenant)  # withdrawing takes nothing; erasing may
    if args.format == "json":
        _emit_json({"source": source.value, **found.to_dict(), "erasure": [plan.to_dict() for plan in erasures]})
        return EXIT_OK
    for n in found.fallen:
        print(n.value)
    if args.all:
        for n in found.weakened:
            print(f"{n.value}\tweakened")
        for n in found.downstream:
            print(f"{n.value}\tdownstream")
    for plan in erasures:
        for taken in plan.claims:
            print(f"{_node_text(taken)}\terased with it")
    return EXIT_OK


def cmd_support(args: argparse.Namespace) -> int:
    if wants_picture(args):
        return draw(args, "support", args.claim)
    with open_store(args, write=False) as store:
        claim = store.read_iri(args.claim, what="claim")
        s = support(store, claim, tenant=args.tenant)
        sets = minimal_support(store, claim, tenant=args.tenant) if args.minimal else None
    if args.format == "json":
        _emit_json(s.to_dict(minimal=sets))
        return EXIT_OK
    print(f"{short(s.claim)}: {s.status}" + (" (stands)" if s.stands else " (does not stand)"))
    print_rows(["group", "members", "stands", "failing"],
                [[_iri_or_blank(g.node) or "(leg)", " ".join(short(m) for m in g.members),
                  "yes" if g.stands else "no", " ".join(short(m) for m in g.failing)] for g in s.groups])
    for r in s.refuted_by:
        print(f"refuted by {short(r)} (unresolved)")
    for ms in sets or ():
        print("minimal: " + " ".join(sorted(short(m) for m in ms)))
    return EXIT_OK


def cmd_withdraw(args: argparse.Namespace) -> int:
    with open_store(args, write=True) as store:
        result = withdraw(store, store.read_iri(args.source, what="source"), reason=args.reason, graph=args.graph)
    print(result.retraction.value)
    for label, nodes in (("fallen", result.fallen), ("weakened", result.weakened),
                         ("downstream", result.impact.downstream)):
        for n in nodes:
            print(f"{n.value}\t{label}")
    return EXIT_OK


def cmd_erase(args: argparse.Namespace) -> int:
    if not args.dry_run and not args.reason:
        raise UsageError("erase needs --reason (kept on the record); --dry-run shows what it would remove")
    with open_store(args, write=not args.dry_run) as store:
        source = store.read_iri(args.source, what="source")
        if args.dry_run:
            result: ErasurePlan | Erasure = erasure_plan(store, source, graph=args.graph)
        else:
            result = erase(store, source, reason=args.reason, graph=args.graph)
    if args.format == "json":
        _emit_json(result.to_dict())
        return EXIT_OK
    if isinstance(result, Erasure):
        print(result.record.value)
    for n in result.removed:
        print(f"{_node_text(n)}\t{'would be removed' if args.dry_run else 'removed'}")
    for n in result.kept:
        print(f"{n.value}\tkept")
    if isinstance(result, Erasure):
        print(f"{result.quads_removed} quads removed", file=sys.stderr)
    else:
        print(f"dry run: {len(result.quads)} quads would be removed; nothing was written", file=sys.stderr)
    return EXIT_OK


def _node_text(node: Any) -> str:
    """An IRI as plain text (as the other lines print it), a blank node as _:id."""
    return node.value if isinstance(node, NamedNode) else str(node)


def cmd_packet(args: argparse.Namespace) -> int:
    if wants_picture(args):
        return draw(args, "packet", args.claims, max_vertices=args.max_vertices, max_hops=args.max_hops,
                    strict=args.strict)
    with open_store(args, write=False) as store:
        p = packet(store, [store.read_iri(c, what="claim") for c in args.claims], tenant=args.tenant, max_vertices=args.max_vertices,
                   max_hops=args.max_hops, strict=args.strict)
    sys.stdout.write(p.to_json() + "\n" if args.format == "json" else p.to_turtle())
    if not p.complete:
        print(f"memkg: the budget cannot hold the mandatory evidence: {len(p.omitted)} item(s) left out "
              "(listed in the packet)", file=sys.stderr)
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        v = verify(store, store.read_iri(args.end, what="end"), tenant=args.tenant)
    print_rows(["depth", "stage", "kind", "verdict", "reason"],
                [[str(st.depth), short(st.node), st.kind, st.verdict, st.reason] for st in v.stages])
    print(f"verdict: {v.verdict}")
    for n in v.entered_at:
        print(f"unsupported content entered at {short(n)}")
    return EXIT_OK if v.verdict != "not supported" else EXIT_INVALID


def cmd_assess(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        a = assess(store, store.read_iri(args.claim, what="claim"), tenant=args.tenant, default_reliability=args.default_reliability)
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
    extractor = {"sentences": extraction.SENTENCES, "constrained": extraction.CONSTRAINED,
                 "abstaining": extraction.ABSTAINING}[args.extractor]
    with open_store(args, write=True) as store:
        result = extraction.extract(store, store.read_iri(args.source, what="source"), extractor=extractor, graph=args.graph,
                                    **({"predicate": store.read_iri(args.predicate, what="--predicate")} if args.predicate else {}))
    print(result.extraction.value)
    for claim, span in zip(result.claims, result.spans):
        flags = f" [{', '.join(sorted(span.flags))}]" if span.flags else ""
        print(f"{claim.value}\t{span.text}{flags}")
    for a in result.abstentions:
        print(f"abstained\t{a.text}\t{a.reason}")
    return EXIT_OK


def cmd_echoes(args: argparse.Namespace) -> int:
    with open_store(args, write=args.accept) as store:
        proposals = propose_echoes(store, tenant=args.tenant, threshold=args.threshold)
        if args.accept and proposals:
            accept_echoes(store, proposals, graph=args.tenant)
    for p in proposals:
        print(f"{p.score:.4f}\t{p.echo.value}\techoOf\t{p.original.value}")
    if args.accept:
        print(f"{len(proposals)} echo link(s) recorded", file=sys.stderr)
    return EXIT_OK


def register(command: AddCommand) -> None:
    """The provenance and evidence commands, in the order `memkg --help` lists them."""
    p = command(
        "lineage",
        "Every source a claim reaches through support, derivation or echo links, with the kind of each link; "
        "--format svg|dot draws it, with what falls if a source goes.",
        "memkg lineage https://example.org/acme/cAnswerLoss --tenant https://example.org/tenants/acme",
        cmd_lineage,
    )
    p.add_argument("claim", metavar="CLAIM", help="the claim's IRI")
    tenant_option(p)
    format_option(p, ["table", "json", *PICTURE_FORMATS], "table")
    picture_options(p)

    p = command(
        "dependents",
        "The claims that lose all support if SOURCE is withdrawn (recursively); nothing is written.",
        "memkg dependents https://example.org/acme/adr --tenant https://example.org/tenants/acme",
        cmd_dependents,
    )
    p.add_argument("source", metavar="SOURCE", help="the source (message, document, claim) to withdraw")
    tenant_option(p)
    p.add_argument("--all", action="store_true", help="also the claims that would weaken or are drawn from it")
    format_option(p, ["table", "json"], "table")

    p = command(
        "support",
        "A claim's support groups and whether each still stands (recursively); --format svg|dot draws the "
        "AND/OR groups and echoes.",
        "memkg support https://example.org/acme/cMigration --minimal",
        cmd_support,
    )
    p.add_argument("claim", metavar="CLAIM", help="the claim's IRI")
    tenant_option(p)
    p.add_argument("--minimal", action="store_true", help="also the minimal support sets (grounds)")
    format_option(p, ["table", "json", *PICTURE_FORMATS], "table")
    picture_options(p)

    p = command(
        "withdraw",
        "Withdraw a source: record a mem:Retraction of it and list the claims to re-evaluate (fallen, weakened, "
        "downstream).",
        "memkg withdraw https://example.org/acme/benchmark --reason 'misconfigured host' "
        "--tenant https://example.org/tenants/acme",
        cmd_withdraw,
    )
    p.add_argument("source", metavar="SOURCE", help="the source to withdraw")
    p.add_argument("--reason", required=True, help="why (kept as mem:reason)")
    graph_option(p)

    p = command(
        "erase",
        "Erase a source (consent revoked) and what was derived only from it; records the erasure by identifier.",
        "memkg erase https://example.org/acme/benchmark --reason 'consent revoked' "
        "--tenant https://example.org/tenants/acme",
        cmd_erase,
    )
    p.add_argument("source", metavar="SOURCE", help="the source to erase")
    p.add_argument("--reason", help="why (kept as mem:reason on the record; needed unless --dry-run)")
    p.add_argument("--dry-run", action="store_true",
                   help="list what would be removed and kept, and write nothing")
    graph_option(p)
    format_option(p, ["text", "json"], "text")

    p = command(
        "packet",
        "An evidence packet for a reader: mandatory provenance, competing and qualifying claims, within budgets.",
        "memkg packet https://example.org/acme/cSelection --max-vertices 20 --format json",
        cmd_packet,
    )
    p.add_argument("claims", nargs="+", metavar="CLAIM", help="the seed claims")
    tenant_option(p)
    p.add_argument("--max-vertices", type=int, default=50, metavar="N", help="vertex budget (default 50)")
    p.add_argument("--max-hops", type=int, default=3, metavar="N", help="hop budget (default 3)")
    p.add_argument("--strict", action="store_true",
                   help="fail (exit 2) instead of reporting when the budget cannot hold the mandatory evidence")
    format_option(p, ["turtle", "json", *PICTURE_FORMATS], "turtle")
    picture_options(p)

    p = command(
        "verify",
        "Walk a derivation chain back from its end, with a verdict per stage; exit 1 if the end is not supported.",
        "memkg verify https://example.org/acme/answer --tenant https://example.org/tenants/acme",
        cmd_verify,
    )
    p.add_argument("end", metavar="END", help="the end of the chain (an answer, a summary, a claim)")
    tenant_option(p)

    p = command(
        "assess",
        "A claim's evidence without double counting, beside its recorded confidence (kept apart).",
        "memkg assess https://example.org/acme/cCutover",
        cmd_assess,
    )
    p.add_argument("claim", metavar="CLAIM", help="the claim's IRI")
    tenant_option(p)
    p.add_argument("--default-reliability", type=float, default=0.5, metavar="X",
                   help="reliability of sources that record none (default 0.5)")

    p = command(
        "extract",
        "Extract claims from a source's mem:content with a deterministic baseline extractor (recorded in PROV).",
        "memkg extract https://example.org/acme/adr --extractor abstaining --tenant https://example.org/tenants/acme",
        cmd_extract,
    )
    p.add_argument("source", metavar="SOURCE", help="the source whose mem:content to read")
    p.add_argument("--extractor", default="constrained", choices=["sentences", "constrained", "abstaining"],
                   help="which baseline (default: constrained)")
    p.add_argument("--predicate", metavar="IRI", help="the claims' predicate (default: mem:states)")
    graph_option(p)

    p = command(
        "echoes",
        "Propose mem:echoOf between near-duplicate sources (token overlap), with scores; --accept records them.",
        "memkg echoes --tenant https://example.org/tenants/acme --threshold 0.6",
        cmd_echoes,
    )
    p.add_argument("--tenant", metavar="IRI", help="restrict to (and, with --accept, write into) one tenant's graph")
    p.add_argument("--threshold", type=float, default=0.55, metavar="X", help="minimum score (default 0.55)")
    p.add_argument("--accept", action="store_true", help="record the proposals as mem:echoOf (validated)")
