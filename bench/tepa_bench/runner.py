"""Run the drift protocol: one memory per method and seed, the same agent, the same worlds.

Each task has a budget of ``horizon`` interactions with the world (its clock). Each episode:

1. the runner gives the agent a task;
2. ``memory.retrieve(task.text, k, key_prefix=task.key)`` (retrieval scoped to the task's
   mechanism, as an application scopes retrieval to the tool at hand);
3. :func:`~tepa_bench.agent.render_prompt` renders the prompt text;
4. the agent reads the text and chooses an action;
5. the world executes the action and says whether it succeeded (one interaction);
6. ``memory.record_outcome(task.key, action, success)``.

Episodes run in rounds: every task whose budget is not used up once per round, in an order
shuffled per round from the seed. **TEPA-Full** then runs trials on the task's Hypotheses: each
trial is an execution in the world through a :class:`~tepa_bench.world.WorldChannel`,
so it is *charged*: it uses one interaction of the task's budget and its outcome counts in the
score like an episode's. Every method therefore has exactly ``tasks * horizon`` interactions per
seed. **Oracle-reset** baselines are told each change (``memory.mark_boundary(key=...)``) by the
scorer's :class:`~tepa_bench.scoring.Oracle`; no other method gets a boundary record.

The worlds, the change points, the round orders and the outcome draws depend on the seed only,
so methods are compared on identical worlds (paired by seed). Nothing the method, the agent or
the trial executor holds can read the world's hidden state; the scorer rebuilds it from the
config and the seed to compute correct actions, transition costs and false revocations.

Example:
    >>> spec = RunSpec(scenario="drift", config={"tasks": 2, "acquisition": 3, "reversal": 4},
    ...                method="tepa-rev", seed=0)
    >>> run_one(spec).successes.shape
    (2, 7)
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any, Literal

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import POLICY_NAMES, LifecyclePolicy
from langchain_tepa.core.types import Lifecycle
from langchain_tepa.embeddings import HashingEmbeddings
from langchain_tepa.memory import TEPAMemory
from tepa_bench.agent import Agent, OfflineAgent, openai_agent, render_prompt
from tepa_bench.drift import DriftConfig, DriftWorld
from tepa_bench.filedrift import FileDriftConfig, FileDriftWorld
from tepa_bench.gated import ExecutorGate, GateSetting
from tepa_bench.scoring import (
    Oracle,
    RevocationEvent,
    correct_mask,
    count_false_revocations,
    schedule_of,
    transition_costs,
)
from tepa_bench.world import Interaction, World, WorldChannel

__all__ = [
    "DRIFT_SCENARIOS",
    "CachedEmbeddings",
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
    "uses_trials",
]

StorageKind = Literal["memory", "chroma"]

DRIFT_SCENARIOS: dict[str, tuple[type, type]] = {
    "drift": (DriftConfig, DriftWorld),
    "filedrift": (FileDriftConfig, FileDriftWorld),
}
"""The drift scenarios of this module: name -> (config class, world class)."""

QUICK_SIZES: dict[str, int] = {}
"""Sizes of ``--quick`` runs: none, the demo runs full-length phases (with fewer seeds)."""


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


def uses_trials(method: str) -> bool:
    """Whether a method runs trial-by-execution (``tepa-full``, ``tepa-full-trials``).

    Example:
        >>> uses_trials("tepa-full-trials"), uses_trials("tepa-rev")
        (True, False)
    """
    return LifecyclePolicy.preset(method).uses_trials


def available_methods() -> list[str]:
    """Every method this installation can run (the trial methods only with their graph module)."""
    return [m for m in POLICY_NAMES if not uses_trials(m) or tepa_full_available()]


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
        overrides: Policy fields set on top of the preset (tuned parameters).
        label: The name in reports (default: ``method``).
        gate: A trial-gated baseline's setting (:mod:`tepa_bench.gated`, issue 39): the run
            uses the gate's wrapped policy and tries a value before serving it, charged as
            TEPA-Full's trials are (``method`` is then ignored but for reports).

    Example:
        >>> RunSpec("drift", {}, "lww", 3).storage
        'memory'
        >>> RunSpec("drift", {}, "reactive", 0, overrides={"reactive_failures": 2}).name
        'reactive'
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
    overrides: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    gate: GateSetting | None = None

    @property
    def name(self) -> str:
        """The method's name in reports."""
        return self.label or self.method

    def policy(self) -> LifecyclePolicy:
        """The policy of the run: the preset with the overrides (a gate's wrapped policy)."""
        if self.gate is not None:
            return self.gate.policy()
        return LifecyclePolicy.preset(self.method, **self.overrides)


@dataclass
class RunOutcome:
    """The record of one run.

    Attributes:
        method: The method's name (its label).
        seed: The seed.
        successes: Boolean array ``(tasks, horizon)``: outcome of each task's interactions in
            clock order (episodes and charged trials alike).
        boundary: Step of the first change (the reversal starts there).
        seconds: Wall time of the run.
        explorations: Episodes in which the agent found no usable evidence (offline agent) or
            gave no valid answer (chat agent).
        evidence: Evidence records the memory holds at the end.
        extras: Method-specific counters (trials of TEPA-Full).
        correct: Boolean array ``(tasks, horizon)``: whether each action was the working one
            (computed by the scorer).
        trials: Boolean array ``(tasks, horizon)``: which interactions were TEPA-Full trials.
        costs: ``(cost, censored)`` of every change (see
            :func:`~tepa_bench.scoring.transition_costs`).
        revocations: Active values revoked during the run.
        false_revocations: Among them, the working action of their time.

    Example:
        >>> out = run_one(RunSpec("drift", {"tasks": 1, "acquisition": 3, "reversal": 4},
        ...                       "tepa-rev", 0))
        >>> out.interactions, out.false_revocations <= out.revocations
        (7, True)
    """

    method: str
    seed: int
    successes: np.ndarray
    boundary: int
    seconds: float
    explorations: int = 0
    evidence: int = 0
    extras: dict[str, Any] = field(default_factory=dict)
    correct: np.ndarray | None = None
    trials: np.ndarray | None = None
    costs: list[tuple[int, bool]] = field(default_factory=list)
    revocations: int = 0
    false_revocations: int = 0

    @property
    def interactions(self) -> int:
        """Interactions with the world (episodes and trials)."""
        return int(self.successes.size)


class CachedEmbeddings(Embeddings):
    """Offline :class:`~langchain_tepa.HashingEmbeddings` that remember their vectors.

    A benchmark asks the same few task texts thousands of times; the vectors are the same,
    computing them once saves a third of an episode's time.

    Example:
        >>> emb = CachedEmbeddings()
        >>> emb.embed_query("open the valve") == HashingEmbeddings().embed_query("open the valve")
        True
    """

    def __init__(self) -> None:
        self._inner = HashingEmbeddings()
        self._cache: dict[str, list[float]] = {}

    def _one(self, text: str) -> list[float]:
        vec = self._cache.get(text)
        if vec is None:
            vec = self._cache[text] = self._inner.embed_query(text)
        return list(vec)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts."""
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._one(text)


class _Clock:
    """The memory's clock: one tick per record, remembering which task step each tick was."""

    def __init__(self) -> None:
        self.tick = 0
        self.where: dict[float, tuple[int, int]] = {}
        self.context = (0, 0)

    def __call__(self) -> float:
        self.tick += 1
        self.where[float(self.tick)] = self.context
        return float(self.tick)


def _memory(spec: RunSpec, folder: str | None, clock: _Clock) -> TEPAMemory:
    kwargs: dict[str, Any] = {
        "embeddings": CachedEmbeddings(),
        "policy": spec.policy(),
        "clock": clock,
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


def _revocation_events(memory: TEPAMemory, world: World, clock: _Clock) -> list[RevocationEvent]:
    events = []
    for task in world.tasks:
        for p in memory.audit(task.key).precedents:
            for tr in p.transitions:
                if tr.to_state is Lifecycle.REVOKED and tr.from_state is Lifecycle.ACTIVE:
                    where = clock.where.get(tr.time)
                    if where is not None:
                        events.append(RevocationEvent(where[0], where[1], str(p.value)))
    return events


def run_one(spec: RunSpec) -> RunOutcome:
    """Run one method on one seed of a scenario (see the module docstring for the protocol)."""
    if spec.method not in POLICY_NAMES and spec.gate is None:
        raise InvalidArgumentError(f"unknown method {spec.method!r}; use {', '.join(POLICY_NAMES)}")
    start = time.perf_counter()
    cfg = scenario_config(spec.scenario, **spec.config)
    world = make_world(spec.scenario, spec.config, spec.seed)
    schedule = schedule_of(spec.scenario, cfg, spec.seed)  # the scorer's copy
    folder = tempfile.mkdtemp(prefix="tepa-bench-chroma-") if spec.storage == "chroma" else None
    clock = _Clock()
    memory = _memory(spec, folder, clock)
    horizon = world.horizon
    n_tasks = len(world.tasks)
    successes = np.zeros((n_tasks, horizon), dtype=bool)
    trial_mask = np.zeros((n_tasks, horizon), dtype=bool)
    actions = [[""] * horizon for _ in range(n_tasks)]

    def log(it: Interaction) -> None:
        successes[it.task, it.step] = it.success
        trial_mask[it.task, it.step] = it.trial
        actions[it.task][it.step] = it.action
        clock.context = (it.task, it.step)

    try:
        agent = _agent(spec)
        oracle = Oracle(schedule) if memory.policy.honour_boundary else None
        hook = None
        if memory.policy.uses_trials:
            from tepa_bench.trials import make_trial_hook

            hook = make_trial_hook(
                memory, WorldChannel(world, log), seed=spec.seed, trial_cost=_declared(spec)
            )
        elif spec.gate is not None:  # a trial-gated baseline: the same executor, charged alike
            hook = gate_hook(memory, spec.gate, WorldChannel(world, log))
        order_rng = random.Random(f"bench-order-{spec.seed}")
        trials = 0
        while True:
            order = list(range(n_tasks))
            order_rng.shuffle(order)
            if all(world.clock(i) >= horizon for i in order):
                break
            for i in order:
                t = world.clock(i)
                if t >= horizon:
                    continue
                task = world.tasks[i]
                clock.context = (i, t)
                if oracle is not None and oracle.changes_at(i, t):
                    memory.mark_boundary(key=task.key)
                docs = memory.retrieve(task.text, k=spec.k, key_prefix=task.key)
                action = agent.choose(render_prompt(task, docs))
                ok = world.execute(i, action)
                log(Interaction(i, t, action, ok, False))
                memory.record_outcome(task.key, action, ok)
                if hook is not None:
                    trials += hook(i)
        explorations = int(
            getattr(agent, "explorations", 0) or getattr(agent, "invalid_replies", 0)
        )
        memory.flush()
        evidence = memory.evidence_count()
        events = _revocation_events(memory, world, clock)
    finally:
        memory.close()
        world.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    extras = {"trials": trials} if spec.policy().uses_trials or spec.gate is not None else {}
    return RunOutcome(
        method=spec.name,
        seed=spec.seed,
        successes=successes,
        boundary=cfg.acquisition,
        seconds=time.perf_counter() - start,
        explorations=explorations,
        evidence=evidence,
        extras=extras,
        correct=np.array(correct_mask(actions, schedule), dtype=bool),
        trials=trial_mask,
        costs=transition_costs(actions, schedule),
        revocations=len(events),
        false_revocations=count_false_revocations(events, schedule),
    )


def _declared(spec: RunSpec) -> float:
    """The scenario's declared trial cost (:data:`~tepa_bench.regret.TRIAL_COST`)."""
    from tepa_bench.regret import TRIAL_COST

    return TRIAL_COST.get(spec.scenario, (1.0, ""))[0]


def gate_hook(memory: TEPAMemory, setting: GateSetting, channel: WorldChannel) -> Any:
    """A hook ``task_index -> executions`` that gates a baseline's answer of the task's key.

    The gate's executions go through the world channel: each is one interaction of the task's
    budget, logged as a trial, its outcome counted in the score (as TEPA-Full's trials).
    """
    tasks = channel.tasks
    index = {task.key: i for i, task in enumerate(tasks)}

    def execute(namespace: str | None, key: str, value: Any) -> bool:
        i = index[key]
        return channel.execute(i, value if value in tasks[i].actions else tasks[i].actions[0])

    gate = ExecutorGate(
        memory, setting, execute, room=lambda namespace, key: channel.remaining(index[key])
    )
    return lambda task_index: gate.check(tasks[task_index].key)


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
