"""LangGraph's own store test modules, run against ``TEPAStore``.

The published sdists of ``langgraph-checkpoint``, ``langgraph-checkpoint-sqlite`` and
``langgraph-checkpoint-postgres`` carry their ``tests/``. This module fetches them at pinned
versions (the installed ones for the first two) with ``pip download --no-deps --no-binary :all:``
into a cache folder outside the repository (``$TEPA_LANGGRAPH_SDISTS``, default
``~/.cache/langchain-tepa/langgraph-sdists``; reused when present), unpacks their ``tests/`` and
runs their store modules in a pytest process with our fixture shim
(``langgraph_shim/tepa_langgraph_shim.py``: ``TEPAStore`` wherever their fixtures build a store;
every deselection listed there with its reason).

Each suite's failures must be among :data:`EXPECTED_FAILURES` (each with its reason, the ones that
follow from TEPA's semantics documented in ``docs/comparison.md``) and its passes at least its
floor. The counts are printed (``-s``) and written to ``<cache>/results-<suite>.json``.

The four suites run at the same time in child processes (the TTL modules mostly sleep).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import langchain_tepa

pytestmark = pytest.mark.xdist_group("langgraph_conformance")

SHIM = Path(__file__).parent / "langgraph_shim"
POSTGRES_VERSION = "3.2.0"


@dataclass(frozen=True)
class Suite:
    dist: str
    version: str
    modules: tuple[str, ...]
    floor: int  # passes at least
    replace_conftest: bool = False
    workers: int = 0  # pytest-xdist workers per module (their TTL tests and fixtures mostly wait)


def _installed(dist: str) -> str:
    return importlib.metadata.version(dist)


SUITES: dict[str, Suite] = {
    "checkpoint": Suite(
        "langgraph-checkpoint", _installed("langgraph-checkpoint"), ("tests/test_store.py",), 63
    ),
    "checkpoint-sqlite": Suite(
        "langgraph-checkpoint-sqlite",
        _installed("langgraph-checkpoint-sqlite"),
        ("tests/test_store.py", "tests/test_async_store.py"),
        129,
    ),
    "checkpoint-sqlite-ttl": Suite(
        "langgraph-checkpoint-sqlite",
        _installed("langgraph-checkpoint-sqlite"),
        ("tests/test_ttl.py",),
        10,
        workers=4,
    ),
    "checkpoint-postgres": Suite(
        "langgraph-checkpoint-postgres",
        POSTGRES_VERSION,
        ("tests/test_store.py", "tests/test_async_store.py"),
        168,
        replace_conftest=True,
        workers=3,
    ),
}

_SYNC_FROM_LOOP = (
    "TEPAStore serves sync and async callers with one object: a sync call made on the event "
    "loop's thread runs (blocking the loop while it does) instead of raising "
    "asyncio.InvalidStateError as the async-only stores do"
)
_CONTROL_CHARS = (
    "namespace labels with control characters (here a trailing newline) are refused with "
    "StoreNamespaceError: namespaces must be visible text (TEPAStore semantics 8)"
)

# suite -> {nodeid regex: reason}. A failure that matches none fails this module. Each is
# listed in docs/comparison.md ("LangGraph's own store tests").
EXPECTED_FAILURES: dict[str, dict[str, str]] = {
    "checkpoint": {},
    "checkpoint-sqlite": {
        r"test_async_store\.py::test_no_running_loop": _SYNC_FROM_LOOP,
        r"test_namespace_labels_with_trailing_newline": _CONTROL_CHARS,
        r"test_filter_keys_with_hyphens_and_digits": (
            "a dotted filter key ('user.access-level') names a top-level key, as in InMemoryStore "
            "and PostgresStore; SqliteStore alone reads it as a nested path"
        ),
        r"test_sql_injection_vulnerability": (
            "expects SqliteStore's ValueError 'Invalid filter key' for a key holding quotes; "
            "TEPAStore filters in process (no SQL to inject into), so any JSON key is a valid "
            "filter key and this one matches nothing"
        ),
    },
    "checkpoint-sqlite-ttl": {
        r"test_ttl_override_default": (
            "reads refresh the TTL by default, as LangGraph's TTLConfig documents "
            "(refresh_on_read defaults to True); SqliteStore refreshes only when refresh_on_read "
            "is set, so there the get at 2 s does not extend the item the test expects gone at 6 s"
        ),
    },
    "checkpoint-postgres": {
        r"test_async_store\.py::test_no_running_loop": _SYNC_FROM_LOOP,
        r"test_namespace_labels_with_trailing_newline": _CONTROL_CHARS,
        r"test_batch_list_namespaces_ops": (
            "passes MatchCondition('suffix', 'public'), a str where LangGraph types a tuple of "
            "labels: TEPAStore raises StoreNamespaceError; the reference stores take the string "
            "as one-character labels and match nothing (the test's assertion holds vacuously)"
        ),
    },
}


def _cache() -> Path:
    root = os.environ.get("TEPA_LANGGRAPH_SDISTS")
    path = Path(root) if root else Path.home() / ".cache" / "langchain-tepa" / "langgraph-sdists"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _sdist_tests(dist: str, version: str) -> Path:
    """The unpacked ``tests/`` of ``dist==version`` in the cache (downloaded when missing)."""
    cache = _cache()
    unpacked = cache / f"{dist}-{version}"
    if (unpacked / "tests").is_dir():
        return unpacked / "tests"
    stem = f"{dist.replace('-', '_')}-{version}"
    tarball = cache / f"{stem}.tar.gz"
    if not tarball.exists():
        cmd = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
            "--dest", str(cache), f"{dist}=={version}",
        ]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
        if done.returncode or not tarball.exists():
            pytest.fail(
                f"could not download the sdist of {dist}=={version} (PyPI through pip):\n"
                f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            )
    staging = Path(tempfile.mkdtemp(prefix=f".{stem}.", dir=cache))  # runs may race: their own
    with tarfile.open(tarball) as tar:
        members = [
            m for m in tar.getmembers() if m.name.startswith(f"{stem}/tests/") and m.isfile()
        ]
        if hasattr(tarfile, "data_filter"):  # Python 3.10.12+: refuse links out of the folder
            tar.extractall(staging, members=members, filter="data")  # only their tests/
        else:  # pragma: no cover
            tar.extractall(staging, members=members)  # regular files under tests/ only
    unpacked.mkdir(exist_ok=True)
    try:
        os.replace(staging / stem / "tests", unpacked / "tests")
    except OSError:  # another run unpacked it first
        if not (unpacked / "tests").is_dir():
            raise
    shutil.rmtree(staging, ignore_errors=True)
    return unpacked / "tests"


def _prepare(name: str, suite: Suite, work: Path) -> Path:
    root = work / name
    shutil.copytree(_sdist_tests(suite.dist, suite.version), root / "tests")
    if suite.replace_conftest:
        shutil.copy(SHIM / "postgres_conftest.py", root / "tests" / "conftest.py")
    (root / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    return root


def _start(
    name: str, module: str, root: Path, workers: int
) -> tuple[subprocess.Popen[bytes], Path, Path]:
    """One pytest process for one upstream module (the suites' modules run side by side)."""
    stem = Path(module).stem
    report, log = root / f"report-{stem}.json", root / f"log-{stem}.txt"
    env = {
        **os.environ,
        "PYTHONPATH": str(SHIM),
        "TEPA_SRC": str(Path(langchain_tepa.__file__).resolve().parents[1]),
        "TEPA_SHIM_REPORT": str(report),
        "TEPA_SHIM_SUITE": name,
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        module,
        "-p",
        "tepa_langgraph_shim",
        "-p",
        "no:cacheprovider",
        "-q",
        "-rN",
        "--tb=line",
        "-c",
        "pytest.ini",
        "--rootdir",
        ".",
        "--timeout=300",
        *(["-n", str(workers), "--dist", "load"] if workers else []),
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    return proc, report, log


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    work = tmp_path_factory.mktemp("langgraph-conformance")
    started = time.monotonic()
    runs = [
        (
            name,
            *_start(
                name, module, _prepare(name, suite, work) if i == 0 else work / name, suite.workers
            ),
        )
        for name, suite in SUITES.items()
        for i, module in enumerate(suite.modules)
    ]
    out: dict[str, dict[str, Any]] = {
        name: {"outcomes": {}, "deselected": {}, "log": ""} for name in SUITES
    }
    for name, proc, report, log in runs:
        try:
            proc.wait(timeout=900)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if not report.exists():
            pytest.fail(f"{name}: no report from {log.name}; log:\n{log.read_text()[-4000:]}")
        for part in [report, *report.parent.glob(f"{report.name}.gw*")]:
            data = json.loads(part.read_text())
            out[name]["outcomes"].update(data["outcomes"])
            out[name]["deselected"].update(data["deselected"])
        out[name]["log"] += log.read_text()[-3000:]
    print(f"\nLangGraph conformance suites ran in {time.monotonic() - started:.0f} s")
    return out


def _expected(suite: str, nodeid: str) -> str | None:
    for pattern, reason in EXPECTED_FAILURES[suite].items():
        if re.search(pattern, nodeid):
            return reason
    return None


@pytest.mark.parametrize("suite", list(SUITES))
def test_langgraph_store_suite(suite: str, results: dict[str, dict[str, Any]]) -> None:
    data = results[suite]
    outcomes: dict[str, list[str]] = data["outcomes"]
    passed = sorted(n for n, (o, _) in outcomes.items() if o == "passed")
    failed = {n: m for n, (o, m) in outcomes.items() if o == "failed"}
    skipped = sorted(n for n, (o, _) in outcomes.items() if o == "skipped")
    summary = {
        "suite": suite,
        "version": SUITES[suite].version,
        "passed": len(passed),
        "failed": len(failed),
        "skipped": len(skipped),
        "ran": len(outcomes),
        "deselected": len(data["deselected"]),
        "failures": {n: [_expected(suite, n), m] for n, m in sorted(failed.items())},
    }
    (_cache() / f"results-{suite}.json").write_text(json.dumps(summary, indent=1))
    print(
        f"\n{suite} {SUITES[suite].version}: {len(passed)}/{len(outcomes)} passed, "
        f"{len(failed)} failed, {len(skipped)} skipped, {len(data['deselected'])} deselected"
    )
    unexpected = {n: m for n, m in failed.items() if _expected(suite, n) is None}
    assert not unexpected, (
        f"unexpected failures:\n{json.dumps(unexpected, indent=1)}\n{data['log']}"
    )
    assert len(passed) >= SUITES[suite].floor, data["log"]
