"""Fresh processes of ``tepa-bench perf``: ``python -m tepa_bench.perf.probes CMD ARGS``.

Opening, first touches and RSS are only meaningful in a process that has done nothing else, so
the benchmark runs them here. ``ARGS`` is one JSON object (a folder for ``open-embedded``); the
result is one JSON line on stdout (progress bars go to stderr).

Commands: ``open-embedded FOLDER`` (the embedded run), ``build``, ``open-scale``, ``reads``,
``rss`` (the scale store), ``fresh-reader`` (the freshness trials, a line protocol) and
``store-open`` (the side-by-side stores).

Example:
    >>> sorted(COMMANDS)[:3]
    ['build', 'fresh-reader', 'open-embedded']
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["COMMANDS", "main"]


def _open_embedded(arg: str) -> dict[str, Any]:
    import chromadb  # noqa: F401  (imported before the clock starts: opening is what is timed)

    from langchain_tepa import TEPAMemory
    from tepa_bench.perf.common import DerivedEmbeddings, journal_mode, peak_rss_mib
    from tepa_bench.perf.embedded import PREFIX
    from tepa_bench.perf.workload import perf_policy

    start = time.perf_counter()
    mem = TEPAMemory.from_path(
        arg,
        prefix=PREFIX,
        policy=perf_policy(),
        embeddings=DerivedEmbeddings(),
        journal_mode=journal_mode(),
    )
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    for ns in mem.namespaces():  # the steady state: every namespace loaded once
        mem.retrieve("what is known here?", k=5, namespace=ns)
    touched = time.perf_counter() - start
    mem.close()
    return {"seconds": seconds, "first_retrieve_all_s": touched, "peak_rss_mib": peak_rss_mib()}


def _spec(args: dict[str, Any]) -> Any:
    from tepa_bench.perf.scale_data import ScaleSpec

    return ScaleSpec(int(args["records"]), seed=int(args.get("seed", 0)))


def _build(arg: str) -> dict[str, Any]:
    from tqdm import tqdm

    from tepa_bench.perf.scale_data import build_store

    args = json.loads(arg)
    spec = _spec(args)
    with tqdm(
        total=spec.total_records,
        unit="rec",
        desc=f"building the {spec.records:,}-record store",
        disable=bool(args.get("quiet")),
        file=sys.stderr,
    ) as bar:

        def advance(records: int) -> None:
            bar.update(records)

        return build_store(spec, Path(args["folder"]), progress=advance)


def _open_scale(arg: str) -> dict[str, Any]:
    import chromadb  # noqa: F401  (imported before the clock starts)

    import langchain_tepa  # noqa: F401
    from tepa_bench.perf.scale_reads import measure_open

    args = json.loads(arg)
    return measure_open(_spec(args), Path(args["chroma"]))


def _where(args: dict[str, Any]) -> dict[str, Any]:
    if args.get("host"):
        return {"host": str(args["host"]), "port": int(args["port"])}
    return {"chroma": Path(args["chroma"])}


def _reads(arg: str) -> dict[str, Any]:
    from tepa_bench.perf.scale_reads import measure_reads

    args = json.loads(arg)
    return measure_reads(
        _spec(args), calls=int(args["calls"]), touch=int(args["touch"]), **_where(args)
    )


def _rss(arg: str) -> dict[str, Any]:
    from tepa_bench.perf.scale_reads import measure_rss

    args = json.loads(arg)
    return measure_rss(_spec(args), count=int(args["count"]), **_where(args))


def _fresh_reader(arg: str) -> None:
    from tepa_bench.perf.freshness import reader_loop

    args = json.loads(arg)
    reader_loop(str(args["host"]), int(args["port"]))


def _store_open(arg: str) -> dict[str, Any]:
    from tepa_bench.perf.stores import fresh_probe

    args = json.loads(arg)
    return fresh_probe(
        str(args["kind"]), Path(args["folder"]), int(args["users"]), int(args["items"])
    )


COMMANDS: dict[str, Callable[[str], Any]] = {
    "open-embedded": _open_embedded,
    "build": _build,
    "open-scale": _open_scale,
    "reads": _reads,
    "rss": _rss,
    "fresh-reader": _fresh_reader,
    "store-open": _store_open,
}


def main(argv: list[str] | None = None) -> int:
    """Run one probe and print its JSON result."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in COMMANDS:
        print(f"usage: probes {{{','.join(COMMANDS)}}} ARGS", file=sys.stderr)
        return 2
    out = COMMANDS[argv[0]](argv[1])
    if out is not None:
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
