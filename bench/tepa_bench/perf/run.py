"""``tepa-bench perf`` without ``--scale``: the embedded run at each size, JSON and Markdown.

The result is ``OUT/perf.json``::

    {"sizes": [...], "machine": {...}, "load_average": {"before": [...], "after": [...]},
     "results": {"1000": {"ops": {"retrieve": {"p50_ms": ..., "p95_ms": ...}, ...},
     "ingest": {...}, "ratios": {"retrieve_vs_floor": ..., "retrieve_vs_naive": ...,
     "observe_vs_add": ..., "ingest_vs_add": ...}, "peak_rss_mib": ..., ...}}}

and the same as a table in ``OUT/perf.md``.

Example:
    >>> parse_sizes("1000,10_000")
    [1000, 10000]
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.perf.common import load_average, machine
from tepa_bench.perf.embedded import PREVIOUS_100K, TARGETS, run_size
from tepa_bench.perf.report import format_table

__all__ = ["DEFAULT_SIZES", "markdown_report", "parse_sizes", "run_perf"]

DEFAULT_SIZES: tuple[int, ...] = (1000, 10000, 100000)
"""Sizes of ``tepa-bench perf`` without ``--sizes``."""


def parse_sizes(text: str, *, option: str = "--sizes") -> list[int]:
    """Comma-separated integers (``_`` allowed as a digit separator).

    Raises:
        InvalidArgumentError: If a part is not an integer.
    """
    try:
        return [int(x.replace("_", "")) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InvalidArgumentError(
            f"{option} takes comma-separated integers (1000,10000), got {text!r}"
        ) from None


def markdown_report(result: dict[str, Any]) -> str:
    """``perf.md``: the table, the machine, the load and the targets at 100k."""
    lines = [
        "# tepa-bench perf (embedded)",
        "",
        f"Sizes {', '.join(f'{s:,}' for s in result['sizes'])}; {result['calls']} calls per "
        f"latency; run took {result['seconds']:.0f} s. Times in ms unless the column says s.",
        "",
        format_table(result, markdown=True),
        "",
        f"Machine: {json.dumps(result['machine'])}",
        "",
        f"Load average (1, 5, 15 min) before {result['load_average']['before']}, after "
        f"{result['load_average']['after']}.",
    ]
    for key, r in sorted(result["results"].items(), key=lambda kv: int(kv[0])):
        if r.get("targets_met"):
            lines += [
                "",
                f"Targets at N = {int(key):,} (issue 7; issue 13's mixed batches and "
                f"the layout-2 ratios {PREVIOUS_100K} within 10%):",
                "",
            ]
            lines += [
                f"- {name}: {'met' if ok else 'MISSED'}" for name, ok in r["targets_met"].items()
            ]
    return "\n".join(lines) + "\n"


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
    """Run the embedded benchmark at each size, write ``out_dir/perf.json`` and ``perf.md``.

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
    result: dict[str, Any] = {
        "sizes": sizes,
        "calls": calls,
        "batch": batch,
        "seed": seed,
        "results": {},
        "targets": TARGETS,
        "previous_100k": PREVIOUS_100K,
        "machine": machine(),
        "load_average": {"before": load_average(), "after": []},
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
        result["load_average"]["after"] = load_average()
        # Written after every size, so a long run keeps what it measured.
        (out / "perf.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out / "perf.md").write_text(markdown_report(result), encoding="utf-8")
    if not quiet:
        print(format_table(result))
        print(f"wrote {out / 'perf.json'} and perf.md ({result['seconds']:.0f} s)")
    return result
