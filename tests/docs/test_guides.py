"""Every Python example and every ``$ memkg …`` command in the README and the guides in docs/ runs as written.

Each Python block runs alone, in a fresh temporary working directory (examples write
``./memkg-store``), with the checkout's ``examples/`` folder copied in so that
blocks may load ``examples/*.trig`` as the guides do.

Shell: in a fenced block, a line ``$ memkg ARGS`` is a command that runs (its shell words
split as a shell would), and the lines up to the next ``$`` line or the fence are its output
(standard output and error, as a terminal shows them), compared line by line: a line ``…``
stands for any number of lines, and a line ending in ``…`` for any line that starts so. A block
shown without output after a command is run and must exit 0. The commands of one guide run in
order in one temporary folder (``examples/`` and ``tests/fixtures/`` beside them), so a guide
is a walk. A block that must not run (a long-running ``memkg serve``, a file the reader makes)
is marked by the line ``<!-- not-run: REASON -->`` just above its fence.
"""

from __future__ import annotations

import gc
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _blocks() -> list[tuple[Path, int, str]]:
    found = []
    for guide in GUIDES:
        text = guide.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 2  # the block's first line of code
            found.append((guide, line, match.group(1)))
    return found


BLOCKS = _blocks()

NOT_RUN = re.compile(r"^<!-- not-run: .+ -->$")


def _walks() -> list[tuple[Path, list[tuple[int, str, list[str]]]]]:
    """Each guide's ``$ memkg`` commands, in order: (line, command, the output shown)."""
    walks = []
    for guide in GUIDES:
        text = guide.read_text(encoding="utf-8")
        commands: list[tuple[int, str, list[str]]] = []
        for match in re.finditer(r"(?ms)^```[a-z]*\n(.*?)^```", text):
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            if NOT_RUN.match(before.strip()):
                continue
            first = text.count("\n", 0, match.start()) + 2
            for offset, line in enumerate(match.group(1).splitlines()):
                if line.startswith("$ "):
                    commands.append((first + offset, line[2:], []))
                elif commands and commands[-1][0] >= first:
                    commands[-1][2].append(line.rstrip())
        if any(c.startswith("memkg ") for _, c, _ in commands):
            walks.append((guide, commands))
    return walks


WALKS = _walks()


def _matches(shown: list[str], got: list[str]) -> bool:
    """``got`` as ``shown`` gives it: ``…`` any lines, ``text…`` a line that starts with text."""
    if not shown:
        return not got
    head, rest = shown[0], shown[1:]
    if head.strip() == "…":
        return any(_matches(rest, got[i:]) for i in range(len(got) + 1))
    if not got:
        return False
    same = got[0].startswith(head[:-1]) if head.endswith("…") else got[0] == head
    return same and _matches(rest, got[1:])


@pytest.mark.slow
@pytest.mark.parametrize("guide, commands", WALKS, ids=[str(g.relative_to(ROOT)) for g, _ in WALKS])
def test_shell_walk(guide: Path, commands: list[tuple[int, str, list[str]]], tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "tests" / "fixtures", tmp_path / "tests" / "fixtures")
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    for line, command, shown in commands:
        words = shlex.split(command)
        assert words[0] == "memkg", f"{guide.name}:{line}: only memkg commands run here: {command}"
        done = subprocess.run([sys.executable, "-m", "memkg", *words[1:]], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        got = [g.rstrip() for g in done.stdout.rstrip("\n").splitlines()]
        if shown:
            assert _matches(shown, got), f"{guide.name}:{line}: $ {command}\nshown:\n" + "\n".join(shown) + \
                "\ngot:\n" + "\n".join(got)
        else:
            assert done.returncode == 0, f"{guide.name}:{line}: $ {command} exited {done.returncode}:\n{done.stdout}"


def test_the_output_pattern_takes_ellipses() -> None:
    assert _matches(["a", "…", "d"], ["a", "b", "c", "d"]) and _matches(["ab…"], ["abc"])
    assert not _matches(["a", "d"], ["a", "b", "d"]) and not _matches(["a…"], ["b"])


def test_every_guide_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [g.name for g in GUIDES[1:] if f"docs/{g.name}" not in readme]
    assert not missing, f"guides not linked from README.md: {missing}"


@pytest.mark.parametrize(
    "guide, line, code", BLOCKS, ids=[f"{g.relative_to(ROOT)}:{line}" for g, line, _ in BLOCKS]
)
def test_python_block(guide: Path, line: int, code: str, tmp_path: Path, monkeypatch) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    # Blank lines keep the traceback's line numbers those of the guide.
    exec(compile("\n" * (line - 1) + code, str(guide), "exec"), {"__name__": "guide"})


def test_the_recall_walk_works_when_run_again_in_its_folder(tmp_path: Path, monkeypatch) -> None:
    # a reader runs it twice: the first run's store must not change what the second one finds
    guide, line, code = next(b for b in BLOCKS if b[0].name == "recall.md")
    monkeypatch.chdir(tmp_path)
    compiled = compile("\n" * (line - 1) + code, str(guide), "exec")
    for _ in range(2):
        exec(compiled, {"__name__": "guide"})
        gc.collect()  # the run's store is closed (its lock let go), as when a script ends
