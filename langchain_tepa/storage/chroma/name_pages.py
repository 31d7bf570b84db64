"""Name pages: the names directory copied, a block of registrations at a time, into a few records.

Reading the names directory (``<prefix>_names``, one record per namespace) costs about 20 us a
record through Chroma: 2-3 s for 100,000 namespaces, paid by every process's first listing. A
**name page** holds the names of ``BLOCK`` consecutive directory records, in Chroma's order, as
one JSON document in the meta collection (``<prefix>_meta``), so a process reads the names of a
large directory in a few records and only the registrations after the last full block from the
directory itself.

Chroma returns a collection's records in the order they were first stored (its ``get`` orders by
an internal row id that an ``upsert`` of an existing record keeps) and the directory only grows,
so the record at position ``i`` never changes: block ``b`` (positions ``b * BLOCK`` to
``(b + 1) * BLOCK - 1``) has one content, whoever copies it, and a page is written with an id
that names the directory collection, the block size and the block. Two processes writing the
same page write the same record.

Pages are a cache, never trusted for completeness: the reader that uses them reads the directory
from the end of the pages on, then counts the directory, and accepts the names only when it
holds as many distinct names as the directory has records (``directory.py``). Every name on a
page was read from the directory, and the directory never loses a name, so a page can make a
listing slower (the reader then reads the whole directory), never wrong.

Example:
    >>> page = encode_page(["users.u1", "users.u2"])
    >>> decode_page(page, 2)
    ('users.u1', 'users.u2')
    >>> decode_page(page, 3) is None  # not a full block of 3: ignored
    True
    >>> chain_end({0, 1, 3})
    2
    >>> full_blocks(3, ["d", "e", "f", "g", "h", "i"], {2}, block=2)  # positions 3 to 8
    {3: ['g', 'h']}
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Iterable, Mapping, Sequence

from langchain_tepa.core.errors import StorageError
from langchain_tepa.storage.chroma.handles import CollectionHandles

__all__ = [
    "BLOCK",
    "PAGE_KIND",
    "chain_end",
    "decode_page",
    "encode_page",
    "full_blocks",
    "page_id",
    "read_pages",
    "write_pages",
]

BLOCK = 2000
"""Directory records per name page. A reader reads the registrations after the last full block
from the directory (fewer than ``BLOCK``, a few tens of ms); a page of names of 15 characters is
about 36 KB."""
PAGE_KIND = "names"
"""``tepa_kind`` of a name page in the meta collection."""
_PLACEHOLDER = [1.0]
_READ_IDS = 1000  # page ids per read (each one an SQL variable)
_WRITE_BYTES = 4 * 1024 * 1024  # pages of one upsert at most (several MiB through chroma run)
_log = logging.getLogger("langchain_tepa")


def page_id(directory: str, block: int) -> str:
    """The id of the page of ``block`` of the directory collection ``directory`` (id)."""
    return f"names.{directory}.{BLOCK}.{block}"


def encode_page(names: Sequence[str]) -> str:
    """A page's document: the block's names in directory order, as JSON."""
    return json.dumps(list(names), ensure_ascii=False, separators=(",", ":"))


def decode_page(document: object, size: int) -> tuple[str, ...] | None:
    """The names of a page's document, or ``None`` unless it holds exactly ``size`` names."""
    if not isinstance(document, str):
        return None
    try:
        names = json.loads(document)
    except ValueError:
        return None
    if not isinstance(names, list) or len(names) != size:
        return None
    if not all(isinstance(n, str) and n for n in names):
        return None
    return tuple(names)


def chain_end(blocks: Collection[int]) -> int:
    """The number of blocks from block 0 on that are all held (the first missing block)."""
    end = 0
    while end in blocks:
        end += 1
    return end


def full_blocks(
    start: int, run: Sequence[str], held: Collection[int], *, block: int | None = None
) -> dict[int, Sequence[str]]:
    """Pages to write: the full blocks of ``run`` (names of positions ``start`` on) not ``held``."""
    block = BLOCK if block is None else block
    out: dict[int, Sequence[str]] = {}
    first = -(-start // block)  # the first block starting at or after start
    b = first
    while (b + 1) * block <= start + len(run):
        if b not in held:
            out[b] = run[b * block - start : (b + 1) * block - start]
        b += 1
    return out


def read_pages(
    storage: CollectionHandles, directory: str, blocks: int
) -> dict[int, tuple[str, ...]]:
    """The pages of blocks ``0 .. blocks - 1`` found (one read by id of the meta collection)."""
    if blocks <= 0:
        return {}
    col = storage.collection(storage.meta, create=False)
    if col is None:
        return {}
    ids = [page_id(directory, b) for b in range(blocks)]
    out: dict[int, tuple[str, ...]] = {}
    block_of = {pid: b for b, pid in enumerate(ids)}
    for start in range(0, len(ids), _READ_IDS):
        part = ids[start : start + _READ_IDS]
        got = storage.call("read name pages", col.get, ids=part, include=["documents"])
        for pid, doc in zip(got["ids"], got.get("documents") or [], strict=False):
            names = decode_page(doc, BLOCK)
            if names is not None and pid in block_of:
                out[block_of[pid]] = names
    return out


def write_pages(
    storage: CollectionHandles, directory: str, pages: Mapping[int, Sequence[str]]
) -> bool:
    """Store ``pages`` (block -> names); ``False`` (and a warning) when Chroma refused.

    A page that could not be stored costs the next reader a longer read, nothing else, so a
    failure is logged instead of failing the listing that wrote it.
    """
    if not pages or storage.read_only:
        return False
    try:
        col = storage.collection(storage.meta, create=True)
        for batch in _batches(pages.items()):
            storage.call(
                "write name pages",
                col.upsert,
                ids=[page_id(directory, b) for b, _ in batch],
                embeddings=[_PLACEHOLDER for _ in batch],
                documents=[encode_page(names) for _, names in batch],
                metadatas=[
                    {"tepa_kind": PAGE_KIND, "tepa_dir": directory, "tepa_block": b}
                    for b, _ in batch
                ],
            )
    except StorageError as exc:
        _log.warning("names directory: name pages not stored (%s); listing goes on", exc)
        return False
    return True


def _batches(
    items: Iterable[tuple[int, Sequence[str]]],
) -> list[list[tuple[int, Sequence[str]]]]:
    out: list[list[tuple[int, Sequence[str]]]] = [[]]
    size = 0
    for item in items:
        weight = sum(len(n) + 3 for n in item[1])
        if out[-1] and size + weight > _WRITE_BYTES:
            out.append([])
            size = 0
        out[-1].append(item)
        size += weight
    return [b for b in out if b]
