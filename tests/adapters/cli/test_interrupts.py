"""Ctrl-C: every command stops with one line on stderr and exit 130, and leaves the store whole.

Each test starts a real ``memkg`` in a session of its own and, once it is at work (it holds its
input file or its store open), sends SIGINT to the whole process group, as a terminal does: the
command and any process it started get it. The store must then open, holding what it held
before or the whole write, with its claim index consistent.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import memkg_launcher
import pytest

from memkg import MemoryStore

from tests.support.examples import LIA, data_quads
from tests.support.endpoint_server import ROOT

pytestmark = pytest.mark.slow

INTERRUPTED = 130
INTERRUPTED_LINE = memkg_launcher.INTERRUPTED_LINE
MESSAGES = 60_000  # three quads each: past the bulk threshold, and a file past a first load's size
GRAPH = "https://example.org/tenants/big"


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A large valid memory: messages in one tenant's graph, as TriG."""
    path = tmp_path_factory.mktemp("interrupts") / "big.trig"
    with path.open("w", encoding="utf-8") as out:
        out.write(f"PREFIX mem: <https://w3id.org/memkg#>\nPREFIX ex: <https://example.org/big/>\nGRAPH <{GRAPH}> {{\n")
        for i in range(MESSAGES):
            out.write(f'ex:m{i} a mem:Message ; mem:eventId "event-{i}" ; '
                      f'mem:content "message {i}: the kettle, the tea and the long wait for the water" .\n')
        out.write("}\n")
    return path


def interrupted(argv: list[str], holding: Path, *, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """Run ``memkg ARGV``; once a process of it holds ``holding`` open, Ctrl-C it; its outcome."""
    process = subprocess.Popen([sys.executable, "-m", "memkg", *argv], cwd=cwd, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while not _holds(process.pid, holding.resolve()):
            assert process.poll() is None, f"memkg {' '.join(argv)} ended before it was interrupted: " \
                                           f"{process.communicate()[1]}"
            assert time.monotonic() < deadline, f"memkg {' '.join(argv)} never opened {holding}"
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def _holds(pid: int, path: Path) -> bool:
    """Whether process ``pid`` or a child of it has ``path`` open."""
    for p in [pid, *_children(pid)]:
        try:
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{p}/fd/{fd}") == str(path):
                    return True
            except OSError:
                continue
    return False


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def assert_one_line(done: subprocess.CompletedProcess[str]) -> None:
    lines = done.stderr.splitlines()
    assert done.returncode == INTERRUPTED, f"exit {done.returncode}: {done.stderr[-3000:]}"
    assert len(lines) == 1 and "interrupted" in lines[0], done.stderr[-3000:]


def state(store: Path) -> set:
    with MemoryStore(store) as opened:
        assert opened.check_index().consistent
        return data_quads(opened)


def test_ctrl_c_during_a_first_load_leaves_no_data(big: Path, tmp_path: Path) -> None:
    done = interrupted(["--store", "store", "load", str(big)], big, cwd=tmp_path)
    assert_one_line(done)
    if (tmp_path / "store").exists():
        assert state(tmp_path / "store") in (set(), state_of_file(big))


def test_ctrl_c_during_a_later_load_leaves_the_store_as_it_was_or_fully_written(big: Path, tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "store") as store:
        store.load(LIA)
    before = state(tmp_path / "store")
    done = interrupted(["--store", "store", "load", str(big)], big, cwd=tmp_path)
    assert_one_line(done)
    after = state(tmp_path / "store")
    assert after == before or after == before | state_of_file(big)


def test_ctrl_c_during_validate_is_one_line(big: Path, tmp_path: Path) -> None:
    assert_one_line(interrupted(["--store", "store", "validate", str(big)], big, cwd=tmp_path))


def test_ctrl_c_during_ingest_keeps_every_write_whole(tmp_path: Path) -> None:
    lines = tmp_path / "lines.jsonl"
    lines.write_text("".join(
        f'{{"content_kind": "message", "event_id": "e{i}", "episode": "s{i // 50}", "sender": "lia", '
        f'"event_time": "2026-05-02T19:04:00Z", "content": "message {i} about tea"}}\n' for i in range(20_000)))
    done = interrupted(["--store", "store", "ingest", str(lines)], lines, cwd=tmp_path)
    assert_one_line(done)
    if (tmp_path / "store").exists():
        state(tmp_path / "store")  # opens, its claim index consistent


def test_ctrl_c_while_mcp_waits_for_a_request(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "store") as store:
        store.load(LIA)
    before = state(tmp_path / "store")
    done = interrupted(["--store", "store", "mcp"], tmp_path / "store" / "LOCK", cwd=tmp_path)
    assert_one_line(done)
    assert state(tmp_path / "store") == before


def test_ctrl_c_stops_serve_with_one_line_and_exit_130(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "store") as store:
        store.load(LIA)
    before = state(tmp_path / "store")
    process = subprocess.Popen([sys.executable, "-m", "memkg", "--store", "store", "serve", "--port", "0"],
                               cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                               start_new_session=True)
    try:
        assert process.stderr is not None
        assert "listening on" in process.stderr.readline()
        os.killpg(process.pid, signal.SIGINT)
        rest = process.stderr.read().splitlines()
        assert process.wait(120) == INTERRUPTED
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert rest == ["memkg serve: stopped, store closed"]
    assert state(tmp_path / "store") == before


def test_ctrl_c_while_the_command_imports_is_one_line_and_exit_130(tmp_path: Path) -> None:
    # The code pip writes for the `memkg` script, run with Python's import timing on stderr: the
    # SIGINT goes out as soon as the first of memkg's modules is imported, with the rest (pyoxigraph,
    # the store, the command line) still to come.
    module, _, function = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["memkg"].partition(":")
    script = f"import sys; from {module} import {function}; sys.exit({function}())"
    process = subprocess.Popen([sys.executable, "-c", script, "--store", "store", "stats"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if line.startswith("import time:") and line.rsplit("|", 1)[-1].strip().startswith("memkg."):
                os.killpg(process.pid, signal.SIGINT)
                break
        rest = [line for line in process.stderr.read().splitlines() if not line.startswith("import time:")]
        code = process.wait(60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert (code, rest) == (INTERRUPTED, [INTERRUPTED_LINE])
    assert not (tmp_path / "store").exists()


def test_ctrl_c_says_the_same_line_while_the_command_imports_as_later(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from memkg.adapters import cli

    def interrupted(argv: list[str]) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run", interrupted)
    assert cli.main(["stats"]) == memkg_launcher.EXIT_INTERRUPTED == INTERRUPTED
    assert capsys.readouterr().err.splitlines() == [INTERRUPTED_LINE]


_FILE_STATES: dict[Path, set] = {}


def state_of_file(path: Path) -> set:
    """The data quads loading ``path`` alone gives (computed once)."""
    if path not in _FILE_STATES:
        with MemoryStore() as store:
            store.load(path)
            _FILE_STATES[path] = data_quads(store)
    return _FILE_STATES[path]
