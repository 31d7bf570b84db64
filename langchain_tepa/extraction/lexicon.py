"""The words and small text helpers the offline extractor reads sentences with.

``DIETS`` and ``OCCUPATIONS`` are the vocabularies of self-descriptions ("I'm vegan", "I'm a
nurse"); :func:`normalize_key_part` is the canonical form of a key segment.

Example:
    >>> "vegan" in DIETS, "nurse" in OCCUPATIONS
    (True, True)
    >>> normalize_key_part("New York")
    'new_york'
"""

from __future__ import annotations

import re

__all__ = ["DIETS", "OCCUPATIONS", "normalize_key_part"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ARTICLES = frozenset({"a", "an", "the"})
_AUX = frozenset({"is", "was", "are", "were", "be", "been", "being", "has", "have", "had", "am"})
_PREPS = frozenset(
    {
        "about",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "to",
        "under",
        "with",
        "within",
    }
)
_NEGATIONS = frozenset({"not", "never", "no", "n't", "nobody", "nothing"})
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "we", "our"})
_RELATIVE = frozenset({"that", "which", "where", "who", "whom", "whose", "when"})
_PREFER_VERBS = (
    "prefer",
    "like",
    "love",
    "use",
    "want",
    "choose",
    "pick",
    "switched to",
    "moved to",
    "changed to",
)
_COPULA = r"(?:is|was|are|were|has been|had been|is now|was now|am)"
# Words that may stand inside a proper name in lower case ("Bank of America", "Ludwig van
# Beethoven") when a capitalised word follows them.
_NAME_LINKS = frozenset(
    {"of", "de", "da", "del", "der", "di", "du", "la", "le", "the", "van", "von", "and", "&"}
)

_BOUNDARY = re.compile(r"[.!?]+\s+(?=[\"'A-Z0-9])|\n+")
_ABBREVIATIONS = frozenset(
    {"dr", "mr", "mrs", "ms", "st", "jr", "sr", "inc", "co", "ltd", "mt", "vs", "no", "prof"}
)
_MAX_SENTENCE = 600
_SHOWN_CHARS = 200  # an unextracted sentence longer than this is shown cut, with "..."

DIETS = frozenset(
    {
        "vegetarian",
        "vegan",
        "pescatarian",
        "pescetarian",
        "flexitarian",
        "fruitarian",
        "omnivore",
        "omnivorous",
        "carnivore",
        "lacto-vegetarian",
        "ovo-vegetarian",
        "lacto-ovo vegetarian",
        "plant-based",
        "keto",
        "paleo",
        "gluten-free",
        "dairy-free",
        "kosher",
        "halal",
        "low-carb",
        "low-fat",
        "low-fodmap",
        "mediterranean",
        "atkins",
        "whole30",
    }
)
"""Words that ``I'm [a/an] <word>`` reads as the speaker's diet (``user.diet``)."""

OCCUPATIONS = frozenset(
    {
        "accountant",
        "administrator",
        "analyst",
        "coordinator",
        "director",
        "entrepreneur",
        "executive",
        "founder",
        "recruiter",
        "marketer",
        "architect",
        "assistant",
        "author",
        "baker",
        "banker",
        "barista",
        "cashier",
        "chef",
        "clerk",
        "consultant",
        "cook",
        "designer",
        "developer",
        "doctor",
        "driver",
        "editor",
        "electrician",
        "farmer",
        "firefighter",
        "freelancer",
        "intern",
        "journalist",
        "lawyer",
        "lecturer",
        "manager",
        "mechanic",
        "nurse",
        "officer",
        "paramedic",
        "pharmacist",
        "photographer",
        "pilot",
        "plumber",
        "professor",
        "programmer",
        "researcher",
        "retiree",
        "student",
        "surgeon",
        "teacher",
        "translator",
        "tutor",
        "vet",
        "waiter",
        "writer",
    }
)
"""Words that ``I'm a/an <word>`` reads as the speaker's occupation (``user.occupation``), with
the words ending in ``-ist``, ``-ician``, ``-eer``, ``-ologist`` or ``-grapher``."""
_OCCUPATION_SUFFIXES = ("ist", "ician", "eer", "ologist", "grapher")
_DIET_WORDS = "|".join(
    re.escape(d).replace(r"\-", "[- ]?").replace(r"\ ", r"\s+")
    for d in sorted(DIETS, key=len, reverse=True)
)
_SELF_ADVERBS = r"(?:(?:still|currently|actually|also|really|strictly|fully|mostly)\s+)?"
_NAME = re.compile(
    r"^(?:(?:you\s+can|please|just|everyone|everybody|people|friends|they)\s+)?"
    r"(?:call|calls)\s+(?:me|the\s+user)\s+(.+)$|^(?:I|We)\s+(?:am|are)\s+called\s+(.+)$"
    r"|^(?:I|We)\s+go\s+by\s+(.+)$|^[Nn]ame['’]s\s+(.+)$",
    re.IGNORECASE,
)
_SELF = re.compile(rf"^(?:I|We)\s+(?:am|are)\s+{_SELF_ADVERBS}(.+)$")
_WORK_AS = re.compile(r"^(?:I|We)\s+work\s+as\s+(?:an?\s+)?(.+)$")
_DIET = re.compile(rf"^(?:an?\s+)?({_DIET_WORDS})$", re.IGNORECASE)
_AGE = re.compile(r"^(\d{1,3})\s*(?:years?[\s-]+old|yo|y/o)$")
_ORIGIN = re.compile(r"^(?:originally\s+)?from\s+(\S.*)$")
_ADJ_PREP = re.compile(
    r"^([a-z]+(?:\s+[a-z]+)?)\s+(to|in|of|with|at|for|about|on|from|by)\s+(\S.*)$"
)
_ROLE = re.compile(r"^an?\s+((?:[a-z-]+\s+){0,2}([a-z-]+))$")
# Words that make a statement a correction of an earlier value.
_CORRECTION = re.compile(
    r"\b(?:now|instead|no\s+longer|anymore|any\s+more)\b"
    r"|^(?:Now|Instead)\b(?=,|\s+(?:I|we|my|our)\b)"
)
_OPENERS = re.compile(
    r"^(?:(?:actually|well|also|so|oh|ok|okay|by\s+the\s+way|btw|anyway|then|now|instead)"
    r"\s*,\s+|(?:now|instead)\s+(?=(?:I|we|my|our)\b))+",
    re.IGNORECASE,
)
_INSTEAD_OF = re.compile(r",?\s+instead\s+of\s+[^,;]*?(?=[,;]|[.!]*\s*$)")
_TRAILING_ADVERB = re.compile(r"(?:,\s*|\s+)(?:now|instead|anymore|any\s+more)(?=[.!]*\s*$)")
_INNER_NOW = re.compile(r"\b(I|we|am|are|is|was|were)\s+now\s+")
_I_AM = re.compile(r"^I['’]m\b")
_WE_ARE = re.compile(r"^([Ww]e)['’]re\b")
_NEGATIVE_TAIL = re.compile(
    r",\s*(?:but\s+|and\s+)?(?:not|no\s+longer|never)\b[^,;]*?(?=[.!]*\s*$)"
)
_OBJECT_PRONOUNS = frozenset({"me", "us", "you", "him", "her", "them", "it", "that", "this"})


def normalize_key_part(text: str) -> str:
    """Canonical form of a key segment: case-folded words joined by ``_``.

    Example:
        >>> normalize_key_part("  Washington, D.C. ")
        'washington_d_c'
    """
    return "_".join(_WORD.findall(text.casefold()))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _strip_value(value: str) -> str:
    value = value.strip().strip("\"'“”‘’`").strip()
    if value.endswith(".") and not value.endswith(".."):
        # keep the full stop of a final abbreviation ("D.C.", "Inc.") when the sentence had
        # its own full stop after it; a single trailing stop is the sentence's.
        value = value[:-1]
    elif value.endswith(".."):
        value = value[:-1]
    return value.rstrip(" ,;:!").strip()


def _is_capitalised(token: str) -> bool:
    """Name-like: starts with a capital or a digit, or holds a capital ("al-Nafis", "iPhone")."""
    return bool(token) and (token[0].isdigit() or any(ch.isupper() for ch in token))


def _starts_upper(text: str) -> bool:
    return bool(text) and (text[0].isupper() or text[0].isdigit())


def _negated(sentence: str) -> bool:
    for token in sentence.split():
        low = token.lower().strip(",;:")
        if token[:1].islower() and (low in _NEGATIONS or low.endswith("n't")):
            return True
    return False


def _verbal(value: str) -> bool:
    """Whether a value starts like a verb phrase ("founded by ...", "located in ...")."""
    return bool(re.match(r"^[a-z]+(?:ed|en)\s+(?:in|at|on|by|to|from|with|for|as)\b", value))


def _clean_subject(subject: str) -> str:
    subject = subject.strip().strip(",;:").strip()
    parts = subject.split(" ", 1)
    if len(parts) == 2 and parts[0].lower() in _ARTICLES and parts[0].islower():
        subject = parts[1]
    return subject.strip()


def _split_category(value: str) -> tuple[list[str], str]:
    """Move a leading lower-case category phrase (``the city of``) from a value to the relation.

    A leading participle with its preposition (``located in``) moves too.
    """
    lead: list[str] = []
    m = re.match(r"^([a-z]+ed|based|situated)\s+(in|at|on|by|to|from|near)\s+(\S.*)$", value)
    if m:
        lead, value = [m.group(1), m.group(2)], m.group(3)
    cat, value = _split_category_phrase(value)
    return [*lead, *cat], value


def _split_category_phrase(value: str) -> tuple[list[str], str]:
    m = re.match(r"^(?:the\s+|a\s+|an\s+)?([a-z]+(?:\s+[a-z]+)?)\s+of\s+(\S.*)$", value)
    if m and m.group(1).split()[0] not in _PREPS:
        return [*m.group(1).split(), "of"], m.group(2)
    return [], value


def _relation(words: list[str]) -> str:
    kept = [w for w in words if w not in _ARTICLES and w not in _AUX]
    return "_".join(kept)


def _subject_key(subject: str) -> str:
    if subject.casefold() in _FIRST_PERSON:
        return "user"
    words = _words(subject)
    if words and words[0] in _ARTICLES:
        words = words[1:]
    return "_".join(words)
