"""``tepa-bench perf``: TEPAMemory on persistent Chroma against raw Chroma, at several sizes.

For each size N the benchmark builds, in a temporary folder, a persistent Chroma with N
precedents over 100 namespaces and a few thousand keys, a third of them revoked, and measures
(p50 and p95 over at least ``calls`` calls, TEPA and its references interleaved call by call so
that machine load hits both alike):

* ``retrieve(query, k=5)`` in one namespace, against the **floor** (a raw Chroma query on a
  collection holding only that namespace's Active records) and the **naive** design (one
  collection of every record, queried with ``where={"$and": [{"namespace": ns},
  {"tepa_state": "active"}]}``). Both references return ids and distances only, the cheapest
  raw query; ``retrieve`` returns LangChain ``Document`` objects;
* ``observe`` one at a time (80% repeat an Active value, 20% a new value) against a raw single
  ``add`` to the naive collection;
* batched ingestion in records per second (batches of one namespace, the facts of a session)
  against raw batched ``add`` of the same records with the same batch size, and the same for
  batches that mix namespaces;
* ``reconcile()`` over all evidence, ``audit(key)``, opening the existing memory in a fresh
  process (index rebuild from Chroma), and the peak RSS of this process.

Embeddings are 384-dimension unit vectors precomputed in a table (:class:`TableEmbeddings`), so
the embedding model is not what is timed. The result is ``OUT/perf.json``::

    {"sizes": [...], "results": {"1000": {"ops": {"retrieve": {"p50_ms": ..., "p95_ms": ...},
     ...}, "ingest": {...}, "ratios": {"retrieve_vs_floor": ..., "retrieve_vs_naive": ...,
     "observe_vs_add": ..., "ingest_vs_add": ...}, "peak_rss_mib": ..., ...}}}

Example:
    >>> work = build_workload(300, calls=5)       # the data only; run_perf measures it
    >>> len(work.namespaces), work.revoked
    (100, 100)
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import math
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_tepa.bench.registry import CommandEntry, register_command
from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Fact

__all__ = [
    "DEFAULT_SIZES",
    "TARGETS",
    "PerfWorkload",
    "TableEmbeddings",
    "build_workload",
    "format_table",
    "main",
    "run_perf",
    "run_size",
]

DEFAULT_SIZES: tuple[int, ...] = (1000, 10000, 100000)
"""Sizes of ``tepa-bench perf`` without ``--sizes``."""

TARGETS: dict[str, float] = {
    "retrieve_vs_floor": 1.5,
    "observe_vs_add": 1.5,
    "ingest_vs_add_min": 0.7,
    "reconcile_s": 60.0,
    "open_s": 10.0,
    "peak_rss_mib": 1536.0,
}
"""Targets at N = 100,000 (issue 7)."""

DIM = 384
NAMESPACES = 100
PREFIX = "tepa"
MULTI = "list"
SINGLE = "pref"
QUERY_NAMESPACES = 10


def perf_policy() -> LifecyclePolicy:
    """TEPA-Rev with keys under ``list`` multi-valued (lists of facts) and ``pref`` single."""
    return LifecyclePolicy.preset("tepa-rev", multi_valued_prefixes=(MULTI,))


class TableEmbeddings(Embeddings):
    """Embeddings looked up from a precomputed table (text -> row of a float32 matrix).

    Unknown texts get a deterministic vector from a seeded generator (counted in ``misses``).

    Args:
        texts: The texts of the table, row by row.
        matrix: One unit vector per text.

    Example:
        >>> import numpy as np
        >>> emb = TableEmbeddings(["a"], np.ones((1, 2), dtype=np.float32))
        >>> emb.embed_query("a")
        [1.0, 1.0]
    """

    def __init__(self, texts: Sequence[str], matrix: np.ndarray) -> None:
        self.rows = {t: i for i, t in enumerate(texts)}
        self.matrix = matrix
        self.misses = 0

    def _one(self, text: str) -> list[float]:
        row = self.rows.get(text)
        if row is not None:
            return [float(x) for x in self.matrix[row].tolist()]
        self.misses += 1
        rng = np.random.default_rng(abs(hash(text)) % (2**32))
        vec = rng.standard_normal(self.matrix.shape[1])
        return [float(x) for x in (vec / np.linalg.norm(vec)).tolist()]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of ``texts`` from the table."""
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Vector of ``text`` from the table."""
        return self._one(text)


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
    from langchain_tepa.core.fold import fold
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
    gen = np.random.default_rng(seed)
    matrix = np.empty((len(texts), DIM), dtype=np.float32)
    for start in range(0, len(texts), 20000):
        block = gen.standard_normal((min(20000, len(texts) - start), DIM)).astype(np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        matrix[start : start + len(block)] = block
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


# ---------------------------------------------------------------------------------- timing
def _pct(samples: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(samples, dtype=np.float64) * 1000.0
    return {
        "p50_ms": round(float(np.percentile(arr, 50)), 3),
        "p95_ms": round(float(np.percentile(arr, 95)), 3),
        "mean_ms": round(float(arr.mean()), 3),
        "calls": len(samples),
    }


@contextmanager
def _timer(out: list[float]) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        out.append(time.perf_counter() - start)


def _peak_rss_mib() -> float:
    """Peak resident memory of this process (``VmHWM``; ``ru_maxrss`` survives exec)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024.0, 1)
    except OSError:
        pass
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(kb / 1024.0 if sys.platform != "darwin" else kb / 1024.0 / 1024.0, 1)


def _client(path: Path) -> Any:
    import chromadb
    from chromadb.config import Settings

    return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))


_OPEN_SCRIPT = """
import json, sys, time
import chromadb  # imported before the clock starts: opening is what is timed
from langchain_tepa import TEPAMemory, HashingEmbeddings
from langchain_tepa.bench.perf import perf_policy, _peak_rss_mib
start = time.perf_counter()
mem = TEPAMemory.from_path(sys.argv[1], prefix=sys.argv[2], policy=perf_policy(),
                           embeddings=HashingEmbeddings())
seconds = time.perf_counter() - start
# The steady state of a TEPA process: every namespace's retrievable set loaded once.
for ns in mem.namespaces():
    mem.retrieve("what is known here?", k=5, namespace=ns)
mem.close()
print(json.dumps({"seconds": seconds, "peak_rss_mib": _peak_rss_mib()}))
"""


def _open_in_subprocess(path: Path) -> dict[str, float]:
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    proc = subprocess.run(
        [sys.executable, "-c", _OPEN_SCRIPT, str(path), PREFIX],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=1800,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"opening the memory in a subprocess failed: {proc.stderr[-2000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


# ---------------------------------------------------------------------------------- one size
def _log(quiet: bool, text: str) -> None:
    if not quiet:
        print(f"  [perf] {text}", file=sys.stderr, flush=True)


def run_size(
    n: int,
    folder: Path,
    *,
    calls: int = 200,
    batch: int = 500,
    seed: int = 0,
    quiet: bool = False,
    open_subprocess: bool = True,
) -> dict[str, Any]:
    """Build and measure one size in ``folder`` (which should be empty and is left as is).

    Args:
        n: Number of precedents.
        folder: Where the persistent Chroma lives.
        calls: Calls per latency measurement (>= 200 for the report; fewer for smoke tests).
        batch: Largest ingestion batch.
        seed: Seed of the workload.
        quiet: Do not print progress.
        open_subprocess: Time opening in a fresh process (else in this one).

    Returns:
        The result of this size (see the module docstring).
    """
    from langchain_tepa.memory import TEPAMemory

    started = time.perf_counter()
    work = build_workload(n, calls=calls, seed=seed)
    emb = TableEmbeddings(work.texts, work.matrix)
    vec = work.matrix
    client = _client(folder)
    policy = perf_policy()
    mem = TEPAMemory.from_client(client, prefix=PREFIX, policy=policy, embeddings=emb)
    naive = client.get_or_create_collection(
        "raw_naive", embedding_function=None, metadata={"hnsw:space": "cosine"}
    )
    mixed_raw = client.get_or_create_collection(
        "raw_mixed", embedding_function=None, metadata={"hnsw:space": "cosine"}
    )

    def raw_records(items: Sequence[_Precedent], state: Callable[[_Precedent], str]) -> Any:
        return {
            "ids": [f"r{p.row}" for p in items],
            "embeddings": vec[[p.row for p in items]],
            "documents": [p.text for p in items],
            "metadatas": [{"namespace": p.namespace, "tepa_state": state(p)} for p in items],
        }

    # ---- batched ingestion: per namespace, TEPA and raw alternate batch by batch.
    _log(quiet, f"N={n}: ingesting {n} precedents ({work.keys} keys)")
    tepa_s: list[float] = []
    raw_s: list[float] = []
    per_ns = max(1, n // NAMESPACES)
    size = max(1, min(batch, per_ns))
    done = 0
    for ns in work.namespaces:
        stream = work.streams[ns]
        for start in range(0, len(stream), size):
            chunk = stream[start : start + size]
            facts = [Fact(p.key, p.value, namespace=p.namespace, text=p.text) for p in chunk]
            with _timer(tepa_s):
                mem.observe_many(facts)
            records = raw_records(chunk, lambda p: "revoked" if p.revoked else "active")
            with _timer(raw_s):
                naive.add(**records)
            done += len(chunk)
        if not quiet and done % max(1, n // 10) < per_ns:
            _log(quiet, f"  {done}/{n} ingested")
    mem.flush()
    ingest = {
        "batch": size,
        "tepa_rps": round(n / sum(tepa_s), 1),
        "raw_rps": round(n / sum(raw_s), 1),
        "tepa_seconds": round(sum(tepa_s), 2),
        "raw_seconds": round(sum(raw_s), 2),
    }

    # Check the workload came out as designed (a third revoked).
    states: dict[str, int] = {}
    for p in mem.iter_precedents():
        states[p.state.value] = states.get(p.state.value, 0) + 1

    # ---- mixed-namespace batches (new values on list keys across all namespaces).
    mix_t: list[float] = []
    mix_r: list[float] = []
    new_iter = iter(range(len(work.new_texts)))
    mixed_batches = 3
    for b in range(mixed_batches):
        facts = []
        idx = []
        for i in range(size):
            j = next(new_iter)
            ns = work.namespaces[(b * size + i) % NAMESPACES]
            key = next(k for (kns, k, single) in work.key_list if kns == ns and not single)
            facts.append(Fact(key, f"mixed {j}", namespace=ns, text=work.new_texts[j]))
            idx.append(j)
        with _timer(mix_t):
            mem.observe_many(facts)
        base = emb.rows[work.new_texts[0]]
        with _timer(mix_r):
            mixed_raw.add(
                ids=[f"m{j}" for j in idx],
                embeddings=vec[[base + j for j in idx]],
                documents=[work.new_texts[j] for j in idx],
                metadatas=[{"namespace": f.namespace or "", "tepa_state": "active"} for f in facts],
            )
    ingest["mixed_batch"] = size
    ingest["tepa_mixed_rps"] = round(mixed_batches * size / sum(mix_t), 1)
    ingest["raw_mixed_rps"] = round(mixed_batches * size / sum(mix_r), 1)
    new_base = emb.rows[work.new_texts[0]]

    # ---- floor collections: only the Active records of the query namespaces.
    qns = work.namespaces[:: NAMESPACES // QUERY_NAMESPACES][:QUERY_NAMESPACES]
    floors: dict[str, Any] = {}
    for i, ns in enumerate(qns):
        col = client.get_or_create_collection(
            f"raw_floor_{i}", embedding_function=None, metadata={"hnsw:space": "cosine"}
        )
        active = list(mem.active_documents(namespace=ns))
        rows = [emb.rows[d.page_content] for d in active]
        for s in range(0, len(rows), 1000):
            col.add(ids=[f"f{r}" for r in rows[s : s + 1000]], embeddings=vec[rows[s : s + 1000]])
        floors[ns] = col

    # ---- retrieve vs floor vs naive (interleaved, rotating who goes first).
    _log(quiet, f"N={n}: retrieval x{calls}")
    t_ret: list[float] = []
    t_floor: list[float] = []
    t_naive: list[float] = []
    q_base = emb.rows[work.queries[0]]
    for warm in range(3):  # warm caches of every path once
        ns = qns[warm % len(qns)]
        mem.retrieve(work.queries[0], k=5, namespace=ns)
        floors[ns].query(query_embeddings=vec[[q_base]], n_results=5, include=["distances"])
    for i in range(calls):
        ns = qns[i % len(qns)]
        q = work.queries[i % len(work.queries)]
        qv = vec[[q_base + (i % len(work.queries))]]
        where = {"$and": [{"namespace": ns}, {"tepa_state": "active"}]}
        jobs: list[tuple[list[float], Callable[[], Any]]] = [
            (t_ret, functools.partial(mem.retrieve, q, k=5, namespace=ns)),
            (
                t_floor,
                functools.partial(
                    floors[ns].query, query_embeddings=qv, n_results=5, include=["distances"]
                ),
            ),
            (
                t_naive,
                functools.partial(
                    naive.query,
                    query_embeddings=qv,
                    n_results=5,
                    where=where,
                    include=["distances"],
                ),
            ),
        ]
        for j in range(3):
            out, fn = jobs[(i + j) % 3]
            with _timer(out):
                fn()

    # ---- observe one at a time vs raw single add (interleaved).
    _log(quiet, f"N={n}: observe x{calls}")
    rng = random.Random(seed + 1)
    t_obs: list[float] = []
    t_rep: list[float] = []
    t_new: list[float] = []
    t_add: list[float] = []
    actives = [
        (d.metadata["namespace"], d.metadata["key"], d.metadata["value"])
        for ns in work.namespaces[:: max(1, NAMESPACES // 20)]
        for d in mem.active_documents(namespace=ns)
    ]
    multi_keys = [(ns, k) for ns, k, single in work.key_list if not single]
    new_j = mixed_batches * size
    for i in range(calls):
        if rng.random() < 0.2:
            ns, key = rng.choice(multi_keys)
            text = work.new_texts[new_j]
            new_j += 1
            with _timer(t_obs):
                mem.observe(key, f"observed {i}", namespace=ns, text=text)
            t_new.append(t_obs[-1])
        else:
            ns, key, value = rng.choice(actives)
            with _timer(t_obs):
                mem.observe(key, value, namespace=ns)
            t_rep.append(t_obs[-1])
        with _timer(t_add):
            naive.add(
                ids=[f"s{i}"],
                embeddings=vec[[new_base + new_j]],
                documents=[f"single add {i}"],
                metadatas=[{"namespace": ns, "tepa_state": "active"}],
            )
    mem.flush()

    # ---- audit(key).
    t_audit: list[float] = []
    for _ in range(calls):
        ns, key, _single = work.key_list[rng.randrange(len(work.key_list))]
        with _timer(t_audit):
            mem.audit(key, namespace=ns)

    # ---- reconcile over all evidence.
    _log(quiet, f"N={n}: reconcile")
    reps = 3 if n <= 10000 else 1
    t_rec: list[float] = []
    report = None
    for _ in range(reps):
        gc.collect()
        with _timer(t_rec):
            report = mem.reconcile()
    evidence = report.evidence if report is not None else 0
    repaired = (report.repaired_views, report.repaired_active) if report is not None else (0, 0)
    mem.close()
    peak_main = _peak_rss_mib()

    # ---- open the existing memory (index rebuild).
    _log(quiet, f"N={n}: open")
    t_open: list[float] = []
    open_rss = 0.0
    for _ in range(reps):
        if open_subprocess:
            got = _open_in_subprocess(folder)
            t_open.append(float(got["seconds"]))
            open_rss = max(open_rss, float(got["peak_rss_mib"]))
        else:
            with _timer(t_open):
                TEPAMemory.from_client(client, prefix=PREFIX, policy=policy, embeddings=emb)

    ops = {
        "retrieve": _pct(t_ret),
        "floor_query": _pct(t_floor),
        "naive_query": _pct(t_naive),
        "observe": _pct(t_obs),
        "observe_repeat": _pct(t_rep),
        "observe_new": _pct(t_new) if t_new else _pct([0.0]),
        "raw_add": _pct(t_add),
        "audit": _pct(t_audit),
        "reconcile": _pct(t_rec),
        "open": _pct(t_open),
    }
    ratios = {
        "retrieve_vs_floor": round(ops["retrieve"]["p50_ms"] / ops["floor_query"]["p50_ms"], 3),
        "retrieve_vs_naive": round(ops["retrieve"]["p50_ms"] / ops["naive_query"]["p50_ms"], 3),
        "observe_vs_add": round(ops["observe"]["p50_ms"] / ops["raw_add"]["p50_ms"], 3),
        "ingest_vs_add": round(ingest["tepa_rps"] / ingest["raw_rps"], 3),
    }
    result = {
        "n": n,
        "namespaces": NAMESPACES,
        "keys": work.keys,
        "precedents": states,
        "evidence": evidence,
        "reconcile_repaired": {"views": repaired[0], "active": repaired[1]},
        "ops": ops,
        "ingest": ingest,
        "ratios": ratios,
        "extra_ratios": {
            "observe_repeat_vs_add": round(
                ops["observe_repeat"]["p50_ms"] / ops["raw_add"]["p50_ms"], 3
            ),
            "observe_new_vs_add": round(ops["observe_new"]["p50_ms"] / ops["raw_add"]["p50_ms"], 3),
            "ingest_mixed_vs_add": round(ingest["tepa_mixed_rps"] / ingest["raw_mixed_rps"], 3),
        },
        # This process holds the raw references and the embedding table too; the TEPA process
        # alone is the fresh one that opened the memory and searched every namespace.
        "peak_rss_mib": peak_main,
        "open_peak_rss_mib": round(open_rss, 1),
        "tepa_process_peak_rss_mib": round(open_rss, 1) if open_subprocess else None,
        "embedding_misses": emb.misses,
        "seconds": round(time.perf_counter() - started, 1),
    }
    result["targets_met"] = _targets(result) if n >= 100000 else None
    return result


def _targets(r: dict[str, Any]) -> dict[str, bool]:
    return {
        "retrieve_vs_floor": r["ratios"]["retrieve_vs_floor"] <= TARGETS["retrieve_vs_floor"],
        "observe_vs_add": r["ratios"]["observe_vs_add"] <= TARGETS["observe_vs_add"],
        "ingest_vs_add": r["ratios"]["ingest_vs_add"] >= TARGETS["ingest_vs_add_min"],
        "reconcile": r["ops"]["reconcile"]["p50_ms"] / 1000.0 < TARGETS["reconcile_s"],
        "open": r["ops"]["open"]["p50_ms"] / 1000.0 < TARGETS["open_s"],
        "peak_rss_tepa_process": r["open_peak_rss_mib"] < TARGETS["peak_rss_mib"],
        "peak_rss_bench_process": r["peak_rss_mib"] < TARGETS["peak_rss_mib"],
    }


# ---------------------------------------------------------------------------------- report
_COLUMNS = (
    ("N", lambda r: f"{r['n']:,}"),
    ("retrieve p50/p95", lambda r: _pp(r["ops"]["retrieve"])),
    ("floor p50", lambda r: f"{r['ops']['floor_query']['p50_ms']:.2f}"),
    ("naive p50", lambda r: f"{r['ops']['naive_query']['p50_ms']:.2f}"),
    ("observe p50/p95", lambda r: _pp(r["ops"]["observe"])),
    ("raw add p50", lambda r: f"{r['ops']['raw_add']['p50_ms']:.1f}"),
    ("ingest rec/s", lambda r: f"{r['ingest']['tepa_rps']:,.0f}"),
    ("raw rec/s", lambda r: f"{r['ingest']['raw_rps']:,.0f}"),
    ("reconcile s", lambda r: f"{r['ops']['reconcile']['p50_ms'] / 1000:.1f}"),
    ("audit p50", lambda r: f"{r['ops']['audit']['p50_ms']:.3f}"),
    ("open s", lambda r: f"{r['ops']['open']['p50_ms'] / 1000:.1f}"),
    ("RSS MiB tepa/bench", lambda r: f"{r['open_peak_rss_mib']:,.0f}/{r['peak_rss_mib']:,.0f}"),
    ("ret/floor", lambda r: f"{r['ratios']['retrieve_vs_floor']:.2f}"),
    ("ret/naive", lambda r: f"{r['ratios']['retrieve_vs_naive']:.3f}"),
    ("obs/add", lambda r: f"{r['ratios']['observe_vs_add']:.2f}"),
    ("ingest/add", lambda r: f"{r['ratios']['ingest_vs_add']:.2f}"),
)


def _pp(op: dict[str, float]) -> str:
    return f"{op['p50_ms']:.2f}/{op['p95_ms']:.2f}"


def format_table(result: dict[str, Any], *, markdown: bool = False) -> str:
    """The results as a plain-text (or Markdown) table, one row per size; times in ms."""
    rows = [[name for name, _ in _COLUMNS]]
    for key in sorted(result["results"], key=int):
        r = result["results"][key]
        rows.append([fn(r) for _, fn in _COLUMNS])
    if markdown:
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def run_perf(
    sizes: Sequence[int],
    out_dir: str | os.PathLike[str],
    *,
    calls: int = 200,
    batch: int = 500,
    seed: int = 0,
    quiet: bool = False,
    work_dir: str | os.PathLike[str] | None = None,
    open_subprocess: bool = True,
) -> dict[str, Any]:
    """Run the benchmark at each size, write ``out_dir/perf.json`` and return it.

    Args:
        sizes: Numbers of precedents (each >= 300).
        out_dir: Output folder (created).
        calls: Calls per latency measurement.
        batch: Largest ingestion batch.
        seed: Workload seed.
        quiet: Print neither progress nor the table.
        work_dir: Parent of the temporary Chroma folders (default: the system temp dir).
        open_subprocess: Time opening in a fresh process.

    Raises:
        InvalidArgumentError: For bad sizes or calls.
    """
    sizes = [int(s) for s in sizes]
    if not sizes or any(s < 300 for s in sizes):
        raise InvalidArgumentError(f"sizes must be integers >= 300, got {sizes}")
    if calls < 1:
        raise InvalidArgumentError(f"calls must be >= 1, got {calls}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    import chromadb

    result: dict[str, Any] = {
        "sizes": sizes,
        "calls": calls,
        "results": {},
        "targets": TARGETS,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "chromadb": chromadb.__version__,
            "platform": platform.platform(),
        },
        "seconds": 0.0,
    }
    for n in sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"tepa-perf-{n}-", dir=work_dir))
        try:
            result["results"][str(n)] = run_size(
                n,
                folder,
                calls=calls,
                batch=batch,
                seed=seed,
                quiet=quiet,
                open_subprocess=open_subprocess,
            )
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        gc.collect()
        result["seconds"] = round(time.perf_counter() - started, 1)
        # Written after every size, so a long run keeps what it measured.
        (out / "perf.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if not quiet:
        print(format_table(result))
        print(f"wrote {out / 'perf.json'} ({result['seconds']:.0f} s)")
    return result


# ---------------------------------------------------------------------------------- CLI
def _parse_sizes(text: str) -> list[int]:
    try:
        return [int(x.replace("_", "")) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InvalidArgumentError(
            f"--sizes takes comma-separated integers (1000,10000), got {text!r}"
        ) from None


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``tepa-bench perf``."""
    parser.add_argument(
        "--sizes",
        default=",".join(str(s) for s in DEFAULT_SIZES),
        help="comma-separated numbers of precedents (default 1000,10000,100000)",
    )
    parser.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder")
    parser.add_argument("--calls", type=int, default=200, help="calls per latency (default 200)")
    parser.add_argument("--batch", type=int, default=500, help="ingestion batch (default 500)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no progress output")


def handle(args: argparse.Namespace) -> int:
    """Run ``tepa-bench perf`` from parsed arguments."""
    run_perf(
        _parse_sizes(args.sizes),
        args.out,
        calls=args.calls,
        batch=args.batch,
        seed=args.seed,
        quiet=args.quiet,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m langchain_tepa.bench.perf [--sizes ...] [--out DIR]``."""
    parser = argparse.ArgumentParser(prog="tepa-bench perf", description=__doc__.splitlines()[0])
    configure(parser)
    args = parser.parse_args(argv)
    try:
        return handle(args)
    except InvalidArgumentError as exc:
        print(f"tepa-bench perf: error: {exc}", file=sys.stderr)
        return 2


register_command(
    CommandEntry(
        "perf",
        "performance at scale against raw Chroma (writes OUT/perf.json)",
        configure,
        handle,
    )
)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
