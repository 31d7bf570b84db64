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
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import langchain_tepa

pytestmark = pytest.mark.xdist_group("langgraph-conformance")

SHIM = Path(__file__).parent / "langgraph_shim"
POSTGRES_VERSION = "3.2.0"


@dataclass(frozen=True)
class Suite:
    dist: str
    version: str
    modules: tuple[str, ...]
    floor: int  # passes at least
    replace_conftest: bool = False


def _installed(dist: str) -> str:
    return importlib.metadata.version(dist)


SUITES: dict[str, Suite] = {
    "checkpoint": Suite(
        "langgraph-checkpoint", _installed("langgraph-checkpoint"), ("tests/test_store.py",), 60
    ),
    "checkpoint-sqlite": Suite(
        "langgraph-checkpoint-sqlite",
        _installed("langgraph-checkpoint-sqlite"),
        ("tests/test_store.py", "tests/test_async_store.py"),
        80,
    ),
    "checkpoint-sqlite-ttl": Suite(
        "langgraph-checkpoint-sqlite",
        _installed("langgraph-checkpoint-sqlite"),
        ("tests/test_ttl.py",),
        10,
    ),
    "checkpoint-postgres": Suite(
        "langgraph-checkpoint-postgres",
        POSTGRES_VERSION,
        ("tests/test_store.py", "tests/test_async_store.py"),
        100,
        replace_conftest=True,
    ),
}

# suite -> {nodeid regex: reason}. A failure that matches none fails this module.
EXPECTED_FAILURES: dict[str, dict[str, str]] = {
    "checkpoint": {},
    "checkpoint-sqlite": {},
    "checkpoint-sqlite-ttl": {},
    "checkpoint-postgres": {},
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
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                "--dest",
                str(cache),
                f"{dist}=={version}",
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
    staging = cache / f".{stem}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    with tarfile.open(tarball) as tar:
        members = [
            m for m in tar.getmembers() if m.name.startswith(f"{stem}/tests/") and m.isfile()
        ]
        tar.extractall(staging, members=members, filter="data")  # only their tests/
    unpacked.mkdir(exist_ok=True)
    os.replace(staging / stem / "tests", unpacked / "tests")
    shutil.rmtree(staging, ignore_errors=True)
    return unpacked / "tests"


def _start(name: str, suite: Suite, work: Path) -> tuple[subprocess.Popen[bytes], Path, Path]:
    root = work / name
    shutil.copytree(_sdist_tests(suite.dist, suite.version), root / "tests")
    if suite.replace_conftest:
        shutil.copy(SHIM / "postgres_conftest.py", root / "tests" / "conftest.py")
    (root / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    report, log = root / "report.json", root / "log.txt"
    env = {
        **os.environ,
        "PYTHONPATH": str(SHIM),
        "TEPA_SRC": str(Path(langchain_tepa.__file__).resolve().parents[1]),
        "TEPA_SHIM_REPORT": str(report),
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        *suite.modules,
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
        "-p",
        "no:randomly",
        "--timeout=120",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    return proc, report, log


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    work = tmp_path_factory.mktemp("langgraph-conformance")
    started = time.monotonic()
    runs = {name: _start(name, suite, work) for name, suite in SUITES.items()}
    out: dict[str, dict[str, Any]] = {}
    for name, (proc, report, log) in runs.items():
        proc.wait(timeout=900)
        if not report.exists():
            pytest.fail(f"{name}: no report; log:\n{log.read_text()[-4000:]}")
        data = json.loads(report.read_text())
        data["log"] = log.read_text()[-3000:]
        out[name] = data
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
