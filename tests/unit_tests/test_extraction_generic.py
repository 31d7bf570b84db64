"""Extraction that generalises: note markup, cue words, and the change fallback of resolution."""

from __future__ import annotations

import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory, TEPAStore
from langchain_tepa.extraction.generic import infer_family, user_predicate
from langchain_tepa.extraction.markup import strip_markup
from langchain_tepa.extraction.offline import OfflineFactExtractor
from langchain_tepa.extraction.resolution import change_target, resolve_families
from langchain_tepa.store import store_policy


@pytest.fixture
def ex() -> OfflineFactExtractor:
    return OfflineFactExtractor()


def _pairs(ex: OfflineFactExtractor, text: str) -> list[tuple[str, str]]:
    return [(f.key, str(f.value)) for f in ex.extract(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[2025-03-02] user lives in Ghent.", ("user.home_city", "Ghent")),
        ("- shell: fish", ("user.shell", "fish")),
        ("USER PROFILE - team: growth", ("user.team", "growth")),
        ("UPDATE: diet -> keto", ("user.diet", "keto")),
        ("Mentored by Greta", ("user.mentor", "Greta")),
        ("Partner is Theo", ("user.partner", "Theo")),
        ("Wakes at 5:15", ("user.wake_time", "5:15")),
    ],
)
def test_note_markup_is_taken_off(
    ex: OfflineFactExtractor, text: str, expected: tuple[str, str]
) -> None:
    assert _pairs(ex, text) == [expected]


def test_markup_that_names_the_replaced_value() -> None:
    assert strip_markup("Fly.io replaced Vercel as the user's cloud provider.") == (
        "user's cloud provider: Fly.io",
        True,
        "Vercel",
    )
    assert strip_markup("user no longer lives in Oslo, now lives in Ghent").previous == "Oslo"
    marked = strip_markup("The user's sport is archery (previously fencing).")
    assert (marked.change, marked.previous) == (True, "fencing")


@pytest.mark.parametrize(
    "text",
    [
        "Ada is a citizen of Peru.",  # a name, not a subject-less "Partner is Theo"
        # a name whose first word reads like a verb ("Thomas", "Hines"): MemoryAgentBench's
        # facts lost 9 points of multi-hop accuracy when these became the user's
        "Thomas Kyd was born in the city of London.",
        "Hines Ward plays the position of wide receiver.",
        "Windows Phone was developed by Microsoft.",
        "Charles the Bold is a citizen of France.",
        "Nowadays I live in Lisbon.",  # a subject after an adverb, not a fragment
        "I live in Lisbon, not Paris.",  # a contrast, not a replaced value
    ],
)
def test_what_is_no_markup_stays_as_written(text: str) -> None:
    assert strip_markup(text) == (text, False, "")


def test_subject_less_lines_still_take_the_user() -> None:
    assert strip_markup("Lives in Ghent").text == "User lives in Ghent"
    assert strip_markup("Prefers Python over Java").text == "User prefers Python over Java"


def test_cue_words_name_the_family_of_an_unknown_verb(ex: OfflineFactExtractor) -> None:
    assert _pairs(ex, "User keeps the money at Nordea.") == [("user.bank", "Nordea")]
    assert _pairs(ex, "User made the move to Antwerp recently.") == [("user.home_city", "Antwerp")]
    assert _pairs(ex, "The user wears a Polar watch") == [("user.watch", "Polar")]
    assert infer_family(["asked", "for", "gift", "ideas", "for"], "a colleague") is None


def test_a_closed_vocabulary_takes_an_unknown_word_only_when_the_value_names_the_family() -> None:
    assert infer_family(["works", "in", "the"], "murex shell") == ("shell", "murex")
    assert infer_family(["drink"], "tea") is None  # a drink is no coffee order


@pytest.mark.parametrize(
    "text",
    [
        "User asked how to fix a flaky unit test.",  # a moment of the conversation
        "The user may wake up at 9:00 next year.",  # a plan
        "User had a dentist appointment on Tuesday.",  # an event; a day is no value
    ],
)
def test_events_plans_and_days_make_no_claim(ex: OfflineFactExtractor, text: str) -> None:
    assert ex.extract(text) == []


def test_an_unread_predicate_keeps_its_own_words_and_also_adds_a_value() -> None:
    assert user_predicate("the user signed up at BeFit") == ("signed_up_at", "BeFit", False, False)
    assert user_predicate("User is also learning Arabic") == ("learning", "Arabic", False, True)


def test_a_previous_value_inside_a_stored_value_pins_its_key() -> None:
    got = resolve_families(
        ["user.on"],
        ["user.on_network", "user.gym"],
        previous=["Lebara"],
        values={"user.on_network": "the Lebara network", "user.gym": "PureGym"},
    )
    assert got == [("user.on_network", False)]


def test_change_target_needs_a_signal_and_a_unique_winner() -> None:
    texts = {"user.bank": ["user's bank is"], "user.gym": ["user trains at"]}
    values = {"user.bank": "Bunq", "user.gym": "PureGym"}
    attribute = "user no longer keeps the money at"
    assert change_target("user.keeps_money_at", attribute, "Nordea", texts, values) == "user.bank"
    # nothing in common with either key: stays a key of its own
    assert change_target("user.signed_up_at", "user signed up at", "BeFit", texts, values) is None
    # a number does not replace a name
    assert change_target("user.keeps_money_at", attribute, "42", texts, values) is None
    # a multi-valued key is never a candidate
    pets = {"user.pets": ["user has a pet"]}
    assert (
        change_target("user.got", "user got a new pet", "cat", pets, {"user.pets": "dog"}) is None
    )


def _store() -> TEPAStore:
    emb = HashingEmbeddings()
    memory = TEPAMemory.in_memory(policy=store_policy(), embeddings=emb)
    return TEPAStore(memory, index={"dims": 384, "embed": emb, "fields": ["content"]})


def _served(store: TEPAStore, ns: tuple[str, ...], query: str) -> list[str]:
    return [str(item.value["content"]) for item in store.search(ns, query=query, limit=10)]


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        (
            "User info - bank: Bunq.",
            "User no longer keeps the money at Bunq, now keeps the money at Nordea",
            "user bank",
        ),
        ("- shell: dash", "UPDATE: shell -> fish", "which shell"),
        ("The user's gym is Crunch.", "PureFit replaced Crunch as the user's gym.", "user gym"),
        (
            "User lives in Seville.",
            "[2025-06-11] user made the move to Antwerp.",
            "where does the user live",
        ),
    ],
)
def test_a_memory_tool_s_change_note_takes_the_old_memory_back(
    old: str, new: str, query: str
) -> None:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": old})
    store.put(ns, "b", {"content": new})
    served = _served(store, ns, query)
    assert new in served and old not in served


def test_an_unrelated_change_note_takes_nothing_back() -> None:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": "User's gym is Crunch."})
    store.put(ns, "b", {"content": "As of last week, the user signed up for Audiomack."})
    assert "User's gym is Crunch." in _served(store, ns, "user gym")
