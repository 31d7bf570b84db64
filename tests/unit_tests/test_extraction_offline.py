"""The offline fact extractor: generic English shapes, canonical keys, no false facts."""

from __future__ import annotations

import asyncio

import pytest

from langchain_tepa.extraction import FactExtractor, OfflineFactExtractor, normalize_key_part


@pytest.fixture
def ex() -> OfflineFactExtractor:
    return OfflineFactExtractor()


def pairs(ex: OfflineFactExtractor, text: str) -> list[tuple[str, str]]:
    return [(f.key, f.value) for f in ex.extract(text)]


def test_is_a_fact_extractor(ex: OfflineFactExtractor) -> None:
    assert isinstance(ex, FactExtractor)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The capital of France is Paris.", [("france.capital", "Paris")]),
        ("The mayor of New York City is Eric Adams.", [("new_york_city.mayor", "Eric Adams")]),
        ("Paris is the capital of France.", [("france.capital", "Paris")]),
        ("Ada's employer is Acme Corp.", [("ada.employer", "Acme Corp")]),
        ("Marie Curie was born in Warsaw.", [("marie_curie.born_in", "Warsaw")]),
        (
            "Marie Curie was born in the city of Warsaw.",
            [("marie_curie.born_in_city_of", "Warsaw")],
        ),
        (
            "Grace Hopper is a citizen of United States.",
            [("grace_hopper.citizen_of", "United States")],
        ),
        (
            "Linus Torvalds works for the Linux Foundation.",
            [("linus_torvalds.works_for", "the Linux Foundation")],
        ),
        ("Kim plays the position of goalkeeper.", [("kim.plays_position_of", "goalkeeper")]),
        (
            "The Old Man and the Sea was written by Ernest Hemingway.",
            [("old_man_and_the_sea.written_by", "Ernest Hemingway")],
        ),
        ("The city where Ada Lovelace lived is London.", [("ada_lovelace.city_lived", "London")]),
        ("The company that produced Model T is Ford.", [("model_t.company_produced", "Ford")]),
        ("My favourite colour is green.", [("user.favourite_colour", "green")]),
        ("I switched to oat milk for coffee.", [("user.coffee", "oat milk")]),
        ("I prefer window seats for flights.", [("user.flights", "window seats")]),
        ("I live in Lisbon.", [("user.live_in", "Lisbon")]),
    ],
)
def test_shapes(ex: OfflineFactExtractor, text: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(ex, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "Hello there!",
        "What is the capital of France?",
        "Paris is not the capital of Spain.",
        "Ada was never born in Rome.",
        "It rains.",
        "Thanks a lot, see you tomorrow",
    ],
)
def test_no_fact(ex: OfflineFactExtractor, text: str) -> None:
    assert ex.extract(text) == []


def test_initials_and_abbreviations_do_not_split_sentences(ex: OfflineFactExtractor) -> None:
    assert pairs(ex, "Samuel P. Huntington is a citizen of United States.") == [
        ("samuel_p_huntington.citizen_of", "United States")
    ]
    assert pairs(ex, "The Chronic was performed by Dr. Dre.") == [
        ("chronic.performed_by", "Dr. Dre")
    ]


def test_several_sentences_and_lists(ex: OfflineFactExtractor) -> None:
    text = "Here is a list:\n0. The capital of Peru is Lima.\n1. Ada is a citizen of Peru."
    assert pairs(ex, text) == [("peru.capital", "Lima"), ("ada.citizen_of", "Peru")]
    assert pairs(ex, "The capital of Peru is Lima. Ada is a citizen of Peru.") == [
        ("peru.capital", "Lima"),
        ("ada.citizen_of", "Peru"),
    ]


def test_titles_are_subjects_not_relations(ex: OfflineFactExtractor) -> None:
    # a capitalised "R" is a title unless the value is a name
    assert pairs(ex, "The Sword of Truth was written in the language of English.") == [
        ("sword_of_truth.written_in_language_of", "English")
    ]
    assert pairs(ex, "The President of Austria is Alexander Van der Bellen.") == [
        ("austria.president", "Alexander Van der Bellen")
    ]
    assert pairs(ex, "No More Heroes was developed by Grasshopper Manufacture.") == [
        ("no_more_heroes.developed_by", "Grasshopper Manufacture")
    ]


def test_keys_are_canonical_and_values_as_written(ex: OfflineFactExtractor) -> None:
    a = ex.extract("The capital  of   Peru is Lima.")
    b = ex.extract("the capital of Peru is Lima")
    assert [f.key for f in a] == [f.key for f in b] == ["peru.capital"]
    (fact,) = ex.extract("Rogério Ceni plays the position of Goalkeeper.")
    assert fact.key == "rogério_ceni.plays_position_of"
    assert fact.value == "Goalkeeper"
    assert fact.text == "Rogério Ceni plays the position of Goalkeeper."
    assert fact.metadata == {"subject": "Rogério Ceni", "relation": "plays position of"}
    assert normalize_key_part("Washington, D.C.") == "washington_d_c"


def test_deterministic_and_async(ex: OfflineFactExtractor) -> None:
    text = "Ada is a citizen of Peru. The capital of Peru is Lima."
    assert ex.extract(text) == ex.extract(text) == OfflineFactExtractor().extract(text)
    assert asyncio.run(ex.aextract(text)) == ex.extract(text)


def test_odd_input(ex: OfflineFactExtractor) -> None:
    assert ex.extract(None) == []  # type: ignore[arg-type]
    assert ex.extract("x " * 5000) == []
    assert isinstance(ex.extract("The capital of \u00c9ire is \U0001f600."), list)
