"""Integration fixtures: a real Chroma server for the whole session.

``chroma_server`` (session scope) starts ``chroma run --path TMP --host 127.0.0.1 --port PORT``
from the virtual environment (``.venv/bin/chroma``, next to the running Python), on a free
loopback port, waits until ``GET /api/v2/heartbeat`` answers, yields a :class:`ChromaServer` and
stops the process by its PID when the session ends (SIGTERM, then SIGKILL after 10 s). Its log is
in ``chroma_server.log_path``.

How to use it in another integration test::

    def test_something(chroma_server):
        client = chroma_server.client()                  # chromadb.HttpClient
        memory = TEPAMemory.from_client(client, prefix=unique_prefix(), embeddings=...)

    async def test_async(chroma_server):
        client = await chroma_server.async_client()      # chromadb.AsyncHttpClient
        memory = await TEPAMemory.afrom_client(client, prefix=unique_prefix())

    def test_fixture(server_memory):                     # a fresh TEPAMemory on the server
        server_memory.observe("user.diet", "vegan")

Every test shares one server: use a fresh collection prefix per test (``unique_prefix()`` or the
``server_prefix`` fixture). Child processes can reach the server through ``chroma_server.host``
and ``chroma_server.port``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory
from tests.support.chroma_process import free_port, spawn_chroma, stop_process

__all__ = ["ChromaServer", "unique_prefix"]

_START_TIMEOUT = 60.0


def unique_prefix(stem: str = "it") -> str:
    """A collection prefix no other test uses (``stem`` + 12 hex digits)."""
    return f"{stem}{uuid.uuid4().hex[:12]}"


@dataclass
class ChromaServer:
    """A running ``chroma run`` process on 127.0.0.1.

    Attributes:
        host: Always ``"127.0.0.1"``.
        port: The port it listens on.
        path: Its data folder.
        pid: Its process id.
        log_path: File holding its stdout and stderr.
    """

    host: str
    port: int
    path: Path
    pid: int
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)

    @property
    def url(self) -> str:
        """Base URL, ``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    def heartbeat(self, timeout: float = 2.0) -> int:
        """The v2 heartbeat (nanoseconds); raises if the server does not answer."""
        with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=timeout) as resp:
            return int(json.loads(resp.read())["nanosecond heartbeat"])

    def client(self) -> Any:
        """A new ``chromadb.HttpClient`` on this server (telemetry off)."""
        import chromadb
        from chromadb.config import Settings

        return chromadb.HttpClient(
            host=self.host, port=self.port, settings=Settings(anonymized_telemetry=False)
        )

    async def async_client(self) -> Any:
        """A new ``chromadb.AsyncHttpClient`` on this server (await it)."""
        import chromadb
        from chromadb.config import Settings

        return await chromadb.AsyncHttpClient(
            host=self.host, port=self.port, settings=Settings(anonymized_telemetry=False)
        )

    def memory(self, prefix: str | None = None, **kwargs: Any) -> TEPAMemory:
        """A :class:`TEPAMemory` on this server (offline ``HashingEmbeddings`` by default)."""
        kwargs.setdefault("embeddings", HashingEmbeddings())
        return TEPAMemory.from_client(self.client(), prefix=prefix or unique_prefix(), **kwargs)

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def restart(self) -> None:
        """Start the server again on the same folder and port (after :meth:`stop` or :meth:`kill`)."""
        self.stop()
        self.process = spawn_chroma(self.path, self.port, self.log_path, append=True)
        self.pid = self.process.pid
        deadline = time.monotonic() + _START_TIMEOUT
        while time.monotonic() < deadline:
            try:
                self.heartbeat(timeout=1.0)
                return
            except OSError:
                time.sleep(0.1)
        pytest.fail("chroma run did not come back after a restart")

    def stop(self) -> None:
        """Stop the server by PID: SIGTERM, then SIGKILL if it has not exited within 10 s."""
        stop_process(self.process)


def _start(folder: Path) -> ChromaServer:
    last_error = "not started"
    for attempt in range(3):
        port = free_port()
        data = folder / f"data{attempt}"
        log_path = folder / f"chroma{attempt}.log"
        process = spawn_chroma(data, port, log_path)
        server = ChromaServer("127.0.0.1", port, data, process.pid, log_path, process)
        deadline = time.monotonic() + _START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                last_error = f"exited with code {process.returncode}"
                break
            try:
                server.heartbeat(timeout=1.0)
            except OSError as exc:
                last_error = str(exc)
                time.sleep(0.1)
                continue
            return server
        server.stop()
        tail = log_path.read_text(errors="replace")[-2000:]
        last_error = f"{last_error}; log tail:\n{tail}"
    pytest.fail(f"chroma run did not become ready: {last_error}")


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """A real Chroma server on 127.0.0.1:FREE_PORT for the session, stopped by PID at the end."""
    server = _start(tmp_path_factory.mktemp("chroma_server"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ChromaServer]:
    """A Chroma server of this test alone (it may be stopped, killed and restarted)."""
    server = _start(tmp_path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def server_prefix() -> str:
    """A collection prefix unique to the test."""
    return unique_prefix()


@pytest.fixture
def server_memory(chroma_server: ChromaServer, server_prefix: str) -> Iterator[TEPAMemory]:
    """A fresh :class:`TEPAMemory` on the session's server (HashingEmbeddings, tick clock)."""
    counter = iter(range(1, 10**9))
    clock: Callable[[], float] = lambda: float(next(counter))  # noqa: E731
    mem = chroma_server.memory(server_prefix, clock=clock)
    yield mem
    mem.close()
