"""Stores whose one claim is valid over a half-open interval, for the views and recall at its ends."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from pyoxigraph import NamedNode

from memkg import Claim, MemoryStore, Message, Predicate, Vertex, mem

EX = "https://example.org/bounds/"
A = "https://example.org/tenants/a"
UTC = timezone.utc
FROM, UNTIL = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
MS = timedelta(milliseconds=1)
#: Each end of [FROM, UNTIL) and a millisecond inside or outside it, with whether it is inside.
ENDS = [(FROM - MS, False), (FROM, True), (UNTIL - MS, True), (UNTIL, False)]
END_IDS = ["before-from", "at-from", "just-before-until", "at-until"]
TENANT_A = "https://e/tenants/a"


def dated_store() -> tuple[MemoryStore, NamedNode]:
    """Tenant A's store where Lia drinks tea from FROM until UNTIL."""
    store = MemoryStore()
    store.add_all([Vertex(id=EX + "lia", cls=mem.Person, display_name="Lia"), Predicate(id=EX + "drinks", label="drinks"),
                   Vertex(id=EX + "tea", display_name="tea"), Message(id=EX + "m", content="Lia drinks tea", event_id="1")],
                  graph=A)
    claim = store.add(Claim(subject=EX + "lia", predicate=EX + "drinks", object=NamedNode(EX + "tea"), asserted_by=EX + "m",
                            valid_from=FROM, valid_until=UNTIL), graph=A)
    return store, claim


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")  # to the microsecond the store records


def lia_likes_tea(start: datetime, end: datetime) -> tuple[MemoryStore, NamedNode]:
    """A store whose one claim, Lia likes tea, is valid from ``start`` until ``end``."""
    store = MemoryStore()
    store.add_all([Vertex(id="https://e/Lia", cls=mem.Person), Vertex(id="https://e/tea", cls=mem.Entity),
                   Predicate(id="https://e/likes"), Message(id="https://e/m", content="Lia likes tea", event_id="e1")],
                  graph=TENANT_A)
    claim = store.add(Claim(id="https://e/c", subject="https://e/Lia", predicate="https://e/likes", object="https://e/tea",
                            asserted_by="https://e/m", valid_from=start, valid_until=end), graph=TENANT_A)
    return store, claim
