"""How far stored views lag the fold while a writer is busy (the count and age bounds).

Reads never use stored views (they fold the evidence); views are buffered and written when
``flush_every`` (256) precedents wait or the oldest waited ``flush_interval_s`` (2 s), checked on
every call. Measured here with the defaults:

* a **hot key** (one precedent observed as fast as the embedded store takes it, for 5 s): its
  stored view is never older than the age bound plus the duration of one call;
* **many keys** (600 new keys in a row, in process): never more than ``flush_every`` views are
  missing or behind.

The figures are printed with ``-s`` and appended to ``$TEPA_RELIABILITY_FIGURES``.
"""

from __future__ import annotations

import time
from pathlib import Path

from langchain_tepa import HashingEmbeddings, TEPAMemory
from tests.support.figures import report_figures
from tests.support.snapshot import view_dict


def test_a_hot_key_s_view_is_never_older_than_the_age_bound(tmp_path: Path) -> None:
    memory = TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings())
    bound = 2.0  # the default flush_interval_s
    start = last_current = time.monotonic()
    calls = max_records = 0
    max_age = slowest = 0.0
    while time.monotonic() - start < 5.0:
        before = time.monotonic()
        result = memory.observe("user.hot", "value")
        now = time.monotonic()
        slowest = max(slowest, now - before)
        calls += 1
        assert result.precedent is not None
        views = [view_dict(v) for v in memory.views()]  # none before the first flush
        behind = result.precedent.support - (views[0]["support"] if views else 0)
        if behind == 0:
            last_current = now
        max_records = max(max_records, behind)
        max_age = max(max_age, now - last_current)
    assert calls > 50, "too few writes to measure a lag"
    assert max_records > 0, "the view never lagged: the bound was not exercised"
    assert max_age <= bound + slowest + 0.05, (max_age, slowest)
    memory.close()
    report_figures(
        "view-lag-hot-key",
        {
            "writes": calls,
            "max_records_behind": max_records,
            "max_seconds_behind": round(max_age, 2),
            "slowest_call_s": round(slowest, 3),
        },
    )


def test_many_keys_leave_at_most_flush_every_views_behind() -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    flush_every = 256  # the default
    keys = 600
    worst = 0
    for i in range(keys):
        memory.observe(f"user.k{i}", "v")  # one new precedent per call, support 1
        worst = max(worst, i + 1 - len(memory.views()))
    assert 0 < worst <= flush_every
    memory.flush()
    views = [view_dict(v) for v in memory.views()]
    assert len(views) == keys and all(v["support"] == 1 for v in views)
    report_figures("view-lag-many-keys", {"keys": keys, "max_views_behind": worst})
