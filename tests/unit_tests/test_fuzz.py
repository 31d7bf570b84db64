"""Hostile and bad input: a hypothesis fuzz of the public API.

Random keys, values, texts (control characters, lone surrogates, up to 1 MB), metadata,
sources, reasons, namespaces, ``k`` values, fact lists and ``LifecyclePolicy`` fields. Every call
either succeeds or raises a :class:`~langchain_tepa.TEPAError` subclass with a message; after a
rejected call the memory's evidence, index, stored views and retrievable sets are identical to
before; after any call the index equals a refold of the stored evidence.

The number of generated cases and calls is printed with ``-s`` and appended to
``$TEPA_RELIABILITY_FIGURES`` when that variable names a file.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langchain_tepa import (
    Fact,
    HashingEmbeddings,
    LifecyclePolicy,
    TEPAError,
    TEPAMemory,
)
from langchain_tepa.core.fold import fold_all
from tests.support.figures import report_figures
from tests.support.offline import fresh_memory
from tests.support.stored import stored_evidence, stored_view_dicts

FIGURES: Counter[str] = Counter()

VALID_KEYS = ["user.diet", "user.city", "tool.format", "k"]
VALID_NS = ["default", "users.u1", "users.u10"]

# ---------------------------------------------------------------- strategies
_weird = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "a\x00b",
        "\ud800",
        "x\udfffy",
        "\n",
        "k\t",
        "\u202eevil",
        "\u200b",
        "\x7f",
        "a" * 300,
        ".",
        "a..b",
        "tepa_state",
        "null",
        "{}",
        "\ufeff",
        "\U0010ffff",
        "\ue000",
    ]
)
_surrogate_text = st.tuples(st.text(max_size=20), st.sampled_from(["", "\ud800", "\udc00"])).map(
    "".join
)
_any_text = st.text(alphabet=st.characters(codec=None), max_size=40)
hostile_str = st.one_of(_weird, _surrogate_text, _any_text)
big_text = st.builds(
    lambda n, c: c * n,
    st.sampled_from([1_000, 20_000, 64 * 1024 + 1]),
    st.sampled_from(["a", "\x01", "é", "\u2028"]),
)
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    hostile_str,
    st.binary(max_size=8),
    st.just(object()),
    st.just({1, 2}),
)
json_like = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(hostile_str, st.integers()), inner, max_size=4),
    ),
    max_leaves=10,
)


def _mostly(valid: st.SearchStrategy[Any], *hostile: st.SearchStrategy[Any]) -> Any:
    """Valid about three times in four, so that accepted calls build up state too."""
    bad = st.one_of(*hostile)
    return st.sampled_from([True, True, True, False]).flatmap(lambda ok: valid if ok else bad)


key = _mostly(st.sampled_from(VALID_KEYS), hostile_str, scalar)
value = _mostly(
    st.sampled_from(["vegan", "Paris", "csv", 3, [1, 2], {"a": 1}]), json_like, big_text
)
namespace = _mostly(st.one_of(st.none(), st.sampled_from(VALID_NS)), hostile_str, scalar)
text = _mostly(st.one_of(st.none(), st.text(max_size=30)), hostile_str, big_text, scalar)
metadata = _mostly(
    st.one_of(st.none(), st.fixed_dictionaries({"origin": st.sampled_from(["chat", "tool"])})),
    st.dictionaries(st.one_of(hostile_str, st.integers()), scalar, max_size=5),
    st.just({f"m{i}": i for i in range(70)}),
    scalar,
)
source = _mostly(st.sampled_from([None, "user"]), hostile_str, scalar)
k_value = st.one_of(
    st.integers(min_value=-5, max_value=1100),
    st.sampled_from([0, 1, 1000, 1001, 2**63]),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    hostile_str,
)
fact_item = st.one_of(
    st.tuples(key, value),
    st.tuples(key),
    st.tuples(key, value, namespace),
    st.builds(Fact, key, value, namespace=namespace, text=text, source=source, metadata=metadata),
    scalar,
)
facts = st.one_of(st.lists(fact_item, max_size=4), scalar)

Call = tuple[str, Callable[[TEPAMemory], Any]]


def _call(name: str, fn: Callable[[TEPAMemory], Any]) -> Call:
    return (name, fn)


calls = st.one_of(
    st.builds(
        lambda k, v, t, n, m, s: _call(
            "observe", lambda mem: mem.observe(k, v, text=t, namespace=n, metadata=m, source=s)
        ),
        key,
        value,
        text,
        namespace,
        metadata,
        source,
    ),
    st.builds(
        lambda k, v, ok, n, m: _call(
            "record_outcome", lambda mem: mem.record_outcome(k, v, ok, namespace=n, metadata=m)
        ),
        key,
        value,
        st.one_of(st.booleans(), scalar),
        namespace,
        metadata,
    ),
    st.builds(lambda f: _call("observe_many", lambda mem: mem.observe_many(f)), facts),
    st.builds(
        lambda k, v, r, n: _call("revoke", lambda mem: mem.revoke(k, v, reason=r, namespace=n)),
        key,
        value,
        st.one_of(st.just("by hand"), hostile_str, scalar),
        namespace,
    ),
    st.builds(
        lambda k, v, r, n: _call("promote", lambda mem: mem.promote(k, v, reason=r, namespace=n)),
        key,
        value,
        st.one_of(st.just("by hand"), hostile_str, scalar),
        namespace,
    ),
    st.builds(
        lambda k, v, pos, kind, d: _call(
            "record_trial",
            lambda mem: mem.record_trial(k, v, pos, trial_kind=kind, detail=d),
        ),
        key,
        value,
        st.one_of(st.booleans(), scalar),
        st.one_of(st.just("counterfactual"), hostile_str, scalar),
        st.one_of(st.just(""), hostile_str, scalar),
    ),
    st.builds(
        lambda q, k, n, p: _call(
            "retrieve", lambda mem: mem.retrieve(q, k, namespace=n, key_prefix=p)
        ),
        st.one_of(st.just("diet"), hostile_str, scalar),
        k_value,
        namespace,
        st.one_of(st.none(), key),
    ),
    st.builds(lambda k, n: _call("get", lambda mem: mem.get(k, namespace=n)), key, namespace),
    st.builds(lambda k, n: _call("audit", lambda mem: mem.audit(k, namespace=n)), key, namespace),
    st.builds(
        lambda k, n: _call("history", lambda mem: mem.history(k, namespace=n)), key, namespace
    ),
    st.builds(lambda n: _call("keys", lambda mem: mem.keys(namespace=n)), namespace),
    st.builds(
        lambda n, p: _call(
            "active_documents", lambda mem: mem.active_documents(namespace=n, key_prefix=p)
        ),
        namespace,
        st.one_of(st.none(), key),
    ),
    st.builds(
        lambda n: _call("mark_boundary", lambda mem: mem.mark_boundary(namespace=n)), namespace
    ),
    st.builds(
        lambda ts, n, s: _call("add_texts", lambda mem: mem.add_texts(ts, namespace=n, source=s)),
        st.one_of(
            st.lists(
                st.one_of(st.just("I live in Paris. My diet is vegan."), hostile_str, scalar),
                max_size=3,
            ),
            scalar,
        ),
        namespace,
        source,
    ),
    st.just(_call("reconcile", lambda mem: mem.reconcile())),
)


# ---------------------------------------------------------------- helpers
def _memory(backend: str) -> TEPAMemory:
    return fresh_memory(backend, "fz")


def _dump(mem: TEPAMemory) -> tuple[Any, ...]:
    """Everything stored and folded. Buffered views are written first, so the dump is whole."""
    mem.flush()
    evidence = [e.to_json() for e in stored_evidence(mem.storage)]
    index = [json.dumps(p.to_dict(), sort_keys=True) for p in mem.iter_precedents()]
    views = sorted(json.dumps(v, sort_keys=True) for v in stored_view_dicts(mem.storage).values())
    active: list[Any] = []
    for ns in mem.namespaces():
        active.append([d.id for d in mem.retrieve("x", k=1000, namespace=ns)])
    return evidence, index, views, active


def _assert_consistent(mem: TEPAMemory) -> None:
    """The in-process index equals a refold of the stored evidence."""
    fold = fold_all(stored_evidence(mem.storage), mem.policy)
    want = {
        p.id: (p.state, p.support, p.conflict) for s in fold.values() for p in s.precedents.values()
    }
    got = {p.id: (p.state, p.support, p.conflict) for p in mem.iter_precedents()}
    assert got == want


def _has_message(exc: BaseException, name: str) -> None:
    assert str(exc).strip(), f"{name} raised {type(exc).__name__} without a message"


def _run(mem: TEPAMemory, name: str, fn: Callable[[TEPAMemory], Any]) -> None:
    before = _dump(mem)
    FIGURES["calls"] += 1
    try:
        fn(mem)
    except TEPAError as exc:
        FIGURES["rejected"] += 1
        _has_message(exc, name)
        assert _dump(mem) == before, f"rejected {name} changed the memory"
    except Exception as exc:  # anything else is a bug: report what was called
        raise AssertionError(f"{name} raised {type(exc).__name__}: {exc!r:.300}") from exc
    else:
        FIGURES["accepted"] += 1
    _assert_consistent(mem)


@pytest.fixture(scope="module", autouse=True)
def _report_figures() -> Iterator[None]:
    yield
    report_figures("fuzz", dict(FIGURES))


# ---------------------------------------------------------------- tests
_SEED = [
    ("user.diet", "vegan"),
    ("user.diet", "omnivore"),
    ("user.city", "Paris"),
    ("tool.format", "csv"),
    ("k", 3),
]


@pytest.mark.parametrize(("backend", "examples"), [("memory", 600), ("chroma", 50)])
def test_fuzz_public_api(backend: str, examples: int) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(sequence=st.lists(calls, min_size=1, max_size=6))
    def check(sequence: list[Call]) -> None:
        FIGURES[f"cases_{backend}"] += 1
        mem = _memory(backend)
        mem.observe_many(_SEED)
        for ns in VALID_NS[1:]:
            mem.observe("user.diet", "vegan", namespace=ns)
        for name, fn in sequence:
            _run(mem, name, fn)
        mem.close()

    check()


_hostile_policy_value = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.none(),
    hostile_str,
    st.sampled_from(["posterior", "immediate", "trials", ("user.allergies",), ["x"], ("",)]),
)
_VALID_POLICY = {
    **dict.fromkeys(("a0", "b0"), st.one_of(st.floats(1e-6, 50.0), st.sampled_from([1e-300, 1e6]))),
    **dict.fromkeys(
        ("theta_rev", "theta_rec", "theta_pro", "key_match_threshold"), st.floats(0.0, 1.0)
    ),
    **dict.fromkeys(("n_min", "window", "w_min", "n_pro"), st.integers(1, 8)),
    "temporal_window": st.one_of(st.none(), st.integers(1, 20)),
    "promotion": st.sampled_from(["posterior", "immediate", "trials"]),
    "multi_valued_prefixes": st.sampled_from([(), ("user.allergies",), ("user",)]),
    "name": st.sampled_from(["custom", "tepa-rev"]),
}
_FIELDS = [f.name for f in fields(LifecyclePolicy)]


def _policy_field(name: str) -> st.SearchStrategy[tuple[str, Any]]:
    valid = _VALID_POLICY.get(name, st.booleans())
    return st.tuples(st.just(name), _mostly(valid, _hostile_policy_value))


@settings(max_examples=300, deadline=None)
@given(
    overrides=st.lists(st.sampled_from([*_FIELDS, "bogus"]).flatmap(_policy_field), max_size=5).map(
        dict
    ),
    preset=st.one_of(st.none(), st.sampled_from(["tepa-rev", "tepa-full", "lww", "temporal"])),
)
def test_fuzz_policy_thresholds(overrides: dict[str, Any], preset: str | None) -> None:
    """A policy is rejected with a PolicyError, or every call under it works."""
    FIGURES["policy_cases"] += 1
    try:
        if preset is None:  # (an unknown keyword is Python's TypeError, as for any class)
            policy = LifecyclePolicy(**{k: v for k, v in overrides.items() if k != "bogus"})
        else:
            policy = LifecyclePolicy.preset(preset, **overrides)
    except TEPAError as exc:
        FIGURES["policy_rejected"] += 1
        _has_message(exc, "the constructor")
        return
    except Exception as exc:
        raise AssertionError(f"LifecyclePolicy({overrides}) raised {exc!r}") from exc
    FIGURES["policy_accepted"] += 1
    assert LifecyclePolicy.from_dict(policy.to_dict()) == policy
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), policy=policy)
    for i in range(12):
        mem.observe("user.diet", ["vegan", "omnivore"][i % 2 if i > 5 else 0])
        mem.record_outcome("user.diet", "vegan", i % 3 == 0)
    mem.mark_boundary()
    mem.retrieve("diet", k=3)
    mem.get("user.diet")
    for p in mem.audit("user.diet").precedents:
        assert 0.0 <= p.validity <= 1.0 and math.isfinite(p.lower_bound)
        if p.state.value == "hypothesis" and p.transitions:
            mem.promote("user.diet", p.value)
    mem.reconcile()
    _assert_consistent(mem)


@settings(max_examples=100, deadline=None)
@given(
    ctor=st.fixed_dictionaries(
        {},
        optional={
            "namespace": namespace,
            "writer": _mostly(st.sampled_from([None, "agent-1"]), hostile_str, scalar),
            "flush_every": _mostly(st.integers(1, 5), st.integers(-2, 0), scalar),
            "policy": _mostly(st.sampled_from([None, "tepa-rev", "lww"]), hostile_str, scalar),
        },
    )
)
def test_fuzz_constructor(ctor: dict[str, Any]) -> None:
    FIGURES["constructor_cases"] += 1
    try:
        mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), **ctor)
    except TEPAError as exc:
        FIGURES["constructor_rejected"] += 1
        _has_message(exc, "the constructor")
        return
    except Exception as exc:
        raise AssertionError(f"TEPAMemory.in_memory({ctor!r:.300}) raised {exc!r}") from exc
    mem.observe("user.diet", "vegan")
    assert mem.get("user.diet") == "vegan"


@pytest.mark.parametrize(
    ("size", "fill", "accepted"),
    [
        (1_000_000, "a\x01\u2028é", True),
        (1_000_001, "a", False),
        (1_000_000, "a\x00", False),
    ],
)
def test_megabyte_texts(size: int, fill: str, accepted: bool) -> None:
    """Texts up to 1 MB characters are accepted (control characters included, not NUL)."""
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    mem.observe("user.bio", "short")
    big = (fill * (size // len(fill) + 1))[:size]
    for name, fn in (
        ("observe", lambda m: m.observe("user.essay", "v", text=big)),
        ("retrieve", lambda m: m.retrieve(big, k=1)),
    ):
        FIGURES["megabyte_calls"] += 1
        before = _dump(mem)
        if accepted:
            fn(mem)
        else:
            with pytest.raises(TEPAError) as info:
                fn(mem)
            assert str(info.value)
            assert _dump(mem) == before, name
    if accepted:
        assert mem.history("user.essay")[0].text == big
