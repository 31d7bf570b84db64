"""Pytest plugin: run LangGraph's own store test modules against ``TEPAStore``.

Loaded with ``-p tepa_langgraph_shim`` by ``tests/integration_tests/test_langgraph_conformance.py``
in a pytest process whose root is a folder holding the ``tests/`` of a LangGraph sdist (unpacked
at test time from ``pip download``; none of their code is in this repository). Before their
modules are imported it puts stand-ins where their fixtures look for a store:

* ``langgraph.store.memory.InMemoryStore`` (``langgraph-checkpoint``'s tests build it directly),
* ``langgraph.store.sqlite.SqliteStore`` / ``AsyncSqliteStore`` (``from_conn_string`` + ``setup``),
* ``langgraph.store.postgres.PostgresStore`` / ``AsyncPostgresStore`` (not installed: a module of
  stand-ins), with ``psycopg`` stand-ins whose connections do nothing, so the upstream fixtures
  that create and drop a database run as written.

Upstream marks its timing-sensitive TTL tests ``@pytest.mark.flaky(retries=3)`` for pytest-retry
(not a dependency here); this plugin honours the marker the same way: a failed test so marked
runs again, up to that many times, and its last run counts.

Every stand-in is a thin subclass of ``TEPAStore`` that adds only the constructors and the
``setup()`` the upstream fixtures call: ``":memory:"`` opens a new in-process store, any other
connection string a persistent embedded Chroma store in a folder of this session (the same
string opens the same folder again, as reopening a database does). Everything a test calls after
that is ``TEPAStore``'s own API: TTL sweepers, ``text_fields``, ``distance_type``, ``abatch``...

Tests that read SQL internals or test LangGraph's own helper code are deselected, each with its
reason (:data:`DESELECT`). The outcome of every test goes to the JSON file named by
``TEPA_SHIM_REPORT``: ``{"outcomes": {nodeid: [outcome, message]}, "deselected": {nodeid:
reason}}`` (under pytest-xdist each worker adds its deselections to
``<report>.<worker id>``).

``TEPA_SRC`` (the folder holding the ``langchain_tepa`` under test) is imported first, so a git
worktree tests its own code and not the editable install of another checkout.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import os
import re
import shutil
import sys
import tempfile
import types
import unittest.mock
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

_src = os.environ.get("TEPA_SRC")
if _src:
    sys.path.insert(0, _src)
    import langchain_tepa

    sys.path.remove(_src)
    if not os.path.abspath(langchain_tepa.__file__).startswith(os.path.abspath(_src)):
        raise RuntimeError(f"langchain_tepa imported from {langchain_tepa.__file__}, not {_src}")

from langchain_tepa import TEPAStore  # noqa: E402

# ---------------------------------------------------------------------- deselections
# nodeid regex -> reason. Matched with re.search against the node id (file::name[params]).
DESELECT: dict[str, str] = {
    # langgraph-checkpoint: tests of LangGraph's own helper code, no store involved.
    r"test_store\.py::test_async_batch_store_resilience": "tests AsyncBatchedBaseStore (a LangGraph base class) over a mock store",
    r"test_store\.py::test_dedupe_ops_maps": "tests LangGraph's _dedupe_ops helper",
    r"test_store\.py::test_get_text_at_path": "tests LangGraph's get_text_at_path helper",
    r"test_store\.py::test_async_batch_store\[|test_store\.py::test_async_batch_store$": "tests AsyncBatchedBaseStore over a mock store",
    r"test_store\.py::test_async_batch_store_handles_cancellation": "tests AsyncBatchedBaseStore over a mock store",
    r"test_store\.py::test_validate_op_namespace": "tests LangGraph's validate_op_namespace helper",
    r"test_store\.py::test_async_batch_store_deduplication": "tests AsyncBatchedBaseStore's deduplication over a mock store",
    r"test_store\.py::test_async_batched_vector_search_concurrent": "tests AsyncBatchedBaseStore over a mock store",
    r"test_async_rejects_invalid_namespace_labels\[[^\]]*True": "the batched variant runs LangGraph's MockAsyncBatchedStore, not the store under test",
    # langgraph-checkpoint-sqlite: SQL internals.
    r"test_store\.py::test_escape_glob_literal": "tests SqliteStore's SQL escaping helper",
    r"test_store\.py::test_namespace_match_pattern": "tests a SQL pattern helper of SqliteStore/PostgresStore",
    r"test_store\.py::test_nonnull_migrations": "reads the SQL migrations of SqliteStore/PostgresStore",
    r"test_store\.py::test_list_namespaces_prefix_uses_indexable_condition": "inspects SqliteStore's SQL query text",
    r"test_store\.py::test_escape_like_literal": "tests PostgresStore's SQL escaping helper",
    # langgraph-checkpoint-postgres: SQL internals and the connection pool.
    r"test_async_store\.py::test_abatch_uses_single_pool_checkout": "counts psycopg pool checkouts",
    r"test_omit_expired": "backdates expires_at with SQL (store._cursor) to fake an unswept expired row",
}
# Per suite (``TEPA_SHIM_SUITE``): nodeid regex -> reason.
DESELECT_IN: dict[str, dict[str, str]] = {
    "checkpoint-sqlite": {
        r"test_store\.py::test_vector_store_initialization": (
            "opens store.conn to check SqliteStore's vec table"
        ),
    },
    "checkpoint-postgres": {
        # The store fixture opens the same store three ways: a plain connection, a pipeline and
        # a pool. TEPA has one way; the [default] variant of each test runs.
        r"[\[-](pipe|pool)[\]-]": "psycopg pipeline/pool variant of the same test (TEPA has one connection mode; the [default] variant runs)",
    },
}


def _deselect_reason(nodeid: str) -> str | None:
    patterns = {**DESELECT, **DESELECT_IN.get(os.environ.get("TEPA_SHIM_SUITE", ""), {})}
    for pattern, reason in patterns.items():
        if re.search(pattern, nodeid):
            return reason
    return None


# ---------------------------------------------------------------------- stand-ins
_SESSION_DIR = tempfile.mkdtemp(prefix="tepa-lg-shim-")
_FOLDERS: dict[str, str] = {}


def _folder(conn_string: str) -> str:
    if conn_string not in _FOLDERS:
        _FOLDERS[conn_string] = os.path.join(_SESSION_DIR, f"db{len(_FOLDERS)}")
    return _FOLDERS[conn_string]


def _open(cls: type[TEPAStore], conn_string: str, index: Any, ttl: Any) -> TEPAStore:
    # PostgresStore's suites open a new database per test and fill it with up to 2,000 single
    # puts: they run in process, which keeps this run short; the SQLite suites' "file"
    # variants run the same kinds of tests on the embedded Chroma store.
    if conn_string == ":memory:" or conn_string.startswith("postgres"):
        return cls.in_memory(index=index, ttl=ttl)
    return cls.from_path(_folder(conn_string), index=index, ttl=ttl)


class _NoCursor:
    """What ``store._cursor()`` yields: SQL is not TEPA's interface (its tests are deselected)."""

    def execute(self, *args: object, **kwargs: object) -> None:
        return None


class SqlStandIn(TEPAStore):
    """``SqliteStore`` / ``PostgresStore`` stand-in: ``TEPAStore`` plus their constructors."""

    MIGRATIONS: list[str] = []  # noqa: RUF012 (upstream fixtures rewrite it)

    @classmethod
    @contextlib.contextmanager
    def from_conn_string(
        cls, conn_string: str, *, index: Any = None, ttl: Any = None, **_: Any
    ) -> Iterator[TEPAStore]:
        store = _open(cls, conn_string, index, ttl)
        try:
            yield store
        finally:
            store.stop_ttl_sweeper()
            store.memory.close()

    def setup(self) -> None:
        return None

    @contextlib.contextmanager
    def _cursor(self, **_: Any) -> Iterator[_NoCursor]:
        yield _NoCursor()


class AsyncSqlStandIn(SqlStandIn):
    """``AsyncSqliteStore`` / ``AsyncPostgresStore`` stand-in."""

    @classmethod
    @contextlib.asynccontextmanager  # type: ignore[override]
    async def from_conn_string(
        cls, conn_string: str, *, index: Any = None, ttl: Any = None, **_: Any
    ) -> AsyncIterator[TEPAStore]:
        store = _open(cls, conn_string, index, ttl)
        try:
            yield store
        finally:
            await store.astop_ttl_sweeper()
            store.memory.close()

    async def setup(self) -> None:  # type: ignore[override]
        return None

    @contextlib.asynccontextmanager  # type: ignore[override]
    async def _cursor(self, **_: Any) -> AsyncIterator[Any]:
        class _ACursor:
            async def execute(self, *args: object, **kwargs: object) -> None:
                return None

        yield _ACursor()


class InMemoryStandIn(TEPAStore):
    """``InMemoryStore`` stand-in: ``InMemoryStore(index=..., ttl=...)`` builds a ``TEPAStore``."""

    def __init__(self, *, index: Any = None, ttl: Any = None) -> None:
        base = TEPAStore.in_memory()
        super().__init__(base.memory, index=index, ttl=ttl)


def _install() -> None:
    import langgraph.store.memory
    import langgraph.store.sqlite
    import langgraph.store.sqlite.aio

    langgraph.store.memory.InMemoryStore = InMemoryStandIn  # type: ignore[misc]
    langgraph.store.sqlite.SqliteStore = SqlStandIn  # type: ignore[misc]
    langgraph.store.sqlite.AsyncSqliteStore = AsyncSqlStandIn  # type: ignore[misc]
    langgraph.store.sqlite.aio.AsyncSqliteStore = AsyncSqlStandIn  # type: ignore[misc]

    # langgraph-checkpoint-postgres is not installed (it needs psycopg and a server): modules of
    # stand-ins under its names, and psycopg connections that do nothing.
    def module(name: str, **attrs: Any) -> types.ModuleType:
        mod = types.ModuleType(name)
        mod.__dict__.update(attrs)
        sys.modules[name] = mod
        return mod

    class _Conn:
        @classmethod
        def connect(cls, *args: object, **kwargs: object) -> Any:
            return _Conn()

        def __enter__(self) -> _Conn:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def execute(self, *args: object, **kwargs: object) -> None:
            return None

    class _AConn:
        @classmethod
        async def connect(cls, *args: object, **kwargs: object) -> Any:
            return _AConn()

        async def __aenter__(self) -> _AConn:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

        async def execute(self, *args: object, **kwargs: object) -> None:
            return None

    def _sql_helper(*args: object, **kwargs: object) -> Any:
        raise NotImplementedError("a SQL helper of PostgresStore (its tests are deselected)")

    psycopg = module("psycopg", Connection=_Conn, AsyncConnection=_AConn)
    psycopg.errors = module(
        "psycopg.errors", UndefinedTable=type("UndefinedTable", (Exception,), {})
    )  # type: ignore[attr-defined]
    psycopg.rows = module("psycopg.rows", DictRow=dict, dict_row=None)  # type: ignore[attr-defined]
    base = module(
        "langgraph.store.postgres.base",
        _escape_like_literal=_sql_helper,
        _namespace_match_pattern=_sql_helper,
        PostgresIndexConfig=dict,
    )
    pg = module(
        "langgraph.store.postgres",
        PostgresStore=SqlStandIn,
        AsyncPostgresStore=AsyncSqlStandIn,
        base=base,
    )
    pg.__path__ = []  # a package
    import langgraph.checkpoint

    ck = module("langgraph.checkpoint.postgres", _ainternal=None)
    ck.__path__ = []
    ck._ainternal = module("langgraph.checkpoint.postgres._ainternal", get_connection=_sql_helper)  # type: ignore[attr-defined]


_install()


# ---------------------------------------------------------------------- pytest-mock's spy
if "pytest_mock" not in sys.modules:
    try:
        import pytest_mock  # noqa: F401
    except ImportError:

        class _Mocker:
            """The part of pytest-mock's ``mocker`` these modules use: ``spy``."""

            def __init__(self) -> None:
                self._undo: list[tuple[Any, str, Any]] = []

            def spy(self, owner: Any, name: str) -> unittest.mock.MagicMock:
                raw = inspect.getattr_static(owner, name)
                func = getattr(owner, name)
                mock = unittest.mock.MagicMock(name=name)
                if inspect.iscoroutinefunction(func):

                    async def awrapper(*args: Any, **kwargs: Any) -> Any:
                        mock(*args, **kwargs)
                        return await func(*args, **kwargs)

                    wrapper: Any = functools.wraps(func)(awrapper)
                else:

                    def swrapper(*args: Any, **kwargs: Any) -> Any:
                        mock(*args, **kwargs)
                        return func(*args, **kwargs)

                    wrapper = functools.wraps(func)(swrapper)
                self._undo.append((owner, name, raw))
                setattr(owner, name, wrapper)
                return mock

            def undo(self) -> None:
                for owner, name, raw in reversed(self._undo):
                    setattr(owner, name, raw)

        sys.modules["pytest_mock"] = module_ = types.ModuleType("pytest_mock")
        module_.MockerFixture = _Mocker  # type: ignore[attr-defined]

        @pytest.fixture
        def mocker() -> Iterator[_Mocker]:
            m = _Mocker()
            yield m
            m.undo()


# ---------------------------------------------------------------------- hooks
_REPORT: dict[str, Any] = {"outcomes": {}, "deselected": {}}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "flaky(retries): rerun a failed test (pytest-retry's marker)"
    )


def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    marker = item.get_closest_marker("flaky")
    if marker is None:
        return None
    from _pytest.runner import runtestprotocol

    retries = int(marker.kwargs.get("retries", 1))
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for attempt in range(retries + 1):
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        if not any(r.failed for r in reports) or attempt == retries:
            break
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    keep, drop = [], []
    for item in items:
        reason = _deselect_reason(item.nodeid)
        if reason is None:
            keep.append(item)
        else:
            drop.append(item)
            _REPORT["deselected"][item.nodeid] = reason
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    outcomes = _REPORT["outcomes"]
    if report.when == "call" or report.outcome != "passed":
        if report.nodeid in outcomes and outcomes[report.nodeid][0] != "passed":
            return  # a setup or call failure stays the outcome
        message = ""
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)[-500:]
        outcomes[report.nodeid] = [report.outcome, message[:600]]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get("TEPA_SHIM_REPORT")
    worker = getattr(session.config, "workerinput", None)  # a pytest-xdist worker
    if path and worker is not None:
        # Workers collect (and deselect); the controller gets every test's report.
        path = f"{path}.{worker['workerid']}"
        data: dict[str, Any] = {"outcomes": {}, "deselected": _REPORT["deselected"]}
    else:
        data = _REPORT
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
    shutil.rmtree(_SESSION_DIR, ignore_errors=True)
