"""A fresh process's first ``TEPAStore.search`` across all users (every namespace loaded).

Not part of the package: the script behind docs/performance.md, "A fresh process's first search
across all users". ``build FOLDER`` writes USERS users x ITEMS items (the side-by-side run's
items, derived embeddings, batches of 200 ``PutOp``) into an indexed ``TEPAStore.from_path`` and
closes it; ``search FOLDER`` opens it in this (fresh) process and times opening, the first
search under ``("users",)``, the p50 of 20 more and the process's peak RSS.

    python docs/results/first_search_all_users.py build|search FOLDER [USERS] [ITEMS]
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

from langgraph.store.base import PutOp

from langchain_tepa import TEPAStore
from tepa_bench.perf.common import DerivedEmbeddings
from tepa_bench.perf.side_by_side import StoreWorkload


def main() -> None:
    mode, folder = sys.argv[1], Path(sys.argv[2])
    users = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    items = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    work = StoreWorkload(users=users, items=items)
    index = work.index(work.table(400))  # the embedding table: not part of the timings
    began = time.perf_counter()
    store = TEPAStore.from_path(folder, index=index, embeddings=DerivedEmbeddings())
    opened = time.perf_counter() - began
    if mode == "build":
        for u in range(users):
            for s in range(0, items, 200):
                store.batch(
                    [
                        PutOp(work.namespace(u), work.key(j), work.value(u, j))
                        for j in range(s, min(items, s + 200))
                    ]
                )
        store.memory.close()
        print(f"built {users * items} items in {time.perf_counter() - began:.1f} s")
        return
    began = time.perf_counter()
    found = store.search(("users",), query=work.query(1), limit=10)
    first = time.perf_counter() - began
    later = []
    for c in range(2, 22):
        began = time.perf_counter()
        store.search(("users",), query=work.query(c), limit=10)
        later.append(time.perf_counter() - began)
    print(
        f"open {opened:.2f} s; first search across {users} users {first:.2f} s "
        f"({len(found)} results); the next 20: p50 {statistics.median(later) * 1000:.1f} ms; "
        f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
