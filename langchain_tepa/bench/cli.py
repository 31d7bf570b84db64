"""``tepa-bench``: run the paper's benchmarks, print the tables, write JSON and plots.

Subcommands:

- ``tepa-bench run SCENARIO [--methods a,b] [--seeds N] [--quick] [--out DIR]
  [--agent offline|openai] [--storage memory|chroma] [--workers N] [--set name=value]``
- ``tepa-bench demo [--out DIR] [--seeds N]``: one reversal step by step on embedded Chroma
  (:func:`langchain_tepa.demo.show_reversal`), then every demo scenario with full-length phases
  and fewer seeds (what ``make bench`` runs).
- ``tepa-bench list``: scenarios and methods.
- Subcommands registered by plugins (:data:`~langchain_tepa.bench.registry.PLUGIN_MODULES`),
  for example ``tepa-bench perf``.

Example:
    >>> main(["list"])  # doctest: +ELLIPSIS
    scenarios:
    ...
    0
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import os
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_tepa.bench.registry import (
    PLUGIN_MODULES,
    RunOptions,
    ScenarioEntry,
    command_names,
    get_command,
    get_scenario,
    scenario_names,
)
from langchain_tepa.core.errors import TEPAError

__all__ = ["build_parser", "load_plugins", "main", "run_scenario"]


def load_plugins() -> list[str]:
    """Import every installed plugin module so that it registers itself; return their names."""
    loaded = []
    for name in PLUGIN_MODULES:
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            continue
        try:
            importlib.import_module(name)
        except Exception as exc:  # a broken plugin must not take the other scenarios down
            print(f"tepa-bench: warning: plugin {name} failed to load: {exc!r}", file=sys.stderr)
            continue
        loaded.append(name)
    return loaded


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _overrides(items: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise TEPAError(
                f"--set takes name=value (for example --set reversal=100), got {item!r}"
            )
        out[name.strip()] = _parse_value(value.strip())
    return out


def _default_workers() -> int:
    from langchain_tepa.bench.runner import default_workers

    return default_workers()


def _add_run_options(p: argparse.ArgumentParser, *, demo: bool = False) -> None:
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder")
    p.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: CPUs, max 4)"
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    if demo:
        p.add_argument(
            "--storage",
            choices=("memory", "chroma"),
            default="memory",
            help="storage of the demo benchmarks (default: in-process; the step-by-step "
            "reversal always runs on embedded Chroma)",
        )
        p.add_argument("--seeds", type=int, default=None, help="seeds per method (default 6)")
        return
    p.add_argument("--methods", default=None, help="comma-separated methods (default: all)")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (default 20; quick 6)")
    p.add_argument(
        "--quick", action="store_true", help="fewer seeds (6), full-length phases (the demo)"
    )
    p.add_argument("--agent", choices=("offline", "openai"), default="offline")
    p.add_argument(
        "--storage",
        choices=("memory", "chroma"),
        default=None,
        help="memory storage (default: in-process memory; chroma: embedded persistent Chroma)",
    )
    p.add_argument(
        "--tuned",
        default=None,
        metavar="GRID_JSON",
        help="also run each tuned method with the setting tepa-bench grid chose (its grid.json)",
    )
    p.add_argument("--model", default=os.environ.get("TEPA_BENCH_MODEL", "gpt-4o-mini"))
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for --agent openai")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="scenario config override, e.g. --set reversal=100 --set p_right=0.95",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (plugins must be loaded first for their subcommands)."""
    parser = argparse.ArgumentParser(
        prog="tepa-bench",
        description="Benchmarks of revocable memory: drift reversal, baselines, statistics, plots.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one scenario")
    scenarios = run.add_subparsers(dest="scenario", required=True, metavar="SCENARIO")
    for name in scenario_names():
        entry = get_scenario(name)
        p = scenarios.add_parser(name, help=entry.description, description=entry.description)
        _add_run_options(p)
        if entry.configure is not None:
            entry.configure(p)
    demo = sub.add_parser("demo", help="one reversal step by step, then the demo scenarios")
    _add_run_options(demo, demo=True)
    sub.add_parser("list", help="list scenarios and methods")
    for name in command_names():
        command = get_command(name)
        command.configure(sub.add_parser(name, help=command.help))
    return parser


def run_scenario(entry: ScenarioEntry, options: RunOptions) -> dict[str, Any]:
    """Run a scenario, write ``OUT/NAME.json`` and ``OUT/NAME.png``, print the table."""
    from langchain_tepa.bench.report import write_result

    result = entry.run(options)
    path = write_result(result, options.out)
    print()
    print(entry.table(result))
    png = options.out / f"{entry.name}.png"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plotted = entry.plot(result, png)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    print(f"wrote {path}" + (f" and {plotted}" if plotted else " (no plot)"))
    return result


def _options(args: argparse.Namespace, *, quick: bool) -> RunOptions:
    workers = args.workers if args.workers is not None else _default_workers()
    if workers < 1:
        raise TEPAError(f"--workers must be >= 1, got {workers}")
    methods = None
    if getattr(args, "methods", None):
        methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    return RunOptions(
        methods=methods,
        seeds=getattr(args, "seeds", None),
        quick=quick,
        out=args.out,
        agent=getattr(args, "agent", "offline"),
        storage=args.storage,
        workers=workers,
        model=getattr(args, "model", "gpt-4o-mini"),
        base_url=getattr(args, "base_url", None),
        progress=not args.no_progress,
        overrides=_overrides(getattr(args, "overrides", [])),
        args=args,
    )


def _cmd_list() -> int:
    from langchain_tepa.bench.runner import available_methods

    print("scenarios:")
    for name in scenario_names():
        entry = get_scenario(name)
        flag = " (demo)" if entry.demo else ""
        print(f"  {name:<12} {entry.description}{flag}")
    print("methods:")
    print("  " + ", ".join(available_methods()))
    extra = command_names()
    if extra:
        print("commands:")
        print("  " + ", ".join(extra))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    options = _options(args, quick=True)
    names = [n for n in scenario_names() if get_scenario(n).demo]
    from langchain_tepa.bench.scenarios import QUICK_SEEDS
    from langchain_tepa.demo import show_reversal

    print("== one reversal, step by step (embedded Chroma) ==")
    print(show_reversal())
    print()
    for name in names:
        entry = get_scenario(name)
        scenario_args = argparse.Namespace(**vars(args))
        if entry.configure is not None:
            extra = argparse.ArgumentParser(add_help=False, exit_on_error=False)
            entry.configure(extra)
            try:
                defaults = extra.parse_args([])
            except (argparse.ArgumentError, SystemExit):
                print(f"skipping {name}: it needs arguments (tepa-bench run {name} --help)")
                continue
            for key, value in vars(defaults).items():
                setattr(scenario_args, key, value)
        print(
            f"== {name} (full-length phases, {options.seeds or QUICK_SEEDS} seeds, storage "
            f"{options.storage}) =="
        )
        run_scenario(entry, dataclasses.replace(options, args=scenario_args))
        print()
    print(f"demo finished in {time.perf_counter() - start:.0f} s; results in {options.out}/")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tepa-bench``; returns the exit code."""
    load_plugins()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            return _cmd_list()
        if args.command == "demo":
            return _cmd_demo(args)
        if args.command == "run":
            run_scenario(get_scenario(args.scenario), _options(args, quick=args.quick))
            return 0
        return get_command(args.command).handler(args)
    except TEPAError as exc:
        print(f"tepa-bench: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
