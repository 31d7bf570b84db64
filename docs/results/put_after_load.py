"""``TEPAStore.put`` latency right after a bulk load and later, with the Chroma call inside it.

Not part of the package: the script behind docs/performance.md, "What the two missed targets
need". An embedded ``TEPAStore.from_path`` (indexed, the side-by-side run's items and derived
embeddings) is loaded with USERS users x ITEMS items in batches of 200 ``PutOp``; then four
rounds of 40 ``put`` calls of a new item each (users in turn). For a few puts of the first
round, the evidence ``upsert`` the put made is replayed at once on the same collection (new
ids), twice, to show its cost is the collection's at that moment, not the put's.

    python docs/results/put_after_load.py [USERS] [ITEMS]
"""

from __future__ import annotations

import copy
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from langgraph.store.base import PutOp

import langchain_tepa.storage.chroma.backend as backend
from langchain_tepa import TEPAStore
from tepa_bench.perf.common import DerivedEmbeddings, load_average
from tepa_bench.perf.side_by_side import StoreWorkload

USERS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
ITEMS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000


def main() -> None:
    work = StoreWorkload(users=USERS, items=ITEMS)
    store = TEPAStore.from_path(
        Path(tempfile.mkdtemp()) / "tepa",
        index=work.index(work.table(400)),
        embeddings=DerivedEmbeddings(),
    )
    print("load before", load_average())
    began = time.perf_counter()
    for u in range(USERS):
        for s in range(0, ITEMS, 200):
            store.batch(
                [
                    PutOp(work.namespace(u), work.key(j), work.value(u, j))
                    for j in range(s, min(ITEMS, s + 200))
                ]
            )
    print(f"loaded {USERS * ITEMS} items in {time.perf_counter() - began:.1f} s")
    calls: list[tuple[str, Any, dict[str, Any], float]] = []
    original = backend.ChromaStorage.call

    def spy(self: Any, op: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        out = original(self, op, fn, *args, **kwargs)
        calls.append((op, fn, kwargs, time.perf_counter() - began))
        return out

    backend.ChromaStorage.call = spy  # type: ignore[method-assign]
    for round_ in range(4):
        took = []
        for c in range(round_ * 100, round_ * 100 + 40):
            calls.clear()
            began = time.perf_counter()
            store.put(work.namespace(c % USERS), f"new{c:05d}", work.new_value(c))
            took.append(time.perf_counter() - began)
            if round_ == 0 and c % 8 == 0:
                _, fn, kwargs, spent = next(x for x in calls if x[0] == "append evidence")
                replay = copy.deepcopy(kwargs)
                replays = []
                for k in range(2):
                    replay["ids"] = [f"{i}.replay{k}" for i in kwargs["ids"]]
                    began = time.perf_counter()
                    fn(**replay)
                    replays.append(time.perf_counter() - began)
                print(
                    f"  put {c}: its upsert into {fn.__self__.name} {spent * 1000:.1f} ms; "
                    f"the same upsert replayed {replays[0] * 1000:.1f} ms, "
                    f"again {replays[1] * 1000:.1f} ms"
                )
        print(
            f"round {round_ + 1}: put p50 {statistics.median(took) * 1000:.1f} ms, "
            f"mean {statistics.mean(took) * 1000:.1f} ms"
        )
    print("load after", load_average())


if __name__ == "__main__":
    main()
