"""The contested-change world (``tepa-bench run contested``): genuine changes among spoofed ones.

**The world.** One key (:data:`KEY`, a user's delivery address). The user's value changes
``changes`` times over ``steps`` interactions, at random steps at least ``gap`` apart; each
genuine change is stated plainly by the user (``source="user"``, no correction) against a value
that has succeeded for a while, and the user states their address again (plainly) whenever
the agent gets it wrong. Meanwhile a spoofer who can write as ``user`` (a compromised channel,
a prompt injection relayed as the user) makes ``spoofs`` attempts at random steps: each states
one of :data:`SPOOFED` twice in a row (the two statements the change rule needs), as a plain
statement or, half of the time, marked as a correction. Acting on the value that holds now
succeeds with probability ``p_right``, on any other with ``p_wrong``.

**An interaction**: with an executor, TEPA-Full's trials run first (charged: every execution
is one trial), then the agent acts on what ``get`` serves (nothing served: a value at random)
and the outcome is recorded (``source="agent"``). Without an executor the agent reads only.
Either way a read that does not serve the value that holds is a user-facing failure; it is
*poisoned* when it serves a spoofed value. The trial executor passes only the trial's value to
the world and returns whether acting on it worked: it reads no schedule and no hidden state.

**Measured** per seed: user-facing failures, trials, poisoned reads, and the adoption latency
of each genuine change (interactions until ``get`` serves it, trials included; censored at the
next change or the end). Regret = failures + c x trials at the declared cost
(:data:`~tepa_bench.regret.TRIAL_COST`) and over the cost axis, with paired verdicts
of the TEPA-Full presets against the best deployable baseline.

Example:
    >>> small = ContestedConfig(steps=60, changes=1, gap=20, spoofs=2)
    >>> run = run_contested("tepa-key", executor=True, seed=1000, config=small)
    >>> sorted(run)
    ['adoption', 'adoption_turns', 'failures', 'poisoned', 'trials']
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.gated import (
    ExecutorGate,
    GateSetting,
    add_seed_arguments,
    gates_for,
    tune_gate,
)
from tepa_bench.regret import TRIAL_COST
from tepa_bench.trials import trial_runner

__all__ = [
    "DECLARED_COST",
    "KEY",
    "SPOOFED",
    "ContestedConfig",
    "format_contested",
    "plot_contested",
    "run_contested",
    "run_contested_matrix",
    "tune_contested_gate",
]

DECLARED_COST = TRIAL_COST["contested"][0]
"""The world's declared trial cost, told to TEPA-Full's runner (issue 39)."""

KEY = "user.delivery_address"
GENUINE: tuple[str, ...] = tuple(f"{n} Harbour Street" for n in (11, 23, 37, 41, 58, 64, 79))
"""The user's addresses, in the order they hold."""
SPOOFED: tuple[str, ...] = ("9 Dock Lane (parcel locker)", "77 Quarry Road", "5 Mill Yard")
"""The spoofer's addresses."""


@dataclass(frozen=True)
class ContestedConfig:
    """The world's parameters.

    Attributes:
        steps: Interactions per seed.
        warmup: Successful outcomes of the first address before the stream.
        changes: Genuine changes of address.
        gap: Least interactions between two changes.
        spoofs: Spoofing attempts (each two statements as ``user``).
        p_right: Success probability of acting on the address that holds.
        p_wrong: Success probability of acting on any other.
        executors: The arms (with an executor, without).

    Example:
        >>> ContestedConfig().changes
        4
    """

    steps: int = 160
    warmup: int = 5
    changes: int = 4
    gap: int = 25
    spoofs: int = 8
    p_right: float = 0.95
    p_wrong: float = 0.05
    executors: tuple[bool, ...] = (True, False)

    def __post_init__(self) -> None:
        for name in ("steps", "warmup", "gap"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(f"{name} must be an integer >= 1, got {value!r}")
        for name in ("changes", "spoofs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidArgumentError(f"{name} must be an integer >= 0, got {value!r}")
        if self.changes >= len(GENUINE):
            raise InvalidArgumentError(f"changes must be below {len(GENUINE)}")
        if (self.changes + 1) * self.gap > self.steps:
            raise InvalidArgumentError("steps must hold (changes + 1) x gap interactions")
        for name in ("p_right", "p_wrong"):
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                raise InvalidArgumentError(f"{name} must be within [0, 1]")

    def to_dict(self) -> dict[str, Any]:
        """The parameters as a JSON dict."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def _schedule(seed: int, config: ContestedConfig) -> tuple[list[int], dict[int, tuple[str, bool]]]:
    """The steps of the genuine changes, and the spoofing attempts by step."""
    rng = random.Random(f"contested-{seed}")
    while True:
        at = sorted(rng.sample(range(config.gap, config.steps), config.changes))
        if all(b - a >= config.gap for a, b in itertools.pairwise([0, *at])):
            break
    spoofs: dict[int, tuple[str, bool]] = {}
    for step in rng.sample(range(1, config.steps), config.spoofs):
        spoofs[step] = (rng.choice(SPOOFED), rng.random() < 0.5)
    return at, spoofs


class _World:
    """Outcomes with common random numbers per (seed, interaction, purpose).

    The address that holds is private (``__holds``): the driver changes it and the scorer asks
    :meth:`serves`; a trial executor gets only :meth:`act`'s answer (a tripwire test checks it).
    """

    def __init__(self, seed: int, config: ContestedConfig) -> None:
        self.seed, self.config = seed, config
        self.__holds = GENUINE[0]
        self.calls = 0

    def change(self, value: str) -> str:
        """The user's address changes to ``value`` (the driver's step); returns it."""
        self.__holds = value
        return value

    def serves(self, value: Any) -> bool:
        """Whether ``value`` is the address that holds (the scorer's question)."""
        return bool(value == self.__holds)

    def act(self, value: Any) -> tuple[Any, bool]:
        """Act on ``value`` (``None``: a value at random); what was tried and whether it worked."""
        self.calls += 1
        r = random.Random(f"contested-act-{self.seed}-{self.calls}")
        if value not in (*GENUINE, *SPOOFED):
            value = r.choice((*GENUINE, *SPOOFED))
        p = self.config.p_right if value == self.__holds else self.config.p_wrong
        return value, r.random() < p


def run_contested(
    policy: str,
    *,
    executor: bool,
    seed: int,
    config: ContestedConfig,
    gate: GateSetting | None = None,
) -> dict[str, Any]:
    """One seed of one policy and arm: failures, trials, poisoned reads, adoption latencies.

    ``gate``: the setting of a trial-gated baseline (``policy`` is then its name).
    """
    from langchain_tepa.embeddings import HashingEmbeddings
    from langchain_tepa.memory import TEPAMemory
    from tepa_bench.attack import _policy

    ticks = itertools.count(1)
    pol = gate.policy() if gate is not None else _policy(policy)
    memory = TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=pol, clock=lambda: float(next(ticks))
    )
    world = _World(seed, config)
    changes, spoofs = _schedule(seed, config)
    count = {"trials": 0}
    runner = None
    if executor and pol.uses_trials:
        from langchain_tepa.graph import DefaultTrialBuilder

        def trial_executor(trial: Any) -> bool:  # sees the trial only; charged
            count["trials"] += 1
            return world.act(trial.value)[1]

        builder = DefaultTrialBuilder(context_k=0, max_competitors=1)
        runner = trial_runner(
            memory, trial_executor, builder, contenders_only=True, trial_cost=DECLARED_COST
        )
    gated = None
    if executor and gate is not None:

        def gate_executor(namespace: str | None, key: str, value: Any) -> bool:  # charged
            count["trials"] += 1
            return world.act(value)[1]

        gated = ExecutorGate(memory, gate, gate_executor)
    failures = poisoned = 0
    adoption: list[int] = []
    turns: list[int] = []
    since: int | None = None
    tried = 0
    version = 0
    try:
        memory.observe(KEY, GENUINE[0], source="user")
        for _ in range(config.warmup):
            memory.record_outcome(KEY, GENUINE[0], True, source="agent")
        restate = False
        current = GENUINE[0]  # what the user knows (their own address)
        for step in range(config.steps):
            if version < len(changes) and step == changes[version]:
                if since is not None:  # the last change was never adopted: censored
                    adoption.append(step - since)
                    turns.append(step - since)
                version += 1
                current = world.change(GENUINE[version])
                since, tried = step, count["trials"]
                restate = True
            if step in spoofs:
                value, correction = spoofs[step]
                for _ in range(2):
                    memory.observe(KEY, value, source="user", correction=correction)
            if restate:  # the user says their address (plain)
                memory.observe(KEY, current, source="user")
            if runner is not None:
                runner.run(key=KEY)
            if gated is not None:
                gated.check(KEY)
            served = memory.get(KEY)
            ok = world.serves(served)
            if since is not None and ok:  # interactions, trials included; the user's turns
                adoption.append(step - since + 1 + count["trials"] - tried)
                turns.append(step - since + 1)
                since = None
            failures += not ok
            poisoned += served in SPOOFED
            restate = not ok  # served the wrong address: the user says theirs again
            if executor:  # the agent acts on what it was served (nothing: a guess)
                tried_value, done = world.act(served)
                memory.record_outcome(KEY, tried_value, done, source="agent")
        if since is not None:
            adoption.append(config.steps - since)
            turns.append(config.steps - since)
    finally:
        memory.close()
    return {
        "failures": failures,
        "trials": count["trials"],
        "poisoned": poisoned,
        "adoption": adoption,
        "adoption_turns": turns,
    }


def _job(job: tuple[Any, ...]) -> tuple[tuple[str, bool, int], dict[str, Any]]:
    policy, executor, seed, cfg, gate = job
    return (policy, executor, seed), run_contested(
        policy, executor=executor, seed=seed, config=ContestedConfig(**cfg), gate=gate
    )


def tune_contested_gate(config: ContestedConfig, seeds: int) -> tuple[GateSetting, list[Any]]:
    """The trial-gated baseline's setting: lowest regret with an executor on the tuning seeds."""

    def score(gate: GateSetting, seed: int) -> tuple[float, float]:
        run = run_contested(gate.label, executor=True, seed=seed, config=config, gate=gate)
        return float(run["failures"]), float(run["trials"])

    return tune_gate(score, seeds, DECLARED_COST)


def run_contested_matrix(
    policies: Sequence[str],
    seeds: int,
    config: ContestedConfig,
    *,
    workers: int = 1,
    progress: bool = True,
    gates: dict[str, GateSetting] | None = None,
    first_seed: int = 1000,
    gate_tuning: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every policy and arm on seeds ``first_seed ..``; the result JSON.

    ``gates``: the settings of the trial-gated baselines among ``policies`` (issue 39);
    ``gate_tuning``: how the tuned one was chosen (written to the config).
    """
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from tepa_bench.regret import attach_regret

    gates = dict(gates or {})
    cfg = {k: tuple(v) if isinstance(v, list) else v for k, v in config.to_dict().items()}
    jobs = [
        (p, e, first_seed + s, cfg, gates.get(p))
        for p in policies
        for e in config.executors
        for s in range(seeds)
    ]
    started = time.perf_counter()
    raw: dict[tuple[str, bool, int], dict[str, Any]] = {}
    bar = tqdm(total=len(jobs), desc="contested", disable=not progress, unit="run")
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for key, out in pool.map(_job, jobs, chunksize=4):
                raw[key] = out
                bar.update()
    else:
        for job in jobs:
            key, out = _job(job)
            raw[key] = out
            bar.update()
    bar.close()
    seed_ids = [first_seed + s for s in range(seeds)]
    arms: dict[str, Any] = {}
    for e in config.executors:
        rows: dict[str, Any] = {}
        per_seed: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for p in policies:
            runs = [raw[(p, e, s)] for s in seed_ids]
            lat = [x for r in runs for x in r["adoption"]]
            user_turns = [x for r in runs for x in r["adoption_turns"]]
            rows[p] = {
                "failures": round(float(np.mean([r["failures"] for r in runs])), 3),
                "trials": round(float(np.mean([r["trials"] for r in runs])), 3),
                "poisoned": round(float(np.mean([r["poisoned"] for r in runs])) / config.steps, 4),
                "adoption_latency": round(float(np.mean(lat)), 3) if lat else None,
                "adoption_turns": round(float(np.mean(user_turns)), 3) if user_turns else None,
                "per_change_latency": lat,
            }
            per_seed[p] = (
                np.array([r["failures"] for r in runs], dtype=float),
                np.array([r["trials"] for r in runs], dtype=float),
            )
        arm: dict[str, Any] = {"scenario": "contested", "methods": rows}
        attach_regret(arm, per_seed)
        arms["executor" if e else "no-executor"] = arm
    return {
        "scenario": "contested",
        "seeds": seeds,
        "config": {
            **config.to_dict(),
            "policies": list(policies),
            "seed_range": [first_seed, first_seed + seeds - 1],
            "gates": {p: g.to_dict() for p, g in gates.items() if p in policies},
            "gate_tuning": gate_tuning,
            "declared_cost_told_to_tepa_full": DECLARED_COST,
            "seconds": round(time.perf_counter() - started, 1),
        },
        "methods": {p: {} for p in policies},
        "arms": arms,
        "comparisons": [],
    }


def format_contested(result: dict[str, Any]) -> str:
    """Per arm: failures, trials, poisoned share, adoption latency; then regret and verdicts."""
    from tepa_bench.regret import format_regret

    cfg = result["config"]
    lines = [
        f"contested changes: {result['seeds']} seeds ({cfg['seed_range'][0]}..), "
        f"{cfg['steps']} interactions, {cfg['changes']} genuine changes, {cfg['spoofs']} spoofing "
        f"attempts as 'user', world {cfg['p_right']}/{cfg['p_wrong']}, {cfg['seconds']} s"
    ]
    for arm, data in result["arms"].items():
        lines.append(f"[{arm}]")
        lines.append(
            f"  {'policy':<18} {'failures':>8} {'trials':>7} {'poisoned':>8} {'latency':>8} "
            f"{'turns':>6}"
        )
        order = sorted(data["methods"].items(), key=lambda kv: kv[1]["failures"])
        for name, m in order:
            lat = "-" if m["adoption_latency"] is None else f"{m['adoption_latency']:.2f}"
            turns = m.get("adoption_turns")
            shown = "-" if turns is None else f"{turns:.2f}"
            lines.append(
                f"  {name:<18} {m['failures']:>8.2f} {m['trials']:>7.2f} "
                f"{m['poisoned']:>8.3f} {lat:>8} {shown:>6}"
            )
        lines.append(format_regret(data))
        block = data["regret"]
        for c in block["costs"]:
            ranked = sorted(block["methods"].items(), key=lambda kv: kv[1]["by_cost"][f"{c:g}"])
            top = ", ".join(f"{n} {m['by_cost'][f'{c:g}']:.2f}" for n, m in ranked[:3])
            lines.append(f"  lowest regret at c={c:g}: {top}")
    return "\n".join(lines)


def plot_contested(result: dict[str, Any], path: Path | str) -> Path | None:
    """Regret against the trial cost, with an executor: one line per policy (PNG)."""
    from tepa_bench.report import pyplot_or_warn

    plt = pyplot_or_warn()
    if plt is None:
        return None
    block = result["arms"]["executor"]["regret"] if "executor" in result["arms"] else None
    if block is None:
        return None
    costs = block["costs"]
    fig, ax = plt.subplots(figsize=(8, 4.8))
    ranked = sorted(block["methods"].items(), key=lambda kv: kv[1]["by_cost"][f"{costs[0]:g}"])
    for name, m in ranked[:8]:
        ys = [m["by_cost"][f"{c:g}"] for c in costs]
        tepa = name.startswith("tepa")
        ax.plot(costs, ys, marker="o", linewidth=2.2 if tepa else 1.2, label=name)
    ax.set_xlabel("trial cost (relative to a user-facing failure)")
    ax.set_ylabel("regret per seed (failures + cost x trials)")
    ax.set_title(f"contested changes, with an executor ({result['seeds']} seeds)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def _scenario(options: Any) -> dict[str, Any]:
    from tepa_bench.attack import attack_policies

    policies = attack_policies()
    if options.methods:
        unknown = set(options.methods) - set(policies)
        if unknown:
            raise InvalidArgumentError(
                f"unknown policies {sorted(unknown)}; choose from {', '.join(policies)}"
            )
        policies = [p for p in policies if p in options.methods]
    seeds = options.seeds or (2 if options.quick else 20)
    if seeds < 1:
        raise InvalidArgumentError(f"--seeds must be >= 1, got {seeds}")
    known = set(ContestedConfig.__dataclass_fields__)
    unknown = set(options.overrides) - known
    if unknown:
        raise InvalidArgumentError(
            f"unknown contested settings {sorted(unknown)}; known: {sorted(known)}"
        )
    overrides: dict[str, Any] = {}
    for k, v in options.overrides.items():
        if k == "executors":
            items = v if isinstance(v, list | tuple) else str(v).split(",")
            overrides[k] = tuple(str(x).strip().lower() in ("true", "yes", "1") for x in items)
        elif k in ("p_right", "p_wrong"):
            overrides[k] = float(v)
        else:
            overrides[k] = int(v)
    if options.quick:
        overrides.setdefault("steps", 80)
        overrides.setdefault("gap", 15)
    config = ContestedConfig(**overrides)
    args = options.args
    first = getattr(args, "first_seed", 1000)
    gates, tuning = gates_for(
        policies,
        lambda n: tune_contested_gate(config, n),
        tuning_seeds=getattr(args, "gate_tuning_seeds", 40),
        first_seed=first,
        seeds=seeds,
    )
    return run_contested_matrix(
        policies,
        seeds,
        config,
        workers=max(1, options.workers),
        progress=options.progress,
        gates=gates,
        first_seed=first,
        gate_tuning=tuning,
    )


def _register() -> None:
    from tepa_bench.registry import ScenarioEntry, register_scenario

    register_scenario(
        ScenarioEntry(
            "contested",
            "contested changes: a user's genuine changes among spoofed ones, every policy",
            _scenario,
            table=format_contested,
            plot=plot_contested,
            demo=False,
            configure=lambda p: add_seed_arguments(p, first_seed=1000, tuning=40),
        )
    )


_register()
