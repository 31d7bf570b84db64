"""Attribute families, part 1: where a person lives and works, who with, their habits.

Rows of :data:`langchain_tepa.extraction.families.FAMILIES`: ``(name, labels, verbs, options)``,
labels and verbs separated by ``;`` (see :class:`~langchain_tepa.extraction.families.Family`).

Example:
    >>> ROWS[0][0]
    'home_city'
"""

from __future__ import annotations

from typing import Any

from langchain_tepa.extraction.lexicon import DIETS
from langchain_tepa.extraction.vocabularies import (
    AIRLINES,
    BROWSERS,
    CARRIERS,
    CARS,
    EDITORS,
    EMAIL_CLIENTS,
    MUSIC_APPS,
    NATURAL_LANGUAGES,
    PHONES,
    PROGRAMMING_LANGUAGES,
    SHELLS,
    SYSTEMS,
    THEMES,
)

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    (
        "home_city",
        (
            "home city;city;current city;city of residence;place of residence;"
            "residence;location;home;home base;base;town;hometown now"
        ),
        (
            "{live} in;{move} to;{move} back to;{move} over to;{relocate} to;"
            "{reside} in;{be} based in;{be} based out of;{settle} in;"
            "{settle} down in;{make} (?:my|their|his|her) home in;{stay} in"
        ),
        {"kind": "name", "changes": ("move", "relocate", "settle")},
    ),
    (
        "neighbourhood",
        (
            "neighbourhood;neighborhood;area;district;part of town;borough;"
            "quarter;flat;apartment;suburb"
        ),
        ("{move} across town to;{live} in the {v} (?:area|district|neighbou?rhood)"),
        {"changes": ("move",)},
    ),
    (
        "origin",
        "origin;hometown;home town;country of origin",
        "{grow} up in",
        {},
    ),
    (
        "birthplace",
        "birthplace;place of birth;city of birth",
        "",
        {"kind": "name"},
    ),
    (
        "home_country",
        "country;country of residence;home country",
        "",
        {"kind": "name"},
    ),
    (
        "employer",
        ("employer;company;workplace;place of work;work;firm;organisation;organization;job at"),
        (
            "{work} at;{work} for;{be} employed at;{be} employed by;{be} hired by;"
            "{join};{get} a job at;{get} a new job at;{have} a job at;"
            "{have} a new job at;{start} a new job at;{start} a job at;"
            "{start} working at;{start} at;{switch} jobs to;{move} jobs to"
        ),
        {"kind": "name", "changes": ("join", "get", "start", "switch")},
    ),
    (
        "manager",
        ("manager;boss;supervisor;line manager;team lead;direct manager;team leader;lead"),
        "{report} to;{be} managed by;{be} supervised by;{work} under",
        {"kind": "name"},
    ),
    (
        "occupation",
        "occupation;job;job title;title;role;position;profession;line of work",
        (
            "{work} as;{be} promoted to;{get} promoted to;{become};"
            "{be} employed as;{be} now working as"
        ),
        {"changes": ("become", "get")},
    ),
    (
        "team",
        "team;department;division;squad;work team",
        ("{be} on the {v} team;{work} (?:in|on|for) the {v} team;{join} the {v} team"),
        {},
    ),
    (
        "diet",
        "diet;dietary preference;diet type;eating style;way of eating",
        "",
        {"vocab": DIETS, "changes": ("go", "become", "switch")},
    ),
    (
        "partner",
        (
            "partner;spouse;wife;husband;girlfriend;boyfriend;fiance;fiancee;"
            "significant other;partner name;partner's name;other half"
        ),
        (
            "{be} married to;{be} dating;{date};{be} engaged to;"
            "{be} in a relationship with;{be} with;{be} together with;{be} seeing;"
            "{be} together with"
        ),
        {"kind": "name"},
    ),
    (
        "relationship_status",
        "relationship status;marital status",
        "",
        {},
    ),
    (
        "phone_number",
        "phone number;mobile number;cell number;telephone number;number",
        "{be} reachable at;{can} be reached at",
        {"kind": "number"},
    ),
    (
        "phone",
        ("phone;smartphone;mobile phone;cell phone;handset;mobile;phone brand;phone model"),
        "{replace} (?:my|their|his|her) phone with",
        {"vocab": PHONES},
    ),
    (
        "email_address",
        "email;email address;e-mail;e-mail address",
        "",
        {},
    ),
    (
        "email_client",
        (
            "email client;mail client;email app;mail app;email provider;"
            "mail provider;email service;mail program;email program"
        ),
        (
            "{read} (?:my |their |his |her )?(?:e-?)?mail (?:in|on|with|through);"
            "{check} (?:my |their |his |her )?(?:e-?)?mail (?:in|on|with);"
            "{use} {v} for (?:e-?)?mail;{switch} to {v} for (?:e-?)?mail;"
            "{move} to {v} for (?:e-?)?mail"
        ),
        {"vocab": EMAIL_CLIENTS},
    ),
    (
        "car",
        "car;vehicle;ride;automobile",
        "{drive};{drive} around in",
        {"vocab": CARS, "changes": ("buy",)},
    ),
    (
        "editor_theme",
        (
            "editor theme;theme;color scheme;colour scheme;ide theme;colour theme;"
            "color theme;editor colour scheme"
        ),
        "{code} with",
        {"vocab": THEMES},
    ),
    (
        "editor",
        "editor;code editor;text editor;ide",
        "",
        {"vocab": EDITORS},
    ),
    (
        "programming_language",
        (
            "programming language;coding language;language of choice;"
            "go-to language;main language;programming language of choice"
        ),
        (
            "{code} in;{program} in;{write} code in;{develop} in;{love} writing;"
            "{enjoy} writing;{like} writing;{write}"
        ),
        {"vocab": PROGRAMMING_LANGUAGES},
    ),
    (
        "shell",
        "shell;login shell;default shell;terminal shell;terminal",
        "{run} {v} in the terminal",
        {"vocab": SHELLS},
    ),
    (
        "reply_language",
        (
            "reply language;response language;answer language;preferred language;"
            "language for replies;language for answers"
        ),
        (
            "{want} (?:replies|answers|responses) in;"
            "{ask} for (?:replies|answers|responses) in;"
            "{prefer} (?:replies|answers|responses) in;"
            "{like} (?:replies|answers) in"
        ),
        {"vocab": NATURAL_LANGUAGES},
    ),
    (
        "native_language",
        "native language;mother tongue;first language",
        "",
        {"vocab": NATURAL_LANGUAGES},
    ),
    (
        "languages",
        "languages;languages spoken;spoken languages;spoken language",
        "{speak};{be} fluent in;{can} speak",
        {"multi_valued": True, "vocab": NATURAL_LANGUAGES},
    ),
    (
        "timezone",
        "timezone;time zone;tz",
        (
            "{be} on {v} time;{be} in the {v} (?:time zone|timezone);"
            "{work} in the {v} (?:time zone|timezone);{work} on {v} time"
        ),
        {},
    ),
    (
        "gym",
        "gym;fitness club;gym membership;health club;fitness studio",
        (
            "{work} out at;{train} at;{go} to the gym at;{exercise} at;"
            "{be} a member (?:of|at);{have} a membership at;{lift} at"
        ),
        {"kind": "name"},
    ),
    (
        "bank",
        (
            "bank;banking provider;account;bank account;current account;"
            "checking account;savings account"
        ),
        (
            "{bank} with;{bank} at;{switch} banks to;{move} banks to;"
            "{have} (?:a|an|my|their) (?:current |checking |bank |savings )?account (?:at|with)"
        ),
        {"kind": "name"},
    ),
    (
        "browser",
        "browser;web browser",
        "{browse} with;{browse} the web with;{browse} in",
        {"vocab": BROWSERS},
    ),
    (
        "operating_system",
        "operating system;os",
        "{be} on;{run}",
        {"vocab": SYSTEMS},
    ),
    (
        "school",
        "school;university;college;alma mater;uni",
        (
            "{study} at;{attend};{go} to school at;{be} enrolled at;"
            "{be} enrolled in;{be} a student at;{transfer} to;{go} to college at"
        ),
        {"kind": "name"},
    ),
    (
        "major",
        "major;field of study;degree;subject",
        "{major} in",
        {},
    ),
    (
        "address",
        "address;home address;street address;postal address",
        "",
        {},
    ),
    (
        "commute",
        "commute;mode of transport;way to work;means of transport",
        (
            "{commute} by;{get} to work by;{go} to work by;{travel} to work by;"
            "{take} the {v} to work;{ride} the {v} to work;{commute} on the"
        ),
        {},
    ),
    (
        "airline",
        "airline;usual airline;preferred airline",
        "{fly} with;{fly}",
        {"vocab": AIRLINES},
    ),
    (
        "supermarket",
        "supermarket;grocery store;grocer",
        "{shop} at",
        {},
    ),
    (
        "internet_provider",
        "internet provider;isp;broadband provider",
        "",
        {},
    ),
    (
        "mobile_carrier",
        (
            "mobile carrier;carrier;phone carrier;mobile provider;phone provider;"
            "mobile network;phone plan;mobile plan;network provider;phone company"
        ),
        (
            "{port} (?:my|their|his|her) number to;{switch} carriers to;"
            "{switch} networks to;{be} on the {v} network"
        ),
        {"vocab": CARRIERS},
    ),
    (
        "music_app",
        (
            "music app;music service;streaming service;music streaming service;"
            "music player;music streaming app;playlists;music"
        ),
        (
            "{listen} to music on;{listen} to music with;{listen} on;"
            "{stream} music (?:with|on|from|through);"
            "{stream} (?:my |their )?music on"
        ),
        {"vocab": MUSIC_APPS},
    ),
)
