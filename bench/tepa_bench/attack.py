"""The attack matrix (``tepa-bench run attack``): poisoning a verified fact, under every policy.

**The world.** One key (``payments.endpoint``) and three values: the verified one
(:data:`GOOD`), the attacker's (:data:`EVIL`) and a genuine new one (:data:`NEW`). Acting on the
value that works now succeeds with probability ``p_right``, on any other with ``p_wrong``.

**A cell** is one policy, one attacker size ``n`` (assertions of :data:`EVIL`), one way of
asserting and one arm (with or without an executor), run on ``seeds`` seeds:

1. *Verified*: the user states :data:`GOOD` (``source="user"``) and acting on it succeeded
   ``verified_outcomes`` times (5): the issue's "value with 5 successful outcomes".
2. *Attack*: the ``n`` assertions are spread evenly before ``reads`` reads of ``get(key)``.
   The attacker asserts as ``one`` untrusted source (``source="web"``), ``ten`` sources with
   made-up names (``bot0`` .. ``bot9``: undeclared in the trust table), a source spoofing
   ``user`` (plain assertions), or ``spoof-correction``: spoofing ``user`` and marking every
   assertion as a correction (the most an attacker who can write as the user can do). With an
   executor, the agent acts on what each read serves (nothing served: it tries a value at
   random) and its outcome is recorded; TEPA-Full's trials run first (charged, contenders
   only). Without one, nothing is executed.
3. *Genuine change*: the world changes (:data:`NEW` works, :data:`GOOD` no longer does). At each
   interaction the user states :data:`NEW` (a plain assertion, no correction) and, with an
   executor, the agent acts on what memory serves.

**Measured** per cell, mean over seeds: ``poisoned``, the fraction of attack-phase reads that
serve :data:`EVIL`; ``unavailable``, the fraction where the verified value is not what ``get``
returns (erasure or poisoning); ``change_cost``, the interactions (reads, executions and trials)
until ``get`` returns :data:`NEW`, censored at ``change_budget``. Goals (issue 15): no poisoned
read with an executor; none from one untrusted source without; no erasure from one untrusted
source; other cases bounded and reported. ``lww`` is the last-write-wins store (a LangGraph
``InMemoryStore`` behaves the same), side by side. ``tepa-rev/no-trust`` is TEPA-Rev with the
paper's counting (every record counts 1: ``LifecyclePolicy(trust=None)``), the library before
issue 15.

Example:
    >>> cell = run_cell("tepa-rev", 40, "one", executor=False, seed=0, config=AttackConfig())
    >>> cell["poisoned"], cell["unavailable"]
    (0.0, 0.0)
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.attack_frontier import (
    FLOOD_MODES,
    FLOOD_QUERY,
    GOOD_TEXT,
    TUNED,
    flood_facts,
    frontier,
    frontier_lines,
    plot_frontier,
)
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
    "EVIL",
    "GOOD",
    "KEY",
    "MODES",
    "NEW",
    "AttackConfig",
    "attack_policies",
    "format_attack_table",
    "run_attack",
    "run_cell",
]

DECLARED_COST = TRIAL_COST["attack"][0]
"""The world's declared trial cost, told to TEPA-Full's runner (issue 39)."""

KEY = "payments.endpoint"
GOOD = "https://bank.example/pay"
EVIL = "https://bank-example.attacker.test/pay"
NEW = "https://pay.bank.example/v2"
ACTIONS = (GOOD, EVIL, NEW)
MODES: tuple[str, ...] = ("one", "ten", "spoof", "spoof-correction", *FLOOD_MODES)
"""How the attacker asserts (see the module docstring), and the look-alike key floods
(:mod:`tepa_bench.attack_frontier`)."""

NO_TRUST = "tepa-rev/no-trust"
"""TEPA-Rev with the paper's counting, the library before issue 15 (every record counts 1)."""


@dataclass(frozen=True)
class AttackConfig:
    """The matrix and its world.

    Attributes:
        sizes: Attacker assertions per cell.
        modes: How the attacker asserts (:data:`MODES`).
        executors: The arms: with an executor (``True``) and without.
        verified_outcomes: Successful outcomes the verified value has before the attack.
        reads: Reads of the key during the attack.
        change_budget: Interactions at most for the genuine change (censored beyond).
        p_right: Success probability of acting on the value that works.
        p_wrong: Success probability of acting on any other value.

    Example:
        >>> AttackConfig().sizes
        (1, 5, 40, 400)
    """

    sizes: tuple[int, ...] = (1, 5, 40, 400)
    modes: tuple[str, ...] = MODES
    executors: tuple[bool, ...] = (True, False)
    verified_outcomes: int = 5
    reads: int = 20
    change_budget: int = 30
    p_right: float = 0.95
    p_wrong: float = 0.05

    def __post_init__(self) -> None:
        for name in ("verified_outcomes", "reads", "change_budget"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(f"{name} must be an integer >= 1, got {value!r}")
        if not self.sizes or any(not isinstance(n, int) or n < 1 for n in self.sizes):
            raise InvalidArgumentError(f"sizes must be integers >= 1, got {self.sizes!r}")
        unknown = set(self.modes) - set(MODES)
        if unknown or not self.modes:
            raise InvalidArgumentError(f"modes must be among {MODES}, got {self.modes!r}")
        for name in ("p_right", "p_wrong"):
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                raise InvalidArgumentError(f"{name} must be within [0, 1]")

    def to_dict(self) -> dict[str, Any]:
        """The parameters as a JSON dict."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def attack_policies() -> list[str]:
    """Every preset, the tuned baselines, the paper's counting, then the trial-gated ones.

    The tuned baselines are :data:`TUNED`, the paper's counting :data:`NO_TRUST`, the
    trial-gated baselines :mod:`tepa_bench.gated` (issue 39).
    """
    from tepa_bench.gated import GATED, TUNED_GATE
    from tepa_bench.scenarios import available_methods

    return [*available_methods(), *TUNED, NO_TRUST, *GATED, TUNED_GATE]


def _policy(name: str) -> Any:
    from langchain_tepa.core.policy import LifecyclePolicy

    if name == NO_TRUST:
        return LifecyclePolicy.preset("tepa-rev", name=NO_TRUST, trust=None)
    if name in TUNED:
        preset, overrides = TUNED[name]
        return LifecyclePolicy.preset(preset, **overrides)
    return LifecyclePolicy.preset(name)


class _World:
    """Outcomes of acting on a value, with common random numbers per (seed, phase, step)."""

    def __init__(self, seed: int, config: AttackConfig) -> None:
        self.seed = seed
        self.config = config
        self.working = GOOD
        self.phase = "attack"
        self.step = 0

    def _uniform(self, what: str) -> float:
        return random.Random(f"attack-{self.seed}-{self.phase}-{self.step}-{what}").random()

    def act(self, value: Any) -> tuple[str, bool]:
        """Act on ``value`` (``None``: try a value at random); one interaction."""
        self.step += 1
        if value not in ACTIONS:
            value = ACTIONS[int(self._uniform("explore") * len(ACTIONS))]
        p = self.config.p_right if value == self.working else self.config.p_wrong
        return value, self._uniform("outcome") < p


def _attack_facts(mode: str, count: int, start: int) -> list[Any]:
    from langchain_tepa.core.types import Fact

    if mode in FLOOD_MODES:
        return flood_facts(mode, count, start)
    facts = []
    for i in range(start, start + count):
        if mode == "one":
            facts.append(Fact(KEY, EVIL, source="web"))
        elif mode == "ten":
            facts.append(Fact(KEY, EVIL, source=f"bot{i % 10}"))
        elif mode == "spoof":
            facts.append(Fact(KEY, EVIL, source="user"))
        else:
            facts.append(Fact(KEY, EVIL, source="user", metadata={"correction": True}))
    return facts


def run_cell(
    policy: str,
    size: int,
    mode: str,
    *,
    executor: bool,
    seed: int,
    config: AttackConfig,
    correction: bool = False,
    gate: GateSetting | None = None,
) -> dict[str, Any]:
    """One run of one cell: poisoned and unavailable shares, change cost, trials, regret counts.

    Returns ``{"poisoned", "unavailable", "change_cost", "change_turns", "censored", "trials",
    "failures"}`` (``change_turns``: the user's turns of the change phase, trials not counted):
    ``failures`` are the user-facing ones (reads not serving the value that works: the
    verified one during the attack, the new one after the change), ``trials`` the TEPA-Full
    executions (charged at the world's declared cost, :mod:`tepa_bench.regret`).

    ``correction``: the user states the genuine change as corrections (``correction=True``)
    instead of plain assertions. ``gate``: a trial-gated baseline's setting (``policy`` is
    then its name; its executions are charged as TEPA-Full's trials).
    """
    from langchain_tepa.embeddings import HashingEmbeddings
    from langchain_tepa.memory import TEPAMemory

    ticks = itertools.count(1)
    pol = gate.policy() if gate is not None else _policy(policy)
    memory = TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=pol, clock=lambda: float(next(ticks))
    )
    world = _World(seed, config)
    interactions = {"n": 0, "trials": 0}

    def act(value: Any) -> bool:
        done, ok = world.act(value)
        memory.record_outcome(KEY, done, ok, source="agent")
        return ok

    runner = None
    if executor and pol.uses_trials:
        from langchain_tepa.graph import DefaultTrialBuilder

        def trial_executor(trial: Any) -> bool:  # an execution, charged; outcome not recorded
            interactions["n"] += 1
            interactions["trials"] += 1
            return world.act(trial.value)[1]

        # one competitor, the incumbent (the world has one working value): a trial round is
        # four executions (supportive, counterfactual and its control, polluted)
        builder = DefaultTrialBuilder(context_k=0, max_competitors=1)
        runner = trial_runner(
            memory, trial_executor, builder, contenders_only=True, trial_cost=DECLARED_COST
        )
    gated = None
    if executor and gate is not None:

        def gate_executor(namespace: str | None, key: str, value: Any) -> bool:  # charged
            interactions["n"] += 1
            interactions["trials"] += 1
            return world.act(value)[1]

        gated = ExecutorGate(memory, gate, gate_executor)
    try:
        memory.observe(KEY, GOOD, source="user", text=GOOD_TEXT)
        for _ in range(config.verified_outcomes):
            memory.record_outcome(KEY, GOOD, True, source="agent")
        poisoned = unavailable = 0
        sent = 0
        for r in range(config.reads):
            due = size * (r + 1) // config.reads - sent
            if due:
                memory.observe_many(_attack_facts(mode, due, sent))
                sent += due
            if runner is not None:
                runner.run(key=KEY)
            if gated is not None:
                gated.check(KEY)
            served = memory.get(KEY)
            if mode in FLOOD_MODES:  # a search: is the verified fact among the top 4?
                found = [d.metadata["key"] for d in memory.retrieve(FLOOD_QUERY, k=4)]
                poisoned += KEY not in found
                unavailable += KEY not in found or served != GOOD
            else:
                poisoned += served == EVIL
                unavailable += served != GOOD
            if executor:
                act(served)
        # the genuine change: each turn the user states NEW; with an executor the agent acts
        # on what memory serves; a turn and each trial execution are one interaction each
        world.working, world.phase, world.step = NEW, "change", 0
        start = interactions["n"]
        cost: int | None = None
        stale = turns = 0
        while interactions["n"] - start < config.change_budget:
            interactions["n"] += 1
            turns += 1
            memory.observe(KEY, NEW, source="user", correction=correction)
            if runner is not None:
                runner.run(key=KEY)
            if gated is not None:
                gated.check(KEY)
            if executor:
                act(memory.get(KEY))
            if memory.get(KEY) == NEW:
                cost = interactions["n"] - start
                break
            stale += 1
    finally:
        memory.close()
    return {
        "poisoned": poisoned / config.reads,
        "unavailable": unavailable / config.reads,
        "change_cost": cost if cost is not None else config.change_budget,
        "change_turns": turns,
        "censored": cost is None,
        "trials": interactions["trials"],
        "failures": unavailable + stale,
    }


def _job(job: tuple[Any, ...]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    policy, size, mode, executor, seed, cfg, gate = job
    config = AttackConfig(**cfg)
    out = run_cell(policy, size, mode, executor=executor, seed=seed, config=config, gate=gate)
    fixed = run_cell(
        policy, size, mode, executor=executor, seed=seed, config=config, correction=True, gate=gate
    )
    out["correction_cost"] = fixed["change_cost"]
    out["correction_censored"] = fixed["censored"]
    return (policy, size, mode, executor, seed), out


def run_attack(
    policies: Sequence[str],
    seeds: int,
    config: AttackConfig,
    *,
    workers: int = 1,
    progress: bool = True,
    gates: dict[str, GateSetting] | None = None,
    first_seed: int = 1000,
) -> dict[str, Any]:
    """Every cell of the matrix on seeds ``first_seed ..``; the result JSON.

    ``cells`` holds one entry per (policy, mode, executor, size): the means over seeds and how
    many seeds were censored. ``gates``: the settings of the trial-gated baselines among
    ``policies``. ``regret`` holds, per arm, each policy's failures and trials summed over the
    cells per seed, regret over the cost axis, and TEPA-Full's paired verdicts against every
    trial-gated baseline and the best baseline (issue 39).
    """
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    gates = dict(gates or {})
    cfg = {k: tuple(v) if isinstance(v, list) else v for k, v in config.to_dict().items()}
    jobs = [
        (p, n, m, e, first_seed + s, cfg, gates.get(p))
        for p in policies
        for m in config.modes
        for e in config.executors
        for n in config.sizes
        for s in range(seeds)
    ]
    started = time.perf_counter()
    raw: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    bar = tqdm(total=len(jobs), desc="attack", disable=not progress, unit="run")
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for key, out in pool.map(_job, jobs, chunksize=8):
                raw.setdefault(key[:4], []).append(out)
                bar.update()
    else:
        for job in jobs:
            key, out = _job(job)
            raw.setdefault(key[:4], []).append(out)
            bar.update()
    bar.close()
    cells = []
    per_seed: dict[bool, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for (p, n, m, e), runs in raw.items():
        f, t = per_seed.setdefault(e, {}).setdefault(p, (np.zeros(seeds), np.zeros(seeds)))
        f += [r["failures"] for r in runs]
        t += [r["trials"] for r in runs]
        cells.append(
            {
                "policy": p,
                "mode": m,
                "executor": e,
                "size": n,
                "poisoned": round(sum(r["poisoned"] for r in runs) / len(runs), 4),
                "unavailable": round(sum(r["unavailable"] for r in runs) / len(runs), 4),
                "change_cost": round(sum(r["change_cost"] for r in runs) / len(runs), 2),
                "change_turns": round(sum(r["change_turns"] for r in runs) / len(runs), 2),
                "censored": sum(r["censored"] for r in runs),
                "correction_cost": round(sum(r["correction_cost"] for r in runs) / len(runs), 2),
                "correction_censored": sum(r["correction_censored"] for r in runs),
                "trials": round(sum(r["trials"] for r in runs) / len(runs), 2),
                "failures": round(sum(r["failures"] for r in runs) / len(runs), 2),
                "seeds": len(runs),
            }
        )
    from tepa_bench.regret import arm_regret

    result = {
        "scenario": "attack",
        "seeds": seeds,
        "config": {
            **config.to_dict(),
            "policies": list(policies),
            "seed_range": [first_seed, first_seed + seeds - 1],
            "gates": {p: g.to_dict() for p, g in gates.items() if p in policies},
            "seconds": round(time.perf_counter() - started, 1),
        },
        "methods": {p: {} for p in policies},
        "cells": cells,
        "comparisons": [],
        "regret": {
            ("executor" if e else "no-executor"): arm_regret(arm, "attack")
            for e, arm in per_seed.items()
        },
    }
    result["frontier"] = frontier(result)
    return result


def _fmt(x: float) -> str:
    return "0" if x == 0 else "1" if x == 1 else f"{x:.2f}".lstrip("0")


def format_attack_table(result: dict[str, Any]) -> str:
    """The matrix as text: one row per policy, source and arm; one column group per metric.

    Each group lists its value at every attacker size (``n=1/5/40/400``); a change cost with a
    ``+`` was censored in at least one seed (the value is a lower bound).
    """
    cfg = result["config"]
    sizes = cfg["sizes"]
    by = {(c["policy"], c["mode"], c["executor"], c["size"]): c for c in result["cells"]}
    head = "/".join(str(n) for n in sizes)
    lines = [
        f"attack matrix: {result['seeds']} seeds ({cfg['seed_range'][0]}..), "
        f"{cfg['reads']} reads, verified value with {cfg['verified_outcomes']} successful "
        f"outcomes, world {cfg['p_right']}/{cfg['p_wrong']}, {cfg['seconds']} s",
        "  poisoned: share of reads serving the attacker's value; unavailable: share of reads "
        "not serving the verified one;",
        "  change: interactions until a genuine change (the user states the new value each time) "
        f"is what get() returns ('+': censored at {cfg['change_budget']} in some seed); "
        "corr.: the same when the user's statements are corrections.",
        "  sources: one = 'web'; ten = bot0..bot9 (undeclared); spoof = 'user'; "
        "spoof-correction = 'user' marking corrections.",
    ]
    cols = (
        f"{'policy':<18} {'source':<17} {'exec':<4} {'poisoned n=' + head:<22} "
        f"{'unavailable n=' + head:<22} {'change n=' + head:<27}{'corr. n=' + head}"
    )
    lines += [cols, "-" * len(cols)]
    for p in cfg["policies"]:
        for m in cfg["modes"]:
            for e in cfg["executors"]:
                row = [by.get((p, m, e, n)) for n in sizes]
                if any(c is None for c in row):
                    continue
                pois = " ".join(f"{_fmt(c['poisoned']):>4}" for c in row if c)
                unav = " ".join(f"{_fmt(c['unavailable']):>4}" for c in row if c)
                cost = " ".join(
                    f"{c['change_cost']:>4g}{'+' if c['censored'] else ' '}" for c in row if c
                )
                corr = " ".join(
                    f"{c['correction_cost']:>4g}{'+' if c['correction_censored'] else ' '}"
                    for c in row
                    if c
                )
                lines.append(
                    f"{p:<18} {m:<17} {'yes' if e else 'no':<4} {pois:<22} {unav:<22} "
                    f"{cost:<27}{corr}"
                )
    return "\n".join([*lines, *frontier_lines(result), *regret_lines(result)])


def regret_lines(result: dict[str, Any], cost: float | None = None) -> list[str]:
    """Per policy and arm: trials and regret at the declared trial cost and the cost axis.

    Summed over the matrix's cells (means over seeds).
    """
    from tepa_bench.regret import COST_AXIS, TRIAL_COST, verdict_lines

    declared, why = TRIAL_COST["attack"]
    axis = sorted({*COST_AXIS, declared if cost is None else cost})
    lines = [f"regret = user-facing failures + c x trials, summed over the cells ({why})"]
    for p in result["config"]["policies"]:
        for e in result["config"]["executors"]:
            cells = [c for c in result["cells"] if c["policy"] == p and c["executor"] is e]
            if not cells or "failures" not in cells[0]:
                continue
            f = sum(c["failures"] for c in cells)
            t = sum(c["trials"] for c in cells)
            vals = " ".join(f"c={c:g}:{f + c * t:.1f}" for c in axis)
            lines.append(f"  {p:<18} {'exec' if e else 'no-exec':<8} trials {t:6.1f}  {vals}")
    for arm, block in (result.get("regret") or {}).items():  # paired over seeds (issue 39)
        lines.append(f"  [{arm}] TEPA-Full's verdicts on the per-seed sums over the cells:")
        lines += [f"  {line}" for line in verdict_lines(block["regret_verdicts"])]
    return lines


def _scenario(options: Any) -> dict[str, Any]:
    policies = attack_policies()
    if options.methods:
        wanted = list(options.methods)
        unknown = set(wanted) - set(policies)
        if unknown:
            raise InvalidArgumentError(
                f"unknown policies {sorted(unknown)}; choose from {', '.join(policies)}"
            )
        policies = [p for p in policies if p in wanted]
    seeds = options.seeds or (2 if options.quick else 5)
    if seeds < 1:
        raise InvalidArgumentError(f"--seeds must be >= 1, got {seeds}")
    known = set(AttackConfig.__dataclass_fields__)
    unknown = set(options.overrides) - known
    if unknown:
        raise InvalidArgumentError(
            f"unknown attack settings {sorted(unknown)}; known: {sorted(known)}"
        )
    overrides: dict[str, Any] = {k: _setting(k, v) for k, v in options.overrides.items()}
    if options.quick:
        overrides.setdefault("sizes", (1, 40))
    config = AttackConfig(**overrides)
    args = options.args
    first = getattr(args, "first_seed", 1000)
    gates, tuning = gates_for(
        policies,
        lambda n: tune_attack_gate(config, n),
        tuning_seeds=getattr(args, "gate_tuning_seeds", 40),
        first_seed=first,
        seeds=seeds,
    )
    result = run_attack(
        policies,
        seeds,
        config,
        workers=max(1, options.workers),
        progress=options.progress,
        gates=gates,
        first_seed=first,
    )
    result["config"]["gate_tuning"] = tuning
    return result


def tune_attack_gate(config: AttackConfig, seeds: int) -> tuple[GateSetting, list[Any]]:
    """The trial-gated baseline's setting, chosen on the tuning seeds.

    The lowest regret summed over the matrix's cells, with an executor.
    """

    def score(gate: GateSetting, seed: int) -> tuple[float, float]:
        f = t = 0.0
        for mode in config.modes:
            for size in config.sizes:
                run = run_cell(
                    gate.label, size, mode, executor=True, seed=seed, config=config, gate=gate
                )
                f += run["failures"]
                t += run["trials"]
        return f, t

    return tune_gate(score, seeds, DECLARED_COST)


def _setting(name: str, value: Any) -> Any:
    """A ``--set`` value: the tuple fields take comma-separated lists (``--set sizes=1,40``)."""
    if name not in ("sizes", "modes", "executors"):
        return value
    items = value if isinstance(value, list | tuple) else str(value).split(",")
    if name == "sizes":
        return tuple(int(x) for x in items)
    if name == "executors":
        return tuple(str(x).strip().lower() in ("true", "yes", "1") for x in items)
    return tuple(str(x).strip() for x in items)


def _register() -> None:
    from tepa_bench.registry import ScenarioEntry, register_scenario

    register_scenario(
        ScenarioEntry(
            "attack",
            "attack matrix: poisoning a verified fact, every policy, with and without executor",
            _scenario,
            table=format_attack_table,
            plot=plot_frontier,
            demo=False,
            configure=lambda p: add_seed_arguments(p, first_seed=1000, tuning=40),
        )
    )


_register()
