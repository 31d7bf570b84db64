"""The notebooks in notebooks/ re-execute from a clean kernel and print what they committed.

Each notebook runs with nbclient on the ``python3`` kernel, which must resolve to this virtual
environment's interpreter (ipykernel installs its kernelspec into ``.venv/share/jupyter``; the
kernelspec's ``python`` is replaced by the running interpreter by jupyter_client). The committed
files must also carry their outputs, so readers browsing the repository see results and plots.

The text outputs of every code cell of the fresh run are compared with the committed ones, so a
change in behaviour that alters what a notebook prints fails the test. Before the comparison
both sides go through :func:`normalise`, which replaces the values that differ from run to run
(:data:`NORMALISERS`: colour codes, evidence and writer ids, wall-clock timestamps and Unix
times, durations, memory addresses, temporary and repository paths) and, in HTML tables, the
cells of timing columns (:data:`RUN_DEPENDENT_COLUMNS`). Consecutive stream chunks are joined
(how stdout is cut into messages varies). Images are not compared: their bytes change with the
matplotlib and font versions; the numbers they plot are printed or tabulated beside them. When a
change is intended, refresh the committed outputs with
``.venv/bin/python notebooks/build_notebooks.py NN``.
"""

from __future__ import annotations

import copy
import difflib
import html
import os
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tests.conftest import ROOT

NOTEBOOKS_DIR = ROOT / "notebooks"
EXPECTED = (
    "01_quickstart.ipynb",
    "02_memory_pollution.ipynb",
    "03_tepa_full_langgraph.ipynb",
    "04_factcon.ipynb",
)
WITH_PLOT = ("02_memory_pollution.ipynb",)
CELL_TIMEOUT = 180

# Run-dependent values, each replaced by a placeholder, in this order. Every pattern is anchored
# on the shape of one kind of value, so nothing else in an output is touched.
NORMALISERS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    # terminal colours of rich and of tracebacks: \x1b[1;36m ... \x1b[0m
    ("ANSI colour codes", re.compile(r"\x1b\[[0-9;]*[A-Za-z]"), ""),
    # evidence ids are writer id . process token . sequence: w236390a24d.beab9a82feb9fc05.0000000003
    ("evidence ids", re.compile(r"\bw[0-9a-f]{7,14}\.[0-9a-f]{16}\.\d{10}\b"), "<evidence-id>"),
    # a writer id alone: w236390a24d ("w", the pid in hex (no fixed width), 6 random hex digits)
    ("writer ids", re.compile(r"\bw[0-9a-f]{7,14}\b"), "<writer>"),
    # wall-clock times: 2026-11-29 21:04:32, 2026-11-29T22:28:26.046753Z
    (
        "timestamps",
        re.compile(r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?"),
        "<timestamp>",
    ),
    # Unix times in seconds (2001-09-09 to 2286): created_at=1796056084.4619951
    ("Unix times", re.compile(r"\b1\d{9}\.\d+\b"), "<unix-time>"),
    # durations with a unit: 0.26 s, 12 ms, 3.5e-05 s, 1.2 min
    (
        "durations",
        re.compile(r"\b\d+(?:\.\d+)?(?:e-?\d+)?\s?(?:s|ms|us|µs|ns|sec|seconds|min)\b"),
        "<duration>",
    ),
    # durations in a repr: seconds=0.013850552999429055
    ("seconds fields", re.compile(r"\bseconds=\d+(?:\.\d+)?(?:e-?\d+)?"), "seconds=<duration>"),
    # object addresses: <object at 0x7f3a2c1b5e50>
    ("memory addresses", re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x<address>"),
    # temporary folders (tempfile.mkdtemp): /tmp/tepa-quickstart-02v7rqvx/...
    (
        "temporary paths",
        re.compile(r"(?:/private)?(?:/tmp|/var/folders|/var/tmp)/[^\s'\"<>():,\]]*"),
        "<tmp-path>",
    ),
)
RUN_DEPENDENT_COLUMNS = frozenset(
    {"facts/s", "seconds", "ingest_s", "answer_s", "ms", "time_s", "duration"}
)
"""HTML table columns (``<th>`` text) whose cells are timings: their values are replaced."""
_TABLE = re.compile(r"<table>.*?</table>", re.S)
_HEAD = re.compile(r"<th>(.*?)</th>", re.S)
_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
_CELL = re.compile(r"<td>(.*?)</td>", re.S)
_TAG = re.compile(r"<[^>]+>")


def _normalise_table(match: re.Match[str]) -> str:
    table = match.group(0)
    heads = [html.unescape(h).strip() for h in _HEAD.findall(table)]
    timed = {i for i, h in enumerate(heads) if h in RUN_DEPENDENT_COLUMNS}
    rows = []
    for row in _ROW.findall(table):
        cells = _CELL.findall(row)
        if cells:
            rows.append(" | ".join("(timing)" if i in timed else c for i, c in enumerate(cells)))
    return "table: " + " | ".join(heads) + "\n" + "\n".join(rows)


def normalise(text: str, *, repo: Path = ROOT) -> str:
    """``text`` with its run-dependent values replaced (see :data:`NORMALISERS`)."""
    text = text.replace(str(repo.resolve()), "<repo>").replace(str(repo), "<repo>")
    text = _TABLE.sub(_normalise_table, text)
    for _, pattern, placeholder in NORMALISERS:
        text = pattern.sub(placeholder, text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def cell_outputs(cell: Any) -> list[str]:
    """The comparable text outputs of a code cell, normalised, in order.

    Consecutive stream chunks of one stream are joined before normalising (where a stream is
    cut into messages varies from run to run); a display or result contributes its
    ``text/plain``, or its HTML (tables kept as cells, other tags dropped) when the plain text is
    only IPython's placeholder; images contribute nothing; errors their name and value.
    """
    raw: list[tuple[str, str]] = []  # (kind, text) with streams merged
    for o in cell.get("outputs", []):
        kind = o.get("output_type")
        if kind == "stream":
            name = f"stream {o.get('name')}"
            if raw and raw[-1][0] == name:
                raw[-1] = (name, raw[-1][1] + o.get("text", ""))
            else:
                raw.append((name, o.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            data = o.get("data", {})
            plain = data.get("text/plain", "")
            if "text/html" in data and plain.startswith("<IPython.core.display.HTML"):
                body = _TABLE.sub(_normalise_table, data["text/html"])
                raw.append(("html", html.unescape(_TAG.sub("", body))))
            elif plain:
                raw.append((kind, plain))
        elif kind == "error":
            raw.append(("error", f"{o.get('ename')}: {o.get('evalue', '')}"))
    return [f"{kind}: {normalise(text)}" for kind, text in raw]


def compare_outputs(name: str, committed: Any, fresh: Any) -> list[str]:
    """One message per code cell whose normalised text outputs differ."""
    problems = []
    old_cells = [c for c in committed.cells if c.cell_type == "code"]
    new_cells = [c for c in fresh.cells if c.cell_type == "code"]
    assert len(old_cells) == len(new_cells), f"{name}: the number of code cells changed"
    for i, (old, new) in enumerate(zip(old_cells, new_cells, strict=True)):
        a, b = cell_outputs(old), cell_outputs(new)
        if a != b:
            diff = "\n".join(
                difflib.unified_diff(
                    "\n".join(a).splitlines(),
                    "\n".join(b).splitlines(),
                    "committed",
                    "this run",
                    lineterm="",
                    n=1,
                )
            )
            problems.append(f"{name}, code cell {i}:\n{diff[:3000]}")
    return problems


def _execute(nb: nbformat.NotebookNode, cwd: Path) -> nbformat.NotebookNode:
    # no OpenAI, and no terminal size: rich then draws tables at the width they were committed at
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("OPENAI_") and k not in ("COLUMNS", "LINES")
    }
    env.update({"TEPA_EMBEDDINGS": "hashing", "ANONYMIZED_TELEMETRY": "False"})
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
    )
    client.execute(env=env)
    return nb


def test_every_expected_notebook_exists() -> None:
    found = sorted(p.name for p in NOTEBOOKS_DIR.glob("*.ipynb"))
    assert set(EXPECTED) <= set(found), f"missing notebooks: {set(EXPECTED) - set(found)}"


def test_kernel_is_this_virtualenv(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import sys, langchain_tepa\nprint(sys.prefix)"),
    ]
    _execute(nb, tmp_path)
    printed = "".join(o.get("text", "") for o in nb.cells[0].outputs).strip()
    assert Path(printed).resolve() == Path(sys.prefix).resolve()


@pytest.mark.parametrize("name", EXPECTED)
def test_committed_notebook_has_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS_DIR / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, f"{name} has no code cells"
    missing = [i for i, c in enumerate(code) if c.get("execution_count") is None]
    assert not missing, f"{name}: code cells {missing} were never executed; commit it executed"
    errors = [o for c in code for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, f"{name} was committed with an error output"
    if name in WITH_PLOT:
        images = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
        assert images, f"{name} should show its plot (an image/png output)"


def test_normalise_replaces_only_run_dependent_values() -> None:
    text = (
        "\x1b[1;35m/tmp/\x1b[0m\x1b[1;95mtepa-quickstart-02v7rqvx\x1b[0m: 12 evidence records\n"
        "      t=1  promoted: validity 0.67 > 0.60  [w236390a24d.beab9a82feb9fc05.0000000001]\n"
        "2026-11-29 21:04:32 new -> hypothesis, writer w2397dd08a5, created_at=1796056084.46\n"
        "ingested 455 facts in 0.26 s; ReconcileReport(keys=3, seconds=0.013850552999429055)\n"
        "<object at 0x7f3a2c1b5e50> 5 seeds, trials 3/3, 'tepa-rev' 0.810 [0.762, 0.850]"
    )
    assert normalise(text).splitlines() == [
        "<tmp-path>: 12 evidence records",
        "      t=1  promoted: validity 0.67 > 0.60  [<evidence-id>]",
        "<timestamp> new -> hypothesis, writer <writer>, created_at=<unix-time>",
        "ingested 455 facts in <duration>; ReconcileReport(keys=3, seconds=<duration>)",
        "<object at 0x<address>> 5 seeds, trials 3/3, 'tepa-rev' 0.810 [0.762, 0.850]",
    ]
    assert normalise(f"{ROOT}/notebooks") == "<repo>/notebooks"


def test_timing_columns_of_html_tables_are_ignored_and_the_rest_compared() -> None:
    table = (
        "<table><thead><tr><th>method</th><th>SH-6k</th><th>facts/s</th></tr></thead>"
        "<tbody><tr><td>lww</td><td>1.0</td><td>{}</td></tr></tbody></table>"
    )
    cell = nbformat.v4.new_code_cell("show_table(rows)")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={
                "text/html": table.format("2950.6"),
                "text/plain": "<IPython.core.display.HTML object>",
            },
        )
    ]
    other = copy.deepcopy(cell)
    other.outputs[0]["data"]["text/html"] = table.format("3047.1")
    assert cell_outputs(cell) == cell_outputs(other)
    assert cell_outputs(cell) == ["html: table: method | SH-6k | facts/s\nlww | 1.0 | (timing)"]
    other.outputs[0]["data"]["text/html"] = table.format("3047.1").replace("1.0", "0.9")
    assert cell_outputs(cell) != cell_outputs(other)


def test_a_changed_printed_result_is_reported() -> None:
    nb = nbformat.read(NOTEBOOKS_DIR / "01_quickstart.ipynb", as_version=4)
    changed = copy.deepcopy(nb)
    stream = next(
        o
        for c in changed.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.get("output_type") == "stream" and "validity" in o.get("text", "")
    )
    assert compare_outputs("01", nb, copy.deepcopy(nb)) == []
    stream["text"] = stream["text"].replace("validity 0.", "validity 1.", 1)
    problems = compare_outputs("01", nb, changed)
    assert len(problems) == 1 and "validity 1." in problems[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_executes_cleanly_and_prints_what_was_committed(name: str) -> None:
    path = NOTEBOOKS_DIR / name
    committed = nbformat.read(path, as_version=4)
    nb = copy.deepcopy(committed)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    try:
        _execute(nb, NOTEBOOKS_DIR)
    except CellExecutionError as exc:
        pytest.fail(f"{name} failed from a clean kernel:\n{str(exc)[-4000:]}")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code)
    problems = compare_outputs(name, committed, nb)
    assert not problems, (
        f"{name} printed something else than its committed outputs (after normalising "
        "run-dependent values). If the change is intended, refresh them with "
        f"`.venv/bin/python notebooks/build_notebooks.py {name[:2]}`.\n\n" + "\n\n".join(problems)
    )


def test_stream_chunks_are_joined_before_normalising() -> None:
    one = nbformat.v4.new_code_cell("print(...)")
    one.outputs = [nbformat.v4.new_output("stream", name="stdout", text="a\n  b\n  c\n")]
    split = copy.deepcopy(one)
    split.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="a\n  b\n"),
        nbformat.v4.new_output("stream", name="stdout", text="  c\n"),
    ]
    assert cell_outputs(one) == cell_outputs(split) == ["stream stdout: a\n  b\n  c"]
