"""The scripted judge models and the direct-delete design of ``tepa-bench run freetext``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tepa_bench import freetext as F  # noqa: N812 - short in tables of calls
from tepa_bench import freetext_data as D  # noqa: N812
from tepa_bench.freetext_cases import case_scenarios
from tepa_bench.freetext_data import Label, pair_labels
from tepa_bench.freetext_judges import GoldJudgeModel, direct_delete_system, judge_model

OLD, NEW, DOG, CAT = "I live in Lisbon.", "I moved to Oslo.", "I have a dog.", "I also have a cat."
HYPO = "I might move to Rome."


def _scenario() -> D.Scenario:
    claim = D.Claim
    memories = (
        D.Memory(OLD, "old", (claim("user.home_city", "Lisbon"),)),
        D.Memory("Lisbon is still my home.", "repeat", (claim("user.home_city", "Lisbon"),)),
        D.Memory(DOG, "multi", (claim("user.pets", "dog", multi_valued=True),)),
        D.Memory(CAT, "multi", (claim("user.pets", "cat", multi_valued=True),)),
        D.Memory(HYPO, "hypothetical"),
        D.Memory(NEW, "current", (claim("user.home_city", "Oslo"),)),
    )
    return D.Scenario(
        "a", "change", "home_city", "repeat", memories, "where", (0, 1), (5,), (2, 3, 4)
    )


def _body(new: str, *earlier: str) -> dict[str, object]:
    return {
        "earlier": [{"id": f"c{i + 1}", "text": t, "served": True} for i, t in enumerate(earlier)],
        "new": [{"id": "n1", "text": new}],
    }


def test_the_gold_model_answers_from_the_labels_only() -> None:
    model = GoldJudgeModel(labels=pair_labels([_scenario()]))
    (memory,) = json.loads(model.answer(_body(NEW, OLD, DOG)))["memories"]
    assert [(v["candidate"], v["relation"]) for v in memory["verdicts"]] == [("c1", "replaces")]
    (hypo,) = json.loads(model.answer(_body(HYPO, OLD)))["memories"]
    assert hypo["verdicts"] == [] and hypo["hypothetical"] is True


def test_a_wrong_model_errs_on_its_share_of_decisions_the_same_way_every_time() -> None:
    pairs = [(f"earlier {i}", f"later {i}") for i in range(4000)]
    labels = {p: Label("replaces") for p in pairs}
    model = judge_model("wrong10", labels)
    answers = [model.relation(a, b) for a, b in pairs]
    share = sum(r != "replaces" for r in answers) / len(pairs)
    assert 0.085 < share < 0.115
    assert {r for r in answers if r != "replaces"} == {"adds", "unrelated"}
    assert answers == [judge_model("wrong10", labels).relation(a, b) for a, b in pairs]
    flags = sum(bool(model.flags(b, [a])) for a, b in pairs) / len(pairs)
    assert 0.085 < flags < 0.115
    assert not any(judge_model("wrong10rel", labels).flags(b, [a]) for a, b in pairs[:500])


class _HedgedReplace(GoldJudgeModel):
    """Answers that the hypothetical text replaces the old one, and flags it hypothetical."""

    def answer(self, body: Mapping[str, Any]) -> str:
        verdicts = [
            {"candidate": c["id"], "relation": "replaces", "confidence": 0.9, "reason": "?"}
            for c in body["earlier"]
            if c["text"] == OLD and body["new"][0]["text"] == HYPO
        ]
        return json.dumps({"memories": [{"id": "n1", "hypothetical": True, "verdicts": verdicts}]})


def test_direct_delete_deletes_on_replaces_whatever_the_flags() -> None:
    system = direct_delete_system("delete-x/direct", _HedgedReplace())
    system.write_all("s", [OLD, DOG, HYPO])
    assert sorted(system.search("s", "home", 5)) == sorted([DOG, HYPO])


def test_the_gold_judge_reaches_the_ceiling_on_a_dev_sample() -> None:
    scenarios = D.generate_scenarios("dev", n_change=12, seed=3, background=1)
    scenarios += case_scenarios("cases-dev", background=1)[:30]
    result = F.run_freetext(scenarios, ["judge-gold/store", "delete-gold/direct"], progress=False)
    for name in ("judge-gold/store", "delete-gold/direct"):
        metrics = result["systems"][name]
        assert (metrics["stale_served"], metrics["hidden_true"]) == (0.0, 0.0)
    pair = result["designs"]["judge-gold/store vs delete-gold/direct"]
    assert pair == {"stale_diff_pct": 0.0, "stale_p": 1.0, "hidden_diff_pct": 0.0, "hidden_p": 1.0}
