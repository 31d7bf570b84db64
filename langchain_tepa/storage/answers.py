"""The answer index: each key's answer and its item vectors, where a cold search finds them.

What a store's ``get`` and ``search`` return for a key is its *answer* (its best Active
precedent), a fold of the key's evidence. A process that holds a namespace's fold ranks its
answers in process; one that does not (a fresh process, a worker that never touched it, a
search across thousands of users) would have to read and fold every namespace it scans first.
So a memory with an indexed vector space (``TEPAStore`` with an ``IndexConfig``) also stores
each answer of the keys a commit changes, with the answer's item vectors, in an **answer
index** per space: written by that commit, after its evidence, before the commit returns. A
search that does not hold its namespaces asks the index (Chroma's own vector index filtered on
the namespace's label prefixes) and folds nothing.

A record per answer and vector (:func:`answer_ids`): the vector is the record's embedding; the
namespace, its label prefixes, the key, the precedent, its value and times, whether trust
budgets can move the answer (``plain``: they cannot) and its expiry stamp are metadata. A key
whose answer goes away (deleted, taken back, revoked) has its records removed by the same
commit.

Example:
    >>> index = MemoryAnswerIndex()
    >>> rec = AnswerRecord("users.u1", "k", "p1", {"t": 1}, 1.0, 1.0, "e1", [[1.0, 0.0]])
    >>> index.apply("docs", "users.u1", AnswerUpdate([rec]))
    >>> [(h.key, h.value, round(h.score, 3)) for h in index.query("docs", [1.0, 0.0], 5, "users")]
    [('k', {'t': 1}, 1.0)]
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "INDEX_RECORD",
    "AnswerHit",
    "AnswerRecord",
    "AnswerUpdate",
    "MemoryAnswerIndex",
    "answer_ids",
    "hit_of",
    "label_prefixes",
    "load_spaces",
    "spaces_json",
    "unit",
]

INDEX_RECORD = "answer_index"
"""The meta record naming a store's indexed spaces (``{space: {"stamps": space or null}}``).

Written once, when a store with an index is created on an empty store: from then on every
memory that opens the store indexes those spaces' answers in every commit, and readers trust
the index. A space indexed on a store that already held evidence is not listed (its old
answers are not indexed): its searches fold namespaces as before."""


def label_prefixes(namespace: str) -> list[str]:
    """Every label prefix of ``namespace``: ``"users.u1"`` -> ``["users", "users.u1"]``.

    Example:
        >>> label_prefixes("a.b.c")
        ['a', 'a.b', 'a.b.c']
    """
    parts = namespace.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def answer_ids(namespace: str, key: str, start: int, stop: int) -> list[str]:
    """Record ids of vectors ``start..stop-1`` of ``key``'s answer in ``namespace``.

    Example:
        >>> [i[-2:] for i in answer_ids("u", "k", 0, 2)]
        ['#0', '#1']
    """
    base = hashlib.sha256(f"{namespace}\x00{key}".encode()).hexdigest()[:32]
    return [f"a{base}#{i}" for i in range(start, stop)]


def unit(vectors: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, float32 (zero rows stay zero).

    Example:
        >>> unit([[3.0, 4.0]]).tolist()
        [[0.6000000238418579, 0.800000011920929]]
    """
    m = np.asarray(vectors, dtype=np.float64)
    if m.ndim == 1:
        m = m.reshape(1, -1)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0).astype(np.float32)


@dataclass(frozen=True)
class AnswerRecord:
    """A key's answer as the index keeps it.

    Attributes:
        namespace: The namespace.
        key: The key.
        precedent: The answering precedent's id.
        value: Its value (JSON).
        created_at: When the precedent was created.
        updated_at: When evidence last touched it.
        last_evidence: The id of that evidence (ties in recency order).
        vectors: Its item vectors in the space (one record each).
        plain: No trust budget can move it (an answer of the top tier on a key a top-tier
            source created: ``memory/answer_index.py``).
        stamp: The answer's first vector of the space's stamp space (its TTL stamp), if any.
    """

    namespace: str
    key: str
    precedent: str
    value: Any
    created_at: float
    updated_at: float
    last_evidence: str
    vectors: Sequence[Sequence[float]]
    plain: bool = True
    stamp: Sequence[float] | None = None


@dataclass(frozen=True)
class AnswerUpdate:
    """One commit's changes to one space's index in one namespace.

    Attributes:
        records: Answers to store (their vectors replace the key's records from slot 0).
        stale: ``(key, start, stop)``: record slots to remove (a key with fewer vectors than
            before, or no answer any more).
    """

    records: Sequence[AnswerRecord] = ()
    stale: Sequence[tuple[str, int, int]] = ()

    def __bool__(self) -> bool:
        return bool(self.records or self.stale)


@dataclass(frozen=True)
class AnswerHit:
    """One answer a query found (the best of its vectors).

    Attributes:
        namespace: The namespace.
        key: The key.
        precedent: The answering precedent's id.
        value: Its value (a copy).
        created_at: When the precedent was created.
        updated_at: When evidence last touched it.
        last_evidence: The id of that evidence.
        score: Cosine similarity of its best vector with the query.
        plain: No trust budget can move it.
        stamp: Its stamp (see :class:`AnswerRecord`).
    """

    namespace: str
    key: str
    precedent: str
    value: Any
    created_at: float
    updated_at: float
    last_evidence: str
    score: float
    plain: bool = True
    stamp: tuple[float, ...] | None = None


def load_spaces(text: str | None) -> dict[str, str | None]:
    """The indexed spaces of a store from its :data:`INDEX_RECORD` (``space -> stamp space``).

    Example:
        >>> load_spaces('{"docs": {"stamps": "ttl"}}'), load_spaces(None)
        ({'docs': 'ttl'}, {})
    """
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, str | None] = {}
    for space, spec in data.items():
        stamps = spec.get("stamps") if isinstance(spec, dict) else None
        out[str(space)] = stamps if isinstance(stamps, str) else None
    return out


@dataclass
class _Space:
    rows: dict[str, tuple[AnswerRecord, np.ndarray]] = field(default_factory=dict)


class MemoryAnswerIndex:
    """The answer index of :class:`~langchain_tepa.storage.InMemoryStorage` (exact ranking).

    Example:
        >>> MemoryAnswerIndex().query("docs", [1.0], 3, None)
        []
    """

    def __init__(self) -> None:
        self._spaces: dict[str, _Space] = {}
        self._lock = threading.Lock()

    def apply(self, space: str, namespace: str, update: AnswerUpdate) -> None:
        """Store ``update``'s records and remove its stale slots."""
        with self._lock:
            rows = self._spaces.setdefault(space, _Space()).rows
            for key, start, stop in update.stale:
                for rid in answer_ids(namespace, key, start, stop):
                    rows.pop(rid, None)
            for rec in update.records:
                if not rec.vectors:
                    continue
                frozen = AnswerRecord(
                    rec.namespace,
                    rec.key,
                    rec.precedent,
                    json.loads(json.dumps(rec.value)),
                    rec.created_at,
                    rec.updated_at,
                    rec.last_evidence,
                    (),
                    rec.plain,
                    None if rec.stamp is None else tuple(float(x) for x in rec.stamp),
                )
                ids = answer_ids(rec.namespace, rec.key, 0, len(rec.vectors))
                for rid, vec in zip(ids, unit(rec.vectors), strict=True):
                    rows[rid] = (frozen, vec)

    def query(
        self, space: str, vector: Sequence[float], n: int, prefix: str | None
    ) -> list[AnswerHit]:
        """The ``n`` best answers under ``prefix`` (``None``: every namespace), best first."""
        with self._lock:
            if space not in self._spaces:
                return []
            rows = [
                r
                for r in self._spaces[space].rows.values()
                if prefix is None or prefix in label_prefixes(r[0].namespace)
            ]
        if not rows or n <= 0:
            return []
        q = unit([vector])[0]
        if q.shape[0] != rows[0][1].shape[0]:
            return []
        sims = np.stack([r[1] for r in rows]) @ q
        best: dict[tuple[str, str], AnswerHit] = {}
        for (rec, _), sim in zip(rows, sims.tolist(), strict=True):
            at = (rec.namespace, rec.key)
            if at not in best or sim > best[at].score:
                best[at] = hit_of(rec, float(sim))
        return sorted(best.values(), key=lambda h: -h.score)[:n]


def hit_of(rec: AnswerRecord, score: float) -> AnswerHit:
    """``rec`` found with ``score`` (its value copied)."""
    return AnswerHit(
        rec.namespace,
        rec.key,
        rec.precedent,
        json.loads(json.dumps(rec.value)),
        rec.created_at,
        rec.updated_at,
        rec.last_evidence,
        score,
        rec.plain,
        None if rec.stamp is None else tuple(rec.stamp),
    )


def spaces_json(spaces: Mapping[str, str | None]) -> str:
    """The :data:`INDEX_RECORD` text of ``spaces`` (``space -> stamp space``).

    Example:
        >>> load_spaces(spaces_json({"docs": None}))
        {'docs': None}
    """
    return json.dumps({s: {"stamps": st} for s, st in sorted(spaces.items())}, sort_keys=True)
