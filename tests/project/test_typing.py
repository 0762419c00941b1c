"""``mypy --strict src/memkg`` finds no error, and the few ``type: ignore`` comments each say why.

A gate, not a ratchet: any error fails. A ``type: ignore`` names the error code it silences
and, on the same line, its reason (``# type: ignore[code]  # why``); there are at most
:data:`MAX_IGNORES` of them in ``src/``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "memkg"
MAX_IGNORES = 10
IGNORE = re.compile(r"#\s*type:\s*ignore")
#: an ignore with its error code, then a comment giving the reason
REASONED = re.compile(r"#\s*type:\s*ignore\[[\w\-, ]+\]\s*#\s*\S")


def mypy_errors(cache_dir: Path) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache_dir), "src/memkg"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    if run.returncode not in (0, 1):
        raise RuntimeError(f"mypy failed to run: {run.stderr or run.stdout}")
    return [line for line in run.stdout.splitlines() if ": error: " in line]


def ignores(files: list[Path]) -> list[tuple[str, str]]:
    """Every ``type: ignore`` comment in ``files``: (file:line, the line)."""
    return [(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{n}", line.strip())
            for path in files for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if IGNORE.search(line)]


def unexplained(found: list[tuple[str, str]]) -> list[str]:
    """The places whose ``type: ignore`` lacks its error code or its reason."""
    return [where for where, line in found if not REASONED.search(line)]


@pytest.mark.slow
def test_mypy_strict_finds_no_error(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (it comes with the test extra)")
    errors = mypy_errors(tmp_path / "mypy-cache")
    assert not errors, f"mypy --strict src/memkg: {len(errors)} error(s)\n" + "\n".join(errors)


def test_type_ignore_comments_are_few_and_each_says_why() -> None:
    found = ignores(sorted(SOURCE.rglob("*.py")))
    assert len(found) <= MAX_IGNORES, f"{len(found)} type: ignore comments, at most {MAX_IGNORES}: " + ", ".join(
        where for where, _ in found)
    assert not unexplained(found), "type: ignore without '[code]  # reason' on the same line: " + ", ".join(
        unexplained(found))


def test_an_ignore_without_its_code_or_its_reason_is_found(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text(
        "a = f()  # type: ignore\n"
        "b = f()  # type: ignore[arg-type]\n"
        "c = f()  # type: ignore  # the stub is wrong\n"
        "d = f()  # type: ignore[arg-type]  # the stub is wrong\n"
        "e = f()  # type:ignore[union-attr, index] # checked above\n"
        "f = 'no ignore here'\n",
        encoding="utf-8",
    )
    found = ignores([source])
    assert [where.rsplit(":", 1)[1] for where, _ in found] == ["1", "2", "3", "4", "5"]
    assert [where.rsplit(":", 1)[1] for where in unexplained(found)] == ["1", "2", "3"]
