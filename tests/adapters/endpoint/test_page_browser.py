"""The page at ``/`` in a real headless browser (Debian's chromium): what the store holds on opening,
a tenant's current view with its query, a question in words, a query, a view, a picture.

``memkg serve`` runs on a free port over both examples. The page is opened with
what to show in its address (``#query=…``, ``#view=…``, ``#picture=…``, the page's
own links), Chromium runs its script and prints the DOM (``--dump-dom``) or takes a
screenshot, and the test reads what a person would see: compact IRIs with the
store's prefixes, a readable one-line error, a table, a drawn SVG, and a screenshot
that is not blank. Without chromium (``.ci/run`` installs it with apt where it can)
the tests skip and say why.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.support.endpoint_server import Server, make_store

pytestmark = pytest.mark.slow

CHROMIUM = next((c for c in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
                 if c and os.path.exists(c)), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--virtual-time-budget=10000", "--window-size=1280,1000"]
LIA = "https://example.org/tenants/lia"
ACME = "https://example.org/tenants/acme"
CLAIMS = "SELECT ?claim ?s ?p ?o WHERE { GRAPH ?g { ?claim rdf:reifies <<( ?s ?p ?o )>> } } ORDER BY ?claim"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium with apt where it can)")
    running = Server(make_store(tmp_path_factory.mktemp("page") / "store"))
    yield running
    running.close()


def browse(server: Server, fragment: str, *, screenshot: Path | None = None) -> str:
    """Open the page at ``/#fragment``; its DOM once the script is done (or the screenshot's path)."""
    with tempfile.TemporaryDirectory() as profile:
        what = [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
        done = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *what, f"{server.url}/#{fragment}"],
            capture_output=True, text=True, timeout=120,
        )
    if done.returncode != 0:
        pytest.fail(f"chromium exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def text_of(dom: str, element_id: str) -> str:
    """The text inside the element with ``element_id`` (tags dropped, entities decoded)."""
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</(?:div|span)>', dom, re.DOTALL)
    assert found, f"no #{element_id} in the page"
    return html.unescape(re.sub(r"<[^>]+>", " ", found.group(1)))


def test_a_query_shows_a_table_of_compact_iris(server: Server) -> None:
    dom = browse(server, "query=" + quote(CLAIMS))
    assert 'data-ready="yes"' in dom
    assert re.search(r"\d+ result\(s\) in \d+ ms", text_of(dom, "status"))
    cells = re.findall(r"<td[^>]*>(.*?)</td>", dom)
    assert "ex:Lia" in cells and "mem:displayName" in cells  # the loaded files' prefixes, and memkg's
    assert not any(c.startswith("&lt;https://example.org/lia/") for c in cells)
    assert "table-layout: fixed" in dom  # the table fits the window: long IRIs wrap


def test_a_bad_query_says_what_is_wrong_in_one_readable_line(server: Server) -> None:
    dom = browse(server, "query=" + quote("SELECT * WHERE { ?s foo:bar ?o }"))
    error = text_of(dom, "error").strip()
    assert error.startswith("400") and "undefined prefix foo:" in error, error
    assert "{" not in error and "\n" not in error  # no raw JSON, no grammar dump


def test_a_view_runs_with_its_parameters(server: Server) -> None:
    dom = browse(server, f"view=current&param=tenant={quote(LIA)}")
    assert re.search(r"\b5 result\(s\)", text_of(dom, "status")), text_of(dom, "status")
    assert ">ex:cName1<" in dom and ">ex:c0<" in dom and ">ex:cName0<" not in dom  # cName0 is superseded


def test_a_picture_is_drawn_and_the_screenshot_is_not_blank(server: Server, tmp_path: Path) -> None:
    from PIL import Image

    fragment = f"view=current&param=tenant={quote(LIA)}&picture=support&claim=ex2:cMigration"
    dom = browse(server, fragment)
    picture = dom[dom.index('id="picture"'):]
    assert "<svg" in picture and "support of ex2:cMigration" in picture and ">AND<" in picture
    assert "support drawn in" in text_of(dom, "status")
    shot = tmp_path / "page.png"
    browse(server, fragment, screenshot=shot)
    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 1000)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "the screenshot is (nearly) blank"
    # the picture's own colours are on screen: the claim's blue and the AND group's green
    present = {c for _, c in colours}
    assert (0xe3, 0xef, 0xff) in present and (0xe8, 0xf6, 0xe8) in present


def test_a_picture_of_an_unknown_claim_is_a_readable_error_beside_the_query_s(server: Server) -> None:
    dom = browse(server, "query=" + quote("SELEC * {}") + "&picture=history&claim=ex:nothing")
    error = text_of(dom, "picture-error").strip()
    assert error.startswith("404") and "no claim by that IRI" in error, error
    assert "SELEC is not a query form" in text_of(dom, "error")  # the query's error stays


def test_a_view_link_shows_the_view_s_query_in_the_textarea(server: Server) -> None:
    dom = browse(server, f"view=current&param=tenant={quote(LIA)}")
    query = html.unescape(re.search(r'<textarea id="query"[^>]*>(.*?)</textarea>', dom, re.DOTALL).group(1))
    assert query.startswith(f"# view current (tenant={LIA}): the claims the store knows now"), query[:200]
    assert "memx:subject" in query and "LIMIT 100" not in query  # the view's text, not the default query
    assert re.search(r"\b5 result\(s\)", text_of(dom, "status"))  # and the rows are that view's


def test_the_page_opens_on_what_the_store_holds_and_a_tenant_s_current_view(server: Server, tmp_path: Path) -> None:
    from PIL import Image

    dom = browse(server, "")
    holdings = text_of(dom, "holdings")
    # a row per tenant with its triples, claims and messages, IRIs compact as in the CLI
    assert re.search(rf"<{re.escape(ACME)}>\s+\d+\s+8\s+9\s+current", holdings), holdings
    assert re.search(rf"<{re.escape(LIA)}>\s+\d+\s+\d+\s+5\s+current", holdings), holdings
    assert "https://w3id.org/memkg" not in holdings  # memkg's ontology graph is not the memory
    # below it, without pressing anything, the current view of the first tenant, and its query
    assert re.search(r"\b\d+ result\(s\)", text_of(dom, "status"))
    assert ">ex2:cMigration<" in dom and 'class="chosen"' in dom
    assert f"# view current (tenant={ACME})" in dom
    shot = tmp_path / "opened.png"
    browse(server, "", screenshot=shot)
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "the screenshot is (nearly) blank"
    assert (0xff, 0xf8, 0xdc) in {c for _, c in colours}  # the chosen tenant's row is on screen


def test_a_question_in_words_lists_hits_that_link_to_their_pictures(server: Server, tmp_path: Path) -> None:
    from PIL import Image

    dom = browse(server, "recall=" + quote("What does Lia prefer to drink?"))
    assert re.search(r"\d+ hit\(s\) in \d+ ms", text_of(dom, "recall-status"))
    hits = dom[dom.index('id="hits"'):]
    assert '<span class="node" title="https://example.org/lia/c0">ex:c0</span>' in hits  # compact, full IRI on hover
    links = [html.unescape(h) for h in re.findall(r'<a href="#([^"]*picture=[^"]*)"', hits)]
    assert any("picture=history&claim=" + quote("https://example.org/lia/c0", safe="") in h for h in links), links
    packet = next(h for h in links if h.startswith("picture=packet"))
    drawn = browse(server, packet)  # a hit's link, opened, draws its picture
    assert "<svg" in drawn[drawn.index('id="picture"'):] and "packet drawn in" in text_of(drawn, "status")
    shot = tmp_path / "recall.png"
    browse(server, "recall=" + quote("What does Lia prefer to drink?"), screenshot=shot)
    assert len(Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 20) or ()) > 50


def test_a_question_nothing_matches_says_so_on_the_page(server: Server) -> None:
    dom = browse(server, "recall=" + quote("what changed in May 2023?"))
    assert "nothing in memory matched" in text_of(dom, "recall-status")


def test_with_tokens_the_page_opens_asks_for_the_token_and_sends_it_with_every_request(tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium with apt where it can)")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"lia-reader-0123456789": {"tenants": [LIA], "write": False}}))
    with contextlib.closing(Server(make_store(tmp_path / "store"), "--tokens", str(tokens))) as server:
        page = server.request("GET", "/", headers={"Accept": "text/html"})
        assert page.status == 200 and page.content_type.startswith("text/html")  # the page holds no data
        assert server.request("GET", "/views").status == 401  # what it shows still needs the token
        asked = browse(server, "")
        assert "<div id=\"token-ask\" class=\"ask\">" in asked  # shown, not hidden
        assert "401" in text_of(asked, "holdings") and "ex:c0" not in asked
        # The token given once (here in the address, as a person types it in the box): every request
        # the page makes carries it, so what it shows is that token's tenant and nothing else.
        dom = browse(server, "token=lia-reader-0123456789&recall=" + quote("What does Lia prefer to drink?")
                     + "&picture=history&claim=ex:cName1")
        holdings = text_of(dom, "holdings")
        assert re.search(rf"<{re.escape(LIA)}>\s+\d+\s+\d+\s+5\s+current", holdings), holdings
        assert ACME not in holdings
        assert 'id="token-ask" class="ask" hidden' in dom
        assert ">ex:c0<" in dom  # the tenant's current view
        assert re.search(r"\d+ hit\(s\) in \d+ ms", text_of(dom, "recall-status"))
        assert "history drawn in" in text_of(dom, "status")
