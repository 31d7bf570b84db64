"""Upgrading a layout 3 or 4 store to layout 5: precedent views out of the evidence shards.

Layouts 3 and 4 keep each precedent's view in its namespace's evidence shard, beside the heads
and pages every read uses; Chroma loads a collection's whole index on its first read in a
process, so a reader paid for the views it never reads (87% of a shard's records at 1.1M
records; ``docs/performance.md``). Layout 5 keeps them in view shards (``<prefix>_wNN``).
Stores are not upgraded on opening (a layout 4 store keeps working as it is);
:func:`upgrade_views` moves the views of one store, shard by shard:

1. copy every view record of each evidence shard into its view shard (read and written 5,000
   at a time: nothing holds a whole shard);
2. write the layout record (version 5): from here readers of the views use the view shards;
3. delete the copied records from the evidence shards.

A crash before step 2 leaves a layout 4 store and spare copies the next run overwrites; a crash
during step 3 leaves views in evidence shards that nothing reads, which the next run (on a
layout 5 store it only checks for them) deletes. Run it with the store's other writers
stopped: a process that opened the store before the upgrade keeps writing views where layout 4
keeps them until it reopens (its reads stay right; ``reconcile()`` rewrites those views).

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> from langchain_tepa.storage.chroma import ChromaStorage
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> upgrade_views(ChromaStorage(client, prefix="doc_upgrade")).moved
    0
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_tepa.core.types import Lifecycle
from langchain_tepa.storage.chroma.layout import VIEW_SHARDS_FROM
from langchain_tepa.storage.chroma.opening import LAYOUT_RECORD

if TYPE_CHECKING:
    from langchain_tepa.storage.chroma.backend import ChromaStorage

__all__ = ["ViewUpgradeReport", "upgrade_views"]

_STEP = 5000
# View records are the evidence shards' only records with a lifecycle state.
_VIEWS: dict[str, Any] = {"tepa_state": {"$in": [s.value for s in Lifecycle]}}


@dataclass(frozen=True)
class ViewUpgradeReport:
    """What :func:`upgrade_views` did.

    Attributes:
        version_before: The store's layout version before.
        version: Its layout version after (5 unless it was read-only or already newer).
        moved: View records copied into view shards.
        removed: View records deleted from evidence shards (``moved`` plus any a crashed
            earlier run left).
        seconds: Wall time.

    Example:
        >>> ViewUpgradeReport(4, 5, 10, 10, 0.5).moved
        10
    """

    version_before: int
    version: int
    moved: int
    removed: int
    seconds: float


def _copy(storage: ChromaStorage, shard: int, name: str) -> int:
    """Copy the views of evidence shard ``shard`` into view shard ``name``; how many."""
    source = storage.collection(storage.layout.evidence(shard), create=False)
    if source is None:
        return 0
    copied = offset = 0
    while True:
        got = storage.call(
            "upgrade: read views",
            source.get,
            where=_VIEWS,
            include=["metadatas"],
            limit=_STEP,
            offset=offset,
        )
        ids = list(got["ids"])
        if ids:
            metas = [dict(m or {}) for m in got["metadatas"]]
            storage._write_groups({name: (ids, metas)}, "upgrade: write views")
            copied += len(ids)
        if len(ids) < _STEP:
            return copied
        offset += _STEP


def _remove(storage: ChromaStorage, shard: int) -> int:
    """Delete the views left in evidence shard ``shard``; how many."""
    source = storage.collection(storage.layout.evidence(shard), create=False)
    if source is None:
        return 0
    removed = 0
    while True:
        ids = list(
            storage.call("upgrade: find views", source.get, where=_VIEWS, include=[], limit=_STEP)[
                "ids"
            ]
        )
        if not ids:
            return removed
        storage.call("upgrade: remove views", source.delete, ids=ids)
        removed += len(ids)


def upgrade_views(storage: ChromaStorage, *, progress: bool = False) -> ViewUpgradeReport:
    """Move a layout 3 or 4 store's precedent views into view shards (layout 5).

    Idempotent: on a layout 5 store it only deletes views a crashed run left in the evidence
    shards. Nothing is read from or written to a namespace's heads or pages.

    Args:
        storage: The store, opened writable, its other writers stopped.
        progress: Show a progress bar over the shards.

    Returns:
        What was moved.

    Raises:
        ReadOnlyError: If ``storage`` was opened read-only.
        StorageError: If Chroma fails (run it again: every step can be repeated).
    """
    start = time.perf_counter()
    storage._writable()
    layout = storage.layout
    before = layout.version
    shards = range(layout.shards)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=2 * layout.shards, desc="upgrade views", unit="shard")
    moved = removed = 0
    with storage._writing(*shards):
        if not layout.view_shards:
            upgraded = dataclasses.replace(layout, version=VIEW_SHARDS_FROM)
            for shard in shards:
                moved += _copy(storage, shard, upgraded.view_collection(shard))
                if bar is not None:
                    bar.update(1)
            storage.set_meta(LAYOUT_RECORD, upgraded.to_json())
            storage.layout = upgraded
        elif bar is not None:
            bar.update(layout.shards)
        for shard in shards:
            removed += _remove(storage, shard)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    return ViewUpgradeReport(
        before, storage.layout.version, moved, removed, time.perf_counter() - start
    )
