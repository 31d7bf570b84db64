"""Attribute families of a user: the canonical key of each, its names and its verbs.

A *family* is one attribute a person has (home city, employer, diet, pets, ...). Each family
has one canonical relation (the last segment of its key: ``user.home_city``), the noun phrases
that name it (``home city``, ``city of residence``, ``location``), the verb phrases that state it
(``live in``, ``move to``, ``be based in``) and whether it holds several values at once
(``multi_valued``: pets, languages spoken, hobbies, likes, children, allergies, ...).

:func:`family_of_label` maps a noun phrase, and :func:`canonical_relation` any key's relation
(``lives_in``, ``moved_to``, ``current_city``, ``works_at``), onto a family, so every extractor's
keys (the offline one's, an LLM's, keys already stored) meet under one canonical key.

Example:
    >>> family_of_label("City of residence").name
    'home_city'
    >>> canonical_relation("moved_to"), canonical_relation("favorite_color")
    ('home_city', 'favourite_colour')
    >>> FAMILIES["pets"].multi_valued
    True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from langchain_tepa.extraction.family_rows_life import ROWS as _LIFE
from langchain_tepa.extraction.family_rows_things import ROWS as _THINGS

__all__ = [
    "COMMON_NOUN_FAMILIES",
    "FAMILIES",
    "GENERIC_MARK",
    "MARKERS",
    "PASSIVE_PARTICIPLES",
    "RELATIVES",
    "Family",
    "canonical_relation",
    "family_of_label",
    "generic_relation",
    "inflect",
    "is_generic_relation",
    "key_family",
    "names_a_thing",
    "reverses_family",
    "verb_family",
]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

#: Words around an attribute name that do not change which attribute it is.
MARKERS = frozenset(
    {
        "current",
        "currently",
        "new",
        "present",
        "latest",
        "updated",
        "actual",
        "preferred",
        "main",
        "primary",
        "usual",
        "default",
        "my",
        "the",
        "a",
        "an",
        "user",
        "users",
        "s",
        "is",
        "of",
        "other",
        "another",
        "go",
        "to",
        "all",
        "everyday",
        "regular",
        "chosen",
        "assigned",
    }
)
_FAVOURITE = frozenset({"favourite", "favorite", "fave", "fav", "preferred"})
_SPELLING = {"color": "colour", "flavor": "flavour", "neighborhood": "neighbourhood"}

#: People a user speaks about: another subject, so another key (``user.sister.home_city``).
RELATIVES = frozenset(
    {
        "sister",
        "brother",
        "mother",
        "mom",
        "mum",
        "father",
        "dad",
        "son",
        "daughter",
        "wife",
        "husband",
        "partner",
        "girlfriend",
        "boyfriend",
        "fiance",
        "fiancee",
        "spouse",
        "friend",
        "roommate",
        "flatmate",
        "cousin",
        "aunt",
        "uncle",
        "grandmother",
        "grandfather",
        "grandma",
        "grandpa",
        "niece",
        "nephew",
        "boss",
        "manager",
        "colleague",
        "coworker",
        "neighbour",
        "neighbor",
        "parents",
        "kid",
        "child",
        "doctor",
        "landlord",
        "teammate",
    }
)

_IRREGULAR = {
    "be": "am|is|are|was|were|been|being|'m|'s|'re",
    "have": "have|has|had|having|'ve",
    "drive": "drive|drives|drove|driven|driving",
    "speak": "speak|speaks|spoke|spoken|speaking",
    "get": "get|gets|got|gotten|getting",
    "go": "go|goes|went|gone|going",
    "buy": "buy|buys|bought|buying",
    "ride": "ride|rides|rode|ridden|riding",
    "become": "become|becomes|became|becoming",
    "take": "take|takes|took|taken|taking",
    "fly": "fly|flies|flew|flown|flying",
    "run": "run|runs|ran|running",
    "swim": "swim|swims|swam|swimming",
    "dye": "dye|dyes|dyed|dyeing",
    "set": "set|sets|setting",
    "sell": "sell|sells|sold|selling",
    "keep": "keep|keeps|kept|keeping",
    "put": "put|puts|putting",
    "see": "see|sees|saw|seen|seeing",
    "wake": "wake|wakes|woke|woken|waking",
    "teach": "teach|teaches|taught|teaching",
    "study": "study|studies|studied|studying",
    "begin": "begin|begins|began|begun|beginning",
    "leave": "leave|leaves|left|leaving",
    "hate": "hate|hates|hated|hating",
    "sit": "sit|sits|sat|sitting",
    "eat": "eat|eats|ate|eaten|eating",
    "write": "write|writes|wrote|written|writing",
    "use": "use|uses|used|using",
}


_DOUBLING = frozenset(
    {
        "transfer",
        "prefer",
        "stop",
        "drop",
        "plan",
        "shop",
        "jog",
        "commit",
        "ship",
        "chat",
        "admit",
        "refer",
        "rob",
        "ban",
        "skip",
        "swap",
        "sip",
        "scan",
        "hop",
        "dip",
    }
)


def inflect(lemma: str) -> str:
    """A regex alternation of the forms of an English verb (``live|lives|lived|living``).

    Example:
        >>> inflect("move")
        'move|moves|moved|moving'
    """
    if lemma in _IRREGULAR:
        return _IRREGULAR[lemma]
    if lemma in _DOUBLING:
        d = lemma + lemma[-1]
        return f"{lemma}|{lemma}s|{d}ed|{d}ing"
    if lemma.endswith("e"):
        forms = [lemma, lemma + "s", lemma + "d", lemma[:-1] + "ing"]
    elif lemma.endswith("y") and lemma[-2:-1] not in "aeiou":
        forms = [lemma, lemma[:-1] + "ies", lemma[:-1] + "ied", lemma + "ing"]
    elif lemma.endswith(("s", "sh", "ch", "x")):
        forms = [lemma, lemma + "es", lemma + "ed", lemma + "ing"]
    else:
        forms = [lemma, lemma + "s", lemma + "ed", lemma + "ing"]
    return "|".join(forms)


@dataclass(frozen=True)
class Family:
    """One attribute of a person.

    Attributes:
        name: The canonical relation (the key's last segment), e.g. ``"home_city"``.
        labels: Noun phrases that name it ("home city", "location"), lower case.
        verbs: Verb phrases that state it, with ``{lemma}`` for an inflected verb
            ("{live} in", "{be} based in"); the value follows the phrase.
        multi_valued: Whether a person holds several values at once (pets, hobbies).
        kind: How the value is read: ``"name"`` (a capitalised name: a city, a company),
            ``"phrase"`` (a short phrase), ``"number"`` (digits).
        vocab: When not empty, the value must be (or start with) one of these words.
        changes: Verbs (lemmas) whose use says the value changed ("move", "switch").

    Example:
        >>> FAMILIES["employer"].labels[:2]
        ('employer', 'company')
    """

    name: str
    labels: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    multi_valued: bool = False
    kind: str = "phrase"
    vocab: frozenset[str] = frozenset()
    changes: tuple[str, ...] = ()


FAMILIES: dict[str, Family] = {
    name: Family(
        name,
        tuple(x for x in labels.split(";") if x),
        tuple(x for x in verbs.split(";") if x),
        **options,
    )
    for name, labels, verbs, options in (*_LIFE, *_THINGS)
}
"""The attribute families, by canonical relation."""


def _fold(words: list[str]) -> list[str]:
    return [_SPELLING.get(w, w) for w in words]


_BY_LABEL: dict[str, str] = {}
for _fam in FAMILIES.values():
    for _label in (_fam.name.replace("_", " "), *_fam.labels):
        _BY_LABEL.setdefault(" ".join(_fold(_WORD.findall(_label))), _fam.name)
_BY_VERB: dict[str, str] = {}
_BY_WHOLE_VERB: dict[str, str] = {}  # phrases that are a whole verb of the family, nothing after
_WHOLE_VERB_ALL: dict[str, set[str]] = {}  # the same, every family of each ("play": two)
for _fam in FAMILIES.values():
    for _verb in _fam.verbs:
        _m = re.match(r"^\{(\w+)\}((?: [a-z]+)*)", _verb)
        if _m:
            _forms = inflect(_m.group(1)).split("|")
            if _m.group(1) == "be" and _m.group(2):
                _forms = [*_forms, ""]  # "married to", "based in": the key drops the copula
            for _form in _forms:
                _phrase = (_form + _m.group(2)).strip()
                if _phrase.split()[0] not in ("with", "in", "on", "at", "to", "for", "together"):
                    _BY_VERB.setdefault(_phrase, _fam.name)
                    if _m.end() == len(_verb):  # "{work} at", not "{work} ... the {v} team"
                        _BY_WHOLE_VERB.setdefault(_phrase, _fam.name)
                        _WHOLE_VERB_ALL.setdefault(_phrase, set()).add(_fam.name)
for _ambiguous in (
    *("have", "has", "had", "like", "likes", "love", "enjoy", "get", "got", "play"),
    *("watch", "watches", "listen to", "listens to", "read", "reads"),
):
    _BY_VERB.pop(_ambiguous, None)  # "user.like" names no one family
    _BY_WHOLE_VERB.pop(_ambiguous, None)


_OWNER_WORDS = frozenset(
    {"my", "the", "a", "an", "user", "users", "s", "our", "their", "his", "her"}
)


def family_of_label(label: str) -> Family | None:
    """The family a noun phrase names ("home city", "Preferred editor theme"), or None.

    Markers that do not change the attribute (``current``, ``new``, ``preferred``, ``my``,
    ``user's``) are ignored; ``favourite X`` names ``favourite_X`` families only.

    Example:
        >>> family_of_label("User's current employer").name
        'employer'
        >>> family_of_label("favourite tea") is None
        True
    """
    words = _fold(_WORD.findall(label.casefold()))
    if words and words[0] in _FAVOURITE:
        name = _BY_LABEL.get("favourite " + " ".join(w for w in words[1:] if w not in MARKERS))
        if name is not None:
            return FAMILIES[name]
    for kept in (
        [w for w in words if w not in _OWNER_WORDS],
        [w for w in words if w not in MARKERS and w not in _FAVOURITE],
    ):
        name = _BY_LABEL.get(" ".join(kept))
        if name is not None:
            return FAMILIES[name]
    return None


@functools.lru_cache(maxsize=4096)
def canonical_relation(relation: str) -> str | None:
    """The canonical relation of a key's relation (``lives_in`` -> ``home_city``), or None.

    Cached (the family tables are fixed at import): key resolution asks it for every known key
    of a namespace on each write.

    Reads the relation as a noun phrase (:func:`family_of_label`), then as a verb phrase
    (``moved_to``, ``works_at``). ``favourite_X`` keys keep their own name, folded to British
    spelling (``favorite_color`` -> ``favourite_colour``).

    Example:
        >>> canonical_relation("current_city"), canonical_relation("works_for")
        ('home_city', 'employer')
        >>> canonical_relation("favorite_flavor"), canonical_relation("born_in_city_of")
        ('favourite_flavour', None)
    """
    words = _fold(_WORD.findall(relation.casefold().replace("_", " ")))
    if not words or (words[0] == GENERIC_MARK and len(words) > 1):
        return None  # a generic verb claim no family recognised (:func:`generic_relation`)
    family = family_of_label(" ".join(words))
    if family is not None:
        return family.name
    if words[0] in _FAVOURITE and len(words) > 1:
        return "favourite_" + "_".join(words[1:])
    verb = " ".join(w for w in words if w not in ("now", "currently", "also"))
    return _BY_VERB.get(verb) or nearest_family(words)


GENERIC_MARK = "does"
"""The first word of a generic verb relation that would otherwise name a family (``does_watch``)."""

_SUFFIX = re.compile(r"(?:es|s|ed|ing)$")


def _verb_stem(word: str) -> str:
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def generic_relation(relation: str, value: str = "") -> str:
    """The relation of a verb claim that no family recognised: its own words, or marked.

    A relation read from a sentence's verb ("I watch Netflix": ``watch``) is kept as it is
    unless its words, read as a noun phrase, name a family whose verbs do not read it, its
    verb's suffix off or not: ``watch`` and ``watches`` are the wristwatch family's key,
    ``work`` a label of the employer, ``host`` of the cloud provider, and none of them is a
    whole verb of that family. Then it is marked with :data:`GENERIC_MARK` (``does_watch``),
    which :func:`canonical_relation` reads as no family, so the sentence never takes the
    family's key nor takes back its value. So is a verb all of whose families hold common
    nouns when ``value`` is a name (:func:`names_a_thing`: "I order Deliveroo",
    ``does_order``), and the active voice of a family's passive verb
    (:func:`reverses_family`: "I call Tom", ``does_call``), and a relation whose first word
    is a label of a name family when it starts no family's verb ("work with":
    ``does_work_with``; not "work on", the start of "{work} on project"). A relation that
    only the families' verbs read (``types_on``, ``went``: the value was refused by its type
    alone) is kept, for key resolution to place as before; so is one whose noun and verb
    readings agree (``order``).

    Example:
        >>> generic_relation("signed_up_at"), generic_relation("watch")
        ('signed_up_at', 'does_watch')
        >>> generic_relation("works"), generic_relation("types_on"), generic_relation("order")
        ('does_works', 'types_on', 'order')
        >>> canonical_relation(generic_relation("host")) is None
        True
        >>> generic_relation("work_with"), generic_relation("work_on")
        ('does_work_with', 'work_on')
    """
    if is_generic_relation(relation):
        return relation
    words = relation.split("_")
    if (value and names_a_thing(relation, value)) or reverses_family(words[0]):
        return f"{GENERIC_MARK}_{relation}"  # "I order Deliveroo": no coffee; "I call Tom"
    for form in dict.fromkeys((relation, "_".join([_verb_stem(words[0]), *words[1:]]))):
        parts = _fold(_WORD.findall(form.replace("_", " ")))
        noun = family_of_label(" ".join(parts))
        family = noun.name if noun is not None else nearest_family(parts)
        if family is not None and verb_family(form) != family:
            return f"{GENERIC_MARK}_{relation}"
    # "work with" is no "{work} at" nor the start of another family's verb ("{work} on project")
    head = family_of_label(words[0]) if len(words) > 1 else None
    if head is not None and head.kind == "name" and not _starts_a_verb(" ".join(words)):
        return f"{GENERIC_MARK}_{relation}"
    return relation


@functools.lru_cache(maxsize=1024)
def _starts_a_verb(phrase: str) -> bool:
    return any(v == phrase or v.startswith(phrase + " ") for v in _BY_VERB)


def is_generic_relation(relation: str) -> bool:
    """Whether ``relation`` (or a key's last segment) is a marked generic verb relation.

    Example:
        >>> is_generic_relation("does_watch"), is_generic_relation("watch")
        (True, False)
    """
    words = relation.rsplit(".", 1)[-1].split("_")
    return len(words) > 1 and words[0] == GENERIC_MARK


def verb_family(relation: str) -> str | None:
    """The family a relation read from a verb phrase names, or None; its verb is no noun.

    A family's whole verb names it (``moved_to``, ``married_to``; not ``work``, the start of
    "{work} in the {v} team"); otherwise only the
    words after the verb may (``keep_notes_in``: the notes app). The verb alone never names a
    family by a label it shares with it: "I watch Netflix" is no wristwatch, "I host a
    podcast" no cloud provider.

    Example:
        >>> verb_family("moved_to"), verb_family("watch"), verb_family("host")
        ('home_city', None, None)
    """
    words = _fold(_WORD.findall(relation.casefold().replace("_", " ")))
    if not words:
        return None
    verb = " ".join(w for w in words if w not in ("now", "currently", "also"))
    found = _BY_WHOLE_VERB.get(verb)
    if found is not None:
        return found
    rest = [w for w in words[1:] if w not in ("now", "currently", "also")]
    return canonical_relation("_".join(rest)) if rest else None


COMMON_NOUN_FAMILIES = frozenset({"sport", "coffee", "diet"})
"""Families whose values are common nouns, written in lower case after a verb ("I play golf",
"I order a flat white", "I eat vegan"): a capitalised word there is a name, no value of theirs
("I drive a Golf" is a car, "I order Deliveroo" a delivery service)."""

PASSIVE_PARTICIPLES: dict[str, frozenset[str]] = {}
"""Participle -> the families stated by ``{be} <participle> by`` or a bare ``{be} <participle>``
("mentored", "hired", "supervised", "called"): the value does it to the user, so the same verb
in the active voice ("I coach Tom", "I hire Tom", "I call Tom") states the reverse relation."""
for _fam in FAMILIES.values():
    for _verb in _fam.verbs:
        _m = re.match(r"^\{be\} ([a-z]+ed)(?: by)?$", _verb)
        if _m:
            PASSIVE_PARTICIPLES[_m[1]] = PASSIVE_PARTICIPLES.get(_m[1], frozenset()) | {_fam.name}


def reverses_family(verb: str) -> frozenset[str]:
    """The families whose passive verb ``verb`` states in the active voice, reversed.

    "{be} called" states the user's name, so "I call Tom" names none; "{be} hired by" the
    employer, so "I hire Tom" is no employer (:data:`PASSIVE_PARTICIPLES`).

    Example:
        >>> sorted(reverses_family("call")), sorted(reverses_family("hires"))
        (['name'], ['employer'])
        >>> reverses_family("report")
        frozenset()
    """
    w = verb.casefold()
    forms = {w, w[:-1] if w.endswith("s") else w, w[:-2] if w.endswith("es") else w}
    out: frozenset[str] = frozenset()
    for participle, names in PASSIVE_PARTICIPLES.items():
        if forms & {participle[:-2], participle[:-1]}:
            out |= names
    return out


def names_a_thing(relation: str, value: str) -> bool:
    """Whether a verb claim's capitalised value is a name that no family of its verb takes.

    Every family whose whole verb ``relation`` is (``order``, ``drink``: the coffee; ``play``:
    the sport and the instruments) holds common nouns (:data:`COMMON_NOUN_FAMILIES`), and the
    value after the verb is capitalised: "I order Deliveroo", "I play Wordle" state no coffee
    and no sport, so their keys take back none.

    Example:
        >>> names_a_thing("order", "Deliveroo"), names_a_thing("order", "a flat white")
        (True, False)
        >>> names_a_thing("play", "Wordle"), names_a_thing("types_on", "Halmak")
        (True, False)
    """
    verb = " ".join(_fold(_WORD.findall(relation.casefold().replace("_", " "))))
    families = _WHOLE_VERB_ALL.get(verb, set())
    lead = re.sub(r"^(?:the|a|an)\s+", "", value.strip(), flags=re.IGNORECASE)
    return (
        bool(families)
        and lead[:1].isupper()
        and all(f in COMMON_NOUN_FAMILIES or FAMILIES[f].multi_valued for f in families)
    )


def key_family(key: str) -> Family | None:
    """The family a key's relation names (:func:`canonical_relation` of its last segment).

    Example:
        >>> key_family("user.lives_in").name, key_family("user.born_in_city_of")
        ('home_city', None)
    """
    name = canonical_relation(key.rsplit(".", 1)[-1])
    return FAMILIES.get(name) if name else None


_FILLER = frozenset(
    {"of", "to", "for", "in", "at", "on", "with", "by", "and", "or", "usual", "main", "go"}
    | {"up", "out", "off", "over", "into", "from", "get", "got", "gets", "is", "are", "was"}
)


def _token_list(words: Iterable[str]) -> list[str]:
    out = []
    for word in words:
        for part in re.split(r"[^a-z0-9]+", word.casefold()):
            if len(part) < 2 or part in _FILLER or part in MARKERS or part in _OWNER_WORDS:
                continue
            out.append(part[:-1] if len(part) > 3 and part.endswith("s") else part)
    return out


def _tokens(words: Iterable[str]) -> set[str]:
    return set(_token_list(words))


_LABEL_TOKENS: dict[str, set[str]] = {}
for _fam in FAMILIES.values():
    for _label in (_fam.name.replace("_", " "), *_fam.labels):
        _LABEL_TOKENS.setdefault(_fam.name, set()).update(_tokens(_WORD.findall(_label)))
_LABEL_HEADS: dict[str, set[str]] = {}
for _fam in FAMILIES.values():
    for _label in (_fam.name.replace("_", " "), *_fam.labels):
        _label_toks = _token_list(_WORD.findall(_label))
        if _label_toks:
            _LABEL_HEADS.setdefault(_fam.name, set()).add(_label_toks[-1])
_TOKEN_FAMILIES: dict[str, int] = {}
for _toks in _LABEL_TOKENS.values():
    for _tok in _toks:
        _TOKEN_FAMILIES[_tok] = _TOKEN_FAMILIES.get(_tok, 0) + 1


def nearest_family(words: Iterable[str]) -> str | None:
    """The family whose labels share the most distinctive words with an unknown label, or None.

    A fallback for attribute phrases no family lists ("command-line shell", "note-taking app",
    "line manager"): each word of the phrase votes for the families whose labels hold it,
    weighted by how few families do. The winner must be unique, hold at least half of the
    phrase's content words, share one word with at most two families, and hold the phrase's
    head (its last word) or share the head of one of its own labels.

    Example:
        >>> nearest_family(["line", "manager"]), nearest_family(["note-taking", "app"])
        ('manager', 'notes_app')
        >>> nearest_family(["signed", "up", "at"]) is None, nearest_family(["liked", "foods"])
        (True, None)
    """
    words = list(words)
    ordered = _token_list(words)
    query = set(ordered)
    per_word = [t for t in (_tokens([w]) for w in words) if t]
    if not query or len(query) > 4:
        return None
    scores: list[tuple[float, int, str]] = []
    for name, toks in _LABEL_TOKENS.items():
        shared = query & toks
        if not shared or min(_TOKEN_FAMILIES[t] for t in shared) > 2:
            continue
        heads = shared & _LABEL_HEADS.get(name, set())
        if (ordered[-1] not in toks or len(query) == 1) and not heads:
            continue
        covered = sum(1 for t in per_word if t & shared)
        scores.append((sum(1 / _TOKEN_FAMILIES[t] for t in shared), covered, name))
    if not scores:
        return None
    scores.sort(reverse=True)
    best = scores[0]
    if len(scores) > 1 and scores[1][0] == best[0]:
        return None
    last = words[-1].casefold()
    if last.endswith("s") and not last.endswith("ss") and not FAMILIES[best[2]].multi_valued:
        return None  # "liked foods" are several: no single-valued family takes them
    return best[2] if 2 * best[1] >= len(per_word) else None
