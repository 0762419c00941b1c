"""How a command module declares its subcommands, without knowing the parser.

Each command module has a ``register(command)``; :mod:`.parser` calls it with ``command``,
an :data:`AddCommand` that adds one subcommand and returns its parser, for its arguments.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

#: What a subcommand runs: the parsed arguments in, the exit code out.
Command = Callable[[argparse.Namespace], int]

#: command(name, help, example, func) -> the subcommand's parser, for its arguments
AddCommand = Callable[[str, str, str, Command], argparse.ArgumentParser]
