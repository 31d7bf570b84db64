"""Attributes of a user: the canonical key of each, the nouns that name it, how many values.

An attribute *family* is one thing a person has (home city, employer, diet, pets, ...): its
canonical relation is the last segment of its key (``user.home_city``), its labels are the noun
phrases that name it ("home city", "city of residence"), and it holds one value or several
(``multi_valued``: pets, languages, hobbies, allergies, ...). :func:`family_of_label` maps a noun
phrase and :func:`canonical_relation` any key's relation (``lives_in``, ``current_city``,
``favorite_color``) onto a family, so keys written by different extractors meet under one key.

The table is deliberately small: it names attributes, it does not guess them. The sentences that
state them are read by :mod:`langchain_tepa.extraction.user`.

Example:
    >>> family_of_label("City of residence").name
    'home_city'
    >>> canonical_relation("lives_in"), canonical_relation("favorite_color")
    ('home_city', 'favourite_colour')
    >>> FAMILIES["pets"].multi_valued
    True
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from langchain_tepa.extraction.lexicon import _word_set

__all__ = [
    "FAMILIES",
    "PEOPLE",
    "PETS",
    "Family",
    "canonical_relation",
    "family_of_label",
    "key_family",
]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Family:
    """One attribute of a person.

    Attributes:
        name: The canonical relation (the key's last segment), e.g. ``"home_city"``.
        labels: Noun phrases that name it ("home city", "location"), lower case.
        multi_valued: Whether a person holds several values at once (pets, hobbies).
        kind: What a value looks like: ``"name"`` (capitalised: a city, a company),
            ``"email"``, ``"number"``, ``"any"``.

    Example:
        >>> FAMILIES["employer"].labels[:2]
        ('company', 'workplace')
    """

    name: str
    labels: tuple[str, ...] = ()
    multi_valued: bool = False
    kind: str = "any"


# name, labels (";"), kind, multi-valued
_ROWS = (
    (
        "home_city",
        "city;current city;city of residence;place of residence;residence;home;location",
        "name",
    ),
    ("neighbourhood", "neighbourhood;neighborhood;district;borough", "name"),
    ("origin", "hometown;home town;country of origin", "name"),
    ("birthplace", "place of birth;city of birth", "name"),
    ("home_country", "country;country of residence;home country", "name"),
    ("address", "home address;street address;postal address", "any"),
    ("employer", "company;workplace;place of work;firm;organisation;organization", "name"),
    ("manager", "boss;line manager;supervisor;team lead", "name"),
    ("occupation", "job;job title;title;profession;line of work;position;role", "any"),
    ("team", "department;work team", "any"),
    ("school", "university;college;alma mater", "name"),
    ("diet", "dietary preference;eating style", "any"),
    ("partner", "spouse;wife;husband;girlfriend;boyfriend;fiance;fiancee", "name"),
    ("name", "full name;first name;preferred name;nickname", "name"),
    ("pronouns", "", "any"),
    ("age", "", "number"),
    ("birthday", "date of birth;birth date", "any"),
    ("email_address", "email;e-mail;e-mail address", "email"),
    ("phone_number", "mobile number;cell number;telephone number", "number"),
    ("phone", "smartphone;mobile phone;cell phone", "name"),
    ("car", "vehicle", "name"),
    ("laptop", "computer;work laptop", "name"),
    ("watch", "smartwatch;wristwatch", "name"),
    ("browser", "web browser", "name"),
    ("editor", "code editor;text editor;ide", "name"),
    ("editor_theme", "theme;colour scheme;color scheme;colour theme;color theme", "any"),
    ("operating_system", "os", "name"),
    ("shell", "login shell;default shell", "any"),
    ("programming_language", "coding language;main language", "name"),
    ("email_client", "mail client;email app;mail app", "name"),
    ("music_app", "music service;music streaming service;streaming service", "name"),
    ("notes_app", "note-taking app;note taking app", "name"),
    ("password_manager", "", "name"),
    ("cloud_provider", "hosting provider;cloud platform;cloud", "name"),
    ("database", "main database", "name"),
    ("keyboard_layout", "", "any"),
    ("native_language", "mother tongue;first language", "name"),
    ("reply_language", "response language;answer language", "name"),
    ("timezone", "time zone;tz", "any"),
    ("gym", "fitness club;health club", "name"),
    ("bank", "banking provider", "name"),
    ("mobile_carrier", "carrier;phone carrier;mobile provider;mobile network", "name"),
    ("internet_provider", "isp;broadband provider", "name"),
    ("health_insurer", "health insurance;insurer;insurance provider", "name"),
    ("doctor", "gp;family doctor;physician", "name"),
    ("dentist", "", "name"),
    ("airline", "", "name"),
    ("supermarket", "grocery store", "name"),
    ("landlord", "landlady;letting agent", "name"),
    ("mentor", "coach", "name"),
    ("project", "current project", "any"),
    ("football_team", "football club;soccer team;club", "name"),
    ("commute", "mode of transport;way to work", "any"),
    ("coffee", "coffee order", "any"),
    ("cuisine", "favourite cuisine;favourite food", "any"),
    ("sport", "main sport", "any"),
    ("hair_colour", "hair color", "any"),
    ("favourite_colour", "colour;color", "any"),
    ("wake_time", "wake-up time;wake up time;alarm time", "number"),
    ("bedtime", "", "number"),
    ("units", "unit system;measurement system", "any"),
    ("relationship_status", "marital status", "any"),
    ("shoe_size", "", "number"),
    ("blood_type", "", "any"),
)
_MULTI = (
    ("pets", "pet;animals"),
    ("children", "kids;kid;child"),
    ("allergies", "allergy"),
    ("languages", "languages spoken;spoken languages"),
    ("hobbies", "hobby;pastime;pastimes;interests"),
    ("instruments", "instrument"),
    ("likes", ""),
    ("dislikes", ""),
)

FAMILIES: dict[str, Family] = {
    **{
        name: Family(name, tuple(x for x in labels.split(";") if x), False, kind)
        for name, labels, kind in _ROWS
    },
    **{
        name: Family(name, tuple(x for x in labels.split(";") if x), True)
        for name, labels in _MULTI
    },
}
"""The attribute families, by canonical relation."""

PEOPLE = _word_set(
    "sister brother mother mom mum father dad son daughter wife husband partner girlfriend "
    "boyfriend fiance fiancee spouse friend roommate flatmate cousin aunt uncle grandmother "
    "grandfather grandma grandpa niece nephew boss manager colleague coworker neighbour "
    "neighbor parents kid kids child children baby landlord teammate family"
)
"""People a user speaks about: another subject, so another key (``user.sister.home_city``)."""

PETS = _word_set("dog cat puppy kitten pet parrot rabbit hamster horse fish bird")
"""Animals a user speaks about: another subject too (``My dog is on a raw diet``)."""

# Words around an attribute name that do not change which attribute it is.
_MARKERS = _word_set(
    "current currently new present latest updated actual preferred main primary usual default "
    "choice my the a an user users s is of our their his her everyday regular"
)
_FAVOURITE = frozenset({"favourite", "favorite", "fave", "fav"})
_SPELLING = {"color": "colour", "flavor": "flavour", "neighborhood": "neighbourhood"}
# Relations named by a verb (keys other extractors write: ``user.lives_in``).
_VERB_KEYS = {
    "home_city": "live_in lives_in living_in based_in moved_to relocated_to resides_in",
    "employer": "work_at works_at work_for works_for employed_at employed_by works_at_company",
    "occupation": "works_as work_as job_title",
    "languages": "speak speaks languages_spoken",
    "partner": "married_to",
    "allergies": "allergic_to",
    "school": "studies_at study_at",
}
_BY_VERB = {verb: name for name, verbs in _VERB_KEYS.items() for verb in verbs.split()}


def _fold(words: list[str]) -> list[str]:
    return [_SPELLING.get(w, w) for w in words]


_BY_LABEL: dict[str, str] = {}
for _fam in FAMILIES.values():
    for _label in (_fam.name.replace("_", " "), *_fam.labels):
        _BY_LABEL.setdefault(" ".join(_fold(_WORD.findall(_label))), _fam.name)


def family_of_label(label: str) -> Family | None:
    """The family a noun phrase names ("home city", "Preferred editor theme"), or None.

    Markers that do not change the attribute (``current``, ``new``, ``preferred``, ``my``,
    ``user's``) are ignored; ``favourite X`` names a family only when ``favourite X`` or ``X``
    is one of its labels ("favourite colour", not "favourite tea").

    Example:
        >>> family_of_label("User's current employer").name
        'employer'
        >>> family_of_label("favourite tea") is None
        True
    """
    words = _fold(_WORD.findall(label.casefold()))
    kept = [w for w in words if w not in _MARKERS]
    name = _BY_LABEL.get(" ".join(words)) or _BY_LABEL.get(" ".join(kept))
    if name is None and kept and kept[0] in _FAVOURITE:
        name = _BY_LABEL.get(" ".join(kept[1:]))
    return FAMILIES[name] if name is not None else None


@functools.lru_cache(maxsize=4096)
def canonical_relation(relation: str) -> str | None:
    """The canonical relation of a key's relation (``lives_in`` -> ``home_city``), or None.

    Example:
        >>> canonical_relation("current_city"), canonical_relation("favourite_pizza")
        ('home_city', None)
    """
    low = relation.casefold()
    if low in FAMILIES:
        return low
    if low in _BY_VERB:
        return _BY_VERB[low]
    family = family_of_label(low.replace("_", " "))
    return family.name if family is not None else None


def key_family(key: str) -> Family | None:
    """The family of a key's last segment (``user.languages`` -> languages), or None.

    Example:
        >>> key_family("user.moved_to").name, key_family("france.capital")
        ('home_city', None)
    """
    name = canonical_relation(key.rsplit(".", 1)[-1])
    return FAMILIES[name] if name is not None else None
