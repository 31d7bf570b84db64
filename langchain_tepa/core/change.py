"""Change detection: revoke a value when its outcomes show that the world changed.

:func:`change_odds` and :class:`ChangeRevocation` test one value's own outcome history
(``tepa-cd``); the key test (``tepa-key``, the default policy) pools the failure runs of every
value of a key (:class:`OutcomeRuns`, :func:`key_rates`, :func:`change_statistic`,
:class:`KeyChangeRevocation`), keeps a revived value's history (:class:`HistoryCounts`) and
guards against poisoning (:class:`LastOutcomeVeto`, :class:`ChangeVeto`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_tepa.core.beta import BetaCounts
from langchain_tepa.core.step import Step
from langchain_tepa.core.trust import SourceTrust
from langchain_tepa.core.types import KeyState, Lifecycle, Precedent

__all__ = [
    "ChangeRevocation",
    "ChangeVeto",
    "HistoryCounts",
    "KeyChangeRevocation",
    "KeyRates",
    "LastOutcomeVeto",
    "OutcomeRuns",
    "change_odds",
    "change_statistic",
    "key_rates",
    "trailing_failures",
]


@functools.lru_cache(maxsize=4096)
def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def change_odds(
    outcomes: Sequence[bool], *, hazard: float, max_run: int, a: float = 1.0, b: float = 1.0
) -> tuple[float, int]:
    """Posterior odds that a value's success rate dropped within its last ``max_run`` outcomes.

    The model is Bayesian change-point detection on a Bernoulli stream, the outcomes of acting on
    one value (oldest first). Under "no change" every outcome has one unknown success rate; under
    "a change ``m`` outcomes ago" the last ``m`` outcomes have their own rate, *lower* than the
    rate before (a drop: only a value that got worse is revoked). Each rate has the prior
    Beta(a, b) and is integrated out (Beta-Bernoulli marginal likelihoods), so a value's own
    history sets how surprising its recent failures are: two failures after twenty successes are
    strong evidence of a change (a precise tool), two failures in a stream that fails one time in
    three are not (a noisy tool). A change is a priori ``hazard`` likely at each outcome, so the
    odds are ``hazard / (1 - hazard)`` times the sum of the Bayes factors of a change ``m = 1 ..
    max_run`` outcomes ago. Only splits that leave at least one outcome before the change count.

    Args:
        outcomes: The value's outcomes, oldest first (``True``: it worked).
        hazard: Prior probability of a change at each outcome.
        max_run: The longest recent run examined.
        a: Prior pseudo-successes of each segment's rate.
        b: Prior pseudo-failures of each segment's rate.

    Returns:
        ``(odds, m)``: the posterior odds of a drop, and the most likely change position (the
        number of recent outcomes after it; 0 when no drop is possible).

    Example:
        >>> precise = [True] * 20
        >>> change_odds(precise + [False], hazard=0.02, max_run=6)[0] < 1
        True
        >>> change_odds(precise + [False, False], hazard=0.02, max_run=6)[0] > 1
        True
        >>> noisy = [True, True, False] * 7
        >>> change_odds(noisy + [False, False], hazard=0.02, max_run=6)[0] < 1
        True
    """
    n = len(outcomes)
    if n < 2:
        return 0.0, 0
    wins_total = sum(outcomes)
    fails_total = n - wins_total
    null = _log_beta(a + wins_total, b + fails_total)
    prior = _log_beta(a, b)
    total = 0.0
    best = 0.0
    best_m = 0
    wins_after = 0
    for m in range(1, min(max_run, n - 1) + 1):
        wins_after += outcomes[n - m]
        fails_after = m - wins_after
        wins_before = wins_total - wins_after
        fails_before = fails_total - fails_after
        # a drop: the rate after is lower than the rate before (posterior means)
        if (wins_after + a) / (m + a + b) >= (wins_before + a) / (n - m + a + b):
            continue
        log_bf = (
            _log_beta(a + wins_before, b + fails_before)
            + _log_beta(a + wins_after, b + fails_after)
            - prior
            - null
        )
        bf = math.exp(log_bf)
        total += bf
        if bf > best:
            best, best_m = bf, m
    return hazard / (1.0 - hazard) * total, best_m


@dataclass(frozen=True)
class ChangeRevocation:
    """Revoke a value when its own outcomes show a change (see :func:`change_odds`).

    The precedent's recent window (``policy.window`` outcomes) is the history; the value is
    revoked when the posterior odds of a drop in its success rate within the last ``max_run``
    outcomes reach ``odds`` (1: a change is more likely than not).

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> p = Precedent("default", "k", "v", "v", "p1", recent=[True] * 20 + [False] * 2)
        >>> ChangeRevocation().reason(p, None)  # type: ignore[arg-type]
        'revoked: change detected, 0/2 recent successes after 20/20 before (odds 2.7 >= 1)'
    """

    hazard: float = 0.02
    max_run: int = 8
    odds: float = 1.0

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The reason when a drop is more likely than the threshold allows."""
        if len(p.recent) < 2 or p.recent[-1]:
            return None
        odds, m = change_odds(p.recent, hazard=self.hazard, max_run=self.max_run)
        if odds >= self.odds:
            wins = sum(p.recent[-m:])
            return (
                f"revoked: change detected, {wins}/{m} recent successes after "
                f"{sum(p.recent) - wins}/{len(p.recent) - m} before (odds {odds:.1f} >= "
                f"{self.odds:g})"
            )
        return None


# ---------------------------------------------------------------------- the key test (tepa-key)
@dataclass(frozen=True)
class OutcomeRuns:
    """The failure runs of one outcome history (oldest first), as the key test pools them.

    A *run* is a maximal sequence of failures that follows a success (the value was working when
    it began); failures before a value's first success are not a run of a working value and are
    not counted.

    Attributes:
        successes: Successful outcomes (each one a step at which a run could have begun).
        recovered: Lengths of the runs that ended with a success of the same value (its noise, or
            a glitch burst that passed).
        open_run: Length of the run at the end of the history (0 when the last outcome
            succeeded or no success came before it).

    Example:
        >>> OutcomeRuns.of([False, True, False, True, True, False, False, True, False, False])
        OutcomeRuns(successes=4, recovered=(1, 2), open_run=2)
    """

    successes: int
    recovered: tuple[int, ...]
    open_run: int

    @classmethod
    def of(cls, outcomes: Sequence[bool]) -> OutcomeRuns:
        """Parse an outcome history (oldest first)."""
        successes = 0
        recovered: list[int] = []
        run = 0
        for ok in outcomes:
            if ok:
                if run:
                    recovered.append(run)
                successes += 1
                run = 0
            elif successes:
                run += 1
        return cls(successes, tuple(recovered), run)


def trailing_failures(outcomes: Sequence[bool]) -> int:
    """Failures at the end of an outcome history (the current failure run).

    Example:
        >>> trailing_failures([True, False, False]), trailing_failures([False, True])
        (2, 0)
    """
    n = 0
    for ok in reversed(outcomes):
        if ok:
            break
        n += 1
    return n


@dataclass(frozen=True)
class KeyRates:
    """What a key's own evidence says about how its values behave (see :func:`key_rates`).

    Attributes:
        working: Success rate of a value while it works, pooled over the key's values.
        hazard: Changes of the key's working value per record of the key.
        successes: Successes behind ``working`` (the prior excluded).
        changes: Changes behind ``hazard``.
        recovered: Lengths of the failure runs the key's values recovered from.

    Example:
        >>> rates = KeyRates(0.95, 0.02, 40, 1, recovered=(1, 2, 2))
        >>> round(rates.continuation(1, 4.0), 2), round(rates.continuation(2, 4.0), 2)
        (0.05, 0.31)
    """

    working: float
    hazard: float
    successes: int
    changes: int
    recovered: tuple[int, ...] = ()

    def continuation(self, k: int, weight: float) -> float:
        """Chance that a working value fails a ``k``-th time in a row, given ``k - 1`` failures.

        The first failure has the key's failure rate ``1 - working``. Later ones follow the
        lengths of the runs the key's values recovered from (its glitch bursts), with
        independent failures at ``1 - working`` as a prior worth ``weight`` runs: a key whose
        values often fail twice and come back makes a second failure unsurprising.

        Args:
            k: The failure (1 for the first of a run).
            weight: Weight of the independent-failure prior, in runs.
        """
        q = 1.0 - self.working
        if k <= 1:
            return q

        def reach(m: int) -> float:
            return sum(1 for n in self.recovered if n >= m) + weight * q ** (m - 1)

        return reach(k) / reach(k - 1)


def _changes(state: KeyState, tenure: int) -> int:
    """How many times the key's believed value was displaced after it had held.

    A change is counted when a value that was Active for at least ``tenure`` records of its key
    is revoked and the next value promoted is another one: a value that comes back after a
    glitch, or a lucky value revoked at once, is not a change.
    """
    promotions: list[tuple[float, str, int]] = []
    held: list[list[bool]] = []
    for i, q in enumerate(state.precedents.values()):
        position = {eid: n for n, eid in enumerate(q.evidence_ids)}
        start: int | None = None
        periods: list[bool] = []
        for tr in q.transitions:
            if tr.to_state is Lifecycle.ACTIVE:
                promotions.append((tr.time, tr.evidence_id, i))
                start = position.get(tr.evidence_id, 0)
            elif tr.from_state is Lifecycle.ACTIVE and start is not None:
                periods.append(position.get(tr.evidence_id, start) - start >= tenure)
                start = None
        held.append(periods)
    promotions.sort()
    promoted = [0] * len(held)
    changes = 0
    incumbent = -1
    for _, _, i in promotions:
        if incumbent >= 0 and i != incumbent:
            ended = promoted[incumbent] - 1  # the incumbent's Active period that ended
            if ended < len(held[incumbent]) and held[incumbent][ended]:
                changes += 1
        promoted[i] += 1
        incumbent = i
    return changes


def key_rates(
    state: KeyState,
    tested: Precedent | None = None,
    *,
    working: float = 0.8,
    hazard: float = 0.02,
    weight: float = 10.0,
    tenure: int = 4,
) -> KeyRates:
    """The key's working success rate and change rate, each with its prior.

    Noise is a property of the key (the tool, the world), not of one value: a value revived
    after a change starts with fresh counts, so its own history says little. Pooled over the
    outcome histories of every value of the key (:class:`OutcomeRuns`), working values have had
    ``S`` successes and ``F`` failures in runs they recovered from (noise, glitch bursts); the
    tested value's current run is left out (it is what is judged). The key's believed value has
    changed ``C`` times (:func:`_changes`) in its ``N`` records. With priors::

        working = (S + weight * working0) / (S + F + weight)
        hazard  = (C + 1) / (N + 1 / hazard0)

    Only the key's own evidence enters: its precedents' outcome histories and transitions.

    Args:
        state: The key's state.
        tested: The precedent being tested (its current failure run is left out).
        working: Prior success rate of a working value (``working0``).
        hazard: Prior changes per record (``hazard0``): one change in ``1 / hazard0`` records.
        weight: Weight of the ``working`` prior, in outcomes.
        tenure: Records a value must have been Active for its displacement to count as a change.

    Example:
        >>> rates = key_rates(KeyState("default", "k"))
        >>> rates.working, rates.hazard
        (0.8, 0.02)
    """
    successes = 0
    failures = 0
    recovered: list[int] = []
    for q in state.precedents.values():
        history = q.recent
        if q is tested:
            history = history[: len(history) - trailing_failures(history)]
        runs = OutcomeRuns.of(history)
        successes += runs.successes
        failures += sum(runs.recovered)
        recovered.extend(runs.recovered)
    changes = _changes(state, tenure)
    return KeyRates(
        working=(successes + weight * working) / (successes + failures + weight),
        hazard=(changes + 1.0) / (state.seq + 1.0 / hazard),
        successes=successes,
        changes=changes,
        recovered=tuple(recovered),
    )


def change_statistic(
    outcomes: Sequence[bool], *, working: float, failing: float, hazard: float
) -> float:
    """Shiryaev-Roberts statistic: the posterior odds that a value's success rate fell.

    Over the value's outcomes (oldest first) ``R <- (R + hazard) * L / (1 - hazard)``, where
    ``L`` is the outcome's likelihood ratio of "stopped working" (success rate ``failing``)
    against "works" (``working``): ``failing / working`` for a success, ``(1 - failing) / (1 -
    working)`` for a failure. ``R`` is the posterior odds that a change happened at some point,
    when a change is a priori ``hazard`` likely at each outcome. One failure of a precise value
    (working 0.99) multiplies them by about 80, one of a noisy value (0.7) by under 3; each
    success divides them.

    Args:
        outcomes: The value's outcomes, oldest first.
        working: Success rate of the value while it works.
        failing: Success rate of a value that no longer works.
        hazard: Prior probability of a change at each outcome.

    Example:
        >>> history = [True] * 30
        >>> def odds(tail, working):
        ...     return change_statistic(history + tail, working=working, failing=0.2, hazard=0.02)
        >>> odds([False], 0.99) > 1, odds([False], 0.7) > 1, odds([False] * 4, 0.7) > 1
        (True, False, True)
    """
    if not 0.0 < working < 1.0 or not 0.0 <= failing < working or not 0.0 < hazard < 1.0:
        raise ValueError(
            "change_statistic needs 0 <= failing < working < 1 and 0 < hazard < 1, got "
            f"working={working}, failing={failing}, hazard={hazard}"
        )
    on_failure = (1.0 - failing) / (1.0 - working)
    on_success = failing / working
    stay = 1.0 - hazard
    odds = 0.0
    for ok in outcomes:
        odds = (odds + hazard) * (on_success if ok else on_failure) / stay
    return odds


@dataclass(frozen=True)
class KeyChangeRevocation:
    """``tepa-key``: revoke an Active value when a change is likely, given its key's behaviour.

    A Bayesian change test on the value's own outcomes with the rates of its key
    (:func:`key_rates`): how often a working value of this key succeeds (pooled over all its
    values, so a value just revived after a change is judged by its key's noise, not by its
    three outcomes), and how often the key's working value has changed. The value's outcomes
    before its current failure run go through :func:`change_statistic`; each failure of the
    current run then multiplies the odds by ``(1 - failing) / c_k``, ``c_k`` being the chance
    that a working value of this key fails a ``k``-th time in a row
    (:meth:`KeyRates.continuation`: its failure rate for the first, then the lengths of the
    runs its values came back from). So a precise key is revoked after one failure and a noisy
    one after several; a key that has changed often is revoked sooner than one that never has;
    a key whose values often fail twice and come back (glitch bursts) waits for a third.

    Attributes:
        working: Prior success rate of a working value.
        failing: Success rate of a value that stopped working.
        hazard: Prior changes per record of the key.
        weight: Weight of the ``working`` prior, in outcomes.
        odds: Revoke when the posterior odds of a change reach this.
        run_weight: Weight, in runs, of independent failures as the prior of the run lengths.

    Example:
        >>> from langchain_tepa.core.policy import LifecyclePolicy
        >>> type(LifecyclePolicy.preset("tepa-key").rules.revocation[-1]).__name__
        'KeyChangeRevocation'
    """

    working: float = 0.8
    failing: float = 0.2
    hazard: float = 0.02
    weight: float = 10.0
    odds: float = 1.0
    run_weight: float = 4.0

    def test(self, p: Precedent, state: KeyState) -> tuple[float, KeyRates]:
        """The posterior odds of a change of ``p``, and the key's rates behind them."""
        rates = key_rates(state, p, working=self.working, hazard=self.hazard, weight=self.weight)
        working = min(max(rates.working, self.failing + 1e-3), 1.0 - 1e-3)
        hazard = min(rates.hazard, 0.5)
        run = trailing_failures(p.recent)
        odds = change_statistic(
            p.recent[: len(p.recent) - run], working=working, failing=self.failing, hazard=hazard
        )
        for k in range(1, run + 1):
            cont = 1.0 - working if k == 1 else rates.continuation(k, self.run_weight)
            odds = (odds + hazard) * (1.0 - self.failing) / max(cont, 1e-9) / (1.0 - hazard)
        return odds, rates

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The reason when a change of an Active value is likely enough, else ``None``."""
        if p.state is not Lifecycle.ACTIVE or not p.recent or p.recent[-1]:
            return None
        odds, rates = self.test(p, step.state)
        if odds < self.odds:
            return None
        return (
            f"revoked: change odds {odds:.1f} >= {self.odds:g} after "
            f"{trailing_failures(p.recent)} failure(s) in a row (key: works "
            f"{rates.working:.2f}, changes {rates.hazard:.3f} per record)"
        )


@dataclass(frozen=True)
class HistoryCounts(BetaCounts):
    """:class:`BetaCounts` that keeps a revived value's outcome history unless it was replaced.

    A revived value starts with fresh support and conflict, as with ``revive_fresh``. Its
    outcome history is kept when no other value was promoted while it was revoked (it came back
    from a glitch: the key test learns from it how long this key's failure runs last) and
    restarted otherwise (another value worked meanwhile: a change, whose history says nothing
    about the new regime). Used with ``revive_fresh=False``, so that the fold keeps the history
    and this rule decides.

    Example:
        >>> HistoryCounts(window=40).window
        40
    """

    def count(self, step: Step) -> None:
        """Restart the counts (and maybe the history) of a value this record revived; count."""
        target = step.target
        assert target is not None
        trs = target.transitions
        if step.transitions and len(trs) >= 2 and trs[-1] is step.transitions[-1]:
            revived, revoked = trs[-1], trs[-2]
            if (
                revived.from_state is Lifecycle.REVOKED
                and revived.to_state is Lifecycle.HYPOTHESIS
                and revoked.to_state is Lifecycle.REVOKED
            ):
                target.reset_counts()
                if _replaced(step.state, target, revoked.time):
                    target.recent.clear()
        super().count(step)


def _replaced(state: KeyState, p: Precedent, since: float) -> bool:
    """Whether another value of the key was promoted after ``since``."""
    for q in state.precedents.values():
        if q is p:
            continue
        for tr in reversed(q.transitions):
            if tr.time < since:
                break
            if tr.to_state is Lifecycle.ACTIVE and tr.time > since:
                return True
    return False


@functools.lru_cache(maxsize=64)
def _authority(patterns: tuple[str, ...]) -> tuple[SourceTrust, ...]:
    return tuple(SourceTrust(p) for p in patterns)


def _claimed_then_revoked(state: KeyState, p: Precedent) -> bool:
    """Whether some source asserted ``p`` before a revocation of it (its first claim's time)."""
    claimed = None if state.ledger is None else state.ledger.claimed.get(p.value_id)
    if claimed is None:
        return False
    return any(tr.to_state is Lifecycle.REVOKED and tr.time > claimed for tr in p.transitions)


@dataclass(frozen=True)
class LastOutcomeVeto:
    """Poisoning guard of ``tepa-key``: no revival or promotion by assertion after a failure.

    Observations can neither revive nor promote a value whose last outcome failed; only a
    successful outcome (or ``promote`` by hand) can. Two exceptions (issue 28: a value revoked
    on noise would otherwise stay out of reach of its own user's restatements until an
    execution of it happened to succeed):

    * *A glitch*: one failure right after two successes in a row does not veto.
    * *The owner's word on a claim that mostly works*: a statement of the value from a source
      with change authority (``authority``: the policy's ``change_sources``) is not vetoed
      when the value's recent window holds more successes than failures and some source
      asserted the value before a revocation of it. Its executions say it mostly works, its
      last failures challenge a claim, and the source whose word is change evidence answers
      them. A value with at least as many failures as successes (a spoofed value, which works
      only by chance) stays vetoed; so does a value only executions backed until they revoked
      it (a tool's output that failed twice in a row after a run of successes); and a source
      without change authority (a tool, the agent, a web page) never lifts the veto.

    Attributes:
        authority: Source patterns (as in the trust table) whose statement lifts the veto.
            ``()``: no source does (the exception is off).

    Example:
        >>> from langchain_tepa.core.types import Evidence, KeyState, Precedent
        >>> def veto(*recent):
        ...     p = Precedent("default", "k", "v", "v", "p1", recent=[*recent])
        ...     return LastOutcomeVeto().blocks(p)
        >>> veto(False), veto(True, False), veto(True, True, False), veto(True, False, False)
        (True, True, False, True)
        >>> from langchain_tepa.core.policy import LifecyclePolicy
        >>> from langchain_tepa.core.fold import fold
        >>> evs = [Evidence.observation("k", "v", time=1, id="e01", source="user")]
        >>> evs += [Evidence.outcome_of("k", "v", ok, time=t, id=f"e{t:02}")
        ...         for t, ok in zip(range(2, 12), [True] * 8 + [False] * 2)]
        >>> state = fold(evs, LifecyclePolicy())
        >>> (p,) = state.precedents.values()  # the user's value: 8 successes, 2 failures
        >>> p.state.value
        'revoked'
        >>> def said_by(source):
        ...     step = Step(state, Evidence.observation("k", "v", time=12, id="e12", source=source))
        ...     step.target, step.label, step.supports = p, source, True
        ...     return LastOutcomeVeto(("user.*",)).blocks(p, step)
        >>> said_by("user"), said_by("tool.x"), LastOutcomeVeto(("user.*",)).blocks(p)
        (False, True, True)
    """

    authority: tuple[str, ...] = ()

    def blocks(self, p: Precedent, step: Step | None = None) -> bool:
        """Whether ``p``'s last outcome failed, unless a glitch or the owner's word lifts it.

        Args:
            p: The value to revive or promote.
            step: The record that would revive or promote it (``None``: a decision, or no
                record asks): only a statement of ``p`` itself can lift the veto.
        """
        recent = p.recent
        if not recent or recent[-1]:
            return False
        if len(recent) >= 3 and recent[-2] and recent[-3]:
            return False
        return not (
            step is not None
            and step.target is p
            and step.supports
            and not step.is_outcome
            and 2 * sum(recent) > len(recent)
            and any(m.matches(step.label) for m in _authority(self.authority))
            and _claimed_then_revoked(step.state, p)
        )


@dataclass(frozen=True)
class ChangeVeto:
    """Poisoning guard of the change rule: observations neither revive nor promote a dropped value.

    It blocks while the value's last outcome failed and its own history shows a drop (the test
    of :class:`ChangeRevocation`).

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> p = Precedent("default", "k", "v", "v", "p1", recent=[True] * 20 + [False] * 2)
        >>> ChangeVeto(ChangeRevocation()).blocks(p)
        True
    """

    test: ChangeRevocation

    def blocks(self, p: Precedent, step: Step | None = None) -> bool:
        """Whether the value's outcomes still show the drop (``step`` is not consulted)."""
        if len(p.recent) < 2 or p.recent[-1]:
            return False
        odds, _ = change_odds(p.recent, hazard=self.test.hazard, max_run=self.test.max_run)
        return odds >= self.test.odds
