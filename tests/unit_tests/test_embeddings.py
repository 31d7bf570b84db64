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


@pytest.mark.parametrize(("version", "tolerance"), [(1, 1e-9), (2, 1e-6)])
def test_unit_norm_and_dimension(version: int, tolerance: float) -> None:
    """Unit length (version 2: to float32 precision, the precision a store keeps)."""
    emb = HashingEmbeddings(size=128, version=version)
    for text in ["pizza", "", "!!!", "the capital of France is Paris"]:
        vec = emb.embed_query(text)
        assert len(vec) == 128
        assert abs(sum(x * x for x in vec) - 1.0) < tolerance


def test_version_2_vectors_are_float32_exact() -> None:
    """A vector read back from a float32 store is the vector the process embedded."""
    import numpy as np

    vec = HashingEmbeddings().embed_query("green tea for breakfast")
    assert np.asarray(vec, dtype=np.float32).astype(np.float64).tolist() == vec


def test_version_1_keeps_the_old_vectors() -> None:
    """``version=1`` is the lexical model of earlier releases (stored vectors stay comparable)."""
    old = HashingEmbeddings(version=1)
    assert old.embed_query("where does the user live") != HashingEmbeddings().embed_query(
        "where does the user live"
    )
    a, b = old.embed_documents(["User lives in Oslo", "User prefers dark mode in the editor"])
    q = old.embed_query("where does the user live")

    def cos(x: list[float], y: list[float]) -> float:
        return sum(p * r for p, r in zip(x, y, strict=True))

    assert cos(q, b) > cos(q, a)  # the old model ranks the editor memory first


def test_version_2_ranks_the_attribute_asked_about_first() -> None:
    emb = HashingEmbeddings()
    docs = [
        "User prefers dark mode in the editor",
        "User lives in Oslo",
        "User moved to Lisbon last month",
        "I bookmarked an article about gardening",
    ]
    vecs = emb.embed_documents(docs)
    q = emb.embed_query("where does the user live")
    scores = [sum(p * r for p, r in zip(q, v, strict=True)) for v in vecs]
    ranked = [d for _, d in sorted(zip(scores, docs, strict=True), reverse=True)]
    assert ranked[:2] == ["User lives in Oslo", "User moved to Lisbon last month"]


def test_stemming_stop_words_and_concepts() -> None:
    from langchain_tepa.lexical import concepts, content_words, stem

    assert {stem(w) for w in ("live", "lives", "lived", "living")} == {"liv"}
    assert content_words("Where does the user live?") == ["live"]
    assert content_words("the") == ["the"]  # only stop words: they are kept
    assert "home_city" in concepts(stem("moved"))
    assert concepts(stem("have")) == ()  # shared by many attributes: names none


@pytest.mark.parametrize("bad", [0, 3, "2"])
def test_bad_version_is_rejected(bad: object) -> None:
    with pytest.raises(InvalidArgumentError):
        HashingEmbeddings(version=bad)  # type: ignore[arg-type]


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
