"""A real LangGraph Server (``langgraph dev``) with TEPAStore as its store, for integration tests.

:func:`start_server` copies ``examples/langgraph_server`` into a temporary folder and runs
``langgraph dev --host 127.0.0.1 --port FREE --no-browser --no-reload`` there (one process, its
own process group), with the store's Chroma folder given by ``TEPA_STORE_PATH``. It waits until
``GET /ok`` answers and returns a :class:`LangGraphServer`; :meth:`LangGraphServer.stop` ends
the process group by PID (SIGTERM, then SIGKILL after 20 s).

Nothing may reach the internet: the server runs without LangSmith keys or tracing
(``LANGSMITH_TRACING=false``), without CLI analytics (``LANGGRAPH_CLI_NO_ANALYTICS=1``), without
the PyPI version check (``LANGGRAPH_NO_VERSION_CHECK=true``), without license keys (so no
metadata beacon), without Chroma telemetry, and with every proxy variable pointing at a
:class:`RecordingProxy` on 127.0.0.1 that refuses and records each request: a test asserts it
recorded none. Loopback (``NO_PROXY``) goes direct, so the server can reach itself.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import ROOT

__all__ = ["EXAMPLE", "LangGraphServer", "RecordingProxy", "start_server"]

EXAMPLE = ROOT / "examples" / "langgraph_server"
START_TIMEOUT = 120.0
STOP_TIMEOUT = 20.0
LOOPBACK = "127.0.0.1,localhost,::1"
# Variables that would send traces, metadata or analytics somewhere, or route traffic elsewhere.
_DROPPED_PREFIXES = ("LANGSMITH_", "LANGCHAIN_", "OPENAI_", "LANGGRAPH_")
_DROPPED = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _ProxyHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(8192).decode("latin-1").strip()
        if line:
            self.server.requests.append(line)  # type: ignore[attr-defined]
        with contextlib.suppress(OSError):
            self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")


class RecordingProxy(socketserver.ThreadingTCPServer):
    """An HTTP proxy on 127.0.0.1 that forwards nothing and records every request line."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.requests: list[str] = []
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def close(self) -> None:
        self.shutdown()
        self.server_close()


def _langgraph_executable() -> str:
    here = Path(sys.executable).parent / "langgraph"
    if here.is_file():
        return str(here)
    found = shutil.which("langgraph")
    if found is None:
        pytest.fail("the `langgraph` command (langgraph-cli[inmem], test extra) is not installed")
    return found


def server_env(store_path: Path, proxy: RecordingProxy) -> dict[str, str]:
    """The server's environment: offline, untraced, every proxy variable on the recorder."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(_DROPPED_PREFIXES) and k.upper() not in _DROPPED
    }
    env.update(
        {
            "TEPA_STORE_PATH": str(store_path),
            "LANGSMITH_TRACING": "false",
            "LANGCHAIN_TRACING_V2": "false",
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
            "LANGGRAPH_NO_VERSION_CHECK": "true",
            "ANONYMIZED_TELEMETRY": "False",
            "DO_NOT_TRACK": "1",
            "NO_COLOR": "1",
            "PYTHONUNBUFFERED": "1",
            "NO_PROXY": LOOPBACK,
            "no_proxy": LOOPBACK,
        }
    )
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = proxy.url
    return env


@dataclass
class LangGraphServer:
    """A running ``langgraph dev`` process group on 127.0.0.1."""

    port: int
    app_dir: Path
    store_path: Path
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def healthy(self, timeout: float = 2.0) -> bool:
        """Whether ``GET /ok`` answers 200."""
        try:
            with urllib.request.urlopen(f"{self.url}/ok", timeout=timeout) as resp:
                return resp.status == 200
        except OSError:
            return False

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> int:
        """SIGTERM to the process group, SIGKILL after 20 s; returns the exit code."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.pid, signal.SIGKILL)
                self.process.wait(timeout=STOP_TIMEOUT)
        # Children left in the group (none expected) go too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        return int(self.process.returncode)


def prepare_app(folder: Path) -> Path:
    """A copy of the example deployment (the server writes ``.langgraph_api/`` in its folder)."""
    app = folder / "app"
    if not app.exists():
        shutil.copytree(
            EXAMPLE, app, ignore=shutil.ignore_patterns("__pycache__", ".langgraph_api")
        )
    return app


def start_server(app_dir: Path, store_path: Path, proxy: RecordingProxy) -> LangGraphServer:
    """Start ``langgraph dev`` on a free loopback port and wait until it answers."""
    exe = _langgraph_executable()
    last = "not started"
    for attempt in range(3):
        port = free_port()
        log_path = app_dir.parent / f"langgraph-{port}-{attempt}.log"
        cmd = [
            exe,
            "dev",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-browser",
            "--no-reload",
            "--config",
            "langgraph.json",
        ]
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                cmd,
                cwd=app_dir,
                env=server_env(store_path, proxy),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        server = LangGraphServer(port, app_dir, store_path, log_path, process)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                last = f"exited with code {process.returncode}"
                break
            if server.healthy(timeout=1.0):
                return server
            time.sleep(0.2)
        else:
            last = f"no answer on /ok within {START_TIMEOUT:.0f} s"
        server.stop()
        last += "; log tail:\n" + server.log()[-3000:]
    pytest.fail(f"langgraph dev did not start: {last}")
