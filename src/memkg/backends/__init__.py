"""Where the quads live: storage backends under one :class:`~memkg.store.MemoryStore`."""
