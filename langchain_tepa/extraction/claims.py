"""Claims about a user (and the people a user speaks of) from one sentence.

:func:`parse_user_sentence` reads sentences whose subject is the user: the first person ("I
moved to Berlin", "My employer is Acme"), the third person that agents and memory tools write
("User lives in Lisbon", "The user's manager is now Tomasz") and labelled summaries ("User's
home city: Lisbon", "Preferred editor theme: dark"). Each claim names an attribute family
(:mod:`langchain_tepa.extraction.families`), so all these phrasings give one canonical key.
People the user speaks of are other subjects: "My sister lives in Madrid" is about
``user.sister``. Sentences about anyone else are left to the generic shapes of
:class:`~langchain_tepa.extraction.offline.OfflineFactExtractor` (``None``).

Example:
    >>> [(c.subject, c.relation, c.value) for c in parse_user_sentence("I moved to Oslo.")]
    [('user', 'home_city', 'Oslo')]
    >>> parse_user_sentence("I might move to Rome.")
    'hypothetical'
    >>> parse_user_sentence("The capital of France is Paris.") is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_tepa.extraction.families import (
    FAMILIES,
    RELATIVES,
    Family,
    family_of_label,
    nearest_family,
)
from langchain_tepa.extraction.frames import PLACE, liking, purpose, request
from langchain_tepa.extraction.generic import (
    content_stems,
    family_stems,
    head_family,
    infer_family,
    retype,
    user_predicate,
)
from langchain_tepa.extraction.lexicon import DIETS, OCCUPATIONS, normalize_key_part
from langchain_tepa.extraction.values import (
    clean_value,
    is_hypothetical,
    several,
    value_fits,
    vocab_value,
)
from langchain_tepa.extraction.verb_patterns import (
    _ADVERBS,
    _BEST_OF_ALL,
    _CHANGE_LEMMAS,
    _PAST,
    _STATE_LEMMAS,
    _candidates,
    _read,
    _tail,
)

__all__ = ["Claim", "parse_user_sentence"]


@dataclass(frozen=True)
class Claim:
    """One keyed claim of a sentence.

    Attributes:
        subject: Key form of the subject (``"user"``, ``"user.sister"``).
        relation: The canonical relation (``"home_city"``).
        value: The value as written, without time phrases ("Oslo", not "Oslo last month").
        multi_valued: Whether the attribute holds several values (pets, hobbies).
        correction: Whether the sentence says the value changed ("now", "moved to").
        previous: The value the sentence says was replaced ("switched from X to Y": X).

    Example:
        >>> Claim("user", "diet", "vegan").key
        'user.diet'
    """

    subject: str
    relation: str
    value: str
    multi_valued: bool = False
    correction: bool = False
    previous: str = ""

    @property
    def key(self) -> str:
        """``subject.relation``."""
        return f"{self.subject}.{self.relation}"


_I = re.IGNORECASE
_LEADS = re.compile(
    r"^(?:(?:from\s+now\s+on|as\s+of\s+(?:today|now|this\s+\w+|last\s+\w+)|starting\s+"
    r"(?:today|now|this\s+\w+)|these\s+days|nowadays|lately|recently|currently|at\s+the\s+moment|"
    r"update|updated|correction|note|fyi|news|change|changed|heads\s+up|memory|fact|so|"
    r"for\s+reference|for\s+the\s+record|just\s+so\s+you\s+know|as\s+a\s+reminder|"
    r"remember(?:\s+that)?|good\s+to\s+know|btw|by\s+the\s+way|also|and|but|oh|well|ok|okay)"
    r"\s*[,:;\-–—]?\s+)+",
    _I,
)
_CHANGE_WORDS = re.compile(
    r"\b(?:[Nn]ow|no\s+longer|anymore|any\s+more|[Ff]rom\s+now\s+on|[Ii]nstead|switched|"
    r"switches|switching|changed|changes|moved|moves|relocated|new|[Nn]owadays|"
    r"[Tt]hese\s+days|[Uu]pdated?|[Cc]orrection|left|became|replaced|swapped|migrated|"
    r"transferred|upgraded|dropped|ditched)\b"
)
_CONTRACTIONS = (
    (re.compile(r"\b(I|we|you|they)['’]ve\b", _I), r"\1 have"),
    (re.compile(r"\bI['’]m\b"), "I am"),
    (re.compile(r"\b(I|we|they|he|she)['’]d\s+(?=like|love|prefer)", _I), r"\1 would "),
    (re.compile(r"\b([Ww]e)['’]re\b"), r"\1 are"),
    (re.compile(r"\b(it|that|this)['’]s\b", _I), r"\1 is"),
    (
        re.compile(
            r"\b(user|he|she)['’]s\s+(?=(?:now\s+|currently\s+|also\s+)?(?:been|got|"
            r"based|moved|living|working|employed|a|an|the|vegan|vegetarian|"
            r"allergic|married|into|from|on|in|at)\b)",
            _I,
        ),
        r"\1 is ",
    ),
)
_NO_LONGER = re.compile(
    r"^(?P<head>.+?)\s+(?:is|are)\s+no\s+longer\s+.+?[;,]\s+(?:it|that|this|they)\s+(?:is|are)"
    r"\s+(?:now\s+)?(?P<value>.+)$",
    _I,
)
_NEGATION = re.compile(r"(?<![A-Z])\b(?:not|never|no|nobody|nothing|neither|nor)\b|n['’]t\b")
_OWNER = r"(?:my|our|(?:the\s+)?(?:user|client|customer)(?:['’]s|s['’]))"
_POSSESSIVE = re.compile(rf"^{_OWNER}\s+(.+)$", _I)
_SUBJECT = re.compile(r"^(?:I|we|(?:the\s+)?(?:user|client|customer))\s+(.+)$", _I)
_LABEL_COLON = re.compile(
    r"^(?:(?P<owner>(?:the\s+)?(?:user|client|customer)(?:['’]s)?|my|our)\s+)?"
    r"(?P<label>[A-Za-z][A-Za-z '’/-]{0,48}?)\s*[:=]\s*(?P<value>\S.*)$",
    _I,
)
_COPULA = re.compile(
    r"^(?P<np>[a-z][a-z '’-]*?)\s+(?:(?:is\s+(?:now\s+)?(?:called|named|with)|"
    r"is\s+(?:now\s+)?(?:in|at|on)(?=\s+[A-Z])|is\s+(?:now\s+)?set\s+(?:to|for)|"
    r"is|was|are|has\s+become|became|becomes|"
    r"has\s+been|is\s+still|remains|has\s+changed\s+to|changed\s+to|changes\s+to|"
    r"has\s+switched\s+to|switched\s+to|has\s+moved\s+to|moved\s+to|went\s+to|"
    r"is\s+(?:now\s+)?set\s+(?:to|for)|was\s+changed\s+to|was\s+updated\s+to|"
    r"has\s+been\s+updated\s+to|is\s+(?:now\s+)?called|is\s+(?:now\s+)?named|"
    r"changed\s+from\s+.+?\s+to|went\s+from\s+.+?\s+to|is\s+(?:now\s+)?with|"
    r"is\s+(?:now\s+)?(?:in|at|on)(?=\s+[A-Z]))\s+)(?P<value>\S.*)$",
    _I,
)
_VALUE_FIRST = re.compile(
    rf"^(?P<value>.+?)\s+(?:is|are)\s+(?:now\s+|also\s+)?{_OWNER}\s+(?:new\s+)?(?P<label>.+)$",
    _I,
)
_LABEL_CLAUSE = re.compile(
    r"^(?:the|my)\s+(?P<label>[a-z][a-z ]{0,30}?)\s+(?:that\s+|which\s+)?(?:the\s+)?"
    r"(?:user|I|we)\s+(?:\w+\s+){1,2}?(?:is|are)\s+(?P<value>[A-Z0-9].*)$",
    _I,
)
_ONE_OF = re.compile(rf"^one\s+of\s+{_OWNER}\s+(?P<label>.+?)\s+is\s+(?P<value>.+)$", _I)
_NEW_LABEL = re.compile(
    r"^(?:I|we|(?:the\s+)?user)\s+(?:has|have|got|gets|was\s+assigned|were\s+assigned|"
    r"has\s+been\s+assigned|have\s+been\s+assigned)\s+(?:a\s+)?new\s+(?P<label>[a-z][a-z -]*?)"
    r"(?:,|:|\s+called|\s+named|\s+-)\s+(?P<value>.+)$",
    _I,
)
_LABEL_VERB = re.compile(
    r"^(?:(?:have|has|just|also|now|finally)\s+)*(?:replaced|swapped|switched|changed|"
    r"upgraded|updated|set|moved|traded|exchanged|ported|migrated|transferred)\s+"
    r"(?:all\s+)?(?:my|our|the|their|his|her)\s+(?P<label>[a-z][a-z -]*?)\s+"
    r"(?:with|for|to|over\s+to|into)\s+(?P<value>.+)$",
    _I,
)
_REPLACED = re.compile(
    r"^(?:(?:have|has|just|also|finally)\s+)*(?:dropped|ditched|swapped|traded|replaced|"
    r"exchanged)\s+(?:the\s+|my\s+|our\s+|their\s+)?(?P<old>.+?)\s+(?:for|with)\s+"
    r"(?P<value>.+)$",
    _I,
)
_ENDED = re.compile(
    r"^(?:(?:have|has|just|finally)\s+)*(?:left|quit|cancell?ed|sold|gave\s+up|dropped|"
    r"ditched|closed|stopped\s+using|ended|moved\s+away\s+from|got\s+rid\s+of)\s+"
    r"(?:the\s+|my\s+|our\s+|their\s+)?(?P<old>.+?)(?:\s+(?:account|membership|subscription|"
    r"contract|plan))?$",
    _I,
)
_REPLY = re.compile(
    r"^(?:please\s+)?(?:always\s+)?(?:answer|reply|respond|write|talk|speak)\s+(?:back\s+)?"
    r"(?:to\s+)?(?:me\s+)?in\s+(?P<value>[A-Z]\w+)",
    _I,
)
_STEMS = family_stems()
_DEVICES = frozenset({"laptop", "computer", "machine", "pc", "desktop", "workstation", "mac"})
_THINGS = frozenset(
    {
        "app",
        "apps",
        "services",
        "service",
        "servers",
        "site",
        "website",
        "stack",
        "backend",
        "infrastructure",
        "data",
        "code",
        "codebase",
        "product",
        "startup",
        "company",
    }
)
_CLAUSE_SPLIT = re.compile(
    r"\s*(?:;|,\s*(?:and\s+|but\s+|so\s+)?(?=(?:now|then|currently|I|we|he|she|they|"
    r"(?:the\s+)?user)\b)|\s+(?:and|but|so)\s+(?=(?:now|then|currently|also|I|we|he|she|they|"
    r"(?:the\s+)?user|has|have|is|am|lives?|works?|moved|joined|switched|started|bought|"
    r"took|went|uses?|signed|got|\w+ed)\b))\s*",
    _I,
)
_CLAUSE_SUBJECT = re.compile(
    r"^(?:(?:now|then|currently|also|and)\s+)*(?:(?:I|we|(?:the\s+)?user|he|she|they)\s+)?", _I
)


def _predicate(pred: str, subject: str, change: bool, previous: str) -> list[Claim] | str | None:
    """Claims of a verb phrase about ``subject`` ("lives in Lisbon", "has a dog")."""
    pred = pred.strip()
    if _NEGATION.search(pred):
        return "negated"
    m = re.search(r"\bfrom\s+(.+?)\s+(?=to\s)", pred, _I)
    if m is not None:  # "switched from X to Y", "relocated from X to Y"
        previous, pred = m.group(1), pred[: m.start()] + pred[m.end() :]
        change = True
    selfdesc = _self_description(pred, subject, change)
    if selfdesc is not None:
        return selfdesc
    liked = liking(pred)  # "likes Sichuan food most": one favourite, not a like of several
    if liked is not None:
        return [Claim(subject, liked[0], liked[1], False, change, previous)]
    best = _BEST_OF_ALL.match(pred)
    if best is not None and (family := family_of_label(best.group("label"))) is not None:
        value = clean_value(best.group("value").split()[-1])  # "likes teal best of all colours"
        return [Claim(subject, family.name, value, family.multi_valued, change, previous)]
    for regex, families, lemma, generic in _candidates(pred):
        match = regex.match(pred)
        if match is None:
            continue
        raw = match.group("value")
        chosen: tuple[Family, str] | None = None
        tail = _tail(raw) or purpose(raw) or _tail(PLACE.sub("", raw))
        if tail is not None and tail[0] not in families:
            chosen = tail
        for family in () if chosen else families:
            read = _read(raw, family, generic)
            if read:
                chosen = (family, read)
                break
        if chosen is None:
            continue
        family, value = chosen
        family = retype(family, value)  # "put Debian on the machine": no laptop
        verb = match.group("verb").lower()
        aux = (match.group("aux") or "").lower()
        changing = lemma in _CHANGE_LEMMAS or lemma in family.changes
        if (
            lemma in _STATE_LEMMAS
            and not changing
            and (
                aux in ("had", "was", "were", "did")
                or (not aux and _PAST.match(verb) and lemma != "be")
            )
        ):
            return "hypothetical"  # a past state: "I lived in Paris", "User worked at Acme"
        values = several(value) if family.multi_valued else [value]
        changed = change or changing or bool(previous)
        multi = family.multi_valued
        return [Claim(subject, family.name, v, multi, changed, previous) for v in values]
    return None


def _self_description(pred: str, subject: str, change: bool) -> list[Claim] | None:
    m = re.match(
        rf"^(?:am|is|are)\s+(?:{_ADVERBS}\s+)*(?:(?:strictly|fully|a\s+proud)\s+)?(.+)$", pred, _I
    )
    if m is None:
        return None
    rest = clean_value(m.group(1), "raw")
    low = re.sub(r"\s+(?:diet|lifestyle)$", "", rest.casefold())
    low = re.sub(r"^(?:a|an)\s+", "", low)
    if low in DIETS:
        return [Claim(subject, "diet", low, False, change)]
    if low in ("single", "married", "divorced", "engaged", "widowed", "separated"):
        return [Claim(subject, "relationship_status", low, False, change)]
    if (age := re.match(r"^(\d{1,3})(?:\s*(?:years?[\s-]+old|yo|y/o))?$", low)) is not None:
        return [Claim(subject, "age", age.group(1), False, change)]
    if low.startswith(("from ", "originally from ")):
        origin = clean_value(rest.split("from", 1)[1], "name")
        return [Claim(subject, "origin", origin, False, change)] if origin else None
    role = re.match(r"^(?:a|an)\s+((?:[a-z-]+\s+){0,2}([a-z-]+))$", rest.casefold())
    if role and (
        role.group(2) in OCCUPATIONS
        or role.group(2).endswith(("ist", "ician", "eer", "ologist", "grapher"))
    ):
        return [Claim(subject, "occupation", role.group(1), False, change)]
    return None


_KIN_ADJECTIVES = frozenset(
    {
        "older",
        "younger",
        "little",
        "big",
        "best",
        "twin",
        "elder",
        "new",
        "ex",
        "step",
        "oldest",
        "youngest",
        "eldest",
        "baby",
        "close",
        "childhood",
        "old",
        "good",
        "dear",
    }
)


def _subject_of(np: str, owner: str) -> tuple[str, str, bool] | None:
    """Split "sister's home city" into (subject key, the rest, whether the rest is owned).

    None when no relative leads the phrase.
    """
    words = np.split()
    i = 0
    while i < len(words) - 1 and words[i].lower() in _KIN_ADJECTIVES:
        i += 1
    if i < len(words):
        word = words[i].lower()
        head = re.sub(r"['’]s$|s['’]$", "", word)
        if head in RELATIVES or head.removesuffix("-in-law") in RELATIVES:
            kin = normalize_key_part(" ".join([*(w.lower() for w in words[:i]), head]))
            return f"{owner}.{kin}", " ".join(words[i + 1 :]), head != word
    return None


def _labelled(
    label: str, value: str, subject: str, change: bool, loose: bool, previous: str = ""
) -> list[Claim] | None:
    label = clean_value(label, "raw")
    family = family_of_label(label) or head_family(label, clean_value(value))
    if family is None and (loose or len(label.split()) <= 2):
        inferred = infer_family(label.split(), value)  # "calendar: EET": the time zone
        if inferred is not None and (loose or content_stems([label]) & _STEMS[inferred[0]]):
            family, value = FAMILIES[inferred[0]], inferred[1]  # "Wake: 5:45" (a cue word)
    if family is None:
        if not loose or len(label.split()) > 5 or not label.strip():
            return None
        relation = normalize_key_part(re.sub(r"^(?:current|new|preferred)\s+", "", label, flags=_I))
        relation = nearest_family(label.split()) or relation
        if re.match(r"^(?:favourite|favorite|fave)\b", label, _I):
            relation = "favourite_" + relation.split("_", 1)[-1]
        v = clean_value(value)
        return [Claim(subject, relation, v, False, change, previous)] if relation and v else None
    tail = _tail(value)
    if tail is not None:  # "switched my editor to the Nord theme": the value's noun decides
        family, value = tail
    family = retype(family, clean_value(value))
    if family.vocab:
        v = vocab_value(value, family.name, family.vocab) or clean_value(value)
    else:
        v = clean_value(value, family.kind)
    if family.name == "phone_number" or (family.name == "phone" and re.match(r"^[+(\d]", v)):
        family = FAMILIES["phone_number"]
        v = clean_value(value, "number")
    if family.name == "diet":
        v = re.sub(r"\s+(?:diet|lifestyle)$", "", v, flags=_I).casefold()
    if v and not value_fits(family.name, v):  # "ported the number over to Iliad": no number
        inferred = infer_family(label.split(), value)
        if inferred is None:
            return None
        family, v = FAMILIES[inferred[0]], inferred[1]
    if not v:
        return None
    multi = family.multi_valued
    values = several(v) if multi else [v]
    return [Claim(subject, family.name, x, multi, change, previous) for x in values]


def _possessive(rest: str, hypothetical: bool, change: bool) -> list[Claim] | str | None:
    """``my R ...`` / ``user's R ...``: a labelled value, a relative's claim, or a thing's."""
    rel = _subject_of(rest, "user")
    c = _COPULA.match(rest)
    if c is not None and (
        family_of_label(c.group("np")) is not None
        or (rel is None and head_family(c.group("np"), clean_value(c.group("value"))) is not None)
    ):
        if hypothetical:
            return "hypothetical"
        if _NEGATION.search(c.group("value")) or _NEGATION.search(c.group("np")):
            return "negated"
        return _labelled(c.group("np"), c.group("value"), "user", change, loose=False)
    if rel is not None:
        subject, pred, owned = rel
        if owned:
            c = _COPULA.match(pred)
            if c is None:
                return None
            if hypothetical:
                return "hypothetical"
            return _labelled(c.group("np"), c.group("value"), subject, change, loose=False)
        return _clauses(pred, subject, hypothetical, change)
    words = rest.split()
    for n in (3, 2, 1):  # "passwords live in X", "laptop runs Y": a label, then a verb
        if len(words) <= n:
            continue
        label, pred = " ".join(words[:n]), " ".join(words[n:])
        family = family_of_label(label)
        if label.casefold() in _DEVICES and re.match(r"^(?:now\s+)?runs?\s", pred, _I):
            family = FAMILIES["operating_system"]
        if family is not None and not _COPULA.match(rest):
            if hypothetical:
                return "hypothetical"
            if _NEGATION.search(pred):
                return "negated"
            verb = _predicate(re.sub(r"^(?:now|currently|also)\s+", "", pred), "user", change, "")
            if (
                isinstance(verb, list)
                and verb
                and verb[0].relation != family.name
                and getattr(FAMILIES.get(verb[0].relation), "kind", "") == "name" != family.kind
                and not family.vocab
            ):
                return verb  # "my team now reports to Yuki": a name the verb's family takes
            obj = re.match(
                r"^(?:\w+\s+){0,2}?(?:\w+)(?:\s+(?:in|on|at|with|by|for|from|to|into|through))"
                r"?\s+(?P<v>.+)$",
                pred,
            )
            if obj is not None:
                name = family.name.replace("_", " ")
                return _labelled(name, obj.group("v"), "user", change, loose=False)
        if label.casefold() in _THINGS:
            got = _clauses(pred, "user", hypothetical, change)
            if (
                got is None
                and (read := user_predicate(f"user {label} {pred}", verb=False))
                and read[2]
            ):
                return [Claim("user", read[0], read[1], False, change)]  # "app runs on X"
            return got
    return None


def _clauses(pred: str, subject: str, hypothetical: bool, change: bool) -> list[Claim] | str | None:
    if hypothetical:
        return "hypothetical"
    claims: list[Claim] = []
    reasons: list[str] = []
    previous = ""
    for clause in _CLAUSE_SPLIT.split(pred):
        clause = _CLAUSE_SUBJECT.sub("", clause)
        if not clause:
            continue
        got2 = _predicate(clause, subject, change, previous)
        if got2 is None and (lv := _LABEL_VERB.match(clause)) is not None:
            got2 = _labelled(lv.group("label"), lv.group("value"), subject, True, False, previous)
        if got2 is None and (swap := _REPLACED.match(clause)) is not None:
            previous = clean_value(swap.group("old"))
            got2 = _predicate("switched to " + swap.group("value"), subject, True, previous)
            if got2 is None:
                got2 = [
                    Claim(
                        subject,
                        "replacement",
                        clean_value(swap.group("value"), "name"),
                        True,
                        True,
                        previous,
                    )
                ]
        if got2 is None and (ended := _ENDED.match(clause)) is not None:
            previous = clean_value(ended.group("old"))
            change = True
            continue
        if got2 is None and previous:
            obj = re.match(r"^\w+\s+(?:(?:to|with|at|for|on|in)\s+)?(?P<v>[A-Z0-9].*)$", clause)
            if obj is not None:  # "closed the X account and uses Y": Y replaces X, whatever it is
                got2 = [
                    Claim(
                        subject,
                        "replacement",
                        clean_value(obj.group("v"), "name"),
                        True,
                        True,
                        previous,
                    )
                ]
        if isinstance(got2, list):
            claims.extend(got2)
        elif isinstance(got2, str):
            reasons.append(got2)
    if claims:
        return claims
    return reasons[0] if reasons else None


def _normalise(sentence: str) -> str:
    text = sentence.strip().rstrip(".!")
    text = _LEADS.sub("", text)
    text = re.sub(
        r"\b(has|have)\s+got\s+(?=(?:a|an|the|some|\w+\s+hair)\b)", r"\1 ", text, flags=_I
    )
    for regex, repl in _CONTRACTIONS:
        text = regex.sub(repl, text)
    if (nl := _NO_LONGER.match(text)) is not None:  # "My X is no longer A; it's B"
        text = f"{nl.group('head')} is {nl.group('value')}"
    return text


def parse_user_sentence(sentence: str, change: bool = False) -> list[Claim] | str | None:
    """The claims of a sentence about the user, a reason it has none, or None.

    Args:
        sentence: One sentence.
        change: Whether the caller already found a change marker ("now", "instead").

    Returns:
        A list of claims; ``"negated"`` or ``"hypothetical"`` when the sentence is about the
        user but states what is not so, or what might, will or used to be; None when the
        sentence is not about the user (the generic shapes read it) or fits no family.
    """
    text = _normalise(sentence)
    change = change or bool(_CHANGE_WORDS.search(sentence))
    got = _parse(text, change)
    while got is None and ", " in text:  # "The flat was sold, so X is my landlord now."
        text = _LEADS.sub("", text.split(", ", 1)[1])
        got = _parse(text, change)
    return got


def _parse(text: str, change: bool) -> list[Claim] | str | None:
    hypothetical = is_hypothetical(text)
    if (m := _REPLY.match(text)) is not None:
        return [Claim("user", "reply_language", m.group("value"), False, change)]
    if not hypothetical and (asked := request(text)) is not None:
        relation, value, forced = asked  # "asked everyone to call them Jules"
        return [Claim("user", relation, value, False, change or forced)]
    m = _LABEL_COLON.match(text)
    if m and not re.search(r"\b(?:is|are|was|lives?|works?)\b", m.group("label"), _I):
        owner, label, subject = m.group("owner"), m.group("label"), "user"
        rel = _subject_of(label, "user") if owner and family_of_label(label) is None else None
        if rel is not None and rel[1] and rel[2]:
            subject, label = rel[0], rel[1]
        if hypothetical:
            return "hypothetical"
        return _labelled(label, m.group("value"), subject, change, loose=owner is not None)
    for shape in (_ONE_OF, _NEW_LABEL, _VALUE_FIRST):
        m = shape.match(text)
        if m is not None and re.fullmatch(r"(?:favou?rite|fave)(?:\s+\w+)?", m.group("label"), _I):
            tail = _tail(m.group("value"))  # "Thai food is my favourite"
            if tail is not None:
                return [Claim("user", tail[0].name, tail[1], False, change)]
        label = clean_value(m.group("label"), "raw") if m is not None else ""
        if m is not None and family_of_label(label) is None:
            # "Tcsh is the user's command-line shell": the label's head noun names it
            head = head_family(label, clean_value(m.group("value")))
            label = head.labels[0] if head is not None and head.labels else label
        if m is not None and family_of_label(label) is not None:
            if hypothetical:
                return "hypothetical"
            got = _labelled(label, m.group("value"), "user", change, False)
            if got:
                return got
    if (r := _LABEL_CLAUSE.match(text)) is not None and family_of_label(r["label"]) is not None:
        if hypothetical:  # "The cuisine the user likes most is Filipino"
            return "hypothetical"
        return _labelled(r["label"], r["value"], "user", change, loose=False)
    if (p := _POSSESSIVE.match(text)) is not None:
        return _possessive(p.group(1), hypothetical, change)
    if (s := _SUBJECT.match(text)) is not None:
        return _clauses(s.group(1), "user", hypothetical, change)
    return None
