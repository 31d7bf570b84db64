"""Reads of the scale store, each run in a fresh process (``probes.py``): what a worker sees.

* :func:`measure_reads`: opening (embedded: ``TEPAMemory.from_path``, as a user opens a folder,
  so the memory knows it holds the folder: docs/consistency.md), the first ``get`` of 200
  namespaces, later ``get`` p50 (with
  the default freshness, interleaved with a memory that skips the head check), ``retrieve(k=5)``
  against the raw floor (small namespaces and the large one, interleaved call by call, with the
  top-5 agreement of the two and, in the large namespace, both recalls against the exact top 5),
  ``namespaces()`` and ``TEPAStore.list_namespaces()``;
* :func:`measure_open`: ``TEPAMemory.from_path`` timed alone, then the first ``get`` (cold);
* :func:`measure_rss`: peak RSS of a process that opened the store and touched 100 namespaces
  (``get`` and ``retrieve`` each).

Every ``get`` answer is checked against the workload (``wrong_answers`` must be 0).

Example:
    >>> sorted(query_embeddings(ScaleSpec(100), 2).rows)
    ['scale query 0', 'scale query 1']
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tepa_bench.perf.common import (
    TableEmbeddings,
    derived_vector,
    journal_mode,
    pct,
    peak_rss_mib,
    persistent_client,
    rss_mib,
    timer,
)
from tepa_bench.perf.scale_data import LARGE, PREFIX, ScaleSpec, floor_name
from tepa_bench.perf.workload import perf_policy

__all__ = ["measure_open", "measure_reads", "measure_rss", "query_embeddings"]

QUERIES = 64
_PAGE = 5000
STALE_S = 3600.0


def query_embeddings(spec: ScaleSpec | None = None, count: int = QUERIES) -> TableEmbeddings:
    """A table of the query texts ``scale query <i>``.

    With ``spec``, query ``i`` lies near one record of the large namespace (its vector plus half
    as much noise, cosine about 0.9), as a real query lies near what it is about, so that recall
    against the exact nearest neighbours means something; without, it is a random unit vector.
    """
    texts = [f"scale query {i}" for i in range(count)]
    rows = []
    for i, text in enumerate(texts):
        vec = derived_vector(text)
        if spec is not None:
            anchor = derived_vector(spec.large_text((i * 7919) % spec.large_records))
            vec = anchor + 0.5 * vec
            vec /= np.linalg.norm(vec)
        rows.append(vec)
    return TableEmbeddings(texts, np.stack(rows))


def _client(chroma: Path | None, host: str | None, port: int | None) -> Any:
    if host is None:
        assert chroma is not None
        return persistent_client(chroma)
    import chromadb
    from chromadb.config import Settings

    return chromadb.HttpClient(
        host=host, port=int(port or 8000), settings=Settings(anonymized_telemetry=False)
    )


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and sorted(got) == sorted(want)
    return bool(got == want)


def _interleave(
    calls: int, jobs: Callable[[int], list[tuple[str, Callable[[], Any]]]]
) -> tuple[dict[str, list[float]], list[dict[str, Any]]]:
    """Run ``jobs(i)`` for each call, rotating who goes first; times and answers by name."""
    times: dict[str, list[float]] = {}
    answers: list[dict[str, Any]] = []
    for i in range(calls):
        row = jobs(i)
        got: dict[str, Any] = {}
        for j in range(len(row)):
            name, fn = row[(i + j) % len(row)]
            with timer(times.setdefault(name, [])):
                got[name] = fn()
        answers.append(got)
    return times, answers


def _top_ids(got: Any) -> set[str]:
    if isinstance(got, dict):  # a raw Chroma query result
        return {str(x) for x in got["ids"][0]}
    return {str(d.id) for d in got}


def exact_top(col: Any, queries: Sequence[Sequence[float]], k: int) -> list[list[str]]:
    """The exact ``k`` nearest ids of each query among ``col``'s vectors, nearest first."""
    q = np.asarray(queries, dtype=np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    best_ids: list[list[str]] = [[] for _ in range(len(q))]
    best: np.ndarray = np.full((len(q), 0), -np.inf, dtype=np.float32)
    offset = 0
    while True:
        got = col.get(include=["embeddings"], limit=_PAGE, offset=offset)
        if not got["ids"]:
            break
        m = np.asarray(got["embeddings"], dtype=np.float32)
        m /= np.linalg.norm(m, axis=1, keepdims=True)
        sims = np.concatenate([best, q @ m.T], axis=1)
        ids = [row + list(got["ids"]) for row in best_ids]
        top = np.argsort(-sims, axis=1)[:, :k]
        best = np.take_along_axis(sims, top, axis=1)
        best_ids = [[ids[i][j] for j in top[i]] for i in range(len(q))]
        offset += len(got["ids"])
    return best_ids


def _recalls(answers: list[dict[str, Any]], exact: list[list[str]]) -> dict[str, Any]:
    """Recall@5 and the share of queries whose nearest neighbour is returned, per answerer."""
    out: dict[str, Any] = {}
    for name in ("retrieve_large", "floor_large"):
        got = [(_top_ids(a[name]), exact[c % len(exact)]) for c, a in enumerate(answers)]
        out[name] = round(float(np.mean([len(ids & set(e)) / 5.0 for ids, e in got])), 3)
        out[name + "_nearest"] = round(float(np.mean([e[0] in ids for ids, e in got])), 3)
    return out


def measure_reads(
    spec: ScaleSpec,
    *,
    chroma: Path | None = None,
    host: str | None = None,
    port: int | None = None,
    calls: int = 200,
    touch: int = 200,
) -> dict[str, Any]:
    """The read figures of one size, embedded (``chroma``) or through a server (``host``)."""
    from langchain_tepa import TEPAMemory, TEPAStore

    emb = query_embeddings(spec)
    rss_start = rss_mib()
    client = _client(chroma, host, port)  # the raw floors' client (embedded: the same folder)
    opened: list[float] = []
    common: dict[str, Any] = {"prefix": PREFIX, "policy": perf_policy(), "embeddings": emb}
    with timer(opened):
        # Embedded as a user opens it: through the folder lock (from_path), so the memory
        # knows every write goes through this process.
        mem = (
            TEPAMemory.from_client(client, **common)
            if chroma is None
            else TEPAMemory.from_path(chroma, journal_mode=journal_mode(), **common)
        )
    stale = (
        TEPAMemory.from_client(client, max_staleness_s=STALE_S, read_only=True, **common)
        if chroma is None
        else TEPAMemory.from_path(chroma, max_staleness_s=STALE_S, read_only=True, **common)
    )
    wrong = 0
    # ---- first touch, then later gets (default freshness vs no head check).
    touched = spec.sample(touch, salt=1)
    first: list[float] = []
    for i in touched:
        with timer(first):
            got = mem.get("pref.k0", namespace=spec.namespace(i))
        wrong += not _same(got, spec.expected(i, "pref.k0"))
    for i in touched:
        stale.get("pref.k0", namespace=spec.namespace(i))
    keys = ("pref.k1", "pref.k2", "list.k0", "pref.k0")

    def gets(c: int) -> list[tuple[str, Callable[[], Any]]]:
        ns = spec.namespace(touched[c % len(touched)])
        key = keys[c % len(keys)]
        return [
            ("get", functools.partial(mem.get, key, namespace=ns)),
            ("get_no_head_check", functools.partial(stale.get, key, namespace=ns)),
        ]

    get_times, get_answers = _interleave(calls, gets)
    for c, got in enumerate(get_answers):
        want = spec.expected(touched[c % len(touched)], keys[c % len(keys)])
        wrong += sum(not _same(v, want) for v in got.values())
    # ---- retrieve vs the raw floor.
    qidx = spec.query_namespaces()
    floors = [
        client.get_collection(floor_name(n), embedding_function=None) for n in range(len(qidx))
    ]
    big_floor = client.get_collection(floor_name(None), embedding_function=None)
    texts = list(emb.rows)
    vecs = [[emb.embed_query(t)] for t in texts]
    first_retrieve: list[float] = []
    for i in qidx:
        with timer(first_retrieve):
            mem.retrieve(texts[0], k=5, namespace=spec.namespace(i))
    first_large: list[float] = []
    with timer(first_large):
        mem.retrieve(texts[0], k=5, namespace=LARGE)
    for col in [*floors, big_floor]:
        col.query(query_embeddings=vecs[0], n_results=5, include=["distances"])

    def small(c: int) -> list[tuple[str, Callable[[], Any]]]:
        n = c % len(qidx)
        q = c % len(texts)
        return [
            (
                "retrieve",
                functools.partial(mem.retrieve, texts[q], k=5, namespace=spec.namespace(qidx[n])),
            ),
            (
                "floor",
                functools.partial(
                    floors[n].query, query_embeddings=vecs[q], n_results=5, include=["distances"]
                ),
            ),
        ]

    def large(c: int) -> list[tuple[str, Callable[[], Any]]]:
        q = c % len(texts)
        return [
            ("retrieve_large", functools.partial(mem.retrieve, texts[q], k=5, namespace=LARGE)),
            (
                "floor_large",
                functools.partial(
                    big_floor.query, query_embeddings=vecs[q], n_results=5, include=["distances"]
                ),
            ),
        ]

    ret_times, ret_answers = _interleave(calls, small)
    big_times, big_answers = _interleave(calls, large)
    agree = [len(_top_ids(a["retrieve"]) & _top_ids(a["floor"])) / 5.0 for a in ret_answers]
    agree_big = [
        len(_top_ids(a["retrieve_large"]) & _top_ids(a["floor_large"])) / 5.0 for a in big_answers
    ]
    # Recall against the exact top 5 (computed after the timing, from the floor's vectors).
    recall = _recalls(big_answers, exact_top(big_floor, [v[0] for v in vecs], 5)) if calls else {}
    # ---- listing.
    store = TEPAStore(mem)
    t_names: list[float] = []
    t_list: list[float] = []
    listed = names = 0
    for _ in range(3):
        with timer(t_names):
            names = len(mem.namespaces())
        with timer(t_list):
            listed = len(store.list_namespaces())
    stale.close()
    mem.close()
    ops = {name: pct(s) for name, s in {**get_times, **ret_times, **big_times}.items()}
    ops["first_get"] = pct(first)
    ops["first_retrieve"] = pct(first_retrieve)
    ops["first_retrieve_large"] = pct(first_large)
    ops["namespaces"] = pct(t_names)
    ops["list_namespaces"] = pct(t_list)
    # The first calls read the names directory; later ones find it cached (one count each).
    ops["namespaces_first"] = pct(t_names[:1])
    ops["list_namespaces_first"] = pct(t_list[:1])
    return {
        "mode": "embedded" if host is None else "server",
        "open_s": round(opened[0], 4),
        "ops": ops,
        "head_check_ms": round(ops["get"]["p50_ms"] - ops["get_no_head_check"]["p50_ms"], 3),
        "retrieve_vs_floor": round(ops["retrieve"]["p50_ms"] / ops["floor"]["p50_ms"], 3),
        "retrieve_large_vs_floor": round(
            ops["retrieve_large"]["p50_ms"] / ops["floor_large"]["p50_ms"], 3
        ),
        "top5_agreement": round(float(np.mean(agree)), 3) if agree else None,
        "top5_agreement_large": round(float(np.mean(agree_big)), 3) if agree_big else None,
        "recall5_large": recall,
        "namespaces_listed": names,
        "list_namespaces_returned": listed,
        "touched": len(touched),
        "wrong_answers": wrong,
        "rss_at_start_mib": rss_start,
        "peak_rss_mib": peak_rss_mib(),
    }


def measure_open(spec: ScaleSpec, chroma: Path) -> dict[str, Any]:
    """``TEPAMemory.from_path`` in this (fresh) process, then the first ``get`` (cold)."""
    from langchain_tepa import TEPAMemory
    from tepa_bench.perf.common import DerivedEmbeddings

    start = time.perf_counter()
    mem = TEPAMemory.from_path(
        chroma,
        prefix=PREFIX,
        policy=perf_policy(),
        embeddings=DerivedEmbeddings(),
        journal_mode=journal_mode(),
    )
    seconds = time.perf_counter() - start
    i = spec.sample(1, salt=3)[0]
    start = time.perf_counter()
    got = mem.get("pref.k0", namespace=spec.namespace(i))
    first = time.perf_counter() - start
    mem.close()
    return {
        "seconds": seconds,
        "first_get_s": first,
        "correct": _same(got, spec.expected(i, "pref.k0")),
        "peak_rss_mib": peak_rss_mib(),
    }


def measure_rss(
    spec: ScaleSpec,
    *,
    chroma: Path | None = None,
    host: str | None = None,
    port: int | None = None,
    count: int = 100,
) -> dict[str, Any]:
    """Peak RSS of this process after opening and touching ``count`` namespaces."""
    from langchain_tepa import TEPAMemory

    emb = query_embeddings(spec)
    before = rss_mib()
    if host is None:
        assert chroma is not None
        mem = TEPAMemory.from_path(
            chroma,
            prefix=PREFIX,
            policy=perf_policy(),
            embeddings=emb,
            journal_mode=journal_mode(),
        )
    else:
        mem = TEPAMemory.from_client(
            _client(None, host, port), prefix=PREFIX, policy=perf_policy(), embeddings=emb
        )
    wrong = 0
    for i in spec.sample(count, salt=2):
        ns = spec.namespace(i)
        wrong += not _same(mem.get("pref.k0", namespace=ns), spec.expected(i, "pref.k0"))
        mem.retrieve("scale query 0", k=5, namespace=ns)
    after = rss_mib()
    mem.close()
    return {
        "mode": "embedded" if host is None else "server",
        "namespaces": count,
        "rss_before_open_mib": before,
        "rss_after_mib": after,
        "peak_rss_mib": peak_rss_mib(),
        "wrong_answers": wrong,
    }
