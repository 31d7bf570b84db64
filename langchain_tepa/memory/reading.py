"""Reading a :class:`~langchain_tepa.memory.TEPAMemory`: answers, audit, history, answer tables.

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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from langchain_tepa.core.log import Head
from langchain_tepa.core.precedence import held_claims
from langchain_tepa.core.types import Evidence, KeyState, Precedent
from langchain_tepa.core.values import validate_key, validate_namespace
from langchain_tepa.memory.core import AsOfPoint, Namespace
from langchain_tepa.memory.documents import copy_value, detached
from langchain_tepa.memory.retrieval import RetrievalMixin
from langchain_tepa.memory.rows import AnswerRow, AnswerTable
from langchain_tepa.results import KeyAudit
from langchain_tepa.state import NamespaceState
from langchain_tepa.storage.answers import AnswerHit

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


class ReadingMixin(RetrievalMixin):
    """The reading calls of :class:`~langchain_tepa.memory.TEPAMemory`.

    Answers, audits, histories and answer tables; the ranked reads (``retrieve`` and its
    siblings) come from :class:`~langchain_tepa.memory.retrieval.RetrievalMixin`.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> TEPAMemory.in_memory().get("user.diet") is None
        True
    """

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
        ledger = state.ledger
        return KeyAudit(
            ns,
            k,
            [detached(p, self.policy) for p in state.precedents.values()],
            state.seq,
            frozenset(ledger.judged) if ledger is not None else frozenset(),
            frozenset(
                p.value_id
                for p in (() if self.policy.is_multi_valued(k) else held_claims(state, self.policy))
            ),
            frozenset(ledger.one_off) if ledger is not None else frozenset(),
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

    def answer_row(
        self, key: str, *, namespace: Namespace | None = None, payloads: str | None = None
    ) -> tuple[AnswerRow | None, list[list[float]] | None]:
        """:meth:`answer` as a read-only :class:`AnswerRow`, in one read of the namespace.

        With ``payloads`` (a vector space), the vectors the answer stored there too (``None``
        when it has none): what ``TEPAStore.get`` needs (the TTL stamp), without copying the
        precedent.

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("user.diet", {"kind": "vegan"})
            >>> row, stamp = memory.answer_row("user.diet")
            >>> row.value, stamp
            ({'kind': 'vegan'}, None)
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        self._check_open()
        if not self.policy.retrieval_enabled:
            return None, None
        with self._engine.reading([ns]) as states:
            st = states[ns]
            ks = st.keys.get(k)
            active = ks.active() if ks is not None else []
            if not active:
                return None, None
            best = active[0]
            got = None
            if payloads is not None and payloads in st.spaces:
                got = st.spaces[payloads].payload(best.id)
            return AnswerRow(best), got

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
        (every namespace registered, and every write acknowledged, before the call began): the
        storage finds the namespaces and reads their heads together
        (``StorageBackend.scan_namespaces``). On an embedded folder
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

    def holds(self, prefix: Namespace) -> bool:
        """Whether this process holds the namespaces under ``prefix``: a search ranks them here.

        On an embedded folder this process holds (the storage vouches for its write epochs):
        every namespace under ``prefix`` has a state in process; the names come from those this
        process read (the directory is read once when they are not known, or a namespace was
        registered since, and not at all while nothing under ``prefix`` is held). Elsewhere (a
        server client, the in-memory storage): ``prefix`` is itself a namespace held in process
        (a search then checks the directory and the heads, and catches up what changed).

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("k", 1, namespace="users.u1")
            >>> memory.holds("users.u1"), memory.holds("users")
            (True, False)
        """
        pfx = validate_namespace(prefix)
        self._check_open()
        if self.storage.local_epoch(pfx) is None:
            return self._engine.cache.peek(pfx) is not None
        names = self.storage.namespaces_if_unchanged(pfx)
        if names is None:
            under = pfx + "."
            if not any(ns == pfx or ns.startswith(under) for ns in self._engine.cache.names()):
                return False  # nothing under it is held: no need to read the names
            names = self.storage.find_namespaces(pfx)
        return self._engine.held(names)

    def search_answers(
        self,
        space: str,
        vector: Sequence[float],
        n: int,
        *,
        prefix: Namespace | None = None,
    ) -> list[AnswerHit] | None:
        """The ``n`` answers nearest ``vector`` in ``space``'s answer index, best first.

        Answers of every namespace under ``prefix`` (all when ``None``), one per key (its best
        item vector, cosine similarity), as stored by every commit acknowledged before the call
        (``index_answers``); no namespace is loaded. ``None`` when the store keeps no complete
        index of ``space``. Chroma's index is approximate (HNSW).

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> memory.index_answers("docs")
            True
            >>> _ = memory.vector_space("docs").observe_many([("k", 1)], [[[1.0, 0.0]]])
            >>> [(h.key, h.value) for h in memory.search_answers("docs", [1.0, 0.0], 3)]
            [('k', 1)]
        """
        self._check_open()
        if space not in self._engine.answers.spaces() or not self._engine.answers_complete():
            return None
        pfx = None if prefix is None else validate_namespace(prefix)
        return self.storage.query_answers(space, vector, n, prefix=pfx)

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
