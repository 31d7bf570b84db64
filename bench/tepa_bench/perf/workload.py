"""The data of ``tepa-bench perf`` (the embedded run): precedents over 100 namespaces.

For a size N, N precedents over 100 namespaces and a few thousand keys (about 33 values per key),
a third of them revoked by the lifecycle itself: single-valued ``pref.*`` keys see their values in
turn (each new value conflicts with the live ones), multi-valued ``list.*`` keys keep every
value. Vectors are precomputed 384-dimension unit vectors.

Example:
    >>> work = build_workload(300, calls=5)
    >>> len(work.namespaces), work.revoked
    (100, 100)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import LifecyclePolicy
from tepa_bench.perf.common import unit_matrix

__all__ = ["MULTI", "NAMESPACES", "SINGLE", "PerfWorkload", "build_workload", "perf_policy"]

NAMESPACES = 100
MULTI = "list"
SINGLE = "pref"


def perf_policy() -> LifecyclePolicy:
    """TEPA-Rev with keys under ``list`` multi-valued (lists of facts) and ``pref`` single."""
    return LifecyclePolicy.preset("tepa-rev", multi_valued_prefixes=(MULTI,))


@dataclass
class _Precedent:
    row: int
    namespace: str
    key: str
    value: str
    text: str
    revoked: bool


@dataclass
class PerfWorkload:
    """The data of one size: precedents (in ingestion order per namespace), queries, extras.

    Attributes:
        n: Number of precedents.
        namespaces: Namespace names.
        keys: Number of distinct ``(namespace, key)`` pairs.
        streams: Per namespace, its precedents in observation order.
        texts: Every text of the embedding table (precedents, queries, new values).
        matrix: Their unit vectors.
        queries: Query texts.
        new_texts: Texts of values observed for the first time during the observe phase.
    """

    n: int
    namespaces: list[str]
    keys: int
    streams: dict[str, list[_Precedent]]
    texts: list[str]
    matrix: np.ndarray
    queries: list[str]
    new_texts: list[str]
    key_list: list[tuple[str, str, bool]] = field(default_factory=list)

    @property
    def revoked(self) -> int:
        """Precedents the workload revokes (the earlier values of single-valued keys)."""
        return sum(p.revoked for s in self.streams.values() for p in s)


def _split(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _survivors(policy: LifecyclePolicy) -> int:
    """How many values of a single-valued key observed once each, in turn, stay Active."""
    from langchain_tepa.core import fold
    from langchain_tepa.core.types import Evidence

    evs = [
        Evidence.observation("pref.k", f"v{i}", time=float(i), id=f"e{i:03d}") for i in range(12)
    ]
    state = fold(evs, policy)
    live = sum(p.is_active for p in state.precedents.values())
    tail = all(p.is_active for p in list(state.precedents.values())[-live:])
    if live < 1 or not tail:
        raise InvalidArgumentError("the perf policy must keep the newest values of a key Active")
    return live


def build_workload(n: int, *, calls: int = 200, seed: int = 0) -> PerfWorkload:
    """N precedents over 100 namespaces, about 33 values per key, a third revoked.

    Each namespace has multi-valued keys (``list.kNN``: every value stays Active) and
    single-valued keys (``pref.kNN``): a single-valued key observed with ``m`` values in turn
    ends with its last ``L`` values Active and the earlier ones revoked (each new value is a
    conflict for the live ones; ``L`` is 2 under TEPA-Rev's defaults, found by folding). The
    number of single-valued keys is chosen so that a third of the precedents end revoked.

    Raises:
        InvalidArgumentError: If ``n`` is below 300.
    """
    if n < 300:
        raise InvalidArgumentError(f"perf sizes must be at least 300, got {n}")
    rng = random.Random(seed)
    live = _survivors(perf_policy())
    namespaces = [f"perf.ns{i:03d}" for i in range(NAMESPACES)]
    per_ns = _split(n, NAMESPACES)
    streams: dict[str, list[_Precedent]] = {}
    key_list: list[tuple[str, str, bool]] = []
    row = 0
    for ns, count in zip(namespaces, per_ns, strict=True):
        kpn = max(2, round(count / 33))
        revoked_target = count // 3
        mean = count / kpn
        singles = max(1, min(kpn - 1, math.ceil(revoked_target / max(1.0, mean - live))))
        revoked_each = _split(revoked_target, singles)
        sizes = [r + live for r in revoked_each]
        rest = count - sum(sizes)
        multis = kpn - singles
        sizes += _split(rest, multis)
        per_key: list[list[_Precedent]] = []
        for j, size in enumerate(sizes):
            single = j < singles
            key = f"{SINGLE if single else MULTI}.k{j:02d}"
            key_list.append((ns, key, single))
            values = []
            for v in range(size):
                text = f"fact {row}: {ns} {key} value {v}"
                revoked = single and v < size - live
                values.append(_Precedent(row, ns, key, f"v{v}", text, revoked))
                row += 1
            per_key.append(values)
        # Interleave the keys of the namespace, keeping each key's values in order.
        order = [j for j, vals in enumerate(per_key) for _ in vals]
        rng.shuffle(order)
        cursors = [0] * len(per_key)
        stream = []
        for j in order:
            stream.append(per_key[j][cursors[j]])
            cursors[j] += 1
        streams[ns] = stream
    queries = [f"query {i}" for i in range(max(calls, 1))]
    new_texts = [f"new fact {i}" for i in range(max(calls, 1) + 2000)]
    texts = [p.text for s in streams.values() for p in sorted(s, key=lambda p: p.row)]
    texts += queries + new_texts
    matrix = unit_matrix(len(texts), seed=seed)
    return PerfWorkload(
        n=n,
        namespaces=namespaces,
        keys=len(key_list),
        streams=streams,
        texts=texts,
        matrix=matrix,
        queries=queries,
        new_texts=new_texts,
        key_list=key_list,
    )
