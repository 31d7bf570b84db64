"""The python blocks of docs/vectorstore.md, deployment.md, api/storage.md, guide/free-text.md,
index.md and guide/tools.md print what they say.

Each block runs in a fresh interpreter in a temporary folder, offline; the ``# ...`` lines after
a ``print(...)`` are its expected output. Blocks marked ``<!-- needs: langgraph-server -->`` run
against a real server in ``test_langgraph_server.py``; here they are only counted. The
deployment page's ``langgraph.json`` is the example's file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.integration_tests.test_readme import Block, extract_blocks
from tests.support.docs import check_block, expected_output

DOCS = ROOT / "docs"
NEEDS_SERVER = "<!-- needs: langgraph-server -->"
PAGES = (
    "vectorstore.md",
    "deployment.md",
    "api/storage.md",
    "guide/free-text.md",
    "index.md",
    "guide/tools.md",
)


def _blocks(page: str) -> list[tuple[Block, bool]]:
    text = (DOCS / page).read_text("utf-8")
    lines = text.splitlines()
    out = []
    for block in extract_blocks(text):
        previous = [t.strip() for t in lines[: block.line - 1] if t.strip()]
        out.append((block, bool(previous) and previous[-1] == NEEDS_SERVER))
    return out


RUNNABLE = [
    pytest.param(block, id=f"{page}:{block.line}")
    for page in PAGES
    for block, needs_server in _blocks(page)
    if block.lang == "python" and not needs_server
]


def test_pages_have_the_blocks_we_expect() -> None:
    assert sum(1 for p in RUNNABLE if p.id and p.id.startswith("vectorstore.md")) >= 5
    server_blocks = [b for b, marked in _blocks("deployment.md") if marked]
    assert len(server_blocks) == 1
    assert expected_output(server_blocks[0].code)  # it states what it prints


@pytest.mark.parametrize("block", RUNNABLE)
def test_python_block_runs(block: Block, tmp_path: Path) -> None:
    check_block(
        block.code,
        what=f"docs block at line {block.line}",
        cwd=tmp_path,
        extra_env={"TEPA_REPO_ROOT": str(ROOT)},  # for blocks that import the test support
    )


def test_deployment_langgraph_json_is_the_examples() -> None:
    (shown,) = [b for b, _ in _blocks("deployment.md") if b.lang == "json"]
    example = ROOT / "examples" / "langgraph_server" / "langgraph.json"
    assert json.loads(shown.code) == json.loads(example.read_text("utf-8"))
