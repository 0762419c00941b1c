"""A token's entry grants writing only when it says ``"write": true``; anything else reads only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memkg.guard.access import Tokens

A = "https://example.org/tenants/a"


@pytest.mark.parametrize(("entry", "write"), [
    ({"tenants": ["urn:memkg:a"]}, False),
    ({"tenants": ["urn:memkg:a"], "write": False}, False),
    ({"tenants": ["urn:memkg:a"], "write": True}, True),
])
def test_a_token_writes_only_when_its_entry_says_write_true(tmp_path: Path, entry: dict, write: bool) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"a-long-enough-token": entry}), encoding="utf-8")
    assert Tokens.load(path).holder("a-long-enough-token").write is write


def test_a_token_is_read_only_unless_its_entry_says_write_true(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({
        "reader-token-0001": {"tenants": [A]},
        "writer-token-0001": {"tenants": [A], "write": True},
        "nowrite-token-001": {"tenants": [A], "write": False},
    }))
    tokens = Tokens.load(path)
    assert tokens.holder("reader-token-0001").write is False
    assert tokens.holder("nowrite-token-001").write is False
    assert tokens.holder("writer-token-0001").write is True
