"""The notebooks in notebooks/ re-execute from a clean kernel without an error.

Each notebook runs with nbclient on the ``python3`` kernel, which must resolve to this virtual
environment's interpreter (ipykernel installs its kernelspec into ``.venv/share/jupyter``; the
kernelspec's ``python`` is replaced by the running interpreter by jupyter_client). The committed
files must also carry their outputs, so readers browsing the repository see results and plots.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

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


def _execute(nb: nbformat.NotebookNode, cwd: Path) -> nbformat.NotebookNode:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
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


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_executes_cleanly(name: str) -> None:
    path = NOTEBOOKS_DIR / name
    nb = nbformat.read(path, as_version=4)
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
