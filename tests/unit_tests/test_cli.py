"""The `tepa` console script: inspect (read-only) and reconcile, run in-process."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, LifecyclePolicy, TEPAMemory
from langchain_tepa.cli import build_parser, inspect_memory, list_namespaces, main
from langchain_tepa.core.errors import InvalidArgumentError, ReadOnlyError, StorageError


def _make_memory(path: Path, clock: Callable[[], float], policy: str = "tepa-rev") -> None:
    with TEPAMemory.from_path(
        path, embeddings=HashingEmbeddings(), clock=clock, policy=policy
    ) as mem:
        mem.observe("user.pizza_topping", "pineapple")
        mem.observe("user.pizza_topping", "mushroom", source="user")
        mem.observe("user.pizza_topping", "mushroom", source="langgraph-store")
        mem.observe("user.diet", "vegan")
        mem.observe("user.city", "Paris", namespace="users.u2")


def _dump(path: Path) -> dict[str, Any]:
    """Every record of every collection (ids, documents, metadata, vectors), logically."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(
        path=str(path), settings=Settings(anonymized_telemetry=False)
    )
    out: dict[str, Any] = {}
    for col in client.list_collections():
        c = client.get_collection(col.name)
        got = c.get(include=["documents", "metadatas", "embeddings"])
        rows = sorted(
            zip(
                got["ids"],
                got["documents"],
                [json.dumps(m, sort_keys=True) for m in got["metadatas"]],
                [[round(float(x), 6) for x in e] for e in got["embeddings"]],
                strict=True,
            )
        )
        out[col.name] = rows
    return out


def _run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def memory_path(tmp_path: Path, tick: Callable[[], float]) -> Path:
    path = tmp_path / "memory"
    _make_memory(path, tick)
    return path


def test_inspect_json_lists_precedents_states_and_reasons(
    memory_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _run_json(capsys, "inspect", str(memory_path))
    assert report["namespaces"] == ["default", "users.u2"]
    assert report["evidence"] == 5
    assert report["lagging_views"] == 0
    by_value = {(p["key"], p["value"]): p for p in report["precedents"]}
    assert set(by_value) == {
        ("user.pizza_topping", "pineapple"),
        ("user.pizza_topping", "mushroom"),
        ("user.diet", "vegan"),
        ("user.city", "Paris"),
    }
    pineapple = by_value[("user.pizza_topping", "pineapple")]
    assert pineapple["state"] == "revoked"
    assert (pineapple["support"], pineapple["conflict"]) == (1, 2)
    assert pineapple["validity"] == pytest.approx(2 / 5, abs=1e-4)
    path_states = [(t["from_state"], t["to_state"]) for t in pineapple["transitions"]]
    assert path_states == [(None, "hypothesis"), ("hypothesis", "active"), ("active", "revoked")]
    assert "revoked" in pineapple["transitions"][-1]["reason"]
    assert pineapple["transitions"][-1]["evidence_id"]
    assert by_value[("user.pizza_topping", "mushroom")]["state"] == "active"


def test_inspect_state_namespace_and_key_filters(
    memory_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    revoked = _run_json(capsys, "inspect", str(memory_path), "--state", "revoked")
    assert [(p["key"], p["value"]) for p in revoked["precedents"]] == [
        ("user.pizza_topping", "pineapple")
    ]
    active = _run_json(capsys, "inspect", str(memory_path), "--state", "active")
    assert {p["value"] for p in active["precedents"]} == {"mushroom", "vegan", "Paris"}
    assert all(p["state"] == "active" for p in active["precedents"])
    hyp = _run_json(capsys, "inspect", str(memory_path), "--state", "hypothesis")
    assert hyp["precedents"] == []
    ns = _run_json(capsys, "inspect", str(memory_path), "--namespace", "users.u2")
    assert [p["value"] for p in ns["precedents"]] == ["Paris"]
    key = _run_json(capsys, "inspect", str(memory_path), "--key", "user.diet")
    assert [p["value"] for p in key["precedents"]] == ["vegan"]
    parent = _run_json(
        capsys, "inspect", str(memory_path), "--key", "user", "--namespace", "default"
    )
    assert {p["key"] for p in parent["precedents"]} == {"user.diet", "user.pizza_topping"}


def test_inspect_table_output(
    memory_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a terminal and no COLUMNS: the table is 140 wide (pytest-xdist's workers set
    # COLUMNS=80, which the CLI would honour).
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["inspect", str(memory_path)]) == 0
    out = capsys.readouterr().out
    for text in ("pineapple", "mushroom", "revoked", "active", "namespace users.u2", "validity"):
        assert text in out
    header = next(line for line in out.splitlines() if "validity" in line)
    assert [c.strip() for c in header.strip("┃ \n").split("┃")][:6] == [
        "key",
        "value",
        "state",
        "support",
        "conflict",
        "validity",
    ]
    assert "hypothesis -> active" in out
    assert main(["inspect", str(memory_path), "--key", "no.such.key"]) == 0
    assert "no precedents match" in capsys.readouterr().out


def test_inspect_does_not_change_the_memory(
    memory_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _dump(memory_path)
    assert main(["inspect", str(memory_path)]) == 0
    assert main(["inspect", str(memory_path), "--json", "--state", "active"]) == 0
    capsys.readouterr()
    assert _dump(memory_path) == before


def test_inspect_leaves_lagging_views_alone_and_reconcile_repairs_them(
    tmp_path: Path, tick: Callable[[], float], capsys: pytest.CaptureFixture[str]
) -> None:
    # Written under tepa-full (Hypotheses wait for trials), read under tepa-rev: the fold
    # promotes them, so the stored views lag. A normal open would repair them; inspect must not.
    path = tmp_path / "full"
    _make_memory(path, tick, policy="tepa-full")
    before = _dump(path)
    report = _run_json(capsys, "inspect", str(path), "--policy", "tepa-rev")
    assert report["lagging_views"] > 0
    assert _dump(path) == before
    same = _run_json(capsys, "inspect", str(path), "--policy", "tepa-full")
    assert same["lagging_views"] == 0
    assert "active" not in {p["state"] for p in same["precedents"]}

    rec = _run_json(capsys, "reconcile", str(path), "--policy", "tepa-rev")
    assert rec["keys"] == 3
    assert rec["evidence"] == 5
    assert rec["repaired_views"] > 0
    assert _dump(path) != before
    after = _run_json(capsys, "inspect", str(path), "--policy", "tepa-rev")
    assert after["lagging_views"] == 0
    again = _run_json(capsys, "reconcile", str(path), "--policy", "tepa-rev")
    assert (again["repaired_views"], again["repaired_active"]) == (0, 0)


def test_reconcile_text_output(memory_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reconcile", str(memory_path)]) == 0
    out = capsys.readouterr().out
    assert "3 key(s) refolded from 5 evidence records" in out


def test_errors_exit_2_and_create_nothing(
    tmp_path: Path, memory_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nothing-here"
    assert main(["inspect", str(missing)]) == 2
    assert "no memory at" in capsys.readouterr().err
    assert not missing.exists()
    assert main(["reconcile", str(missing)]) == 2
    assert not missing.exists()
    before = _dump(memory_path)
    assert main(["inspect", str(memory_path), "--prefix", "other"]) == 2
    assert "pass the right prefix" in capsys.readouterr().err
    assert _dump(memory_path) == before
    assert main(["inspect", str(memory_path), "--namespace", "bad..ns"]) == 2
    with pytest.raises(SystemExit):
        main(["inspect", str(memory_path), "--state", "deleted"])


def test_read_only_memory_refuses_writes(memory_path: Path) -> None:
    before = _dump(memory_path)
    mem = TEPAMemory.from_path(memory_path, embeddings=HashingEmbeddings(), read_only=True)
    try:
        assert mem.get("user.pizza_topping") == "mushroom"
        with pytest.raises(ReadOnlyError, match="read_only"):
            mem.observe("user.diet", "omnivore")
        with pytest.raises(ReadOnlyError):
            mem.revoke("user.diet", "vegan")
        with pytest.raises(ReadOnlyError):
            mem.record_outcome("user.diet", "vegan", False)
        with pytest.raises(StorageError):
            mem.reconcile()
        assert mem.get("user.diet") == "vegan"
    finally:
        mem.close()
    assert _dump(memory_path) == before


def test_inspect_memory_api(memory_path: Path) -> None:
    report = inspect_memory(str(memory_path), key="user.pizza_topping", state="active")
    assert [p["value"] for p in report["precedents"]] == ["mushroom"]


def test_inspect_unknown_namespace_exits_non_zero_and_says_how_to_list_them(
    memory_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", str(memory_path), "--namespace", "users.u3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "namespace 'users.u3' does not exist" in err
    assert "'default', 'users.u2'" in err
    assert f"tepa namespaces {memory_path}" in err
    with pytest.raises(InvalidArgumentError, match="does not exist"):
        inspect_memory(str(memory_path), namespace="users.u3")
    # a namespace that exists but has no match for the filters is not an error
    assert main(["inspect", str(memory_path), "--namespace", "users.u2", "--key", "x.y"]) == 0
    assert "no precedents match" in capsys.readouterr().out


def test_namespaces_command_lists_namespaces_and_their_keys(
    memory_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _dump(memory_path)
    assert main(["namespaces", str(memory_path)]) == 0
    assert capsys.readouterr().out.splitlines() == ["default   2 keys", "users.u2  1 key"]
    assert _run_json(capsys, "namespaces", str(memory_path)) == {"default": 2, "users.u2": 1}
    assert list_namespaces(str(memory_path)) == {"default": 2, "users.u2": 1}
    assert _dump(memory_path) == before


@pytest.mark.parametrize("command", ["inspect", "namespaces", "reconcile"])
def test_missing_folder_and_file_paths_are_one_line_errors(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a memory")
    for path in (tmp_path / "missing", a_file):
        assert main([command, str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith(f"tepa {command}: error: ") and str(path) in err
    assert not (tmp_path / "missing").exists()
    assert a_file.read_text() == "not a memory"


class _RawChromaError(Exception):
    """Stands in for the raw error Chroma raises on a folder it may not open."""


@pytest.mark.parametrize(
    ("raised", "code", "expected"),
    [
        (
            StorageError(
                "cannot open the memory at /ro: the folder is read-only;\nopen it with "
                "read_only=True or make it writable"
            ),
            2,
            "tepa inspect: error: cannot open the memory at /ro: the folder is read-only; open "
            "it with read_only=True or make it writable",
        ),
        (
            PermissionError(13, "Permission denied", "/ro/chroma.sqlite3"),
            2,
            "tepa inspect: error: cannot use /ro: [Errno 13] Permission denied: "
            "'/ro/chroma.sqlite3'; check that the folder exists and that you may read it",
        ),
        (
            _RawChromaError(
                "error returned from database: (code: 14)\nunable to open database file"
            ),
            1,
            "tepa inspect: unexpected error (_RawChromaError): error returned from database: "
            "(code: 14) unable to open database file; rerun with `tepa --traceback ...` to see "
            "where it came from",
        ),
    ],
    ids=["typed", "os-error", "raw"],
)
def test_unreadable_folders_give_one_line_and_a_non_zero_exit(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: Exception,
    code: int,
    expected: str,
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> TEPAMemory:
        raise raised

    monkeypatch.setattr(TEPAMemory, "from_path", refuse)
    assert main(["inspect", "/ro"]) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == expected + "\n"
    if code == 1:
        with pytest.raises(_RawChromaError):
            main(["--traceback", "inspect", "/ro"])


def test_inspect_as_of_a_time_or_an_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import itertools
    from datetime import datetime, timezone

    folder = tmp_path / "m"
    ticks = itertools.count(1_700_000_000)
    with TEPAMemory.from_path(
        folder, embeddings=HashingEmbeddings(), clock=lambda: float(next(ticks))
    ) as mem:
        mem.observe("user.diet", "vegan", namespace="users.u1")
        first = mem.history("user.diet", namespace="users.u1")[-1]
        for source in ("user", "langgraph-store", "vectorstore"):
            mem.observe("user.diet", "carnivore", namespace="users.u1", source=source)
    when = datetime.fromtimestamp(first.time, tz=timezone.utc).isoformat()
    then = inspect_memory(str(folder), as_of=when)
    assert [(p["value"], p["state"]) for p in then["precedents"]] == [("vegan", "active")]
    by_id = inspect_memory(str(folder), as_of=first.id, namespace="users.u1")
    assert [p["value"] for p in by_id["precedents"]] == ["vegan"]
    now = inspect_memory(str(folder))
    assert {p["value"]: p["state"] for p in now["precedents"]} == {
        "vegan": "revoked",
        "carnivore": "active",
    }
    assert main(["inspect", str(folder), "--as-of", first.id]) == 2
    assert "--namespace" in capsys.readouterr().err
    assert main(["inspect", str(folder), "--as-of", when, "--json"]) == 0


def test_the_cli_folds_with_the_library_default_policy() -> None:
    """A memory written without a policy is read back under the same (the key test)."""
    args = build_parser().parse_args(["inspect", "somewhere"])
    assert args.policy == LifecyclePolicy().name == TEPAMemory.in_memory().policy.name


def test_version_and_examples_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    from langchain_tepa import __version__

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"tepa {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "examples:" in out
    assert "tepa inspect ./memory --key user.home_city" in out


def test_every_example_of_the_help_parses() -> None:
    from langchain_tepa.cli import _EXAMPLES

    lines = [line.split("   ")[0].split() for line in _EXAMPLES.splitlines()[1:] if line.strip()]
    assert len(lines) >= 5
    for words in lines:
        assert words[0] == "tepa"
        args = build_parser().parse_args(words[1:])
        assert args.command == words[1]
