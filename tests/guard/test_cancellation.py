"""Stopping calls without half-writes: a time limit never cuts a commit short, nor does Ctrl-C."""

from __future__ import annotations

import signal

import pytest
from pyoxigraph import NamedNode, Quad

from memkg import MemoryStore
from memkg.guard.cancellation import shielded


def test_ctrl_c_during_a_commit_is_delivered_when_the_commit_is_over() -> None:
    reached: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with shielded():
            signal.raise_signal(signal.SIGINT)  # as Ctrl-C would, in the middle of the commit
            reached.append("the rest of the commit")
    assert reached == ["the rest of the commit"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_during_a_store_write_leaves_the_write_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore()
    backend = store.backend
    apply = type(backend).extend

    def interrupted_midway(self, quads, *args, **kwargs):  # type: ignore[no-untyped-def]
        signal.raise_signal(signal.SIGINT)
        return apply(self, quads, *args, **kwargs)

    monkeypatch.setattr(type(backend), "extend", interrupted_midway)
    quad = Quad(NamedNode("urn:x:a"), NamedNode("urn:x:p"), NamedNode("urn:x:b"))
    with pytest.raises(KeyboardInterrupt):
        store.write([quad])
    assert quad in store.raw
