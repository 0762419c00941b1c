"""The ``memkg`` command's entry point, outside the ``memkg`` package so that Ctrl-C while memkg imports is caught.

Importing any module of memkg first runs ``memkg/__init__.py`` (and pyoxigraph's import), a few
hundred milliseconds in which a Ctrl-C would otherwise escape as a traceback and exit -2. This
module imports nothing but :mod:`sys` before :func:`main` runs, so that time falls inside its
``try``: the command prints the one line :func:`memkg.adapters.cli.main` prints when interrupted
later, and exits 130 (128 + SIGINT, as shells count it).
"""

from __future__ import annotations

import sys

#: What :func:`memkg.adapters.cli.main` prints on Ctrl-C (kept equal by tests/adapters/cli/test_interrupts.py).
INTERRUPTED_LINE = "memkg: interrupted; nothing was left half-written"
EXIT_INTERRUPTED = 130


def main() -> int:
    """Run the ``memkg`` command line; Ctrl-C at any point is one line and exit 130."""
    try:
        from memkg.adapters.cli import main as run  # the imports a Ctrl-C may cut short

        return run()
    except KeyboardInterrupt:
        print(INTERRUPTED_LINE, file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
