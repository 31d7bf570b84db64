"""The registry of ``tepa-bench`` scenarios and extra subcommands.

A scenario plugs into ``tepa-bench run NAME`` (and ``tepa-bench demo`` when ``demo=True``) by
registering a :class:`ScenarioEntry` when its module is imported. Its ``run(options)`` gets a
:class:`RunOptions` (the common options, plus ``options.args`` holding any arguments its
``configure`` added) and returns the result JSON; the CLI writes ``OUT/NAME.json``, prints
``entry.table(result)`` and calls ``entry.plot(result, OUT/NAME.png)``. The CLI imports the built-in
scenarios and every module of :data:`PLUGIN_MODULES` that is installed. A new scenario module
calls :func:`register_scenario` at import time and is added to :data:`PLUGIN_MODULES`; a new
subcommand (``tepa-bench perf``) calls :func:`register_command` the same way.

Example:
    >>> def run(options: RunOptions) -> dict:
    ...     return {"scenario": "toy", "seeds": 1, "config": {}, "methods": {},
    ...             "comparisons": []}
    >>> entry = register_scenario(ScenarioEntry("toy-doc", "a toy", run, demo=False))
    >>> get_scenario("toy-doc").description
    'a toy'
    >>> unregister_scenario("toy-doc")
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError

__all__ = [
    "PLUGIN_MODULES",
    "CommandEntry",
    "RunOptions",
    "ScenarioEntry",
    "command_names",
    "get_command",
    "get_scenario",
    "register_command",
    "register_scenario",
    "scenario_names",
    "unregister_scenario",
]

PLUGIN_MODULES: tuple[str, ...] = (
    "tepa_bench.scenarios",
    "tepa_bench.factcon",
    "tepa_bench.perf",
    "tepa_bench.preferences",
    "tepa_bench.grid",
    "tepa_bench.attack",
    "tepa_bench.contested",
    "tepa_bench.freetext",
)
"""Modules imported by the CLI (when installed) so that they register themselves."""


@dataclass(frozen=True)
class RunOptions:
    """What ``tepa-bench run`` passes to a scenario.

    Attributes:
        methods: Methods to run (``None``: every available method).
        seeds: Number of seeds (``None``: the scenario's default, fewer with ``quick``).
        quick: Small sizes (the demo).
        out: Output folder.
        agent: ``offline`` or ``openai``.
        storage: ``memory``, ``chroma`` or ``None`` (the scenario's default).
        workers: Worker processes.
        model: Chat model for ``--agent openai``.
        base_url: OpenAI-compatible endpoint for ``--agent openai``.
        progress: Show progress bars.
        overrides: Scenario config overrides from ``--set name=value``.
        args: The whole parsed command line (a scenario reads the arguments its
            ``configure`` added from here).

    Example:
        >>> RunOptions(quick=True).agent
        'offline'
    """

    methods: list[str] | None = None
    seeds: int | None = None
    quick: bool = False
    out: Path = Path("bench-results")
    agent: str = "offline"
    storage: str | None = None
    workers: int = 1
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    progress: bool = True
    overrides: dict[str, Any] = field(default_factory=dict)
    args: argparse.Namespace | None = None


def _default_table(result: dict[str, Any]) -> str:
    from tepa_bench.report import format_table

    return format_table(result)


def _default_plot(result: dict[str, Any], path: Path) -> Path | None:
    from tepa_bench.report import plot_result

    return plot_result(result, path)


@dataclass(frozen=True)
class ScenarioEntry:
    """A registered scenario.

    Attributes:
        name: ``tepa-bench run NAME``.
        description: One line for ``tepa-bench list``.
        run: Runs the scenario and returns its result JSON (the CLI writes
            ``OUT/NAME.json``).
        table: Formats the result for the console (default: the drift table).
        plot: Writes ``OUT/NAME.png`` and returns its path, or ``None`` when skipped (default:
            adaptation curves and per-phase bars).
        demo: Part of ``tepa-bench demo`` (``make demo``).
        configure: Adds the scenario's own arguments to its ``tepa-bench run NAME`` parser
            (after the common ones: ``--methods --seeds --quick --out --agent --storage
            --workers --model --base-url --set --no-progress``, which it must not redefine).
            ``tepa-bench demo`` runs the scenario with those arguments' defaults.

    Example:
        >>> ScenarioEntry("x", "y", lambda options: {}).demo
        True
    """

    name: str
    description: str
    run: Callable[[RunOptions], dict[str, Any]]
    table: Callable[[dict[str, Any]], str] = _default_table
    plot: Callable[[dict[str, Any], Path], Path | None] = _default_plot
    demo: bool = True
    configure: Callable[[argparse.ArgumentParser], None] | None = None


@dataclass(frozen=True)
class CommandEntry:
    """A registered subcommand (``tepa-bench perf``).

    Attributes:
        name: The subcommand.
        help: One line of help.
        configure: Adds the subcommand's arguments to its parser.
        handler: Runs it with the parsed arguments; returns the exit code.

    Example:
        >>> CommandEntry("noop", "do nothing", lambda p: None, lambda a: 0).name
        'noop'
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace], int]


_SCENARIOS: dict[str, ScenarioEntry] = {}


def _origin(fn: Callable[..., Any]) -> tuple[str, str]:
    return (getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)))


_COMMANDS: dict[str, CommandEntry] = {}
_RESERVED = {"run", "demo", "list"}


def register_scenario(entry: ScenarioEntry, *, replace: bool = False) -> ScenarioEntry:
    """Register a scenario (idempotent for the same entry).

    Raises:
        InvalidArgumentError: If another entry has the name and ``replace`` is False.
    """
    if not entry.name or not entry.name.replace("-", "").replace("_", "").isalnum():
        raise InvalidArgumentError(
            f"scenario names are letters, digits, '-' and '_', got {entry.name!r}"
        )
    old = _SCENARIOS.get(entry.name)
    if old is not None and not replace and _origin(old.run) != _origin(entry.run):
        raise InvalidArgumentError(
            f"scenario {entry.name!r} is already registered; pass replace=True to replace it"
        )
    _SCENARIOS[entry.name] = entry
    return entry


def unregister_scenario(name: str) -> None:
    """Remove a scenario (tests)."""
    _SCENARIOS.pop(name, None)


def get_scenario(name: str) -> ScenarioEntry:
    """The entry of a scenario.

    Raises:
        InvalidArgumentError: For an unknown name (the message lists the known ones).
    """
    try:
        return _SCENARIOS[name]
    except KeyError:
        known = ", ".join(sorted(_SCENARIOS)) or "none"
        raise InvalidArgumentError(f"unknown scenario {name!r}; known: {known}") from None


def scenario_names() -> list[str]:
    """Registered scenarios, in registration order."""
    return list(_SCENARIOS)


def register_command(entry: CommandEntry, *, replace: bool = False) -> CommandEntry:
    """Register an extra subcommand.

    Raises:
        InvalidArgumentError: For a reserved or taken name.
    """
    if entry.name in _RESERVED:
        raise InvalidArgumentError(f"{entry.name!r} is a built-in subcommand of tepa-bench")
    old = _COMMANDS.get(entry.name)
    if old is not None and not replace and _origin(old.handler) != _origin(entry.handler):
        raise InvalidArgumentError(f"command {entry.name!r} is already registered")
    _COMMANDS[entry.name] = entry
    return entry


def get_command(name: str) -> CommandEntry:
    """The entry of a registered subcommand."""
    try:
        return _COMMANDS[name]
    except KeyError:
        raise InvalidArgumentError(f"unknown command {name!r}") from None


def command_names() -> list[str]:
    """Registered extra subcommands."""
    return list(_COMMANDS)
