"""Keys, namespaces and values at the boundary: invisible characters, tuple namespaces, JSON.

Property tests (hypothesis) for ``langchain_tepa.core.values`` and the string-for-a-list check of
``langchain_tepa.validation``, plus a few checks through the public ``TEPAMemory`` API.
"""

from __future__ import annotations

import enum
import json
import math
import re
import sys
import unicodedata
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langchain_tepa import (
    HashingEmbeddings,
    InvalidArgumentError,
    InvalidKeyError,
    InvalidNamespaceError,
    InvalidValueError,
    TEPAError,
    TEPAMemory,
)
from langchain_tepa.core.values import (
    MAX_INT_DIGITS,
    canonical_json,
    forbidden_character,
    validate_key,
    validate_namespace,
    validate_value,
)
from langchain_tepa.validation import iterate_items

# The characters issue 17 names, each of which must be refused in keys and namespaces.
NAMED_INVISIBLE = {
    "\u200b": "ZERO WIDTH SPACE",
    "\u200c": "ZERO WIDTH NON-JOINER",
    "\u200d": "ZERO WIDTH JOINER",
    "\u2060": "WORD JOINER",
    "\ufeff": "ZERO WIDTH NO-BREAK SPACE",  # the byte-order mark
    "\u200e": "LEFT-TO-RIGHT MARK",
    "\u200f": "RIGHT-TO-LEFT MARK",
    "\u202a": "LEFT-TO-RIGHT EMBEDDING",
    "\u202b": "RIGHT-TO-LEFT EMBEDDING",
    "\u202c": "POP DIRECTIONAL FORMATTING",
    "\u202d": "LEFT-TO-RIGHT OVERRIDE",
    "\u202e": "RIGHT-TO-LEFT OVERRIDE",
    "\u2066": "LEFT-TO-RIGHT ISOLATE",
    "\u2067": "RIGHT-TO-LEFT ISOLATE",
    "\u2068": "FIRST STRONG ISOLATE",
    "\u2069": "POP DIRECTIONAL ISOLATE",
    "\u061c": "ARABIC LETTER MARK",
    "\u00ad": "SOFT HYPHEN",
    "\u180e": "MONGOLIAN VOWEL SEPARATOR",
    "\u3164": "HANGUL FILLER",
    "\u2028": "LINE SEPARATOR",
}
BIDI = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

visible_text = st.text(
    alphabet=st.characters(
        categories=["Lu", "Ll", "Lt", "Lo", "Nd", "Pc", "Pd", "Sm", "So"],
        exclude_characters="\u2800\u3164\uffa0\u115f\u1160.",
    ),
    min_size=1,
    max_size=12,
)
invisible_char = st.one_of(
    st.sampled_from(sorted(NAMED_INVISIBLE)),
    st.characters(categories=["Cf", "Cc", "Zl", "Zp"]),
)


# --------------------------------------------------------------------------- keys, namespaces
@pytest.mark.parametrize("char", sorted(NAMED_INVISIBLE), ids=lambda c: f"U+{ord(c):04X}")
def test_named_invisible_characters_are_refused_and_named(char: str) -> None:
    code = re.escape(f"U+{ord(char):04X}")
    with pytest.raises(InvalidKeyError, match=code) as key_err:
        validate_key(f"user{char}.diet")
    assert NAMED_INVISIBLE[char] in str(key_err.value)
    with pytest.raises(InvalidNamespaceError, match=code):
        validate_namespace(f"users.u{char}1")
    with pytest.raises(InvalidNamespaceError, match=code):
        validate_namespace(("users", f"u1{char}"))
    if char in BIDI:
        assert "bidirectional" in str(key_err.value)


@given(prefix=visible_text, bad=invisible_char, suffix=visible_text)
def test_any_invisible_character_inside_a_key_or_namespace_is_refused(
    prefix: str, bad: str, suffix: str
) -> None:
    key = f"{prefix}{bad}{suffix}"
    with pytest.raises(InvalidKeyError) as err:
        validate_key(key)
    assert f"U+{ord(bad):04X}" in str(err.value)
    assert f"position {len(prefix)}" in str(err.value)
    with pytest.raises(InvalidNamespaceError):
        validate_namespace(key)
    assert forbidden_character(key) is not None


@given(labels=st.lists(visible_text, min_size=1, max_size=4))
def test_visible_names_pass_and_tuple_list_and_dotted_forms_agree(labels: list[str]) -> None:
    dotted = ".".join(labels)
    assert forbidden_character(dotted) is None
    assert validate_key(dotted) == dotted
    assert validate_namespace(dotted) == dotted
    assert validate_namespace(tuple(labels)) == dotted
    assert validate_namespace(list(labels)) == dotted


@pytest.mark.parametrize(
    ("namespace", "match"),
    [
        ((), "empty"),
        ([], "empty"),
        (("users", "u.1"), "contains '.'"),
        (("users", ""), "empty or padded"),
        (("users", " u1"), "empty or padded"),
        (("users", 1), "labels must be strings"),
        (("users", None), "labels must be strings"),
        ({"users": "u1"}, "tuple of labels"),
        (b"users", "tuple of labels"),
        (7, "tuple of labels"),
    ],
)
def test_bad_tuple_namespaces_are_typed_errors(namespace: object, match: str) -> None:
    with pytest.raises(InvalidNamespaceError, match=match):
        validate_namespace(namespace)


def test_memory_accepts_dotted_tuple_and_list_namespaces_alike() -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    memory.observe("user.diet", "vegan", namespace=("users", "u1"))
    assert memory.get("user.diet", namespace="users.u1") == "vegan"
    assert memory.get("user.diet", namespace=["users", "u1"]) == "vegan"
    assert memory.namespaces() == ["users.u1"]
    docs = memory.as_retriever(namespace=("users", "u1")).invoke("diet")
    assert [d.metadata["namespace"] for d in docs] == ["users.u1"]
    before = memory.evidence_count()
    with pytest.raises(InvalidNamespaceError, match="U\\+202E"):
        memory.observe("user.diet", "vegan", namespace=("users", "u1\u202e"))
    with pytest.raises(InvalidKeyError, match="U\\+200B"):
        memory.observe("user\u200b.diet", "vegan")
    assert memory.evidence_count() == before


# --------------------------------------------------------------------------- values
class Colour(enum.IntEnum):
    RED = 1


class Label(str, enum.Enum):
    A = "a"


def _reference_plain(value: Any) -> Any:
    """What validate_value should return, computed independently (JSON forms only)."""
    if isinstance(value, Mapping):
        return {str(k): _reference_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_reference_plain(v) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return json.loads(int.__repr__(value))
    if isinstance(value, str):
        return str.__str__(value)
    return value


json_scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from([Colour.RED, Label.A]),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    dicts = st.dictionaries(st.text(max_size=8), children, max_size=4)
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        dicts,
        dicts.map(MappingProxyType),
        dicts.map(OrderedDict),
    )


json_like = st.recursive(json_scalars, _containers, max_leaves=20)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_like)
def test_json_like_values_come_back_as_their_plain_json_copy(value: Any) -> None:
    plain = validate_value(value)
    assert plain == _reference_plain(value)
    assert json.loads(json.dumps(plain)) == plain
    # only plain JSON types, never the caller's objects
    stack = [plain]
    while stack:
        item = stack.pop()
        assert type(item) in (dict, list, str, int, float, bool)
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def test_the_copy_shares_nothing_with_the_callers_value() -> None:
    inner = {"toppings": ["olive"]}
    value = {"pizza": inner}
    plain = validate_value(value)
    inner["toppings"].append("anchovy")
    inner["size"] = "large"
    assert plain == {"pizza": {"toppings": ["olive"]}}


def test_mapping_proxy_is_accepted_as_a_dict_by_the_memory() -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    proxy = MappingProxyType({"topping": "olive", "extras": ("basil",)})
    memory.observe("user.pizza", proxy)
    assert memory.get("user.pizza") == {"topping": "olive", "extras": ["basil"]}


class BrokenMapping(Mapping[str, Any]):
    """A Mapping whose items cannot be read."""

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("this mapping cannot be iterated")

    def __len__(self) -> int:
        return 1


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (None, "None"),
        ({1, 2}, "set"),
        (b"bytes", "bytes"),
        (object(), "object"),
        ({1: "x"}, "keys must be strings"),
        (MappingProxyType({1: "x"}), "keys must be strings"),
        (BrokenMapping(), "could not be read"),
        (math.nan, "not finite"),
        ([math.inf], "not finite"),
        ("\ud800", "surrogates"),
        (10**MAX_INT_DIGITS, "4300"),
        (-(10**MAX_INT_DIGITS), "int-to-str limit"),
        ({"n": [10**5000]}, "4300"),
        ("x" * (70 * 1024), "keep values under"),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else None,
)
def test_unstorable_values_are_typed_errors(value: object, match: str) -> None:
    with pytest.raises(InvalidValueError, match=match):
        validate_value(value)


def test_integers_up_to_the_limit_round_trip() -> None:
    biggest = 10**MAX_INT_DIGITS - 1
    assert validate_value(biggest) == biggest
    assert validate_value([-biggest]) == [-biggest]


def test_a_lower_interpreter_limit_is_honoured() -> None:
    old = sys.get_int_max_str_digits()
    try:
        sys.set_int_max_str_digits(1000)
        with pytest.raises(InvalidValueError, match="1000 decimal digits"):
            validate_value(10**1200)
        sys.set_int_max_str_digits(0)  # unlimited here, but JSON must stay readable elsewhere
        with pytest.raises(InvalidValueError, match="4300 decimal digits"):
            validate_value(10**4400)
    finally:
        sys.set_int_max_str_digits(old)


anything = st.recursive(
    st.one_of(
        json_scalars,
        st.none(),
        st.floats(),
        st.integers(),
        st.binary(max_size=4),
        st.sets(st.integers(), max_size=2),
        st.builds(object),
        st.text(alphabet=st.characters(categories=["Cs"]), min_size=1, max_size=2),
        st.integers(min_value=4200, max_value=4500).map(lambda d: 10**d),
    ),
    lambda children: st.one_of(
        _containers(children),
        st.dictionaries(st.integers(), children, max_size=2),
        st.dictionaries(st.integers(), children, max_size=2).map(MappingProxyType),
    ),
    max_leaves=12,
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(value=anything)
def test_validate_value_accepts_or_raises_a_typed_error_never_anything_else(value: Any) -> None:
    try:
        plain = validate_value(value)
    except InvalidValueError:
        return
    assert json.loads(json.dumps(plain)) == plain


def _dumps_or_error(dump: Any, value: Any) -> str:
    try:
        return str(dump(value))
    except Exception as exc:  # the error itself is what is compared
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(value=st.one_of(json_like, anything))
def test_canonical_json_is_exactly_json_dumps_with_its_options(value: Any) -> None:
    """One shared encoder: the same text as ``json.dumps`` each time, or the same error."""

    def dumps(v: Any) -> str:
        return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    want = _dumps_or_error(dumps, value)
    assert _dumps_or_error(canonical_json, value) == want
    assert _dumps_or_error(canonical_json, value) == want  # nothing kept from the last call


def test_canonical_json_refuses_cycles_and_nan_as_json_dumps_does() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        canonical_json(loop)
    assert canonical_json([math.nan, math.inf]) == "[NaN,Infinity]"
    assert canonical_json({"b": 1, "a": ["é", 2.5]}) == '{"a":["é",2.5],"b":1}'


# --------------------------------------------------------------------------- a text for a list
@pytest.mark.parametrize("single", ["The capital of Peru is Lima.", b"bytes", bytearray(b"x")])
def test_a_single_text_where_a_list_is_expected_is_refused(single: object) -> None:
    with pytest.raises(InvalidArgumentError, match="wrap it in a list"):
        iterate_items(single, "texts")
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    with pytest.raises(TEPAError, match="list"):  # a typed error, never a per-character read
        memory.observe_many(single)  # type: ignore[arg-type]
    assert memory.evidence_count() == 0


def test_unicode_names_in_messages_are_the_standard_ones() -> None:
    for char, name in NAMED_INVISIBLE.items():
        assert unicodedata.name(char) == name
