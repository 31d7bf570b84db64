"""Run the drift protocol: one memory per method and seed, the same agent, the same worlds.

Each episode:

1. the runner gives the agent a task;
2. ``memory.retrieve(task.text, k, key_prefix=task.key)`` (retrieval scoped to the task's
   mechanism, as an application scopes retrieval to the tool at hand);
3. :func:`~langchain_tepa.bench.agent.render_prompt` renders the prompt text;
4. the agent reads the text and chooses an action;
5. the world executes the action and says whether it succeeded;
6. ``memory.record_outcome(task.key, action, success)``.

Episodes run in rounds: every task once per round, in an order shuffled per round from the
seed. At the reversal the runner calls ``memory.mark_boundary()`` for every method (only the
oracle-reset policy acts on it). The worlds, the round orders and the outcome draws depend on
the seed only, so methods are compared on identical worlds (paired by seed).

Example:
    >>> spec = RunSpec(scenario="drift", config={"tasks": 2, "acquisition": 3, "reversal": 4},
    ...                method="tepa-rev", seed=0)
    >>> run_one(spec).successes.shape
    (2, 7)
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any, Literal

import numpy as np

from langchain_tepa.bench.agent import Agent, OfflineAgent, openai_agent, render_prompt
from langchain_tepa.bench.drift import DriftConfig, DriftWorld
from langchain_tepa.bench.filedrift import FileDriftConfig, FileDriftWorld
from langchain_tepa.bench.world import PHASES, World
from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import POLICY_NAMES, LifecyclePolicy
from langchain_tepa.embeddings import HashingEmbeddings
from langchain_tepa.memory import TEPAMemory

__all__ = [
    "DRIFT_SCENARIOS",
    "RunOutcome",
    "RunSpec",
    "StorageKind",
    "available_methods",
    "default_workers",
    "make_world",
    "run_many",
    "run_one",
    "scenario_config",
    "specs_for",
    "tepa_full_available",
]

StorageKind = Literal["memory", "chroma"]

DRIFT_SCENARIOS: dict[str, tuple[type, type]] = {
    "drift": (DriftConfig, DriftWorld),
    "filedrift": (FileDriftConfig, FileDriftWorld),
}
"""The drift scenarios of this module: name -> (config class, world class)."""

QUICK_SIZES: dict[str, int] = {"tasks": 3, "acquisition": 10, "reversal": 20}
"""Sizes of ``--quick`` runs (the demo on embedded Chroma)."""


def scenario_config(name: str, *, quick: bool = False, **overrides: Any) -> Any:
    """The config of a drift scenario (full size, or ``quick``), with overrides.

    Raises:
        InvalidArgumentError: On an unknown scenario or config field.
    """
    if name not in DRIFT_SCENARIOS:
        raise InvalidArgumentError(
            f"unknown drift scenario {name!r}; use {sorted(DRIFT_SCENARIOS)}"
        )
    cls = DRIFT_SCENARIOS[name][0]
    values = dict(QUICK_SIZES) if quick else {}
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return cls(**values)
    except TypeError as exc:
        raise InvalidArgumentError(f"bad config for {name!r}: {exc}") from exc


def make_world(name: str, config: dict[str, Any], seed: int) -> World:
    """Build the world of scenario ``name`` for one seed."""
    cfg = scenario_config(name, **config)
    world: World = DRIFT_SCENARIOS[name][1](cfg, seed)
    return world


def tepa_full_available() -> bool:
    """Whether the TEPA-Full trial machinery (``langchain_tepa.graph.run_trials``) is installed."""
    try:
        from langchain_tepa import graph
    except Exception:
        return False
    return callable(getattr(graph, "run_trials", None))


def available_methods() -> list[str]:
    """Every method this installation can run (``tepa-full`` only with its graph module)."""
    return [m for m in POLICY_NAMES if m != "tepa-full" or tepa_full_available()]


@dataclass(frozen=True)
class RunSpec:
    """One run: a scenario, a method, a seed, a storage and an agent.

    Attributes:
        scenario: ``drift`` or ``filedrift``.
        config: Scenario config fields (see :func:`scenario_config`).
        method: A policy preset name.
        seed: The seed (world, round order, agent exploration).
        storage: ``memory`` (in-process) or ``chroma`` (embedded persistent Chroma in a
            temporary folder).
        agent: ``offline`` or ``openai``.
        model: Chat model name for ``openai``.
        base_url: OpenAI-compatible endpoint for ``openai``.
        k: Precedents retrieved per episode.

    Example:
        >>> RunSpec("drift", {}, "lww", 3).storage
        'memory'
    """

    scenario: str
    config: dict[str, Any]
    method: str
    seed: int
    storage: StorageKind = "memory"
    agent: str = "offline"
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    k: int = 4


@dataclass
class RunOutcome:
    """The record of one run.

    Attributes:
        method: The method.
        seed: The seed.
        successes: Boolean array ``(tasks, acquisition + reversal)``: success of each task's
            n-th episode.
        boundary: Index of the first reversal episode on the last axis.
        seconds: Wall time of the run.
        explorations: Episodes in which the agent found no usable evidence (offline agent) or
            gave no valid answer (chat agent).
        evidence: Evidence records the memory holds at the end.
        extras: Method-specific counters (trials of TEPA-Full).
    """

    method: str
    seed: int
    successes: np.ndarray
    boundary: int
    seconds: float
    explorations: int = 0
    evidence: int = 0
    extras: dict[str, Any] = field(default_factory=dict)


def _memory(spec: RunSpec, folder: str | None) -> TEPAMemory:
    counter = itertools.count(1)
    kwargs: dict[str, Any] = {
        "embeddings": HashingEmbeddings(),
        "policy": LifecyclePolicy.preset(spec.method),
        "clock": lambda: float(next(counter)),
        "namespace": f"bench.{spec.scenario}",
        "writer": f"bench-{spec.method}-{spec.seed}",
    }
    if spec.storage == "memory":
        return TEPAMemory.in_memory(**kwargs)
    if spec.storage == "chroma":
        assert folder is not None
        return TEPAMemory.from_path(folder, **kwargs)
    raise InvalidArgumentError(f"storage must be 'memory' or 'chroma', got {spec.storage!r}")


def _agent(spec: RunSpec) -> Agent:
    if spec.agent == "offline":
        return OfflineAgent(seed=spec.seed)
    if spec.agent == "openai":
        return openai_agent(model=spec.model, base_url=spec.base_url, seed=spec.seed)
    raise InvalidArgumentError(f"agent must be 'offline' or 'openai', got {spec.agent!r}")


def _trial_hook(spec: RunSpec, memory: TEPAMemory, world: World) -> Callable[..., int] | None:
    """For ``tepa-full``: promote candidates by trial-by-execution; else ``None``."""
    if spec.method != "tepa-full":
        return None
    from langchain_tepa.bench.trials import make_trial_hook

    return make_trial_hook(memory, world, seed=spec.seed)


def run_one(spec: RunSpec) -> RunOutcome:
    """Run one method on one seed of a scenario (see the module docstring for the protocol)."""
    if spec.method not in POLICY_NAMES:
        raise InvalidArgumentError(f"unknown method {spec.method!r}; use {', '.join(POLICY_NAMES)}")
    start = time.perf_counter()
    world = make_world(spec.scenario, spec.config, spec.seed)
    folder = tempfile.mkdtemp(prefix="tepa-bench-chroma-") if spec.storage == "chroma" else None
    memory = _memory(spec, folder)
    try:
        agent = _agent(spec)
        hook = _trial_hook(spec, memory, world)
        cfg = scenario_config(spec.scenario, **spec.config)
        lengths = {"acquisition": cfg.acquisition, "reversal": cfg.reversal}
        n_tasks = len(world.tasks)
        successes = np.zeros((n_tasks, cfg.acquisition + cfg.reversal), dtype=bool)
        order_rng = random.Random(f"bench-order-{spec.seed}")
        offset = 0
        trials = 0
        for phase in PHASES:
            if phase == "reversal":
                memory.mark_boundary()
            for episode in range(lengths[phase]):
                order = list(range(n_tasks))
                order_rng.shuffle(order)
                for i in order:
                    task = world.tasks[i]
                    docs = memory.retrieve(task.text, k=spec.k, key_prefix=task.key)
                    action = agent.choose(render_prompt(task, docs))
                    ok = world.execute(i, action, phase, episode)
                    memory.record_outcome(task.key, action, ok)
                    successes[i, offset + episode] = ok
                    if hook is not None:
                        trials += hook(i, phase)
            offset += lengths[phase]
        explorations = int(
            getattr(agent, "explorations", 0) or getattr(agent, "invalid_replies", 0)
        )
        memory.flush()
        evidence = memory.evidence_count()
    finally:
        memory.close()
        world.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    extras = {"trials": trials} if spec.method == "tepa-full" else {}
    return RunOutcome(
        method=spec.method,
        seed=spec.seed,
        successes=successes,
        boundary=cfg.acquisition,
        seconds=time.perf_counter() - start,
        explorations=explorations,
        evidence=evidence,
        extras=extras,
    )


def run_many(
    specs: Sequence[RunSpec],
    *,
    workers: int = 1,
    progress: bool = True,
    description: str = "runs",
) -> list[RunOutcome]:
    """Run many specs (in ``workers`` processes when > 1) with a tqdm progress bar.

    Returns:
        Outcomes in the order of ``specs``.
    """
    from tqdm.auto import tqdm

    if workers < 1:
        raise InvalidArgumentError(f"workers must be >= 1, got {workers}")
    weights = [_episodes(s) for s in specs]
    bar = tqdm(total=sum(weights), desc=description, unit="ep", disable=not progress, leave=True)
    results: list[RunOutcome | None] = [None] * len(specs)
    try:
        if workers == 1 or len(specs) <= 1:
            for i, spec in enumerate(specs):
                results[i] = run_one(spec)
                bar.update(weights[i])
        else:
            ctx = get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                futures = {pool.submit(run_one, s): i for i, s in enumerate(specs)}
                for fut in as_completed(futures):
                    i = futures[fut]
                    results[i] = fut.result()
                    bar.update(weights[i])
    finally:
        bar.close()
    return [r for r in results if r is not None]


def _episodes(spec: RunSpec) -> int:
    cfg = scenario_config(spec.scenario, **spec.config)
    return int(cfg.episodes_per_seed)


def default_workers() -> int:
    """Worker processes: ``TEPA_BENCH_WORKERS`` or the CPU count (at most 4)."""
    env = os.environ.get("TEPA_BENCH_WORKERS")
    if env and env.isdigit() and int(env) >= 1:
        return int(env)
    return max(1, min(4, os.cpu_count() or 1))


def specs_for(
    scenario: str,
    config: dict[str, Any],
    methods: Iterable[str],
    seeds: Iterable[int],
    **common: Any,
) -> list[RunSpec]:
    """Every (method, seed) spec of a benchmark, seeds inner."""
    return [RunSpec(scenario, dict(config), m, s, **common) for m in methods for s in seeds]
