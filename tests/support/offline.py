"""Shared helpers of the tests: fresh memories for property tests, offline Python subprocesses.

Hypothesis tests cannot take function-scoped fixtures, so :func:`fresh_memory` builds a memory
per example (one shared ephemeral Chroma client per process, a unique collection prefix each).
:func:`run_python` runs a script the way a user would, offline: no ``OPENAI_*`` variables,
offline embeddings, no telemetry.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory

__all__ = ["fresh_memory", "run_python"]

_CLIENT: Any = None


def fresh_memory(backend: str, stem: str = "t") -> TEPAMemory:
    """An empty memory on the in-process store (``"memory"``) or on ephemeral Chroma."""
    global _CLIENT
    if backend == "memory":
        return TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    if _CLIENT is None:
        import chromadb
        from chromadb.config import Settings

        _CLIENT = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    return TEPAMemory.from_client(
        _CLIENT, prefix=stem + uuid.uuid4().hex[:12], embeddings=HashingEmbeddings()
    )


def run_python(
    script: Path,
    *args: str,
    cwd: Path,
    timeout: float,
    what: str,
    extra_env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with this interpreter, offline; fail the test (naming ``what``) on timeout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update({"ANONYMIZED_TELEMETRY": "False", "TEPA_EMBEDDINGS": "hashing"})
    env.update(extra_env or {})
    try:
        return subprocess.run(
            [sys.executable, str(script), *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{what} ran longer than {timeout} s: {exc}")
