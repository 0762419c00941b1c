"""Reading JSON Lines from outside: bounded lines, strict UTF-8, bounded nesting and strings.

A JSON Lines file comes from another program (an agent loop, a chat export),
so every line is read in bounded memory and checked before :func:`json.loads`
builds anything: no line can crash the reader (a ``RecursionError`` on deep
nesting, a ``MemoryError`` on a huge line), and every refusal says which line
and which limit. The limits live in :class:`JsonLimits`, in one place.

>>> import io
>>> data = io.BytesIO(b'{"a": 1}\\n{"b": "\\xff"}\\n[[[[1]]]]\\n')
>>> for number, value, problem in read_lines(data, JsonLimits(max_depth=3)):
...     print(number, value if problem is None else problem)
1 {'a': 1}
2 invalid UTF-8 (byte 0xff) at byte offset 16 of the file, 7 of the line
3 arrays and objects nest more than 3 deep (--max-depth)
"""

from __future__ import annotations

import itertools
import json
import math
import operator
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate, repeat
from typing import IO, Any

from ..guard.limits import DEFAULT, PARSER_TOKEN_LIMIT, Limits

#: The deepest nesting :func:`json.loads` handles well below Python's own
#: recursion limit (it recurses once per level): no limit may be set above it.
DEPTH_CEILING = 500


@dataclass(frozen=True)
class JsonLimits:
    """How much one JSON line may hold. Past a limit the line is refused, naming it.

    ``max_line_bytes``: a line's length in bytes (UTF-8), newline excluded;
    ``max_literal``: characters in any one string (a value or a key), the
    literal it may become;
    ``max_depth``: arrays and objects nested in one another (at most
    :data:`DEPTH_CEILING`).

    ``max_depth`` and ``max_literal`` mean what :class:`memkg.guard.limits.Limits` of the
    same names mean, with its defaults (:meth:`of` takes them from one); each
    refusal names the command-line option that changes the limit.
    """

    max_line_bytes: int = 16 * 2**20
    max_literal: int = DEFAULT.max_literal or PARSER_TOKEN_LIMIT
    max_depth: int = DEFAULT.max_depth

    @classmethod
    def of(cls, limits: Limits, *, max_line_bytes: int | None = None) -> JsonLimits:
        """The JSON limits that ``limits`` (memkg's input limits) set: the same depth and
        literal size (no literal limit means the RDF parsers' own)."""
        return cls(max_line_bytes=max_line_bytes or cls.max_line_bytes,
                   max_literal=limits.max_literal or PARSER_TOKEN_LIMIT, max_depth=limits.max_depth)

    def __post_init__(self) -> None:
        for name in ("max_line_bytes", "max_literal", "max_depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.max_depth > DEPTH_CEILING:
            raise ValueError(f"max_depth is at most {DEPTH_CEILING} (JSON parsing recurses per level), "
                             f"got {self.max_depth}")


DEFAULT_LIMITS = JsonLimits()

# A JSON string, escapes included, written "unrolled" (runs of plain characters matched at
# once): linear, and ~20x faster than one alternation per character on a 16 MiB string.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# Every byte but the brackets, to delete; and both kinds of bracket as one (depth ignores kinds).
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_ONE_KIND = bytes.maketrans(b"{}", b"[]")
_STEPS = bytes.maketrans(b"[]", b"\x02\x00")  # minus one: +1 for an opener, -1 for a closer
#: Reduction passes before the one exact pass (real JSON is rarely more than 8 deep).
_PASSES = 8
_SURROGATE = re.compile("[\ud800-\udfff]")


def read_lines(stream: IO[bytes], limits: JsonLimits = DEFAULT_LIMITS) -> Iterator[tuple[int, Any, str | None]]:
    """``(line number, value, None)`` for each non-blank line of a binary stream, or
    ``(line number, None, problem)`` for a line that breaks a limit, is not UTF-8 or
    not JSON. Holds at most ``max_line_bytes`` of one line in memory."""
    offset = 0  # of the line's first byte in the file
    for number in itertools.count(1):
        raw = stream.readline(limits.max_line_bytes + 1)
        if not raw:
            return
        if len(raw) > limits.max_line_bytes and not raw.endswith(b"\n"):
            length = len(raw)
            while raw and not raw.endswith(b"\n"):  # skip the rest, a bounded piece at a time
                raw = stream.readline(2**20)
                length += len(raw)
            body = length - (1 if raw.endswith(b"\n") else 0)
            yield number, None, (f"line is {body:,} bytes or more, past the limit of "
                                 f"{limits.max_line_bytes:,} (--max-line-bytes)")
            offset += length
            continue
        start, offset = offset, offset + len(raw)
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a byte order mark some editors write
            raw, start = raw[3:], start + 3
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            bad = raw[err.start:err.start + 1].hex()
            yield number, None, (f"invalid UTF-8 (byte 0x{bad}) at byte offset {start + err.start} of the file, "
                                 f"{err.start} of the line")
            continue
        if not text.strip():
            continue
        value, problem = parse_line(text, limits)
        yield number, value, problem


def parse_lines(lines: Iterable[str], limits: JsonLimits = DEFAULT_LIMITS) -> Iterator[tuple[int, Any, str | None]]:
    """:func:`read_lines` for text already decoded: one string per line."""
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        size = len(text.encode("utf-8", "surrogatepass")) if len(text) * 4 > limits.max_line_bytes else len(text)
        if size > limits.max_line_bytes + (1 if text.endswith("\n") else 0):
            yield number, None, f"line is {size:,} bytes, past the limit of {limits.max_line_bytes:,} (--max-line-bytes)"
            continue
        value, problem = parse_line(text, limits)
        yield number, value, problem


def parse_line(text: str, limits: JsonLimits = DEFAULT_LIMITS) -> tuple[Any, str | None]:
    """One line's JSON value and None, or None and what is wrong with it."""
    depth = nesting_depth(text, limits.max_depth)
    if depth > limits.max_depth:
        return None, f"arrays and objects nest more than {limits.max_depth} deep (--max-depth)"
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as err:
        return None, f"not JSON: {err.msg} (column {err.colno})"
    except RecursionError:  # unreachable below DEPTH_CEILING; kept so no traceback can escape
        return None, f"nested too deeply for this Python, within the limit of {limits.max_depth} (--max-depth)"
    except ValueError as err:  # a number json cannot hold (NaN, Infinity, 1e999, 5000 digits)
        return None, f"not JSON memkg can keep: {err}"
    problem = _check_strings(value, limits)
    return (None, problem) if problem else (value, None)


def nesting_depth(text: str, stop: int) -> int:
    """How deep arrays and objects nest in ``text`` (strings skipped): exact up to
    ``stop``, and some number over ``stop`` for anything deeper.

    Runs at C speed whatever the line. A pass deletes the innermost ``[]`` pairs,
    one level, so the few levels of real data vanish in a few passes; a run of
    ``stop + 1`` openers says "too deep" at once; and what is left after a few
    passes (deep and wide at once: only hostile input) is measured in one exact pass.

    >>> nesting_depth('{"a": [1, "[[["]}', 1), nesting_depth("[" * 10**6, 64) > 64, nesting_depth("[]" * 10**6, 64)
    (2, True, 1)
    """
    if text.count("[") + text.count("{") <= stop:  # cannot be deeper: no need to look
        return min(stop, text.count("[") + text.count("{"))
    brackets = _STRING.sub("", text).encode("utf-8", "surrogatepass").translate(_ONE_KIND, _NOT_BRACKETS)
    too_deep = b"[" * (stop + 1)
    passes = 0
    while brackets and passes < _PASSES:
        if too_deep in brackets:
            return passes + stop + 1
        inner = brackets.replace(b"[]", b"")
        if len(inner) == len(brackets):
            break
        brackets, passes = inner, passes + 1
    # Depth lost to the passes, plus the deepest point of what is left. (Openers never
    # closed count: a parser descends into each before it fails.)
    return passes + max(accumulate(map(operator.sub, brackets.translate(_STEPS), repeat(1))), default=0)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise ValueError(f"{text[:40]} is too large for a finite number")
    return x


def _check_strings(value: Any, limits: JsonLimits) -> str | None:
    """The first string over ``max_literal`` characters or holding a lone surrogate (not text)."""
    pending = [value]  # iterative: depth is bounded already, but the walk needs no stack either
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            if len(item) > limits.max_literal:
                return (f"a string of {len(item):,} characters ({item[:30]!r}…), past the limit of "
                        f"{limits.max_literal:,} (--max-literal)")
            lone = _SURROGATE.search(item)
            if lone:
                return f"a string holds a lone surrogate \\u{ord(lone.group()):04x}: not Unicode text"
    return None
