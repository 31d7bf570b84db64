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
        # no family's key, or a family's own verb ("{run}"): its own words, as before
        ("I run marathons.", "user.run"),
        ("I order a cortadito.", "user.order"),
        # a name after a verb whose families hold common nouns (coffee, sport): marked
        ("I order Deliveroo on Fridays.", "user.does_order"),
        ("I play Fortnite.", "user.does_play"),
        # the active voice of a family's passive verb ("{be} called", "{be} hired by")
        ("I call Tom every Sunday.", "user.does_call"),
        ("I hire Tom.", "user.does_hire"),
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


@pytest.mark.parametrize(
    ("first", "second", "query"),
    [
        # direction: the family is whom the user has ("{be} coached by"); the user coaching,
        # mentoring, supervising or hiring someone, or being someone's mentor, is the reverse
        ("I am mentored by Ana.", "I coach Tom.", "who is the user's mentor"),
        ("My mentor is Ana.", "I mentor Priya.", "who is the user's mentor"),
        ("My mentor is Ana.", "I am a mentor to Priya.", "who is the user's mentor"),
        ("My mentor is Ana.", "I am Tom's mentor.", "who is the user's mentor"),
        ("My manager is Hannah.", "I supervise Tom.", "who is the user's manager"),
        ("My manager is Hannah.", "I am Tom's manager.", "who is the user's manager"),
        ("I work at Acme Corp.", "I hire Tom.", "where does the user work"),
        ("I work at Acme Corp.", "I employ Tom.", "where does the user work"),
        ("Call me Sam.", "I call Tom every Sunday.", "what is the user's name"),
        # a place phrase after the value says where it goes: "work" is no employer
        ("I work at Acme Corp.", "I ride a Brompton to work.", "where does the user work"),
        ("I work at Acme Corp.", "I bring a MacBook to work.", "where does the user work"),
        ("I work out at PureGym.", "I bring a Garmin to the gym.", "which gym"),
        ("I study at Oxford.", "I take my Canon to school.", "which university"),
        # "work with" is no "{work} at": a verb that starts no family's verb is marked
        ("I work at Acme Corp.", "I work with Priya.", "where does the user work"),
        # a label the verb spells names no family outright: "text" is no text editor
        ("My code editor is Vim.", "I text Priya every day.", "which code editor"),
        # a time family's value is a time: "every morning" says when, Rex is no wake-up time
        ("I wake up at 6:30.", "I walk Rex every morning.", "when does the user wake up"),
        # a capitalised value after a verb is a name, no common noun: a Golf is no sport
        ("I play tennis.", "I drive a Golf.", "which sport does the user play"),
        ("I play tennis.", "I play Wordle.", "which sport does the user play"),
        ("I always order a flat white.", "I order Deliveroo.", "what coffee does the user order"),
        ("I always order a flat white.", "I drink Red Bull.", "what coffee does the user order"),
    ],
)
def test_a_claim_the_sentence_does_not_make_takes_nothing_back(
    first: str, second: str, query: str
) -> None:
    served = _served(first, second, query)
    assert first in served


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I am mentored by Ana.", "user.mentor", "Ana"),
        ("I got hired by Globex.", "user.employer", "Globex"),
        ("User is managed by Hannah.", "user.manager", "Hannah"),
        ("I drive a Golf.", "user.car", "Golf"),
        ("I play Tennis.", "user.sport", "Tennis"),
        ("I always order a flat white.", "user.coffee", "flat white"),
        ("I drive a Tesla to work.", "user.car", "Tesla"),
        ("I use Neovim at work.", "user.editor", "Neovim"),
    ],
)
def test_the_families_still_read_their_own_sentences(text: str, key: str, value: str) -> None:
    assert [(f.key, f.value) for f in OfflineFactExtractor().extract(text)] == [(key, value)]


@pytest.mark.parametrize(
    ("first", "second", "query"),
    [
        ("I am mentored by Ana.", "I am mentored by Grace now.", "who is the user's mentor"),
        ("My mentor is Ana.", "User is coached by Grace now.", "who is the user's mentor"),
        ("I play tennis.", "I play squash now.", "which sport does the user play"),
        ("I drive a Volvo.", "I drive a Golf now.", "which car does the user drive"),
        ("I always order a flat white.", "I order a cortado now.", "what coffee"),
        ("I work at Acme Corp.", "I got hired by Globex.", "where does the user work"),
        ("I'm working on project Orion.", "I work on Atlas now.", "which project"),
    ],
)
def test_a_true_change_still_takes_the_old_value_back(first: str, second: str, query: str) -> None:
    served = _served(first, second, query)
    assert second in served and first not in served
