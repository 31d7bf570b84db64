"""The executable file-backed drift: real exports, a checker that reads them back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.filedrift import (
    FORMATS,
    FileDriftConfig,
    FileDriftWorld,
    check_export,
    filedrift_schedule,
    write_export,
)

ROWS = [
    {"id": "7", "name": "ada", "amount": "12.50"},
    {"id": "8", "name": "bo", "amount": "0.99"},
]


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_export_is_accepted_only_by_its_own_convention(tmp_path: Path, fmt: str) -> None:
    path = write_export(tmp_path, "sales", ROWS, fmt)
    assert path.exists()
    assert path.name == f"sales.{fmt}"
    for other in FORMATS:
        assert check_export(tmp_path, "sales", ROWS, other) is (other == fmt)


def test_the_checker_reads_the_content(tmp_path: Path) -> None:
    write_export(tmp_path, "sales", ROWS, "csv")
    assert not check_export(tmp_path, "sales", [*ROWS, ROWS[0]], "csv")  # other rows
    assert not check_export(tmp_path, "inventory", ROWS, "csv")  # other dataset
    # Tab-separated text under the csv name does not parse as csv rows.
    (tmp_path / "outbox" / "sales" / "sales.csv").write_text(
        "id\tname\tamount\n7\tada\t12.50\n8\tbo\t0.99\n", encoding="utf-8"
    )
    assert not check_export(tmp_path, "sales", ROWS, "csv")
    (tmp_path / "outbox" / "sales" / "sales.json").write_text("{not json", encoding="utf-8")
    assert not check_export(tmp_path, "sales", ROWS, "json")
    (tmp_path / "outbox" / "sales" / "sales.json").write_text(
        json.dumps({"dataset": "sales", "rows": ROWS}), encoding="utf-8"
    )
    assert check_export(tmp_path, "sales", ROWS, "json")


def test_a_new_export_replaces_the_previous_one(tmp_path: Path) -> None:
    write_export(tmp_path, "sales", ROWS, "json")
    write_export(tmp_path, "sales", ROWS, "tsv")
    assert sorted(p.name for p in (tmp_path / "outbox" / "sales").iterdir()) == ["sales.tsv"]
    assert not check_export(tmp_path, "sales", ROWS, "json")


def test_unknown_format_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError):
        write_export(tmp_path, "sales", ROWS, "xml")
    with pytest.raises(InvalidArgumentError):
        check_export(tmp_path, "sales", ROWS, "xml")


def test_world_outcomes_come_from_the_file_system() -> None:
    config = FileDriftConfig(tasks=3, acquisition=3, reversal=3)
    world = FileDriftWorld(config, seed=4)
    schedule = filedrift_schedule(config, seed=4)  # the scorer's copy of the hidden state
    try:
        for i, task in enumerate(world.tasks):
            first = schedule.right_action(i, 0)
            second = schedule.right_action(i, 3)
            assert first != second
            assert world.correct_action(i, "acquisition") == first
            assert task.actions == FORMATS
            for action in FORMATS:  # steps 0, 1, 2: before the upgrade
                assert world.execute(i, action) is (action == first)
            for action in FORMATS:  # steps 3, 4, 5: a trial is an interaction like any other
                assert world.execute(i, action, trial=action == "tsv") is (action == second)
            assert world.clock(i) == 6
            with pytest.raises(InvalidArgumentError):
                world.execute(i, first)  # the budget is used up
            outbox = world.folder / "outbox" / task.key.split(".")[1]
            assert [p.suffix for p in outbox.iterdir()] == [".json"]  # the last non-trial one
        assert world.files_written == 3 * 6
        folder = world.folder
    finally:
        world.close()
    assert not folder.exists()


def test_old_execute_arguments_are_checked_against_the_clock() -> None:
    world = FileDriftWorld(FileDriftConfig(tasks=1, acquisition=2, reversal=3), seed=0)
    try:
        world.execute(0, "csv", "acquisition", 0)
        world.execute(0, "csv", "acquisition", 1)
        world.execute(0, "csv", "reversal", 0)
        with pytest.raises(InvalidArgumentError, match="own clock"):
            world.execute(0, "csv", "acquisition", 0)
    finally:
        world.close()


def test_worlds_depend_on_the_seed_only() -> None:
    a = FileDriftWorld(FileDriftConfig(tasks=4), seed=9)
    b = FileDriftWorld(FileDriftConfig(tasks=4), seed=9)
    try:
        for i in range(4):
            for phase in ("acquisition", "reversal"):
                assert a.correct_action(i, phase) == b.correct_action(i, phase)
    finally:
        a.close()
        b.close()
