"""Replaces ``tests/conftest.py`` of the unpacked ``langgraph-checkpoint-postgres`` sdist.

Theirs connects to a Postgres server before every test (``conn``) and empties its tables
(``clear_test_db``, autouse). The stores under test are ``TEPAStore`` stand-ins (see
``tepa_langgraph_shim``): no database, so both fixtures do nothing here. The names their test
modules import from it are kept.
"""

from __future__ import annotations

import pytest
from tests.embed_test_utils import CharacterEmbeddings

__all__ = ["DEFAULT_POSTGRES_URI", "DEFAULT_URI", "VECTOR_TYPES", "CharacterEmbeddings"]

DEFAULT_POSTGRES_URI = "postgres://postgres:postgres@localhost:5441/"
DEFAULT_URI = "postgres://postgres:postgres@localhost:5441/postgres?sslmode=disable"
VECTOR_TYPES = ["vector", "halfvec"]


@pytest.fixture
async def conn() -> None:
    return None


@pytest.fixture(autouse=True)
async def clear_test_db() -> None:
    return None


@pytest.fixture
def fake_embeddings() -> CharacterEmbeddings:
    return CharacterEmbeddings(dims=500)
