"""Reading JSON Lines from outside: every refusal names the line and the limit, in bounded time and memory."""

from __future__ import annotations

import io
import time

import pytest

from memkg.loading.jsonlines import DEPTH_CEILING, JsonLimits, nesting_depth, parse_line, parse_lines, read_lines


def read(data: bytes, **limits: int) -> list[tuple[int, object, str | None]]:
    return list(read_lines(io.BytesIO(data), JsonLimits(**limits)))


def test_lines_are_numbered_as_in_the_file_blank_ones_skipped() -> None:
    assert read(b'{"a": 1}\r\n\n   \n[2]') == [(1, {"a": 1}, None), (4, [2], None)]


def test_a_byte_order_mark_on_the_first_line_is_not_content() -> None:
    assert read(b'\xef\xbb\xbf{"a": 1}\n') == [(1, {"a": 1}, None)]


def test_invalid_utf8_names_the_byte_offset_in_the_file_and_in_the_line() -> None:
    ((number, value, problem),) = [r for r in read(b'{"a": 1}\n{"b": "ok"}\n{"c": "\xc3("}\n') if r[2]]
    assert (number, value) == (3, None)
    assert problem == "invalid UTF-8 (byte 0xc3) at byte offset 28 of the file, 7 of the line"


def test_an_over_long_line_is_skipped_in_pieces_and_the_next_one_read() -> None:
    rows = read(b'"' + b"x" * 5_000_000 + b'"\n{"next": true}\n', max_line_bytes=100)
    assert rows[0] == (1, None, "line is 5,000,002 bytes or more, past the limit of 100 (--max-line-bytes)")
    assert rows[1] == (2, {"next": True}, None)


def test_an_over_long_last_line_without_a_newline() -> None:
    assert read(b"[" + b"1," * 100 + b"1]", max_line_bytes=50)[0][2].startswith("line is 203 bytes or more")


def test_decoded_lines_have_the_same_limits() -> None:
    rows = list(parse_lines(["[1]\n", "\n", '"' + "é" * 60 + '"'], JsonLimits(max_line_bytes=100)))
    assert rows[0] == (1, [1], None)
    assert rows[1] == (3, None, "line is 122 bytes, past the limit of 100 (--max-line-bytes)")


def test_depth_counts_brackets_outside_strings_only() -> None:
    assert nesting_depth('{"a": "[[[[[[[[[["}', 1) == 1
    assert nesting_depth('{"a": "\\"[[[[", "b": [[1]]}', 2) == 3
    assert parse_line('{"a": "[[[[[[[[[[[[[[[["}', JsonLimits(max_depth=1)) == ({"a": "[[[[[[[[[[[[[[[["}, None)


def test_a_hundred_thousand_deep_is_refused_quickly_without_recursion() -> None:
    text = "[" * 100_000 + "]" * 100_000
    start = time.perf_counter()
    value, problem = parse_line(text)
    assert value is None and problem == "arrays and objects nest more than 64 deep (--max-depth)"
    assert time.perf_counter() - start < 1.0, "the depth check must not walk the whole line"


@pytest.mark.parametrize("text", [
    "[" + "[" * 63 + "]" * 63 + ",[" * 1000 + "]" * 1001,  # deep, each level a wide sibling of height 64
    "[" * 1000 + "[" * 63 + "]" * 63,  # never closed, interrupted by blocks: no long run of openers
    '{"a":' * 500 + "1" + "}" * 500,  # objects
    "[" * 70 + '"]]]]"' + "]" * 70,  # a string of closers changes nothing
])
def test_deep_in_every_shape_is_refused(text: str) -> None:
    value, problem = parse_line(text)
    assert value is None and problem == "arrays and objects nest more than 64 deep (--max-depth)"


def test_wide_but_shallow_is_not_deep() -> None:
    text = "[" + ",".join(["[[[1]]]"] * 10_000) + "]"
    assert nesting_depth(text, 3) == 4 and parse_line(text, JsonLimits(max_depth=4))[1] is None


def test_the_deepest_allowed_nesting_parses() -> None:
    text = "[" * DEPTH_CEILING + "]" * DEPTH_CEILING
    value, problem = parse_line(text, JsonLimits(max_depth=DEPTH_CEILING))
    assert problem is None and isinstance(value, list)


def test_strings_keys_included_are_bounded() -> None:
    limits = JsonLimits(max_literal=10)
    assert parse_line('{"abcdefghijk": 1}', limits)[1].startswith("a string of 11 characters")
    assert parse_line('["éééééééééé", "ok"]', limits) == (["éééééééééé", "ok"], None)  # 10 characters: at the limit
    assert "a string of 11 characters" in parse_line('["ééééééééééé"]', limits)[1]


@pytest.mark.parametrize("bad", [{"max_depth": 0}, {"max_line_bytes": -1}, {"max_literal": True},
                                 {"max_depth": DEPTH_CEILING + 1}])
def test_limits_are_checked(bad: dict) -> None:
    with pytest.raises(ValueError):
        JsonLimits(**bad)


def test_json_limits_are_memkgs_input_limits() -> None:
    from memkg.guard.limits import DEFAULT, Limits

    assert (JsonLimits().max_depth, JsonLimits().max_literal) == (DEFAULT.max_depth, DEFAULT.max_literal)
    of = JsonLimits.of(Limits(max_depth=8, max_literal=100), max_line_bytes=1000)
    assert (of.max_depth, of.max_literal, of.max_line_bytes) == (8, 100, 1000)
    assert JsonLimits.of(Limits(max_literal=None)).max_literal == 16 * 2**20  # the RDF parsers' own limit
