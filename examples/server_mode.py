"""Server mode: two writers share one TEPA memory on a Chroma server (`chroma run`).

Run it against a server you started yourself::

    chroma run --path ./chroma-data --host 127.0.0.1 --port 8000
    python examples/server_mode.py --host 127.0.0.1 --port 8000

or let the script start a throw-away server on 127.0.0.1 (a free port, a temporary folder) and
stop it by its PID when done::

    python examples/server_mode.py

Two ``TEPAMemory`` objects play two agent processes on the same server. Writer A learns a user
preference; writer B hears it change twice. Evidence is append-only, so the writers never
overwrite each other; A calls ``refresh()`` to fold B's evidence, and sees the old value revoked.
Offline: embeddings are the library's ``HashingEmbeddings``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import chromadb
from chromadb.config import Settings

from langchain_tepa import HashingEmbeddings, TEPAMemory


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _heartbeat(host: str, port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/api/v2/heartbeat", timeout=1) as r:
            return "nanosecond heartbeat" in json.loads(r.read())
    except OSError:
        return False


@contextlib.contextmanager
def local_chroma_server(timeout: float = 60.0) -> Iterator[tuple[str, int]]:
    """Start ``chroma run`` on 127.0.0.1 (free port, temporary folder); stop it by PID."""
    exe = Path(sys.executable).parent / "chroma"
    command = str(exe) if exe.is_file() else shutil.which("chroma")
    if command is None:
        raise SystemExit("`chroma` (installed with chromadb) is not on PATH")
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="tepa-chroma-") as folder:
        log = Path(folder) / "chroma.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [
                    command,
                    "run",
                    "--path",
                    f"{folder}/data",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "ANONYMIZED_TELEMETRY": "False", "NO_COLOR": "1"},
            )
        try:
            deadline = time.monotonic() + timeout
            while not _heartbeat("127.0.0.1", port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"chroma run did not start:\n{log.read_text()[-2000:]}")
                time.sleep(0.1)
            print(f"started chroma run (pid {proc.pid}) on 127.0.0.1:{port}")
            yield "127.0.0.1", port
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=10)
            print(f"stopped chroma run (pid {proc.pid})")


def demo(host: str, port: int, prefix: str) -> None:
    """Two writers on one server: A learns a fact, B revises it, A sees the revocation."""

    def writer(name: str) -> TEPAMemory:
        client = chromadb.HttpClient(
            host=host, port=port, settings=Settings(anonymized_telemetry=False)
        )
        return TEPAMemory.from_client(
            client, prefix=prefix, embeddings=HashingEmbeddings(), writer=name
        )

    a, b = writer("agent-a"), writer("agent-b")
    a.observe("user.pizza_topping", "pineapple", text="The user loves pineapple on pizza.")
    b.refresh()  # fold A's evidence into B's in-process index
    print("B reads:", b.get("user.pizza_topping"))

    b.observe("user.pizza_topping", "mushroom", text="The user now prefers mushroom pizza.")
    b.observe("user.pizza_topping", "mushroom", text="Mushroom again, says the user.")
    a.refresh()  # fold B's evidence into A's index
    print("A reads after refresh:", a.get("user.pizza_topping"))
    hits = a.retrieve("what pizza should I order?", k=3)
    print("A retrieves:", [(d.metadata["value"], d.metadata["state"]) for d in hits])
    print(a.audit("user.pizza_topping"))
    writers = sorted({ev.writer for ev in a.history("user.pizza_topping")})
    print("evidence writers:", writers)
    assert a.get("user.pizza_topping") == "mushroom"
    assert [p.value for p in a.audit("user.pizza_topping").revoked] == ["pineapple"]
    a.close()
    b.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", help="host of a running `chroma run` (default: start one)")
    parser.add_argument("--port", type=int, help="its port")
    parser.add_argument("--prefix", default=f"srv{uuid.uuid4().hex[:8]}", help="collections")
    args = parser.parse_args()
    if args.host is None and args.port is None:
        with local_chroma_server() as (host, port):
            demo(host, port, args.prefix)
    else:
        demo(args.host or "127.0.0.1", args.port or 8000, args.prefix)


if __name__ == "__main__":
    main()
