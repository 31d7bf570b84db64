"""One reversal, step by step: what ``make demo`` prints before the benchmarks.

A fact is believed (an export format that works), contradicted (it starts failing), revoked,
and the new value is promoted; the audit trail shows every transition with its reason. It runs
on embedded Chroma in a temporary folder, offline, under the library's default policy (the key
test, ``tepa-key``: a tool that has worked ten times in a row is revoked at its second failure
in a row).

Example:
    >>> text = show_reversal()
    >>> "revoked: change odds" in text and "promoted" in text
    True
"""

from __future__ import annotations

import itertools
import shutil
import tempfile

from langchain_tepa.embeddings import HashingEmbeddings
from langchain_tepa.memory import TEPAMemory

__all__ = ["show_reversal"]

KEY = "tool.export_format"


def show_reversal(folder: str | None = None) -> str:
    """Run the reversal on a persistent memory and return what it shows, as text.

    Args:
        folder: Where to keep the memory (default: a temporary folder, removed afterwards).
    """
    own = folder is None
    path = tempfile.mkdtemp(prefix="tepa-reversal-") if folder is None else folder
    ticks = itertools.count(1)
    lines: list[str] = []
    try:
        memory = TEPAMemory.from_path(
            path, embeddings=HashingEmbeddings(), clock=lambda: float(next(ticks))
        )
        lines.append(f"policy:       {memory.policy.name} (the library default)")
        for _ in range(10):
            memory.record_outcome(KEY, "csv", True)
        lines.append(f"believed:     csv worked 10 times -> get() = {memory.get(KEY)!r}")
        memory.record_outcome(KEY, "csv", False)
        lines.append(f"contradicted: csv failed once     -> get() = {memory.get(KEY)!r}")
        memory.record_outcome(KEY, "csv", False)
        lines.append(f"revoked:      csv failed again    -> get() = {memory.get(KEY)!r}")
        memory.record_outcome(KEY, "json", True)
        lines.append(f"promoted:     json worked         -> get() = {memory.get(KEY)!r}")
        docs = memory.retrieve("which export format works?", k=4)
        lines.append(f"retrieve() sees only: {[d.metadata['value'] for d in docs]}")
        lines.append("")
        lines.append(str(memory.audit(KEY)))
        memory.close()
    finally:
        if own:
            shutil.rmtree(path, ignore_errors=True)
    return "\n".join(lines)
