"""Shared fixtures."""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.pop("OPENAI_API_KEY", None)

from langchain_tepa import HashingEmbeddings, TEPAMemory
from tests.support.fixtures import fake_openai, openai_env  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadgroup`` that keeps grouping on pytest 9.2 (``tests/support/xdist_groups.py``)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.support.xdist_groups import GroupScheduling

    return GroupScheduling(config, log)  # type: ignore[arg-type]


@pytest.fixture
def embeddings() -> HashingEmbeddings:
    return HashingEmbeddings()


@pytest.fixture
def tick() -> Callable[[], float]:
    """A deterministic clock: 1.0, 2.0, 3.0, ..."""
    counter = itertools.count(1)
    return lambda: float(next(counter))


@pytest.fixture
def ephemeral_client() -> object:
    import chromadb
    from chromadb.config import Settings

    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


@pytest.fixture
def chroma_memory(ephemeral_client: object, tick: Callable[[], float]) -> Iterator[TEPAMemory]:
    prefix = "t" + uuid.uuid4().hex[:12]
    mem = TEPAMemory.from_client(
        ephemeral_client, prefix=prefix, embeddings=HashingEmbeddings(), clock=tick
    )
    yield mem
    mem.close()


@pytest.fixture(params=["memory", "chroma"])
def any_memory(
    request: pytest.FixtureRequest, ephemeral_client: object, tick: Callable[[], float]
) -> Iterator[TEPAMemory]:
    """The same tests on the in-process store and on (ephemeral) Chroma."""
    if request.param == "memory":
        mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=tick)
    else:
        mem = TEPAMemory.from_client(
            ephemeral_client,
            prefix="t" + uuid.uuid4().hex[:12],
            embeddings=HashingEmbeddings(),
            clock=tick,
        )
    yield mem
    mem.close()
