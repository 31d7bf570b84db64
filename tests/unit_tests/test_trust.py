"""Issue 15: sources with declared trust, one-step corrections, the answer rule, poisoning.

One test (or more) per case of the issue's "Why", then the trust table itself, the audit and a
property test of the answer rule.
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_tepa import (
    Evidence,
    EvidenceKind,
    Fact,
    HashingEmbeddings,
    Lifecycle,
    LifecyclePolicy,
    PolicyError,
    TEPAMemory,
)
from langchain_tepa.core import KeyState, apply_evidence
from langchain_tepa.core.trust import (
    DEFAULT_SOURCES,
    SourceTrust,
    TrustLedger,
    TrustPolicy,
    provenance_rows,
)
from langchain_tepa.graph import run_trials
from langchain_tepa.store import TEPAStore
from langchain_tepa.tools import create_memory_tools

TEPA_PRESETS = ("tepa-norev", "tepa-rev", "tepa-cd", "tepa-full", "oracle-rev")
KEY = "user.pizza_topping"


def memory(policy: str | LifecyclePolicy = "tepa-rev") -> TEPAMemory:
    ticks = itertools.count(1)
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=policy, clock=lambda: float(next(ticks))
    )


def states(mem: TEPAMemory, key: str = KEY) -> dict[str, str]:
    return {p.value: p.state.value for p in mem.audit(key).precedents}


def verified(mem: TEPAMemory, value: str = "good", outcomes: int = 5, key: str = KEY) -> None:
    """The user states a value and acting on it succeeds ``outcomes`` times."""
    mem.observe(key, value, source="user")
    for _ in range(outcomes):
        mem.record_outcome(key, value, True)


# ---------------------------------------------------------------------- corrections
def test_one_explicit_correction_supersedes_and_retrieve_returns_only_the_new_value() -> None:
    mem = memory()
    mem.observe(KEY, "pineapple", source="user")
    result = mem.observe(KEY, "mushroom", source="user", correction=True)
    assert [d.metadata["value"] for d in mem.retrieve("pizza", k=4)] == ["mushroom"]
    assert [d.metadata["value"] for d in mem.retrieve("pizza", k=4, all_values=True)] == [
        "mushroom"
    ]
    assert mem.retrieve("pizza")[0].metadata["contested"] is False
    assert states(mem) == {"pineapple": "revoked", "mushroom": "active"}
    old = next(p for p in mem.audit(KEY).precedents if p.value == "pineapple")
    assert old.revocation is not None
    assert old.revocation.reason == "revoked: corrected by user to 'mushroom' (correction)"
    assert old.revocation.evidence_id == result.evidence.id
    assert result.evidence.metadata["correction"] is True


def test_a_correction_supersedes_even_a_verified_value() -> None:
    mem = memory()
    verified(mem, "pineapple", outcomes=30)
    mem.observe(KEY, "mushroom", source="user", correction=True)
    assert mem.get(KEY) == "mushroom"
    new = next(p for p in mem.audit(KEY).precedents if p.value == "mushroom")
    assert [t.reason for t in new.transitions][-1] == "promoted: correction from user"


def test_a_correction_overrules_assertions_not_failing_executions() -> None:
    """While a value's own recent outcomes fail (the outcome veto), a correction to it is a
    plain assertion: whoever can write as the user cannot re-install a value that executions
    keep refuting. A success lifts the veto, and the correction works again."""
    mem = memory()
    mem.observe(KEY, "mushroom", source="user")
    for _ in range(3):
        mem.record_outcome(KEY, "mushroom", False)
    mem.observe(KEY, "pineapple", source="user")
    assert states(mem) == {"mushroom": "revoked", "pineapple": "active"}
    mem.observe(KEY, "mushroom", source="user", correction=True)
    assert states(mem) == {"mushroom": "revoked", "pineapple": "active"}
    mem.record_outcome(KEY, "mushroom", True)  # acting on it works again
    mem.observe(KEY, "mushroom", source="user", correction=True)
    assert mem.get(KEY) == "mushroom"
    assert states(mem)["pineapple"] == "revoked"


@pytest.mark.parametrize("source", ["web", "web.example", "agent", "tool.search", "someone"])
def test_a_correction_from_a_source_not_trusted_to_correct_is_a_plain_assertion(
    source: str,
) -> None:
    mem = memory()
    verified(mem, "pineapple")
    mem.observe(KEY, "mushroom", source=source, correction=True)
    assert mem.get(KEY) == "pineapple"
    assert states(mem)["pineapple"] == "active"
    assert not any(
        "correction" in t.reason for p in mem.audit(KEY).precedents for t in p.transitions
    )


def test_fact_metadata_and_the_offline_extractor_mark_corrections() -> None:
    mem = memory()
    mem.observe_many([Fact(KEY, "pineapple", source="user")])
    mem.observe_many([Fact(KEY, "mushroom", source="user", metadata={"correction": True})])
    assert states(mem) == {"pineapple": "revoked", "mushroom": "active"}

    mem = memory()
    mem.add_texts(["My favourite pizza topping is pineapple."])
    (result,) = mem.add_texts(["My favourite pizza topping is now mushroom."])
    assert result.evidence.metadata["correction"] is True
    assert result.evidence.source == "offline-extractor"
    key = result.evidence.key
    assert [d.metadata["value"] for d in mem.retrieve("pizza", all_values=True)] == ["mushroom"]
    assert states(mem, key) == {"pineapple": "revoked", "mushroom": "active"}


def test_baselines_ignore_corrections_as_the_paper_defines_them() -> None:
    mem = memory("append-only")
    mem.observe(KEY, "pineapple")
    mem.observe(KEY, "mushroom", correction=True)
    assert states(mem) == {"pineapple": "active", "mushroom": "active"}


def test_correction_argument_is_validated() -> None:
    from langchain_tepa import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="correction"):
        memory().observe(KEY, "x", correction="yes")  # type: ignore[arg-type]


async def test_async_correction() -> None:
    mem = memory()
    await mem.aobserve(KEY, "pineapple")
    await mem.aobserve(KEY, "mushroom", correction=True)
    assert await mem.aget(KEY) == "mushroom"


# ---------------------------------------------------------------------- the store
def test_store_profile_edit_as_a_correction_put_and_as_a_store_setting() -> None:
    store = TEPAStore.in_memory()
    ns = ("users", "u1")
    store.put(ns, "diet", {"v": "vegan"})
    for _ in range(5):  # the application acted on it five times, with success
        store.memory.record_outcome("diet", {"v": "vegan"}, True, namespace="users.u1")
    for _ in range(3):
        store.put(ns, "diet", {"v": "keto"})  # plain puts: evidence, the verified value holds
    assert store.get(ns, "diet").value == {"v": "vegan"}
    store.put(ns, "diet", {"v": "keto"}, correction=True)
    assert store.get(ns, "diet").value == {"v": "keto"}
    reasons = [t.reason for p in store.audit(ns, "diet").precedents for t in p.transitions]
    assert 'revoked: corrected by langgraph-store to {"v":"keto"} (correction)' in reasons

    editing = TEPAStore.in_memory(corrections=True)
    editing.put(ns, "diet", {"v": "vegan"})
    editing.memory.record_outcome("diet", {"v": "vegan"}, True, namespace="users.u1")
    editing.put(ns, "diet", {"v": "paleo"})  # every put corrects
    assert editing.get(ns, "diet").value == {"v": "paleo"}
    editing.put(ns, "diet", {"v": "keto"}, correction=False)  # this one is evidence
    assert {p.value["v"]: p.state.value for p in editing.audit(ns, "diet").precedents} == {
        "vegan": "revoked",
        "paleo": "active",  # contested, not superseded
        "keto": "active",
    }
    with pytest.raises(ValueError, match="corrections"):
        TEPAStore.in_memory(corrections="yes")  # type: ignore[arg-type]


async def test_store_async_correction_put() -> None:
    store = TEPAStore.in_memory()
    await store.aput(("u",), "k", {"v": 1})
    store.memory.record_outcome("k", {"v": 1}, True, namespace="u")
    await store.aput(("u",), "k", {"v": 2}, correction=True)
    assert (await store.aget(("u",), "k")).value == {"v": 2}


@pytest.mark.parametrize("times", [1, 10, 30, 100, 1000])
def test_store_one_writer_repeating_itself_is_one_voice(times: int) -> None:
    """The issue measured a value put n times displaced by 1, 3, 5, 10, 31 contrary puts: the
    store's own repeats made a value look well supported. Now they count with diminishing
    weight (at most two puts' worth), so one put of a new value is what get returns, and a value
    that real executions support is not displaced by puts at all."""
    store = TEPAStore.in_memory()
    ns = ("u",)
    store.batch([*(store_put(ns, "a") for _ in range(times))])
    store.put(ns, "k", {"v": "b"})
    assert store.get(ns, "k").value == {"v": "b"}
    store.put(ns, "k2", {"v": "a"})
    for _ in range(5):
        store.memory.record_outcome("k2", {"v": "a"}, True, namespace="u")
    store.batch([*(store_put(ns, "b", "k2") for _ in range(times))])
    assert store.get(ns, "k2").value == {"v": "a"}


def store_put(ns: tuple[str, ...], value: str, key: str = "k") -> object:
    from langgraph.store.base import PutOp

    return PutOp(ns, key, {"v": value})


def test_put_b_c_c_c_a_b_a_answers_the_latest_and_best_supported() -> None:
    store = TEPAStore.in_memory()
    for v in "BCCCABA":
        store.put(("u",), "k", {"v": v})
    assert store.get(("u",), "k").value == {"v": "A"}
    best = store.memory.answer("k", namespace="u")
    assert best is not None
    others = [p for p in store.audit(("u",), "k").active if p.value != {"v": "A"}]
    assert all(p.validity < best.validity for p in others)


def test_a_value_at_exactly_theta_pro_is_promoted() -> None:
    """The promotion boundary is inclusive: support 2, conflict 1 is validity 0.60."""
    # the paper's rules (under the default key test a value whose last outcome failed is not
    # promoted by assertions at all: test_the_default_vetoes_assertions_after_a_failure)
    rev = LifecyclePolicy.preset("tepa-rev")
    for policy, promoted in ((rev, True), (rev.with_overrides(trust=None), False)):
        mem = memory(policy)
        mem.record_outcome(KEY, "A", False)  # a Hypothesis: support 0, conflict 1
        mem.observe(KEY, "A", source="user")
        mem.observe(KEY, "A", source="tool.x")  # support 2, conflict 1: exactly 0.60
        (a,) = mem.audit(KEY).precedents
        assert a.validity == pytest.approx(0.6)
        assert (a.state is Lifecycle.ACTIVE) is promoted  # the paper's rule needs more


def test_the_default_vetoes_assertions_after_a_failure() -> None:
    """The key test's guard: assertions do not promote a value whose last outcome failed
    (failures from before any assertion do not veto a first claim by a source with change
    authority, tests/unit_tests/test_changes.py; here the tool claims it first)."""
    mem = memory(LifecyclePolicy())
    mem.record_outcome(KEY, "A", False)
    mem.observe(KEY, "A", source="tool.x")
    mem.observe(KEY, "A", source="user")
    (a,) = mem.audit(KEY).precedents
    assert a.state is Lifecycle.HYPOTHESIS
    mem.record_outcome(KEY, "A", True)  # a success of its own promotes it
    assert mem.get(KEY) == "A"


# ---------------------------------------------------------------------- displacement
def test_a_well_supported_fact_is_not_displaced_by_one_source_however_often() -> None:
    mem = memory()
    for _ in range(30):
        mem.observe(KEY, "good")
    for _ in range(30):
        mem.record_outcome(KEY, "good", True)
    for _ in range(400):
        mem.observe(KEY, "other", source="tool.feed")
    assert mem.get(KEY) == "good"
    assert states(mem) == {"good": "active", "other": "hypothesis"}


def test_displacement_needs_evidence_proportionate_to_the_support() -> None:
    """Good: 2 (one source's 30 observations) + 30 outcomes = 32. Assertions from distinct
    sources of the top tier displace it once they are worth half of that (16); sources of a
    lower tier (``tool.*``) never do, however many (issue 38: a lower-trust claim waits)."""

    def good_fact() -> TEPAMemory:
        mem = memory()
        for _ in range(30):
            mem.observe(KEY, "good")
        for _ in range(30):
            mem.record_outcome(KEY, "good", True)
        return mem

    crowd = good_fact()
    for i in range(40):
        crowd.observe(KEY, "other", source=f"tool.s{i}")
    assert crowd.get(KEY) == "good"
    assert crowd.audit(KEY).contested  # held back, shown
    mem = good_fact()
    needed = 0
    while mem.get(KEY) == "good" and needed < 100:
        needed += 1
        mem.observe(KEY, "other", source=f"user.s{needed}")
    assert needed == 16
    # Against a value stated once, one contrary statement of the same tier is enough (as before)
    fresh = memory()
    fresh.observe(KEY, "pineapple", source="user")
    fresh.observe(KEY, "mushroom", source="user.orders")
    assert fresh.get(KEY) == "mushroom"


def test_successful_executions_displace_on_validity_one_success_is_not_enough() -> None:
    mem = memory()
    verified(mem, "vegan", outcomes=5)
    mem.observe(KEY, "keto", source="user")
    mem.record_outcome(KEY, "keto", True)  # one success: could be a glitch
    assert mem.get(KEY) == "vegan"
    mem.observe(KEY, "keto", source="user")
    mem.record_outcome(KEY, "keto", True)  # a second one: the change is real
    assert mem.get(KEY) == "keto"


def test_tools_forget_then_remember_does_not_replace_a_verified_fact() -> None:
    mem = memory()
    verified(mem, "vegan", key="user.diet")
    remember, _, forget = create_memory_tools(mem)
    out = forget.invoke(
        {
            "type": "tool_call",
            "id": "f",
            "name": "forget",
            "args": {"key": "user.diet", "value": "vegan"},
        }
    )
    assert out.status == "error"
    assert "Not forgotten" in out.content and "successful outcome" in out.content
    for _ in range(10):
        remember.invoke({"key": "user.diet", "value": "keto"})
        remember.invoke({"key": "user.diet", "value": "keto", "correction": True})
    assert mem.get("user.diet") == "vegan"
    said = remember.invoke({"key": "user.diet", "value": "keto", "correction": True})
    assert "as evidence, not as a correction" in said


def test_tools_forget_what_the_agent_alone_asserted_and_anything_as_the_user() -> None:
    mem = memory()
    remember, _, forget = create_memory_tools(mem)
    remember.invoke({"key": "user.city", "value": "Oslo"})
    assert forget.invoke({"key": "user.city", "value": "Oslo"}).startswith("Forgot")
    verified(mem, "vegan", key="user.diet")
    _, _, user_forget = create_memory_tools(mem, source="user")
    assert user_forget.invoke({"key": "user.diet", "value": "vegan"}).startswith("Forgot")
    assert mem.get("user.diet") is None
    user_remember = create_memory_tools(mem, source="user")[0]
    user_remember.invoke({"key": "user.diet", "value": "vegan"})
    user_remember.invoke({"key": "user.diet", "value": "keto", "correction": True})
    assert mem.get("user.diet") == "keto"


async def test_async_forget_refuses_too() -> None:
    mem = memory("tepa-full")
    verified(mem, "vegan", key="user.diet")
    forget = create_memory_tools(mem)[2]
    out = await forget.ainvoke(
        {
            "type": "tool_call",
            "id": "f",
            "name": "forget",
            "args": {"key": "user.diet", "value": "vegan"},
        }
    )
    assert out.status == "error"
    assert await mem.aget("user.diet") == "vegan"  # one forget no longer empties the key


def test_recall_shows_the_contest() -> None:
    mem = memory()
    mem.observe(KEY, "pineapple", source="user")
    mem.observe(KEY, "mushroom", source="user.orders")
    recall = create_memory_tools(mem)[1]
    (fact,) = json.loads(recall.invoke({"query": "pizza"}))
    assert fact["value"] == "mushroom" and fact["contested"] is True
    assert fact["alternatives"] == [{"value": "pineapple", "validity": 0.5}]


def test_recall_shows_a_lower_trust_claim_held_back() -> None:
    """Issue 38: a tool's different value does not replace the user's; it is shown as held."""
    mem = memory()
    mem.observe(KEY, "pineapple", source="user")
    mem.observe(KEY, "mushroom", source="tool.orders")
    recall = create_memory_tools(mem)[1]
    (fact,) = json.loads(recall.invoke({"query": "pizza"}))
    assert fact["value"] == "pineapple" and fact["contested"] is True
    assert fact["alternatives"] == [
        {"value": "mushroom", "validity": 0.6667, "state": "hypothesis"}
    ]


# ---------------------------------------------------------------------- injection, erasure
@pytest.mark.parametrize("preset", TEPA_PRESETS)
@pytest.mark.parametrize("attacks", [1, 5, 40, 400])
def test_one_untrusted_source_can_neither_inject_nor_erase(preset: str, attacks: int) -> None:
    mem = memory(preset)
    verified(mem, "good")
    assert mem.get(KEY) == "good"
    mem.observe_many([Fact(KEY, "evil", source="web")] * attacks)
    assert mem.get(KEY) == "good"
    assert states(mem) == {"good": "active", "evil": "hypothesis"}
    good = next(p for p in mem.audit(KEY).precedents if p.value == "good")
    # web (tier 0) cannot contradict what the user said: its records count, not their weight
    assert good.conflict == attacks and good.weighted_conflict == 0.0


@pytest.mark.parametrize("preset", TEPA_PRESETS)
def test_many_names_or_a_spoofed_user_cannot_inject_into_a_verified_fact(preset: str) -> None:
    """Ten undeclared names share one cap (2 a day); a spoofed user repeating itself is worth
    two assertions: either alone is under half of the verified value's support (6)."""
    crowd = memory(preset)
    verified(crowd, "good")
    crowd.observe_many([Fact(KEY, "evil", source=f"bot{i}") for i in range(10)] * 4)
    spoof = memory(preset)
    verified(spoof, "good")
    spoof.observe_many([Fact(KEY, "evil", source="user")] * 40)
    for mem in (crowd, spoof):
        assert mem.get(KEY) == "good"
        assert states(mem)["good"] == "active"


def test_paper_rules_were_poisoned_by_the_same_attack() -> None:
    """The contrast (the issue's finding): without trust 40 web assertions win."""
    mem = memory(LifecyclePolicy(trust=None, answer_by="validity"))
    verified(mem, "good")
    mem.observe_many([Fact(KEY, "evil", source="web")] * 40)
    assert mem.get(KEY) == "evil"


def test_tepa_full_promotes_on_successful_outcomes() -> None:
    mem = memory("tepa-full")
    mem.observe(KEY, "good", source="user")
    assert mem.get(KEY) is None  # an assertion alone waits for a trial
    mem.record_outcome(KEY, "good", True)
    assert mem.get(KEY) == "good"
    reasons = [t.reason for t in mem.audit(KEY).precedents[0].transitions]
    assert reasons[-1] == "promoted: validity 0.75 >= 0.60"
    paper = memory(LifecyclePolicy.preset("tepa-full", promote_on_outcomes=False))
    verified(paper, "good")
    assert paper.get(KEY) is None


def test_tepa_full_trials_restore_what_a_crowd_revoked() -> None:
    mem = memory("tepa-full")
    verified(mem, "good")
    for i in range(12):  # a crowd of a lower tier cannot revoke what the user said (issue 38)
        mem.observe(KEY, "evil", source=f"tool.s{i}")
    assert states(mem) == {"good": "active", "evil": "hypothesis"}
    for i in range(12):  # a crowd of the user's tier can
        mem.observe(KEY, "evil", source=f"user.s{i}")
    assert states(mem) == {"good": "revoked", "evil": "hypothesis"}
    (decision,) = run_trials(mem, lambda trial: trial.value == "good", key=KEY)
    assert (decision.action, decision.restored) == ("reject", ("good",))
    assert mem.get(KEY) == "good"


# ---------------------------------------------------------------------- the trust table
def test_default_trust_table_has_a_reason_for_every_entry() -> None:
    patterns = [s.pattern for s in DEFAULT_SOURCES]
    assert {"user.*", "app", "agent", "tool.*", "llm.*", "web.*", "*"} <= set(patterns)
    assert all(s.reason for s in DEFAULT_SOURCES)
    trust = TrustPolicy()
    assert trust.entry(None).pattern == "app"
    assert trust.entry("user").pattern == trust.entry("user.alice").pattern == "user.*"
    assert trust.entry("tool.search.v2").pattern == "tool.*"
    assert trust.entry("llm.extractor").weight == 0.5
    assert trust.entry("webby").pattern == "*"
    assert trust.may_correct("user") and not trust.may_correct("agent")
    assert LifecyclePolicy().trust == trust
    for preset in ("append-only", "lww", "temporal", "reactive", "oracle-reset", "no-memory"):
        assert LifecyclePolicy.preset(preset).trust is None
    for preset in TEPA_PRESETS:
        assert LifecyclePolicy.preset(preset).trust == trust


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sources": (SourceTrust("web", 0.2), SourceTrust("web", 0.3))}, "more than once"),
        ({"repeat_decay": 1.5}, "repeat_decay"),
        ({"repeat_decay": float("nan")}, "repeat_decay"),
        ({"window_s": 0}, "window_s"),
        ({"outcome_weight": 0}, "outcome_weight"),
        ({"sources": [SourceTrust("web")]}, "tuple"),
    ],
)
def test_trust_policy_is_validated(kwargs: dict, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        TrustPolicy(**kwargs)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", 1.0), "non-empty"),
        (("we*b", 1.0), "prefix"),
        (("web", -1.0), "weight"),
        (("web", 1.0, -0.1), "cap"),
        (("web", True), "number"),
    ],
)
def test_source_trust_is_validated(args: tuple, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        SourceTrust(*args)


def test_policy_with_trust_round_trips_and_is_validated() -> None:
    custom = LifecyclePolicy(
        trust=TrustPolicy(sources=(SourceTrust("crm", 0.5, 1.0),), window_s=3600.0),
        displace_ratio=1.0,
    )
    again = LifecyclePolicy.from_dict(json.loads(json.dumps(custom.to_dict())))
    assert again == custom
    assert again.trust is not None and again.trust.entry("crm").cap == 1.0
    assert LifecyclePolicy.from_dict(LifecyclePolicy.preset("lww").to_dict()).trust is None
    with pytest.raises(PolicyError, match="trust"):
        LifecyclePolicy(trust="strict")  # type: ignore[arg-type]
    with pytest.raises(PolicyError, match="answer_by"):
        LifecyclePolicy(answer_by="recency")  # type: ignore[arg-type]
    with pytest.raises(PolicyError, match="displace_ratio"):
        LifecyclePolicy(displace_ratio=-1)
    with pytest.raises(PolicyError, match="unknown trust"):
        TrustPolicy.from_dict({"weights": {}})


def test_repeats_caps_and_windows() -> None:
    trust = TrustPolicy(window_s=10.0)
    ledger = TrustLedger()
    assert [trust.weigh(ledger, "user", "a", t) for t in (1, 2, 3)] == [1.0, 0.5, 0.25]
    assert trust.weigh(ledger, "user", "a", 20.0) == 1.0  # a new window
    assert [trust.weigh(ledger, "web.x", "e", 30.0 + i) for i in range(3)] == [0.2, 0.1, 0.05]
    rest = [trust.weigh(ledger, f"web.{c}", "e", 33.0) for c in "ab"]  # the cap: 0.4 in all
    assert rest == [pytest.approx(0.05), 0.0]
    assert trust.weigh(ledger, "web.y", "e", 45.0) == 0.2  # the window moved on
    assert TrustPolicy(repeat_decay=1.0).weigh(TrustLedger(), "u", "a", 1.0) == 1.0


def test_custom_table_declaring_an_untrusted_app_source() -> None:
    policy = LifecyclePolicy(
        trust=TrustPolicy(sources=(*DEFAULT_SOURCES[:-1], SourceTrust("*", 0.25, 0.25)))
    )
    mem = memory(policy)
    mem.observe(KEY, "x", source="scraper")
    assert mem.get(KEY) is None  # 0.25 alone never reaches theta_pro


# ---------------------------------------------------------------------- audit
def test_audit_shows_weighted_counts_and_where_they_came_from() -> None:
    mem = memory()
    verified(mem, "good", outcomes=2)
    mem.observe_many([Fact(KEY, "evil", source="web")] * 3)
    mem.observe(KEY, "good", source="user")
    audit = mem.audit(KEY)
    good = next(p for p in audit.precedents if p.value == "good")
    assert (good.support, good.conflict) == (4, 3)  # records
    assert good.weighted_support == pytest.approx(3.5)  # the user's repeat counts 0.5
    assert good.weighted_conflict == 0.0  # web (tier 0) cannot contradict the user (tier 3)
    assert provenance_rows(good) == [("outcomes", 2.0, 0.0), ("user", 1.5, 0.0)]
    evil = next(p for p in audit.precedents if p.value == "evil")
    assert evil.provenance["web"] == [pytest.approx(0.35), 0.0]  # 0.2, then repeats halve
    row = next(r for r in audit.rows() if r["value"] == "good")
    assert row["weighted_support"] == 3.5 and row["provenance"]["user"] == [1.5, 0.0]
    text = str(audit)
    assert "weighted support=3.50 conflict=0.00: outcomes +2.00/-0.00" in text
    assert "web +0.35/-0.00" in text


# ---------------------------------------------------------------------- the answer rule
_VALUES = ("A", "B", "C")
_SOURCES = (None, "user", "agent", "tool.x", "web", "bot")
_event = st.one_of(
    st.tuples(st.just("obs"), st.sampled_from(_VALUES), st.sampled_from(_SOURCES), st.booleans()),
    st.tuples(st.just("out"), st.sampled_from(_VALUES), st.booleans(), st.just(False)),
    st.tuples(st.just("revoke"), st.sampled_from(_VALUES), st.just(None), st.just(False)),
)


def _fold(events: list[tuple], policy: LifecyclePolicy) -> KeyState:
    state = KeyState("default", "k")
    for i, (kind, value, extra, flag) in enumerate(events):
        if kind == "obs":
            meta = {"correction": True} if flag and i % 3 == 0 else {}
            ev = Evidence.observation(
                "k", value, time=float(i), id=f"e{i:04d}", source=extra, metadata=meta
            )
        elif kind == "out":
            ev = Evidence.outcome_of("k", value, bool(extra), time=float(i), id=f"e{i:04d}")
        else:
            ev = Evidence(f"e{i:04d}", "default", "k", value, EvidenceKind.REVOKE, time=float(i))
        apply_evidence(state, ev, policy)
    return state


def _check_answer(state: KeyState, policy: LifecyclePolicy) -> None:
    rules = policy.rules
    active = state.active()
    answer = active[0] if active else None
    if answer is not None:  # the answer is the best-supported Active value of the top rank
        assert all(answer.rank >= p.rank for p in active)
        top = [p for p in active if p.rank == answer.rank]
        assert all(answer.standing >= p.standing for p in top)
        ties = [p for p in top if p.standing == answer.standing]
        assert answer.trusted_at == max(p.trusted_at for p in ties)
    backing = max((p.weighted_support for p in active), default=0.0)
    for h in state.precedents.values():
        if h.state is not Lifecycle.HYPOTHESIS or rules.vetoed(h) or h.support < policy.n_pro:
            continue
        if any(p.rank > h.rank for p in active):
            continue  # held back: a more trusted value is Active (issue 38)
        successes = h.provenance.get("outcomes", [0.0, 0.0])[0]
        if policy.uses_trials and successes <= 0:
            continue  # TEPA-Full: assertions alone wait for a trial
        if answer is None:
            assert h.validity < policy.theta_pro - 1e-9
        elif h.validity >= policy.theta_pro - 1e-9 and h.validity > answer.validity + 1e-9:
            # better by validity, but assertions alone not proportionate to the answer's support
            assert successes < 2 and h.weighted_support < policy.displace_ratio * backing


@settings(max_examples=300, deadline=None)
@given(events=st.lists(_event, min_size=1, max_size=40), preset=st.sampled_from(TEPA_PRESETS))
def test_the_answer_is_the_best_supported_believable_value(events: list, preset: str) -> None:
    """After any evidence, a single-valued key's answer is its best Active value (ties to the
    latest trusted support), and every Hypothesis that would beat it is either below the belief
    threshold or backed by assertions not proportionate to the believed value's support."""
    policy = LifecyclePolicy.preset(preset)
    state = KeyState("default", "k")
    partial: list[tuple] = []
    for event in events:
        partial.append(event)
        state = _fold(partial, policy)
        _check_answer(state, policy)


def test_the_fold_is_deterministic_with_trust() -> None:
    events = [("obs", v, s, True) for v, s in zip("ABCABCAB", itertools.cycle(_SOURCES))]
    a = _fold(events, LifecyclePolicy())
    b = _fold(events, LifecyclePolicy())
    assert [(p.value, p.state, p.weighted_support) for p in a.precedents.values()] == [
        (p.value, p.state, p.weighted_support) for p in b.precedents.values()
    ]
    assert a.snapshot().ledger == a.ledger and a.snapshot().ledger is not a.ledger


def test_tepa_full_contenders_are_what_the_posterior_rule_would_promote() -> None:
    """Trials test only values TEPA-Rev's rule would believe if assertions sufficed: a glitch
    (one success against a verified value) is no contender; a first assertion is; a value
    backed in proportion is."""
    from langchain_tepa.graph import select_candidates

    mem = memory("tepa-full")
    verified(mem, "vegan")
    mem.observe(KEY, "keto", source="user")
    mem.record_outcome(KEY, "keto", True)  # one success: held by proportionate displacement
    assert [c.value for c in select_candidates(mem, key=KEY)] == ["keto"]
    assert select_candidates(mem, key=KEY, contenders_only=True) == []
    for i in range(4):  # four sources of the user's tier, no execution: backed in proportion
        mem.observe(KEY, "paleo", source=f"user.s{i}")
    assert states(mem) == {"vegan": "active", "keto": "revoked", "paleo": "hypothesis"}
    assert [c.value for c in select_candidates(mem, key=KEY, contenders_only=True)] == ["paleo"]
    mem.observe("user.city", "Oslo", source="user")  # an empty key: a first assertion contends
    assert [c.key for c in select_candidates(mem, contenders_only=True)] == ["user.city", KEY]
