"""Each script in examples/ runs offline as a subprocess, with a timeout, and exits 0.

The server example starts its own ``chroma run`` on 127.0.0.1 (a free port) and stops it by PID;
it is also run against the session's server fixture, through ``--host``/``--port``. The demo of
``make demo`` (``python -m langchain_tepa.demo``) runs the same way, and what it prints is read.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
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


def _closed_port() -> int:
    import socket

    with socket.socket() as s:  # a port nothing listens on once the socket is closed
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_agent_with_memory_with_a_bad_key_fails_in_one_line(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-wrong", "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"}
    proc = run_python(
        EXAMPLES / "agent_with_memory.py",
        cwd=tmp_path,
        timeout=TIMEOUT,
        what="bad key",
        extra_env=env,
    )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-3000:]
    assert lines[0].startswith("error: the OpenAI API call failed")
    assert "--offline" in lines[0]


def test_agent_with_memory_offline_flag_ignores_the_key(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-wrong", "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"}
    proc = run_python(
        EXAMPLES / "agent_with_memory.py",
        "--offline",
        cwd=tmp_path,
        timeout=TIMEOUT,
        what="--offline",
        extra_env=env,
    )
    out = _check(proc, "agent_with_memory.py --offline")
    assert "scripted" in out.lower()
    assert "mushroom" in out


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


def _demo_lines(tmp_path: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["ANONYMIZED_TELEMETRY"] = "False"
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "langchain_tepa.demo", "--path", str(tmp_path / "memory")],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"python -m langchain_tepa.demo ran longer than {TIMEOUT} s: {exc}")
    return _check(proc, "python -m langchain_tepa.demo").splitlines()


def test_the_demo_agent_uses_the_changed_preference_and_shows_why(tmp_path: Path) -> None:
    lines = _demo_lines(tmp_path)
    assert re.search(r"usually under \d+ s", lines[0]), "the demo states its duration first"
    change = lines.index("  user:  My favourite colour is now blue.")
    before, after = lines[:change], lines[change:]
    section = next(i for i, line in enumerate(after) if line.startswith("== 2."))
    talk = after[:section]

    def served(where: list[str], store: str) -> list[str]:
        return [line for line in where if line.lstrip().startswith(f"{store} served:")]

    # before the change both stores serve the green memory, and the agent answers from it
    assert all("colour is green" in line for line in served(before, "TEPAStore"))
    assert "  agent: Green, going by what you told me" in "\n".join(before)
    # after it TEPAStore never serves the stale memory; InMemoryStore serves both
    ours, theirs = served(talk, "TEPAStore"), served(talk, "InMemoryStore")
    assert len(ours) == len(theirs) == 2
    assert not any("colour is green" in line for line in ours)
    assert "colour is now blue" in ours[0]
    assert all("colour is green" in line for line in theirs)
    assert "colour is now blue" in theirs[0]
    answers = [line for line in talk if line.startswith("  agent: ")]
    assert answers[1].startswith('  agent: Blue, going by what you told me: "My favourite colour')
    assert "(the same agent over InMemoryStore: Green, going by" in "\n".join(talk)
    assert any("TEPAStore served 'My favourite colour is green.' in 0 of 2" in x for x in talk)
    # the audit names the item that superseded the old one
    audit = after[section:]
    new_key = next(x for x in audit if x.startswith("new item ")).split()[2].rstrip(":")
    old_key = next(x for x in audit if x.startswith("old item ")).split()[2].rstrip(":")
    assert "store.get(ns, old item) -> None" in audit
    assert any(x.startswith(f"audit memories.ana/{old_key} ") for x in audit)
    reason = f"superseded: user.favourite_colour is now 'blue' (item {new_key}), not 'green'"
    assert any(reason in x for x in audit)
    # then the keyed reversal walk
    assert "revoked:      csv failed again    -> get() = None" in lines
    assert "retrieve() sees only: ['json']" in lines
    assert lines[-1].startswith(f"the memory stays in {tmp_path / 'memory'} ")
