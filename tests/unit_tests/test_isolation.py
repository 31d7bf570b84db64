"""Tenant isolation: nothing of namespace B is ever visible from namespace A.

Property tests (hypothesis) over pairs of namespaces chosen to be confusable: string prefixes
("u1"/"u10"), segment prefixes ("users"/"users.u1"), look-alike Unicode (Cyrillic, fullwidth,
decomposed accents, case), separators ("users.u1" against "users_u1", "users/u1", "users:u1")
and invalid ones (empty segments, padding, zero-width and bidirectional-control characters),
which must be rejected, never merged. Checked on the in-process store and on (ephemeral) Chroma, through the memory
(``retrieve``, ``get``, ``audit``, ``history``, ``keys``, ``active_documents``) and through the
LangGraph store (``search``, ``get``, ``list_namespaces``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from langchain_tepa import HashingEmbeddings, InvalidNamespaceError, TEPAMemory
from langchain_tepa.store import TEPAStore
from tests.support.offline import fresh_memory
from tests.support.stored import stored_evidence

CONFUSABLE = [
    ("u1", "u10"),
    ("users.u1", "users.u10"),
    ("users.u1", "users.u1.x"),
    ("users", "users.u1"),
    ("users.u1", "users_u1"),
    ("users.u1", "users/u1"),
    ("users.u1", "users:u1"),
    ("users.u1", "users.u 1"),
    ("u1", "U1"),
    ("u1", "u\uff11"),  # fullwidth digit one
    ("alice", "\u0430lice"),  # Cyrillic a
    ("rene", "ren\u0435"),  # Cyrillic e
    ("ren\u00e9", "rene\u0301"),  # NFC against NFD
    ("u1", "u1\u00a0x"),  # no-break space inside a segment
    ("ﬁle", "file"),  # ligature
]
INVALID = [
    "",
    ".",
    "users.",
    ".users",
    "users..u1",
    " users",
    "users ",
    "users. u1",
    "u\x001",
    "u\u200b1",  # zero-width space: would look like "u1"
    "users.\u202eu1",  # right-to-left override
    "\ufeffusers",  # byte-order mark
]
KEYS = ["u1", "u1.a", "u10", "u10.a", "u1x", "user.diet", "user.diet.x"]

segment = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Cf", "Cn", "Co", "Zl", "Zp"),
        blacklist_characters=".\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0",
    ),
    min_size=1,
    max_size=6,
).filter(lambda s: s == s.strip())
random_namespace = st.lists(segment, min_size=1, max_size=3).map(".".join)
pair = st.one_of(
    st.sampled_from(CONFUSABLE),
    st.sampled_from(CONFUSABLE).map(lambda ab: (ab[1], ab[0])),
    st.tuples(random_namespace, random_namespace).filter(lambda ab: ab[0] != ab[1]),
)
writes = st.lists(
    st.tuples(st.sampled_from(KEYS), st.integers(0, 3), st.booleans()), min_size=1, max_size=12
)


def _memory(backend: str) -> TEPAMemory:
    return fresh_memory(backend, "iso")


def _write(mem: TEPAMemory, ns: str, plan: list[tuple[str, int, bool]]) -> set[str]:
    """Write tagged values (``"<ns>|v<i>"``) into ``ns``; returns the evidence ids."""
    ids = set()
    for key, i, outcome in plan:
        value = f"{ns}|v{i}"
        if outcome:
            r = mem.record_outcome(key, value, True, namespace=ns)
        else:
            r = mem.observe(key, value, namespace=ns, text=f"{key} is {value}")
        ids.add(r.evidence.id)
    return ids


def _values_of(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _check_only(mem: TEPAMemory, ns: str, mine: set[str], theirs: set[str]) -> None:
    tag = f"{ns}|"
    for doc in mem.retrieve(f"{ns} user diet value", k=1000, namespace=ns):
        assert doc.metadata["namespace"] == ns
        assert str(doc.metadata["value"]).startswith(tag)
        assert not set(doc.metadata["evidence_ids"]) & theirs
    for doc in mem.active_documents(namespace=ns):
        assert doc.metadata["namespace"] == ns
    for key in KEYS:
        for value in _values_of(mem.get(key, namespace=ns)):
            assert value is None or str(value).startswith(tag)
        audit = mem.audit(key, namespace=ns)
        assert all(p.namespace == ns and str(p.value).startswith(tag) for p in audit.precedents)
        assert all(not set(p.evidence_ids) & theirs for p in audit.precedents)
        history = mem.history(key, namespace=ns)
        assert {e.id for e in history} <= mine
        assert all(e.namespace == ns for e in history)
        for prefix in ("u1", "user.diet"):
            for doc in mem.retrieve("value", k=50, namespace=ns, key_prefix=prefix):
                k = doc.metadata["key"]
                assert k == prefix or k.startswith(prefix + "."), (prefix, k)


@pytest.mark.parametrize(("backend", "examples"), [("memory", 120), ("chroma", 15)])
def test_memory_namespaces_never_leak(backend: str, examples: int) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(ab=pair, plan_a=writes, plan_b=writes)
    def check(ab: tuple[str, str], plan_a: list[Any], plan_b: list[Any]) -> None:
        a, b = ab
        mem = _memory(backend)
        ids_a = _write(mem, a, plan_a)
        ids_b = _write(mem, b, plan_b)
        assert set(mem.namespaces()) == {a, b}
        assert set(mem.keys(namespace=a)) == {k for k, _, _ in plan_a}
        assert set(mem.keys(namespace=b)) == {k for k, _, _ in plan_b}
        _check_only(mem, a, ids_a, ids_b)
        _check_only(mem, b, ids_b, ids_a)
        mem.close()

    check()


@pytest.mark.parametrize("bad", INVALID)
def test_invalid_namespaces_are_rejected_and_store_nothing(bad: str) -> None:
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    mem.observe("user.diet", "vegan", namespace="users.u1")
    before = [e.id for e in stored_evidence(mem.storage)]
    for call in (
        lambda: mem.observe("user.diet", "x", namespace=bad),
        lambda: mem.record_outcome("user.diet", "vegan", True, namespace=bad),
        lambda: mem.retrieve("diet", namespace=bad),
        lambda: mem.get("user.diet", namespace=bad),
        lambda: mem.audit("user.diet", namespace=bad),
        lambda: mem.history("user.diet", namespace=bad),
    ):
        with pytest.raises(InvalidNamespaceError) as info:
            call()
        assert str(info.value)
    assert [e.id for e in stored_evidence(mem.storage)] == before
    assert mem.namespaces() == ["users.u1"]


# ---------------------------------------------------------------- the LangGraph store

label = st.one_of(
    st.sampled_from(["users", "u1", "u10", "U1", "u\uff11", "\u0430lice", "alice", "users.u1"]),
    st.sampled_from(["", " u1", "u1 ", "u\u200b1", "a/b", "a:b", "ren\u00e9", "rene\u0301"]),
    segment,
)
tuple_ns = st.lists(label, min_size=1, max_size=3).map(tuple)


def _put(store: Any, ns: tuple[str, ...], key: str, value: dict[str, Any]) -> bool:
    """Put; False if the namespace is rejected (a ValueError with a message)."""
    try:
        store.put(ns, key, value)
    except ValueError as exc:
        return _has_message(exc)
    return True


def _has_message(exc: BaseException) -> bool:
    assert str(exc).strip(), f"{type(exc).__name__} without a message"
    return False


def _is_prefix(prefix: tuple[str, ...], ns: tuple[str, ...]) -> bool:
    return ns[: len(prefix)] == prefix


def _matches(prefix: tuple[str, ...], ns: tuple[str, ...]) -> bool:
    """LangGraph's list_namespaces prefix condition: "*" matches any one label."""
    return len(ns) >= len(prefix) and all(p in ("*", n) for p, n in zip(prefix, ns, strict=False))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=tuple_ns, b=tuple_ns, keys=st.lists(st.sampled_from(KEYS), min_size=1, max_size=4))
@example(a=("users",), b=("B:",), keys=["u1", "u1.a"])  # "B:" once labelled the next field
def test_store_namespaces_never_leak(
    a: tuple[str, ...], b: tuple[str, ...], keys: list[str]
) -> None:
    if a == b:
        return
    store = TEPAStore.in_memory(embeddings=HashingEmbeddings())
    ok_a = all(_put(store, a, k, {"owner": list(a), "k": k}) for k in keys)
    ok_b = all(_put(store, b, k, {"owner": list(b), "k": k}) for k in keys)
    if not (ok_a and ok_b):
        # A rejected namespace stored nothing at all.
        stored = {tuple(ns) for ns in store.list_namespaces()}
        assert stored <= {ns for ns, ok in ((a, ok_a), (b, ok_b)) if ok}
    for ns, ok, other in ((a, ok_a, b), (b, ok_b, a)):
        if not ok:
            continue
        for k in keys:
            item = store.get(ns, k)
            assert item is not None
            assert tuple(item.namespace) == ns
            assert tuple(item.value["owner"]) == ns
        for item in store.search(ns, limit=100):
            assert _is_prefix(ns, tuple(item.namespace))
            assert tuple(item.value["owner"]) == tuple(item.namespace)
        for item in store.search(ns, query="owner", limit=100):
            assert _is_prefix(ns, tuple(item.namespace))
        for listed in store.list_namespaces(prefix=ns):
            assert _matches(ns, tuple(listed))
        if not _is_prefix(ns, other):
            assert all(tuple(i.namespace) != other for i in store.search(ns, limit=100))
    listed = {tuple(n) for n in store.list_namespaces()}
    assert listed == {ns for ns, ok in ((a, ok_a), (b, ok_b)) if ok}
