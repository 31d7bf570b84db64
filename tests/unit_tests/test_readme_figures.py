"""Every benchmark figure the README quotes is recomputed here from the results file it comes from.

A figure in the README is a sentence fragment built from a results file under ``docs/results``
(written by the ``tepa-bench`` command named beside it); if a re-run changes the file, this test
names the sentence to update. Whitespace and line breaks in the README do not matter.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


def _readme() -> str:
    return re.sub(r"\s+", " ", (ROOT / "README.md").read_text("utf-8"))


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RESULTS / name).read_text("utf-8"))
    return data


def _drift() -> list[str]:
    d = _load("drift.json")
    m = d["methods"]

    def rev(name: str) -> float:
        return float(m[name]["phases"]["reversal"]["success"])

    (p,) = [
        c["p_value"]
        for c in d["comparisons"]
        if (c["a"], c["b"], c["phase"]) == ("tepa-full", "temporal*", "reversal")
    ]
    return [
        f"TEPA-Full succeeds {rev('tepa-full'):.3f} of the time, an append-only memory "
        f"{rev('append-only'):.3f} and no memory at all {rev('no-memory'):.3f}",
        f"tuned temporal forgetting reaches {rev('temporal*'):.3f} (p = {p:.3f})",
        f"our code, {d['seeds']} seeds)",
    ]


def _freetext() -> list[str]:
    offline = _load("issue37/offline-freetext-cases-heldout.json")["systems"]
    before = _load("issue37/freetext-cases-heldout.json")["systems"]["tepa/store"]
    judged = _load("issue37/judge-merged-cases-heldout.json")
    systems = judged["systems"]
    tepa = offline["tepa/store"]
    counts = tepa["counts"]
    true = counts["keep_both_memories"] + counts["probe_memories"] + counts["distractor_memories"]
    hidden_before = before["counts"]["keep_both_hidden"] + before["counts"]["probe_hidden"]
    minilm = _load("issue37/minilm-cases-heldout.json")
    assert minilm["config"]["split"] == "cases-heldout"
    gold, wrong, delete = (
        systems["judge-gold/store"],
        systems["judge-wrong10/store"],
        systems["delete-wrong10/direct"],
    )
    return [
        f"On {counts['change_scenarios']} hand-written changes and {true} true memories",
        f"hid none of the true memories (0 of {true}; {hidden_before} before this release)",
        f"still served in {tepa['stale_served']:.1f}% of the changes "
        f"(`InMemoryStore`: {offline['inmemory/store']['stale_served']:.1f}%)",
        f"The later memory was in the top 3 in {tepa['current_present']:.1f}%, and in "
        f"{minilm['systems']['tepa/store']['current_present']:.1f}% with all-MiniLM-L6-v2",
        f"{gold['stale_served']:.1f}% of the changes served the stale memory and "
        f"{round(gold['hidden_true'] * true / 100)} of {true} true memories were hidden",
        f"{wrong['stale_served']:.1f}% stale and {wrong['hidden_true']:.1f}% of true memories "
        f"hidden, against {delete['stale_served']:.1f}% and {delete['hidden_true']:.1f}%",
    ]


def _perf() -> list[str]:
    sizes = _load("issue40/perf-stores.json")["sizes"]

    def ratios(path: tuple[str, ...]) -> str:
        out = []
        for size in ("10000", "100000"):
            stores = sizes[size]["stores"]
            ours, theirs = stores["tepa"], stores["sqlite"]
            for step in path:
                ours, theirs = ours[step], theirs[step]
            out.append(f"{ours / theirs:.2f}x")
        return " and ".join(out)

    return [
        f"warm one-user search {ratios(('warm', 'search_one_user', 'p50_ms'))}",
        f"warm `get` {ratios(('warm', 'get', 'p50_ms'))}",
        f"first all-users search {ratios(('fresh', 'first_search_all_users_ms'))}",
        f"its open + first one-user search {ratios(('fresh', 'open_plus_first_ms'))}",
        f"put p50 {ratios(('warm', 'put', 'p50_ms'))}",
        f"bulk load {ratios(('load_s',))}",
        f"fresh peak memory {ratios(('fresh', 'peak_rss_mib'))}",
    ]


def _trials() -> list[str]:
    d = _load("issue39/contested.json")
    arm = d["arms"]["executor"]
    regret = arm["regret"]
    cost = regret["declared_cost"]
    by = {m: v["by_cost"][f"{cost:g}"] for m, v in regret["methods"].items()}
    (verdict,) = [
        v
        for v in arm["regret_verdicts"]
        if (v["method"], v["baseline"]) == ("tepa-full", "lww+trial")
    ]
    p = verdict["by_cost"][f"{cost:g}"]["p"]
    methods = arm["methods"]
    return [
        f"{d['seeds']} seeds no rule was tuned on",
        f"TEPA-Full's regret is {by['tepa-full']:.2f} per seed against {by['lww+trial']:.2f}",
        f"(p = {p:.3f}: not significant",
        f"({methods['tepa-full']['adoption_latency']:.2f} against "
        f"{methods['lww+trial']['adoption_latency']:.2f} interactions)",
        f"({methods['tepa-key']['failures']:.2f} against {methods['lww']['failures']:.2f} "
        "failures per seed)",
    ]


FIGURES = {"drift": _drift, "freetext": _freetext, "perf": _perf, "trials": _trials}


@pytest.mark.parametrize("part", sorted(FIGURES))
def test_the_readme_quotes_its_results_files(part: str) -> None:
    readme = _readme()
    missing = [s for s in FIGURES[part]() if s not in readme]
    assert not missing, f"README.md's {part} figures differ from docs/results: expected {missing}"
