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

import re
from dataclasses import dataclass

from langchain_tepa.extraction.lexicon import DIETS
from langchain_tepa.extraction.vocabularies import (
    AIRLINES,
    BROWSERS,
    CARRIERS,
    CARS,
    CLOUDS,
    COFFEES,
    DATABASES,
    EDITORS,
    EMAIL_CLIENTS,
    INSTRUMENTS,
    KEYBOARD_LAYOUTS,
    LAPTOPS,
    MUSIC_APPS,
    NATURAL_LANGUAGES,
    NOTES_APPS,
    PASSWORD_MANAGERS,
    PETS,
    PHONES,
    PROGRAMMING_LANGUAGES,
    SHELLS,
    SPORTS,
    SYSTEMS,
    THEMES,
    WATCHES,
)

__all__ = [
    "FAMILIES",
    "MARKERS",
    "RELATIVES",
    "Family",
    "canonical_relation",
    "family_of_label",
    "inflect",
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


_F = Family
_T: tuple[str, ...] = ()  # "use", "switch to", ...: generic verbs, read through vocabularies
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        _F(
            "home_city",
            (
                "home city",
                "city",
                "current city",
                "city of residence",
                "place of residence",
                "residence",
                "location",
                "home",
                "home base",
                "base",
                "town",
                "hometown now",
            ),
            (
                "{live} in",
                "{move} to",
                "{move} back to",
                "{move} over to",
                "{relocate} to",
                "{reside} in",
                "{be} based in",
                "{be} based out of",
                "{settle} in",
                "{settle} down in",
                "{make} (?:my|their|his|her) home in",
                "{stay} in",
            ),
            kind="name",
            changes=("move", "relocate", "settle"),
        ),
        _F(
            "neighbourhood",
            (
                "neighbourhood",
                "neighborhood",
                "area",
                "district",
                "part of town",
                "borough",
                "quarter",
                "flat",
                "apartment",
                "suburb",
            ),
            ("{move} across town to", "{live} in the {v} (?:area|district|neighbou?rhood)"),
            changes=("move",),
        ),
        _F("origin", ("origin", "hometown", "home town", "country of origin"), ("{grow} up in",)),
        _F("birthplace", ("birthplace", "place of birth", "city of birth"), kind="name"),
        _F("home_country", ("country", "country of residence", "home country"), kind="name"),
        _F(
            "employer",
            (
                "employer",
                "company",
                "workplace",
                "place of work",
                "work",
                "firm",
                "organisation",
                "organization",
                "job at",
            ),
            (
                "{work} at",
                "{work} for",
                "{be} employed at",
                "{be} employed by",
                "{be} hired by",
                "{join}",
                "{get} a job at",
                "{get} a new job at",
                "{have} a job at",
                "{have} a new job at",
                "{start} a new job at",
                "{start} a job at",
                "{start} working at",
                "{start} at",
                "{switch} jobs to",
                "{move} jobs to",
            ),
            kind="name",
            changes=("join", "get", "start", "switch"),
        ),
        _F(
            "manager",
            (
                "manager",
                "boss",
                "supervisor",
                "line manager",
                "team lead",
                "direct manager",
                "team leader",
                "lead",
            ),
            ("{report} to", "{be} managed by", "{be} supervised by", "{work} under"),
            kind="name",
        ),
        _F(
            "occupation",
            (
                "occupation",
                "job",
                "job title",
                "title",
                "role",
                "position",
                "profession",
                "line of work",
            ),
            (
                "{work} as",
                "{be} promoted to",
                "{get} promoted to",
                "{become}",
                "{be} employed as",
                "{be} now working as",
            ),
            changes=("become", "get"),
        ),
        _F(
            "team",
            ("team", "department", "division", "squad", "work team"),
            ("{be} on the {v} team", "{work} (?:in|on|for) the {v} team", "{join} the {v} team"),
        ),
        _F(
            "diet",
            ("diet", "dietary preference", "diet type", "eating style", "way of eating"),
            vocab=DIETS,
            changes=("go", "become", "switch"),
        ),
        _F(
            "partner",
            (
                "partner",
                "spouse",
                "wife",
                "husband",
                "girlfriend",
                "boyfriend",
                "fiance",
                "fiancee",
                "significant other",
                "partner name",
                "partner's name",
                "other half",
            ),
            (
                "{be} married to",
                "{be} dating",
                "{date}",
                "{be} engaged to",
                "{be} in a relationship with",
                "{be} with",
                "{be} together with",
                "{be} seeing",
                "{be} together with",
            ),
            kind="name",
        ),
        _F("relationship_status", ("relationship status", "marital status")),
        _F(
            "phone_number",
            ("phone number", "mobile number", "cell number", "telephone number", "number"),
            ("{be} reachable at", "{can} be reached at"),
            kind="number",
        ),
        _F(
            "phone",
            (
                "phone",
                "smartphone",
                "mobile phone",
                "cell phone",
                "handset",
                "mobile",
                "phone brand",
                "phone model",
            ),
            ("{replace} (?:my|their|his|her) phone with",),
            vocab=PHONES,
        ),
        _F("email_address", ("email", "email address", "e-mail", "e-mail address")),
        _F(
            "email_client",
            (
                "email client",
                "mail client",
                "email app",
                "mail app",
                "email provider",
                "mail provider",
                "email service",
                "mail program",
                "email program",
            ),
            (
                "{read} (?:my |their |his |her )?(?:e-?)?mail (?:in|on|with|through)",
                "{check} (?:my |their |his |her )?(?:e-?)?mail (?:in|on|with)",
                "{use} {v} for (?:e-?)?mail",
                "{switch} to {v} for (?:e-?)?mail",
                "{move} to {v} for (?:e-?)?mail",
            ),
            vocab=EMAIL_CLIENTS,
        ),
        _F(
            "car",
            ("car", "vehicle", "ride", "automobile"),
            ("{drive}", "{drive} around in"),
            vocab=CARS,
            changes=("buy",),
        ),
        _F(
            "editor_theme",
            (
                "editor theme",
                "theme",
                "color scheme",
                "colour scheme",
                "ide theme",
                "colour theme",
                "color theme",
                "editor colour scheme",
            ),
            ("{code} with",),
            vocab=THEMES,
        ),
        _F("editor", ("editor", "code editor", "text editor", "ide"), _T, vocab=EDITORS),
        _F(
            "programming_language",
            (
                "programming language",
                "coding language",
                "language of choice",
                "go-to language",
                "main language",
                "programming language of choice",
            ),
            (
                "{code} in",
                "{program} in",
                "{write} code in",
                "{develop} in",
                "{love} writing",
                "{enjoy} writing",
                "{like} writing",
                "{write}",
            ),
            vocab=PROGRAMMING_LANGUAGES,
        ),
        _F(
            "shell",
            ("shell", "login shell", "default shell", "terminal shell", "terminal"),
            ("{run} {v} in the terminal", *_T),
            vocab=SHELLS,
        ),
        _F(
            "reply_language",
            (
                "reply language",
                "response language",
                "answer language",
                "preferred language",
                "language for replies",
                "language for answers",
            ),
            (
                "{want} (?:replies|answers|responses) in",
                "{ask} for (?:replies|answers|responses) in",
                "{prefer} (?:replies|answers|responses) in",
                "{like} (?:replies|answers) in",
            ),
            vocab=NATURAL_LANGUAGES,
        ),
        _F(
            "native_language",
            ("native language", "mother tongue", "first language"),
            vocab=NATURAL_LANGUAGES,
        ),
        _F(
            "languages",
            ("languages", "languages spoken", "spoken languages", "spoken language"),
            ("{speak}", "{be} fluent in", "{can} speak"),
            multi_valued=True,
            vocab=NATURAL_LANGUAGES,
        ),
        _F(
            "timezone",
            ("timezone", "time zone", "tz"),
            (
                "{be} on {v} time",
                "{be} in the {v} (?:time zone|timezone)",
                "{work} in the {v} (?:time zone|timezone)",
                "{work} on {v} time",
            ),
        ),
        _F(
            "gym",
            ("gym", "fitness club", "gym membership", "health club", "fitness studio"),
            (
                "{work} out at",
                "{train} at",
                "{go} to the gym at",
                "{exercise} at",
                "{be} a member (?:of|at)",
                "{have} a membership at",
                "{lift} at",
            ),
            kind="name",
        ),
        _F(
            "bank",
            (
                "bank",
                "banking provider",
                "account",
                "bank account",
                "current account",
                "checking account",
                "savings account",
            ),
            (
                "{bank} with",
                "{bank} at",
                "{switch} banks to",
                "{move} banks to",
                "{have} (?:a|an|my|their) (?:current |checking |bank "
                "|savings )?account (?:at|with)",
            ),
            kind="name",
        ),
        _F(
            "browser",
            ("browser", "web browser"),
            ("{browse} with", "{browse} the web with", "{browse} in", *_T),
            vocab=BROWSERS,
        ),
        _F(
            "operating_system", ("operating system", "os"), ("{be} on", "{run}", *_T), vocab=SYSTEMS
        ),
        _F(
            "school",
            ("school", "university", "college", "alma mater", "uni"),
            (
                "{study} at",
                "{attend}",
                "{go} to school at",
                "{be} enrolled at",
                "{be} enrolled in",
                "{be} a student at",
                "{transfer} to",
                "{go} to college at",
            ),
            kind="name",
        ),
        _F("major", ("major", "field of study", "degree", "subject"), ("{major} in",)),
        _F("address", ("address", "home address", "street address", "postal address")),
        _F(
            "commute",
            ("commute", "mode of transport", "way to work", "means of transport"),
            (
                "{commute} by",
                "{get} to work by",
                "{go} to work by",
                "{travel} to work by",
                "{take} the {v} to work",
                "{ride} the {v} to work",
                "{commute} on the",
            ),
        ),
        _F(
            "airline",
            ("airline", "usual airline", "preferred airline"),
            ("{fly} with", "{fly}"),
            vocab=AIRLINES,
        ),
        _F("supermarket", ("supermarket", "grocery store", "grocer"), ("{shop} at",)),
        _F("internet_provider", ("internet provider", "isp", "broadband provider")),
        _F(
            "mobile_carrier",
            (
                "mobile carrier",
                "carrier",
                "phone carrier",
                "mobile provider",
                "phone provider",
                "mobile network",
                "phone plan",
                "mobile plan",
                "network provider",
                "phone company",
            ),
            (
                "{port} (?:my|their|his|her) number to",
                "{switch} carriers to",
                "{switch} networks to",
                "{be} on the {v} network",
                *_T,
            ),
            vocab=CARRIERS,
        ),
        _F(
            "music_app",
            (
                "music app",
                "music service",
                "streaming service",
                "music streaming service",
                "music player",
                "music streaming app",
                "playlists",
                "music",
            ),
            (
                "{listen} to music on",
                "{listen} to music with",
                "{listen} on",
                "{stream} music (?:with|on|from|through)",
                "{stream} (?:my |their )?music on",
                *_T,
            ),
            vocab=MUSIC_APPS,
        ),
        _F(
            "laptop",
            ("laptop", "computer", "notebook", "machine", "work laptop"),
            ("{work} on a", "{upgrade} to", "{have}", "{own}", "{buy}", "{get}", "{use}"),
            vocab=LAPTOPS,
        ),
        _F("plan", ("plan", "subscription", "subscription plan", "tier", "subscription tier")),
        _F(
            "doctor",
            ("doctor", "gp", "family doctor", "physician", "general practitioner"),
            (
                "{see} {v} for (?:checkups|check-ups|appointments)",
                "{register} with",
                "{be} registered with",
                "{be} a patient of",
            ),
            kind="name",
        ),
        _F("dentist", ("dentist",), kind="name"),
        _F("pronouns", ("pronouns",)),
        _F(
            "name",
            ("name", "full name", "first name", "preferred name", "nickname"),
            (
                "{go} by",
                "{prefer} the name",
                "{prefer} to be called",
                "{be} called",
                "{want} to be called",
                "{like} to be called",
            ),
            kind="name",
        ),
        _F("age", ("age",), ("{turn}",), kind="number"),
        _F("birthday", ("birthday", "date of birth", "birth date", "dob"), ("{be} born on",)),
        _F("units", ("units", "unit system", "measurement system", "measurement units")),
        _F("bedtime", ("bedtime",), ("{go} to bed at", "{go} to sleep at")),
        _F(
            "wake_time",
            ("wake-up time", "wake up time", "wake time", "alarm", "alarm time"),
            ("{wake} up at", "{wake} at", "{get} up at", "{rise} at"),
        ),
        _F(
            "coffee",
            ("coffee", "coffee order", "coffee preference", "coffee drink", "usual coffee"),
            ("{order}", "{drink}", "{get}", "{have}", "{take} (?:my|their) coffee"),
            vocab=COFFEES,
        ),
        _F(
            "cloud_provider",
            ("cloud provider", "cloud", "hosting provider", "host", "hosting", "cloud platform"),
            (
                "{host} (?:everything|it|our \\w+|their \\w+|services|apps?) on",
                "{deploy} to",
                "{deploy} on",
                "{run} on",
                "{be} hosted on",
                *_T,
            ),
            vocab=CLOUDS,
        ),
        _F(
            "database",
            ("database", "db", "datastore", "data store", "main database"),
            ("{store} (?:data|everything|its data|their data) in", "{run} on", *_T),
            vocab=DATABASES,
        ),
        _F(
            "keyboard_layout",
            ("keyboard layout", "layout", "keyboard", "typing layout"),
            (
                "{type} on",
                "{type} in",
                "{type} with",
                "{retrain} (?:myself|themselves) on",
                "{learn} to type on",
                *_T,
            ),
            vocab=KEYBOARD_LAYOUTS,
        ),
        _F(
            "health_insurer",
            (
                "health insurer",
                "health insurance",
                "insurer",
                "insurance",
                "insurance provider",
                "health insurance provider",
                "health plan",
            ),
            (
                "{be} insured (?:by|with|through)",
                "{have} health insurance (?:with|from)",
                "{get} health insurance (?:with|from)",
            ),
            kind="name",
        ),
        _F(
            "notes_app",
            ("notes app", "note-taking app", "notes", "note app", "note taking app"),
            (
                "{keep} (?:my |their |all my |all their )?notes in",
                "{take} notes in",
                "{write} notes in",
                "{take} notes with",
                *_T,
            ),
            vocab=NOTES_APPS,
        ),
        _F(
            "password_manager",
            ("password manager", "passwords", "password vault", "password app"),
            ("{store} (?:my |their )?passwords in", "{keep} (?:my |their )?passwords in", *_T),
            vocab=PASSWORD_MANAGERS,
        ),
        _F(
            "hair_colour",
            ("hair colour", "hair color", "hair"),
            ("{have} {v} hair", "{dye} (?:my|their|his|her) hair", "{go} {v} hair"),
        ),
        _F(
            "watch",
            ("watch", "smartwatch", "wristwatch"),
            ("{wear} a", "{wear} an", "{wear}"),
            vocab=WATCHES,
        ),
        _F("mentor", ("mentor", "coach"), ("{be} mentored by", "{be} coached by"), kind="name"),
        _F(
            "project",
            ("project", "current project", "main project"),
            (
                "{work} on project",
                "{lead} project",
                "{be} (?:re)?assigned to project",
                "{move} to project",
                "{join} project",
                "{run} project",
                "{be} on project",
                "{be} working on project",
                "{own} project",
            ),
            kind="name",
        ),
        _F(
            "landlord",
            ("landlord", "landlady", "letting agent", "property manager", "letting agency"),
            ("{rent} from", "{rent} (?:my|their|a) (?:flat|apartment|place|house) from"),
            kind="name",
        ),
        _F(
            "football_team",
            ("football team", "club", "soccer team", "football club", "team i support"),
            (
                "{support}",
                "{root} for",
                "{cheer} for",
                "{switch} allegiance to",
                "{be} an? {v} fan",
                "{be} an? {v} supporter",
                "{follow}",
            ),
            kind="name",
        ),
        _F(
            "cuisine",
            ("cuisine", "favourite cuisine", "favourite food", "type of food", "food"),
            ("{be} all about {v} (?:food|cuisine)",),
        ),
        _F("cloud_storage", ("cloud storage", "storage provider")),
        _F("shoe_size", ("shoe size",), kind="number"),
        _F("blood_type", ("blood type",)),
        _F("favourite_colour", ("favourite colour", "colour", "colours")),
        _F(
            "sport",
            ("sport", "main sport", "sports"),
            ("{play} {v} competitively", "{play}", "{take} up", "{compete} in", "{do}"),
            vocab=SPORTS,
        ),
        _F(
            "pets",
            ("pet", "pets", "animals", "animal"),
            (
                "{have}",
                "{own}",
                "{adopt}",
                "{get}",
                "{have} got",
                "{be} a proud owner of",
                "{rescue}",
            ),
            multi_valued=True,
            vocab=PETS,
        ),
        _F(
            "children",
            ("children", "kids", "kid", "child", "son", "daughter", "sons", "daughters"),
            ("{have}", "{be} a (?:mom|mum|dad|parent|father|mother) (?:of|to)"),
            multi_valued=True,
            vocab=frozenset(
                {"son", "daughter", "kid", "child", "children", "baby", "twins", "stepson"}
            ),
        ),
        _F("allergies", ("allergies", "allergy"), ("{be} allergic to",), multi_valued=True),
        _F(
            "instruments",
            ("instrument", "instruments"),
            ("{play} the", "{play}", "{can} play the", "{learn} the"),
            multi_valued=True,
            vocab=INSTRUMENTS,
        ),
        _F(
            "hobbies",
            ("hobby", "hobbies", "pastime", "pastimes", "interests", "interest"),
            (
                "{be} into",
                "{enjoy}",
                "{love}",
                "{like}",
                "{take} up",
                "{do} {v} for fun",
                "{do} {v} in (?:my|their) (?:free|spare) time",
                "{get} into",
            ),
            multi_valued=True,
        ),
        _F("likes", ("likes",), ("{like}", "{love}", "{enjoy}", "{be} a fan of", "{adore}"), True),
        _F("dislikes", ("dislikes",), ("{dislike}", "{hate}", "{detest}"), True),
    )
}
"""The attribute families, by canonical relation."""


def _fold(words: list[str]) -> list[str]:
    return [_SPELLING.get(w, w) for w in words]


_BY_LABEL: dict[str, str] = {}
for _fam in FAMILIES.values():
    for _label in (_fam.name.replace("_", " "), *_fam.labels):
        _BY_LABEL.setdefault(" ".join(_fold(_WORD.findall(_label))), _fam.name)
_BY_VERB: dict[str, str] = {}
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
for _ambiguous in ("have", "has", "had", "like", "likes", "love", "enjoy", "get", "got", "play"):
    _BY_VERB.pop(_ambiguous, None)  # "user.like" names no one family


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


def canonical_relation(relation: str) -> str | None:
    """The canonical relation of a key's relation (``lives_in`` -> ``home_city``), or None.

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
    if not words:
        return None
    family = family_of_label(" ".join(words))
    if family is not None:
        return family.name
    if words[0] in _FAVOURITE and len(words) > 1:
        return "favourite_" + "_".join(words[1:])
    verb = " ".join(w for w in words if w not in ("now", "currently", "also"))
    return _BY_VERB.get(verb)
