"""Several worker processes on one ``chroma run`` server (issue 13).

* read-your-writes and monotonic reads across workers: after a write is acknowledged by one
  worker, every read that begins afterwards, in any worker, reflects it;
* a stale writer cannot resurrect a revoked value;
* when the workers have written concurrently, a fresh reader's states equal a single-process
  replay of the same evidence, with no ``reconcile()`` call, and its flush leaves every stored
  view equal to the fold;
* a LangGraph ``StateGraph`` compiled with ``store=`` a ``TEPAStore`` and run by 4 worker
  processes: a preference changed through one worker is what the next run on another reads.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from langchain_tepa import EvidenceKind, HashingEmbeddings, TEPAMemory
from langchain_tepa.core.fold import fold_all
from tests.integration_tests.conftest import ChromaServer, unique_prefix
from tests.support.figures import report_figures
from tests.support.stored import stored_evidence, stored_views
from tests.support.workers import Worker

# tests that start several processes run one at a time under pytest-xdist
pytestmark = pytest.mark.xdist_group("processes")

KEYS = [f"user.pref{i}" for i in range(4)]
VALUES = ["red", "green", "blue"]
NAMESPACES = ["users.u1", "users.u2"]


@pytest.fixture
def workers(chroma_server: ChromaServer, request: pytest.FixtureRequest) -> Iterator[list[Worker]]:
    count = int(request.param)
    prefix = unique_prefix("wk")
    started = [
        Worker(chroma_server.host, chroma_server.port, prefix, f"worker{i}") for i in range(count)
    ]
    for w in started:
        w.wait_ready()  # started together, so they import in parallel
        w.prefix = prefix  # type: ignore[attr-defined]
    try:
        yield started
    finally:
        for w in started:
            w.stop()


def _replay_lifecycle(records: list[Any], policy: Any) -> dict[str, tuple[Any, ...]]:
    states = fold_all(records, policy)
    return {
        p.id: (p.state, p.support, p.conflict, tuple(t.reason for t in p.transitions))
        for s in states.values()
        for p in s.precedents.values()
    }


def _lifecycle(mem: TEPAMemory) -> dict[str, tuple[Any, ...]]:
    return {
        p.id: (p.state, p.support, p.conflict, tuple(t.reason for t in p.transitions))
        for p in mem.iter_precedents()
    }


@pytest.mark.parametrize("workers", [2, 8], indirect=True)
def test_every_read_reflects_every_write_acknowledged_before_it(
    workers: list[Worker], chroma_server: ChromaServer
) -> None:
    rng = random.Random(len(workers))
    acked: dict[tuple[str, str], set[str]] = {}
    reads = checked = 0
    steps = 160 if len(workers) == 2 else 240
    for _ in range(steps):
        w = rng.choice(workers)
        ns, key, value = rng.choice(NAMESPACES), rng.choice(KEYS), rng.choice(VALUES)
        if rng.random() < 0.6:
            r = w.call("observe", key=key, value=value, ns=ns)
        else:
            r = w.call("outcome", key=key, value=value, success=rng.random() < 0.6, ns=ns)
        acked.setdefault((ns, key), set()).add(r["id"])
        # Any worker, the writer or another: every acknowledged record of the key is folded.
        reader = rng.choice(workers)
        seen = set(reader.call("audit", key=key, ns=ns)["evidence"])
        missing = acked[(ns, key)] - seen
        assert not missing, f"{len(missing)} acknowledged records not seen by a later read"
        reads += 1
        checked += len(acked[(ns, key)])
    mem = chroma_server.memory(workers[0].prefix)  # type: ignore[attr-defined]
    records = stored_evidence(mem.storage)
    assert {e.id for e in records} == set().union(*acked.values())
    # Every worker's answers equal the fold of everything stored.
    want = _replay_lifecycle(records, mem.policy)
    for w in workers:
        for ns in NAMESPACES:
            for key in KEYS:
                state = fold_all(
                    [e for e in records if (e.namespace, e.key) == (ns, key)], mem.policy
                )
                act = state[(ns, key)].active() if (ns, key) in state else []
                assert w.call("get", key=key, ns=ns)["value"] == (act[0].value if act else None)
    assert _lifecycle(mem) == want
    report_figures(
        f"workers-{len(workers)}",
        {"workers": len(workers), "writes": len(records), "reads": reads, "acks_checked": checked},
    )
    mem.close()


@pytest.mark.parametrize("workers", [2], indirect=True)
def test_a_stale_worker_cannot_resurrect_a_revoked_value(workers: list[Worker]) -> None:
    a, b = workers
    ns = "users.u9"
    assert b.call("get", key="user.diet", ns=ns)["value"] is None  # B opened before A wrote
    for _ in range(3):
        a.call("observe", key="user.diet", value="vegan", ns=ns)
    assert b.call("get", key="user.diet", ns=ns)["value"] == "vegan"
    # A's world changes: four statements of another value and three failed actions on the old
    # one (under the trust table one source's repeats weigh less, so the statements alone do
    # not revoke vegan; its failed outcomes do, and while they are its recent outcomes no
    # assertion revives it). B reads nothing in between: its state still holds vegan Active
    # when it writes, so its write must catch up on A's evidence first.
    for _ in range(4):
        a.call("observe", key="user.diet", value="carnivore", ns=ns)
    for _ in range(3):
        a.call("outcome", key="user.diet", value="vegan", success=False, ns=ns)
    result = b.call("observe", key="user.diet", value="vegan", ns=ns)
    assert result["state"] != "active"
    assert a.call("get", key="user.diet", ns=ns)["value"] == "carnivore"
    assert b.call("get", key="user.diet", ns=ns)["value"] == "carnivore"
    states = {v: s for v, s, _, _ in a.call("audit", key="user.diet", ns=ns)["precedents"]}
    assert states["carnivore"] == "active" and states["vegan"] != "active"


@pytest.mark.parametrize("workers", [4], indirect=True)
def test_concurrent_workers_end_where_a_replay_ends_without_reconcile(
    workers: list[Worker], chroma_server: ChromaServer
) -> None:
    errors: list[BaseException] = []
    acked: list[str] = []
    lock = threading.Lock()

    def drive(w: Worker, seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(60):
                ns, key = rng.choice(NAMESPACES), rng.choice(KEYS[:2])  # hot keys: races
                if rng.random() < 0.5:
                    r = w.call("observe", key=key, value=rng.choice(VALUES), ns=ns)
                else:
                    r = w.call(
                        "outcome",
                        key=key,
                        value=rng.choice(VALUES),
                        success=rng.random() < 0.5,
                        ns=ns,
                    )
                with lock:
                    acked.append(r["id"])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=drive, args=(w, i)) for i, w in enumerate(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    for w in workers:
        w.stop()  # each flushes its buffered views on close
    prefix = workers[0].prefix  # type: ignore[attr-defined]
    reader = TEPAMemory.from_client(
        chroma_server.client(), prefix=prefix, embeddings=HashingEmbeddings()
    )
    records = stored_evidence(reader.storage)
    assert {e.id for e in records} == set(acked)
    want = _replay_lifecycle(records, reader.policy)
    assert _lifecycle(reader) == want  # no reconcile()
    # Views the racing writers left behind are rewritten by this reader's flush.
    reader.flush()
    views = {p.id: (p.state, p.support, p.conflict) for p in stored_views(reader.storage)}
    assert views == {pid: v[:3] for pid, v in want.items()}
    report_figures(
        "workers-race",
        {
            "workers": len(workers),
            "writes": len(records),
            "outcomes": sum(e.kind is EvidenceKind.OUTCOME for e in records),
        },
    )
    reader.close()


@pytest.mark.parametrize("workers", [4], indirect=True)
def test_a_graph_on_four_workers_reads_the_preference_set_through_another(
    workers: list[Worker],
) -> None:
    last: dict[str, str | None] = {"u1": None, "u2": None}
    rng = random.Random(4)
    for step in range(16):
        user = rng.choice(["u1", "u2"])
        w = workers[step % len(workers)]
        value = f"{user}-choice-{step}"
        out = w.call("graph", user=user, set=value)
        assert out["read"] == last[user], (step, user, out)
        last[user] = value
    for w in workers:
        assert w.call("graph", user="u1", set=None)["read"] == last["u1"]
        assert w.call("graph", user="u2", set=None)["read"] == last["u2"]
