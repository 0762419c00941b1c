"""One IRI, written any way memkg accepts (``prefix:name``, ``<iri>``, a bare ``https://…``,
``‹iri›``), names the same node through the command line and the agent tools; whatever they
print can be given back; a load that renames a prefix says so; a compact IRI that could mean
several namespaces is refused, naming them.

The store holds both examples: each declares ``ex:``, so the second's namespace reads as ``ex2:``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore
from memkg.adapters.agent_tools import MemoryTools, ToolRefusal
from memkg.adapters.agent_tools.tools import refusal
from memkg.core.errors import MemkgError
from memkg.adapters.cli import main
from memkg.guard.access import OPEN, Grant

from tests.support.endpoint_server import POSTGRES
from tests.support.examples import EX, LIA, LIA_GRAPH

ACME = "https://example.org/acme/"
ACME_GRAPH = "https://example.org/tenants/acme"
Run = Callable[..., tuple[int, str, str]]
SPELLINGS = ["ex:c0", f"<{EX}c0>", f"{EX}c0", f"‹{EX}c0›"]


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """``memkg --store TMP/store ARGS…`` in process, over both examples; (exit code, stdout, stderr)."""
    store = tmp_path / "store"

    def _run(*args: str) -> tuple[int, str, str]:
        try:
            code = main(["--store", str(store), *args])
        except SystemExit as exit:
            code = int(exit.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    _run.loaded = _run("load", str(LIA), str(POSTGRES))  # type: ignore[attr-defined]
    return _run


def test_a_load_that_renames_a_prefix_says_so_on_stderr_and_in_its_report(run: Run, tmp_path: Path) -> None:
    code, _, err = run.loaded  # type: ignore[attr-defined]
    assert code == 0
    assert f"ex: already means <{EX}>" in err and f"<{ACME}> reads as ex2:" in err
    with MemoryStore(tmp_path / "again") as store:
        store.load(LIA)
        report = store.load(POSTGRES)
    assert [(r.prefix, r.name, r.namespace) for r in report.renamed_prefixes] == [("ex", "ex2", ACME)]


def test_a_load_that_renames_nothing_is_silent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--store", str(tmp_path / "store"), "load", str(LIA)]) == 0
    assert "prefix" not in capsys.readouterr().err


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("command", [["support"], ["history"], ["lineage"], ["verify"], ["assess"],
                                     ["packet", "--format", "json"], ["dependents"]])
def test_every_command_reads_every_spelling_of_an_iri_as_the_same_node(run: Run, command: list[str],
                                                                       spelling: str) -> None:
    outputs = set()
    for written in (spelling, "ex:c0"):
        code, out, err = run(command[0], written, *command[1:])
        assert code in (0, 1) and "names no IRI" not in err, err
        outputs.add(out)
    assert len(outputs) == 1


@pytest.mark.parametrize("option", ["--tenant", "--graph"])
@pytest.mark.parametrize("spelling", [LIA_GRAPH, f"<{LIA_GRAPH}>", f"‹{LIA_GRAPH}›"])
def test_a_tenant_option_reads_every_spelling(run: Run, option: str, spelling: str) -> None:
    code, out, err = run("retract", "ex:c1", option, spelling, "--reason", "test")
    assert code == 0, err
    code, out, err = run("view", "current", "--tenant", spelling)
    assert code == 0 and "ex:c1 " not in out


def test_supersede_takes_an_object_and_a_source_in_any_form_and_keeps_literal_syntax(run: Run) -> None:
    code, out, err = run("supersede", "ex:c0", "--object", "ex:tea", "--asserted-by", f"{EX}m0")
    assert code == 0, err
    new = out.split()[0]  # the new version's IRI, then what it records
    code, out, _ = run("history", new)
    assert code == 0 and "ex:Lia ex:prefers ex:tea" in out and "asserted by ex:m0" in out
    code, out, err = run("supersede", "ex:cName1", "--object", '"Lili"@en', "--asserted-by", f"‹{EX}m0›")
    assert code == 0, err
    code, out, _ = run("history", out.split()[0])
    assert '"Lili"@en' in out


@pytest.mark.parametrize(("args", "text"), [
    (["supersede", "ex:c0", "--object", "zz:tea"], "--object 'zz:tea' is not an RDF term: unknown prefix zz:"),
    (["supersede", "ex:c0", "--asserted-by", "m0"], "--asserted-by 'm0' names no IRI"),
    (["history", "nope:c0"], "claim 'nope:c0' names no IRI: unknown prefix nope:"),
    (["support", "_:b0"], "blank node"),
    (["view", "current", "--tenant", "tenants"], "--tenant 'tenants' names no IRI"),
])
def test_text_that_names_no_iri_exits_2_naming_it_and_the_forms_accepted(run: Run, args: list[str], text: str) -> None:
    code, _, err = run(*args)
    assert code == 2 and text in err and "prefix:name, <iri>, a bare https://" in err


def test_a_compact_iri_that_could_mean_two_namespaces_is_refused_naming_both(run: Run) -> None:
    code, _, err = run("support", "ex:cMigration", "--tenant", ACME_GRAPH)
    assert code == 2
    assert f"<{EX}cMigration> (ex:cMigration)" in err and f"<{ACME}cMigration> (ex2:cMigration)" in err
    code, out, err = run("support", "ex2:cMigration", "--tenant", ACME_GRAPH)
    assert code == 0 and "supported" in out


_PRINTED_IRI = re.compile(r"<(?:https?|urn):[^>\s]+>|‹[^›]+›|\b(?:ex2?|mem):[\w.-]+|\b(?:https?|urn):[^\s<>,;)]+")


def test_every_iri_support_verify_and_recall_print_can_be_given_back(run: Run) -> None:
    printed: set[str] = set()
    for args in (["support", "ex:c0"], ["verify", "ex:c0"], ["support", "ex2:cMigration"],
                 ["verify", "ex2:cAnswerLoss"], ["recall", "tea without sugar", "--k", "5"],
                 ["recall", "postgres migration", "--k", "5"]):
        code, out, err = run(*args)
        assert code in (0, 1), err
        printed |= set(_PRINTED_IRI.findall(out))
    given_back = {p for p in printed if not p.startswith("mem:")}
    assert len(given_back) >= 5
    for text in sorted(given_back):
        code, _, err = run("history", text)
        assert "names no IRI" not in err, (text, err)


# -- the agent tools read IRIs as the command line does ----------------------------------------


@pytest.fixture
def tools(tmp_path: Path) -> MemoryTools:
    store = MemoryStore(tmp_path / "store")
    store.load(LIA, POSTGRES)
    return MemoryTools(store)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_agent_tools_read_every_spelling_with_the_stores_prefixes(tools: MemoryTools, spelling: str) -> None:
    explained = tools.explain(OPEN, claim=spelling, tenant="<" + LIA_GRAPH + ">")
    assert explained["claim"] == EX + "c0" and explained["tenant"] == LIA_GRAPH


def test_the_agent_tools_correct_with_prefixed_names(tools: MemoryTools) -> None:
    corrected = tools.correct(OPEN, claim="ex:c0", object_iri="ex:tea", asserted_by="ex:m0")
    assert corrected["supersedes"] == EX + "c0"
    claims = tools.claims(OPEN, "current", subject="ex:Lia", tenant=LIA_GRAPH)["claims"]
    assert corrected["claim"] in [row["claim"] for row in claims]


def test_the_agent_tools_refuse_an_unknown_prefix_and_an_ambiguous_name(tools: MemoryTools) -> None:
    with pytest.raises(ToolRefusal, match=r"claim 'zz:c0' names no IRI: unknown prefix zz:"):
        tools.explain(OPEN, claim="zz:c0")
    with pytest.raises(ToolRefusal, match=r"could mean .*\(ex2:cMigration\)"):
        tools.explain(OPEN, claim="ex:cMigration")


def test_reading_a_name_never_tells_a_tenant_of_another_tenants_nodes(tools: MemoryTools) -> None:
    """acme's cMigration exists, in acme's graph only: to a caller confined to lia, ex:cMigration
    reads as any name of nothing does, never as 'could mean ex2:cMigration'."""
    lia = Grant(frozenset({NamedNode(LIA_GRAPH)}), write=False)
    answers = []
    for name in ("ex:cMigration", "ex:cNothingAtAll"):
        with pytest.raises(MemkgError) as refused:
            tools.explain(lia, claim=name)
        answers.append(str(refusal(refused.value)).replace("cMigration", "X").replace("cNothingAtAll", "X"))
    assert answers[0] == answers[1] and "could mean" not in answers[0]
