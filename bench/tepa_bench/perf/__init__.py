"""``tepa-bench perf``: what TEPA costs against raw Chroma, and how it scales.

Two runs share this command:

* ``tepa-bench perf [--sizes 1000,10000,100000]``: the **embedded run**
  (:mod:`~tepa_bench.perf.embedded`): per size, a ``TEPAMemory`` on embedded
  persistent Chroma against raw Chroma on the same data (retrieve vs the floor and the naive
  filtered design, observe vs a raw single add, batched and mixed-namespace ingestion vs raw
  adds, audit, reconcile, opening in a fresh process, peak RSS). ``OUT/perf.json``, ``perf.md``.
* ``tepa-bench perf --scale``: issue 13's figures (:mod:`~tepa_bench.perf.scale`) on
  stores of 10k, 100k and 1M records (built once, cached), LangGraph's 60,000-operation batch,
  cross-process freshness through ``chroma run`` and TEPAStore beside LangGraph's
  ``SqliteStore`` and ``InMemoryStore``. ``OUT/perf-scale.json``, ``.md`` and ``.png``.

Embeddings are precomputed or derived from a hash of the text, so no embedding model is timed;
TEPA and its references are interleaved call by call, so machine load hits both alike.

Example:
    >>> work = build_workload(300, calls=5)       # the data only; run_perf measures it
    >>> len(work.namespaces), work.revoked
    (100, 100)
"""

from __future__ import annotations

from tepa_bench.perf.command import configure, handle, main
from tepa_bench.perf.common import DerivedEmbeddings, TableEmbeddings
from tepa_bench.perf.embedded import PREVIOUS_100K, TARGETS, run_size
from tepa_bench.perf.report import format_table
from tepa_bench.perf.run import DEFAULT_SIZES, run_perf
from tepa_bench.perf.scale import DEFAULT_SCALE_SIZES, run_scale
from tepa_bench.perf.scale_data import ScaleSpec
from tepa_bench.perf.scale_report import SCALE_TARGETS
from tepa_bench.perf.workload import PerfWorkload, build_workload, perf_policy

__all__ = [
    "DEFAULT_SCALE_SIZES",
    "DEFAULT_SIZES",
    "PREVIOUS_100K",
    "SCALE_TARGETS",
    "TARGETS",
    "DerivedEmbeddings",
    "PerfWorkload",
    "ScaleSpec",
    "TableEmbeddings",
    "build_workload",
    "configure",
    "format_table",
    "handle",
    "main",
    "perf_policy",
    "run_perf",
    "run_scale",
    "run_size",
]
