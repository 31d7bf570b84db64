"""The benchmarks use the library as a user would: its public names only (issue 31).

A name the benchmarks import from ``langchain_tepa`` must be public where it is imported from:
no underscore in the module path or the name, the name in that module's ``__all__`` (or a public
subpackage of it), and the module a package or one the API reference documents (``::: module``
in ``docs/api/``). When the benchmarks need more, that is a public API to add, not a private
import.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import tepa_bench as bench_package
from tests.conftest import ROOT

BENCH = Path(bench_package.__file__).parent
LIBRARY = "langchain_tepa"
OWN = bench_package.__name__  # the benchmarks' own modules import each other freely


def _documented_modules() -> set[str]:
    found: set[str] = set()
    for page in (ROOT / "docs" / "api").glob("*.md"):
        found.update(re.findall(r"^:::\s*([\w.]+)\s*$", page.read_text("utf-8"), re.M))
    return found


def _ours(module: str) -> bool:
    in_library = module == LIBRARY or module.startswith(LIBRARY + ".")
    return in_library and not (module == OWN or module.startswith(OWN + "."))


def _library_imports(path: Path) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of every ``from langchain_tepa... import name`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if _ours(node.module):
                found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _ours(alias.name) and alias.name != LIBRARY:
                    module, _, name = alias.name.rpartition(".")
                    found.append((node.lineno, module, name))
    return found


def _problem(module_name: str, name: str, documented: set[str]) -> str | None:
    if any(part.startswith("_") for part in module_name.split(".")) or name.startswith("_"):
        return "a private name"
    module = importlib.import_module(module_name)
    is_package = hasattr(module, "__path__")
    if not is_package and module_name not in documented:
        return f"{module_name} is neither a package nor documented in docs/api"
    if name in getattr(module, "__all__", ()):
        return None
    submodule = f"{module_name}.{name}"
    if is_package and importlib.util.find_spec(submodule) is not None:
        sub = importlib.import_module(submodule)  # ``from langchain_tepa import graph``
        if hasattr(sub, "__path__") or submodule in documented:
            return None
        return f"{submodule} is neither a package nor documented in docs/api"
    return f"{name} is not in {module_name}.__all__"


def test_the_benchmarks_import_only_public_library_names() -> None:
    documented = _documented_modules()
    assert documented, "no ::: lines found in docs/api"
    problems = []
    for path in sorted(BENCH.rglob("*.py")):
        for line, module, name in _library_imports(path):
            why = _problem(module, name, documented)
            if why is not None:
                problems.append(f"{path.relative_to(BENCH)}:{line} {module}.{name}: {why}")
    assert not problems, "the benchmarks import non-public library names: " + "; ".join(problems)


def test_the_check_catches_a_private_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from langchain_tepa.core.fold import fold\n"
        "from langchain_tepa.memory import _helpers\n"
        "from langchain_tepa.core import fold as ok\n",
        encoding="utf-8",
    )
    documented = _documented_modules()
    verdicts = [_problem(m, n, documented) for _, m, n in _library_imports(bad)]
    assert verdicts[0] is not None and "documented" in verdicts[0]
    assert verdicts[1] == "a private name"
    assert verdicts[2] is None


def test_the_benchmarks_reach_into_no_memory_internals() -> None:
    """No ``memory._anything`` or ``memory.storage`` (or a store's): the adapters' rule too."""
    found = []
    for path in sorted(BENCH.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute):
                continue
            owner = node.value
            name = (
                owner.id
                if isinstance(owner, ast.Name)
                else owner.attr
                if isinstance(owner, ast.Attribute)
                else ""
            )
            if name.lstrip("_").endswith(("memory", "store")) and (
                (node.attr.startswith("_") and not node.attr.startswith("__"))
                or node.attr == "storage"
            ):
                found.append(f"{path.relative_to(BENCH)}:{node.lineno} {name}.{node.attr}")
    assert not found, f"the benchmarks reach into the library: {found}"
