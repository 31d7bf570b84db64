"""The frame around a statement: what is said before and after the claim, taken off.

People and memory tools wrap a claim in reporting clauses ("Noted that the user ...", "The user
mentioned that their ..."), time adverbials ("As of last week, ...", "... since last month",
"... recently"), asides (", just so you know") and note headers ("Heads up:", "Update -"); they
also write subjectless notes ("Switched browser to Opera.", "Now employed at Acme.") and lists
("Lives in Oslo; works at Acme"). :func:`unframe` takes the frame off so that the shapes of
:mod:`langchain_tepa.extraction.claims` read the claim itself, and says whether the frame marked
a change. None of this names an attribute: it is the same for every family.

Example:
    >>> unframe("Noted that the user lives in Oslo, just so you know.")
    ('the user lives in Oslo', False)
    >>> unframe("As of last week, the user works for Acme.")
    ('the user works for Acme', True)
    >>> unframe("The user mentioned that their bank is N26.")
    ("the user's bank is N26", False)
    >>> unframe("Switched browser to Opera.")
    ("user's browser: Opera", True)
    >>> unframe("Now employed at Globex.")
    ('User employed at Globex', True)
    >>> split_list("Lives in Oslo; works at Acme")
    ['Lives in Oslo', 'works at Acme']
"""

from __future__ import annotations

import re

__all__ = ["split_list", "unframe"]

_I = re.IGNORECASE
_WHEN = (
    r"(?:last|this|past|previous|the\s+past|the\s+last)\s+(?:few\s+)?(?:week|month|year|weekend|"
    r"spring|summer|autumn|fall|winter|couple\s+of\s+\w+|\w+day)s?|(?:january|february|march|"
    r"april|may|june|july|august|september|october|november|december)|(?:\d+\s+|a\s+few\s+|"
    r"several\s+)?(?:days?|weeks?|months?|years?)(?:\s+ago)?|yesterday|today|"
    r"the\s+(?:weekend|holidays|spring|summer|autumn|fall|winter|new\s+year)"
)
_WHEN_BARE = (
    r"(?:last|this|past)\s+(?:week|month|year|weekend|spring|summer|autumn|fall|winter)"
    r"|(?:\d+|a\s+few|several|two|three|a\s+couple(?:\s+of)?)\s+(?:days|weeks|months|years)\s+ago"
    r"|a\s+(?:day|week|"
    r"month|year)\s+ago|yesterday|today"
)
_LEAD = re.compile(
    r"^(?:(?:noted|note|noting|reminder|fyi|update|updated|heads\s+up|news|memo|summary|fact|"
    r"correction|for\s+context|for\s+the\s+record|just\s+so\s+you\s+know|to\s+recap|"
    r"(?:as\s+of|since|starting|from|after|before|in|during)\s+(?:" + _WHEN + r")|"
    r"currently|nowadays|these\s+days|lately|recently|at\s+present|at\s+the\s+moment|"
    r"right\s+now|today|by\s+profession|by\s+trade|in\s+(?:their|his|her|my|our)\s+free\s+time|"
    r"according\s+to\s+(?:the\s+)?(?:user|them|him|her)|apparently|it\s+seems|"
    r"(?:it\s+(?:is|was)\s+)?(?:noted|confirmed|mentioned)\s+that)"
    r"(?:\s*[,:;]\s*|\s+[\-–—]\s+|\s*[–—]\s*|\s+that\s+|\s+(?=(?:I|we|my|our|the\s+user|user|they|he|she)\b)))+",
    _I,
)
_CHANGE_LEAD = re.compile(
    r"^(?:update|updated|correction|news|heads\s+up|as\s+of|since|starting|from|after|"
    r"nowadays|these\s+days|lately|recently)\b",
    _I,
)
_REPORTED = re.compile(
    r"^(?:the\s+)?(?P<who>user|client|customer)\s+(?:has\s+)?(?:mentioned|said|says|noted|notes|"
    r"told\s+(?:me|us)|confirmed|confirms|explained|shared|stated|reported|indicated|added|"
    r"mentions|wrote|let\s+(?:me|us)\s+know)(?:\s+that)?\s+(?P<rest>.+)$",
    _I,
)
_THEIR = re.compile(r"^(?:their|his|her)\s+", _I)
_TAIL = re.compile(
    r"(?:,?\s+(?:just\s+so\s+you\s+know|for\s+context|for\s+the\s+record|fyi|btw|"
    r"by\s+the\s+way|as\s+far\s+as\s+I\s+know)|\s+(?:recently|lately|nowadays|these\s+days|"
    r"currently|at\s+the\s+moment|going\s+forward|from\s+here\s+on|from\s+now\s+on|"
    r"for\s+now|(?:since|as\s+of|from|starting|for)\s+(?:" + _WHEN + r")|"
    r"(?:" + _WHEN_BARE + r")))+(?=[.!]*\s*$)",
    _I,
)
_CHANGE_TAIL = re.compile(
    r"\b(?:recently|lately|nowadays|these\s+days|going\s+forward|from\s+here\s+on|since|"
    r"as\s+of|starting|ago|last\s+\w+)\b",
    _I,
)
_NOT_ANYMORE = re.compile(
    r"^(?P<head>.+?)\s+(?:isn['’]t|is\s+not|is\s+no\s+longer)\s+.+?(?:\s+(?:anymore|any\s+more))?"
    r"\s*[;,]\s*(?:it|that|this|they)(?:['’]s|\s+is|\s+are)\s+(?:now\s+)?(?P<value>.+)$",
    _I,
)
_LABEL_CHANGED = re.compile(
    r"^(?:(?:my|our|the|their|his|her)\s+)?(?P<label>[a-z][a-z '’-]{1,40}?)\s+(?:has\s+|was\s+)?"
    r"(?:changed|switched|moved|updated|set|reset)\s+(?:over\s+)?to\s+(?P<value>\S.*)$",
    _I,
)
_VERB_LABEL_TO = re.compile(
    r"^(?i:changed|switched|moved|updated|set|migrated|ported|transferred|upgraded)\s+"
    r"(?i:(?:my|our|the|their)\s+)?(?P<label>[A-Za-z][A-Za-z '’-]{1,40}?)\s+(?:over\s+)?"
    r"(?:to|into)\s+(?i:(?:a|an|the)\s+)?"
    r"(?P<value>[A-Z0-9\"'].*|[a-z][\w-]*(?:\s+[\w-]+)?)$",
)
_SUBJECTLESS = re.compile(
    r"^(?:now\s+|also\s+|just\s+)?(?P<verb>[a-z]+ed|got|took|went|bought|became|began|"
    r"joined|left|sold|gave|moved|started|lives|works|uses|plays|speaks|drives|owns|has|is|"
    r"employed|based|enrolled|insured|married|switched|signed|fell|picked|made|put|set|found)\b",
    _I,
)
_CHANGE_VERB = re.compile(
    r"^(?:now|changed|switched|moved|updated|migrated|ported|transferred|replaced|swapped|"
    r"relocated|joined|got|bought|became|began|started|signed|took|picked|reassigned|"
    r"upgraded|dropped|left|went|fell|made|put|set|found|treated)\b",
    _I,
)
_NOTE = re.compile(
    r"^(?P<label>[A-Za-z][A-Za-z '’/-]{0,30}?)\s*:\s+(?P<value>[^:;,]{1,40})$",
)
_INVERTED = re.compile(
    r"^(?P<value>[A-Z][\w.'’ -]{0,40}?)\s+(?P<verb>[a-z]{3,}?)(?:e?s)\s+(?:the\s+)?"
    r"(?P<who>user|client|customer|me)$",
)
_SUPERLATIVE = re.compile(
    r"^(?P<who>I|we|(?:the\s+)?user)\s+(?:really\s+)?(?:like|likes|love|loves|enjoy|enjoys|"
    r"prefer|prefers)\s+(?:(?P<value>[A-Z][\w'’-]*|[a-z]+)\s+(?P<noun>[a-z]+)|"
    r"the\s+(?P<noun2>[a-z]+)\s+(?P<value2>[\w'’-]+))\s+(?:the\s+)?(?:best|most)(?:\s+of\s+all)?$",
    _I,
)


def _names_family(noun: str) -> bool:
    from langchain_tepa.extraction.families import family_of_label

    return family_of_label(noun) is not None or family_of_label("favourite " + noun) is not None


_MADE_MY = re.compile(
    r"^(?P<who>I|we|(?:the\s+)?user)\s+(?:has\s+|have\s+)?(?:made|set|chose|picked|named|"
    r"declared)\s+(?P<value>[A-Z0-9][\w.'’!+ -]{0,30}?)\s+(?:as\s+)?(?:my|our|their|his|her)\s+"
    r"(?:new\s+)?(?P<label>[a-z][a-z -]{1,30})$",
    _I,
)
_SUBORDINATE = re.compile(
    r"\s+(?:after|because|when|once|since|as\s+soon\s+as)\s+(?:the|my|our|their|his|her|I|we|"
    r"he|she|they|it)\b[^,;]*$",
    _I,
)
_LIST_SEP = re.compile(r"\s*;\s+(?!(?:it|that|this|they|he|she)\b)", _I)


def _singular(label: str) -> str:
    """``schools`` -> ``school`` ("Transferred schools to X" names one school)."""
    words = label.split()
    last = words[-1]
    if len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        words[-1] = last[:-1]
    return " ".join(words)


def split_list(sentence: str) -> list[str]:
    """Parts of a list note ("Lives in Oslo; works at Acme"); ``[sentence]`` when it is none.

    A ``;`` followed by a pronoun ("X isn't A anymore; it's B") joins one statement and is kept.
    """
    parts = [p.strip() for p in _LIST_SEP.split(sentence) if p.strip()]
    return parts or [sentence]


def unframe(sentence: str) -> tuple[str, bool]:
    """The sentence without its frame, and whether the frame said the value changed.

    Args:
        sentence: One sentence (or one part of a list).

    Returns:
        ``(text, change)``: the text the claim shapes read (no final full stop), and True when
        a lead or tail of the frame marks a change ("as of last week", "recently", "update").
    """
    text = sentence.strip().rstrip(".!").strip()
    change = False
    for _ in range(3):
        before = text
        lead = _LEAD.match(text)
        if lead is not None and lead.end() < len(text):
            change = change or bool(_CHANGE_LEAD.match(text))
            text = text[lead.end() :]
        reported = _REPORTED.match(text)
        if reported is not None:
            rest = reported.group("rest")
            own = _THEIR.match(rest)
            text = f"the {reported.group('who')}'s {rest[own.end() :]}" if own else rest
        tail = _TAIL.search(text)
        if tail is not None and tail.start() > 0:
            change = change or bool(_CHANGE_TAIL.search(tail.group(0)))
            text = text[: tail.start()].rstrip(" ,")
        if text == before:
            break
    if (sub := _SUBORDINATE.search(text)) is not None and sub.start() > 0:
        text = text[: sub.start()]  # "Joined X after the old gym closed": the clause is no value
    if (m := _MADE_MY.match(text)) is not None:  # "I made Arc my default browser"
        owner = "my" if m.group("who").lower() in ("i", "we") else "user's"
        return f"{owner} {m.group('label')}: {m.group('value')}", True
    if (m := _SUPERLATIVE.match(text)) is not None and _names_family(  # "likes Thai food
        m.group("noun") or m.group("noun2")  # best": the favourite food ("sage green best"
    ):  # names no family: the colour itself)
        owner = "my" if m.group("who").lower() in ("i", "we") else "user's"
        noun, value = m.group("noun") or m.group("noun2"), m.group("value") or m.group("value2")
        return f"{owner} favourite {noun}: {value}", change
    if (m := _INVERTED.match(text)) is not None and m.group("value").split()[0].lower() not in (
        "he",
        "she",
        "they",
        "it",
        "this",
        "that",
    ):  # "Kwame mentors the user": the user is mentored by Kwame
        verb = m.group("verb")
        who = "I am" if m.group("who") == "me" else "the user is"
        participle = verb + ("d" if verb.endswith("e") else "ed")
        return f"{who} {participle} by {m.group('value')}", change
    note = _NOTE.match(text)
    if note is not None and len(note.group("label").split()) <= 3 >= len(
        note.group("value").split()
    ):
        m = note
        if not re.match(r"^(?:my|our|the\s+user|user)\b", m.group("label"), _I):
            return f"user's {m.group('label')}: {m.group('value')}", change
    if (m := _NOT_ANYMORE.match(text)) is not None:
        return f"{m.group('head')} is {m.group('value')}", True
    if not re.match(r"^(?:I|we|my|our|the\s+user|user|the\s+client)\b", text, _I):
        if (m := _VERB_LABEL_TO.match(text)) is not None and not re.match(
            r"^(?:to|from|in|on|at)\b", m.group("label"), _I
        ):
            return f"user's {_singular(m.group('label'))}: {m.group('value')}", True
        if (m := _LABEL_CHANGED.match(text)) is not None and len(m.group("label").split()) <= 4:
            return f"user's {m.group('label')}: {m.group('value')}", True
        if (m := _SUBJECTLESS.match(text)) is not None and text[:1].isupper():
            change = change or bool(_CHANGE_VERB.match(text))
            rest = re.sub(r"^now\s+", "", text, flags=_I)
            rest = rest[:1].lower() + rest[1:] if rest[1:2].islower() else rest
            return f"User {rest}", change
    return text, change
