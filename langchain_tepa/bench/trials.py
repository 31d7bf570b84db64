"""TEPA-Full in the drift benchmarks: trial-by-execution decides which Hypotheses become Active.

After each episode of the ``tepa-full`` method, when the task's key holds a Hypothesis, the
runner calls the trial machinery of :mod:`langchain_tepa.graph` (``TrialRunner``: supportive,
counterfactual and polluted trials, the judge, promotion or rejection). The trial executor is
the benchmark agent acting on the value the trial's view gives the key: it runs that action in
the world (a real export into a sandbox folder for ``filedrift``; a separate stream of noisy
draws for ``drift``); with no value in the view (a counterfactual against "no memory") it
explores uniformly, as the agent does without evidence. Trials are extra executions outside
the scored episodes; the runner reports how many were run.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> from langchain_tepa.bench.drift import DriftConfig, DriftWorld
    >>> world = DriftWorld(DriftConfig(tasks=1, p_right=1.0, p_wrong=0.0), seed=0)
    >>> memory = TEPAMemory.in_memory(policy="tepa-full")
    >>> right = world.correct_action(0, "acquisition")
    >>> _ = memory.record_outcome(world.tasks[0].key, right, True)
    >>> hook = make_trial_hook(memory, world)
    >>> hook(0, "acquisition") > 0
    True
"""

from __future__ import annotations

import random
from collections.abc import Callable

from langchain_tepa.bench.world import World
from langchain_tepa.core.types import Lifecycle
from langchain_tepa.memory import TEPAMemory

__all__ = ["make_trial_hook"]


def make_trial_hook(
    memory: TEPAMemory, world: World, *, seed: int = 0
) -> Callable[[int, str], int]:
    """A hook ``(task_index, phase) -> trials run`` for the runner (``tepa-full`` only)."""
    from langchain_tepa.graph import DefaultTrialBuilder, TrialRunner

    rng = random.Random(f"tepa-full-explore-{seed}")
    index = {task.key: i for i, task in enumerate(world.tasks)}
    current = {"phase": "acquisition"}
    count = {"n": 0}

    def executor(trial: object) -> bool:
        i = index[trial.key]  # type: ignore[attr-defined]
        value = trial.value  # type: ignore[attr-defined]
        actions = world.tasks[i].actions
        action = value if value in actions else rng.choice(actions)
        count["n"] += 1
        return world.trial(i, action, current["phase"])

    builders = {
        task.key: DefaultTrialBuilder(tasks=[task.text], context_k=0) for task in world.tasks
    }
    runners = {
        key: TrialRunner(memory, executor, trial_builder=b, max_concurrency=1)
        for key, b in builders.items()
    }

    def hook(task_index: int, phase: str) -> int:
        key = world.tasks[task_index].key
        audit = memory.audit(key)
        if not any(p.state is Lifecycle.HYPOTHESIS for p in audit.precedents):
            return 0
        current["phase"] = phase
        before = count["n"]
        runners[key].run(key=key)
        return count["n"] - before

    return hook
