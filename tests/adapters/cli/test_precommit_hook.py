"""The ``memkg-validate`` pre-commit hook (``.pre-commit-hooks.yaml``), run by the real
``pre-commit`` tool on a scratch git repository, offline.

``pre-commit try-repo`` clones this checkout (with its uncommitted changes), makes a
virtualenv for the hook (``language: python``) and ``pip install``s the clone into it.
pip would fetch the build backend and memkg's dependencies from an index; here it is
given none (``PIP_NO_INDEX``, and an index URL that answers nothing), builds without
isolation and installs memkg alone (``PIP_NO_DEPS``), while ``PYTHONPATH`` lends the
hook the test environment's packages (hatchling to build, pyoxigraph & co. to run).
memkg itself comes from the hook's environment: an editable install's ``.pth`` is not
read from ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
INVALID = ROOT / "tests" / "fixtures" / "invalid" / "inv5-no-provenance.trig"
VALID = ROOT / "examples" / "lia-tea.trig"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]


def _hook(repo: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("pre_commit", reason="pre-commit comes with the test extra")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "PIP_NO_INDEX": "1",
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",  # nothing listens there: no download can happen
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip reads this variable inverted: "0" turns isolation off
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
    }
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "memkg-validate",
                           "--files", *files], cwd=repo, env=env, capture_output=True, text=True, timeout=540)


def test_the_hook_refuses_an_invalid_file_and_passes_a_valid_one(tmp_path: Path) -> None:
    if subprocess.run(["git", "ls-files", "--error-unmatch", ".pre-commit-hooks.yaml"], cwd=ROOT,
                      capture_output=True).returncode != 0:
        pytest.skip("this checkout has no tracked .pre-commit-hooks.yaml (pre-commit reads tracked files only)")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    shutil.copy(INVALID, repo / "bad.trig")
    shutil.copy(VALID, repo / "good.trig")
    subprocess.run(["git", "add", "bad.trig", "good.trig"], cwd=repo, check=True)
    home = tmp_path / "pre-commit-home"
    failed = _hook(repo, home, "bad.trig")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "memkg validate (SHACL)" in failed.stdout and "Failed" in failed.stdout
    assert "bad.trig:17:5: Violation" in failed.stdout, failed.stdout
    passed = _hook(repo, home, "good.trig")  # the hook's environment is reused
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
