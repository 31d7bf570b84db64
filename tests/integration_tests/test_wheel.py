"""The wheel is the library only, and the README quickstart runs from it (issues 30 and 31).

``python -m build --wheel`` builds the wheel of the repository (as ``make dist`` does); its file
list holds ``langchain_tepa`` with ``py.typed`` and nothing of the tests or the benchmarks (the
separate ``tepa-bench`` project in ``bench/``). It is then installed with ``--no-deps`` into a
fresh virtual environment that sees the development venv's packages as its dependencies (a
``.pth`` line naming its site-packages; the editable installs there are ``.pth`` files of their
own, which a path line does not run, so neither the source tree nor ``tepa_bench`` is visible),
and the README's opening example (its python blocks before the first section) runs there from a temporary working directory, offline. They
must import ``langchain_tepa`` from the fresh venv.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

TIMEOUT = 180


def _run(args: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert done.returncode == 0, (
        f"{args[:4]} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the repository, built as ``make dist`` builds it."""
    out = tmp_path_factory.mktemp("dist")
    args = [sys.executable, "-m", "build", "--wheel", "--outdir", str(out)]
    if importlib.util.find_spec("hatchling") is not None:
        args.append("--no-isolation")  # the backend is here: no build environment to set up
    _run([*args, str(ROOT)], cwd=out)
    (found,) = out.glob("langchain_tepa-*.whl")
    return found


def test_the_wheel_holds_the_library_only(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"langchain_tepa", wheel.name.split("-py3")[0] + ".dist-info"}, tops
    assert "langchain_tepa/py.typed" in names
    assert "langchain_tepa/__init__.py" in names
    for forbidden in ("tepa_bench", "bench", "tests", "conftest", "__pycache__"):
        parts = [n for n in names if forbidden in n.split("/")[:-1] or n.startswith(forbidden)]
        assert not parts, f"{forbidden} in the wheel: {parts[:5]}"
    assert not [n for n in names if re.search(r"(^|/)test_\w+\.py$", n)]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "tepa = langchain_tepa.cli:main" in scripts
    assert "tepa-bench" not in scripts


def _quickstart() -> list[str]:
    """The ```python blocks of the README before its first section: the opening example."""
    text = (ROOT / "README.md").read_text("utf-8")
    opening = re.split(r"^## ", text, maxsplit=1, flags=re.M)[0]
    blocks = re.findall(r"^```python\n(.*?)^```", opening, re.M | re.S)
    assert blocks, "the README opens with no python example"
    return blocks


def test_the_readme_quickstart_runs_from_the_wheel_in_a_fresh_venv(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    python = venv / "bin" / "python"
    fresh_site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            cwd=tmp_path,
        ).strip()
    )
    # the dependencies: this interpreter's site-packages folders, as plain paths (no .pth runs)
    dev_sites = [p for p in dict.fromkeys(sys.path) if Path(p).name == "site-packages"]
    (fresh_site / "zz_dependencies.pth").write_text("\n".join(dev_sites) + "\n", "utf-8")
    _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "--ignore-installed", "--quiet", str(wheel)],
        cwd=tmp_path,
    )  # fmt: skip

    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTHON"))}
    env.update({"ANONYMIZED_TELEMETRY": "False", "TEPA_EMBEDDINGS": "hashing"})
    # after each block: where langchain_tepa came from, and whether tepa_bench is importable
    probe = (
        "\nimport importlib.util, json, langchain_tepa\n"
        "print('PROBE', json.dumps({'file': langchain_tepa.__file__,"
        " 'bench': importlib.util.find_spec('tepa_bench') is not None}))\n"
    )
    for i, code in enumerate(_quickstart()):
        script = work / f"quickstart_{i}.py"
        script.write_text(code + probe, "utf-8")
        out = _run([str(python), script.name], cwd=work, env=env)
        line = next(x for x in out.splitlines() if x.startswith("PROBE "))
        where = json.loads(line[len("PROBE ") :])
        assert Path(where["file"]).is_relative_to(venv), where["file"]
        assert not where["bench"], "tepa_bench is importable beside the wheel"
