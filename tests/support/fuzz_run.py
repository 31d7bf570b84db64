"""The long fuzz run: ``python -m tests.support.fuzz_run --calls 20000`` prints its counts.

Sequences of calls over every surface of one memory (the strategies and checks of
:mod:`tests.support.fuzzing`: the memory, ``TEPAStore`` with and without an index, the vector
store in both update modes, the agent tools, the retriever), drawn by hypothesis in chunks of
fresh seeds until ``--calls`` calls have run. Unlike the unit test's smaller run
(``tests/unit_tests/test_fuzz.py``) it does not stop at the first untyped error: it counts
them, prints the first few, and exits 1 when there was any (or when a rejected call changed
what is stored).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.support.fuzzing import Call, Checker, Tally, assert_consistent, make_subject
from tests.support.fuzzing import surface_calls as _calls
from tests.support.offline import fresh_memory

__all__ = ["main", "run"]


def run(calls: int, backend: str = "memory", first_seed: int = 0) -> tuple[Tally, list[str]]:
    """Run at least ``calls`` calls; the tally and the first untyped errors (as text)."""
    tally = Tally()
    errors: list[str] = []
    chunk = 0

    @settings(
        max_examples=100,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(sequence=st.lists(_calls, min_size=2, max_size=12))
    def check(sequence: list[Call]) -> None:
        subject = make_subject(fresh_memory(backend, "fr"))
        checker = Checker(subject, tally)
        for c in sequence:
            try:
                checker(c)
            except AssertionError as exc:  # counted by the checker; keep going
                if len(errors) < 20:
                    errors.append(str(exc)[:400])
        assert_consistent(subject.memory)
        subject.memory.close()

    while tally.counts["calls"] < calls:
        seed(first_seed + chunk)(check)()
        chunk += 1
    return tally, errors


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run, print the figures; 1 when an untyped error happened."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--backend", choices=["memory", "chroma"], default="memory")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    tally, errors = run(args.calls, args.backend, args.seed)
    figures: dict[str, Any] = tally.figures()
    took = time.perf_counter() - start
    print(f"fuzz: {figures['calls']} calls on {args.backend} in {took:.0f} s (seed {args.seed})")
    for name in ("accepted", "rejected", "untyped_errors", "changes_from_rejected_calls"):
        print(f"  {name}: {figures.get(name, 0)}")
    surfaces = sorted(k[:-6] for k in figures if k.endswith("_calls") and "_" not in k[:-6])
    for surface in surfaces:
        print(f"  {surface}: {figures[surface + '_calls']} calls")
    for error in errors:
        print("  untyped:", error)
    return 1 if figures["untyped_errors"] or figures["changes_from_rejected_calls"] else 0


if __name__ == "__main__":
    sys.exit(main())
