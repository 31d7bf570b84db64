"""Development phrasings of ``tepa-bench run freetext`` (tune on these, freely).

The templates, values, relations, queries and distractors of the *development* split. The held-out
split lives in :mod:`langchain_tepa.bench.freetext_phrasings_test`, which shares no template and
no value with this module (a unit test checks it). Whoever tunes an extractor, a key resolver or
an embedding reads this module and never that one.

Placeholders: ``{v}`` the value, ``{old}`` the previous value, ``{attr}`` the family's attribute
noun (from :data:`langchain_tepa.bench.freetext_data.FAMILIES`), ``{rel}`` a relative or friend.

Example:
    >>> "home_city" in PHRASINGS["families"]
    True
"""

from __future__ import annotations

from typing import Any

__all__ = ["PHRASINGS"]

_FAMILIES: dict[str, dict[str, tuple[str, ...]]] = {
    "home_city": {
        "initial": ("I live in {v}.", "User lives in {v}.", "I'm based in {v} these days."),
        "change": (
            "I moved to {v} last month.",
            "User has relocated from {old} to {v}.",
            "We packed up and moved to {v}.",
        ),
        "values": ("Lisbon", "Oslo", "Porto", "Krakow", "Toronto", "Nairobi"),
        "queries": ("where does the user live", "which city is the user based in"),
        "other": ("My {rel} lives in {v}.", "User's {rel} is based in {v}."),
        "hypothetical": ("I might move to {v} next year.", "I'm not moving to {v}."),
    },
    "employer": {
        "initial": ("I work at {v}.", "User is employed by {v}."),
        "change": (
            "I left {old} and now work at {v}.",
            "User started a new job at {v}.",
            "I just joined {v}.",
        ),
        "values": ("Acme Corp", "Globex", "Initech", "Northwind", "Umbrella Labs"),
        "queries": ("where does the user work", "who is the user's employer"),
        "other": ("My {rel} works at {v}.", "User's {rel} has a job at {v}."),
        "hypothetical": ("I might apply to {v}.", "I turned down an offer from {v}."),
    },
    "manager": {
        "initial": ("My boss is {v}.", "User reports to {v}."),
        "change": ("The user's manager is now {v}.", "I report to {v} since the reorg."),
        "values": ("Tomasz", "Priya", "Hannah", "Diego", "Keiko"),
        "queries": ("who is the user's manager", "who does the user report to"),
        "other": ("My {rel}'s boss is {v}.",),
    },
    "job_title": {
        "initial": ("I work as a {v}.", "User is a {v}."),
        "change": ("I got promoted to {v}.", "User now works as a {v}."),
        "values": ("data engineer", "product manager", "nurse", "backend developer", "teacher"),
        "queries": ("what is the user's job", "what does the user do for a living"),
        "other": ("My {rel} works as a {v}.",),
        "hypothetical": ("I'd love to be a {v} someday.",),
    },
    "diet": {
        "initial": ("I'm {v}.", "User follows a {v} diet."),
        "change": ("I went {v} in January.", "User switched to a {v} diet."),
        "values": ("vegetarian", "vegan", "pescatarian", "keto"),
        "queries": ("what diet does the user follow", "what does the user eat"),
        "other": ("My {rel} is {v}.",),
        "hypothetical": ("I'm thinking about going {v}.",),
    },
    "phone_brand": {
        "initial": ("My phone is a {v}.", "User's phone is an {v}."),
        "change": ("I replaced my phone with a {v}.", "User switched to a {v} phone."),
        "values": ("iPhone", "Pixel", "Samsung Galaxy", "OnePlus"),
        "queries": ("what phone does the user have", "which smartphone does the user use"),
        "other": ("My {rel} has a {v} phone.",),
    },
    "editor_theme": {
        "initial": ("I use the {v} theme in my editor.", "User prefers the {v} editor theme."),
        "change": ("I switched my editor to the {v} theme.", "User now codes with {v}."),
        "values": ("Dracula", "Solarized Light", "Monokai", "Nord", "Gruvbox"),
        "queries": ("which editor theme does the user like", "what colour theme does the user use"),
    },
    "favourite_language": {
        "initial": ("My favourite programming language is {v}.", "User loves writing {v}."),
        "change": ("These days I prefer {v} over {old}.", "User's go-to language is now {v}."),
        "values": ("Python", "Rust", "Go", "Kotlin", "TypeScript"),
        "queries": (
            "what is the user's favourite programming language",
            "which language does the user prefer to code in",
        ),
    },
    "car": {
        "initial": ("I drive a {v}.", "User owns a {v}."),
        "change": ("I sold the {old} and bought a {v}.", "User now drives a {v}."),
        "values": ("Volvo", "Tesla", "Honda Civic", "Toyota Corolla", "VW Golf"),
        "queries": ("what car does the user drive", "what vehicle does the user own"),
        "other": ("My {rel} drives a {v}.",),
        "hypothetical": ("I might buy a {v}.",),
    },
    "gym": {
        "initial": ("I train at {v}.", "User is a member of {v}."),
        "change": ("I cancelled {old} and joined {v}.", "User now works out at {v}."),
        "values": ("Iron Temple", "FitZone", "PureGym", "Anytime Fitness"),
        "queries": ("which gym does the user go to", "where does the user work out"),
    },
    "bank": {
        "initial": ("I bank with {v}.", "User has a current account at {v}."),
        "change": ("I moved my account to {v}.", "User closed the {old} account and uses {v}."),
        "values": ("Barclays", "ING", "Monzo", "Santander"),
        "queries": ("which bank does the user use", "where does the user keep their money"),
    },
    "partner_name": {
        "initial": ("My partner is called {v}.", "User's partner is {v}."),
        "change": ("I'm with {v} now.", "User is now in a relationship with {v}."),
        "values": ("Ana", "Ben", "Chloe", "Marco", "Sofia"),
        "queries": ("what is the name of the user's partner", "who is the user dating"),
    },
    "timezone": {
        "initial": ("I'm on {v} time.", "User works in the {v} timezone."),
        "change": ("I'm on {v} from now on.", "User switched to the {v} timezone."),
        "values": ("CET", "PST", "UTC", "EST"),
        "queries": ("what timezone is the user in", "what time zone does the user work in"),
    },
    "email_client": {
        "initial": ("I read my mail in {v}.", "User's email client is {v}."),
        "change": ("I switched to {v} for email.", "User now reads mail in {v}."),
        "values": ("Outlook", "Thunderbird", "Apple Mail", "Spark"),
        "queries": ("which email client does the user use", "how does the user read email"),
    },
    "browser": {
        "initial": ("I browse with {v}.", "User's browser is {v}."),
        "change": ("I dropped {old} for {v}.", "User now uses {v} as their browser."),
        "values": ("Firefox", "Chrome", "Safari", "Brave"),
        "queries": ("which web browser does the user use", "what browser does the user prefer"),
    },
    "operating_system": {
        "initial": ("My laptop runs {v}.", "User is on {v}."),
        "change": ("I wiped the laptop and installed {v}.", "User moved from {old} to {v}."),
        "values": ("Ubuntu", "macOS", "Windows 11", "Fedora"),
        "queries": ("what operating system does the user run", "which OS is the user on"),
    },
    "shell": {
        "initial": ("I use {v} as my shell.", "User's login shell is {v}."),
        "change": ("I changed my shell to {v}.", "User now runs {v} in the terminal."),
        "values": ("bash", "zsh", "fish", "nushell"),
        "queries": ("which shell does the user use", "what does the user run in the terminal"),
    },
    "code_editor": {
        "initial": ("I write code in {v}.", "User's editor is {v}."),
        "change": ("I switched from {old} to {v}.", "User codes in {v} now."),
        "values": ("VS Code", "Vim", "Emacs", "PyCharm"),
        "queries": ("which code editor does the user use", "what IDE does the user work in"),
    },
    "coffee_order": {
        "initial": ("I always order a {v}.", "User's usual coffee is a {v}."),
        "change": ("I've been ordering a {v} lately.", "User now drinks a {v} instead."),
        "values": ("flat white", "espresso", "latte", "cappuccino", "cold brew"),
        "queries": ("how does the user take their coffee", "what coffee does the user order"),
    },
    "football_team": {
        "initial": ("I support {v}.", "User is a {v} fan."),
        "change": ("I now follow {v} instead.", "User switched allegiance to {v}."),
        "values": ("Benfica", "Arsenal", "Ajax", "Celtic"),
        "queries": ("which football team does the user support", "what team is the user a fan of"),
    },
    "university": {
        "initial": ("I study at {v}.", "User is a student at {v}."),
        "change": ("I transferred to {v}.", "User is now enrolled at {v}."),
        "values": ("Oxford", "ETH Zurich", "McGill", "Uppsala"),
        "queries": ("where does the user study", "which university does the user attend"),
        "other": ("My {rel} studies at {v}.",),
    },
    "doctor": {
        "initial": ("My GP is {v}.", "User sees {v} for checkups."),
        "change": ("I registered with {v} instead.", "User's family doctor is now {v}."),
        "values": ("Dr. Silva", "Dr. Okafor", "Dr. Lindqvist", "Dr. Moreau"),
        "queries": ("who is the user's doctor", "which GP does the user see"),
    },
    "neighbourhood": {
        "initial": ("I live in the {v} area.", "User's flat is in {v}."),
        "change": ("We moved across town to {v}.", "User relocated to the {v} district."),
        "values": ("Alfama", "Kreuzberg", "Shoreditch", "Gracia"),
        "queries": (
            "which neighbourhood does the user live in",
            "what part of town is the user in",
        ),
    },
    "commute": {
        "initial": ("I get to work by {v}.", "User commutes by {v}."),
        "change": ("I've started commuting by {v}.", "User now takes the {v} to work."),
        "values": ("bike", "train", "bus", "car"),
        "queries": ("how does the user get to work", "how does the user commute"),
    },
    "mobile_carrier": {
        "initial": ("My phone plan is with {v}.", "User's mobile carrier is {v}."),
        "change": ("I ported my number to {v}.", "User switched carriers to {v}."),
        "values": ("Vodafone", "T-Mobile", "O2", "Orange"),
        "queries": (
            "which mobile carrier does the user have",
            "who provides the user's phone plan",
        ),
    },
    "music_app": {
        "initial": ("I listen to music on {v}.", "User streams music with {v}."),
        "change": ("I cancelled {old} and went to {v}.", "User moved their playlists to {v}."),
        "values": ("Spotify", "Apple Music", "Tidal", "Deezer"),
        "queries": ("what music app does the user use", "where does the user stream music"),
    },
    "laptop": {
        "initial": ("I work on a {v}.", "User's laptop is a {v}."),
        "change": ("I upgraded to a {v}.", "User replaced the {old} with a {v}."),
        "values": ("MacBook Air", "ThinkPad X1", "Dell XPS 13", "Framework 13"),
        "queries": ("what laptop does the user have", "which computer does the user work on"),
    },
    "team": {
        "initial": ("I'm on the {v} team.", "User works in the {v} team."),
        "change": ("I transferred to the {v} team.", "User moved over to the {v} team."),
        "values": ("payments", "search", "platform", "growth"),
        "queries": ("which team is the user on", "what team does the user belong to"),
    },
    "cuisine": {
        "initial": ("{v} food is my favourite.", "User's favourite cuisine is {v}."),
        "change": ("I'm all about {v} food now.", "User now prefers {v} cuisine."),
        "values": ("Thai", "Italian", "Vietnamese", "Mexican"),
        "queries": ("what is the user's favourite cuisine", "which food does the user like best"),
    },
    "colour": {
        "initial": ("My favourite colour is {v}.", "User likes {v} best of all colours."),
        "change": ("{v} is my favourite colour these days.", "User's favourite colour became {v}."),
        "values": ("teal", "crimson", "navy", "mustard"),
        "queries": ("what is the user's favourite colour", "which colour does the user like most"),
    },
    "preferred_name": {
        "initial": ("Please call me {v}.", "User goes by {v}."),
        "change": ("I'd like to be called {v} from now on.", "User now prefers the name {v}."),
        "values": ("Sam", "Alex", "Jo", "Max"),
        "queries": ("what name does the user go by", "what should I call the user"),
    },
    "reply_language": {
        "initial": ("Please answer me in {v}.", "User wants replies in {v}."),
        "change": ("Reply in {v} from now on.", "User now asks for answers in {v}."),
        "values": ("English", "Portuguese", "French", "Dutch"),
        "queries": (
            "which language should replies be in",
            "what language does the user want answers in",
        ),
    },
    "wake_time": {
        "initial": ("I wake up at {v}.", "User gets up at {v} every day."),
        "change": ("I've started waking at {v}.", "User's alarm is now set for {v}."),
        "values": ("6:00", "6:30", "7:15", "8:00"),
        "queries": ("what time does the user wake up", "when does the user get up"),
    },
    "cloud_provider": {
        "initial": ("We host everything on {v}.", "User deploys to {v}."),
        "change": ("We migrated from {old} to {v}.", "User's services now run on {v}."),
        "values": ("AWS", "GCP", "Azure", "Hetzner"),
        "queries": ("which cloud does the user deploy to", "where does the user host services"),
    },
    "database": {
        "initial": ("Our main database is {v}.", "User's app stores data in {v}."),
        "change": ("We replaced {old} with {v}.", "User's app now runs on {v}."),
        "values": ("Postgres", "MySQL", "MongoDB", "SQLite"),
        "queries": ("what database does the user use", "where does the user's app store data"),
    },
    "keyboard_layout": {
        "initial": ("I type on {v}.", "User's keyboard layout is {v}."),
        "change": ("I retrained myself on {v}.", "User now types in {v}."),
        "values": ("QWERTY", "Dvorak", "Colemak"),
        "queries": ("what keyboard layout does the user type on", "which layout does the user use"),
    },
    "airline": {
        "initial": ("I usually fly {v}.", "User's usual airline is {v}."),
        "change": ("I fly with {v} now for the miles.", "User switched to flying {v}."),
        "values": ("TAP", "KLM", "Lufthansa", "easyJet"),
        "queries": ("which airline does the user fly", "what airline does the user prefer"),
    },
    "health_insurer": {
        "initial": ("My health insurance is with {v}.", "User is insured by {v}."),
        "change": ("I changed my health insurance to {v}.", "User's insurer is now {v}."),
        "values": ("Allianz", "AXA", "Bupa", "Cigna"),
        "queries": (
            "who is the user's health insurer",
            "which health insurance does the user have",
        ),
    },
    "notes_app": {
        "initial": ("I keep my notes in {v}.", "User takes notes in {v}."),
        "change": ("I moved all my notes to {v}.", "User migrated from {old} to {v}."),
        "values": ("Notion", "Obsidian", "Evernote", "Bear"),
        "queries": ("which notes app does the user use", "where does the user keep notes"),
    },
    "password_manager": {
        "initial": ("My passwords live in {v}.", "User's password manager is {v}."),
        "change": ("I exported everything into {v}.", "User now stores passwords in {v}."),
        "values": ("1Password", "Bitwarden", "LastPass", "KeePassXC"),
        "queries": ("which password manager does the user use", "where are the user's passwords"),
    },
    "hair_colour": {
        "initial": ("My hair is {v}.", "User has {v} hair."),
        "change": ("I dyed my hair {v}.", "User's hair is {v} now."),
        "values": ("blonde", "red", "black", "blue"),
        "queries": ("what colour is the user's hair", "what is the user's hair colour"),
    },
    "watch": {
        "initial": ("I wear a {v}.", "User's watch is a {v}."),
        "change": ("I swapped my watch for a {v}.", "User started wearing a {v}."),
        "values": ("Apple Watch", "Garmin Forerunner", "Casio", "Seiko"),
        "queries": ("what watch does the user wear", "which watch does the user have"),
    },
    "mentor": {
        "initial": ("My mentor is {v}.", "User is mentored by {v}."),
        "change": ("{v} is my mentor now.", "User was assigned a new mentor, {v}."),
        "values": ("Grace", "Olu", "Ingrid", "Rafael"),
        "queries": ("who is the user's mentor", "who mentors the user"),
    },
    "project": {
        "initial": ("I'm working on project {v}.", "User's current project is {v}."),
        "change": ("I've been moved to project {v}.", "User now leads project {v}."),
        "values": ("Atlas", "Phoenix", "Orion", "Hermes"),
        "queries": ("what project is the user working on", "which project is the user on"),
    },
    "sport": {
        "initial": ("My sport is {v}.", "User plays {v} competitively."),
        "change": ("I gave up {old} and took up {v}.", "User's main sport is now {v}."),
        "values": ("tennis", "rowing", "basketball", "squash"),
        "queries": ("what sport does the user play", "which sport is the user into"),
    },
    "landlord": {
        "initial": ("My landlord is {v}.", "User rents from {v}."),
        "change": ("The flat was sold, so {v} is my landlord now.", "User's new landlord is {v}."),
        "values": ("Mr. Costa", "Mrs. Brandt", "Lakeside Lettings", "Mr. Haddad"),
        "queries": ("who is the user's landlord", "who does the user rent from"),
    },
}

_MULTI: dict[str, dict[str, tuple[str, ...]]] = {
    "pets": {
        "initial": ("I have a {v}.", "User has a pet {v}."),
        "add": ("I also have a {v}.", "User got a {v} as well."),
        "values": ("dog", "cat", "parrot", "hamster"),
        "queries": ("what pets does the user have", "does the user have any animals"),
    },
    "languages_spoken": {
        "initial": ("I speak {v}.", "User speaks {v}."),
        "add": ("I also speak {v}.", "User speaks {v} too."),
        "values": ("Spanish", "German", "Italian", "Mandarin"),
        "queries": ("which languages does the user speak", "what languages can the user speak"),
    },
    "hobbies": {
        "initial": ("I enjoy {v}.", "One of the user's hobbies is {v}."),
        "add": ("I've also taken up {v}.", "User also does {v} for fun."),
        "values": ("hiking", "painting", "chess", "knitting"),
        "queries": ("what are the user's hobbies", "what does the user do for fun"),
    },
    "liked_foods": {
        "initial": ("I love {v}.", "User likes {v}."),
        "add": ("I like {v} too.", "User is also a fan of {v}."),
        "values": ("sushi", "dumplings", "tacos", "ramen"),
        "queries": ("what foods does the user like", "what does the user enjoy eating"),
    },
    "children": {
        "initial": ("I have a kid named {v}.", "User has a child called {v}."),
        "add": ("I also have another kid, {v}.", "User's other child is {v}."),
        "values": ("Leo", "Maya", "Noah", "Iris"),
        "queries": ("what are the names of the user's children", "does the user have kids"),
    },
    "instruments": {
        "initial": ("I play the {v}.", "User plays the {v}."),
        "add": ("I can play the {v} as well.", "User also plays the {v}."),
        "values": ("guitar", "piano", "violin", "drums"),
        "queries": ("which instruments does the user play", "what instruments can the user play"),
    },
}

PHRASINGS: dict[str, Any] = {
    "generic_initial": (
        "My {attr} is {v}.",
        "User's {attr}: {v}",
        "The user's {attr} is {v}.",
        "For reference, my {attr} is {v}.",
    ),
    "generic_change": (
        "My {attr} is now {v}.",
        "User's {attr} changed from {old} to {v}.",
        "Update: the user's {attr} is {v} from now on.",
        "My {attr} is no longer {old}; it's {v}.",
    ),
    "generic_other": ("My {rel}'s {attr} is {v}.", "User's {rel}'s {attr}: {v}"),
    "generic_hypothetical": (
        "I might change my {attr} to {v}.",
        "I'm not switching my {attr} to {v}.",
        "User is considering {v} as a new {attr}.",
    ),
    "relations": ("sister", "brother", "mother", "best friend"),
    "distractors": (
        "Remind me to renew my passport in March.",
        "Had a long chat about sourdough starters today.",
        "The user asked for a summary of the quarterly report.",
        "User thinks the new office coffee machine is too loud.",
        "I need to buy a birthday present for a friend next week.",
        "User watched a documentary about deep-sea fish.",
        "Meeting notes: the release slipped by two days.",
        "User asked how to format dates in a spreadsheet.",
        "I found the hiking trail map confusing.",
        "User mentioned the weather was terrible over the weekend.",
        "Remember that the dentist appointment got rescheduled.",
        "User wants the weekly digest sent on Mondays.",
        "I finished reading a long novel on the train.",
        "The user complained that the wifi keeps dropping.",
        "User bookmarked an article about urban gardening.",
        "I lost my umbrella again.",
    ),
    "families": _FAMILIES,
    "multi": _MULTI,
}
"""The development split: ``generic_*`` templates apply to every family through ``{attr}``."""
