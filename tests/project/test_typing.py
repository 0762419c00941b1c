"""``mypy --strict`` over ``src/``, as a ratchet: no file gets more type errors, no new file has any,
and the count of ``type: ignore`` comments does not grow.

The baseline (``tests/project/typing_baseline.json``) holds what is left to fix. When a change
fixes errors, lower the baseline with ``python tests/project/test_typing.py --write-baseline``;
raising it is what the test exists to stop.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "memkg"
BASELINE = Path(__file__).with_name("typing_baseline.json")
ERROR = re.compile(r"^(?P<file>src/memkg/[^:]+):\d+: error: ", re.M)


def mypy_errors(cache_dir: Path) -> Counter[str]:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache_dir), "src/memkg"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    if run.returncode not in (0, 1):
        raise RuntimeError(f"mypy failed to run: {run.stderr or run.stdout}")
    return Counter(m["file"] for m in ERROR.finditer(run.stdout))


def type_ignores() -> int:
    return sum(p.read_text(encoding="utf-8").count("type: ignore") for p in SOURCE.rglob("*.py"))


def test_mypy_strict_errors_do_not_grow(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (it comes with the test extra)")
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    errors = mypy_errors(tmp_path / "mypy-cache")
    grown = {f: (n, baseline["errors"].get(f, 0)) for f, n in errors.items() if n > baseline["errors"].get(f, 0)}
    assert not grown, "mypy --strict errors grew (file: now, baseline): " + ", ".join(
        f"{f}: {n} > {b}" for f, (n, b) in sorted(grown.items())
    )


def test_type_ignore_comments_do_not_grow() -> None:
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    assert type_ignores() <= baseline["type_ignores"]


if __name__ == "__main__" and sys.argv[1:] == ["--write-baseline"]:
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        counts = mypy_errors(Path(cache))
    BASELINE.write_text(json.dumps({"type_ignores": type_ignores(), "errors": dict(sorted(counts.items()))},
                                   indent=1) + "\n", encoding="utf-8")
    print(f"{sum(counts.values())} errors in {len(counts)} files, {type_ignores()} type: ignore")
