"""Executable file-backed drift: real exports in a temporary folder, checked by reading them back.

Each task exports one dataset for a downstream consumer. The action is the export convention
(``csv``, ``json`` or ``tsv``): the exporter really writes ``outbox/<dataset>/<dataset>.<ext>``
in that format. The consumer of each dataset then looks for the file under its own convention,
reads it back with its parser and compares the rows with the rows that were exported. The
outcome is what the file system holds: no simulated success. At the reversal every consumer is
upgraded to another convention (drawn per seed), so the export that used to work stops working.

Example:
    >>> config = FileDriftConfig(tasks=1, acquisition=2, reversal=3)
    >>> world = FileDriftWorld(config, seed=0)
    >>> right = filedrift_schedule(config, seed=0).right_action(0, 0)   # the scorer's view
    >>> [world.execute(0, right) for _ in range(5)]     # the consumer is upgraded at step 2
    [True, True, False, False, False]
    >>> world.close()
"""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.world import Schedule, Task, TaskClocks

__all__ = [
    "DATASETS",
    "FORMATS",
    "FileDriftConfig",
    "FileDriftWorld",
    "check_export",
    "filedrift_schedule",
    "write_export",
]

FORMATS: tuple[str, ...] = ("csv", "json", "tsv")
"""Export conventions (the actions)."""

DATASETS: tuple[str, ...] = (
    "sales",
    "inventory",
    "customers",
    "invoices",
    "shipments",
    "tickets",
    "payroll",
    "events",
)
_FIELDS = ("id", "name", "amount")
Row = dict[str, str]


def write_export(folder: Path, dataset: str, rows: list[Row], fmt: str) -> Path:
    """Export ``rows`` of ``dataset`` under ``folder`` in convention ``fmt``.

    The dataset's outbox is emptied first, so only this export is there afterwards.

    Args:
        folder: The root of the exports.
        dataset: Dataset name.
        rows: Rows with the fields ``id``, ``name``, ``amount``.
        fmt: ``csv``, ``json`` or ``tsv``.

    Returns:
        The path written.

    Raises:
        InvalidArgumentError: On an unknown format.
    """
    if fmt not in FORMATS:
        raise InvalidArgumentError(f"unknown export format {fmt!r}; use one of {FORMATS}")
    outbox = folder / "outbox" / dataset
    if outbox.is_dir():
        for old in outbox.iterdir():
            if old.is_dir():
                shutil.rmtree(old)
            else:
                old.unlink()
    else:
        outbox.mkdir(parents=True)
    path = outbox / f"{dataset}.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps({"dataset": dataset, "rows": rows}), encoding="utf-8")
    else:
        buf = io.StringIO()
        writer = csv.DictWriter(
            buf, fieldnames=_FIELDS, delimiter="," if fmt == "csv" else "\t", lineterminator="\n"
        )
        writer.writeheader()
        writer.writerows(rows)
        path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def check_export(folder: Path, dataset: str, expected: list[Row], fmt: str) -> bool:
    """The consumer's check: is there an export of ``dataset`` in ``fmt`` with exactly ``expected``?

    The consumer opens ``outbox/<dataset>/<dataset>.<fmt>`` and parses it with the parser of its
    convention (a JSON document with a ``rows`` list, or a header plus comma- or tab-separated
    rows). A missing file, a parse error, other fields or other rows all fail.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> rows = [{"id": "1", "name": "a", "amount": "2.50"}]
        >>> _ = write_export(root, "sales", rows, "tsv")
        >>> check_export(root, "sales", rows, "tsv"), check_export(root, "sales", rows, "csv")
        (True, False)
    """
    if fmt not in FORMATS:
        raise InvalidArgumentError(f"unknown export format {fmt!r}; use one of {FORMATS}")
    path = folder / "outbox" / dataset / f"{dataset}.{fmt}"
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError, IsADirectoryError):
        return False
    try:
        if fmt == "json":
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("dataset") != dataset:
                return False
            got = data.get("rows")
        else:
            reader = csv.DictReader(io.StringIO(text), delimiter="," if fmt == "csv" else "\t")
            if tuple(reader.fieldnames or ()) != _FIELDS:
                return False
            got = [dict(r) for r in reader]
    except (json.JSONDecodeError, csv.Error):
        return False
    return got == expected


@dataclass(frozen=True)
class FileDriftConfig:
    """Size of the file-backed drift scenario.

    Attributes:
        tasks: Number of datasets (one consumer, one memory key each).
        acquisition: Episodes per dataset before the consumers are upgraded.
        reversal: Episodes per dataset after it.
        rows: Rows per export.

    Example:
        >>> FileDriftConfig().episodes_per_seed
        1200
    """

    tasks: int = 6
    acquisition: int = 50
    reversal: int = 150
    rows: int = 3

    def __post_init__(self) -> None:
        if not 1 <= self.tasks <= len(DATASETS):
            raise InvalidArgumentError(f"tasks must be within 1..{len(DATASETS)}")
        if self.acquisition < 1 or self.reversal < 3:
            raise InvalidArgumentError("acquisition must be >= 1 and reversal >= 3 episodes")
        if self.rows < 1:
            raise InvalidArgumentError("rows must be >= 1")

    @property
    def horizon(self) -> int:
        """Interactions per dataset."""
        return self.acquisition + self.reversal

    @property
    def episodes_per_seed(self) -> int:
        """Interactions of one run (all datasets, both phases)."""
        return self.tasks * self.horizon

    def to_dict(self) -> dict[str, Any]:
        """The config as a dict."""
        return asdict(self)


def filedrift_schedule(config: FileDriftConfig, seed: int) -> Schedule:
    """The hidden state of one seed: each consumer's convention before and after its upgrade.

    The scorer's view (the world builds the same from the seed; agents never see it).
    """
    rng = random.Random(f"file-drift-world-{seed}")
    right = []
    for _ in range(config.tasks):
        first = rng.choice(FORMATS)
        second = rng.choice([f for f in FORMATS if f != first])
        right.append(((0, first), (config.acquisition, second)))
    return Schedule(config.acquisition + config.reversal, tuple(right))


class FileDriftWorld:
    """The file-backed world of one seed: a temporary folder, exporters and consumers.

    Args:
        config: Scenario size.
        seed: Picks each consumer's conventions and the exported rows.
        root: Parent folder of the temporary folder (default: the system's temp dir).

    Example:
        >>> world = FileDriftWorld(FileDriftConfig(tasks=2), seed=1)
        >>> world.tasks[0].key
        'export.sales.format'
        >>> world.close()
    """

    def __init__(self, config: FileDriftConfig, seed: int, root: str | None = None) -> None:
        self.config = config
        self.horizon = config.acquisition + config.reversal
        self._rng = random.Random(f"file-drift-rows-{seed}")
        self.folder = Path(tempfile.mkdtemp(prefix="tepa-filedrift-", dir=root))
        self.tasks: list[Task] = []
        for i in range(config.tasks):
            dataset = DATASETS[i]
            self.tasks.append(
                Task(
                    key=f"export.{dataset}.format",
                    text=(
                        f"Export the {dataset} dataset so that its downstream consumer can "
                        "read it: which export format?"
                    ),
                    actions=FORMATS,
                )
            )
        self.__schedule = filedrift_schedule(config, seed)
        self._clocks = TaskClocks(config.tasks, self.horizon, config.acquisition)
        self.files_written = 0

    def _rows(self) -> list[Row]:
        return [
            {
                "id": str(self._rng.randrange(10_000)),
                "name": self._rng.choice(["ada", "bo", "cy", "di", "ed"]),
                "amount": f"{self._rng.uniform(0, 1000):.2f}",
            }
            for _ in range(self.config.rows)
        ]

    def clock(self, task_index: int) -> int:
        """Interactions task ``task_index`` has had."""
        return self._clocks.now(task_index)

    def correct_action(self, task_index: int, phase: str) -> str:
        """The convention the consumer accepts in a phase (for the scorer and notebooks)."""
        t = 0 if phase == "acquisition" else self.config.acquisition
        return self.__schedule.right_action(task_index, t)

    def execute(
        self,
        task_index: int,
        action: str,
        phase: str | None = None,
        episode: int | None = None,
        *,
        trial: bool = False,
    ) -> bool:
        """Export with convention ``action``, then let the consumer read the outbox back.

        A trial exports into a separate sandbox folder, checked the same way; it is an
        interaction like any other (it advances the clock). ``phase``/``episode`` (the old
        signature) are checked against the clock.

        Raises:
            HorizonReachedError: When the task's budget is used up.
        """
        t = self._clocks.tick(task_index, phase, episode)
        dataset = DATASETS[task_index]
        rows = self._rows()
        folder = self.folder / "trials" if trial else self.folder
        write_export(folder, dataset, rows, action)
        self.files_written += 1
        return check_export(folder, dataset, rows, self.__consumer(task_index, t))

    def __consumer(self, task_index: int, t: int) -> str:
        return self.__schedule.right_action(task_index, t)

    def close(self) -> None:
        """Remove the temporary folder."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def describe(self) -> dict[str, Any]:
        """The scenario settings."""
        return {"world": "file-backed", "actions": len(FORMATS), **self.config.to_dict()}
