"""``tepa-bench perf --scale`` end to end at tiny sizes: fresh processes and its own ``chroma run``.

No timing is asserted: the run must complete, every read must be right, the freshness trials
must all pass, the report, JSON and plot must be written, and a second run must reuse the cached
stores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_tepa.core.errors import StorageUnavailableError
from tepa_bench.perf import main, run_scale
from tepa_bench.perf.side_by_side import sqlite_module

# scale_run (module scope) builds the stores once: its tests share one worker
pytestmark = pytest.mark.xdist_group("perf_scale_run")


def _has_sqlite_vec() -> bool:
    try:
        sqlite_module()
    except StorageUnavailableError:
        return False  # SqliteStore's index needs sqlite-vec
    return True


@pytest.fixture(scope="module")
def scale_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("perf-scale")
    result = run_scale(
        root / "out",
        sizes=[100, 200],
        cache=root / "cache",
        parts=["batch", "fresh", "reads"],
        calls=6,
        touch=4,
        opens=2,
        lg_n=10,
        lg_m=2,
        trials=25,
        quiet=True,
        work_dir=root,
    )
    return root, result


def test_reads_are_right_embedded_and_through_the_server(scale_run: tuple[Path, dict]) -> None:
    _, result = scale_run
    assert sorted(result["scale"]) == ["100", "200"]
    for size in result["scale"].values():
        for mode in ("embedded", "server"):
            reads = size[mode]
            assert reads["mode"] == mode
            assert reads["wrong_answers"] == 0
            assert reads["top5_agreement"] == 1.0
            assert reads["ops"]["get"]["calls"] == 6
        assert size["open"]["correct"] is True
        assert size["open"]["reps"] == 2
        assert size["rss_embedded"]["wrong_answers"] == 0
        assert size["rss_server_client"]["mode"] == "server"
        assert size["server_peak_rss_mib"] > 0


def test_freshness_and_the_langgraph_batch(scale_run: tuple[Path, dict]) -> None:
    _, result = scale_run
    fresh = result["freshness"]
    assert fresh["seen"] == fresh["trials"] == 25
    assert fresh["stale_reader_seen"] < 25  # skipping the head check does miss writes
    batch = result["lg_batch"]
    assert batch["ops"] == 120
    for store in ("tepa", "sqlite", "inmemory"):
        assert batch[store]["items_left"] == 0
        assert batch[store]["ops_per_s"] > 0
    assert batch["raw_add_rps"] > 0


def test_report_json_and_plot_are_written(scale_run: tuple[Path, dict]) -> None:
    root, _ = scale_run
    out = root / "out"
    stored = json.loads((out / "perf-scale.json").read_text("utf-8"))
    assert stored["sizes"] == [100, 200]
    assert stored["load_average"]["before"] and stored["load_average"]["after"]
    assert (out / "perf-scale.png").stat().st_size > 10_000
    text = (out / "perf-scale.md").read_text("utf-8")
    for heading in ("## Targets", "## Growth", "## Reads through `chroma run`", "## LangGraph"):
        assert heading in text
    assert {t["target"] for t in stored["targets"]} >= {
        "open < 1 s (fresh process)",
        "cross-process read-your-writes in 100% of trials (chroma run)",
    }


def test_a_second_run_reuses_the_cached_stores(
    scale_run: tuple[Path, dict], tmp_path: Path
) -> None:
    root, _ = scale_run
    argv = ["--scale", "--scale-sizes", "100", "--parts", "reads", "--calls", "3", "--touch", "2"]
    argv += ["--opens", "1", "--cache", str(root / "cache"), "--out", str(tmp_path), "--quiet"]
    assert main(argv) == 0
    again = json.loads((tmp_path / "perf-scale.json").read_text("utf-8"))
    assert again["stores"]["100"]["reused"] is True
    assert again["reference_store"]["reused"] is True


@pytest.mark.skipif(not _has_sqlite_vec(), reason="SqliteStore's index needs sqlite-vec")
def test_the_stores_run_side_by_side_at_two_sizes(tmp_path: Path) -> None:
    argv = ["--stores", "--store-sizes", "200,400", "--calls", "4", "--wide-calls", "2"]
    argv += ["--store-opens", "2", "--out", str(tmp_path), "--quiet"]
    assert main(argv) == 0
    result = json.loads((tmp_path / "perf-stores.json").read_text("utf-8"))
    assert sorted(result["sizes"]) == ["200", "400"]
    for size in result["sizes"].values():
        assert (size["users"], size["items"]) == (100, size["records"] // 100)
        assert set(size["ratios"]) >= {"put p50", "fresh: peak RSS", "bulk load"}
        for kind in ("tepa", "sqlite"):
            fresh = size["stores"][kind]["fresh"]
            assert len(fresh["runs"]) == 2
            assert fresh["peak_rss_mib"] > 0
            warm = size["stores"][kind]["warm"]
            assert warm["put_claim"]["calls"] == warm["put"]["calls"] == 4
        tepa = size["stores"]["tepa"]
        assert tepa["warm"]["search_one_user_top10_agreement"] == 1.0
        assert tepa["fresh"]["one_user_top10_agreement"] == 1.0
        assert tepa["fresh"]["all_users_top10_agreement"] == 1.0
    assert (tmp_path / "perf-stores.png").stat().st_size > 10_000
    assert "| put p50 | <= 2.5x |" in (tmp_path / "perf-stores.md").read_text("utf-8")
