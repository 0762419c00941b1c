"""memkg where agents are built: adapters for LangGraph, LangChain and the OpenAI Agents SDK.

One module per framework, each a thin adapter over memkg's public API, beside the
command line, the endpoint and the agent tools:

* :mod:`.langgraph` – :class:`~memkg.integrations.langgraph.MemkgStore`, LangGraph's
  long-term memory (a ``BaseStore``): each namespace a tenant, each key a stable IRI,
  every put a new version of a claim, search by recall (``pip install 'memkg[langgraph]'``);
* :mod:`.langchain` – :class:`~memkg.integrations.langchain.MemkgRetriever` (recall hits as
  ``Document``\\ s) and :class:`~memkg.integrations.langchain.MemkgChatMessageHistory` (each
  message a ``mem:Message``) (``pip install 'memkg[langchain]'``);
* :mod:`.openai_agents` – :class:`~memkg.integrations.openai_agents.MemkgSession`, the Agents
  SDK's ``Session``: a session is an episode, its items are messages
  (``pip install 'memkg[openai-agents]'``).

Importing this package imports no framework: each framework is imported by its own module,
which is imported only when used. See docs/frameworks.md.
"""

from __future__ import annotations

__all__: list[str] = []
