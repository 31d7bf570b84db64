"""Issue 28: change without freezing, under the default policy and no executor.

(a) a trusted source's restated change is adopted within two statements, however many
successes the old value earned (at its first statement when the source had stated the old
value only once: issue 39); (b) a source's newest statement is its current belief;
(c) a glitch still revokes nothing; (d) untrusted floods still poison nothing;
(e) a value a rule holds back with more support than the answer marks the key contested.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from langchain_tepa import Evidence, HashingEmbeddings, LifecyclePolicy, PolicyError, TEPAMemory
from langchain_tepa.core import fold
from langchain_tepa.core.changes import ChangePoint, OneOffHold, SourceRevision
from langchain_tepa.store import TEPAStore

KEY = "user.city"


def memory(policy: str | LifecyclePolicy | None = None) -> TEPAMemory:
    ticks = itertools.count(1)
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=policy, clock=lambda: float(next(ticks))
    )


def lisbon(mem: TEPAMemory, successes: int = 4, said: int = 2) -> None:
    """The issue's example: the user says Lisbon, acting on it succeeds ``successes`` times.

    ``said``: the user says it that many times, each time after acting on it worked (twice:
    their standing belief, unless a test says otherwise; issue 39).
    """
    for i in range(max(said, 1)):
        if i:
            mem.record_outcome(KEY, "Lisbon", True)
        mem.observe(KEY, "Lisbon", source="user")
    for _ in range(successes - (max(said, 1) - 1) if successes else 0):
        mem.record_outcome(KEY, "Lisbon", True)


def states(mem: TEPAMemory) -> dict[str, str]:
    return {p.value: p.state.value for p in mem.audit(KEY).precedents}


# ---------------------------------------------------------------------- (a) change points
@pytest.mark.parametrize("successes", [0, 1, 4, 20, 200])
def test_a_plain_change_by_the_user_is_adopted_within_two_statements(successes: int) -> None:
    mem = memory()
    lisbon(mem, successes)
    mem.observe(KEY, "Oslo", source="user")
    if successes:  # one statement against executions: could be a slip
        assert mem.get(KEY) == "Lisbon"
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Oslo"
    assert [d.metadata["value"] for d in mem.retrieve("where do I live", all_values=True)] == [
        "Oslo"
    ]
    if successes:
        old = next(p for p in mem.audit(KEY).precedents if p.value == "Lisbon")
        assert old.revocation is not None
        assert old.revocation.reason.startswith("revoked: changed by user to 'Oslo'")
        assert "(change point)" in old.revocation.reason


@pytest.mark.parametrize("successes", [1, 4, 200])
def test_a_source_revising_a_value_it_stated_once_changes_it_at_its_first_statement(
    successes: int,
) -> None:
    """Issue 39: the executions of a value a source stated once confirmed that word; when the
    same source now says another value, it revises its own claim: one statement is the change
    (before: two, so with an executor the read in between served the old value and failed)."""
    mem = memory()
    lisbon(mem, successes, said=1)
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Oslo"
    old = next(p for p in mem.audit(KEY).precedents if p.value == "Lisbon")
    assert old.revocation is not None and "stated 1 times" in old.revocation.reason
    # another source's word for the old value, or the source's own repeats, ask for two
    for backing in ("tool.geo", "user"):
        mem = memory()
        lisbon(mem, successes, said=1)
        mem.record_outcome(KEY, "Lisbon", True)
        mem.observe(KEY, "Lisbon", source=backing)  # the tool's word, or the user's again
        mem.observe(KEY, "Oslo", source="user")
        assert mem.get(KEY) == "Lisbon", backing
        mem.record_outcome(KEY, "Lisbon", False)
        mem.observe(KEY, "Oslo", source="user")
        assert mem.get(KEY) == "Oslo", backing


@pytest.mark.parametrize("policy", ["tepa-key", "tepa-full"])
def test_a_one_off_against_a_standing_belief_waits_for_its_source(policy: str) -> None:
    """Issue 39, the preference stream's glitch: the user has said Lisbon repeatedly and it
    works; "just today, Oslo" (said once, and the agent's action on it worked) does not take
    the answer until the user says Oslo again or the answer fails. Before, Oslo's one statement
    and its success outweighed the user's decayed repeats of Lisbon and took the answer."""
    mem = memory(policy)
    for _ in range(3):
        mem.observe(KEY, "Lisbon", source="user")
        mem.record_outcome(KEY, "Lisbon", True)
    mem.observe(KEY, "Oslo", source="user")
    mem.record_outcome(KEY, "Oslo", True)  # served on the request that named it
    assert mem.get(KEY) == "Lisbon"
    oslo = next(p for p in mem.audit(KEY).precedents if p.value == "Oslo")
    assert mem.audit(KEY).one_offs == frozenset({oslo.value_id})
    mem.observe(KEY, "Lisbon", source="user")  # the user is back to their standing value
    assert mem.get(KEY) == "Lisbon" and mem.audit(KEY).one_offs == frozenset({oslo.value_id})
    mem.observe(KEY, "Oslo", source="user")  # a one-off again ...
    mem.record_outcome(KEY, "Lisbon", False)  # ... and the answer fails: the hold lifts
    assert mem.audit(KEY).one_offs == frozenset()
    mem2 = memory(policy)
    for _ in range(2):
        mem2.observe(KEY, "Lisbon", source="user")
        mem2.record_outcome(KEY, "Lisbon", True)
    mem2.observe(KEY, "Oslo", source="user")
    mem2.record_outcome(KEY, "Oslo", True)
    mem2.observe(KEY, "Oslo", source="user")  # said again: a change
    mem2.record_outcome(KEY, "Oslo", True)
    assert mem2.get(KEY) == "Oslo"


def test_a_one_off_nobody_executed_is_still_a_trial_contender() -> None:
    """TEPA-Full: a held one-off that already worked waits for its source; one nobody executed
    is tried like any contested claim (the contested world's change after a restatement)."""
    from langchain_tepa.graph import DefaultTrialBuilder, TrialRunner

    mem = memory("tepa-full")
    for _ in range(2):
        mem.observe(KEY, "Lisbon", source="user")
        mem.record_outcome(KEY, "Lisbon", True)
    mem.observe(KEY, "Oslo", source="user")
    runner = TrialRunner(
        mem,
        lambda trial: trial.value == "Oslo",
        trial_builder=DefaultTrialBuilder(context_k=0, max_competitors=1),
        contenders_only=True,
        trial_cost=0.25,
    )
    assert [c.value for c in runner.select(key=KEY)] == ["Oslo"]
    mem.record_outcome(KEY, "Oslo", True)
    assert runner.select(key=KEY) == []


def test_the_issues_example_five_statements_answer_oslo_and_lisbon_can_return() -> None:
    mem = memory()
    lisbon(mem, 4)
    for _ in range(5):
        mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Oslo"
    assert states(mem) == {"Lisbon": "revoked", "Oslo": "active"}
    for _ in range(2):  # moving back is a change too
        mem.observe(KEY, "Lisbon", source="user")
    assert mem.get(KEY) == "Lisbon"


def test_a_success_of_the_old_value_in_between_restarts_the_count() -> None:
    mem = memory()
    lisbon(mem, 4)
    mem.observe(KEY, "Oslo", source="user")
    mem.record_outcome(KEY, "Lisbon", True)  # acting on Lisbon worked after the statement
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Lisbon"  # one statement since
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Oslo"


def test_the_application_and_the_users_text_may_change_a_fact_too() -> None:
    for source in (None, "offline-extractor", "user.web_form"):
        mem = memory()
        lisbon(mem, 10)
        for _ in range(2):
            mem.observe(KEY, "Oslo", source=source)
        assert mem.get(KEY) == "Oslo", source


def test_a_change_is_not_adopted_for_a_value_whose_last_outcome_failed() -> None:
    """The default's veto: a restatement cannot install a value that failed when tried."""
    mem = memory()
    lisbon(mem, 4)
    mem.observe(KEY, "Oslo", source="user")  # claimed, then it failed when tried
    mem.record_outcome(KEY, "Oslo", False)
    for _ in range(5):
        mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Lisbon"
    mem.record_outcome(KEY, "Oslo", True)
    mem.observe(KEY, "Oslo", source="user")
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Oslo"


@pytest.mark.parametrize("failures", [1, 5])
def test_failures_of_a_value_nobody_had_stated_do_not_veto_its_first_claim(failures: int) -> None:
    """Issue 28's contested world: the agent, with nothing to serve, guessed Oslo and failed
    (Oslo was not the user's city then); later the user moves there and says so twice. The
    guesses' failures came before anyone claimed Oslo: they do not veto the user's claim."""
    mem = memory()
    lisbon(mem, 4)
    for _ in range(failures):
        mem.record_outcome(KEY, "Oslo", False)
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Lisbon"
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Oslo"  # before the rule: Lisbon, however often the user said Oslo
    mem.record_outcome(KEY, "Oslo", False)  # a failure after the claim vetoes as before
    for _ in range(2):
        mem.observe(KEY, "Lisbon", source="user")
    assert mem.get(KEY) == "Lisbon"
    for _ in range(3):
        mem.observe(KEY, "Oslo", source="user")
        assert mem.get(KEY) != "Oslo"


def test_an_untrusted_claim_first_keeps_the_veto() -> None:
    """Only failures from before any assertion are set aside: a value the agent stated and that
    then failed stays vetoed against the user's restatement."""
    mem = memory()
    lisbon(mem, 4)
    mem.observe(KEY, "Oslo", source="agent")
    mem.record_outcome(KEY, "Oslo", False)
    for _ in range(3):
        mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Lisbon"


def test_the_change_rule_is_the_defaults_only() -> None:
    """The paper's presets keep their rules: there a plain change still freezes. TEPA-Full has
    the change rules behind its trial gate: without trials a change against a value with
    successes waits (core/contest.py)."""
    for preset in ("tepa-rev", "tepa-full", "tepa-cd"):
        mem = memory(preset)
        lisbon(mem, 4)
        for _ in range(5):
            mem.observe(KEY, "Oslo", source="user")
        assert mem.get(KEY) == "Lisbon", preset
    rules = LifecyclePolicy().rules.record
    assert [type(r) for r in rules][-3:] == [SourceRevision, ChangePoint, OneOffHold]
    assert not any(
        isinstance(r, SourceRevision | ChangePoint)
        for name in ("tepa-rev", "tepa-full", "tepa-full-trials", "lww")
        for r in LifecyclePolicy.preset(name).rules.record
    )


def test_change_switches_are_validated_and_round_trip() -> None:
    policy = LifecyclePolicy(change_sources=("user.*",), change_statements=3)
    assert LifecyclePolicy.from_dict(policy.to_dict()) == policy
    with pytest.raises(PolicyError, match="change_statements"):
        LifecyclePolicy(change_statements=0)
    with pytest.raises(PolicyError, match="source pattern"):
        LifecyclePolicy(change_sources=("us*er",))
    with pytest.raises(PolicyError, match="change_sources"):
        LifecyclePolicy(change_sources=["user"])  # type: ignore[arg-type]
    mem = memory(LifecyclePolicy(change_statements=3))
    lisbon(mem, 4)
    for expected in ("Lisbon", "Lisbon", "Oslo"):
        mem.observe(KEY, "Oslo", source="user")
        assert mem.get(KEY) == expected


# ---------------------------------------------------------------------- (b) newest statement
def test_a_sources_newest_statement_supersedes_its_own_earlier_one() -> None:
    evs = [
        Evidence.observation(KEY, "Lisbon", time=1, id="e1", source="tool.geo"),
        Evidence.observation(KEY, "Porto", time=2, id="e2", source="user"),
        Evidence.observation(KEY, "Oslo", time=3, id="e3", source="tool.geo"),
    ]
    state = fold(evs, LifecyclePolicy())
    by = {p.value: p for p in state.precedents.values()}
    # tool.geo withdrew its word for Lisbon: no support from it, and no conflict from it either
    assert "tool.geo" not in by["Lisbon"].provenance
    assert by["Lisbon"].weighted_support == 0.0
    assert by["Lisbon"].weighted_conflict == pytest.approx(1.0)  # the user's Porto only
    assert by["Lisbon"].support == 1 and by["Lisbon"].conflict == 2  # records still counted
    assert by["Oslo"].provenance == {"tool.geo": [1.0, 0.0]}
    # under the paper's rules the same source counts against itself
    old = {p.value: p for p in fold(evs, LifecyclePolicy.preset("tepa-rev")).precedents.values()}
    assert old["Lisbon"].weighted_support == 1.0 and old["Lisbon"].weighted_conflict == 2.0


def test_one_writer_flip_flopping_is_one_voice_for_its_latest_value() -> None:
    mem = memory()
    for v in ["A", "B"] * 10 + ["A"]:
        mem.observe("k", v, source="tool.sync")
    assert mem.get("k") == "A"
    b = next(p for p in mem.audit("k").precedents if p.value == "B")
    assert b.weighted_support == 0.0


def test_the_store_answers_its_latest_put() -> None:
    store = TEPAStore.in_memory()
    for v in "BCCCABA":
        store.put(("u",), "k", {"v": v})
    item = store.get(("u",), "k")
    assert item is not None and item.value == {"v": "A"}
    rows = {p.value["v"]: p for p in store.audit(("u",), "k").precedents}
    assert rows["A"].weighted_support > rows["B"].weighted_support == 0.0


# ---------------------------------------------------------------------- (c) glitches
@pytest.mark.parametrize("successes", [5, 20])
def test_a_glitch_revokes_nothing(successes: int) -> None:
    mem = memory()
    lisbon(mem, successes)
    mem.record_outcome(KEY, "Lisbon", False)  # one failure after many successes
    assert mem.get(KEY) == "Lisbon"
    mem.observe(KEY, "Oslo", source="user")  # and one slip of the tongue
    mem.record_outcome(KEY, "Lisbon", True)
    mem.observe(KEY, "Lisbon", source="user")
    assert mem.get(KEY) == "Lisbon"
    # the user took the slip back: Oslo has no support left and the posterior revokes it
    assert states(mem) == {"Lisbon": "active", "Oslo": "revoked"}


def test_a_value_revoked_after_a_glitch_comes_back_on_its_users_restatement() -> None:
    """The contested world's lock (issue 28): Lisbon worked, failed once (a glitch), then a
    spoofed change revoked it. A failure right after two successes does not veto, so the
    user's restatement brings it back; the spoofed value, which never worked, stays vetoed."""
    mem = memory()
    lisbon(mem, 4)
    mem.record_outcome(KEY, "Lisbon", False)  # a glitch
    for _ in range(2):
        mem.observe(KEY, "Atlantis", source="user")  # a spoofed change
    assert mem.get(KEY) == "Atlantis"
    mem.record_outcome(KEY, "Atlantis", False)
    for _ in range(2):
        mem.observe(KEY, "Lisbon", source="user")
    assert mem.get(KEY) == "Lisbon"  # before the glitch rule: None, until Lisbon succeeded
    for _ in range(5):  # the spoofer insists: its value, which never worked, stays vetoed
        mem.observe(KEY, "Atlantis", source="user")
        assert mem.get(KEY) != "Atlantis"
    assert states(mem)["Atlantis"] == "revoked"


@pytest.mark.parametrize(
    ("recent", "vetoed"),
    [
        ([False], True),
        ([True, False], True),
        ([True, True, False, False], True),
        ([False, True, False], True),
        ([True, True, False], False),
        ([False] * 3 + [True] * 10 + [False], False),
        ([True, True], False),
    ],
)
def test_the_last_outcome_veto_spares_a_glitch_only(recent: list[bool], vetoed: bool) -> None:
    from langchain_tepa.core.change import LastOutcomeVeto
    from langchain_tepa.core.types import Precedent

    p = Precedent("default", KEY, "v", "v", "p1", recent=recent)
    assert LastOutcomeVeto().blocks(p) is vetoed


# ---------------------------------------------------------------------- (d) floods
@pytest.mark.parametrize(
    "sources",
    [
        ["agent"],
        ["tool.search"],
        ["web.evil.example"],
        ["llm.extractor"],
        ["langgraph-store"],
        [f"bot{i}" for i in range(10)],
    ],
)
@pytest.mark.parametrize("times", [2, 40])
def test_untrusted_floods_poison_no_read(sources: list[str], times: int) -> None:
    mem = memory()
    lisbon(mem, 4)
    for i in range(times):
        mem.observe(KEY, "Evil", source=sources[i % len(sources)])
        assert mem.get(KEY) == "Lisbon"
    assert [d.metadata["value"] for d in mem.retrieve("city", all_values=True)] == ["Lisbon"]


def test_a_spoofed_user_can_do_what_a_correction_could_already_do() -> None:
    """What the rule trades (docs/policies.md): whoever can write as the user could already
    correct in one step; a restated plain change now does it in two. The veto still holds."""
    mem = memory()
    lisbon(mem, 4)
    mem.observe(KEY, "Evil", source="user", correction=True)
    assert mem.get(KEY) == "Evil"


# ---------------------------------------------------------------------- (e) the contest shown
@pytest.mark.parametrize("source", ["langgraph-store", "agent"])
def test_a_held_back_value_with_more_support_marks_the_key_contested(source: str) -> None:
    """A source of the user's tier without change authority (the store's writer) is held back
    by proportionate displacement; one of a lower tier (the agent) by trust (issue 38)."""
    mem = memory()
    lisbon(mem, 4)
    for _ in range(3):  # the writer insists
        mem.observe(KEY, "Oslo", source=source)
    assert mem.get(KEY) == "Lisbon"
    (doc,) = mem.retrieve("where do I live")
    assert doc.metadata["value"] == "Lisbon"
    assert doc.metadata["contested"] is True
    (alt,) = doc.metadata["alternatives"]
    assert alt["value"] == "Oslo" and alt["state"] == "hypothesis"
    audit = mem.audit(KEY)
    assert audit.contested is True
    if source == "agent":  # its conflict does not count against what the user said
        assert audit.held == {audit.precedents[1].value_id}
        assert audit.precedents[0].weighted_conflict == 0.0
    else:
        assert alt["validity"] > doc.metadata["validity"]
        assert audit.held == frozenset()


def test_a_weaker_candidate_does_not_contest() -> None:
    mem = memory()
    lisbon(mem, 4)
    mem.observe(KEY, "Oslo", source="web.example")
    (doc,) = mem.retrieve("where do I live")
    assert doc.metadata["contested"] is False and "alternatives" not in doc.metadata
    assert mem.audit(KEY).contested is False


def test_the_store_marks_a_contested_key() -> None:
    store = TEPAStore.in_memory()
    ns = ("users", "u1")
    store.put(ns, "diet", {"v": "vegan"})
    for _ in range(5):
        store.memory.record_outcome("diet", {"v": "vegan"}, True, namespace="users.u1")
    assert store.audit(ns, "diet").contested is False
    for source in ("agent", "agent", "tool.a"):  # worth 2.5, under half of vegan's 6
        store.memory.observe("diet", {"v": "keto"}, source=source, namespace="users.u1")
    item = store.get(ns, "diet")
    assert item is not None and item.value == {"v": "vegan"}
    assert store.audit(ns, "diet").contested is True


# ---------------------------------------------------------------------- (f) budgets, look-alikes
FLOOD_SOURCES = ["bot", "agent", "tool.scraper"]


def flooded(source: str, n: int = 40, policy: str | None = None) -> TEPAMemory:
    """A user fact with successes, then ``n`` new look-alike keys from ``source``."""
    mem = memory(policy)
    mem.observe("user.home_city", "Lisbon", source="user", text="home city of the user: Lisbon")
    for _ in range(3):
        mem.record_outcome("user.home_city", "Lisbon", True)
    mem.observe("user.diet", "vegan", source="user", text="diet of the user: vegan")
    for i in range(n):
        mem.observe(
            f"user.home_city_{i}",
            f"City{i}",
            source=source,
            text=f"what is the user's home city? home city of the user: Lisbon {i}",
        )
    return mem


@pytest.mark.parametrize("source", FLOOD_SOURCES)
def test_a_look_alike_flood_does_not_push_a_user_fact_out_of_the_top_k(source: str) -> None:
    mem = flooded(source)
    top = [d.metadata["key"] for d in mem.retrieve("what is the user's home city?", k=4)]
    assert top[0] == "user.home_city"
    # without the budgets (the paper's presets) the same flood buries the fact
    paper = flooded(source, policy="tepa-rev")
    buried = [d.metadata["key"] for d in paper.retrieve("what is the user's home city?", k=4)]
    assert "user.home_city" not in buried


def test_new_key_budgets_by_tier() -> None:
    from langchain_tepa.core.budgets import DEFAULT_BUDGETS, over_budget
    from langchain_tepa.core.trust import TrustPolicy

    trust = TrustPolicy()
    for source, budget in (("bot", 4), ("agent", 20), ("web.x", 2), ("user", None)):
        mem = flooded(source, n=30)
        with mem._engine.reading(["default"]) as states:
            hidden = over_budget(trust, states["default"].keys.values(), DEFAULT_BUDGETS)
        assert len(hidden) == (0 if budget is None else 30 - budget), source
    # made-up names share their entry's budget
    mem = memory()
    for i in range(10):
        mem.observe(f"k{i}", "v", source=f"bot{i}")
    assert len(mem.retrieve("k v", k=10)) == 4
    # a key vouched for by the user is searched again
    mem.observe("k9", "v", source="user")
    assert "k9" in {d.metadata["key"] for d in mem.retrieve("k v", k=10)}


def test_an_over_budget_key_is_still_readable_by_key() -> None:
    mem = flooded("bot", n=10)
    assert mem.get("user.home_city_9") == "City9"  # budgets bound searches, not get()


def test_trusted_top_finds_the_fact_below_any_number_of_look_alikes() -> None:
    import numpy as np

    from langchain_tepa.core.types import Precedent
    from langchain_tepa.state.lookalikes import trusted_top

    fact = Precedent("ns", "user.city", "Lisbon", "lisbon", "fact")
    copies = [Precedent("ns", f"c{i}", "x", "x", f"copy{i}") for i in range(100)]
    others = [Precedent("ns", f"o{i}", "y", "y", f"other{i}") for i in range(3)]
    vecs = {"fact": np.array([1.0, 0.0, 0.0])}
    vecs.update({f"copy{i}": np.array([0.95, 0.31, 0.0]) for i in range(100)})
    vecs.update({f"other{i}": np.array([0.0, 0.0, 1.0]) for i in range(3)})
    ranked = (
        [(c, 0.9) for c in copies] + [(o, 0.6) for o in others] + [(fact, 0.5)]
    )  # every copy is closer to the query than the fact
    tiers = {"fact": 3, **{f"copy{i}": 1 for i in range(100)}, **{f"other{i}": 1 for i in range(3)}}
    top = trusted_top(ranked, tiers, vecs.get, 0.8, 4)
    assert [p.id for p, _ in top] == ["other0", "other1", "other2", "fact"]
    assert {p.id: s for p, s in top}["fact"] == 0.5  # scores are the similarities


def store_flooded(source: str, n: int = 40, **kwargs: Any) -> TEPAStore:
    """:func:`flooded` through the store: the app's put, then look-alikes put as ``source``."""
    store = TEPAStore.in_memory(**kwargs)
    store.put(("users", "u1"), "user.home_city", {"text": "home city of the user: Lisbon"})
    flood = TEPAStore(store.memory, index=kwargs.get("index"), source=source)  # its puts
    for i in range(n):
        text = "what is the user's home city? home city of the user: Lisbon"  # n copies
        flood.put(("users", "u1"), f"user.home_city_{i}", {"text": text})
    return store


@pytest.mark.parametrize("source", FLOOD_SOURCES)
@pytest.mark.parametrize("filtered", [False, True], ids=["plain", "filtered"])
@pytest.mark.parametrize("indexed", [False, True], ids=["memory-vectors", "store-index"])
def test_a_look_alike_flood_does_not_push_a_put_out_of_store_search_top_k(
    source: str, filtered: bool, indexed: bool
) -> None:
    """Store search top-k applies the budgets too (TEPAStore.search, issue 28), whether it
    scores with the memory's vectors or its own index."""
    query = "what is the user's home city?"
    flt = {"text": {"$ne": "nothing"}} if filtered else None
    emb = HashingEmbeddings()
    index: Any = {"dims": len(emb.embed_query("x")), "embed": emb} if indexed else None
    store = store_flooded(source, index=index)
    items = store.search(("users",), query=query, limit=4, filter=flt)
    assert "user.home_city" in [it.key for it in items]
    assert all(it.score is not None for it in items)
    # without the budgets the same flood buries it (the check can fail)
    plain = store_flooded(source, index=index, policy=LifecyclePolicy(key_budgets=False))
    buried = plain.search(("users",), query=query, limit=4, filter=flt)
    assert "user.home_city" not in [it.key for it in buried]
