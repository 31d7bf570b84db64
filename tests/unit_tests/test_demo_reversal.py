from __future__ import annotations

from pathlib import Path

from langchain_tepa import TEPAMemory
from langchain_tepa.demo import KEY, show_reversal


def test_reversal_shows_belief_revocation_promotion_and_audit(tmp_path: Path) -> None:
    text = show_reversal(str(tmp_path / "mem"))
    lines = text.splitlines()
    assert lines[0] == "policy:       tepa-key (the library default)"
    assert lines[1].endswith("get() = 'csv'")
    assert lines[2].endswith("get() = 'csv'")  # one failure of a tool that worked 10 times
    assert lines[3].endswith("get() = None")
    assert lines[4].endswith("get() = 'json'")
    assert "retrieve() sees only: ['json']" in text
    assert "revoked: change odds 1.5 >= 1 after 2 failure(s) in a row" in text
    reopened = TEPAMemory.from_path(tmp_path / "mem")
    assert reopened.get(KEY) == "json"
    assert [p.state.value for p in reopened.audit(KEY).precedents] == ["revoked", "active"]
