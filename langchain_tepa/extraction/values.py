"""Values of claims: what is cut from the words after a verb or a label, and what is not a claim.

* :func:`clean_value` keeps the value of "moved to Oslo last month" ("Oslo"): time phrases,
  trailing clauses and articles go; a name value keeps its capitalised words only.
* :func:`vocab_value` reads a value through a family's vocabulary ("a Pixel phone" -> "Pixel").
* :func:`is_hypothetical` says whether a sentence states a plan, a wish, a condition or a past
  habit ("I might move to Rome", "I used to live in Paris"): such sentences make no claim.
* :func:`attribute_text` is the sentence with its value removed (what key resolution compares).

Example:
    >>> clean_value("Oslo last month", "name")
    'Oslo'
    >>> is_hypothetical("I'm thinking about moving to Rome.")
    True
"""

from __future__ import annotations

import re

__all__ = [
    "HYPOTHETICAL",
    "attribute_text",
    "clean_value",
    "is_hypothetical",
    "several",
    "trim_tail",
    "value_fits",
    "vocab_value",
]

HYPOTHETICAL = re.compile(
    r"\b(?:might|could|would(?!\s+(?:like|love|prefer)\s+(?:to\s+be\s+(?:called|addressed|known)"
    r"|you\s+to|replies|answers|responses))|should|shall|maybe|perhaps|possibly|probably|hopefully|someday|"
    r"unless|gonna|tempted|wish|wishes|wished|if|whether|used\s+to|one\s+day|"
    r"thinking\s+(?:about|of)|considering|contemplating|consider|weighing|"
    r"plan(?:s|ned|ning)?\s+(?:to|on)|want(?:s|ed)?\s+to(?!\s+be\s+(?:called|addressed))|"
    r"hop(?:e|es|ed|ing)\s+to|going\s+to|about\s+to|intend(?:s|ed)?\s+to|aim(?:s|ing)?\s+to|"
    r"(?:would|'d|’d)\s+(?:like|love)(?!\s+(?:to\s+be\s+(?:called|addressed|known)|you\s+to|"
    r"replies|answers|responses))|dream(?:s|ed|ing)?\s+(?:of|about)|"
    r"looking\s+(?:to|into|at\s+moving)|may\s+(?:move|switch|be|get|start|join|change)|"
    r"will\s+(?:move|switch|be|get|start|join|change|relocate)|"
    r"turned\s+down|apply\s+to|applied\s+to|interview(?:ed|ing)?\s+(?:at|with))\b"
    r"|\b(?:I|we|you|they|he|she)['’]ll\b"
)
"""Words that make a sentence a plan, a wish, a condition or a past habit (in lower case, so
"Alta IF" and "Would Be Kings" stay names)."""

_TIME_TAIL = re.compile(
    r"(?:,?\s+(?:(?:last|this|next|past)\s+(?:week|month|year|summer|winter|spring|autumn|fall|"
    r"weekend|quarter)|(?:a\s+(?:few|couple\s+of)\s+|\w+\s+)?(?:days?|weeks?|months?|years?)"
    r"\s+ago|recently|now|today|yesterday|lately|nowadays|these\s+days|again|too|as\s+well|"
    r"instead|for\s+good|for\s+now|permanently|at\s+the\s+moment|full[- ]time|part[- ]time|"
    r"every\s+day|each\s+day|daily|on\s+weekdays|competitively|"
    r"since\s+.+|as\s+of\s+.+|starting\s+.+|from\s+now\s+on|in\s+(?:19|20)\d\d|"
    r"in\s+(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)(?:\s+\d{4})?|(?:for|with|because|after|before|to\s+be|so\s+that|where|which|"
    r"who|over|instead\s+of|rather\s+than|and\s+(?:now|then|love|like|enjoy)).*))+\s*$",
    re.IGNORECASE,
)
_NAME_LINK = frozenset({"of", "de", "da", "del", "der", "di", "du", "la", "le", "van", "von", "&"})
_NAME_TOKEN = re.compile(r"^(?:[A-Z0-9][\w.'’&+#-]*|&|[a-z]+[A-Z][\w-]*)$")
ARTICLE = re.compile(r"^(?:a|an|the|my|our|his|her|their|some)\s+", re.IGNORECASE)
_LEAD_ADJECTIVES = re.compile(
    r"^(?:(?:pet|new|little|second|third|rescue|big|small|young|another|other|younger|older|"
    r"oldest|youngest|baby|brand-new|shiny|used|secondhand|second-hand)\s+)+",
    re.IGNORECASE,
)
_NUMBERS = frozenset({"two", "three", "four", "five", "one", "several"})


def is_hypothetical(text: str) -> bool:
    """Whether ``text`` says what might, will, would or used to be rather than what is.

    Example:
        >>> is_hypothetical("If I lived in Rome, I'd cycle."), is_hypothetical("Alta IF won.")
        (True, False)
    """
    return bool(HYPOTHETICAL.search(text[:1].lower() + text[1:]))


def attribute_text(sentence: str, value: str) -> str:
    """The sentence with the value removed, lower-cased (what key resolution compares).

    Example:
        >>> attribute_text("User moved to Oslo last month.", "Oslo")
        'user moved to last month'
    """
    text = sentence
    if value:
        text = re.sub(re.escape(value), " ", text, count=1, flags=re.IGNORECASE)
    return " ".join(text.casefold().strip(" .!").split())


def clean_value(raw: str, kind: str = "phrase") -> str:
    """The value in the words after a verb or a label.

    Args:
        raw: The words as written ("Oslo last month", "the Linux Foundation").
        kind: ``"name"`` keeps the leading capitalised words only (and cuts at a comma),
            ``"number"`` the leading digits, ``"phrase"`` drops a leading article.

    Example:
        >>> clean_value("Denver, Colorado for work", "name"), clean_value("a data engineer")
        ('Denver', 'data engineer')
    """
    value = re.sub(r"\s*\([^)]*\)\s*", " ", raw).strip().strip("\"'“”‘’`").strip()
    value = value.rstrip(" .!,;:")
    for _ in range(3):
        cut = _TIME_TAIL.sub("", value).rstrip(" .!,;:")
        if cut == value or not cut:
            break
        value = cut
    if kind in ("name", "phrase"):
        value = ARTICLE.sub("", value)
    if kind == "name":
        value = value.split(",")[0]
        tokens = value.split()
        if tokens and _NAME_TOKEN.match(tokens[0]):
            keep = 1
            while keep < len(tokens) and (
                _NAME_TOKEN.match(tokens[keep])
                or (
                    tokens[keep].lower() in _NAME_LINK | {"and"}
                    and keep + 1 < len(tokens)
                    and _NAME_TOKEN.match(tokens[keep + 1])
                )
            ):
                keep += 1
            value = " ".join(tokens[:keep])
    if kind == "number":
        m = re.match(r"^[+()\d][\d\s()+.:-]*\d", value)
        value = m.group(0) if m else value
    return value.rstrip(" .!,;:").strip()


def vocab_value(raw: str, name: str, vocab: frozenset[str]) -> str | None:
    """The value of a family with a vocabulary, or None when the words are not one of it.

    Example:
        >>> vocab_value("a Pixel phone these days", "phone", frozenset({"pixel"}))
        'Pixel'
        >>> vocab_value("a kid named Leo", "children", frozenset({"kid"}))
        'kid Leo'
    """
    text = _LEAD_ADJECTIVES.sub("", ARTICLE.sub("", raw.strip()))
    text = _LEAD_ADJECTIVES.sub("", ARTICLE.sub("", text))
    tokens = text.split()
    if not tokens:
        return None
    head = tokens[0].casefold().strip(",.;:!")
    counted = head.isdigit() or head in _NUMBERS
    if counted and name in ("pets", "children") and len(tokens) > 1:
        noun = tokens[1].casefold().strip(",.;:!")
        if noun not in vocab and noun.removesuffix("s") not in vocab:
            return None
    elif head not in vocab and head.removesuffix("s") not in vocab:
        return None
    if name in ("pets", "children"):
        m = re.match(r"^(.+?)(?:,?\s+(?:named|called)\s+|,\s+)([A-Z][\w-]*)", text)
        if m:
            return f"{m.group(1)} {m.group(2)}"
        return clean_value(text).split(",")[0]
    if not (tokens[0][:1].isupper() or tokens[0][:1].isdigit()):
        if name in ("coffee",):
            return clean_value(text)
        return head
    span = clean_value(text, "name")
    return span if span.split() and span.split()[0].casefold() == head else tokens[0]


def several(value: str) -> list[str]:
    """The items of a list value ("French and Spanish", "a dog, a cat").

    Example:
        >>> several("French, German and Spanish")
        ['French', 'German', 'Spanish']
    """
    parts = [p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", value) if p.strip()]
    return [ARTICLE.sub("", p) for p in parts] or [value]


_FUNCTION_TAIL = re.compile(
    r"(?:\s+(?:for|on|in|at|to|with|as|by|from|into|onto|of|via|through|over|the|a|an|my|our|"
    r"their|his|her|its|and|or))+$",
    re.IGNORECASE,
)


def trim_tail(value: str) -> str:
    """``value`` without trailing function words ("Evolution for" -> "Evolution").

    A value never ends with a preposition, an article or a conjunction: such words are the
    start of a phrase that names the attribute ("for email", "on the laptop"), cut by a shape.

    Example:
        >>> trim_tail("FreeBSD on the"), trim_tail("Synthwave 84 theme in the")
        ('FreeBSD', 'Synthwave 84 theme')
    """
    cut = _FUNCTION_TAIL.sub("", value.strip())
    return cut if cut else value.strip()


_ZONE_LIKE = re.compile(
    r"^(?:(?:UTC|GMT)\s*[+-−]\s*\d{1,2}|[A-Z][A-Za-z_]+/[A-Z][A-Za-z_]+|[A-Z]{2,5}T?)(?:\W|$)"
)
_OF_NAME = re.compile(r"\bof\s+(?:the\s+)?[A-Z]")
_NAME_THEN_NOUN = re.compile(r"^[A-Z0-9][\w.&'’-]*(?:\s+[A-Z0-9][\w.&'’-]*)*\s+[a-z]")


def value_fits(family: str, value: str) -> bool:
    """Whether ``value`` has the type of a value of ``family`` (a guard on family rules).

    Families whose values have a recognisable type reject a value of another type, so a
    rule that fires on the wrong attribute gives no claim there: an email address holds
    "@"; a time zone is a zone name or offset ("CET", "UTC+2", "Europe/Oslo"); an occupation
    is a common noun phrase, not a membership of a named thing ("member of Snap Fitness") nor
    a name followed by a noun ("a Vueling frequent flyer"). Other families accept any value.

    Example:
        >>> value_fits("email_address", "Evolution"), value_fits("email_address", "a@b.eu")
        (False, True)
        >>> value_fits("occupation", "member of Snap Fitness"), value_fits("occupation", "nurse")
        (False, True)
        >>> value_fits("occupation", "Vueling frequent flyer")
        False
        >>> value_fits("occupation", "UX designer")
        True
        >>> value_fits("timezone", "Pegasus"), value_fits("timezone", "UTC+2")
        (False, True)
        >>> value_fits("hobbies", "Trinity College"), value_fits("hobbies", "Pilates")
        (False, True)
        >>> value_fits("wake_time", "Rex"), value_fits("wake_time", "6:30")
        (False, True)
    """
    v = value.strip()
    if family == "email_address":
        return "@" in v
    if family == "timezone":
        from langchain_tepa.extraction.vocabularies import TIMEZONES

        return v.casefold() in TIMEZONES or bool(_ZONE_LIKE.match(v))
    if family == "occupation":
        from langchain_tepa.extraction.lexicon import OCCUPATIONS

        last = v.split()[-1].casefold() if v.split() else ""
        named_job = last in OCCUPATIONS or last.endswith(("ist", "ician", "eer", "grapher"))
        return not _OF_NAME.search(v) and (named_job or not _NAME_THEN_NOUN.match(v))
    if family == "hobbies":  # an activity, not a named place ("got into Trinity College")
        from langchain_tepa.extraction.families import family_of_label

        words = v.split()
        named_place = len(words) > 1 and v[:1].isupper() and family_of_label(words[-1])
        return not named_place
    if family in ("partner", "name"):
        return not _TITLE.match(v)  # "sees Dr. Petrov": a doctor, not a partner
    if family == "phone_number":
        return sum(c.isdigit() for c in v) >= 3
    if family == "birthday":
        return any(c.isdigit() for c in v) or bool(_MONTH.search(v))
    if family in ("wake_time", "bedtime"):  # "I walk Rex every morning": no time
        return any(c.isdigit() for c in v) or bool(_CLOCK.search(v))
    return True


_CLOCK = re.compile(
    r"\b(?:noon|midday|midnight|dawn|sunrise|o'clock|half|quarter|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve)\b",
    re.IGNORECASE,
)
_TITLE = re.compile(r"^(?:Dr|Prof|Doctor|Professor)\b\.?\s", re.IGNORECASE)
_MONTH = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b", re.IGNORECASE
)
