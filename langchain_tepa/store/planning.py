"""Validation and planning of a :class:`~langchain_tepa.store.TEPAStore` batch.

A batch is checked whole before anything is read or written: every namespace, key, value,
filter, limit, query and ``index`` argument, and every text that will be embedded. Only then are
its reads planned (against the state before the batch's writes) and its writes prepared.

Example:
    >>> from langgraph.store.base import PutOp
    >>> plan = plan_put(PutOp(("users", "u1"), "pref", {"food": "pizza"}), ["$"])
    >>> plan.namespace, plan.texts
    ('users.u1', ['{"food": "pizza"}'])
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from langgraph.store.base import (
    GetOp,
    ListNamespacesOp,
    PutOp,
    SearchOp,
    get_text_at_path,
    validate_op_namespace,
)
from langgraph.store.base import InvalidNamespaceError as LangGraphNamespaceError

from langchain_tepa.core.errors import (
    InvalidArgumentError,
    InvalidKeyError,
    InvalidNamespaceError,
    InvalidValueError,
)
from langchain_tepa.core.values import safe_repr, validate_key, validate_namespace, validate_value
from langchain_tepa.memory.claims import CLAIMS_LABEL
from langchain_tepa.store.corrections import check_key_arg, correction_of
from langchain_tepa.store.queries import validate_filter
from langchain_tepa.store.search import Scope
from langchain_tepa.store.ttl import validate_ttl
from langchain_tepa.validation import MAX_TEXT_CHARS, validate_text

__all__ = [
    "Plan",
    "PutPlan",
    "SearchPlan",
    "StoreNamespaceError",
    "as_ops",
    "check_count",
    "check_key_arg",
    "check_namespace_arg",
    "check_paths",
    "copy_json",
    "namespace_errors",
    "plan_put",
    "read_key",
    "read_namespace",
    "validate_op",
    "write_key",
    "write_namespace",
]


class StoreNamespaceError(InvalidNamespaceError, LangGraphNamespaceError):
    """A namespace the store cannot hold.

    It is both LangGraph's ``InvalidNamespaceError`` and the library's
    :class:`~langchain_tepa.core.errors.InvalidNamespaceError` (both ``ValueError``), so either
    ``except`` clause catches it.
    """


def copy_json(value: Mapping[str, Any]) -> dict[str, Any]:
    """A deep JSON copy (tuples become lists; nothing is shared with the caller)."""
    return dict(json.loads(json.dumps(value, ensure_ascii=False)))


def check_count(value: object, name: str, *, minimum: int = 0) -> int:
    """An integer ``>= minimum`` (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgumentError(
            f"{name} must be an integer >= {minimum}, got {safe_repr(value)}"
        )
    return value


def _as_tuple(namespace: object, what: str) -> tuple[str, ...]:
    if not isinstance(namespace, tuple | list):
        raise StoreNamespaceError(
            f"{what} must be a tuple of labels such as ('users', 'u1'), "
            f"got {type(namespace).__name__}"
        )
    return tuple(namespace)


def check_namespace_arg(namespace: object, what: str = "namespace") -> tuple[str, ...]:
    """A namespace argument of a store method: a tuple (or list) of string labels.

    Raises:
        StoreNamespaceError: When it is not one (checked before LangGraph's own checks, which
            would raise a bare ``TypeError`` or LangGraph's error instead).
    """
    labels = _as_tuple(namespace, what)
    for label in labels:
        if not isinstance(label, str):
            raise StoreNamespaceError(
                f"{what} labels must be strings, got {type(label).__name__} in {safe_repr(labels)}"
            )
    return labels


def check_paths(prefix: object, suffix: object) -> None:
    """The ``prefix`` and ``suffix`` of ``list_namespaces`` (each ``None`` or a namespace).

    Raises:
        StoreNamespaceError: When either is given and is not a tuple of string labels.
    """
    if prefix is not None:
        check_namespace_arg(prefix, "prefix")
    if suffix is not None:
        check_namespace_arg(suffix, "suffix")


def as_ops(ops: object) -> list[Any]:
    """The ops a ``batch`` call was given, as a list (any iterable but a string or a mapping)."""
    if isinstance(ops, str | bytes | Mapping) or not isinstance(ops, Iterable):
        raise InvalidArgumentError(
            f"batch takes an iterable of GetOp, PutOp, SearchOp or ListNamespacesOp, "
            f"got {type(ops).__name__}"
        )
    return list(ops)


@contextmanager
def namespace_errors() -> Iterator[None]:
    """Turn LangGraph's namespace error (raised by ``BaseStore``'s own checks) into ours."""
    try:
        yield
    except LangGraphNamespaceError as exc:
        raise StoreNamespaceError(str(exc)) from exc


def write_namespace(namespace: object) -> str:
    """A namespace a put may write, as the memory's dotted namespace."""
    labels = check_namespace_arg(namespace)  # LangGraph's check formats a label with repr
    if not labels:
        raise StoreNamespaceError("namespace cannot be empty; pass e.g. ('users', 'u1')")
    if CLAIMS_LABEL in labels:
        raise StoreNamespaceError(
            f"namespace {safe_repr(labels)} uses the label {safe_repr(CLAIMS_LABEL)}, which the "
            "store keeps for "
            "the claims of free-text items; choose another label"
        )
    try:
        validate_op_namespace(GetOp(labels, ""))
        return validate_namespace(".".join(labels))
    except (LangGraphNamespaceError, InvalidNamespaceError) as exc:
        raise StoreNamespaceError(f"namespace {safe_repr(labels)} cannot be stored: {exc}") from exc


def read_namespace(namespace: Sequence[str]) -> str | None:
    """A namespace a read may name, or ``None`` when nothing can be stored there."""
    try:
        return validate_namespace(".".join(namespace)) if namespace else None
    except InvalidNamespaceError:
        return None


def write_key(key: object) -> str:
    """A key a put may write (a valid memory key, no surrounding whitespace)."""
    if not isinstance(key, str):
        raise InvalidKeyError(f"store keys must be strings, got {type(key).__name__}")
    checked = validate_key(key)
    if checked != key:
        raise InvalidKeyError(
            f"store key {safe_repr(key)} starts or ends with whitespace; strip it first"
        )
    return checked


def read_key(key: object) -> str | None:
    """A key a read may name, or ``None`` when no such key can be stored."""
    if not isinstance(key, str):
        return None
    try:
        return key if validate_key(key) == key else None
    except InvalidKeyError:
        return None


def _write_value(value: object) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidValueError(
            f"store values must be dicts, got {type(value).__name__}; wrap it, e.g. "
            "{'value': ...}"
        )
    return copy_json(validate_value(dict(value)))


def _index_paths(index: object) -> list[str] | None:
    """``None`` (the store's fields), ``[]`` (``index=False``) or the paths given."""
    if index is None:
        return None
    if index is False:
        return []
    if not isinstance(index, list | tuple) or not all(isinstance(p, str) and p for p in index):
        raise InvalidArgumentError(
            f"index must be None, False or a list of JSON paths, got {safe_repr(index)}"
        )
    return list(index)


def embeddable(text: str, where: str) -> str:
    """``text`` as it is embedded: NUL characters (which some embedders refuse) become spaces.

    The stored value keeps them; with or without an index a value is accepted the same way.
    """
    validate_text(text.replace("\x00", " "), where)
    return text.replace("\x00", " ")


@dataclass(frozen=True)
class PutPlan:
    """One put or delete.

    Attributes:
        namespace: The memory namespace (dotted).
        key: The key.
        value: The value (a JSON copy), or ``None`` for a delete.
        texts: Texts to embed for the index (``None``: the store has no index; ``[]``: not
            indexed, ``index=False``).
        index_given: ``index`` was given explicitly (``False`` or paths).
        ttl: Minutes until the item expires (``None``: never).
        correction: The put is a correction (``True``), plain evidence (``False``), or follows
            the store's setting (``None``); see :mod:`langchain_tepa.store.corrections`.
    """

    namespace: str
    key: str
    value: dict[str, Any] | None
    texts: list[str] | None
    index_given: bool
    ttl: float | None = None
    correction: bool | None = None


def plan_put(op: PutOp, fields: Sequence[str] | None) -> PutPlan:
    """Validate a put (or delete) and the texts it will embed (``fields=None``: no index)."""
    ns = write_namespace(op.namespace)
    key = write_key(op.key)
    if op.value is None:
        return PutPlan(ns, key, None, None, False)
    ttl = validate_ttl(op.ttl)
    value = _write_value(op.value)
    paths = _index_paths(op.index)
    texts: list[str] | None = None
    if fields is not None:
        chosen = list(fields) if paths is None else paths
        texts = []
        for path in chosen:
            for text in get_text_at_path(value, path):
                texts.append(embeddable(text, f"the text at index path {path!r}"))
    return PutPlan(ns, key, value, texts, op.index is not None, ttl, correction_of(op))


def validate_op(op: object) -> None:
    """Type and namespace checks of any op (before anything else)."""
    if not isinstance(op, GetOp | PutOp | SearchOp | ListNamespacesOp):
        raise InvalidArgumentError(
            f"unknown operation {type(op).__name__}; pass GetOp, PutOp, SearchOp or "
            "ListNamespacesOp"
        )
    if isinstance(op, GetOp | PutOp):  # string labels first: LangGraph's message shows them
        check_namespace_arg(op.namespace)
        check_key_arg(op.key)
    elif isinstance(op, SearchOp):
        check_namespace_arg(op.namespace_prefix, "namespace_prefix")
        check_count(op.limit, "limit")
        check_count(op.offset, "offset")
        validate_filter(op.filter)
        if op.query is not None:
            if not isinstance(op.query, str):
                raise InvalidArgumentError(f"query must be a string, got {type(op.query).__name__}")
            if len(op.query) > MAX_TEXT_CHARS:
                raise InvalidArgumentError(
                    f"query is {len(op.query)} characters; keep it under {MAX_TEXT_CHARS}"
                )
            embeddable(op.query, "query")
    else:
        for cond in op.match_conditions or ():
            check_namespace_arg(cond.path, "match condition path")
        check_count(op.limit, "limit")
        check_count(op.offset, "offset")
        if op.max_depth is not None:
            check_count(op.max_depth, "max_depth", minimum=1)
    try:
        validate_op_namespace(op)
    except LangGraphNamespaceError as exc:
        raise StoreNamespaceError(str(exc)) from exc


@dataclass
class SearchPlan:
    """A search: the namespaces it scans (their answer tables, read in phase 1), its query."""

    op: SearchOp
    scopes: list[Scope]
    query: str | None


@dataclass
class Plan:
    """A validated batch: read results, searches to rank, writes to apply in order.

    Reads can have effects too: keys whose item was found expired (revoked with the reason
    ``"expired"``) and TTL stamps of items read (refreshed).
    """

    results: list[Any]
    searches: dict[int, SearchPlan] = field(default_factory=dict)
    puts: list[PutPlan] = field(default_factory=list)
    expired: set[tuple[str, str]] = field(default_factory=set)
    refresh: dict[str, dict[str, list[list[float]]]] = field(default_factory=dict)

    def texts(self) -> list[str]:
        """Texts to embed for the puts' index, each once."""
        return list(dict.fromkeys(t for put in self.puts for t in put.texts or ()))

    def queries(self) -> list[str]:
        """Queries to embed, each once."""
        return list(dict.fromkeys(s.query for s in self.searches.values() if s.query))
