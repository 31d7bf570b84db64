"""The look-alike key flood and the staleness-poisoning frontier of the attack matrix (issue 28).

**The flood** (modes ``flood-bot``, ``flood-agent``, ``flood-tool``): instead of asserting
another value of the verified key, the attacker creates ``n`` *new keys* whose text imitates the
verified fact and the question a user asks about it (``"What is the payments endpoint? The
payments endpoint is https://bank.example/pay7"``: cosine 0.85 with the query, 0.84 with the
verified fact, whose own similarity to the query is 0.61 under the offline embeddings), as an
undeclared source (``bot``), as ``agent`` (the memory tools' default source) or as ``tool.*``.
Each read is then a search, ``retrieve("what is the payments endpoint?", k=4)``; a read is
*poisoned* when the verified fact is not among the four results (a look-alike took its place).

**The frontier**: for every policy and arm (with and without an executor), the mean adoption
latency of a genuine change stated plainly (``change_cost``) against the mean share of poisoned
reads over the matrix's cells. A policy is on the frontier when no other policy of the same arm
is at least as good on both and better on one.

Example:
    >>> [f.key for f in flood_facts("flood-agent", 2, 0)]
    ['payments.endpoint_v0', 'payments.endpoint_v1']
    >>> pareto({"a": (1.0, 0.0), "b": (2.0, 0.0), "c": (0.5, 0.5)})
    ['a', 'c']
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "FLOOD_MODES",
    "FLOOD_QUERY",
    "GOOD_TEXT",
    "TUNED",
    "flood_facts",
    "frontier",
    "frontier_lines",
    "pareto",
    "plot_frontier",
]

FLOOD_MODES: tuple[str, ...] = ("flood-bot", "flood-agent", "flood-tool")
"""The look-alike key floods: an undeclared source, ``agent``, ``tool.scraper``."""

FLOOD_QUERY = "what is the payments endpoint?"
"""The search each read of a flood cell makes."""

GOOD_TEXT = "The payments endpoint is https://bank.example/pay"
"""The verified fact's text (what the look-alikes imitate)."""

_FLOOD_SOURCE = {"flood-bot": "bot", "flood-agent": "agent", "flood-tool": "tool.scraper"}

TUNED: dict[str, tuple[str, dict[str, Any]]] = {
    "reactive*": ("reactive", {"reactive_failures": 3}),
    "temporal*": ("temporal", {"temporal_window": 3}),
    "tepa-rev*": ("tepa-rev", {"window": 4, "w_min": 4, "theta_rec": 0.26}),
}
"""The tuned baselines (and tuned tepa-rev) at the settings the grid's tuning chose
(docs/benchmarks.md, "Tuning protocol"), side by side with the presets."""


def flood_facts(mode: str, count: int, start: int) -> list[Any]:
    """``count`` new look-alike keys of the flood ``mode``, numbered from ``start``."""
    from langchain_tepa.core.types import Fact

    source = _FLOOD_SOURCE[mode]
    return [
        Fact(
            f"payments.endpoint_v{i}",
            f"https://bank.example/pay{i}",
            source=source,
            text=f"What is the payments endpoint? The payments endpoint is https://bank.example/pay{i}",
        )
        for i in range(start, start + count)
    ]


def pareto(points: Mapping[str, tuple[float, float]]) -> list[str]:
    """The names whose ``(latency, poisoned)`` no other point dominates (both lower is better)."""
    out = []
    for name, (x, y) in points.items():
        dominated = any(
            (a <= x and b <= y) and (a < x or b < y)
            for other, (a, b) in points.items()
            if other != name
        )
        if not dominated:
            out.append(name)
    return out


def frontier(result: Mapping[str, Any]) -> dict[str, Any]:
    """Per arm, every policy's ``(adoption latency, poisoned share)`` and the Pareto frontier.

    Latency is the mean plain-change cost over the arm's cells (interactions, trial executions
    included, censored at the budget); poisoned is the mean share of poisoned reads over the
    arm's cells (every mode and size, floods included); ``turns`` is the latency in the user's
    turns alone (trials not counted).
    """
    out: dict[str, Any] = {}
    for arm in (True, False):
        points: dict[str, tuple[float, float]] = {}
        turns: dict[str, float] = {}
        for p in result["config"]["policies"]:
            cells = [c for c in result["cells"] if c["policy"] == p and c["executor"] is arm]
            if not cells:
                continue
            lat = sum(c["change_cost"] for c in cells) / len(cells)
            poi = sum(c["poisoned"] for c in cells) / len(cells)
            points[p] = (round(lat, 3), round(poi, 4))
            if all("change_turns" in c for c in cells):
                turns[p] = round(sum(c["change_turns"] for c in cells) / len(cells), 3)
        out["executor" if arm else "no-executor"] = {
            "points": points,
            "frontier": pareto(points),
            "turns": turns,
        }
    return out


def plot_frontier(result: Mapping[str, Any], path: Path | str) -> Path | None:
    """The frontier as a PNG: adoption latency against poisoned reads, one panel per arm."""
    from tepa_bench.report import pyplot_or_warn

    plt = pyplot_or_warn()
    if plt is None:
        return None
    data = result.get("frontier") or frontier(result)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
    for ax, arm in zip(axes, ("executor", "no-executor"), strict=True):
        pts = data[arm]["points"]
        front = set(data[arm]["frontier"])
        for name, (x, y) in pts.items():
            tepa = name.startswith(("tepa", "oracle-rev"))
            ax.scatter(
                x,
                y,
                marker="o" if tepa else "s",
                s=60 if name in front else 30,
                c="tab:blue" if tepa else "tab:gray",
                edgecolors="black" if name in front else "none",
            )
            ax.annotate(name, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.set_title(f"{'with' if arm == 'executor' else 'without'} an executor")
        ax.set_xlabel("adoption latency of a plain genuine change (interactions)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("poisoned reads (share, mean over the attack matrix)")
    fig.suptitle(
        f"staleness-poisoning frontier ({result['seeds']} seeds; black edge: on the frontier)"
    )
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def frontier_lines(result: Mapping[str, Any]) -> list[str]:
    """The frontier as text lines (for the attack table)."""
    data = result.get("frontier") or frontier(result)
    lines = ["frontier: adoption latency (interactions) / poisoned share, mean over the matrix"]
    for arm in ("executor", "no-executor"):
        pts = data[arm]["points"]
        front = data[arm]["frontier"]
        body = ", ".join(
            f"{n} {x:g}/{y:.2f}" for n, (x, y) in sorted(pts.items(), key=lambda t: t[1])
        )
        lines.append(f"  {arm}: on the frontier: {', '.join(front)}")
        lines.append(f"    {body}")
    return lines
