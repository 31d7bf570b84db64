"""Where a mixed batch's time goes in the embedded 100k store, by number of evidence shards.

Not part of the package: the script behind docs/performance.md, "The floors under the two
missed write targets". It builds the embedded run's 100k store (``tepa-bench perf --sizes
100000``: 100,000 precedents over 100 namespaces, batches of 500; the raw reference ingestion
is skipped, it is not measured here) with SHARDS evidence shards, then runs the embedded run's
mixed part (``_Run.mixed``: batches of 500 new values, 5 in each of the 100 namespaces, each
against a raw ``add`` of the same 500 records) with 4 batches, and prints TEPA's share of raw
and the time of each kind of Chroma call TEPA made (``ChromaStorage.call``), and the cyclic
garbage collector's passes during those batches (their number and time, per generation).
``GCMODE=off`` disables the collector after building, ``GCMODE=freeze`` moves every object built
so far out of its reach (``gc.freeze()``), as a worker could after warming up.

    [GCMODE=off|freeze] python docs/results/mixed_100k_breakdown.py SHARDS
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import langchain_tepa
import langchain_tepa.storage.chroma.backend as backend
from tepa_bench.perf import embedded
from tepa_bench.perf.common import load_average

SHARDS = int(sys.argv[1]) if len(sys.argv) > 1 else 16
BATCHES = 4


class _NoRaw:
    """Stands in for the raw ingestion's collection (not measured here)."""

    def add(self, **_: Any) -> None:
        return None


def main() -> None:
    """Build, then measure the mixed batches."""
    print(f"# mixed_100k_breakdown.py {SHARDS}, load before {load_average()}")
    from_path = langchain_tepa.TEPAMemory.from_path.__func__  # type: ignore[attr-defined]
    langchain_tepa.TEPAMemory.from_path = classmethod(  # type: ignore[method-assign,assignment]
        lambda cls, *a, **k: from_path(cls, *a, **{**k, "shards": SHARDS})
    )
    run = embedded._Run(100_000, Path(tempfile.mkdtemp()), 50, 500, 0, True)
    run.naive = _NoRaw()
    began = time.perf_counter()
    ingest = run.ingest()
    print(f"built in {time.perf_counter() - began:.0f} s ({run.mem.storage.layout.shards} shards)")
    if os.environ.get("GCMODE") == "off":
        gc.disable()
    if os.environ.get("GCMODE") == "freeze":
        gc.collect()
        gc.freeze()
    passes = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
    started = [0.0]

    def collector(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            passes[info["generation"]][0] += 1
            passes[info["generation"]][1] += time.perf_counter() - started[0]

    gc.callbacks.append(collector)
    print(
        f"tracked objects {len(gc.get_objects())}, counts {gc.get_count()},"
        f" thresholds {gc.get_threshold()}"
    )
    seconds: defaultdict[str, float] = defaultdict(float)
    calls: Counter[str] = Counter()
    records: Counter[str] = Counter()
    original = backend.ChromaStorage.call

    def spy(storage: Any, op: str, fn: Any, *a: Any, **k: Any) -> Any:
        began = time.perf_counter()
        try:
            return original(storage, op, fn, *a, **k)
        finally:
            seconds[op] += time.perf_counter() - began
            calls[op] += 1
            records[op] += len(k.get("ids") or [])

    backend.ChromaStorage.call = spy  # type: ignore[method-assign]
    run.mixed_batches = BATCHES
    run.mixed(ingest)
    tepa_s = BATCHES * run.size / ingest["tepa_mixed_rps"]
    raw_s = BATCHES * run.size / ingest["raw_mixed_rps"]
    print(
        f"mixed: TEPA {ingest['tepa_mixed_rps']} facts/s ({tepa_s / BATCHES * 1000:.0f} ms a batch),"
        f" raw {ingest['raw_mixed_rps']} ({raw_s / BATCHES * 1000:.0f} ms a batch):"
        f" {ingest['tepa_mixed_rps'] / ingest['raw_mixed_rps'] * 100:.1f}% of raw"
    )
    for op in seconds:
        print(
            f"  {op}: {seconds[op] / BATCHES * 1000:.0f} ms a batch, {calls[op] / BATCHES:.1f} calls,"
            f" {records[op] / BATCHES:.0f} records"
        )
    print(
        "collector passes during the batches (TEPA's and raw's): "
        + ", ".join(f"gen{g} {n} in {t * 1000:.0f} ms" for g, (n, t) in passes.items())
    )
    rest = tepa_s - sum(seconds.values())
    print(
        f"  the rest (Python: fold, encoding, embedding lookups): {rest / BATCHES * 1000:.0f} ms a batch"
    )
    print(f"load after {load_average()}")


if __name__ == "__main__":
    main()
