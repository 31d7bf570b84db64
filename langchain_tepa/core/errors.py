"""The library's error hierarchy.

Every error raised on bad input is a :class:`TEPAError` and, where it fits, also a
``ValueError``, ``LookupError`` or ``RuntimeError``, so callers can catch either the library's
own class or the standard one. Messages say what was wrong and how to fix it.

Example:
    >>> from langchain_tepa.core.errors import InvalidKeyError, TEPAError
    >>> try:
    ...     raise InvalidKeyError("key must not be blank; pass a name such as 'user.diet'")
    ... except TEPAError as exc:
    ...     isinstance(exc, ValueError)
    True
"""

from __future__ import annotations

__all__ = [
    "BrokenIndexError",
    "EmbeddingMismatchError",
    "ExtractionError",
    "InvalidArgumentError",
    "InvalidKeyError",
    "InvalidNamespaceError",
    "InvalidValueError",
    "NamespaceTemplateError",
    "OutcomeUnknownError",
    "PolicyError",
    "ReadOnlyError",
    "StorageError",
    "StorageLockedError",
    "StorageUnavailableError",
    "TEPAError",
    "UnknownPrecedentError",
    "UnsupportedLayoutError",
]


class TEPAError(Exception):
    """Base class of every error raised by langchain-tepa."""


class InvalidArgumentError(TEPAError, ValueError):
    """An argument is out of range or of the wrong type (for example ``k=0``)."""


class InvalidKeyError(InvalidArgumentError):
    """A precedent key is empty, blank, not a string, too long or holds control characters."""


class InvalidValueError(InvalidArgumentError):
    """A value is ``None``, not JSON-serialisable, not finite or not valid UTF-8."""


class InvalidNamespaceError(InvalidArgumentError):
    """A namespace is empty, has empty segments, or holds forbidden characters."""


class EmbeddingMismatchError(InvalidArgumentError):
    """Vectors of another size than the ones stored (another embedding model).

    Attributes:
        stored: Dimensions of the stored vectors.
        new: Dimensions of the new ones.
    """

    def __init__(self, message: str, *, stored: int, new: int) -> None:
        super().__init__(message)
        self.stored = stored
        self.new = new


class NamespaceTemplateError(InvalidNamespaceError):
    """A namespace template (``("memories", "{langgraph_user_id}")``) the run's config cannot fill.

    Pass the value in the run's config (``config={"configurable": {"langgraph_user_id": ...}}``)
    or use a fixed namespace: an unfilled template is never stored literally, which would let
    every user share one namespace.
    """


class PolicyError(InvalidArgumentError):
    """A :class:`~langchain_tepa.core.policy.LifecyclePolicy` threshold is invalid."""


class UnknownPrecedentError(TEPAError, LookupError):
    """``revoke``/``promote`` named a precedent (key and value) that does not exist."""


class StorageError(TEPAError, RuntimeError):
    """The storage backend failed or holds data this version cannot read."""


class UnsupportedLayoutError(StorageError):
    """A Chroma store was written in a storage layout this version does not read.

    Either an older layout than the first this version knows (stores made by unreleased
    development versions: recreate the store from its data) or a newer one (upgrade
    langchain-tepa). The message names the store, its layout and the layouts this version reads.
    """


class BrokenIndexError(StorageError):
    """Chroma cannot read a collection's vector index files (a process killed while writing them).

    The records themselves are in ``chroma.sqlite3``: stop the server (or every process using
    the folder), run ``tepa repair-index PATH``, then ``tepa reconcile PATH --reindex``.
    """


class StorageUnavailableError(StorageError):
    """The storage cannot be reached (a Chroma server that is down or at another address)."""


class OutcomeUnknownError(StorageUnavailableError):
    """A write failed in transit: its records may be stored in whole, in part or not at all.

    The connection to the storage broke (or refused) during a write, so this process cannot
    tell what the server applied. Every record has a fixed id, so what was stored is stored
    once; but calling ``observe``/``put`` again makes new evidence. Read the key's
    ``history``/``audit`` once the storage is back, and write again only what is missing.
    """


class StorageLockedError(StorageError):
    """An embedded store's folder is held by another process."""


class ReadOnlyError(StorageError):
    """A write was attempted on a memory opened with ``read_only=True``."""


class ExtractionError(TEPAError, RuntimeError):
    """A fact extractor failed to turn text into keyed observations."""
