from __future__ import annotations

import json
import subprocess
import sys

import pytest
from langchain_tests.unit_tests import EmbeddingsUnitTests

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, default_embeddings


class TestHashingEmbeddingsStandard(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[HashingEmbeddings]:
        return HashingEmbeddings

    @property
    def embedding_model_params(self) -> dict:
        return {"size": 384}


def test_unit_norm_and_dimension() -> None:
    emb = HashingEmbeddings(size=128)
    for text in ["pizza", "", "!!!", "the capital of France is Paris"]:
        vec = emb.embed_query(text)
        assert len(vec) == 128
        assert abs(sum(x * x for x in vec) - 1.0) < 1e-9


def test_similar_texts_are_closer_than_unrelated() -> None:
    emb = HashingEmbeddings()
    a, b, c = emb.embed_documents(
        ["favourite pizza topping", "pizza topping preference", "tax return deadline"]
    )

    def cos(x: list[float], y: list[float]) -> float:
        return sum(p * q for p, q in zip(x, y, strict=True))

    assert cos(a, b) > cos(a, c) + 0.2


def test_stable_across_processes() -> None:
    """No Python hash(): a fresh interpreter with another hash seed gives the same vector."""
    here = HashingEmbeddings().embed_query("user.pizza_topping: pineapple")
    code = (
        "import json; from langchain_tepa import HashingEmbeddings;"
        "print(json.dumps(HashingEmbeddings().embed_query('user.pizza_topping: pineapple')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"},
    )
    there = json.loads(out.stdout)
    assert there == pytest.approx(here, abs=1e-12)


@pytest.mark.parametrize("bad", [0, 4, -1, True, 3.5])
def test_bad_size_is_rejected(bad: object) -> None:
    with pytest.raises(InvalidArgumentError):
        HashingEmbeddings(size=bad)  # type: ignore[arg-type]


def test_non_string_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError):
        HashingEmbeddings().embed_query(3)  # type: ignore[arg-type]


def test_default_embeddings_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert isinstance(default_embeddings(), HashingEmbeddings)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("TEPA_EMBEDDINGS", "hashing")
    assert isinstance(default_embeddings(), HashingEmbeddings)
