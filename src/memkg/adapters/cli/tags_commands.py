"""`memkg tags` and `memkg policy`: edge properties (memkg.tags) and the policies that constrain them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ...tags import Tags
from ...tags.policy import Policy
from .arguments import graph_option, open_store, parse_time
from .exit_codes import EXIT_OK
from .output import print_rows
from .registry import AddCommand

# the actions that write: only these open the store for writing
TAG_WRITES = {"add", "update", "remove", "connect", "disconnect", "group", "ungroup", "adjusts", "unadjust"}
# the arguments that name records
RECORD_ARGUMENTS = ("record", "records", "a", "b", "new", "old")


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
    policy = Policy.load(args.policy) if getattr(args, "policy", None) else None
    a = args.action
    with open_store(args, write=a in TAG_WRITES) as store:
        for name in RECORD_ARGUMENTS:  # prefixed names as every command reads them
            given = getattr(args, name, None)
            if given:
                setattr(args, name, [store.read_iri(r, what=name).value for r in given] if isinstance(given, list)
                        else store.read_iri(given, what=name).value)
        tags = Tags(store, graph=args.graph, policy=policy)
        known_at = parse_time(getattr(args, "known_at", None))
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
                    when = v.recorded_at.isoformat() if v.recorded_at else "(no recordedAt)"
                    print(f"{when}  {v.iri.value}  [{v.schema}]  {props}")
            else:
                for d in tags.properties(args.record, known_at=known_at):
                    print(f"{d.id}  {d.label}:{d.value}")
        elif a == "labels":
            rows = [(lc.label, str(lc.records), str(lc.values)) for lc in tags.labels(known_at=known_at)]
            print_rows(("label", "records", "values"), rows)
        elif a == "values":
            print_rows(("value", "records"), [(v, str(n)) for v, n in tags.values(args.label, known_at=known_at)])
        elif a in ("intersect", "union"):
            records = (tags.intersect if a == "intersect" else tags.union)(args.props, known_at=known_at)
            if args.count:
                print(len(records))
            else:
                for r in records:
                    print(r.value)
        elif a == "timeline":
            for r, t in tags.timeline(args.props, mode="any" if args.any else "all", known_at=known_at):
                print(f"{t.isoformat() if t else '-'}  {r.value}")
        elif a == "traverse":
            for s in tags.traverse(args.record, depth=args.depth, labels=args.label or None, limit=args.limit,
                                   known_at=known_at):
                print(f"{s.depth}  {s.record.value}  via {s.via}  from {s.source.value}")
        elif a == "chain":
            for r in tags.chain(args.record, known_at=known_at):
                print(r.value)
    return EXIT_OK



def cmd_policy(args: argparse.Namespace) -> int:
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


def register(command: AddCommand) -> None:
    """`tags` with its actions, then `policy`."""
    p = command(
        "tags",
        "Edge properties (label:value hyperedges over records): write, list and gather them.",
        "memkg tags intersect org:Acme person:Sarah --tenant https://example.org/tenants/acme",
        cmd_tags,
    )
    formatter = p.formatter_class  # the actions' help is laid out like every command's
    tag_sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    def tag_action(name: str, help: str, example: str) -> argparse.ArgumentParser:
        q = tag_sub.add_parser(name, help=help, description=help, epilog=f"example:\n  {example}",
                               formatter_class=formatter)
        graph_option(q, "the tenant graph (default: the shared default graph)")
        q.add_argument("--policy", metavar="FILE", help="a policy (TOML) every write must keep")
        return q

    def known_at(q: argparse.ArgumentParser) -> None:
        q.add_argument("--known-at", dest="known_at", metavar="TIME",
                       help="read the store as it was at this transaction time")

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
    known_at(q)
    q = tag_action("labels", "Every label in use, with how many records carry it and its distinct values.",
                   "memkg tags labels --tenant https://example.org/tenants/acme")
    known_at(q)
    q = tag_action("values", "The values of a label, with how many records carry each.", "memkg tags values org")
    q.add_argument("label", metavar="LABEL")
    known_at(q)
    for name, help in (("intersect", "The records carrying every property given."),
                       ("union", "The records carrying any property given.")):
        q = tag_action(name, help, f"memkg tags {name} org:Acme person:Sarah --count")
        q.add_argument("props", nargs="+", metavar="LABEL:VALUE")
        q.add_argument("--count", action="store_true", help="print how many, not which")
        known_at(q)
    q = tag_action("timeline", "The records of intersect (or union, with --any), oldest first.",
                   "memkg tags timeline org:Acme --any")
    q.add_argument("props", nargs="+", metavar="LABEL:VALUE")
    q.add_argument("--any", action="store_true", help="any property (union) instead of every (intersect)")
    known_at(q)
    q = tag_action("traverse", "From a record along its shared properties to other records.",
                   "memkg tags traverse https://example.org/acme/m1 --depth 2 --label person")
    q.add_argument("record", metavar="RECORD")
    q.add_argument("--depth", type=int, default=1, help="hops at most (default 1)")
    q.add_argument("--label", action="append", metavar="LABEL", help="follow only this label (repeatable)")
    q.add_argument("--limit", type=int, metavar="N", help="stop after N records")
    known_at(q)
    q = tag_action("chain", "The adjustment chain a record belongs to, in time order.",
                   "memkg tags chain https://example.org/acme/m1")
    q.add_argument("record", metavar="RECORD")
    known_at(q)

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
