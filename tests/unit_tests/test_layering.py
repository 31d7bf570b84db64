"""The folder layout is the architecture: a layer never imports the one above it, and no
module of the package imports itself back through others.

core <- state <- storage <- memory <- adapters (retriever, store, tools, classic, vector store,
graph) <- cli. Imports inside functions count too. Adapters use the memory's public API
only: no ``memory._anything`` and no ``memory.storage``. The benchmarks are not part of the
package: they are the ``tepa-bench`` project beside it (``bench/``, issue 31), which imports the
library like a user; the library never imports them.

**No import circles.** Between modules of ``langchain_tepa`` every import
counts, wherever it is written: at the top of a module, under ``if TYPE_CHECKING:`` (naming
another module's types is depending on it: the two could not be read or split apart) and inside
functions (a deferred import is the usual way a circle is hidden, not a way out of one).
``from package import name`` is an edge to ``package.name`` when that is a module, to
``package`` otherwise; the package ``__init__`` a submodule import runs on the way is not an edge
(every submodule would otherwise be in a circle with a package that re-exports it).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

import langchain_tepa

ROOT = Path(langchain_tepa.__file__).parent
OURS = "langchain_tepa"

# Which of our modules each layer may import (by dotted prefix).
ALLOWED: dict[str, tuple[str, ...]] = {
    "core": ("core",),
    "state": ("core", "state", "_gc"),
    "storage": ("core", "storage", "_gc"),
    "memory": (
        "core",
        "state",
        "storage",
        "memory",
        "embeddings",
        "extraction",
        "results",
        "validation",
        "_gc",
        "_plan",  # the sync/async plan drivers: pure, they import nothing of ours
    ),
}
# Third-party packages a layer must not import.
FORBIDDEN_THIRD_PARTY: dict[str, tuple[str, ...]] = {
    "core": ("langchain_core", "langgraph", "chromadb", "numpy"),
    "state": ("langchain_core", "langgraph", "chromadb"),
    "storage": ("langchain_core", "langgraph"),
    "memory": ("langgraph", "chromadb"),
}
ADAPTERS = ("retriever", "store", "tools", "_tool_namespaces", "classic", "vectorstore", "graph")


def _modules(layer: str) -> list[Path]:
    path = ROOT / layer
    if path.is_dir():
        return sorted(path.rglob("*.py"))
    return [path.with_suffix(".py")]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    for path in _modules(layer):
        for name in _imports(path):
            if name == OURS or name.startswith(OURS + "."):
                sub = name[len(OURS) + 1 :].split(".")[0]
                assert sub in ALLOWED[layer], (
                    f"{path.relative_to(ROOT)} ({layer}) imports {name}: a layer above it"
                )
            top = name.split(".")[0]
            assert top not in FORBIDDEN_THIRD_PARTY[layer], (
                f"{path.relative_to(ROOT)} ({layer}) imports {name}"
            )


def _memory_internals(path: Path, root: Path = ROOT) -> list[str]:
    """``x._name`` or ``x.storage`` where ``x`` is a memory (a name or attribute ``*memory``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        owner_name = (
            owner.id
            if isinstance(owner, ast.Name)
            else owner.attr
            if isinstance(owner, ast.Attribute)
            else ""
        )
        if owner_name.lstrip("_").endswith("memory") and (
            node.attr.startswith("_") or node.attr == "storage"
        ):
            found.append(f"{path.relative_to(root)}:{node.lineno} {owner_name}.{node.attr}")
    return found


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_adapters_use_the_public_memory_api(adapter: str) -> None:
    found = [hit for path in _modules(adapter) for hit in _memory_internals(path)]
    assert not found, f"adapters reach into the memory: {found}"


def test_the_memory_imports_no_adapter() -> None:
    """``TEPAMemory.as_retriever()`` and its siblings find adapters through a registry."""
    for path in _modules("memory"):
        for name in _imports(path):
            sub = name[len(OURS) + 1 :].split(".")[0] if name.startswith(OURS + ".") else ""
            assert sub not in ADAPTERS, f"{path.relative_to(ROOT)} imports {name}"


def test_these_checks_catch_what_they_forbid(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(memory, store):\n"
        "    from langchain_tepa.retriever import TEPARetriever\n"
        "    return memory._engine, store.memory.storage, TEPARetriever\n",
        encoding="utf-8",
    )
    assert "langchain_tepa.retriever" in _imports(bad)
    hits = _memory_internals(bad, root=tmp_path)
    assert [h.split(" ")[1] for h in hits] == ["memory._engine", "memory.storage"]


# ---------------------------------------------------------------------- import circles
def _module_names(root: Path) -> dict[str, Path]:
    """Dotted name -> file of every module of the package at ``root`` (packages by name)."""
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(body: list[ast.stmt], *, deep: bool) -> Iterator[ast.stmt]:
    """The statements that run on import (``deep``: every statement, functions' too).

    Top level means the module body and the blocks of its ``if``/``try``/``with`` statements,
    ``if TYPE_CHECKING:`` included.
    """
    for node in body:
        if deep:
            yield from (n for n in ast.walk(node) if isinstance(n, ast.stmt))
            continue
        yield node
        if isinstance(node, ast.If):
            yield from _statements(node.body + node.orelse, deep=False)
        elif isinstance(node, ast.Try):
            handlers = [stmt for h in node.handlers for stmt in h.body]
            blocks = node.body + node.orelse + node.finalbody + handlers
            yield from _statements(blocks, deep=False)
        elif isinstance(node, ast.With):
            yield from _statements(node.body, deep=False)


def _edges(name: str, path: Path, modules: dict[str, Path], *, deep: bool) -> set[str]:
    """The package's modules that module ``name`` (at ``path``) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in _statements(tree.body, deep=deep):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
    return {m for m in found if m in modules and m != name}


def _import_graph(root: Path, *, shallow: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Module -> the modules it imports; modules under a ``shallow`` prefix: top level only."""
    modules = _module_names(root)
    return {
        name: _edges(name, path, modules, deep=not name.startswith(shallow))
        for name, path in modules.items()
    }


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of two or more modules (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = itertools.count()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = next(counter)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _cycle_path(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    """One import path around ``group`` (from its first module back to it), for the message."""
    members = set(group)
    start = group[0]
    paths = [[start]]
    while paths:
        path = paths.pop(0)
        for nxt in sorted(graph[path[-1]] & members):
            if nxt == start:
                return [*path, start]
            if nxt not in path:
                paths.append([*path, nxt])
    return group  # pragma: no cover - a strongly connected group always has a cycle


def test_the_library_holds_and_imports_no_benchmark() -> None:
    """The benchmarks live in ``bench/`` (the ``tepa-bench`` project), not in the package."""
    assert not (ROOT / "bench").exists(), "the benchmarks are back inside the package"
    for path in sorted(ROOT.rglob("*.py")):
        for name in _imports(path):
            top = name.split(".")[0]
            assert top != "tepa_bench", f"{path.relative_to(ROOT)} imports {name}"


def test_no_module_imports_itself_back() -> None:
    graph = _import_graph(ROOT)
    assert len(graph) > 100  # the whole package was read
    circles = [" -> ".join(_cycle_path(graph, group)) for group in _circles(graph)]
    assert not circles, "import circles (break them: see this module's docstring): " + "; ".join(
        circles
    )


def test_the_circle_check_catches_every_kind_of_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from pkg.a import A\n",
        "a.py": "from pkg.sub import b\nA = 1\n",
        "sub/__init__.py": "",
        "sub/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n",
        "c.py": "def f():\n    from .a import A\n    return A\n",
        "d.py": "def g():\n    import pkg.e\n",
        "e.py": "import pkg.d\n",
        "f.py": "import pkg.a\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    graph = _import_graph(pkg)
    assert _circles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"], ["pkg.d", "pkg.e"]]
    assert _cycle_path(graph, ["pkg.a", "pkg.c", "pkg.sub.b"]) == [
        "pkg.a",
        "pkg.sub.b",
        "pkg.c",
        "pkg.a",
    ]
    # Held to top-level imports, the function-level halves no longer close the circles.
    assert _circles(_import_graph(pkg, shallow=("pkg",))) == []
