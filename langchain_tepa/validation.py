"""Validation of the arguments of the public API: typed errors that say how to fix the input.

Example:
    >>> validate_k(4)
    4
    >>> validate_text("hello")
    'hello'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError, InvalidSourceError, InvalidValueError
from langchain_tepa.core.trust import OUTCOMES
from langchain_tepa.core.types import Fact
from langchain_tepa.core.values import check_int, forbidden_character, safe_repr

__all__ = [
    "MAX_K",
    "MAX_SOURCE_LENGTH",
    "MAX_TEXT_CHARS",
    "as_fact",
    "iterate_items",
    "validate_k",
    "validate_metadata",
    "validate_reason",
    "validate_source",
    "validate_text",
]

MAX_TEXT_CHARS = 1_000_000
MAX_K = 1000
MAX_SOURCE_LENGTH = 256
_MAX_META_ITEMS = 64


def validate_text(text: object, name: str = "text") -> str | None:
    """``None`` or a valid UTF-8 string without NUL, at most ``MAX_TEXT_CHARS`` long."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise InvalidArgumentError(f"{name} must be a string or None, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidArgumentError(
            f"{name} is {len(text)} characters; keep it under {MAX_TEXT_CHARS}"
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgumentError(
            f"{name} holds invalid surrogates; pass valid UTF-8 text"
        ) from exc
    if "\x00" in text:
        raise InvalidArgumentError(f"{name} holds NUL characters; remove them")
    return text


def validate_metadata(metadata: object) -> dict[str, Any]:
    """A dict of at most 64 scalar entries whose keys do not start with ``tepa_``."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidArgumentError(
            f"metadata must be a dict of str to str/int/float/bool, got {type(metadata).__name__}"
        )
    if len(metadata) > _MAX_META_ITEMS:
        raise InvalidArgumentError(f"metadata has more than {_MAX_META_ITEMS} entries")
    out: dict[str, Any] = {}
    for k, v in metadata.items():
        if not isinstance(k, str) or not k or k.startswith("tepa_"):
            raise InvalidArgumentError(
                "metadata keys must be non-empty strings not starting with 'tepa_', got "
                f"{safe_repr(k)}"
            )
        validate_text(k, "a metadata key")
        if isinstance(v, str):
            validate_text(v, f"metadata[{k!r}]")
            if len(v) > 4096:
                raise InvalidArgumentError(
                    f"metadata[{safe_repr(k)}] is longer than 4096 characters"
                )
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise InvalidArgumentError(
                    f"metadata[{safe_repr(k)}] must be finite, got {safe_repr(v)}"
                )
        elif not isinstance(v, bool | int):
            raise InvalidArgumentError(
                f"metadata[{safe_repr(k)}] must be str, int, float or bool, got {type(v).__name__}"
            )
        elif not isinstance(v, bool):
            try:
                v = check_int(v)
            except InvalidValueError as exc:
                raise InvalidValueError(f"metadata[{safe_repr(k)}]: {exc}") from exc
        out[k] = v
    return out


def validate_k(k: object) -> int:
    """An integer from 1 to ``MAX_K``."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidArgumentError(f"k must be an integer from 1 to {MAX_K}, got {safe_repr(k)}")
    return k


def validate_source(source: object) -> str | None:
    """``None`` (the application) or a source name, checked like a key.

    A source name is a label the application writes (``"user"``, ``"tool.search"``), not an
    authentication: it must be visible text of at most 256 characters, without surrounding
    whitespace, control, invisible or bidirectional-formatting characters (``"user\u200b"``
    would show as ``user`` in the audit and take another trust entry), and not the reserved
    provenance label ``"outcomes"`` (executions).

    Raises:
        InvalidSourceError: For anything else (the message names the character and its place).

    Example:
        >>> validate_source("tool.search"), validate_source(None)
        ('tool.search', None)
        >>> validate_source("user\u200b")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_tepa.core.errors.InvalidSourceError: source 'user\u200b' holds U+200B ZERO ...
    """
    if source is None:
        return None
    if not isinstance(source, str):
        raise InvalidSourceError(
            f"source must be a string such as 'tool.search' or None, got {type(source).__name__}"
        )
    if not source.strip() or source != source.strip() or len(source) > MAX_SOURCE_LENGTH:
        raise InvalidSourceError(
            f"source must be non-blank text of at most {MAX_SOURCE_LENGTH} characters without "
            f"surrounding whitespace, got {safe_repr(source)}"
        )
    bad = forbidden_character(source)
    if bad is not None:
        raise InvalidSourceError(
            f"source {safe_repr(source)} holds {bad}; remove it: source names must be visible "
            "text, so that two sources that look the same are the same"
        )
    if source == OUTCOMES:
        raise InvalidSourceError(
            "source 'outcomes' is reserved (the provenance label of executions); record an "
            "execution with record_outcome, or name the source otherwise"
        )
    return source


def validate_reason(reason: object, name: str = "reason") -> str:
    """A valid string (reasons of ``revoke``/``promote``, trial details)."""
    if not isinstance(reason, str):
        raise InvalidArgumentError(f"{name} must be a string, got {type(reason).__name__}")
    validate_text(reason, name)
    return reason


def iterate_items(items: object, what: str) -> Iterable[Any]:
    """``items`` if it is a collection of items, else a typed error naming ``what``.

    A single string (or ``bytes``) is refused rather than iterated character by character: a
    text where a list of texts is expected is a mistake, and reading it as one item per
    character would silently give nothing useful.

    Example:
        >>> list(iterate_items(["The capital of Peru is Lima."], "texts"))
        ['The capital of Peru is Lima.']
        >>> iterate_items("The capital of Peru is Lima.", "texts")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_tepa.core.errors.InvalidArgumentError: texts must be a list, got a single str; ...
    """
    if isinstance(items, str | bytes | bytearray):
        raise InvalidArgumentError(
            f"{what} must be a list, got a single {type(items).__name__}; wrap it in a list: [...]"
        )
    if isinstance(items, Iterable):
        return items
    raise InvalidArgumentError(f"{what} must be an iterable (a list), got {type(items).__name__}")


def as_fact(item: object) -> Fact:
    """A :class:`Fact` from a Fact or a ``(key, value)`` pair."""
    if isinstance(item, Fact):
        return item
    if isinstance(item, tuple | list) and len(item) == 2:
        return Fact(item[0], item[1])
    raise InvalidArgumentError(
        f"each fact must be a Fact or a (key, value) pair, got {type(item).__name__} "
        f"{safe_repr(item)}"
    )
