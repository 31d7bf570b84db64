"""The names directory (``<prefix>_names``), read once and kept while it has not grown.

Every namespace is registered in the directory by the first commit that writes it, and nothing
ever removes a registration (re-registering upserts the same id). The directory therefore only
grows, and its record count says whether the names read earlier are still all of them: a process
keeps the sorted names and checks one ``count`` per listing, reading the directory again only
when another writer registered a namespace since.

Names are read from the records' documents, which costs a fraction of decoding every record's
metadata. A directory with records of an earlier version (they have no document) is read by
metadata, as before.

A scan under a prefix that is itself a namespace (``TEPAStore.search`` in one user's namespace)
needs no ``count``: every commit that registers a namespace also writes a **registration
token** for each of its ancestors that is a namespace (has a head), a small record beside the
ancestor's head in the ancestor's shard, with a value no commit wrote before. A scan reads the
prefix's token and head in the same read by id as the other heads it needs; while the prefix
has a head and its token is the one read (with the head) before the last read of the
directory, nothing was registered below the prefix since, and the names held are complete.
Why this is enough: the registration comes first and the token after it, and a reader reads
the token first and the directory after it, so a changed token always finds the new names; a
commit that found no head for an ancestor wrote no token, but that head was then created after
the registration, and a reader only trusts a token it read with the head, so its directory read
came later still. A prefix without a head (``users`` above ``users.u1``) is checked by
``count``, as before.

Example:
    >>> names_under(("a", "a.b", "a.b.c", "a2", "b"), "a.b")
    ['a.b', 'a.b.c']
    >>> sorted(registration_tokens(["a.b.c", "a.d", "e"], "s1.7").items())
    [('a', 's1.7'), ('a.b', 's1.7')]
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_tepa.core.values import short_hash

if TYPE_CHECKING:
    from langchain_tepa.storage.chroma.backend import ChromaStorage

__all__ = [
    "TOKEN_KIND",
    "NamesDirectory",
    "names_under",
    "registration_tokens",
    "token_id",
    "token_meta",
]

_PAGE = 20000
"""Names read per Chroma ``get``: each page costs a scan up to its offset, so fewer, larger
pages read a large directory faster (100,001 names: 2.8 s in pages of 5,000, 1.8 s in pages of
20,000); Chroma binds a page's ids as SQL variables, and 100,000 at once exceeded SQLite's
limit (32,766)."""
_TOKENS_HELD = 65536  # prefixes whose last token a process remembers (oldest forgotten first)
TOKEN_KIND = "dir"  # noqa: S105 (a record kind, not a secret)
"""``tepa_kind`` of a registration token record."""


def token_id(prefix: str) -> str:
    """The id of ``prefix``'s registration token (in the prefix's shard, beside its head)."""
    return "d." + short_hash(prefix, 32)


def token_meta(prefix: str, token: str) -> dict[str, Any]:
    """The metadata of ``prefix``'s registration token."""
    return {"tepa_kind": TOKEN_KIND, "tepa_dns": prefix, "tepa_dtok": token}


def registration_tokens(namespaces: Sequence[str], token: str) -> dict[str, str]:
    """``prefix -> token`` for each ancestor of the namespaces registered."""
    out: dict[str, str] = {}
    for ns in namespaces:
        labels = ns.split(".")
        for depth in range(1, len(labels)):
            out[".".join(labels[:depth])] = token
    return out


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
        self._tokens: dict[str, str | None] = {}

    def token(self, prefix: str) -> tuple[bool, str | None]:
        """Whether a token of ``prefix`` is held, and which.

        ``(True, token)``: ``token`` was read before the names held were read.
        """
        with self._lock:
            if self._key is None or prefix not in self._tokens:
                return False, None
            return True, self._tokens[prefix]

    def keep_token(self, prefix: str, token: str | None, *, trusted: bool = True) -> None:
        """Remember ``prefix``'s token, read before the names now held (after :meth:`names`).

        ``trusted=False`` (the prefix had no head when its token was read) forgets it instead.
        """
        with self._lock:
            self._tokens.pop(prefix, None)
            if not trusted:
                return
            self._tokens[prefix] = token
            if len(self._tokens) > _TOKENS_HELD:
                del self._tokens[next(iter(self._tokens))]

    @property
    def cached(self) -> tuple[str, ...] | None:
        """The names held, or ``None`` before the first read."""
        return self._names if self._key is not None else None

    def names(self, col: Any, storage: ChromaStorage) -> tuple[str, ...]:
        """Every registered name, sorted (one ``count``; a full read when it changed)."""
        count = int(storage.call("count names", col.count))
        with self._lock:
            if self._key == (col.id, count):
                return self._names
        names = self._read(col, storage)
        with self._lock:
            if self._key is not None and self._key[0] == col.id and len(self._names) > len(names):
                # Another thread stored a later read (the directory only grows): keep both.
                names = tuple(sorted(set(names).union(self._names)))
            # Keyed by what was read: a registration racing the read is read again next time.
            self._key = (col.id, len(names))
            self._names = names
        return names

    @staticmethod
    def _read(col: Any, storage: ChromaStorage) -> tuple[str, ...]:
        found: set[str] = set()
        include = ["documents"]
        offset = 0
        while True:
            got = storage.call("read names", col.get, include=include, limit=_PAGE, offset=offset)
            if include == ["documents"]:
                docs = got.get("documents") or [None] * len(got["ids"])
                if not all(isinstance(d, str) and d for d in docs):
                    include = ["metadatas"]  # records of an earlier version: by metadata
                    continue
                found.update(docs)
            else:
                found.update(
                    str(m["tepa_name"]) for m in got["metadatas"] if m and "tepa_name" in m
                )
            if len(got["ids"]) < _PAGE:
                return tuple(sorted(found))
            offset += _PAGE
