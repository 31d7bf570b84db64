"""Benchmarks of revocable memory: drift scenarios, the agent, the runner, statistics, reports.

Worlds hide their schedule (which action works when) from every method, agent and trial
executor; the scorer (:mod:`tepa_bench.scoring`) rebuilds it from the config and the
seed. The ``tepa-bench`` console script (:mod:`tepa_bench.cli`) runs them. Scenarios
register in :mod:`tepa_bench.registry`.

Example:
    >>> from tepa_bench import RunSpec, run_one
    >>> outcome = run_one(RunSpec("drift", {"tasks": 2, "acquisition": 4, "reversal": 6},
    ...                           "tepa-rev", seed=0))
    >>> outcome.successes.shape
    (2, 10)
"""

from __future__ import annotations

from tepa_bench.agent import (
    ChatModelAgent,
    OfflineAgent,
    openai_agent,
    parse_prompt,
    parse_reply,
    render_prompt,
)
from tepa_bench.drift import DriftConfig, DriftWorld, drift_schedule
from tepa_bench.filedrift import (
    FileDriftConfig,
    FileDriftWorld,
    check_export,
    filedrift_schedule,
    write_export,
)
from tepa_bench.registry import (
    RunOptions,
    ScenarioEntry,
    register_command,
    register_scenario,
)
from tepa_bench.runner import RunOutcome, RunSpec, available_methods, run_many, run_one
from tepa_bench.scoring import Oracle, schedule_of, transition_costs
from tepa_bench.world import PHASES, Interaction, Schedule, Task, World, WorldChannel

__all__ = [
    "PHASES",
    "ChatModelAgent",
    "DriftConfig",
    "DriftWorld",
    "FileDriftConfig",
    "FileDriftWorld",
    "Interaction",
    "OfflineAgent",
    "Oracle",
    "RunOptions",
    "RunOutcome",
    "RunSpec",
    "ScenarioEntry",
    "Schedule",
    "Task",
    "World",
    "WorldChannel",
    "available_methods",
    "check_export",
    "drift_schedule",
    "filedrift_schedule",
    "openai_agent",
    "parse_prompt",
    "parse_reply",
    "register_command",
    "register_scenario",
    "render_prompt",
    "run_many",
    "run_one",
    "schedule_of",
    "transition_costs",
    "write_export",
]
