"""Text written for a node reads as one IRI in every form memkg accepts and prints
(``memkg.core.names``), and text that names none is refused saying what was given and
which forms are accepted."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyoxigraph import Literal, NamedNode

from memkg.core.errors import AmbiguousName, UnreadableName
from memkg.core.names import ACCEPTED, read_iri, read_term
from memkg.core.prefixes import BUILT_IN, compact, show
from memkg.core.vocab import xsd

LIA = "https://example.org/lia/"
ACME = "https://example.org/acme/"
KNOWN = {**BUILT_IN, "ex": LIA}
TWO = {**KNOWN, "ex2": ACME}


@pytest.mark.parametrize("text", [
    "ex:tea", f"<{LIA}tea>", f"{LIA}tea", f"‹{LIA}tea›", "‹ex:tea›", f"  {LIA}tea  ", f"< {LIA}tea >",
])
def test_every_accepted_form_reads_as_the_same_iri(text: str) -> None:
    assert read_iri(text, KNOWN) == NamedNode(LIA + "tea")


@pytest.mark.parametrize("text", ["urn:memkg:claim:0193", "mailto:lia@example.org", "tag:example.org,2026:x",
                                  "http://example.org/a", "file:///tmp/a"])
def test_a_bare_iri_of_a_scheme_without_a_prefix_is_read_as_written(text: str) -> None:
    assert read_iri(text, KNOWN).value == text


def test_a_scheme_that_a_store_declares_as_a_prefix_reads_as_the_prefix() -> None:
    assert read_iri("urn:x", {"urn": "https://example.org/u/"}).value == "https://example.org/u/x"


@pytest.mark.parametrize(("text", "reason"), [
    ("zz:tea", "unknown prefix zz:"),
    ("tea", "no prefix or scheme"),
    ("_:b0", "blank node"),
    ("<tea>", "not absolute"),
    ("", "empty"),
    ("<https://example.org/a b>", "names no IRI"),
])
def test_text_that_names_no_iri_is_refused_naming_the_text_and_the_forms(text: str, reason: str) -> None:
    with pytest.raises(UnreadableName) as refused:
        read_iri(text, KNOWN, what="--object")
    message = str(refused.value)
    assert message.startswith(f"--object {text!r}") and reason in message and ACCEPTED in message


def test_an_unknown_prefix_is_refused_naming_the_prefixes_known() -> None:
    with pytest.raises(UnreadableName, match=r"known: .*ex:.*mem:"):
        read_iri("zz:tea", KNOWN)


def test_a_compact_iri_naming_nothing_in_its_first_namespace_but_a_node_in_a_renamed_one_is_refused() -> None:
    held = {ACME + "cMigration"}
    with pytest.raises(AmbiguousName) as refused:
        read_iri("ex:cMigration", TWO, exists=held.__contains__)
    message = str(refused.value)
    assert f"<{LIA}cMigration> (ex:cMigration)" in message and f"<{ACME}cMigration> (ex2:cMigration)" in message
    assert read_iri("ex2:cMigration", TWO, exists=held.__contains__) == NamedNode(ACME + "cMigration")


def test_a_compact_iri_whose_first_reading_is_held_means_that_node() -> None:
    held = {LIA + "c0", ACME + "c0"}
    assert read_iri("ex:c0", TWO, exists=held.__contains__) == NamedNode(LIA + "c0")


def test_a_compact_iri_held_nowhere_reads_in_its_first_namespace() -> None:
    assert read_iri("ex:nothing", TWO, exists=lambda _: False) == NamedNode(LIA + "nothing")


@pytest.mark.parametrize(("text", "term"), [
    ('"Lili"', Literal("Lili")),
    ('"thé"@fr', Literal("thé", language="fr")),
    ("42", Literal("42", datatype=xsd.integer)),
    ('"0.5"^^xsd:decimal', Literal("0.5", datatype=xsd.decimal)),
    ("true", Literal("true", datatype=xsd.boolean)),
    ("ex:tea", NamedNode(LIA + "tea")),
    (f"{LIA}tea", NamedNode(LIA + "tea")),
])
def test_a_term_is_an_iri_in_any_form_or_a_literal_as_turtle_writes_it(text: str, term: object) -> None:
    assert read_term(text, KNOWN) == term


@pytest.mark.parametrize("text", ['"open', "not a term", '"a" , "b"', '"a" . <urn:x> <urn:y> "z"'])
def test_a_term_that_is_neither_is_refused_naming_both_kinds(text: str) -> None:
    with pytest.raises(UnreadableName, match=r"is not an RDF term: .*write an IRI .* or a literal"):
        read_term(text, KNOWN, what="--object")


# -- what memkg prints reads back -------------------------------------------------------------

_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", min_size=1, max_size=12)
_LOCAL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-./#?=&~é", max_size=16) | st.just("%C3%A9")
_HOST = st.from_regex(r"[a-z0-9][a-z0-9-]{0,11}", fullmatch=True)
_NAMESPACE = st.builds("https://{}.example/{}/".format, _HOST, _NAME)
_PREFIX = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True).filter(lambda p: p not in {"urn", "http", "https"})


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # the shared machine is often loaded
@given(prefixes=st.dictionaries(_PREFIX, _NAMESPACE, max_size=4), namespace=_NAMESPACE, local=_LOCAL,
       declared=st.booleans())
def test_every_printed_form_of_an_iri_reads_back_as_that_iri(prefixes: dict[str, str], namespace: str, local: str,
                                                            declared: bool) -> None:
    known = {**BUILT_IN, **prefixes, **({"zz": namespace} if declared else {})}
    node = NamedNode(namespace + local)
    printed = {
        show(node, known),  # tables, history, diff: prefix:name or <iri>
        show(node, known, form="exact"),  # messages and reports
        compact(node.value, known),
        str(node),  # <iri>, as N-Triples and SPARQL write it
        node.value,  # supersede, retract, withdraw: the bare IRI
        f"‹{node.value}›",
        f"‹{compact(node.value, known)}›",
    }
    for text in printed:
        assert read_iri(text, known) == node, text
        assert read_term(text, known) == node, text
