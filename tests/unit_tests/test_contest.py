"""Issue 28, trials where they pay: TEPA-Full's trial gate (core/contest.py).

With an executor, the contested cases wait for trials instead of the rules: (a) a plain change
against a value with successes, (b) a correction against one, are not adopted by the rules;
(c) a passing trial adopts the change at its first statement; (d) a failing one keeps the
incumbent, says why in the audit, and its verdict stands against repeated assertions until an
Active value fails; (e) the attack matrix's spoofed `user` with an executor poisons no read.
Each rule's test is also run with the gate off, where it must fail (``gate_off``).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, LifecyclePolicy, PolicyError, TEPAMemory
from langchain_tepa.core.changes import CHANGE_SOURCES
from langchain_tepa.core.contest import TrialGate

KEY = "user.city"
FULL = LifecyclePolicy.preset("tepa-full")
NO_GATE = LifecyclePolicy.preset(
    "tepa-full", trial_gate=False, revise_own=True, change_sources=CHANGE_SOURCES
)
"""TEPA-Full with the default's change rules and no gate: the rules decide the contested cases
(``tepa-full`` itself has no change rules: without the gate a correction decides)."""


def memory(policy: LifecyclePolicy = FULL) -> TEPAMemory:
    ticks = itertools.count(1)
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=policy, clock=lambda: float(next(ticks))
    )


def lisbon(mem: TEPAMemory, successes: int = 4) -> None:
    mem.observe(KEY, "Lisbon", source="user")
    for _ in range(successes):
        mem.record_outcome(KEY, "Lisbon", True)


def states(mem: TEPAMemory) -> dict[str, str]:
    return {p.value: p.state.value for p in mem.audit(KEY).precedents}


def works(value: str) -> Any:
    """A trial executor for a world in which only ``value`` works (it reads the trial only)."""

    def run(trial: Any) -> bool:
        return bool(trial.value == value)

    return run


def sequential_runner(mem: TEPAMemory, executor: Any, *, sequential: bool = True) -> Any:
    """The benchmarks' TEPA-Full runner: one competitor, no context, contenders only."""
    from langchain_tepa.graph import DefaultTrialBuilder, TrialRunner

    return TrialRunner(
        mem,
        executor,
        trial_builder=DefaultTrialBuilder(context_k=0, max_competitors=1),
        max_concurrency=1,
        contenders_only=True,
        sequential=sequential,
    )


def trials(mem: TEPAMemory, executor: Any) -> list[Any]:
    from langchain_tepa.graph import DefaultTrialBuilder, run_trials

    return run_trials(
        mem,
        executor,
        key=KEY,
        trial_builder=DefaultTrialBuilder(context_k=0, max_competitors=1),
        max_concurrency=1,
        contenders_only=True,
    )


def test_the_gate_is_tepa_full_s_and_validated() -> None:
    assert FULL.trial_gate and isinstance(FULL.rules.gate, TrialGate)
    assert LifecyclePolicy().rules.gate is None
    assert LifecyclePolicy.preset("tepa-full", trust=None).rules.gate is None  # needs trust
    with pytest.raises(PolicyError, match="promotion='trials'"):
        LifecyclePolicy(trial_gate=True)
    assert LifecyclePolicy.from_dict(FULL.to_dict()) == FULL


# ---------------------------------------------------------------------- (a), (b) held
@pytest.mark.parametrize("policy", [FULL, NO_GATE], ids=["gate", "gate_off"])
def test_a_plain_change_against_successes_waits_for_trials(policy: LifecyclePolicy) -> None:
    mem = memory(policy)
    lisbon(mem)
    for _ in range(3):
        mem.observe(KEY, "Oslo", source="user")
    if policy is NO_GATE:  # the change rule adopts it on assertions alone
        assert mem.get(KEY) == "Oslo"
        return
    assert mem.get(KEY) == "Lisbon"
    assert states(mem) == {"Lisbon": "active", "Oslo": "hypothesis"}


@pytest.mark.parametrize("policy", [FULL, NO_GATE], ids=["gate", "gate_off"])
def test_a_correction_against_successes_waits_for_trials(policy: LifecyclePolicy) -> None:
    mem = memory(policy)
    lisbon(mem)
    mem.observe(KEY, "Oslo", source="user", correction=True)
    if policy is NO_GATE:
        assert mem.get(KEY) == "Oslo"
        return
    assert mem.get(KEY) == "Lisbon"
    assert states(mem)["Oslo"] == "hypothesis"


def test_an_uncontested_change_needs_no_trial() -> None:
    """No success behind the old value: the change rules decide, as under the default."""
    mem = memory()
    mem.observe(KEY, "Lisbon", source="user")
    mem.observe(KEY, "Oslo", source="user", correction=True)
    assert mem.get(KEY) == "Oslo"


# ---------------------------------------------------------------------- (c) adopted at once
@pytest.mark.parametrize("policy", [FULL, NO_GATE], ids=["gate", "gate_off"])
def test_a_passing_trial_adopts_the_change_at_its_first_statement(
    policy: LifecyclePolicy,
) -> None:
    mem = memory(policy)
    lisbon(mem)
    mem.observe(KEY, "Lisbon", source="user")  # said again after it worked: their standing belief
    mem.observe(KEY, "Oslo", source="user")
    decisions = trials(mem, works("Oslo"))
    if policy is NO_GATE:  # not a contender: the answer outweighs it, no trial runs
        assert decisions == []
        assert mem.get(KEY) == "Lisbon"
        return
    assert [d.action for d in decisions] == ["promote"]
    assert mem.get(KEY) == "Oslo"
    old = next(p for p in mem.audit(KEY).precedents if p.value == "Lisbon")
    assert old.state.value == "revoked"
    assert old.revocation is not None
    assert old.revocation.reason == "revoked: 'Oslo' adopted after its trials (trial gate)"


# ---------------------------------------------------------------------- (d) verdicts stand
@pytest.mark.parametrize("policy", [FULL, NO_GATE], ids=["gate", "gate_off"])
def test_a_failing_trial_keeps_the_incumbent_and_its_verdict_stands(
    policy: LifecyclePolicy,
) -> None:
    mem = memory(policy)
    lisbon(mem)
    evil = "Atlantis"
    for _ in range(2):
        mem.observe(KEY, evil, source="user", correction=True)
    decisions = trials(mem, works("Lisbon"))
    if policy is NO_GATE:  # the correction was adopted on the spot, before any trial
        assert mem.get(KEY) == evil
        return
    assert [d.action for d in decisions] == ["reject"]
    assert mem.get(KEY) == "Lisbon"
    rejected = next(p for p in mem.audit(KEY).precedents if p.value == evil)
    assert rejected.revocation is not None
    assert rejected.revocation.reason.startswith("rejected: trials 0/")
    for _ in range(5):  # repeating the rejected value buys no revival and no new trial
        mem.observe(KEY, evil, source="user", correction=True)
        assert states(mem)[evil] == "revoked"
        assert trials(mem, works("Lisbon")) == []
    assert mem.get(KEY) == "Lisbon"
    mem.record_outcome(KEY, "Lisbon", False)  # the world may have changed: trials again
    mem.observe(KEY, evil, source="user")
    assert states(mem)[evil] == "hypothesis"
    assert [d.action for d in trials(mem, works("Lisbon"))] == ["reject"]


def test_a_glitch_of_the_incumbent_does_not_reopen_a_verdict() -> None:
    """A trial only on new evidence since the value's last trial: the incumbent's failure
    suspends the verdict (a restatement then gets trials), its next success restores it (the
    failure was a glitch), and the attacker's repeats buy no trial again."""
    mem = memory()
    lisbon(mem)
    evil = "Atlantis"
    for _ in range(2):
        mem.observe(KEY, evil, source="user", correction=True)
    assert [d.action for d in trials(mem, works("Lisbon"))] == ["reject"]
    mem.record_outcome(KEY, "Lisbon", False)  # a glitch
    mem.record_outcome(KEY, "Lisbon", True)  # the answer works: nothing new for Atlantis
    for _ in range(3):
        mem.observe(KEY, evil, source="user", correction=True)
        assert states(mem)[evil] == "revoked"
        assert trials(mem, works("Lisbon")) == []  # before the rule: a trial round each time
    mem.record_outcome(KEY, "Lisbon", False)  # the answer fails and that is its newest outcome
    mem.observe(KEY, evil, source="user")
    assert states(mem)[evil] == "hypothesis"
    # the failure also revoked Lisbon (the recent window): the empty key's last answer is
    # tried beside Atlantis, and restored
    assert states(mem)["Lisbon"] == "revoked"
    decisions = trials(mem, works("Lisbon"))
    assert [(d.value, d.action) for d in decisions] == [("Lisbon", "promote"), (evil, "reject")]
    mem.record_outcome(KEY, "Lisbon", True)
    mem.observe(KEY, evil, source="user")  # the new verdict stands too
    assert trials(mem, works("Lisbon")) == []


def test_a_failure_while_the_key_answers_nothing_suspends_the_verdicts() -> None:
    """Issue 39: the user's new address failed its one trial (noise), the old one then failed
    twice and was revoked: the key answers nothing, and the agent's guesses fail. Such a
    failure suspends the verdicts as an Active value's does: the user's restatement of the
    rejected address revives it for a trial (before: it stayed barred until a guess happened
    to land on it and work)."""
    mem = memory()
    lisbon(mem)
    for _ in range(2):
        mem.record_outcome(KEY, "Lisbon", False)
    assert mem.get(KEY) is None and states(mem)["Lisbon"] == "revoked"
    mem.observe(KEY, "Oslo", source="user")
    decisions = trials(mem, works("nowhere"))  # noise: Oslo (and the last answer) fail
    assert {(d.value, d.action) for d in decisions} >= {("Oslo", "reject")}
    rejected = mem.audit(KEY).rejected
    assert any(p.value == "Oslo" and p.value_id in rejected for p in mem.audit(KEY).precedents)
    mem.observe(KEY, "Oslo", source="user")
    assert states(mem)["Oslo"] == "revoked"  # a repeat is no new evidence
    mem.record_outcome(KEY, "Porto", False)  # nothing served: the agent's guess fails
    mem.observe(KEY, "Oslo", source="user")  # the user says it again
    assert states(mem)["Oslo"] == "hypothesis"
    assert mem.audit(KEY).rejected == frozenset()


def test_the_ledger_copies_suspended_verdicts() -> None:
    from langchain_tepa.core.ledger import TrustLedger

    ledger = TrustLedger(judged={"a": 1.0}, suspended={"b": 2.0})
    copy = ledger.copy()
    copy.suspended["c"] = 3.0
    assert copy.judged == {"a": 1.0} and ledger.suspended == {"b": 2.0}


def test_a_verdict_is_lifted_by_a_success_of_the_rejected_value() -> None:
    mem = memory()
    lisbon(mem)
    mem.observe(KEY, "Oslo", source="user")
    trials(mem, works("Lisbon"))
    assert states(mem)["Oslo"] == "revoked"
    mem.record_outcome(KEY, "Oslo", True)  # a real execution of it succeeded
    assert states(mem)["Oslo"] == "hypothesis"


def test_a_revocation_by_hand_is_no_verdict() -> None:
    """Only a revocation after trials bars revival by assertions (the gate's verdict)."""
    mem = memory()
    lisbon(mem)
    mem.observe(KEY, "Oslo", source="user")
    mem.revoke(KEY, "Oslo", reason="by hand")
    mem.observe(KEY, "Oslo", source="user")
    assert states(mem)["Oslo"] == "hypothesis"


# ---------------------------------------------------------------------- (e) the attack world
# ---------------------------------------------------------------------- sequential trials
@pytest.mark.parametrize("sequential", [True, False], ids=["sequential", "all_trials"])
def test_sequential_trials_stop_once_the_verdict_is_settled(sequential: bool) -> None:
    """Cheapest first, and no trial that cannot change the decision: two executions decide a
    change that works and one a change whose supportive trial fails (it can no longer be
    promoted; four and three without: a counterfactual trial whose control run fails skips
    its competitor), with the same decisions."""
    cases = (
        ("Oslo", "promote", 4, ["supportive", "polluted"]),
        ("Lisbon", "reject", 3, ["supportive"]),
    )
    for works_now, action, every, cheapest in cases:
        mem = memory()
        lisbon(mem)
        mem.observe(KEY, "Oslo", source="user")
        calls: list[str] = []

        def run(trial: Any, calls: list[str] = calls, value: str = works_now) -> bool:
            calls.append(trial.kind.value)
            return bool(trial.value == value)

        runner = sequential_runner(mem, run, sequential=sequential)
        assert [d.action for d in runner.run(key=KEY)] == [action]
        assert calls == cheapest if sequential else len(calls) == every
        recorded = [e for e in mem.history(KEY) if e.kind.value == "trial"]
        # only the trials run are evidence
        assert len(recorded) == (len(cheapest) if sequential else 3)


@pytest.mark.parametrize("incumbent", ["active", "revoked"])
def test_a_candidate_that_cannot_be_promoted_stops_unless_a_restore_is_pending(
    incumbent: str,
) -> None:
    """A failed supportive trial rejects at once (the rest could only keep it unserved), but
    not while a counterfactual against a Revoked competitor is pending: that arm may restore
    the competitor, so the trials go on as before (here: the polluted trial settles it)."""
    mem = memory()
    lisbon(mem)
    if incumbent == "revoked":
        mem.revoke(KEY, "Lisbon", reason="two failures in the field")
    mem.observe(KEY, "Oslo", source="user")
    assert states(mem) == {"Lisbon": incumbent, "Oslo": "hypothesis"}
    calls: list[str] = []

    def sandbox(trial: Any) -> bool:  # only Lisbon works
        calls.append(trial.kind.value)
        return bool(trial.value == "Lisbon")

    assert [d.action for d in sequential_runner(mem, sandbox).run(key=KEY)] == ["reject"]
    assert calls == (["supportive"] if incumbent == "active" else ["supportive", "polluted"])
    assert states(mem)["Oslo"] == "revoked"


def test_a_settled_decision_needs_every_outcome_of_the_rest_to_agree() -> None:
    from langchain_tepa.graph import TrialJudge
    from langchain_tepa.graph.trials import Candidate, TrialKind, TrialResult

    judge = TrialJudge()
    cand = Candidate("default", KEY, "Oslo", "p1", "hypothesis", 1, 0, "user")
    sup = TrialKind.SUPPORTIVE
    ok = TrialResult("s", sup, True)
    bad = TrialResult("s", sup, False)
    rest = [TrialKind.POLLUTED, TrialKind.COUNTERFACTUAL]
    assert judge.settled(cand, [ok], rest) is None  # 1/3 if the rest fail: rejected
    assert judge.settled(cand, [bad], rest) is None  # 2/3 without a supportive success: kept
    pol_ok = TrialResult("p", TrialKind.POLLUTED, True)
    settled = judge.settled(cand, [ok, pol_ok], rest[1:])
    assert settled is not None and settled.action == "promote"
    assert judge.settled(cand, [], rest) is None


# ---------------------------------------------------------------------- the contested world
def test_the_policies_page_example() -> None:
    """docs/policies.md, 'Trials where they pay': the outputs printed there."""
    from langchain_tepa.graph import TrialRunner

    key, good, evil, new = (
        "payments.endpoint",
        "https://bank.example/pay",
        "https://evil.test/pay",
        "https://pay.bank.example/v2",
    )
    mem = memory()
    mem.observe(key, good, source="user")
    for _ in range(5):
        mem.record_outcome(key, good, True)
    works = {good}
    runner = TrialRunner(mem, lambda t: t.value in works, contenders_only=True, sequential=True)
    mem.observe(key, evil, source="user", correction=True)
    assert mem.get(key) == good
    (decision,) = runner.run(key=key)
    assert (decision.action, decision.reason) == (
        "reject",
        "rejected: trials 0/1 positive (0% < 40%)",
    )
    mem.observe(key, evil, source="user", correction=True)
    assert runner.run(key=key) == []
    works = {new}
    mem.observe(key, new, source="user")
    (decision,) = runner.run(key=key)
    assert (decision.action, mem.get(key)) == ("promote", new)
    old = [p for p in mem.audit(key).revoked if p.value == good]
    assert [p.revocation.reason for p in old if p.revocation] == [
        f"revoked: {new!r} adopted after its trials (trial gate)"
    ]


# ---------------------------------------------------------------------- an empty key
def emptied(mem: TEPAMemory) -> None:
    """Lisbon worked four times, then failed twice: the rules revoke it, nothing is served."""
    lisbon(mem)
    for _ in range(2):
        mem.record_outcome(KEY, "Lisbon", False)
    assert states(mem) == {"Lisbon": "revoked"}
    assert mem.get(KEY) is None


def test_an_empty_keys_last_answer_is_tried_and_restored_when_it_works() -> None:
    """Two failures are noise as often as a change: with nothing served, the last answer's
    trials tell, and a passing round restores it at once (before: the key answered nothing
    until someone restated the value)."""
    mem = memory()
    emptied(mem)
    (decision,) = sequential_runner(mem, works("Lisbon")).run(key=KEY)
    assert (decision.action, decision.value) == ("promote", "Lisbon")
    assert mem.get(KEY) == "Lisbon"


def test_a_rejected_last_answer_is_a_verdict_one_round_per_revocation() -> None:
    mem = memory()
    emptied(mem)
    calls: list[str] = []

    def nothing_works(trial: Any) -> bool:
        calls.append(trial.kind.value)
        return False

    runner = sequential_runner(mem, nothing_works)
    assert [d.action for d in runner.run(key=KEY)] == ["reject"]
    assert calls == ["supportive"]
    lisbon_id = mem.audit(KEY).precedents[0].value_id
    assert mem.audit(KEY).rejected == {lisbon_id}
    assert runner.run(key=KEY) == []  # the verdict stands: no second round
    assert calls == ["supportive"]
    mem.record_outcome(KEY, "Lisbon", True)  # a real execution worked: the verdict is lifted
    assert mem.audit(KEY).rejected == frozenset()


@pytest.mark.parametrize("case", ["gate_off", "by_hand", "answer_left", "unclaimed"])
def test_no_last_answer_without_the_gate_after_a_success_or_beside_an_answer(case: str) -> None:
    """Only under the trial gate, only a value whose last execution failed, only while the
    key has no Active value, only a value someone with change authority claimed (one the
    agent found by acting has only its executions, which said it no longer works)."""
    from langchain_tepa.graph.trials import last_answers

    mem = memory(NO_GATE if case == "gate_off" else FULL)
    if case == "by_hand":
        lisbon(mem)
        mem.revoke(KEY, "Lisbon", reason="moved out")
    elif case == "unclaimed":
        for ok in (True,) * 4 + (False,) * 2:
            mem.record_outcome(KEY, "Lisbon", ok)
        assert states(mem) == {"Lisbon": "revoked"}
    else:
        emptied(mem)
    if case == "answer_left":
        mem.observe(KEY, "Oslo", source="user")
        mem.promote(KEY, "Oslo", reason="by hand")
    assert mem.get(KEY) == ("Oslo" if case == "answer_left" else None)
    assert last_answers(mem, mem.precedents(), mem.namespace) == []
    assert [d.action for d in sequential_runner(mem, works("Lisbon")).run(key=KEY)] == []


def test_a_revoked_candidate_with_no_rival_has_no_counterfactual_against_no_value() -> None:
    """Without it the key already serves nothing: "no value" is the counterfactual of a new
    value only. (The attack matrix found the cost: a lucky success of the "no value" arm kept
    the last answer unserved, and the agent's guess then landed on the attacker's value.)"""
    from langchain_tepa.graph import DefaultTrialBuilder
    from langchain_tepa.graph.trials import select_candidates

    mem = memory()
    emptied(mem)
    (cand,) = select_candidates(mem, key=KEY, contenders_only=True)
    built = DefaultTrialBuilder(context_k=0).build_trials(mem, cand)
    assert [t.kind.value for t in built] == ["supportive"]
    fresh = memory()
    fresh.observe(KEY, "Lisbon", source="user")
    (new,) = select_candidates(fresh, key=KEY)
    kinds = [t.kind.value for t in DefaultTrialBuilder(context_k=0).build_trials(fresh, new)]
    assert kinds == ["supportive", "counterfactual"]
