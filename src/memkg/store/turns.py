"""The turns of an episode: the order in which its messages arrived.

A message's episode is the activity that generated it (``prov:wasGeneratedBy``);
its ``mem:turn`` is its place there, 1 for the first. Event times may tie or be
missing (and a late retry may carry an old one); turns never tie, so a
conversation replays with ``ORDER BY ?turn``:

    SELECT ?message ?turn ?content WHERE {
        ?message prov:wasGeneratedBy <episode> ; mem:turn ?turn ; mem:content ?content .
    } ORDER BY ?turn

Turns are numbered by the writer (:meth:`memkg.MemoryStore.add` and
:mod:`memkg.loading.ingest`) from what the graph already holds: the next turn of an
episode is one more than the highest there.

>>> from memkg import MemoryStore, Message
>>> store = MemoryStore()
>>> for text in ("Hi!", "Hello, Lia.", "Tea, please."):
...     _ = store.add(Message(content=text, episode="https://example.org/s1"))
>>> rows = store.query('''SELECT ?turn ?text WHERE {
...     ?m prov:wasGeneratedBy <https://example.org/s1> ; mem:turn ?turn ; mem:content ?text } ORDER BY ?turn''')
>>> [(int(r["turn"].value), r["text"].value) for r in rows]
[(1, 'Hi!'), (2, 'Hello, Lia.'), (3, 'Tea, please.')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyoxigraph import DefaultGraph, Literal, NamedNode, QuerySolutions

from ..core.vocab import PREFIXES
from .backends.base import QuadStore

if TYPE_CHECKING:
    from ..core.model import Message


def last_turn(raw: QuadStore, episode: NamedNode, graph: NamedNode | DefaultGraph) -> int:
    """The highest ``mem:turn`` of ``episode``'s messages in ``graph`` of the quads ``raw`` (0 when
    it has none)."""
    # An IRI prints as <…> and pyoxigraph has checked it: safe to place in the text (remote
    # stores take no substitutions).
    rows = raw.query(
        f"SELECT (MAX(?turn) AS ?last) WHERE {{ ?message prov:wasGeneratedBy {episode} ; mem:turn ?turn }}",
        prefixes=PREFIXES, default_graph=graph,
    )
    if not isinstance(rows, QuerySolutions):
        return 0
    for row in rows:
        last = row["last"]
        if isinstance(last, Literal):
            try:
                return max(0, int(last.value))
            except ValueError:  # not an integer: the shapes refuse such a turn, so only foreign data
                return 0
    return 0


class TurnCounter:
    """Hands out the next turns of episodes for one write into ``graph`` of the quads ``raw``.

    Asks the store once per episode, then counts on: every message of a batch
    gets its own turn, in the order asked.
    """

    def __init__(self, raw: QuadStore, graph: NamedNode | DefaultGraph) -> None:
        self._raw = raw
        self._graph = graph
        self._last: dict[NamedNode, int] = {}

    def next(self, episode: NamedNode) -> int:
        if episode not in self._last:
            self._last[episode] = last_turn(self._raw, episode, self._graph)
        self._last[episode] += 1
        return self._last[episode]

    def number(self, message: Message) -> None:
        """Give ``message`` the next turn of its episode, unless it has a turn or no episode."""
        episode = message.episode_node()
        if episode is not None and message.turn is None:
            message.turn = self.next(episode)
