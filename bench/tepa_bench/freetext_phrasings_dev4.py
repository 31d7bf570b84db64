"""A fourth phrasing split of ``tepa-bench run freetext`` (``--split dev4``), written fresh.

Written after ``dev3``, without reading the extractor (``langchain_tepa/extraction/``, the
ingest path) or the held-out split, and with only ``dev3`` read for the data format: a second
held-out estimate of how the offline extractor generalises to phrasings nobody wrote rules
from. Nobody who tunes reads it. Its sentences are the shapes people and memory tools write:
first person ("These days I ..."), third person ("The user is based in ..."), subject-less
summary lines ("Based in Bergen."), dated notes ("Note (2025-02-17): ..."), bullets ("* ..."),
a two-line profile block, a JSON-ish fact, arrows ("home city update: A → B") and change
markers of many kinds ("as of March", "these days", "is no longer X, it's Y", "ever since the
switch ... has been", "switched X from A to B", "replaced X with Y", "heads up").

Each family row is six ``" | "``-separated lines: ``noun | s3 | s1 | frag`` (the attribute
noun, a third-person statement, the first-person one, a subject-less line), ``ch3 | ch1`` (the
change, third and first person), the values, the queries, extra initial sentences and extra
change sentences (an empty line for none).

Example:
    >>> len(PHRASINGS["families"]["home_city"]["change"]) >= 8
    True
    >>> PHRASINGS["families"]["home_city"]["initial"][0]
    'Context: the user is based in {v}.'
"""

from __future__ import annotations

from typing import Any

__all__ = ["PHRASINGS"]

_ROWS: dict[str, tuple[str, ...]] = {
    "home_city": (
        "home city | is based in {v} | am based in {v} | Based in {v}",
        "relocated to {v} | relocated to {v}",
        "Valparaiso | Tromso | Ljubljana | Plovdiv | Porto Alegre",
        "where is the user living these days | which city do I live in | city of residence",
        "Calls {v} home.",
        "User is now settled in {v}. | The user moved house; the new city is {v}.",
    ),
    "employer": (
        "employer | is on the payroll at {v} | am on the payroll at {v} | Works at {v}",
        "jumped ship to {v} | jumped ship to {v}",
        "Initrode | Cyberdyne Labs | Sirius Cybernetics | Oscorp | Prestige Worldwide",
        "who is the user's current employer | where do I work | company the user works at",
        "{v} employs the user.",
        "Left the old job; now at {v}. | The user accepted an offer from {v} and started there.",
    ),
    "manager": (
        "line manager | answers to {v} | answer to {v} | Manager: {v}",
        "started reporting to {v} | started reporting to {v}",
        "Henrike | Tobias | Ottoline | Benedikt | Leocadia",
        "who is the user's boss right now | who do I report to | line manager of the user",
        "The user's boss is {v}.",
        "{v} is the user's manager after the reshuffle.",
    ),
    "job_title": (
        "job title | earns a living as a {v} | earn a living as a {v} | Job: {v}",
        "moved into a {v} position | moved into a {v} position",
        "sous chef | data steward | landscape architect | actuary | sommelier",
        "what does the user do professionally | what do I do for a living | user role at work",
        "Currently employed in the role of {v}.",
        "New role for the user: {v}. | I'm a {v} now, it's official.",
    ),
    "diet": (
        "diet | eats {v} | eat {v} | Eats {v}",
        "went {v} | went {v}",
        "raw vegan | macrobiotic | sugar-free | dairy-free | lacto-ovo vegetarian",
        "does the user follow any particular diet | which eating pattern do I follow"
        " | eating habits of the user",
        "The user keeps to a {v} diet.",
        "User dropped {old} and eats {v} now.",
    ),
    "phone_brand": (
        "phone | carries a {v} | carry a {v} | Phone: {v}",
        "traded in the phone for a {v} | traded in my phone for a {v}",
        "Asus Zenfone | Nothing Phone | Motorola Edge | Google Pixel | ZTE Axon",
        "what phone does the user carry around | which phone do I have | mobile device of the user",
        "The user's phone is a {v}.",
        "Ditched the old phone, it's a {v} now.",
    ),
    "editor_theme": (
        "color scheme | codes with the {v} color scheme | code with the {v} color scheme"
        " | Editor colors: {v}",
        "changed the color scheme to {v} | changed my color scheme to {v}",
        "Ayu Mirage | Kanagawa | Everforest | Night Owl | Catppuccin Latte",
        "what color scheme is in the user's editor | which editor theme do I use | IDE theme",
        "Editor theme of choice: {v}.",
        "Editor colors are {v} these days, {old} got old.",
    ),
    "favourite_language": (
        "go-to language | reaches for {v} first | reach for {v} first | Favourite language: {v}",
        "fell for {v} | fell for {v}",
        "Gleam | OCaml | Racket | Julia | Clojure",
        "the user's go-to programming language | my favourite language to code in",
        "{v} is the language the user enjoys most.",
        "The user writes everything in {v} lately and loves it most.",
    ),
    "car": (
        "car | gets around in a {v} | get around in a {v} | Car: {v}",
        "traded the car in for a {v} | traded my car in for a {v}",
        "Dacia Duster | Volvo XC40 | Mazda MX-5 | Citroen C4 | Renault Zoe",
        "what car does the user get around in | which car do I have | vehicle the user owns",
        "The car in the user's driveway is a {v}.",
        "Sold the {old}; the user drives a {v} now.",
    ),
    "gym": (
        "gym | trains at {v} | train at {v} | Gym: {v}",
        "took out a membership at {v} | took out a membership at {v}",
        "Basic-Fit | McFit | SATS | The Gym Group | David Lloyd",
        "where does the user have a gym membership | where do I train | fitness club of the user",
        "The user's gym membership is with {v}.",
        "Cancelled {old}, the user trains at {v} now.",
    ),
    "bank": (
        "bank | has a current account at {v} | have a current account at {v} | Bank: {v}",
        "switched banks to {v} | switched banks to {v}",
        "Starling | Triodos | KBC | Handelsbanken | Sparkasse",
        "where does the user keep a current account | who do I bank with | banking provider",
        "The user's salary goes into a {v} account.",
        "Closed the {old} account; the user banks with {v} these days.",
    ),
    "partner_name": (
        "partner | is dating {v} | am dating {v} | Dating {v}",
        "started seeing {v} | started seeing {v}",
        "Margaux | Mateo | Zainab | Lucien | Anselm",
        "name of the person the user is dating | what's my partner's name"
        " | significant other of the user",
        "{v} and the user have been together a while.",
        "Split up with {old}; the user is with {v} now.",
    ),
    "timezone": (
        "time zone | schedules everything in {v} | schedule everything in {v} | TZ: {v}",
        "switched the time zone to {v} | switched my time zone to {v}",
        "AKST | CEST | PDT | SAST | NZST",
        "which time zone should meetings use for the user | what timezone am I in",
        "All the user's meetings are in {v}.",
        "The user's calendar runs on {v} after the move.",
    ),
    "email_client": (
        "mail app | handles email in {v} | handle email in {v} | Mail app: {v}",
        "moved the inbox to {v} | moved my inbox to {v}",
        "Postbox | eM Client | Claws Mail | KMail | Geary",
        "what does the user read email with | which mail app do I use | email software",
        "Email goes through {v} for the user.",
        "The user does email in {v} ever since the switch.",
    ),
    "browser": (
        "browser | browses the web in {v} | browse the web in {v} | Browser: {v}",
        "ditched the old browser for {v} | ditched my old browser for {v}",
        "Zen Browser | Pale Moon | Ungoogled Chromium | Opera GX | Floorp",
        "what web browser does the user run | which browser am I on | default browser",
        "The user's browser of choice is {v}.",
        "Browser is {v} now, not {old}.",
    ),
    "operating_system": (
        "OS | runs {v} day to day | run {v} day to day | OS: {v}",
        "reinstalled with {v} | reinstalled with {v}",
        "Zorin OS | Void Linux | elementary OS | Gentoo | openSUSE",
        "which OS is on the user's computer | what operating system do I use | desktop OS",
        "The user's machine has {v} on it.",
        "The user's laptop was wiped; it runs {v} these days.",
    ),
    "shell": (
        "terminal shell | types commands into {v} | type commands into {v} | Shell: {v}",
        "changed the login shell to {v} | changed my login shell to {v}",
        "hilbish | yash | ion | mksh | csh",
        "what shell does the user run | which shell am I using | command line shell",
        "The user's default shell is {v}.",
        "chsh done: the user is on {v} now.",
    ),
    "code_editor": (
        "editor | programs in {v} | program in {v} | Editor: {v}",
        "moved the coding setup to {v} | moved my coding setup to {v}",
        "Kakoune | Micro | Geany | Notepad++ | BBEdit",
        "which editor does the user program in | which code editor do I use | programming editor",
        "The user writes all code in {v}.",
        "Coding happens in {v} nowadays, {old} is uninstalled.",
    ),
    "coffee_order": (
        "usual coffee | drinks a {v} every morning | drink a {v} every morning | Coffee: {v}",
        "switched the usual coffee to a {v} | switched my usual to a {v}",
        "cafe bombon | gibraltar | oat latte | long black | iced americano",
        "what should I order for the user at the cafe | what's my usual coffee order"
        " | coffee preference",
        "The user's standing coffee order is a {v}.",
        "The barista knows the user orders a {v} these days.",
    ),
    "football_team": (
        "club | roots for {v} | root for {v} | Fan of {v}",
        "switched allegiance to {v} | switched allegiance to {v}",
        "Real Betis | Dinamo Zagreb | Club Brugge | Olympique Lyonnais | Atletico Madrid",
        "which club does the user root for | what football team do I support | soccer club",
        "The user has a {v} season ticket.",
        "The user cheers for {v} ever since moving.",
    ),
    "university": (
        "university | is enrolled at {v} | am enrolled at {v} | Enrolled at {v}",
        "started a degree at {v} | started a degree at {v}",
        "Sciences Po | University of Tartu | Jagiellonian University | University of Porto"
        " | Uppsala University",
        "where is the user enrolled as a student | where do I study | college of the user",
        "The user is a student at {v}.",
        "The user transferred out of {old} and studies at {v}.",
    ),
    "doctor": (
        "GP | sees {v} for checkups | see {v} for checkups | Doctor: {v}",
        "switched practices to {v} | switched practices to {v}",
        "Dr. Nwachukwu | Dr. Fairbrother | Dr. Petrosyan | Dr. Haddad | Dr. Castellanos",
        "which GP does the user see for checkups | which GP do I see | physician the user sees",
        "The user's appointments are with {v}.",
        "New GP for the user: {v}.",
    ),
    "neighbourhood": (
        "neighbourhood | has a flat in {v} | have a flat in {v} | Neighbourhood: {v}",
        "moved across town to {v} | moved across town to {v}",
        "Moabit | Chamberi | Kallio | Lavapies | Zizkov",
        "which neighbourhood is the user in | what area of town do I live in | district",
        "The user's flat is in the {v} district.",
        "The user left {old} behind and lives in {v} now.",
    ),
    "commute": (
        "commute | travels to the office by {v} | travel to the office by {v} | Commute: {v}",
        "started going in by {v} | started going in by {v}",
        "cargo bike | night bus | kick scooter | commuter rail | carshare",
        "how does the user reach the office | how do I commute | transport to work",
        "The user takes the {v} to work.",
        "No more {old}; the user commutes by {v} now.",
    ),
    "mobile_carrier": (
        "carrier | has a phone contract with {v} | have a phone contract with {v} | Carrier: {v}",
        "switched carriers to {v} | switched carriers to {v}",
        "Giffgaff | Three UK | Fido | Swisscom | Movistar",
        "which network is the user's phone contract with | who's my phone provider | cell network",
        "Phone bills come from {v}.",
        "Ported the number: the user is with {v} now.",
    ),
    "music_app": (
        "music app | streams music on {v} | stream music on {v} | Music: {v}",
        "moved the playlists to {v} | moved my playlists to {v}",
        "Idagio | Anghami | JioSaavn | Plexamp | Roon",
        "which app does the user play music from | what do I stream music on | music service",
        "The user pays for {v} to listen to music.",
        "The user cancelled {old} and listens on {v}.",
    ),
    "laptop": (
        "laptop | works on a {v} | work on a {v} | Laptop: {v}",
        "replaced the laptop with a {v} | replaced my laptop with a {v}",
        "ThinkPad X1 Carbon | HP Spectre x360 | LG Gram | MSI Prestige 14 | Lenovo Yoga Slim 7",
        "what laptop does the user work on | which laptop do I have | computer model",
        "The user's work machine is a {v}.",
        "The {old} died; the user is on a {v} now.",
    ),
    "team": (
        "team | is part of the {v} team | am part of the {v} team | Team: {v}",
        "moved over to the {v} team | moved over to the {v} team",
        "checkout | trust and safety | internal tools | data infrastructure | developer experience",
        "which team in the org chart has the user | what team am I part of | team at work",
        "The user belongs to the {v} team.",
        "After the reorg the user sits with {v}.",
    ),
    "cuisine": (
        "favourite cuisine | adores {v} food | adore {v} food | Cuisine: {v}",
        "has switched favourites to {v} food | have switched favourites to {v} food",
        "Sri Lankan | Uzbek | Georgian | Hawaiian | Oaxacan",
        "what kind of food does the user like most | my favourite cuisine | preferred cuisine",
        "The user's favourite kind of food is {v}.",
        "{v} has replaced {old} as the user's favourite food.",
    ),
    "colour": (
        "favourite colour | is partial to {v} | am partial to {v} | Colour: {v}",
        "has taken a shine to {v} | have taken a shine to {v}",
        "cobalt blue | mustard yellow | terracotta | mint | forest green",
        "which colour is the user fondest of | my favourite colour | color preference",
        "The user would pick {v} over any other colour.",
        "Favourite colour: {v} (used to be {old}).",
    ),
    "preferred_name": (
        "preferred name | wants to be called {v} | want to be called {v} | Call them {v}",
        "started going by {v} | started going by {v}",
        "Ziggy | Bex | Charlie | Rafa | Morgan",
        "how should I address the user | what name do I go by | nickname of the user",
        "The user signs off as {v}.",
        "Please call the user {v} from now on.",
    ),
    "reply_language": (
        "reply language | wants answers in {v} | want answers in {v} | Answer in {v}",
        "asked for replies in {v} | asked for replies in {v}",
        "Slovak | Lithuanian | Estonian | Croatian | Bulgarian",
        "which language should responses be written in | what language should you answer me in",
        "All answers to the user should be in {v}.",
        "I'd like you to answer in {v} from here on.",
    ),
    "wake_time": (
        "alarm | wakes up at {v} | wake up at {v} | Up at {v}",
        "moved the alarm to {v} | moved my alarm to {v}",
        "5:30 | 6:10 | 7:20 | 8:05 | 9:40",
        "when does the user wake up | what time is my alarm | wake time",
        "The user's alarm rings at {v}.",
        "The user is up at {v} since the new job.",
    ),
    "cloud_provider": (
        "cloud | hosts things on {v} | host things on {v} | Cloud: {v}",
        "moved the infrastructure to {v} | moved our infrastructure to {v}",
        "Render | Railway | Alibaba Cloud | UpCloud | OVHcloud",
        "which cloud does the user host on | what cloud provider do I use | hosting platform",
        "The user's servers live on {v}.",
        "The user shut down everything on {old} and hosts on {v}.",
    ),
    "database": (
        "database | runs the app on {v} | run the app on {v} | DB: {v}",
        "migrated the data to {v} | migrated our data to {v}",
        "PostgreSQL | ScyllaDB | SurrealDB | DuckDB | RavenDB",
        "which database engine backs the user's app | which DB am I on | data store engine",
        "The user's backend talks to {v}.",
        "The {old} cluster is gone; the user is on {v} now.",
    ),
    "keyboard_layout": (
        "keyboard layout | types in {v} | type in {v} | Layout: {v}",
        "learned to type on {v} | learned to type on {v}",
        "Colemak-DH | Graphite | Gallium | Semimak | Engram",
        "which keyboard layout is the user typing on | which keyboard layout do I use"
        " | typing layout",
        "Keyboard set up as {v}.",
        "Spent a month relearning; the user types {v} now.",
    ),
    "airline": (
        "airline | books flights with {v} | book flights with {v} | Airline: {v}",
        "started flying {v} instead | started flying {v} instead",
        "airBaltic | Brussels Airlines | TAP Air Portugal | Icelandair | Aegean Airlines",
        "which airline does the user book | what airline do I normally fly | usual carrier",
        "The user collects miles with {v}.",
        "The user gave up on {old} and flies {v} these days.",
    ),
    "health_insurer": (
        "health insurance | is covered by {v} | am covered by {v} | Health insurance: {v}",
        "changed health insurance to {v} | changed my health insurance to {v}",
        "Helsana | Allianz Care | Debeka | CSS | Barmer",
        "who provides the user's health insurance | which health insurer am I with",
        "The user's medical cover is through {v}.",
        "Insurance renewed with a new company: {v}.",
    ),
    "notes_app": (
        "notes app | writes notes in {v} | write notes in {v} | Notes app: {v}",
        "migrated the notes to {v} | migrated my notes to {v}",
        "Capacities | Anytype | Reflect | Amplenote | Roam Research",
        "what app does the user keep notes in | where do I write my notes | note-taking tool",
        "The user keeps all notes in {v}.",
        "All of the user's notes live in {v} after the export from {old}.",
    ),
    "password_manager": (
        "password manager | stores passwords in {v} | store passwords in {v}"
        " | Password manager: {v}",
        "moved the passwords to {v} | moved my passwords to {v}",
        "Psono | Buttercup | Zoho Vault | SafeInCloud | Sticky Password",
        "which password manager does the user have | where are my passwords stored",
        "All logins sit in the user's {v} vault.",
        "Passwords are in {v} now; {old} is deleted.",
    ),
    "hair_colour": (
        "hair colour | has {v} hair | have {v} hair | Hair: {v}",
        "dyed the hair {v} | dyed my hair {v}",
        "copper red | jet black | strawberry blonde | ash brown | chestnut brown",
        "hair colour of the user right now | what colour is my hair now | hair",
        "Hair currently {v}, per the user.",
        "The user went {v} at the hairdresser.",
    ),
    "watch": (
        "watch | has a {v} on the wrist | have a {v} on the wrist | Watch: {v}",
        "switched the watch to a {v} | started wearing a {v} instead",
        "Garmin Fenix | Longines | Casio G-Shock | Amazfit | Tag Heuer",
        "what's on the user's wrist | which watch am I wearing | watch brand",
        "The user's watch is a {v}.",
        "The user retired the {old} and wears a {v}.",
    ),
    "mentor": (
        "mentor | meets {v} for mentoring | meet {v} for mentoring | Mentor: {v}",
        "got {v} as a new mentor | got {v} as a new mentor",
        "Adaeze | Ignatius | Bronagh | Emeka | Wilhelmina",
        "who is mentoring the user at the moment | who is my mentor | mentor of the user",
        "{v} has been the user's mentor for a while.",
        "Mentoring moved from {old} to {v} this quarter.",
    ),
    "project": (
        "project | is busy with {v} | am busy with {v} | Project: {v}",
        "was moved onto {v} | was moved onto {v}",
        "Project Atlas | Nightingale | Halcyon | Meridian | Bluebird",
        "which project is the user busy with | which project am I on | current assignment",
        "The user's main project is {v}.",
        "{old} wrapped up; the user is on {v}.",
    ),
    "sport": (
        "sport | plays {v} on weekends | play {v} on weekends | Sport: {v}",
        "took up {v} | took up {v}",
        "padel | curling | netball | table tennis | ultimate frisbee",
        "what sport fills the user's weekends | which sport do I do | the user's sport",
        "On weekends the user is out playing {v}.",
        "Quit {old}; the user plays {v} now.",
    ),
    "landlord": (
        "landlord | pays rent to {v} | pay rent to {v} | Landlord: {v}",
        "moved into a flat let by {v} | moved into a flat let by {v}",
        "Mr. Petrov | Northgate Lettings | Mrs. Achterberg | Lakeside Property Co | Mr. Oyelaran",
        "who owns the flat the user rents | who do I rent from | person the user rents from",
        "The user's flat is owned by {v}.",
        "The building was sold; the user's landlord is {v} now.",
    ),
}

_INITIAL_FRAMES = (
    "Context: the user {s3}.",
    "{frag}.",
    "Just so you know, I {s1}.",
    "* {frag}",
    "Note (2024-11-03): the user {s3}.",
    "Profile\n- {noun}: {v}",
    "FYI I {s1}, in case it matters.",
    '{{"{noun}": "{v}"}}',
)
_CHANGE_FRAMES = (
    "As of March, the user {s3}.",
    "These days I {s1}.",
    "The user's {noun} is no longer {old}, it's {v}.",
    "I {ch1} over the summer.",
    "Note (2025-02-17): user {ch3}.",
    "{noun} update: {old} → {v}",
    "Ever since the switch, the user's {noun} has been {v}.",
    "Heads up: the user {ch3} and is done with {old}.",
    "Switched {noun} from {old} to {v}.",
)
_OTHER_FRAMES = (
    "My {rel}, for what it's worth, {s3}.",
    "The user says their {rel} {s3}.",
    "For reference, the user's {rel} {s3}.",
)
_HYPO_FRAMES = (
    "The user may {inf} eventually, nothing decided.",
    "If it works out, I'd {inf}.",
    "The user's {noun} is not {v}.",
    "Wondering whether to {inf} at some point.",
)


def _split(line: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in line.split(" | ") if part.strip())


def _family(row: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    noun, s3, s1, frag = _split(row[0])
    ch3, ch1 = _split(row[1])
    inf = "be " + s1[3:] if s1.startswith("am ") else s1

    def fill(frame: str) -> str:
        return (
            frame.replace("{s3}", s3)
            .replace("{s1}", s1)
            .replace("{inf}", inf)
            .replace("{frag}", frag)
            .replace("{ch3}", ch3)
            .replace("{ch1}", ch1)
            .replace("{noun}", noun)
        )

    return {
        "initial": tuple(fill(f) for f in _INITIAL_FRAMES) + _split(row[4]),
        "change": tuple(fill(f) for f in _CHANGE_FRAMES) + _split(row[5]),
        "values": _split(row[2]),
        "queries": _split(row[3]),
        "other": tuple(fill(f) for f in _OTHER_FRAMES),
        "hypothetical": tuple(fill(f) for f in _HYPO_FRAMES),
    }


_FAMILIES: dict[str, dict[str, tuple[str, ...]]] = {name: _family(r) for name, r in _ROWS.items()}

_MULTI: dict[str, dict[str, tuple[str, ...]]] = {
    "pets": {
        "initial": (
            "There's a {v} in the user's flat.",
            "Pets -> {v}",
            "We adopted a {v} last year.",
        ),
        "add": (
            "Plus a {v} now.",
            "Another pet joined the household: a {v}.",
            "Pets, cont.: a {v}",
        ),
        "values": ("guinea pig", "bearded dragon", "axolotl", "budgie", "corn snake"),
        "queries": ("what pets does the user keep", "which animals live with me"),
    },
    "languages_spoken": {
        "initial": (
            "Native language of the user: {v}.",
            "Languages -> {v}",
            "I grew up speaking {v}.",
        ),
        "add": (
            "Also gets by in {v}.",
            "I've started speaking {v} too.",
            "Can hold a conversation in {v} as well.",
        ),
        "values": ("Amharic", "Icelandic", "Catalan", "Hebrew", "Malay"),
        "queries": ("languages the user can speak", "which languages do I speak"),
    },
    "hobbies": {
        "initial": ("Spends weekends on {v}.", "Pastime -> {v}", "I'm a huge {v} nerd."),
        "add": (
            "Lately also into {v}.",
            "The user added {v} to their hobbies.",
            "I've also started {v}.",
        ),
        "values": ("calligraphy", "beekeeping", "kayaking", "bookbinding", "sketching"),
        "queries": ("pastimes of the user", "what do I do in my spare time"),
    },
    "liked_foods": {
        "initial": ("Can't resist {v}.", "Food they love -> {v}", "I could eat {v} daily."),
        "add": ("Also likes {v}.", "Add {v} to the foods the user likes.", "I'm into {v} as well."),
        "values": ("bibimbap", "arancini", "katsu curry", "tacos al pastor", "khachapuri"),
        "queries": ("foods the user is a fan of", "which dishes do I like"),
    },
    "children": {
        "initial": (
            "The user's eldest is called {v}.",
            "Kid -> {v}",
            "My child {v} turns five soon.",
        ),
        "add": ("There's a younger one too, {v}.", "Second child: {v}", "My youngest is {v}."),
        "values": ("Elsa", "Ottilie", "Caspian", "Noemi", "Leona"),
        "queries": ("what are the user's children called", "what are my kids' names"),
    },
    "instruments": {
        "initial": (
            "The user has played the {v} for years.",
            "Instrument -> {v}",
            "I've played the {v} since I was small.",
        ),
        "add": (
            "Also learning {v}.",
            "The user picked up the {v} recently too.",
            "I play the {v} as well.",
        ),
        "values": ("oboe", "theremin", "viola", "trumpet", "bass guitar"),
        "queries": ("musical instruments the user can play", "which instruments can I play"),
    },
}

PHRASINGS: dict[str, Any] = {
    "generic_initial": ("Known {attr}: {v}", "As far as I know, the user's {attr} is {v}."),
    "generic_change": (
        "New {attr}: {v} (replacing {old})",
        "The {attr} has changed, it's {v} now.",
        "Replaced {old} with {v} as the {attr}.",
    ),
    "generic_other": ("For the user's {rel}, the {attr} is {v}.",),
    "generic_hypothetical": (
        "The user asked what switching the {attr} to {v} would involve.",
        "Not {v}: the user ruled that out as a {attr}.",
    ),
    "relations": ("stepsister", "godfather", "brother-in-law", "bandmate"),
    "distractors": (
        "Asked for a packing list for a weekend trip.",
        "User wanted a recipe that uses up leftover rice.",
        "Prefers bullet points over long paragraphs.",
        "The user is preparing a talk for a meetup next month.",
        "Asked how compound interest works.",
        "FYI I hate when answers start with a disclaimer.",
        "Planning a surprise party, details TBD.",
        "The user was debugging a memory leak in a Go service.",
        "Had a rough week and wanted to vent.",
        "Wants a reminder to renew the passport.",
        "* Likes concise answers with sources",
        "Note (2025-03-08): asked for help with a birthday poem.",
    ),
    "families": _FAMILIES,
    "multi": _MULTI,
}
"""The fourth split (``dev4``): frames times family parts, plus hand-written lines."""
