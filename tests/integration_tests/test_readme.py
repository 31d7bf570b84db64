"""Every fenced ```python block of README.md and of the docs site (docs/**/*.md) runs.

Each block runs as a script in a fresh interpreter, in its own temporary working directory (so
``from_path("./memory")`` writes nowhere in the repository), offline (no ``OPENAI_API_KEY``),
with a timeout. A block whose nearest non-blank line above the fence is
``<!-- needs: chroma-server -->`` runs against the session's ``chroma run`` server: its port
replaces ``port=8000`` in the block. A block marked ``<!-- needs: openai -->`` runs with
``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` pointing at a local fake OpenAI server (every chat
request answered with a short text, embeddings deterministic). No block is skipped, so a page with a broken example fails
``make test``. The repository root is in ``TEPA_REPO_ROOT`` for snippets that import the test
support code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.fake_openai import FakeOpenAI
from tests.support.offline import run_python

README = ROOT / "README.md"
DOCS = ROOT / "docs"
NEEDS_SERVER = "<!-- needs: chroma-server -->"
README_PORT = "port=8000"
MIN_BLOCKS = 3
MIN_DOCS_BLOCKS = 10
TIMEOUT = 180
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a Markdown file (README.md or a docs page)."""

    line: int
    lang: str
    code: str
    needs_server: bool
    source: str = "README.md"
    needs: str = ""
    """The service a ``<!-- needs: ... -->`` marker names ("" for none)."""

    @property
    def where(self) -> str:
        """``FILE line N``, for messages and test ids."""
        return f"{self.source} line {self.line}"


def extract_blocks(text: str) -> list[Block]:
    """Fenced code blocks, with their language and whether a server marker precedes them."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line)
            i += 1
        i += 1  # closing fence
        prev = start - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        marker = lines[prev].strip() if prev >= 0 else ""
        needs = (
            marker[len("<!-- needs:") : -len("-->")].strip()
            if marker.startswith("<!-- needs:")
            else ""
        )
        blocks.append(
            Block(start + 1, lang, "\n".join(body) + "\n", marker == NEEDS_SERVER, needs=needs)
        )
    return blocks


# Pages whose blocks are also checked against their printed output in test_docs_pages.py.
CHECKED_ELSEWHERE = ("vectorstore.md", "deployment.md")


def markdown_files() -> list[Path]:
    """README.md and every page of the docs site, in a stable order."""
    pages = sorted(DOCS.rglob("*.md")) if DOCS.is_dir() else []
    pages = [p for p in pages if p.name not in CHECKED_ELSEWHERE]
    return ([README] if README.is_file() else []) + pages


def _python_blocks(path: Path) -> list[Block]:
    source = path.relative_to(ROOT).as_posix()
    return [
        Block(b.line, b.lang, b.code, b.needs_server, source, b.needs)
        for b in extract_blocks(path.read_text("utf-8"))
        # Blocks that need another service (a LangGraph Server) run in that service's test.
        if b.lang in ("python", "py") and b.needs in ("", "chroma-server", "openai")
    ]


BLOCKS = _python_blocks(README) if README.is_file() else []
DOCS_BLOCKS = [b for path in markdown_files() if path != README for b in _python_blocks(path)]
ALL_BLOCKS = BLOCKS + DOCS_BLOCKS


def test_extract_blocks_parses_fences_and_markers() -> None:
    text = (
        "intro\n```python\nx = 1\n```\n\n<!-- needs: chroma-server -->\n\n```python\nz = 3\n```\n"
        "```bash\nmake demo\n```\n  ```py\n  y = 2\n  ```\n"
    )
    blocks = extract_blocks(text)
    assert [(b.line, b.lang, b.needs_server) for b in blocks] == [
        (2, "python", False),
        (8, "python", True),
        (11, "bash", False),
        (14, "py", False),
    ]
    assert blocks[0].code == "x = 1\n"
    assert blocks[3].code == "y = 2\n"


def test_markdown_files_cover_the_readme_and_every_docs_page() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in markdown_files()}
    assert "README.md" in files
    assert {"docs/index.md", "docs/concepts.md", "docs/reliability.md"} <= files
    assert {b.source for b in DOCS_BLOCKS} >= {"docs/index.md", "docs/concepts.md"}


def test_readme_and_docs_have_runnable_snippets() -> None:
    assert README.is_file(), "README.md is missing"
    assert len(BLOCKS) >= MIN_BLOCKS, f"README.md has only {len(BLOCKS)} python snippets"
    assert len(DOCS_BLOCKS) >= MIN_DOCS_BLOCKS, f"docs/ has only {len(DOCS_BLOCKS)} snippets"
    for block in ALL_BLOCKS:
        if block.needs_server:
            assert README_PORT in block.code, (
                f"{block.where} needs the server but does not use {README_PORT}"
            )


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[f"{b.source}:line{b.line}" for b in ALL_BLOCKS])
def test_snippet_runs(block: Block, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    code = block.code
    if block.needs_server:
        server = request.getfixturevalue("chroma_server")
        code = code.replace(README_PORT, f"port={server.port}")
    script = tmp_path / "snippet.py"
    script.write_text(code, "utf-8")
    env = {"TEPA_REPO_ROOT": str(ROOT), "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    server = None
    if block.needs == "openai":
        server = FakeOpenAI(handler=lambda request: "Noted.").start()
        env |= {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.base_url}
    try:
        proc = run_python(
            script,
            cwd=tmp_path,
            timeout=TIMEOUT,
            what=f"the snippet of {block.where}",
            extra_env=env,
        )
    finally:
        if server is not None:
            server.stop()
    assert proc.returncode == 0, (
        f"the snippet of {block.where} failed (exit {proc.returncode}):\n"
        f"--- code ---\n{code}--- stdout ---\n{proc.stdout[-3000:]}"
        f"--- stderr ---\n{proc.stderr[-5000:]}"
    )
