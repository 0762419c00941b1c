"""Every Python example in the README and the guides in docs/ runs as written.

Each block runs alone, in a fresh temporary working directory (examples write
``./memkg-store``), with the checkout's ``examples/`` folder copied in so that
blocks may load ``examples/*.trig`` as the guides do.
"""

from __future__ import annotations

import gc
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
