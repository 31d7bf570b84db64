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
    inflect,
)
from langchain_tepa.extraction.lexicon import DIETS, OCCUPATIONS, normalize_key_part

__all__ = ["HYPOTHETICAL", "Claim", "attribute_text", "is_hypothetical", "parse_user_sentence"]


@dataclass(frozen=True)
class Claim:
    """One keyed claim of a sentence.

    Attributes:
        subject: Key form of the subject (``"user"``, ``"user.sister"``).
        relation: The canonical relation (``"home_city"``).
        value: The value as written, without time phrases ("Oslo", not "Oslo last month").
        multi_valued: Whether the attribute holds several values (pets, hobbies).
        correction: Whether the sentence says the value changed ("now", "moved to").

    Example:
        >>> Claim("user", "diet", "vegan").key
        'user.diet'
    """

    subject: str
    relation: str
    value: str
    multi_valued: bool = False
    correction: bool = False

    @property
    def key(self) -> str:
        """``subject.relation``."""
        return f"{self.subject}.{self.relation}"


HYPOTHETICAL = re.compile(
    r"\b(?:might|could|would|should|shall|maybe|perhaps|possibly|probably|hopefully|someday|"
    r"unless|gonna|tempted|wish|wishes|wished|if|whether|used\s+to|one\s+day|"
    r"thinking\s+(?:about|of)|considering|contemplating|consider|"
    r"plan(?:s|ned|ning)?\s+(?:to|on)|want(?:s|ed)?\s+to|hop(?:e|es|ed|ing)\s+to|"
    r"going\s+to|about\s+to|intend(?:s|ed)?\s+to|aim(?:s|ing)?\s+to|"
    r"(?:would|'d)\s+(?:like|love)|dream(?:s|ed|ing)?\s+(?:of|about)|"
    r"looking\s+(?:to|into|at\s+moving)|may\s+(?:move|switch|be|get|start|join|change)|"
    r"will\s+(?:move|switch|be|get|start|join|change|relocate))\b"
    r"|\b(?:I|we|you|they|he|she)['’](?:ll|d)\b"
)
"""Words that make a sentence a plan, a wish, a condition or a past habit: no claim (in lower
case: "Alta IF" and "Would Be Kings" are names)."""


def is_hypothetical(text: str) -> bool:
    """Whether ``text`` says what might, will, would or used to be rather than what is.

    Example:
        >>> is_hypothetical("If I lived in Rome, I'd cycle."), is_hypothetical("Alta IF won.")
        (True, False)
    """
    return bool(HYPOTHETICAL.search(text[:1].lower() + text[1:]))


_LEADS = re.compile(
    r"^(?:(?:from\s+now\s+on|as\s+of\s+(?:today|now|this\s+\w+|last\s+\w+)|starting\s+"
    r"(?:today|now|this\s+\w+)|these\s+days|nowadays|lately|recently|currently|at\s+the\s+moment|"
    r"update|updated|correction|note|fyi|news|change|changed|heads\s+up|memory|fact)"
    r"\s*[,:;\-–—]?\s+)+",
    re.IGNORECASE,
)
_CHANGE_WORDS = re.compile(
    r"\b(?:[Nn]ow|no\s+longer|anymore|any\s+more|[Ff]rom\s+now\s+on|[Ii]nstead|switched|"
    r"switches|switching|changed|changes|moved|moves|relocated|new|[Nn]owadays|"
    r"[Tt]hese\s+days|[Uu]pdated?|[Cc]orrection|left|became)\b"
)
_CONTRACTIONS = (
    (re.compile(r"\b(I|we|you|they)['’]ve\b", re.IGNORECASE), r"\1 have"),
    (re.compile(r"\bI['’]m\b"), "I am"),
    (re.compile(r"\b([Ww]e)['’]re\b"), r"\1 are"),
    (
        re.compile(
            r"\b(user|he|she|it)['’]s\s+(?=(?:now\s+|currently\s+|also\s+)?(?:been|got|"
            r"based|moved|living|working|employed|a|an|the|vegan|vegetarian|"
            r"allergic|married|into|from|on|in|at)\b)",
            re.IGNORECASE,
        ),
        r"\1 is ",
    ),
)
_NEGATION = re.compile(r"(?<![A-Z])\b(?:not|never|no|nobody|nothing|neither|nor)\b|n['’]t\b")
_FIRST = r"(?:I|we)"
_USER = r"(?:the\s+)?(?:user|client|customer)"
_POSSESSIVE = re.compile(
    r"^(?:(?:my|our)|(?:the\s+)?(?:user|client|customer)(?:['’]s|s['’]))\s+(.+)$",
    re.IGNORECASE,
)
_LABEL_COLON = re.compile(
    r"^(?:(?P<owner>(?:the\s+)?(?:user|client|customer)(?:['’]s)?|my)\s+)?"
    r"(?P<label>[A-Za-z][A-Za-z '’/-]{0,48}?)\s*[:=]\s*(?P<value>\S.*)$",
    re.IGNORECASE,
)
_COPULA = re.compile(
    r"^(?P<np>[a-z][a-z '’-]*?)\s+(?:(?:is|was|are|'s|has\s+become|became|becomes|"
    r"has\s+been|is\s+still|remains|has\s+changed\s+to|changed\s+to|changes\s+to|"
    r"has\s+switched\s+to|switched\s+to|has\s+moved\s+to|moved\s+to|went\s+to|"
    r"is\s+set\s+to|was\s+changed\s+to|was\s+updated\s+to|has\s+been\s+updated\s+to|"
    r"changed\s+from\s+.+?\s+to)\s+)(?P<value>\S.*)$",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(
    r"\s*(?:;|,\s*(?:and\s+|but\s+|so\s+)?(?=(?:now|then|currently|I|we|he|she|they|"
    r"(?:the\s+)?user)\b)|\s+(?:and|but|so)\s+(?=(?:now|then|currently|also|I|we|he|she|they|"
    r"(?:the\s+)?user|has|have|is|am|lives?|works?|moved|joined|switched|started)\b))\s*",
    re.IGNORECASE,
)
_CLAUSE_SUBJECT = re.compile(
    r"^(?:(?:now|then|currently|also|and)\s+)*(?:(?:I|we|(?:the\s+)?user|he|she|they)\s+)?",
    re.IGNORECASE,
)
_ADVERBS = (
    r"(?:now|currently|also|still|just|recently|actually|officially|finally|already|newly|"
    r"permanently|mostly|mainly|usually|primarily|really|happily|since|then|full[- ]time|"
    r"proudly|lately|nowadays|again|always)"
)
_AUX = r"(?P<aux>have|has|had|do|does|did|am|is|are|was|were)"
_TIME_TAIL = re.compile(
    r"(?:,?\s+(?:(?:last|this|next|past)\s+(?:week|month|year|summer|winter|spring|autumn|fall|"
    r"weekend|quarter)|(?:a\s+(?:few|couple\s+of)\s+|\w+\s+)?(?:days?|weeks?|months?|years?)"
    r"\s+ago|recently|now|today|yesterday|lately|nowadays|these\s+days|again|too|as\s+well|"
    r"instead|for\s+good|for\s+now|permanently|at\s+the\s+moment|full[- ]time|part[- ]time|"
    r"since\s+.+|as\s+of\s+.+|starting\s+.+|from\s+now\s+on|in\s+(?:19|20)\d\d|"
    r"in\s+(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)(?:\s+\d{4})?|(?:for|with|because|after|before|to\s+be|so\s+that|where|which|"
    r"who|and\s+(?:now|then|love|like|enjoy)).*))+\s*$",
    re.IGNORECASE,
)
_NAME_LINK = frozenset({"of", "de", "da", "del", "der", "di", "du", "la", "le", "van", "von", "&"})
_NAME_TOKEN = re.compile(r"^(?:[A-Z0-9][\w.'’&+#-]*|&|[a-z]+[A-Z][\w-]*)$")
_ARTICLE = re.compile(r"^(?:a|an|the|my|our|his|her|their)\s+", re.IGNORECASE)
_AGE = re.compile(r"^(\d{1,3})(?:\s*(?:years?[\s-]+old|yo|y/o))?$")
_STATUS = frozenset({"single", "married", "divorced", "engaged", "widowed", "separated"})
_DIET_SUFFIX = re.compile(r"\s+(?:diet|lifestyle)$", re.IGNORECASE)


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


def _value(raw: str, family: Family | None) -> str:
    """The value of a family from the words after its verb or label."""
    value = re.sub(r"\s*\([^)]*\)\s*", " ", raw).strip().strip("\"'“”‘’`").strip()
    value = value.rstrip(" .!,;:")
    for _ in range(3):
        cut = _TIME_TAIL.sub("", value).rstrip(" .!,;:")
        if cut == value or not cut:
            break
        value = cut
    kind = family.kind if family is not None else "phrase"
    if kind in ("name", "phrase"):
        value = _ARTICLE.sub("", value)
    if kind == "name":
        value = value.split(",")[0]
        tokens = value.split()
        if tokens and _NAME_TOKEN.match(tokens[0]):
            keep = 1
            while keep < len(tokens) and (
                _NAME_TOKEN.match(tokens[keep])
                or (
                    tokens[keep].lower() in _NAME_LINK
                    and keep + 1 < len(tokens)
                    and _NAME_TOKEN.match(tokens[keep + 1])
                )
                or (
                    tokens[keep].lower() == "and"
                    and keep + 1 < len(tokens)
                    and tokens[keep + 1][:1].isupper()
                )
            ):
                keep += 1
            value = " ".join(tokens[:keep])
    if kind == "number":
        m = re.match(r"^[+()\d][\d\s()+.-]*\d", value)
        value = m.group(0) if m else value
    return value.rstrip(" .!,;:").strip()


def _vocab_value(raw: str, family: Family) -> str | None:
    """The value of a family with a vocabulary, or None when the words are not one of it."""
    text = _ARTICLE.sub("", raw.strip())
    text = re.sub(r"^(?:(?:pet|new|little|second|third|rescue|big|small|young)\s+)+", "", text)
    words = text.split()
    if not words:
        return None
    head = words[0].casefold().strip(",.;:!")
    counted = head.isdigit() or head in _NUMBERS
    if counted and family.name in ("pets", "children") and len(words) > 1:
        noun = words[1].casefold().strip(",.;:!")
        if noun not in family.vocab and noun.removesuffix("s") not in family.vocab:
            return None
    elif head not in family.vocab:
        return None
    if family.name == "editor_theme":
        return head
    if family.name in ("pets", "children"):
        m = re.match(r"^(.+?)(?:\s+(?:named|called)\s+([A-Z][\w-]*))", text)
        if m:
            return f"{m.group(1)} {m.group(2)}"
        return _value(text, Family("x", kind="phrase")).split(",")[0]
    span = _value(text, Family("x", kind="name"))
    if span.split()[0].casefold() == head:
        return span
    return words[0].strip(",.;:!")


_NUMBERS = frozenset({"two", "three", "four", "five", "one", "a", "several"})

# verb patterns: the generic verbs whose value says the family, then the families' own verbs
_TOOLS = (
    "editor_theme",
    "editor",
    "browser",
    "operating_system",
    "programming_language",
    "email_provider",
)
_GENERIC: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("{use}", _TOOLS),
    ("{prefer}", _TOOLS),
    ("{switch} (?:over )?(?:back )?to", (*_TOOLS, "diet")),
    ("{switch} from .+? to", (*_TOOLS, "diet")),
    ("{change} to", (*_TOOLS, "diet")),
    ("{move} (?:over )?to", _TOOLS),
    ("{go}", ("diet",)),
    ("{become}", ("diet",)),
    ("{follow}", ("diet",)),
    ("{eat}", ("diet",)),
    ("{be}", ("diet",)),
    ("{be} on", ("operating_system", "diet")),
    ("{write}", ("programming_language",)),
)
_Pattern = tuple[re.Pattern[str], tuple[Family, ...], str]


def _verb_regex(verb: str) -> tuple[re.Pattern[str], str]:
    m = re.match(r"^\{(\w+)\}(.*)$", verb)
    assert m is not None
    lemma, rest = m.group(1), m.group(2)
    forms = inflect(lemma)
    spaced = rest.replace(" ", r"\s+")
    body = rf"(?P<verb>{forms})(?:\s+{_ADVERBS})*{spaced}"
    regex = (
        rf"^(?:{_ADVERBS}\s+)*(?:{_AUX}\s+)?(?:{_ADVERBS}\s+)*(?:(?P<been>been|got)\s+)?"
        rf"(?:{_ADVERBS}\s+)*{body}\s+(?P<value>\S.*)$"
    )
    return re.compile(regex, re.IGNORECASE), lemma


def _patterns() -> list[_Pattern]:
    out: list[_Pattern] = []
    for verb, names in _GENERIC:
        regex, lemma = _verb_regex(verb)
        out.append((regex, tuple(FAMILIES[n] for n in names), lemma))
    for family in FAMILIES.values():
        for verb in family.verbs:
            regex, lemma = _verb_regex(verb)
            out.append((regex, (family,), lemma))
    return out


_PATTERNS = _patterns()
_PAST = re.compile(r"^(?:\w+ed|was|were|had|drove|spoke|got|went|ate|wrote|became|left|took)$")
_CHANGE_LEMMAS = frozenset(
    {"move", "relocate", "settle", "join", "switch", "change", "become", "start", "get", "go"}
)


def _predicate(pred: str, subject: str, change: bool) -> list[Claim] | str | None:
    """Claims of a verb phrase about ``subject`` ("lives in Lisbon", "has a dog")."""
    pred = pred.strip()
    if _NEGATION.search(pred):
        return "negated"
    selfdesc = _self_description(pred, subject, change)
    if selfdesc is not None:
        return selfdesc
    for regex, families, lemma in _PATTERNS:
        m = regex.match(pred)
        if m is None:
            continue
        raw = m.group("value")
        chosen: tuple[Family, str] | None = None
        for family in families:
            if family.vocab:
                v = _vocab_value(raw, family)
                if v is None:
                    continue
            elif family.name in ("hobbies", "likes"):
                gerund = raw.split()[0].endswith("ing") if raw.split() else False
                if (family.name == "hobbies") != gerund or re.match(r"^(?:to|it|that|this)\b", raw):
                    continue
                v = _value(raw, family)
            elif family.name == "timezone":
                tz = re.match(r"^(?:the\s+)?(.+?)\s+(?:time\s*zone|time)\b", raw, re.IGNORECASE)
                if tz is None:
                    continue
                v = tz.group(1)
            else:
                v = _value(raw, family)
                if family.kind == "name" and not v[:1].isupper() and not v[:1].isdigit():
                    continue
            if v:
                chosen = (family, v)
                break
        if chosen is None:
            continue
        family, value = chosen
        verb = m.group("verb").lower()
        aux = (m.group("aux") or "").lower()
        changing = lemma in _CHANGE_LEMMAS or lemma in family.changes
        if not changing and (
            aux in ("had", "was", "were", "did")
            or (not aux and _PAST.match(verb) and lemma != "be")
        ):
            return "hypothetical"  # a past state: "I lived in Paris", "User worked at Acme"
        values = _several(value) if family.multi_valued else [value]
        changed = change or changing
        return [Claim(subject, family.name, v, family.multi_valued, changed) for v in values]
    return None


def _several(value: str) -> list[str]:
    """The items of a list value ("French and Spanish", "a dog, a cat")."""
    parts = [p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", value) if p.strip()]
    return [_ARTICLE.sub("", p) for p in parts] or [value]


def _self_description(pred: str, subject: str, change: bool) -> list[Claim] | None:
    m = re.match(
        rf"^(?:am|is|are|'s)\s+(?:{_ADVERBS}\s+)*(?:(?:strictly|fully|a\s+proud)\s+)?(.+)$",
        pred,
        re.IGNORECASE,
    )
    if m is None:
        return None
    rest = _TIME_TAIL.sub("", m.group(1).strip().rstrip(" .!,;:")).strip()
    low = _DIET_SUFFIX.sub("", rest.casefold())
    low = re.sub(r"^(?:a|an)\s+", "", low)
    if low in DIETS:
        return [Claim(subject, "diet", low, False, change)]
    if low in _STATUS:
        return [Claim(subject, "relationship_status", low, False, change)]
    if (age := _AGE.match(low)) is not None:
        return [Claim(subject, "age", age.group(1), False, change)]
    if low.startswith(("from ", "originally from ")):
        origin = _value(rest.split("from", 1)[1], FAMILIES["home_city"])
        return [Claim(subject, "origin", origin, False, change)] if origin else None
    role = re.match(r"^(?:a|an)\s+((?:[a-z-]+\s+){0,2}([a-z-]+))$", rest.casefold())
    if (
        role
        and (
            role.group(2) in OCCUPATIONS
            or role.group(2).endswith(("ist", "ician", "eer", "ologist", "grapher"))
        )
        and role.group(2) not in {"owner", "fan", "member", "user", "speaker", "lover"}
    ):
        return [Claim(subject, "occupation", role.group(1), False, change)]
    return None


def _subject_of(np: str, owner: str) -> tuple[str, str, bool] | None:
    """Split "sister's home city" into (subject key, the rest, whether the rest is owned).

    None when no relative leads the phrase.
    """
    words = np.split()
    i = 0
    while i < len(words) and words[i].lower() in _KIN_ADJECTIVES:
        i += 1
    if i < len(words):
        word = words[i].lower()
        head = re.sub(r"['’]s$|s['’]$", "", word)
        if head in RELATIVES:
            kin = normalize_key_part(" ".join([*(w.lower() for w in words[:i]), head]))
            return f"{owner}.{kin}", " ".join(words[i + 1 :]), head != word
    return None


_KIN_ADJECTIVES = frozenset(
    {"older", "younger", "little", "big", "best", "twin", "elder", "new", "ex", "step"}
)


def _labelled(
    label: str, value: str, subject: str, change: bool, loose: bool
) -> list[Claim] | None:
    family = family_of_label(label)
    if family is None:
        if not loose or len(label.split()) > 5 or not label.strip():
            return None
        relation = normalize_key_part(
            re.sub(
                r"^(?:current|new|preferred|favorite|fave)\s+",
                "",
                label.strip(),
                flags=re.IGNORECASE,
            )
        )
        if re.match(r"^(?:favourite|favorite|fave)\b", label.strip(), re.IGNORECASE):
            relation = "favourite_" + relation.removeprefix("favourite_")
        v = _value(value, None)
        return [Claim(subject, relation, v, False, change)] if relation and v else None
    if family.vocab:
        v = _vocab_value(value, family) or _value(value, family)
    else:
        v = _value(value, family)
    if family.name == "phone_number" or (family.name == "phone" and re.match(r"^[+(\d]", v)):
        family = FAMILIES["phone_number"]
        v = _value(value, family)
    if family.name == "diet":
        v = _DIET_SUFFIX.sub("", v).casefold() if v.casefold().rstrip("s") != "none" else v
    if not v:
        return None
    return [Claim(subject, family.name, v, family.multi_valued, change)]


def parse_user_sentence(sentence: str, change: bool = False) -> list[Claim] | str | None:
    """The claims of a sentence about the user, a reason it has none, or None.

    Returns:
        A list of claims; ``"negated"`` or ``"hypothetical"`` when the sentence is about the
        user but states what is not so, or what might, will or used to be; None when the
        sentence is not about the user (the generic shapes read it) or fits no family.
    """
    text = sentence.strip().rstrip(".!")
    text = _LEADS.sub("", text)
    for regex, repl in _CONTRACTIONS:
        text = regex.sub(repl, text)
    change = change or bool(_CHANGE_WORDS.search(sentence))
    hypothetical = is_hypothetical(text)

    m = _LABEL_COLON.match(text)
    if m and not re.search(r"\b(?:is|are|was|lives?|works?)\b", m.group("label"), re.IGNORECASE):
        owner = m.group("owner")
        label = m.group("label")
        subject = "user"
        rel = _subject_of(label, "user") if owner else None
        if rel is not None and rel[1] and rel[2]:
            subject, label = rel[0], rel[1]
        if hypothetical:
            return "hypothetical"
        return _labelled(label, m.group("value"), subject, change, loose=owner is not None)

    subject, pred = "", ""
    if (p := _POSSESSIVE.match(text)) is not None:
        rest = p.group(1)
        rel = _subject_of(rest, "user")
        c = _COPULA.match(rest)
        if (
            c is not None
            and family_of_label(c.group("np")) is not None
            and (rel is None or not rel[2])
        ):
            if hypothetical:
                return "hypothetical"
            if _NEGATION.search(c.group("value")) or _NEGATION.search(c.group("np")):
                return "negated"
            return _labelled(c.group("np"), c.group("value"), "user", change, loose=False)
        if rel is None:
            return None
        subject, rest, owned = rel
        if owned:
            c = _COPULA.match(rest)
            if c is None:
                return None
            if hypothetical:
                return "hypothetical"
            return _labelled(c.group("np"), c.group("value"), subject, change, loose=False)
        pred = rest
    elif (s := re.match(rf"^(?:{_FIRST}|{_USER})\s+(.+)$", text, re.IGNORECASE)) is not None:
        subject, pred = "user", s.group(1)
    else:
        return None
    if hypothetical:
        return "hypothetical"
    claims: list[Claim] = []
    reasons: list[str] = []
    for clause in _CLAUSE_SPLIT.split(pred):
        clause = _CLAUSE_SUBJECT.sub("", clause)
        if not clause:
            continue
        got = _predicate(clause, subject, change)
        if isinstance(got, list):
            claims.extend(got)
        elif isinstance(got, str):
            reasons.append(got)
    if claims:
        return claims
    return reasons[0] if reasons else None
