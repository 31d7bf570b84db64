"""The free-text benchmark (``tepa-bench run freetext``): generator, scorer and a tiny run."""

from __future__ import annotations

import pytest

from langchain_tepa.bench import freetext_data as D  # noqa: N812 - short in tables of calls


@pytest.mark.parametrize("split", D.SPLITS)
def test_each_split_has_500_change_scenarios_over_40_families(split: str) -> None:
    scenarios = D.generate_scenarios(split, n_change=500, seed=0)
    changes = [s for s in scenarios if s.kind == "change"]
    assert len(changes) >= 500
    assert len({s.family for s in changes}) >= 40
    assert {s.kind for s in scenarios} == set(D.KINDS)
    for s in scenarios:
        texts = [m.text for m in s.memories]
        assert len(texts) == len(set(texts)), s.id
        assert set(s.stale + s.current + s.independent) == set(s.probes)
        background = [m for m in s.memories if m.role == "background"]
        assert len(background) == 3 and len(s.probes) == len(texts) - 3
        families = [
            m.claims[0].key
            for m in s.memories
            if m.role in ("background", "distractor") and m.claims
        ]
        assert len(families) == len(set(families)), s.id  # no change hidden among unrelated facts
        assert not set(s.stale) & set(s.current + s.independent)
        if s.kind == "change":
            assert s.stale and len(s.current) == 1
        else:
            assert not s.stale
    D.ideal_claims(scenarios)  # one text never has two claim sets


def test_generation_is_deterministic() -> None:
    assert D.generate_scenarios("dev", 40, seed=3) == D.generate_scenarios("dev", 40, seed=3)
    assert D.generate_scenarios("dev", 40, seed=3) != D.generate_scenarios("dev", 40, seed=4)


def test_every_family_has_five_phrasings_of_the_statement_and_of_the_change() -> None:
    dev, test = D.phrasings("dev"), D.phrasings("test")
    assert set(dev["families"]) == set(test["families"]) == set(D.ATTRIBUTES)
    assert set(dev["multi"]) == set(test["multi"]) == set(D.MULTI_ATTRIBUTES)
    for family in D.ATTRIBUTES:
        for part in ("initial", "change"):
            generic = f"generic_{part}"
            count = sum(len(t["families"][family][part]) + len(t[generic]) for t in (dev, test))
            assert count >= 5, (family, part)
    for family in D.MULTI_ATTRIBUTES:
        for part in ("initial", "add"):
            assert sum(len(t["multi"][family][part]) for t in (dev, test)) >= 4, family


def test_dev_and_test_share_no_template_value_query_or_relation() -> None:
    dev, test = D.template_sets("dev"), D.template_sets("test")
    for part in dev:
        assert not dev[part] & test[part], part


def test_rendered_test_texts_never_appear_in_dev() -> None:
    dev = {m.text for s in D.generate_scenarios("dev", 500) for m in s.memories}
    test = {m.text for s in D.generate_scenarios("test", 500) for m in s.memories}
    assert not dev & test
