"""Attribute families, part 2: the things a person uses and likes, and the multi-valued attributes.

Rows of :data:`langchain_tepa.extraction.families.FAMILIES`: ``(name, labels, verbs, options)``,
labels and verbs separated by ``;`` (see :class:`~langchain_tepa.extraction.families.Family`).

Example:
    >>> ROWS[0][0]
    'laptop'
"""

from __future__ import annotations

from typing import Any

from langchain_tepa.extraction.vocabularies import (
    CLOUDS,
    COFFEES,
    DATABASES,
    INSTRUMENTS,
    KEYBOARD_LAYOUTS,
    LAPTOPS,
    NOTES_APPS,
    PASSWORD_MANAGERS,
    PETS,
    SPORTS,
    WATCHES,
)

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    (
        "laptop",
        "laptop;computer;notebook;machine;work laptop",
        "{work} on a;{upgrade} to;{have};{own};{buy};{get};{use}",
        {"vocab": LAPTOPS},
    ),
    (
        "plan",
        "plan;subscription;subscription plan;tier;subscription tier",
        "",
        {},
    ),
    (
        "doctor",
        "doctor;gp;family doctor;physician;general practitioner",
        (
            "{see} {v} for (?:checkups|check-ups|appointments);{register} with;"
            "{be} registered with;{be} a patient of"
        ),
        {"kind": "name"},
    ),
    (
        "dentist",
        "dentist",
        "",
        {"kind": "name"},
    ),
    (
        "pronouns",
        "pronouns",
        "",
        {},
    ),
    (
        "name",
        "name;full name;first name;preferred name;nickname",
        (
            "{go} by;{prefer} the name;{prefer} to be called;{be} called;"
            "{want} to be called;{like} to be called"
        ),
        {"kind": "name"},
    ),
    (
        "age",
        "age",
        "{turn}",
        {"kind": "number"},
    ),
    (
        "birthday",
        "birthday;date of birth;birth date;dob",
        "{be} born on",
        {},
    ),
    (
        "units",
        "units;unit system;measurement system;measurement units",
        "",
        {},
    ),
    (
        "bedtime",
        "bedtime",
        "{go} to bed at;{go} to sleep at",
        {},
    ),
    (
        "wake_time",
        "wake-up time;wake up time;wake time;alarm;alarm time",
        "{wake} up at;{wake} at;{get} up at;{rise} at",
        {},
    ),
    (
        "coffee",
        "coffee;coffee order;coffee preference;coffee drink;usual coffee",
        "{order};{drink};{get};{have};{take} (?:my|their) coffee",
        {"vocab": COFFEES},
    ),
    (
        "cloud_provider",
        "cloud provider;cloud;hosting provider;host;hosting;cloud platform",
        (
            "{host} (?:everything|it|our \\w+|their \\w+|services|apps?) on;"
            "{deploy} to;{deploy} on;{run} on;{be} hosted on"
        ),
        {"vocab": CLOUDS},
    ),
    (
        "database",
        "database;db;datastore;data store;main database",
        "{store} (?:data|everything|its data|their data) in;{run} on",
        {"vocab": DATABASES},
    ),
    (
        "keyboard_layout",
        "keyboard layout;layout;keyboard;typing layout",
        ("{type} on;{type} in;{type} with;{retrain} (?:myself|themselves) on;{learn} to type on"),
        {"vocab": KEYBOARD_LAYOUTS},
    ),
    (
        "health_insurer",
        (
            "health insurer;health insurance;insurer;insurance;insurance provider;"
            "health insurance provider;health plan"
        ),
        (
            "{be} insured (?:by|with|through);"
            "{have} health insurance (?:with|from);"
            "{get} health insurance (?:with|from)"
        ),
        {"kind": "name"},
    ),
    (
        "notes_app",
        "notes app;note-taking app;notes;note app;note taking app",
        (
            "{keep} (?:my |their |all my |all their )?notes in;{take} notes in;"
            "{write} notes in;{take} notes with"
        ),
        {"vocab": NOTES_APPS},
    ),
    (
        "password_manager",
        "password manager;passwords;password vault;password app",
        ("{store} (?:my |their )?passwords in;{keep} (?:my |their )?passwords in"),
        {"vocab": PASSWORD_MANAGERS},
    ),
    (
        "hair_colour",
        "hair colour;hair color;hair",
        "{have} {v} hair;{dye} (?:my|their|his|her) hair;{go} {v} hair",
        {},
    ),
    (
        "watch",
        "watch;smartwatch;wristwatch",
        "{wear} a;{wear} an;{wear}",
        {"vocab": WATCHES},
    ),
    (
        "mentor",
        "mentor;coach",
        "{be} mentored by;{be} coached by",
        {"kind": "name"},
    ),
    (
        "project",
        "project;current project;main project",
        (
            "{work} on project;{lead} project;{be} (?:re)?assigned to project;"
            "{move} to project;{join} project;{run} project;{be} on project;"
            "{be} working on project;{own} project"
        ),
        {"kind": "name"},
    ),
    (
        "landlord",
        "landlord;landlady;letting agent;property manager;letting agency",
        ("{rent} from;{rent} (?:my|their|a|the) (?:flat|apartment|place|house) from"),
        {"kind": "name"},
    ),
    (
        "football_team",
        "football team;club;soccer team;football club;team i support",
        (
            "{support};{root} for;{cheer} for;{switch} allegiance to;"
            "{be} an? {v} fan;{be} an? {v} supporter;{follow}"
        ),
        {"kind": "name"},
    ),
    (
        "cuisine",
        "cuisine;favourite cuisine;favourite food;type of food;food;cooking",
        "{be} all about {v} (?:food|cuisine)",
        {},
    ),
    (
        "cloud_storage",
        "cloud storage;storage provider",
        "",
        {},
    ),
    (
        "shoe_size",
        "shoe size",
        "",
        {"kind": "number"},
    ),
    (
        "blood_type",
        "blood type",
        "",
        {},
    ),
    (
        "favourite_colour",
        "favourite colour;colour;colours",
        "",
        {},
    ),
    (
        "sport",
        "sport;main sport;sports",
        "{play} {v} competitively;{play};{take} up;{compete} in;{do}",
        {"vocab": SPORTS},
    ),
    (
        "pets",
        "pet;pets;animals;animal",
        "{have};{own};{adopt};{get};{have} got;{be} a proud owner of;{rescue}",
        {"multi_valued": True, "vocab": PETS},
    ),
    (
        "children",
        "children;kids;kid;child;son;daughter;sons;daughters",
        "{have};{be} a (?:mom|mum|dad|parent|father|mother) (?:of|to)",
        {
            "multi_valued": True,
            "vocab": frozenset(
                {"baby", "child", "children", "daughter", "kid", "son", "stepson", "twins"}
            ),
        },
    ),
    (
        "allergies",
        "allergies;allergy",
        "{be} allergic to",
        {"multi_valued": True},
    ),
    (
        "instruments",
        "instrument;instruments",
        "{play} the;{play};{can} play the;{learn} the",
        {"multi_valued": True, "vocab": INSTRUMENTS},
    ),
    (
        "hobbies",
        "hobby;hobbies;pastime;pastimes;interests;interest",
        (
            "{be} into;{enjoy};{love};{like};{take} up;{do} {v} for fun;"
            "{do} {v} in (?:my|their) (?:free|spare) time;{get} into"
        ),
        {"multi_valued": True},
    ),
    (
        "likes",
        "likes",
        "{like};{love};{enjoy};{be} a fan of;{adore}",
        {"multi_valued": True},
    ),
    (
        "dislikes",
        "dislikes",
        "{dislike};{hate};{detest}",
        {"multi_valued": True},
    ),
)
