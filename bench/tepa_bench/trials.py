"""TEPA-Full in the drift benchmarks: trial-by-execution decides which Hypotheses become Active.

After each episode of the ``tepa-full`` method, when the task's key holds a Hypothesis, the
runner calls the trial machinery of :mod:`langchain_tepa.graph` (``TrialRunner``: supportive,
counterfactual and polluted trials, the judge, promotion or rejection). The trial executor is
the benchmark agent acting on the value the trial's view gives the key; with no value in the
view (a counterfactual against "no memory") it explores uniformly, as the agent does without
evidence. It holds only a :class:`~tepa_bench.world.WorldChannel`: it can execute an
action in the world and observe the outcome, nothing else (no phase, no schedule, no working
action). Every trial execution is **charged**: it uses one interaction of the task's budget
and its outcome counts in the method's score. Trials run only when the task's budget still
holds every execution they may need (two per counterfactual, one otherwise), and only for
*contenders*: Hypotheses that could become the key's answer (``contenders_only``). Values with
a successful outcome are promoted by the posterior rule without trials (``promote_on_outcomes``),
so in these worlds, where every value the agent meets comes from acting on it, ``tepa-full``
runs no trial. ``tepa-full-trials`` is the paper's TEPA-Full (``promote_on_outcomes=False``):
a value that worked stays a Hypothesis (a contender) until trial-by-execution promotes it, so
its trials do run, through the same hook and charged the same way.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> from tepa_bench.drift import DriftConfig, DriftWorld
    >>> from tepa_bench.world import WorldChannel
    >>> world = DriftWorld(DriftConfig(tasks=1, p_right=1.0, p_wrong=0.0), seed=0)
    >>> memory = TEPAMemory.in_memory(policy="tepa-full")
    >>> _ = memory.observe(world.tasks[0].key, "beta")  # an assertion alone waits for a trial
    >>> log = []
    >>> hook = make_trial_hook(memory, WorldChannel(world, log.append))
    >>> hook(0) == len(log) == world.clock(0) > 0     # every trial is an interaction
    True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from langchain_tepa.core.types import Lifecycle
from langchain_tepa.graph import DefaultTrialBuilder, TrialRunner
from langchain_tepa.memory import TEPAMemory
from tepa_bench.world import WorldChannel

__all__ = ["CONTENDERS_ONLY", "make_trial_hook", "max_executions", "trial_runner"]

CONTENDERS_ONLY = True
"""TEPA-Full tests only the Hypotheses that could become the key's answer (the trial runner's
``contenders_only``). In the drift worlds every value comes from acting on it, so contenders
are rare (none in the runs the tests make); tests set it to ``False`` to force the trial path."""


def max_executions(trials: list[object]) -> int:
    """The most world executions a list of trials may need (a counterfactual may need two)."""
    return sum(2 if getattr(t, "kind", None) == "counterfactual" else 1 for t in trials)


def trial_runner(
    memory: TEPAMemory,
    executor: Callable[[Any], bool],
    builder: DefaultTrialBuilder,
    *,
    contenders_only: bool,
    trial_cost: float | None = None,
) -> TrialRunner:
    """The trial runner every benchmark gives TEPA-Full: one trial at a time, contenders only.

    Under TEPA-Full's trial gate (issue 28) the trials stop once the verdict is settled
    (cheapest first), and the runner is told the world's declared trial cost (issue 39,
    :data:`~tepa_bench.regret.TRIAL_COST`): it runs a trial only where the evidence cannot
    settle the candidate at that price. The paper's TEPA-Full (``tepa-full-trials``) runs every
    trial, as the paper does.
    """
    gate = memory.policy.trial_gate
    return TrialRunner(
        memory,
        executor,
        trial_builder=builder,
        max_concurrency=1,
        contenders_only=contenders_only,
        sequential=gate,
        trial_cost=trial_cost if gate else None,
    )


def make_trial_hook(
    memory: TEPAMemory, channel: WorldChannel, *, seed: int = 0, trial_cost: float | None = None
) -> Callable[[int], int]:
    """A hook ``task_index -> trial executions`` for the runner (the trial methods only).

    ``trial_cost``: the world's declared cost of a trial, told to TEPA-Full's runner.
    """
    rng = random.Random(f"tepa-full-explore-{seed}")
    tasks = channel.tasks
    index = {task.key: i for i, task in enumerate(tasks)}
    count = {"n": 0}

    def executor(trial: object) -> bool:
        i = index[trial.key]  # type: ignore[attr-defined]
        value = trial.value  # type: ignore[attr-defined]
        actions = tasks[i].actions
        action = value if value in actions else rng.choice(actions)
        count["n"] += 1
        return channel.execute(i, action)

    runners = {
        task.key: trial_runner(
            memory,
            executor,
            DefaultTrialBuilder(tasks=[task.text], context_k=0),
            contenders_only=CONTENDERS_ONLY,
            trial_cost=trial_cost,
        )
        for task in tasks
    }

    def hook(task_index: int) -> int:
        key = tasks[task_index].key
        audit = memory.audit(key)
        states = {p.state for p in audit.precedents}
        if Lifecycle.HYPOTHESIS not in states and (
            Lifecycle.ACTIVE in states or not memory.policy.trial_gate
        ):
            return 0  # no contender (an empty key's last answer is one under the gate)
        runner = runners[key]
        # select() keeps the contenders only; build() asks the memory for their trials
        planned = runner.build(runner.select(key=key))
        if not planned or max_executions(list(planned)) > channel.remaining(task_index):
            return 0
        before = count["n"]
        runner.run(key=key)
        return count["n"] - before

    return hook
