"""Large namespaces: an index of their own, ranked by Chroma's HNSW index.

Ordinary namespaces are ranked in process over their vectors (stored in their evidence pages).
Once a namespace holds more than ``dedicated_at`` precedents, the memory that notices copies its
vectors into a collection of its own and flags its head (``tepa_big``); from then on new vectors
of that namespace go to the index as they are written. A writer that has not yet seen the flag
still puts new vectors in its pages only; a writable reader that folds such a page adds them to
the index. The head records through which page of each stream the index is complete
(``tepa_ix:<stream>``), so a reader opening the namespace reads no vector of older pages.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> from langchain_tepa import HashingEmbeddings, TEPAMemory
    >>> from langchain_tepa.storage.chroma import ChromaStorage
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> storage = ChromaStorage(client, prefix="doc_big", dedicated_at=3)
    >>> memory = TEPAMemory(storage, embeddings=HashingEmbeddings())
    >>> _ = memory.observe_many([(f"fact.k{i}", i) for i in range(5)])
    >>> storage.is_dedicated("default")
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from langchain_tepa.core.types import Precedent
from langchain_tepa.storage.chroma import codec

if TYPE_CHECKING:
    from langchain_tepa.storage.chroma.backend import ChromaStorage

__all__ = ["dedicate"]


def dedicate(
    storage: ChromaStorage,
    namespace: str,
    rows: Sequence[tuple[Precedent, Sequence[float]]],
    through: Mapping[str, int],
) -> None:
    """Index ``rows`` (every precedent of ``namespace`` with its vector), then flag the head.

    A crash before the flag leaves the namespace ranked in process as before (the index is
    rebuilt by the next attempt); after it, readers rank through the index.
    """
    storage.index_vectors(namespace, rows)  # no marks yet: the flag and marks go together
    heads = storage.collection(
        storage.layout.evidence(storage.layout.shard(namespace)), create=True
    )
    storage.call(
        "dedicate namespace",
        heads.update,
        ids=[codec.head_id(namespace)],
        metadatas=[{**codec.indexed_update(namespace, through), "tepa_big": True}],
    )
    storage.mark_dedicated(namespace)
