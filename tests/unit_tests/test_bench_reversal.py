from __future__ import annotations

from pathlib import Path

from langchain_tepa import TEPAMemory
from langchain_tepa.bench.reversal import KEY, show_reversal


def test_reversal_shows_belief_revocation_promotion_and_audit(tmp_path: Path) -> None:
    text = show_reversal(str(tmp_path / "mem"))
    lines = text.splitlines()
    assert lines[0].endswith("get() = 'csv'")
    assert lines[2].endswith("get() = None")
    assert lines[3].endswith("get() = 'json'")
    assert "retrieve() sees only: ['json']" in text
    assert "revoked: recent success 1/3 < 0.34" in text
    reopened = TEPAMemory.from_path(tmp_path / "mem")
    assert reopened.get(KEY) == "json"
    assert [p.state.value for p in reopened.audit(KEY).precedents] == ["revoked", "active"]
