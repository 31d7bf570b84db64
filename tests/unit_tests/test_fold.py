"""Every transition of the lifecycle and its reason, one test each.

These pin the paper's rules (the preset ``tepa-rev``, which was the default until issue 14 made
the key test the default): every record counts 1 and the answer is chosen by validity
(``trust=None, answer_by="validity"``, the policy the golden trajectories show unchanged). The
trust rules of the default policy (weighted counts, corrections, net-support answers) are tested
in ``test_trust.py``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from langchain_tepa import Evidence, EvidenceKind, Lifecycle, LifecyclePolicy
from langchain_tepa.core import KeyState, apply_evidence, fold, fold_all

_ids: Iterator[int] = itertools.count()


def obs(value: object, t: float, key: str = "k", **kw: object) -> Evidence:
    return Evidence.observation(key, value, time=t, id=f"e{next(_ids):06d}", **kw)  # type: ignore[arg-type]


def out(value: object, ok: bool, t: float, key: str = "k") -> Evidence:
    return Evidence.outcome_of(key, value, ok, time=t, id=f"e{next(_ids):06d}")


def decision(kind: EvidenceKind, value: object, t: float, reason: str) -> Evidence:
    return Evidence(
        id=f"e{next(_ids):06d}",
        namespace="default",
        key="k",
        value=value,
        kind=kind,
        time=t,
        reason=reason,
    )


def reasons(state: KeyState, value: object) -> list[str]:
    for p in state.precedents.values():
        if p.value == value:
            return [t.reason for t in p.transitions]
    raise AssertionError(f"no precedent {value!r}")


def prec(state: KeyState, value: object):
    return next(p for p in state.precedents.values() if p.value == value)


PAPER = {"trust": None, "answer_by": "validity"}
TEPA = LifecyclePolicy.preset("tepa-rev", **PAPER)


def test_new_candidate_then_promoted_by_posterior() -> None:
    s = fold([obs("A", 1)], TEPA)
    assert reasons(s, "A") == ["new candidate: first observation", "promoted: validity 0.67 > 0.60"]
    p = prec(s, "A")
    assert (p.state, p.support, p.conflict) == (Lifecycle.ACTIVE, 1, 0)
    assert p.validity == pytest.approx(2 / 3)
    assert 0 < p.lower_bound < p.validity


def test_hypothesis_stays_below_theta_pro() -> None:
    s = fold([obs("A", 1)], LifecyclePolicy.preset("tepa-rev", theta_pro=0.7, **PAPER))
    assert prec(s, "A").state is Lifecycle.HYPOTHESIS


def test_contested_promotion_names_the_incumbent() -> None:
    s = fold([obs("A", 1), obs("B", 2)], TEPA)
    assert reasons(s, "B")[-1] == "promoted: validity 0.67 > 0.60 and > incumbent 0.50"
    assert [p.value for p in s.active()] == ["B", "A"]


def test_contested_candidate_not_promoted_below_incumbent() -> None:
    s = fold([obs("A", t) for t in range(1, 6)] + [obs("B", 6)], TEPA)
    assert prec(s, "B").state is Lifecycle.HYPOTHESIS
    assert prec(s, "A").conflict == 1


def test_revoked_by_posterior_reason() -> None:
    s = fold([obs("A", 1), obs("B", 2), obs("B", 3)], TEPA)
    assert reasons(s, "A")[-1] == "revoked: validity 0.40 < 0.45 after 3 observations"
    assert prec(s, "A").state is Lifecycle.REVOKED
    assert prec(s, "A").revocation is not None


def test_revoked_by_recent_window_reason() -> None:
    evs = [out("A", True, t) for t in range(1, 11)] + [out("A", False, 11), out("A", False, 12)]
    s = fold(evs, TEPA)
    assert reasons(s, "A")[-1] == "revoked: recent success 1/3 < 0.34"
    assert prec(s, "A").state is Lifecycle.REVOKED


def test_new_value_failing_three_times_reason() -> None:
    s = fold(
        [out("C", False, t) for t in (1, 2, 3)],
        LifecyclePolicy.preset("tepa-rev", revoke_posterior=False, **PAPER),
    )
    assert reasons(s, "C")[-1] == "revoked: recent success 0/3 < 0.34"


def test_single_glitch_does_not_revoke() -> None:
    evs = [out("A", True, t) for t in range(1, 6)] + [out("A", False, 6), out("A", True, 7)]
    s = fold(evs, TEPA)
    assert prec(s, "A").state is Lifecycle.ACTIVE


def test_revived_and_re_promoted() -> None:
    evs = [obs("A", 1), obs("B", 2), obs("B", 3), obs("A", 4)]
    s = fold(evs, TEPA)
    assert reasons(s, "A")[-2:] == [
        "revived: new support after revocation",
        "re-promoted: validity 0.67 > 0.60 and > incumbent 0.60",
    ]
    assert prec(s, "A").lifetime_support == 2  # old counts kept for audit
    assert prec(s, "A").support == 1  # fresh epoch


def test_revived_without_fresh_epoch_keeps_counts() -> None:
    policy = LifecyclePolicy.preset("tepa-rev", revive_fresh=False, **PAPER)
    s = fold([obs("A", 1), obs("B", 2), obs("B", 3), obs("A", 4)], policy)
    p = prec(s, "A")
    assert p.state is Lifecycle.HYPOTHESIS
    assert (p.support, p.conflict) == (2, 2)


def test_manual_revoke_and_promote() -> None:
    s = fold(
        [
            obs("A", 1),
            decision(EvidenceKind.REVOKE, "A", 2, "revoked by hand: user said so"),
            decision(EvidenceKind.PROMOTE, "A", 3, "promoted by hand: restored"),
        ],
        TEPA,
    )
    assert reasons(s, "A")[-2:] == ["revoked by hand: user said so", "promoted by hand: restored"]
    assert prec(s, "A").state is Lifecycle.ACTIVE


def test_trial_evidence_moves_no_counts() -> None:
    trial = Evidence(
        id="t1",
        namespace="default",
        key="k",
        value="A",
        kind=EvidenceKind.TRIAL,
        outcome=False,
        time=2,
    )
    s = fold([obs("A", 1), trial], TEPA)
    p = prec(s, "A")
    assert (p.support, p.conflict, p.state) == (1, 0, Lifecycle.ACTIVE)
    assert "t1" in p.evidence_ids


def test_trials_policy_never_promotes_by_itself() -> None:
    """Assertions alone wait for a trial under TEPA-Full (the paper's and the default)."""
    paper = LifecyclePolicy.preset("tepa-full", promote_on_outcomes=False, **PAPER)
    for policy in (paper, LifecyclePolicy.preset("tepa-full")):
        s = fold([obs("A", t) for t in range(1, 20)], policy)
        assert prec(s, "A").state is Lifecycle.HYPOTHESIS
    s = fold([out("A", True, t) for t in range(1, 20)], paper)  # the paper: not even outcomes
    assert prec(s, "A").state is Lifecycle.HYPOTHESIS


def test_append_only_never_revokes_and_ignores_conflict() -> None:
    policy = LifecyclePolicy.preset("append-only")
    evs = [out("A", True, t) for t in range(1, 6)] + [out("A", False, t) for t in range(6, 16)]
    s = fold(evs + [out("B", True, 16)], policy)
    a, b = prec(s, "A"), prec(s, "B")
    assert a.state is Lifecycle.ACTIVE and a.conflict == 0
    assert b.state is Lifecycle.ACTIVE
    assert reasons(s, "B")[-1] == "promoted: supported (policy append-only)"


def test_lww_supersedes() -> None:
    s = fold([obs("A", 1), obs("B", 2)], LifecyclePolicy.preset("lww"))
    assert reasons(s, "A")[-1] == "revoked: superseded by a newer value (LWW)"
    assert [p.value for p in s.active()] == ["B"]


def test_reactive_revokes_on_first_failure_and_first_contradiction() -> None:
    policy = LifecyclePolicy.preset("reactive")
    s = fold([out("A", True, 1), out("A", False, 2)], policy)
    assert reasons(s, "A")[-1] == "revoked: failed once (reactive forgetting)"
    s = fold([obs("A", 1), obs("B", 2)], policy)
    assert reasons(s, "A")[-1] == "revoked: contradicted once (reactive)"


def test_temporal_window_expires() -> None:
    policy = LifecyclePolicy.preset("temporal", temporal_window=3)
    s = fold([obs("A", 1), obs("B", 2), obs("B", 3), obs("B", 4)], policy)
    assert reasons(s, "A")[-1] == "revoked: expired, last support 3 records ago >= window 3"
    assert prec(s, "B").state is Lifecycle.ACTIVE


def test_oracle_boundary() -> None:
    boundary = Evidence(
        id="b1", namespace="default", key="k", value=None, kind=EvidenceKind.BOUNDARY, time=5
    )
    s = fold([obs("A", 1), boundary], LifecyclePolicy.preset("oracle-reset"))
    assert reasons(s, "A")[-1] == "revoked: reset at the phase boundary (oracle)"
    s = fold([obs("A", 1), boundary], TEPA)  # other policies only note it
    assert prec(s, "A").state is Lifecycle.ACTIVE


def test_multi_valued_values_do_not_conflict() -> None:
    policy = LifecyclePolicy.preset("tepa-rev", multi_valued_prefixes=("user.allergies",), **PAPER)
    evs = [obs("nuts", 1, key="user.allergies"), obs("milk", 2, key="user.allergies")]
    s = fold(evs, policy)
    assert {p.value for p in s.active()} == {"nuts", "milk"}
    assert all(p.conflict == 0 for p in s.precedents.values())


def test_value_normalisation() -> None:
    s = fold([obs("Vegan", 1), obs("  vegan ", 2)], TEPA)
    assert len(s.precedents) == 1
    assert prec(s, "Vegan").support == 2
    s = fold(
        [obs("Vegan", 1), obs("vegan", 2)],
        LifecyclePolicy.preset("tepa-rev", normalize_values=False, **PAPER),
    )
    assert len(s.precedents) == 2


def test_fold_is_order_independent_of_input_order() -> None:
    evs = [obs("A", 1), out("A", False, 2), obs("B", 3), out("B", True, 4), obs("B", 5)]
    a = fold(evs, TEPA)
    b = fold(list(reversed(evs)), TEPA)
    assert [p.to_dict() for p in a.precedents.values()] == [
        p.to_dict() for p in b.precedents.values()
    ]


def test_fold_rejects_mixed_keys_and_empty() -> None:
    with pytest.raises(ValueError, match="one"):
        fold([obs("A", 1, key="x"), obs("A", 2, key="y")], TEPA)
    with pytest.raises(ValueError, match="namespace"):
        fold([], TEPA)
    assert set(fold_all([obs("A", 1, key="x"), obs("A", 2, key="y")], TEPA)) == {
        ("default", "x"),
        ("default", "y"),
    }


def test_reversal_within_the_promised_window() -> None:
    """Supported 10 times, contradicted by outcomes: revoked within failures_to_revoke."""
    evs = [out("A", True, t) for t in range(1, 11)]
    state = fold(evs, TEPA)
    promise = TEPA.failures_to_revoke
    assert promise is not None
    t = 11.0
    failures = 0
    while prec(state, "A").state is not Lifecycle.REVOKED and failures < promise:
        apply_evidence(state, out("A", False, t), TEPA)
        failures += 1
        t += 1
    assert prec(state, "A").state is Lifecycle.REVOKED
    assert failures <= promise
    apply_evidence(state, out("B", True, t), TEPA)
    assert [p.value for p in state.active()] == ["B"]


def test_transitions_the_fold_makes_are_plain_frozen_transitions() -> None:
    import dataclasses
    import pickle

    from langchain_tepa.core.types import Transition, new_transition

    for from_state in (None, *Lifecycle):
        made = new_transition(2.5, "e7", from_state, Lifecycle.REVOKED, "why")
        want = Transition(2.5, "e7", from_state, Lifecycle.REVOKED, "why")
        assert made == want and hash(made) == hash(want) and repr(made) == repr(want)
        assert list(vars(made).items()) == list(vars(want).items())
        assert pickle.loads(pickle.dumps(made)) == want
        assert made.to_dict() == want.to_dict()
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.reason = "changed"  # type: ignore[misc]
    ks = KeyState("ns", "k")
    ev = Evidence.observation("k", "v", time=1.0, id="e1", namespace="ns")
    apply_evidence(ks, ev, LifecyclePolicy())
    (p,) = ks.precedents.values()
    assert all(type(t) is Transition for t in p.transitions)
    assert [t.to_state for t in p.transitions] == [Lifecycle.HYPOTHESIS, Lifecycle.ACTIVE]


def test_shared_reasons_read_as_the_reasons_formatted_each_time() -> None:
    import math

    from langchain_tepa.core.trust import _validity_reason

    values = (0.0, -0.0, 0.6, 0.6000000001, 2 / 3, 1.0, 1, math.nan, math.inf, -0.004)
    for again in ("promoted", "re-promoted"):
        for validity in values:
            for theta in values:
                want = f"{again}: validity {validity:.2f} >= {theta:.2f}"
                assert _validity_reason(again, validity, theta) == want
                assert _validity_reason(again, validity, theta) == want  # from the cache
    assert _validity_reason("promoted", 2 / 3, 0.6) is _validity_reason("promoted", 2 / 3, 0.6)
    # A new precedent's first reason, as the fold wrote it before it was a shared string.
    for outcome, what in ((False, "first observation"), (True, "first outcome")):
        kind = EvidenceKind.OUTCOME if outcome else EvidenceKind.OBSERVATION
        ev = Evidence("e1", "ns", "k", "v", kind, outcome=True if outcome else None, time=1.0)
        ks = KeyState("ns", "k")
        apply_evidence(ks, ev, LifecyclePolicy())
        (p,) = ks.precedents.values()
        assert p.transitions[0].reason == f"new candidate: {what}"
        assert p.transitions[1].reason == "promoted: validity 0.67 >= 0.60"


def test_loaded_records_share_their_source_string() -> None:
    import json

    text = json.dumps(Evidence.observation("k", "v", time=1.0, id="e1", source="app").to_dict())
    one, two = Evidence.from_json(text), Evidence.from_json(text)
    assert one == two and one.source == "app" and one.source is two.source
    assert Evidence.from_json(text.replace('"app"', "null")).source is None
