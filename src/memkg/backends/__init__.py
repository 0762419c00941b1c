"""Where the quads live: storage backends under one :class:`~memkg.store.MemoryStore`.

* :mod:`memkg.backends.base`: the :class:`~memkg.backends.base.Backend` and
  :class:`~memkg.backends.base.QuadStore` protocols and the
  :class:`~memkg.backends.base.Capabilities` code asks instead of a backend's type;
* :mod:`memkg.backends.embedded`: a pyoxigraph ``Store`` in this process (``MemoryStore(path)``);
* :mod:`memkg.backends.sparql`: a SPARQL 1.1/1.2 server (``MemoryStore.connect(url)``).
"""
