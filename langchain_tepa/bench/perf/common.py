"""What every part of ``tepa-bench perf`` shares: embeddings, timers, memory, the machine.

Embeddings are looked up (or derived from a stable hash of the text), never computed by a model,
so what is timed is the memory and Chroma. Latencies are collected in seconds and reported as
p50/p95/mean in milliseconds.

Example:
    >>> import numpy as np
    >>> emb = TableEmbeddings(["a"], np.ones((1, 2), dtype=np.float32))
    >>> emb.embed_query("a")
    [1.0, 1.0]
    >>> pct([0.001, 0.002, 0.003])["p50_ms"]
    2.0
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

__all__ = [
    "DIM",
    "JOURNAL_ENV",
    "DerivedEmbeddings",
    "TableEmbeddings",
    "derived_vector",
    "dir_bytes",
    "journal_mode",
    "load_average",
    "log",
    "machine",
    "pct",
    "peak_rss_mib",
    "persistent_client",
    "probe",
    "rss_mib",
    "timer",
    "unit_matrix",
]

DIM = 384
"""Vector size of every benchmark (the size of the common small sentence models)."""


def derived_vector(text: str, dim: int = DIM) -> np.ndarray:
    """A unit vector that depends only on ``text`` (the same in every process).

    Example:
        >>> bool(np.allclose(derived_vector("x"), derived_vector("x")))
        True
    """
    seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
    vec = np.random.default_rng(seed).standard_normal(dim)
    return (vec / np.linalg.norm(vec)).astype(np.float32)


def unit_matrix(rows: int, dim: int = DIM, *, seed: int = 0) -> np.ndarray:
    """``rows`` random unit vectors (float32), generated in blocks.

    Example:
        >>> unit_matrix(3, 4).shape
        (3, 4)
    """
    gen = np.random.default_rng(seed)
    matrix = np.empty((rows, dim), dtype=np.float32)
    for start in range(0, rows, 20000):
        block = gen.standard_normal((min(20000, rows - start), dim)).astype(np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        matrix[start : start + len(block)] = block
    return matrix


class TableEmbeddings(Embeddings):
    """Embeddings looked up from a precomputed table (text -> row of a float32 matrix).

    Unknown texts get :func:`derived_vector` (a stable hash of the text, so every process agrees)
    and are counted in ``misses``.

    Args:
        texts: The texts of the table, row by row.
        matrix: One unit vector per text.

    Example:
        >>> import numpy as np
        >>> emb = TableEmbeddings(["a"], np.ones((1, 2), dtype=np.float32))
        >>> emb.embed_query("a"), emb.misses
        ([1.0, 1.0], 0)
    """

    tepa_model = "perf-derived-vectors"
    """The model a store records: the same as :class:`DerivedEmbeddings` (its table holds the
    derived vectors of its texts, read back by stores that :class:`DerivedEmbeddings` wrote)."""

    def __init__(self, texts: Sequence[str], matrix: np.ndarray) -> None:
        self.rows = {t: i for i, t in enumerate(texts)}
        self.matrix = matrix
        self.misses = 0

    def _one(self, text: str) -> list[float]:
        row = self.rows.get(text)
        if row is not None:
            return [float(x) for x in self.matrix[row].tolist()]
        self.misses += 1
        return [float(x) for x in derived_vector(text, self.matrix.shape[1]).tolist()]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of ``texts`` from the table."""
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Vector of ``text`` from the table."""
        return self._one(text)


class DerivedEmbeddings(Embeddings):
    """Every text's vector derived from a stable hash of it (:func:`derived_vector`).

    For stores too large for a table (a million texts would be 1.5 GB of vectors): every
    process that embeds a text gets the same vector. ``calls`` and ``seconds`` say how much
    embedding was done (about 20 microseconds a text), so a report can show it is not what
    was timed.

    Example:
        >>> emb = DerivedEmbeddings()
        >>> emb.embed_query("pizza") == emb.embed_documents(["pizza"])[0]
        True
    """

    tepa_model = "perf-derived-vectors"
    """The model a store records (see :class:`TableEmbeddings`)."""

    def __init__(self, dim: int = DIM) -> None:
        self.dim = dim
        self.calls = 0
        self.seconds = 0.0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of ``texts``."""
        start = time.perf_counter()
        out = [[float(x) for x in derived_vector(t, self.dim).tolist()] for t in texts]
        self.calls += len(texts)
        self.seconds += time.perf_counter() - start
        return out

    def embed_query(self, text: str) -> list[float]:
        """Vector of ``text``."""
        return self.embed_documents([text])[0]


# ---------------------------------------------------------------------------------- timing
def pct(samples: Sequence[float]) -> dict[str, float]:
    """p50, p95 and mean in ms of ``samples`` (seconds), and how many there were."""
    arr = np.asarray(samples, dtype=np.float64) * 1000.0
    if arr.size == 0:
        return {"p50_ms": 0.0, "p95_ms": 0.0, "mean_ms": 0.0, "calls": 0}
    return {
        "p50_ms": round(float(np.percentile(arr, 50)), 3),
        "p95_ms": round(float(np.percentile(arr, 95)), 3),
        "mean_ms": round(float(arr.mean()), 3),
        "calls": int(arr.size),
    }


@contextmanager
def timer(out: list[float]) -> Iterator[None]:
    """Append the seconds the block took to ``out``."""
    start = time.perf_counter()
    try:
        yield
    finally:
        out.append(time.perf_counter() - start)


def _status_mib(field: str) -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return round(int(line.split()[1]) / 1024.0, 1)
    except OSError:
        return None
    return None


def peak_rss_mib() -> float:
    """Peak resident memory of this process in MiB (``VmHWM``; ``ru_maxrss`` elsewhere)."""
    got = _status_mib("VmHWM")
    if got is not None:
        return got
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(kb / 1024.0 if sys.platform != "darwin" else kb / 1024.0 / 1024.0, 1)


def rss_mib() -> float:
    """Current resident memory of this process in MiB (0 where ``/proc`` is missing)."""
    return _status_mib("VmRSS") or 0.0


def load_average() -> list[float]:
    """1, 5 and 15 minute load averages (empty where the platform has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return []


def machine() -> dict[str, Any]:
    """The machine and the versions a figure depends on."""
    import chromadb

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gib = 0.0
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            mem_gib = round(int(fh.readline().split()[1]) / 1024.0 / 1024.0, 1)
    except (OSError, ValueError, IndexError):
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": mem_gib,
        "python": platform.python_version(),
        "chromadb": chromadb.__version__,
        "numpy": np.__version__,
        "platform": platform.platform(),
    }


def dir_bytes(path: Path) -> int:
    """Bytes of every file under ``path``."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                continue
    return total


JOURNAL_ENV = "TEPA_BENCH_JOURNAL_MODE"
"""Environment variable naming the SQLite journal mode of the benchmarks' embedded folders."""


def journal_mode() -> str:
    """The SQLite journal mode every embedded folder of a benchmark uses, TEPA's and raw's.

    ``"wal"`` unless :data:`JOURNAL_ENV` says ``"keep"`` (``tepa-bench perf --journal-mode``).
    """
    return "keep" if os.environ.get(JOURNAL_ENV, "wal") == "keep" else "wal"


def persistent_client(path: Path) -> Any:
    """An embedded persistent chromadb client at ``path`` (telemetry off).

    Its SQLite database is in :func:`journal_mode`, like the folders TEPA opens, so raw
    references and TEPA pay the same per-write cost.
    """
    import chromadb
    from chromadb.config import Settings

    from langchain_tepa.storage.chroma import set_journal_mode

    set_journal_mode(path, journal_mode())
    return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))


def log(quiet: bool, text: str) -> None:
    """Progress on stderr (not when ``quiet``)."""
    if not quiet:
        print(f"  [perf] {text}", file=sys.stderr, flush=True)


def probe(command: str, arg: str, *, timeout: float = 7200.0, show_progress: bool = False) -> Any:
    """Run ``python -m langchain_tepa.bench.perf.probes COMMAND ARG`` in a fresh process.

    Returns its JSON result. Its stderr is shown (progress bars) when ``show_progress``, else
    kept for the error message.

    Raises:
        RuntimeError: If the probe fails.
    """
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    cmd = [sys.executable, "-m", "langchain_tepa.bench.perf.probes", command, arg]
    proc = subprocess.run(
        cmd,
        stdout=subprocess.PIPE,
        stderr=None if show_progress else subprocess.PIPE,
        text=True,
        env=env,
        check=False,
        timeout=timeout,
    )
    if proc.returncode != 0:
        tail = (proc.stderr or "")[-3000:]
        raise RuntimeError(f"the {command!r} probe failed (exit {proc.returncode}): {tail}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
