"""Value vocabularies: the words that say which attribute a value belongs to.

"I switched to Neovim" names no attribute; the value does (an editor). A family with a
vocabulary (:class:`~langchain_tepa.extraction.families.Family`) takes a value from a generic
verb ("use", "switch to", "have") only when the value's first word is in its vocabulary.

Example:
    >>> "neovim" in EDITORS and "dog" in PETS
    True
"""

from __future__ import annotations

__all__ = [
    "AIRLINES",
    "BANKS",
    "BROWSERS",
    "CARRIERS",
    "CARS",
    "CLOUDS",
    "COFFEES",
    "DATABASES",
    "EDITORS",
    "EMAIL_CLIENTS",
    "INSTRUMENTS",
    "KEYBOARD_LAYOUTS",
    "LAPTOPS",
    "MUSIC_APPS",
    "NATURAL_LANGUAGES",
    "NOTES_APPS",
    "PASSWORD_MANAGERS",
    "PETS",
    "PHONES",
    "PROGRAMMING_LANGUAGES",
    "SHELLS",
    "SPORTS",
    "SYSTEMS",
    "THEMES",
    "TIMEZONES",
    "WATCHES",
    "all_words",
    "words",
]


def words(text: str) -> frozenset[str]:
    """The lower-case words of ``text`` as a set.

    Example:
        >>> sorted(words("Vim Emacs"))
        ['emacs', 'vim']
    """
    return frozenset(text.casefold().split())


PETS = words(
    "dog dogs cat cats puppy kitten parrot rabbit bunny hamster goldfish fish turtle tortoise "
    "snake lizard horse pony bird budgie canary guinea ferret gecko chinchilla hedgehog "
    "chicken chickens rat mouse iguana axolotl pig cockatiel tarantula"
)
INSTRUMENTS = words(
    "guitar piano violin drums cello flute saxophone sax trumpet bass ukulele harp clarinet "
    "keyboard banjo accordion harmonica viola trombone oboe mandolin bagpipes synthesizer"
)
SPORTS = words(
    "tennis football soccer basketball golf volleyball badminton squash cricket rugby hockey "
    "baseball padel handball softball pickleball lacrosse rowing swimming running cycling "
    "climbing bouldering boxing judo karate fencing skiing snowboarding surfing triathlon "
    "netball polo kayaking canoeing sailing athletics wrestling taekwondo"
)
NATURAL_LANGUAGES = words(
    "english french spanish german italian portuguese dutch polish russian ukrainian czech "
    "slovak hungarian romanian greek turkish arabic hebrew persian farsi hindi urdu bengali "
    "punjabi tamil telugu mandarin cantonese chinese japanese korean vietnamese thai "
    "indonesian malay tagalog swahili swedish norwegian danish finnish icelandic catalan "
    "basque galician irish welsh serbian croatian bulgarian lithuanian latvian estonian "
    "esperanto latin yiddish amharic afrikaans zulu"
)
PROGRAMMING_LANGUAGES = words(
    "python rust go golang java javascript typescript kotlin swift ruby php scala haskell "
    "elixir erlang julia dart lua perl zig clojure ocaml c c++ c# f# fortran cobol matlab "
    "r nim crystal elm racket lisp scheme solidity groovy"
)
BROWSERS = words("chrome firefox safari edge brave arc opera vivaldi chromium librewolf")
SYSTEMS = words(
    "linux windows macos mac ubuntu fedora debian arch nixos chromeos freebsd mint manjaro "
    "pop!_os popos elementary"
)
EDITORS = words(
    "vs vscode vim neovim emacs intellij pycharm sublime zed cursor atom nano helix "
    "webstorm xcode eclipse goland clion rider notepad++ kate"
)
EMAIL_CLIENTS = words(
    "gmail outlook protonmail proton fastmail yahoo icloud hey tutanota zoho hotmail "
    "thunderbird spark airmail mailspring superhuman apple"
)
THEMES = words(
    "dark light solarized monokai dracula nord gruvbox high-contrast one tokyo catppuccin "
    "ayu everforest kanagawa material github rose oceanic"
)
SHELLS = words("bash zsh fish nushell sh ksh tcsh powershell elvish xonsh dash")
COFFEES = words(
    "flat espresso latte cappuccino cold americano mocha macchiato cortado filter iced "
    "black double oat decaf"
)
CARS = words(
    "volvo tesla honda toyota vw volkswagen bmw audi ford kia hyundai mazda nissan renault "
    "peugeot fiat skoda subaru mercedes porsche jeep mini lexus polestar rivian citroen seat "
    "opel chevrolet dacia jaguar"
)
PHONES = words("iphone pixel samsung oneplus galaxy xiaomi motorola nokia huawei oppo sony")
LAPTOPS = words(
    "macbook thinkpad dell xps framework surface chromebook hp lenovo asus acer razer "
    "alienware zenbook spectre pixelbook"
)
WATCHES = words(
    "apple garmin casio seiko rolex fitbit omega tissot citizen swatch timex withings "
    "galaxy pixel tag"
)
MUSIC_APPS = words("spotify apple tidal deezer youtube amazon soundcloud pandora qobuz bandcamp")
CARRIERS = words(
    "vodafone t-mobile o2 orange verizon at&t sprint ee three movistar telekom mint fi "
    "meo nos vivo tim"
)
CLOUDS = words(
    "aws gcp azure hetzner digitalocean heroku vercel netlify fly.io linode ovh cloudflare "
    "render oracle google ibm scaleway"
)
DATABASES = words(
    "postgres postgresql mysql mongodb sqlite redis dynamodb cassandra mariadb oracle "
    "cockroachdb supabase firebase elasticsearch clickhouse snowflake bigquery neo4j duckdb"
)
KEYBOARD_LAYOUTS = words("qwerty dvorak colemak azerty qwertz workman")
NOTES_APPS = words(
    "notion obsidian evernote bear onenote apple google logseq roam joplin simplenote craft"
)
PASSWORD_MANAGERS = words("1password bitwarden lastpass keepassxc keepass dashlane proton nordpass")
AIRLINES = words(
    "tap klm lufthansa easyjet ryanair delta united american british emirates qatar "
    "iberia wizz sas finnair swiss turkish jetblue southwest alaska qantas singapore "
    "vueling norwegian"
)
BANKS = words(
    "ing monzo barclays santander hsbc revolut n26 chase wells citi citibank lloyds natwest "
    "deutsche bnp millennium nubank wise starling halifax nationwide rabobank abn ubs "
    "commerzbank unicredit intesa caixa bbva sabadell cgd novo bunq"
)


def all_words() -> frozenset[str]:
    """Every word of every vocabulary of this module.

    Example:
        >>> "spotify" in all_words()
        True
    """
    out: set[str] = set()
    for name in __all__:
        value = globals()[name]
        if isinstance(value, frozenset):
            out |= value
    return frozenset(out)


TIMEZONES = words(
    "utc gmt cet cest eet eest wet west est edt cst cdt mst mdt pst pdt akst hst bst ist jst "
    "kst aest aedt acst awst nzst nzdt sgt hkt msk brt art pacific eastern central mountain"
)
