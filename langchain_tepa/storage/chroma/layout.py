"""The Chroma storage layout: a fixed set of sharded collections, whatever the number of namespaces.

A namespace (a tenant) costs records, never a collection: namespaces are spread over ``shards``
shards by a stable hash of their name. With ``prefix`` ``"tepa"`` and 16 shards:

* ``tepa_meta``: the layout record (version, shards, dedicated threshold), and **name pages**:
  copies of the names directory, 2,000 names a record, written by readers (``name_pages.py``;
  a store without them is read whole).
* ``tepa_names``: one record per namespace with its label prefixes and its name as the record's
  document, written when a namespace is first written and never removed: a process keeps the
  names it read and checks the record count (``directory.py``).
* ``tepa_e00`` .. ``tepa_e15``: **evidence pages and namespace heads**. A page holds the records
  of one append to one namespace (at most 1,000; a larger append has several pages), its stream
  and sequence number, its time range, its keys' hashes and the records as JSON. An append over
  several namespaces of one shard writes **one page for all of them** (a *shard page*: the
  namespaces listed in ``tepa_pnl``, each one's records, basis, vectors and items as one part
  of the page) instead of one page per namespace: a batch over many namespaces costs one page
  record per shard, not one per namespace. A namespace whose part would not fit (more than
  ``PAGE_RECORDS`` records or vectors, or about ``PAGE_BYTES``) gets pages of its own. Readers
  match pages on ``tepa_pns`` or ``tepa_pnl`` (at most 100 namespaces a read) and decode only
  their namespace's part. A head (one per namespace) holds, per stream, the sequence number of
  its last page (``tepa_s:<stream>``) and its record count (``tepa_c:<stream>``), and a
  summary. A namespace's pages and its head bump are written by one Chroma ``upsert`` (a head's
  other streams' entries survive: Chroma merges metadata), so a head never names a page that is
  not stored. Records here need no vector search: they carry a one-dimension placeholder. The
  vectors of ordinary namespaces live in their pages; the memory ranks them in process (no
  index per namespace).
* ``tepa_w00`` .. ``tepa_w03``: the **views**, one record per precedent (its lifecycle state as
  metadata, ``tepa_ns``, ``tepa_key``, ``tepa_state``, ``tepa_view``), one view shard per
  ``VIEW_GROUP`` evidence shards. Reads never use views (they fold the evidence), and Chroma
  loads a collection's whole index on its first read in a process (about 500 bytes a record):
  a reader loads heads and pages only; writers, ``reconcile()`` and tools that query views load
  the view shards. A view is written after the pages it reflects, then its view mark in the
  head: carried by the next commit to the head's shard, or written on its own after
  ``MARKS_WAIT_S`` (a crash between leaves the mark behind, and the view is rewritten by a
  reader: it heals).
* ``tepa_x<hash>``: the precedent records of one **large** namespace (more than
  ``dedicated_at`` precedents), ranked by Chroma's index. The number of these collections grows
  with the data (one per ``dedicated_at`` precedents at most), not with the number of tenants.
* ``tepa_i<space>_00`` ..: **item vectors** of named spaces (``TEPAStore``'s ``IndexConfig``),
  created when first used.

There is one layout, version ``LAYOUT_VERSION``; ``opening.py`` refuses a store written in any
other (``UnsupportedLayoutError``). A change of layout is a function appended to ``MIGRATIONS``
(``migrations.py``), run in order by the first writable opening of an older store.

Example:
    >>> layout = Layout("tepa", shards=16)
    >>> layout.evidence(layout.shard("users.u1")).startswith("tepa_e")
    True
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from typing import Any

from langchain_tepa.core.errors import (
    InvalidArgumentError,
    StorageError,
    UnsupportedLayoutError,
)
from langchain_tepa.core.values import safe_repr, short_hash

__all__ = [
    "DEFAULT_DEDICATED_AT",
    "DEFAULT_SHARDS",
    "LAYOUT_VERSION",
    "MAX_PAGE_NAMESPACES",
    "PAGE_BYTES",
    "PAGE_RECORDS",
    "Layout",
    "record_version",
    "unsupported",
    "validate_prefix",
]

LAYOUT_VERSION = 5
"""The layout this version writes and reads (the version in a store's layout record). Earlier
numbers were development layouts of an unreleased package; no reader for them is kept."""
VIEW_GROUP = 4
"""Evidence shards whose views share one view shard (16 shards: 4 view shards). Nothing reads
a view shard on the read path, and a flush of views spread over many namespaces makes one
call per view shard it touches."""
MAX_PAGE_NAMESPACES = 256
"""Namespaces of one shard page at most (each is one element of its ``tepa_pnl`` list, one SQL
parameter when Chroma stores it)."""
DEFAULT_SHARDS = 16
"""Shards of a new store: 2 x 16 collections in all (about 3 MB of Chroma memory each once
used), and each shard stays small enough that a namespace's filtered read is a few ms."""
DEFAULT_DEDICATED_AT = 5000
"""Precedents above which a namespace gets a vector index of its own (ranking 5,000 vectors in
process takes about a millisecond; beyond that Chroma's HNSW index is faster)."""
PAGE_RECORDS = 1000
"""Records per evidence page: Chroma binds each list element of a record's metadata as an SQL
parameter, and pages of 4,000 records failed where 2,000 passed."""
PAGE_BYTES = 64 * 1024
"""Bytes of encoded records and vectors per evidence page, about (one record or one item's
vectors larger than this gets a page of its own). Chroma keeps every metadata string in an SQLite
index; values of megabytes slowed every later write to the whole database, in any collection
(two-record upserts: 3-8 ms, then 15 ms after six values of 4 MB; 5 ms after values of 400 KB;
unchanged after the same 24 MB as values of 100 KB or less: ``docs/results/page_bytes.py``)."""
MAX_SHARDS = 256

_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,40}$")

# Chroma persists a collection's vector index every `hnsw:sync_threshold` records and, until
# then, replays the unpersisted part of its write log on every write; a persist rewrites the
# index and its id map (its cost grows with the collection). Measured on this machine: small
# upserts after 30 unpersisted pages of 400 KB cost 126 ms each with a threshold of 200, 35 ms
# with 20 and 48 ms with 2 (under load; see docs/performance.md). Evidence pages carry their
# records and vectors, so shards use a small threshold; indexes of large namespaces hold only
# vectors and a few keys, so they use a larger one.
#
# Evidence shards and the names directory are never vector-queried (their records carry a
# one-dimension placeholder), yet Chroma builds and loads an HNSW graph over them: every read of
# a shard loads it. A sparse graph (`hnsw:M` 4 instead of 16, construction_ef 8 instead of 100)
# takes about a quarter of the default's link memory and less time per insert (Chroma ignores
# the metadata of an existing collection: these apply when a collection is created).
EVIDENCE_HNSW: dict[str, Any] = {
    "hnsw:sync_threshold": 32,
    "hnsw:batch_size": 32,
    "hnsw:M": 4,
    "hnsw:construction_ef": 8,
}
VECTOR_HNSW: dict[str, Any] = {
    "hnsw:space": "cosine",
    "hnsw:sync_threshold": 200,
    "hnsw:batch_size": 100,
}


def validate_prefix(prefix: object) -> str:
    """A collection prefix: 2-41 letters, digits, ``_`` or ``-``, starting with a letter/digit."""
    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise InvalidArgumentError(
            f"prefix {safe_repr(prefix)} must be 2-41 characters of letters, digits, '_' or '-', "
            "starting with a letter or digit"
        )
    return prefix


@dataclass(frozen=True)
class Layout:
    """Names and sharding of one store's collections.

    Args:
        prefix: Collection name prefix.
        shards: Number of evidence (and vector) shards, 1 to 256, fixed at creation.
        dedicated_at: Precedents above which a namespace gets its own vector collection.

    Example:
        >>> Layout("app", shards=4).evidence(3)
        'app_e03'
        >>> Layout("app").view_collection(5), Layout("app").version
        ('app_w01', 5)
    """

    prefix: str
    shards: int = DEFAULT_SHARDS
    dedicated_at: int = DEFAULT_DEDICATED_AT

    def __post_init__(self) -> None:
        validate_prefix(self.prefix)
        if isinstance(self.shards, bool) or not isinstance(self.shards, int):
            raise InvalidArgumentError(f"shards must be an integer, got {safe_repr(self.shards)}")
        if not 1 <= self.shards <= MAX_SHARDS:
            raise InvalidArgumentError(f"shards must be from 1 to {MAX_SHARDS}, got {self.shards}")
        if isinstance(self.dedicated_at, bool) or not isinstance(self.dedicated_at, int):
            raise InvalidArgumentError(
                f"dedicated_at must be an integer, got {safe_repr(self.dedicated_at)}"
            )
        if self.dedicated_at < 1:
            raise InvalidArgumentError(f"dedicated_at must be >= 1, got {self.dedicated_at}")

    @property
    def meta(self) -> str:
        """The layout collection."""
        return f"{self.prefix}_meta"

    def shard(self, namespace: str) -> int:
        """The shard of ``namespace`` (a stable hash, the same in every process).

        A companion namespace, whose last label starts with ``~`` (the claims of free-text
        items, ``users.u1.~claims``), shares its parent's shard, so a write to both is one
        append to one collection.
        """
        parent, _, last = namespace.rpartition(".")
        if parent and last.startswith("~"):
            namespace = parent
        return zlib.crc32(namespace.encode("utf-8")) % self.shards

    def evidence(self, shard: int) -> str:
        """The evidence-and-heads collection of ``shard``."""
        return f"{self.prefix}_e{shard:02d}"

    def view_collection(self, shard: int) -> str:
        """The view shard holding the views of ``shard``'s namespaces."""
        return f"{self.prefix}_w{shard // VIEW_GROUP:02d}"

    def dedicated(self, namespace: str) -> str:
        """The precedent-record collection of a large namespace."""
        return f"{self.prefix}_x{short_hash(namespace, 24)}"

    def items(self, space: str, shard: int) -> str:
        """The item-vector collection of ``space`` in ``shard``."""
        return f"{self.prefix}_i{space}_{shard:02d}"

    @property
    def version(self) -> int:
        """The layout's version (:data:`LAYOUT_VERSION`: there is one)."""
        return LAYOUT_VERSION

    def to_json(self) -> str:
        """The layout record."""
        return json.dumps(
            {"version": self.version, "shards": self.shards, "dedicated_at": self.dedicated_at}
        )

    @classmethod
    def from_json(cls, prefix: str, text: str) -> Layout:
        """Inverse of :meth:`to_json`.

        Raises:
            StorageError: For a record that cannot be parsed.
            UnsupportedLayoutError: For a record of another layout version than
                :data:`LAYOUT_VERSION` (``opening.py`` migrates older supported ones first).
        """
        version = record_version(prefix, text)
        if version != LAYOUT_VERSION:
            raise unsupported(prefix, version)
        try:
            data = json.loads(text)
            return cls(
                prefix,
                shards=int(data["shards"]),
                dedicated_at=int(data.get("dedicated_at", DEFAULT_DEDICATED_AT)),
            )
        except (ValueError, KeyError, TypeError, InvalidArgumentError) as exc:
            raise StorageError(
                f"the layout record of {safe_repr(prefix)} is unreadable ({exc})"
            ) from exc


def record_version(prefix: str, text: str) -> int:
    """The version a layout record states.

    Raises:
        StorageError: If the record cannot be parsed or states no integer version.
    """
    try:
        return int(json.loads(text)["version"])
    except (ValueError, KeyError, TypeError) as exc:
        raise StorageError(
            f"the layout record of {safe_repr(prefix)} is unreadable ({exc})"
        ) from exc


def unsupported(prefix: str, version: int | None, where: str = "") -> UnsupportedLayoutError:
    """The error for a store of ``prefix`` written in layout ``version`` (``None``: pre-record).

    Args:
        prefix: The store's collection prefix.
        version: The layout its record states, or ``None`` for a store from before layout
            records (an ``<prefix>_evidence`` collection).
        where: Where the store is (``"embedded Chroma at ..."``), for the message.
    """
    at = f" at the {where}" if where else ""
    if version is not None and version > LAYOUT_VERSION:
        return UnsupportedLayoutError(
            f"the store {prefix!r}{at} has layout {version}, newer than this version of "
            f"langchain-tepa reads ({LAYOUT_VERSION}); upgrade langchain-tepa"
        )
    stated = "an older layout" if version is None else f"the older layout {version}"
    return UnsupportedLayoutError(
        f"the store {prefix!r}{at} has {stated}, written by a development version of "
        f"langchain-tepa; this version reads layout {LAYOUT_VERSION} only and has no "
        "migration from it: write the data again into a new folder (or another prefix)"
    )
