"""Claims about the user from free text: one canonical key per attribute, however it is said.

The sentences here are written for these tests (not taken from the free-text benchmark).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, LifecyclePolicy
from langchain_tepa.core.types import Fact
from langchain_tepa.extraction import LLMFactExtractor, OfflineFactExtractor
from langchain_tepa.extraction.families import FAMILIES, canonical_relation, family_of_label
from langchain_tepa.extraction.resolution import KeyResolver, resolve_families
from langchain_tepa.memory.ingest import TextIngest


@pytest.fixture(scope="module")
def ex() -> OfflineFactExtractor:
    return OfflineFactExtractor()


def claims(ex: OfflineFactExtractor, text: str) -> list[tuple[str, str]]:
    return [(f.key, str(f.value)) for f in ex.extract(text)]


# ---------------------------------------------------------------- one key for one attribute
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I live in Paris.", "Paris"),
        ("User lives in Lisbon.", "Lisbon"),
        ("I moved to Berlin.", "Berlin"),
        ("User moved to Oslo last month.", "Oslo"),
        ("User's home city: Lisbon", "Lisbon"),
        ("I relocated to Oslo.", "Oslo"),
        ("From now on I'm based in Oslo.", "Oslo"),
        ("The user has been living in Quito since 2021.", "Quito"),
        ("We settled in Hobart two years ago.", "Hobart"),
        ("Location: Tallinn, Estonia", "Tallinn"),
        ("My current city is Ghent.", "Ghent"),
        ("User relocated from Bergen to Trondheim.", "Trondheim"),
    ],
)
def test_every_phrasing_of_where_the_user_lives_gives_one_key(
    ex: OfflineFactExtractor, text: str, value: str
) -> None:
    assert claims(ex, text) == [("user.home_city", value)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The user's manager is now Tomasz.", ("user.manager", "Tomasz")),
        ("User reports to Ines Duarte.", ("user.manager", "Ines Duarte")),
        ("User's employer: Acme", ("user.employer", "Acme")),
        ("I left Acme and now work at Globex.", ("user.employer", "Globex")),
        ("Preferred editor theme: dark", ("user.editor_theme", "dark")),
        ("User is a data scientist.", ("user.occupation", "data scientist")),
        ("I got promoted to staff engineer.", ("user.occupation", "staff engineer")),
        ("User follows a keto diet.", ("user.diet", "keto")),
        ("I went vegan in March.", ("user.diet", "vegan")),
        ("My wife is called Ruth.", ("user.partner", "Ruth")),
        ("My phone number is +44 20 7946 0958.", ("user.phone_number", "+44 20 7946 0958")),
        ("User drives a Skoda Octavia.", ("user.car", "Skoda Octavia")),
        ("User codes mostly in Elixir.", ("user.programming_language", "Elixir")),
        ("User's time zone: CET", ("user.timezone", "CET")),
        ("I work out at Ironworks Gym.", ("user.gym", "Ironworks Gym")),
        ("User banks with Starling.", ("user.bank", "Starling")),
        ("I read my email in Thunderbird.", ("user.email_client", "Thunderbird")),
        ("User browses with Vivaldi.", ("user.browser", "Vivaldi")),
        ("User's login shell is zsh.", ("user.shell", "zsh")),
        ("User is enrolled at Leiden University.", ("user.school", "Leiden University")),
        ("User commutes by tram.", ("user.commute", "tram")),
        ("I ported my number to Vodafone.", ("user.mobile_carrier", "Vodafone")),
        ("User streams music on Deezer.", ("user.music_app", "Deezer")),
        ("I'm on the billing team.", ("user.team", "billing")),
        ("User's favorite color is teal.", ("user.favourite_colour", "teal")),
        ("I wake up at 5:45.", ("user.wake_time", "5:45")),
        ("Our main database is Postgres.", ("user.database", "Postgres")),
        ("User is insured by Allianz.", ("user.health_insurer", "Allianz")),
        ("I keep my notes in Obsidian.", ("user.notes_app", "Obsidian")),
        ("User's password manager is Bitwarden.", ("user.password_manager", "Bitwarden")),
        ("I wear a Casio.", ("user.watch", "Casio")),
        ("User is mentored by Amara.", ("user.mentor", "Amara")),
        ("User rents from Mrs. Okoro.", ("user.landlord", "Mrs. Okoro")),
        ("I'm working on project Falcon.", ("user.project", "Falcon")),
        ("My sport is fencing.", ("user.sport", "fencing")),
        ("User's usual coffee is a cortado.", ("user.coffee", "cortado")),
    ],
)
def test_attribute_families(ex: OfflineFactExtractor, text: str, expected: tuple[str, str]) -> None:
    assert claims(ex, text) == [expected]


def test_the_families_and_their_names() -> None:
    assert len(FAMILIES) >= 40  # names, not verb tables: one row each
    assert family_of_label("User's current employer") is FAMILIES["employer"]
    assert canonical_relation("lives_in") == canonical_relation("moved_to") == "home_city"
    assert canonical_relation("favorite_color") == "favourite_colour"
    assert canonical_relation("born_in_city_of") is None


# ---------------------------------------------------------------- no false revocation
def test_multi_valued_attributes_are_flagged(ex: OfflineFactExtractor) -> None:
    for text, key in [
        ("I have a dog.", "user.pets"),
        ("I also have a cat.", "user.pets"),
        ("User speaks Catalan.", "user.languages"),
        ("I enjoy bouldering and knitting.", "user.likes"),
        ("User likes dumplings.", "user.likes"),
        ("My hobbies are bouldering and knitting.", "user.hobbies"),
        ("I'm allergic to penicillin.", "user.allergies"),
    ]:
        facts = ex.extract(text)
        assert facts and all(f.key == key for f in facts), (text, facts)
        assert all((f.metadata or {}).get("multi_valued") is True for f in facts)
    assert [f.value for f in ex.extract("I speak Welsh and Basque.")] == ["Welsh", "Basque"]
    assert "multi_valued" not in (ex.extract("I live in Oslo.")[0].metadata or {})


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("My sister lives in Madrid.", "user.sister.home_city"),
        ("The user's brother works at Initech.", "user.brother.employer"),
        ("My best friend's employer is Globex.", "user.best_friend.employer"),
        ("User's cousin's home city: Porto", "user.cousin.home_city"),
        ("My mother is a nurse.", "user.mother.occupation"),
    ],
)
def test_another_subject_is_another_key(ex: OfflineFactExtractor, text: str, key: str) -> None:
    assert [k for k, _ in claims(ex, text)] == [key]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I might move to Rome.", "hypothetical"),
        ("I'm thinking about moving to Rome.", "hypothetical"),
        ("If I lived in Rome, I would cycle everywhere.", "hypothetical"),
        ("User is considering a switch to Linux.", "hypothetical"),
        ("I'm going to join Globex next year.", "hypothetical"),
        ("I used to live in Rome.", "hypothetical"),
        ("I lived in Rome for a decade.", "hypothetical"),
        ("I don't live in Rome.", "negated"),
        ("I'm not moving.", "negated"),
        ("User no longer works at Acme.", "negated"),
    ],
)
def test_negated_and_hypothetical_sentences_make_no_claim(
    ex: OfflineFactExtractor, text: str, reason: str
) -> None:
    report = ex.extract_report(text)
    assert report.facts == []
    assert [u.reason for u in report.unextracted] == [reason]


def test_names_with_if_or_would_are_not_hypothetical(ex: OfflineFactExtractor) -> None:
    assert claims(ex, "Alta IF is associated with the sport of baseball.") == [
        ("alta_if.associated_with_sport_of", "baseball")
    ]
    assert claims(ex, "I'd like to be called Robin from now on.") == [("user.name", "Robin")]


def test_change_markers_set_correction(ex: OfflineFactExtractor) -> None:
    (fact,) = ex.extract("User moved to Oslo last month.")
    assert (fact.metadata or {})["correction"] is True
    (plain,) = ex.extract("User lives in Oslo.")
    assert "correction" not in (plain.metadata or {})
    (swap,) = ex.extract("User switched from Firefox to Brave.")  # no attribute named
    assert (swap.key, swap.value) == ("user.unnamed", "Brave")
    assert (swap.metadata or {})["previous_value"] == "Firefox"


def test_extraction_costs_well_under_a_millisecond(ex: OfflineFactExtractor) -> None:
    texts = [
        "User moved to Oslo last month.",
        "I left Acme and now work at Globex.",
        "The capital of France is Paris.",
        "User prefers dark mode in the editor.",
        "I might move to Rome.",
        "Meeting notes: the release slipped by two days.",
    ] * 50
    start = time.perf_counter()
    for text in texts:
        ex.extract(text)
    per_item = (time.perf_counter() - start) / len(texts)
    assert per_item < 0.005  # about 0.1-0.3 ms on a loaded 2-core machine; slack for CI


# ---------------------------------------------------------------- key resolution
def test_family_rules_resolve_onto_existing_keys() -> None:
    assert resolve_families(["user.moved_to", "user.lives_in"], []) == [
        ("user.home_city", False),
        ("user.home_city", False),
    ]
    # an older key of the family is kept: the new claim meets it
    assert resolve_families(["user.home_city"], ["user.live_in"]) == [("user.live_in", False)]
    assert resolve_families(["ada.works_for"], []) == [("ada.works_for", False)]  # not the user
    assert resolve_families(["user.sister.lives_in"], []) == [("user.sister.home_city", False)]
    got = resolve_families(
        ["user.replacement"],
        ["user.gym", "user.bank"],
        previous=["Ironworks"],
        values={"user.gym": "Ironworks", "user.bank": "Monzo"},
    )
    assert got == [("user.gym", False)]


def _fact(key: str, value: str, **meta: Any) -> Fact:
    return Fact(key, value, metadata=meta or None)


def test_text_ingest_resolves_claims_onto_the_namespace() -> None:
    ingest = TextIngest(HashingEmbeddings(), LifecyclePolicy(), None)
    facts, skipped = ingest.extract(
        ["I moved to Berlin.", "I have a cat.", "I'm not moving."], "ns", None
    )
    assert skipped == [
        "I'm not moving. (not stored: a negation: a value cannot hold what is not so)"
    ]
    resolved = ingest.resolve("ns", facts, ["user.live_in"])
    assert [(f.key, f.value) for f in resolved] == [
        ("user.live_in", "Berlin"),
        ("user.pets", "cat"),
    ]
    assert (resolved[0].metadata or {})["extracted_key"] == "user.home_city"
    assert (resolved[1].metadata or {})["multi_valued"] is True
    # a claim naming the value it replaces lands on the key that holds it
    (swap,) = ingest.resolve(
        "ns",
        [_fact("user.replacement", "FitZone", previous_value="Iron Temple", multi_valued=True)],
        ["user.gym"],
        {"user.gym": "Iron Temple"},
    )
    assert swap.key == "user.gym"
    assert "multi_valued" not in (swap.metadata or {})


def test_key_resolver_api_is_unchanged() -> None:
    resolver = KeyResolver(HashingEmbeddings(), threshold=0.9)
    resolver.register("default", ["user.favourite_pizza_topping"])
    assert resolver.resolve_many("default", ["user.pizza_topping_preference", "user.diet"]) == [
        "user.favourite_pizza_topping",
        "user.diet",
    ]


def test_extractors_with_keys_receive_the_namespace_keys() -> None:
    seen: list[list[str]] = []

    class Keyed:
        def extract(self, text: str) -> list[Fact]:
            raise AssertionError("extract_with_keys is preferred when keys are given")

        def extract_with_keys(self, text: str, known_keys: list[str]) -> list[Fact]:
            seen.append(list(known_keys))
            return [Fact("user.home_city", "Oslo", text=text)] if "Oslo" in text else []

    ingest = TextIngest(HashingEmbeddings(), LifecyclePolicy(), Keyed())  # type: ignore[arg-type]
    facts, skipped = ingest.extract(["I moved to Oslo.", "Hmm."], "ns", None, ["user.home_city"])
    assert [(f.key, f.value) for f in facts] == [("user.home_city", "Oslo")]
    assert skipped == ["Hmm. (not stored: the extractor found no fact)"]
    assert seen == [["user.home_city"], ["user.home_city"]]


def test_llm_extractor_puts_known_keys_and_families_in_its_prompt() -> None:
    calls: list[Any] = []

    class Chain:
        def invoke(self, messages: Any) -> dict[str, Any]:
            calls.append(messages)
            return {
                "facts": [
                    {"key": "user.pets", "value": "dog", "confidence": 0.9, "multi_valued": True},
                    {"key": "user.bikes", "value": "gravel bike", "confidence": 0.9},
                ]
            }

    extractor = LLMFactExtractor(llm=object())  # type: ignore[arg-type]
    extractor._chain = Chain()  # type: ignore[assignment]
    facts = extractor.extract_with_keys("I have a dog.", ["user.home_city", "user.pets"])
    system = calls[0][0][1]
    assert "- user.home_city" in system and "- user.pets" in system
    assert "home_city" in system.split("relation names")[1]
    assert [(f.key, f.value) for f in facts] == [
        ("user.pets", "dog"),
        ("user.bikes", "gravel bike"),
    ]
    # One value or many is the model's answer per fact, not a guess from the key's name.
    assert [(f.metadata or {}).get("multi_valued") for f in facts] == [True, None]


def test_keys_of_other_extractors_are_renamed_only_onto_stored_keys() -> None:
    """A custom extractor's ``user.city`` stays as written, unless the family's key is stored."""
    ingest = TextIngest(HashingEmbeddings(), LifecyclePolicy(), None)
    (kept,) = ingest.resolve("ns", [_fact("user.city", "Oslo")], [])
    assert kept.key == "user.city"
    (met,) = ingest.resolve("ns", [_fact("user.city", "Oslo")], ["user.home_city"])
    assert met.key == "user.home_city"
    (named,) = ingest.resolve("ns", [_fact("user.location", "Oslo", extractor="llm")], [])
    assert named.key == "user.home_city"
