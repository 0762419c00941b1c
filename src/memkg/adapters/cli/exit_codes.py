"""The exit codes of the command-line contract, and the one error the command line adds.

0 ok; 1 invalid data or an inconsistency (nothing written); 2 a parse or usage
error (nothing written); 130 interrupted by Ctrl-C (128 + SIGINT, as shells report it).
Which library error gets which code is decided in one place, :func:`memkg.adapters.cli.main`.
"""

from __future__ import annotations

from ...core.errors import MemkgError

EXIT_OK, EXIT_INVALID, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130


class UsageError(MemkgError):
    """A command line that cannot be carried out as written."""
