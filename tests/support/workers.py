"""Worker processes for multi-process tests (see ``tests/support/worker_main.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["Worker"]

_ROOT = Path(__file__).resolve().parents[2]


class Worker:
    """One worker process on a Chroma server; :meth:`call` sends a command, returns the answer.

    Stopped (killed by PID if it does not quit) by :meth:`stop`.
    """

    def __init__(self, host: str, port: int, prefix: str, writer: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.worker_main", host, str(port), prefix, writer],
            cwd=_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
        self._ready = False

    def wait_ready(self) -> Worker:
        """Wait until the worker has opened its memory (start several, then wait for each)."""
        if not self._ready:
            ready = self._read()
            assert ready.get("ready"), ready
            self._ready = True
        return self

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise RuntimeError(f"worker died: {err[-3000:]}")
        return dict(json.loads(line))

    def call(self, op: str, **kwargs: Any) -> dict[str, Any]:
        """Send one command and wait for its answer."""
        self.wait_ready()
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"op": op, **kwargs}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def stop(self) -> None:
        """Ask the worker to quit; kill it if it does not within 30 s."""
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=30)
