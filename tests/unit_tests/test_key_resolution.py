"""Key resolution: paraphrased keys meet, different slots and namespaces stay apart."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from langchain_tepa import HashingEmbeddings, LifecyclePolicy, TEPAMemory
from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.types import Fact
from langchain_tepa.extraction import KeyResolver, resolution_text


class ScriptedExtractor:
    """Returns the key and value written as ``key = value`` (one per line)."""

    def extract(self, text: str) -> list[Fact]:
        out = []
        for line in text.splitlines():
            key, sep, value = line.partition("=")
            if sep:
                out.append(Fact(key.strip(), value.strip(), text=line))
        return out


@pytest.fixture
def memory(tick: Callable[[], float]) -> TEPAMemory:
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), clock=tick, extractor=ScriptedExtractor()
    )


def test_resolution_text() -> None:
    assert resolution_text("user.favourite_pizza_topping") == "pizza topping"
    assert resolution_text("user.pizza_topping_preference") == "pizza topping"
    assert resolution_text("user.pizza_toppings") == "pizza topping"
    assert resolution_text("ada.born_in_city_of") == "born in city"


def test_paraphrased_keys_merge(memory: TEPAMemory) -> None:
    memory.add_texts(["user.favourite_pizza_topping = pineapple"])
    results = memory.add_texts(["user.pizza_topping_preference = mushroom"])
    assert results[0].evidence.key == "user.favourite_pizza_topping"
    assert results[0].evidence.metadata["extracted_key"] == "user.pizza_topping_preference"
    assert memory.keys() == ["user.favourite_pizza_topping"]
    audit = memory.audit("user.favourite_pizza_topping")
    assert {p.value for p in audit.precedents} == {"pineapple", "mushroom"}
    assert audit.precedents[0].conflict == 1  # the two observations met and conflicted


def test_near_spelling_merges_by_embedding(memory: TEPAMemory) -> None:
    memory.add_texts(["ada.home_city = Paris"])
    results = memory.add_texts(["ada.home_city_name = Lyon"])
    resolver = KeyResolver(HashingEmbeddings(), 0.5)
    resolver.register("default", ["ada.home_city"])
    assert resolver.resolve_many("default", ["ada.home_city_name"]) == ["ada.home_city"]
    # the memory's threshold (0.9 by default) keeps these apart: not a near-paraphrase
    assert results[0].evidence.key == "ada.home_city_name"


def test_different_slots_do_not_merge(memory: TEPAMemory) -> None:
    memory.add_texts(["ada.born_in_city_of = London"])
    memory.add_texts(["ada.died_in_city_of = Paris"])
    assert memory.keys() == ["ada.born_in_city_of", "ada.died_in_city_of"]
    assert memory.get("ada.born_in_city_of") == "London"


def test_other_subjects_do_not_merge(memory: TEPAMemory) -> None:
    memory.add_texts(["peru.capital = Lima"])
    memory.add_texts(["chile.capital = Santiago"])
    assert memory.keys() == ["chile.capital", "peru.capital"]


def test_namespaces_are_kept_apart(memory: TEPAMemory) -> None:
    memory.add_texts(["user.favourite_pizza_topping = pineapple"], namespace="users.a")
    results = memory.add_texts(["user.pizza_topping_preference = ham"], namespace="users.b")
    assert results[0].evidence.key == "user.pizza_topping_preference"
    assert memory.keys(namespace="users.a") == ["user.favourite_pizza_topping"]
    assert memory.keys(namespace="users.b") == ["user.pizza_topping_preference"]


def test_keys_observed_directly_are_seen(memory: TEPAMemory) -> None:
    memory.add_texts(["user.diet = vegan"])  # the resolver caches the namespace here
    memory.observe("user.favourite_drink", "tea")  # not through add_texts
    results = memory.add_texts(["user.drink_preference = coffee"])
    assert results[0].evidence.key == "user.favourite_drink"


def test_keys_within_one_call_meet(memory: TEPAMemory) -> None:
    results = memory.add_texts(["user.favourite_song = a\nuser.song_preference = b"])
    assert [r.evidence.key for r in results] == ["user.favourite_song"] * 2


def test_threshold_comes_from_the_policy(tick: Callable[[], float]) -> None:
    policy = LifecyclePolicy(key_match_threshold=0.5)
    mem = TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), clock=tick, extractor=ScriptedExtractor(), policy=policy
    )
    mem.add_texts(["ada.home_city = Paris"])
    assert mem.add_texts(["ada.home_city_name = Lyon"])[0].evidence.key == "ada.home_city"


def test_bad_input_changes_nothing(memory: TEPAMemory) -> None:
    memory.add_texts(["user.favourite_song = a"])
    with pytest.raises(InvalidArgumentError):
        memory.add_texts(["user.song_preference = b", 42])  # type: ignore[list-item]
    assert memory.keys() == ["user.favourite_song"]
    assert memory.evidence_count() == 1


def test_threshold_validated() -> None:
    with pytest.raises(InvalidArgumentError):
        KeyResolver(HashingEmbeddings(), 1.5)
