"""Validation and canonical forms of keys, values and namespaces.

Keys and namespaces are plain strings. Values are JSON-serialisable (strings, finite numbers,
booleans, lists, string-keyed objects) and never ``None``. Two values are the *same* value when
their canonical JSON forms are equal after the policy's normalisation (by default strings are
compared case-insensitively with whitespace collapsed).

Example:
    >>> validate_key("  user.diet ")
    'user.diet'
    >>> value_identity("Vegan  Food") == value_identity("vegan food")
    True
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from langchain_tepa.core.errors import InvalidKeyError, InvalidNamespaceError, InvalidValueError

__all__ = [
    "DEFAULT_NAMESPACE",
    "MAX_KEY_LENGTH",
    "MAX_NAMESPACE_LENGTH",
    "MAX_VALUE_BYTES",
    "canonical_json",
    "normalize_text",
    "short_hash",
    "validate_key",
    "validate_namespace",
    "validate_value",
    "value_identity",
]

DEFAULT_NAMESPACE = "default"
MAX_KEY_LENGTH = 256
MAX_NAMESPACE_LENGTH = 256
MAX_VALUE_BYTES = 64 * 1024
_WS = re.compile(r"\s+")


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") for ch in text)


def _utf8_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def validate_key(key: object) -> str:
    """Check a precedent key and return it stripped of surrounding whitespace.

    Args:
        key: The candidate key, for example ``"user.pizza_topping"``.

    Returns:
        The key without leading or trailing whitespace.

    Raises:
        InvalidKeyError: If the key is not a string, is blank, is longer than 256 characters,
            or holds control characters or lone surrogates.
    """
    if not isinstance(key, str):
        raise InvalidKeyError(
            f"key must be a string, got {type(key).__name__}; pass a name such as 'user.diet'"
        )
    stripped = key.strip()
    if not stripped:
        raise InvalidKeyError("key must not be empty or blank; pass a name such as 'user.diet'")
    if len(stripped) > MAX_KEY_LENGTH:
        raise InvalidKeyError(
            f"key is {len(stripped)} characters long; keep it under {MAX_KEY_LENGTH}"
        )
    if not _utf8_ok(stripped) or _has_control(stripped):
        raise InvalidKeyError(
            "key holds control characters or invalid surrogates; use printable text only"
        )
    return stripped


def validate_namespace(namespace: object) -> str:
    """Check a namespace string.

    A namespace is one or more non-empty segments separated by ``.`` (``"users.u1"``), the same
    shape as a LangGraph namespace tuple joined with dots. Look-alike Unicode is kept apart (no
    normalisation is applied), never merged.

    Args:
        namespace: The candidate namespace.

    Returns:
        The namespace unchanged.

    Raises:
        InvalidNamespaceError: If it is not a string, is empty, has an empty segment, surrounding
            whitespace, control characters, lone surrogates or is longer than 256 characters.
    """
    if not isinstance(namespace, str):
        raise InvalidNamespaceError(
            f"namespace must be a string, got {type(namespace).__name__}; for example 'users.u1'"
        )
    if not namespace:
        raise InvalidNamespaceError("namespace must not be empty; for example 'users.u1'")
    if len(namespace) > MAX_NAMESPACE_LENGTH:
        raise InvalidNamespaceError(f"namespace is longer than {MAX_NAMESPACE_LENGTH} characters")
    if not _utf8_ok(namespace) or _has_control(namespace):
        raise InvalidNamespaceError(
            "namespace holds control characters or invalid surrogates; use printable text only"
        )
    if namespace != namespace.strip():
        raise InvalidNamespaceError("namespace must not start or end with whitespace")
    segments = namespace.split(".")
    if any(not seg or seg != seg.strip() for seg in segments):
        raise InvalidNamespaceError(
            f"namespace {namespace!r} has an empty or padded segment; segments are separated by "
            "'.' and must be non-empty, for example 'users.u1'"
        )
    return namespace


def _check_json(value: Any, depth: int = 0) -> None:
    if depth > 32:
        raise InvalidValueError("value is nested more than 32 levels deep; flatten it")
    if value is None:
        if depth == 0:
            raise InvalidValueError("value must not be None; to forget a value use revoke()")
        return
    if isinstance(value, bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidValueError(f"value {value!r} is not finite; pass a finite number")
        return
    if isinstance(value, str):
        if not _utf8_ok(value):
            raise InvalidValueError("value holds invalid surrogates; pass valid UTF-8 text")
        return
    if isinstance(value, list | tuple):
        for item in value:
            _check_json(item, depth + 1)
        return
    if isinstance(value, Mapping):
        for k, item in value.items():
            if not isinstance(k, str):
                raise InvalidValueError(
                    f"object keys must be strings, got {type(k).__name__}; convert them to str"
                )
            if not _utf8_ok(k):
                raise InvalidValueError("an object key holds invalid surrogates")
            _check_json(item, depth + 1)
        return
    raise InvalidValueError(
        f"value of type {type(value).__name__} cannot be serialised; pass a string, number, "
        "boolean, list or dict of those"
    )


def canonical_json(value: Any) -> str:
    """Return the canonical JSON text of a value (sorted keys, no spaces, UTF-8)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def validate_value(value: object) -> Any:
    """Check that ``value`` can be stored and return it.

    Raises:
        InvalidValueError: If the value is ``None``, not JSON-serialisable, not finite, holds
            invalid surrogates, or its JSON form is larger than 64 KiB.
    """
    _check_json(value)
    size = len(canonical_json(value).encode("utf-8"))
    if size > MAX_VALUE_BYTES:
        raise InvalidValueError(
            f"value is {size} bytes as JSON; keep values under {MAX_VALUE_BYTES} bytes and put "
            "long text in `text=`"
        )
    return value


def normalize_text(text: str) -> str:
    """Case-fold and collapse whitespace: the default identity of string values."""
    return _WS.sub(" ", text.strip()).casefold()


def _normalize(value: Any) -> Any:
    if isinstance(value, str):
        return normalize_text(value)
    if isinstance(value, list | tuple):
        return [_normalize(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _normalize(v) for k, v in value.items()}
    return value


def short_hash(text: str, length: int = 24) -> str:
    """A stable hexadecimal digest of ``text`` (SHA-256, truncated)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def value_identity(value: Any, *, normalize: bool = True) -> str:
    """The identity of a value: equal identities mean the same precedent under one key."""
    if isinstance(value, str | int | float):  # the common case, memoised (typed: 1 != True)
        return _scalar_identity(value, normalize)
    return short_hash(canonical_json(_normalize(value) if normalize else value), 16)


@functools.lru_cache(maxsize=65536, typed=True)
def _scalar_identity(value: str | float, normalize: bool) -> str:
    return short_hash(canonical_json(_normalize(value) if normalize else value), 16)
