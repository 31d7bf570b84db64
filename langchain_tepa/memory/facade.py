"""`TEPAMemory`: the facade (lifecycle core + state layer + storage + embeddings).

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.pizza_topping", "pineapple")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> memory.get("user.pizza_topping")
    'mushroom'
    >>> [p.state.value for p in memory.audit("user.pizza_topping").precedents]
    ['revoked', 'active']
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from langchain_tepa.core.errors import InvalidArgumentError, OutcomeUnknownError
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.values import DEFAULT_NAMESPACE, validate_namespace
from langchain_tepa.embeddings import default_embeddings
from langchain_tepa.memory.adapters import make_adapter
from langchain_tepa.memory.async_api import AsyncMemoryMixin
from langchain_tepa.memory.core import AsOfPoint, Namespace
from langchain_tepa.memory.engine import Engine
from langchain_tepa.memory.exits import track, untrack
from langchain_tepa.memory.ingest import TextIngest
from langchain_tepa.memory.maintenance import reconcile_storage
from langchain_tepa.memory.reading import ReadingMixin
from langchain_tepa.memory.spaces import VectorSpace
from langchain_tepa.memory.writing import WritingMixin
from langchain_tepa.results import ReconcileReport
from langchain_tepa.state import DEFAULT_CACHE_SIZE
from langchain_tepa.storage.base import StorageBackend, as_backend
from langchain_tepa.storage.memory import InMemoryStorage
from langchain_tepa.validation import MAX_K, MAX_TEXT_CHARS
from langchain_tepa.validation import validate_text as _validate_text

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from langchain_tepa.extraction.base import FactExtractor
    from langchain_tepa.extraction.judge import ReplacementJudge

__all__ = ["MAX_K", "MAX_TEXT_CHARS", "AsOfPoint", "Namespace", "TEPAMemory"]


class TEPAMemory(WritingMixin, ReadingMixin, AsyncMemoryMixin):
    """Revocable evidence memory: observe, record outcomes, retrieve only what is still valid.

    Every call writes an immutable evidence record; precedents (one per key and value) are a
    fold of that evidence under a :class:`~langchain_tepa.core.policy.LifecyclePolicy`.
    Retrieval sees Active precedents only; Revoked ones stay in the archive for ``audit``.

    Opening reads no evidence: each namespace (a tenant) is loaded on its first use and kept in
    a bounded cache. Several memories (threads, processes, machines) may share one store; what
    each sees is set by ``max_staleness_s`` (``docs/consistency.md``).

    Args:
        storage: A storage backend. Defaults to an in-process store; use :meth:`from_path`
            (embedded persistent Chroma) or :meth:`from_client` (any chromadb client).
        embeddings: Any LangChain ``Embeddings``; defaults to :func:`default_embeddings`.
        policy: A policy or a preset name (``"tepa-key"``, ``LifecyclePolicy()``, by default;
            ``"tepa-rev"`` for the paper's rules).
        namespace: Default namespace of calls that do not name one.
        writer: Name of this writer in evidence ids (default: a random id per instance).
        clock: Time source (seconds); benchmarks pass their own.
        flush_every: Count-only view updates buffered before they are written (evidence and
            state changes are always written at once).
        flush_interval_s: Seconds a buffered view update may wait before it is written.
        cache_size: Namespaces kept in process (least recently used leave first).
        max_staleness_s: 0 (default): every read first checks storage for other writers'
            appends to its namespace (one small read). ``s > 0``: a read may reuse the last
            check for ``s`` seconds, so it may miss other processes' writes of that time.
        extractor: Fact extractor for :meth:`add_texts` (default: the offline extractor).
        judge: A chat model (or a :class:`~langchain_tepa.extraction.judge.ReplacementJudge`
            around one) that decides what a new free-text item replaces (``TEPAStore`` puts,
            ``TEPAVectorStore`` documents, LangMem's tools over them): it is shown the new
            text and the earlier items it may replace, and its verdicts become claims folded
            like any evidence (:mod:`langchain_tepa.memory.verdicts`). Without one, the
            offline extractor's claims decide. A failing model stores the item and takes
            nothing back (the adapters' ``rejudge`` retries).
        read_only: Open without writing anything: no collections, no view repairs, and every
            write raises :class:`~langchain_tepa.core.errors.ReadOnlyError`.

    Example:
        >>> memory = TEPAMemory.in_memory()
        >>> memory.observe("user.diet", "vegan").precedent.state.value
        'active'
        >>> memory.retrieve("what does the user eat?", k=1)[0].metadata["value"]
        'vegan'
    """

    def __init__(
        self,
        storage: StorageBackend | None = None,
        *,
        embeddings: Embeddings | None = None,
        policy: LifecyclePolicy | str | None = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
        writer: str | None = None,
        clock: Callable[[], float] | None = None,
        flush_every: int = 256,
        flush_interval_s: float = 2.0,
        cache_size: int = DEFAULT_CACHE_SIZE,
        max_staleness_s: float = 0.0,
        extractor: FactExtractor | None = None,
        judge: ReplacementJudge | BaseChatModel | None = None,
        read_only: bool = False,
    ) -> None:
        if isinstance(policy, str):
            policy = LifecyclePolicy.preset(policy)
        elif policy is None:
            policy = LifecyclePolicy()
        elif not isinstance(policy, LifecyclePolicy):
            raise InvalidArgumentError(
                f"policy must be a LifecyclePolicy or a preset name, got {type(policy).__name__}"
            )
        if storage is None:
            storage = InMemoryStorage(read_only=bool(read_only))
        else:
            storage = as_backend(storage)
        if writer is not None:
            _validate_text(writer, "writer")
            if not writer or len(writer) > 128:
                raise InvalidArgumentError("writer must be 1 to 128 characters")
        self.policy: LifecyclePolicy = policy
        self.storage: StorageBackend = storage
        self.embeddings: Embeddings = embeddings if embeddings is not None else default_embeddings()
        self.namespace: str = validate_namespace(namespace)
        self.writer: str = writer or f"w{os.getpid():x}{os.urandom(3).hex()}"
        self.read_only: bool = bool(read_only) or bool(getattr(storage, "read_only", False))
        self._engine = Engine(
            storage,
            policy=policy,
            embeddings=self.embeddings,
            writer=self.writer,
            clock=clock or time.time,
            cache_size=cache_size,
            max_staleness_s=max_staleness_s,
            flush_every=flush_every,
            flush_interval_s=flush_interval_s,
            read_only=self.read_only,
        )
        if not self.read_only:  # another model's store is refused on opening, not mid-write
            self._engine.check_model(record=False)
        self._ingest = TextIngest(self.embeddings, policy, extractor)
        self.judge: ReplacementJudge | None = None
        """What decides the replacements of free-text items (``None``: the extractor's claims)."""
        if judge is not None:
            from langchain_tepa.extraction.judge import as_judge

            self.judge = as_judge(judge)
        self._closed = False
        self._on_close: Callable[[], None] | None = None
        if not self.read_only and not isinstance(storage, InMemoryStorage):
            track(self)  # closed at interpreter exit if still open (memory/exits.py)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def in_memory(cls, **kwargs: Any) -> TEPAMemory:
        """A memory in this process only (tests, notebooks, simulations)."""
        return cls(InMemoryStorage(read_only=bool(kwargs.get("read_only", False))), **kwargs)

    @classmethod
    def from_client(
        cls, client: Any, *, prefix: str = "tepa", shards: int | None = None, **kwargs: Any
    ) -> TEPAMemory:
        """A memory on any chromadb client (ephemeral, persistent, ``HttpClient`` or async).

        Args:
            client: The chromadb client. An async client (``await chromadb.AsyncHttpClient(...)``)
                is served through :class:`~langchain_tepa.storage.chroma.AsyncChromaStorage`;
                from async code prefer :meth:`afrom_client`, which does not block the loop.
            prefix: Collection name prefix (several memories can share one Chroma).
            shards: Evidence and vector shards of a new store (default 16; an existing store
                keeps its own). A namespace costs records, not collections.
            **kwargs: Passed to :class:`TEPAMemory` (``read_only`` also to the storage).
        """
        from langchain_tepa.storage.chroma import open_chroma_storage

        storage = open_chroma_storage(
            client, prefix=prefix, shards=shards, read_only=bool(kwargs.get("read_only", False))
        )
        return cls(storage, **kwargs)

    @classmethod
    def from_server(
        cls,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        ssl: bool = False,
        headers: dict[str, str] | None = None,
        prefix: str = "tepa",
        **kwargs: Any,
    ) -> TEPAMemory:
        """A memory on a Chroma server (``chroma run``): ``chromadb.HttpClient`` made for you.

        Several processes may open the same server and prefix: see the consistency model in
        ``docs/consistency.md`` ("Several workers").

        Raises:
            StorageUnavailableError: If no server answers at that address.

        Example:
            >>> memory = TEPAMemory.from_server("127.0.0.1", 8000, prefix="app")  # doctest: +SKIP
        """
        from langchain_tepa.storage.chroma import open_server_client

        client = open_server_client(host, port, ssl=ssl, headers=headers)
        return cls.from_client(client, prefix=prefix, **kwargs)

    @classmethod
    async def afrom_client(cls, client: Any, *, prefix: str = "tepa", **kwargs: Any) -> TEPAMemory:
        """Async twin of :meth:`from_client` (opening runs in a worker thread).

        Example:
            >>> client = await chromadb.AsyncHttpClient(port=8000)  # doctest: +SKIP
            >>> memory = await TEPAMemory.afrom_client(client, prefix="app")  # doctest: +SKIP
        """
        return await asyncio.to_thread(
            functools.partial(cls.from_client, client, prefix=prefix, **kwargs)
        )

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], **kwargs: Any) -> TEPAMemory:
        """A memory in an embedded persistent Chroma at ``path`` (created when missing).

        The folder is locked for this process (Chroma's embedded mode serves one process; for
        several, serve the folder with ``chroma run`` and use :meth:`from_client`).

        Args:
            path: Folder of the Chroma database (``~`` is expanded).
            **kwargs: ``prefix``, ``shards``, ``journal_mode`` (``"wal"``, the default: the
                folder's SQLite database uses write-ahead logging, about 5 ms a write instead
                of 20-55; ``"keep"``: Chroma's own mode; see
                :func:`~langchain_tepa.storage.chroma.set_journal_mode`) and the arguments of
                :class:`TEPAMemory`.

        Raises:
            StorageError: If the path is not a folder that can be used (a file, a missing folder
                with ``read_only=True``, a folder without permission, a folder another process
                holds); the message says what to do.
        """
        from langchain_tepa.storage.chroma import ChromaStorage, open_persistent_client

        read_only = bool(kwargs.get("read_only", False))
        prefix = kwargs.pop("prefix", "tepa")
        shards = kwargs.pop("shards", None)
        journal_mode = kwargs.pop("journal_mode", "wal")
        client, lock = open_persistent_client(path, read_only=read_only, journal_mode=journal_mode)
        try:
            memory = cls.from_client(client, prefix=prefix, shards=shards, **kwargs)
        except BaseException:
            lock.release()
            raise
        memory._on_close = lock.release
        if isinstance(memory.storage, ChromaStorage):
            # This process holds the folder: fresh reads skip head reads while nothing was
            # written (docs/consistency.md, "One process, an embedded folder").
            memory.storage.claim_folder(lock)
        return memory

    @classmethod
    async def afrom_path(cls, path: str | os.PathLike[str], **kwargs: Any) -> TEPAMemory:
        """Async twin of :meth:`from_path`."""
        return await asyncio.to_thread(functools.partial(cls.from_path, path, **kwargs))

    # ------------------------------------------------------------------ maintenance
    def reconcile(self, *, reindex: bool = False) -> ReconcileReport:
        """Refold every namespace from its evidence and repair stored views and vectors.

        Reads the whole store, one namespace at a time; reads never need it (they fold the
        evidence), it keeps the stored views exact for tools that query Chroma directly.

        Args:
            reindex: Write every Active precedent of each large namespace to its index again,
                with the vector its evidence stores (nothing is embedded again): needed after
                ``tepa repair-index`` moved a broken index away (see docs/reliability.md).
        """
        self._check_open()
        self._engine.check_writable()
        self._engine.flush()
        self._engine.cache.clear()
        return reconcile_storage(self._engine, reindex=reindex)

    def refresh(self) -> None:
        """Forget every cached namespace (each is reloaded from storage on its next use)."""
        self._check_open()
        self._engine.cache.clear()

    def retry(self, error: OutcomeUnknownError) -> None:
        """Send again the write whose outcome ``error`` left unknown, once the storage is back.

        Every write carries an idempotency id (``error.write_id``) and stores its pages under
        ids derived from it, so the retry stores each record once whether the first attempt
        stored all of it, part of it or nothing: support is never counted twice. Retry before
        writing anything else with this memory (docs/reliability.md, "Writes whose outcome is
        unknown").

        Args:
            error: The :class:`~langchain_tepa.core.errors.OutcomeUnknownError` a write of this
                memory raised.

        Raises:
            InvalidArgumentError: If ``error`` carries no write of this memory, or this memory
                wrote since.
            OutcomeUnknownError: If the connection fails again (retry again later).

        Example:
            >>> memory = TEPAMemory.in_memory()
            >>> try:  # doctest: +SKIP
            ...     memory.observe("user.diet", "vegan")
            ... except OutcomeUnknownError as error:
            ...     memory.retry(error)
        """
        self._check_open()
        if not isinstance(error, OutcomeUnknownError):
            raise InvalidArgumentError(
                f"retry takes an OutcomeUnknownError, got {type(error).__name__}"
            )
        resend = error._resend
        owner = getattr(resend, "func", None)
        if resend is None or getattr(owner, "__self__", None) is not self._engine:
            raise InvalidArgumentError(
                "this OutcomeUnknownError carries no write of this memory; retry it with the "
                "memory whose write raised it"
            )
        resend()

    def flush(self) -> None:
        """Write buffered view updates, and the view marks that say they are written."""
        self._check_open()
        self._engine.flush(settle=True)

    def close(self) -> None:
        """Flush and release the storage (and the folder lock of :meth:`from_path`).

        A writable memory on a storage that outlives the process (Chroma) and still open when
        the interpreter exits is closed then (``memory/exits.py``), so a program that never
        calls this leaves no view behind its evidence. Call it (or use ``with``) to release
        the folder earlier, and to see an error that closing at exit could only log.
        """
        if self._closed:
            return
        untrack(self)
        try:
            self._engine.close()
            self.storage.close()
        finally:
            self._closed = True
            if self._on_close is not None:
                self._on_close()

    def __enter__(self) -> TEPAMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"TEPAMemory(policy={self.policy.name!r}, namespace={self.namespace!r}, "
            f"storage={self.storage.describe()!r}, cached_namespaces={len(self._engine.cache)})"
        )

    # ------------------------------------------------------------------ integrations
    def vector_space(self, name: str) -> VectorSpace:
        """A named space of item vectors stored beside this memory's precedents.

        For adapters that embed item fields with a model of their own (``TEPAStore`` with an
        ``IndexConfig``): vectors are stored once and loaded per namespace on first use.
        """
        return VectorSpace(self, name)

    def index_answers(self, space: str, *, stamps: str | None = None) -> bool:
        """Keep ``space``'s answers in the store's answer index; whether it is complete.

        Every memory on the store then stores, with each commit, the answers it changes with
        their vectors of ``space`` (``storage/answers.py``), and :meth:`search_answers` finds
        them without loading any namespace. Only a store that held no evidence when the space
        was first indexed has a complete index (earlier answers are in no index): on any
        other this returns ``False`` and searches keep folding namespaces. ``stamps`` names a
        payload space whose first vector each record carries (``TEPAStore``'s TTL stamps).

        Example:
            >>> memory = TEPAMemory.in_memory()
            >>> memory.index_answers("docs")
            True
        """
        name = VectorSpace(self, space).name  # validated
        if stamps is not None:
            VectorSpace(self, stamps)
        self._check_open()
        complete = self._engine.answers.register(
            name, stamps=stamps, empty=lambda: not self.storage.find_namespaces()
        )
        if complete and not self.read_only:
            self._engine.answers_complete(repair=True)  # a killed writer's answers: stored now
        return complete

    def as_retriever(self, **kwargs: Any) -> Any:
        """A :class:`~langchain_tepa.retriever.TEPARetriever` over this memory."""
        return make_adapter("retriever", self, **kwargs)

    def as_store(self, **kwargs: Any) -> Any:
        """A :class:`~langchain_tepa.store.TEPAStore` (LangGraph ``BaseStore``) over this memory."""
        return make_adapter("store", self, **kwargs)

    def as_vectorstore(self, **kwargs: Any) -> Any:
        """A :class:`~langchain_tepa.vectorstore.TEPAVectorStore` (LangChain ``VectorStore``).

        Example:
            >>> memory = TEPAMemory.in_memory()
            >>> memory.as_vectorstore().add_texts(["The user is vegan"], ids=["diet"])
            ['diet']
        """
        return make_adapter("vectorstore", self, **kwargs)

    def as_langchain_memory(self, **kwargs: Any) -> Any:
        """A classic LangChain ``BaseMemory`` adapter (needs the ``classic`` extra)."""
        return make_adapter("classic", self, **kwargs)
