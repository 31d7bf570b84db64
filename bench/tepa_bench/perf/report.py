r"""Tables of ``tepa-bench perf``: one row per size (embedded run), Markdown for the scale run.

Example:
    >>> markdown_table(["a", "b"], [["1", "2"]])
    '| a | b |\n|---|---|\n| 1 | 2 |'
    >>> fmt_ms(1.23456), fmt_ms(None)
    ('1.23', 'n/a')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["fmt_ms", "format_table", "markdown_table", "plain_table", "pp"]


def fmt_ms(value: float | None, digits: int = 2) -> str:
    """A number with ``digits`` decimals (``n/a`` for ``None``)."""
    return "n/a" if value is None else f"{value:,.{digits}f}"


def pp(op: dict[str, float]) -> str:
    """``p50/p95`` of an op in ms."""
    return f"{op['p50_ms']:.2f}/{op['p95_ms']:.2f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def plain_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A right-aligned plain-text table."""
    allrows = [list(header), *[list(r) for r in rows]]
    widths = [max(len(row[i]) for row in allrows) for i in range(len(header))]
    out = ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in allrows]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


_COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("N", lambda r: f"{r['n']:,}"),
    ("retrieve p50/p95", lambda r: pp(r["ops"]["retrieve"])),
    ("floor p50", lambda r: f"{r['ops']['floor_query']['p50_ms']:.2f}"),
    ("naive p50", lambda r: f"{r['ops']['naive_query']['p50_ms']:.2f}"),
    ("observe p50/p95", lambda r: pp(r["ops"]["observe"])),
    ("raw add p50", lambda r: f"{r['ops']['raw_add']['p50_ms']:.1f}"),
    ("ingest rec/s", lambda r: f"{r['ingest']['tepa_rps']:,.0f}"),
    ("raw rec/s", lambda r: f"{r['ingest']['raw_rps']:,.0f}"),
    ("mixed rec/s", lambda r: f"{r['ingest']['tepa_mixed_rps']:,.0f}"),
    ("raw mixed rec/s", lambda r: f"{r['ingest']['raw_mixed_rps']:,.0f}"),
    ("reconcile s", lambda r: f"{r['ops']['reconcile']['p50_ms'] / 1000:.1f}"),
    ("audit p50", lambda r: f"{r['ops']['audit']['p50_ms']:.3f}"),
    ("open s", lambda r: f"{r['ops']['open']['p50_ms'] / 1000:.2f}"),
    ("RSS MiB tepa/bench", lambda r: f"{r['open_peak_rss_mib']:,.0f}/{r['peak_rss_mib']:,.0f}"),
    ("ret/floor", lambda r: f"{r['ratios']['retrieve_vs_floor']:.2f}"),
    ("ret/naive", lambda r: f"{r['ratios']['retrieve_vs_naive']:.3f}"),
    ("obs/add", lambda r: f"{r['ratios']['observe_vs_add']:.2f}"),
    ("ingest/add", lambda r: f"{r['ratios']['ingest_vs_add']:.2f}"),
    ("mixed/add", lambda r: f"{r['extra_ratios']['ingest_mixed_vs_add']:.2f}"),
)


def format_table(result: dict[str, Any], *, markdown: bool = False) -> str:
    """The embedded run as a plain-text (or Markdown) table, one row per size; times in ms."""
    header = [name for name, _ in _COLUMNS]
    rows = [
        [fn(result["results"][key]) for _, fn in _COLUMNS]
        for key in sorted(result["results"], key=int)
    ]
    return markdown_table(header, rows) if markdown else plain_table(header, rows)
