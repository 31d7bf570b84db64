"""``tepa-bench perf --stores``: TEPAStore beside LangGraph's SqliteStore at several sizes.

Issue 40's figures. Per size (records = users x items: 10k is 100 users x 100 items, 100k is
100 x 1,000, 1M is 1,000 x 1,000; :func:`shape`), in a new folder, the two stores get the same
``IndexConfig`` over the same embeddings (:class:`~tepa_bench.perf.side_by_side.StoreWorkload`):

* **bulk load**: one ``batch`` of ``PutOp`` per user, the two stores in turn;
* **warm** (the loading process; it holds up to :func:`held_namespaces` namespaces, every user
  up to 100k records, 100 of the 1M store's 1,000): interleaved call by call, a search in
  one user's namespace, ``get``, ``list_namespaces``, a search across all users, and ``put``:
  a plain item (a note that makes no claim) and an item whose text makes a claim (``"I live
  in Oslo. Note 7."``, cities cycling so later ones take earlier ones back), each in a random
  user's namespace;
* **fresh process** (``opens`` processes per store, alternating; the medians are reported):
  open, the first search in one user's namespace, then the first search across all users, and
  the process's peak RSS. The libraries (``chromadb`` with its client module, LangGraph's
  stores, ``langchain_tepa``) are imported before the clock starts: importing chromadb's client
  module costs 0.2-0.8 s on this machine, whatever the store's size, and is reported apart
  (``chroma_client_import_ms``).

Ratios are TEPAStore / SqliteStore, measured in the same run. Output: ``OUT/perf-stores.json``,
``.md`` and the growth plot ``.png``.

Example:
    >>> shape(10_000), shape(100_000), shape(1_000_000)
    ((100, 100), (100, 1000), (1000, 1000))
"""

from __future__ import annotations

import functools
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.perf.common import (
    DerivedEmbeddings,
    dir_bytes,
    load_average,
    log,
    machine,
    pct,
    peak_rss_mib,
    probe,
    rss_mib,
    timer,
)
from tepa_bench.perf.side_by_side import StoreWorkload, _close, _load, _open, sqlite_module

__all__ = [
    "CITIES",
    "DEFAULT_STORE_SIZES",
    "KINDS",
    "TARGETS",
    "agreement",
    "claim_text",
    "fresh_probe",
    "held_namespaces",
    "ratios",
    "run_stores",
    "shape",
    "stores_markdown",
]

DEFAULT_STORE_SIZES: tuple[int, ...] = (10_000, 100_000, 1_000_000)
KINDS = ("tepa", "sqlite")
CITIES = ("Oslo", "Lisbon", "Madrid", "Berlin", "Vienna", "Prague", "Dublin")

TARGETS: dict[str, float] = {
    "fresh: open + first one-user search": 3.0,
    "fresh: first all-users search": 3.0,
    "bulk load": 5.0,
    "put p50": 2.5,
    "fresh: peak RSS": 2.0,
    "warm: one-user search p50": 1.5,
    "warm: all-users search p50": 1.5,
    "warm: list_namespaces p50": 1.5,
    "warm: get p50": 1.5,
}
"""Issue 40's bound on each ratio TEPAStore / SqliteStore (warm reads: within 1.5x). A
claim-making put is held to 1.3x TEPA's own plain put (:func:`ratios`)."""


def shape(records: int) -> tuple[int, int]:
    """``(users, items)`` of a store of ``records``: 1,000 items a user from 100k on."""
    items = 1000 if records >= 100_000 else max(1, records // 100)
    return max(1, records // items), items


def held_namespaces(items: int) -> int:
    """How many namespaces the loading (warm) process may hold: about 100,000 items' worth.

    Every user of the 10k and 100k stores; 100 of the 1M store's 1,000 users (a process holding
    every one would hold a million folded items, about 10 GB). Twice as many namespaces as users:
    each user's claims namespace (``users.u1.~claims``, made by the claim-making puts) lies under
    the user's prefix, and a search ranks in process only when it holds both.

    Example:
        >>> held_namespaces(100), held_namespaces(1000)
        (1024, 200)
    """
    return min(1024, max(16, 2 * (100_000 // max(1, items))))


def claim_text(c: int) -> str:
    """The ``c``-th claim-making item text (a home city; later ones take earlier ones back).

    Each text is unique (its vector too): identical texts would give SqliteStore, which keeps
    every copy, runs of equal scores that TEPA, which takes the superseded ones back, lacks.

    Example:
        >>> claim_text(8)
        'I live in Lisbon. Note 8.'
    """
    return f"I live in {CITIES[c % len(CITIES)]}. Note {c}."


def _table(work: StoreWorkload, calls: int) -> Any:
    from tepa_bench.perf.common import TableEmbeddings, derived_vector

    base = work.table(calls)
    extra = [claim_text(c) for c in range(calls)]
    return TableEmbeddings(
        [*base.rows, *extra],
        np.concatenate([base.matrix, np.stack([derived_vector(t) for t in extra])]),
    )


def _interleave(
    stores: dict[str, Any], calls: int, make: Callable[[Any, int], Callable[[], Any]]
) -> tuple[dict[str, list[float]], list[dict[str, Any]]]:
    times: dict[str, list[float]] = {k: [] for k in stores}
    answers: list[dict[str, Any]] = []
    kinds = list(stores)
    for c in range(calls):
        got: dict[str, Any] = {}
        for j in range(len(kinds)):
            kind = kinds[(c + j) % len(kinds)]
            fn = make(stores[kind], c)
            with timer(times[kind]):
                got[kind] = fn()
        answers.append(got)
    return times, answers


def _keys(found: Sequence[Any]) -> list[str]:
    """``namespace/key`` of search results (for comparing stores)."""
    return ["/".join((*item.namespace, item.key)) for item in found]


def agreement(a: Sequence[str], b: Sequence[str]) -> float:
    """Share of ``b``'s results that ``a`` returned too (1.0 when both are empty).

    Example:
        >>> agreement(["x", "y"], ["y", "z"])
        0.5
    """
    return 1.0 if not b else len(set(a) & set(b)) / len(b)


def _warm(
    work: StoreWorkload, stores: dict[str, Any], calls: int, wide_calls: int, seed: int
) -> dict[str, dict[str, Any]]:
    """The warm figures of each store (the loading process: every namespace held)."""
    rng = np.random.default_rng(seed)
    picks = [int(x) for x in rng.integers(0, work.users, size=max(calls, wide_calls))]
    out: dict[str, dict[str, Any]] = {k: {} for k in stores}
    for store in stores.values():  # one search across all users first: every namespace held
        store.search(("users",), query=work.query(0), limit=10)
    measures: dict[str, tuple[int, Callable[[Any, int], Callable[[], Any]]]] = {
        "search_one_user": (
            calls,
            lambda s, c: functools.partial(
                s.search, work.namespace(picks[c]), query=work.query(c), limit=10
            ),
        ),
        "get": (
            calls,
            lambda s, c: functools.partial(
                s.get, work.namespace(picks[c]), work.key(c % work.items)
            ),
        ),
        "list_namespaces": (calls, lambda s, c: functools.partial(s.list_namespaces, limit=100)),
        "search_all_users": (
            wide_calls,
            lambda s, c: functools.partial(s.search, ("users",), query=work.query(c), limit=10),
        ),
    }
    for name, (n, make) in measures.items():
        times, answers = _interleave(stores, n, make)
        for kind, samples in times.items():
            out[kind][name] = pct(samples)
        if name.startswith("search"):
            for kind in stores:
                out[kind][f"{name}_top10_agreement"] = round(
                    float(
                        np.mean([agreement(_keys(a[kind]), _keys(a["sqlite"])) for a in answers])
                    ),
                    3,
                )

    plain: dict[str, list[float]] = {k: [] for k in stores}
    claim: dict[str, list[float]] = {k: [] for k in stores}
    for c in range(calls):  # plain and claim-making puts interleaved, the stores in turn
        for j, kind in enumerate(stores):
            store = stores[kind]
            ns = work.namespace(picks[c])
            first, second = (plain, claim) if (c + j) % 2 == 0 else (claim, plain)
            for bucket in (first, second):
                if bucket is plain:
                    fn = functools.partial(store.put, ns, f"new{c:05d}", work.new_value(c))
                else:
                    fn = functools.partial(store.put, ns, f"claim{c:05d}", {"text": claim_text(c)})
                with timer(bucket[kind]):
                    fn()
    for kind in stores:
        out[kind]["put"] = pct(plain[kind])
        out[kind]["put_claim"] = pct(claim[kind])
    return out


def fresh_probe(kind: str, folder: Path, users: int, items: int) -> dict[str, Any]:
    """In a fresh process: open one store, search one user, then all users; time and RSS."""
    import chromadb

    began = time.perf_counter()
    import chromadb.api.rust  # noqa: F401  (chromadb's client module, apart: see above)

    imported = time.perf_counter() - began
    import langgraph.store.memory
    import langgraph.store.sqlite  # noqa: F401

    import langchain_tepa.storage.chroma
    import langchain_tepa.store  # noqa: F401

    work = StoreWorkload(users, items)
    before = rss_mib()
    began = time.perf_counter()
    store = _open(kind, folder, work.index(DerivedEmbeddings()), DerivedEmbeddings())
    opened = time.perf_counter()
    one = store.search(work.namespace(users // 2), query=work.query(3), limit=10)
    first = time.perf_counter()
    every = store.search(("users",), query=work.query(5), limit=10)
    wide = time.perf_counter()
    out = {
        "chroma_client_import_ms": round(imported * 1000, 1),
        "open_ms": round((opened - began) * 1000, 2),
        "first_search_one_user_ms": round((first - opened) * 1000, 2),
        "open_plus_first_ms": round((first - began) * 1000, 2),
        "first_search_all_users_ms": round((wide - first) * 1000, 1),
        "rss_before_open_mib": before,
        "peak_rss_mib": peak_rss_mib(),
        "one_user_keys": _keys(one),
        "all_users_keys": _keys(every),
    }
    _close(kind, store)
    return out


def _fresh(folder: Path, users: int, items: int, opens: int) -> dict[str, dict[str, Any]]:
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
    for r in range(opens):
        for kind in KINDS if r % 2 == 0 else KINDS[::-1]:
            args = {"kind": kind, "folder": str(folder), "users": users, "items": items}
            runs[kind].append(probe("store-open", json.dumps(args), timeout=6 * 3600))
    out: dict[str, dict[str, Any]] = {}
    for kind, got in runs.items():
        numbers = [f for f, v in got[0].items() if isinstance(v, int | float)]
        out[kind] = {f: round(statistics.median(g[f] for g in got), 2) for f in numbers}
        for f in ("one_user_keys", "all_users_keys"):
            out[kind][f"{f[:-5]}_top10_agreement"] = agreement(got[0][f], runs["sqlite"][0][f])
        out[kind]["runs"] = got
    return out


def ratios(per: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """Each target's ratio TEPAStore / SqliteStore (the claim put: / TEPA's plain put)."""
    t, s = per["tepa"], per["sqlite"]

    def r(a: float | None, b: float | None) -> float | None:
        return None if a is None or not b else round(a / b, 3)

    tf, sf = t["fresh"], s["fresh"]
    return {
        "fresh: open + first one-user search": r(
            tf["open_plus_first_ms"], sf["open_plus_first_ms"]
        ),
        "fresh: first all-users search": r(
            tf["first_search_all_users_ms"], sf["first_search_all_users_ms"]
        ),
        "bulk load": r(t["load_s"], s["load_s"]),
        "put p50": r(t["warm"]["put"]["p50_ms"], s["warm"]["put"]["p50_ms"]),
        "claim-making put / plain put (TEPA)": r(
            t["warm"]["put_claim"]["p50_ms"], t["warm"]["put"]["p50_ms"]
        ),
        "fresh: peak RSS": r(tf["peak_rss_mib"], sf["peak_rss_mib"]),
        "warm: one-user search p50": r(
            t["warm"]["search_one_user"]["p50_ms"], s["warm"]["search_one_user"]["p50_ms"]
        ),
        "warm: all-users search p50": r(
            t["warm"]["search_all_users"]["p50_ms"], s["warm"]["search_all_users"]["p50_ms"]
        ),
        "warm: list_namespaces p50": r(
            t["warm"]["list_namespaces"]["p50_ms"], s["warm"]["list_namespaces"]["p50_ms"]
        ),
        "warm: get p50": r(t["warm"]["get"]["p50_ms"], s["warm"]["get"]["p50_ms"]),
    }


def _bound(name: str) -> float:
    return 1.3 if name.startswith("claim") else TARGETS[name]


def measure_size(
    records: int,
    folder: Path,
    *,
    calls: int,
    wide_calls: int,
    opens: int,
    seed: int,
    quiet: bool,
) -> dict[str, Any]:
    """Build both stores of ``records`` in ``folder`` (new) and measure them."""
    users, items = shape(records)
    work = StoreWorkload(users, items)
    folder.mkdir(parents=True, exist_ok=True)
    table = _table(work, calls)
    cache = held_namespaces(items)
    stores = {
        kind: _open(kind, folder, work.index(table), DerivedEmbeddings(), cache_size=cache)
        for kind in KINDS
    }
    log(quiet, f"stores {records:,}: loading {users} users x {items} items into each store")
    load_s = dict.fromkeys(KINDS, 0.0)
    began = time.perf_counter()
    for u in range(users):
        for j in range(len(KINDS)):
            kind = KINDS[(u + j) % len(KINDS)]
            start = time.perf_counter()
            _load(work, stores[kind], u)
            load_s[kind] += time.perf_counter() - start
        if not quiet and users >= 20 and (u + 1) % max(1, users // 10) == 0:
            log(
                quiet,
                f"stores {records:,}: {u + 1}/{users} users ({time.perf_counter() - began:.0f} s)",
            )
    wide = max(3, min(wide_calls, round(wide_calls * 100_000 / records)))
    log(quiet, f"stores {records:,}: warm reads and puts ({calls} calls, {wide} across all users)")
    warm = _warm(work, stores, calls, wide, seed)
    for kind, store in stores.items():
        _close(kind, store)
    log(quiet, f"stores {records:,}: fresh processes ({opens} per store)")
    fresh = _fresh(folder, users, items, opens)
    per: dict[str, dict[str, Any]] = {
        kind: {
            "load_s": round(load_s[kind], 2),
            "warm": warm[kind],
            "fresh": fresh[kind],
            "disk_mib": round(dir_bytes(folder / ("tepa" if kind == "tepa" else "")) / 2**20, 1)
            if kind == "tepa"
            else round((folder / "store.sqlite").stat().st_size / 2**20, 1),
        }
        for kind in KINDS
    }
    return {
        "records": records,
        "users": users,
        "items": items,
        "calls": calls,
        "wide_calls": wide,
        "table_misses": table.misses,
        "stores": per,
        "ratios": ratios(per),
        "load_average": load_average(),
    }


def run_stores(
    out_dir: str | Path,
    *,
    sizes: Sequence[int] = DEFAULT_STORE_SIZES,
    calls: int = 200,
    wide_calls: int = 20,
    opens: int = 3,
    seed: int = 0,
    quiet: bool = False,
    work_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Run ``tepa-bench perf --stores`` and write ``perf-stores.json``, ``.md`` and ``.png``.

    Raises:
        InvalidArgumentError: For sizes under 100 or counts under 1.
    """
    for name, value in {"calls": calls, "wide_calls": wide_calls, "opens": opens}.items():
        if value < 1:
            raise InvalidArgumentError(f"{name} must be >= 1, got {value}")
    if not sizes or any(s < 100 for s in sizes):
        raise InvalidArgumentError(f"store sizes must be >= 100, got {list(sizes)}")
    sqlite_module()  # fail now, not after an hour of loading
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    result: dict[str, Any] = {
        "machine": machine(),
        "load_average": {"before": load_average(), "after": []},
        "settings": {"calls": calls, "wide_calls": wide_calls, "opens": opens, "seed": seed},
        "sizes": {},
    }

    def save() -> None:
        result["seconds"] = round(time.perf_counter() - started, 1)
        result["load_average"]["after"] = load_average()
        (out / "perf-stores.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")

    work = Path(tempfile.mkdtemp(prefix="tepa-perf-stores-", dir=work_dir))
    try:
        for records in sorted(sizes):
            result["sizes"][str(records)] = measure_size(
                records,
                work / f"s{records}",
                calls=calls,
                wide_calls=wide_calls,
                opens=opens,
                seed=seed,
                quiet=quiet,
            )
            shutil.rmtree(work / f"s{records}", ignore_errors=True)
            save()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if plot_stores(result, out / "perf-stores.png"):
        result["plot"] = str(out / "perf-stores.png")
    save()
    text = stores_markdown(result)
    (out / "perf-stores.md").write_text(text, encoding="utf-8")
    if not quiet:
        print(text)
        print(f"wrote {out / 'perf-stores.json'}, perf-stores.md ({result['seconds']:.0f} s)")
    return result


def stores_markdown(result: dict[str, Any]) -> str:
    """The ratio table (one column per size) and each store's figures.

    Example:
        >>> stores_markdown({"sizes": {}}).splitlines()[0]
        '| ratio TEPAStore / SqliteStore | target |'
    """
    sizes = list(result["sizes"].values())
    head = "| ratio TEPAStore / SqliteStore | target |" + "".join(
        f" {s['records']:,} ({s['users']} x {s['items']}) |" for s in sizes
    )
    lines = [head, "|---|---|" + "---|" * len(sizes)]
    names = list(sizes[0]["ratios"]) if sizes else []
    for name in names:
        cells = []
        for s in sizes:
            v = s["ratios"][name]
            mark = "" if v is None else (" ✓" if v <= _bound(name) else " ✗")
            cells.append(f" {'-' if v is None else f'x{v:g}'}{mark} |")
        lines.append(f"| {name} | <= {_bound(name):g}x |" + "".join(cells))
    rows = (
        ("fresh: open (ms)", lambda f, w, st: f["open_ms"]),
        ("fresh: first one-user search (ms)", lambda f, w, st: f["first_search_one_user_ms"]),
        ("fresh: first all-users search (ms)", lambda f, w, st: f["first_search_all_users_ms"]),
        ("fresh: peak RSS (MiB)", lambda f, w, st: f["peak_rss_mib"]),
        ("bulk load (s)", lambda f, w, st: st["load_s"]),
        ("put p50 (ms)", lambda f, w, st: w["put"]["p50_ms"]),
        ("claim-making put p50 (ms)", lambda f, w, st: w["put_claim"]["p50_ms"]),
        ("warm one-user search p50 (ms)", lambda f, w, st: w["search_one_user"]["p50_ms"]),
        ("warm all-users search p50 (ms)", lambda f, w, st: w["search_all_users"]["p50_ms"]),
        ("warm list_namespaces p50 (ms)", lambda f, w, st: w["list_namespaces"]["p50_ms"]),
        ("warm get p50 (ms)", lambda f, w, st: w["get"]["p50_ms"]),
        ("disk (MiB)", lambda f, w, st: st["disk_mib"]),
    )
    lines += [
        "",
        "| figure | " + " | ".join(f"{s['records']:,}: TEPA / SQLite" for s in sizes) + " |",
    ]
    lines.append("|---|" + "---|" * len(sizes))
    for label, get in rows:
        cells = []
        for s in sizes:
            t, q = s["stores"]["tepa"], s["stores"]["sqlite"]
            cells.append(f" {get(t['fresh'], t['warm'], t)} / {get(q['fresh'], q['warm'], q)} |")
        lines.append(f"| {label} |" + "".join(cells))
    if sizes:
        lines.append(
            "| TEPA's top-10 = SqliteStore's: warm one-user / all-users, fresh one-user / "
            "all-users |"
            + "".join(
                f" {w['search_one_user_top10_agreement']:g} / "
                f"{w['search_all_users_top10_agreement']:g}, {f['one_user_top10_agreement']:g} / "
                f"{f['all_users_top10_agreement']:g} |"
                for s in sizes
                for w, f in [(s["stores"]["tepa"]["warm"], s["stores"]["tepa"]["fresh"])]
            )
        )
        imports = [s["stores"]["tepa"]["fresh"]["chroma_client_import_ms"] for s in sizes]
        lines += [
            "",
            "Importing chromadb's client module (before the clock, every store's process): "
            + ", ".join(f"{v:g} ms" for v in imports)
            + f". Load average before / after: {result['load_average']['before']} / "
            f"{result['load_average']['after']}.",
        ]
    return "\n".join(lines) + "\n"


def plot_stores(result: dict[str, Any], path: Path) -> bool:
    """The growth plot: each ratio against the store's size, and both stores' peak RSS."""
    sizes = list(result["sizes"].values())
    if len(sizes) < 2:
        return False
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    xs = [s["records"] for s in sizes]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.5))
    for name in sizes[0]["ratios"]:
        ys = [s["ratios"][name] for s in sizes]
        pts = [(x, y) for x, y in zip(xs, ys, strict=True) if y]
        if len(pts) >= 2:
            left.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    left.axhline(1.0, color="grey", linewidth=0.8)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("records in the store")
    left.set_ylabel("TEPAStore / SqliteStore")
    left.set_title("ratios as the store grows (below 1: TEPA faster or smaller)")
    left.legend(fontsize=7)
    left.grid(True, which="both", alpha=0.3)
    for kind, style in (("tepa", "-"), ("sqlite", "--")):
        for field, label in (("peak_rss_mib", "fresh peak RSS (MiB)"),):
            ys = [s["stores"][kind]["fresh"][field] for s in sizes]
            right.plot(xs, ys, marker="o", linestyle=style, label=f"{kind}: {label}")
        ys = [s["stores"][kind]["fresh"]["first_search_all_users_ms"] for s in sizes]
        right.plot(
            xs, ys, marker="s", linestyle=style, label=f"{kind}: first all-users search (ms)"
        )
        ys = [s["stores"][kind]["fresh"]["open_plus_first_ms"] for s in sizes]
        right.plot(xs, ys, marker="^", linestyle=style, label=f"{kind}: open + first one-user (ms)")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("records in the store")
    right.set_title("a fresh process, absolute")
    right.legend(fontsize=7)
    right.grid(True, which="both", alpha=0.3)
    fig.suptitle("tepa-bench perf --stores: TEPAStore beside SqliteStore (log-log)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
