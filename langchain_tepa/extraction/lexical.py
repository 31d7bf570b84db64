"""The lexical model of the offline embeddings: stop words, a small stemmer, concept words.

:class:`~langchain_tepa.embeddings.HashingEmbeddings` (``version=2``, the default) reads a text
as its content words: stop words dropped ("where does the user live" -> "live"), each word
stemmed by a small suffix stripper of our own (``live``/``lives``/``lived``/``living`` ->
``liv``), and each stem that names an attribute of a person adds that attribute's *concept*
("live", "moved", "city", "based" all add ``home_city``), taken from the attribute families of
:mod:`langchain_tepa.extraction.families` (their nouns, verbs and value vocabularies) and from
the cue words of :data:`langchain_tepa.extraction.generic.CUES` ("money" adds ``bank``). So "where
does the user live" meets "User moved to Oslo" although they share no word.

Example:
    >>> stem("living"), stem("lives"), stem("moved"), stem("cities")
    ('liv', 'liv', 'mov', 'city')
    >>> content_words("Where does the user live?")
    ['live']
    >>> "home_city" in concepts("liv")
    True
"""

from __future__ import annotations

import functools
import re

__all__ = ["STOP_WORDS", "concepts", "content_words", "stem"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

STOP_WORDS = frozenset(
    """a about above after again all also am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves s t d ll m re ve
    user users user's please ok okay""".replace("\n", " ").split(" ")
) - {""}
"""Words that say nothing about what a memory is about (with ``user``: every memory has it)."""

_KEEP_E = frozenset({"the"})


def stem(word: str) -> str:
    """A light stem: plural, ``-ed`` and ``-ing`` endings and a final ``e`` removed.

    Example:
        >>> [stem(w) for w in ("relocated", "running", "shopping", "boxes", "class")]
        ['relocat', 'run', 'shop', 'box', 'class']
    """
    w = word.casefold()
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is", "ous")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1].isalpha():
        w = w[:-1]  # "running" -> "runn" -> "run", "shopped" -> "shopp" -> "shop"
    if w.endswith("e") and len(w) > 3 and w not in _KEEP_E:
        w = w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """The words of ``text`` without stop words (all of them when only stop words are left).

    Example:
        >>> content_words("the user's home city"), content_words("the")
        (['home', 'city'], ['the'])
    """
    words = _WORD.findall(text.casefold())
    kept = [w for w in words if w not in STOP_WORDS]
    return kept or words


@functools.lru_cache(maxsize=1)
def _concept_table() -> dict[str, tuple[str, ...]]:
    from langchain_tepa.extraction.families import FAMILIES
    from langchain_tepa.extraction.generic import CUES

    members: dict[str, set[str]] = {}
    for family in FAMILIES.values():
        words: set[str] = set(family.name.split("_"))
        for label in family.labels:
            words.update(_WORD.findall(label.casefold()))
        for verb in family.verbs:  # "{live} in", not "{move} jobs to": the verb alone says it
            short = re.fullmatch(r"\{(\w+)\}(?: [a-z]+)?", verb)
            if short is not None:
                words.add(short.group(1))
        words.update(w for w in family.vocab if w.isalpha())
        for cue in CUES.get(family.name, ()):  # the words of its meaning ("money": the bank)
            words.update(_WORD.findall(cue.casefold()))
        for w in words:
            if w not in STOP_WORDS and len(w) > 1:
                members.setdefault(stem(w), set()).add(family.name)
    # a word shared by many attributes ("have", "use", "work") names none of them
    return {s: tuple(sorted(f)) for s, f in members.items() if len(f) <= 3}


def concepts(stemmed: str) -> tuple[str, ...]:
    """The attribute concepts a stem belongs to (empty for most words).

    Example:
        >>> concepts("employer"), concepts("xylophonist")
        (('employer',), ())
    """
    return _concept_table().get(stemmed, ())
