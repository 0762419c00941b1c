"""A query worker's loop: jobs run on the loop's own thread; one that runs long is put at nice 19,
and the jobs after it run on a fresh thread at the normal priority."""

from __future__ import annotations

import os
import threading
import time
from multiprocessing import Pipe
from typing import Any

import pytest

from memkg.adapters.endpoint import jobs, worker
from memkg.adapters.endpoint.handler import Response
from memkg.adapters.endpoint.jobs import QueryJob

pytestmark = pytest.mark.skipif(not hasattr(os, "getpriority"), reason="thread priorities are POSIX")


def test_a_long_job_is_niced_and_the_next_job_runs_on_a_fresh_thread_at_normal_priority(monkeypatch: Any) -> None:
    monkeypatch.setattr(worker, "LONG_JOB", 0.05)
    monkeypatch.setattr(worker._Watch, "POLL", 0.01)
    seen: list[tuple[int, int]] = []  # (thread, its priority when the job ended)

    def run(snapshot: str, job: QueryJob, snapshots: object) -> Response:
        time.sleep(float(job.query))
        me = threading.get_native_id()
        seen.append((me, os.getpriority(os.PRIO_PROCESS, me)))
        return Response(200, "text/plain", job.query.encode())

    monkeypatch.setattr(worker, "run", run)
    ours, theirs = Pipe()
    serving = threading.Thread(target=worker._serve, args=(theirs,), daemon=True)
    serving.start()
    assert jobs.receive(ours) == worker.READY
    replies = []
    for seconds in ("0", "0", "0.4", "0", "0"):
        jobs.send(ours, ("unused", QueryJob(seconds)))
        replies.append(jobs.receive(ours).body)
    jobs.send(ours, None)
    serving.join(5)
    assert not serving.is_alive(), "the worker's loop ends when a None arrives"
    assert replies == [b"0", b"0", b"0.4", b"0", b"0"]
    (quick, _), (quick_again, _), (long, long_priority), (after, after_priority), (after_again, _) = seen
    assert quick == quick_again == long, "short jobs run on the loop's own thread"
    assert long_priority == 19
    assert after == after_again != long, "the loop goes on on a new thread after a long job"
    assert after_priority == os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
