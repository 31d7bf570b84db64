"""Smoke test of ``tepa-bench perf`` at a tiny size: JSON shape and sane numbers, no timing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tepa_bench.perf import build_workload, format_table, main, run_perf
from tepa_bench.registry import get_command

RATIOS = {"retrieve_vs_floor", "retrieve_vs_naive", "observe_vs_add", "ingest_vs_add"}
EXTRA = {"observe_repeat_vs_add", "observe_new_vs_add", "ingest_mixed_vs_add"}
OPS = {
    "retrieve",
    "floor_query",
    "naive_query",
    "observe",
    "observe_repeat",
    "observe_new",
    "raw_add",
    "audit",
    "reconcile",
    "open",
}


def test_workload_revokes_a_third_over_100_namespaces() -> None:
    work = build_workload(3000, calls=10)
    assert len(work.namespaces) == 100
    assert sum(len(s) for s in work.streams.values()) == 3000
    assert work.revoked == 1000
    texts = [p.text for s in work.streams.values() for p in s]
    assert len(set(texts)) == len(texts)
    assert work.matrix.shape == (len(work.texts), 384)
    # Each key's values are observed in order (the revoked ones are the earlier values).
    for stream in work.streams.values():
        seen: dict[str, int] = {}
        for p in stream:
            v = int(p.value[1:])
            assert v == seen.get(p.key, -1) + 1
            seen[p.key] = v


def test_perf_runs_at_a_tiny_size_and_writes_the_json(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_perf([300], out, calls=12, quiet=True, work_dir=tmp_path, open_subprocess=False)
    stored = json.loads((out / "perf.json").read_text(encoding="utf-8"))
    assert stored == json.loads(json.dumps(result))
    r = stored["results"]["300"]
    assert set(r["ratios"]) == RATIOS
    assert all(v > 0 for v in r["ratios"].values())
    assert set(r["ops"]) == OPS
    for name, op in r["ops"].items():
        assert op["p50_ms"] > 0, name
        assert op["p95_ms"] >= op["p50_ms"], name
    assert r["ops"]["retrieve"]["calls"] == 12
    assert r["ops"]["observe"]["calls"] == 12
    # The lifecycle of the workload: a third of the precedents end revoked.
    assert r["precedents"] == {"active": 200, "revoked": 100}
    assert r["evidence"] >= 300 + 12
    assert r["ingest"]["tepa_rps"] > 0 and r["ingest"]["raw_rps"] > 0
    assert r["ingest"]["tepa_mixed_rps"] > 0 and r["ingest"]["raw_mixed_rps"] > 0
    assert set(r["extra_ratios"]) == EXTRA
    assert r["peak_rss_mib"] > 0
    assert r["embedding_misses"] == 0
    assert r["targets_met"] is None  # targets apply at 100,000
    table = format_table(stored)
    assert "300" in table and "retrieve" in table
    assert format_table(stored, markdown=True).startswith("| N |")
    assert not any(tmp_path.glob("tepa-perf-*"))  # the temporary Chroma is removed
    report = (out / "perf.md").read_text(encoding="utf-8")
    assert "| N |" in report and "Load average" in report and "cpus" in report
    assert stored["load_average"]["before"] and stored["machine"]["cpus"]


@pytest.mark.parametrize("argv", [["--sizes", "10"], ["--sizes", "a,b"]])
def test_bad_sizes_exit_with_a_message(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--out", str(tmp_path)]) == 2
    assert "sizes" in capsys.readouterr().err
    assert not (tmp_path / "perf.json").exists()


def test_perf_is_a_tepa_bench_subcommand() -> None:
    assert get_command("perf").name == "perf"
