"""The tests are laid out like the code: ``tests/<package>/test_<module or behaviour>.py``.

A test file sits in the folder of the package of ``src/memkg`` it checks (``tests/store`` for
``memkg.store``, ``tests/adapters/endpoint`` for ``memkg.adapters.endpoint``), or in one of the
few folders below for what belongs to no package. Helpers several packages share live in
``tests/support``, data files in ``tests/fixtures``; neither holds tests.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
PACKAGE = ROOT / "src" / "memkg"

#: Folders of tests that check no one package: the guides and docstrings, and the repository
#: as a whole (layers, layout, packaging, typing).
BEYOND_PACKAGES = {Path("docs"), Path("project")}


def packages() -> set[Path]:
    """Each package of src/memkg as a path relative to it (``store``, ``adapters/endpoint``)."""
    return {init.parent.relative_to(PACKAGE) for init in PACKAGE.rglob("__init__.py") if init.parent != PACKAGE}


def test_every_test_file_sits_in_a_package_folder_or_a_named_folder_beyond_them() -> None:
    allowed = packages() | BEYOND_PACKAGES
    misplaced = sorted(str(path.relative_to(ROOT)) for path in TESTS.rglob("test_*.py")
                       if path.parent.relative_to(TESTS) not in allowed)
    assert not misplaced, (
        f"test files outside tests/<package>/ (a package of src/memkg, or one of "
        f"{sorted(map(str, BEYOND_PACKAGES))}): {misplaced}")
