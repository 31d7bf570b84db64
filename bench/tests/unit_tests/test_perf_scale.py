"""``tepa-bench perf --scale`` pieces at tiny sizes: data, cache, reads, report. No timing asserts.

The whole scale run (fresh processes, a ``chroma run`` server) is in
``bench/tests/integration_tests/test_perf_scale.py``.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langgraph.store.memory import InMemoryStore

from langchain_tepa import InvalidArgumentError, TEPAMemory, TEPAStore
from tepa_bench.perf import ScaleSpec, main
from tepa_bench.perf.common import DerivedEmbeddings, TableEmbeddings, derived_vector, pct
from tepa_bench.perf.lg_batch import lg_ops_count, lg_workload
from tepa_bench.perf.plot import plot_growth
from tepa_bench.perf.scale import ensure_store
from tepa_bench.perf.scale_data import LARGE, build_store, floor_name, open_manifest
from tepa_bench.perf.scale_reads import measure_reads, query_embeddings
from tepa_bench.perf.scale_report import growth_rows, scale_markdown, slope, targets
from tepa_bench.perf.side_by_side import StoreWorkload
from tepa_bench.perf.workload import perf_policy

# tiny_store (module scope) is built once and reused: its tests share one worker
pytestmark = pytest.mark.xdist_group("perf_scale_store")


# ------------------------------------------------------------------------------- data
def test_spec_sizes_and_validation() -> None:
    spec = ScaleSpec(1_000_000)
    assert (spec.namespaces, spec.large_records, spec.total_records) == (
        100_000,
        100_000,
        1_100_000,
    )
    for bad in (99, 1005, True, "1000"):
        with pytest.raises(InvalidArgumentError, match="multiples of 10"):
            ScaleSpec(bad)  # type: ignore[arg-type]


def test_sampled_namespaces_avoid_the_query_namespaces() -> None:
    for records in (1000, 100_000):  # the small pool and the rejection sampler
        spec = ScaleSpec(records)
        queries = set(spec.query_namespaces())
        picked = spec.sample(50, salt=1)
        assert len(set(picked)) == 50
        assert not queries & set(picked)
        assert all(0 <= i < spec.namespaces for i in picked)
        assert picked == spec.sample(50, salt=1)  # seeded
        assert picked != spec.sample(50, salt=2)


def test_expected_answers_are_what_the_lifecycle_folds() -> None:
    spec = ScaleSpec(100)
    memory = TEPAMemory.in_memory(policy=perf_policy(), embeddings=DerivedEmbeddings())
    memory.observe_many([f for i in range(3) for f in spec.small_facts(i)])
    for i in range(3):
        for key in ("pref.k0", "pref.k1", "pref.k2", "list.k0", "list.k1"):
            got = memory.get(key, namespace=spec.namespace(i))
            want = spec.expected(i, key)
            assert (sorted(got) if isinstance(want, list) else got) == want, (i, key)
    states = [p.state.value for p in memory.precedents(namespace=spec.namespace(0))]
    assert sorted(states) == ["active"] * 6 + ["revoked"]  # a user who changed a preference


def test_derived_vectors_are_stable_unit_vectors() -> None:
    v = derived_vector("pizza")
    assert v.shape == (384,)
    assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-5
    emb = DerivedEmbeddings()
    assert emb.embed_documents(["pizza", "tax"])[0] == [float(x) for x in v.tolist()]
    assert emb.calls == 2
    table = TableEmbeddings(["a"], np.ones((1, 384), dtype=np.float32))
    assert table.embed_query("not in the table") == [
        float(x) for x in derived_vector("not in the table")
    ]
    assert table.misses == 1
    assert pct([])["calls"] == 0


# ------------------------------------------------------------------------------- store cache
@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[ScaleSpec, Path, dict[str, Any]]:
    spec = ScaleSpec(200)
    cache = tmp_path_factory.mktemp("scale-cache")
    folder, manifest = ensure_store(spec, cache, quiet=True)
    return spec, folder, manifest


def test_built_store_has_its_records_floors_and_manifest(
    tiny_store: tuple[ScaleSpec, Path, dict[str, Any]],
) -> None:
    spec, folder, manifest = tiny_store
    assert manifest["reused"] is False
    assert manifest["evidence"] == spec.total_records == 220
    assert manifest["workload"] == spec.to_json()
    assert manifest["bytes"] > 0 and manifest["build_seconds"] > 0
    # A floor per query namespace, with its Active precedents (6 of 7), and the large one's.
    floors = manifest["floors"]
    assert len(floors) == len(spec.query_namespaces()) + 1
    assert all(floors[floor_name(n)] == 6 for n in range(len(spec.query_namespaces())))
    assert floors[floor_name(None)] == spec.large_records
    assert open_manifest(folder, spec) is not None
    assert not folder.with_name(folder.name + ".partial").exists()


def test_a_cached_store_is_reused_and_another_version_rebuilt(
    tiny_store: tuple[ScaleSpec, Path, dict[str, Any]],
) -> None:
    spec, folder, manifest = tiny_store
    again_folder, again = ensure_store(spec, folder.parent, quiet=True)
    assert again_folder == folder
    assert again["reused"] is True
    assert again["built_at"] == manifest["built_at"]
    # A manifest of another workload does not match: that store would be rebuilt.
    stale = json.loads((folder / "manifest.json").read_text())
    stale["workload"] = {**stale["workload"], "version": -1}
    other = folder.parent / "copy"
    other.mkdir()
    (other / "chroma").mkdir()
    (other / "manifest.json").write_text(json.dumps(stale))
    assert open_manifest(other, spec) is None


def test_build_refuses_an_existing_folder(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    with pytest.raises(FileExistsError):
        build_store(ScaleSpec(100), tmp_path / "x")


def test_reads_of_the_tiny_store_are_correct(
    tiny_store: tuple[ScaleSpec, Path, dict[str, Any]],
) -> None:
    spec, folder, _ = tiny_store
    got = measure_reads(spec, chroma=folder / "chroma", calls=8, touch=6)
    assert got["wrong_answers"] == 0
    assert got["touched"] == 6
    assert got["namespaces_listed"] == spec.namespaces + 1
    assert got["list_namespaces_returned"] == spec.namespaces + 1  # under the default limit
    # Ranking in process and the raw floor agree on a namespace this small.
    assert got["top5_agreement"] == 1.0
    assert got["top5_agreement_large"] == 1.0
    assert got["recall5_large"] == {
        "retrieve_large": 1.0,
        "floor_large": 1.0,
        "retrieve_large_nearest": 1.0,
        "floor_large_nearest": 1.0,
    }
    for name in ("get", "get_no_head_check", "retrieve", "floor", "retrieve_large", "floor_large"):
        assert got["ops"][name]["calls"] == 8
    assert got["ops"]["first_get"]["calls"] == 6
    assert got["ops"]["list_namespaces"]["calls"] == 3
    assert got["retrieve_vs_floor"] > 0


def test_queries_lie_near_a_record_of_the_large_namespace() -> None:
    spec = ScaleSpec(1000)
    emb = query_embeddings(spec, 3)
    assert emb.misses == 0
    q = np.asarray(emb.embed_query("scale query 2"))
    near = derived_vector(spec.large_text((2 * 7919) % spec.large_records))
    assert 0.85 < float(q @ near) < 0.95
    assert (
        abs(float(np.asarray(query_embeddings(None, 3).embed_query("scale query 2")) @ near)) < 0.3
    )
    # The text a large record is embedded with is its precedent's page_content.
    memory = TEPAMemory.in_memory(policy=perf_policy(), embeddings=DerivedEmbeddings())
    memory.observe_many(spec.large_facts(0, 3))
    docs = memory.active_documents(namespace=LARGE)
    assert sorted(d.page_content for d in docs) == sorted(spec.large_text(j) for j in range(3))


# ------------------------------------------------------------------------------- workloads
def test_langgraph_batch_workload_runs_on_both_stores() -> None:
    for store in (InMemoryStore(), TEPAStore.in_memory(embeddings=DerivedEmbeddings())):
        results = asyncio.run(lg_workload(store, 5, 2))
        assert len(results) == lg_ops_count(5, 2) == 60
        assert asyncio.run(store.asearch(("test",))) == []  # every key ends deleted


def test_side_by_side_workload_is_deterministic() -> None:
    work = StoreWorkload(users=3, items=4)
    table = work.table(calls=2)
    assert len(table.rows) == 3 * 4 + 97 + 2
    text = work.value(2, 3)["text"]
    assert table.embed_query(text) == [float(x) for x in derived_vector(text)]
    assert work.index(table)["fields"] == ["text"]


# ------------------------------------------------------------------------------- report
def _ops(p50: float) -> dict[str, float]:
    return {"p50_ms": p50, "p95_ms": p50 * 2, "mean_ms": p50, "calls": 10}


def _size(scale: float, list_s: float) -> dict[str, Any]:
    names = (
        "first_get",
        "get",
        "get_no_head_check",
        "retrieve",
        "floor",
        "retrieve_large",
        "floor_large",
        "first_retrieve",
        "first_retrieve_large",
        "namespaces",
    )
    reads = {
        "ops": {**{n: _ops(1.0 * scale) for n in names}, "list_namespaces": _ops(list_s * 1000)},
        "retrieve_vs_floor": 1.2,
        "retrieve_large_vs_floor": 1.6,
        "top5_agreement": 1.0,
        "top5_agreement_large": 0.8,
        "wrong_answers": 0,
        "open_s": 0.05,
    }
    return {
        "open": {
            "open_s": 0.2 * scale,
            "reference_open_s": 0.2,
            "open_vs_reference": scale,
            "first_get_cold_s": 0.01,
        },
        "embedded": reads,
        "server": copy.deepcopy(reads),
        "rss_embedded": {"peak_rss_mib": 300.0 * scale},
        "rss_server_client": {"peak_rss_mib": 150.0},
        "server_peak_rss_mib": 400.0,
    }


def _result() -> dict[str, Any]:
    stores = {
        str(n): {
            "workload": ScaleSpec(n).to_json(),
            "bytes": n * 1000,
            "build_seconds": n / 100,
            "write_records_per_s": 700.0,
            "reused": True,
        }
        for n in (10_000, 1_000_000)
    }
    return {
        "scale": {"10000": _size(1.0, 0.5), "1000000": _size(3.0, 2.5)},
        "stores": stores,
        "reference_store": {"workload": ScaleSpec(1000).to_json()},
        "load_average": {"before": [1.0, 1.0, 1.0], "after": [2.0, 2.0, 2.0]},
        "machine": {"cpus": 2},
        "seconds": 60.0,
        "lg_batch": {
            "ops": 60000,
            "tepa": {"seconds": 100.0, "ops_per_s": 600.0, "items_left": 0},
            "sqlite": {"seconds": 2.0, "ops_per_s": 30000.0, "items_left": 0},
            "inmemory": {"seconds": 1.0, "ops_per_s": 60000.0, "items_left": 0},
            "raw_add_rps": 1000.0,
            "raw_batch": 1000,
            "raw_single_add_rps": 50.0,
            "raw_single_adds": 1000,
            "tepa_vs_raw_add": 0.6,
        },
        "freshness": {
            "trials": 10,
            "seen": 9,
            "stale_reader_seen": 0,
            "head_check_ms": 1.5,
            "get": _ops(2.0),
            "get_no_head_check": _ops(0.5),
            "observe_through_server": _ops(20.0),
        },
    }


def test_targets_are_judged_at_the_largest_size() -> None:
    rows = {r["target"]: r for r in targets(_result())}
    assert all(r["at"].startswith("1,000,000") for t, r in rows.items() if "retrieve" in t)
    assert rows["open < 1 s (fresh process)"]["met"] is True  # 0.6 s
    assert rows["open within 2x of a 1,000-record store"]["met"] is False  # 3x
    assert rows["later get p50 < 2 ms"]["met"] is False  # 3 ms
    assert rows["retrieve(k=5) <= 1.5x raw floor, embedded, small namespace"]["met"] is True
    assert rows["retrieve(k=5) <= 1.5x raw floor, embedded, large namespace"]["met"] is False
    assert rows["retrieve(k=5) <= 2x raw floor through chroma run, large namespace"]["met"] is True
    assert rows["peak RSS after touching 100 namespaces < 400 MiB"]["met"] is False  # 900
    assert rows["TEPAStore.list_namespaces() < 2 s"]["met"] is False  # 2.5 s
    assert rows["LangGraph 60k-op batch >= 50% of raw add throughput"]["met"] is True
    assert rows["cross-process read-your-writes in 100% of trials (chroma run)"]["met"] is False


def test_growth_table_slopes_and_markdown(tmp_path: Path) -> None:
    result = _result()
    sizes, rows = growth_rows(result)
    assert sizes == [10_000, 1_000_000]
    by_name = {name: (values, sl) for name, _unit, values, sl in rows}
    assert by_name["get p50"] == ([1.0, 3.0], slope([10_000, 1_000_000], [1.0, 3.0]))
    assert by_name["store on disk"][1] == 1.0  # bytes grow linearly
    assert slope([1, 10], [None, 5.0]) is None
    text = scale_markdown(result)
    for heading in (
        "## Targets",
        "## Growth",
        "## Reads, embedded",
        "## LangGraph",
        "## Cross-process",
    ):
        assert heading in text
    assert "**no**" in text and "Load average" in text
    png = tmp_path / "growth.png"
    assert plot_growth(result, png)
    assert png.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scale", "--scale-sizes", "105"], "multiples of 10"),
        (["--scale", "--parts", "reads,nope"], "--parts"),
        (["--scale", "--scale-sizes", "x"], "--scale-sizes"),
    ],
)
def test_bad_scale_arguments_exit_with_a_message(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "perf-scale.json").exists()
