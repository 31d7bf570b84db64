"""Hostile and bad input: a hypothesis fuzz of the public API, in process.

Random keys, values, texts (control characters, lone surrogates, up to 1 MB), metadata,
sources, reasons, namespaces, ``k`` values, vectors, points in time, fact lists, store ops,
filters, documents, tool arguments and ``LifecyclePolicy`` fields (strategies and checks in
``tests/support/fuzzing.py``). Every call either succeeds or raises a
:class:`~langchain_tepa.TEPAError` subclass with a message (a tool answers with an error
message); after a rejected call everything stored is identical to before.

* ``test_fuzz_public_api``: the memory's calls; after each, its index and retrievable sets are
  compared too, and the index equals a refold of the stored evidence.
* ``test_fuzz_every_surface``: the memory, ``TEPAStore`` (with and without an index, ``batch``
  with mixed and invalid ops), ``TEPAVectorStore`` (both update modes), the agent tools and the
  retriever, all over one memory. ``tests/integration_tests/test_fuzz_server.py`` runs the same
  calls through a ``chroma run`` server, up and stopped.

The long run (20,000+ calls, counting untyped errors instead of stopping at the first) is a
script, not a test: ``python -m tests.support.fuzz_run --calls 20000``.

Untyped errors of known, reported bugs (``KNOWN_BUGS``, each a strict xfail in
``test_known_bugs.py``) are counted apart. The numbers of cases and calls are printed with
``-s`` and appended to ``$TEPA_RELIABILITY_FIGURES`` when that variable names a file.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langchain_tepa import HashingEmbeddings, LifecyclePolicy, TEPAError, TEPAMemory
from tests.support.figures import report_figures
from tests.support.fuzzing import (
    Call,
    Checker,
    Tally,
    assert_consistent,
    hostile_str,
    make_subject,
    memory_calls,
    mostly,
    namespace,
    scalar,
    surface_calls,
)
from tests.support.offline import fresh_memory
from tests.support.snapshot import stored_state

# the module's figures are summed in this process: its tests share one worker
pytestmark = pytest.mark.xdist_group("fuzz")

FIGURES: Counter[str] = Counter()
TALLY = Tally()  # the public API of the memory (its own properties, below)
SURFACES = Tally()  # every surface: memory, store, retriever, tools, vector store


_SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


# ---------------------------------------------------------------- helpers
def _dump(mem: TEPAMemory) -> tuple[Any, ...]:
    """Everything stored, and what the memory answers (its index, its retrievable sets)."""
    stored = stored_state(mem)
    index = [json.dumps(p.to_dict(), sort_keys=True) for p in mem.iter_precedents()]
    active: list[Any] = []
    for ns in mem.namespaces():
        active.append([d.id for d in mem.retrieve("x", k=1000, namespace=ns)])
    return stored, index, active


def _has_message(exc: BaseException, name: str) -> None:
    assert str(exc).strip(), f"{name} raised {type(exc).__name__} without a message"


@pytest.fixture(scope="module", autouse=True)
def _report_figures() -> Iterator[None]:
    yield
    report_figures("fuzz", {**dict(FIGURES), **TALLY.figures()})
    if SURFACES.counts:
        report_figures("fuzz-surfaces", SURFACES.figures())


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
    """The memory's calls; after each, also its index equals a refold of the stored evidence."""

    @settings(max_examples=examples, **_SETTINGS)
    @given(sequence=st.lists(memory_calls, min_size=1, max_size=6))
    def check(sequence: list[Call]) -> None:
        FIGURES[f"cases_{backend}"] += 1
        subject = make_subject(fresh_memory(backend, "fz"), seed=False)
        subject.memory.observe_many(_SEED)
        for ns in ("users.u1", "users.u10"):
            subject.memory.observe("user.diet", "vegan", namespace=ns)
        checker = Checker(subject, TALLY, dump=_dump)
        for c in sequence:
            checker(c)
            TALLY.counts[f"calls_{backend}"] += 1
            assert_consistent(subject.memory)
        subject.memory.close()

    check()


@pytest.mark.parametrize(("backend", "examples"), [("memory", 1500), ("chroma", 30)])
def test_fuzz_every_surface(backend: str, examples: int) -> None:
    """Memory, LangGraph store (with and without an index), vector store, tools, retriever.

    Sequences of calls on one memory and every adapter over it: each call succeeds or is
    refused with a typed error (a tool: an error message) and a refused one changes nothing
    stored. At the end the memory equals a refold of its evidence.
    """

    @settings(max_examples=examples, **_SETTINGS)
    @given(sequence=st.lists(surface_calls, min_size=2, max_size=12))
    def check(sequence: list[Call]) -> None:
        SURFACES.counts[f"sequences_{backend}"] += 1
        subject = make_subject(fresh_memory(backend, "fs"))
        checker = Checker(subject, SURFACES)
        for c in sequence:
            checker(c)
            SURFACES.counts[f"calls_{backend}"] += 1
        assert_consistent(subject.memory)
        subject.memory.close()

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
    return st.tuples(st.just(name), mostly(valid, _hostile_policy_value))


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
    assert_consistent(mem)


@settings(max_examples=100, deadline=None)
@given(
    ctor=st.fixed_dictionaries(
        {},
        optional={
            "namespace": namespace,
            "writer": mostly(st.sampled_from([None, "agent-1"]), hostile_str, scalar),
            "flush_every": mostly(st.integers(1, 5), st.integers(-2, 0), scalar),
            "policy": mostly(st.sampled_from([None, "tepa-rev", "lww"]), hostile_str, scalar),
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
