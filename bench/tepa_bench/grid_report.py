"""Tables and plots of ``tepa-bench grid`` (see :mod:`tepa_bench.grid`).

Example:
    >>> curve = [{"transition_cost_mean": 2.0, "false_revocations_per_task": 1.0},
    ...          {"transition_cost_mean": 4.0, "false_revocations_per_task": 0.2}]
    >>> round(false_revocations_at(curve, 3.0), 3)
    0.6
    >>> false_revocations_at(curve, 9.0) is None
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tepa_bench.report import pyplot_or_warn

__all__ = [
    "CHANGE_RULES",
    "WINDOW_RULES",
    "false_revocation_ratios",
    "false_revocations_at",
    "format_grid",
    "plot_grid",
]

WINDOW_RULES: tuple[str, ...] = ("temporal", "reactive", "tepa-rev")
"""The fixed-threshold (window) rules the change rules are compared with at equal cost."""
CHANGE_RULES: tuple[str, ...] = ("tepa-cd", "tepa-key")
"""The rules compared with the window rules at equal cost (the change rule, the key test)."""
_SHOWN: tuple[str, ...] = ("tepa-rev", "tepa-cd", "tepa-key", "reactive", "temporal")

_MARK = {"better": "+", "within": "=", "loses": "-"}


def false_revocations_at(curve: Sequence[dict[str, Any]], cost: float) -> float | None:
    """A method's false revocations per task at ``cost`` (linear between its settings).

    ``None`` when ``cost`` lies outside the range of the method's settings.
    """
    pts = sorted((p["transition_cost_mean"], p["false_revocations_per_task"]) for p in curve)
    xs = [x for x, _ in pts]
    if not pts or cost < xs[0] or cost > xs[-1]:
        return None
    return float(np.interp(cost, xs, [y for _, y in pts]))


def false_revocation_ratios(result: dict[str, Any], method: str = "tepa-cd") -> dict[str, Any]:
    """``method``'s false revocations over each window rule's at the same transition cost.

    ``method`` is taken at its tuned setting (its point on the curve); each window rule's curve
    is interpolated at that cost.
    """
    data = result.get("operating_curves") or {}
    curves = data.get("curves", {})
    if method not in curves:
        return {}
    chosen = result["tuning"].get(method, {}).get("chosen")
    point = next((p for p in curves[method] if p["overrides"] == chosen), None)
    if point is None:
        return {}
    cost = point["transition_cost_mean"]
    out: dict[str, Any] = {
        "method": method,
        "transition_cost_mean": cost,
        "false_revocations_per_task": point["false_revocations_per_task"],
        "rules": {},
    }
    for rule in WINDOW_RULES:
        if rule == method or rule not in curves:
            continue
        theirs = false_revocations_at(curves[rule], cost)
        ratio = None
        if theirs is not None and theirs > 0:
            ratio = round(point["false_revocations_per_task"] / theirs, 3)
        out["rules"][rule] = {
            "false_revocations_per_task": None if theirs is None else round(theirs, 4),
            "ratio": ratio,
        }
    return out


def _fmt_p(p: float) -> str:
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


def format_grid(result: dict[str, Any]) -> str:
    """The tuning table, the per-cell comparison and the false-revocation ratios, as text."""
    cfg = result["config"]
    lines = [
        f"grid: {len(result['cells'])} evaluation cells x {len(cfg['evaluation_seeds'])} seeds "
        f"(from {cfg['evaluation_seeds'][0]}), {cfg['base']['tasks']} tasks x "
        f"{cfg['base']['acquisition'] + cfg['base']['reversal']} interactions per seed; tuned on "
        f"{len(cfg['tuning_cells'])} other configurations x seeds "
        f"{cfg['tuning_seeds'][0]}-{cfg['tuning_seeds'][-1]}",
        "",
        "tuning (mean success over the tuning cells; * = chosen):",
    ]
    for method, t in result["tuning"].items():
        row = "  ".join(
            f"{'*' if c['overrides'] == t['chosen'] else ' '}"
            f"{','.join(f'{k}={v}' for k, v in c['overrides'].items())}: {c['success']:.3f}"
            for c in t["candidates"]
        )
        lines.append(f"  {method:<9} {row}")
    lines += [
        "",
        "per cell: success = mean over all interactions (trials included) and seeds; TEPA = the "
        "preset chosen on the tuning cells (older grids: the best preset of each cell),",
        "base = best deployable tuned baseline (oracles excluded); diff = TEPA - base with its 95% "
        "bootstrap CI; p = paired permutation",
        "test over seeds; verdict: + better, - loses (both p < 0.01, the same test), = within. "
        "FR = false revocations per task",
        "(an Active value revoked while it was the working action); cost = median steps from a "
        "change to 3 correct actions in a row.",
        "",
        f"{'cell':<44} {'TEPA':<9} {'base':<15} {'diff [95% CI]':<26} {'p':>8} v "
        f"{'FR rev/cd/key/react/temp':>28} {'cost rev/cd/key/react/temp':>28}",
    ]
    for c in result["cells"]:
        cmp_ = c["comparison"]
        m = c["methods"]

        def pick(key: str, m: dict[str, Any] = m) -> str:
            vals = [m.get(x, {}).get(key) for x in _SHOWN]
            return "/".join("-" if v is None else f"{v:g}" for v in vals)

        if not cmp_:  # a partial run (--methods) without a TEPA preset and a baseline
            lines.append(f"{c['name']:<44} (nothing to compare; merge it into a full run)")
            continue
        lo, hi = cmp_["diff_ci95"]
        lines.append(
            f"{c['name']:<44} {cmp_['tepa']:<9} {cmp_['baseline']:<15} "
            f"{cmp_['diff']:+.4f} [{lo:+.4f}, {hi:+.4f}] {_fmt_p(cmp_['p_value']):>8} "
            f"{_MARK[cmp_['verdict']]} {pick('false_revocations_per_task'):>28} "
            f"{pick('transition_cost'):>28}"
        )
    v = result["verdicts"]
    n = sum(v.values())
    lines += [
        "",
        f"verdicts: better {v['better']}, within {v['within']}, loses {v['loses']} of {n} cells "
        f"(at or within: {(v['better'] + v['within']) / max(n, 1):.0%})",
    ]
    choice = cfg.get("choice")
    if choice:  # issue 28: one TEPA preset and one baseline, chosen on the tuning cells
        cv = result.get("chosen_verdicts") or {"better": 0, "within": 0, "loses": 0}
        lines += [
            f"TEPA = {choice['tepa']} in every cell (chosen on the tuning cells and seeds: "
            + ", ".join(f"{m} {x:.4f}" for m, x in sorted(choice["tuning_success"].items()))
            + ")",
            f"against the one baseline chosen there ({choice['baseline']}): better {cv['better']},"
            f" within {cv['within']}, loses {cv['loses']} (same paired test, p < 0.01)",
        ]
    for method, pv in (result.get("preset_verdicts") or {}).items():
        lines.append(
            f"  {method:<9} alone: better {pv['better']}, within {pv['within']}, loses "
            f"{pv['loses']}"
        )
    for method in CHANGE_RULES:
        ratios = false_revocation_ratios(result, method)
        if not ratios:
            continue
        lines.append(
            f"false revocations at equal transition cost (operating curves on "
            f"{len(result['operating_curves']['cells'])} cells): {method} "
            f"{ratios['false_revocations_per_task']:.3f} per task at cost "
            f"{ratios['transition_cost_mean']:.2f}"
        )
        for rule, r in ratios["rules"].items():
            theirs = r["false_revocations_per_task"]
            lines.append(
                f"  {rule:<9} at that cost: "
                + ("outside its range" if theirs is None else f"{theirs:.3f} per task")
                + ("" if r["ratio"] is None else f" -> ratio {r['ratio']:.2f}")
            )
    return "\n".join(lines)


def _heatmap(ax: Any, cells: list[dict[str, Any]], panel: str, norm: Any, cmap: Any) -> Any:
    rows = list(dict.fromkeys(c["row"] for c in cells if c["panel"] == panel))
    cols = list(dict.fromkeys(c["col"] for c in cells if c["panel"] == panel))
    grid = np.full((len(rows), len(cols)), np.nan)
    for c in cells:
        if c["panel"] != panel:
            continue
        i, j = rows.index(c["row"]), cols.index(c["col"])
        grid[i, j] = c["comparison"]["diff"]
        mark = _MARK[c["comparison"]["verdict"]]
        dark = abs(c["comparison"]["diff"]) > 0.6 * norm.vmax
        ax.text(
            j,
            i,
            f"{c['comparison']['diff']:+.3f}\n{mark} {c['comparison']['tepa']}",
            ha="center",
            va="center",
            fontsize=7,
            color="white" if dark else "black",
        )
    image = ax.imshow(grid, cmap=cmap, norm=norm, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_title(f"{panel}", fontsize=10)
    return image


def plot_grid(result: dict[str, Any], out: Path) -> list[Path]:
    """Write ``grid_heatmap.png`` and ``grid_tradeoff.png``.

    The heatmap shows the best TEPA preset minus the best tuned baseline per cell; the
    trade-off plot false revocations against transition cost for every setting of the tuned
    methods. Returns the paths written (none without matplotlib, with a warning).
    """
    plt = pyplot_or_warn()
    if plt is None:
        return []
    from matplotlib.colors import TwoSlopeNorm

    cells = [c for c in result["cells"] if c["comparison"]]
    if not cells:  # a partial run (--methods): nothing to compare
        return []
    diffs = [c["comparison"]["diff"] for c in cells]
    span = max(0.01, max(abs(min(diffs)), abs(max(diffs))))
    norm = TwoSlopeNorm(vmin=-span, vcenter=0.0, vmax=span)
    cmap = plt.get_cmap("RdBu")
    panels = [p for p in ("uniform", "mixed", "bursts") if any(c["panel"] == p for c in cells)]
    heights = [sum(1 for c in cells if c["panel"] == p) / 4 + 1 for p in panels]
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(8.5, 2.2 * len(panels) + 1.5),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    image = None
    for ax, panel in zip(axes[:, 0], panels, strict=True):
        image = _heatmap(ax, cells, panel, norm, cmap)
    fig.suptitle(
        "Success: best TEPA preset minus best tuned baseline (evaluation seeds and cells)\n"
        "+ better (p < 0.01)   = within the baseline's 95% CI   - loses",
        fontsize=10,
    )
    if image is not None:
        fig.colorbar(image, ax=list(axes[:, 0]), shrink=0.6, label="success difference")
    out.mkdir(parents=True, exist_ok=True)
    heat = out / "grid_heatmap.png"
    fig.savefig(heat, dpi=110, bbox_inches="tight")
    plt.close(fig)
    written = [heat]
    data = result.get("operating_curves") or {}
    if data.get("curves"):
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        styles: dict[str, tuple[str, Any]] = {
            "temporal": ("s", "--"),
            "reactive": ("^", "-."),
            "tepa-rev": ("o", ":"),
            "tepa-cd": ("D", "-"),
            "tepa-key": ("P", (0, (5, 1, 1, 1))),
        }
        for method, pts in data["curves"].items():
            pts = sorted(pts, key=lambda p: p["transition_cost_mean"])
            marker, ls = styles.get(method, ("x", "-"))
            ax.plot(
                [p["transition_cost_mean"] for p in pts],
                [p["false_revocations_per_task"] for p in pts],
                marker=marker,
                linestyle=ls,
                label=method,
                markersize=6,
                linewidth=1.6,
            )
            chosen = result["tuning"].get(method, {}).get("chosen")
            for p in pts:
                if p["overrides"] == chosen:
                    ax.plot(
                        p["transition_cost_mean"],
                        p["false_revocations_per_task"],
                        marker=marker,
                        markersize=13,
                        markerfacecolor="none",
                        color="black",
                    )
        ax.set_xlabel("transition cost (mean steps from a change to 3 correct actions in a row)")
        ax.set_ylabel("false revocations per task")
        pooled = "\n".join(data["cells"])
        ax.set_title(
            f"Each setting of the tuned methods (circled: the tuned one), pooled over\n{pooled}",
            fontsize=8,
        )
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        trade = out / "grid_tradeoff.png"
        fig.tight_layout()
        fig.savefig(trade, dpi=110)
        plt.close(fig)
        written.append(trade)
    return written
