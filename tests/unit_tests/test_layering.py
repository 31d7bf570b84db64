"""The folder layout is the architecture: a layer never imports the one above it.

core <- state <- storage <- memory <- adapters (retriever, store, tools, classic, vector store,
graph) <- bench, cli. Imports inside functions count too. Adapters use the memory's public API
only: no ``memory._anything`` and no ``memory.storage``.
"""

from __future__ import annotations

import ast
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
    ),
}
# Third-party packages a layer must not import.
FORBIDDEN_THIRD_PARTY: dict[str, tuple[str, ...]] = {
    "core": ("langchain_core", "langgraph", "chromadb", "numpy"),
    "state": ("langchain_core", "langgraph", "chromadb"),
    "storage": ("langchain_core", "langgraph"),
    "memory": ("langgraph", "chromadb"),
}
ADAPTERS = ("retriever", "store", "tools", "classic", "vectorstore", "graph")


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
