"""What a new user hits: the README's commands, common mistakes, remote views, pictures.

Each test is one thing that answered wrongly, silently or unreadably, now answering right:
``retract`` finds the claim's graph; an unknown tenant is named; prefixed names work in
view parameters; errors are one line naming what, where and what would be right; global
options go after the command; views on a ``memkg serve`` answer as on the embedded store;
``--format svg|dot`` draws history, lineage, support and packets.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from memkg import MemoryStore, NotFoundError
from memkg.adapters.cli import main

from tests.support.examples import EX, EXAMPLES, LIA, LIA_GRAPH
from tests.support.endpoint_server import Server, make_store

ACME = "https://example.org/tenants/acme"
AX = "https://example.org/acme/"
BOTH = [str(LIA), str(EXAMPLES / "postgres-migration.trig")]


@pytest.fixture
def run(tmp_path: Path, capsys):
    """``memkg ARGS…`` with the store in TMP (``--store`` placed after the command, as people do)."""
    store = str(tmp_path / "store")

    def _run(*args: str, where: str = "after") -> tuple[int, str, str]:
        argv = [*args, "--store", store] if where == "after" else ["--store", store, *args]
        try:
            code = main(argv)
        except SystemExit as exit:
            code = exit.code
        out, err = capsys.readouterr()
        return code, out, err

    return _run


# -- the README's commands ----------------------------------------------------------------


def test_retract_without_a_tenant_finds_the_claim_s_graph(run) -> None:
    assert run("load", *BOTH)[0] == 0
    code, out, err = run("retract", EX + "c2", "--reason", "Lia corrected it")
    assert code == 0, err
    code, out, _ = run("view", "current", "--tenant", LIA_GRAPH, "--format", "csv")
    assert EX + "c2" not in out and EX + "c1" in out
    code, _, err = run("retract", EX + "nothing")
    assert code == 1 and f"{EX}nothing is in no graph of the scope (every graph you may read)" in err


def test_writes_take_tenant_and_graph_as_the_contract_names_it(run) -> None:
    run("load", str(LIA))
    code, _, err = run("retract", EX + "c1", "--tenant", LIA_GRAPH)
    assert code == 0 and "deprecated" not in err
    code, _, err = run("retract", EX + "c2", "--graph", LIA_GRAPH)  # docs/contract.md section 5: memkg load FILE… [--graph IRI]
    assert code == 0 and "deprecated" not in err
    code, out, _ = run("view", "current", "--tenant", LIA_GRAPH, "--format", "csv")
    assert EX + "c1" not in out and EX + "c2" not in out


def test_global_options_are_taken_after_the_command_too(run, tmp_path: Path) -> None:
    assert run("load", str(LIA), where="before")[0] == 0
    code, out, _ = run("stats")  # memkg stats --store X
    assert code == 0 and "store " in out and "quads" in out
    code, _, err = run("stats", "--bogus")
    assert code == 2 and "unrecognized arguments: --bogus" in err


# -- silent empty answers ---------------------------------------------------------------------


def test_an_unknown_tenant_is_named_with_the_known_ones(run) -> None:
    run("load", *BOTH)
    for command in (["view", "current"], ["history", EX + "cName1"], ["support", AX + "cMigration"],
                    ["diff", "--from", "2026-01-01T00:00:00Z", "--to", "2026-03-01T00:00:00Z"]):
        code, out, err = run(*command, "--tenant", "https://example.org/tenants/nobody")
        assert code == 2 and out == "", command
        assert err.strip() == (f"memkg: no graph named <https://example.org/tenants/nobody> "
                               f"(known: <{ACME}>, <{LIA_GRAPH}>)"), command


def test_view_parameters_take_prefixed_names_and_come_as_options(run) -> None:
    run("load", *BOTH)
    def rows(*args: str) -> list[str]:
        return sorted(run("view", "current", *args, "--tenant", LIA_GRAPH, "--format", "csv")[1].splitlines())

    expected = rows("--param", f"subject={EX}Lia")
    assert len(expected) == 6  # header and five claims about Lia
    # ex: is the prefix lia-tea.trig declares; the acme file's ex: comes back as ex2:
    assert rows("--param", "subject=ex:Lia") == expected
    assert rows("--subject", "ex:Lia") == expected
    code, out, _ = run("view", "current", "--subject", "ex2:postgres", "--format", "csv")
    assert code == 0 and AX + "cSelection" in out
    code, _, err = run("view", "current", "--subjct", "ex:Lia")
    assert code == 2 and "has no parameter 'subjct' (parameters: tenant, subject, standing)" in err
    code, out, _ = run("view", "current", "--tenant", LIA_GRAPH)
    assert "ex:cName1" in out and "<https://example.org/lia/" not in out  # tables use the store's prefixes


def test_history_and_diff_print_compact_iris_as_views_do(run) -> None:
    # one convention, the store's prefixes, in every table a person reads
    run("load", *BOTH)
    code, out, _ = run("history", "ex:cName1", "--tenant", LIA_GRAPH)
    assert code == 0 and "ex:cName1" in out and "ex:Lia" in out and EX not in out
    code, out, _ = run("diff", "--from", "2026-01-01T00:00:00Z", "--to", "2026-03-01T00:00:00Z", "--tenant", LIA_GRAPH)
    assert code == 0 and "ex:" in out and EX not in out


def test_prefixes_are_remembered_beside_the_store(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "s") as store:
        store.load(LIA)
        assert store.prefixes["ex"] == EX
    with MemoryStore(tmp_path / "s") as store:  # reopened: still known
        assert store.prefixes["ex"] == EX
        rows = list(store.view("current", {"subject": "ex:Lia", "tenant": LIA_GRAPH}))
        assert len(rows) == 5


# -- errors that name what, where and what would be right --------------------------------------


@pytest.mark.parametrize("query, says", [
    ("SELECT * WHERE { ?s foo:bar ?o }", "<query>:1:28: undefined prefix foo: (in foo:bar): declare it "
                                         "(PREFIX foo: <…>) or use one of mem:, prov:, rdf:, rdfs:, xsd:, owl:"),
    ("SELEC * WHERE {}", "SELEC is not a query form: write SELECT, CONSTRUCT, ASK or DESCRIBE (did you mean SELECT?)"),
    ("SELECT * WHERE { ?s ?p ?o } LIMT 3", "unexpected LIMT: did you mean LIMIT?"),
    ("SELECT * WHERE { ?s ?p ?o ", "the text ends with '{' left open"),
    ("SELECT * WHERE { ?s <x> ?o }", "<x> is not an absolute IRI"),
])
def test_a_sparql_syntax_error_is_one_line(run, query: str, says: str) -> None:
    run("load", str(LIA))
    code, _, err = run("query", query)
    assert code == 2 and says in err
    assert err.count("\n") == 1 and "'\\u{" not in err


def test_a_missing_shapes_file_is_named(run) -> None:
    run("load", str(LIA))
    code, _, err = run("validate", "--shapes", "mine.ttl")
    assert code == 2 and err.startswith("memkg: mine.ttl: no such shapes file")


def test_a_port_in_use_is_named_at_once(run) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = run("serve", "--port", str(port))
    assert code == 2 and f"port {port} on 127.0.0.1 is in use" in err and "--port 0" in err


def test_validation_json_spells_every_term_one_way(tmp_path: Path, run) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix mem: <https://w3id.org/memkg#> .\n<https://example.org/c> a mem:Claim ;"
                   " mem:confidence 2.5 .\n", encoding="utf-8")
    code, out, _ = run("validate", str(bad), "--format", "json")
    assert code == 1
    for result in json.loads(out)["results"]:
        for key in ("severity", "shape", "focusNode", "resultPath", "value", "sourceShape", "sourceConstraintComponent"):
            term = result[key]
            assert term is None or (term["type"] in ("uri", "bnode", "literal", "triple") and "value" in term), (key, term)
    values = [r["value"] for r in json.loads(out)["results"] if r["value"] and r["value"]["type"] == "literal"]
    assert {"type": "literal", "value": "2.5", "datatype": "http://www.w3.org/2001/XMLSchema#decimal"} in values


def test_a_load_tells_each_phase_as_it_starts(tmp_path: Path) -> None:
    told: list[str] = []
    with MemoryStore(tmp_path / "s") as store:
        store.load(LIA, progress=told.append)
    phases = [m.split("…")[0] for m in told]
    assert phases[0] == "parsing" and "validating" in phases
    assert "writing" in phases and "flushing to disk" in phases


# -- remote views against memkg serve ---------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = Server(make_store(tmp_path_factory.mktemp("served") / "store"))
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.parametrize("view, params", [
    ("current", {}), ("current", {"tenant": LIA_GRAPH}), ("contradictions", {}),
    ("audit", {"known_at": "2026-02-01T00:00:00Z"}), ("history", {"claim": EX + "cName1"}),
    ("current", {"subject": "ex:Lia"}), ("lineage", {"claim": AX + "cAnswerLoss", "tenant": ACME}),
])
def test_views_on_a_memkg_server_answer_as_the_embedded_store(served: Server, view: str, params: dict) -> None:
    embedded = MemoryStore()
    embedded.load(*BOTH)
    remote = MemoryStore.connect(served.url + "/sparql", read_only=True)

    def rows(results) -> set:
        return {tuple(str(r[v.value]) for v in results.variables) for r in results}

    assert rows(remote.view(view, params)) == rows(embedded.view(view, params))
    assert rows(remote.view(view, params)) or view == "contradictions"  # the examples hold no contradiction


@pytest.mark.slow
def test_every_read_command_on_a_memkg_server_answers_as_on_the_store(served: Server, tmp_path: Path,
                                                                       capsys) -> None:
    local = make_store(tmp_path / "local")  # the same files, loaded the same way
    for command in (["view", "current"], ["view", "current", "--subject", "ex:Lia"], ["stats"],
                    ["query", "--union", "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"],
                    ["query", "SELECT ?c { GRAPH ?g { ?c a mem:Claim } } ORDER BY ?c"],
                    ["history", EX + "cName1"], ["support", AX + "cMigration", "--tenant", ACME],
                    ["export", "--format", "nquads"]):
        assert main(["--store", str(local), *command]) == 0
        embedded = capsys.readouterr().out.replace(str(local), "STORE")
        assert main(["--endpoint", served.url + "/sparql", *command]) == 0
        remote = capsys.readouterr().out.replace(served.url + "/sparql", "STORE")
        if command[0] in ("view", "export"):  # rows in any order
            embedded, remote = sorted(embedded.splitlines()), sorted(remote.splitlines())
        assert remote == embedded, command
    with pytest.raises(NotFoundError, match="no graph named <https://example.org/tenants/nobody>"):
        MemoryStore.connect(served.url + "/sparql", read_only=True).view("current", {"tenant": "https://example.org/tenants/nobody"})


# -- pictures ------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    ["history", EX + "cName1"], ["lineage", AX + "cAnswerLoss"], ["support", AX + "cMigration"],
    ["packet", AX + "cSelection"],
])
def test_every_picture_comes_as_svg_and_dot(run, command: list[str]) -> None:
    run("load", *BOTH)
    code, svg, _ = run(*command, "--format", "svg")
    assert code == 0 and svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    import xml.dom.minidom

    xml.dom.minidom.parseString(svg)  # well-formed
    code, dot, _ = run(*command, "--format", "dot")
    assert code == 0 and dot.startswith("digraph memkg {") and dot.rstrip().endswith("}")


def test_a_support_picture_shows_and_or_groups_and_what_falls(run, tmp_path: Path) -> None:
    run("load", *BOTH)
    out = tmp_path / "support.svg"
    code, _, err = run("support", AX + "cMigration", "--format", "svg", "-o", str(out))
    assert code == 0 and "support picture (svg)" in err
    svg = out.read_text(encoding="utf-8")
    assert svg.count('class="node node-and"') == 2 and svg.count('class="node node-or"') == 1  # either group suffices
    assert "withdraw → this claim falls" in svg  # adr and incident are in both groups
    dot = run("support", AX + "cMigration", "--format", "dot")[1]
    assert '"and:https://example.org/acme/gBench"' in dot and "label=\"member\"" in dot


def test_a_history_picture_shows_versions_and_the_retraction(run) -> None:
    run("load", str(LIA))
    assert run("retract", EX + "cName1", "--reason", "asked to forget")[0] == 0
    code, svg, _ = run("history", EX + "cName1", "--format", "svg")
    assert code == 0 and "ex:cName0" in svg and "ex:cName1" in svg and "superseded at" in svg
    assert "retracted: asked to forget" in svg and "✕" in svg


def test_a_packet_picture_takes_any_evidence_packet() -> None:
    """The picture is drawn from an EvidencePacket, whoever made it (memkg packet, a recall)."""
    from memkg.provenance.evidence import packet
    from memkg.adapters.pictures import packet_diagram, render

    store = MemoryStore()
    store.load(*BOTH)
    drawing = packet_diagram(packet(store, [AX + "cSelection"], max_vertices=3), prefixes=store.prefixes,
                             title="recall: which database")
    assert drawing.title == "recall: which database"
    assert any("INCOMPLETE" in n for n in drawing.notes)  # the budget was too small: it says so
    assert "left out:" in render(drawing, "svg")
    assert json.loads(render(drawing, "json"))["picture"] == "diagram"


@pytest.mark.slow
def test_pictures_over_http_respect_tokens(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"lia-token": {"tenants": [LIA_GRAPH], "write": False},
                                  "two": {"tenants": [LIA_GRAPH, ACME], "write": False}}), encoding="utf-8")
    server = Server(make_store(tmp_path / "store"), "--tokens", str(tokens))
    try:
        def get(path: str, token: str | None = None):
            return server.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})

        assert get("/pictures/history?claim=ex:cName1").status == 401
        shown = get("/pictures/history?claim=ex:cName1", "lia-token")
        assert shown.status == 200 and shown.content_type == "image/svg+xml" and b"ex:cName0" in shown.body
        assert get(f"/pictures/support?claim=ex2:cMigration&tenant={ACME}", "lia-token").status == 403
        assert get("/pictures/support?claim=ex2:cMigration", "two").status == 403  # several tenants: name one
        missing = get("/pictures/lineage?claim=ex:nothing", "lia-token")
        assert missing.status == 404 and b"is in no graph of the scope (tenant " + LIA_GRAPH.encode() in missing.body
        index = get("/pictures", "lia-token").json()
        assert index["prefixes"]["ex"] == EX and "history" in index["kinds"]
    finally:
        server.close()


def test_a_recall_s_evidence_packet_is_drawn_too(run) -> None:
    run("load", *BOTH)
    code, svg, _ = run("recall", "what does Lia drink in the evening?", "--format", "svg")
    assert code == 0 and svg.startswith("<svg") and "evidence for: what does Lia drink in the evening?" in svg
    assert "seed," in svg  # each item says its role
    code, dot, _ = run("recall", "what does Lia drink in the evening?", "--format", "dot")
    assert code == 0 and dot.startswith("digraph memkg {")


def test_an_evidence_packet_picture_is_readable(run) -> None:
    """Labels sit on their own edges and under no box, seeds say what their status means, and the
    legend names every label drawn."""
    import re
    import xml.etree.ElementTree as ET

    run("load", *BOTH)
    code, svg, _ = run("recall", "what does Lia drink?", "--packet", "--format", "svg")
    assert code == 0
    assert "unrecorded" not in svg and "seed, no support recorded" in svg  # ex:c0 has a recordedAt
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.fromstring(svg)
    boxes = [tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
             for g in root.findall(".//s:g", ns) if (g.get("class") or "").startswith("node ")
             for r in g.findall("s:rect", ns)]
    assert boxes
    paths = {p.get("data-edge"): [float(v) for v in re.findall(r"-?\d+\.?\d*", p.get("d"))]
             for p in root.findall(".//s:path[@data-edge]", ns)}
    labels = root.findall(".//s:text[@class='edge-label']", ns)
    legend = " ".join(t.text or "" for t in root.findall(".//s:g[@class='legend']//s:text", ns))
    assert labels and "forward" in {t.text for t in labels}
    for text in labels:
        x, y, w = float(text.get("x")), float(text.get("y")) - 3.5, len(text.text) * 6.0
        for bx, by, bw, bh in boxes:  # under no box
            assert not (x - w / 2 < bx + bw and bx < x + w / 2 and y - 6 < by + bh and by < y + 6), text.text
        x0, y0, x1, y1, x2, y2, x3, y3 = paths[text.get("data-edge")]
        near = min(((1 - t) ** 3 * x0 + 3 * (1 - t) ** 2 * t * x1 + 3 * (1 - t) * t * t * x2 + t ** 3 * x3 - x) ** 2
                   + ((1 - t) ** 3 * y0 + 3 * (1 - t) ** 2 * t * y1 + 3 * (1 - t) * t * t * y2 + t ** 3 * y3 - y) ** 2
                   for t in (i / 400 for i in range(401)))
        assert near ** 0.5 < 1.5, f"{text.text} sits {near ** 0.5:.0f}px from its edge"
        assert text.text in legend, f"{text.text} is not in the legend: {legend}"
