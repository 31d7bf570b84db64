"""Cross-process freshness through ``chroma run``: a second process reads what the first wrote.

The benchmark starts ``chroma run`` on a new folder (127.0.0.1, a free port) and a reader
process. Both open a ``TEPAMemory`` on the server. The reader first reads the four namespaces
``fresh.u0`` .. ``fresh.u3`` (so it holds them cached, the case a stale worker gets wrong), with
two memories: one with the default freshness (``max_staleness_s=0``) and one that may skip the
head check for an hour (``max_staleness_s=3600``). Then, ``trials`` times: the writer observes
``pref.value = v<i>`` in ``fresh.u<i % 4>`` and, once ``observe`` returned (acknowledged),
tells the reader, which answers with both memories' ``get``. A trial passes when the default
memory answers ``v<i>`` (the stale one shows what skipping the check would give).

Last, the reader times ``get`` on a cached namespace with each memory, interleaved call by call:
the difference of the p50s is the latency the head check adds per read.

Example:
    >>> namespace_of(5)
    'fresh.u1'
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tepa_bench.perf.common import DerivedEmbeddings, log, pct, timer
from tepa_bench.perf.server import chroma_run

__all__ = ["KEY", "namespace_of", "reader_loop", "run_freshness"]

KEY = "pref.value"
PREFIX = "fresh"
SPREAD = 4
STALE_S = 3600.0


def namespace_of(trial: int) -> str:
    """The namespace of trial ``trial``."""
    return f"fresh.u{trial % SPREAD}"


def _memories(host: str, port: int) -> tuple[Any, Any]:
    import chromadb
    from chromadb.config import Settings

    from langchain_tepa import TEPAMemory

    client = chromadb.HttpClient(
        host=host, port=port, settings=Settings(anonymized_telemetry=False)
    )
    fresh = TEPAMemory.from_client(client, prefix=PREFIX, embeddings=DerivedEmbeddings())
    stale = TEPAMemory.from_client(
        client,
        prefix=PREFIX,
        embeddings=DerivedEmbeddings(),
        max_staleness_s=STALE_S,
        read_only=True,
    )
    return fresh, stale


def reader_loop(host: str, port: int) -> None:
    """The reader process: answer trial numbers on stdin with JSON lines on stdout.

    ``<i>``: both memories' ``get`` in trial ``i``'s namespace; ``bench <calls>``: interleaved
    ``get`` timings of both; ``quit``: stop.
    """
    fresh, stale = _memories(host, port)
    for i in range(SPREAD):
        fresh.get(KEY, namespace=namespace_of(i))
        stale.get(KEY, namespace=namespace_of(i))
    print("ready", flush=True)
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "quit":
            break
        if parts[0] == "bench":
            times: dict[str, list[float]] = {"get": [], "get_no_head_check": []}
            for c in range(int(parts[1])):
                ns = namespace_of(c)
                jobs: list[tuple[str, Callable[[], Any]]] = [
                    ("get", functools.partial(fresh.get, KEY, namespace=ns)),
                    ("get_no_head_check", functools.partial(stale.get, KEY, namespace=ns)),
                ]
                for j in range(2):
                    name, fn = jobs[(c + j) % 2]
                    with timer(times[name]):
                        fn()
            print(json.dumps({k: pct(v) for k, v in times.items()}), flush=True)
            continue
        trial = int(parts[0])
        took: list[float] = []
        with timer(took):
            got = fresh.get(KEY, namespace=namespace_of(trial))
        print(
            json.dumps(
                {"fresh": got, "stale": stale.get(KEY, namespace=namespace_of(trial)), "s": took[0]}
            ),
            flush=True,
        )
    fresh.close()
    stale.close()


def run_freshness(
    work: Path, *, trials: int = 1000, calls: int = 200, quiet: bool = False
) -> dict[str, Any]:
    """Run the trials (see the module docstring) in ``work`` (a new folder)."""
    from langchain_tepa import TEPAMemory

    work.mkdir(parents=True, exist_ok=True)
    log(quiet, f"freshness: {trials} trials through chroma run")
    with chroma_run(work / "chroma", work / "chroma.log") as server:
        writer = TEPAMemory.from_client(
            server.client(), prefix=PREFIX, embeddings=DerivedEmbeddings()
        )
        for i in range(SPREAD):
            writer.observe(KEY, "start", namespace=namespace_of(i))
        args = json.dumps({"host": server.host, "port": server.port})
        env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
        reader = subprocess.Popen(
            [sys.executable, "-m", "tepa_bench.perf.probes", "fresh-reader", args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert reader.stdin is not None
        assert reader.stdout is not None
        try:
            if reader.stdout.readline().strip() != "ready":
                raise RuntimeError("the freshness reader did not start; see its stderr")
            seen = stale_seen = 0
            write_t: list[float] = []
            read_t: list[float] = []
            for i in range(trials):
                with timer(write_t):
                    writer.observe(KEY, f"v{i}", namespace=namespace_of(i))
                reader.stdin.write(f"{i}\n")
                reader.stdin.flush()
                answer = json.loads(reader.stdout.readline())
                seen += answer["fresh"] == f"v{i}"
                stale_seen += answer["stale"] == f"v{i}"
                read_t.append(float(answer["s"]))
            reader.stdin.write(f"bench {calls}\n")
            reader.stdin.flush()
            bench = json.loads(reader.stdout.readline())
            reader.stdin.write("quit\n")
            reader.stdin.flush()
            reader.wait(timeout=60)
        finally:
            if reader.poll() is None:
                reader.kill()
                reader.wait()
            writer.close()
        server_rss = server.peak_rss_mib()
    return {
        "trials": trials,
        "seen": seen,
        "seen_fraction": round(seen / trials, 4) if trials else None,
        "stale_reader_seen": stale_seen,
        "observe_through_server": pct(write_t),
        "reader_get_through_server": pct(read_t),
        "get": bench["get"],
        "get_no_head_check": bench["get_no_head_check"],
        "head_check_ms": round(bench["get"]["p50_ms"] - bench["get_no_head_check"]["p50_ms"], 3),
        "server_peak_rss_mib": server_rss,
    }
