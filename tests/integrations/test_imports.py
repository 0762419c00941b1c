"""memkg without the framework extras: importing memkg (and memkg.integrations) imports no framework."""

from __future__ import annotations

import subprocess
import sys

FRAMEWORKS = ("langgraph", "langchain_core", "agents", "openai")


def test_importing_memkg_imports_no_framework() -> None:
    probe = ("import sys, memkg, memkg.integrations, memkg.integrations.shared; "
             f"print(sorted(m for m in {FRAMEWORKS!r} if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.strip() == "[]", run.stdout + run.stderr
