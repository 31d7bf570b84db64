"""A store records the embedding model that wrote it (issues 29 and 30).

- The first write records ``describe_embeddings`` of the memory's model in the storage's meta
  record ``EMBEDDINGS_RECORD`` (Chroma and in process).
- Opening it for writing with another model (even one of the same size) raises
  ``EmbeddingMismatchError`` naming both models, before anything is stored; reading it
  read-only embeds nothing and is allowed.
- A store without the record (written before it existed) takes the model of its next write.
- ``OPENAI_API_KEY`` alone never switches the default embeddings; ``TEPA_EMBEDDINGS=openai``
  does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, TEPAMemory
from langchain_tepa.core.errors import EmbeddingMismatchError
from langchain_tepa.embeddings import default_embeddings, describe_embeddings
from langchain_tepa.storage import InMemoryStorage
from langchain_tepa.storage.base import EMBEDDINGS_RECORD


class NamedEmbeddings(Embeddings):
    """Hashing vectors under another model's name (same size: only the record tells)."""

    model = "text-embedding-3-small"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return HashingEmbeddings().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return HashingEmbeddings().embed_query(text)


def test_the_first_write_records_the_model(tmp_path: Path) -> None:
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        assert memory.storage.get_meta(EMBEDDINGS_RECORD) is None  # opening writes nothing
        memory.observe("user.city", "Oslo")
        assert memory.storage.get_meta(EMBEDDINGS_RECORD) == "HashingEmbeddings(384, version=2)"
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        memory.observe("user.city", "Oslo")  # the same model: fine
        assert memory.evidence_count() == 2


def test_opening_with_another_model_names_both(tmp_path: Path) -> None:
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        memory.observe("user.city", "Oslo")
    with pytest.raises(EmbeddingMismatchError) as info:
        TEPAMemory.from_path(tmp_path, embeddings=NamedEmbeddings())
    message = str(info.value)
    assert "written with HashingEmbeddings(384, version=2)" in message
    assert "embeds with NamedEmbeddings('text-embedding-3-small')" in message
    assert info.value.stored_model == "HashingEmbeddings(384, version=2)"
    assert info.value.new_model == "NamedEmbeddings('text-embedding-3-small')"
    assert isinstance(info.value, InvalidArgumentError)
    with TEPAMemory.from_path(tmp_path, embeddings=NamedEmbeddings(), read_only=True) as ro:
        assert ro.evidence_count() == 1  # the folder was released and nothing was stored


def test_another_version_of_the_hashing_model_is_another_model(tmp_path: Path) -> None:
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        memory.observe("user.city", "Oslo")
    with pytest.raises(EmbeddingMismatchError, match=r"HashingEmbeddings\(384, version=1\)"):
        TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings(version=1))


def test_a_write_checks_the_record_another_memory_wrote_after_opening() -> None:
    storage = InMemoryStorage()
    first = TEPAMemory(storage=storage, embeddings=HashingEmbeddings())
    second = TEPAMemory(storage=storage, embeddings=NamedEmbeddings())  # empty store: opens
    first.observe("user.city", "Oslo")
    with pytest.raises(EmbeddingMismatchError, match="NamedEmbeddings"):
        second.observe("user.city", "Bergen")
    assert first.evidence_count() == 1


def test_a_store_without_the_record_takes_the_next_model() -> None:
    storage = InMemoryStorage()
    with TEPAMemory(storage=storage, embeddings=HashingEmbeddings()) as memory:
        memory.observe("user.city", "Oslo")
    storage._meta.pop(EMBEDDINGS_RECORD)  # as written before the record existed
    with TEPAMemory(storage=storage, embeddings=NamedEmbeddings()) as memory:
        memory.observe("user.city", "Oslo")
    assert storage.get_meta(EMBEDDINGS_RECORD) == describe_embeddings(NamedEmbeddings())


def test_descriptions_are_stable_and_name_what_changes_vectors() -> None:
    class Wrapper:
        underlying_embeddings = NamedEmbeddings()

    assert describe_embeddings(Wrapper()) == "NamedEmbeddings('text-embedding-3-small')"
    assert describe_embeddings(HashingEmbeddings()) == "HashingEmbeddings(384, version=2)"
    assert (
        describe_embeddings(HashingEmbeddings(64, char_ngrams=(3,), version=1))
        == "HashingEmbeddings(64, version=1, char_ngrams=(3,))"
    )

    class Shorter:
        model = "text-embedding-3-large"
        dimensions = 256

    assert describe_embeddings(Shorter()) == "Shorter('text-embedding-3-large', dimensions=256)"


def test_the_key_alone_never_switches_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("TEPA_EMBEDDINGS", raising=False)
    assert isinstance(default_embeddings(), HashingEmbeddings)
    monkeypatch.setenv("TEPA_EMBEDDINGS", "hashing")
    assert isinstance(default_embeddings(), HashingEmbeddings)
    monkeypatch.setenv("TEPA_EMBEDDINGS", "sentence-transformers")
    with pytest.raises(InvalidArgumentError, match="TEPA_EMBEDDINGS"):
        default_embeddings()
