"""Unit tests of memkg's native SHACL engine, one module per component group."""
