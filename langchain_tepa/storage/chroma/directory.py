"""The names directory (``<prefix>_names``), read once and kept while it has not grown.

Every namespace is registered in the directory by the first commit that writes it, and nothing
ever removes a registration (re-registering upserts the same id). The directory therefore only
grows, and its record count says whether the names read earlier are still all of them: a process
keeps the sorted names and checks one ``count`` per listing, reading the directory again only
when another writer registered a namespace since.

Names are read from the records' documents, which costs a fraction of decoding every record's
metadata. A directory with records of an earlier version (they have no document) is read by
metadata, as before.

A process's first read does not read the whole directory when **name pages** exist
(``name_pages.py``): copies of the names of each full block of ``BLOCK`` records, in Chroma's
order, kept in the meta collection. The process reads the pages (one read by id), then the
directory's records from the end of the pages on (``get`` with an offset: Chroma returns records
in the order they were first stored, and the directory only grows), then counts the directory.
It accepts the names when it holds as many distinct names as the count says there are records:
every name held was read from the directory or copied from it, the directory never loses one,
and one record is one name (its id is a hash of the name), so that many names are all of them.
Otherwise a registration raced the read (the records after it are read, once) or the records are
not where the pages say (the whole directory is read, and pages that disagree are written
again). A later read in the same process goes on from the names it holds the same way. Any
reader that could write copies the full blocks it read and that have no page yet: the first
listing of a store reads the directory once and leaves pages for every later process.

On an embedded folder this process holds (``from_path``), even the ``count`` is skipped while
the directory's write epoch (``epochs.py``, slot ``NAMES_SLOT``, moved by every registration
after it returned) is the one read before the ``count`` that the names held were checked
against: no registration was acknowledged since. Stores that cannot vouch (a server, a client
the caller made) count as above.

Example:
    >>> names_under(("a", "a.b", "a.b.c", "a2", "b"), "a.b")
    ['a.b', 'a.b.c']
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import Any

import langchain_tepa.storage.chroma.name_pages as name_pages
from langchain_tepa.storage.chroma.handles import CollectionHandles

__all__ = ["NamesDirectory", "names_under"]

_PAGE = 20000
"""Names read per Chroma ``get``: each page costs a scan up to its offset, so fewer, larger
pages read a large directory faster (100,001 names: 2.8 s in pages of 5,000, 1.8 s in pages of
20,000); Chroma binds a page's ids as SQL variables, and 100,000 at once exceeded SQLite's
limit (32,766)."""


def names_under(names: Sequence[str], prefix: str) -> list[str]:
    """The names of sorted ``names`` equal to ``prefix`` or below it on label boundaries."""
    out = [prefix] if _contains(names, prefix) else []
    below = prefix + "."
    start = bisect.bisect_left(names, below)
    end = bisect.bisect_left(names, prefix + "/")  # "/" follows "." in code point order
    out.extend(names[start:end])
    return out


def _contains(names: Sequence[str], name: str) -> bool:
    i = bisect.bisect_left(names, name)
    return i < len(names) and names[i] == name


class NamesDirectory:
    """Sorted names of one store's directory, re-read only when its record count changed.

    Example:
        >>> NamesDirectory().cached is None
        True
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[Any, int] | None = None
        self._names: tuple[str, ...] = ()
        self._paged: set[int] = set()  # blocks known to have a name page
        self._epoch: int | None = None  # the names write epoch read before the names held

    def unchanged(self, epoch: int | None, col: Any) -> tuple[str, ...] | None:
        """The names held, if ``epoch`` (read now) is the one read before they were read.

        ``None`` when it is not (or is ``None``: the storage cannot vouch), or the names held
        are another collection's: then :meth:`names` must be asked.
        """
        with self._lock:
            if epoch is None or self._epoch != epoch or self._key is None:
                return None
            return self._names if self._key[0] == col.id else None

    @property
    def cached(self) -> tuple[str, ...] | None:
        """The names held, or ``None`` before the first read."""
        return self._names if self._key is not None else None

    def names(self, col: Any, storage: CollectionHandles, epoch: int | None) -> tuple[str, ...]:
        """Every registered name, sorted (one ``count``; the registrations since when it grew).

        Complete as of a ``count`` taken during the call: every namespace registered before the
        call began is in it. No ``count`` at all while the storage vouches that nothing was
        registered since the names held were read: ``epoch`` is the storage's names write epoch
        read before this call (``ChromaStorage.names_epoch``, ``epochs.py``; ``None`` when it
        cannot vouch), and the one read before that read's ``count`` is kept.
        """
        held = self.unchanged(epoch, col)
        if held is not None:
            return held
        count = int(storage.call("count names", col.count))
        with self._lock:
            if self._key == (col.id, count):
                self._epoch = epoch
                return self._names
            held = self._names if self._key is not None and self._key[0] == col.id else None
            paged = set(self._paged) if held is not None else set()
        names, paged = _catch_up(col, storage, count, held, paged)
        with self._lock:
            if self._key is not None and self._key[0] == col.id and len(self._names) > len(names):
                # Another thread stored a later read (the directory only grows): keep both.
                names = tuple(sorted(set(names).union(self._names)))
                paged |= self._paged
            # Keyed by what was read: a registration racing the read is read again next time.
            self._key = (col.id, len(names))
            self._names = names
            self._paged = paged
            self._epoch = epoch  # every registration acknowledged before it is in the names
        return names


def _catch_up(
    col: Any,
    storage: CollectionHandles,
    count: int,
    held: tuple[str, ...] | None,
    paged: set[int],
) -> tuple[tuple[str, ...], set[int]]:
    """The names now registered, and the blocks known to have a name page.

    From the names held (or, in a process that holds none, the name pages of the first
    ``count // BLOCK`` blocks), then the directory's records after them, in Chroma's order
    (``get`` with an offset); accepted when a ``count`` taken after holds as many records
    as there are distinct names. Otherwise (a registration raced the read: once more from
    where the read ended; records not in the expected order: the whole directory) read on.
    """
    directory = str(col.id)
    if held is not None:
        known, start = set(held), len(held)
    else:
        pages = name_pages.read_pages(storage, directory, count // name_pages.BLOCK)
        paged = set(pages)
        known = {name for page in pages.values() for name in page}
        start = name_pages.chain_end(pages) * name_pages.BLOCK
    run: list[str] = []
    clean = True
    for _ in range(2):  # the second time: registrations that raced the first read
        part, ok = _read_from(col, storage, start + len(run))
        run += part
        clean = clean and ok
        known.update(part)
        after = int(storage.call("count names", col.count))
        if len(known) == after:
            break
    else:  # the records are not where the pages or the names held say: read them all
        start, (run, clean) = 0, _read_from(col, storage, 0)
        known = set(run)
        if clean:  # pages that disagree with this read are written again
            paged = {
                b
                for b, page in name_pages.read_pages(
                    storage, directory, len(run) // name_pages.BLOCK
                ).items()
                if tuple(run[b * name_pages.BLOCK : (b + 1) * name_pages.BLOCK]) == page
            }
    if clean:
        new = name_pages.full_blocks(start, run, paged)
        if new and name_pages.write_pages(storage, directory, new):
            paged |= set(new)
    return tuple(sorted(known)), paged


def _read_from(col: Any, storage: CollectionHandles, start: int) -> tuple[list[str], bool]:
    """The names of the directory's records from position ``start`` on, in Chroma's order.

    Read by documents, in pages of ``_PAGE``; from the first page with a record of an earlier
    version (no document) on, by metadata. ``True`` with them when every record gave a name (the
    i-th name is then the record at ``start + i``).
    """
    found: list[str] = []
    clean = True
    include = ["documents"]
    offset = start
    while True:
        got = storage.call("read names", col.get, include=include, limit=_PAGE, offset=offset)
        if include == ["documents"]:
            docs = got.get("documents") or [None] * len(got["ids"])
            if not all(isinstance(d, str) and d for d in docs):
                include = ["metadatas"]  # records of an earlier version: by metadata
                continue
            found.extend(docs)
        else:
            for m in got["metadatas"]:
                if m and "tepa_name" in m:
                    found.append(str(m["tepa_name"]))
                else:
                    clean = False
        if len(got["ids"]) < _PAGE:
            return found, clean
        offset += _PAGE
