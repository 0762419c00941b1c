"""What a load did: counts, phases and their seconds, the literals stored otherwise than written."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..core.prefixes import Renamed
from .literals import LiteralRewrites

#: Told the name of each phase as it starts.
Progress = Callable[[str], None]


@dataclass
class LoadReport:
    """What a :meth:`MemoryStore.load` did."""

    files: list[str] = field(default_factory=list)
    parsed: int = 0  #: quads read from the files
    added: int = 0  #: quads (data and index) the store did not have before
    bulk: bool = False  #: whether the bulk loader was used
    #: Wall seconds per phase, for benchmarks: ``count`` (how many quads the write adds),
    #: ``parse`` (files to Python quads), ``literals`` (finding the literals the store
    #: rewrites), ``index`` (the claim index quads), ``validate``, ``write``,
    #: ``optimize`` (compaction after a bulk write), ``flush``; a first load
    #: (:mod:`memkg.loading.first_load`) adds the phases of its other process, marked
    #: ``(other process)``, and the time it waited for the reading and for the judging.
    seconds: dict[str, float] = field(default_factory=dict)
    #: The literals the store keeps in another form than the files write (memkg.store.literals).
    rewrites: LiteralRewrites = field(default_factory=LiteralRewrites)
    #: The prefixes the files declared for a namespace while the store gives that prefix another
    #: one: their names read under a new prefix (``ex2:``), which the load must say.
    renamed_prefixes: list[Renamed] = field(default_factory=list)
    #: Told the name of each phase as it starts (``stderr_progress()``: a long load is never silent).
    progress: Progress | None = field(default=None, repr=False, compare=False)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        if self.progress is not None:
            self.progress(_PHASE_NAMES.get(name, name) + "…")
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


_PHASE_NAMES = {"parse": "parsing", "literals": "checking literals", "index": "indexing claims",
                "copy": "copying into memory",
                "validate": "validating", "count": "counting",
                "write": "writing", "followers": "updating the derived indexes", "optimize": "compacting", "flush": "flushing to disk"}
