"""The store of ``tepa-bench perf --scale``: many small namespaces and one large one, cached.

A store of size ``R`` holds ``R`` evidence records in ``R / 10`` small namespaces
(``users.u0000000`` ..., ten records each: a user's few facts) plus ``R / 10`` records in one
large namespace (``bulk.big``). At ``R`` = 1,000,000 that is the issue's store: a million
records over 100,000 namespaces, plus a namespace of 100,000 records.

* A small namespace gets the same ten observations: ``pref.k0`` seen twice with one value,
  ``pref.k1`` changed (one value once, then another three times: the first is revoked),
  ``pref.k2`` once, multi-valued ``list.k0`` with two values and ``list.k1`` with one: seven
  precedents, six of them Active. Values name their namespace, so every precedent's text is
  unique.
* The large namespace gets ``R / 10`` new values of 1,000 multi-valued keys: every record a new
  Active precedent (the most vectors a namespace of that size can hold).
* Embeddings are :class:`~tepa_bench.perf.common.DerivedEmbeddings` (a stable hash of
  the text), so any process can rebuild any vector, and nothing of 1.5 GB is kept in memory.

It is written through the public API only: ``TEPAMemory.observe_many`` over batches that mix
1,000 small namespaces with a proportional share of the large one. Then, for the raw Chroma
floor, one collection per query namespace holding that namespace's Active precedents with the
same vectors (``floor_00`` ...; ``floor_big`` for the large one) in the same Chroma folder.

The folder is built once per size and reused: ``CACHE/scale-R/`` holds ``chroma/`` and
``manifest.json`` (the workload, build time, size on disk, load average); a build goes to
``scale-R.partial`` first and is renamed when complete.

Example:
    >>> spec = ScaleSpec(10000)
    >>> spec.namespaces, spec.large_records, spec.namespace(7)
    (1000, 1000, 'users.u0000007')
    >>> len(spec.small_facts(7)), spec.small_facts(7)[0].key
    (10, 'pref.k0')
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.types import Fact
from tepa_bench.perf.common import (
    DerivedEmbeddings,
    dir_bytes,
    load_average,
    persistent_client,
)
from tepa_bench.perf.workload import perf_policy

__all__ = [
    "LARGE",
    "PREFIX",
    "WORKLOAD_VERSION",
    "ScaleSpec",
    "build_store",
    "clear_partial",
    "floor_name",
    "open_manifest",
]

WORKLOAD_VERSION = 1
"""Bumped whenever the data of a size changes (a cached store of another version is rebuilt)."""
PREFIX = "tepa"
LARGE = "bulk.big"
RECORDS_PER_NAMESPACE = 10
LARGE_KEYS = 1000
BATCH_NAMESPACES = 1000
QUERY_NAMESPACES = 20
_PATTERN: tuple[tuple[str, int], ...] = (
    ("pref.k0", 0),
    ("pref.k1", 0),
    ("pref.k2", 0),
    ("list.k0", 0),
    ("list.k0", 1),
    ("list.k1", 0),
    ("pref.k0", 0),
    ("pref.k1", 1),
    ("pref.k1", 1),
    ("pref.k1", 1),
)


def floor_name(index: int | None) -> str:
    """The raw floor collection of query namespace ``index`` (``None``: the large one)."""
    return "floor_big" if index is None else f"floor_{index:02d}"


@dataclass(frozen=True)
class ScaleSpec:
    """One size of the scale store (see the module docstring).

    Attributes:
        records: Evidence records in small namespaces (a multiple of 10, at least 100).
        seed: Seed of the sampled query namespaces.
    """

    records: int
    seed: int = 0

    def __post_init__(self) -> None:
        if (
            isinstance(self.records, bool)
            or not isinstance(self.records, int)
            or self.records < 100
            or self.records % RECORDS_PER_NAMESPACE
        ):
            raise InvalidArgumentError(
                f"scale sizes must be multiples of {RECORDS_PER_NAMESPACE} and at least 100, "
                f"got {self.records!r}"
            )

    @property
    def namespaces(self) -> int:
        """Small namespaces."""
        return self.records // RECORDS_PER_NAMESPACE

    @property
    def large_records(self) -> int:
        """Records of the large namespace (a tenth of the small ones' records)."""
        return self.records // 10

    @property
    def total_records(self) -> int:
        """Every evidence record of the store."""
        return self.records + self.large_records

    @staticmethod
    def namespace(i: int) -> str:
        """The name of small namespace ``i``."""
        return f"users.u{i:07d}"

    def small_facts(self, i: int) -> list[Fact]:
        """The ten observations of small namespace ``i``, in order."""
        ns = self.namespace(i)
        return [Fact(key, f"value {i}-{key}-{v}", namespace=ns) for key, v in _PATTERN]

    @staticmethod
    def expected(i: int, key: str) -> str | list[str]:
        """What ``get(key)`` answers in small namespace ``i`` (checks every measured read)."""
        if key == "list.k0":
            return [f"value {i}-{key}-0", f"value {i}-{key}-1"]
        if key == "list.k1":
            return [f"value {i}-{key}-0"]
        return f"value {i}-{key}-{1 if key == 'pref.k1' else 0}"

    @staticmethod
    def large_facts(start: int, stop: int) -> list[Fact]:
        """Records ``start`` to ``stop`` of the large namespace."""
        return [
            Fact(f"list.k{j % LARGE_KEYS:04d}", f"big value {j}", namespace=LARGE)
            for j in range(start, stop)
        ]

    @staticmethod
    def large_text(j: int) -> str:
        """The text (``Precedent.page_content``) of record ``j`` of the large namespace."""
        return f"list.k{j % LARGE_KEYS:04d}: big value {j}"

    def query_namespaces(self) -> list[int]:
        """Indexes of the small namespaces that get a raw floor collection (seeded sample)."""
        count = min(QUERY_NAMESPACES, self.namespaces // 2)
        return sorted(random.Random(self.seed).sample(range(self.namespaces), count))

    def sample(self, count: int, *, salt: int) -> list[int]:
        """``count`` small namespaces (seeded by ``salt``), none of them a query namespace."""
        avoid = set(self.query_namespaces())
        pool = (
            [i for i in range(self.namespaces) if i not in avoid]
            if self.namespaces < 5000
            else None
        )
        rng = random.Random(self.seed * 1000003 + salt)
        if pool is not None:
            return rng.sample(pool, min(count, len(pool)))
        out: list[int] = []
        seen = set(avoid)
        while len(out) < count:
            i = rng.randrange(self.namespaces)
            if i not in seen:
                seen.add(i)
                out.append(i)
        return out

    def to_json(self) -> dict[str, Any]:
        """The workload's description (stored in the manifest and the results)."""
        return {
            "version": WORKLOAD_VERSION,
            "records": self.records,
            "namespaces": self.namespaces,
            "records_per_namespace": RECORDS_PER_NAMESPACE,
            "precedents_per_namespace": len(set(_PATTERN)),
            "large_namespace": LARGE,
            "large_records": self.large_records,
            "large_keys": LARGE_KEYS,
            "total_records": self.total_records,
            "query_namespaces": len(self.query_namespaces()),
            "batch_namespaces": BATCH_NAMESPACES,
            "seed": self.seed,
            "prefix": PREFIX,
        }


def open_manifest(folder: Path, spec: ScaleSpec) -> dict[str, Any] | None:
    """The manifest of a complete store of ``spec`` in ``folder``, or ``None``."""
    path = folder / "manifest.json"
    if not path.is_file() or not (folder / "chroma").is_dir():
        return None
    try:
        manifest = dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return manifest if manifest.get("workload") == spec.to_json() else None


def build_store(
    spec: ScaleSpec, folder: Path, *, progress: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """Write the store of ``spec`` into ``folder`` (created; it must not exist) and its manifest.

    Args:
        spec: The size.
        folder: Where (``folder/chroma`` and ``folder/manifest.json``).
        progress: Called with the number of records written after each batch.

    Returns:
        The manifest.
    """
    from langchain_tepa import TEPAMemory

    folder.mkdir(parents=True)
    load_before = load_average()
    started = time.perf_counter()
    client = persistent_client(folder / "chroma")
    emb = DerivedEmbeddings()
    memory = TEPAMemory.from_client(client, prefix=PREFIX, policy=perf_policy(), embeddings=emb)
    batches = 0
    large_done = 0
    batch_seconds: list[float] = []
    for start in range(0, spec.namespaces, BATCH_NAMESPACES):
        stop = min(spec.namespaces, start + BATCH_NAMESPACES)
        facts = [f for i in range(start, stop) for f in spec.small_facts(i)]
        large_to = spec.large_records * stop // spec.namespaces
        facts += spec.large_facts(large_done, large_to)
        large_done = large_to
        began = time.perf_counter()
        memory.observe_many(facts)
        batch_seconds.append(time.perf_counter() - began)
        batches += 1
        if progress is not None:
            progress(len(facts))
    memory.flush()
    write_seconds = time.perf_counter() - started
    floors = _build_floors(spec, memory, client, emb)
    evidence = memory.evidence_count()
    memory.close()
    seconds = time.perf_counter() - started
    manifest = {
        "workload": spec.to_json(),
        "evidence": evidence,
        "batches": batches,
        "batch_seconds_first_last": [round(batch_seconds[0], 2), round(batch_seconds[-1], 2)],
        "write_seconds": round(write_seconds, 1),
        "write_records_per_s": round(spec.total_records / write_seconds, 1),
        "build_seconds": round(seconds, 1),
        "floors": floors,
        "embedded_texts": emb.calls,
        "embedding_seconds": round(emb.seconds, 1),
        "bytes": dir_bytes(folder / "chroma"),
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def _build_floors(
    spec: ScaleSpec, memory: Any, client: Any, emb: DerivedEmbeddings
) -> dict[str, int]:
    """One raw collection per query namespace with its Active precedents' vectors (same ids)."""
    targets: list[tuple[str, str]] = [
        (floor_name(n), spec.namespace(i)) for n, i in enumerate(spec.query_namespaces())
    ]
    targets.append((floor_name(None), LARGE))
    sizes: dict[str, int] = {}
    for name, ns in targets:
        docs = memory.active_documents(namespace=ns)
        col = client.get_or_create_collection(
            name, embedding_function=None, metadata={"hnsw:space": "cosine"}
        )
        for s in range(0, len(docs), 5000):
            part = docs[s : s + 5000]
            col.add(
                ids=[str(d.id) for d in part],
                embeddings=emb.embed_documents([d.page_content for d in part]),
            )
        sizes[name] = len(docs)
    return sizes


def clear_partial(folder: Path) -> Path:
    """The ``.partial`` twin of ``folder``, removed if a build was interrupted there."""
    partial = folder.with_name(folder.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    return partial
