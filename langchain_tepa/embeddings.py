"""Offline default embeddings and default resolution.

:class:`HashingEmbeddings` is a deterministic feature-hashing embedding in numpy: word unigrams,
word bigrams and character n-grams of each word, hashed with CRC-32 (stable across processes and
machines, unlike Python's ``hash()``), weighted with sublinear term frequency, L2-normalised. It
needs no model download, so it works offline; its similarity is lexical, not semantic.

Version 2 (the default) reads content words (:mod:`langchain_tepa.extraction.lexical`): stop
words weigh a tenth, words are stemmed (``lives``/``lived``/``living`` meet), and a word that
names a person's attribute adds that attribute's concept ("live", "moved", "city" meet), so
"where does the user live" ranks "User lives in Oslo" above "User prefers dark mode in the
editor". Its vectors are float32-exact. ``version=1`` gives the vectors of earlier releases.

Example:
    >>> emb = HashingEmbeddings(size=64)
    >>> v = emb.embed_query("favourite pizza topping")
    >>> len(v), round(sum(x * x for x in v), 6)
    (64, 1.0)
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import re
import zlib
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import finite_number, safe_repr
from langchain_tepa.lexical import STOP_WORDS, concepts, content_words, stem

__all__ = ["HashingEmbeddings", "default_embeddings", "describe_embeddings"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP_WEIGHT = 0.1  # version 2: a stop word's weight beside a content word's 1


@functools.lru_cache(maxsize=200_000)
def _slot(feature: str, size: int) -> tuple[int, float]:
    data = feature.encode("utf-8", "surrogatepass")
    h = zlib.crc32(data)
    sign = 1.0 if zlib.crc32(data, 0x9E3779B9) & 1 else -1.0
    return h % size, sign


class HashingEmbeddings(Embeddings):
    """Deterministic, offline feature-hashing embeddings.

    Args:
        size: Vector dimension (default 384, the size of common small sentence models).
        char_ngrams: Character n-gram lengths taken inside each word (with boundary marks).
        word_weight: Weight of word unigrams; bigrams get half, character n-grams are shared
            so that a word's n-grams together weigh ``char_weight``.
        char_weight: Total weight of one word's character n-grams.
        concept_weight: Version 2: total weight of the attribute concepts of one word.
        version: 2 (default): stop words, stems and attribute concepts; 1: the lexical model
            of earlier releases (for vectors stored with it).

    Example:
        >>> emb = HashingEmbeddings()
        >>> a, b, c = emb.embed_documents(["pizza topping", "pizza toppings", "tax return"])
        >>> sum(x * y for x, y in zip(a, b)) > sum(x * y for x, y in zip(a, c)) + 0.3
        True
        >>> q, home, editor = emb.embed_documents(
        ...     ["where does the user live", "User lives in Oslo", "User prefers dark mode"]
        ... )
        >>> sum(x * y for x, y in zip(q, home)) > sum(x * y for x, y in zip(q, editor))
        True
    """

    def __init__(
        self,
        size: int = 384,
        *,
        char_ngrams: tuple[int, ...] = (3, 4),
        word_weight: float = 1.0,
        char_weight: float = 1.0,
        concept_weight: float = 1.0,
        version: int = 2,
    ) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 8:
            raise InvalidArgumentError(f"size must be an integer >= 8, got {safe_repr(size)}")
        if (
            not isinstance(char_ngrams, tuple | list)
            or not char_ngrams
            or any(
                isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 64
                for n in char_ngrams
            )
        ):
            raise InvalidArgumentError("char_ngrams must be a non-empty tuple of lengths 1 to 64")
        for name, w in (("word_weight", word_weight), ("char_weight", char_weight)):
            if not finite_number(w) or w < 0:
                raise InvalidArgumentError(
                    f"{name} must be a finite number >= 0, got {safe_repr(w)}"
                )
        if version not in (1, 2):
            raise InvalidArgumentError(f"version must be 1 or 2, got {safe_repr(version)}")
        if not finite_number(concept_weight) or concept_weight < 0:
            raise InvalidArgumentError(
                f"concept_weight must be a finite number >= 0, got {safe_repr(concept_weight)}"
            )
        self.version = version
        self.concept_weight = float(concept_weight)
        self.size = size
        self.char_ngrams = tuple(char_ngrams)
        self.word_weight = float(word_weight)
        self.char_weight = float(char_weight)

    def __repr__(self) -> str:
        return f"HashingEmbeddings({self.size})"

    def _features(self, text: str) -> dict[str, float]:
        if self.version == 1:
            return self._features_v1(text)
        feats: dict[str, float] = {}
        for w in _WORD.findall(text.casefold()):  # stop words weigh little, but something
            if w in STOP_WORDS:
                feats["w:" + w] = feats.get("w:" + w, 0.0) + self.word_weight * _STOP_WEIGHT
        words = content_words(text)
        stems = [stem(w) for w in words]
        for i, (w, st) in enumerate(zip(words, stems, strict=True)):
            feats["w:" + st] = feats.get("w:" + st, 0.0) + self.word_weight
            if i + 1 < len(words):
                bg = "b:" + st + " " + stems[i + 1]
                feats[bg] = feats.get(bg, 0.0) + self.word_weight / 2
            found = concepts(st)
            for c in found:
                feats["k:" + c] = feats.get("k:" + c, 0.0) + self.concept_weight / len(found)
            self._char_grams(w, feats)
        return feats

    def _char_grams(self, w: str, feats: dict[str, float]) -> None:
        marked = f"<{w}>"
        grams = [
            marked[j : j + n] for n in self.char_ngrams for j in range(max(1, len(marked) - n + 1))
        ]
        if grams:
            share = self.char_weight / len(grams)
            for g in grams:
                feats["c:" + g] = feats.get("c:" + g, 0.0) + share

    def _features_v1(self, text: str) -> dict[str, float]:
        words = _WORD.findall(text.casefold())
        feats: dict[str, float] = {}
        for i, w in enumerate(words):
            feats["w:" + w] = feats.get("w:" + w, 0.0) + self.word_weight
            if i + 1 < len(words):
                bg = "b:" + w + " " + words[i + 1]
                feats[bg] = feats.get(bg, 0.0) + self.word_weight / 2
            marked = f"<{w}>"
            grams = [
                marked[j : j + n]
                for n in self.char_ngrams
                for j in range(max(1, len(marked) - n + 1))
            ]
            if grams:
                share = self.char_weight / len(grams)
                for g in grams:
                    feats["c:" + g] = feats.get("c:" + g, 0.0) + share
        return feats

    def _embed(self, text: str) -> list[float]:
        if not isinstance(text, str):
            raise InvalidArgumentError(f"can only embed strings, got {type(text).__name__}")
        vec = np.zeros(self.size, dtype=np.float64)
        for feat, weight in self._features(text).items():
            idx, sign = _slot(feat, self.size)
            vec[idx] += sign * (1.0 + math.log(weight)) if weight >= 1 else sign * weight
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0  # a fixed unit vector for text without words
            return vec.tolist()
        unit = vec / norm
        if self.version == 2:
            # float32-exact: a vector read back from a float32 store is the same vector
            unit = unit.astype(np.float32).astype(np.float64)
        return unit.tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts."""
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._embed(text)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Async twin of :meth:`embed_documents` (runs in a worker thread)."""
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """Async twin of :meth:`embed_query`."""
        return await asyncio.to_thread(self.embed_query, text)


def default_embeddings() -> Embeddings:
    """:class:`HashingEmbeddings`, unless ``TEPA_EMBEDDINGS=openai`` asks for OpenAI's.

    The embedding model never changes behind the user's back: ``OPENAI_API_KEY`` alone does
    not switch it (a store remembers the model that wrote it and refuses another, see
    :func:`describe_embeddings`). Choose OpenAI's embeddings by passing them
    (``TEPAMemory.from_path(path, embeddings=OpenAIEmbeddings(...))``) or by setting
    ``TEPA_EMBEDDINGS=openai`` (``hashing``, the default, keeps the offline ones). Then:

    - ``TEPA_OPENAI_EMBEDDING_MODEL`` picks the model (default ``text-embedding-3-small``);
    - ``TEPA_OPENAI_EMBEDDING_DIMENSIONS`` asks for shorter vectors (text-embedding-3 models);
    - ``OPENAI_BASE_URL`` (or ``OPENAI_API_BASE``) points at an OpenAI-compatible server; the
      texts are then sent as strings (``check_embedding_ctx_length=False``): such servers
      rarely accept token arrays, and the token check would download a tiktoken encoding.

    Raises:
        InvalidArgumentError: If ``TEPA_EMBEDDINGS`` is neither ``hashing`` nor ``openai``, or
            ``TEPA_OPENAI_EMBEDDING_DIMENSIONS`` is not a positive integer.

    Example:
        >>> import os
        >>> os.environ.pop("TEPA_EMBEDDINGS", None) is None or True
        True
        >>> default_embeddings()
        HashingEmbeddings(384)
    """
    chosen = (os.environ.get("TEPA_EMBEDDINGS") or "hashing").strip().lower()
    if chosen not in ("hashing", "openai"):
        raise InvalidArgumentError(
            f"TEPA_EMBEDDINGS must be 'hashing' (the default) or 'openai', got {safe_repr(chosen)}"
        )
    if chosen == "openai":
        from langchain_openai import OpenAIEmbeddings

        model = os.environ.get("TEPA_OPENAI_EMBEDDING_MODEL") or "text-embedding-3-small"
        kwargs: dict[str, Any] = {}
        dims = os.environ.get("TEPA_OPENAI_EMBEDDING_DIMENSIONS")
        if dims:
            if not dims.strip().isdigit() or int(dims) < 1:
                raise InvalidArgumentError(
                    "TEPA_OPENAI_EMBEDDING_DIMENSIONS must be a positive integer, got "
                    f"{safe_repr(dims)}"
                )
            kwargs["dimensions"] = int(dims)
        base_url = os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
        if base_url:
            kwargs["base_url"] = base_url
            kwargs["check_embedding_ctx_length"] = False
        return OpenAIEmbeddings(model=model, **kwargs)
    return HashingEmbeddings()


_HASHING_DEFAULTS: dict[str, object] = {
    "char_ngrams": (3, 4),
    "word_weight": 1.0,
    "char_weight": 1.0,
    "concept_weight": 1.0,
}


def describe_embeddings(embeddings: object) -> str:
    """A stable description of an embedding model: what a store records as its writer's model.

    Two embeddings with the same description give the same vectors (as far as can be told
    from outside): ``HashingEmbeddings(384, version=2)`` (plus any non-default weight or
    n-gram setting), ``OpenAIEmbeddings('text-embedding-3-small')`` (plus ``dimensions=N``
    when set), a ``tepa_model`` string attribute where a class declares one (two classes that
    give the same vectors declare the same), else the class name with its
    ``model``/``model_name``/``deployment``. A wrapper with ``underlying_embeddings``
    (LangChain's ``CacheBackedEmbeddings``) is described by what it wraps.

    Example:
        >>> describe_embeddings(HashingEmbeddings(256))
        'HashingEmbeddings(256, version=2)'
    """
    declared = getattr(embeddings, "tepa_model", None)
    if isinstance(declared, str) and declared:  # a class that names its model itself
        return declared
    underlying = getattr(embeddings, "underlying_embeddings", None)
    if underlying is not None and underlying is not embeddings:  # CacheBackedEmbeddings
        return describe_embeddings(underlying)
    if isinstance(embeddings, HashingEmbeddings):  # subclasses that count or log alike
        parts = [str(embeddings.size), f"version={embeddings.version}"]
        for name, default in _HASHING_DEFAULTS.items():
            value = getattr(embeddings, name)
            if value != default:
                parts.append(f"{name}={value!r}")
        return f"HashingEmbeddings({', '.join(parts)})"
    name = type(embeddings).__name__
    for attr in ("model", "model_name", "deployment"):
        value = getattr(embeddings, attr, None)
        if isinstance(value, str) and value:
            dims = getattr(embeddings, "dimensions", None)
            extra = f", dimensions={dims}" if isinstance(dims, int) and dims > 0 else ""
            return f"{name}({value!r}{extra})"
    return name
