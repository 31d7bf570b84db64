"""Validation and canonical forms of keys, values and namespaces.

Keys are plain strings. Namespaces are dotted strings (``"users.u1"``), also accepted as a
LangGraph-style tuple or list of labels (``("users", "u1")``). Neither may hold control,
invisible or bidirectional-formatting characters (zero-width spaces and joiners, the byte-order
mark, LRM/RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI and the other Unicode *format* characters,
line and paragraph separators, Hangul fillers): such characters make two different names look
the same, so they are refused with an error that names the character, never silently removed.

Values are JSON (strings, finite numbers, booleans, lists, string-keyed objects) and never
``None``; they are checked and copied into their plain JSON form (any ``Mapping``, such as a
``MappingProxyType``, becomes a ``dict``; a tuple becomes a list), which must survive Python's
``json`` unchanged. Two values are the *same* value when their canonical JSON forms are equal
after the policy's normalisation (by default strings are compared case-insensitively with
whitespace collapsed).

Example:
    >>> validate_key("  user.diet ")
    'user.diet'
    >>> validate_namespace(("users", "u1"))
    'users.u1'
    >>> from types import MappingProxyType
    >>> validate_value(MappingProxyType({"topping": ("olive", "basil")}))
    {'topping': ['olive', 'basil']}
    >>> value_identity("Vegan  Food") == value_identity("vegan food")
    True
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import reprlib
import sys
import unicodedata
from collections.abc import Mapping
from typing import Any, TypeGuard

from langchain_tepa.core.errors import InvalidKeyError, InvalidNamespaceError, InvalidValueError

__all__ = [
    "DEFAULT_NAMESPACE",
    "MAX_INT_DIGITS",
    "MAX_KEY_LENGTH",
    "MAX_NAMESPACE_LENGTH",
    "MAX_VALUE_BYTES",
    "canonical_json",
    "check_int",
    "finite_number",
    "forbidden_character",
    "normalize_text",
    "safe_repr",
    "short_hash",
    "validate_key",
    "validate_namespace",
    "validate_value",
    "value_identity",
    "value_key",
]

DEFAULT_NAMESPACE = "default"
MAX_KEY_LENGTH = 256
MAX_NAMESPACE_LENGTH = 256
MAX_VALUE_BYTES = 64 * 1024
MAX_INT_DIGITS = 4300
"""Longest integer a value may hold, in decimal digits: Python's default int-to-str limit
(``sys.get_int_max_str_digits()``), beyond which ``json`` can neither write nor read it."""
_WS = re.compile(r"\s+")

# Unicode categories refused in keys and namespaces: controls (Cc), format characters (Cf:
# zero-width space/joiners, BOM, LRM/RLM, bidirectional embeddings, overrides and isolates,
# soft hyphen, tags), surrogates (Cs), private use (Co), unassigned (Cn), line and paragraph
# separators (Zl, Zp).
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Characters of other categories that render as nothing: the combining grapheme joiner, the
# Hangul fillers, the Khmer inherent vowels and the braille blank.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
_CATEGORY_NAMES = {
    "Cc": "control character",
    "Cf": "invisible formatting character",
    "Cs": "lone surrogate",
    "Co": "private-use character",
    "Cn": "unassigned code point",
    "Zl": "line separator",
    "Zp": "paragraph separator",
}


def finite_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a number a float can hold: not a bool, not NaN or infinite.

    An int of any size is compared exactly by Python, but ``math.isfinite`` and ``float`` raise
    ``OverflowError`` on one over about 1e308: those are refused here instead.

    Example:
        >>> [finite_number(x) for x in (3, 2.5, float("nan"), True, 10**400, "1")]
        [True, True, False, False, False, False]
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, int):
        return -_FLOAT_MAX_INT <= value <= _FLOAT_MAX_INT
    return math.isfinite(value)


_FLOAT_MAX_INT = 10**300


class _ShortRepr(reprlib.Repr):
    """``reprlib`` with an integer guard: a huge int has no decimal ``repr`` (the int limit)."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 4 * 64:
            return f"<int of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_SHORT = _ShortRepr()
_SHORT.maxlevel = 3
_SHORT.maxstring = 80
_SHORT.maxother = 80
_SHORT.maxlong = 80


def safe_repr(value: object) -> str:
    """A short ``repr`` of anything a caller passed, for error messages.

    It never recurses deeply, never raises (a deeply nested list, a 5,000-digit int, an object
    whose ``repr`` fails) and stays under a few hundred characters.

    Example:
        >>> nested = []
        >>> for _ in range(5000):
        ...     nested = [nested]
        >>> safe_repr(nested), safe_repr(10**5000), safe_repr("ok")
        ('[[[[...]]]]', '<int of 16610 bits>', "'ok'")
    """
    try:
        return _SHORT.repr(value)
    except Exception:  # a __repr__ that fails: name the type only
        return f"<{type(value).__name__} object>"


def forbidden_character(text: str) -> str | None:
    """Describe the first character of ``text`` a key or namespace may not hold, if any.

    Refused are control, invisible and bidirectional-formatting characters (see the module
    documentation): they let two different names look identical.

    Returns:
        ``None`` when every character is allowed, otherwise a description such as
        ``"U+200B ZERO WIDTH SPACE (an invisible formatting character) at position 4"``.

    Example:
        >>> forbidden_character("user.diet") is None
        True
        >>> forbidden_character("user\u200b.diet")
        'U+200B ZERO WIDTH SPACE (an invisible formatting character) at position 4'
    """
    if text.isascii():
        for i, ch in enumerate(text):
            if ch < " " or ch == "\x7f":
                return _describe(ch, i)
        return None
    for i, ch in enumerate(text):
        if ch in _INVISIBLE or unicodedata.category(ch) in _FORBIDDEN_CATEGORIES:
            return _describe(ch, i)
    return None


_BIDI_CONTROLS = frozenset({"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"})
_BIDI_MARKS = frozenset("\u200e\u200f\u061c")  # LRM, RLM, ALM


def _describe(ch: str, position: int) -> str:
    category = unicodedata.category(ch)
    if ch in _BIDI_MARKS or unicodedata.bidirectional(ch) in _BIDI_CONTROLS:
        kind = "bidirectional control character"
    else:
        kind = _CATEGORY_NAMES.get(category, "invisible character")
    name = unicodedata.name(ch, "")
    label = f"U+{ord(ch):04X} {name}" if name else f"U+{ord(ch):04X}"
    return f"{label} (a{'n' if kind[0] in 'aeiou' else ''} {kind}) at position {position}"


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
            or holds a control, invisible or bidirectional-formatting character or a lone
            surrogate (the message names the character and its position).
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
    bad = forbidden_character(stripped)
    if bad is not None:
        raise InvalidKeyError(
            f"key {safe_repr(stripped)} holds {bad}; remove it: keys must be visible text, so "
            "that two "
            "keys that look the same are the same"
        )
    return stripped


def validate_namespace(namespace: object) -> str:
    """Check a namespace and return it as a dotted string.

    A namespace is one or more non-empty labels: a dotted string (``"users.u1"``) or a tuple or
    list of labels (``("users", "u1")``, the LangGraph form, whose labels must not contain
    ``.``). Both forms name the same namespace. Look-alike Unicode is kept apart (no
    normalisation is applied), never merged.

    Args:
        namespace: The candidate namespace.

    Returns:
        The namespace as a dotted string (a string is returned unchanged).

    Raises:
        InvalidNamespaceError: If it is neither a string nor a tuple/list of strings, is empty,
            has an empty or padded label, a label with ``.`` (tuple form), a control, invisible
            or bidirectional-formatting character (named in the message), a lone surrogate, or
            is longer than 256 characters.

    Example:
        >>> validate_namespace("users.u1") == validate_namespace(["users", "u1"])
        True
    """
    if isinstance(namespace, tuple | list):
        namespace = _join_labels(namespace)
    if not isinstance(namespace, str):
        raise InvalidNamespaceError(
            f"namespace must be a string such as 'users.u1' or a tuple of labels such as "
            f"('users', 'u1'), got {type(namespace).__name__}"
        )
    if not namespace:
        raise InvalidNamespaceError("namespace must not be empty; for example 'users.u1'")
    if len(namespace) > MAX_NAMESPACE_LENGTH:
        raise InvalidNamespaceError(f"namespace is longer than {MAX_NAMESPACE_LENGTH} characters")
    bad = forbidden_character(namespace)
    if bad is not None:
        raise InvalidNamespaceError(
            f"namespace {safe_repr(namespace)} holds {bad}; remove it: namespaces must be visible "
            "text, "
            "so that two namespaces that look the same are the same"
        )
    if namespace != namespace.strip():
        raise InvalidNamespaceError("namespace must not start or end with whitespace")
    segments = namespace.split(".")
    if any(not seg or seg != seg.strip() for seg in segments):
        raise InvalidNamespaceError(
            f"namespace {safe_repr(namespace)} has an empty or padded segment; segments are "
            "separated by "
            "'.' and must be non-empty, for example 'users.u1'"
        )
    return namespace


def _join_labels(labels: tuple[Any, ...] | list[Any]) -> str:
    if not labels:
        raise InvalidNamespaceError("namespace must not be empty; for example ('users', 'u1')")
    for label in labels:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"namespace labels must be strings, got {type(label).__name__} in "
                f"{safe_repr(labels)}"
            )
        bad = forbidden_character(label)
        if bad is not None:
            raise InvalidNamespaceError(
                f"namespace label {safe_repr(label)} holds {bad}; remove it: namespaces must be "
                "visible "
                "text, so that two namespaces that look the same are the same"
            )
        if not label or label != label.strip():
            raise InvalidNamespaceError(
                f"namespace {safe_repr(tuple(labels))} has an empty or padded label; labels must "
                "be "
                "non-empty, for example ('users', 'u1')"
            )
        if "." in label:
            raise InvalidNamespaceError(
                f"namespace label {safe_repr(label)} contains '.'; in the tuple form each label "
                "is one "
                "segment: pass ('users', 'u1') or the string 'users.u1'"
            )
    return ".".join(labels)


def _int_digit_limit() -> int:
    # the interpreter may be stricter than the default; 0 means "no limit" there, but the JSON
    # must stay readable by a Python with the default limit
    get_limit = getattr(sys, "get_int_max_str_digits", None)
    limit = get_limit() if get_limit is not None else 0
    return min(limit, MAX_INT_DIGITS) if limit > 0 else MAX_INT_DIGITS


@functools.lru_cache(maxsize=8)
def _power_of_ten(digits: int) -> int:
    return 10**digits


def _check_int(value: int) -> int:
    magnitude = -value if value < 0 else value
    if magnitude.bit_length() > 60:  # 60 bits never exceed 19 digits: the common case is free
        limit = _int_digit_limit()
        if magnitude >= _power_of_ten(limit):
            raise InvalidValueError(
                f"integer of {magnitude.bit_length()} bits has more than {limit} decimal digits, "
                f"Python's int-to-str limit (sys.get_int_max_str_digits(), {MAX_INT_DIGITS} by "
                "default), so JSON cannot hold it; store it as a string"
            )
    return int.__int__(value)  # a plain int, also for int subclasses (IntEnum, ...)


def check_int(value: int) -> int:
    """``value`` as a plain int, if JSON can write and read it back (at most 4,300 digits).

    Raises:
        InvalidValueError: If it has more decimal digits than Python's int-to-str limit.

    Example:
        >>> check_int(10**20)
        100000000000000000000
    """
    return _check_int(value)


def _plain(value: Any, depth: int = 0) -> Any:
    """Check ``value`` and return its plain JSON form (a new object, never the caller's)."""
    if depth > 32:
        raise InvalidValueError("value is nested more than 32 levels deep; flatten it")
    if value is None:
        if depth == 0:
            raise InvalidValueError("value must not be None; to forget a value use revoke()")
        return None
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return _check_int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidValueError(f"value {safe_repr(value)} is not finite; pass a finite number")
        return float.__float__(value)
    if isinstance(value, str):
        if not _utf8_ok(value):
            raise InvalidValueError("value holds invalid surrogates; pass valid UTF-8 text")
        return str.__str__(value)
    if isinstance(value, list | tuple):
        return [_plain(item, depth + 1) for item in value]
    if isinstance(value, Mapping):
        try:
            items = list(value.items())
        except Exception as exc:  # a Mapping that cannot be read is refused, never leaked
            raise InvalidValueError(
                f"the {type(value).__name__} value could not be read ({safe_repr(exc)}); pass a "
                "dict"
            ) from exc
        out: dict[str, Any] = {}
        for k, item in items:
            if not isinstance(k, str):
                raise InvalidValueError(
                    f"object keys must be strings, got {type(k).__name__}; convert them to str"
                )
            if not _utf8_ok(k):
                raise InvalidValueError("an object key holds invalid surrogates")
            out[str.__str__(k)] = _plain(item, depth + 1)
        return out
    raise InvalidValueError(
        f"value of type {type(value).__name__} cannot be serialised; pass a string, number, "
        "boolean, list or dict of those"
    )


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` is this
encoder's ``encode`` (``dumps`` builds an equal one per call: a third of the call's time, paid
once per record a namespace's first touch folds). ``encode`` keeps no state between calls."""


def canonical_json(value: Any) -> str:
    """Return the canonical JSON text of a value (sorted keys, no spaces, UTF-8).

    Example:
        >>> canonical_json({"b": [1, 2.5], "a": "é"})
        '{"a":"é","b":[1,2.5]}'
    """
    return _CANONICAL.encode(value)


def validate_value(value: object) -> Any:
    """Check that ``value`` can be stored and return its plain JSON copy.

    The copy is made of ``dict``, ``list``, ``str``, ``int``, ``float`` and ``bool`` only: any
    ``Mapping`` (``MappingProxyType``, ``OrderedDict``, ...) becomes a ``dict``, a tuple a list,
    and subclasses of the scalar types their base type. It is a new object, so later changes to
    the caller's value do not reach what is stored.

    Raises:
        InvalidValueError: If the value is ``None``, of a type JSON cannot hold, not finite, an
            integer of more than 4,300 digits (Python's int-to-str limit), holds invalid
            surrogates or non-string object keys, is nested more than 32 levels, does not
            come back equal from ``json.dumps``/``json.loads``, or its JSON form is larger than
            64 KiB.

    Example:
        >>> validate_value(("a", 1))
        ['a', 1]
    """
    plain = _plain(value)
    if isinstance(plain, str) and len(plain) > MAX_VALUE_BYTES:
        raise InvalidValueError(  # cheap early exit before encoding a huge string
            f"value is {len(plain)} characters long; keep values under {MAX_VALUE_BYTES} bytes "
            "and put long text in `text=`"
        )
    try:
        text = canonical_json(plain)
        same = json.loads(text) == plain
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidValueError(f"value cannot be written as JSON ({exc}); simplify it") from exc
    if not same:
        raise InvalidValueError(
            "value does not come back equal from Python's json (dumps then loads); pass plain "
            "strings, numbers, booleans, lists and dicts"
        )
    size = len(text.encode("utf-8"))
    if size > MAX_VALUE_BYTES:
        raise InvalidValueError(
            f"value is {size} bytes as JSON; keep values under {MAX_VALUE_BYTES} bytes and put "
            "long text in `text=`"
        )
    return plain


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
    """A stable hexadecimal digest of ``text`` (SHA-256, truncated; lone surrogates hash too)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def value_identity(value: Any, *, normalize: bool = True) -> str:
    """The identity of a value: equal identities mean the same precedent under one key."""
    if isinstance(value, str | int | float):  # the common case, memoised (typed: 1 != True)
        return _scalar_identity(value, normalize)
    return short_hash(canonical_json(_normalize(value) if normalize else value), 16)


@functools.lru_cache(maxsize=65536, typed=True)
def _scalar_identity(value: str | float, normalize: bool) -> str:
    return short_hash(canonical_json(_normalize(value) if normalize else value), 16)


_SLUG = re.compile(r"[^\w]+", re.UNICODE)


def value_key(key: str, value: Any) -> str:
    """The key of one value of a multi-valued attribute, where each value is a key of its own.

    Extractors mark an attribute multi-valued (pets, languages: ``Fact.metadata["multi_valued"]``)
    when the policy does not declare it so; such a fact is stored under this key, so its values
    never conflict.

    Example:
        >>> value_key("user.pets", "Golden Retriever")
        'user.pets.golden_retriever'
    """
    slug = _SLUG.sub("_", str(value).casefold()).strip("_")[:64] or "value"
    return f"{key}.{slug}"
