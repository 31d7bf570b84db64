"""Sentence frames around a claim: a request, a causative, a purpose, a trailing place.

* :func:`request`: what the user asked others to do for them ("asked everyone to call them
  Jules": the name; "asked to switch replies to Romanian": the reply language) and what they
  had done to a thing ("had the hair coloured grey": the hair colour, changed).
* :func:`purpose`: a name followed by what it is for ("Nova for coding"): the words after the
  name name the attribute.
* :data:`PLACE`: a trailing place of a thing ("the Nord theme in the editor").

Example:
    >>> request("user asked to be called Kit")
    ('name', 'Kit', False)
"""

from __future__ import annotations

import re

from langchain_tepa.extraction.families import FAMILIES, Family
from langchain_tepa.extraction.generic import infer_family
from langchain_tepa.extraction.values import clean_value, vocab_value

__all__ = ["PLACE", "purpose", "request"]

_I = re.IGNORECASE
_PURPOSE = re.compile(
    r"^(?P<name>(?:the\s+|a\s+|an\s+)?[A-Z0-9][\w.&'’+-]*(?:\s+[A-Z0-9][\w.&'’+-]*){0,3})\s+"
    r"(?P<rest>(?:for|as|to|in|on|at|with)\s+[a-z][a-z ]*?)(?:\s+(?:now|recently|too))?$"
)

PLACE = re.compile(r"\s+(?:in|on|at|for|with)\s+(?:the|my|our|their|his|her)\s+[a-z]+\W*$")
"""A trailing place of a thing: "the Nord theme *in the editor*" (the value's noun comes first)."""


def purpose(raw: str) -> tuple[Family, str] | None:
    """A name followed by what it is for ("Nova for coding", "Evolution for email").

    The words after the name say which attribute it is a value of, more surely than the verb
    ("moved over to Nova for coding" is no move of home), when they name one family.

    Example:
        >>> family, value = purpose("Nova for coding")
        >>> family.name, value
        ('editor', 'Nova')
    """
    m = _PURPOSE.match(raw.strip().rstrip(".!"))
    if m is None:
        return None
    name = re.sub(r"^(?:the|a|an)\s+", "", m.group("name"))
    found = infer_family((), name, m.group("rest").split())
    return (FAMILIES[found[0]], found[1]) if found is not None else None


_ASKED = re.compile(
    r"^(?:I|we|(?:the\s+)?user)\s+(?:has\s+|have\s+)?(?:asked|requested|told)\s+"
    r"(?:(?:everyone|everybody|people|you|us|me|the\s+assistant|others|them)\s+)?to\s+(?P<rest>.+)$",
    _I,
)
_ASKED_NAME = re.compile(
    r"^(?:(?:call|address)\s+(?:them|him|her|me|the\s+user)|be\s+(?:called|addressed\s+as|"
    r"known\s+as))\s+(?P<v>[A-Z][\w'’-]*)",
    _I,
)
_ASKED_LANGUAGE = re.compile(
    r"^(?:(?:switch|change)\s+(?:the\s+)?(?:replies|answers|responses|language)?\s*(?:over\s+)?"
    r"to|(?:reply|answer|respond|write)\s+(?:back\s+)?in)\s+(?P<v>[A-Z]\w+)",
    _I,
)
_HAD_DONE = re.compile(
    r"^(?:I|we|(?:the\s+)?user)\s+(?:has\s+|have\s+|just\s+)*(?:had|got|gets|has)\s+"
    r"(?:my|our|the|their|his|her)\s+(?P<label>[a-z]+(?:\s+[a-z]+)?)\s+(?P<verb>[a-z]+ed)\s+"
    r"(?:to\s+|in\s+|into\s+)?(?P<value>\S.*)$",
    _I,
)


def request(text: str) -> tuple[str, str, bool] | None:
    """What the user asked for, or had done: a request or a causative.

    "asked everyone to call them Jules" (the name), "asked to switch replies to Romanian" (the
    reply language), "had the hair coloured grey" (the thing's new state, a change).

    Returns:
        ``(relation, value, whether the sentence says the value changed)`` or None.

    Example:
        >>> request("User asked everyone to call them Jules")
        ('name', 'Jules', False)
        >>> request("I had my hair coloured grey")
        ('hair_colour', 'grey', True)
        >>> request("The user asked about the weather") is None
        True
    """
    if (m := _ASKED.match(text)) is not None:
        rest = m.group("rest")
        if (n := _ASKED_NAME.match(rest)) is not None:
            return "name", n.group("v"), False
        lang = _ASKED_LANGUAGE.match(rest)
        reply = FAMILIES["reply_language"]
        if lang is not None and vocab_value(lang.group("v"), reply.name, reply.vocab):
            return "reply_language", lang.group("v"), False
        return None
    if (h := _HAD_DONE.match(text)) is not None:
        found = infer_family([h.group("label"), h.group("verb")], clean_value(h.group("value")))
        if found is not None:
            return found[0], found[1], True
    return None
