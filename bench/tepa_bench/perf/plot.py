"""The growth plot of ``tepa-bench perf --scale`` (log-log, matplotlib; skipped without it).

Example:
    >>> plot_growth({"scale": {}, "stores": {}}, __import__("pathlib").Path("/nonexistent.png"))
    False
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tepa_bench.perf.scale_report import growth_rows

__all__ = ["plot_growth"]

_LATENCY = (
    "open (fresh process)",
    "first get (first touch) p50",
    "get p50",
    "retrieve p50, small namespace",
    "raw floor p50, small namespace",
    "retrieve p50, large namespace",
    "raw floor p50, large namespace",
    "TEPAStore.list_namespaces()",
    "server: get p50",
    "server: retrieve p50, small namespace",
)
_MEMORY = (
    "peak RSS, 100 namespaces touched (embedded)",
    "peak RSS, 100 namespaces touched (server client)",
    "chroma run peak RSS",
    "store on disk",
)


def plot_growth(result: dict[str, Any], path: Path) -> bool:
    """Write the log-log plot of the growth table to ``path``; ``False`` if not possible."""
    sizes, rows = growth_rows(result)
    if len(sizes) < 2:
        return False
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    records = [n + n // 10 for n in sizes]
    by_name = {name: values for name, _unit, values, _slope in rows}
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, names, unit in ((left, _LATENCY, "ms"), (right, _MEMORY, "MiB")):
        for name in names:
            pts = [
                (x, y) for x, y in zip(records, by_name.get(name, []), strict=False) if y and y > 0
            ]
            if len(pts) >= 2:
                dashed = "floor" in name
                ax.plot(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    marker="o",
                    linestyle="--" if dashed else "-",
                    label=name,
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("evidence records in the store")
        ax.set_ylabel(unit)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    left.set_title("latency (p50) and opening, as the store grows")
    right.set_title("memory and disk, as the store grows")
    fig.suptitle("tepa-bench perf --scale: growth from 10k to 1M records (log-log)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
