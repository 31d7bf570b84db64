"""Reading a :class:`~langchain_tepa.memory.TEPAMemory`: retrieval, answers, audit, history.

Every read of a namespace first checks its head (unless ``max_staleness_s`` allows reusing the
last check), so it reflects every write acknowledged by any process before it began. ``as_of=``
reads fold the evidence up to a point instead.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", "vegan")
    >>> memory.get("user.diet"), memory.keys()
    ('vegan', ['user.diet'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.documents import Document

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.log import Head
from langchain_tepa.core.types import Evidence, KeyState, Precedent
from langchain_tepa.core.values import validate_key, validate_namespace
from langchain_tepa.memory.core import AsOfPoint, MemoryCore, Namespace
from langchain_tepa.memory.documents import copy_value, detached, precedent_document
from langchain_tepa.memory.rows import AnswerRow, AnswerTable
from langchain_tepa.results import KeyAudit
from langchain_tepa.state import NamespaceState, answers_of
from langchain_tepa.state.lookalikes import budgets_apply, rank_with_budgets
from langchain_tepa.validation import validate_k as _validate_k
from langchain_tepa.validation import validate_text as _validate_text

__all__ = ["ReadingMixin"]

_CHUNK = 256  # namespaces whose heads answer_tables checks together (one read per shard)


def _rows(states: Mapping[str, KeyState]) -> tuple[AnswerRow, ...]:
    """A row of each key's answer (its best Active precedent), keys in sorted order."""
    rows = []
    for key in sorted(states):
        active = states[key].active()
        if active:
            rows.append(AnswerRow(active[0]))
    return tuple(rows)


class ReadingMixin(MemoryCore):
    """The reading calls of :class:`~langchain_tepa.memory.TEPAMemory`.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> TEPAMemory.in_memory().get("user.diet") is None
        True
    """

    def retrieve(
        self,
        query: str,
        k: int = 4,
        *,
        namespace: Namespace | None = None,
        key_prefix: str | None = None,
        as_of: AsOfPoint | None = None,
        all_values: bool = False,
    ) -> list[Document]:
        """The ``k`` answers most similar to ``query``, as Documents.

        A single-valued key gives one answer, its best Active value (the one :meth:`get`
        returns); when other values are Active too, the Document says so (``contested``,
        ``alternatives``). Each Active value of a multi-valued key is an answer.

        Args:
            query: Natural-language query.
            k: How many (1 to 1000).
            namespace: Scope (default: the memory's namespace).
            key_prefix: Only keys equal to it or below it (``"user"`` matches ``"user.diet"``).
            as_of: Retrieve what was Active at that point (a datetime, seconds, or an evidence
                id) instead of now.
            all_values: Every Active value, not one per key.

        Returns:
            Documents whose metadata holds key, value, state, support, conflict, validity,
            lower_95, namespace, precedent_id, evidence_ids, created_at, updated_at, score,
            contested and (when contested) alternatives: ``[{"value", "validity"}]``.
        """
        if not isinstance(query, str):
            raise InvalidArgumentError(f"query must be a string, got {type(query).__name__}")
        _validate_text(query, "query")
        return self._ranked(
            lambda: self.embeddings.embed_query(query), k, namespace, key_prefix, as_of, all_values
        )

    def retrieve_by_vector(
        self,
        vector: Sequence[float],
        k: int = 4,
        *,
        namespace: Namespace | None = None,
        key_prefix: str | None = None,
        as_of: AsOfPoint | None = None,
        all_values: bool = False,
    ) -> list[Document]:
        """Like :meth:`retrieve`, for a query already embedded with the memory's embeddings.

        Raises:
            InvalidArgumentError: If ``vector`` is not a non-empty list of finite numbers, or
                its size differs from the stored vectors'.
        """
        vec = _as_vector(vector)
        return self._ranked(lambda: vec, k, namespace, key_prefix, as_of, all_values)

    def _ranked(
        self,
        embed: Callable[[], Sequence[float]],
        k: int,
        namespace: Namespace | None,
        key_prefix: str | None,
        as_of: AsOfPoint | None,
        all_values: bool,
    ) -> list[Document]:
        """The shared body of :meth:`retrieve` and :meth:`retrieve_by_vector`."""
        k = _validate_k(k)
        ns = self._ns(namespace)
        prefix = validate_key(key_prefix) if key_prefix is not None else None
        self._check_open()
        if not self.policy.retrieval_enabled:
            return []
        point = self._point(ns, as_of) if as_of is not None else None
        vector = embed()  # outside the namespace's lock
        with self._engine.reading([ns]) as states:
            st = states[ns]
            candidates: Sequence[Precedent]
            rivals_of: Mapping[str, list[Precedent]] = {}
            if point is None and all_values:
                candidates = st.active()
            elif point is None:
                ranking = st.ranking(self.policy)  # cached lists: ranking them again is cheap
                candidates, rivals_of = ranking.precedents, ranking.rivals
            else:
                past = self._engine.as_of(ns, point).values()
                if all_values:
                    candidates = [p for ks in past for p in ks.active()]
                else:
                    answers = answers_of(past, self.policy)
                    candidates = [p for p, _ in answers]
                    rivals_of = {p.id: rivals for p, rivals in answers if rivals}
            if prefix is not None:
                candidates = [
                    p for p in candidates if p.key == prefix or p.key.startswith(prefix + ".")
                ]
            ranked = self._trusted_rank(st, candidates, vector, k, prefix, point is not None)
            return [
                precedent_document(p, self.policy, score, rivals_of.get(p.id, []))
                for p, score in ranked
            ]

    def _trusted_rank(
        self,
        st: NamespaceState,
        candidates: Sequence[Precedent],
        vector: Sequence[float],
        k: int,
        prefix: str | None,
        past: bool,
    ) -> list[tuple[Precedent, float]]:
        """:meth:`MemoryEngine.rank` with the budgets on what a source can create (issue 28)."""

        def rank(cands: Sequence[Precedent], n: int) -> list[tuple[Precedent, float]]:
            return self._engine.rank(st, cands, vector, n, key_prefix=prefix)

        return rank_with_budgets(st, candidates, k, rank, policy=self.policy, past=past)

    def trust_rank(
        self,
        scores: Mapping[str, float],
        k: int,
        *,
        namespace: Namespace | None = None,
        fresh: bool = True,
    ) -> list[tuple[str, float]] | None:
        """Scored precedents of a namespace in trust order, for a search ranked elsewhere.

        The budgets on what a source can create, as :meth:`retrieve` applies them (issue 28):
        precedents of keys created beyond their creator's budget are left out, and a look-alike
        of a more trusted result (cosine of the memory's vectors) ranks below it. Used by
        :class:`~langchain_tepa.store.TEPAStore` search, whose scores may come from its own index.

        Args:
            scores: ``precedent id -> score`` (higher is better) of the candidates.
            k: How many are wanted.
            namespace: The namespace (default: the memory's).
            fresh: Catch the namespace up first, as every read does. ``False`` ranks on the
                state the process holds (the store's search, which caught it up in the same
                call and scored those rows, passes ``False``: one read of the heads per search).

        Returns:
            The first ``k`` ``(id, score)`` in trust order (scores unchanged), or ``None`` when
            the namespace needs no reordering (one tier of sources and no key over its budget,
            a policy without ``key_budgets`` or trust, a namespace ranked by its own index).
        """
        ns = self._ns(namespace)
        k = _validate_k(k)
        self._check_open()
        policy = self.policy
        if policy.trust is None or not policy.key_budgets or not scores:
            return None
        with self._engine.reading([ns], fresh=fresh) as states:
            st = states[ns]
            if not budgets_apply(st, policy):
                return None
            cands = [p for pid in scores if (p := st.precedent(pid)) is not None]
            plain: list[tuple[Precedent, float]] = []

            def rank(cs: Sequence[Precedent], n: int) -> list[tuple[Precedent, float]]:
                out = sorted(((p, scores[p.id]) for p in cs), key=lambda r: -r[1])[:n]
                if len(cs) == len(cands) and n == k:
                    plain.extend(out)  # the plain ranking: no reordering was needed
                return out

            ranked = rank_with_budgets(st, cands, k, rank, policy=policy)
            if plain and [p.id for p, _ in plain] == [p.id for p, _ in ranked]:
                return None
            return [(p.id, s) for p, s in ranked]

    def ranks_by_trust(self, *, namespace: Namespace | None = None, fresh: bool = True) -> bool:
        """Whether searches of a namespace apply the budgets on what a source can create now.

        True when some key is over its creator's budget or the answers come from several tiers
        of sources (cached until the namespace changes): only then does :meth:`trust_rank`
        reorder anything. ``fresh`` as in :meth:`trust_rank`.
        """
        ns = self._ns(namespace)
        self._check_open()
        policy = self.policy
        if policy.trust is None or not policy.key_budgets:
            return False
        with self._engine.reading([ns], fresh=fresh) as states:
            return budgets_apply(states[ns], policy)

    def vectors(
        self, ids: Sequence[str], *, namespace: Namespace | None = None
    ) -> dict[str, list[float]]:
        """The stored vectors of precedents ``ids`` of a namespace (copies; unknown ids absent).

        Vectors of an ordinary namespace come from the process, scaled to unit length (cosine
        similarities are unchanged); those of a large namespace (ranked by its own Chroma
        index) are read from that index.
        """
        ns = self._ns(namespace)
        wanted = _as_ids(ids)
        self._check_open()
        with self._engine.reading([ns]) as states:
            return self._engine.stored_vectors(states[ns], wanted)

    def active_documents(
        self,
        *,
        namespace: Namespace | None = None,
        key_prefix: str | None = None,
        as_of: AsOfPoint | None = None,
    ) -> list[Document]:
        """Every Active precedent of a namespace as Documents (no ranking), by key."""
        ns = self._ns(namespace)
        prefix = validate_key(key_prefix) if key_prefix is not None else None
        if not self.policy.retrieval_enabled:
            return []
        states = self._states(ns, as_of)
        out: list[Document] = []
        for key in sorted(states):
            if prefix and not (key == prefix or key.startswith(prefix + ".")):
                continue
            out.extend(precedent_document(p, self.policy) for p in states[key].active())
        return out

    def _states(self, ns: str, as_of: object) -> dict[str, KeyState]:
        """Every key's state of ``ns`` now or at ``as_of`` (copies, safe to keep)."""
        self._check_open()
        if as_of is not None:
            return self._engine.as_of(ns, self._point(ns, as_of))
        with self._engine.reading([ns]) as states:
            return {k: ks.snapshot() for k, ks in states[ns].keys.items()}

    def get(
        self, key: str, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> Any:
        """The Active value of ``key``, or ``None`` (a copy: changing it changes nothing stored).

        For a single-valued key, the best Active value (highest validity, then most recent
        support); for a multi-valued key, the list of Active values.

        Args:
            key: The key.
            namespace: Scope (default: the memory's namespace).
            as_of: What the memory believed at that point (a datetime, seconds, or an
                evidence id) instead of now.
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        multi = self.policy.is_multi_valued(k)
        if not self.policy.retrieval_enabled:
            return [] if multi else None
        state = self._key_state(ns, k, as_of)
        active = state.active() if state else []
        if multi:
            return [copy_value(p.value) for p in active]
        return copy_value(active[0].value) if active else None

    def audit(
        self, key: str, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> KeyAudit:
        """Every precedent of ``key`` with its state, posterior and transition reasons.

        Args:
            key: The key.
            namespace: Scope (default: the memory's namespace).
            as_of: The audit as it stood at that point (datetime, seconds, or evidence id).
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        state = self._key_state(ns, k, as_of)
        if state is None:
            return KeyAudit(ns, k, [], 0)
        return KeyAudit(
            ns, k, [detached(p, self.policy) for p in state.precedents.values()], state.seq
        )

    def history(self, key: str, *, namespace: Namespace | None = None) -> list[Evidence]:
        """The evidence of ``key``, oldest first, read from storage (the source of truth)."""
        ns = self._ns(namespace)
        k = validate_key(key)
        self._check_open()
        return self._engine.all_pages(ns, key=k)

    def keys(
        self, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> list[str]:
        """Keys of a namespace that have evidence (up to ``as_of`` when given)."""
        ns = self._ns(namespace)
        self._check_open()
        if as_of is not None:
            return sorted(self._engine.as_of(ns, self._point(ns, as_of)))
        with self._engine.reading([ns]) as states:
            return sorted(states[ns].keys)

    def namespaces(
        self, prefix: Namespace | None = None, *, active_only: bool = False
    ) -> list[str]:
        """Namespaces that have evidence, sorted.

        Args:
            prefix: Only this namespace and those below it on label boundaries (``"users"``
                matches ``"users.u1"``, not ``"users2"``).
            active_only: Only namespaces with at least one Active precedent (read from each
                namespace's head; a namespace whose summary is not current is folded; on an
                embedded folder this process holds, a head is read again only after a write
                to its shard).
        """
        self._check_open()
        pfx = None if prefix is None else validate_namespace(prefix)
        names = self.storage.find_namespaces(pfx)
        if not active_only or not names:
            return names
        return self._active_of(names)

    def active_among(self, names: Iterable[str]) -> list[str]:
        """Those of ``names`` with at least one Active precedent, in the order given.

        Reads the heads of ``names`` only (one read per shard touched), so a caller that
        needs a few of many namespaces, such as a listing with a limit, can check them a chunk
        at a time. A namespace whose head summary is not current is folded. On an embedded
        folder this process holds, a namespace counted before is not read again while its
        shard's write epoch is unchanged.

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("user.diet", "vegan", namespace="users.u1")
            >>> memory.active_among(["users.u2", "users.u1"])
            ['users.u1']
        """
        wanted = [validate_namespace(ns) for ns in names]
        self._check_open()
        return self._active_of(wanted)

    def _active_of(self, names: list[str]) -> list[str]:
        if not self.policy.retrieval_enabled or not names:
            return []
        counts = self._engine.active_counts(names)
        return [ns for ns in names if counts[ns] > 0]

    def answer(
        self, key: str, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> Precedent | None:
        """The precedent :meth:`get` answers with for a single-valued key (a copy), or ``None``.

        The best Active precedent: highest validity, then most recent support.
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        if not self.policy.retrieval_enabled:
            return None
        state = self._key_state(ns, k, as_of)
        active = state.active() if state else []
        return detached(active[0], self.policy) if active else None

    def answers(
        self,
        *,
        namespace: Namespace | None = None,
        key_prefix: str | None = None,
        as_of: AsOfPoint | None = None,
    ) -> list[Precedent]:
        """For every key of a namespace with an Active value, the precedent that answers (copies).

        Keys in sorted order; ``key_prefix`` keeps keys equal to it or below it.
        """
        ns = self._ns(namespace)
        prefix = validate_key(key_prefix) if key_prefix is not None else None
        if not self.policy.retrieval_enabled:
            return []
        self._check_open()
        out: list[Precedent] = []
        if as_of is not None:
            states = self._engine.as_of(ns, self._point(ns, as_of))
        with self._engine.reading([ns]) as live:
            if as_of is None:
                states = live[ns].keys
            for key in sorted(states):
                if prefix and not (key == prefix or key.startswith(prefix + ".")):
                    continue
                active = states[key].active()
                if active:
                    out.append(detached(active[0], self.policy))
        return out

    def answer_rows(
        self, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> tuple[AnswerRow, ...]:
        """The answers of :meth:`answers` as read-only rows, without copying every precedent.

        One :class:`~langchain_tepa.memory.rows.AnswerRow` per key with an Active value (keys
        in sorted order): id, key and times as attributes, the value copied on each access.
        The rows are built once per change of the namespace and shared by later calls, so an
        adapter that scans a namespace of 1,000 answers to return ten copies ten values.

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("b", 2)
            >>> _ = memory.observe("a", 1)
            >>> [(r.key, r.value) for r in memory.answer_rows()]
            [('a', 1), ('b', 2)]
        """
        ns = self._ns(namespace)
        if not self.policy.retrieval_enabled:
            return ()
        self._check_open()
        if as_of is not None:
            return _rows(self._engine.as_of(ns, self._point(ns, as_of)))
        with self._engine.reading([ns]) as live:
            return live[ns].derived("answer_rows", lambda st: _rows(st.keys))

    def answer_tables(
        self,
        namespaces: Iterable[Namespace],
        *,
        vector_spaces: Sequence[str] = (),
        payload_spaces: Mapping[str, int] | None = None,
        as_of: AsOfPoint | None = None,
    ) -> dict[str, AnswerTable]:
        """:meth:`answer_rows` of several namespaces as tables laid out for numpy.

        Each :class:`~langchain_tepa.memory.rows.AnswerTable` holds a namespace's rows newest
        first, the vectors of ``vector_spaces`` ready to score against a query in one product,
        and the first stored vector of each row in ``payload_spaces`` (as given). A table is
        built once per change of its namespace or of those spaces and shared by later calls.
        The heads of ``namespaces`` held in process are checked together (one read per shard
        for each 256 namespaces); the others are loaded one at a time.

        Args:
            namespaces: The namespaces (each once; unknown ones give empty tables).
            vector_spaces: Named spaces (:meth:`vector_space`) to score rows in.
            payload_spaces: Named spaces whose first vector per row is wanted as stored, with
                the size of those vectors (rows whose first vector has another size get NaN).
            as_of: The rows as they were then (vectors as stored now); built on every call.

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("a", 1, namespace="users.u1")
            >>> [r.key for r in memory.answer_tables(["users.u1"])["users.u1"].rows]
            ['a']
        """
        names = list(dict.fromkeys(validate_namespace(ns) for ns in namespaces))
        if not self.policy.retrieval_enabled:
            return {ns: AnswerTable(ns, ()) for ns in names}
        self._check_open()
        vectors = tuple(dict.fromkeys(vector_spaces))
        payloads = dict(payload_spaces or {})
        if as_of is not None:
            spaces = list(dict.fromkeys([*vectors, *payloads]))
            past = {ns: _rows(self._engine.as_of(ns, self._point(ns, as_of))) for ns in names}
            with self._engine.reading(names, fresh=False) as states:
                return {
                    ns: self._table(ns, past[ns], states[ns], spaces, vectors, payloads)
                    for ns in names
                }
        return self._tables(names, vectors, payloads, {})

    def answer_tables_under(
        self,
        prefix: Namespace,
        *,
        vector_spaces: Sequence[str] = (),
        payload_spaces: Mapping[str, int] | None = None,
    ) -> dict[str, AnswerTable]:
        """:meth:`answer_tables` of ``prefix`` and every namespace below it, by name.

        The same tables as ``answer_tables(namespaces(prefix), ...)`` and the same freshness
        (every namespace registered, and every write acknowledged, before the call began), in
        fewer round trips: the storage finds the namespaces and reads their heads together
        (``StorageBackend.scan_namespaces``; on Chroma one read by id for a namespace without
        children, instead of a directory ``count`` and a head read). On an embedded folder
        this process holds, a call over namespaces it holds reads nothing while nothing was
        registered or written since (``StorageBackend.namespaces_if_unchanged``, write
        epochs), and only the heads of shards written since otherwise.

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("a", 1, namespace="users.u1")
            >>> _ = memory.observe("b", 2, namespace="users.u1.notes")
            >>> sorted(memory.answer_tables_under("users.u1"))
            ['users.u1', 'users.u1.notes']
        """
        pfx = validate_namespace(prefix)
        self._check_open()
        if not self.policy.retrieval_enabled:
            return {ns: AnswerTable(ns, ()) for ns in self.storage.find_namespaces(pfx)}
        vectors = tuple(dict.fromkeys(vector_spaces))
        payloads = dict(payload_spaces or {})
        # On a store that vouches for its write epochs (an embedded folder this process holds):
        # nothing registered since the names were read, and every namespace held, so each
        # head is read only if its shard was written since (Engine._states), none at all when
        # nothing was written.
        names = self.storage.namespaces_if_unchanged(pfx)
        if names is not None and self._engine.held(names):
            return self._tables(names, vectors, payloads, {})
        scan = self.storage.scan_namespaces(pfx, heads=self._chunk())
        known = {ns: scan.heads.get(ns) for ns in scan.read}
        return self._tables(list(scan.names), vectors, payloads, known, scan.epochs)

    def _chunk(self) -> int:
        return max(1, min(_CHUNK, self._engine.cache.capacity))

    def _table(
        self,
        ns: str,
        rows: Sequence[AnswerRow],
        st: NamespaceState,
        spaces: Sequence[str],
        vectors: tuple[str, ...],
        payloads: Mapping[str, int],
    ) -> AnswerTable:
        tables = {s: self._engine.items(st, s) for s in spaces}
        return AnswerTable.build(ns, rows, tables, vector_spaces=vectors, payload_spaces=payloads)

    def _tables(
        self,
        names: list[str],
        vectors: tuple[str, ...],
        payloads: dict[str, int],
        known: Mapping[str, Head | None],
        epochs: Mapping[str, int] | None = None,
    ) -> dict[str, AnswerTable]:
        """Current tables of ``names``; ``known``: heads read after the call began.

        ``epochs``: the write epochs read before those heads, when the storage vouches.
        """
        spaces = list(dict.fromkeys([*vectors, *payloads]))
        spec = (vectors, tuple(sorted(payloads.items())))
        out: dict[str, AnswerTable] = {}
        # Namespaces held in process have their heads checked together, a chunk at a time (a
        # call over many namespaces holds no more states than the cache keeps); the others are
        # loaded one at a time, so that no more than one namespace's pages are read at once.
        cache = self._engine.cache
        step = self._chunk()
        held = [ns for ns in names if cache.peek(ns) is not None]
        chunks = [[ns] for ns in names if cache.peek(ns) is None]
        chunks += [held[at : at + step] for at in range(0, len(held), step)]
        for chunk in chunks:
            given = {ns: known[ns] for ns in chunk if ns in known}
            with self._engine.reading(chunk, known=given, known_epochs=epochs) as live:
                for ns in chunk:
                    st = live[ns]
                    # Kept until the namespace changes; rebuilt when one of its spaces changed.
                    versions = tuple(self._engine.items(st, s).version for s in spaces)
                    kept: dict[object, tuple[tuple[int, ...], AnswerTable]]
                    kept = st.derived("answer_tables", lambda _: {})
                    got = kept.get(spec)
                    if got is None or got[0] != versions:
                        rows = st.derived("answer_rows", lambda st: _rows(st.keys))
                        table = self._table(ns, rows, st, spaces, vectors, payloads)
                        got = kept[spec] = (versions, table)
                    out[ns] = got[1]
        return out if len(chunks) == 1 else {ns: out[ns] for ns in names}

    def similarity(
        self,
        query: str | Sequence[float],
        ids: Sequence[str],
        *,
        namespace: Namespace | None = None,
    ) -> dict[str, float]:
        """Cosine similarity of ``query`` with the stored vectors of precedents of a namespace.

        ``query`` is a text (embedded with the memory's embeddings) or a vector; ids without a
        stored vector are absent from the result.
        """
        ns = self._ns(namespace)
        wanted_ids = _as_ids(ids)
        self._check_open()
        if isinstance(query, str):
            _validate_text(query, "query")
            vector: Sequence[float] = self.embeddings.embed_query(query)
        else:
            vector = _as_vector(query)
        with self._engine.reading([ns]) as states:
            st = states[ns]
            wanted = [p for pid in wanted_ids if (p := st.precedent(pid)) is not None]
            return {p.id: s for p, s in self._engine.rank(st, wanted, vector, len(wanted))}

    def precedents(self, *, namespace: Namespace | None = None) -> list[Precedent]:
        """Copies of every precedent of one namespace (default: the memory's), by key.

        :meth:`iter_precedents` walks every namespace.
        """
        ns = self._ns(namespace)
        states = self._states(ns, None)
        return [
            detached(p, self.policy) for k in sorted(states) for p in states[k].precedents.values()
        ]

    def iter_precedents(self) -> Iterator[Precedent]:
        """Copies of every precedent of every namespace, one namespace at a time."""
        for ns in self.namespaces():
            yield from self.precedents(namespace=ns)

    def evidence_count(self, *, namespace: Namespace | None = None) -> int:
        """Evidence records in storage (of one namespace, or of all when ``namespace`` is None).

        Counted from the namespaces' heads: no evidence is read.
        """
        self._check_open()
        if namespace is not None:
            ns = self._ns(namespace)
            head = self.storage.read_heads([ns]).get(ns)
            return head.evidence_count if head else 0
        return sum(head.evidence_count for head in self._engine.heads())

    def views(self, *, namespace: Namespace | None = None) -> list[dict[str, Any]]:
        """The precedent views as storage holds them (``Precedent.view()`` dicts).

        A materialised view that may lag the fold: reads never use it; tools that query Chroma
        directly do. ``reconcile()`` makes every view equal to the fold.
        """
        ns = self._ns(namespace)
        self._check_open()
        return self.storage.load_views(ns)


def _as_vector(vector: object) -> list[float]:
    import math

    if isinstance(vector, str | bytes) or not isinstance(vector, Sequence) or not vector:
        raise InvalidArgumentError("vector must be a non-empty list of numbers")
    out = []
    for x in vector:
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
            raise InvalidArgumentError(f"vector must hold finite numbers, got {x!r}")
        out.append(float(x))
    return out


def _as_ids(ids: object) -> list[str]:
    """Precedent ids: a list (or tuple) of strings, each once."""
    if isinstance(ids, str | bytes) or not isinstance(ids, list | tuple | set | frozenset):
        raise InvalidArgumentError(
            f"ids must be a list of precedent ids (strings), got {type(ids).__name__}"
        )
    for pid in ids:
        if not isinstance(pid, str):
            raise InvalidArgumentError(f"ids must be strings, got {type(pid).__name__}")
    return list(dict.fromkeys(ids))
