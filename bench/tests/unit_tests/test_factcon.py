"""The factcon scenario: loader, answering, metric, methods, JSON contract, extractor metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.types import Fact
from langchain_tepa.extraction import normalize_key_part
from tepa_bench.answering import ActiveIndex, normalize_answer, substring_exact_match
from tepa_bench.extractor_eval import evaluate_extractor, fact_correct
from tepa_bench.factcon import FactconConfig, run_factcon, run_instances
from tepa_bench.factcon_cli import main
from tepa_bench.factcon_data import (
    DATA_DIR,
    OFFICIAL_6K,
    POOL_6K,
    FactconFact,
    FactconInstance,
    FactconQuestion,
    load_factcon,
    parse_context,
)

OFFICIAL = OFFICIAL_6K

FACTS = [
    "Ada Lovelace is a citizen of France.",
    "The capital of France is Paris.",
    "The capital of Peru is Lima.",
    "Ada Lovelace was born in the city of London.",
    "Ada Lovelace is a citizen of Peru.",  # overrides fact 0
    "The capital of France is Lyon.",  # overrides fact 1
]


def toy_instance() -> FactconInstance:
    inst = FactconInstance("toy", [FactconFact(i, t) for i, t in enumerate(FACTS)])
    inst.subsets["toy_sh"] = [
        FactconQuestion(
            "s0", "sh", "What is the country of citizenship of Ada Lovelace?", ("Peru",)
        ),
        FactconQuestion("s1", "sh", "What is the capital of France?", ("Lyon",)),
        FactconQuestion("s2", "sh", "In which city was Ada Lovelace born?", ("London",)),
    ]
    inst.subsets["toy_mh"] = [
        FactconQuestion(
            "m0",
            "mh",
            "What is the capital of the country Ada Lovelace is a citizen of?",
            ("Lima",),
        ),
    ]
    return inst


def test_metric_is_mab_substring_match() -> None:
    assert normalize_answer("The U.S.A.!") == "usa"
    assert substring_exact_match("It is London, England", ["london"])
    assert not substring_exact_match("Londo", ["London"])
    assert not substring_exact_match("anything", [""])


def test_parse_context() -> None:
    facts = parse_context("Here is a list of facts:\n1. B is C.\n0. A is B.\nnoise")
    assert [(f.serial, f.text) for f in facts] == [(0, "A is B."), (1, "B is C.")]
    with pytest.raises(InvalidArgumentError):
        parse_context("no facts here")


def test_latest_value_wins_only_where_the_memory_revokes_or_ranks() -> None:
    result = run_instances([toy_instance()], methods=["append-only", "lww", "tepa-rev"])
    methods = result["methods"]
    assert methods["lww"]["subsets"]["toy_sh"]["accuracy"] == 1.0
    assert methods["tepa-rev"]["subsets"]["toy_sh"]["accuracy"] == 1.0
    assert methods["lww"]["subsets"]["toy_mh"]["accuracy"] == 1.0
    example = methods["lww"]["subsets"]["toy_mh"]["examples"][0]
    assert example["prediction"] == "Lima"
    assert "ada_lovelace.citizen_of" in example["trace"] and "peru.capital" in example["trace"]
    # append-only keeps both values Active with equal validity: it can be right only by chance
    ao = methods["append-only"]["subsets"]["toy_sh"]
    assert ao["active"] > methods["lww"]["subsets"]["toy_sh"]["active"]


def test_json_contract() -> None:
    result = run_instances([toy_instance()], methods=["tepa-norev"])
    assert result["scenario"] == "factcon"
    assert set(result) >= {"scenario", "data", "methods"}
    for subset in result["methods"]["tepa-norev"]["subsets"].values():
        assert {"accuracy", "n", "ingest_s", "facts_per_s"} <= set(subset)
        assert 0.0 <= subset["accuracy"] <= 1.0
    json.dumps(result)


def test_reader_uses_validity_not_time() -> None:
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), policy="tepa-rev")
    peru = "Ada is a citizen of Peru."
    mem.observe_many(
        [Fact("ada.citizen_of", "Peru", text=peru, source=f"tool.doc{i}") for i in range(4)]
    )
    mem.observe("ada.citizen_of", "Chile", text="Ada is a citizen of Chile.")
    # Chile is newer but less supported (four sources said Peru): Peru stays the answer
    assert ActiveIndex(mem).answer("Which country is Ada a citizen of?").text == "Peru"


def test_official_loader_and_slice() -> None:
    (inst,) = load_factcon(OFFICIAL)
    assert set(inst.subsets) == {"factconsolidation_sh_6k", "factconsolidation_mh_6k"}
    assert inst.n_facts > 400 and not inst.has_parses
    inst.facts = inst.facts[:120]
    inst.subsets = {"factconsolidation_sh_6k": inst.subsets["factconsolidation_sh_6k"][:30]}
    result = run_instances([inst], methods=["lww", "append-only"])
    lww = result["methods"]["lww"]["subsets"]["factconsolidation_sh_6k"]
    assert lww["n"] == 30 and lww["keys"] > 50


def test_pool_oracle_keys_and_extractor_share(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code = main(
        [
            "--data",
            str(POOL_6K),
            "--methods",
            "lww",
            "--limit-questions",
            "20",
            "--quiet",
            "--oracle-keys",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    sub = json.loads(out.read_text())["methods"]["lww"]["subsets"]
    assert set(sub) == {"factcon_pool_6k_seed0_0_sh", "factcon_pool_6k_seed0_0_mh"}
    assert sub["factcon_pool_6k_seed0_0_sh"]["extractor_errors"] == 0
    assert sub["factcon_pool_6k_seed0_0_sh"]["n"] == 20


def test_bundled_data_ships_with_its_licences() -> None:
    assert OFFICIAL.is_file() and POOL_6K.is_file()
    for name in ("LICENSE-MemoryAgentBench", "LICENSE-MQuAKE", "README.md"):
        assert (DATA_DIR / name).is_file(), name
    assert "MIT License" in (DATA_DIR / "LICENSE-MemoryAgentBench").read_text("utf-8")
    assert "MIT License" in (DATA_DIR / "LICENSE-MQuAKE").read_text("utf-8")
    readme = (DATA_DIR / "README.md").read_text("utf-8")
    assert "arXiv:2507.05257" in readme and "MQuAKE" in readme
    # the default of load_factcon is the official file, unchanged (455 facts, 2 x 100 questions)
    (inst,) = load_factcon()
    assert inst.n_facts == 455
    assert {k: len(v) for k, v in inst.subsets.items()} == {
        "factconsolidation_sh_6k": 100,
        "factconsolidation_mh_6k": 100,
    }


def test_runs_default_to_the_bundled_data(tmp_path: Path) -> None:
    config = FactconConfig(methods=("lww",), limit_questions=3, examples=0)
    result = run_factcon(config)
    assert result["data"] == str(OFFICIAL)
    assert set(result["methods"]["lww"]["subsets"]) == {
        "factconsolidation_sh_6k",
        "factconsolidation_mh_6k",
    }
    out = tmp_path / "r.json"
    code = main(["--methods", "lww", "--limit-questions", "3", "--quiet", "--out", str(out)])
    assert code == 0
    assert json.loads(out.read_text())["data"] == str(OFFICIAL)


def test_missing_data_file_is_a_typed_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(InvalidArgumentError, match="--data PATH"):
        load_factcon(missing)
    assert main(["--data", str(missing), "--quiet"]) == 2


def test_oracle_keys_need_parses() -> None:
    assert OFFICIAL.is_file()  # the error below must come from the missing parses
    with pytest.raises(InvalidArgumentError, match="ground-truth parses"):
        run_factcon(FactconConfig(data=str(OFFICIAL), oracle_keys=True, methods=("lww",)))
    assert main(["--data", str(OFFICIAL), "--oracle-keys", "--quiet"]) == 2


def test_unknown_method_and_missing_file() -> None:
    with pytest.raises(InvalidArgumentError):
        FactconConfig(data="x", methods=("nope",))
    with pytest.raises(InvalidArgumentError):
        load_factcon("/nonexistent/file.json")


def test_openai_reader_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InvalidArgumentError):
        run_instances([toy_instance()], config=FactconConfig(data="", reader="openai"))


class HalfExtractor:
    """Right on even serials, wrong value on odd ones, nothing on multiples of 3."""

    def __init__(self, golds: dict[str, FactconFact]) -> None:
        self.golds = golds

    def extract(self, text: str) -> list[Fact]:
        g = self.golds[text]
        if g.serial % 3 == 0:
            return []
        value = g.object if g.serial % 2 == 0 else "wrong"
        return [Fact(f"{normalize_key_part(str(g.subject))}.r", value)]


def test_extractor_metrics_definitions() -> None:
    (inst,) = load_factcon(POOL_6K)
    golds = {f.text: f for f in inst.facts}
    assert len(golds) == inst.n_facts
    report = evaluate_extractor(POOL_6K, HalfExtractor(golds))
    n = inst.n_facts
    extracted = sum(1 for f in inst.facts if f.serial % 3)
    correct = sum(1 for f in inst.facts if f.serial % 3 and f.serial % 2 == 0)
    assert report["facts"] == n and report["extracted"] == extracted
    assert report["precision"] == round(correct / extracted, 4)
    assert report["recall"] == round(correct / n, 4)
    gold = FactconFact(0, "x", "The Monk", "P1", "English")
    assert fact_correct(gold, Fact("monk.language", "english"))
    assert not fact_correct(gold, Fact("monks.language", "English"))


def test_offline_extractor_on_pool_is_measured() -> None:
    report = evaluate_extractor(POOL_6K)
    assert report["facts"] == 408
    assert 0.0 <= report["precision"] <= 1.0 and 0.0 <= report["recall"] <= 1.0
    assert report["recall_lenient"] >= report["recall"]


def test_tepa_bench_run_factcon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tepa_bench.cli import main as bench_main

    code = bench_main(
        [
            "run",
            "factcon",
            "--data",
            str(POOL_6K),
            "--methods",
            "tepa-rev",
            "--limit-questions",
            "5",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
    )
    assert code == 0
    result = json.loads((tmp_path / "factcon.json").read_text())
    assert set(result["methods"]["tepa-rev"]["subsets"]) == {
        "factcon_pool_6k_seed0_0_sh",
        "factcon_pool_6k_seed0_0_mh",
    }
    assert "factcon_pool_6k_seed0_0_sh" in capsys.readouterr().out


def test_tepa_bench_run_factcon_without_data_reads_the_bundled_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tepa_bench.cli import main as bench_main

    argv = ["run", "factcon", "--methods", "lww", "--limit-questions", "2", "--out", str(tmp_path)]
    assert bench_main([*argv, "--no-progress"]) == 0
    result = json.loads((tmp_path / "factcon.json").read_text())
    assert result["data"] == str(OFFICIAL)
    assert "factconsolidation_sh_6k" in capsys.readouterr().out


def test_extractor_eval_cli_defaults_to_the_bundled_pool(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tepa_bench.extractor_eval import main as eval_main

    assert eval_main([]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["data"] == str(POOL_6K) and report["facts"] == 408
