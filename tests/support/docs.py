"""Running the python blocks of a docs page: each in a fresh interpreter, its prints checked.

A block may state what it prints: comment lines (``# text``) right after a ``print(...)`` line
are the lines that print must write. :func:`expected_output` collects them and
:func:`check_block` runs the block offline (``tests.support.offline.run_python``) and compares.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tests.support.offline import run_python

__all__ = ["check_block", "expected_output"]


def expected_output(code: str) -> list[str]:
    """The lines a block says it prints (the ``# ...`` lines after each ``print(...)``)."""
    expected: list[str] = []
    lines = code.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith("print("):
            j = i + 1
            while j < len(lines) and lines[j].lstrip().startswith("# "):
                expected.append(lines[j].lstrip()[2:])
                j += 1
    return expected


def check_block(
    code: str,
    *,
    what: str,
    cwd: Path,
    timeout: float = 120,
    extra_env: Mapping[str, str] | None = None,
) -> None:
    """Run ``code`` as a script in ``cwd``; it must exit 0 and print what it says it prints."""
    script = cwd / "block.py"
    script.write_text(code, encoding="utf-8")
    proc = run_python(script, cwd=cwd, timeout=timeout, what=what, extra_env=extra_env)
    assert proc.returncode == 0, f"{what} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    assert proc.stdout.splitlines() == expected_output(code), f"{what} printed:\n{proc.stdout}"
