"""Crash recovery in embedded persistent mode: a writer process killed with SIGKILL.

A child process writes to ``TEPAMemory.from_path(DIR)`` (observation batches, some spanning two
namespaces in different shards, single observations and outcomes) and reports each acknowledged
call (its evidence ids) on an ack file right after the call returns. It is killed with a real
SIGKILL at several points:

* ``timer``: by this process, once the child has acknowledged N records (wherever it is then);
* ``in-upsert``: by a thread of the child while Chroma is inside the ``upsert`` of a large
  batch's evidence pages;
* ``before-append``: just before an append is written;
* ``mid-commit``: after the first shard of a two-shard batch is written, before the second;
* ``before-views``: when buffered views are about to be written (they never are);
* ``chain``: three writers in a row on one folder, each killed, each reopening the last one's mess.

Then, on reopening: every acknowledged record is present; each namespace's part of a batch is
there whole or not at all; ``audit`` equals a refold of the stored evidence and ``retrieve``
returns Active precedents only; views the dead writer never wrote are rewritten by the next
reader of each namespace (no ``reconcile()``), after which ``reconcile()`` finds nothing to
repair.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, Lifecycle, TEPAMemory
from langchain_tepa.core.fold import fold_all
from tests.support.figures import report_figures
from tests.support.stored import lagging_views, stored_evidence

# tests that start several processes run one at a time under pytest-xdist
pytestmark = pytest.mark.xdist_group("processes")

KEYS = [f"user.setting{i}" for i in range(8)]
VALUES = ["alpha", "beta", "gamma"]
NAMESPACES = ["users.u1", "users.u10"]
BATCH = 20

_CHILD = r"""
import json, os, random, signal, sys, threading, time
import chromadb.api.models.Collection as chroma_collection
from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory
from langchain_tepa.storage.chroma import ChromaStorage

folder, ack_path, mode, seed = sys.argv[1:5]
keys, values, namespaces, batch = json.loads(os.environ["TEPA_TEST_DOMAIN"])
rng = random.Random(int(seed))
kill_after = int(os.environ.get("TEPA_KILL_AFTER", "3"))  # calls of the hooked step to let pass

def die():
    os.kill(os.getpid(), signal.SIGKILL)

calls = {"n": 0}
def hook(obj, name, before=True, when=None):
    original = getattr(obj, name)
    def wrapper(*args, **kwargs):
        if when is None or when(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] > kill_after:
                if before:
                    die()
                threading.Thread(target=lambda: (time.sleep(rng.uniform(0.001, 0.01)), die()),
                                 daemon=True).start()
        return original(*args, **kwargs)
    setattr(obj, name, wrapper)

if mode == "before-append":
    hook(ChromaStorage, "commit")
elif mode == "mid-commit":
    original_commit = ChromaStorage.commit
    def commit_then_die_between_shards(self, commit):
        shards = {self.layout.shard(w.namespace) for w in commit.writes}
        if len(shards) > 1:
            calls["n"] += 1
            if calls["n"] > kill_after:
                original_append = self._append
                seen = []
                def append_once(*args, **kwargs):
                    if seen:
                        die()
                    seen.append(1)
                    return original_append(*args, **kwargs)
                self._append = append_once
        return original_commit(self, commit)
    ChromaStorage.commit = commit_then_die_between_shards
elif mode == "before-views":
    hook(ChromaStorage, "write_views", when=lambda self, views, marks=None, **kw: bool(views))
elif mode == "in-upsert":
    hook(chroma_collection.Collection, "upsert", before=False,
         when=lambda self, **kw: any((m or {}).get("tepa_n", 0) > 100 for m in kw.get("metadatas") or []))

flush_every = 5 if mode == "before-views" else 256
memory = TEPAMemory.from_path(folder, embeddings=HashingEmbeddings(), writer=f"crash{seed}",
                              flush_every=flush_every)

ack = open(ack_path, "a", encoding="utf-8")
def acknowledge(results):
    ack.write(json.dumps([r.evidence.id for r in results]) + "\n")
    ack.flush()

b = 0
while True:
    b += 1
    ns = rng.choice(namespaces)
    size = 1500 if mode == "in-upsert" and b % 3 == 0 else batch
    tag = f"{seed}-{b}"
    spread = namespaces if b % 2 == 0 else [ns]  # every other batch spans two shards
    facts = [Fact(rng.choice(keys), rng.choice(values), namespace=spread[i % len(spread)],
                  metadata={"batch": tag, "size": size // len(spread)}) for i in range(size)]
    acknowledge(memory.observe_many(facts))
    key = rng.choice(keys)
    acknowledge([memory.observe(key, rng.choice(values), namespace=ns,
                                metadata={"batch": tag + "o", "size": 1})])
    acknowledge([memory.record_outcome(key, rng.choice(values), rng.random() < 0.5, namespace=ns,
                                       metadata={"batch": tag + "r", "size": 1})])
"""

_ROOT = Path(__file__).resolve().parents[2]


def _spawn(
    folder: Path, ack: Path, mode: str, seed: int, kill_after: int
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "TEPA_TEST_DOMAIN": json.dumps([KEYS, VALUES, NAMESPACES, BATCH]),
        "TEPA_KILL_AFTER": str(kill_after),
        "ANONYMIZED_TELEMETRY": "False",
    }
    argv = [sys.executable, "-c", _CHILD, str(folder), str(ack), mode, str(seed)]
    return subprocess.Popen(argv, cwd=_ROOT, env=env, stderr=subprocess.PIPE)


def _acked(ack: Path) -> list[str]:
    ids: list[str] = []
    if not ack.exists():
        return ids
    for line in ack.read_text(encoding="utf-8").splitlines():
        try:
            ids.extend(json.loads(line))
        except json.JSONDecodeError:  # a line cut by the kill: that call was not acknowledged
            continue
    return ids


def _run_until_killed(
    folder: Path, ack: Path, mode: str, seed: int, *, kill_after: int = 3, timer_acks: int = 0
) -> int:
    """Run one child until it dies by SIGKILL; return the number of records it acknowledged."""
    proc = _spawn(folder, ack, mode, seed, kill_after)
    before = len(_acked(ack))
    try:
        deadline = time.monotonic() + 90
        while proc.poll() is None and time.monotonic() < deadline:
            if timer_acks and len(_acked(ack)) - before >= timer_acks:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.005)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    assert proc.returncode == -signal.SIGKILL, f"child ended with {proc.returncode}: {err[-3000:]}"
    return len(_acked(ack)) - before


def _view_lag(memory: TEPAMemory, records: list[Any]) -> int:
    """Stored views that differ from the fold of the stored evidence (or are missing)."""
    return lagging_views(memory.storage, memory.policy, records)


def _verify(folder: Path, acked: list[str]) -> dict[str, int]:
    """Everything the issues ask of a reopened memory after a crash; returns counters."""
    # A reader takes over a dead writer's views once it has been silent for twice the reader's
    # flush interval (0.1 s here).
    time.sleep(0.2)
    memory = TEPAMemory.from_path(folder, embeddings=HashingEmbeddings(), flush_interval_s=0.05)
    records = stored_evidence(memory.storage)
    ids = {ev.id for ev in records}
    missing = set(acked) - ids
    assert not missing, f"{len(missing)} acknowledged records lost, e.g. {sorted(missing)[:3]}"
    # Nothing half-written: each namespace's part of a batch is stored whole or not at all.
    sizes: dict[tuple[str, str], int] = {}
    counts: Counter[tuple[str, str]] = Counter()
    for ev in records:
        part = (str(ev.metadata["batch"]), ev.namespace)
        counts[part] += 1
        sizes[part] = int(ev.metadata["size"])
    partial = {t: (counts[t], sizes[t]) for t in counts if counts[t] != sizes[t]}
    assert not partial, f"half-written batches visible: {partial}"
    lag_at_reopen = _view_lag(memory, records)

    fold = fold_all(records, memory.policy)
    for (ns, key), state in fold.items():
        audit = memory.audit(key, namespace=ns)
        want = {p.id: (p.state, p.support, p.conflict) for p in state.precedents.values()}
        assert {p.id: (p.state, p.support, p.conflict) for p in audit.precedents} == want
        assert audit.evidence_count == len(
            [e for e in records if (e.namespace, e.key) == (ns, key)]
        )
    for ns in NAMESPACES:
        active = {p.id for p in memory.precedents(namespace=ns) if p.state is Lifecycle.ACTIVE}
        docs = memory.retrieve("user setting", k=1000, namespace=ns, all_values=True)
        assert {d.id for d in docs} == active
        assert all(set(d.metadata["evidence_ids"]) <= ids for d in docs)
    # The dead writer's unwritten views were noticed by those reads and are written now.
    memory.flush()
    lag_after_reads = _view_lag(memory, records)
    assert lag_after_reads == 0
    report = memory.reconcile()
    assert report.evidence == len(records)
    assert report.repaired_views == 0
    memory.close()
    return {
        "acked": len(acked),
        "stored": len(records),
        "lagging_views_at_reopen": lag_at_reopen,
        "lagging_views_after_one_read": lag_after_reads,
    }


@pytest.mark.parametrize(
    ("mode", "kill_after", "timer_acks"),
    [
        ("timer", 0, 7),
        ("timer", 0, 95),
        ("timer", 0, 260),
        ("in-upsert", 1, 0),
        ("before-append", 4, 0),
        ("mid-commit", 1, 0),
        ("before-views", 2, 0),
    ],
)
def test_sigkill_at_a_point_then_reopen(
    tmp_path: Path, mode: str, kill_after: int, timer_acks: int
) -> None:
    folder, ack = tmp_path / "memory", tmp_path / "acks.txt"
    _run_until_killed(folder, ack, mode, seed=7, kill_after=kill_after, timer_acks=timer_acks)
    stats = _verify(folder, _acked(ack))
    if mode == "before-views":
        # The kill left views behind the evidence; the next reads caught them up.
        assert stats["lagging_views_at_reopen"] > 0
    report_figures(f"crash-{mode}-{kill_after}-{timer_acks}", {"kills": 1, **stats})


def test_three_writers_killed_in_a_row_on_one_folder(tmp_path: Path) -> None:
    folder, ack = tmp_path / "memory", tmp_path / "acks.txt"
    _run_until_killed(folder, ack, "timer", seed=1, timer_acks=40)
    _run_until_killed(folder, ack, "before-views", seed=2, kill_after=1)
    _run_until_killed(folder, ack, "timer", seed=3, timer_acks=70)
    stats = _verify(folder, _acked(ack))
    report_figures("crash-chain", {"kills": 3, **stats})
