"""A fresh process's first ``TEPAStore.search`` in ONE user's namespace, with its parts.

Not part of the package: the script behind docs/performance.md, "A fresh process's first
search in one user's namespace". It reads a store written by
``docs/results/first_search_all_users.py build FOLDER 100 1000`` (100 users x 1,000 items,
384-d derived embeddings, ``fields=["text"]``).

``search FOLDER [USER]`` runs in this (fresh) process: imports, opening
(``TEPAStore.from_path``), the first ``search(("users", USER), query=...)`` (default ``u042``),
the p50 of the 20 searches after it, and the process's peak RSS. ``phases FOLDER [USER]`` does
the same with timers wrapped around the parts of the first search (Chroma's reads, decoding
pages, folding, item tables, ...; nested parts are included in their parents) and prints them
in ms. ``profile FOLDER [USER]`` prints cProfile's top functions of the first search, and
``memory FOLDER [USER]`` what Python allocated in it (tracemalloc: peak, and kept after it).
``compare FOLDER RUNS OLD_SRC NEW_SRC [MODE] [USER]`` alternates fresh processes of two
source trees (each a checkout of the repository whose ``langchain_tepa`` is imported through
``PYTHONPATH``; run it from outside both, so that the current directory does not shadow them),
RUNS of each, and prints every run's line with ``os.getloadavg()`` before and after. Each run
prints a digest of every answer of its 21 searches (keys, values, scores, times): the two trees
must print the same one.

    python docs/results/first_search_one_user.py search|phases|profile|memory FOLDER [USER]
    python docs/results/first_search_one_user.py compare FOLDER 4 OLD_SRC NEW_SRC [phases] [u009]
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

_BEGAN = time.perf_counter()

# name -> [calls, seconds] of the wrapped parts (phases mode only)
_SPENT: dict[str, list[float]] = {}
# (call, collection, ms) of every Chroma call (phases mode only)
_CALLS: list[tuple[str, str, float]] = []

# (module, owner class or None, attribute, label): the parts timed in phases mode, outermost
# first. A part missing from a source tree (older or newer code) is skipped.
_PARTS: list[tuple[str, str | None, str, str]] = [
    ("langchain_tepa.memory.reading", "ReadingMixin", "answer_tables_under", "answer_tables_under"),
    (
        "langchain_tepa.storage.chroma.backend",
        "ChromaStorage",
        "scan_namespaces",
        "  scan_namespaces",
    ),
    ("langchain_tepa.storage.chroma.backend", "ChromaStorage", "_heads", "    heads read by id"),
    ("langchain_tepa.storage.chroma.directory", "NamesDirectory", "names", "    names directory"),
    ("langchain_tepa.memory.reading", "ReadingMixin", "_tables", "  _tables"),
    ("langchain_tepa.memory.engine", "Engine", "_load", "    Engine._load (first touch)"),
    (
        "langchain_tepa.memory.freshness",
        "FreshnessMixin",
        "_load",
        "    Engine._load (first touch)",
    ),
    ("langchain_tepa.storage.chroma.backend", "ChromaStorage", "load_pages", "      load_pages"),
    ("langchain_tepa.storage.chroma.codec", None, "decode_pages", "        codec.decode_pages"),
    ("langchain_tepa.storage.chroma.codec", None, "decode_page", "        codec.decode_page"),
    ("langchain_tepa.state.namespace", "NamespaceState", "absorb", "      NamespaceState.absorb"),
    ("langchain_tepa.memory.engine", "Engine", "_take_vectors", "      Engine._take_vectors"),
    (
        "langchain_tepa.memory.freshness",
        "FreshnessMixin",
        "_take_vectors",
        "      Engine._take_vectors",
    ),
    ("langchain_tepa.state.vectors", "ItemTable", "put_many", "        ItemTable.put_many"),
    ("langchain_tepa.state.vectors", "VectorTable", "add", "        VectorTable.add"),
    ("langchain_tepa.memory.reading", None, "_rows", "    answer rows"),
    ("langchain_tepa.memory.reading", "ReadingMixin", "_table", "    AnswerTable.build"),
    ("langchain_tepa.state.vectors", "ItemTable", "column", "      ItemTable.column"),
    ("langchain_tepa.store.store", "TEPAStore", "_rank", "rank"),
    ("langchain_tepa.store.execution", "ExecutionMixin", "_rank", "rank"),
]


def _wrap(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent = _SPENT.setdefault(label, [0, 0.0])
            spent[0] += 1
            spent[1] += time.perf_counter() - began

    return timed


def _instrument() -> None:
    import importlib

    for module, owner, attr, label in _PARTS:
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        target = getattr(mod, owner, None) if owner else mod
        fn = target.__dict__.get(attr) if target is not None else None
        if fn is None:
            continue
        if isinstance(fn, staticmethod | classmethod):
            setattr(target, attr, type(fn)(_wrap(label, fn.__func__)))
            continue
        setattr(target, attr, _wrap(label, fn))
        if owner is None:  # module functions imported by name elsewhere: rebind those too
            for other in list(sys.modules.values()):
                if getattr(other, "__name__", "").startswith("langchain_tepa") and (
                    getattr(other, attr, None) is fn
                ):
                    setattr(other, attr, getattr(target, attr))


def _log_chroma_calls() -> None:
    from chromadb.api.models.Collection import Collection

    for attr in ("get", "count"):
        fn = Collection.__dict__[attr]

        def logged(self: Any, *args: Any, _fn: Any = fn, _attr: str = attr, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return _fn(self, *args, **kwargs)
            finally:
                how = (
                    "by id" if kwargs.get("ids") is not None else "where" if _attr == "get" else ""
                )
                _CALLS.append((f"{_attr} {how}".strip(), self.name, time.perf_counter() - began))

        setattr(Collection, attr, logged)


def run(mode: str, folder: Path, user: str) -> None:
    """Open the store, search ``user``'s namespace 21 times, print the figures (see above)."""
    import chromadb  # noqa: F401  (timed as part of the imports)
    from langchain_tepa import TEPAStore
    from tepa_bench.perf.common import DerivedEmbeddings
    from tepa_bench.perf.side_by_side import StoreWorkload

    imported = time.perf_counter() - _BEGAN
    rss_imports = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    work = StoreWorkload(users=100, items=1000)
    # Every text's vector derived from it (the same vectors the build stored), as the
    # side-by-side run's fresh-process probe does: no 100k-text table in this process's RSS.
    index = work.index(DerivedEmbeddings())
    if mode == "phases":
        _instrument()
        _log_chroma_calls()
    began = time.perf_counter()
    store = TEPAStore.from_path(folder, index=index, embeddings=DerivedEmbeddings())
    opened = time.perf_counter() - began
    rss_open = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    namespace = ("users", user)
    query = work.query(1)
    DerivedEmbeddings().embed_query("warm")  # its first call imports numpy.random: not ours
    _SPENT.clear()  # what opening called
    _CALLS.clear()
    if mode == "memory":
        tracemalloc.start()
    profiler = None
    if mode == "profile":
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    began = time.perf_counter()
    found = store.search(namespace, query=query, limit=10)
    first = time.perf_counter() - began
    if profiler is not None:
        profiler.disable()
    rss_first = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    traced = tracemalloc.get_traced_memory() if mode == "memory" else None
    tracemalloc.stop()
    spent_first = {k: list(v) for k, v in _SPENT.items()}
    calls_first = list(_CALLS)
    later = []
    answers = [found]
    for c in range(2, 22):
        began = time.perf_counter()
        answers.append(store.search(namespace, query=work.query(c), limit=10))
        later.append(time.perf_counter() - began)
    # Every answer (keys, values, scores, times) of the 21 searches, hashed: old and new code
    # must print the same digest.
    seen = [[(i.key, i.value, repr(i.score), str(i.updated_at)) for i in a] for a in answers]
    digest = hashlib.sha256(json.dumps(seen, sort_keys=True).encode()).hexdigest()[:16]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"imports {imported * 1000:.0f} ms; open {opened * 1000:.0f} ms; first search in "
        f"{'.'.join(namespace)} {first * 1000:.1f} ms ({len(found)} results, top "
        f"{found[0].key if found else None}, answers {digest}); the next 20: p50 "
        f"{statistics.median(later) * 1000:.2f} ms; peak RSS after imports {rss_imports:.0f} MiB, "
        f"open {rss_open:.0f}, first search {rss_first:.0f}, the 20 more {rss:.0f} MiB"
    )
    if traced is not None:
        print(
            f"    Python's allocations in the first search (tracemalloc): kept after it "
            f"{traced[0] / 2**20:.1f} MiB, peak {traced[1] / 2**20:.1f} MiB"
        )
    if mode == "phases":
        for _, _, _, label in _PARTS:
            if label in spent_first:
                calls, spent = spent_first[label]
                print(f"    {label:<44} {spent * 1000:8.1f} ms  ({int(calls)} calls)")
        print(
            "    chroma calls of the first search: "
            + ", ".join(f"{c} {name} {ms * 1000:.1f} ms" for c, name, ms in calls_first)
        )
    if profiler is not None:
        import pstats

        pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def compare(folder: Path, runs: int, old: str, new: str, mode: str, user: str) -> None:
    """Fresh processes of the ``old`` and ``new`` source trees, alternated, ``runs`` of each."""
    for r in range(runs):
        for label, src in (("old", old), ("new", new)):
            env = dict(os.environ, PYTHONPATH=src)
            before = os.getloadavg()
            out = subprocess.run(
                [sys.executable, __file__, mode, str(folder), user],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.rstrip()
            after = os.getloadavg()
            print(
                f"{label} run {r + 1}: {out}\n    load before {before[0]:.2f}, "
                f"after {after[0]:.2f}",
                flush=True,
            )


def main() -> None:
    """Parse the command line (see the module docstring)."""
    mode, folder = sys.argv[1], Path(sys.argv[2])
    if mode == "compare":
        compare(
            folder,
            int(sys.argv[3]),
            sys.argv[4],
            sys.argv[5],
            sys.argv[6] if len(sys.argv) > 6 else "search",
            sys.argv[7] if len(sys.argv) > 7 else "u042",
        )
        return
    run(mode, folder, sys.argv[3] if len(sys.argv) > 3 else "u042")


if __name__ == "__main__":
    main()
