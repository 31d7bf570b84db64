"""``tepa-bench perf --scale``: the figures of issue 13, at 10k, 100k and 1M records.

Per size (:class:`~tepa_bench.perf.scale_data.ScaleSpec`; built once into the cache
folder and reused), each in fresh processes (``probes.py``):

* opening (``TEPAMemory.from_path``) against opening the 1,000-record store of the same shape,
  the two interleaved process by process;
* the reads of :func:`~tepa_bench.perf.scale_reads.measure_reads`, embedded and
  through a ``chroma run`` server on the same folder (default freshness);
* peak RSS of a process that touched 100 namespaces (embedded, and a client of the server).

Once per run: LangGraph's 60,000-operation batch (:mod:`.lg_batch`) and cross-process freshness
(:mod:`.freshness`); TEPAStore beside SqliteStore is ``tepa-bench perf --stores``
(:mod:`.stores`). Everything goes to
``OUT/perf-scale.json``, ``OUT/perf-scale.md`` (printed at the end) and the growth plot
``OUT/perf-scale.png``.

Example:
    >>> sorted(PARTS)
    ['batch', 'fresh', 'reads']
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.perf.common import load_average, log, machine, probe
from tepa_bench.perf.freshness import run_freshness
from tepa_bench.perf.lg_batch import run_lg_batch
from tepa_bench.perf.scale_data import ScaleSpec, clear_partial, open_manifest
from tepa_bench.perf.scale_report import scale_markdown, targets
from tepa_bench.perf.server import chroma_run

__all__ = ["DEFAULT_SCALE_SIZES", "PARTS", "REFERENCE_RECORDS", "ensure_store", "run_scale"]

DEFAULT_SCALE_SIZES: tuple[int, ...] = (10_000, 100_000, 1_000_000)
REFERENCE_RECORDS = 1000
PARTS = frozenset({"reads", "batch", "fresh"})


def ensure_store(
    spec: ScaleSpec, cache: Path, *, quiet: bool = False
) -> tuple[Path, dict[str, Any]]:
    """The cached store of ``spec`` (built in a fresh process when missing or outdated)."""
    folder = cache / f"scale-{spec.records}"
    manifest = open_manifest(folder, spec)
    if manifest is not None:
        log(quiet, f"scale: reusing the {spec.records:,}-record store in {folder}")
        return folder, {**manifest, "reused": True}
    if folder.exists():
        shutil.rmtree(folder)
    partial = clear_partial(folder)
    cache.mkdir(parents=True, exist_ok=True)
    log(quiet, f"scale: building the {spec.records:,}-record store in {partial}")
    args = {"records": spec.records, "seed": spec.seed, "folder": str(partial), "quiet": quiet}
    manifest = probe("build", json.dumps(args), timeout=6 * 3600, show_progress=not quiet)
    partial.rename(folder)
    return folder, {**manifest, "reused": False}


def _opens(
    spec: ScaleSpec, chroma: Path, ref: ScaleSpec, ref_chroma: Path, reps: int
) -> dict[str, Any]:
    """Open each store ``reps`` times, alternating, each in a fresh process."""
    big: list[dict[str, Any]] = []
    small: list[dict[str, Any]] = []
    for r in range(reps):
        order = [(big, spec, chroma), (small, ref, ref_chroma)]
        for out, s, c in order if r % 2 == 0 else order[::-1]:
            out.append(
                probe(
                    "open-scale",
                    json.dumps({"records": s.records, "seed": s.seed, "chroma": str(c)}),
                )
            )

    def med(rows: list[dict[str, Any]], key: str) -> float:
        return round(float(np.median([row[key] for row in rows])), 4)

    return {
        "open_s": med(big, "seconds"),
        "open_all_s": [round(row["seconds"], 4) for row in big],
        "reference_open_s": med(small, "seconds"),
        "open_vs_reference": round(med(big, "seconds") / med(small, "seconds"), 3),
        "first_get_cold_s": med(big, "first_get_s"),
        "reference_first_get_cold_s": med(small, "first_get_s"),
        "correct": all(row["correct"] for row in big + small),
        "peak_rss_mib": max(row["peak_rss_mib"] for row in big),
        "reps": reps,
    }


def measure_size(
    spec: ScaleSpec,
    folder: Path,
    ref: tuple[ScaleSpec, Path],
    work: Path,
    *,
    calls: int,
    touch: int,
    opens: int,
    quiet: bool,
) -> dict[str, Any]:
    """Every per-size figure of one store (see the module docstring)."""
    chroma = folder / "chroma"
    base = {"records": spec.records, "seed": spec.seed}
    log(
        quiet, f"scale {spec.records:,}: opening x{opens} (and the {ref[0].records:,}-record store)"
    )
    out: dict[str, Any] = {"open": _opens(spec, chroma, ref[0], ref[1] / "chroma", opens)}
    log(quiet, f"scale {spec.records:,}: reads (embedded)")
    out["embedded"] = probe(
        "reads", json.dumps({**base, "chroma": str(chroma), "calls": calls, "touch": touch})
    )
    out["rss_embedded"] = probe("rss", json.dumps({**base, "chroma": str(chroma), "count": 100}))
    log(quiet, f"scale {spec.records:,}: reads through chroma run")
    with chroma_run(chroma, work / f"chroma-{spec.records}.log") as server:
        where = {"host": server.host, "port": server.port}
        out["server"] = probe(
            "reads", json.dumps({**base, **where, "calls": calls, "touch": touch})
        )
        out["rss_server_client"] = probe("rss", json.dumps({**base, **where, "count": 100}))
        out["server_peak_rss_mib"] = server.peak_rss_mib()
    return out


def run_scale(
    out_dir: str | Path,
    *,
    sizes: Sequence[int] = DEFAULT_SCALE_SIZES,
    cache: str | Path | None = None,
    parts: Sequence[str] = tuple(sorted(PARTS)),
    calls: int = 200,
    touch: int = 200,
    opens: int = 5,
    lg_n: int = 1000,
    lg_m: int = 10,
    trials: int = 1000,
    seed: int = 0,
    quiet: bool = False,
    work_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Run ``tepa-bench perf --scale`` and write ``perf-scale.json``, ``.md`` and ``.png``.

    Args:
        out_dir: Output folder.
        sizes: Records in small namespaces per store (each a multiple of 10, >= 100).
        cache: Where built stores are kept (default ``OUT/scale-cache``).
        parts: Which of ``reads`` (per-size figures), ``batch`` (LangGraph's 60k batch),
            ``fresh`` (cross-process freshness) to run.
        calls: Calls per latency.
        touch: Namespaces whose first ``get`` is timed.
        opens: Fresh processes per opening figure.
        lg_n: LangGraph batch keys per round (1,000).
        lg_m: LangGraph batch rounds (10).
        trials: Freshness trials.
        seed: Seed of the sampled namespaces.
        quiet: No progress output and no table printed.
        work_dir: Parent of the temporary folders (default: the system temp dir).

    Raises:
        InvalidArgumentError: For unknown parts or bad sizes.
    """
    unknown = set(parts) - PARTS
    if unknown or not parts:
        raise InvalidArgumentError(f"--parts takes some of {sorted(PARTS)}, got {sorted(parts)}")
    specs = [ScaleSpec(int(s), seed=seed) for s in sizes]
    for name, value in {"calls": calls, "touch": touch, "opens": opens, "trials": trials}.items():
        if value < 1:
            raise InvalidArgumentError(f"{name} must be >= 1, got {value}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cache_dir = Path(cache) if cache is not None else out / "scale-cache"
    started = time.perf_counter()
    result: dict[str, Any] = {
        "sizes": [s.records for s in specs],
        "parts": sorted(parts),
        "settings": {"calls": calls, "touch": touch, "opens": opens, "seed": seed},
        "cache": str(cache_dir),
        "machine": machine(),
        "load_average": {"before": load_average(), "after": []},
        "stores": {},
        "scale": {},
    }

    def save() -> None:
        result["seconds"] = round(time.perf_counter() - started, 1)
        result["load_average"]["after"] = load_average()
        result["targets"] = targets(result)
        (out / "perf-scale.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")

    work = Path(tempfile.mkdtemp(prefix="tepa-perf-scale-", dir=work_dir))
    try:
        if "reads" in parts:
            ref = ScaleSpec(REFERENCE_RECORDS, seed=seed)
            ref_folder, ref_manifest = ensure_store(ref, cache_dir, quiet=quiet)
            result["reference_store"] = ref_manifest
            for spec in specs:
                folder, manifest = ensure_store(spec, cache_dir, quiet=quiet)
                result["stores"][str(spec.records)] = manifest
                result["scale"][str(spec.records)] = measure_size(
                    spec,
                    folder,
                    (ref, ref_folder),
                    work,
                    calls=calls,
                    touch=touch,
                    opens=opens,
                    quiet=quiet,
                )
                save()
        if "batch" in parts:
            result["lg_batch"] = run_lg_batch(work / "lg", n=lg_n, m=lg_m, quiet=quiet)
            save()
        if "fresh" in parts:
            result["freshness"] = run_freshness(
                work / "fresh", trials=trials, calls=calls, quiet=quiet
            )
            save()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    save()
    if len(result["scale"]) >= 2:
        from tepa_bench.perf.plot import plot_growth

        if plot_growth(result, out / "perf-scale.png"):
            result["plot"] = str(out / "perf-scale.png")
            save()
    text = scale_markdown(result)
    (out / "perf-scale.md").write_text(text, encoding="utf-8")
    if not quiet:
        print(text)
        print(f"wrote {out / 'perf-scale.json'}, perf-scale.md ({result['seconds']:.0f} s)")
    return result
