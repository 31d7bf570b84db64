"""The fold's golden trajectories: every step of 2,000 random sequences under 36 policies.

The digests in ``data/fold_golden.json`` were computed by the fold before it was split into rule
objects (``langchain_tepa.core.rules``); any change of a state, a count, a posterior, a window
or a reason string shows here. See ``fold_golden.py`` to regenerate after an intended change.
Regenerated for issue 15 (trust): the baselines' digests are unchanged, the TEPA presets'
changed, and the ``*/paper`` variants equal the TEPA presets' digests from before it.
Regenerated for issue 28: only the default's entries changed (``tepa-key``, ``default``,
``tepa-key/fresh-eager``); ``tepa-key/no-change`` keeps the default's digests from before.
Regenerated for issue 38 (lower-trust claims held back): every preset with a trust table
changed; ``tepa-key/no-hold`` and ``tepa-full/no-hold`` keep the digests from before.
"""

from __future__ import annotations

import json

import pytest

from tests.unit_tests import fold_golden as golden

STORED = json.loads(golden.DATA.read_text(encoding="utf-8"))


def test_golden_file_matches_the_generator_settings() -> None:
    assert STORED["sequences"] == golden.SEQUENCES
    assert STORED["digest_hex"] == golden.DIGEST_HEX
    assert set(STORED["policies"]) == set(golden.POLICIES)


@pytest.mark.slow
@pytest.mark.parametrize("label", list(golden.POLICIES))
def test_fold_reproduces_the_golden_trajectories(label: str) -> None:
    policy = golden.POLICIES[label]
    stored = STORED["policies"][label]
    width = golden.DIGEST_HEX
    for i in range(golden.SEQUENCES):
        got = golden.trajectory_digest(policy, golden.sequence(i))
        assert got == stored[i * width : (i + 1) * width], (
            f"policy {label}: sequence {i} folds differently from the golden trajectory "
            f"(replay tests.unit_tests.fold_golden.sequence({i}) step by step to see where)"
        )
