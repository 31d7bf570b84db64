"""The report of ``tepa-bench perf --scale``: targets, tables and the growth table.

Example:
    >>> slope([10, 100], [1.0, 10.0])
    1.0
    >>> targets({"scale": {}})
    []
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

from tepa_bench.perf.report import fmt_ms, markdown_table

__all__ = ["GROWTH", "SCALE_TARGETS", "growth_rows", "scale_markdown", "slope", "targets"]

SCALE_TARGETS: dict[str, float] = {
    "open_s": 1.0,
    "open_vs_reference": 2.0,
    "first_get_p50_ms": 50.0,
    "get_p50_ms": 2.0,
    "retrieve_vs_floor": 1.5,
    "retrieve_vs_floor_server": 2.0,
    "rss_100_namespaces_mib": 400.0,
    "list_namespaces_s": 2.0,
    "lg_batch_vs_raw_add": 0.5,
    "freshness_seen_fraction": 1.0,
    "search_one_user_vs_sqlite": 1.0,
    "put_vs_sqlite": 3.0,
    "search_all_users_vs_sqlite": 2.0,
}
"""Issue 13's targets, checked at the largest size measured."""

Getter = Callable[[dict[str, Any], dict[str, Any]], float | None]


def _op(part: str, name: str, field: str = "p50_ms") -> Getter:
    return lambda size, store: size[part]["ops"][name][field]


GROWTH: tuple[tuple[str, str, Getter], ...] = (
    ("open (fresh process)", "ms", lambda s, m: s["open"]["open_s"] * 1000),
    ("first get, cold process", "ms", lambda s, m: s["open"]["first_get_cold_s"] * 1000),
    ("first get (first touch) p50", "ms", _op("embedded", "first_get")),
    ("get p50", "ms", _op("embedded", "get")),
    ("get p50, no head check", "ms", _op("embedded", "get_no_head_check")),
    ("retrieve p50, small namespace", "ms", _op("embedded", "retrieve")),
    ("raw floor p50, small namespace", "ms", _op("embedded", "floor")),
    ("retrieve p50, large namespace", "ms", _op("embedded", "retrieve_large")),
    ("raw floor p50, large namespace", "ms", _op("embedded", "floor_large")),
    ("first retrieve, large namespace", "ms", _op("embedded", "first_retrieve_large")),
    ("namespaces()", "ms", _op("embedded", "namespaces")),
    ("TEPAStore.list_namespaces()", "ms", _op("embedded", "list_namespaces")),
    (
        "TEPAStore.list_namespaces(), first call",
        "ms",
        lambda s, m: _first(s["embedded"]["ops"], "list_namespaces"),
    ),
    ("server: first get p50", "ms", _op("server", "first_get")),
    ("server: get p50", "ms", _op("server", "get")),
    ("server: retrieve p50, small namespace", "ms", _op("server", "retrieve")),
    ("server: raw floor p50, small namespace", "ms", _op("server", "floor")),
    ("server: retrieve p50, large namespace", "ms", _op("server", "retrieve_large")),
    ("server: list_namespaces()", "ms", _op("server", "list_namespaces")),
    (
        "peak RSS, 100 namespaces touched (embedded)",
        "MiB",
        lambda s, m: s["rss_embedded"]["peak_rss_mib"],
    ),
    (
        "peak RSS, 100 namespaces touched (server client)",
        "MiB",
        lambda s, m: s["rss_server_client"]["peak_rss_mib"],
    ),
    ("chroma run peak RSS", "MiB", lambda s, m: s.get("server_peak_rss_mib")),
    ("store on disk", "MiB", lambda s, m: m["bytes"] / 2**20),
    ("build time", "s", lambda s, m: m["build_seconds"]),
)
"""Rows of the growth table: name, unit, how to read it from a size's results and manifest."""


def slope(xs: Sequence[float], ys: Sequence[float | None]) -> float | None:
    """The log-log slope from the first to the last point (1.0: linear growth)."""
    pts = [(x, y) for x, y in zip(xs, ys, strict=True) if y is not None and y > 0 and x > 0]
    if len(pts) < 2 or pts[0][0] == pts[-1][0]:
        return None
    (x0, y0), (x1, y1) = pts[0], pts[-1]
    return round(math.log(y1 / y0) / math.log(x1 / x0), 2)


def _safe(fn: Getter, size: dict[str, Any], store: dict[str, Any]) -> float | None:
    try:
        got = fn(size, store)
    except (KeyError, TypeError):
        return None
    return None if got is None else float(got)


def growth_rows(
    result: dict[str, Any],
) -> tuple[list[int], list[tuple[str, str, list[float | None], float | None]]]:
    """Sizes and, per figure, its values at each size and its log-log slope."""
    sizes = sorted(int(k) for k in result.get("scale", {}))
    rows = []
    for name, unit, fn in GROWTH:
        values = [_safe(fn, result["scale"][str(n)], result["stores"][str(n)]) for n in sizes]
        rows.append((name, unit, values, slope([float(n) for n in sizes], values)))
    return sizes, rows


def _first(ops: dict[str, Any], name: str) -> float:
    """The first call's ms of a listing (runs before this figure was kept: the p50)."""
    return float(ops.get(f"{name}_first", ops[name])["p50_ms"])


def _row(target: str, measured: str, met: bool | None, where: str) -> dict[str, Any]:
    return {"target": target, "measured": measured, "met": met, "at": where}


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target of issue 13 with its figure (at the largest size measured) and verdict."""
    t = SCALE_TARGETS
    out: list[dict[str, Any]] = []
    if result.get("scale"):
        n = max(int(k) for k in result["scale"])
        s = result["scale"][str(n)]
        at = f"{n:,} records (+{n // 10:,} in the large namespace)"
        emb, srv, op = s["embedded"]["ops"], s["server"]["ops"], s["open"]
        out += [
            _row(
                "open < 1 s (fresh process)",
                f"{op['open_s']:.3f} s",
                op["open_s"] < t["open_s"],
                at,
            ),
            _row(
                "open within 2x of a 1,000-record store",
                f"{op['open_vs_reference']:.2f}x ({op['open_s']:.3f} vs "
                f"{op['reference_open_s']:.3f} s)",
                op["open_vs_reference"] <= t["open_vs_reference"],
                at,
            ),
            _row(
                "first get (first touch) p50 < 50 ms",
                f"{emb['first_get']['p50_ms']:.2f} ms (cold process: "
                f"{op['first_get_cold_s'] * 1000:.1f} ms)",
                emb["first_get"]["p50_ms"] < t["first_get_p50_ms"],
                at,
            ),
            _row(
                "later get p50 < 2 ms",
                f"{emb['get']['p50_ms']:.3f} ms",
                emb["get"]["p50_ms"] < t["get_p50_ms"],
                at,
            ),
        ]
        for label, key, floor, ratio in (
            ("small namespace", "retrieve", "floor", "retrieve_vs_floor"),
            ("large namespace", "retrieve_large", "floor_large", "retrieve_large_vs_floor"),
        ):
            r = s["embedded"][ratio]
            out.append(
                _row(
                    f"retrieve(k=5) <= 1.5x raw floor, embedded, {label}",
                    f"{r:.2f}x ({emb[key]['p50_ms']:.2f} vs {emb[floor]['p50_ms']:.2f} ms)",
                    r <= t["retrieve_vs_floor"],
                    at,
                )
            )
            r = s["server"][ratio]
            out.append(
                _row(
                    f"retrieve(k=5) <= 2x raw floor through chroma run, {label}",
                    f"{r:.2f}x ({srv[key]['p50_ms']:.2f} vs {srv[floor]['p50_ms']:.2f} ms)",
                    r <= t["retrieve_vs_floor_server"],
                    at,
                )
            )
        rss = s["rss_embedded"]["peak_rss_mib"]
        out.append(
            _row(
                "peak RSS after touching 100 namespaces < 400 MiB",
                f"{rss:,.0f} MiB embedded; {s['rss_server_client']['peak_rss_mib']:,.0f} MiB as a "
                "client of chroma run",
                rss < t["rss_100_namespaces_mib"],
                at,
            )
        )
        lst = emb["list_namespaces"]["p50_ms"] / 1000
        first = _first(emb, "list_namespaces") / 1000
        # The run lists with memory.namespaces() first: that first call reads the names
        # directory, which a process listing first with the store would pay in its listing.
        cold = _first(emb, "namespaces") / 1000
        out.append(
            _row(
                "TEPAStore.list_namespaces() < 2 s",
                f"{lst:.2f} s ({first:.2f} s the first time); the first listing of a process "
                f"also reads the names directory: memory.namespaces() {cold:.2f} s the first "
                f"time, {emb['namespaces']['p50_ms'] / 1000:.2f} s later",
                max(first, lst, cold) < t["list_namespaces_s"],
                at,
            )
        )
    if "lg_batch" in result:
        b = result["lg_batch"]
        out.append(
            _row(
                "LangGraph 60k-op batch >= 50% of raw add throughput",
                f"{b['tepa_vs_raw_add']:.1%} ({b['tepa']['ops_per_s']:,.0f} ops/s vs "
                f"{b['raw_add_rps']:,.0f} rec/s)",
                b["tepa_vs_raw_add"] >= t["lg_batch_vs_raw_add"],
                f"{b['ops']:,} ops",
            )
        )
    if "freshness" in result:
        f = result["freshness"]
        out.append(
            _row(
                "cross-process read-your-writes in 100% of trials (chroma run)",
                f"{f['seen']}/{f['trials']}; head check adds {f['head_check_ms']:.2f} ms per read",
                f["seen"] == f["trials"],
                f"{f['trials']:,} trials",
            )
        )
    return out


def _sizes_table(result: dict[str, Any]) -> str:
    sizes = sorted(int(k) for k in result["scale"])
    header = ["records", "namespaces", "large ns", "built in", "on disk", "reused"]
    rows = []
    for n in sizes:
        m = result["stores"][str(n)]
        w = m["workload"]
        rows.append(
            [
                f"{w['total_records']:,}",
                f"{w['namespaces']:,} + 1",
                f"{w['large_records']:,}",
                f"{m['build_seconds'] / 60:.1f} min ({m['write_records_per_s']:,.0f} rec/s)",
                f"{m['bytes'] / 2**30:.2f} GiB",
                "yes" if m.get("reused") else "no",
            ]
        )
    return markdown_table(header, rows)


def _recall(recall: dict[str, float | None] | None) -> str:
    if not recall or recall.get("retrieve_large") is None:
        return "n/a"
    return (
        f"{recall['retrieve_large']:.2f} ({recall['floor_large']:.2f}); nearest "
        f"{recall['retrieve_large_nearest']:.2f} ({recall['floor_large_nearest']:.2f})"
    )


def _reads_table(result: dict[str, Any], mode: str) -> str:
    sizes = sorted(int(k) for k in result["scale"])
    header = [
        "records",
        "open s",
        "first get p50/p95",
        "get p50",
        "no-check get p50",
        "retrieve p50 (floor)",
        "large retrieve p50 (floor)",
        "top-5 agree",
        "large recall@5",
        "namespaces() s first/later",
        "list_namespaces s first/later",
        "RSS 100 ns MiB",
        "wrong",
    ]
    rows = []
    for n in sizes:
        s = result["scale"][str(n)]
        r = s[mode]
        o = r["ops"]
        rss = s["rss_embedded" if mode == "embedded" else "rss_server_client"]["peak_rss_mib"]
        open_s = s["open"]["open_s"] if mode == "embedded" else r["open_s"]
        rows.append(
            [
                f"{n + n // 10:,}",
                f"{open_s:.3f}",
                f"{o['first_get']['p50_ms']:.2f}/{o['first_get']['p95_ms']:.2f}",
                f"{o['get']['p50_ms']:.3f}",
                f"{o['get_no_head_check']['p50_ms']:.3f}",
                f"{o['retrieve']['p50_ms']:.2f} ({o['floor']['p50_ms']:.2f})",
                f"{o['retrieve_large']['p50_ms']:.2f} ({o['floor_large']['p50_ms']:.2f})",
                f"{r['top5_agreement']:.2f}/{r['top5_agreement_large']:.2f}",
                _recall(r.get("recall5_large")),
                f"{_first(o, 'namespaces') / 1000:.2f}/{o['namespaces']['p50_ms'] / 1000:.2f}",
                f"{_first(o, 'list_namespaces') / 1000:.2f}/"
                f"{o['list_namespaces']['p50_ms'] / 1000:.2f}",
                f"{rss:,.0f}",
                str(r["wrong_answers"]),
            ]
        )
    return markdown_table(header, rows)


def _growth_table(result: dict[str, Any]) -> str:
    sizes, rows = growth_rows(result)
    header = ["figure", *[f"{n + n // 10:,} rec" for n in sizes], "log-log slope"]
    body = [
        [
            f"{name} ({unit})",
            *[fmt_ms(v, 3 if unit == "ms" and v is not None and v < 10 else 1) for v in values],
            fmt_ms(sl),
        ]
        for name, unit, values, sl in rows
    ]
    return markdown_table(header, body)


def scale_markdown(result: dict[str, Any]) -> str:
    """``perf-scale.md``: every table, the targets, the machine and the load."""
    lines = [
        "# tepa-bench perf --scale",
        "",
        f"Run took {result.get('seconds', 0) / 60:.1f} min. Load average (1, 5, 15 min) before "
        f"{result['load_average']['before']}, after {result['load_average']['after']}.",
        f"Machine: {json.dumps(result['machine'])}",
        "",
    ]
    rows = result.get("targets") or targets(result)
    if rows:
        lines += ["## Targets (issue 13)", ""]
        lines.append(
            markdown_table(
                ["target", "measured", "met", "at"],
                [
                    [r["target"], r["measured"], "yes" if r["met"] else "**no**", r["at"]]
                    for r in rows
                ],
            )
        )
        lines.append("")
    if result.get("scale"):
        lines += ["## Stores (built once, cached)", "", _sizes_table(result), ""]
        ref = result.get("reference_store", {}).get("workload", {})
        lines += [
            f"Reference store for opening: {ref.get('total_records', 0):,} records "
            f"({ref.get('namespaces', 0):,} namespaces + a "
            f"{ref.get('large_records', 0):,}-record one).",
            "",
            "## Reads, embedded (fresh process, default freshness)",
            "",
            "Times in ms unless the column says s; floors are raw Chroma queries on a collection "
            "of the namespace's Active records with the same vectors; `no-check get` is a memory "
            "with `max_staleness_s=3600` (no head read); `top-5 agree` compares TEPA's top 5 "
            "with the floor's (small/large namespace); `large recall@5` is the share of the "
            "exact top 5 found by TEPA (by the floor), and `nearest` the share of queries whose "
            "exact nearest record is in the top 5 (each query lies near one record of the large "
            "namespace); `wrong` counts answers that differ from the workload.",
            "",
            _reads_table(result, "embedded"),
            "",
            "## Reads through `chroma run` (127.0.0.1, default freshness)",
            "",
            _reads_table(result, "server"),
            "",
            "## Growth",
            "",
            _growth_table(result),
            "",
        ]
        if result.get("plot"):
            lines += [f"Log-log plot: `{result['plot']}`.", ""]
    if "lg_batch" in result:
        b = result["lg_batch"]
        lines += [
            "## LangGraph's 60,000-operation batch (`test_large_batches_async`)",
            "",
            markdown_table(
                ["store", "seconds", "ops/s", "items left"],
                [
                    [
                        "TEPAStore (persistent Chroma)",
                        f"{b['tepa']['seconds']:.1f}",
                        f"{b['tepa']['ops_per_s']:,.0f}",
                        str(b["tepa"]["items_left"]),
                    ],
                    [
                        "AsyncSqliteStore (file)",
                        f"{b['sqlite']['seconds']:.1f}",
                        f"{b['sqlite']['ops_per_s']:,.0f}",
                        str(b["sqlite"]["items_left"]),
                    ],
                    [
                        "InMemoryStore",
                        f"{b['inmemory']['seconds']:.1f}",
                        f"{b['inmemory']['ops_per_s']:,.0f}",
                        str(b["inmemory"]["items_left"]),
                    ],
                ],
            ),
            "",
            f"Raw reference: `collection.add` of {b['ops']:,} records (one per operation; 384-d "
            f"vector, JSON document, 2 metadata) in batches of {b['raw_batch']:,} into a new "
            f"persistent collection: {b['raw_add_rps']:,.0f} records/s; one record per `add`: "
            f"{b['raw_single_add_rps']:,.0f} records/s ({b['raw_single_adds']:,} adds). "
            f"TEPAStore / raw batched add = {b['tepa_vs_raw_add']:.1%}.",
            "",
        ]
    if "freshness" in result:
        f = result["freshness"]
        lines += [
            "## Cross-process freshness through `chroma run`",
            "",
            f"{f['seen']}/{f['trials']} reads in a second process saw the write acknowledged just "
            "before "
            f"(a reader that skips the head check saw {f['stale_reader_seen']}/{f['trials']}). "
            f"`get` of a cached namespace through the server: p50 {f['get']['p50_ms']:.2f} ms with "
            "the "
            f"head check, {f['get_no_head_check']['p50_ms']:.2f} ms without: the check adds "
            f"{f['head_check_ms']:.2f} ms per read. The writer's `observe` through the server: p50 "
            f"{f['observe_through_server']['p50_ms']:.1f} ms.",
            "",
        ]
    return "\n".join(lines) + "\n"
