"""Verb phrases of the attribute families, compiled: which verb states which attribute.

A family's verbs (``{live} in``, ``{be} based in``) and the generic verbs read by the value
(``{use}``, ``{switch} to``: "I switched to Neovim" is about an editor because Neovim is one)
are compiled once into anchored patterns, indexed by the verb's forms, so a clause is tried only
against the patterns of the verbs it holds (:func:`candidates`).

Example:
    >>> clause = "moved to Oslo last month"
    >>> hits = [(p[0].match(clause), p[1]) for p in candidates(clause)]
    >>> [(m.group("value"), [f.name for f in fams]) for m, fams in hits if m][-1]
    ('Oslo last month', ['home_city'])
"""

from __future__ import annotations

import re

from langchain_tepa.extraction.families import FAMILIES, Family, family_of_label, inflect
from langchain_tepa.extraction.values import (
    ARTICLE,
    clean_value,
    trim_tail,
    value_fits,
    vocab_value,
)
from langchain_tepa.extraction.vocabularies import BANKS, TIMEZONES, all_words

__all__ = ["candidates", "read_value", "value_tail"]

_I = re.IGNORECASE

_ADVERBS = (
    r"(?:now|currently|also|still|just|recently|actually|officially|finally|already|newly|"
    r"permanently|mostly|mainly|usually|primarily|really|happily|since|then|full[- ]time|"
    r"proudly|lately|nowadays|again|always|only|exclusively|normally|typically|generally|"
    r"regularly|often|mostly|all)"
)
_AUX = r"(?P<aux>have|has|had|do|does|did|am|is|are|was|were|can|would)"
_STARTS = (
    r"(?:(?:start|starts|started|starting|began|begun|begin|switched\s+to|taken\s+to|took\s+to|"
    r"gone\s+back\s+to|went\s+back\s+to|been)\s+)?"
)
_BEST_OF_ALL = re.compile(
    r"^(?:\w+\s+)?(?P<value>.+?)\s+(?:the\s+)?(?:best|most)\s+of\s+all\s+(?:the\s+)?"
    r"(?P<label>[a-z]+?)s?$",
    _I,
)
_ALL_VOCAB = all_words()
_ZONE = re.compile(r"^(?:the\s+)?((?:UTC|GMT)\s*[+-−]\s*\d{1,2}(?::\d\d)?|[A-Z]\w+/\w+|\w+)")
_TAILS = frozenset(
    {
        "area",
        "district",
        "neighbourhood",
        "neighborhood",
        "quarter",
        "team",
        "food",
        "cuisine",
        "phone",
        "smartphone",
        "theme",
        "timezone",
        "time zone",
        "hair",
        "watch",
        "laptop",
        "browser",
        "shell",
        "editor",
        "layout",
        "diet",
        "cooking",
        "fan",
        "supporter",
        "database",
        "airline",
        "car",
        "editor theme",
        "notes app",
        "music app",
        "password manager",
        "keyboard layout",
        "email client",
        "code editor",
        "operating system",
    }
)
_TOOLS = (
    "editor_theme",
    "editor",
    "browser",
    "operating_system",
    "programming_language",
    "email_client",
    "shell",
    "music_app",
    "notes_app",
    "password_manager",
    "cloud_provider",
    "database",
    "keyboard_layout",
    "mobile_carrier",
    "laptop",
    "phone",
    "watch",
    "airline",
    "bank",
)
_THINGS_OWNED = ("car", "laptop", "phone", "watch")
_GENERIC: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("{use}", _TOOLS),
    ("{prefer}", _TOOLS),
    ("{switch} (?:over |back )?to", (*_TOOLS, "diet")),
    ("{change} to", (*_TOOLS, "diet")),
    ("{move} (?:over )?to", _TOOLS),
    ("{migrate} to", _TOOLS),
    ("{go} with", _TOOLS),
    ("{go} (?:over |back )?to", _TOOLS),
    ("{install}", _TOOLS),
    ("{set} up", _TOOLS),
    ("{export} (?:everything|all|it all|my data|their data) (?:in)?to", _TOOLS),
    ("{import} (?:everything|all|it all|my data|their data) (?:in)?to", _TOOLS),
    ("{sign} up (?:for|with)", _TOOLS),
    ("{retrain} (?:myself|themselves|himself|herself) (?:on|to use)", _TOOLS),
    ("{settle} on", _TOOLS),
    ("{go}", ("diet",)),
    ("{become}", ("diet",)),
    ("{follow}", ("diet",)),
    ("{eat}", ("diet",)),
    ("{be}", ("diet",)),
    ("{be} on", ("operating_system", "diet", "mobile_carrier", "cloud_provider", "timezone")),
    ("{write} code in", ("editor", "programming_language")),
    ("{code} in", ("editor", "programming_language")),
    ("{own}", (*_THINGS_OWNED, "pets")),
    ("{have}", ("pets", "children", *_THINGS_OWNED)),
    ("{get}", ("pets", *_THINGS_OWNED)),
    ("{buy}", _THINGS_OWNED),
    ("{upgrade} to", _THINGS_OWNED),
    ("{take} up", ("sport",)),
    ("{play}", ("instruments", "sport")),
    ("{run}", ("operating_system", "shell", "database", "cloud_provider")),
)
_Pattern = tuple[re.Pattern[str], tuple[Family, ...], str, bool]
_GENERIC_VOCAB = {"bank": BANKS}
"""Vocabularies of families whose own verbs take any name, read when a generic verb is used."""


def _verb_regex(verb: str) -> tuple[re.Pattern[str], str]:
    m = re.match(r"^\{(\w+)\}(.*)$", verb)
    assert m is not None, verb
    lemma, rest = m.group(1), m.group(2)
    before, _, after = rest.partition("{v}")
    before = before.replace(" ", r"\s+").removesuffix(r"\s+")
    after = after.replace(" ", r"\s+")
    value = r"(?P<value>\S.*?)" + after + r"(?:\s+.*)?" if after else r"(?P<value>\S.*)"
    head = rf"(?P<verb>{inflect(lemma)})(?:\s+{_ADVERBS})*{before}"
    regex = (
        rf"^(?:{_ADVERBS}\s+)*(?:{_AUX}\s+)?(?:{_ADVERBS}\s+)*{_STARTS}(?:{_ADVERBS}\s+)*"
        rf"{head}\s+{value}$"
    )
    return re.compile(regex, _I), lemma


def _patterns() -> list[_Pattern]:
    rows: list[tuple[str, tuple[Family, ...], bool]] = [
        (verb, tuple(FAMILIES[n] for n in names), True) for verb, names in _GENERIC
    ]
    rows += [(verb, (f,), False) for f in FAMILIES.values() for verb in f.verbs]
    rows.sort(key=lambda row: -len(row[0].replace("{v}", "")))  # the longer phrase first
    out = []
    for verb, families, generic in rows:
        regex, lemma = _verb_regex(verb)
        out.append((regex, families, lemma, generic))
    return out


_PATTERNS = _patterns()
_BY_FORM: dict[str, list[int]] = {}
for _i, (_regex, _families, _lemma, _generic) in enumerate(_PATTERNS):
    for _form in inflect(_lemma).split("|"):
        _BY_FORM.setdefault(_form.replace("'", "").casefold(), []).append(_i)


def _candidates(pred: str) -> list[_Pattern]:
    """The patterns whose verb is one of the first words of ``pred`` (in pattern order)."""
    found: set[int] = set()
    for word in pred.casefold().split()[:6]:
        found.update(_BY_FORM.get(word.strip(",.;:!"), ()))
    return [_PATTERNS[i] for i in sorted(found)]


_PAST = re.compile(r"^(?:\w+ed|was|were|had|drove|spoke|got|went|ate|wrote|became|left|took)$")
_STATE_LEMMAS = frozenset(
    {
        "live",
        "work",
        "use",
        "prefer",
        "like",
        "love",
        "enjoy",
        "have",
        "own",
        "drive",
        "speak",
        "play",
        "be",
        "reside",
        "stay",
        "bank",
        "train",
        "support",
        "follow",
        "eat",
        "drink",
        "study",
        "attend",
        "wear",
        "fly",
        "type",
        "code",
        "write",
        "read",
        "listen",
        "stream",
        "commute",
        "report",
        "date",
        "rent",
        "keep",
        "see",
        "browse",
        "run",
        "go",
        "store",
    }
)
"""Verbs of a state: their simple past says the state is over ("I lived in Paris")."""
_CHANGE_LEMMAS = frozenset(
    {
        "move",
        "relocate",
        "settle",
        "join",
        "switch",
        "change",
        "become",
        "start",
        "get",
        "go",
        "transfer",
        "upgrade",
        "migrate",
        "buy",
        "take",
        "adopt",
        "register",
        "port",
        "dye",
    }
)


def _tail(raw: str) -> tuple[Family, str] | None:
    """A value that ends with the noun of a family ("Thai food", "the payments team")."""
    text = clean_value(raw)
    words = text.split()
    for n in (2, 1):
        if len(words) > n and " ".join(words[-n:]).casefold() in _TAILS:
            family = family_of_label(" ".join(words[-n:]))
            value = " ".join(words[:-n])
            if value != trim_tail(value):  # "X in the editor": a place, not "the X theme"
                return None
            if family is not None and value:
                return family, ARTICLE.sub("", value)
    return None


def _read(raw: str, family: Family, generic: bool = False) -> str | None:
    """The value of ``family`` in ``raw``, or None when ``raw`` cannot be one."""
    if family.name == "timezone":
        zone = _ZONE.match(raw)
        if zone is None or not (
            zone.group(1).casefold() in TIMEZONES or not zone.group(1).isalpha()
        ):
            return None
        return zone.group(1)
    vocab = family.vocab or (_GENERIC_VOCAB.get(family.name, frozenset()) if generic else None)
    if vocab is not None and (vocab or generic):
        return vocab_value(raw, family.name, vocab) if vocab else None
    if family.name == "partner" and (
        len(raw.split()) > 2 or raw.split()[0].casefold() in _ALL_VOCAB
    ):
        return None
    if family.name in ("hobbies", "likes"):
        first = raw.split()[0] if raw.split() else ""
        if (family.name == "hobbies") != first.endswith("ing") or re.match(
            r"^(?:to|it|that|this|them|him|her)\b", raw
        ):
            return None
    value = clean_value(raw, family.kind)
    if family.kind == "name" and not value[:1].isupper() and not value[:1].isdigit():
        return None
    if not value_fits(family.name, value):
        return None
    return value or None


candidates = _candidates
read_value = _read
value_tail = _tail
