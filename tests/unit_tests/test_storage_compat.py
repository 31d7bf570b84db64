"""Backends written against an earlier StorageBackend protocol (storage/compat.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, InMemoryStorage, TEPAMemory
from langchain_tepa.core.errors import InvalidArgumentError, TEPAError
from langchain_tepa.core.types import Precedent
from langchain_tepa.storage import StorageBackend, as_backend
from langchain_tepa.storage.compat import REQUIRED_MEMBERS
from tests.support.stored import stored_views

_NEWER = {"local_epoch", "namespaces_if_unchanged", "views_with_pages"}


class EarlierBackend:
    """A backend of the protocol before its optional members: InMemoryStorage without them,
    and a ``write_views`` that takes no ``settle``."""

    def __init__(self, inner: InMemoryStorage, *, drop: Sequence[str] = ()) -> None:
        self._inner = inner
        self._drop = set(drop)
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        if name in _NEWER or name in self._drop:
            raise AttributeError(name)
        return getattr(self._inner, name)

    def write_views(
        self,
        precedents: Sequence[Precedent],
        marks: Mapping[str, Mapping[str, int]] | None = None,
    ) -> None:
        self.calls.append("write_views")
        self._inner.write_views(precedents, marks)


def _memory(storage: object) -> TEPAMemory:
    return TEPAMemory(storage=storage, embeddings=HashingEmbeddings(), flush_every=1)  # type: ignore[arg-type]


def test_a_backend_of_the_earlier_protocol_serves_a_memory_with_the_same_answers() -> None:
    inner = InMemoryStorage()
    earlier = EarlierBackend(inner)
    assert not isinstance(earlier, StorageBackend)
    memory = _memory(earlier)
    for value in ["vegan"] * 3 + ["carnivore"] * 4:
        memory.observe("user.diet", value, namespace="alice")
    memory.observe("user.city", "Lyon", namespace="bob")
    memory.flush()
    # The same evidence through a plain InMemoryStorage answers the same.
    reference = _memory(InMemoryStorage())
    for value in ["vegan"] * 3 + ["carnivore"] * 4:
        reference.observe("user.diet", value, namespace="alice")
    reference.observe("user.city", "Lyon", namespace="bob")
    for ns, key in [("alice", "user.diet"), ("bob", "user.city")]:
        assert memory.get(key, namespace=ns) == reference.get(key, namespace=ns)
    assert memory.get("user.diet", namespace="alice") == "carnivore"
    assert "write_views" in earlier.calls  # views went through its own write_views
    assert {(p.value, p.state) for p in stored_views(inner)} == {
        (p.value, p.state) for p in stored_views(reference.storage)
    }
    # A second memory on the same backend sees the first one's writes (heads are read).
    other = _memory(earlier)
    assert other.get("user.diet", namespace="alice") == "carnivore"
    for _ in range(6):  # and keeps seeing them: the backend cannot vouch for its epochs
        memory.observe("user.diet", "pescatarian", namespace="alice")
    assert other.get("user.diet", namespace="alice") == "pescatarian"
    memory.close()
    other.close()


def test_a_complete_backend_is_used_as_it_is() -> None:
    storage = InMemoryStorage()
    assert as_backend(storage) is storage
    assert _memory(storage).storage is storage


@pytest.mark.parametrize("missing", ["commit", "load_pages", "read_heads"])
def test_a_backend_without_a_required_member_is_refused_by_name(missing: str) -> None:
    earlier = EarlierBackend(InMemoryStorage(), drop=[missing])
    with pytest.raises(InvalidArgumentError, match=f"lacks {missing}") as caught:
        _memory(earlier)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, TEPAError)


def test_something_that_is_no_backend_at_all_gets_every_missing_member_named() -> None:
    with pytest.raises(InvalidArgumentError, match="storage must be a StorageBackend") as caught:
        _memory({"not": "a backend"})
    assert all(name in str(caught.value) for name in REQUIRED_MEMBERS)
