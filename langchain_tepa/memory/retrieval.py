"""Retrieval from a :class:`~langchain_tepa.memory.TEPAMemory`: ranked search, trust, vectors.

The ranked reads of a memory (:meth:`RetrievalMixin.retrieve` and its vector twin, the
trust-aware ranking, the stored vectors and their similarities, the Active documents) and the
key-state read they share (``_states``). :class:`~langchain_tepa.memory.reading.ReadingMixin`
builds the answers, audits and histories on top of it.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", "vegan")
    >>> [d.page_content for d in memory.active_documents()]
    ['user.diet: vegan']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from langchain_core.documents import Document

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.types import KeyState, Precedent
from langchain_tepa.core.values import safe_repr, validate_key
from langchain_tepa.memory.core import AsOfPoint, MemoryCore, Namespace
from langchain_tepa.memory.documents import precedent_document
from langchain_tepa.state import NamespaceState, answers_of
from langchain_tepa.state.lookalikes import budgets_apply, rank_with_budgets
from langchain_tepa.validation import validate_k as _validate_k
from langchain_tepa.validation import validate_text as _validate_text

__all__ = ["RetrievalMixin"]


class RetrievalMixin(MemoryCore):
    """The ranked reads of :class:`~langchain_tepa.memory.TEPAMemory` (module docstring).

    Example:
        >>> from langchain_tepa.memory.reading import ReadingMixin
        >>> issubclass(ReadingMixin, RetrievalMixin)
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


def _as_vector(vector: object) -> list[float]:
    import math

    if isinstance(vector, str | bytes) or not isinstance(vector, Sequence) or not vector:
        raise InvalidArgumentError("vector must be a non-empty list of numbers")
    out = []
    for x in vector:
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
            raise InvalidArgumentError(f"vector must hold finite numbers, got {safe_repr(x)}")
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
