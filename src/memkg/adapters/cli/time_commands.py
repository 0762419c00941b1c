"""Commands over time: new versions (supersede, retract, ingest) and looking back (history, diff, bisect).

Nothing is overwritten: a change is a new version or a mem:Retraction, so every
earlier state stays queryable (memkg.history.timeline).
"""

from __future__ import annotations

import argparse
import sys

from ...core.model import revision
from ...history import timeline
from ...history.timeline import MAX_QUESTIONS
from ...loading.ingest import IngestError, ingest_file, timezone_named
from ...loading.jsonlines import JsonLimits
from .arguments import (
    add_limit_arguments,
    format_option,
    graph_option,
    limits_from,
    open_store,
    parse_time,
    read_query_argument,
    tenant_option,
)
from .exit_codes import EXIT_ERROR, EXIT_OK, UsageError
from .output import short as short_term
from .picture_output import PICTURE_FORMATS, draw, picture_options, wants_picture
from .registry import AddCommand


def cmd_supersede(args: argparse.Namespace) -> int:
    with open_store(args, write=True) as store:
        given = {
            "id": store.read_iri(args.id, what="--id") if args.id else None,
            "subject": store.read_iri(args.subject, what="--subject") if args.subject else None,
            "predicate": store.read_iri(args.predicate, what="--predicate") if args.predicate else None,
            "object": store.read_term(args.object, what="--object") if args.object else None,
            "confidence": float(args.confidence) if args.confidence is not None else None,
            "valid_from": parse_time(args.valid_from) if args.valid_from else None,
            "valid_until": parse_time(args.valid_until) if args.valid_until else None,
            "asserted_by": store.read_iri(args.asserted_by, what="--asserted-by") if args.asserted_by else None,
        }
        old, graph = store.get_claim(store.read_iri(args.claim, what="claim"), graph=args.graph)
        recorded = store.supersede(old.node(), revision(old, **{k: v for k, v in given.items() if v is not None}),
                                   graph=graph, by=store.read_iri(args.by, what="--by") if args.by else None,
                                   interface="cli")
    print(recorded)
    return EXIT_OK


def cmd_retract(args: argparse.Namespace) -> int:
    with open_store(args, write=True) as store:
        targets = [store.read_iri(target, what="target") for target in args.targets]
        node = store.retract(*targets, reason=args.reason, graph=args.graph)
    print(node.value)
    return EXIT_OK


def cmd_ingest(args: argparse.Namespace) -> int:
    try:
        limits = JsonLimits.of(limits_from(args), max_line_bytes=args.max_line_bytes)
        assume = timezone_named(args.assume_timezone) if args.assume_timezone else None
    except ValueError as err:
        raise UsageError(str(err)) from None
    with open_store(args, write=True) as store:
        try:
            report = ingest_file(store, args.file, graph=args.graph, assume_timezone=assume, limits=limits)
        except IngestError as err:  # the file does not follow the format: a parse error, nothing written
            print(f"memkg: {err}", file=sys.stderr)
            return EXIT_ERROR
    for number, event in report.conflicts:
        print(f"memkg: {args.file}:{number}: event {event!r} is already held with other content; "
              "kept what was held (a retry writes nothing)", file=sys.stderr)
    print(f"ingested {report.lines} line(s) from {args.file}: {len(report.versions)} new version(s), "
          f"{len(report.messages)} new message(s), {report.unchanged} unchanged, {report.retries} retried")
    return EXIT_OK


INGEST_FORMAT = """\
One JSON object per line; the whole file is written at once or not at all.
Every line is a message (mem:Message) that keeps "content" verbatim; a note or
claim line is also a new version of the memory node its "id" names.

fields:
  content_kind  "message" (just the message), "note" (default) or "claim"
  id            note, claim: the memory node (its versions supersede each other);
                message: the message's IRI (optional)
  content       a string, or any JSON; for a claim {"subject", "predicate",
                "value", "confidence", "evidence"} (claim fields go here, never
                at the top level)
  event_id      the event's idempotency key: a retry writes nothing
  event_time    ISO 8601 with a timezone (or see --assume-timezone)
  sender        "token", "IRI" or {"id": …, "type": "person"|"agent", "name": …}
  recipients    a list of the same
  episode       the conversation or session (a token or IRI); turns are numbered
                in line order
  attachments   [{"url": …, "caption": …, "media_type": …}]
  provenance    {"agent_step", "observation", "tool_call", "source", "note"}

a message (a turn of an episode, from a person to an agent, with an image):
  {"content_kind": "message", "event_id": "chat-41", "episode": "session-3",
   "sender": "lia", "recipients": [{"id": "aurora", "type": "agent"}],
   "event_time": "2026-05-02T19:04:00+02:00", "content": "Look, my new mug!",
   "attachments": [{"url": "https://example.org/mug.jpg", "caption": "a blue mug"}]}
a note (a memory node with free content):
  {"id": "lia-move", "content": "Lia moves to Lisbon in June.", "event_id": "chat-42"}
a claim (subject, predicate, value inside content):
  {"id": "pref-drink", "content_kind": "claim", "event_id": "chat-43",
   "content": {"subject": "lia", "predicate": "prefers", "value": "coffee",
               "confidence": 0.8, "evidence": ["Coffee in the evenings now."]}}

limits: --max-depth counts JSON arrays and objects (at most 500 here),
--max-literal the characters of any JSON string, --max-line-bytes a line.

exit codes: 0 ok; 1 the invariants refuse the write; 2 a line breaks the format
or a limit (file:line: what is wrong). Nothing is written unless 0.
See docs/ingest.md.

example:
  memkg ingest chat.jsonl --graph https://example.org/tenants/lia --assume-timezone Europe/Lisbon"""


def cmd_history(args: argparse.Namespace) -> int:
    if wants_picture(args):
        return draw(args, "history", args.claim)
    with open_store(args, write=False) as store:
        versions = timeline.history(store, store.read_iri(args.claim, what="claim"), tenant=args.tenant)
        prefixes = store.prefixes

    def short(term: object) -> str:
        return short_term(term, prefixes)  # the store's prefixes, as views print

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
    with open_store(args, write=False) as store:
        change = timeline.diff(store, parse_time(args.from_time), parse_time(args.to_time), tenant=args.tenant)
        prefixes = store.prefixes
    for sign, rows in (("+", change.added), ("-", change.removed)):
        for claim, s, p, o in rows:
            terms = " ".join(short_term(t, prefixes) for t in (s, p, o))
            print(f"{sign} {short_term(claim, prefixes)}  {terms}")
    print(f"({len(change.added)} added, {len(change.removed)} removed)")
    return EXIT_OK


def cmd_bisect(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        found = timeline.bisect(store, read_query_argument(args.ask), tenant=args.tenant,
                                max_questions=args.max_questions)

    def answer(b: object) -> str:
        return "true" if b else "false"

    previous = found.before
    for flip in found.flips:
        stamp = flip.at.isoformat().replace("+00:00", "Z")
        print(f"{stamp}: {answer(previous)} → {answer(flip.answer)}")
        previous = flip.answer
    asked = f"{found.steps} question{'s' if found.steps != 1 else ''}"
    if found.complete:
        summary = f"at all {found.times} time(s) the answer can change, {asked}"
        if found.flips:
            print(f"({len(found.flips)} flip(s), every one: asked {summary})")
        else:
            print(f"never flips: {answer(found.before)} {summary}")
    else:
        print(f"({len(found.flips)} flip(s) found; NOT every one: asked at {found.steps} of the {found.times} "
              f"times the answer can change, so it may flip and flip back unseen between them; "
              f"--max-questions {found.times} asks at every one)")
    return EXIT_OK


def register(command: AddCommand) -> None:
    """The time commands, in the order `memkg --help` lists them."""
    p = command(
        "supersede",
        "Record a new version of a claim's current version (nothing is overwritten): prints its IRI and "
        "whether it is a change in the world or a correction; one that changes nothing writes nothing.",
        "memkg supersede https://example.org/lia/cName1 --object '\"Amy\"' --tenant https://example.org/tenants/lia",
        cmd_supersede,
    )
    p.add_argument("claim", metavar="CLAIM", help="the IRI of the claim to supersede")
    p.add_argument("--object", metavar="TERM", help="the new object (<iri>, prefix:name, \"text\", 42)")
    p.add_argument("--subject", metavar="TERM", help="a new subject (default: the old one)")
    p.add_argument("--predicate", metavar="TERM", help="a new predicate (default: the old one)")
    p.add_argument("--confidence", type=float, metavar="X", help="the new version's confidence in [0, 1]")
    p.add_argument("--valid-from", metavar="TIME", help="start of validity, e.g. 2026-03-01T00:00:00Z")
    p.add_argument("--valid-until", metavar="TIME", help="end of validity (exclusive)")
    p.add_argument("--asserted-by", metavar="TERM",
                   help="the message that asserts the new version (default: none; the new version never "
                        "borrows the old one's source, and is recorded as a mem:Correction made through the CLI)")
    p.add_argument("--by", metavar="IRI", help="who makes a correction given no --asserted-by: a mem:Person or "
                                               "mem:Agent (default: memkg's command line, as a software agent)")
    p.add_argument("--id", metavar="IRI", help="the new claim's IRI (default: minted)")
    graph_option(p, "the tenant graph (default: the old claim's)")

    p = command(
        "retract",
        "Withdraw claims (or sources) from current knowledge, recording a mem:Retraction; prints its IRI.",
        "memkg retract https://example.org/lia/c2 --reason 'Lia corrected it' --tenant https://example.org/tenants/lia",
        cmd_retract,
    )
    p.add_argument("targets", nargs="+", metavar="IRI", help="the claims or sources to withdraw")
    p.add_argument("--reason", help="why (kept as mem:reason)")
    graph_option(p)

    p = command(
        "ingest",
        "Ingest JSON Lines from an agent loop (messages with sender, recipients, episode and time; "
        "notes and claims versioned by id) in one atomic write.",
        "memkg ingest chat.jsonl --tenant https://example.org/tenants/lia",
        cmd_ingest,
    )
    p.epilog = INGEST_FORMAT
    p.add_argument("file", metavar="FILE.jsonl", help="the JSON Lines file (- for standard input)")
    graph_option(p)
    p.add_argument("--assume-timezone", metavar="ZONE",
                   help="the zone of event times written without one: UTC, +02:00 or Europe/Lisbon "
                        "(default: refuse such times)")
    limits = JsonLimits()
    p.add_argument("--max-line-bytes", type=int, default=limits.max_line_bytes, metavar="N",
                   help=f"refuse a longer line (default: {limits.max_line_bytes})")
    add_limit_arguments(p, "max_depth", "max_literal")  # JSON arrays and objects; strings (at most 500 deep)

    p = command(
        "history",
        "Every version of a claim, oldest first, with who recorded each and from what (blame); "
        "--format svg|dot draws them on a time line.",
        "memkg history https://example.org/lia/cName1",
        cmd_history,
    )
    p.add_argument("claim", metavar="IRI", help="any version of the claim")
    tenant_option(p)
    format_option(p, ["text", *PICTURE_FORMATS], "text")
    picture_options(p)

    p = command(
        "diff",
        "Claims added to and removed from current knowledge between two transaction times.",
        "memkg diff --from 2026-01-02T00:00:00Z --to 2026-02-23T00:00:00Z",
        cmd_diff,
    )
    p.add_argument("--from", dest="from_time", required=True, metavar="TIME", help="the earlier transaction time")
    p.add_argument("--to", dest="to_time", required=True, metavar="TIME", help="the later transaction time")
    tenant_option(p)

    p = command(
        "bisect",
        "Every time at which an ASK over current knowledge (the audit view) flips its answer.",
        "memkg bisect --ask 'ASK { <https://example.org/lia/Lia> mem:displayName \"Amelia\" }'",
        cmd_bisect,
    )
    p.add_argument("--ask", required=True, metavar="QUERY", help="an ASK query (text or @file.rq), asked of "
                   "the claims known and valid at each transaction time, as plain triples")
    p.add_argument("--max-questions", type=int, default=MAX_QUESTIONS, metavar="N",
                   help="ask at every time the answer can change when there are at most N of them, else at N "
                   "spread evenly and say that flips between them may go unseen (default: %(default)s)")
    tenant_option(p)
