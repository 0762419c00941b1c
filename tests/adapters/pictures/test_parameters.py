"""Every option of every command that draws a picture reaches the drawing: a differential test.

The commands that offer ``--format svg|dot`` are read from the parser, and their options too.
Each option (the values of ``tests/adapters/cli/test_parameters.py``, which change the answer)
is given with ``--format dot``, and the picture must be the library's: :func:`memkg.adapters.pictures.picture`
(or, for a recall, :func:`~memkg.adapters.pictures.packet_diagram` of the recall's packet) given
the same arguments, rendered by :func:`~memkg.adapters.pictures.render`. The endpoint's
``/pictures/KIND`` is checked likewise in ``tests/adapters/endpoint/test_parameters.py``.
"""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import Any

import pytest

from memkg import MemoryStore
from memkg.adapters.cli import build_parser
from memkg.adapters.pictures import packet_diagram, picture, render
from memkg.provenance.evidence import packet
from memkg.recall import answer
from tests.adapters.cli.test_parameters import BASE, NO_EFFECT, VARIED, _run, _time, _with
from tests.support.parameters import two_tenants

pytestmark = pytest.mark.slow

#: How each picture's options reach the library (the command's name → its drawing).
KINDS = {"history": "history", "lineage": "lineage", "support": "support", "packet": "packet"}


def _drawing_commands() -> dict[str, set[str]]:
    found = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                fmt = next((a for a in sub._actions if a.dest == "format"), None)
                if fmt is not None and "dot" in (fmt.choices or ()):
                    found[name] = {a.dest for a in sub._actions if a.option_strings == [] or a.dest not in (
                        "help", "store", "endpoint", "update_endpoint", "endpoint_dialect", "token")}
    return found


def _library(store: MemoryStore, command: str, args: argparse.Namespace) -> str:
    if command == "recall":
        found = answer(store, args.query, tenant=args.tenant, k=args.k, valid_at=_time(args.valid_at),
                       known_at=_time(args.known_at), packet=True)
        return render(packet_diagram(found.packet, prefixes=store.prefixes, title=f"evidence for: {args.query}"), "dot")
    claims = args.claims if command == "packet" else args.claim
    options: dict[str, Any] = {}
    if command == "packet":
        options = {"max_vertices": args.max_vertices, "max_hops": args.max_hops}
    return render(picture(store, KINDS[command], claims, tenant=args.tenant, **options), "dot")


#: Options of a drawing command that do not change the picture, and why.
NOT_DRAWN = {
    ("recall", "packet"): "a recall's picture is its packet: drawn with or without --packet",
    ("support", "minimal"): "the minimal sets are a table's column, not part of the support picture",
    ("dependents", "all"): "no picture",
}


def _cases() -> list[tuple[str, str]]:
    cases = []
    for command, dests in sorted(_drawing_commands().items()):
        for dest in sorted(dests - {"format", "output", "help"}):
            if (command, dest) not in NO_EFFECT and (command, dest) not in NOT_DRAWN:
                cases.append((command, dest))
    return cases


def test_the_drawing_commands_are_found() -> None:
    assert set(_drawing_commands()) == {"history", "lineage", "support", "packet", "recall"}
    assert set(_cases()) <= set(VARIED), f"options without a value: {sorted(set(_cases()) - set(VARIED))}"
    assert {p.name for p in inspect.signature(picture).parameters.values()} >= {"tenant", "prefixes"}


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path: Path = two_tenants(tmp_path_factory.mktemp("pictures") / "store")
    return path


@pytest.mark.parametrize(("command", "dest"), _cases(), ids=[f"{c}-{d}" for c, d in _cases()])
def test_each_option_draws_the_librarys_picture(store_path: Path, command: str, dest: str) -> None:
    base = _with(BASE[command], ("--format", "dot"), command, "format")
    given = _with(base, VARIED[(command, dest)], command, dest)
    ours, before = _run(store_path, given), _run(store_path, base)
    assert ours != before, f"memkg {command}: {dest} as {VARIED[(command, dest)]} does not change the picture"
    args, _ = build_parser().parse_known_args(given)
    with MemoryStore(store_path) as store:
        expected = _library(store, command, args)
    assert ours == expected, f"memkg {' '.join(given)} does not draw the library's picture given {dest}"
