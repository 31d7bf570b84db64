"""Records of the storage layout as Chroma metadata: pages, shard pages, heads, precedent records.

Example:
    >>> from langchain_tepa.core import Evidence
    >>> ev = Evidence.observation("user.diet", "vegan", time=1.0, id="e1", namespace="u1")
    >>> [meta] = write_pages("u1", "s1", 1, "basis", [ev], max_records=1000, max_bytes=65536)
    >>> decode_page(meta).records[0].value
    'vegan'
    >>> ev2 = Evidence.observation("user.diet", "kale", time=1.0, id="e2", namespace="u2")
    >>> shard = shard_page_meta("s1", 2, [PagePart("u1", "b1", [ev]), PagePart("u2", "b2", [ev2])])
    >>> [(p.namespace, p.records[0].value) for p in decode_pages(shard)]
    [('u1', 'vegan'), ('u2', 'kale')]
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from langchain_tepa.core.log import Head, NamespaceSummary, Page
from langchain_tepa.core.types import Evidence, Precedent
from langchain_tepa.core.values import short_hash
from langchain_tepa.storage.base import key_path

__all__ = [
    "ALL_KEYS",
    "MAX_PAGE_KEYS",
    "PagePart",
    "decode_head",
    "decode_page",
    "decode_pages",
    "decode_vector",
    "encode_vector",
    "head_id",
    "head_update",
    "index_meta",
    "indexed_update",
    "key_hash",
    "marks_update",
    "page_id",
    "precedent_meta",
    "shard_page_id",
    "shard_page_meta",
    "view_of",
    "write_pages",
]

# Pages list their keys' hashes so one key's evidence can be found; a page of more keys than
# this lists "*" instead (read whenever any key is asked for), to keep metadata small.
MAX_PAGE_KEYS = 64
ALL_KEYS = "*"
_S = "tepa_s:"
_C = "tepa_c:"
_T = "tepa_t:"
_VW = "tepa_vw:"
_IX = "tepa_ix:"


def encode_vector(vector: Sequence[float]) -> str:
    """A vector as base64 of its float32 bytes (compact, exact for float32)."""
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def _encode_vectors(vectors: Mapping[str, Sequence[float]]) -> dict[str, str]:
    """:func:`encode_vector` of each vector (one array conversion when they have one size)."""
    if not vectors:
        return {}
    try:
        rows = np.asarray(list(vectors.values()), dtype="<f4")
    except (TypeError, ValueError):  # vectors of different sizes or not numbers
        return {pid: encode_vector(v) for pid, v in vectors.items()}
    if rows.ndim != 2:
        return {pid: encode_vector(v) for pid, v in vectors.items()}
    return {
        pid: base64.b64encode(row.tobytes()).decode("ascii")
        for pid, row in zip(vectors, rows, strict=True)
    }


def decode_vector(text: str) -> list[float]:
    """Inverse of :func:`encode_vector`.

    Example:
        >>> decode_vector(encode_vector([0.5, -2.0]))
        [0.5, -2.0]
    """
    return _vector_array(text).tolist()  # float32 items: the same Python floats as float64


def key_hash(key: str) -> str:
    """The hash of a key as stored in ``tepa_keys``."""
    return short_hash(key, 12)


def head_id(namespace: str) -> str:
    """The id of a namespace's head record."""
    return "h." + short_hash(namespace, 32)


def page_id(stream: str, seq: int, namespace: str, part: int) -> str:
    """The id of a page (unique: a stream's sequence numbers are never reused)."""
    return f"p.{stream}.{seq}.{short_hash(namespace, 12)}.{part}"


def _page_fields(stream: str, seq: int, records: Sequence[Evidence]) -> dict[str, Any]:
    """The fields every page record has: its append, size, time range and key hashes."""
    keys = sorted({key_hash(ev.key) for ev in records})
    times = [float(ev.time) for ev in records]
    return {
        "tepa_w": stream,
        "tepa_q": seq,
        "tepa_n": len(records),
        "tepa_t0": min(times) if times else -1e300,
        "tepa_t1": max(times) if times else -1e300,
        "tepa_keys": (keys if len(keys) <= MAX_PAGE_KEYS else [ALL_KEYS]) or [ALL_KEYS],
    }


@dataclass
class _Part:
    """A page being filled by :func:`write_pages` (its pieces already encoded)."""

    size: int = 0
    records: list[tuple[Evidence, str]] = field(default_factory=list)
    vectors: dict[str, str] = field(default_factory=dict)
    items: dict[str, dict[str, list[str]]] = field(default_factory=dict)


def write_pages(
    namespace: str,
    stream: str,
    seq: int,
    basis: str | None,
    records: Sequence[Evidence],
    vectors: Mapping[str, Sequence[float]] | None = None,
    items: Mapping[str, Mapping[str, Sequence[Sequence[float]]]] | None = None,
    *,
    max_records: int,
    max_bytes: int,
    texts: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Metadata of the pages of one namespace's write, each of about ``max_bytes`` at most.

    Records fill pages first (at most ``max_records`` a page, in order), then the precedents'
    vectors, then item vectors (an item's vectors stay on one page); a piece larger than
    ``max_bytes`` gets a page of its own. A page without records lists the key hashes and time
    range of the whole write, so key and time filters find it where they found the one page
    that held everything; its ``tepa_n`` is 0. A write with nothing is one empty page.
    ``texts``: the records already encoded (``Evidence.to_json``), when the caller has them.

    Example:
        >>> from langchain_tepa.core import Evidence
        >>> evs = [Evidence.observation("k", f"v{i}", time=1.0, id=f"e{i}") for i in range(5)]
        >>> metas = write_pages("u1", "s1", 1, None, evs, max_records=2, max_bytes=10**6)
        >>> [m["tepa_n"] for m in metas]
        [2, 2, 1]
    """
    parts = [_Part()]

    def room(size: int, *, record: bool = False) -> _Part:
        last = parts[-1]
        if (last.size and last.size + size > max_bytes) or (
            record and len(last.records) >= max_records
        ):
            last = _Part()
            parts.append(last)
        last.size += size
        return last

    for ev, text in zip(records, _texts(records, texts), strict=True):
        room(len(text) + 1, record=True).records.append((ev, text))
    for pid, vector in (vectors or {}).items():
        text = encode_vector(vector)
        room(len(pid) + len(text) + 6).vectors[pid] = text
    for space, owners in (items or {}).items():
        for owner, vs in owners.items():
            texts = [encode_vector(v) for v in vs]
            size = len(space) + len(owner) + sum(len(t) + 3 for t in texts) + 8
            room(size).items.setdefault(space, {})[owner] = texts
    whole = _page_fields(stream, seq, records)
    out: list[dict[str, Any]] = []
    for part in parts:
        own = [ev for ev, _ in part.records]
        meta: dict[str, Any] = {
            "tepa_pns": namespace,
            **(_page_fields(stream, seq, own) if own else {**whole, "tepa_n": 0}),
            "tepa_json": "[" + ",".join(text for _, text in part.records) + "]",
        }
        if basis is not None:
            meta["tepa_basis"] = basis
        if part.vectors:
            meta["tepa_vecs"] = json.dumps(part.vectors)
        if part.items:
            meta["tepa_items"] = json.dumps(part.items)
        out.append(meta)
    return out


def _texts(records: Sequence[Evidence], texts: Sequence[str] | None) -> Sequence[str]:
    """``texts`` when given, else each record's ``to_json()``."""
    return texts if texts is not None else [ev.to_json() for ev in records]


def _encode_items(
    items: Mapping[str, Mapping[str, Sequence[Sequence[float]]]],
) -> dict[str, dict[str, list[str]]]:
    return {
        space: {owner: [encode_vector(v) for v in vs] for owner, vs in owners.items()}
        for space, owners in items.items()
    }


def _vector_array(text: str) -> np.ndarray:
    """:func:`decode_vector` as a read-only float32 array over its bytes (what was stored).

    Pages decode one per precedent and per item on a namespace's first touch; their vectors
    only go into vector and item tables (and, converted there, into an index), so Python
    float lists (or float64 copies) would cost time and memory for nothing.
    """
    return np.frombuffer(_b64decode(text), dtype="<f4")


def _strict_then_a2b(text: str) -> bytes:
    """``binascii.a2b_base64(text)``, by pybase64's SIMD decoder when ``text`` is strict base64.

    About 5x faster than ``a2b_base64`` for the 2,048 characters of a 384-float vector (what a
    namespace's first touch decodes two of per item). Only well-formed base64 (what
    :func:`encode_vector` writes) is decoded by pybase64 (``validate=True``): for it both
    decoders give the same bytes; anything else goes to ``a2b_base64`` as before, which
    decodes or raises exactly as it always did.
    """
    try:
        return _pybase64_decode(text, validate=True)
    except (ValueError, TypeError):
        return binascii.a2b_base64(text)


_b64decode: Callable[[str], bytes]
try:  # a dependency of chromadb
    from pybase64 import b64decode as _pybase64_decode
except ImportError:  # pragma: no cover - chromadb without it
    # a2b_base64 is what base64.b64decode calls, without its per-call checks.
    _b64decode = binascii.a2b_base64
else:
    _b64decode = _strict_then_a2b


def _decode_vectors(data: Mapping[str, Any]) -> dict[str, Any]:
    return {pid: _vector_array(v) for pid, v in data.items()}


def _decode_items(data: Mapping[str, Any]) -> dict[str, dict[str, list[Any]]]:
    """Item vectors, as :func:`_vector_array` (item tables keep them as they are)."""
    return {
        space: {owner: [_vector_array(v) for v in vs] for owner, vs in owners.items()}
        for space, owners in data.items()
    }


@dataclass(frozen=True)
class PagePart:
    """One namespace's part of a shard page: what its own page would hold.

    Attributes:
        namespace: The namespace.
        basis: The writer's clock digest of the namespace before the write.
        records: Its records, in fold order.
        vectors: Vectors of the precedents they create (``id -> vector``).
        items: Item vectors (``space -> owner -> vectors``).
        texts: ``records`` already encoded (``Evidence.to_json``), or ``None``.
    """

    namespace: str
    basis: str | None
    records: Sequence[Evidence]
    vectors: Mapping[str, Sequence[float]] = field(default_factory=dict)
    items: Mapping[str, Mapping[str, Sequence[Sequence[float]]]] = field(default_factory=dict)
    texts: Sequence[str] | None = None


def shard_page_id(stream: str, seq: int, shard: int, part: int) -> str:
    """The id of a shard page (never equal to a :func:`page_id`)."""
    return f"p.{stream}.{seq}.s{shard:03d}.{part}"


def shard_page_meta(stream: str, seq: int, parts: Sequence[PagePart]) -> dict[str, Any]:
    """Metadata of a shard page: the parts of several namespaces of one shard, one append.

    ``tepa_pnl`` lists the namespaces (readers match it with ``$contains``); the stream,
    sequence, time range and key hashes are the page's as a whole (a superset of each part's,
    which readers check again per part). ``tepa_parts`` holds a one-line JSON index
    (``[[namespace, start, end], ...]``) and then each part's JSON, so a reader decodes only the
    parts of the namespaces it asked for.
    """
    records = [ev for part in parts for ev in part.records]
    chunks: list[str] = []
    index: list[tuple[str, int, int]] = []
    start = 0
    for part in parts:
        body = [
            '{"b":',
            json.dumps(part.basis),
            ',"r":[',
            ",".join(_texts(part.records, part.texts)),
            "]",
        ]
        if part.vectors:
            body += [',"v":', json.dumps(_encode_vectors(part.vectors))]
        if part.items:
            body += [',"i":', json.dumps(_encode_items(part.items))]
        body.append("}")
        chunk = "".join(body)
        chunks.append(chunk)
        index.append((part.namespace, start, start + len(chunk)))
        start += len(chunk)
    return {
        "tepa_pnl": sorted({part.namespace for part in parts}),
        **_page_fields(stream, seq, records),
        "tepa_parts": json.dumps(index, separators=(",", ":")) + "\n" + "".join(chunks),
    }


def decode_pages(meta: Mapping[str, Any], namespaces: Container[str] | None = None) -> list[Page]:
    """The :class:`Page` of each namespace a page record holds (one for a plain page).

    Of a shard page, only the parts of ``namespaces`` are decoded (all when ``None``).
    """
    raw = meta.get("tepa_parts")
    if not isinstance(raw, str):
        return [decode_page(meta)]
    stream, seq = str(meta["tepa_w"]), int(meta["tepa_q"])
    head, _, body = raw.partition("\n")
    out = []
    for namespace, start, end in json.loads(head):
        if namespaces is not None and namespace not in namespaces:
            continue
        part = json.loads(body[start:end])
        basis = part.get("b")
        out.append(
            Page(
                str(namespace),
                stream,
                seq,
                tuple(Evidence.from_dict(d) for d in part["r"]),
                str(basis) if basis is not None else None,
                _decode_vectors(part.get("v", {})),
                _decode_items(part.get("i", {})),
            )
        )
    return out


def decode_page(meta: Mapping[str, Any]) -> Page:
    """A :class:`Page` from its metadata."""
    records = tuple(Evidence.from_dict(d) for d in json.loads(str(meta["tepa_json"])))
    basis = meta.get("tepa_basis")
    vectors: dict[str, Any] = {}
    if isinstance(meta.get("tepa_vecs"), str):
        vectors = _decode_vectors(json.loads(meta["tepa_vecs"]))
    items: dict[str, dict[str, list[Any]]] = {}
    if isinstance(meta.get("tepa_items"), str):
        items = _decode_items(json.loads(meta["tepa_items"]))
    return Page(
        str(meta["tepa_pns"]),
        str(meta["tepa_w"]),
        int(meta["tepa_q"]),
        records,
        str(basis) if basis is not None else None,
        vectors,
        items,
    )


def head_update(
    namespace: str,
    stream: str,
    seq: int,
    count: int,
    summary: NamespaceSummary | None,
    time: float,
) -> dict[str, Any]:
    """Metadata that bumps ``stream``'s entry of a head (merged into the stored head)."""
    meta: dict[str, Any] = {
        "tepa_kind": "head",
        "tepa_hns": namespace,
        f"{_S}{stream}": seq,
        f"{_C}{stream}": count,
        f"{_T}{stream}": float(time),
    }
    if summary is not None:
        meta["tepa_sum"] = summary_json(summary)
    return meta


def marks_update(namespace: str, marks: Mapping[str, int]) -> dict[str, Any]:
    """Metadata recording up to which page of each stream the views are written."""
    meta: dict[str, Any] = {"tepa_kind": "head", "tepa_hns": namespace}
    meta.update({f"{_VW}{stream}": int(seq) for stream, seq in marks.items()})
    return meta


def indexed_update(namespace: str, through: Mapping[str, int]) -> dict[str, Any]:
    """Metadata recording through which page of each stream a large namespace is indexed."""
    meta: dict[str, Any] = {"tepa_kind": "head", "tepa_hns": namespace}
    meta.update({f"{_IX}{stream}": int(seq) for stream, seq in through.items()})
    return meta


def summary_json(summary: NamespaceSummary) -> str:
    """A summary as stored in a head."""
    return json.dumps({"d": summary.digest, "a": summary.active, "k": summary.keys})


def decode_head(meta: Mapping[str, Any]) -> Head:
    """A :class:`Head` from its metadata."""
    clock: dict[str, int] = {}
    counts: dict[str, int] = {}
    views: dict[str, int] = {}
    written: dict[str, float] = {}
    indexed: dict[str, int] = {}
    for name, value in meta.items():
        if name.startswith(_S):
            clock[name[len(_S) :]] = int(value)
        elif name.startswith(_C):
            counts[name[len(_C) :]] = int(value)
        elif name.startswith(_VW):
            views[name[len(_VW) :]] = int(value)
        elif name.startswith(_T):
            written[name[len(_T) :]] = float(value)
        elif name.startswith(_IX):
            indexed[name[len(_IX) :]] = int(value)
    summary = None
    raw = meta.get("tepa_sum")
    if isinstance(raw, str):
        try:
            data = json.loads(raw)
            summary = NamespaceSummary(str(data["d"]), int(data["a"]), int(data["k"]))
        except (ValueError, KeyError, TypeError):
            summary = None
    return Head(
        str(meta.get("tepa_hns", "")),
        clock,
        counts,
        summary,
        bool(meta.get("tepa_big", False)),
        views,
        written,
        indexed,
    )


def index_meta(p: Precedent) -> dict[str, Any]:
    """Metadata of a precedent in a large namespace's own index (what queries filter on)."""
    return {"tepa_ns": p.namespace, "tepa_key": p.key, "tepa_kp": key_path(p.key)}


def precedent_meta(p: Precedent) -> dict[str, Any]:
    """Metadata of a precedent's view record: what queries filter on, and the view as JSON.

    Few keys on purpose: Chroma's cost per record grows with its metadata entries, and every
    precedent has a view.
    """
    return {
        "tepa_ns": p.namespace,
        "tepa_key": p.key,
        "tepa_state": p.state.value,
        "tepa_view": json.dumps(p.view(), ensure_ascii=False, separators=(",", ":")),
    }


def view_of(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The precedent view stored in a record's metadata, if any (``Precedent.view()``)."""
    raw = (meta or {}).get("tepa_view")
    return dict(json.loads(raw)) if isinstance(raw, str) else None
