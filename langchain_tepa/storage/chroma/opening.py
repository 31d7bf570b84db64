"""Opening a store: read the layout record, create it for a new store, migrate older layouts.

Opening reads one record (the layout) and no evidence: its cost does not grow with the store.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> from langchain_tepa.storage.chroma import ChromaStorage
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> ChromaStorage(client, prefix="doc_open", shards=4).layout.shards
    4
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_tepa.core.errors import StorageError
from langchain_tepa.storage.chroma.layout import DEFAULT_DEDICATED_AT, DEFAULT_SHARDS, Layout

if TYPE_CHECKING:
    from langchain_tepa.storage.chroma.backend import ChromaStorage

__all__ = ["LAYOUT_RECORD", "open_layout"]

LAYOUT_RECORD = "layout"


def _old_layout(storage: ChromaStorage) -> bool:
    """Whether the store holds an earlier layout (an evidence collection of layout 0-2)."""
    return storage.collection(f"{storage.prefix}_evidence", create=False) is not None


def open_layout(storage: ChromaStorage, *, shards: int | None, dedicated_at: int | None) -> Layout:
    """The store's layout: read, created, or migrated from layout 1 or 2 (writable only)."""
    raw = storage.get_meta(LAYOUT_RECORD)
    if raw is not None:
        return Layout.from_json(storage.prefix, raw)
    layout = Layout(
        storage.prefix,
        shards=DEFAULT_SHARDS if shards is None else shards,
        dedicated_at=DEFAULT_DEDICATED_AT if dedicated_at is None else dedicated_at,
    )
    if _old_layout(storage):
        if storage.read_only:
            raise StorageError(
                f"the store {storage.prefix!r} at the {storage.where} has an earlier layout; "
                "open it once without read_only=True to migrate it (it is rewritten in the "
                "current layout, about a minute per 100,000 records)"
            )
        from langchain_tepa.storage.chroma.migrate import migrate

        storage.layout = layout
        migrate(storage, layout)
    elif storage.read_only:
        raise StorageError(
            f"no memory with prefix {storage.prefix!r} at the {storage.where}; stores there: "
            f"{_prefixes(storage) or 'none'}; pass the right prefix (read_only=True never "
            "creates a store)"
        )
    else:
        storage.set_meta(LAYOUT_RECORD, layout.to_json())
    return layout


def _prefixes(storage: ChromaStorage) -> list[str]:
    """Prefixes of the stores in the same Chroma (from their ``*_meta`` and ``*_evidence``)."""
    found = set()
    for item in storage.call("list collections", storage.client.list_collections):
        name = str(getattr(item, "name", item))
        for tail in ("_meta", "_evidence"):
            if name.endswith(tail):
                found.add(name[: -len(tail)])
    return sorted(found)
