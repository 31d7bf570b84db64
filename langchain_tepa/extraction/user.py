"""What a user says about themselves, read precision-first.

:func:`read_user` reads a sentence whose subject is the user (the first person, "User ..." and
"The user's ..." as memory tools write them, note lines such as "Home city: Lisbon") or a person
or pet the user speaks of ("My sister lives in Madrid" is about ``user.sister``). It knows:

* the copula and note shapes of any attribute: "My favourite colour is green", "User's bank:
  Monzo", "Editor -> Helix"; the attribute is the noun phrase, canonicalised by
  :mod:`~langchain_tepa.extraction.families`;
* a few verb phrases per common attribute ("live in", "moved to", "work at", "report to",
  "I'm a nurse", "I'm vegan", "call me", "drive a", "speak"), and "use/prefer V for/as R";
* how a change is said: "now", "no longer", "anymore", "instead", "from now on", change verbs
  ("moved to", "started a new job at", "got promoted to", "went vegan", "switched my R to",
  "replaced my R with"), and the value replaced ("switched from X to Y", "no longer X",
  "X -> Y", "(previously X)").

It never reads a claim where the sentence does not make one: plans, wishes and hypotheticals,
history ("I used to live in Rome", "I lived in Rome"), temporary states ("I'm staying in Lisbon
until Friday", "I rented a Fiat for the holiday") and negations give no claim, only the value a
negation or history names as replaced. A change that names the value it replaces but no
attribute ("I switched from Chrome to Firefox") gives an *anchored* claim: key resolution puts
it on the key that holds the old value, or drops it.

Example:
    >>> [(c.key, c.value, c.correction) for c in read_user("I moved to Oslo.")]
    [('user.home_city', 'Oslo', True)]
    >>> read_user("I'm staying in Lisbon until Friday.")
    'hypothetical'
    >>> [(c.key, c.value) for c in read_user("My sister lives in Madrid.")]
    [('user.sister.home_city', 'Madrid')]
    >>> read_user("The capital of France is Paris.") is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from langchain_tepa.extraction.families import FAMILIES, PEOPLE, PETS, family_of_label
from langchain_tepa.extraction.lexicon import DIETS, OCCUPATIONS, _word_set, normalize_key_part

__all__ = ["UNNAMED", "Claim", "is_hypothetical", "read_user"]

UNNAMED = "unnamed"
"""The relation of an anchored claim: it names the value it replaces, not its attribute."""


@dataclass(frozen=True)
class Claim:
    """One keyed claim of a sentence.

    Attributes:
        subject: Key form of the subject (``"user"``, ``"user.sister"``).
        relation: The canonical relation (``"home_city"``), or :data:`UNNAMED`.
        value: The value as written, without time phrases ("Oslo", not "Oslo last month").
        multi_valued: Whether the attribute holds several values (pets, languages).
        correction: Whether the sentence says, explicitly, that the value changed.
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
_BE = r"(?:am|is|are)"
_HAVE = r"(?:have|has)"
_DIET = "|".join(re.escape(d).replace(r"\-", "[- ]?") for d in sorted(DIETS, key=len)[::-1])
_PET = "|".join(sorted(PETS))
_OWNER = r"(?:my|our|their|(?:the\s+)?user['’]s)"
_LABEL = r"(?P<r>[a-z][a-z -]{1,30}?)"

# The verb phrases, one a line (a line indented by four spaces goes on the one before): the
# family ("*": named in the sentence, {LABEL}, or by the value's last words), "=" a statement
# or ">" a change, and the pattern over the predicate, where a space is any white space. The
# first pattern that matches reads the predicate.
_TABLE = r"""
home_city = (?:live|lives|living|reside|resides|residing) in {V}
home_city = {BE} (?:based|living|settled|residing) (?:in|out of) {V}
home_city = {HAVE} (?:been )?(?:living|lived|based) in {V}
home_city > (?:{HAVE} )?(?:[a-z]+ (?:up )?and )?(?:moved|relocated) (?:house )?
    (?:back |over |permanently )?(?:from {OLD} )?to {V}
home_city > (?:{HAVE} )?settled (?:down )?in {V}
employer = (?:work|works|working) (?:full(?:-| )?time )?(?:at|for) {V}
employer = (?:{BE}|{HAVE} been) (?:employed|working) (?:at|by|for) {V}
employer > (?:{HAVE} )?(?:started|began|begun|took|taken|accepted|got|landed) (?:a |an |my )?
    (?:new )?(?:job|position|role) (?:at|with) {V}
employer > (?:{HAVE} )?(?:started|began|begun) working (?:at|for) {V}
employer > (?:(?:was|got|{HAVE} been) )?hired by {V}
manager = reports? (?:directly )?to {V}
manager = {BE} managed by {V}
occupation = (?:work|works|working) as (?:a |an )?{V}
occupation > (?:(?:got|was|{BE}|{HAVE} been) )?promoted to {V}
occupation > (?:became|{HAVE} become) (?:a|an) {V}
diet = {BE} (?:a |an |strictly |fully )?(?P<v>{DIET})\b.*
diet = (?:{BE} on|follows?|following|eats?) (?:a |an )?(?P<v>{DIET})\b.*
diet > (?:went|turned|became|{HAVE} (?:gone|turned|become)) (?P<v>{DIET})\b.*
diet > (?:switched|changed|moved) to (?:a |an )?(?P<v>{DIET})\b.*
occupation = {BE} (?:a|an) {V}
origin = (?:{BE} (?:originally )?from|grew up in) {V}
name = go(?:es)? by {V}
name = (?:{BE}|would (?:like|love|prefer) to be) called {V}
name > (?:{HAVE} )?changed (?:my|their|his|her) name to {V}
age = {BE} (?P<v>\d{1,3})(?:\s*(?:years?[\s-]+old|yo|y/o))?
age > (?:just )?turned (?P<v>\d{1,3})\b.*
partner = {BE} married to {V}
partner > (?:got|{HAVE} got(?:ten)?) married to {V}
car = (?:drive|drives|driving) (?:a|an|my|our) {V}
email_address = (?:can be )?(?:reached|emailed) at (?P<v>\S+@\S+)
school = (?:study|studies|studying|{BE} (?:a student|enrolled)) at {V}
bank = banks? (?:with|at) {V}
bank > switched banks (?:from {OLD} )?to {V}
gym = (?:work|works|working) out at {V}
gym = (?:trains?|exercises?) at {V}
manager = (?:answers?|reports? directly) to {V}
mentor = {BE} (?:mentored|coached) by {V}
notes_app = (?:keeps?|writes?|takes?) (?:my |their )?notes (?:in|with) {V}
browser = browses? (?:the web )?(?:with|in|on) {V}
email_client = reads? (?:my |their )?e-?mail (?:in|on|with) {V}
programming_language = (?:codes?|programs?) (?:mostly |mainly )?in {V}
music_app = (?:streams?|listens? to) music (?:on|with|via) {V}
mobile_carrier = ported (?:my|their) number (?:over )?to {V}
health_insurer = {BE} insured (?:by|with|through) {V}
landlord = rents? (?:(?:the|my|their|a) (?:flat|apartment|place|house|room) )?from {V}
project = (?:{BE} )?(?:works?|working) on project {V}
commute = (?:commutes?|commuting|(?:goes|gets|travels?) to work) by {V}
commute > (?:{HAVE} )?started (?:commuting|going to work) by {V}
wake_time = (?:wakes?|gets?|getting) up at {V}
team = {BE} on the (?P<v>[a-z]+) team\b.*
watch = wears? (?:a|an|my) {V}
languages = (?:speak|speaks|speaking|{BE} fluent in) {V}
allergies = {BE} allergic to {V}
pets = (?:{HAVE}|own|owns) (?:a|an|two|three) (?P<v>{PET})s?\b.*
likes = (?:love|loves|like|likes|enjoy|enjoys) (?!(?:to|it|this|that|them)\b)(?P<v>[a-z].+)
dislikes = (?:hate|hates|dislike|dislikes) (?!to\b)(?P<v>[a-z].+)
* = (?:use|uses|using|prefer|prefers|choose|chose|picked) (?P<v>.+?) (?:for|as)
     (?:my |our |the |their )?{LABEL}
* > (?:switched|changed|moved|swapped|migrated|upgraded) (?:over )?(?:from {OLD} )?to
     (?P<v>.+?) (?:for|as) (?:my |our |the )?{LABEL}
* > (?:switched|changed|moved|swapped|migrated|upgraded|updated|set) (?:(?:my|our|the|their) )?
    {LABEL} (?:from {OLD} )?to {V}
* > replaced (?:my|our|the|their) {LABEL} with {V}
* > (?:switched|changed|moved|migrated|upgraded) (?:over )?(?:from {OLD} )?to {V}
* > replaced {OLD} with {V}
* > (?:{HAVE} )?(?:ditched|dropped|swapped|traded(?: in)?|exchanged) (?:my |our |the )?{OLD}
     (?:for|with) (?:a |an |the )?{V}
* = (?:use|uses|using|prefer|prefers|have|has) {V}
"""


def _patterns(table: str) -> tuple[tuple[str | None, bool, re.Pattern[str]], ...]:
    """The compiled :data:`_TABLE`: ``(family or None, says a change, pattern)``."""
    parts = {"{BE}": _BE, "{HAVE}": _HAVE, "{DIET}": _DIET, "{PET}": _PET, "{LABEL}": _LABEL}
    parts |= {"{V}": "(?P<v>.+)", "{OLD}": "(?P<old>.+?)"}
    lines: list[str] = []
    for line in table.strip().splitlines():
        if line.startswith("    "):
            lines[-1] += line[4:]  # a continuation: a space after the indent is a space
        else:
            lines.append(line)
    out = []
    for line in lines:
        family, kind, pattern = line.split(" ", 2)
        pattern = pattern.replace(" ", r"\s+")
        for name, part in parts.items():
            pattern = pattern.replace(name, part)
        out.append(
            (None if family == "*" else family, kind == ">", re.compile(rf"^{pattern}$", _I))
        )
    return tuple(out)


_COMPILED = _patterns(_TABLE)

_WHEN = (
    r"(?:(?:last|this|past)\s+(?:week|month|year|spring|summer|autumn|fall|winter|weekend)|"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r"|(?:19|20)\d\d|yesterday|today|(?:a|one|two|three|a\s+few|several)\s+(?:days?|weeks?|"
    r"months?|years?)\s+ago)"
)
_NOW = re.compile(
    r"(?<!right\s)(?<!for\s)(?<!until\s)(?<!by\s)(?<!just\s)\bnow\b(?!\s+(?:that|and\s+then))"
    r"|\bno\s+longer\b|\bany\s?more\b|\binstead\b|\bfrom\s+now\s+on\b|\bas\s+of\b|\bgoing\s+forward\b|"
    r"\bstarting\s+(?:today|now|this|next|on|from|in)\b|\bsince\b(?!\s+(?:I|we|he|she|they|my|our)\b)",
    _I,
)
_LEAD_TIME = re.compile(
    rf"^(?:(?P<c>since|as\s+of|starting|from)\s+|in\s+|on\s+)?(?:{_WHEN}|the\s+\w+)\s*,?\s+(?=\S)",
    _I,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:might|could|would(?!\s+(?:like|love|prefer)\s+(?:to\s+be\s+(?:called|addressed)|you\s+"
    r"to))|should|shall|maybe|perhaps|possibly|probably|hopefully|someday|unless|gonna|tempted|"
    r"wish(?:es|ed)?|if|whether|one\s+day|thinking\s+(?:about|of)|considering|contemplating|"
    r"plan(?:s|ned|ning)?\s+(?:to|on)|want(?:s|ed)?\s+to(?!\s+be\s+(?:called|addressed))|"
    r"hop(?:e|es|ed|ing)\s+to|going\s+to|about\s+to|intend(?:s|ed)?\s+to|"
    r"(?:would|'d|’d)\s+(?:like|love)(?!\s+(?:to\s+be\s+(?:called|addressed)|you\s+to))|"
    r"dream(?:s|ed|ing)?\s+(?:of|about)|looking\s+(?:to|into)|may|will|next\s+(?:week|month|"
    r"year|spring|summer|autumn|fall|winter)|turned\s+down|appl(?:y|ied)\s+(?:to|for)|"
    r"interview(?:ed|ing)?\s+(?:at|with))\b|\b(?:I|we|you|they|he|she)['’]ll\b"
)
"""Words of plans, wishes and conditions, in lower case ("Alta IF" stays a name)."""
_TEMPORARY = re.compile(
    r"\b(?:until|till|temporarily|for\s+(?:the|this|a|one|two|three|a\s+few|a\s+couple\s+of|"
    r"the\s+next)\s+(?:\w+\s+)?(?:weekend|week|weeks|month|months|nights?|days?|summer|winter|"
    r"holidays?|trip|conference|time\s+being|semester|season|while|bit)|for\s+now|right\s+now|"
    r"this\s+(?:week|weekend|month|summer|winter|trip|morning|afternoon|evening)|today|tonight|"
    r"tomorrow|on\s+(?:holiday|vacation|a\s+trip|business|leave|sabbatical|loan)|over\s+the\s+"
    r"(?:weekend|holidays|summer)|visiting|staying|rented|rental|borrowed|borrowing|hired\s+a|"
    r"one-off|just\s+(?:for|once))\b",
    _I,
)
_HISTORY = re.compile(
    r"\b(?:used\s+to|formerly|back\s+(?:in|when|then)|when\s+(?:I|we)\s+was|as\s+a\s+(?:kid|child|"
    r"teen|teenager)|growing\s+up|in\s+(?:high\s+school|college|(?:19|20)\d\d))\b",
    _I,
)
_PAST_STATE = re.compile(
    r"^(?:lived|resided|worked|drove|studied|banked|owned|had|"
    r"(?:was|were)\s+(?!(?:promoted|hired|born|diagnosed|moved|transferred|relocated)\b))\b",
    _I,
)
_NEGATIVE = re.compile(
    r"\b(?:not|never|no|don['’]t|doesn['’]t|didn['’]t|isn['’]t|aren['’]t|"
    r"won['’]t|can['’]t|cannot)\b|n['’]t\b",
    _I,
)
_SUBJECT = re.compile(r"^(?:I|we|(?:the\s+)?user)\s+(?P<p>.+)$", _I)
_OTHER = re.compile(rf"^{_OWNER}\s+(?P<n>[a-z]+)(?:['’]s)?\s+(?P<p>.+)$", _I)
_COPULA = re.compile(
    rf"^{_OWNER}\s+(?:(?P<n>[a-z]+(?:\s[a-z]+)?)['’]s\s+)?{_LABEL}\s*(?::|\s(?:is|are|=)|\s(?:has\s+)?"
    r"(?P<c>changed|switched|moved)(?:\s+from\s+(?P<old>.+?))?\s+to)\s+(?P<v>.+)$",
    _I,
)
_NO_LONGER = re.compile(
    r"^(?:no\s+longer|not)\s+(?P<old>.+?)(?:\s+any\s?more)?\s*[;,]\s*(?:(?:it|that)['’]s|it\s+is|"
    r"now|but|instead)\s+(?P<new>.+)$",
    _I,
)
_NOT_TAIL = re.compile(r",?\s+not\s+(?P<old>[^,;]+?)\s*$", _I)  # "..., not MacBook Pro"
_INVERSE = re.compile(  # "Mazda 3 is the user's vehicle now."
    rf"^(?P<v>[A-Z0-9][^,;]*?)\s+(?:is|are)\s+{_OWNER}\s+(?P<r>[a-z][a-z '’-]{{1,40}}?)"
    r"(?P<now>\s+(?:now|these\s+days|going\s+forward))?$",
)
_NOTE = re.compile(
    r"^(?:(?:the\s+)?user['’]s\s+)?(?P<r>[A-Za-z][A-Za-z -]{0,30}?)\s*:\s*(?P<v>\S.*)$"
)
_ARROW = re.compile(
    r"^(?:(?P<r>[^:>=]{1,40}?)\s*:\s*)?(?:(?P<old>[^:>=]{1,40}?)\s*)?(?:->|→|=>|-->)\s*(?P<v>\S.*)$"
)
_PREVIOUSLY = re.compile(
    r"\s*(?:[(\[]\s*(?:previously|formerly|was|before|no\s+longer)\s*:?\s+(?P<a>[^()\[\]]+?)\s*"
    r"[)\]]|,\s*(?:previously|formerly)\s+(?P<b>[^,;()]+?))\s*(?=[.!]*$)",
    _I,
)
_REPLACED_AS = re.compile(
    rf"^(?P<v>[A-Z0-9].*?)\s+(?:has\s+)?replaced\s+(?P<old>.+?)\s+as\s+{_OWNER}\s+(?:new\s+)?"
    r"(?P<r>[a-z][a-z '’-]{1,40})$",
    _I,
)
_R_OF_USER = re.compile(r"^the\s+([a-z][a-z -]{1,30}?)\s+of\s+(?:the\s+)?user\s+(is|are)\s+", _I)
_HEADER = re.compile(r"^(?:update|updated|correction|change|changed|new)\s*(?::|\s[-–—])\s*", _I)
_CLAUSE_START = (
    r"(?:I|we|now|not|no\s+longer|(?:the\s+)?user|my|works?|lives?|moved|speaks?|drives?|"
    r"reports?|uses?|is|am|are|has|have|joined|took|only|cancell?ed|dropped|ditched|quit|gave|"
    r"went|switched|signed|started)\b"
)
_CLAUSES = re.compile(
    rf"\s*[;,]\s*(?:and\s+|but\s+|so\s+)?(?={_CLAUSE_START})|\s+(?:and|but|so)\s+(?={_CLAUSE_START})",
    _I,
)
_TRAILING = re.compile(
    r"(?:,\s*|\s+)(?:now|instead|any\s?more|these\s+days|nowadays|for\s+good)\s*$"
    r"|,?\s+instead\s+of\s+(?P<old>[^,;]+?)\s*$",
    _I,
)
_ADVERBS = re.compile(
    r"^(?:(?:now|currently|still|also|just|recently|finally|actually|really|officially|already|"
    r"then|nowadays|lately|these\s+days|at\s+the\s+moment|from\s+now\s+on|going\s+forward)\s*,?\s+)+",
    _I,
)
_TIME_TAIL = re.compile(
    r"(?:,?\s+(?:(?:last|this|past)\s+(?:week|month|year|summer|winter|spring|autumn|fall)|"
    r"(?:a\s+few\s+|\w+\s+)?(?:days?|weeks?|months?|years?)\s+ago|recently|now|lately|nowadays|"
    r"these\s+days|again|too|as\s+well|instead|for\s+good|permanently|at\s+the\s+moment|"
    r"full[- ]time|part[- ]time|since\s+.+|as\s+of\s+.+|from\s+now\s+on|in\s+(?:19|20)\d\d|in\s+"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)|"
    r"(?:for|with|because|after|before|so\s+that|where|which|who|instead\s+of|rather\s+than|"
    r"and|but)\s+.*))+\s*$",
    _I,
)
_NAME = re.compile(r"^(?:[A-Z0-9][\w.'’&+#-]*|[a-z]+[A-Z][\w-]*)$")
_NAME_LINK = _word_set("of de da del der di du la le van von & and the")
_LEAD = re.compile(r"^(?:a|an|the|my|our|their|his|her|new|brand-new)\s+", _I)


def is_hypothetical(text: str) -> bool:
    """Whether ``text`` states a plan, a wish or a condition rather than what is so.

    Example:
        >>> is_hypothetical("I might move to Rome"), is_hypothetical("Alta IF won the cup")
        (True, False)
    """
    return bool(_HYPOTHETICAL.search(text[:1].lower() + text[1:]))


def _clean(raw: str, kind: str) -> str:
    """The value in the words after a verb or a label ("" when none of its kind is there)."""
    value = re.sub(r"\s*\([^)]*\)\s*", " ", raw).strip().strip("\"'“”‘’`").rstrip(" .!,;:")
    for _ in range(3):
        cut = _TIME_TAIL.sub("", value).rstrip(" .!,;:")
        if cut == value or not cut:
            break
        value = cut
    while (lead := _LEAD.sub("", value)) != value:
        value = lead
    if kind == "email":
        found = re.search(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", value)
        return found.group(0) if found else ""
    if kind == "number":
        found = re.match(r"^[+(\d][\d\s()+.:-]*\d|^\d", value)
        return found.group(0) if found else ""
    if kind == "name":
        tokens = value.split(",")[0].split()
        if not tokens or not _NAME.match(tokens[0]):
            return ""
        keep = 1
        while keep < len(tokens) and (
            _NAME.match(tokens[keep])
            or (
                tokens[keep] in _NAME_LINK
                and keep + 1 < len(tokens)
                and _NAME.match(tokens[keep + 1])
            )
        ):
            keep += 1
        value = " ".join(tokens[:keep])
    return value.strip(" .,;:'’\"")


def _labelled(value: str) -> tuple[str, str] | None:
    """``(family, value)`` when the value's last words name its attribute ("a Pixel phone")."""
    words = value.split()
    for n in (2, 1):
        if len(words) > n:
            family = family_of_label(" ".join(words[-n:]))
            if family is not None and not family.multi_valued:
                return family.name, " ".join(words[:-n])
    return None


def _occupation(value: str) -> str:
    """The occupation in "a data engineer at Acme" ("" when its head noun is no occupation)."""
    phrase = re.split(r"\s+(?:at|for|in|with|from|on)\s+", value)[0]
    words = phrase.lower().split()
    return phrase if words and words[-1] in OCCUPATIONS and len(words) <= 4 else ""


def _attribute(label: str) -> tuple[str, str] | None:
    """``(relation, kind)`` of an attribute noun phrase; None for a person, a pet or too long."""
    family = family_of_label(label)
    if family is not None:
        return family.name, family.kind
    words = label.lower().split()
    if not words or len(words) > 4 or words[-1] in PEOPLE | PETS:
        return None
    relation = normalize_key_part(label).replace("favorite", "favourite").replace("color", "colour")
    return (relation, "any") if relation else None


def _predicate(subject: str, pred: str, change: bool) -> list[Claim]:
    """The claims of one predicate of ``subject`` (the first pattern that reads it)."""
    for family, says_change, pattern in _COMPILED:
        m = pattern.match(pred)
        if m is None:
            continue
        groups = m.groupdict()
        old = (groups.get("old") or "").strip()
        relation, kind = (family, FAMILIES[family].kind) if family else (UNNAMED, "any")
        if family is None and groups.get("r"):
            found = _attribute(groups["r"])
            label = groups["r"]
            if (
                found is None
                or not (label.islower() or label.isupper())
                or label.startswith("from ")
            ):
                continue  # "switched from Chrome to ...": no attribute named, read on
            relation, kind = found
        raw = groups["v"]
        multi = family is not None and FAMILIES[family].multi_valued
        if multi:  # "French and Spanish": two values
            return [
                Claim(subject, relation, v, True)
                for part in re.split(r"\s*(?:,|\band\b|&)\s*", raw)
                if (v := _clean(part, kind))
            ]
        if family is None and (tail := _labelled(_clean(raw, "any"))):
            relation, raw = tail  # "switched my editor to the Dracula theme": the theme
            kind = FAMILIES[relation].kind
        elif family is None and relation == UNNAMED and not old:
            return []  # "I use it daily": neither the attribute nor the value replaced
        value = _clean(raw, kind)
        if relation == "occupation":
            value = _occupation(value)
        if family == "car" and re.search(r"^\S+\s+(?:to|from|around)\b", raw):
            value = ""  # "drive a Tesla to work" is a car; "drive Tom to school" is none
        if not value:
            return []
        fix = change or says_change or bool(old)
        return [Claim(subject, relation, value, False, fix, _clean(old, "any"))]
    return []


def _copula(clause: str, change: bool) -> list[Claim] | None:
    """``My R is V`` / ``User's R: V``: a claim (``[]``: not one), or None when not the shape."""
    m = _COPULA.match(clause)
    if m is None:
        note = _NOTE.match(clause)
        if note is None or family_of_label(note["r"]) is None:
            return None
        m = note
    subject = "user"
    if m.groupdict().get("n"):  # "My best friend's employer is ..."
        if m["n"].lower().split()[-1] not in PEOPLE | PETS:
            return None
        subject = f"user.{normalize_key_part(m['n'])}"
    found = _attribute(m["r"])
    noun = m["r"].lower().split()[-1]
    person = noun in PEOPLE | PETS and len(m["r"].split()) == 1 and subject == "user"
    if found is None:
        return _predicate(f"user.{noun}", "is " + m["v"], change) if person else []
    relation, kind = found
    raw = re.sub(r"^(?:now|currently)\s+", "", m["v"], flags=_I)
    previous = _clean(m.groupdict().get("old") or "", kind)
    change = change or bool(m.groupdict().get("c"))  # "The user's shell changed from X to Y"
    if (tail := _NOT_TAIL.search(raw)) is not None:  # "Correction: ... is Humana, not Aetna"
        raw, previous = raw[: tail.start()], previous or _clean(tail["old"], kind)
    if (swap := _NO_LONGER.match(raw)) is not None:  # "is no longer 6:00; it's 8:00"
        raw, previous, change = swap["new"], _clean(swap["old"], kind), True
    if relation == "home_city":
        raw = re.sub(r"^in\s+", "", raw, flags=_I)
    if kind == "name":
        raw = re.sub(r"^(?:called|named)\s+", "", raw, flags=_I)  # "My wife is called Ruth"
    if re.match(r"^(?:in|on|at|with|from|off|out|away|being|getting|not|never|no)\b", raw, _I):
        return []  # "My car is in the shop", "My favourite colour is not green": no value
    family = FAMILIES.get(relation)
    if family is not None and family.multi_valued:  # "My hobbies are chess and Pilates"
        parts = re.split(r"\s*(?:,|\band\b|&)\s*", raw)
        return [Claim(subject, relation, v, True) for p in parts if (v := _clean(p, kind))]
    value = _clean(raw, kind)
    if relation == "occupation" and m["r"].lower().split()[-1] == "job":
        value = _occupation(value)  # "My job is stressful": no occupation
    if relation == "diet" and value.lower() not in DIETS:
        value = ""
    if not value:  # "My wife is a teacher": not her name, what she is
        return _predicate(f"user.{noun}", "is " + m["v"], change) if person else []
    return [Claim(subject, relation, value, False, change, previous)]


def _split(text: str) -> tuple[str, bool, str]:
    """A note taken apart: ``(text, says a change, the value it replaced)``."""
    change = False
    if (h := _HEADER.match(text)) is not None:
        text, change = text[h.end() :], True
    previous = ""
    if (p := _PREVIOUSLY.search(text)) is not None and p.start() > 0:
        previous, text, change = (p["a"] or p["b"]).strip(), text[: p.start()], True
    if (r := _REPLACED_AS.match(text.rstrip(" .!"))) is not None:  # "X replaced Y as my R"
        return f"User's {r['r']}: {r['v']}", True, r["old"]
    if (v := _INVERSE.match(text.rstrip(" .!"))) is not None and family_of_label(v["r"]):
        return f"User's {v['r']}: {v['v']}", change or bool(v["now"]), previous
    text = _R_OF_USER.sub(r"User's \1 \2 ", text)  # "The R of the user is V"
    a = _ARROW.match(text.rstrip(" .!"))
    if a is not None:
        label = (a["r"] or "").strip() or "value"
        previous = (a["old"] or "").strip()
        if not a["r"] and family_of_label(previous) is not None:  # "airline -> Lufthansa"
            label, previous = previous, ""
        if family_of_label(label) is None and previous and not a["r"]:
            return f"I switched from {previous} to {a['v']}", True, ""
        return f"User's {label}: {a['v']}", True, previous
    return text, change, previous


_NOTE_VERBS = re.compile(
    r"^(?:Lives|Living|Based|Moved|Relocated|Works|Working|Started|Switched|Changed|Uses|Using|"
    r"Prefers|Speaks|Drives|Reports|Became|Went|Now|Signed|Joined|Cancell?ed|Dropped|Ditched|Quit|"
    r"Left|Gave)\b"
)
_NOT_BUT = re.compile(  # "Actually no, give me Celsius, not Fahrenheit"; "Not X anymore, just Y"
    r"^(?:(?:actually|sorry|no|oops|correction)\b[,.!:]?\s*(?:no\b[,.!]?\s*)?(?:I\s+meant|it['’]s|"
    r"it\s+is|make\s+(?:it|that)|give\s+me|I\s+said)?\s*(?P<v>[^,;]+?),?\s+not\s+(?P<old>[^,.;]+)"
    r"|not\s+(?P<old2>.+?)\s+any\s?more[,.;]?\s+(?:just|only|now|but)\s+(?P<v2>[^,.;]+))",
    _I,
)
_CALL_ME = re.compile(
    r"^(?i:(?:(?:please|you\s+can|everyone|everybody|people|friends)\s+)*calls?\s+(?:me|the\s+user))"
    r"\s+(?P<v>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})(?P<t>.*)$"
)
_AT = re.compile(rf"^(?:{_BE}\s+)?(?:at|with)\s+(?P<v>.+)$", _I)
_ITS = re.compile(r"\s*[;,]\s*(?:it|that)(?:['’]s|\s+is)\s+(?P<v>.+)$", _I)
_LEFT = re.compile(  # what a user left behind: the value an anchored claim replaces
    r"^(?:(?:have|has)\s+)?(?:left|quit|cancell?ed|dropped|ditched|gave\s+up|stopped)\s+(?:my\s+|our\s+|the\s+)?"
    r"(?P<v>.+)$",
    _I,
)
_NEW = re.compile(  # what the user took up instead: "..., and joined KPMG", "it's 7:15"
    r"^(?:(?:have\s+|has\s+)?(?:joined|took\s+up|taken\s+up|started\s+(?:at|with)|signed\s+up\s+(?:at|with|"
    r"for)|switched\s+to|went\s+(?:with|to|over\s+to)|moved\s+(?:over\s+)?to|(?:only\s+|now\s+)?(?:have|has|use|uses))|(?:it|that)(?:['’]s|\s+is))\s+"
    r"(?:a\s+|an\s+|the\s+)?(?P<v>.+)$",
    _I,
)
_PRESENT = {
    "lived": "live",
    "worked": "work",
    "drove": "drive",
    "studied": "study",
    "banked": "bank",
    "resided": "reside",
    "was": "am",
    "were": "are",
}


def _clause_subject(clause: str, last: str) -> tuple[str, str] | None:
    if (m := _SUBJECT.match(clause)) is not None:
        return "user", m["p"]
    if (m := _OTHER.match(clause)) is not None and m["n"].lower() in PEOPLE | PETS:
        return f"user.{m['n'].lower()}", m["p"]
    if last and clause[:1].islower():
        return last, clause
    if not last and _NOTE_VERBS.match(clause):  # a subject-less note: "Moved to Oslo."
        return "user", clause[:1].lower() + clause[1:]
    return None


def _hints(subject: str, pred: str) -> list[Claim]:
    """The values a negation or a past statement names as no longer so ("no longer at Acme")."""
    plain = re.sub(
        r"\b(?:used\s+to|no\s+longer|any\s?more|not|never|do|does|did)\b\s*", "", pred, flags=_I
    )
    plain = re.sub(r"^\w+", lambda w: _PRESENT.get(w[0].lower(), w[0]), plain.strip())
    found = _predicate(subject, plain, False) or _predicate(subject, "am " + plain, False)
    if not found and (m := _LEFT.match(plain) or _AT.match(plain)):
        found = [Claim(subject, UNNAMED, _clean(m["v"], "any"))]
    # kept whole too: "no longer gets an affogato, now gets a piccolo" names the old object
    return [c for c in found if c.value] or [Claim(subject, "", plain)]


def _objects(old: str, new: str) -> tuple[str, str]:
    """What differs between two predicates of one verb ("gets an affogato", "gets a piccolo")."""
    a, b = old.split(), new.split()
    i = 0
    while i < min(len(a), len(b)) and a[i].casefold() == b[i].casefold():
        i += 1
    if i == 0:  # another verb: no object of the same statement
        return "", ""
    return _clean(" ".join(a[i:]), "any"), _clean(" ".join(b[i:]), "any")


def read_user(sentence: str) -> list[Claim] | str | None:
    """The claims a sentence makes about the user (or the people and pets they speak of).

    Args:
        sentence: One sentence, without its question mark (contractions may be kept).

    Returns:
        The claims; or why there is none (``"hypothetical"``: a plan, a wish, history or a
        temporary state; ``"negated"``); or ``None`` when the sentence is not about the user or
        none of these shapes reads it (the generic shapes may).
    """
    text, note_change, note_previous = _split(sentence.strip().rstrip(".!").strip())
    text = re.sub(r"\bI['’]m\b", "I am", text)
    text = re.sub(r"\b(I|we|you|they)['’]ve\b", r"\1 have", text, flags=_I)
    text = re.sub(r"\b([Ww]e)['’]re\b", r"\1 are", text)
    text = re.sub(r"\b(I|we|they)['’]d\b", r"\1 would", text, flags=_I)
    text = re.sub(r"\b(do|does|did|is|are|was|were)n['’]t\b", r"\1 not", text, flags=_I)
    if (m := _CALL_ME.match(text)) is not None:
        if is_hypothetical(text) or _TEMPORARY.search(m["t"]):
            return "hypothetical"
        return [Claim("user", "name", m["v"], correction=note_change or bool(_NOW.search(text)))]
    if (m := _NOT_BUT.match(text)) is not None:  # a correction that names both values
        value, old = _clean(m["v"] or m["v2"], "any"), _clean(m["old"] or m["old2"], "any")
        return [Claim("user", UNNAMED, value, False, True, old)] if value and old else None
    opening = re.match(r"^(?:if|unless|whether|when)\b", text, _I) or _HISTORY.match(text)
    if opening is not None:  # "If I lived in Rome, ...", "Back in 2019 I moved to Rome."
        return "hypothetical" if re.search(r"\b(?:I|we|my|user)\b", text, _I) else None
    lead = _LEAD_TIME.match(text)
    if lead is not None and _TEMPORARY.search(lead.group(0)):
        return "hypothetical"  # "This week I'm working from Berlin."
    if lead is not None and _clause_subject(text[lead.end() :], "") and not _HISTORY.search(text):
        # "Since last month the user ...", "As of May, I ...", "Last week I ..."
        note_change = note_change or bool(lead["c"])
        text = text[lead.end() :]
    claims: list[Claim] = []
    hints: list[Claim] = []
    bare: list[tuple[str, str]] = []
    reason: str | None = None
    last = ""
    for part in _CLAUSES.split(text):
        change = note_change or bool(_NOW.search(part))
        note_change = note_change or (
            change and not _clause_subject(part, last)
        )  # "Going forward,"
        clause = _ADVERBS.sub("", part.strip(" ,;"))
        while (tail := _TRAILING.search(clause)) is not None and tail.start() > 0:
            if tail["old"]:  # "I drink tea instead of coffee"
                hints.append(Claim(last or "user", UNNAMED, _clean(tail["old"], "any")))
            clause = clause[: tail.start()]
        if not clause:
            continue
        copula = _copula(clause, change)
        said = _clause_subject(clause, last) if copula is None else ("user", "")
        if said is None:
            continue
        if is_hypothetical(clause) or _TEMPORARY.search(clause):
            reason = reason or "hypothetical"
            continue
        if copula is not None:
            claims.extend(copula)
            last = copula[0].subject if copula else "user"
            continue
        last, pred = said[0], _ADVERBS.sub("", said[1])
        negated = bool(_NEGATIVE.search(pred)) or bool(re.search(r"\bno\s+longer\b", pred, _I))
        if negated and (now_is := _ITS.search(pred)) is not None:  # "no longer X, it's Y"
            pred, change = pred[: now_is.start()], True
            bare.append((last, "it is " + now_is["v"]))
        if negated or _HISTORY.search(pred) or _PAST_STATE.match(pred):
            hints += _hints(last, pred)
            reason = reason or ("negated" if negated else "hypothetical")
            continue
        found = _predicate(last, pred, change)
        if not found and _LEFT.match(pred):  # "I left Deloitte", "we cancelled Netflix"
            hints += _hints(last, pred)
            continue
        claims += found
        if not found:
            bare.append((last, pred))
    if note_previous:
        hints.append(Claim("user", UNNAMED, note_previous))
    for subject, pred in bare:  # "..., I am at Initech now": the attribute of the hint
        at = _AT.match(pred) or _NEW.match(pred)
        named = [h for h in hints if h.subject == subject and h.relation not in (UNNAMED, "")]
        if (
            at is not None
            and named
            and (value := _clean(at["v"], FAMILIES[named[0].relation].kind))
        ):
            claims.append(Claim(subject, named[0].relation, value, False, True, named[0].value))
            continue
        for hint in (h for h in hints if h.subject == subject and not h.relation):
            old, new = _objects(hint.value, pred)  # the same verb, another object: anchored
            if old and new:
                claims.append(Claim(subject, UNNAMED, new, False, True, old))
        left = [h for h in hints if h.subject == subject and h.relation == UNNAMED]
        if left and (took := _NEW.match(pred)) and (value := _clean(took["v"], "any")):
            claims.append(Claim(subject, UNNAMED, value, False, True, left[0].value))
    out = []
    for claim in claims:
        for hint in hints:
            same = hint.subject == claim.subject and hint.relation in (claim.relation, UNNAMED, "")
            same = same and bool(hint.relation or claim.relation == UNNAMED or claim.correction)
            if same and hint.value.casefold() != claim.value.casefold() and not claim.multi_valued:
                claim = replace(claim, correction=True, previous=claim.previous or hint.value)
        out.append(claim)
    return out or reason
