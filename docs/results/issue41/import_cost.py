"""CPU of importing langchain-tepa beside LangGraph's SqliteStore, in fresh interpreters.

Each statement runs in a new interpreter (``time.process_time()`` around it), 7 interpreters per
statement, interleaved so that load changes hit both sides alike; prints the median and the
minimum. Compile the bytecode first (``python -m compileall -q langchain_tepa``), as a first
import after installing does. Run from the repository root:

    .venv/bin/python docs/results/issue41/import_cost.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys

STATEMENTS = {
    "import langchain_tepa": "import langchain_tepa",
    "import langgraph.store.sqlite": "import langgraph.store.sqlite",
    "from langchain_tepa import TEPAStore": "from langchain_tepa import TEPAStore",
    "from langgraph.store.sqlite import SqliteStore": "from langgraph.store.sqlite import SqliteStore",
    "from langchain_tepa import TEPAMemory": "from langchain_tepa import TEPAMemory",
    "import langchain_core.embeddings (shared by both)": "import langchain_core.embeddings",
}
ROUNDS = 7


def _cpu(statement: str) -> float:
    code = f"import time\nt = time.process_time()\n{statement}\nprint(time.process_time() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Measure and print."""
    with open("/proc/loadavg", encoding="ascii") as f:
        print(f"load average before: {' '.join(f.read().split()[:3])}")
    times: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for _ in range(ROUNDS):
        for name, statement in STATEMENTS.items():
            times[name].append(_cpu(statement))
    print(f"| statement | median CPU s | min CPU s |  ({ROUNDS} fresh interpreters each)")
    print("|---|---|---|")
    for name, got in times.items():
        print(f"| `{name}` | {statistics.median(got):.3f} | {min(got):.3f} |")
    with open("/proc/loadavg", encoding="ascii") as f:
        print(f"load average after: {' '.join(f.read().split()[:3])}")


if __name__ == "__main__":
    main()
