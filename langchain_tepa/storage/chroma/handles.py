"""The plumbing under ``ChromaStorage``: a client, its collections, typed errors, meta records.

:class:`CollectionHandles` is what the store's helpers (``opening.py``, ``migrations.py``,
``directory.py``, ``name_pages.py``) are given: it knows the client, the prefix and whether
writes are allowed, and nothing of the layout, so those helpers sit below
:class:`~langchain_tepa.storage.chroma.backend.ChromaStorage` instead of importing it back.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> handles = CollectionHandles(client, prefix="doc_handles")
    >>> handles.get_meta("layout") is None, handles.collection("doc_handles_x", create=False)
    (True, None)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from langchain_tepa.core.errors import ReadOnlyError
from langchain_tepa.core.values import safe_repr
from langchain_tepa.storage.chroma.errors import describe_client, is_not_found, translate
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW, validate_prefix

__all__ = ["PLACEHOLDER", "CollectionHandles"]

_T = TypeVar("_T")
_READ_PAGE = 5000
PLACEHOLDER = [1.0]
"""The one-dimension vector of records that need no vector search."""


class CollectionHandles:
    """A chromadb client's collections under one prefix, with Chroma errors made typed.

    Args:
        client: A chromadb client (``PersistentClient``, ``EphemeralClient``, ``HttpClient``).
        prefix: Collection name prefix of the store.
        read_only: Create and change nothing.

    Example:
        >>> import chromadb
        >>> from chromadb.config import Settings
        >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
        >>> handles = CollectionHandles(client, prefix="doc_handles_cls")
        >>> handles.set_meta("note", "hello")
        >>> handles.get_meta("note")
        'hello'
    """

    def __init__(self, client: Any, *, prefix: str = "tepa", read_only: bool = False) -> None:
        validate_prefix(prefix)
        self.client = client
        self.prefix = prefix
        self.read_only = bool(read_only)
        self.where = describe_client(client)
        self._cols: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._max_batch = 5000
        try:
            self._max_batch = max(1, min(5000, int(client.get_max_batch_size())))
        except Exception:  # older clients, async proxies without the call
            self._max_batch = 5000

    @property
    def meta(self) -> str:
        """The meta collection's name (the layout record, name pages)."""
        return f"{self.prefix}_meta"

    def call(self, op: str, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Run a Chroma call; its exceptions become typed errors naming the store."""
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise translate(exc, self.where, op) from exc

    def collection(self, name: str, *, create: bool, hnsw: Mapping[str, Any] | None = None) -> Any:
        """The collection ``name`` (created when ``create`` and writable), or ``None``."""
        col = self._cols.get(name)
        if col is not None:
            return col
        if create and not self.read_only:
            col = self.call(
                "open collection",
                self.client.get_or_create_collection,
                name,
                embedding_function=None,
                metadata=dict(hnsw) if hnsw else None,
            )
        else:
            try:
                col = self.client.get_collection(name, embedding_function=None)
            except Exception as exc:
                if is_not_found(exc) or (isinstance(exc, ValueError) and "not exist" in str(exc)):
                    return None
                raise translate(exc, self.where, "open collection") from exc
        with self._lock:
            self._cols[name] = col
        return col

    def forget(self, name: str) -> None:
        """Drop the cached handle of collection ``name`` (it was deleted)."""
        with self._lock:
            self._cols.pop(name, None)

    def collection_names(self) -> list[str]:
        """Names of every collection of the client (any prefix)."""
        found = self.call("list collections", self.client.list_collections)
        return [str(getattr(item, "name", item)) for item in found]

    def get_all(
        self, col: Any, where: dict[str, Any] | None, include: list[str]
    ) -> dict[str, list[Any]]:
        """Every record of ``col`` matching ``where`` (read in pages)."""
        out: dict[str, list[Any]] = {"ids": [], **{name: [] for name in include}}
        offset = 0
        while True:
            got = self.call(
                "get", col.get, where=where, include=include, limit=_READ_PAGE, offset=offset
            )
            out["ids"].extend(got["ids"])
            for name in include:
                values = got.get(name)
                out[name].extend(list(values) if values is not None else [])
            if len(got["ids"]) < _READ_PAGE:
                return out
            offset += _READ_PAGE

    @property
    def max_batch(self) -> int:
        """Records of one Chroma call at most (the client's limit, at most 5,000)."""
        return self._max_batch

    def chunks(self, items: Sequence[_T]) -> list[Sequence[_T]]:
        """``items`` in parts of at most one Chroma call's batch."""
        size = self._max_batch
        return [items[i : i + size] for i in range(0, len(items), size)]

    def upsert_groups(
        self, groups: Mapping[str, tuple[list[str], list[dict[str, Any]]]], op: str
    ) -> None:
        """Upsert each collection's records (placeholder vectors), a call per batch.

        Args:
            groups: Collection name -> (record ids, their metadata).
            op: What the calls do, for error messages (``"write views"``).
        """
        for name, (ids, metas) in groups.items():
            col = self.collection(name, create=True, hnsw=EVIDENCE_HNSW)
            for start in range(0, len(ids), self._max_batch):
                end = start + self._max_batch
                self.call(
                    op,
                    col.upsert,
                    ids=ids[start:end],
                    embeddings=[PLACEHOLDER for _ in ids[start:end]],
                    metadatas=metas[start:end],
                )

    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"the {self.where} (prefix {safe_repr(self.prefix)}) was opened read-only; open it "
                "without read_only to write"
            )

    def get_meta(self, name: str) -> str | None:
        """A named string from the meta collection."""
        col = self.collection(self.meta, create=False)
        if col is None:
            return None
        got = self.call("read meta", col.get, ids=[name], include=["documents"])
        docs = got.get("documents") or []
        return str(docs[0]) if got["ids"] and docs and docs[0] is not None else None

    def set_meta(self, name: str, value: str) -> None:
        """Set a named string."""
        self._writable()
        col = self.collection(self.meta, create=True)
        self.call("write meta", col.upsert, ids=[name], embeddings=[PLACEHOLDER], documents=[value])

    def describe(self) -> str:
        """Where the data lives."""
        return f"{self.where}, prefix {self.prefix!r}"
