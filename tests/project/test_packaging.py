"""An installed memkg carries its ontology, shapes, queries and examples (it must work outside the checkout)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    (path,) = out.glob("memkg-*.whl")
    return path


def test_the_wheel_ships_the_data_the_code_reads(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "memkg/_data/ontology/memkg.ttl",
        "memkg/_data/queries/current.rq",
        "memkg/_data/examples/lia-tea.trig",
        "memkg/_data/shapes/policy/edge-properties.ttl",
        "memkg/py.typed",
        "memkg/adapters/endpoint/page.html",  # the endpoint's query page
        "memkg_launcher.py",  # the `memkg` command, which catches Ctrl-C while memkg imports
    ):
        assert required in names, f"{required} missing from {wheel.name}"


def test_the_installed_package_runs_from_anywhere(wheel: Path, tmp_path: Path) -> None:
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    code = (
        f"import sys; sys.path.insert(0, {str(unpacked)!r})\n"
        "import memkg, memkg.core.resources as r\n"
        f"assert memkg.__file__.startswith({str(unpacked)!r}), memkg.__file__\n"
        "assert '_data' in str(r.data_dir('queries')), r.data_dir('queries')\n"
        "s = memkg.MemoryStore()\n"
        "s.load(r.data_dir('examples') / 'lia-tea.trig')\n"
        "print(len(list(s.view('current'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "5"
