"""Family rules that must not fire on the wrong attribute: value types, trailing words, purpose
phrases, the value's own vocabulary, and a repeated value landing on the key that holds it."""

from __future__ import annotations

import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory, TEPAStore
from langchain_tepa.extraction.generic import infer_family, stem, user_predicate
from langchain_tepa.extraction.offline import OfflineFactExtractor
from langchain_tepa.extraction.values import trim_tail, value_fits
from langchain_tepa.store import store_policy


@pytest.fixture
def ex() -> OfflineFactExtractor:
    return OfflineFactExtractor()


def _pairs(ex: OfflineFactExtractor, text: str) -> list[tuple[str, str]]:
    return [(f.key, str(f.value)) for f in ex.extract(text)]


@pytest.mark.parametrize(
    ("family", "value", "fits"),
    [
        ("email_address", "Geary", False),
        ("email_address", "ada@example.org", True),
        ("timezone", "Orion", False),
        ("timezone", "CET", True),
        ("timezone", "UTC+3", True),
        ("timezone", "Europe/Lisbon", True),
        ("occupation", "member of Anytime Fitness", False),
        ("occupation", "KLM frequent flyer", False),
        ("occupation", "data engineer", True),
        ("home_city", "Oslo", True),
    ],
)
def test_a_family_rejects_a_value_of_another_type(family: str, value: str, fits: bool) -> None:
    assert value_fits(family, value) is fits


def test_a_value_never_ends_with_a_function_word() -> None:
    assert trim_tail("Geary for") == "Geary"
    assert trim_tail("OpenBSD on the") == "OpenBSD"
    assert trim_tail("Sway as the") == "Sway"
    assert trim_tail("Oslo") == "Oslo"
    assert trim_tail("for") == "for"  # nothing would be left: kept as it is


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a rule on the wrong attribute: the type guard sends the claim to the right one
        ("I use Geary for email.", ("user.email_client", "Geary")),
        ("User became a member of Anytime Fitness.", ("user.gym", "Anytime Fitness")),
        ("User became a KLM frequent flyer.", ("user.airline", "KLM")),
        # the words after a name say what it is for, more surely than the verb
        ("I moved over to Kakoune for coding.", ("user.editor", "Kakoune")),
        ("User went over to Floorp for browsing.", ("user.browser", "Floorp")),
        # still a move where the purpose names no attribute
        ("I moved to Berlin for work.", ("user.home_city", "Berlin")),
        # "-ies" verbs meet their cue ("flies" is "fly")
        ("User usually flies Norse Atlantic.", ("user.airline", "Norse Atlantic")),
        # a cue word of one family alone names it, so a new brand is read
        ("User surfs with Floorp.", ("user.browser", "Floorp")),
        # a preposition that opens the value belongs to the verb
        ("User has moved on to rooibos tea.", ("user.moved_on_to", "rooibos tea")),
    ],
)
def test_rules_fire_on_the_attribute_the_sentence_names(
    ex: OfflineFactExtractor, text: str, expected: tuple[str, str]
) -> None:
    assert _pairs(ex, text) == [expected]


def test_a_project_is_no_time_zone(ex: OfflineFactExtractor) -> None:
    keys = [k for k, _ in _pairs(ex, "User is working on Orion now.")]
    assert "user.timezone" not in keys


def test_stems_of_ies_verbs() -> None:
    assert stem("flies") == stem("fly") == "fly"
    assert stem("studied") == "study"


def test_the_value_s_vocabulary_outweighs_one_cue_word() -> None:
    # "fan" is a football cue, but Crystal is a programming language
    assert infer_family(["has", "become", "a"], "Crystal", after=["fan"]) == (
        "programming_language",
        "Crystal",
    )


def test_a_closed_vocabulary_still_refuses_unknown_words() -> None:
    # "coding" names the editor and the programming language; Nova is no language
    assert infer_family(["moved", "over", "to"], "Nova", after=["for", "coding"]) == (
        "editor",
        "Nova",
    )
    assert infer_family(["drinks"], "tea") is None  # a lower-case word: no coffee order
    assert user_predicate("User drinks tea") == ("drinks", "tea", False, False)


def _store() -> TEPAStore:
    emb = HashingEmbeddings()
    memory = TEPAMemory.in_memory(embeddings=emb, policy=store_policy())
    return TEPAStore(memory, index={"dims": 384, "embed": emb, "fields": ["content"]})


def _served(store: TEPAStore, ns: tuple[str, ...], query: str) -> list[str]:
    return [str(i.value["content"]) for i in store.search(ns, query=query, limit=3)]


def test_a_repeated_value_lands_on_the_key_that_holds_it() -> None:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": "USER PROFILE - airline: Ryanair"})
    store.put(ns, "b", {"content": "The user always books Ryanair."})
    store.put(ns, "c", {"content": "UPDATE: airline -> Lufthansa"})
    served = _served(store, ns, "which airline does the user fly")
    assert "UPDATE: airline -> Lufthansa" in served
    assert "The user always books Ryanair." not in served


def test_a_repeated_value_never_joins_a_multi_valued_key() -> None:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": "I have a dog."})
    store.put(ns, "b", {"content": "I also have a cat."})
    store.put(ns, "c", {"content": "The user keeps a dog."})
    served = _served(store, ns, "what pets does the user have")
    assert "I have a dog." in served and "I also have a cat." in served


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a capitalised abbreviation that is a label is no note header
        ("TZ: CET", ("user.timezone", "CET")),
        ("DB: SQLite", ("user.database", "SQLite")),
        ("GP is Dr. Okafor", ("user.doctor", "Dr. Okafor")),
        # a label, a preposition and a value: a note without a colon
        ("Notes in Bear Notes", ("user.notes_app", "Bear Notes")),
        # "<Value> is the user's <label>": the label's head noun names the family
        ("Zsh is the user's command-line shell.", ("user.shell", "Zsh")),
        ("Kotlin is the user's favourite language.", ("user.programming_language", "Kotlin")),
        # the value's vocabulary retypes a rule's family ("on the machine": no laptop)
        ("I put Fedora on the machine recently.", ("user.operating_system", "Fedora")),
        # requests and causatives
        ("User asked everyone to call them Remy.", ("user.name", "Remy")),
        ("The user asked to switch replies to Portuguese.", ("user.reply_language", "Portuguese")),
        ("I had my hair dyed teal.", ("user.hair_colour", "teal")),
        ("User has got red hair.", ("user.hair_colour", "red")),
        ("Call the user Sam from now on.", ("user.name", "Sam")),
        # markers ("default") name no attribute
        ("User set Floorp as the default browser.", ("user.browser", "Floorp")),
        # a phone number has digits
        ("User ported the number over to Lycamobile.", ("user.mobile_carrier", "Lycamobile")),
    ],
)
def test_frames_and_labels_that_name_the_attribute(
    ex: OfflineFactExtractor, text: str, expected: tuple[str, str]
) -> None:
    assert _pairs(ex, text) == [expected]


@pytest.mark.parametrize(
    "text", ["The user asked about the weather.", "I had my car washed yesterday."]
)
def test_requests_and_causatives_without_an_attribute_make_no_claim(
    ex: OfflineFactExtractor, text: str
) -> None:
    assert _pairs(ex, text) == []


def test_one_brand_makes_several_devices() -> None:
    from langchain_tepa.extraction.families import FAMILIES
    from langchain_tepa.extraction.generic import retype

    assert retype(FAMILIES["laptop"], "Huawei MateBook").name == "laptop"
    assert retype(FAMILIES["laptop"], "Ubuntu").name == "operating_system"


def test_a_general_attribute_lands_on_the_specific_known_one() -> None:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": "- football team: Ajax"})
    store.put(ns, "b", {"content": "User's team is Celtic after the switch."})
    served = _served(store, ns, "what football team does the user support")
    assert "- football team: Ajax" not in served


def test_a_work_team_stays_apart_from_a_football_club() -> None:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": "- football team: Ajax"})
    store.put(ns, "b", {"content": "User's team is payments."})
    assert "- football team: Ajax" in _served(store, ns, "what football team does the user support")


def test_a_manager_is_no_password_manager() -> None:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": "User keeps passwords in Enpass."})
    store.put(ns, "b", {"content": "User reports directly to Mei."})
    assert "User keeps passwords in Enpass." in _served(
        store, ns, "User keeps passwords in Enpass."
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("User loves Sichuan food most now.", ("user.cuisine", "Sichuan")),
        ("I love the colour teal.", ("user.favourite_colour", "teal")),
        ("User likes coding in Zig most.", ("user.programming_language", "Zig")),
        ("The user started liking teal most.", ("user.favourite", "teal")),
        ("Notes: Logseq", ("user.notes_app", "Logseq")),
        ("Wake: 6:15", ("user.wake_time", "6:15")),
        ("Noted that the user sees Dr. Ito.", ("user.doctor", "Dr. Ito")),
        ("I switched over to AEST recently.", ("user.timezone", "AEST")),
        ("Korean cooking is the user's favourite.", ("user.cuisine", "Korean")),
    ],
)
def test_favourites_notes_titles_and_zones(
    ex: OfflineFactExtractor, text: str, expected: tuple[str, str]
) -> None:
    assert _pairs(ex, text) == [expected]


def test_liking_several_things_still_adds_values(ex: OfflineFactExtractor) -> None:
    assert _pairs(ex, "I love hiking and skiing.") == [
        ("user.hobbies", "hiking"),
        ("user.hobbies", "skiing"),
    ]


def test_a_bare_favourite_lands_on_the_known_favourite_of_its_kind() -> None:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": "User's favourite colour is magenta."})
    store.put(ns, "b", {"content": "User's favourite cuisine is Thai."})
    store.put(ns, "c", {"content": "Lately the user started liking teal most."})
    served = _served(store, ns, "what is the user's favourite colour")
    assert "User's favourite colour is magenta." not in served
    assert "User's favourite cuisine is Thai." in _served(store, ns, "favourite cuisine")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a type note in brackets is the value's type
        ("Lives in Gracia (neighbourhood)", ("user.neighbourhood", "Gracia")),
        # "The <label> the user <verb> is V"
        ("The cuisine the user likes most is Ethiopian.", ("user.cuisine", "Ethiopian")),
        ("The browser the user uses is Floorp.", ("user.browser", "Floorp")),
        # a passive event holds now ("was matched with"), the words after the name decide
        ("User was matched with Ines as a mentor.", ("user.mentor", "Ines")),
        ("The user was moved onto project Lynx.", ("user.project", "Lynx")),
        # a noun after a preposition is a place, not the value's type
        ("User likes the Rose Pine theme in the editor.", ("user.editor_theme", "Rose Pine")),
        # "likes X Y best" where Y names no family: X Y is the favourite
        ("User likes dusty rose best.", ("user.favourite", "dusty rose")),
        # a diet named by a common name, a labelled note with a head noun
        ("Currently, the user eats low-carb.", ("user.diet", "low-carb")),
        ("The user's favourite language is Kotlin.", ("user.programming_language", "Kotlin")),
        ("Following a pescatarian diet now.", ("user.diet", "pescatarian")),
        ("The user found a flat in Neukolln.", ("user.neighbourhood", "Neukolln")),
        ("The user's money is at Monzo.", ("user.bank", "Monzo")),
    ],
)
def test_more_frames_that_name_the_attribute(
    ex: OfflineFactExtractor, text: str, expected: tuple[str, str]
) -> None:
    assert _pairs(ex, text) == [expected]


@pytest.mark.parametrize(
    "text", ["User was married to Tom.", "User was living in Rome.", "User was thinking of Rome."]
)
def test_a_past_state_is_still_no_present_claim(ex: OfflineFactExtractor, text: str) -> None:
    assert not [k for k, _ in _pairs(ex, text) if k in ("user.home_city",)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a label that names the family outright takes a word outside its vocabulary
        ("The coffee order of the user is cortadito.", ("user.coffee", "cortadito")),
        # a thing's verb phrase read by its words ("app runs on": the database)
        ("User's app runs on CouchDB these days.", ("user.database", "CouchDB")),
        # "<Label> now <verb>ed <Value>" notes
        ("Editor now themed Palenight.", ("user.editor_theme", "Palenight")),
        # a name's own last word names its family
        ("I got into Kings College.", ("user.school", "Kings College")),
        ("I signed up at Titan Gym.", ("user.gym", "Titan Gym")),
    ],
)
def test_labels_things_and_names_that_name_the_attribute(
    ex: OfflineFactExtractor, text: str, expected: tuple[str, str]
) -> None:
    assert _pairs(ex, text) == [expected]


def test_a_hobby_is_an_activity_not_a_name() -> None:
    assert value_fits("hobbies", "Trinity College") is False
    assert value_fits("hobbies", "water polo") is True


def test_a_verb_that_takes_a_name_outranks_a_label_that_takes_words(
    ex: OfflineFactExtractor,
) -> None:
    assert _pairs(ex, "The user's team now reports to Ingrid.") == [("user.manager", "Ingrid")]
    assert _pairs(ex, "My passwords live in Bitwarden.") == [("user.password_manager", "Bitwarden")]
    assert _pairs(ex, "My team works on payments.") == [("user.team", "payments")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a hobby may be a capitalised activity; a named place is no hobby
        ("I am into Pilates.", [("user.hobbies", "Pilates")]),
        (
            "My hobbies are Pilates and chess.",
            [("user.hobbies", "Pilates"), ("user.hobbies", "chess")],
        ),
        ("User got into Trinity College.", [("user.school", "Trinity College")]),
        # "play" is a cue of sports and instruments: "music player" does not make it name the
        # music app outright, so a game is no music app (it would take back the user's app);
        # a name after "play" is no sport nor instrument either: its key is marked
        ("I play Fortnite.", [("user.does_play", "Fortnite")]),
        # "listen to" takes a band as well as an app: it alone does not name the music app
        ("I listen to Radiohead.", [("user.listen_to", "Radiohead")]),
        ("I listen to music on Deezer.", [("user.music_app", "Deezer")]),
        ("I use Spotify for music.", [("user.music_app", "Spotify")]),
    ],
)
def test_words_shared_by_families_name_none_of_them(
    ex: OfflineFactExtractor, text: str, expected: list[tuple[str, str]]
) -> None:
    assert _pairs(ex, text) == expected
