"""A generic verb key never takes an attribute family's name (issue 27).

"I watch Netflix every night" is read by no family, so its key is built from its verb; the verb
``watch`` is also the wristwatch family's key, and the sentence took back "I wear a Garmin
watch". A generic relation that a family's key is, or canonicalises to, is marked instead
(``user.does_watch``), and no similarity step brings it back onto the family's key.
"""

from __future__ import annotations

import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory, TEPAStore
from langchain_tepa.extraction.families import (
    FAMILIES,
    canonical_relation,
    generic_relation,
    is_generic_relation,
    key_family,
    verb_family,
)
from langchain_tepa.extraction.offline import OfflineFactExtractor
from langchain_tepa.store import store_policy


def _store() -> TEPAStore:
    emb = HashingEmbeddings()
    memory = TEPAMemory.in_memory(embeddings=emb, policy=store_policy())
    return TEPAStore(memory, index={"dims": 384, "embed": emb, "fields": ["content"]})


def _served(first: str, second: str, query: str) -> list[str]:
    store = _store()
    ns = ("memories", "u1")
    store.put(ns, "a", {"content": first})
    store.put(ns, "b", {"content": second})
    return [str(i.value["content"]) for i in store.search(ns, query=query, limit=3)]


@pytest.mark.parametrize(
    ("first", "second", "query"),
    [
        # the issue: the verb "watch" is the wristwatch family's key
        (
            "I wear a Garmin watch.",
            "I watch Netflix every night.",
            "which watch does the user wear",
        ),
        ("I wear a Garmin watch.", "User watches Netflix every night.", "which watch"),
        ("I wear a Garmin watch.", "I now watch Netflix every night.", "which watch"),
        # "work" is a label of the employer, "host" of the cloud provider, "coach" of the mentor
        ("I work at Acme.", "I work nights.", "where does the user work"),
        ("Our cloud provider is AWS.", "I host a podcast.", "which cloud provider"),
    ],
)
def test_a_verb_named_like_a_family_takes_back_none_of_its_values(
    first: str, second: str, query: str
) -> None:
    served = _served(first, second, query)
    assert first in served and second in served


def test_the_family_s_own_change_still_takes_its_value_back() -> None:
    served = _served("I wear a Garmin watch.", "I now wear a Polar watch.", "which watch")
    assert served == ["I now wear a Polar watch."]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("I watch Netflix every night.", "user.does_watch"),
        ("I work nights.", "user.does_work"),
        ("I host a podcast.", "user.does_host"),
        # no family's key, or a family's own verb ("{order}", "{run}"): its own words, as before
        ("I order Deliveroo on Fridays.", "user.order"),
        ("I run marathons.", "user.run"),
        ("I play Fortnite.", "user.play"),
        ("The user signed up at BeFit.", "user.signed_up_at"),
        # the families still read their own sentences
        ("I wear a Garmin watch.", "user.watch"),
        ("I work at Acme.", "user.employer"),
    ],
)
def test_the_key_of_a_generic_verb_claim(text: str, key: str) -> None:
    facts = OfflineFactExtractor().extract(text)
    assert [f.key for f in facts] == [key]
    if is_generic_relation(key):
        assert key_family(key) is None and "family" not in (facts[0].metadata or {})


def test_a_marked_relation_names_no_family_and_an_unmarked_one_is_kept() -> None:
    for relation in ("watch", "watches", "work", "works", "host", "coach", "name"):
        marked = generic_relation(relation)
        assert marked == f"does_{relation}" and canonical_relation(marked) is None
        assert generic_relation(marked) == marked  # marked once
    # no noun reading, or the family's own verbs read it as that family: kept
    for relation in ("signed_up_at", "play", "listen_to", "keeps_money_at", "types_on", "order"):
        assert generic_relation(relation) == relation
    # every one-word family key read as a verb is marked, unless it is a verb of its family
    for name in FAMILIES:
        if "_" not in name and verb_family(name) != name:
            assert canonical_relation(generic_relation(name)) is None, name
    assert generic_relation("dislikes") == "dislikes"  # "{dislike}": the family's own verb


def test_a_verb_names_a_family_by_its_whole_verb_or_the_words_after_it() -> None:
    assert verb_family("moved_to") == "home_city" and verb_family("married_to") == "partner"
    assert verb_family("keep_notes_in") == "notes_app"
    # the verb alone is no label, nor the start of a longer verb ("{work} in the {v} team")
    assert verb_family("watch") is None and verb_family("host") is None
    assert verb_family("work") is None
