"""The lexical model of the offline embeddings: stop words, a small stemmer, concept words.

:class:`~langchain_tepa.embeddings.HashingEmbeddings` (``version=2``, the default) reads a text
as its content words: stop words dropped ("where does the user live" -> "live"), each word
stemmed by a small suffix stripper of our own (``live``/``lives``/``lived``/``living`` ->
``liv``), and each stem that names an attribute of a person adds that attribute's *concept*
("live", "moved", "city", "based" all add ``home_city``; "money" adds ``bank``). So "where
does the user live" meets "User moved to Oslo" although they share no word.

The concept table (:data:`CONCEPTS`) is data: it was built once from the attribute tables of the
offline extractor of issue 27 and is frozen here, so the embeddings (and every vector stored with
them) do not change when the extractor's rules do.

Example:
    >>> stem("living"), stem("lives"), stem("moved"), stem("cities")
    ('liv', 'liv', 'mov', 'city')
    >>> content_words("Where does the user live?")
    ['live']
    >>> "home_city" in concepts("liv")
    True
"""

from __future__ import annotations

import functools
import re

__all__ = ["CONCEPTS", "STOP_WORDS", "concepts", "content_words", "stem"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

STOP_WORDS = frozenset(
    """a about above after again all also am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves s t d ll m re ve
    user users user's please ok okay""".replace("\n", " ").split(" ")
) - {""}
"""Words that say nothing about what a memory is about (with ``user``: every memory has it)."""

_KEEP_E = frozenset({"the"})


def stem(word: str) -> str:
    """A light stem: plural, ``-ed`` and ``-ing`` endings and a final ``e`` removed.

    Example:
        >>> [stem(w) for w in ("relocated", "running", "shopping", "boxes", "class")]
        ['relocat', 'run', 'shop', 'box', 'class']
    """
    w = word.casefold()
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is", "ous")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1].isalpha():
        w = w[:-1]  # "running" -> "runn" -> "run", "shopped" -> "shopp" -> "shop"
    if w.endswith("e") and len(w) > 3 and w not in _KEEP_E:
        w = w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """The words of ``text`` without stop words (all of them when only stop words are left).

    Example:
        >>> content_words("the user's home city"), content_words("the")
        (['home', 'city'], ['the'])
    """
    words = _WORD.findall(text.casefold())
    kept = [w for w in words if w not in STOP_WORDS]
    return kept or words


CONCEPTS = """
address: address postal street
age: age turn
airline: airlin alaska american british delta easyjet emirat finnair flight fly flyer frequent
    iberia jetblu klm lufthansa mil prefer qanta qatar ryanair sas singapor southwest swiss tap
    unit usual vuel wizz
allergies: allergy
bank: account bank check current deposit money salary sav
bedtime: bedtim
birthday: birth birthday dat dob
birthplace: birth birthplac city
blood_type: blood
browser: arc brav brows browser chrom chromium edg firefox internet librewolf opera safari surf
    vivaldi web
car: audi automobil bmw car chevrolet citroen dacia dealership delivery driv fiat ford honda
    hyundai jaguar jeep kia leas lexus mazda merced mini nissan opel peugeot polestar porsch
    renault rid rivian seat skoda subaru tesla toyota vehicl volkswagen volvo vw
children: baby child children daughter kid son stepson twin
cloud_provider: aws azur cloud cloudflar deploy digitalocean gcp googl heroku hetzner host ibm
    infra infrastructur linod netlify oracl ovh platform render scaleway server vercel
cloud_storage: cloud storag
coffee: americano barista black caf cappuccino coff cold cortado decaf doubl drink espresso
    filter flat iced latt macchiato mocha oat order preferenc usual
commute: commut mean mod offic rid transport travel way
cuisine: cook cuisin dish favourit food restaurant
database: bigquery cassandra clickhous cockroachdb data databas datastor db duckdb dynamodb
    elasticsearch firebas mariadb mongodb mysql oracl postgr postgresql query redis snowflak
    sqlit stor storag supabas
dentist: dentist
diet: atkin carnivor diet dietary eat flexitarian fruitarian halal keto kosher meal
    mediterranean omnivor omnivorous paleo pescatarian pescetarian preferenc styl vegan
    vegetarian way
dislikes: detest dislik hat
doctor: clinic doctor family general gp patient physician practitioner register
editor: atom clion cod cursor develop development eclips editor emac goland helix ide intellij
    kat nano neovim pycharm rider sublim text vim vs vscod webstorm xcod zed
editor_theme: ayu catppuccin cod color colour dark dracula editor everforest github gruvbox ide
    kanagawa light material monokai nord oceanic one ros schem solariz them tokyo
email_address: address email mail
email_client: airmail client email fastmail gmail hey hotmail icloud inbox mail mailspr outlook
    program proton protonmail servic spark superhuman thunderbird tutanota yaho zoho
employer: company employ employer firm hir job join organisation organization payroll salary
    staf start workplac
favourite_colour: color colour favourit shad
football_team: cheer club fan follow football root soccer support supporter team
gym: club exercis fitness gym health lift member membership studio train workout
hair_colour: color colour dye hair hairdresser
health_insurer: cover health insur insuranc insurer plan policy
hobbies: enjoy hobby interest lik lov pastim tak
home_city: bas city current emigrat hometown liv location mov now relocat resid residenc
    resident settl stay town
home_country: country residenc
instruments: accordion bagpip banjo bass cello clarinet drum flut guitar harmonica harp
    instrument keyboard learn mandolin obo piano play sax saxophon synthesizer trombon trumpet
    ukulel viola violin
internet_provider: broadband internet isp
keyboard_layout: azerty colemak dvorak finger key keyboard layout qwerty qwertz workman
landlord: agency agent flat landlady landlord leas let manager property rent tenant
languages: afrikaan amharic arabic basqu bengali bulgarian cantones catalan chines croatian
    czech danish dutch english esperanto estonian farsi finnish french galician german greek
    hebrew hindi hungarian icelandic indonesian irish italian japanes korean latin latvian
    lithuanian malay mandarin persian polish portugues punjabi romanian russian serbian slovak
    spanish speak spoken swahili swedish tagalog tamil telugu thai ukrainian urdu vietnames
    welsh yiddish zulu
laptop: acer alienwar asus buy chromebook computer dell framework hp laptop lenovo macbook
    machin notebook pixelbook razer spectr surfac thinkpad upgrad use xps zenbook
likes: ador enjoy lik lov
major: degr field major study subject
manager: boss direct lead leader lin manag manager report supervis supervisor team
mentor: coach ment mentor
mobile_carrier: carrier company ee fi meo mint mobil movistar network nos number orang phon
    plan sim sprint telekom thr tim verizon vivo vodafon
music_app: amazon bandcamp deezer listen music pandora player playlist qobuz servic song
    soundcloud spotify stream tidal youtub
name: address call first full go nam nicknam prefer
native_language: afrikaan amharic arabic basqu bengali bulgarian cantones catalan chines
    croatian czech danish dutch english esperanto estonian farsi finnish first french galician
    german greek hebrew hindi hungarian icelandic indonesian irish italian japanes korean latin
    latvian lithuanian malay mandarin mother nativ persian polish portugues punjabi romanian
    russian serbian slovak spanish swahili swedish tagalog tamil telugu thai tongu ukrainian
    urdu vietnames welsh yiddish zulu
neighbourhood: apartment area borough district flat neighborhood neighbourhood part quarter
    suburb town
notes_app: bear craft evernot googl joplin journal logseq not notebook notion obsidian onenot
    roam simplenot tak
occupation: becom career job lin occupation position profession promot retrain rol titl
operating_system: arch chromeo debian distro elementary fedora format freebsd install linux mac
    maco manjaro mint nixo operat os popo reinstall system ubuntu window wip
origin: country hometown origin town
partner: boyfriend dat fianc girlfriend half husband nam partner relationship see significant
    spous together wif
password_manager: bitwarden credential dashlan keepass keepassxc lastpass login manager
    nordpass password proton vault
pets: adopt animal axolotl bird budgi bunny canary cat chicken chinchilla cockatiel dog ferret
    fish gecko goldfish guinea hamster hedgehog hors iguana kitten lizard mous parrot pet pig
    pony puppy rabbit rat rescu snak tarantula tortois turtl
phone: brand cell cellphon galaxy handset huawei iphon mobil model motorola nokia oneplus oppo
    phon pixel samsung smartphon sony xiaomi
phone_number: cell mobil number phon telephon
plan: plan subscription tier
programming_language: choic clojur cobol cod crystal dart develop elixir elm enjoy erlang
    fortran go golang groovy haskell java javascript julia kotlin lik lisp lov lua matlab nim
    ocaml perl php program python racket ruby rust scala schem solidity swift typescript writ
    zig
project: assign current join lead project sprint staf
pronouns: pronoun
relationship_status: marital relationship status
reply_language: afrikaan amharic answer arabic basqu bengali bulgarian cantones catalan chines
    croatian czech danish dutch english esperanto estonian farsi finnish french galician german
    greek hebrew hindi hungarian icelandic indonesian irish italian japanes korean latin
    latvian lithuanian malay mandarin persian polish portugues prefer punjabi reply respond
    respons romanian russian serbian slovak spanish swahili swedish tagalog tamil telugu thai
    ukrainian urdu vietnames welsh yiddish zulu
school: accept admit alma attend campus colleg degr enrol enroll mater school student study
    transfer uni university
shell: bash dash default elvish fish ksh login nushell powershell prompt sh shell tcsh terminal
    xonsh zsh
shoe_size: sho siz
sport: athlet athletic badminton baseball basketball boulder box cano climb compet cricket cycl
    fenc football golf handball hockey judo karat kayak lacross leagu match netball padel
    pickleball play polo row rugby sail ski snowboard soccer softball sport squash surf swim
    taekwondo tak tennis triathlon volleyball wrestl
supermarket: grocer grocery shop stor supermarket
team: department division reorg squad team
timezone: calendar clock hour tim timezon tz zon
units: measurement system unit
wake_time: alarm morn ris tim wak
watch: casio citizen fitbit galaxy garmin omega pixel rolex seiko smartwatch swatch tag timex
    tissot watch wear with wrist wristwatch
"""
"""Each attribute concept and the stems that add it (a stem is listed under at most three)."""


@functools.lru_cache(maxsize=1)
def _concept_table() -> dict[str, tuple[str, ...]]:
    members: dict[str, set[str]] = {}
    concept = ""
    for token in CONCEPTS.split():
        if token.endswith(":"):
            concept = token[:-1]
        else:
            members.setdefault(token, set()).add(concept)
    return {s: tuple(sorted(f)) for s, f in members.items()}


def concepts(stemmed: str) -> tuple[str, ...]:
    """The attribute concepts a stem belongs to (empty for most words).

    Example:
        >>> concepts("employer"), concepts("xylophonist")
        (('employer',), ())
    """
    return _concept_table().get(stemmed, ())
