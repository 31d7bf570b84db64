"""Errors that never mislead (issue 29).

- An int over Python's 4,300-digit limit in ``metadata`` is an ``InvalidValueError`` naming the
  entry (was a plain ``ValueError`` from the JSON encoder), and nothing is stored.
- A write whose embeddings have another size than the namespace's stored vectors is an
  ``EmbeddingMismatchError`` that names this memory's model and both sizes, before anything is
  stored (was accepted, after which searches failed with "stored 384, new 384" for either
  model); a vector table's own message gives the two different sizes.
- A connection failure during a Chroma write is ``OutcomeUnknownError`` (a
  ``StorageUnavailableError``): the records may be stored in whole, in part or not at all, and
  the message says so instead of "nothing was written".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, InvalidValueError, TEPAMemory
from langchain_tepa.core.errors import (
    EmbeddingMismatchError,
    OutcomeUnknownError,
    StorageUnavailableError,
)
from langchain_tepa.embeddings import describe_embeddings
from langchain_tepa.state import VectorTable
from langchain_tepa.storage import InMemoryStorage
from langchain_tepa.storage.base import EMBEDDINGS_RECORD
from langchain_tepa.storage.chroma.errors import is_write, translate


@pytest.mark.parametrize("n", [10**4300, -(10**5000)], ids=["4301-digits", "minus-5001-digits"])
def test_a_huge_int_in_metadata_is_a_typed_error(n: int) -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    with pytest.raises(InvalidValueError, match=r"metadata\['n'\].*4300"):
        memory.observe("k", "v", metadata={"n": n})
    assert memory.evidence_count() == 0
    big_but_fine = 10**4299
    memory.observe("k", "v", metadata={"n": big_but_fine, "flag": True})
    assert memory.history("k")[0].metadata == {"n": big_but_fine, "flag": True}


def test_a_write_with_another_model_names_it_and_stores_nothing(tmp_path: Path) -> None:
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings(384)) as memory:
        memory.observe("a", "pizza")
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings(256), read_only=True) as ro:
        assert ro.evidence_count() == 1  # reading embeds nothing: allowed
    # A store written before the model record: the size check still names the model.
    storage = InMemoryStorage()
    with TEPAMemory(storage=storage, embeddings=HashingEmbeddings(384)) as memory:
        memory.observe("a", "pizza")
    storage._meta.pop(EMBEDDINGS_RECORD)
    with TEPAMemory(storage=storage, embeddings=HashingEmbeddings(256)) as memory:
        with pytest.raises(EmbeddingMismatchError, match=r"HashingEmbeddings\(256") as info:
            memory.observe("b", "tax return")
        assert (info.value.stored, info.value.new) == (384, 256)
        assert "384" in str(info.value) and isinstance(info.value, InvalidArgumentError)
        assert memory.evidence_count() == 1
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings(384)) as memory:
        assert [d.metadata["key"] for d in memory.retrieve("pizza")] == ["a"]  # still searchable


def test_the_vector_table_names_both_sizes() -> None:
    table = VectorTable()
    table.add({"a": np.ones(4)})
    table.add({"b": np.ones(3)})
    with pytest.raises(EmbeddingMismatchError, match=r"stored 4, new 3") as info:
        table.snapshot()
    assert (info.value.stored, info.value.new) == (4, 3)


def test_models_are_described_by_name() -> None:
    class Named:
        model = "text-embedding-3-small"

    assert describe_embeddings(HashingEmbeddings(256)) == "HashingEmbeddings(256, version=2)"
    assert repr(HashingEmbeddings()) == "HashingEmbeddings(384)"
    assert describe_embeddings(Named()) == "Named('text-embedding-3-small')"
    assert describe_embeddings(object()) == "object"


@pytest.mark.parametrize(
    "exc",
    [ConnectionResetError("reset"), TimeoutError("timed out"), ConnectionRefusedError("refused")],
)
def test_a_connection_failure_during_a_write_is_outcome_unknown(exc: BaseException) -> None:
    where = "Chroma server at http://127.0.0.1:9"
    err = translate(exc, where, "append evidence")
    assert isinstance(err, OutcomeUnknownError) and isinstance(err, StorageUnavailableError)
    assert "outcome is unknown" in str(err) and "127.0.0.1:9" in str(err)
    assert "nothing was written" not in str(err)
    read = translate(exc, where, "read heads")
    assert type(read) is StorageUnavailableError and "nothing was written" in str(read)


@pytest.mark.parametrize(
    ("op", "writes"),
    [
        ("append evidence", True),
        ("register namespaces", True),
        ("index vectors", True),
        ("write views", True),
        ("write meta", True),
        ("read index", False),
        ("read heads", False),
        ("get", False),
        ("query", False),
        ("open collection", False),
        ("dedicate namespace", True),
        ("mark indexed pages", True),
        ("write summary", True),
        ("write name pages", True),
        ("read meta", False),
        ("read names", False),
        ("read name pages", False),
        ("count names", False),
        ("list collections", False),
        ("index answers", True),
        ("remove answers", True),
        ("read answers", False),
    ],
)
def test_which_chroma_calls_write(op: str, writes: bool) -> None:
    assert is_write(op) is writes


def _storage_call_names() -> set[str]:
    """The op names the Chroma storage passes to ``call`` / ``_update_head``, read from source."""
    import ast
    import pathlib

    import langchain_tepa.storage.chroma as chroma_pkg

    names: set[str] = set()
    for path in pathlib.Path(chroma_pkg.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in ("call", "_update_head"):
                continue
            for arg in node.args[:2]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.add(arg.value)
    return names


def test_every_chroma_call_the_storage_makes_is_classified() -> None:
    # A new op name must be added to the table above, so whether a dropped connection during it
    # is "outcome unknown" (a write) or "nothing was written" (a read) is decided on purpose.
    classified = {op for mark in test_which_chroma_calls_write.pytestmark for op, _ in mark.args[1]}
    found = _storage_call_names()
    assert {"append evidence", "dedicate namespace", "read heads"} <= found
    assert found <= classified, sorted(found - classified)


def test_the_tools_do_not_invite_a_blind_retry_after_an_unknown_outcome() -> None:
    from langchain_tepa.tools import create_memory_tools

    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    remember, _, _ = create_memory_tools(memory)

    def broken(*args: object, **kwargs: object) -> None:
        raise OutcomeUnknownError("the connection broke during append evidence")

    memory.observe = broken  # type: ignore[method-assign]
    answer = remember.invoke({"key": "k", "value": "v"})
    assert "may or may not be stored" in answer and "Do not call remember again blindly" in answer
