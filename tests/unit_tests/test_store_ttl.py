"""TEPAStore TTL: expiry from the last put or read, revocation with reason "expired".

The expiry tests read a clock the test advances (the store's TTL keeper's clock), so they do not
depend on how long a put takes on a loaded machine; only the background sweeper's test sleeps.
"""

from __future__ import annotations

import time

import pytest

from langchain_tepa import HashingEmbeddings, InMemoryStorage, TEPAMemory, TEPAStore
from langchain_tepa.core.errors import InvalidArgumentError

NS = ("users", "u1")
SECOND = 1 / 60  # a TTL of one second, in minutes


class Clock:
    """Wall-clock seconds that move only when the test says so."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _store(
    storage: InMemoryStorage | None = None, clock: Clock | None = None, **kwargs: object
) -> TEPAStore:
    memory = TEPAMemory(storage or InMemoryStorage(), embeddings=HashingEmbeddings())
    store = TEPAStore(memory, **kwargs)  # type: ignore[arg-type]
    if clock is not None:
        store._ttl._clock = clock
    return store


def test_reads_refresh_the_expiry_unless_told_not_to() -> None:
    clock = Clock()
    store = _store(clock=clock)
    for key in ("kept", "peeked", "left"):
        store.put(NS, key, {"v": key}, ttl=0.6 * SECOND)
    clock.sleep(0.3)
    assert store.get(NS, "kept") is not None  # refreshes: 0.6 s from now
    assert store.get(NS, "peeked", refresh_ttl=False) is not None  # does not
    clock.sleep(0.4)  # 0.7 s after the puts, 0.4 s after the refresh
    assert store.get(NS, "kept") is not None
    assert store.get(NS, "peeked") is None
    assert store.get(NS, "left") is None


def test_default_ttl_and_no_refresh_on_read() -> None:
    clock = Clock()
    store = _store(clock=clock, ttl={"default_ttl": 0.4 * SECOND, "refresh_on_read": False})
    store.put(NS, "a", {"v": 1})
    store.put(NS, "b", {"v": 2}, ttl=None)  # explicitly no expiry
    clock.sleep(0.25)
    assert store.get(NS, "a") is not None  # a read that does not refresh
    clock.sleep(0.25)
    assert store.get(NS, "a") is None
    assert store.get(NS, "b").value == {"v": 2}


def test_the_sweeper_revokes_expired_items_and_keeps_them_for_audit() -> None:
    storage = InMemoryStorage()
    clock = Clock()
    store = _store(storage, clock)
    for i in range(3):
        store.put(NS, f"k{i}", {"v": i}, ttl=0.2 * SECOND)
    store.put(NS, "stays", {"v": 9})
    clock.sleep(0.3)
    assert store.sweep_ttl() == 3
    assert store.sweep_ttl() == 0
    reasons = {
        key: store.audit(NS, key).precedents[0].revocation.reason  # type: ignore[union-attr]
        for key in ("k0", "k1", "k2")
    }
    assert set(reasons.values()) == {"expired"}
    # Another worker on the same store sees the same expiry.
    other = _store(storage, clock)
    assert [i.key for i in other.search(NS)] == ["stays"]


def test_the_background_sweeper_runs_and_stops() -> None:
    store = _store(ttl={"sweep_interval_minutes": 1})
    store.put(NS, "k", {"v": 1}, ttl=0.1 * SECOND)
    future = store.start_ttl_sweeper(sweep_interval_minutes=1)
    time.sleep(0.2)
    assert store.stop_ttl_sweeper(timeout=5)
    assert future.done()
    assert store.sweep_ttl() == 1  # the loop waits a whole interval before its first sweep


def test_a_read_only_store_hides_expired_items_and_writes_nothing() -> None:
    storage = InMemoryStorage()
    clock = Clock()
    writer = _store(storage, clock)
    writer.put(NS, "k", {"v": 1}, ttl=0.2 * SECOND)
    clock.sleep(0.3)
    reader = TEPAStore(TEPAMemory(storage, embeddings=HashingEmbeddings(), read_only=True))
    reader._ttl._clock = clock
    assert reader.get(NS, "k") is None
    assert writer.audit(NS, "k").precedents[0].state.value == "active"  # not revoked yet


@pytest.mark.parametrize(
    "config",
    [{"default_ttl": -1}, {"default_ttl": "soon"}, {"unknown": 1}, {"sweep_interval_minutes": 0}],
)
def test_bad_ttl_config_is_a_typed_error(config: dict[str, object]) -> None:
    with pytest.raises(InvalidArgumentError):
        _store(ttl=config)


def test_bad_ttl_on_put_stores_nothing() -> None:
    store = _store()
    with pytest.raises(InvalidArgumentError):
        store.put(NS, "k", {"v": 1}, ttl=float("inf"))
    assert store.get(NS, "k") is None


def test_get_and_search_as_of_a_point() -> None:
    import asyncio

    store = TEPAStore.in_memory(index={"dims": 384, "embed": HashingEmbeddings(), "fields": ["t"]})
    store.put(NS, "pizza", {"t": "pineapple pizza"})
    then = store.memory.history("pizza", namespace="users.u1")[-1].id
    store.put(NS, "pizza", {"t": "mushroom pizza"})
    store.put(NS, "tax", {"t": "tax return"})
    assert store.get(NS, "pizza", as_of=then).value == {"t": "pineapple pizza"}
    assert store.get(NS, "pizza").value == {"t": "mushroom pizza"}
    assert store.get(NS, "tax", as_of=then) is None
    past = store.search(NS, query="pizza", as_of=then)
    assert [(i.key, i.value["t"]) for i in past] == [("pizza", "pineapple pizza")]
    assert past[0].score is not None
    now = asyncio.run(store.asearch(NS, query="pizza"))
    assert [i.key for i in now] == ["pizza", "tax"]
    assert asyncio.run(store.aget(NS, "pizza", as_of=then)).value == {"t": "pineapple pizza"}
