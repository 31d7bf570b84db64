"""How :class:`~langchain_tepa.vectorstore.TEPAVectorStore` maps Documents onto the memory.

Pure functions and a small frozen configuration (no storage calls): a ``Document`` becomes a
:class:`~langchain_tepa.core.types.Fact` to observe, and an Active precedent (found by a search
or a lookup) becomes a ``Document`` again; plus the validation of the vector store's arguments.

Example:
    >>> from langchain_core.documents import Document
    >>> mapping = DocumentMapping(namespace="default")
    >>> fact, doc_id = mapping.observation(Document("hello", id="h"), "h", 0)
    >>> fact.key, fact.text, sorted(fact.value), doc_id
    ('doc.h', 'hello', ['chars', 'metadata', 'sha256'], 'h')
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from langchain_core.documents import Document

from langchain_tepa.core.errors import InvalidArgumentError, InvalidKeyError, InvalidValueError
from langchain_tepa.core.types import Fact, Precedent, precedent_id
from langchain_tepa.core.values import (
    canonical_json,
    safe_repr,
    short_hash,
    validate_key,
    validate_value,
    value_identity,
)
from langchain_tepa.memory.claims import MARK_FIELD
from langchain_tepa.metadata_filter import check_filter
from langchain_tepa.validation import validate_text

__all__ = [
    "DOC_KEY_PREFIX",
    "DocumentMapping",
    "Hit",
    "doc_key",
    "documents_of_texts",
    "documents_with_ids",
    "id_list",
    "is_document",
    "mmr_order",
    "query_text",
    "query_vector",
    "search_filter",
    "search_prefix",
    "valid_doc_id",
]

DOC_KEY_PREFIX = "doc"
"""Documents that are not facts are stored under the key ``"doc.<id>"``."""

_DOC_FIELDS = frozenset({"chars", "metadata", "sha256"})
_LIFECYCLE = ("key", "state", "support", "conflict", "validity", "lower_95", "namespace")


@dataclass(frozen=True)
class Hit:
    """An Active precedent as a search or a lookup found it."""

    key: str
    value: Any
    text: str
    precedent_id: str
    lifecycle: dict[str, Any]
    score: float = 0.0
    superseded_by: tuple[dict[str, Any], ...] = ()

    @classmethod
    def of_document(cls, doc: Document) -> Hit:
        """From a Document of ``memory.retrieve`` / ``memory.active_documents``."""
        meta = doc.metadata
        life = {f: meta[f] for f in _LIFECYCLE if f in meta}
        pid = str(meta["precedent_id"])
        by = tuple(meta.get(MARK_FIELD, ()))
        return cls(
            meta["key"], meta["value"], doc.page_content, pid, life, meta.get("score", 0.0), by
        )

    @classmethod
    def of_precedent(cls, p: Precedent) -> Hit:
        """From a precedent of ``memory.audit``."""
        life = {
            "key": p.key,
            "state": p.state.value,
            "support": p.support,
            "conflict": p.conflict,
            "validity": round(p.validity, 4),
            "lower_95": round(p.lower_bound, 4),
            "namespace": p.namespace,
        }
        return cls(p.key, p.value, p.page_content, p.id, life)


def doc_key(doc_id: str) -> str:
    """The memory key of a document id."""
    return f"{DOC_KEY_PREFIX}.{doc_id}"


def _doc_id(key: str) -> str:
    """The document id of a memory key (the key itself when it holds no document)."""
    return key[len(DOC_KEY_PREFIX) + 1 :] if key.startswith(f"{DOC_KEY_PREFIX}.") else key


def _stored_document(key: str, value: Any) -> dict[str, Any] | None:
    if (
        key.startswith(f"{DOC_KEY_PREFIX}.")
        and isinstance(value, dict)
        and set(value) == _DOC_FIELDS
    ):
        return value
    return None


def is_document(key: str, value: Any) -> bool:
    """Whether a precedent holds a document (else it is a fact)."""
    return _stored_document(key, value) is not None


def _digest(text: str, metadata: dict[str, Any]) -> str:
    return short_hash(canonical_json([text, metadata]), 32)


def _fact_id(key: str, pid: str) -> str:
    return f"{key}#{pid}"


def _plain_metadata(metadata: object, position: int) -> dict[str, Any]:
    """A JSON copy of a document's metadata (a typed error when it cannot be stored)."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InvalidArgumentError(
            f"document {position}: metadata must be a dict, got {type(metadata).__name__}"
        )
    try:
        validate_value(metadata)
    except InvalidValueError as exc:
        raise InvalidValueError(f"document {position}: metadata cannot be stored: {exc}") from exc
    return dict(json.loads(canonical_json(metadata)))


def valid_doc_id(doc_id: object) -> str | None:
    """``doc_id`` if it can name a document (``"doc.<id>"`` is a valid key), else None."""
    if not isinstance(doc_id, str) or not doc_id or doc_id != doc_id.strip():
        return None
    try:
        validate_key(doc_key(doc_id))
    except InvalidKeyError:
        return None
    return doc_id


@dataclass(frozen=True)
class DocumentMapping:
    """Documents to observations and precedents to Documents, for one store's settings.

    Attributes:
        namespace: The memory namespace.
        key_field: Metadata entry that makes a document a fact (``None``: never).
        value_field: Metadata entry holding a fact's value.
        source: The ``source`` of the evidence written.
        lifecycle_key: Metadata entry for the precedent's lifecycle (``None``: none).
        normalize_values: The memory policy's value normalisation (for fact ids).
    """

    namespace: str
    key_field: str | None = "key"
    value_field: str = "value"
    source: str = "vectorstore"
    lifecycle_key: str | None = None
    normalize_values: bool = True

    def to_document(self, hit: Hit) -> Document:
        """The Document of an Active precedent (fresh copies of everything mutable)."""
        stored = _stored_document(hit.key, hit.value)
        if stored is not None:
            text = hit.text if stored["chars"] else ""
            metadata = copy.deepcopy(stored["metadata"])
            doc_id = hit.key[len(DOC_KEY_PREFIX) + 1 :]
        else:
            text = hit.text
            metadata = {
                self.key_field or "key": hit.key,
                self.value_field: copy.deepcopy(hit.value),
            }
            doc_id = _fact_id(hit.key, hit.precedent_id)
        if self.lifecycle_key is not None:
            metadata[self.lifecycle_key] = {**hit.lifecycle, "precedent_id": hit.precedent_id}
        if hit.superseded_by:  # issue 37: a newer document may supersede this one
            metadata[MARK_FIELD] = [
                {"id": _doc_id(str(e.get("item"))), "key": e.get("key"), "value": e.get("value")}
                for e in copy.deepcopy(hit.superseded_by)
            ]
        return Document(page_content=text, metadata=metadata, id=doc_id)

    def observation(self, doc: object, given: object, position: int) -> tuple[Fact, str]:
        """The fact to observe for one document, and its id (a typed error when refused).

        Args:
            doc: The document.
            given: The id passed for it (``ids`` or ``Document.id``), or None.
            position: Its index in the call, for error messages.
        """
        if not isinstance(doc, Document):
            raise InvalidArgumentError(
                f"document {position} must be a Document, got {type(doc).__name__}"
            )
        text = doc.page_content
        if not isinstance(text, str):
            raise InvalidArgumentError(
                f"document {position}: page_content must be a string, got {type(text).__name__}"
            )
        validate_text(text, f"document {position}: page_content")
        metadata = _plain_metadata(doc.metadata, position)
        if self.key_field is not None and self.key_field in metadata:
            key = validate_key(metadata.pop(self.key_field))
            value = validate_value(metadata.pop(self.value_field, text))
            vid = value_identity(value, normalize=self.normalize_values)
            fact_id = _fact_id(key, precedent_id(self.namespace, key, vid))
            if given is not None and given != fact_id:
                raise InvalidArgumentError(
                    f"document {position} is a fact (its metadata has "
                    f"{safe_repr(self.key_field)}); its "
                    f"id is {safe_repr(fact_id)}, not {safe_repr(given)}: drop the id or pass "
                    "that one"
                )
            return Fact(key, value, self.namespace, text, self.source, metadata), fact_id
        if given is None:
            doc_id = "d" + _digest(text, metadata)[:24]
        else:
            doc_id = valid_doc_id(given) or ""
            if not doc_id:
                raise InvalidArgumentError(
                    f"document {position}: id {safe_repr(given)} is not usable; ids are non-empty "
                    "strings of at most 250 printable characters without surrounding whitespace"
                )
        value = {"chars": len(text), "metadata": metadata, "sha256": _digest(text, metadata)}
        return Fact(doc_key(doc_id), value, self.namespace, text, self.source), doc_id

    def fact_of_id(self, doc_id: str) -> tuple[str, str] | None:
        """``(key, precedent id)`` of a fact id ``"<key>#<precedent id>"``, else None."""
        key, sep, pid = doc_id.rpartition("#")
        if not sep or not pid:
            return None
        try:
            return validate_key(key), pid
        except InvalidKeyError:
            return None


# ---------------------------------------------------------------------------- arguments
def documents_with_ids(
    documents: object, kwargs: dict[str, Any]
) -> tuple[list[Document], list[Any]]:
    """The documents of ``add_documents`` and the id given for each (``ids`` first)."""
    unknown = sorted(set(kwargs) - {"ids"})
    if unknown:
        raise InvalidArgumentError(f"unknown arguments {unknown}; add_documents takes ids")
    if isinstance(documents, Document | str) or not isinstance(documents, Iterable):
        raise InvalidArgumentError("documents must be a list of Documents")
    docs = list(documents)
    ids = kwargs.get("ids")
    if ids is None:
        return docs, [getattr(d, "id", None) for d in docs]
    if isinstance(ids, str) or not isinstance(ids, Sequence) or len(ids) != len(docs):
        raise InvalidArgumentError(
            f"ids must be a list with one id per document ({len(docs)}), got {safe_repr(ids)}"
        )
    return docs, list(ids)


def documents_of_texts(
    texts: Iterable[str], metadatas: list[dict[str, Any]] | None, ids: list[str] | None
) -> list[Document]:
    """The documents of ``add_texts`` (ids are passed on separately, never coerced)."""
    if isinstance(texts, str) or not isinstance(texts, Iterable):
        raise InvalidArgumentError("texts must be a list of strings")
    texts = list(texts)
    for name, extra in (("metadatas", metadatas), ("ids", ids)):
        if extra is None:
            continue
        if isinstance(extra, str | bytes) or not isinstance(extra, Sequence):
            raise InvalidArgumentError(
                f"{name} must be a list with one entry per text, got {type(extra).__name__}"
            )
        if len(extra) != len(texts):
            raise InvalidArgumentError(
                f"got {len(extra)} {name} for {len(texts)} texts; pass one per text"
            )
    docs = []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidArgumentError(f"text {i} must be a string, got {type(text).__name__}")
        meta = metadatas[i] if metadatas is not None else None
        if meta is not None and not isinstance(meta, dict):
            raise InvalidArgumentError(
                f"metadatas[{i}] must be a dict or None, got {type(meta).__name__}"
            )
        docs.append(Document(page_content=text, metadata=meta or {}))
    return docs


def id_list(ids: object) -> list[Any]:
    """The ids of ``get_by_ids``/``delete``, without repeats (strings only)."""
    if isinstance(ids, str) or not isinstance(ids, Iterable):
        raise InvalidArgumentError(f"ids must be a list of strings, got {type(ids).__name__}")
    given = list(ids)
    for doc_id in given:  # before deduplicating: an unhashable id is refused, not a TypeError
        if not isinstance(doc_id, str):
            raise InvalidArgumentError(f"ids must be strings, got {type(doc_id).__name__}")
    return list(dict.fromkeys(given))


def search_prefix(kwargs: dict[str, Any]) -> str | None:
    """The ``key_prefix`` of a search; the other options are checked too (``filter``)."""
    unknown = sorted(set(kwargs) - {"key_prefix", "filter"}, key=str)
    if unknown:
        raise InvalidArgumentError(
            f"unknown search options {safe_repr(unknown)}; TEPAVectorStore takes key_prefix and "
            "filter (for tenants, use one store per namespace)"
        )
    search_filter(kwargs)
    prefix = kwargs.get("key_prefix")
    return validate_key(prefix) if prefix is not None else None


def search_filter(kwargs: dict[str, Any]) -> Mapping[str, Any] | None:
    """The metadata ``filter`` of a search (:mod:`langchain_tepa.metadata_filter`), or ``None``."""
    flt = kwargs.get("filter")
    return None if flt is None else check_filter(flt)


def query_text(query: object) -> str:
    """A search query as the memory takes it (a string, at most 1,000,000 characters, no NUL)."""
    if not isinstance(query, str):
        raise InvalidArgumentError(f"query must be a string, got {type(query).__name__}")
    return validate_text(query, "query") or ""


def query_vector(embedding: object) -> np.ndarray:
    """A query embedding as a finite float vector."""
    if isinstance(embedding, str) or not isinstance(embedding, Sequence | np.ndarray):
        raise InvalidArgumentError("embedding must be a list of floats")
    try:
        vector = np.asarray(embedding, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"embedding must be a list of floats: {exc}") from exc
    if vector.ndim != 1 or vector.size == 0 or not np.all(np.isfinite(vector)):
        raise InvalidArgumentError("embedding must be a non-empty list of finite floats")
    return vector


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def mmr_order(
    query: np.ndarray, rows: Sequence[Sequence[float]], k: int, lambda_mult: float
) -> list[int]:
    """Maximal marginal relevance: LangChain's algorithm, with zero vectors scored 0.

    The first pick is the row most similar to ``query``; each next one maximises
    ``lambda_mult * similarity to the query - (1 - lambda_mult) * highest similarity to a row
    already picked`` (ties: the earlier row). LangChain's ``maximal_marginal_relevance`` raises
    ``ValueError`` when every similarity is undefined (a zero query or zero rows); here a zero
    vector is simply similar to nothing.

    Example:
        >>> mmr_order(np.array([1.0, 0.0]), [[1.0, 0.0], [0.99, 0.1], [0.0, 1.0]], 2, 0.1)
        [0, 2]
        >>> mmr_order(np.zeros(2), [[1.0, 0.0], [0.0, 1.0]], 2, 0.5)
        [0, 1]
    """
    if not rows or k <= 0:
        return []
    matrix = _unit(np.asarray(rows, dtype=np.float64))
    to_query = matrix @ _unit(np.asarray(query, dtype=np.float64).reshape(1, -1))[0]
    chosen = [int(np.argmax(to_query))]
    while len(chosen) < min(k, len(matrix)):
        redundancy = (matrix @ matrix[chosen].T).max(axis=1)
        scores = lambda_mult * to_query - (1.0 - lambda_mult) * redundancy
        scores[chosen] = -np.inf
        chosen.append(int(np.argmax(scores)))
    return chosen
