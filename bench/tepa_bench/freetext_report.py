"""Tables, Markdown and the plot of ``tepa-bench run freetext``.

Example:
    >>> result = {"config": {"split": "test", "scenarios": 1, "k": 3}, "skipped": {},
    ...           "systems": {"x/store": {"stale_served": 100.0, "current_present": 100.0,
    ...                       "recall_at_1": 0.0, "independent_taken_back": 0.0,
    ...                       "stale_direct": 100.0, "write_ms": 1.0, "search_ms": 0.5,
    ...                       "extract_ms": None}}}
    >>> "| x | store | 100.0" in markdown_table(result)
    True
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

__all__ = [
    "COLUMNS",
    "HIDDEN",
    "format_freetext_table",
    "hidden_table",
    "markdown_table",
    "plot_freetext",
    "write_markdown",
]

COLUMNS: tuple[tuple[str, str], ...] = (
    ("stale_served", "stale served %"),
    ("current_present", "current present %"),
    ("recall_at_1", "recall@1 %"),
    ("hidden_true", "hidden true %"),
    ("independent_taken_back", "indep. taken back %"),
    ("stale_direct", "stale on own text %"),
    ("independent_unstored", "indep. never stored %"),
    ("write_ms", "write ms/item"),
    ("extract_ms", "extract ms/item"),
    ("search_ms", "search ms/query"),
)
"""Metric key and column title, in table order."""


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key.endswith("_ms"):
        return f"{value:.3f}" if value < 1 else f"{value:.2f}"
    return f"{value:.1f}"


def _rows(result: dict[str, Any]) -> list[list[str]]:
    rows = []
    for name, metrics in result["systems"].items():
        system, path = name.split("/")
        rows.append([system, path] + [_cell(k, metrics.get(k)) for k, _ in COLUMNS])
    return rows


HIDDEN: tuple[tuple[str, str], ...] = (
    ("keep_both", "keep-both pairs"),
    ("probe", "probes' true memories"),
    ("distractor", "distractors"),
)
"""Groups of true memories (``hidden_<group>``) and their titles."""


def _caption(result: dict[str, Any]) -> str:
    c = result["config"]
    kinds = ", ".join(f"{v} {k}" for k, v in sorted(c.get("kinds", {}).items()))
    templates = c.get("change_templates")
    changes = c.get("kinds", {}).get("change", 0)
    told = f"{changes} changes from {templates} distinct change templates, " if templates else ""
    return (
        f"split {c.get('split')}, {c.get('scenarios')} scenarios ({kinds}), {told}"
        f"{c.get('memories', '?')} memories, top {c.get('k')}, seed {c.get('seed')}, "
        f"TEPA storage {c.get('storage', 'memory')}, embeddings {c.get('embeddings', '?')}"
    )


def hidden_table(result: dict[str, Any]) -> str:
    """True memories hidden (absent from the top k for their own text), by group, in Markdown.

    Example:
        >>> m = {"hidden_true": 2.0, "hidden_keep_both": 5.0, "hidden_probe": 0.0,
        ...      "hidden_distractor": 0.0, "counts": {"keep_both_memories": 20,
        ...      "keep_both_hidden": 1, "probe_memories": 10, "probe_hidden": 0,
        ...      "distractor_memories": 20, "distractor_hidden": 0}}
        >>> "| x/store | 2.0 (1/50) | 5.0 (1/20) |" in hidden_table({"systems": {"x/store": m}})
        True
    """
    head = ["system/path", "all true memories"] + [title for _, title in HIDDEN]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, m in result["systems"].items():
        counts = m.get("counts", {})
        cells = []
        for group in ("", *(g for g, _ in HIDDEN)):
            keys = [g for g, _ in HIDDEN] if not group else [group]
            hidden = sum(counts.get(f"{g}_hidden", 0) for g in keys)
            total = sum(counts.get(f"{g}_memories", 0) for g in keys)
            value = m.get(f"hidden_{group}" if group else "hidden_true")
            cells.append(f"{_cell('', value)} ({hidden}/{total})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_freetext_table(result: dict[str, Any]) -> str:
    """The console table (rendered with rich)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="tepa-bench run freetext", caption=_caption(result))
    table.add_column("system")
    table.add_column("path")
    for _, title in COLUMNS:
        table.add_column(title, justify="right")
    for row in _rows(result):
        table.add_row(*row)
    buffer = io.StringIO()
    Console(file=buffer, width=180, force_terminal=False, color_system=None).print(table)
    lines = [buffer.getvalue().rstrip(), "true memories hidden, % (hidden/all):"]
    lines += [hidden_table(result)]
    for name, why in result.get("skipped", {}).items():
        lines.append(f"skipped {name}: {why}")
    targets = result.get("targets")
    if targets:
        lines.append(
            "targets (test split, offline default): "
            + ", ".join(f"{k} {v}" for k, v in targets.items())
            + "; ideal extractor: stale served 0%"
        )
    return "\n".join(lines)


def markdown_table(result: dict[str, Any]) -> str:
    """The table in Markdown."""
    head = ["system", "path"] + [title for _, title in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(result)]
    return "\n".join(lines)


def write_markdown(result: dict[str, Any], path: Path) -> Path:
    """Write the Markdown report (table, set, skipped systems, per-role take-backs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parts = ["# tepa-bench run freetext", "", _caption(result), "", markdown_table(result), ""]
    parts += ["True memories hidden (absent from the top k for their own text), % (hidden/all):"]
    parts += ["", hidden_table(result), ""]
    roles = sorted({r for m in result["systems"].values() for r in m.get("taken_back_by_role", {})})
    if roles:
        parts += ["Independent memories taken back, by role (%):", ""]
        parts.append("| system/path | " + " | ".join(roles) + " |")
        parts.append("|" + "---|" * (len(roles) + 1))
        for name, m in result["systems"].items():
            by = m.get("taken_back_by_role", {})
            parts.append(f"| {name} | " + " | ".join(_cell("", by.get(r)) for r in roles) + " |")
        parts.append("")
    for name, why in result.get("skipped", {}).items():
        parts.append(f"- skipped {name}: {why}")
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path


def plot_freetext(result: dict[str, Any], path: Path) -> Path | None:
    """Bars of stale served and current present per system/path (``None`` without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    names = list(result["systems"])
    if not names:
        return None
    stale = [result["systems"][n].get("stale_served") or 0.0 for n in names]
    current = [result["systems"][n].get("current_present") or 0.0 for n in names]
    xs = range(len(names))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(names) + 2), 4.5))
    ax.bar([x - 0.2 for x in xs], stale, width=0.4, label="stale served (lower is better)")
    ax.bar([x + 0.2 for x in xs], current, width=0.4, label="current present (higher is better)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel(f"% of change scenarios, top {result['config'].get('k', 3)}")
    ax.set_ylim(0, 125)
    ax.set_title(f"free-text memories after a change ({result['config'].get('split')} split)")
    ax.legend(loc="upper center", ncol=2, fontsize="small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
