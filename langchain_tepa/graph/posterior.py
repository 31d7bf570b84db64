"""Trials only where the evidence cannot settle a candidate, at a declared price (issue 39).

A trial is an execution the application pays for. When it declares what one costs, relative to
a wrong value served to the user (``TrialRunner(trial_cost=c)``), the runner asks of every
candidate what the evidence already says, and runs a trial only when it is worth its price:

* **The odds before any trial.** A claim by a source with change authority, or one that may
  correct (the user, the application), that no execution contradicts (no other value of the
  key has succeeded, and its own newest execution, if any, did not fail) is settled: it is
  adopted without a trial. Any other candidate starts at even odds: a contested change, an
  untrusted source's claim, an emptied key's last answer. A *correction* that answers a
  failure (the newest execution before it, of the value the key answered with, failed; no trial
  has rejected the correcting value since it last worked) has the odds of that failure:
  ``(1 - failing) / (1 - working)``, 4 with the key test's rates: the user says the answer is
  wrong and the last execution agrees. Those odds may settle it without a trial; once it is
  tried, its trials decide from even odds (an attacker can time a correction after a glitch).
* **Each trial moves the odds** by its likelihood ratio: ``working / failing`` for a success,
  ``(1 - working) / (1 - failing)`` for a failure (the key test's rates of a value that works,
  0.8, and one that no longer does, 0.2).
* **Decide when deciding costs less than asking.** With ``P`` the probability that the
  candidate works, the runner promotes once ``1 - P < c`` (a wrong adoption would cost less
  than a trial) and rejects once ``P < c``; otherwise the next trial runs (on a tie, it
  asks). A candidate is never rejected without a trial, and a promotion after trials still
  needs a supportive success (the judge's rule).

So at a declared cost of 0.25 a contested change takes one execution (a success gives odds 4:
``1 - P = 0.2``), at 0.1 two; a user's correction of an answer that just failed is adopted at
once where a trial costs more than a fifth of a failure, and tried where trials are cheaper.

Example:
    >>> odds = CandidateOdds(1.0, "a contested claim")
    >>> odds.verdict(0.25), odds.after([True]).verdict(0.25), odds.after([True]).verdict(0.1)
    (None, 'promote', None)
    >>> odds.after([False]).verdict(0.25, tried=True), CandidateOdds(4.0, "x").verdict(0.25)
    ('reject', 'promote')
    >>> odds.verdict(0.5)   # even odds at half a failure: a tie, so it asks

"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from langchain_tepa.core.changes import ChangePoint
from langchain_tepa.core.contest import successes
from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.trust import is_correction
from langchain_tepa.core.types import Evidence, EvidenceKind, Lifecycle, Precedent
from langchain_tepa.core.values import value_identity

if TYPE_CHECKING:
    from langchain_tepa.graph.trial_types import Candidate
    from langchain_tepa.memory import TEPAMemory

__all__ = [
    "CandidateOdds",
    "candidate_odds",
    "check_trial_cost",
    "claimed_by_authority",
    "newest_correction",
]

_EPS = 1e-9


def check_trial_cost(cost: object) -> float | None:
    """A declared trial cost: ``None`` or a number in (0, 1].

    Raises:
        InvalidArgumentError: Otherwise.
    """
    if cost is None:
        return None
    if isinstance(cost, bool) or not isinstance(cost, int | float) or math.isnan(cost):
        raise InvalidArgumentError(f"trial_cost must be a number in (0, 1] or None, got {cost!r}")
    if not 0.0 < cost <= 1.0:
        raise InvalidArgumentError(
            f"trial_cost is the price of one trial relative to a wrong value served (0 < c <= "
            f"1), got {cost!r}"
        )
    return float(cost)


@dataclass(frozen=True)
class CandidateOdds:
    """The odds that a candidate works, what they rest on, and the trial likelihoods.

    Attributes:
        odds: ``P / (1 - P)`` (``math.inf``: settled by the evidence).
        basis: Why, in words (it goes into the decision's reason).
        working: Success rate of a value that works.
        failing: Success rate of a value that does not.
        settles_only: The odds may settle the candidate without a trial, but once it is tried
            its trials count from even odds (a correction's timing after a failure: an attacker
            can time one after a glitch, so where trials are affordable they decide alone).

    Example:
        >>> CandidateOdds(1.0, "x").after([True, True]).probability
        0.9411764705882353
    """

    odds: float
    basis: str
    working: float = 0.8
    failing: float = 0.2
    settles_only: bool = False

    @property
    def probability(self) -> float:
        """``P``: the probability that the candidate works."""
        return 1.0 if math.isinf(self.odds) else self.odds / (1.0 + self.odds)

    def after(self, results: Sequence[bool]) -> CandidateOdds:
        """The odds after trial results (``True``: positive)."""
        odds = 1.0 if self.settles_only and results else self.odds
        for ok in results:
            if ok:
                odds *= self.working / self.failing
            else:
                odds *= (1.0 - self.working) / (1.0 - self.failing)
        return CandidateOdds(odds, self.basis, self.working, self.failing)

    def verdict(self, cost: float, *, tried: bool = False) -> Literal["promote", "reject"] | None:
        """``"promote"`` or ``"reject"`` when deciding now costs less than a trial, else ``None``.

        A candidate is rejected only after a trial (``tried``).
        """
        p = self.probability
        if 1.0 - p < cost - _EPS:
            return "promote"
        if tried and p < cost - _EPS:
            return "reject"
        return None


def claimed_by_authority(policy: Any, p: Precedent) -> bool:
    """Whether a source with change authority, or one that may correct, backs ``p``."""
    change = ChangePoint(policy.change_sources)
    trust = policy.trust
    for label, (support, _) in p.provenance.items():
        if support <= 1e-9:
            continue
        if change.authorised(label) or (trust is not None and trust.entry(label).corrections):
            return True
    return False


def candidate_odds(memory: TEPAMemory, candidate: Candidate) -> CandidateOdds:
    """What the evidence of the candidate's key says before any trial (module docstring).

    The candidate's own executions since the claim the odds rest on count as trials do.
    """
    policy = memory.policy
    working, failing = policy.keyed_working, policy.keyed_failing
    audit = memory.audit(candidate.key, namespace=candidate.namespace)
    vid = value_identity(candidate.value, normalize=policy.normalize_values)
    mine = next((p for p in audit.precedents if p.value_id == vid), None)
    even = CandidateOdds(1.0, "a contested claim", working, failing)
    if mine is None or not claimed_by_authority(policy, mine):
        return even
    history = memory.history(candidate.key, namespace=candidate.namespace)
    claim = _newest_claim(history, vid, policy)
    if claim is None:
        return even
    rivals = [q for q in audit.precedents if q.value_id != vid and successes(q) > _EPS]
    own_failed = bool(mine.recent) and not mine.recent[-1]
    if not rivals and not own_failed and mine.state is Lifecycle.HYPOTHESIS:
        return CandidateOdds(
            math.inf, "a trusted source's claim that no execution contradicts", working, failing
        )
    odds, anchor = even, claim
    corrected = newest_correction(history, vid, policy)
    if corrected is not None and _answers_a_failure(history, corrected, vid, policy):
        odds = CandidateOdds(
            (1.0 - failing) / (1.0 - working),
            "a correction right after the value it replaces failed",
            working,
            failing,
            settles_only=True,
        )
        anchor = corrected
    since = [
        bool(ev.outcome)
        for ev in history[anchor + 1 :]
        if ev.kind is EvidenceKind.OUTCOME and _same(ev.value, vid, policy)
    ]
    return odds.after(since) if since else odds


def _same(value: Any, vid: str, policy: Any) -> bool:
    return value_identity(value, normalize=policy.normalize_values) == vid


def _newest_claim(
    history: Sequence[Evidence], vid: str, policy: Any, *, correction: bool = False
) -> int | None:
    """The index of the candidate's newest statement, if its source has not said otherwise.

    ``correction``: the newest correction by a source that may correct. A source whose newest
    statement about the key names another value no longer claims the candidate (its newest
    say is its belief).
    """
    trust = policy.trust
    for i in range(len(history) - 1, -1, -1):
        ev = history[i]
        if ev.kind is not EvidenceKind.OBSERVATION or not _same(ev.value, vid, policy):
            continue
        if correction and (
            trust is None
            or not is_correction(ev.metadata)
            or not trust.entry(ev.source).corrections
        ):
            continue
        later = history[i + 1 :]
        if any(
            e.kind is EvidenceKind.OBSERVATION
            and e.source == ev.source
            and not _same(e.value, vid, policy)
            for e in later
        ):
            return None
        return i
    return None


def newest_correction(history: Sequence[Evidence], vid: str, policy: Any) -> int | None:
    """The index of the newest correction naming the value, or ``None``.

    By a source that may correct and has not named another value since.
    """
    return _newest_claim(history, vid, policy, correction=True)


def _answers_a_failure(history: Sequence[Evidence], claim: int, vid: str, policy: Any) -> bool:
    """Whether the correction at ``claim`` answers a failed execution.

    The newest outcome of the key before it failed, and was of another value; no execution of
    another value has succeeded since (the answer worked again: the correction is
    contradicted); and no trial has rejected the candidate since it last worked (its verdict
    may be suspended, not forgotten: a spoofed value named again after a glitch is still
    tried).
    """
    answered = False
    for prev in reversed(history[:claim]):
        if prev.kind is EvidenceKind.OUTCOME:
            answered = prev.outcome is False and not _same(prev.value, vid, policy)
            break
    if not answered:
        return False
    for later in history[claim + 1 :]:
        if (
            later.kind is EvidenceKind.OUTCOME
            and later.outcome
            and not _same(later.value, vid, policy)
        ):
            return False
    for past in reversed(history):  # rejected by trials since it last worked?
        if not _same(past.value, vid, policy):
            continue
        if past.kind is EvidenceKind.OUTCOME and past.outcome is True:
            return True
        if past.kind is EvidenceKind.REVOKE and (past.reason or "").startswith("rejected"):
            return False
    return True
