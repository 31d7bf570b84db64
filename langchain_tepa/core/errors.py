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

from collections.abc import Callable

__all__ = [
    "BrokenIndexError",
    "EmbeddingMismatchError",
    "ExtractionError",
    "ExtractionWarning",
    "IndexMismatchWarning",
    "InvalidArgumentError",
    "InvalidKeyError",
    "InvalidNamespaceError",
    "InvalidSourceError",
    "InvalidValueError",
    "JudgeError",
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


class InvalidSourceError(InvalidArgumentError):
    """A source name is not a string, is blank, padded or too long, or holds a forbidden character.

    Forbidden are control, invisible and bidirectional-formatting characters (two sources that
    look the same would differ) and the reserved label ``outcomes``.
    """


class EmbeddingMismatchError(InvalidArgumentError):
    """Another embedding model than the one that wrote the store (or vectors of another size).

    Raised before anything is stored. Open the store with the embeddings it was written with,
    or write to a new folder or prefix.

    Attributes:
        stored: Dimensions of the stored vectors (``None`` when not compared).
        new: Dimensions of the new ones (``None`` when not compared).
        stored_model: The model the store records as its writer's (``None`` when unknown).
        new_model: This memory's model (``None`` when not named).

    Example:
        >>> err = EmbeddingMismatchError(
        ...     "other model", stored_model="HashingEmbeddings(384, version=2)",
        ...     new_model="OpenAIEmbeddings('text-embedding-3-small')",
        ... )
        >>> err.stored_model, err.stored
        ('HashingEmbeddings(384, version=2)', None)
    """

    def __init__(
        self,
        message: str,
        *,
        stored: int | None = None,
        new: int | None = None,
        stored_model: str | None = None,
        new_model: str | None = None,
    ) -> None:
        super().__init__(message)
        self.stored = stored
        self.new = new
        self.stored_model = stored_model
        self.new_model = new_model


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
    tell what the server applied. Every write carries an idempotency id (:attr:`write_id`: the
    writing memory's stream and append sequence number), and its pages are stored under ids
    derived from it: sending the same write again stores each page once, whatever the first
    attempt left. So, once the storage is back, retry it with ``memory.retry(error)`` (or
    :meth:`retry`): the evidence counts once. Calling ``observe``/``put`` again instead makes
    new evidence (new ids), which would count twice if the first attempt was stored.

    Attributes:
        write_id: The write's idempotency id (``None`` when the failed call was not an append
            of evidence, for example a view or meta write, which is safe to leave).
        evidence_ids: Ids of the evidence records the write carries.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory.in_memory()
        >>> try:  # doctest: +SKIP
        ...     memory.observe("user.diet", "vegan")
        ... except OutcomeUnknownError as error:
        ...     memory.retry(error)  # once the storage answers again
    """

    write_id: str | None = None
    evidence_ids: tuple[str, ...] = ()
    _resend: Callable[[], None] | None = None

    @property
    def retryable(self) -> bool:
        """Whether the error carries a write that :meth:`retry` can send again."""
        return self._resend is not None

    def retry(self) -> None:
        """Send the same write again (idempotent: what the first attempt stored counts once).

        Raises:
            InvalidArgumentError: If the error carries no write, or the memory wrote again
                since (retry before writing anything else).
            OutcomeUnknownError: If the storage fails again during the retry (retry it then).
            StorageUnavailableError: If the storage still cannot be reached.
        """
        if self._resend is None:
            raise InvalidArgumentError(
                "this OutcomeUnknownError carries no append of evidence to retry (the failed "
                "call rewrote views, meta records or a large namespace's own index, which the "
                "memory writes again by itself)"
            )
        self._resend()


class StorageLockedError(StorageError):
    """An embedded store's folder is held by another process."""


class ReadOnlyError(StorageError):
    """A write was attempted on a memory opened with ``read_only=True``."""


class ExtractionError(TEPAError, RuntimeError):
    """A fact extractor failed to turn text into keyed observations."""


class JudgeError(ExtractionError):
    """The judge model (:class:`~langchain_tepa.extraction.judge.ReplacementJudge`) failed.

    It raised, timed out, or answered out of the asked form. A write with a judge stores the
    item anyway and takes nothing back (the failure is logged and kept with the item's
    evidence, and ``rejudge`` retries it); only a judge made with ``strict=True`` raises this
    from the write, which then stores nothing.
    """


class ExtractionWarning(UserWarning):
    """Claims could not be read from an item that was stored anyway (the extractor failed).

    The write succeeded; the item is kept without claims (it is visible, and takes nothing back)
    and its evidence says why: ``metadata["claims_error"]`` of the item's observation
    (``memory.history(key, namespace=...)``). Write the item again once the extractor works.
    """


class IndexMismatchWarning(UserWarning):
    """A namespace holds item vectors of another index size than the store's ``dims``.

    A store reopened with another ``IndexConfig`` (another embedding model, other ``dims``) does
    not read the vectors the earlier configuration wrote: those items are not scored by
    searches until they are put again (their values and history are kept).
    """
