"""Pytest fixtures of the test support code (loaded by ``tests/conftest.py``).

- ``fake_openai``: a started :class:`~tests.support.fake_openai.FakeOpenAI` (empty script),
  stopped after the test.
- ``openai_env``: the same server, with ``OPENAI_API_KEY=test`` and ``OPENAI_BASE_URL``
  pointing at it (and ``OPENAI_API_BASE`` removed), so default-constructed OpenAI clients
  talk to it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_openai import FakeOpenAI

__all__ = ["fake_openai", "openai_env"]


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A scripted OpenAI-compatible server on 127.0.0.1 for one test."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def openai_env(fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    """``fake_openai`` plus the environment variables that point OpenAI clients at it."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    monkeypatch.delenv("OPENAI_ORGANIZATION", raising=False)
    monkeypatch.setenv("TEPA_EMBEDDINGS", "openai")  # the key alone never switches embeddings
    return fake_openai
