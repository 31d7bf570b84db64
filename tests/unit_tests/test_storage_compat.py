"""A memory takes a complete StorageBackend only, and names what an incomplete one lacks."""

from __future__ import annotations

from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, InMemoryStorage, TEPAMemory
from langchain_tepa.core.errors import InvalidArgumentError, TEPAError
from langchain_tepa.storage import StorageBackend, as_backend


class Lacking:
    """InMemoryStorage without some members."""

    def __init__(self, inner: InMemoryStorage, drop: set[str]) -> None:
        self._inner = inner
        self._drop = drop

    def __getattr__(self, name: str) -> Any:
        if name in self._drop:
            raise AttributeError(name)
        return getattr(self._inner, name)


def _memory(storage: object) -> TEPAMemory:
    return TEPAMemory(storage=storage, embeddings=HashingEmbeddings(), flush_every=1)  # type: ignore[arg-type]


def test_a_complete_backend_is_used_as_it_is() -> None:
    storage = InMemoryStorage()
    assert as_backend(storage) is storage
    assert _memory(storage).storage is storage


@pytest.mark.parametrize("missing", ["commit", "local_epoch", "views_with_pages"])
def test_a_backend_without_a_member_is_refused_by_name(missing: str) -> None:
    lacking = Lacking(InMemoryStorage(), {missing})
    assert not isinstance(lacking, StorageBackend)
    with pytest.raises(InvalidArgumentError, match=f"lacks {missing}") as caught:
        _memory(lacking)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, TEPAError)


def test_something_that_is_no_backend_at_all_gets_every_missing_member_named() -> None:
    with pytest.raises(InvalidArgumentError, match="storage must be a StorageBackend") as caught:
        _memory({"not": "a backend"})
    members = [n for n in dir(StorageBackend) if not n.startswith("_")]
    assert members and all(name in str(caught.value) for name in members)
