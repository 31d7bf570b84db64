"""Fixtures of the benchmark tests: the repository's shared test support (``tests.support``).

The benchmarks' tests live beside the library's (``bench/tests``) and use the same support code:
the scripted OpenAI server (``fake_openai``, ``openai_env``) and ``make test``'s
``--dist loadgroup`` scheduler. The repository root is on ``sys.path`` through pytest's
``pythonpath`` setting in the root ``pyproject.toml``.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.pop("OPENAI_API_KEY", None)

from tests.support.fixtures import fake_openai, openai_env  # noqa: F401


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadgroup`` that keeps grouping (as ``tests/conftest.py`` does)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.support.xdist_groups import GroupScheduling

    return GroupScheduling(config, log)  # type: ignore[arg-type]
