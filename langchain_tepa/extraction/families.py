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
    "wake": "wake|wakes|woke|woken|waking",
    "teach": "teach|teaches|taught|teaching",
    "study": "study|studies|studied|studying",
    "begin": "begin|begins|began|begun|beginning",
    "leave": "leave|leaves|left|leaving",
    "hate": "hate|hates|hated|hating",
    "shop": "shop|shops|shopped|shopping",
    "sit": "sit|sits|sat|sitting",
    "eat": "eat|eats|ate|eaten|eating",
    "write": "write|writes|wrote|written|writing",
    "use": "use|uses|used|using",
}


def inflect(lemma: str) -> str:
    """A regex alternation of the forms of an English verb (``live|lives|lived|living``).

    Example:
        >>> inflect("move")
        'move|moves|moved|moving'
    """
    if lemma in _IRREGULAR:
        return _IRREGULAR[lemma]
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


_PETS = frozenset(
    [
        "dog",
        "dogs",
        "cat",
        "cats",
        "puppy",
        "kitten",
        "parrot",
        "rabbit",
        "bunny",
        "hamster",
        "goldfish",
        "fish",
        "turtle",
        "tortoise",
        "snake",
        "lizard",
        "horse",
        "pony",
        "bird",
        "budgie",
        "canary",
        "guinea",
        "ferret",
        "gecko",
        "chinchilla",
        "hedgehog",
        "chicken",
        "chickens",
        "rat",
        "mouse",
        "iguana",
        "axolotl",
        "pig",
    ]
)
_INSTRUMENTS = frozenset(
    [
        "guitar",
        "piano",
        "violin",
        "drums",
        "cello",
        "flute",
        "saxophone",
        "sax",
        "trumpet",
        "bass",
        "ukulele",
        "harp",
        "clarinet",
        "keyboard",
        "banjo",
        "accordion",
        "harmonica",
        "viola",
        "trombone",
        "oboe",
        "mandolin",
    ]
)
_SPORTS = frozenset(
    [
        "tennis",
        "football",
        "soccer",
        "basketball",
        "golf",
        "volleyball",
        "badminton",
        "squash",
        "cricket",
        "rugby",
        "hockey",
        "baseball",
        "padel",
        "handball",
        "softball",
        "pickleball",
        "lacrosse",
        "polo",
        "table",
    ]
)
_NATURAL_LANGUAGES = frozenset(
    [
        "english",
        "french",
        "spanish",
        "german",
        "italian",
        "portuguese",
        "dutch",
        "polish",
        "russian",
        "ukrainian",
        "czech",
        "slovak",
        "hungarian",
        "romanian",
        "greek",
        "turkish",
        "arabic",
        "hebrew",
        "persian",
        "farsi",
        "hindi",
        "urdu",
        "bengali",
        "punjabi",
        "tamil",
        "telugu",
        "mandarin",
        "cantonese",
        "chinese",
        "japanese",
        "korean",
        "vietnamese",
        "thai",
        "indonesian",
        "malay",
        "tagalog",
        "swahili",
        "swedish",
        "norwegian",
        "danish",
        "finnish",
        "icelandic",
        "catalan",
        "basque",
        "galician",
        "irish",
        "welsh",
        "serbian",
        "croatian",
        "bulgarian",
        "lithuanian",
        "latvian",
        "estonian",
        "esperanto",
        "latin",
        "yiddish",
        "amharic",
    ]
)
_PROGRAMMING = frozenset(
    [
        "python",
        "rust",
        "go",
        "golang",
        "java",
        "javascript",
        "typescript",
        "kotlin",
        "swift",
        "ruby",
        "php",
        "scala",
        "haskell",
        "elixir",
        "erlang",
        "julia",
        "dart",
        "lua",
        "perl",
        "zig",
        "clojure",
        "ocaml",
        "c",
        "c++",
        "c#",
        "f#",
        "fortran",
        "cobol",
        "matlab",
        "r",
        "nim",
        "crystal",
        "elm",
        "racket",
        "lisp",
        "scheme",
        "solidity",
        "groovy",
    ]
)
_BROWSERS = frozenset(
    ["chrome", "firefox", "safari", "edge", "brave", "arc", "opera", "vivaldi", "chromium"]
)
_SYSTEMS = frozenset(
    [
        "linux",
        "windows",
        "macos",
        "mac",
        "ubuntu",
        "fedora",
        "debian",
        "arch",
        "nixos",
        "chromeos",
        "freebsd",
        "mint",
    ]
)
_EDITORS = frozenset(
    [
        "vs",
        "vscode",
        "vim",
        "neovim",
        "emacs",
        "intellij",
        "pycharm",
        "sublime",
        "zed",
        "cursor",
        "atom",
        "nano",
        "helix",
        "webstorm",
        "xcode",
        "eclipse",
        "goland",
        "clion",
        "rider",
    ]
)
_EMAIL = frozenset(
    [
        "gmail",
        "outlook",
        "protonmail",
        "proton",
        "fastmail",
        "yahoo",
        "icloud",
        "hey",
        "tutanota",
        "zoho",
        "hotmail",
    ]
)
_THEMES = frozenset(
    [
        "dark",
        "light",
        "solarized",
        "monokai",
        "dracula",
        "nord",
        "gruvbox",
        "high-contrast",
        "system",
    ]
)

_F = Family
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        _F(
            "home_city",
            (
                "home city",
                "city",
                "city of residence",
                "place of residence",
                "residence",
                "location",
                "home",
                "home base",
                "base",
                "current location",
                "living city",
                "where user lives",
                "lives in",
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
                "{be} living in",
                "{make} (?:my|their|his|her) home in",
                "{stay} in",
            ),
            kind="name",
            changes=("move", "relocate", "settle"),
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
                "job at",
                "firm",
                "organisation",
                "organization",
                "works at",
                "works for",
            ),
            (
                "{work} at",
                "{work} for",
                "{work} with",
                "{be} employed at",
                "{be} employed by",
                "{be} hired by",
                "{be} working at",
                "{join}",
                "{get} a job at",
                "{get} a new job at",
                "{start} a new job at",
                "{start} working at",
                "{start} at",
                "{switch} jobs to",
                "{move} jobs to",
                "{be} now at",
            ),
            kind="name",
            changes=("join", "get", "start", "switch"),
        ),
        _F(
            "manager",
            ("manager", "boss", "supervisor", "line manager", "team lead", "direct manager"),
            ("{report} to", "{be} managed by", "{be} supervised by"),
            kind="name",
        ),
        _F(
            "occupation",
            ("occupation", "job", "job title", "title", "role", "position", "profession"),
            ("{work} as", "{be} promoted to", "{become}", "{be} employed as"),
            changes=("become",),
        ),
        _F("team", ("team", "department", "division", "squad"), ("{be} on the",)),
        _F(
            "diet",
            ("diet", "dietary preference", "diet type", "eating style", "way of eating"),
            vocab=DIETS,
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
            ),
            ("{be} married to", "{be} dating", "{be} engaged to", "{be} in a relationship with"),
            kind="name",
        ),
        _F("relationship_status", ("relationship status", "marital status")),
        _F(
            "phone_number",
            ("phone number", "mobile number", "cell number", "telephone number", "number"),
            ("{be} reachable at", "{can} be reached at"),
            kind="number",
        ),
        _F("phone", ("phone", "smartphone", "mobile phone", "cell phone", "handset")),
        _F("email_address", ("email", "email address", "e-mail", "e-mail address", "mail")),
        _F(
            "email_provider",
            ("email provider", "mail provider", "email service", "email client", "mail client"),
            vocab=_EMAIL,
        ),
        _F("car", ("car", "vehicle", "ride", "automobile"), ("{drive}",), changes=("buy",)),
        _F(
            "editor_theme",
            ("editor theme", "theme", "color scheme", "colour scheme", "ide theme", "mode"),
            vocab=_THEMES,
        ),
        _F("editor", ("editor", "code editor", "text editor", "ide"), vocab=_EDITORS),
        _F(
            "programming_language",
            ("programming language", "coding language", "language of choice"),
            ("{code} in", "{program} in", "{write} code in", "{develop} in"),
            vocab=_PROGRAMMING,
        ),
        _F("language", ("language", "preferred language", "response language")),
        _F(
            "native_language",
            ("native language", "mother tongue", "first language"),
            vocab=_NATURAL_LANGUAGES,
        ),
        _F(
            "languages",
            ("languages", "languages spoken", "spoken languages", "spoken language"),
            ("{speak}", "{be} fluent in"),
            multi_valued=True,
            vocab=_NATURAL_LANGUAGES,
        ),
        _F(
            "timezone",
            ("timezone", "time zone", "tz"),
            ("{be} in the", "{be} on"),
        ),
        _F(
            "gym",
            ("gym", "fitness club", "gym membership", "health club"),
            ("{work} out at", "{train} at", "{go} to the gym at", "{exercise} at"),
            kind="name",
        ),
        _F("bank", ("bank", "banking provider"), ("{bank} with", "{bank} at"), kind="name"),
        _F("browser", ("browser", "web browser"), vocab=_BROWSERS),
        _F("operating_system", ("operating system", "os"), vocab=_SYSTEMS),
        _F(
            "school",
            ("school", "university", "college", "alma mater", "uni"),
            ("{study} at", "{attend}", "{go} to school at", "{be} enrolled at"),
            kind="name",
        ),
        _F("major", ("major", "field of study", "degree", "subject"), ("{major} in",)),
        _F("address", ("address", "home address", "street address", "postal address")),
        _F("neighbourhood", ("neighbourhood", "neighborhood", "district", "area")),
        _F("commute", ("commute", "mode of transport", "way to work"), ("{commute} by",)),
        _F("airline", ("airline", "carrier"), ("{fly} with",), kind="name"),
        _F("supermarket", ("supermarket", "grocery store", "grocer"), ("{shop} at",)),
        _F("internet_provider", ("internet provider", "isp", "broadband provider")),
        _F("mobile_carrier", ("mobile carrier", "phone carrier", "mobile provider", "phone plan")),
        _F("plan", ("plan", "subscription", "subscription plan", "tier", "subscription tier")),
        _F("doctor", ("doctor", "gp", "family doctor", "physician"), kind="name"),
        _F("dentist", ("dentist",), kind="name"),
        _F("pronouns", ("pronouns",)),
        _F("nickname", ("nickname",)),
        _F("name", ("name", "full name", "first name")),
        _F("age", ("age",), ("{turn}",), kind="number"),
        _F("birthday", ("birthday", "date of birth", "birth date", "dob"), ("{be} born on",)),
        _F("units", ("units", "unit system", "measurement system", "measurement units")),
        _F("bedtime", ("bedtime",), ("{go} to bed at", "{go} to sleep at")),
        _F("wake_time", ("wake-up time", "wake up time", "wake time"), ("{wake} up at",)),
        _F("coffee", ("coffee", "coffee order", "coffee preference", "coffee drink")),
        _F("cloud_provider", ("cloud provider", "cloud")),
        _F("shoe_size", ("shoe size",), kind="number"),
        _F("blood_type", ("blood type",)),
        _F("favourite_colour", ("favourite colour", "colour")),
        _F(
            "pets",
            ("pet", "pets"),
            ("{have}", "{own}", "{adopt}", "{get}", "{have} got", "{be} a proud owner of"),
            multi_valued=True,
            vocab=_PETS,
        ),
        _F(
            "children",
            ("children", "kids", "kid", "child", "son", "daughter", "sons", "daughters"),
            ("{have}",),
            multi_valued=True,
            vocab=frozenset({"son", "daughter", "kid", "child", "baby", "twins", "stepson"}),
        ),
        _F("allergies", ("allergies", "allergy"), ("{be} allergic to",), multi_valued=True),
        _F(
            "hobbies",
            ("hobby", "hobbies", "pastime", "pastimes", "interests", "interest"),
            ("{be} into", "{enjoy}", "{love}", "{like}"),
            multi_valued=True,
        ),
        _F("likes", ("likes",), ("{like}", "{love}", "{enjoy}", "{be} a fan of"), True),
        _F("dislikes", ("dislikes",), ("{dislike}", "{hate}", "{detest}"), True),
        _F(
            "instruments",
            ("instrument", "instruments"),
            ("{play} the", "{play}"),
            multi_valued=True,
            vocab=_INSTRUMENTS,
        ),
        _F("sports", ("sport", "sports"), ("{play}",), multi_valued=True, vocab=_SPORTS),
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
                _BY_VERB.setdefault((_form + _m.group(2)).strip(), _fam.name)
for _ambiguous in ("have", "has", "had", "like", "likes", "love", "enjoy", "get", "got", "play"):
    _BY_VERB.pop(_ambiguous, None)  # "user.like" names no one family


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
    kept = [w for w in words if w not in MARKERS and w not in _FAVOURITE] or words
    name = _BY_LABEL.get(" ".join(kept))
    if name is None and words and words[0] not in _FAVOURITE:
        name = _BY_LABEL.get(" ".join(w for w in words if w not in MARKERS))
    return FAMILIES[name] if name is not None else None


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
