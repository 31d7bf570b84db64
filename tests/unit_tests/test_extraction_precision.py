"""The offline default is precision-first (issue 37): what it takes back, and what it never does.

Without a model, a later free-text memory hides an earlier one only when the replacement is
explicit and unambiguous ("I moved to Oslo", "no longer X, now Y", "switched from X to Y"). The
dangerous shapes never hide anything: other senses of an attribute verb, temporary or one-off
events, pets', objects' and other people's attributes, history, plans and multi-valued things.
A same-attribute conflict that is not explicit marks the older memory ``possibly_superseded_by``
and ranks the newer one first; both stay served.

The pairs are written for these tests, or carried over from the tests of the rules this issue
deleted (``test_extraction_verb_keys``, ``test_extraction_guards``, ``test_extraction_generic``,
``test_extraction_framing``) and from the issue and the last closing note.
"""

from __future__ import annotations

import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory, TEPAStore, TEPAVectorStore
from langchain_tepa.extraction import OfflineFactExtractor
from langchain_tepa.store import store_policy

NS = ("memories", "u1")


def _store() -> TEPAStore:
    emb = HashingEmbeddings()
    memory = TEPAMemory.in_memory(embeddings=emb, policy=store_policy())
    return TEPAStore(memory, index={"dims": 384, "embed": emb, "fields": ["content"]})


def _two(first: str, second: str) -> TEPAStore:
    store = _store()
    store.put(NS, "a", {"content": first})
    store.put(NS, "b", {"content": second})
    return store


def _served(store: TEPAStore, query: str) -> list[str]:
    return [str(i.value["content"]) for i in store.search(NS, query=query, limit=3)]


# The true memory, then a sentence that must take nothing back.
KEEP_BOTH = [
    # the issue and the last closing note: other senses, one-off events, temporary states
    ("I drive a Honda.", "I drive Tom to school."),
    ("I drive a Honda.", "I rented a Fiat 500 for the holiday."),
    ("I live in Porto.", "I'm staying in Lisbon until Friday."),
    ("I'm vegetarian.", "My dog is on a raw meat diet."),
    ("I own a road bike.", "I just bought a gravel bike."),
    ("I usually fly with TAP.", "I fly to Oslo every month."),
    ("I drive a Honda.", "I rent a car from Hertz."),
    ("My laptop is a ThinkPad.", "I stream Netflix on my laptop."),
    ("My football team is Porto.", "I support Tom."),
    ("I work out at PureGym.", "I train Tom."),
    ("My doctor is Dr. Okafor.", "I treat patients at St Mary's."),
    ("My boss is Hannah.", "I report to work at 9."),
    # now with an explicit marker: still another sense, still nothing hidden
    ("I drive a Honda.", "I now drive Tom to school."),
    ("I live in Porto.", "I'm now staying in Lisbon until Friday."),
    ("I'm vegetarian.", "My dog is now on a raw meat diet."),
    ("I live in Porto.", "I moved to Lisbon for the summer."),
    # other people and pets are other subjects
    ("I live in Oslo.", "My sister lives in Madrid."),
    ("I live in Oslo.", "My sister moved to Madrid."),
    ("I work at Acme Corp.", "My husband now works at Globex."),
    ("My name is Ana.", "My dog's name is Rex."),
    # history, plans, hypotheticals, negations
    ("I live in Oslo.", "I used to live in Rome."),
    ("I live in Oslo.", "I lived in Rome for a decade."),
    ("I live in Oslo.", "Back in 2019 I moved to Rome."),
    ("I live in Oslo.", "I might move to Rome next year."),
    ("I live in Oslo.", "I'm thinking about moving to Rome."),
    ("I live in Oslo.", "If I lived in Rome, I would cycle everywhere."),
    ("I work at Acme Corp.", "I turned down an offer from Globex."),
    ("I work at Acme Corp.", "I'm not moving to Globex."),
    ("I use an iPhone.", "I might switch to Android."),
    # multi-valued things add a value
    ("I speak Spanish.", "I also speak Polish."),
    ("I have a dog.", "I also have a cat."),
    ("My hobbies are chess and Pilates.", "I love hiking."),
    # a verb named like an attribute (test_extraction_verb_keys)
    ("I wear a Garmin watch.", "I watch Netflix every night."),
    ("I wear a Garmin watch.", "I now watch Netflix every night."),
    ("I work at Acme.", "I work nights."),
    ("Our cloud provider is AWS.", "I host a podcast."),
    ("I am mentored by Ana.", "I coach Tom."),
    ("My mentor is Ana.", "I mentor Priya."),
    ("My mentor is Ana.", "I am a mentor to Priya."),
    ("My manager is Hannah.", "I supervise Tom."),
    ("My manager is Hannah.", "I am Tom's manager."),
    ("I work at Acme Corp.", "I hire Tom."),
    ("Call me Sam.", "I call Tom every Sunday."),
    ("I work at Acme Corp.", "I ride a Brompton to work."),
    ("I work at Acme Corp.", "I bring a MacBook to work."),
    ("I work out at PureGym.", "I bring a Garmin to the gym."),
    ("I study at Oxford.", "I take my Canon to school."),
    ("I work at Acme Corp.", "I work with Priya."),
    ("My code editor is Vim.", "I text Priya every day."),
    ("I wake up at 6:30.", "I walk Rex every morning."),
    ("I play tennis.", "I drive a Golf."),
    ("I play tennis.", "I play Wordle."),
    ("I always order a flat white.", "I order Deliveroo."),
    ("I always order a flat white.", "I drink Red Bull."),
    # guards of the deleted passes (test_extraction_guards, test_extraction_generic)
    ("User keeps passwords in Enpass.", "User reports directly to Mei."),
    ("- football team: Ajax", "User's team is payments."),
    ("User's gym is Crunch.", "As of last week, the user signed up for Audiomack."),
    ("I have a dog.", "The user keeps a dog."),
    # probes: questions, requests, instructions
    ("I live in Oslo.", "Where do I live again?"),
    ("I live in Oslo.", "Please remind me to call my landlord."),
    ("I work at Acme Corp.", "Remember to book the flight to Berlin."),
]


@pytest.mark.parametrize(("first", "second"), KEEP_BOTH)
def test_a_sentence_of_a_dangerous_shape_hides_nothing(first: str, second: str) -> None:
    store = _two(first, second)
    assert store.get(NS, "a") is not None
    assert first in _served(store, first)  # in the top 3 of its own text


# The earlier memory, then an explicit, unambiguous replacement: the earlier one is hidden.
EXPLICIT = [
    ("I live in Lisbon.", "I moved to Oslo."),
    ("User lives in Seville.", "User has relocated from Seville to Antwerp."),
    ("I work at Acme.", "I no longer work at Acme, I'm at Initech now."),
    ("I work at Acme.", "I left Acme and now work at Initech."),
    ("My browser is Chrome.", "I switched from Chrome to Firefox."),
    ("My favourite colour is green.", "My favourite colour is now blue."),
    ("My wake-up time is 6:00.", "My wake-up time is no longer 6:00; it's 8:00."),
    ("I'm vegetarian.", "I'm vegan now, no longer vegetarian."),
    ("I'm a nurse.", "I got promoted to head nurse."),
    ("Call me Sam.", "Call me Alex from now on."),
    ("- shell: dash", "UPDATE: shell -> fish"),
    ("Home city: Lisbon", "Home city: Lisbon -> Oslo"),
    ("The user's gym is Iron Temple.", "The user's gym is Crunch (previously Iron Temple)."),
    ("I wear a Garmin watch.", "My watch is now a Polar."),
    ("My mentor is Ana.", "User is coached by Grace now."),
    ("I drive a Volvo.", "I drive a Golf now."),
    ("I work at Acme Corp.", "I got hired by Globex."),
    ("I drink coffee.", "I drink tea instead of coffee."),
    # the shapes memory tools write changes in
    ("The shell of the user is zsh.", "The user's shell changed from zsh to fish."),
    ("My shell is Zsh.", "Fish replaced Zsh as the user's shell."),
    ("The user's vehicle is Skoda Octavia.", "Mazda 3 is the user's vehicle now."),
    (
        "The user's mail app is Proton Mail.",
        "The user's mail app isn't Proton Mail anymore; it's Mailspring.",
    ),
    (
        "My laptop is a MacBook Pro.",
        "Correction: the user's laptop is Lenovo Yoga, not MacBook Pro.",
    ),
    (
        "User info - coffee order: affogato.",
        "User no longer always gets an affogato, now always gets a piccolo",
    ),
    ("My mentor is Ana.", "Going forward, the user's mentor is Greta."),
    ("The user mentioned that their code editor is Zed.", "Switched IDE to Sublime Text."),
]


@pytest.mark.parametrize(("first", "second"), EXPLICIT)
def test_an_explicit_replacement_hides_the_earlier_memory(first: str, second: str) -> None:
    store = _two(first, second)
    assert store.get(NS, "a") is None
    assert second in _served(store, second)
    reason = store.audit(NS, "a").precedents[0].revocation.reason  # type: ignore[union-attr]
    assert reason.startswith("superseded: ") and "(item b)" in reason


# A same-attribute conflict that is not explicit: both served, the newer first, the older marked.
UNSURE = [
    ("I live in Lisbon.", "I live in Paris.", "user.home_city"),
    ("My favourite colour is green.", "My favourite colour is blue.", "user.favourite_colour"),
    ("I work at Acme Corp.", "User is employed by Initech.", "user.employer"),
    ("I'm a nurse.", "I work as a teacher.", "user.occupation"),
    ("My boss is Hannah.", "Nowadays I answer to Lukas.", "user.manager"),
]


@pytest.mark.parametrize(("first", "second", "key"), UNSURE)
def test_an_unsure_conflict_marks_the_older_memory(first: str, second: str, key: str) -> None:
    store = _two(first, second)
    assert store.get(NS, "a") is not None
    found = store.search(NS, query=first, limit=3)
    assert [i.key for i in found[:2]] == ["b", "a"]  # its own text, yet the newer one first
    marked = found[1].dict()["possibly_superseded_by"]
    assert [(m["item"], m["key"]) for m in marked] == [("b", key)]


def test_the_user_restating_the_old_value_brings_a_hidden_memory_back() -> None:
    store = _two("I live in Lisbon.", "I moved to Oslo.")
    assert store.get(NS, "a") is None
    store.put(NS, "c", {"content": "I moved back to Lisbon."})
    assert store.get(NS, "a") is not None
    assert store.get(NS, "b") is None  # an explicit change again: Oslo is the one hidden now


def test_a_multi_valued_list_is_one_claim_per_value() -> None:
    facts = OfflineFactExtractor().extract("I speak French and Spanish.")
    assert [(f.key, f.value) for f in facts] == [
        ("user.languages", "French"),
        ("user.languages", "Spanish"),
    ]
    assert all((f.metadata or {}).get("multi_valued") for f in facts)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I'm staying in Lisbon until Friday.", "hypothetical"),
        ("I rented a Fiat 500 for the holiday.", "hypothetical"),
        ("This week I'm working from the Berlin office.", "hypothetical"),
        ("I used to live in Paris.", "hypothetical"),
        ("I worked at Acme for five years.", "hypothetical"),
        ("Back in 2019 I moved to Rome.", "hypothetical"),
        ("I might switch to Android.", "hypothetical"),
        ("The user may wake up at 9:00 next year.", "hypothetical"),
        ("I don't live in Rome anymore.", "negated"),
        ("User no longer works at Acme.", "negated"),
    ],
)
def test_what_does_not_hold_now_makes_no_claim(text: str, reason: str) -> None:
    report = OfflineFactExtractor().extract_report(text)
    assert report.facts == []
    assert [u.reason for u in report.unextracted] == [reason]


@pytest.mark.parametrize(
    "text",
    [
        "User asked how to fix a flaky unit test.",
        "User had a dentist appointment on Tuesday.",
        "Meeting notes: the release slipped by two days.",
        "Reminder: call the plumber about the leak.",
    ],
)
def test_moments_of_the_conversation_make_no_user_attribute(text: str) -> None:
    assert not [f for f in OfflineFactExtractor().extract(text) if f.key.startswith("user.")]


@pytest.mark.parametrize(
    ("text", "key", "value", "previous"),
    [
        ("I moved to Oslo last month.", "user.home_city", "Oslo", ""),
        ("User has relocated from Lisbon to Porto.", "user.home_city", "Porto", "Lisbon"),
        ("I left Acme and now work at Initech.", "user.employer", "Initech", "Acme"),
        ("I switched from Chrome to Firefox.", "user.unnamed", "Firefox", "Chrome"),
        ("I switched my editor to the Dracula theme.", "user.editor_theme", "Dracula", ""),
        ("UPDATE: airline -> Lufthansa", "user.airline", "Lufthansa", ""),
        ("Since last month the user writes notes in Roam.", "user.notes_app", "Roam", ""),
    ],
)
def test_explicit_changes_are_corrections(text: str, key: str, value: str, previous: str) -> None:
    (fact,) = OfflineFactExtractor().extract(text)
    meta = fact.metadata or {}
    assert (fact.key, fact.value, meta.get("correction")) == (key, value, True)
    assert meta.get("previous_value", "") == previous


@pytest.mark.parametrize(
    "text",
    [
        "I live in Oslo.",
        "I'm based in Oslo these days.",
        "I drive Tom to school now.",  # another sense of the verb: never a correction
        "I now watch Netflix every night.",
    ],
)
def test_plain_statements_and_generic_verbs_are_no_corrections(text: str) -> None:
    for fact in OfflineFactExtractor().extract(text):
        assert "correction" not in (fact.metadata or {})


def test_a_switch_that_names_no_attribute_lands_only_on_the_key_holding_the_old_value() -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    memory.add_texts(["My browser is Chrome."])
    memory.add_texts(["I switched from Chrome to Firefox."])
    assert memory.get("user.browser") == "Firefox"
    other = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    other.add_texts(["I switched from Python to Rust."])  # nothing holds Python: its own value
    assert other.keys() == ["user.unnamed.rust"]


def test_the_memory_that_replaced_one_ranks_where_the_hidden_one_would() -> None:
    store = _store()
    store.put(NS, "old", {"content": "I track spending in YNAB."})
    store.put(NS, "x", {"content": "I like tracking my runs on Strava."})
    store.put(NS, "new", {"content": "I've ditched YNAB for a plain spreadsheet."})
    assert store.get(NS, "old") is None  # an explicit replacement
    found = store.search(NS, query="How does the user track their spending?", limit=3)
    assert [i.key for i in found] == ["new", "x"]  # it inherits the rank of the one it replaced
    assert found[0].score < found[1].score  # each shows its own score


def test_the_vector_store_ranks_the_replacement_where_the_hidden_document_would() -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    vs = TEPAVectorStore(memory=memory)
    vs.add_texts(
        ["I track spending in YNAB.", "I like tracking my runs on Strava."], ids=["old", "x"]
    )
    vs.add_texts(["I've ditched YNAB for a plain spreadsheet."], ids=["new"])
    assert vs.get_by_ids(["old"]) == []
    found = vs.similarity_search_with_score("How does the user track their spending?", k=1)
    assert [d.id for d, _ in found] == ["new"]
