"""The page records a Chroma store holds, read straight from its evidence shards (for tests)."""

from __future__ import annotations

from typing import Any

from langchain_tepa.storage.chroma import ChromaStorage

__all__ = ["page_records"]


def page_records(storage: ChromaStorage) -> list[dict[str, Any]]:
    """Metadata of every page record of every evidence shard (plain and shard pages)."""
    out = []
    for shard in range(storage.layout.shards):
        col = storage.collection(storage.layout.evidence(shard), create=False)
        if col is None:
            continue
        got = col.get(include=["metadatas"])
        out += [m for m in got["metadatas"] if "tepa_pns" in m or "tepa_pnl" in m]
    return out
