"""Where the quads live: storage backends under one :class:`~memkg.store.MemoryStore`.

* :mod:`memkg.store.backends.base`: the :class:`~memkg.store.backends.base.Backend` and
  :class:`~memkg.store.backends.base.QuadStore` protocols and the
  :class:`~memkg.store.backends.base.Capabilities` code asks instead of a backend's type;
* :mod:`memkg.store.backends.embedded`: a pyoxigraph ``Store`` in this process (``MemoryStore(path)``);
* :mod:`memkg.store.backends.sparql`: a SPARQL 1.1/1.2 server (``MemoryStore.connect(url)``).
"""
