"""The python blocks of docs/trust.md run and print what the page says they print.

The ``# ...`` comment lines right after a ``print(...)`` line are that block's expected output
(``tests.support.docs``); each block runs offline in a fresh interpreter.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.docs import check_block, expected_output

PAGE = ROOT / "docs" / "trust.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.M | re.S)


def test_the_page_has_its_blocks_and_the_matrix() -> None:
    assert len(BLOCKS) >= 7
    assert all(expected_output(code) for code in BLOCKS)
    assert "ATTACK_TABLE" not in PAGE.read_text(encoding="utf-8")


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_block_prints_what_the_page_says(index: int, tmp_path: Path) -> None:
    check_block(BLOCKS[index], what=f"docs/trust.md block {index}", cwd=tmp_path)
