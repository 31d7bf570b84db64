"""`VectorSpace`: item vectors of a named space, stored once with the evidence they go with.

An adapter that embeds item fields with a model of its own (``TEPAStore`` with an
``IndexConfig``) writes its vectors with the observation they belong to: they are stored in the
same append (never recomputed after a restart), loaded with their namespace and scored in
process.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> space = memory.vector_space("docs")
    >>> _ = space.observe_many([("a", {"t": "pizza"}), ("b", {"t": "tax"})],
    ...                        [[[1.0, 0.0]], [[0.0, 1.0]]])
    >>> owners = [r.precedent.id for r in space.observe_many([("c", 1)], [None])]
    >>> best = space.scores("default", [1.0, 0.1], None)
    >>> max(best, key=best.get) == memory.audit("a").precedents[0].id
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_tepa.core.types import Fact
from langchain_tepa.core.values import validate_namespace
from langchain_tepa.memory.items import validate_items, validate_space

if TYPE_CHECKING:
    from langchain_tepa.memory.writing import WritingMixin
    from langchain_tepa.results import ObservationResult

__all__ = ["VectorSpace"]

Vectors = Sequence[Sequence[float]]


class VectorSpace:
    """Stored item vectors of one named space of a memory, scored in process per namespace.

    Args:
        memory: The memory (use ``TEPAMemory.vector_space(name)``).
        name: 1-24 lower-case letters, digits or ``_``.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> TEPAMemory.in_memory().vector_space("idx").name
        'idx'
    """

    def __init__(self, memory: WritingMixin, name: str) -> None:
        self._memory = memory
        self.name = validate_space(name)

    def observe_many(
        self,
        facts: Sequence[Fact | tuple[str, Any]],
        vectors: Sequence[Vectors | None],
    ) -> list[ObservationResult]:
        """Observe ``facts`` in one append, storing ``vectors[i]`` with fact ``i``.

        ``None`` stores no vectors for that fact (a value observed again keeps the vectors it
        had); an empty list records that the value has none (it is not indexed).
        """
        items = [None if v is None else {self.name: v} for v in vectors]
        return self._memory.observe_many(facts, items=items)

    def store(self, namespace: str | Sequence[str], vectors: Mapping[str, Vectors]) -> None:
        """Store ``owner -> vectors`` without observing anything (one append, no evidence)."""
        ns = validate_namespace(namespace)
        checked = {owner: validate_items({self.name: v})[self.name] for owner, v in vectors.items()}
        if checked:
            self._memory._check_open()
            self._memory._engine.commit([], {ns: {self.name: checked}})

    def payloads(
        self, namespace: str | Sequence[str], owners: Iterable[str]
    ) -> dict[str, list[list[float]]]:
        """The vectors stored for ``owners`` exactly as given (owners without an entry absent)."""
        ns = validate_namespace(namespace)
        with self._memory._engine.reading([ns], fresh=False) as states:
            table = self._memory._engine.items(states[ns], self.name)
            out = {}
            for owner in owners:
                got = table.payload(owner)
                if got is not None:
                    out[owner] = got
            return out

    def siblings(self, namespace: str | Sequence[str], prefix: str = "") -> dict[str, int]:
        """The other spaces of ``namespace`` whose name starts with ``prefix``: their vector size.

        Only spaces holding at least one vector are listed (the size of the first one found):
        a store reopened with another index configuration finds the vectors its earlier
        configuration wrote this way.
        """
        ns = validate_namespace(namespace)
        with self._memory._engine.reading([ns], fresh=False) as states:
            out: dict[str, int] = {}
            for name, table in states[ns].spaces.items():
                if name == self.name or not name.startswith(prefix):
                    continue
                for owner in table.owner_ids():
                    got = table.payload(owner)
                    if got:
                        out[name] = len(got[0])
                        break
            return out

    def owners(self, namespace: str | Sequence[str], owners: Iterable[str]) -> set[str]:
        """Which of ``owners`` (precedent ids) have an entry here (even an empty one)."""
        ns = validate_namespace(namespace)
        with self._memory._engine.reading([ns], fresh=False) as states:
            table = self._memory._engine.items(states[ns], self.name)
            return {o for o in owners if o in table}

    def scores(
        self,
        namespace: str | Sequence[str],
        query: Sequence[float],
        owners: Iterable[str] | None,
    ) -> dict[str, float]:
        """Best cosine of each owner's vectors with ``query`` (``None``: every owner)."""
        ns = validate_namespace(namespace)
        with self._memory._engine.reading([ns], fresh=False) as states:
            table = self._memory._engine.items(states[ns], self.name)
            return table.scores(query, table.owner_ids() if owners is None else owners)
