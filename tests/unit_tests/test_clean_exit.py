"""A memory never closed leaves nothing for ``tepa inspect`` to warn about (issue 30).

Open memories on a lasting storage are closed at interpreter exit (``memory/exits.py``): weakly
held, never raising, only by the process that opened them.
"""

from __future__ import annotations

import gc
import logging
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import langchain_tepa
from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.cli import inspect_memory, main
from langchain_tepa.memory import exits

ROOT = Path(langchain_tepa.__file__).resolve().parent.parent

# The README's keyed quickstart, without close(); the flush interval is long so no view is
# written before exit by the interval (on a loaded machine three writes may take seconds).
WRITE = """
import os, sys
from langchain_tepa import HashingEmbeddings, TEPAMemory

memory = TEPAMemory.from_path(sys.argv[1], embeddings=HashingEmbeddings(), flush_interval_s=3600)
memory.observe("user.pizza_topping", "pineapple")
memory.observe("user.pizza_topping", "mushroom")
memory.observe("user.pizza_topping", "mushroom")
memory.observe("user.diet", "vegan")
assert memory.get("user.pizza_topping") == "mushroom"
if sys.argv[2] == "hard":
    os._exit(0)  # no exit hooks run: the views stay pending
"""


def _write_and_exit(path: Path, how: str) -> None:
    subprocess.run(
        [sys.executable, "-c", WRITE, str(path), how],
        check=True,
        cwd=ROOT,
        timeout=300,
        capture_output=True,
    )


def test_a_memory_never_closed_leaves_no_differing_views(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_and_exit(tmp_path / "m", "normal")
    report = inspect_memory(tmp_path / "m")
    assert report["evidence"] == 4
    assert report["lagging_views"] == 0
    assert {p["state"] for p in report["precedents"]} == {"active", "revoked"}
    assert main(["inspect", str(tmp_path / "m")]) == 0
    assert "differ" not in capsys.readouterr().out


def test_without_exit_hooks_the_views_would_differ(tmp_path: Path) -> None:
    # The control: the same program ended by os._exit leaves its views pending, so the test
    # above passes because of the exit hook, not because views happened to be written.
    _write_and_exit(tmp_path / "m", "hard")
    assert inspect_memory(tmp_path / "m")["lagging_views"] > 0


def test_the_registry_never_keeps_a_memory_alive(tmp_path: Path) -> None:
    memory = TEPAMemory.from_path(tmp_path / "m", embeddings=HashingEmbeddings())
    memory.observe("user.diet", "vegan")
    assert memory in exits._OPEN
    ref = weakref.ref(memory)
    del memory
    gc.collect()
    assert ref() is None


def test_closed_read_only_and_in_process_memories_are_not_tracked(tmp_path: Path) -> None:
    with TEPAMemory.from_path(tmp_path / "m", embeddings=HashingEmbeddings()) as memory:
        memory.observe("user.diet", "vegan")
        assert memory in exits._OPEN
    assert memory not in exits._OPEN
    reader = TEPAMemory.from_path(tmp_path / "m", embeddings=HashingEmbeddings(), read_only=True)
    try:
        assert reader not in exits._OPEN
    finally:
        reader.close()
    assert TEPAMemory.in_memory() not in exits._OPEN


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry of this test's own: closing it must not close other tests' memories."""
    monkeypatch.setattr(exits, "_OPEN", weakref.WeakKeyDictionary())


class _Thing:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.closed = 0

    def close(self) -> None:
        self.closed += 1
        if self.fail:
            raise RuntimeError("the store is gone")

    def __repr__(self) -> str:
        return "_Thing()"


@pytest.mark.usefixtures("registry")
def test_the_exit_hook_never_raises_and_closes_the_others(
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken, fine = _Thing(fail=True), _Thing()
    exits.track(broken)
    exits.track(fine)
    with caplog.at_level(logging.WARNING, logger=exits.__name__):
        exits.close_open()
    assert (broken.closed, fine.closed) == (1, 1)
    assert "was not closed at exit (RuntimeError: the store is gone)" in caplog.text
    exits.close_open()  # nothing left: each is closed once
    assert (broken.closed, fine.closed) == (1, 1)


@pytest.mark.usefixtures("registry")
def test_a_forked_process_does_not_close_its_parents_memories(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    thing = _Thing()
    exits.track(thing)
    monkeypatch.setattr(exits.os, "getpid", lambda: -1)  # as a child after fork sees it
    exits.close_open()
    assert thing.closed == 0
