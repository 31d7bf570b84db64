"""The family of a claim no shape knows, from the words around its value.

A sentence about the user whose verb no family lists ("User keeps the money at Nordea", "I
ported the app to ClickHouse", "User made the move to Antwerp") still says which attribute it is
about through its other words: *money* is banking, *app* and *data* are a database or a cloud,
*move* is where one lives. :func:`infer_family` reads them: the value's own head noun first
("the Rose Pine theme", "a Polar watch"), then the *cue words* of the predicate (the sentence
without its value), each voting for the families whose labels or cues hold its stem. The winner
must be unique and its value must fit it (a name for a name family; for a family with a closed
vocabulary, either a word of it or a short name when a cue names the family outright).

The cues are words of an attribute's meaning, not sentence shapes: any verb that comes with
*money* votes for the bank. What no cue decides is left to key resolution
(:mod:`langchain_tepa.extraction.resolution`), which compares the claim's attribute text with
the namespace's known ones.

Example:
    >>> infer_family(["keeps", "the", "money", "at"], "Nordea")
    ('bank', 'Nordea')
    >>> infer_family(["keeps", "the", "editor", "on"], "the Rose Pine theme")
    ('editor_theme', 'Rose Pine')
    >>> infer_family(["asked", "for", "gift", "ideas", "for"], "a colleague") is None
    True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from langchain_tepa.extraction.families import (
    COMMON_NOUN_FAMILIES,
    FAMILIES,
    MARKERS,
    PASSIVE_PARTICIPLES,
    Family,
    family_of_label,
)
from langchain_tepa.extraction.values import trim_tail, value_fits, vocab_value
from langchain_tepa.extraction.vocabularies import words as _words

__all__ = [
    "CLOSED",
    "CUES",
    "EVENT_VERBS",
    "content_stems",
    "family_fits",
    "family_stems",
    "head_family",
    "infer_family",
    "retype",
    "stem",
    "user_predicate",
]

#: Words of each attribute's meaning beyond its labels (stems are compared).
CUES: dict[str, tuple[str, ...]] = {
    "home_city": ("move", "relocate", "reside", "resident", "settle", "emigrate", "city", "town"),
    "neighbourhood": ("neighbourhood", "neighborhood", "area", "district", "place", "flat"),
    "employer": ("hire", "employ", "employed", "staff", "payroll", "salary", "job", "company"),
    "manager": ("report", "supervise", "supervisor", "boss", "manage", "line"),
    "occupation": ("profession", "promote", "promoted", "retrain", "career", "role", "position"),
    "team": ("team", "squad", "department", "reorg"),
    "diet": ("diet", "eat", "eating", "dietary", "meal", "vegetarian", "vegan"),
    "partner": ("date", "dating", "relationship", "together", "seeing", "girlfriend", "boyfriend"),
    "phone": ("phone", "handset", "smartphone", "cellphone"),
    "email_client": ("email", "mail", "inbox", "e-mail"),
    "car": ("car", "drive", "driving", "vehicle", "delivery", "dealership", "lease"),
    "editor_theme": ("theme", "scheme", "colour scheme", "dark", "light"),
    "editor": ("code", "coding", "ide", "editor", "develop", "development"),
    "programming_language": ("programming", "language", "coding", "program"),
    "shell": ("shell", "terminal", "prompt"),
    "reply_language": ("reply", "replies", "response", "answer", "respond"),
    "timezone": ("timezone", "clock", "calendar", "hours"),
    "gym": ("gym", "workout", "work out", "exercise", "fitness", "train", "member", "membership"),
    "bank": ("bank", "money", "account", "savings", "salary", "deposit"),
    "browser": ("browser", "browse", "browsing", "surf", "web", "internet"),
    "operating_system": ("operating", "os", "install", "reinstall", "wipe", "distro", "format"),
    "school": ("study", "student", "enrol", "enroll", "degree", "accepted", "admit", "campus"),
    "commute": ("commute", "commuting", "travel", "ride", "office"),
    "airline": ("fly", "flight", "flyer", "airline", "mile", "frequent"),
    "mobile_carrier": ("network", "carrier", "sim", "number", "plan", "mobile"),
    "music_app": ("music", "stream", "streaming", "listen", "playlist", "song"),
    "laptop": ("laptop", "notebook", "computer", "machine"),
    "doctor": ("doctor", "gp", "patient", "physician", "clinic", "register"),
    "name": ("call", "called", "name", "nickname", "address"),
    "wake_time": ("wake", "alarm", "get up", "rise", "morning"),
    "coffee": ("coffee", "espresso", "latte", "cafe", "barista"),
    "cloud_provider": ("cloud", "deploy", "host", "hosting", "infra", "infrastructure", "server"),
    "database": ("database", "db", "data", "store", "storage", "query", "app"),
    "keyboard_layout": ("keyboard", "layout", "type", "typing", "key", "finger"),
    "health_insurer": ("insurance", "insure", "insurer", "health", "cover", "policy"),
    "notes_app": ("note", "notes", "notebook", "journal"),
    "password_manager": ("password", "vault", "login", "credential"),
    "hair_colour": ("hair", "dye", "colour", "color", "coloured", "colored", "hairdresser"),
    "watch": ("watch", "wrist", "wear"),
    "mentor": ("mentor", "coach", "mentoring", "coaching", "mentee"),
    "project": ("project", "staff", "assign", "sprint", "work on"),
    "landlord": ("landlord", "rent", "lease", "tenant", "flat", "letting"),
    "football_team": ("football", "soccer", "fan", "support", "supporter", "club", "follow"),
    "cuisine": ("food", "cuisine", "cooking", "cook", "dish", "restaurant"),
    "favourite_colour": ("colour", "color", "shade"),
    "sport": ("sport", "play", "athlete", "match", "league"),
}

#: Families whose values are a closed set of words: a name their vocabulary lacks is not one.
CLOSED: frozenset[str] = frozenset(
    {"diet", "programming_language", "reply_language", "sport", "coffee", "timezone"}
)

_SUFFIXES = ("ations", "ation", "ings", "ing", "ers", "er", "ies", "ied", "es", "ed", "s", "e")
_WORD = re.compile(r"[a-z][a-z-]*")
_STOP = _words(
    "the a an to at in on of for with by from over into as and my our their his her user is "
    "are was were has have had be been now new got get just also this that it them me you up "
    "out went made make set put took take everything all ago week weeks month year recently "
    "couple"
)


def stem(word: str) -> str:
    """A crude stem: lower case, one common suffix off (``moving`` -> ``mov``).

    Example:
        >>> stem("Moving"), stem("moved"), stem("move"), stem("flies"), stem("fly")
        ('mov', 'mov', 'mov', 'fly', 'fly')
    """
    w = word.casefold()
    if len(w) > 4 and w.endswith(("ies", "ied")):  # "flies", "studied": the -y verb
        return w[:-3] + "y"
    for suffix in _SUFFIXES:
        if len(w) - len(suffix) >= 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


_AMBIGUOUS_VERBS = ("have", "like", "love", "enjoy", "get", "play", "listen", "watch", "read")
"""Verbs whose objects are of many kinds (a game, a band, a show, a book, an app): neither a
label word that stems to one nor the verb alone names a family outright."""
_AMBIGUOUS_STEMS = frozenset(stem(v) for v in _AMBIGUOUS_VERBS)


def _build() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    strong: dict[str, set[str]] = {}
    weak: dict[str, set[str]] = {}
    for name, fam in FAMILIES.items():
        for label in (name.replace("_", " "), *fam.labels):
            for w in _WORD.findall(label.casefold()):
                if w not in _STOP and w not in MARKERS and len(w) > 2:
                    strong.setdefault(stem(w), set()).add(name)
    for name, cues in CUES.items():
        for cue in cues:
            for w in _WORD.findall(cue):
                if w not in _STOP:
                    weak.setdefault(stem(w), set()).add(name)
    # A label word that stems to a verb several families use ("player" of "music player" is
    # "play": sports, instruments, games) names none of them outright; it votes as a cue.
    for s in _AMBIGUOUS_STEMS & set(strong):
        weak[s] = weak.get(s, set()) | strong.pop(s)
    return strong, weak


_STRONG, _WEAK = _build()


def family_stems() -> dict[str, set[str]]:
    """Family name -> the stems of its labels and cue words.

    Example:
        >>> "money" in family_stems()["bank"]
        True
    """
    out: dict[str, set[str]] = {}
    for table in (_STRONG, _WEAK):
        for s, names in table.items():
            for name in names:
                out.setdefault(name, set()).add(s)
    return out


def content_stems(texts: Sequence[str]) -> set[str]:
    """The stems of the content words of ``texts`` (stop words and short words left out).

    Example:
        >>> sorted(content_stems(["user keeps the money at"]))
        ['keep', 'money']
    """
    return {
        stem(w)
        for text in texts
        for w in _WORD.findall(text.casefold())
        if w not in _STOP and len(w) > 2
    }


_WHEN = re.compile(
    r"^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|"
    r"may|june|july|august|september|october|november|december|today|tomorrow|yesterday|"
    r"tonight|morning|afternoon|evening|noon|midnight|weekend)s?\b",
    re.IGNORECASE,
)


def _fits(family: Family, value: str, named: bool, outright: bool = False) -> str | None:
    """``value`` read as a value of ``family``, or None (a day or month is no value).

    ``named``: a word of the sentence names the family; ``outright``: the value's own noun
    does ("a Mediterranean diet"), which admits a word outside even a closed vocabulary.
    """
    value = re.sub(r"^(?:the|a|an)\s+", "", value.strip(), flags=re.IGNORECASE).strip(" .,!")
    if not value or len(value.split()) > 4 or family.multi_valued or _WHEN.match(value):
        return None
    if not value_fits(family.name, value):
        return None
    if family.vocab:
        known = vocab_value(value, family.name, family.vocab)
        if known is not None:
            return known
        # an unknown word of a vocabulary: only where a word names the family outright, and
        # never for a family whose values are a closed set ("Nova" is no programming language)
        if (family.name in CLOSED and not outright) or not named or len(value.split()) > 3:
            return None
        return value
    if family.kind == "name" and not (value[:1].isupper() or value[:1].isdigit()):
        return None
    if family.kind == "number" and not any(c.isdigit() for c in value):
        return None
    return value


def _value_tail(value: str) -> tuple[Family, str] | None:
    """A value that ends with a family's noun: "the Rose Pine theme", "a Polar watch"."""
    words = value.strip(" .,!").split()
    for n in (2, 1):
        if len(words) > n and all(w.islower() for w in words[-n:]):
            if _PLACE.match(words[-n]):  # "a Brompton to work": a place, not the value's noun
                return None
            family = family_of_label(" ".join(words[-n:]))
            rest = " ".join(words[:-n])
            rest = re.sub(r"^(?:the|a|an)\s+", "", rest, flags=re.IGNORECASE)
            if rest != trim_tail(rest):  # "Debian on the machine": a place, not "a Polar watch"
                return None
            if family is not None and rest and not family.multi_valued:
                return family, rest
    return None


def infer_family(
    predicate: Sequence[str], value: str, after: Sequence[str] = (), *, verb: bool = False
) -> tuple[str, str] | None:
    """The family and value of a user's claim that no shape named, or None.

    Each content word votes for the families whose labels (2) or cue words (1) hold its
    stem; a word of one family's closed vocabulary in the value votes 2 for it. Only the
    families the value can be a value of compete (its type: :func:`value_fits`; a name
    outside a family's vocabulary only where a word names that family outright and its
    values are not a closed set, :data:`CLOSED`).

    Args:
        predicate: The words of the sentence around the value (its verb phrase), in order.
        value: The value as read ("the Rose Pine theme", "Nordea").
        after: Words that follow the value and say what it is for ("for coding"); they
            name the attribute more surely than the verb and vote twice. A place phrase
            ("to work", "to the gym") says where the value goes: its words vote for nothing,
            and a family they name holds the place, not the value ("a Brompton to work").
        verb: ``predicate`` starts with the user's verb ("ride a", "coach"). Its first word
            then names no family by a label it spells ("ride" is no car: a cue only); a verb
            whose passive states a family ("{be} coached by") states the reverse in the
            active voice ("I coach Tom": the user is the mentor, no claim of it); and a label
            right after "am"/"is" is what the user is ("I am a mentor to Priya"), no claim.

    Example:
        >>> infer_family(["moved", "over", "to"], "Nova", after=["for", "coding"])
        ('editor', 'Nova')

    Returns:
        ``(family name, value)`` when one family wins and the value fits it.
    """
    if _PLACE.match(" ".join(after)):  # "a Brompton to work": where it goes, not what it is
        vetoed = {f for w in after for f in _STRONG.get(stem(w.casefold()), set())}
        after = ()
    else:
        vetoed = set()
    lower = [w.casefold() for w in predicate] if verb else []
    be = bool(lower) and lower[0] in _BE
    passive = be or "by" in lower or bool(_GET & set(lower))  # "got hired by": not reversed
    if not passive:  # "I coach Tom": the user coaches, so is the mentor
        for w in lower:
            vetoed |= _REVERSED.get(stem(w), set())
    role = next((w for w in lower[1:] if w not in ("a", "an", "the")), "") if be else ""
    if not role.endswith(("ed", "ing")):  # "I am a mentor to Priya": the user is one
        vetoed |= _STRONG.get(stem(role), set())
    tail = _value_tail(value)
    if tail is not None:
        read = _fits(tail[0], tail[1], named=True, outright=True)
        if read is not None:
            return tail[0].name, read
    votes: dict[str, float] = {}
    named: set[str] = set()  # families a word names outright (a label, or a cue of it alone)
    weighted = [(w, 1.0) for w in predicate] + [(w, 2.0) for w in after]
    for i, (word, weight) in enumerate(weighted):
        for w in _WORD.findall(word.casefold()):
            if w in _STOP or w in MARKERS:  # "default", "main": no attribute of their own
                continue
            s = stem(w)
            strong = _STRONG.get(s, set())
            weak = _WEAK.get(s, set()) - strong
            spelt = verb and i == 0 and not be  # a label the verb spells is a cue ("I ride a")
            if spelt:  # and names no family outright ("I text Priya" is no text editor)
                strong, weak = set(), weak | strong
            for fam in strong:
                votes[fam] = votes.get(fam, 0.0) + weight * 2.0 / len(strong)
            for fam in weak:
                votes[fam] = votes.get(fam, 0.0) + weight / len(weak)
            alone = len(weak) == 1 and s not in _AMBIGUOUS_STEMS and not (spelt and s in _STRONG)
            named |= strong | (weak if alone else set())
    # the value's own type votes too: a word of one family's closed vocabulary ("BEPO" is a
    # keyboard layout), so "retrained on BEPO" is no occupation
    last = value.strip(" .,!").split()[-1] if value.strip(" .,!").split() else ""
    noun = family_of_label(last) if last[:1].isupper() and len(value.split()) > 1 else None
    if noun is not None and not noun.multi_valued:  # "Trinity College", "Gold's Gym"
        votes[noun.name] = votes.get(noun.name, 0.0) + 2.0
        named.add(noun.name)
    hits = _type_hits(value)
    if _TITLE.match(value.strip()):  # "Dr. Mensah": a doctor's name says what it is
        hits = ("doctor",)
    if len(hits) == 1:  # the value's own type outweighs one cue word ("a Crystal fan")
        votes[hits[0]] = votes.get(hits[0], 0.0) + 3.0
    # only families the value can be a value of compete ("Evolution" is no email address)
    is_name = _is_name(value)
    fitting = {
        fam: (score, read)
        for fam, score in votes.items()
        if fam not in vetoed
        and (read := _fits(FAMILIES[fam], value, named=fam in named and is_name)) is not None
    }
    if not fitting:
        return None
    ranked = sorted(fitting.items(), key=lambda kv: -kv[1][0])
    best, (score, read) = ranked[0]
    if (len(ranked) > 1 and ranked[1][1][0] >= score) or score < 1.0:
        return None
    return retype(FAMILIES[best], read).name, read


_PLACE = re.compile(r"^(?:to|at|into|from|towards?)\b", re.IGNORECASE)
_BE = frozenset({"am", "is", "are", "was", "were", "be"})
_GET = frozenset({"get", "gets", "got", "getting", "been", "being"})
_REVERSED: dict[str, set[str]] = {}
for _participle, _fams in PASSIVE_PARTICIPLES.items():
    _REVERSED.setdefault(stem(_participle), set()).update(_fams)


def _is_name(value: str) -> bool:
    v = re.sub(r"^(?:the|a|an)\s+", "", value.strip(), flags=re.IGNORECASE)
    return v[:1].isupper() or v[:1].isdigit()


_VOCAB_FAMILIES = tuple(f for f in FAMILIES.values() if f.vocab and not f.multi_valued)


def _type_hits(value: str) -> tuple[str, ...]:
    """:func:`_vocab_hits`, less the common-noun families when the value is a name.

    "a Golf" after a verb is a car, no sport (``families.COMMON_NOUN_FAMILIES``).
    """
    hits = _vocab_hits(value)
    return tuple(h for h in hits if h not in COMMON_NOUN_FAMILIES) if _is_name(value) else hits


_TITLE = re.compile(r"^(?:Dr|Doctor)\b\.?\s+[A-Z]")


@functools.lru_cache(maxsize=4096)
def _vocab_hits(value: str) -> tuple[str, ...]:
    """The single-valued families whose vocabulary holds ``value`` (a time zone's names too)."""
    from langchain_tepa.extraction.vocabularies import TIMEZONES

    hits = [f.name for f in _VOCAB_FAMILIES if vocab_value(value, f.name, f.vocab) is not None]
    if value.strip().casefold() in TIMEZONES and value.strip().isupper():
        hits.append("timezone")  # "AEST", "CET"
    return tuple(hits)


_USER_SUBJECT = re.compile(r"^(?:I|we|(?:the\s+)?user)\s+(?P<pred>\S.*)$", re.IGNORECASE)
_NOT_NOW = re.compile(
    r"^(?:(?:may|might|could|would|should|will|shall|must|can|wants?\s+to|plans?\s+to|"
    r"hopes?\s+to|intends?\s+to|is\s+(?:going|planning|hoping|thinking|considering|about)|"
    r"considers?|wonders?|used\s+to|had|(?:was|were)(?!\s+\w+ed\s+(?:with|by|on|onto|to|into|"
    r"at|as|for)\s))\b|.*\b(?:if|unless|whether|maybe|perhaps)\b)",
    re.IGNORECASE,
)
#: Verbs that report a moment of the conversation, not an attribute ("asked about X").
EVENT_VERBS = frozenset(
    {
        "asked",
        "asks",
        "told",
        "tells",
        "said",
        "says",
        "thanked",
        "thanks",
        "talked",
        "discussed",
        "mentioned",
        "requested",
        "requests",
        "shared",
        "wondered",
        "complained",
        "reported",
        "needs",
        "needed",
        "forgot",
        "tried",
        "is reading",
        "reading",
        "watched",
        "had",
    }
)
_ADDITIVE = re.compile(
    r"\b(?:also|too|as\s+well|another|additionally|additional|second|other|besides)\b",
    re.IGNORECASE,
)
_AUXILIARIES = frozenset(
    {"is", "are", "am", "was", "were", "has", "have", "had", "been", "be", "the", "a", "an", "just"}
)
_BREAKS = frozenset(
    {"to", "at", "in", "on", "with", "by", "for", "from", "into", "a", "an", "the", "as", "of"}
)


def user_predicate(text: str, *, verb: bool = True) -> tuple[str, str, bool, bool] | None:
    """The relation and value of "<the user> <any verb phrase> <value>", or None.

    The value is the object phrase: from the first capitalised word or number after the verb,
    else what follows the last preposition or article, else the last word of a short
    predicate ("has gone low-carb"). The rest of the predicate is read by
    :func:`infer_family`; when no family wins, the relation is the predicate's own words
    (``signed_up_at``), for key resolution to place. ``verb``: the predicate starts with a
    verb (not so for "user app runs on X", read for "the user's app runs on X").

    Returns:
        ``(relation, value, whether the relation is a family, whether the sentence adds a
        value)`` or None (no object, a plan or a wish, a moment of the conversation). A
        sentence that adds ("also", "too", "as well", "another") names one value of several.

    Example:
        >>> user_predicate("user wears a Polar watch")
        ('watch', 'Polar', True, False)
        >>> user_predicate("the user signed up at BeFit")
        ('signed_up_at', 'BeFit', False, False)
        >>> user_predicate("User is also learning Arabic")
        ('learning', 'Arabic', False, True)
        >>> user_predicate("The user asked about the weather") is None
        True
    """
    m = _USER_SUBJECT.match(text.strip().rstrip(".!"))
    if m is None:
        return None
    pred = m.group("pred")
    additive = _ADDITIVE.search(pred) is not None
    if additive:
        pred = " ".join(_ADDITIVE.sub(" ", pred).split())
    words = pred.split()
    if len(words) < 2 or len(words) > 14 or _NOT_NOW.match(pred):
        return None  # a plan, a wish, a past state: nothing that holds now
    if words[0].casefold() in EVENT_VERBS:
        return None
    cut = next((i for i, w in enumerate(words[1:], 1) if w[:1].isupper() or w[:1].isdigit()), None)
    if cut is None:
        marks = [i for i, w in enumerate(words) if w.casefold() in _BREAKS]
        if marks and marks[-1] + 1 < len(words):
            cut = marks[-1] + 1
        elif not marks and len(words) <= 3:
            cut = len(words) - 1
        else:
            return None
    value = " ".join(words[cut:]).strip(" ,;")
    if re.match(r"^\S+['’]s\b", value):  # "I am Tom's mentor": an attribute of Tom's
        return None
    after: list[str] = []
    if (words[cut][:1].isupper() or words[cut][:1].isdigit()) and _value_tail(value) is None:
        # a name, then lower-case words: they say what the name is for ("Waterfox for
        # browsing", "a Vueling frequent flyer", "a Razer Blade laptop around")
        end = cut + 1
        while end < len(words) and (words[end][:1].isupper() or words[end][:1].isdigit()):
            end += 1
        rest = [w.strip(" ,;.!") for w in words[end:]]
        if rest and all(w.isalpha() and w.islower() for w in rest):
            value, after = " ".join(words[cut:end]).strip(" ,;"), rest
    inferred = infer_family(words[:cut], value, after, verb=verb)
    if inferred is not None:
        return inferred[0], inferred[1], True, additive
    kept = [w.casefold() for w in words[:cut] if w.casefold() not in _AUXILIARIES and w.isalpha()]
    relation = "_".join(kept)[:60]
    value = re.sub(r"^(?:the|a|an)\s+", "", value, flags=re.IGNORECASE)
    if not relation or not value or len(value.split()) > 5:
        return None
    return relation, value, False, additive


def retype(family: Family, value: str) -> Family:
    """The family whose vocabulary holds ``value`` when ``family``'s does not, else ``family``.

    A rule that names a family with a vocabulary ("the machine is on X": a laptop) but reads
    a value that is no word of it and is a word of exactly one other single-valued family
    ("Pop!_OS": an operating system) gives the claim to that family: the value's type decides.

    Example:
        >>> retype(FAMILIES["laptop"], "Debian").name, retype(FAMILIES["laptop"], "ThinkPad").name
        ('operating_system', 'laptop')
    """
    if not family.vocab or family.multi_valued:
        return family
    hits = _type_hits(value)
    if family.name in hits or len(hits) != 1 or {family.name, hits[0]} <= _DEVICES:
        return family  # one brand makes phones, laptops and watches: "Huawei MateBook"
    return FAMILIES[hits[0]]


_DEVICES = frozenset({"phone", "laptop", "watch", "car"})


def head_family(label: str, value: str) -> Family | None:
    """The family a label names by its head noun ("command-line shell": the shell), or None.

    When the head noun names no family alone ("favourite language"), the one single-valued
    family whose labels hold that noun and whose vocabulary holds ``value`` ("Swift": a
    programming language).

    Example:
        >>> head_family("command-line shell", "tcsh").name
        'shell'
        >>> head_family("favourite language", "Swift").name
        'programming_language'
    """
    words = _WORD.findall(label.casefold())
    if not words:
        return None
    head = words[-1]
    found = family_of_label(head)
    if found is not None:
        return found
    hits = [
        f
        for f in _VOCAB_FAMILIES
        if stem(head) in _LABEL_STEMS.get(f.name, set())
        and vocab_value(value, f.name, f.vocab) is not None
    ]
    return hits[0] if len(hits) == 1 else None


_LABEL_STEMS: dict[str, set[str]] = {}
for _s, _names in _STRONG.items():
    for _n in _names:
        _LABEL_STEMS.setdefault(_n, set()).add(_s)


def family_fits(family: Family, value: str, outright: bool = False) -> bool:
    """Whether ``value`` can be a value of ``family``: its type, its vocabulary, a name.

    With ``outright`` (a label names the family: "the coffee order of the user is X"), a word
    outside the vocabulary is still its value.

    Example:
        >>> coffee = FAMILIES["coffee"]
        >>> family_fits(coffee, "cortadito"), family_fits(coffee, "cortadito", outright=True)
        (False, True)
    """
    if not value_fits(family.name, value):
        return False
    if family.vocab and not outright:
        return vocab_value(value, family.name, family.vocab) is not None
    return family.kind != "name" or value[:1].isupper() or value[:1].isdigit()
