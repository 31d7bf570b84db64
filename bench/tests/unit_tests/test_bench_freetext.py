"""The free-text benchmark (``tepa-bench run freetext``): generator, scorer and a tiny run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench import freetext as F  # noqa: N812 - short in tables of calls
from tepa_bench import freetext_data as D  # noqa: N812
from tepa_bench.minilm import PIP_COMMAND, minilm_unavailable


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


def test_dev3_shares_no_value_query_or_relation_with_the_other_development_splits() -> None:
    dev3 = D.template_sets("dev3")
    for other in ("dev", "dev2"):
        known = D.template_sets(other)
        for part in ("values", "queries", "relations"):
            assert not dev3[part] & known[part], (other, part)
        # only the plainest frame ("User lives in {v}.") may coincide with another split's
        assert len(dev3["templates"] & known["templates"]) <= 12, other


def test_dev4_shares_no_value_query_or_relation_with_any_other_split() -> None:
    dev4 = D.template_sets("dev4")
    for other in ("dev", "dev2", "dev3", "test"):
        known = D.template_sets(other)
        for part in ("values", "queries", "relations"):
            assert not dev4[part] & known[part], (other, part)
        # written fresh: at most a plain line or two may coincide with another split's
        assert len(dev4["templates"] & known["templates"]) <= 3, other


def test_dev4_has_five_phrasings_of_every_statement_and_change_on_its_own() -> None:
    table = D.phrasings("dev4")
    assert set(table["families"]) == set(D.ATTRIBUTES)
    assert set(table["multi"]) == set(D.MULTI_ATTRIBUTES)
    for family, spec in table["families"].items():
        for part in ("initial", "change"):
            assert len(set(spec[part])) + len(table[f"generic_{part}"]) >= 5, (family, part)
        assert spec["other"] and spec["hypothetical"], family
        assert len(spec["values"]) >= 4 and len(spec["queries"]) >= 2, family
    for family, spec in table["multi"].items():
        assert len(spec["initial"]) >= 3 and len(spec["add"]) >= 3, family


def test_rendered_dev4_texts_never_appear_in_another_split() -> None:
    dev4 = {m.text for s in D.generate_scenarios("dev4", 500) for m in s.memories}
    for other in ("dev", "dev2", "dev3", "test"):
        texts = {m.text for s in D.generate_scenarios(other, 500) for m in s.memories}
        assert not dev4 & texts, other


def test_rendered_test_texts_never_appear_in_dev() -> None:
    dev = {m.text for s in D.generate_scenarios("dev", 500) for m in s.memories}
    test = {m.text for s in D.generate_scenarios("test", 500) for m in s.memories}
    assert not dev & test


def _mini() -> list[D.Scenario]:
    old = D.Memory("I live in Lisbon.", "old", (D.Claim("user.home_city", "Lisbon"),))
    new = D.Memory("I moved to Oslo.", "current", (D.Claim("user.home_city", "Oslo"),))
    pet = D.Memory("I have a dog.", "multi", (D.Claim("user.pets", "dog", multi_valued=True),))
    change = D.Scenario(
        "a", "change", "home_city", "plain", (old, new, pet), "where", (0,), (1,), (2,)
    )
    return [change]


def test_a_system_that_serves_the_stale_memory_scores_100_percent_stale() -> None:
    [s] = _mini()
    everything = [m.text for m in s.memories]
    answers = {"a": {"query": everything, "own": dict.fromkeys(s.probes, everything)}}
    result = F.score([s], answers)
    assert result["stale_served"] == 100.0
    assert result["current_present"] == 100.0
    assert result["recall_at_1"] == 0.0  # Lisbon ranks first
    assert result["independent_taken_back"] == 0.0
    assert result["stale_direct"] == 100.0


def test_a_system_that_hides_the_stale_memory_scores_0_percent_stale() -> None:
    [s] = _mini()
    live = ["I moved to Oslo.", "I have a dog."]
    answers = {"a": {"query": live, "own": {0: live, 1: live, 2: live}}}
    result = F.score([s], answers)
    assert (result["stale_served"], result["current_present"], result["recall_at_1"]) == (
        0.0,
        100.0,
        100.0,
    )
    assert result["stale_direct"] == 0.0
    assert result["independent_taken_back"] == 0.0


def test_a_system_that_hides_too_much_takes_independent_memories_back() -> None:
    [s] = _mini()
    answers = {"a": {"query": ["I moved to Oslo."], "own": {0: [], 1: ["I moved to Oslo."], 2: []}}}
    result = F.score([s], answers)
    assert result["independent_taken_back"] == 100.0
    assert result["taken_back_by_role"] == {"multi": 100.0}


def test_only_the_first_k_results_count() -> None:
    [s] = _mini()
    ranked = ["I moved to Oslo.", "x", "y", "I live in Lisbon."]
    answers = {"a": {"query": ranked, "own": dict.fromkeys(s.probes, ranked)}}
    assert F.score([s], answers, k=3)["stale_served"] == 0.0
    assert F.score([s], answers, k=4)["stale_served"] == 100.0


def test_the_ideal_extractor_returns_the_ground_truth_claims_only() -> None:
    from tepa_bench.freetext_systems import IdealExtractor

    extractor = IdealExtractor(D.ideal_claims(_mini()))
    [fact] = extractor.extract("I have a dog.")
    assert (fact.key, fact.value, dict(fact.metadata or {})) == (
        "user.pets",
        "dog",
        {"multi_valued": True},
    )
    assert extractor.extract("I might move to Rome.") == []


def test_a_tiny_cli_run_goes_through_every_path(tmp_path: Path) -> None:
    from tepa_bench.cli import main
    from tepa_bench.freetext_systems import SYSTEMS, system_available

    code = main(
        ["run", "freetext", "--split", "dev", "--scenarios", "3", "--background", "1"]
        + ["--out", str(tmp_path), "--no-progress", "--seed", "7"]
    )
    assert code == 0
    result = json.loads((tmp_path / "freetext.json").read_text())
    assert result["config"]["split"] == "dev"
    ran = set(result["systems"])
    assert ran | set(result["skipped"]) == set(SYSTEMS)
    assert {n for n in SYSTEMS if system_available(n) is None} == ran
    for name in ran:
        metrics = result["systems"][name]
        assert metrics["counts"]["change_scenarios"] == 3
        assert metrics["current_present"] is not None
        assert metrics["write_ms"] > 0
    assert (tmp_path / "freetext.md").read_text().startswith("# tepa-bench run freetext")
    assert (tmp_path / "freetext.png").exists()


def test_unknown_systems_are_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        F.run_freetext(D.generate_scenarios("dev", 1), ["nope/store"], progress=False)


def test_the_baselines_packages_load_only_when_their_system_runs() -> None:
    import subprocess
    import sys

    code = (
        "import sys, langchain_tepa, tepa_bench.freetext\n"
        "print(sorted(m for m in ('langmem', 'mem0', 'langchain_chroma') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_memories_a_path_never_stored_are_counted_apart() -> None:
    [s] = _mini()
    served = ["I moved to Oslo."]
    answers = {"a": {"query": served, "own": dict.fromkeys(s.probes, served), "unstored": [2]}}
    result = F.score([s], answers)
    assert (result["independent_taken_back"], result["independent_unstored"]) == (100.0, 100.0)


def test_unknown_embeddings_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="embeddings"):
        F.run_freetext(
            D.generate_scenarios("dev", 1), ["inmemory/store"], embeddings="bert", progress=False
        )


@pytest.mark.skipif(minilm_unavailable() is not None, reason=f"needs {PIP_COMMAND}")
def test_the_embeddings_option_reaches_every_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tepa_bench import freetext_systems
    from tepa_bench.cli import main

    built: list[str] = []
    original = freetext_systems.make_embeddings

    def recording(name: str) -> Any:
        emb = original(name)
        built.append(type(emb).__name__)
        return emb

    monkeypatch.setattr(freetext_systems, "make_embeddings", recording)
    systems = "tepa/store,tepa-ideal/memory,inmemory/store"
    code = main(
        ["run", "freetext", "--split", "dev", "--scenarios", "2", "--background", "0"]
        + ["--systems", systems, "--embeddings", "minilm", "--out", str(tmp_path), "--no-progress"]
    )
    assert code == 0
    assert built == ["MiniLMEmbeddings"] * 3
    result = json.loads((tmp_path / "freetext.json").read_text())
    assert "all-MiniLM-L6-v2" in result["config"]["embeddings"]
    assert set(result["systems"]) == set(systems.split(","))
    assert (
        "embeddings sentence-transformers/all-MiniLM-L6-v2"
        in (tmp_path / "freetext.md").read_text()
    )
