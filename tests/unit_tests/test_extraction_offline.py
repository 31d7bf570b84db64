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
        ("I live in Lisbon.", [("user.home_city", "Lisbon")]),
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


# ---------------------------------------------------------------- self-descriptions, names
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm vegetarian.", [("user.diet", "vegetarian")]),
        ("I am vegan.", [("user.diet", "vegan")]),
        ("I’m a pescatarian.", [("user.diet", "pescatarian")]),
        ("We're gluten-free.", [("user.diet", "gluten-free")]),
        ("I'm strictly kosher.", [("user.diet", "kosher")]),
        ("I'm a nurse.", [("user.occupation", "nurse")]),
        ("I'm a software engineer.", [("user.occupation", "software engineer")]),
        ("I am a data scientist.", [("user.occupation", "data scientist")]),
        ("I work as a translator.", [("user.occupation", "translator")]),
        ("I'm 34 years old.", [("user.age", "34")]),
        ("I'm from Portugal.", [("user.origin", "Portugal")]),
        ("I'm originally from Lisbon.", [("user.origin", "Lisbon")]),
        ("I'm allergic to peanuts.", [("user.allergies", "peanuts")]),
        ("I am married to Ann.", [("user.partner", "Ann")]),
        ("Call me Bob.", [("user.name", "Bob")]),
        ("Please call me Bob.", [("user.name", "Bob")]),
        ("You can call me Bob, please.", [("user.name", "Bob")]),
        ("Everyone calls me Bobby.", [("user.name", "Bobby")]),
        ("I'm called Roberta.", [("user.name", "Roberta")]),
        ("I go by Sam.", [("user.name", "Sam")]),
        ("My name is Bob.", [("user.name", "Bob")]),
        ("Actually, my favourite colour is blue.", [("user.favourite_colour", "blue")]),
    ],
)
def test_self_descriptions_become_user_facts(
    ex: OfflineFactExtractor, text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(ex, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Call me Bob.",
        "Tell me the weather.",
        "Show me Paris.",
        "Remember that I like tea.",
        "Give us a minute.",
    ],
)
def test_imperatives_never_become_keys_named_after_the_verb(
    ex: OfflineFactExtractor, text: str
) -> None:
    keys = [key for key, _ in pairs(ex, text)]
    verb = text.split()[0].lower()
    assert not any(k.startswith(f"{verb}.") for k in keys), keys
    assert "call.me" not in keys


@pytest.mark.parametrize("text", ["Call me later.", "I go by bus.", "Call me tomorrow, please."])
def test_name_shapes_need_a_capitalised_name(ex: OfflineFactExtractor, text: str) -> None:
    assert "user.name" not in [key for key, _ in pairs(ex, text)]


@pytest.mark.parametrize(
    "text",
    ["I'm a night owl.", "I'm tired.", "I'm a mother.", "I am happy.", "I'm a minor."],
)
def test_self_descriptions_outside_the_vocabulary_give_no_fact(
    ex: OfflineFactExtractor, text: str
) -> None:
    report = ex.extract_report(text)
    assert report.facts == []
    assert [(u.text, u.reason) for u in report.unextracted] == [(text, "no_known_shape")]


# ---------------------------------------------------------------- corrections
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My favourite colour is now blue.", ("user.favourite_colour", "blue")),
        ("I now live in Lisbon.", ("user.home_city", "Lisbon")),
        ("I live in Lisbon now.", ("user.home_city", "Lisbon")),
        ("Now I live in Lisbon.", ("user.home_city", "Lisbon")),
        ("I use oat milk for coffee instead.", ("user.coffee", "oat milk")),
        ("I drink tea instead of coffee.", ("user.drink", "tea")),
        ("I'm a vegetarian now.", ("user.diet", "vegetarian")),
        ("I'm vegan now, no longer vegetarian.", ("user.diet", "vegan")),
        ("I'm vegan, not vegetarian anymore.", ("user.diet", "vegan")),
    ],
)
def test_corrections_are_marked_and_their_words_kept_out_of_key_and_value(
    ex: OfflineFactExtractor, text: str, expected: tuple[str, str]
) -> None:
    (fact,) = ex.extract(text)
    assert (fact.key, fact.value) == expected
    assert fact.metadata is not None and fact.metadata["correction"] is True
    assert fact.text == text


@pytest.mark.parametrize(
    "text",
    [
        "My favourite colour is blue.",
        "I live in Lisbon, not Paris.",
        "Speak Now was performed by Taylor Swift.",  # a title, not the adverb
        "Apocalypse Now was directed by Francis Ford Coppola.",
    ],
)
def test_plain_statements_are_not_corrections(ex: OfflineFactExtractor, text: str) -> None:
    (fact,) = ex.extract(text)
    assert fact.metadata is not None and "correction" not in fact.metadata


# ---------------------------------------------------------------- the report of what was dropped
def test_report_lists_every_sentence_that_gave_no_fact_with_its_reason(
    ex: OfflineFactExtractor,
) -> None:
    text = (
        "I'm vegetarian. Call me Bob. Is it raining? I don't eat meat anymore. "
        "I'm a night owl. The capital of Peru is Lima. The capital of Peru is Lima."
    )
    report = ex.extract_report(text)
    assert [(f.key, f.value) for f in report.facts] == [
        ("user.diet", "vegetarian"),
        ("user.name", "Bob"),
        ("peru.capital", "Lima"),
    ]
    assert [(u.text, u.reason) for u in report.unextracted] == [
        ("Is it raining?", "question"),
        ("I don't eat meat anymore.", "negated"),
        ("I'm a night owl.", "no_known_shape"),
    ]
    assert not report.complete
    assert "not stored: a negation" in str(report.unextracted[1])
    assert ex.extract(text) == report.facts


def test_report_of_a_too_long_sentence_is_cut(ex: OfflineFactExtractor) -> None:
    long = "The capital of Peru is " + "very " * 200 + "far."
    (missed,) = ex.extract_report(long).unextracted
    assert missed.reason == "too_long"
    assert len(missed.text) == 203 and missed.text.endswith("...")


def test_report_of_blank_or_non_text_is_empty(ex: OfflineFactExtractor) -> None:
    assert ex.extract_report("   ").complete
    assert ex.extract_report(None).facts == []  # type: ignore[arg-type]


def test_async_report_matches_the_sync_one(ex: OfflineFactExtractor) -> None:
    text = "I'm vegan. I'm tired."
    assert asyncio.run(ex.aextract_report(text)) == ex.extract_report(text)


def test_extract_report_works_with_any_extractor() -> None:
    from langchain_tepa.core.types import Fact
    from langchain_tepa.extraction import (
        ExtractionReport,
        ReportingFactExtractor,
        Unextracted,
        aextract_report,
        extract_report,
    )

    class Colon:
        def extract(self, text: str) -> list[Fact]:
            key, _, value = text.partition(":")
            return [Fact(key.strip(), value.strip())] if value else []

    assert not isinstance(Colon(), ReportingFactExtractor)
    assert isinstance(OfflineFactExtractor(), ReportingFactExtractor)
    assert extract_report(Colon(), "a.b: c").complete
    assert extract_report(Colon(), " nothing here ").unextracted == [
        Unextracted("nothing here", "no_fact")
    ]
    assert asyncio.run(aextract_report(Colon(), "nothing")) == ExtractionReport(
        [], [Unextracted("nothing", "no_fact")]
    )
    offline = OfflineFactExtractor()
    assert asyncio.run(aextract_report(offline, "I'm tired.")) == offline.extract_report(
        "I'm tired."
    )
