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


def _word_set(text: str) -> frozenset[str]:
    """The words of ``text`` (separated by white space) as a set."""
    return frozenset(text.split())


_ARTICLES = frozenset({"a", "an", "the"})
_AUX = frozenset({"is", "was", "are", "were", "be", "been", "being", "has", "have", "had", "am"})
_PREPS = _word_set("about as at by for from in into of on to under with within")
_NEGATIONS = frozenset({"not", "never", "no", "n't", "nobody", "nothing"})
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "we", "our"})
_RELATIVE = frozenset({"that", "which", "where", "who", "whom", "whose", "when"})
_OBJECT_PRONOUNS = frozenset({"me", "us", "you", "him", "her", "them", "it", "that", "this"})
_COPULA = r"(?:is|was|are|were|has been|had been|is now|was now|am)"
# Words that may stand inside a proper name in lower case ("Bank of America", "Ludwig van
# Beethoven") when a capitalised word follows them.
_NAME_LINKS = _word_set("of de da del der di du la le the van von and &")
_BOUNDARY = re.compile(r"[.!?]+\s+(?=[\"'A-Z0-9])|\n+")
_ABBREVIATIONS = _word_set("dr mr mrs ms st jr sr inc co ltd mt vs no prof")
_MAX_SENTENCE = 600
_SHOWN_CHARS = 200  # an unextracted sentence longer than this is shown cut, with "..."

DIETS = _word_set(
    "vegetarian vegan pescatarian pescetarian flexitarian fruitarian omnivore omnivorous "
    "carnivore lacto-vegetarian ovo-vegetarian plant-based keto paleo gluten-free dairy-free "
    "kosher halal low-carb low-fat low-fodmap mediterranean atkins whole30"
)
"""Words that ``I'm [a/an] <word>`` reads as the speaker's diet (``user.diet``)."""

OCCUPATIONS = _word_set(
    "accountant administrator analyst architect artist assistant attorney author baker banker "
    "barista bartender carpenter cashier chef chemist cleaner clerk coach consultant cook "
    "coordinator dentist designer developer director doctor driver economist editor "
    "electrician engineer entrepreneur executive farmer firefighter founder freelancer "
    "hairdresser intern journalist judge lawyer lecturer librarian manager marketer mechanic "
    "musician nurse officer paramedic pharmacist photographer physician physicist "
    "physiotherapist pilot plumber policeman professor programmer psychologist recruiter "
    "researcher retiree salesperson scientist secretary student surgeon teacher technician "
    "therapist translator tutor vet veterinarian waiter waitress writer"
)
"""Head nouns that ``I'm a/an <...>`` reads as the speaker's occupation (``user.occupation``)."""


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


def _split_category(value: str) -> tuple[list[str], str]:
    """Move a leading lower-case category phrase (``the city of``) from a value to the relation.

    A leading participle with its preposition (``located in``) moves too.
    """
    lead: list[str] = []
    m = re.match(r"^([a-z]+ed|based|situated)\s+(in|at|on|by|to|from|near)\s+(\S.*)$", value)
    if m:
        lead, value = [m.group(1), m.group(2)], m.group(3)
    m = re.match(r"^(?:the\s+|a\s+|an\s+)?([a-z]+(?:\s+[a-z]+)?)\s+of\s+(\S.*)$", value)
    if m and m.group(1).split()[0] not in _PREPS:
        return [*lead, *m.group(1).split(), "of"], m.group(2)
    return lead, value


def _relation(words: list[str]) -> str:
    return "_".join(w for w in words if w not in _ARTICLES and w not in _AUX)


def _subject_key(subject: str) -> str:
    if subject.casefold() in _FIRST_PERSON:
        return "user"
    words = _words(subject)
    if words and words[0] in _ARTICLES:
        words = words[1:]
    return "_".join(words)
