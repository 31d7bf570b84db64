"""Opening a store: read the layout record, create it for a new store, refuse other layouts.

Opening reads one record (the layout) and no evidence: its cost does not grow with the store.
A store of the current layout opens as it is; one of a supported older layout is migrated by
the steps of ``MIGRATIONS`` (``migrations.py``, today none); any other is refused with
:class:`~langchain_tepa.core.errors.UnsupportedLayoutError`.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> from langchain_tepa.storage.chroma.handles import CollectionHandles
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> open_layout(CollectionHandles(client, prefix="doc_open"), shards=4).shards
    4
"""

from __future__ import annotations

import json

from langchain_tepa.core.errors import StorageError, UnsupportedLayoutError
from langchain_tepa.core.values import safe_repr
from langchain_tepa.storage.chroma.handles import CollectionHandles
from langchain_tepa.storage.chroma.layout import (
    DEFAULT_DEDICATED_AT,
    DEFAULT_SHARDS,
    LAYOUT_VERSION,
    Layout,
    record_version,
    unsupported,
)
from langchain_tepa.storage.chroma.migrations import MIGRATIONS, OLDEST_MIGRATED

__all__ = ["LAYOUT_RECORD", "open_layout"]

LAYOUT_RECORD = "layout"


def open_layout(
    handles: CollectionHandles, *, shards: int | None = None, dedicated_at: int | None = None
) -> Layout:
    """The store's layout: read, created for a new store (writable only), or migrated.

    Args:
        handles: The store's collections.
        shards: Shards of a new store (default ``DEFAULT_SHARDS``); ignored for an existing one.
        dedicated_at: Threshold of a new store (default ``DEFAULT_DEDICATED_AT``); likewise.

    Raises:
        UnsupportedLayoutError: If the store was written in a layout this version does not
            read (older than any migration, from before layout records, or newer), or needs a
            migration but was opened read-only.
        StorageError: If a read-only opening finds no store with this prefix.
    """
    prefix = handles.prefix
    raw = handles.get_meta(LAYOUT_RECORD)
    if raw is None:
        if handles.collection(f"{prefix}_evidence", create=False) is not None:
            raise unsupported(prefix, None, handles.where)  # layouts 0-2 had no record
        if handles.read_only:
            raise StorageError(
                f"no memory with prefix {safe_repr(prefix)} at the {handles.where}; stores there: "
                f"{_prefixes(handles) or 'none'}; pass the right prefix (read_only=True never "
                "creates a store)"
            )
        layout = Layout(
            prefix,
            shards=DEFAULT_SHARDS if shards is None else shards,
            dedicated_at=DEFAULT_DEDICATED_AT if dedicated_at is None else dedicated_at,
        )
        handles.set_meta(LAYOUT_RECORD, layout.to_json())
        return layout
    version = record_version(prefix, raw)
    if not OLDEST_MIGRATED <= version <= LAYOUT_VERSION:
        raise unsupported(prefix, version, handles.where)
    if version < LAYOUT_VERSION:
        raw = _migrate(handles, raw, version)
    return Layout.from_json(prefix, raw)


def _migrate(handles: CollectionHandles, raw: str, version: int) -> str:
    """Run the migrations from ``version`` on; the layout record after them."""
    if handles.read_only:
        raise UnsupportedLayoutError(
            f"the store {safe_repr(handles.prefix)} at the {handles.where} has layout {version}; "
            "open "
            f"it once without read_only=True to migrate it to layout {LAYOUT_VERSION}"
        )
    data = json.loads(raw)
    for step in MIGRATIONS[version - OLDEST_MIGRATED :]:
        step(handles)
        data["version"] = version = version + 1
        raw = json.dumps(data)
        handles.set_meta(LAYOUT_RECORD, raw)
    return raw


def _prefixes(handles: CollectionHandles) -> list[str]:
    """Prefixes of the stores in the same Chroma (from their ``*_meta`` collections)."""
    return sorted(
        {name[: -len("_meta")] for name in handles.collection_names() if name.endswith("_meta")}
    )
