"""Language-range matching as the standards define it, on each path memkg decides it by.

``sh:languageIn`` (SHACL §4.4.4) and SPARQL's ``langMatches`` use RFC 4647 basic filtering
(section 3.3.1): a range matches a tag when, case aside, it equals the tag or is a prefix of it
followed by ``-``; ``*`` matches every non-empty tag; nothing matches a literal without a tag.
The rule is written here once (:func:`basic_filter`), from the RFC, and the engine's paths are
held to it: the Python reader (``memkg.shacl.values.lang_matches``), Oxigraph's ``langMatches``
that the SPARQL path compiles to, a shapes graph validated over a store, and over parsed quads
(the as-written path).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyoxigraph import Literal, Quad, Store

from memkg.shacl.values import lang_matches

from .helpers import ex, shapes

pytestmark = pytest.mark.slow  # a few hundred random validations


def basic_filter(tag: str, language_range: str) -> bool:
    """RFC 4647 section 3.3.1, basic filtering, with SPARQL's reading of an empty tag."""
    if not tag:
        return False
    if language_range == "*":
        return True
    tag, language_range = tag.lower(), language_range.lower()
    return tag == language_range or tag.startswith(language_range + "-")


#: The RFC's own examples, and the edges people get wrong.
CASES = [
    ("de-DE", "de-de", True),          # case does not matter, on either side
    ("de-de-1996", "de-DE", True),     # a longer tag under the range
    ("de-Deva", "de-de", False),       # a subtag that is not the range's
    ("de-Latn-DE", "de-de", False),    # basic filtering does not skip subtags (extended does)
    ("en", "en", True),
    ("eng", "en", False),              # a prefix of the tag that is not a whole subtag
    ("en-", "en", True),               # prefix and "-": the RFC's rule, however odd the tag
    ("en-US", "en-US-x", False),       # the range longer than the tag
    ("x-klingon", "x", True),
    ("", "*", False),                  # no tag: "*" matches only a language
    ("fr", "*", True),
    ("FR", "*", True),
    ("", "en", False),
]


@pytest.mark.parametrize(("tag", "language_range", "expected"), CASES)
def test_the_reference_reads_the_rfc_as_the_table_says(tag: str, language_range: str, expected: bool) -> None:
    assert basic_filter(tag, language_range) is expected


def oxigraph_lang_matches(tag: str, language_range: str) -> bool:
    store = Store()
    literal = f'"x"@{tag}' if tag else '"x"'
    result = store.query(f'ASK {{ FILTER(langMatches(LANG({literal}), "{language_range}")) }}')
    return bool(result)


@pytest.mark.parametrize(("tag", "language_range", "expected"), [c for c in CASES if c[0] != "en-"])
def test_every_reader_of_a_range_agrees_with_the_rfc_on_its_examples(tag: str, language_range: str,
                                                                     expected: bool) -> None:
    assert lang_matches(tag, language_range) is expected
    assert oxigraph_lang_matches(tag, language_range) is expected
    assert conforms_on_both_paths(tag, [language_range]) == (expected, expected)


def conforms_on_both_paths(tag: str, ranges: list[str]) -> tuple[bool, bool]:
    """Whether a value tagged ``tag`` conforms to ``sh:languageIn (ranges)``: over a store (the
    SPARQL path) and over parsed quads (the as-written path)."""
    listed = " ".join(f'"{r}"' for r in ranges)
    judged = shapes(f"ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:languageIn ( {listed} ) ] .")
    value = Literal("x", language=tag) if tag else Literal("x")
    quad = Quad(ex("a"), ex("p"), value)
    store = Store()
    store.add(quad)
    return judged.validate(store).conforms, judged.validate_quads([quad]).conforms


#: Well-formed tags (pyoxigraph refuses others) that share prefixes and differ in case.
TAGS = st.sampled_from(["en", "EN", "en-US", "en-us", "en-GB", "en-Latn", "en-Latn-US", "eng", "de", "de-DE",
                        "de-de-1996", "de-Latn-DE", "de-CH-1901", "fr", "x-klingon", "zh-Hant", "zh-Hant-TW"])
RANGES = st.one_of(st.just("*"), TAGS, st.sampled_from(["zh", "ZH-hant", "de-latn", "en-latn-us-x", "x"]))


@settings(max_examples=150, deadline=None)
@given(tag=st.one_of(st.just(""), TAGS), ranges=st.lists(RANGES, min_size=1, max_size=3))
def test_language_in_decides_as_basic_filtering_on_both_paths(tag: str, ranges: list[str]) -> None:
    expected = any(basic_filter(tag, r) for r in ranges)
    assert all(lang_matches(tag, r) is basic_filter(tag, r) for r in ranges)
    assert conforms_on_both_paths(tag, ranges) == (expected, expected)
