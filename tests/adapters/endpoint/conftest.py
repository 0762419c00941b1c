"""The server most endpoint tests query: one real ``memkg serve`` per module over both examples.

A module that needs other options (tokens, a time limit, its own data) defines its own
``server`` fixture, which takes the place of this one there.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.endpoint_server import Server, make_store


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(make_store(tmp_path_factory.mktemp("endpoint") / "store"), "--timeout", "20")
    yield running
    running.close()
