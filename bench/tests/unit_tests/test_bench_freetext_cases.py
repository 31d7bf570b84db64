"""The hand-written free-text sets (issue 37): loader, labels, disjointness and the new metrics."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tepa_bench import freetext as F  # noqa: N812
from tepa_bench import freetext_cases as C  # noqa: N812
from tepa_bench import freetext_data as D  # noqa: N812

# issue 37: ~140 changes, ~90 keep-both pairs, ~60 probes held out; ~100, ~60, ~40 to tune on
SIZES = {"cases-heldout": (140, 90, 60), "cases-dev": (100, 60, 40)}


@pytest.mark.parametrize("split", C.CASE_SPLITS)
def test_each_set_has_its_sizes_over_many_areas_and_every_way_of_telling(split: str) -> None:
    cases = C.load_cases(split)
    kinds = Counter(c.kind for c in cases)
    for kind, least in zip(C.CASE_KINDS, SIZES[split], strict=True):
        assert kinds[kind] >= least, kind
    assert len({a for c in cases for a in c.areas}) >= 20
    assert len({c.attribute for c in cases}) >= 120
    for kind, styles in C.STYLES.items():
        used = Counter(c.style for c in cases if c.kind == kind)
        assert set(used) == set(styles), kind
        assert min(used.values()) >= 4, (kind, used)


@pytest.mark.parametrize("split", C.CASE_SPLITS)
def test_every_case_carries_a_label_that_agrees_with_its_kind_and_style(split: str) -> None:
    for case in C.load_cases(split):
        label = case.label
        assert isinstance(label, D.Label)
        assert case.earlier and case.later and case.question.endswith("?"), case.id
        if case.kind == "change":
            assert label == D.Label("replaces"), case.id
            continue
        assert label.relation in ("adds", "unrelated"), case.id
        wanted = {
            "multi": label.relation == "adds" and not label.flagged,
            "other_person": label.about_someone_else,
            "pet_object": label.about_someone_else,
            "temporary": label.temporary,
            "history": label.history,
            "plan": label.hypothetical,
            "question": label.hypothetical,
            "hedge": label.hypothetical,
        }
        assert wanted.get(case.style, True), case.id
    assert set(C.gold_labels(split).values()) >= {D.Label("replaces"), D.Label("adds")}


def _texts(scenarios: list[D.Scenario]) -> set[str]:
    return {m.text for s in scenarios for m in s.memories}


def test_no_text_of_the_held_out_set_occurs_in_the_dev_set_or_any_generated_split() -> None:
    held = {t for c in C.load_cases("cases-heldout") for t in (c.earlier, c.later)}
    dev = {t for c in C.load_cases("cases-dev") for t in (c.earlier, c.later)}
    assert len(held) == 2 * len(C.load_cases("cases-heldout"))
    assert not held & dev
    lowered = {t.lower().rstrip(".!") for t in held}
    assert not lowered & {t.lower().rstrip(".!") for t in dev}
    for split in D.SPLITS:
        other = _texts(
            D.generate_scenarios(split, 2000, seed=0) + D.generate_scenarios(split, 500, seed=1)
        )
        assert not held & other, split
        assert not lowered & {t.lower().rstrip(".!") for t in other}, split


# the dangerous sentences issue 37 and the offline developer's brief name: tuned on, so in dev
NAMED = [
    "I drive Tom to school",
    "I rented a Fiat 500 for the holiday",
    "I'm staying in Lisbon until Friday",
    "My dog is on a raw meat diet",
    "I just bought a gravel bike",
    "Signed up at BeFit",
    "User now banks with Monzo",
    "Please call me Sam from now on",
    "I might switch to Android",
    "My sister lives in Madrid",
    "I used to live in Rome",
    "I fly to Oslo every month",
    "I rent a car from Hertz",
    "I stream Netflix on my laptop",
    "I support Tom",
    "I train Tom",
    "I treat patients at St Mary's",
    "I report to work at 9",
]


def test_the_sentences_named_in_the_issue_are_in_the_dev_set_only() -> None:
    dev = " | ".join(t for c in C.load_cases("cases-dev") for t in (c.earlier, c.later))
    held = " | ".join(t for c in C.load_cases("cases-heldout") for t in (c.earlier, c.later))
    for stem in NAMED:
        assert stem in dev, stem
        assert stem.lower() not in held.lower(), stem


@pytest.mark.parametrize("split", C.CASE_SPLITS)
def test_each_case_becomes_one_scenario_the_metrics_can_score(split: str) -> None:
    cases = {c.id: c for c in C.load_cases(split)}
    scenarios = C.case_scenarios(split, seed=0, background=3)
    assert [s.id for s in scenarios] == list(cases)
    assert C.case_scenarios(split, seed=0) == scenarios
    assert C.case_scenarios(split, seed=1) != scenarios
    for s in scenarios:
        case = cases[s.id]
        texts = [m.text for m in s.memories]
        a, b = texts.index(case.earlier), texts.index(case.later)
        assert a < b and len(texts) == len(set(texts))
        roles = Counter(m.role for m in s.memories)
        assert roles["background"] == 3 and roles["distractor"] in (1, 2)
        keys = [
            c.key for m in s.memories for c in m.claims if m.text not in (case.earlier, case.later)
        ]
        assert len(keys) == len(set(keys)), s.id  # no unrelated fact shares an attribute
        assert (s.kind, s.family, s.variant, s.query) == (
            case.kind,
            case.attribute,
            case.style,
            case.question,
        )
        if s.kind == "change":
            assert (s.stale, s.current, s.templates) == ((a,), (b,), (case.id,))
        else:
            assert not s.stale and s.current == (a,) and {a, b} <= set(s.independent)
        assert set(s.stale + s.current + s.independent) == set(s.probes)
    labels = D.pair_labels(scenarios)
    assert all(labels[(c.earlier, c.later)] == c.label for c in cases.values())
    assert F.change_templates(scenarios) == sum(c.kind == "change" for c in cases.values())
    D.ideal_claims(scenarios)  # one text never has two claim sets


def test_a_pair_that_is_no_case_is_unrelated_with_the_later_texts_flags() -> None:
    scenarios = C.case_scenarios("cases-dev")
    labels = D.pair_labels(scenarios)
    cases = {c.id: c for c in C.load_cases("cases-dev")}
    s = next(s for s in scenarios if s.kind == "keep_both" and s.variant == "temporary")
    case = cases[s.id]
    texts = [m.text for m in s.memories]
    later = texts.index(case.later)
    for i, text in enumerate(texts):
        if text == case.earlier:
            assert labels[(text, case.later)] == case.label
        elif i < later:
            assert labels[(text, case.later)] == D.Label("unrelated", temporary=True)
        elif i > later:
            assert labels[(case.later, text)] == D.Label("unrelated")


@pytest.mark.parametrize("split", D.SPLITS)
def test_generated_splits_get_labels_from_their_ideal_claims_and_roles(split: str) -> None:
    scenarios = D.generate_scenarios(split, 60, seed=2)
    labels = D.pair_labels(scenarios)  # raises if one pair got two labels
    for s in scenarios:
        texts = [m.text for m in s.memories]
        if s.kind == "change":
            for i in s.stale:
                assert labels[(texts[i], texts[s.current[0]])].relation == "replaces"
        for j, m in enumerate(s.memories):
            for i in range(j):
                label = labels[(texts[i], texts[j])]
                if m.role == "multi" and s.memories[i].role == "multi":
                    assert label == D.Label("adds")
                if m.role == "hypothetical":
                    assert label == D.Label("unrelated", hypothetical=True)
                if m.role == "other":
                    assert label == D.Label("unrelated", about_someone_else=True)
                if label.relation == "replaces":  # only a change, and only of the attribute
                    assert i in s.stale and j in s.stale + s.current, s.id


def test_generated_change_scenarios_record_their_change_templates() -> None:
    scenarios = D.generate_scenarios("dev", 200, seed=0)
    templates = D.phrasings("dev")
    for s in scenarios:
        if s.kind != "change":
            assert s.templates == ()
            continue
        assert len(s.templates) == (2 if s.variant == "double" else 1)
        for t in s.templates:
            family = templates["families"][s.family]["change"]
            assert t in family or t in templates["generic_change"]
    count = F.change_templates(scenarios)
    assert 1 < count < 200


def _pair(kind: str, roles: tuple[str, str]) -> D.Scenario:
    first, second = (
        D.Memory("I live in Oslo.", roles[0]),
        D.Memory("I'm in Rome this week.", roles[1]),
    )
    distractor = D.Memory("I have a cat.", "distractor")
    stale, current = ((0,), (1,)) if kind == "change" else ((), (0,))
    independent = (2,) if kind == "change" else (0, 1, 2)
    return D.Scenario(
        kind,
        kind,
        "home.city",
        "x",
        (first, second, distractor),
        "where?",
        stale,
        current,
        independent,
    )


def test_hidden_true_memories_count_keep_both_pairs_probes_facts_and_distractors_only() -> None:
    keep, probe = _pair("keep_both", ("keep", "keep")), _pair("probe", ("user_fact", "probe"))
    change = _pair("change", ("old", "current"))
    texts = [m.text for m in keep.memories]
    answers = {
        # the pair's first memory hidden, the distractor served
        "keep_both": {"query": [texts[1]], "own": {0: [texts[1]], 1: [texts[1]], 2: [texts[2]]}},
        # the probe sentence itself hidden: it is no true memory
        "probe": {"query": [texts[0]], "own": {0: [texts[0]], 1: [texts[0]], 2: [texts[2]]}},
        # the stale memory served on its own text, the distractor hidden
        "change": {"query": [texts[1]], "own": {0: [texts[0]], 1: [texts[1]], 2: []}},
    }
    result = F.score([keep, probe, change], answers)
    assert result["hidden_keep_both"] == 50.0  # 1 of 2
    assert result["hidden_probe"] == 0.0  # 0 of 1
    assert result["hidden_distractor"] == pytest.approx(100 / 3)  # 1 of 3
    assert result["hidden_true"] == pytest.approx(100 * 2 / 6)
    counts = result["counts"]
    assert (
        counts["keep_both_memories"],
        counts["probe_memories"],
        counts["distractor_memories"],
    ) == (2, 1, 3)
    assert (counts["keep_both_hidden"], counts["probe_hidden"], counts["distractor_hidden"]) == (
        1,
        0,
        1,
    )
    assert result["independent_taken_back"] == pytest.approx(100 * 3 / 7)  # the probe sentence too


def test_generated_controls_count_as_keep_both_pairs_and_probes() -> None:
    scenarios = D.generate_scenarios("dev", 40, seed=0)
    groups = Counter(
        (s.kind, s.memories[i].role, F.true_memory_group(s, i))
        for s in scenarios
        for i in s.independent
    )
    for (kind, role, group), _ in groups.items():
        if role == "distractor":
            assert group == "distractor"
        elif role == "hypothetical":
            assert group is None
        elif kind in ("multi", "other_subject"):
            assert group == "keep_both"
        else:
            assert (kind, group) == ("hypothetical", "probe")
    nothing_hidden = {
        s.id: {"query": [], "own": {i: [s.memories[i].text] for i in s.probes}} for s in scenarios
    }
    assert F.score(scenarios, nothing_hidden)["hidden_true"] == 0.0


def test_malformed_cases_are_refused_with_the_line_that_is_wrong() -> None:
    good = "@home.city temporary | I live in Porto.\n> I'm in Lisbon till Friday.\n? Where? [unrelated temporary]"
    assert C.parse_cases(good, "keep_both", "t")[0].label.temporary
    with pytest.raises(ValueError, match="three per case"):
        C.parse_cases(good + "\n> extra", "keep_both", "t")
    with pytest.raises(ValueError, match="unknown flags"):
        C.parse_cases(good.replace("temporary]", "temprary]"), "keep_both", "t")
    with pytest.raises(ValueError, match="relation is one of"):
        C.parse_cases(good.replace("[unrelated", "[replaces"), "keep_both", "t")
    with pytest.raises(ValueError, match="style"):
        C.parse_cases(good, "change", "t")
    with pytest.raises(ValueError, match="first line"):
        C.parse_cases(good.replace("@home.city", "home.city"), "keep_both", "t")
    with pytest.raises(ValueError, match="never replaces"):
        D.Label("replaces", temporary=True)
    with pytest.raises(ValueError, match="split must be one of"):
        C.load_cases("cases-test")


def test_a_cli_run_on_the_dev_cases_reports_hidden_memories_and_templates(tmp_path: Path) -> None:
    from tepa_bench.cli import main

    code = main(
        ["run", "freetext", "--split", "cases-dev", "--systems", "tepa-ideal/store,inmemory/store"]
        + ["--out", str(tmp_path), "--no-progress", "--background", "1"]
    )
    assert code == 0
    result = json.loads((tmp_path / "freetext.json").read_text())
    cases = C.load_cases("cases-dev")
    changes = sum(c.kind == "change" for c in cases)
    assert result["config"]["change_templates"] == changes
    assert result["config"]["kinds"] == dict(Counter(c.kind for c in cases))
    for name in ("tepa-ideal/store", "inmemory/store"):
        metrics = result["systems"][name]
        assert metrics["counts"]["change_scenarios"] == changes
        assert metrics["hidden_true"] == 0.0  # neither takes a true memory back
    assert result["systems"]["tepa-ideal/store"]["stale_served"] == 0.0
    markdown = (tmp_path / "freetext.md").read_text()
    assert f"{changes} changes from {changes} distinct change templates" in markdown
    assert "| inmemory/store | 0.0 (0/" in markdown
