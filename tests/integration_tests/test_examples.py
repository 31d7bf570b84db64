"""Each script in examples/ runs offline as a subprocess, with a timeout, and exits 0.

The server example starts its own ``chroma run`` on 127.0.0.1 (a free port) and stops it by PID;
it is also run against the session's server fixture, through ``--host``/``--port``.
"""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import ROOT
from tests.support.offline import run_python

if TYPE_CHECKING:
    from tests.integration_tests.conftest import ChromaServer

EXAMPLES = ROOT / "examples"
SCRIPTS = ("agent_with_memory.py", "langgraph_workflow.py", "server_mode.py")
TIMEOUT = 180


def _run(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_python(EXAMPLES / script, *args, cwd=cwd, timeout=TIMEOUT, what=script)


def _check(proc: subprocess.CompletedProcess[str], script: str) -> str:
    assert proc.returncode == 0, (
        f"{script} exited {proc.returncode}\n--- stdout ---\n{proc.stdout[-3000:]}"
        f"\n--- stderr ---\n{proc.stderr[-5000:]}"
    )
    return proc.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_example_has_a_docstring_saying_how_to_run_it(script: str) -> None:
    doc = ast.get_docstring(ast.parse((EXAMPLES / script).read_text("utf-8")))
    assert doc, f"{script} needs a module docstring"
    assert f"python examples/{script}" in doc


def test_agent_with_memory_runs_offline(tmp_path: Path) -> None:
    out = _check(_run("agent_with_memory.py", cwd=tmp_path), "agent_with_memory.py")
    assert "scripted" in out.lower()
    assert "mushroom" in out
    assert "revoked" in out


def test_langgraph_workflow_runs(tmp_path: Path) -> None:
    out = _check(_run("langgraph_workflow.py", cwd=tmp_path), "langgraph_workflow.py")
    assert "promoted" in out
    assert "rejected" in out


def test_server_mode_starts_and_stops_its_own_server(tmp_path: Path) -> None:
    out = _check(_run("server_mode.py", cwd=tmp_path), "server_mode.py")
    assert "A reads after refresh: mushroom" in out
    started = [line for line in out.splitlines() if line.startswith("started chroma run (pid ")]
    assert len(started) == 1
    pid = int(started[0].split("pid ")[1].split(")")[0])
    assert f"stopped chroma run (pid {pid})" in out
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_server_mode_against_a_running_server(chroma_server: ChromaServer, tmp_path: Path) -> None:
    out = _check(
        _run(
            "server_mode.py",
            "--host",
            chroma_server.host,
            "--port",
            str(chroma_server.port),
            cwd=tmp_path,
        ),
        "server_mode.py",
    )
    assert "started chroma run" not in out
    assert "evidence writers: ['agent-a', 'agent-b']" in out
