"""The answer index after a writer is killed with SIGKILL while it holds answer changes back.

A child process puts, updates and deletes items through ``TEPAStore.from_path`` with an index
(its answer-index changes wait in the process: ``storage/chroma/pending.py``), reports each
acknowledged call, and is killed with a real SIGKILL between two calls or inside Chroma's
``upsert``. Reopening the folder repairs the index; then the index holds exactly each key's
answer as the fold of the stored evidence gives it, and no acknowledged write is lost.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from langchain_tepa import HashingEmbeddings
from langchain_tepa.store import TEPAStore

pytestmark = pytest.mark.xdist_group("processes")

INDEX = {"dims": 64, "embed": HashingEmbeddings(size=64), "fields": ["text"]}

_CHILD = r"""
import json, os, random, signal, sys, threading, time
import chromadb.api.models.Collection as chroma_collection
from langchain_tepa import HashingEmbeddings
from langchain_tepa.store import TEPAStore

folder, ack_path, mode, seed = sys.argv[1:5]
rng = random.Random(int(seed))
kill_at = int(os.environ["TEPA_KILL_AT"])
if mode == "in-upsert":  # killed by a thread while Chroma writes an append (after kill_at calls)
    original = chroma_collection.Collection.upsert
    def upsert(self, *args, **kwargs):
        upsert.n = getattr(upsert, "n", 0) + 1
        if upsert.n > kill_at:
            threading.Thread(target=lambda: (time.sleep(rng.uniform(0.0, 0.005)),
                                             os.kill(os.getpid(), signal.SIGKILL)),
                             daemon=True).start()
        return original(self, *args, **kwargs)
    chroma_collection.Collection.upsert = upsert
index = {"dims": 64, "embed": HashingEmbeddings(size=64), "fields": ["text"]}
store = TEPAStore.from_path(folder, index=index, embeddings=HashingEmbeddings(size=64))
ack = open(ack_path, "a", encoding="utf-8")
words = ["pizza", "tax", "garden", "train", "music", "coffee"]
for n in range(10_000):
    ns = ("users", f"u{rng.randrange(4)}")
    key = f"k{rng.randrange(12)}"
    if rng.random() < 0.1:
        store.delete(ns, key)
        ack.write(json.dumps([list(ns), key, None]) + "\n")
    else:
        value = {"text": " ".join(rng.choice(words) for _ in range(3)) + f" {n}"}
        store.put(ns, key, value)
        ack.write(json.dumps([list(ns), key, value]) + "\n")
    ack.flush()
    if mode == "between" and n + 1 == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
"""

_ROOT = Path(__file__).resolve().parents[2]


def _run(folder: Path, ack: Path, mode: str, seed: int, kill_at: int) -> None:
    env = {**os.environ, "TEPA_KILL_AT": str(kill_at), "ANONYMIZED_TELEMETRY": "False"}
    argv = [sys.executable, "-c", _CHILD, str(folder), str(ack), mode, str(seed)]
    proc = subprocess.Popen(argv, cwd=_ROOT, env=env, stderr=subprocess.PIPE)
    try:
        proc.wait(timeout=180)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    assert proc.returncode == -signal.SIGKILL, f"child ended with {proc.returncode}: {err[-3000:]}"


def _acked(ack: Path) -> dict[tuple[tuple[str, ...], str], object]:
    last: dict[tuple[tuple[str, ...], str], object] = {}
    for line in ack.read_text(encoding="utf-8").splitlines():
        try:
            ns, key, value = json.loads(line)
        except json.JSONDecodeError:
            continue  # cut by the kill: not acknowledged
        last[(tuple(ns), key)] = value
    return last


@pytest.mark.parametrize(("mode", "seed", "kill_at"), [("between", 1, 37), ("in-upsert", 2, 25)])
def test_a_killed_writer_s_held_answers_are_repaired_on_reopening(
    tmp_path: Path, mode: str, seed: int, kill_at: int
) -> None:
    folder, ack = tmp_path / "m", tmp_path / "ack.jsonl"
    _run(folder, ack, mode, seed, kill_at)
    acked = _acked(ack)
    assert acked, "the child acknowledged nothing"
    started = time.monotonic()
    store = TEPAStore.from_path(folder, index=INDEX, embeddings=HashingEmbeddings(size=64))
    repaired = time.monotonic() - started
    memory, space = store.memory, store._space.name  # type: ignore[union-attr]
    for ns in ("users.u0", "users.u1", "users.u2", "users.u3"):
        fold = {row.key: row.value for row in memory.answer_rows(namespace=ns)}
        hits = memory.search_answers(space, [1.0] * 64, 1000, prefix=ns)
        assert hits is not None
        assert {h.key: h.value for h in hits} == fold, ns  # the index equals the fold
    for (labels, key), value in acked.items():
        got = store.get(labels, key)
        if value is None:  # an acknowledged delete (a later put of the key would be listed)
            assert got is None, (labels, key)
        else:  # the fold may keep an older value (the policy's rules); it is in the index
            assert got is not None, (labels, key)
    memory.close()
    print(f"  {mode}: {len(acked)} keys acknowledged, reopened and repaired in {repaired:.2f} s")
