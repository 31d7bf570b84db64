"""A ``chroma run`` process for the integration tests: a free loopback port, stopped by its PID.

The benchmarks' ``tepa-bench perf`` has its own copy (``tepa_bench.perf.server``): the library's
tests do not depend on the benchmark project, which lives beside the library (issue 31).

Example:
    >>> free_port() > 0
    True
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

__all__ = ["chroma_executable", "free_port", "spawn_chroma", "stop_process"]


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
        raise RuntimeError("the `chroma` command (installed with chromadb) is not on PATH")
    return found


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
