"""The fold's golden trajectories: seeded random evidence sequences, folded under many policies.

Regenerated deliberately for issue 15 (sources with declared trust): the TEPA presets and their
variants changed (weighted counts, corrections, answers, TEPA-Full's outcome promotion); the
baselines' digests did not, and the ``*/paper`` variants reproduce the TEPA presets' digests
from before. After the merge of issue 15 into the ``rule`` branch only the ``tepa-key`` entries
were regenerated (``tepa-key``, ``tepa-key/fresh-eager``, and ``tepa-key/paper``, which
reproduces the ``tepa-key`` digest from before trust); every other digest is main's.
Regenerated for issue 28 (change without freezing: ``SourceRevision`` and ``ChangePoint`` of
``core/changes.py``, the default's only): ``tepa-key``, ``default`` and ``tepa-key/fresh-eager``
changed (1,412, 1,412 and 1,388 of the 2,000 sequences: their observations come from the
application, a source with change authority whose newest statement now withdraws its earlier
ones); every other digest is unchanged, and the new entry ``tepa-key/no-change`` (the default with
both rules off) was checked equal to ``tepa-key``'s digests from before.
Regenerated for issue 28's trial gate (``core/contest.py``, TEPA-Full's ``trial_gate``): only
``tepa-full`` changed (1,032 of the 2,000 sequences); the new entry ``tepa-full/no-gate`` (the
gate off) was checked equal to ``tepa-full``'s digests from before.
Regenerated for issue 28's contested world (branch ``contest``): the default's veto spares a
glitch (``LastOutcomeVeto``: one failure right after two successes no longer vetoes) and a
trial verdict suspended by the answer's failure stands again after its next success
(``TrialGate``): ``default`` and ``tepa-key`` changed in 298 of the 2,000 sequences,
``tepa-key/no-change`` in 283, ``tepa-key/paper`` in 238, ``tepa-key/fresh-eager`` in 237 and
``tepa-full`` in 2; every other digest is unchanged. Then the failures of a value nobody had
asserted stopped vetoing its first claim by a source with change authority (``ChangePoint``):
``default`` and ``tepa-key`` changed again in 385 sequences, ``tepa-key/fresh-eager`` in 384
(``tepa-key/no-change`` and ``tepa-key/paper`` have no change sources: unchanged).
Then the owner's word lifted the veto from a claimed value whose window holds more successes
than failures (``LastOutcomeVeto(authority=change_sources)``): ``default`` and ``tepa-key``
changed in 60 sequences, ``tepa-key/fresh-eager`` in 43; every other digest is unchanged.
Then an assertion that revives a value restarts every source's repeats of it (``fold``, with the
change rules only): ``default`` and ``tepa-key`` changed in 492 sequences,
``tepa-key/fresh-eager`` in 493; every other digest is unchanged.
Regenerated for issue 38 (who may override whom, ``core/precedence.py``: a lower-trust claim is
held back, a record adds no weighted conflict to a value that outranks its source, the answer
is the Active value of the highest rank): the sequences' sources are the application, ``user``
(tier 3) and ``tool`` (tier 2), so every preset with a trust table changed (``tepa-rev`` 1,428,
``tepa-norev`` 1,507, ``tepa-cd`` 1,446, ``oracle-rev`` 1,406, ``tepa-full`` 1,450, ``tepa-key``
and ``default`` 1,350 of the 2,000 sequences; their variants with trust 1,136 to 1,475); the
baselines and the ``*/paper`` variants (no trust table) are unchanged, and the new entries
``tepa-key/no-hold`` and ``tepa-full/no-hold`` (``hold_lower_trust=False``) were checked equal
to ``tepa-key``'s and ``tepa-full``'s digests from before. Outcomes from recorders that cannot
vouch (issue 38 too) change nothing here: every outcome of these sequences is vouched for.
Regenerated for issue 39 (``ChangePoint`` for a person's revision of a value they stated once,
``OneOffHold``/``OneOffVeto`` for a one-off against a standing belief, ``TrialGate`` suspending
verdicts while the key answers nothing; ``core/changes.py``, ``core/contest.py``), on main with
issue 38 merged: ``default`` and ``tepa-key`` changed in 311 of the 2,000 sequences,
``tepa-key/fresh-eager`` in 309, ``tepa-key/no-hold`` in 306, ``tepa-full`` in 36 and
``tepa-full/no-hold`` in 35; every other digest is unchanged.
When the default became the key test (issue 14) no digest changed: the ``tepa-rev/*`` variants,
written ``LifecyclePolicy(...)`` before, are built on ``LifecyclePolicy.preset("tepa-rev")``, and
the new entry ``default`` (``LifecyclePolicy()``) was checked equal to ``tepa-key``'s digests
before it was added.

For every policy of :data:`POLICIES` and every sequence of :func:`sequence` (``SEQUENCES`` of
them), the fold is applied one record at a time and, after every step, everything the fold
produced is hashed: the transitions the step returned (states and reasons) and every precedent
(state, counts, posterior, recent window, evidence ids, transitions). One short digest per
(policy, sequence) is stored in ``data/fold_golden.json``; ``test_fold_golden.py`` requires
equality, so a refactoring of the fold cannot change a single reason string unnoticed.

Regenerate (only when a change of behaviour is intended, and say so in the commit)::

    .venv/bin/python -m tests.unit_tests.fold_golden --write
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from langchain_tepa import Evidence, EvidenceKind, LifecyclePolicy
from langchain_tepa.core import KeyState, apply_evidence
from langchain_tepa.core.trust import TrustPolicy

DATA = Path(__file__).parent / "data" / "fold_golden.json"
SEQUENCES = 2000
DIGEST_HEX = 6
_PRESETS = (
    "no-memory",
    "append-only",
    "lww",
    "temporal",
    "reactive",
    "oracle-reset",
    "tepa-norev",
    "tepa-rev",
    "tepa-full",
    "append-conflict",
    "lww-outcome",
    "oracle-rev",
    "tepa-cd",
    "tepa-key",
)


def _rev(**overrides: Any) -> LifecyclePolicy:
    """The paper's rules with some fields changed.

    Before the default became ``tepa-key`` (issue 14) these variants were written
    ``LifecyclePolicy(...)``; their digests are unchanged.
    """
    return LifecyclePolicy.preset("tepa-rev", **overrides)


POLICIES: dict[str, LifecyclePolicy] = {
    **{name: LifecyclePolicy.preset(name) for name in _PRESETS},
    "tepa-rev/no-fresh": _rev(revive_fresh=False),
    "tepa-rev/no-veto": _rev(outcome_veto=False),
    "tepa-rev/window5": _rev(window=5, w_min=3, theta_rec=0.4),
    "tepa-rev/prior": _rev(a0=2.0, b0=0.5, n_min=2, theta_pro=0.7, n_pro=2),
    "tepa-rev/raw-values": _rev(normalize_values=False),
    "tepa-rev/multi": _rev(multi_valued_prefixes=("m",)),
    "temporal/3": LifecyclePolicy.preset("temporal", temporal_window=3),
    "reactive/multi": LifecyclePolicy.preset("reactive", multi_valued=True),
    "reactive/3": LifecyclePolicy.preset("reactive", reactive_failures=3),
    "tepa-cd/raw-fresh": LifecyclePolicy.preset("tepa-cd", revive_fresh=False, change_hazard=0.2),
    "tepa-key/fresh-eager": LifecyclePolicy.preset(
        "tepa-key", revive_fresh=True, window=6, keyed_odds=0.25
    ),
    # issue 15: the paper's counting (every record counts 1, answers by validity) is kept, and
    # reproduces the digests the TEPA presets had before trust (checked when they were added)
    "tepa-rev/paper": _rev(trust=None),
    "tepa-full/paper": LifecyclePolicy.preset("tepa-full", trust=None, promote_on_outcomes=False),
    "tepa-cd/paper": LifecyclePolicy.preset("tepa-cd", trust=None),
    "tepa-key/paper": LifecyclePolicy.preset("tepa-key", trust=None),
    "tepa-rev/net": _rev(answer_by="net_support"),
    "default": LifecyclePolicy(),  # since issue 14 the key test: tepa-key's digests
    # issue 28: the default without the change rules reproduces tepa-key's digests from before
    "tepa-key/no-change": LifecyclePolicy(revise_own=False, change_sources=()),
    # issue 28, trials where they pay: TEPA-Full without its gate reproduces tepa-full's
    # digests from before
    "tepa-full/no-gate": LifecyclePolicy.preset("tepa-full", trial_gate=False),
    "tepa-rev/strict-trust": _rev(
        trust=TrustPolicy(repeat_decay=1.0, window_s=3.0), displace_ratio=1.0
    ),
    # issue 38: without the trust hold the default and TEPA-Full reproduce their digests from
    # before it
    "tepa-key/no-hold": LifecyclePolicy(hold_lower_trust=False),
    "tepa-full/no-hold": LifecyclePolicy.preset("tepa-full", hold_lower_trust=False),
}
"""Every preset, and variants that switch each remaining option."""

_VALUES = ("A", "B", "C", "a ", "D")


@functools.cache
def sequence(index: int) -> tuple[Evidence, ...]:
    """The ``index``-th random evidence sequence (one key, times non-decreasing, ties by id)."""
    rng = random.Random(f"fold-golden-{index}")
    key = "m" if index % 5 == 0 else "k"
    n = rng.randint(3, 40)
    values = _VALUES[: rng.randint(2, len(_VALUES))]
    t = 0.0
    out = []
    for i in range(n):
        t += rng.choice((0.0, 1.0, 1.0, 2.0))
        r = rng.random()
        value: Any = rng.choice(values)
        outcome = None
        reason = None
        if r < 0.35:
            kind = EvidenceKind.OBSERVATION
        elif r < 0.85:
            kind = EvidenceKind.OUTCOME
            outcome = rng.random() < 0.6
        elif r < 0.89:
            kind = EvidenceKind.TRIAL
            outcome = rng.random() < 0.5
        elif r < 0.93:
            kind = EvidenceKind.PROMOTE
            reason = rng.choice((None, "promoted by the judge"))
        elif r < 0.97:
            kind = EvidenceKind.REVOKE
            reason = rng.choice((None, "revoked by the judge"))
        else:
            kind = EvidenceKind.BOUNDARY
            value = None
        out.append(
            Evidence(
                id=f"e{i:03d}",
                namespace="ns",
                key=key,
                value=value,
                kind=kind,
                outcome=outcome,
                time=t,
                reason=reason,
                text=f"{key} is {value}" if rng.random() < 0.2 else None,
                source=rng.choice((None, "user", "tool")),
                # every fourth record a correction (drawn without the generator, so the
                # sequences are those the digests of the baselines were computed on)
                metadata={"correction": True} if i % 4 == 1 else {},
            )
        )
    return tuple(out)


def _step_row(state: KeyState) -> tuple[Any, ...]:
    return (
        state.seq,
        state.last_sort_key,
        [
            (
                vid,
                p.state.value,
                p.support,
                p.conflict,
                p.lifetime_support,
                p.lifetime_conflict,
                p.validity,
                p.lower_bound,
                p.recent,
                p.last_support_seq,
                p.last_support_at,
                p.updated_at,
                p.ever_active,
            )
            for vid, p in state.precedents.items()
        ],
    )


def _final_row(state: KeyState) -> list[Any]:
    return [
        (
            p.id,
            p.value,
            p.created_at,
            p.text,
            p.source,
            p.evidence_ids,
            [
                (t.time, t.evidence_id, str(t.from_state), str(t.to_state), t.reason)
                for t in p.transitions
            ],
        )
        for p in state.precedents.values()
    ]


def trajectory_digest(policy: LifecyclePolicy, events: tuple[Evidence, ...]) -> str:
    """Hash of every step's transitions and resulting state (``DIGEST_HEX`` hex digits).

    Each step hashes the transitions it returned and every precedent's state, counts, posterior
    and recent window; the end of the sequence hashes every precedent's evidence ids and whole
    transition history (reasons included).
    """
    h = hashlib.blake2b(digest_size=16)
    state = KeyState(namespace=events[0].namespace, key=events[0].key)
    for ev in events:
        transitions = apply_evidence(state, ev, policy)
        moved = [
            (t.evidence_id, str(t.from_state), t.to_state.value, t.reason) for t in transitions
        ]
        h.update(repr((moved, _step_row(state))).encode())
    h.update(repr(_final_row(state)).encode())
    return h.hexdigest()[:DIGEST_HEX]


def digests(policy: LifecyclePolicy, count: int = SEQUENCES) -> str:
    """The concatenated digests of the first ``count`` sequences under ``policy``."""
    return "".join(trajectory_digest(policy, sequence(i)) for i in range(count))


def main(argv: list[str]) -> int:
    """``--write``: recompute every digest and store them in :data:`DATA`."""
    if argv != ["--write"]:
        print(__doc__)
        return 2
    data = {
        "sequences": SEQUENCES,
        "digest_hex": DIGEST_HEX,
        "policies": {label: digests(p) for label, p in POLICIES.items()},
    }
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DATA} ({len(POLICIES)} policies x {SEQUENCES} sequences)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
