"""The two validation engines, now :mod:`memkg.validation.engines`; this name stays for one release."""

from .validation.engines import NativeEngine, PyshaclEngine

__all__ = ["NativeEngine", "PyshaclEngine"]
