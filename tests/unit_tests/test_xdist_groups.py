"""``make test``'s ``--dist loadgroup``: the tests of one ``xdist_group`` go to one worker.

``tests/support/xdist_groups.py`` reads a module's ``pytestmark = pytest.mark.xdist_group(...)``
where pytest-xdist's own ``@group`` node-id suffix does not arrive (pytest 9.2).
"""

from __future__ import annotations

import re
from types import SimpleNamespace

from tests.conftest import ROOT
from tests.support.xdist_groups import GroupScheduling, module_group

GROUPED = {
    "tests/unit_tests/test_fuzz.py": "fuzz",
    "bench/tests/unit_tests/test_perf_scale.py": "perf_scale_store",
    "bench/tests/integration_tests/test_perf_scale.py": "perf_scale_run",
    "tests/integration_tests/test_langgraph_server.py": "langgraph_server",
    "tests/integration_tests/test_langgraph_conformance.py": "langgraph_conformance",
    "tests/integration_tests/test_workers.py": "processes",
    "tests/integration_tests/test_concurrency.py": "processes",
    "tests/integration_tests/test_crash_recovery.py": "processes",
    "tests/integration_tests/test_answer_crash.py": "processes",
}


def _scheduler() -> GroupScheduling:
    sched = object.__new__(GroupScheduling)  # only _split_scope is used: no nodes, no log
    sched.config = SimpleNamespace(rootpath=ROOT)  # type: ignore[assignment]
    return sched


def test_module_groups_are_read_from_the_module_level_mark() -> None:
    for module, group in GROUPED.items():
        assert module_group(ROOT / module) == group, module
    assert module_group(ROOT / "tests/unit_tests/test_cli.py") is None
    assert module_group(ROOT / "tests/unit_tests/no_such_module.py") is None


def test_every_module_level_group_mark_is_known_here() -> None:
    marked = {
        str(p.relative_to(ROOT))
        for folder in ("tests", "bench/tests")  # the library's tests and the benchmarks'
        for p in (ROOT / folder).rglob("test_*.py")
        if re.search(r"^pytestmark = pytest\.mark\.xdist_group", p.read_text("utf-8"), re.M)
    }
    assert marked == set(GROUPED)


def test_split_scope_groups_marked_modules_and_keeps_other_tests_apart() -> None:
    sched = _scheduler()
    a = "bench/tests/integration_tests/test_perf_scale.py::test_freshness_and_the_langgraph_batch"
    b = "bench/tests/integration_tests/test_perf_scale.py::test_a_second_run_reuses_the_cached_stores"
    assert sched._split_scope(a) == sched._split_scope(b) == "perf_scale_run"
    w = "tests/integration_tests/test_workers.py::test_x[2]"
    c = "tests/integration_tests/test_crash_recovery.py::test_y[timer-0-7]"
    assert sched._split_scope(w) == sched._split_scope(c) == "processes"
    plain = "tests/unit_tests/test_cli.py::test_inspect_table_output"
    assert sched._split_scope(plain) == plain
    # xdist's own suffix, where it works, wins.
    assert sched._split_scope(plain + "@mine") == "mine"
