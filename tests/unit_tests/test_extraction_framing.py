"""The frame around a statement is taken off, and unknown attribute phrases find their family."""

from __future__ import annotations

import pytest

from langchain_tepa.extraction.families import nearest_family
from langchain_tepa.extraction.framing import split_list, unframe
from langchain_tepa.extraction.offline import OfflineFactExtractor


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("For the record, the user lives in Gdansk.", ("the user lives in Gdansk", False)),
        ("It was noted that I work for Initrode.", ("I work for Initrode", False)),
        ("Since March the user drives a Saab.", ("the user drives a Saab", True)),
        ("I bank with Rabobank, for context.", ("I bank with Rabobank", False)),
        (
            "The user said that her landlord is Mr. Pike.",
            ("the user's landlord is Mr. Pike", False),
        ),
        ("Switched shells to fish.", ("user's shell: fish", True)),
    ],
)
def test_unframe_takes_off_leads_tails_and_reports(text: str, expected: tuple[str, bool]) -> None:
    assert unframe(text) == expected


def test_a_list_note_splits_but_a_restatement_does_not() -> None:
    assert split_list("Drives a Saab; speaks Greek") == ["Drives a Saab", "speaks Greek"]
    assert split_list("My gym isn't Zumba Hall anymore; it's Climb Co") == [
        "My gym isn't Zumba Hall anymore; it's Climb Co"
    ]


def test_nearest_family_reads_unlisted_attribute_phrases_and_refuses_verbs() -> None:
    assert nearest_family(["line", "manager"]) == "manager"
    assert nearest_family(["password", "vault"]) == "password_manager"
    assert nearest_family(["picked", "up"]) is None
    assert nearest_family(["meeting"]) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Noted that the user banks with Rabobank.", "Update - bank: Triodos"),
        ("The user mentioned that their gym is Climb Co.", "Switched gyms to Zumba Hall."),
        ("Currently, the user is mentored by Imke.", "Boris mentors the user."),
        ("User's shell is zsh; likes dark mode.", "Update - command-line shell: fish"),
    ],
)
def test_framed_statements_land_on_one_key(old: str, new: str) -> None:
    ex = OfflineFactExtractor()
    old_keys = {f.key for f in ex.extract(old)}
    new_facts = ex.extract(new)
    assert new_facts and old_keys & {f.key for f in new_facts}, (old_keys, new_facts)


@pytest.mark.parametrize(
    "text",
    [
        "Meeting notes: the release slipped by two days.",
        "Reminder: call the plumber about the leak.",
        "The user may switch their bank to Triodos next year.",
    ],
)
def test_frames_make_no_user_claim_of_plain_or_hypothetical_notes(text: str) -> None:
    ex = OfflineFactExtractor()
    assert not [f for f in ex.extract(text) if f.key == "user.bank" or "meeting" in f.key]


def test_liking_something_best_names_a_favourite() -> None:
    ex = OfflineFactExtractor()
    assert [
        (f.key, f.value) for f in ex.extract("Nowadays the user likes Georgian food best.")
    ] == [("user.cuisine", "Georgian")]
    assert [f.key for f in ex.extract("I like the colour ochre most.")] == ["user.favourite_colour"]


def test_nearest_family_keeps_plural_attributes_off_single_valued_families() -> None:
    from langchain_tepa.extraction.families import canonical_relation

    assert nearest_family(["liked", "foods"]) is None
    assert canonical_relation("liked_foods") != "cuisine"


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I made Brave my default browser last week.", "user.browser", "Brave"),
        ("Upgraded phone to a Fairphone.", "user.phone", "Fairphone"),
        ("I moved to Tromso because my partner got a job there.", "user.home_city", "Tromso"),
    ],
)
def test_made_my_upgraded_to_and_subordinate_clauses(text: str, key: str, value: str) -> None:
    assert [(f.key, f.value) for f in OfflineFactExtractor().extract(text)] == [(key, value)]
