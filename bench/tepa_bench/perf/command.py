"""The ``tepa-bench perf`` command line (registered with the ``tepa-bench`` CLI).

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> configure(parser)
    >>> parser.parse_args(["--scale", "--scale-sizes", "1000"]).scale
    True
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from langchain_tepa.core.errors import InvalidArgumentError, StorageUnavailableError
from tepa_bench.perf.common import JOURNAL_ENV
from tepa_bench.perf.run import DEFAULT_SIZES, parse_sizes, run_perf
from tepa_bench.perf.scale import DEFAULT_SCALE_SIZES, PARTS, run_scale
from tepa_bench.perf.stores import DEFAULT_STORE_SIZES, run_stores
from tepa_bench.registry import CommandEntry, register_command

__all__ = ["configure", "handle", "main"]

DESCRIPTION = (
    "TEPAMemory on persistent Chroma against raw Chroma (and, with --scale, issue 13's figures)"
)


def _csv(values: tuple[int, ...]) -> str:
    return ",".join(str(v) for v in values)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``tepa-bench perf``."""
    parser.add_argument(
        "--sizes",
        default=_csv(DEFAULT_SIZES),
        help=f"embedded run: comma-separated numbers of precedents (default {_csv(DEFAULT_SIZES)})",
    )
    parser.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder")
    parser.add_argument("--calls", type=int, default=200, help="calls per latency (default 200)")
    parser.add_argument("--batch", type=int, default=500, help="ingestion batch (default 500)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    parser.add_argument(
        "--journal-mode",
        choices=["wal", "keep"],
        default="wal",
        help="SQLite journal mode of every embedded Chroma folder, TEPA's and the raw "
        "references' alike (default wal, as TEPAMemory.from_path; keep: Chroma's own)",
    )
    scale = parser.add_argument_group("scale run (--scale)")
    scale.add_argument(
        "--scale",
        action="store_true",
        help="run issue 13's scale benchmark instead (OUT/perf-scale.json, .md, .png)",
    )
    scale.add_argument(
        "--scale-sizes",
        default=_csv(DEFAULT_SCALE_SIZES),
        help="records in small namespaces per store, plus a tenth in one large namespace "
        f"(default {_csv(DEFAULT_SCALE_SIZES)})",
    )
    scale.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="where built stores are kept (default OUT/scale-cache)",
    )
    scale.add_argument(
        "--parts",
        default=",".join(sorted(PARTS)),
        help=f"which parts to run (default all: {','.join(sorted(PARTS))})",
    )
    scale.add_argument("--touch", type=int, default=200, help="namespaces first-touched (200)")
    scale.add_argument("--opens", type=int, default=5, help="fresh processes per opening (5)")
    scale.add_argument("--lg-n", type=int, default=1000, help="LangGraph batch: keys (1000)")
    scale.add_argument("--lg-m", type=int, default=10, help="LangGraph batch: rounds (10)")
    scale.add_argument("--trials", type=int, default=1000, help="freshness trials (1000)")
    stores = parser.add_argument_group("TEPAStore beside SqliteStore (--stores)")
    stores.add_argument(
        "--stores",
        action="store_true",
        help="issue 40's run: TEPAStore beside LangGraph's SqliteStore at --store-sizes "
        "(OUT/perf-stores.json, .md, .png)",
    )
    stores.add_argument(
        "--store-sizes",
        default=_csv(DEFAULT_STORE_SIZES),
        help="records per store: 100 users x 100 items for 10k, 1,000 items a user from 100k "
        f"on (default {_csv(DEFAULT_STORE_SIZES)})",
    )
    stores.add_argument(
        "--wide-calls",
        type=int,
        default=20,
        help="searches across all users at 100k and less (fewer beyond, at least 3) (20)",
    )
    stores.add_argument(
        "--store-opens", type=int, default=3, help="fresh processes per store and size (3)"
    )


def handle(args: argparse.Namespace) -> int:
    """Run ``tepa-bench perf`` from parsed arguments."""
    os.environ[JOURNAL_ENV] = args.journal_mode  # fresh probe processes inherit it
    if args.stores:
        run_stores(
            args.out,
            sizes=parse_sizes(args.store_sizes, option="--store-sizes"),
            calls=args.calls,
            wide_calls=args.wide_calls,
            opens=args.store_opens,
            seed=args.seed,
            quiet=args.quiet,
        )
        return 0
    if args.scale:
        run_scale(
            args.out,
            sizes=parse_sizes(args.scale_sizes, option="--scale-sizes"),
            cache=args.cache,
            parts=[p.strip() for p in args.parts.split(",") if p.strip()],
            calls=args.calls,
            touch=args.touch,
            opens=args.opens,
            lg_n=args.lg_n,
            lg_m=args.lg_m,
            trials=args.trials,
            seed=args.seed,
            quiet=args.quiet,
        )
        return 0
    run_perf(
        parse_sizes(args.sizes),
        args.out,
        calls=args.calls,
        batch=args.batch,
        seed=args.seed,
        quiet=args.quiet,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m tepa_bench.perf [--sizes ...] [--scale] [--out DIR]``."""
    parser = argparse.ArgumentParser(prog="tepa-bench perf", description=DESCRIPTION)
    configure(parser)
    args = parser.parse_args(argv)
    try:
        return handle(args)
    except (InvalidArgumentError, StorageUnavailableError) as exc:
        print(f"tepa-bench perf: error: {exc}", file=sys.stderr)
        return 2


register_command(
    CommandEntry(
        "perf",
        "performance against raw Chroma (OUT/perf.json); --scale: issue 13's figures",
        configure,
        handle,
    )
)
