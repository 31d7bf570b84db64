"""Held-out phrasings of ``tepa-bench run freetext``: DO NOT READ THIS MODULE TO TUNE ANYTHING.

The templates, values, relations, queries and distractors of the *test* split: the part of the
benchmark nobody tunes on. An engineer who works on the claim extractor, key resolution or the
offline embeddings must not open this file; tune on
:mod:`langchain_tepa.bench.freetext_phrasings_dev` and measure here. No template or value is
shared with the development split (a unit test checks it).

Placeholders as in the development module: ``{v}``, ``{old}``, ``{attr}``, ``{rel}``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PHRASINGS"]

_FAMILIES: dict[str, dict[str, tuple[str, ...]]] = {
    "home_city": {
        "initial": ("Home for me is {v}.", "The user resides in {v}.", "I've been living in {v}."),
        "change": (
            "User relocated to {v} over the summer.",
            "Just finished unpacking in {v}, my new home.",
            "I'm settled in {v} now after leaving {old}.",
        ),
        "values": ("Madrid", "Vienna", "Seoul", "Cape Town", "Montreal", "Tallinn"),
        "queries": ("what city does the user call home", "where is the user's home"),
        "other": ("My {rel} has a place in {v}.", "The user's {rel} resides in {v}."),
        "hypothetical": ("Maybe I'll relocate to {v} at some point.", "I won't be moving to {v}."),
    },
    "employer": {
        "initial": ("I'm employed at {v}.", "The user has a job at {v}."),
        "change": (
            "User quit {old} and signed with {v}.",
            "My new employer is {v}.",
            "First week at {v} after leaving {old}.",
        ),
        "values": ("Hooli", "Vandelay Industries", "Wayne Enterprises", "Cyberdyne", "Soylent"),
        "queries": ("which company employs the user", "what company is the user working for"),
        "other": ("My {rel} is employed at {v}.", "The user's {rel} got hired by {v}."),
        "hypothetical": ("I interviewed at {v} but said no.", "Perhaps I'll join {v} one day."),
    },
    "manager": {
        "initial": ("I'm managed by {v}.", "The user's line manager is {v}."),
        "change": ("My manager changed to {v}.", "User got a new boss: {v}."),
        "values": ("Yusuf", "Margit", "Lucas", "Amara", "Bo"),
        "queries": ("who manages the user", "who is the user's boss at work"),
        "other": ("My {rel} is managed by {v}.",),
    },
    "job_title": {
        "initial": ("My role is {v}.", "The user holds the position of {v}."),
        "change": ("User was recently made {v}.", "I changed roles and I'm a {v} now."),
        "values": ("site reliability engineer", "UX designer", "pharmacist", "accountant", "chef"),
        "queries": ("what is the user's role at work", "what position does the user hold"),
        "other": ("My {rel} is employed as a {v}.",),
        "hypothetical": ("Some day I could become a {v}.",),
    },
    "diet": {
        "initial": ("I eat a {v} diet.", "The user is on a {v} diet."),
        "change": ("Since last month I eat {v}.", "The user has become {v}."),
        "values": ("paleo", "gluten-free", "flexitarian", "low-carb"),
        "queries": ("what kind of diet is the user on", "what are the user's eating habits"),
        "other": ("My {rel} eats {v}.",),
        "hypothetical": ("I wonder whether I should try eating {v}.",),
    },
    "phone_brand": {
        "initial": ("I carry a {v}.", "The user has a {v} handset."),
        "change": ("Got a new {v}, retired the {old}.", "User's new phone is a {v}."),
        "values": ("Xiaomi", "Nokia", "Motorola", "Fairphone"),
        "queries": ("which mobile phone does the user own", "what handset is the user using"),
        "other": ("My {rel} just bought a {v} handset.",),
    },
    "editor_theme": {
        "initial": ("My editor is set to {v}.", "The user codes with the {v} colour scheme."),
        "change": ("Changed the colour scheme to {v} today.", "User's theme of choice is {v} now."),
        "values": ("One Dark", "Tokyo Night", "GitHub Light", "Catppuccin"),
        "queries": (
            "what colour scheme does the user code with",
            "which theme is the user's editor",
        ),
    },
    "favourite_language": {
        "initial": ("I mostly code in {v}.", "The user's language of choice is {v}."),
        "change": (
            "I've fallen for {v} and rarely touch {old}.",
            "User now prefers coding in {v}.",
        ),
        "values": ("Haskell", "Elixir", "Swift", "Java", "Zig"),
        "queries": (
            "what programming language does the user like most",
            "which language is the user's favourite to code in",
        ),
    },
    "car": {
        "initial": ("My car is a {v}.", "The user gets around in a {v}."),
        "change": (
            "Traded in the {old} for a {v}.",
            "The user bought a {v} to replace the old car.",
        ),
        "values": ("Subaru Outback", "Mazda 3", "Ford Focus", "Kia Niro", "Skoda Octavia"),
        "queries": ("which car does the user have", "what does the user drive"),
        "other": ("My {rel} owns a {v}.",),
        "hypothetical": ("I've been eyeing a {v}, but I'm not buying it.",),
    },
    "gym": {
        "initial": ("I work out at {v}.", "The user has a membership at {v}."),
        "change": ("Started lifting at {v}.", "User's new gym is {v}."),
        "values": ("Gold's Gym", "Planet Fitness", "Equinox", "CrossFit Harbour"),
        "queries": ("where does the user train", "what gym is the user a member of"),
    },
    "bank": {
        "initial": ("My money is at {v}.", "The user's bank is {v}."),
        "change": ("Opened an account at {v} and closed the old one.", "User now banks at {v}."),
        "values": ("HSBC", "Revolut", "N26", "Chase"),
        "queries": ("what bank is the user with", "which bank holds the user's account"),
    },
    "partner_name": {
        "initial": ("I'm dating {v}.", "The user's partner goes by {v}."),
        "change": ("{v} and I are together now.", "User's new partner is named {v}."),
        "values": ("Lena", "Omar", "Freya", "Jonas", "Nadia"),
        "queries": ("who is the user's partner", "what is the user's partner called"),
    },
    "timezone": {
        "initial": ("My clock is on {v}.", "The user keeps {v} hours."),
        "change": ("My working hours are in {v} now.", "User changed timezone to {v}."),
        "values": ("JST", "IST", "AEST", "BRT"),
        "queries": ("which timezone does the user keep", "what is the user's time zone"),
    },
    "email_client": {
        "initial": ("I do email in {v}.", "The user handles mail with {v}."),
        "change": ("Email goes through {v} for me now.", "User replaced {old} with {v} for mail."),
        "values": ("Superhuman", "Fastmail", "Mailspring", "Gmail"),
        "queries": ("what does the user use for email", "what mail app does the user have"),
    },
    "browser": {
        "initial": ("I surf the web in {v}.", "The user browses in {v}."),
        "change": ("Made {v} my default browser.", "User changed browsers to {v}."),
        "values": ("Edge", "Vivaldi", "Arc", "Opera"),
        "queries": ("what browser is the user on", "which browser does the user surf with"),
    },
    "operating_system": {
        "initial": ("I run {v} on my machine.", "The user's computer runs {v}."),
        "change": ("Switched my machine over to {v}.", "User reinstalled with {v}."),
        "values": ("Debian", "Arch Linux", "Pop!_OS", "NixOS"),
        "queries": (
            "what OS does the user have",
            "which operating system is on the user's machine",
        ),
    },
    "shell": {
        "initial": ("My terminal runs {v}.", "The user's shell of choice is {v}."),
        "change": ("Moved my dotfiles over to {v}.", "User adopted {v} as the shell."),
        "values": ("PowerShell", "tcsh", "ksh", "xonsh"),
        "queries": ("what shell is the user on", "which command-line shell does the user prefer"),
    },
    "code_editor": {
        "initial": ("All my coding happens in {v}.", "The user edits code in {v}."),
        "change": ("Gave {v} a try and stuck with it.", "User now programs in {v}."),
        "values": ("Neovim", "Sublime Text", "Helix", "Zed"),
        "queries": ("what editor does the user code in", "which IDE is the user using"),
    },
    "coffee_order": {
        "initial": ("My usual is a {v}.", "The user drinks a {v} every morning."),
        "change": ("Lately it's a {v} for me.", "User's coffee order changed to a {v}."),
        "values": ("americano", "cortado", "mocha", "macchiato", "iced latte"),
        "queries": ("what is the user's usual coffee", "which coffee does the user drink"),
    },
    "football_team": {
        "initial": ("I cheer for {v}.", "The user follows {v}."),
        "change": ("I've become a {v} supporter.", "User cheers for {v} these days."),
        "values": ("Juventus", "Sevilla", "Boca Juniors", "Bayern Munich"),
        "queries": (
            "what football club does the user follow",
            "which team does the user cheer for",
        ),
    },
    "university": {
        "initial": ("I'm enrolled at {v}.", "The user attends {v}."),
        "change": ("I switched universities to {v}.", "User continues their studies at {v}."),
        "values": ("Sorbonne", "KU Leuven", "Tsinghua", "Trinity College Dublin"),
        "queries": ("which university is the user at", "where is the user enrolled"),
        "other": ("My {rel} is enrolled at {v}.",),
    },
    "doctor": {
        "initial": ("I'm a patient of {v}.", "The user's physician is {v}."),
        "change": ("I've switched to {v} as my doctor.", "User changed GP to {v}."),
        "values": ("Dr. Nakamura", "Dr. Adeyemi", "Dr. Kowalski", "Dr. Reyes"),
        "queries": ("which doctor does the user see", "who is the user's physician"),
    },
    "neighbourhood": {
        "initial": ("My street is in {v}.", "The user lives around {v}."),
        "change": ("Found a place in {v} and moved in.", "User's new neighbourhood is {v}."),
        "values": ("Le Marais", "Brooklyn Heights", "Trastevere", "Vesterbro"),
        "queries": ("what area does the user live in", "which district is the user's home in"),
    },
    "commute": {
        "initial": ("I travel to the office by {v}.", "The user rides the {v} to work."),
        "change": ("Switched my commute to the {v}.", "User goes to the office by {v} now."),
        "values": ("tram", "scooter", "subway", "ferry"),
        "queries": ("how does the user travel to the office", "what is the user's commute"),
    },
    "mobile_carrier": {
        "initial": ("My SIM is from {v}.", "The user's phone service is {v}."),
        "change": ("Moved my SIM over to {v}.", "User's new carrier is {v}."),
        "values": ("Verizon", "AT&T", "Telenor", "Three"),
        "queries": ("who is the user's phone carrier", "which network is the user's SIM on"),
    },
    "music_app": {
        "initial": ("My playlists are on {v}.", "The user listens through {v}."),
        "change": ("I'm using {v} for music now.", "User switched music services to {v}."),
        "values": ("YouTube Music", "Qobuz", "Amazon Music", "SoundCloud"),
        "queries": ("which music service does the user use", "how does the user listen to music"),
    },
    "laptop": {
        "initial": ("My computer is a {v}.", "The user works on a {v}."),
        "change": ("Bought a {v} to replace the {old}.", "User's new laptop is a {v}."),
        "values": ("Surface Laptop", "HP Spectre", "ASUS Zenbook", "Razer Blade"),
        "queries": ("which laptop does the user use", "what computer does the user own"),
    },
    "team": {
        "initial": ("I belong to the {v} team.", "The user sits on the {v} team."),
        "change": (
            "Joined the {v} team this quarter.",
            "User has been reassigned to the {v} team.",
        ),
        "values": ("billing", "data", "security", "mobile"),
        "queries": ("what team is the user part of", "which group does the user work in"),
    },
    "cuisine": {
        "initial": ("Nothing beats {v} cooking for me.", "The user loves {v} food most."),
        "change": ("My favourite kind of food is {v} now.", "User has switched to loving {v}."),
        "values": ("Ethiopian", "Korean", "Lebanese", "Peruvian"),
        "queries": (
            "which cuisine does the user love most",
            "what kind of food is the user's favourite",
        ),
    },
    "colour": {
        "initial": ("I like {v} more than any other colour.", "The user's top colour is {v}."),
        "change": ("Lately {v} has become my favourite colour.", "User prefers {v} now."),
        "values": ("olive", "lavender", "coral", "charcoal"),
        "queries": ("which colour is the user's favourite", "what colour does the user prefer"),
    },
    "preferred_name": {
        "initial": ("Everyone calls me {v}.", "The user prefers to be called {v}."),
        "change": ("Don't call me {old} anymore, use {v}.", "User asked to be addressed as {v}."),
        "values": ("Kit", "Robin", "Dani", "Lou"),
        "queries": ("how should the user be addressed", "what does the user like to be called"),
    },
    "reply_language": {
        "initial": (
            "Write to me in {v}, please.",
            "The user wants the assistant to answer in {v}.",
        ),
        "change": ("Switch to {v} for your answers.", "User asked that replies be in {v}."),
        "values": ("Japanese", "Polish", "Turkish", "Czech"),
        "queries": ("what language should the assistant answer in", "in which language to reply"),
    },
    "wake_time": {
        "initial": ("My alarm goes off at {v}.", "The user rises at {v}."),
        "change": ("I get up at {v} these days.", "User wakes at {v} now."),
        "values": ("5:45", "7:00", "7:30", "9:00"),
        "queries": ("when does the user's alarm ring", "what time does the user get out of bed"),
    },
    "cloud_provider": {
        "initial": ("Our servers are on {v}.", "The user's infrastructure runs on {v}."),
        "change": ("Everything got moved onto {v}.", "User switched cloud providers to {v}."),
        "values": ("DigitalOcean", "Linode", "OVH", "Oracle Cloud"),
        "queries": (
            "what cloud provider does the user use",
            "where does the user's infrastructure run",
        ),
    },
    "database": {
        "initial": ("Data is kept in {v}.", "The user's backend uses {v}."),
        "change": ("Finished migrating the data to {v}.", "User's backend switched to {v}."),
        "values": ("Cassandra", "DynamoDB", "CockroachDB", "MariaDB"),
        "queries": ("which database backs the user's app", "what datastore does the user rely on"),
    },
    "keyboard_layout": {
        "initial": ("I use {v} on all my keyboards.", "The user types in the {v} layout."),
        "change": ("Learned {v} and ditched {old}.", "User's layout is {v} now."),
        "values": ("AZERTY", "QWERTZ", "Workman"),
        "queries": (
            "which keyboard layout is the user using",
            "how is the user's keyboard laid out",
        ),
    },
    "airline": {
        "initial": ("I always book {v}.", "The user mostly flies with {v}."),
        "change": ("I'm loyal to {v} these days.", "User changed airlines to {v}."),
        "values": ("Delta", "United", "Emirates", "Iberia"),
        "queries": ("what is the user's airline", "who does the user usually fly with"),
    },
    "health_insurer": {
        "initial": ("I'm covered by {v}.", "The user's health cover is from {v}."),
        "change": ("Signed up with {v} for health cover.", "User moved their health plan to {v}."),
        "values": ("Aetna", "Generali", "Humana", "Vitality"),
        "queries": ("who covers the user's health insurance", "what is the user's health plan"),
    },
    "notes_app": {
        "initial": ("I write everything down in {v}.", "The user's notes are in {v}."),
        "change": ("My notes are in {v} now.", "User switched their note-taking to {v}."),
        "values": ("Logseq", "OneNote", "Joplin", "Apple Notes"),
        "queries": ("what app does the user take notes in", "where are the user's notes kept"),
    },
    "password_manager": {
        "initial": ("I keep my logins in {v}.", "The user stores credentials in {v}."),
        "change": ("Moved my vault to {v}.", "User changed password managers to {v}."),
        "values": ("Dashlane", "Proton Pass", "Keeper", "NordPass"),
        "queries": ("where does the user keep logins", "what password vault does the user use"),
    },
    "hair_colour": {
        "initial": ("I have {v} hair.", "The user's hair is {v}."),
        "change": ("Went {v} at the salon yesterday.", "The user has dyed their hair {v}."),
        "values": ("pink", "brown", "silver", "green"),
        "queries": ("what hair colour does the user have", "what colour hair does the user have"),
    },
    "watch": {
        "initial": ("On my wrist is a {v}.", "The user wears a {v}."),
        "change": ("Got a {v} for my birthday and wear it daily.", "User's watch is now a {v}."),
        "values": ("Fitbit Versa", "Pixel Watch", "Tissot", "Citizen"),
        "queries": ("which watch is the user wearing", "what does the user wear on their wrist"),
    },
    "mentor": {
        "initial": ("{v} mentors me.", "The user's mentor is {v}."),
        "change": ("I'm being mentored by {v} now.", "User has {v} as a new mentor."),
        "values": ("Beatriz", "Kwame", "Sigrid", "Haruto"),
        "queries": ("who guides the user as a mentor", "who is mentoring the user"),
    },
    "project": {
        "initial": ("I spend my days on project {v}.", "The user is assigned to project {v}."),
        "change": ("Moved off {old}; I'm on project {v}.", "User has been put on project {v}."),
        "values": ("Nimbus", "Falcon", "Zephyr", "Quartz"),
        "queries": ("which project is the user assigned to", "what is the user working on"),
    },
    "sport": {
        "initial": ("I compete in {v}.", "The user's sport is {v}."),
        "change": ("These days my sport is {v}.", "User started competing in {v}."),
        "values": ("volleyball", "fencing", "badminton", "cycling"),
        "queries": ("which sport does the user compete in", "what is the user's sport"),
    },
    "landlord": {
        "initial": ("I pay rent to {v}.", "The user's landlord is {v}."),
        "change": ("Rent goes to {v} now.", "User's flat is now owned by {v}."),
        "values": ("Mrs. Okoye", "Harbour Homes", "Mr. Lindgren", "Mrs. Petrova"),
        "queries": ("who owns the user's flat", "to whom does the user pay rent"),
    },
}

_MULTI: dict[str, dict[str, tuple[str, ...]]] = {
    "pets": {
        "initial": ("There's a {v} living with me.", "The user owns a {v}."),
        "add": ("We adopted a {v} too.", "The user also keeps a {v}."),
        "values": ("rabbit", "tortoise", "goldfish", "ferret"),
        "queries": ("which animals does the user keep", "does the user own pets"),
    },
    "languages_spoken": {
        "initial": ("I'm fluent in {v}.", "The user can speak {v}."),
        "add": ("I can get by in {v} as well.", "The user additionally speaks {v}."),
        "values": ("Swahili", "Greek", "Korean", "Finnish"),
        "queries": ("what languages is the user fluent in", "can the user speak other languages"),
    },
    "hobbies": {
        "initial": ("In my spare time I do {v}.", "The user's pastime is {v}."),
        "add": ("Recently I picked up {v} too.", "The user also enjoys {v}."),
        "values": ("climbing", "pottery", "birdwatching", "woodworking"),
        "queries": ("how does the user spend free time", "which pastimes does the user have"),
    },
    "liked_foods": {
        "initial": ("{v} is a treat I love.", "The user really enjoys {v}."),
        "add": ("I'm also crazy about {v}.", "The user likes {v} as well."),
        "values": ("falafel", "paella", "pierogi", "biryani"),
        "queries": ("which dishes does the user love", "what food does the user enjoy"),
    },
    "children": {
        "initial": ("My kid {v} just started school.", "The user is a parent of {v}."),
        "add": ("We have another child, {v}.", "The user also has a child, {v}."),
        "values": ("Tomas", "Elena", "Kofi", "Ines"),
        "queries": ("how many children does the user have", "who are the user's kids"),
    },
    "instruments": {
        "initial": ("I've played the {v} since school.", "The user is a {v} player."),
        "add": ("I'm learning the {v} too.", "The user plays the {v} on top of that."),
        "values": ("cello", "saxophone", "banjo", "harp"),
        "queries": ("what instruments does the user know", "which instrument is the user learning"),
    },
}

PHRASINGS: dict[str, Any] = {
    "generic_initial": (
        "User profile - {attr}: {v}",
        "The {attr} of the user is {v}.",
        "Just so you know, {v} is my {attr}.",
        "User mentioned that their {attr} is {v}.",
    ),
    "generic_change": (
        "New {attr} for the user: {v} (was {old}).",
        "As of this week the user's {attr} is {v}.",
        "User updated their {attr}: {v} now, not {old}.",
        "I've changed my {attr} - it's {v} these days.",
    ),
    "generic_other": (
        "The {attr} of my {rel} is {v}.",
        "The user's {rel} has {v} as their {attr}.",
    ),
    "generic_hypothetical": (
        "Maybe someday my {attr} will be {v}, but not yet.",
        "User said their {attr} will not become {v}.",
        "If things work out I'd consider {v} for my {attr}.",
    ),
    "relations": ("father", "cousin", "roommate", "colleague"),
    "distractors": (
        "Need to book a table for Friday night.",
        "The user asked how to convert a PDF into text.",
        "User laughed at a joke about compilers.",
        "I forgot to water the plants before the trip.",
        "Quick note: the printer on the third floor is broken.",
        "User wanted tips for a job interview next Tuesday.",
        "The user found a typo in the onboarding guide.",
        "I spilled tea on my notebook this morning.",
        "User asked for a recipe that uses leftover rice.",
        "Parking near the stadium was a nightmare.",
        "The user said the concert last night was amazing.",
        "I should call the insurance company about the claim form.",
        "User requested shorter answers in the afternoon.",
        "The team lunch moved to Thursday.",
        "User is curious about how tides work.",
        "I keep misplacing my keys.",
    ),
    "families": _FAMILIES,
    "multi": _MULTI,
}
"""The held-out split: same structure as the development split, disjoint templates and values."""
