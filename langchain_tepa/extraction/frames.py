"""Sentence frames around a claim: a request, a causative, a purpose, a trailing place.

* :func:`request`: what the user asked others to do for them ("asked everyone to call them
  Jules": the name; "asked to switch replies to Romanian": the reply language) and what they
  had done to a thing ("had the hair coloured grey": the hair colour, changed).
* :func:`purpose`: a name followed by what it is for ("Nova for coding"): the words after the
  name name the attribute.
* :data:`PLACE`: a trailing place of a thing ("the Nord theme in the editor").
* :func:`liking`: a liking that names one favourite ("likes X most", "loves the colour X").

Example:
    >>> request("user asked to be called Kit")
    ('name', 'Kit', False)
"""

from __future__ import annotations

import re

from langchain_tepa.extraction.families import FAMILIES, Family
from langchain_tepa.extraction.generic import infer_family
from langchain_tepa.extraction.values import clean_value, vocab_value

__all__ = ["PLACE", "liking", "purpose", "request"]

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


_LIKE = (
    r"(?:(?:started|began|starts|begins)\s+)?(?:likes?|liked|liking|loves?|loved|loving|"
    r"enjoys?|enjoyed|enjoying|prefers?|preferred|preferring)"
)
_MOST = re.compile(
    rf"^(?:(?:now|currently|really|also|still|just)\s+)*{_LIKE}\s+(?P<value>.+?)\s+"
    r"(?:the\s+)?(?:most|best)(?:\s+of\s+all)?$",
    _I,
)
_APPOSITION = re.compile(
    rf"^(?:(?:now|currently|really|also|still|just)\s+)*{_LIKE}\s+(?:the\s+)?"
    r"(?P<label>[a-z]+)\s+(?P<value>[a-z][\w-]*)$",
    _I,
)


def _favourite(family: Family | None) -> bool:
    return (
        family is not None
        and not family.multi_valued
        and (
            family.name.startswith("favourite")
            or any(x.startswith("favourite ") for x in family.labels)
        )
    )


def liking(pred: str) -> tuple[str, str] | None:
    """A liking that names one favourite: ``(family or "favourite", value)``, or None.

    "likes X most" / "best" says which one is the favourite (a single value): the value's noun
    or its words name the family ("Sichuan food": the cuisine; "coding in Zig": the
    programming language), else the claim is the bare ``favourite`` for key resolution.
    "loves the colour X" names a favourite family by its label noun.

    Example:
        >>> liking("loves Sichuan food most"), liking("likes coding in Zig best")
        (('cuisine', 'Sichuan'), ('programming_language', 'Zig'))
        >>> liking("loves the colour teal"), liking("started liking teal most")
        (('favourite_colour', 'teal'), ('favourite', 'teal'))
        >>> liking("loves hiking") is None
        True
    """
    from langchain_tepa.extraction.families import family_of_label
    from langchain_tepa.extraction.verb_patterns import value_tail

    if (m := _MOST.match(pred.strip())) is not None:
        value = clean_value(m.group("value"))
        tail = value_tail(value)
        if tail is not None and not tail[0].multi_valued:
            return tail[0].name, tail[1]
        words = value.split()
        cut = next((i for i, w in enumerate(words) if w[:1].isupper() or w[:1].isdigit()), None)
        if cut:
            found = infer_family(words[:cut], " ".join(words[cut:]))
            if found is not None:
                return found
        return ("favourite", value) if value and len(words) <= 3 else None
    if (a := _APPOSITION.match(pred.strip())) is not None:
        family = family_of_label(a.group("label"))
        if _favourite(family):
            assert family is not None
            return family.name, a.group("value")
    return None
