"""A first load: files written straight into a store that holds no data, judged meanwhile in another process.

A load into a store holding nothing but memkg's ontology needs no context from the store
(see :meth:`memkg.validation.WriteValidator.stage`), so nothing is staged, copied or held
as Python objects for the write. The store's judge offers what judges such a load alone
(:class:`memkg.store.plugins.FirstLoadJudge`; memkg's validator does); a store whose judge
offers none loads the general way. Two processes read the same files side by side:

* this one: Oxigraph's bulk loader writes the files into the store; then the claim index
  quads (:mod:`memkg.store.claim_index`) the other process found (compacting only after several files);
* the other (:func:`read_and_judge`, which never opens the store): Python reads the files
  the way every load does (:func:`read_files`: limits, file/line/column of a syntax error,
  prefixes, the literals the store rewrites, the claim index quads) while Oxigraph loads a
  copy in memory on a thread beside it; then the first-load judge judges the copy
  (:func:`judge_copy`).

Threads of one process did not give the bulk loader a core of its own: pyoxigraph's loaders
take the GIL back often enough that Python's work and theirs take turns
(``benchmarks/bench_overlap.py``). Three processes (the reading and the judging apart) took
longer on two cores: the bulk loader, which the load waits for, then shared its core.
The other process tells its progress and its answers through a pipe; an error it meets (a
syntax error, a broken limit, a violation) is raised here as if met here. Where no process
can be started, its work runs here after the write.

Nothing is half-written on refusal: a syntax error, a broken limit, a rewritten literal
under ``strict_literals`` or a violation waits for the bulk loader to stop, then puts the
store back as it was (its data dropped, its ontology graph restored); ``memkg load`` also
removes a store directory it created. Each parser names blank nodes afresh, so the index
quads of a reifier that involves a blank node or a nested triple term are not written from
Python's names but derived by the store itself, in one update over its own terms.
"""

from __future__ import annotations

import gc
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pyoxigraph import (
    DefaultGraph,
    Literal,
    NamedNode,
    Quad,
    RdfFormat,
    Store,
    Triple,
    serialize,
)

from ..core.errors import MemkgError, ParseError, ValidationError
from ..core.vocab import ONTOLOGY_GRAPH
from ..guard import limits
from ..guard.cancellation import shielded
from ..store import LoadReport, claim_index
from ..store.backends.base import QuadStore
from ..store.literals import LiteralRewrites, RewrittenLiteralsError
from ..store.plugins import FirstLoadJudge, Host
from ..store.reading import FileReader
from ..validation.writes import holds_no_data

#: The index quads the store derives itself: those whose names a parser makes up.
_STORE_DERIVED = "isBLANK(?r) || isBLANK(?s) || isBLANK(?o) || isTRIPLE(?o)"
#: The objects whose index quads Python writes (the complement of the filter above).
_NAMED = (NamedNode, Literal)


#: Smaller inputs go the general way (one transaction; MemoryStore.load): for them, the
#: bulk loader's files and a second process cost more than they save. ~200k quads of memkg's
#: data, where the general way turns to the bulk loader too (memkg.store.BULK_THRESHOLD).
MIN_BYTES = 8 * 1024 * 1024

#: The other process's program (``python -c``).
# It ignores Ctrl-C (sent to the whole process group): the writer stops it, and says so once.
WORKER_PROGRAM = ("import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                  "from memkg.loading.first_load import worker_main; worker_main()")

#: Whether the reading and the judging run in a process of their own (False: in this one, after
#: the bulk load; the same answers, one core). Tests turn it off to watch them from inside.
IN_ANOTHER_PROCESS = True


def applies(raw: QuadStore, size: int) -> bool:
    """Whether a load of ``size`` bytes into ``raw`` (the store's quads; the store has checked
    that its backend is in process and bulk loads, and that its judge offers a first-load
    judge or it has none) is done as a first load: at least :data:`MIN_BYTES`, into a store
    with no data yet."""
    return size >= MIN_BYTES and holds_no_data(raw)


@dataclass(frozen=True)
class Task:
    """What the other process is asked: read these files, judge them with this judge."""

    reader: FileReader
    judge: FirstLoadJudge | None  #: what the store's judge offers for a first load (pickled); None: not judged
    #: The thread stack on which Oxigraph parses the files (``limits.check_file_nesting``),
    #: counted once, here, before any parser runs.
    stack: int
    strict_literals: bool = False


@dataclass
class Reading:
    """What the reading found, for the writer: all a load reports besides the write and the verdict."""

    parsed: int = 0
    rewrites: LiteralRewrites = field(default_factory=LiteralRewrites)
    #: The claim index quads with named terms, as N-Quads; and whether the store must derive others.
    index: bytes = b""
    store_derived: bool = False
    declared: list[tuple[str, str]] = field(default_factory=list)  #: the files' prefixes
    seconds: dict[str, float] = field(default_factory=dict)  #: its phases (``LoadReport.seconds``)


def load(
    raw: Store, reader: FileReader, *, judge: FirstLoadJudge | None, report: LoadReport,
    strict_literals: bool = False,
) -> list[tuple[str, str]]:
    """Load ``reader``'s files into ``raw``, which holds no data, filling ``report``; return
    the prefixes the files declare.

    Raises what a load raises (ParseError, LimitExceeded, RewrittenLiteralsError,
    ValidationError, OSError), the store then as it was.
    """
    # Before any parser runs: Oxigraph's loaders below are not guarded as Python's read is.
    stack = max(limits.check_file_nesting(path, reader.limits or limits.DEFAULT) for path, _ in reader.sources)
    ontology = list(raw.quads_for_pattern(None, None, None, ONTOLOGY_GRAPH))
    task = Task(reader, judge, stack, strict_literals)

    def write() -> None:
        for path, fmt in reader.sources:
            raw.bulk_load(path=str(path), format=fmt, base_iri=reader.base_of(path), to_graph=_into(reader))

    other = _Worker.start(task, report.progress)
    writer = None
    try:
        with report.phase("write"):
            writer = _Background("memkg-bulk-load", write, stack)
            writer.join_quietly()
        with _timed(report.seconds, "waiting for the reading"):
            found: Reading = other.answer("read") if other is not None else read_files(task, report.progress)
        _located(writer.join, reader)  # an error Oxigraph met that Python's read did not
        report.parsed, report.rewrites = found.parsed, found.rewrites
        with report.phase("index"):  # while the other process judges
            _write_index(raw, found)
        with _timed(report.seconds, "waiting for the judging"):
            judged: dict[str, float] = (
                other.answer("judged") if other is not None
                else judge_copy(task, report.progress) if task.judge is not None else {}
            )
        for name, spent in {**found.seconds, **judged}.items():
            report.seconds[f"{name} (other process)"] = spent
        if len(reader.sources) > 1:
            with report.phase("optimize"):
                # As after every bulk write into a smaller store (memkg.store.commit): the bulk
                # loads of several files overlap, and reads are ~3x cheaper once compacted.
                raw.optimize()
        with report.phase("flush"):
            raw.flush()
        with report.phase("count"):
            report.added = len(raw) - len(ontology)
        report.bulk = True
        return found.declared
    except BaseException:
        if other is not None:
            other.stop()
        if writer is not None:
            writer.wait()
        with shielded():  # a second Ctrl-C does not stop the putting back
            _put_back(raw, ontology)
        raise


def read_files(task: Task, progress: Callable[[str], None] | None = None) -> Reading:
    """Read ``task``'s files as every load does, count the literals the store rewrites and
    collect the claim index quads.

    Raises what a load raises for its input (ParseError, LimitExceeded,
    RewrittenLiteralsError, OSError).
    """
    reader = task.reader
    report = LoadReport(files=[str(path) for path, _ in reader.sources], progress=progress)
    found = Reading(seconds=report.seconds)
    index: list[Quad] = []
    starts: list[tuple[str, int]] = []

    def noted() -> Iterator[Quad]:
        for q in reader.quads(progress=progress, starts=starts, declared=found.declared):
            extra = claim_index.index_quads(q)
            if extra is not None:
                r, t = q.subject, q.object  # index_quads: t is a Triple
                assert isinstance(t, Triple)
                if type(r) is NamedNode and type(t.subject) is NamedNode and isinstance(t.object, _NAMED):
                    index.extend(extra)
                else:
                    found.store_derived = True
            yield q

    with report.phase("parse"):
        found.rewrites = LiteralRewrites.scan(noted(), starts)
        found.parsed = found.rewrites.read
        found.index = serialize(index, format=RdfFormat.N_QUADS) or b"" if index else b""
    if task.strict_literals and found.rewrites:
        raise RewrittenLiteralsError(found.rewrites)
    return found


def read_and_judge(
    task: Task, progress: Callable[[str], None] | None = None, read: Callable[[Reading], None] | None = None,
) -> dict[str, float]:
    """The other process's work: Oxigraph copies the files into memory on a thread while
    Python reads them (:func:`read_files`; ``read`` is given what it found, so that the
    writer writes the index meanwhile); then the task's judge judges the copy
    (:func:`judge_copy`). Returns the seconds of the judging's phases.
    """
    copier = _Background("memkg-copy", lambda: _copy(task.reader), task.stack) if task.judge is not None else None
    try:
        found = read_files(task, progress)
        if read is not None:
            read(found)
        return judge_copy(task, progress, copier, found=found) if copier is not None else {}
    finally:
        if copier is not None:
            copier.wait()


def judge_copy(
    task: Task, progress: Callable[[str], None] | None = None, copier: _Background | None = None, *,
    found: Reading | None = None,
) -> dict[str, float]:
    """The judging: the copy ``copier`` makes (or one made now) of ``task``'s files in memory,
    given their claim index as the store gets it (from what the reading ``found``; None: derived
    by the copy), judged by the task's judge as the store will keep it. Returns the seconds of
    its phases.

    Raises ValidationError (or ParseError, should Oxigraph's parser refuse what Python's read
    accepted).
    """
    reader = task.reader
    report = LoadReport(files=[str(path) for path, _ in reader.sources], progress=progress)
    assert task.judge is not None
    if copier is None:  # on a thread deep enough for any nesting the files have
        copier = _Background("memkg-copy", lambda: _copy(reader), task.stack)
    with report.phase("copy"):
        scratch = _located(copier.join, reader)
    with report.phase("index"):
        _write_index(scratch, found)
    with report.phase("validate"):
        violations = task.judge(scratch, progress=progress)
    if violations:
        raise ValidationError(violations, source=", ".join(report.files))
    return report.seconds


def _copy(reader: FileReader) -> Store:
    """``reader``'s files in an in-memory store (without their claim index: :func:`_write_index`)."""
    scratch = Store()
    for path, fmt in reader.sources:
        scratch.load(path=str(path), format=fmt, base_iri=reader.base_of(path), to_graph=_into(reader))
    return scratch


def _write_index(store: Store, found: Reading | None) -> None:
    """The claim index of the files ``store`` holds: the quads the reading ``found`` with named
    terms, and the rest derived by the store over its own terms (a parser's blank node names
    are its own); all derived by the store without a reading. The same quads in the store and
    in the copy the judge judges; loading those the reading wrote costs two thirds of deriving
    them all in one update (50k lean claims in memory: 0.6 CPU s against 0.9)."""
    if found is None:
        store.update(claim_index.insert_update())
        return
    if found.index:
        store.bulk_load(found.index, format=RdfFormat.N_QUADS)
    if found.store_derived:
        store.update(claim_index.insert_update(_STORE_DERIVED))


def _into(reader: FileReader) -> NamedNode | None:
    """The graph a loader puts the files' default graph in (None: the default graph)."""
    return None if isinstance(reader.target, DefaultGraph) else reader.target


# -- the other process ------------------------------------------------------------------------


class _Worker:
    """:func:`read_and_judge` in a process of its own, its progress told here as it comes.

    The task goes down the child's stdin, pickled; pickled messages come back up a pipe of
    its own (the child's stdout is pointed at its stderr, so nothing printed can garble
    them): ``("tell", text)`` any number of times, ``("read", Reading)``, then
    ``("judged", seconds)``; or ``("raised", error)`` at any point.
    """

    @classmethod
    def start(cls, task: Task, progress: Callable[[str], None] | None) -> _Worker | None:
        """The process started, or None where none can be (a limit on processes, a sandbox):
        then the caller does the work itself."""
        if not IN_ANOTHER_PROCESS:
            return None
        try:
            return cls(task, progress)
        except OSError:
            return None

    def __init__(self, task: Task, progress: Callable[[str], None] | None) -> None:
        self._progress = progress
        self._answers: queue.Queue[tuple[str, Any]] = queue.Queue()
        package_root = str(Path(__file__).resolve().parents[2])  # the folder holding memkg/
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        self._child = subprocess.Popen([sys.executable, "-c", WORKER_PROGRAM],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self._child.stdin is not None and self._child.stdout is not None
        try:
            self._child.stdin.write(pickle.dumps(task))
            self._child.stdin.close()
        except BrokenPipeError:  # it died at once: answer() says how
            pass
        self._listener = threading.Thread(target=self._listen, args=(self._child.stdout,),
                                          name="memkg-first-load-listener", daemon=True)
        self._listener.start()

    def _listen(self, pipe: IO[bytes]) -> None:
        try:
            while True:
                kind, payload = pickle.load(pipe)
                if kind == "tell":
                    if self._progress is not None:
                        self._progress(payload)
                else:
                    self._answers.put((kind, payload))
        except (EOFError, pickle.UnpicklingError, OSError):
            self._answers.put(("ended", None))
        finally:
            pipe.close()

    def answer(self, expected: str) -> Any:
        """The next answer, which should be ``expected`` (``"read"`` or ``"judged"``); raises
        the error the process met."""
        while True:
            try:
                kind, payload = self._answers.get(timeout=0.2)  # a timeout: an interrupt is not held up
                break
            except queue.Empty:
                continue
        if kind == "raised":
            raise payload
        if kind != expected:
            code = self._child.wait()
            raise MemkgError(f"the first load's other process ended without an answer (exit status {code}); "
                             "nothing was written")
        return payload

    def stop(self) -> None:
        """The process ended, whatever it was doing."""
        if self._child.poll() is None:
            self._child.kill()
        self._child.wait()
        self._listener.join()


def worker_main() -> None:
    """The other process: a :class:`Task` pickled on stdin, messages pickled on stdout."""
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else prints goes to stderr, not into the answers
    sys.stdout = sys.stderr
    gc.disable()  # millions of quads, no cycles (memkg.store.gc_paused)

    def send(kind: str, payload: Any) -> None:
        pickle.dump((kind, payload), answers)
        answers.flush()

    try:
        task = pickle.load(sys.stdin.buffer)
        judged = read_and_judge(task, lambda text: send("tell", text), lambda found: send("read", found))
    except BaseException as err:  # noqa: BLE001 - every error goes to the writer, which raises it
        try:
            pickle.dumps(err)
        except Exception:  # noqa: BLE001 - an error that does not pickle is told as text
            err = MemkgError("the first load's other process failed:\n" + "".join(traceback.format_exception(err)))
        send("raised", err)
    else:
        send("judged", judged)


def _put_back(raw: Store, ontology: list[Quad]) -> None:
    """The store as it was before the load: nothing but its ontology graph."""
    raw.clear()
    raw.extend(ontology)
    raw.flush()


def _located(join: Callable[[], Any], reader: FileReader) -> Any:
    """``join()``; a syntax error Oxigraph met (Python's read met it first, so only if the
    parsers disagree) named with the files."""
    try:
        return join()
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file=", ".join(str(p) for p, _ in reader.sources)) from None


class _timed:
    def __init__(self, into: dict[str, float], name: str) -> None:
        self.into, self.name = into, name

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.into[self.name] = time.perf_counter() - self.start


class _Background:
    """A call on its own thread, with a stack deep enough for a parser (``limits.parser_stack``)."""

    def __init__(self, name: str, call: Callable[[], Any], stack: int) -> None:
        self._result: Any = None
        self._error: BaseException | None = None
        self._thread = limits.thread_on_stack(stack, lambda: self._run(call), name=name)

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self._result = call()
        except BaseException as err:  # noqa: BLE001 - raised by join(), on the caller's thread
            self._error = err

    def join_quietly(self) -> None:
        """Until the call is over, its error kept for :meth:`join`; an interrupt is raised at once."""
        while self._thread.is_alive():
            self._thread.join(0.2)

    def wait(self) -> None:
        """Until the call is over, whatever it did (an interrupt does not leave it running)."""
        while self._thread.is_alive():
            try:
                self._thread.join()
            except BaseException:  # noqa: BLE001 - the store cannot be put back while it writes
                continue

    def join(self) -> Any:
        self.wait()
        if self._error is not None:
            raise self._error
        return self._result


class FirstLoad:
    """The first load as the store's plug-in (:class:`memkg.store.plugins.FirstLoad`)."""

    def applies(self, host: Host, size: int) -> bool:
        return applies(host.raw, size)

    def load(self, host: Host, reader: FileReader, report: LoadReport, *, judge: FirstLoadJudge | None,
             strict_literals: bool) -> list[tuple[str, str]]:
        return load(host.backend.local_store(), reader, judge=judge, report=report, strict_literals=strict_literals)


FIRST_LOAD = FirstLoad()
