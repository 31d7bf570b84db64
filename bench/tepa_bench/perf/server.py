"""A ``chroma run`` server started by the benchmark: 127.0.0.1, a free port, stopped by its PID.

Example:
    >>> free_port() > 0
    True
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_tepa.core.errors import StorageError

__all__ = [
    "ChromaRun",
    "chroma_executable",
    "chroma_run",
    "free_port",
    "spawn_chroma",
    "stop_process",
]

_START_TIMEOUT = 120.0


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def chroma_executable() -> str:
    """The ``chroma`` command of this environment (beside the interpreter, else on PATH)."""
    here = Path(sys.executable).parent / "chroma"
    if here.is_file():
        return str(here)
    found = shutil.which("chroma")
    if found is None:
        raise StorageError(
            "the `chroma` command (installed with chromadb) is not on PATH; install chromadb in "
            "this environment"
        )
    return found


@dataclass
class ChromaRun:
    """A running ``chroma run --path DIR --host 127.0.0.1 --port PORT``.

    Attributes:
        host: ``"127.0.0.1"``.
        port: Its port.
        path: Its data folder.
        log_path: Its output.
    """

    host: str
    port: int
    path: Path
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)

    @property
    def pid(self) -> int:
        """The server's process id."""
        return int(self.process.pid)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    def heartbeat(self, timeout: float = 2.0) -> int:
        """The v2 heartbeat; raises ``OSError`` when the server does not answer."""
        with urllib.request.urlopen(  # noqa: S310 (an http:// URL this class builds)
            f"{self.url}/api/v2/heartbeat", timeout=timeout
        ) as resp:
            return int(json.loads(resp.read())["nanosecond heartbeat"])

    def client(self) -> Any:
        """A new ``chromadb.HttpClient`` on the server (telemetry off)."""
        import chromadb
        from chromadb.config import Settings

        return chromadb.HttpClient(
            host=self.host, port=self.port, settings=Settings(anonymized_telemetry=False)
        )

    def peak_rss_mib(self) -> float | None:
        """The server process's peak resident memory (``VmHWM``), while it runs."""
        try:
            with open(f"/proc/{self.pid}/status", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return round(int(line.split()[1]) / 1024.0, 1)
        except OSError:
            return None
        return None

    def stop(self) -> None:
        """SIGTERM by PID, then SIGKILL after 10 s."""
        stop_process(self.process)


def spawn_chroma(
    path: Path, port: int, log_path: Path, *, append: bool = False
) -> subprocess.Popen[bytes]:
    """Start ``chroma run --path PATH --host 127.0.0.1 --port PORT`` (telemetry off).

    Its output goes to ``log_path`` (appended with ``append``); the caller waits for its
    heartbeat and stops it with :func:`stop_process`.
    """
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False", "NO_COLOR": "1"}
    command = [chroma_executable(), "run", "--path", str(path), "--host", "127.0.0.1"]
    with log_path.open("ab" if append else "wb") as out:
        return subprocess.Popen(
            [*command, "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """Stop ``process`` by PID: SIGTERM, then SIGKILL if it has not exited within 10 s."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


@contextlib.contextmanager
def chroma_run(path: Path, log_path: Path) -> Iterator[ChromaRun]:
    """Serve ``path`` with ``chroma run`` on 127.0.0.1 until the block ends.

    Raises:
        StorageError: If the server does not answer its heartbeat within two minutes.
    """
    port = free_port()
    process = spawn_chroma(path, port, log_path)
    server = ChromaRun("127.0.0.1", port, path, log_path, process)
    try:
        deadline = time.monotonic() + _START_TIMEOUT
        while True:
            if process.poll() is not None:
                raise StorageError(
                    f"chroma run exited with code {process.returncode}; see {log_path}"
                )
            try:
                server.heartbeat(timeout=1.0)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise StorageError(
                        f"chroma run did not answer within {_START_TIMEOUT:.0f} s; see {log_path}"
                    ) from None
                time.sleep(0.1)
        yield server
    finally:
        server.stop()
