"""Command line of the ``factcon`` scenario (wired into ``tepa-bench`` as ``run factcon``).

Example:
    >>> main(["--help"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from langchain_tepa.core.errors import TEPAError
from tepa_bench.factcon import FACTCON_METHODS, FactconConfig, run_factcon

__all__ = ["build_parser", "main"]


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The argument parser (or add the factcon arguments to ``parser``)."""
    parser = parser or argparse.ArgumentParser(
        prog="tepa-bench run factcon",
        description="MemoryAgentBench fact consolidation through TEPAMemory.",
    )
    parser.add_argument(
        "--data",
        default="",
        help="official MemoryAgentBench JSON (Conflict_Resolution) or a pool JSONL file "
        "(default: the official 6k records bundled with the package)",
    )
    parser.add_argument(
        "--methods",
        default=",".join(FACTCON_METHODS),
        help=f"comma-separated policy presets (default: {','.join(FACTCON_METHODS)})",
    )
    parser.add_argument(
        "--oracle-keys",
        action="store_true",
        help="observe the pools' ground-truth parses instead of extracting keys",
    )
    parser.add_argument("--reader", choices=("offline", "openai"), default="offline")
    parser.add_argument("--model", default="gpt-4o-mini", help="chat model of --reader openai")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible base URL")
    parser.add_argument("--storage", choices=("memory", "chroma"), default="memory")
    parser.add_argument("--max-hops", type=int, default=4)
    parser.add_argument("--limit-questions", type=int, default=None)
    parser.add_argument("--examples", type=int, default=20, help="questions kept per subset")
    parser.add_argument("--batch", type=int, default=1, help="facts per add_texts call")
    parser.add_argument("--out", default=None, help="write the JSON here (default: stdout)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run factcon and print or write its JSON; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        config = FactconConfig(
            data=args.data,
            methods=tuple(m.strip() for m in args.methods.split(",") if m.strip()),
            oracle_keys=args.oracle_keys,
            reader=args.reader,
            model=args.model,
            base_url=args.base_url,
            storage=args.storage,
            max_hops=args.max_hops,
            limit_questions=args.limit_questions,
            examples=args.examples,
            batch=args.batch,
        )
        result = run_factcon(
            config, progress=None if args.quiet else lambda m: print(m, file=sys.stderr)
        )
    except TEPAError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=1, ensure_ascii=False)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
