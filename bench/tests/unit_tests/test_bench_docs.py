"""The python blocks of docs/benchmarks.md run and print what the page says they print.

The ``# ...`` comment lines right after a line with ``print(`` are that block's expected output.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from tests.conftest import ROOT

PAGE = ROOT / "docs" / "benchmarks.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks() -> list[str]:
    return _BLOCK.findall(PAGE.read_text(encoding="utf-8"))


def _expected(code: str) -> list[str]:
    out: list[str] = []
    lines = code.splitlines()
    for i, line in enumerate(lines):
        if "print(" in line:
            j = i + 1
            while j < len(lines) and lines[j].lstrip().startswith("# "):
                out.append(lines[j].lstrip()[2:])
                j += 1
    return out


def test_the_page_has_its_blocks() -> None:
    assert len(_blocks()) >= 3
    assert all(_expected(code) for code in _blocks())


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_block_prints_what_the_page_says(index: int) -> None:
    code = _blocks()[index]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, f"benchmarks.md block {index}", "exec"), {"__name__": "__doc__"})
    assert buffer.getvalue().splitlines() == _expected(code)
