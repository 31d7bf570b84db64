"""Executors: sync, async and Runnable; errors, timeouts and bad answers; concurrency."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain_core.runnables import RunnableLambda

from langchain_tepa import EvidenceKind, InvalidArgumentError, TEPAMemory
from langchain_tepa.graph import (
    Decision,
    Trial,
    TrialExecutor,
    TrialKind,
    build_trial_graph,
    coerce_success,
    run_trials,
)

KEY = "user.pizza"


def make_memory() -> TEPAMemory:
    """Pineapple Active (promoted by hand), mushroom a Hypothesis."""
    mem = TEPAMemory.in_memory(policy="tepa-full")
    mem.observe(KEY, "pineapple")
    mem.promote(KEY, "pineapple", reason="promoted by hand: seed")
    mem.observe(KEY, "mushroom")
    return mem


@pytest.fixture
def memory() -> TEPAMemory:
    return make_memory()


def mushroom_works(trial: Trial) -> bool:
    return bool(trial.lookup(KEY)) and trial.lookup(KEY)[-1] == "mushroom"


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Lets blocked executor threads finish when the test ends."""
    event = threading.Event()
    yield event
    event.set()


def decisions_of(out: dict[str, Any]) -> list[Decision]:
    return [Decision.from_dict(d) for d in out["decisions"]]


# ---------------------------------------------------------------------- errors and timeouts
@pytest.mark.parametrize("use_graph", [False, True])
def test_executor_error_is_a_failed_trial(memory: TEPAMemory, use_graph: bool) -> None:
    def flaky(trial: Trial) -> bool:
        if trial.kind is TrialKind.POLLUTED:
            raise RuntimeError("browser crashed")
        return mushroom_works(trial)

    if use_graph:
        (d,) = decisions_of(build_trial_graph(memory, flaky).invoke({"key": KEY}))
    else:
        (d,) = run_trials(memory, flaky, key=KEY)
    by_kind = {r.kind: r for r in d.results}
    polluted = by_kind[TrialKind.POLLUTED]
    assert polluted.positive is False
    assert polluted.error == "executor raised RuntimeError: browser crashed"
    # The other trials ran; 2/3 still promotes.
    assert by_kind[TrialKind.SUPPORTIVE].positive and by_kind[TrialKind.COUNTERFACTUAL].positive
    assert d.action == "promote"
    trials = [e for e in memory.history(KEY) if e.kind is EvidenceKind.TRIAL]
    assert any("browser crashed" in (e.reason or "") and e.outcome is False for e in trials)


@pytest.mark.parametrize("use_graph", [False, True])
def test_timeout_is_a_failed_trial(
    memory: TEPAMemory, release: threading.Event, use_graph: bool
) -> None:
    def slow_when_polluted(trial: Trial) -> bool:
        if trial.kind is TrialKind.POLLUTED:
            release.wait(30)  # hangs until the test ends
        return mushroom_works(trial)

    if use_graph:
        graph = build_trial_graph(memory, slow_when_polluted, timeout_s=0.2)
        (d,) = decisions_of(graph.invoke({"key": KEY}))
    else:
        (d,) = run_trials(memory, slow_when_polluted, key=KEY, timeout_s=0.2)
    polluted = next(r for r in d.results if r.kind is TrialKind.POLLUTED)
    assert (polluted.positive, polluted.error) == (False, "timed out after 0.2 s")
    assert d.positive == 2
    assert d.action == "promote"


async def test_async_timeout_and_error(memory: TEPAMemory) -> None:
    async def executor(trial: Trial) -> bool:
        if trial.kind is TrialKind.POLLUTED:
            await asyncio.sleep(30)
        if trial.kind is TrialKind.COUNTERFACTUAL:
            raise ValueError("no table free")
        return mushroom_works(trial)

    graph = build_trial_graph(memory, executor, timeout_s=0.2)
    (d,) = decisions_of(await graph.ainvoke({"key": KEY}))
    errors = {r.kind: r.error for r in d.results}
    assert errors == {
        TrialKind.SUPPORTIVE: None,
        TrialKind.COUNTERFACTUAL: "executor raised ValueError: no table free",
        TrialKind.POLLUTED: "timed out after 0.2 s",
    }
    assert d.action == "reject"  # 1/3
    assert memory.get(KEY) == "pineapple"


@pytest.mark.parametrize("answer", ["yes", None, 1, {"success": "true"}])
def test_non_boolean_answer_is_a_failed_trial(memory: TEPAMemory, answer: object) -> None:
    (d,) = run_trials(memory, lambda trial: answer, key=KEY)
    assert d.positive == 0
    assert all("return True/False" in (r.error or "") for r in d.results)


def test_coerce_success_forms() -> None:
    import numpy as np

    class Outcome:
        success = True

    assert coerce_success(True) is True
    assert coerce_success(np.bool_(False)) is False
    assert coerce_success({"success": True, "log": "..."}) is True
    assert coerce_success(Outcome()) is True
    with pytest.raises(TypeError):
        coerce_success("True")


# ---------------------------------------------------------------------- kinds of executor
async def test_async_executor_in_graph_and_run_trials(memory: TEPAMemory) -> None:
    async def executor(trial: Trial) -> bool:
        await asyncio.sleep(0)
        return mushroom_works(trial)

    # Sync helper: the coroutine runs in a worker thread's own loop.
    twin = make_memory()
    sync_decisions = await asyncio.to_thread(run_trials, twin, executor, key=KEY)
    (d,) = decisions_of(await build_trial_graph(memory, executor).ainvoke({"key": KEY}))
    assert d.action == sync_decisions[0].action == "promote"
    assert memory.get(KEY) == twin.get(KEY) == "mushroom"


def test_async_callable_object_is_awaited(memory: TEPAMemory) -> None:
    class Agent:
        async def __call__(self, trial: Trial) -> dict[str, bool]:
            return {"success": mushroom_works(trial)}

    (d,) = run_trials(memory, Agent(), key=KEY)
    assert d.action == "promote"


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_runnable_executor(memory: TEPAMemory, mode: str) -> None:
    seen: list[Trial] = []

    def agent(trial: Trial) -> dict[str, bool]:
        seen.append(trial)
        return {"success": mushroom_works(trial)}

    runnable = RunnableLambda(agent)
    graph = build_trial_graph(memory, runnable)
    if mode == "invoke":
        out = await asyncio.to_thread(graph.invoke, {"key": KEY})
    else:
        out = await graph.ainvoke({"key": KEY})
    (d,) = decisions_of(out)
    assert d.action == "promote"
    assert all(isinstance(t, Trial) for t in seen)
    # The counterfactual ran twice: control (candidate) and competitor.
    arms = sorted(t.arm for t in seen if t.kind is TrialKind.COUNTERFACTUAL)
    assert arms == ["control", "main"]


def test_counterfactual_skips_competitor_when_candidate_fails(memory: TEPAMemory) -> None:
    calls: list[tuple[str, str]] = []

    def never(trial: Trial) -> bool:
        calls.append((trial.kind.value, trial.arm))
        return False

    run_trials(memory, never, key=KEY)
    assert ("counterfactual", "control") in calls
    assert ("counterfactual", "main") not in calls


# ---------------------------------------------------------------------- concurrency
def _many_trials(memory: TEPAMemory, n: int) -> Callable[[TEPAMemory, Any], list[Trial]]:
    def build(mem: TEPAMemory, cand: Any) -> list[Trial]:
        return [
            Trial(
                f"{cand.precedent_id}.{i}",
                TrialKind.SUPPORTIVE,
                cand.namespace,
                cand.key,
                cand.value,
                f"task {i}",
                ((cand.key, cand.value),),
                value=cand.value,
            )
            for i in range(n)
        ]

    return build


class Gauge:
    """Counts executor calls running at once; a barrier proves that two do overlap."""

    def __init__(self, parties: int) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0
        self.barrier = threading.Barrier(parties, timeout=10)

    def __call__(self, trial: Trial) -> bool:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            self.barrier.wait()  # raises BrokenBarrierError if the calls never overlap
            return True
        finally:
            with self.lock:
                self.now -= 1


@pytest.mark.parametrize("use_graph", [False, True])
def test_concurrency_limit(memory: TEPAMemory, use_graph: bool) -> None:
    gauge = Gauge(parties=2)
    builder = _many_trials(memory, 8)
    if use_graph:
        graph = build_trial_graph(memory, gauge, trial_builder=builder, max_concurrency=2)
        (d,) = decisions_of(graph.invoke({"key": KEY}))
    else:
        (d,) = run_trials(memory, gauge, key=KEY, trial_builder=builder, max_concurrency=2)
    assert d.positive == 8  # every call met a partner at the barrier: two ran at once
    assert gauge.peak == 2


async def test_async_concurrency_limit(memory: TEPAMemory) -> None:
    now = peak = 0
    both = asyncio.Event()

    async def executor(trial: Trial) -> bool:
        nonlocal now, peak
        now += 1
        peak = max(peak, now)
        if now == 2:
            both.set()
        try:
            await asyncio.wait_for(both.wait(), 10)
            await asyncio.sleep(0)
            return True
        finally:
            now -= 1

    graph = build_trial_graph(
        memory, executor, trial_builder=_many_trials(memory, 6), max_concurrency=2
    )
    (d,) = decisions_of(await graph.ainvoke({"key": KEY}))
    assert d.positive == 6
    assert peak == 2


@pytest.mark.parametrize(
    "kwargs",
    [{"timeout_s": 0}, {"timeout_s": -1}, {"timeout_s": float("inf")}, {"max_concurrency": 0}],
)
def test_executor_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgumentError):
        TrialExecutor(lambda t: True, **kwargs)
    with pytest.raises(InvalidArgumentError):
        TrialExecutor("not callable")  # type: ignore[arg-type]
