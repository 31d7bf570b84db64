"""Speed of MiniLMEmbeddings beside HashingEmbeddings, side by side in one process.

Texts: 160 of the distinct memory texts of the hand-written ``cases-dev`` split (about 37
characters, 11 tokens each). Run from the repository root:

    .venv/bin/python docs/results/issue37/minilm_speed.py

Prints the load time, then ms per sentence for batches of 32 and for one text per call (the
first 80), wall and CPU, for MiniLM with one BLAS thread (its default), MiniLM with the
process's BLAS threads (``blas_threads=None``: OpenBLAS's default, one per core) and
HashingEmbeddings; fresh instances without a cache, so every text goes through the model.
"""

from __future__ import annotations

import os
import time

from langchain_tepa import HashingEmbeddings
from tepa_bench.freetext_cases import case_scenarios
from tepa_bench.minilm import MiniLMEmbeddings


def main() -> None:
    """Measure and print."""
    texts = sorted({m.text for s in case_scenarios("cases-dev") for m in s.memories})[:160]
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}")
    with open("/proc/loadavg", encoding="ascii") as f:
        print(f"load average before: {' '.join(f.read().split()[:3])}")
    print(f"{len(texts)} texts, {sum(map(len, texts)) / len(texts):.1f} characters on average")
    start = time.perf_counter()
    MiniLMEmbeddings()
    print(f"MiniLM first load (zip read, weights prepared): {time.perf_counter() - start:.2f} s")
    for name, make in (
        ("minilm, 1 BLAS thread", lambda: MiniLMEmbeddings(cache_size=0)),
        ("minilm, BLAS default", lambda: MiniLMEmbeddings(cache_size=0, blas_threads=None)),
        ("hashing", HashingEmbeddings),
    ):
        emb = make()
        emb.embed_documents(texts[:8])  # warm up
        wall, cpu = time.perf_counter(), time.process_time()
        emb.embed_documents(texts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"{name}: embed_documents, batches of 32: {1000 * wall / len(texts):.2f} ms/sentence "
            f"wall, {1000 * cpu / len(texts):.2f} ms CPU"
        )
        few = texts[:80]
        wall, cpu = time.perf_counter(), time.process_time()
        for text in few:
            emb.embed_query(text)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"{name}: embed_query, one text per call: {1000 * wall / len(few):.2f} ms/sentence "
            f"wall, {1000 * cpu / len(few):.2f} ms CPU"
        )


if __name__ == "__main__":
    main()
