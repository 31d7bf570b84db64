"""The markup memory tools put around a statement, and the generic ways a change is written.

Memory tools and agents write notes, not prose: timestamps (``[2025-03-02] user lives in ...``),
bullets (``- shell: fish``), headers (``USER PROFILE - team: growth``, ``User info - ...``),
arrows (``UPDATE: diet -> keto``), subject-less lines (``Lives in Ghent``, ``Mentored by
Greta``, ``Hair is green``), and changes that name the old value in ways no attribute family
lists: ``X replaced Y as the user's Z``, ``no longer A, now B``, ``B (previously A)``.
:func:`strip_markup` rewrites these into the plain shapes that
:mod:`~langchain_tepa.extraction.framing` and :mod:`~langchain_tepa.extraction.claims` read, and
says whether the markup marked a change and which value it replaced. None of this names an
attribute: it is the same for every family, known or not.

Example:
    >>> strip_markup("[2025-03-02] user lives in Ghent.")
    Marked(text='user lives in Ghent.', change=False, previous='')
    >>> strip_markup("UPDATE: diet -> keto")
    Marked(text="user's diet: keto", change=True, previous='')
    >>> strip_markup("Fly.io replaced Vercel as the user's cloud provider.")
    Marked(text="user's cloud provider: Fly.io", change=True, previous='Vercel')
    >>> strip_markup("user no longer lives in Oslo, now lives in Ghent")
    Marked(text='user lives in Ghent', change=True, previous='Oslo')
    >>> strip_markup("The user's sport is archery (previously fencing).")
    Marked(text="The user's sport is archery.", change=True, previous='fencing')
    >>> strip_markup("Mentored by Greta").text
    'User is mentored by Greta'
"""

from __future__ import annotations

import re
from typing import NamedTuple

from langchain_tepa.extraction.families import family_of_label
from langchain_tepa.extraction.generic import infer_family

__all__ = ["Marked", "strip_markup"]

_I = re.IGNORECASE
_STAMP = re.compile(
    r"^(?:\[[^\]]{1,40}\]|\((?=[^)]*\d)[^)]{1,30}\)|\d{4}-\d{2}-\d{2}(?:[ T][\d:]{4,8}Z?)?)"
    r"\s*[:\-–—|]?\s*"
)
_BULLET = re.compile(r"^(?:[-*•·>]+|\d{1,3}[.)])\s+")
_HEADER = re.compile(
    r"^(?:(?:the\s+)?(?:user|client|customer)(?:['’]s)?\s+)?(?:info|information|profile|details|"
    r"data|facts?|preferences?|memory|memories|notes?|summary|context)\s*(?::|\s[-–—])\s+(?=\S)",
    _I,
)
_LABEL_NOTE = re.compile(
    r"^(?P<head>[A-Za-z]+)\s*:\s*[A-Z0-9][\w.'’&+!-]*(?:\s+[A-Z0-9][\w.'’&+!-]*){0,2}\.?$"
)
_CAPS_HEADER = re.compile(r"^(?P<head>[A-Z]{2,}(?:\s+[A-Z]{2,}){0,3})\s*(?::|\s[-–—])\s+(?=\S)")
_CHANGE_HEADS = frozenset({"UPDATE", "UPDATED", "CHANGE", "CHANGED", "CORRECTION", "NEW", "EDIT"})
_ARROW = re.compile(
    r"^(?P<label>[^:>=]{1,48}?)\s*(?::\s*(?P<old>[^:>]{1,40}?)\s*)?(?:->|→|=>|⟶|-->)\s*"
    r"(?P<value>\S.*)$"
)
_OWNER = r"(?:(?:the\s+)?(?:user|client|customer)['’]s|my|our|their|his|her)"
_REPLACED_AS = re.compile(
    r"^(?P<value>.+?)\s+(?:(?:has|have|had)\s+)?(?:replaced|replaces|succeeded|succeeds|"
    rf"superseded|supersedes)\s+(?P<old>.+?)\s+as\s+{_OWNER}\s+(?:new\s+|current\s+)?"
    r"(?P<label>[a-z][a-z '’-]{1,40})$",
    _I,
)
_VERB_AS = re.compile(
    r"^(?P<value>.+?)\s+(?:(?:has|have|had|was|were|is)\s+)?[a-z]+(?:\s+(?:over|in|up|on|out))?"
    rf"\s+as\s+{_OWNER}\s+(?:new\s+|current\s+)?(?P<label>[a-z][a-z '’-]{{1,40}})$",
)
_CHANGED_LABEL = re.compile(
    r"^(?P<who>I|we|(?:the\s+)?(?:user|client|customer))\s+(?:has\s+|have\s+|just\s+)*"
    r"(?:changed|switched|updated|set|moved|swapped)\s+(?:(?:their|the|his|her|my|our)\s+)?"
    r"(?!(?:back|away|out|over|here|there|up|down|abroad|home|house|in|on|it|them|across|"
    r"around|along|along|through|with|from|for|at|by)\b)"
    r"(?P<label>[a-z][a-z '’-]{1,40}?)\s+(?:over\s+)?(?:to|into)\s+(?P<value>\S.*)$",
    _I,
)
_PRONOUN = re.compile(r"^(?:I|we|he|she|they|it|this|that|(?:the\s+)?user|my|our)\b", _I)
_NO_LONGER_NOW = re.compile(
    r"^(?P<head>.+?)\s+no\s+longer\s+(?P<old>.+?)\s*[,;]\s*(?:and\s+|but\s+)?"
    r"(?:(?:he|she|they|it)\s+(?:is\s+|are\s+)?)?now\s+(?P<new>.+)$",
    _I,
)
_PREVIOUSLY = re.compile(
    r"\s*(?:[(\[]\s*(?:previously|formerly|before|was|used\s+to\s+be|no\s+longer|"
    r"changed\s+from|replacing)\s*:?\s+(?P<old>[^()\[\]]+?)\s*[)\]]|,\s*(?:previously|"
    r"formerly)\s+(?P<old2>[^,;()]+?))(?=[.!]*$)",
    _I,
)
_TYPE_NOTE = re.compile(r"\s*\((?P<label>[a-z][a-z ]{1,30})\)\s*$")
_FRAGMENT_ING = re.compile(r"^(?P<verb>[A-Z][a-z]{2,}ing)\s+(?=[a-zA-Z0-9])")
_FRAGMENT_VERB = re.compile(r"^(?P<verb>[A-Z][a-z]{2,}(?:es|s))\s+(?=[a-zA-Z0-9])")
_FRAGMENT_STATE = re.compile(
    r"^(?P<word>[A-Z][a-z]{2,}(?:ed|ing)|Member|Student|Patient|Fan|Customer|Client|Subscriber)"
    r"\s+(?P<prep>by|at|on|in|of|with|to|for|from|as)\s+(?=\S)"
)
_FRAGMENT_NOUN_IS = re.compile(
    r"^(?P<np>(?:[A-Z][a-z-]*|[A-Z]{2,4})(?:\s+[a-z][a-z-]*){0,2})\s+(?:is|are)\s+(?=\S)"
)
_FRAGMENT_NOUN_VERBED = re.compile(
    r"^(?P<np>[A-Z][a-z-]*)\s+(?P<now>now\s+)?(?P<verb>[a-z]{3,}ed)\s+(?:to\s+|as\s+)?"
    r"(?P<value>[A-Z0-9].*)$"
)
_FRAGMENT_NOUN_IN = re.compile(
    r"^(?P<np>[A-Z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})\s+(?:in|on|with|via|through|at)\s+"
    r"(?P<value>[A-Z0-9].*)$"
)
_NOT_VERBS = frozenset({"thanks", "yes", "this", "his", "its", "was", "has", "does", "is", "as"})


class Marked(NamedTuple):
    """A statement with its markup taken off.

    Attributes:
        text: What the claim shapes read.
        change: Whether the markup said the value changed (an ``UPDATE:`` header, an arrow,
            "replaced", "no longer", "previously").
        previous: The value the statement says was replaced ("" when it names none).
    """

    text: str
    change: bool
    previous: str


def _old_object(old: str, new: str) -> str:
    """What differs between two predicates of one verb: the old one's object."""
    a, b = old.split(), new.split()
    i = 0
    while i < min(len(a), len(b)) and a[i].casefold() == b[i].casefold():
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j].casefold() == b[-1 - j].casefold():
        j += 1
    return " ".join(a[i : len(a) - j]).strip(" ,;")


_FRAGMENT_BLOCK = re.compile(
    r"^\S+\s+(?:\S+\s+)?(?:I|we|you|he|she|they|user|the\s+user|my|our)\b|^[^:]{0,30}:\s|"
    r"\b(?:user|client|customer)['’]s\b|\b(?:my|our|their|his|her)\b",
    _I,
)
_ADVERBS = frozenset(
    {"nowadays", "always", "sometimes", "perhaps", "besides", "thanks", "afterwards", "heads"}
)


_FINITE = frozenset(
    {"is", "was", "are", "were", "has", "had", "have", "does", "did", "will", "can", "plays"}
)


_PARTICLES = frozenset({"the", "of", "de", "van", "von", "da", "di", "la", "le", "du", "bin"})


def _named_subject(text: str) -> bool:
    """Whether the line opens with a name of two or more capitalised words and then a verb.

    "Thomas Kyd was born in London", "Hines Ward plays ...", "Windows Phone was developed by
    ...": the subject is the name, not the user, although "Thomas" or "Hines" reads like a
    verb of a subject-less line ("Lives in Ghent", "Prefers Python over Java").
    """
    words = text.split()
    k = 0
    while (
        k < len(words)
        and (
            words[k][:1].isupper()
            or (  # "Charles the Bold", "Ludwig van Beethoven"
                k > 0
                and words[k] in _PARTICLES
                and k + 1 < len(words)
                and words[k + 1][:1].isupper()
            )
        )
    ):
        k += 1
    if k < 2 or k >= len(words):
        return False
    nxt = words[k].casefold().strip(",;")
    return nxt in _FINITE or nxt.endswith(("ed", "es")) or (nxt.endswith("s") and len(nxt) > 3)


def _fragment(text: str) -> str | None:
    """A subject-less summary line given the user as its subject, or None when it is none.

    Not a fragment: a line with a subject or an owner after its first words ("Nowadays I ...",
    "Swift is the user's favourite language"), a labelled note ("Heads up: ...").
    """
    if _FRAGMENT_BLOCK.search(text) is not None or _named_subject(text):
        return None
    if (m := _FRAGMENT_NOUN_VERBED.match(text)) is not None and family_of_label(m["np"]):
        now = " now" if m["now"] else ""  # "Editor now themed X": a change
        return f"User's {m['np'].lower()} {m['verb']}: {m['value']}{now}"
    if (m := _FRAGMENT_NOUN_IN.match(text)) is not None and family_of_label(m["np"]):
        return f"User's {m['np'].lower()}: {m['value']}"  # "Notes in Obsidian"
    if (m := _FRAGMENT_STATE.match(text)) is not None:
        return "User is " + text[:1].lower() + text[1:]
    if (m := _FRAGMENT_ING.match(text)) is not None and m.group("verb").lower() not in _ADVERBS:
        return "User is " + text[:1].lower() + text[1:]  # "Following a keto diet now"
    if (m := _FRAGMENT_VERB.match(text)) is not None:
        verb = m.group("verb").lower()
        if verb in _NOT_VERBS or verb in _ADVERBS or verb.endswith(("ss", "us", "is")):
            return None
        return "User " + text[:1].lower() + text[1:]
    if (m := _FRAGMENT_NOUN_IS.match(text)) is not None and family_of_label(m["np"]):
        return "User's " + text[:1].lower() + text[1:]  # "Hair is green"; not "Ada is ..."
    return None


def strip_markup(sentence: str) -> Marked:
    """Take the note markup off one sentence (see the module documentation).

    Args:
        sentence: One sentence or note line.

    Returns:
        The rewritten text (the sentence itself when there is no markup), whether a change was
        marked, and the replaced value when one is named.
    """
    text = sentence.strip()
    change = False
    previous = ""
    for _ in range(3):
        before = text
        text = _BULLET.sub("", _STAMP.sub("", text))
        if (
            (m := _CAPS_HEADER.match(text)) is not None
            and m.end() < len(text)
            and family_of_label(m.group("head")) is None  # "TZ: IST", "OS: Debian": labels
        ):
            change = change or bool(set(m.group("head").split()) & _CHANGE_HEADS)
            text = text[m.end() :]
        if not _LABEL_NOTE.match(text):  # "Notes: Logseq" is a label and its value
            text = _HEADER.sub("", text)
        if text == before:
            break
    stop = text[len(text.rstrip(".!")) :]
    body = text.rstrip(".!").rstrip()
    if (m := _ARROW.match(body)) is not None:
        label = re.sub(
            r"^(?:the\s+)?(?:user|client)['’]s\s+|^(?:my|our)\s+", "", m["label"], flags=_I
        )
        return Marked(f"user's {label.strip()}: {m['value']}", True, (m["old"] or "").strip())
    if not _PRONOUN.match(body):
        m = _REPLACED_AS.match(body) or _VERB_AS.match(body)
        if m is not None:
            old = m["old"].strip() if "old" in m.groupdict() and m["old"] else ""
            return Marked(f"user's {m['label'].strip()}: {m['value']}", True, old)
    m = _CHANGED_LABEL.match(body)  # "User changed team to compliance"
    if m is not None and (
        family_of_label(m["label"]) or infer_family(m["label"].split(), m["value"])
    ):
        owner = "my" if m["who"].casefold() in ("i", "we") else "user's"
        return Marked(f"{owner} {m['label']}: {m['value']}", True, "")
    if (m := _NO_LONGER_NOW.match(body)) is not None:
        old = _old_object(m["old"], m["new"])
        return Marked(f"{m['head']} {m['new']}", True, old)
    if (t := _TYPE_NOTE.search(body)) is not None and family_of_label(t["label"]):
        body = f"{body[: t.start()]} {t['label']}"  # "Lives in Ruzafa (neighbourhood)"
    if (m := _PREVIOUSLY.search(body)) is not None and m.start() > 0:
        old = m["old"] or m["old2"]
        body, change, previous = body[: m.start()].rstrip(), True, old.strip()
    if body[:1].isupper() and (fragment := _fragment(body)) is not None:
        body = fragment
    return Marked(body + stop, change, previous)
