"""Trials where they pay: the contested cases wait for trial-by-execution (TEPA-Full).

With ``policy.trial_gate`` (the ``tepa-full`` preset: the application runs trials), the rules
stop deciding the cases they cannot decide well, and the trials decide them instead:

* **A contested change.** A value with no successful outcome of its own that challenges a
  value with successes (Active, or revoked since), by a plain change
  (:class:`~langchain_tepa.core.changes.ChangePoint`) or by a correction
  (:class:`~langchain_tepa.core.trust.Correction`), is not adopted by the rule: it stays a
  Hypothesis until its trials pass. The trial runner tests it at the first statement
  (``langchain_tepa.graph``: a Hypothesis backed by a source with change authority or one
  that may correct is a contender), so a change that works is adopted at once, faster than
  the two statements of the rule (a value promoted after its trials replaces the key's other
  Active values and starts a fresh recent window), and one that fails in the trials is never
  served. An assertion (however trusted its source) cannot outvote executions; only
  executions can.
* **A word the trials hear.** A statement from such a source revives a value the rules revoked
  even while its last executions failed (the outcome veto): the value is held, and its trials
  say whether it works again. Only the trials' own verdict bars it (below).
* **A verdict stands.** A value revoked after its trials (the judge's ``reject``) is not revived
  by assertions alone until an Active value of the key fails (the world may have changed) or the
  value itself succeeds in a real execution: an attacker who repeats a rejected value buys no
  new trial, and every trial is an execution charged to the application.

Every step is in the audit: the rejected value's revocation names its trials, and a held value
that outweighs the answer marks the key contested
(:func:`~langchain_tepa.core.changes.blocked_challengers`).

Example:
    >>> from langchain_tepa.core.fold import fold
    >>> from langchain_tepa.core.policy import LifecyclePolicy
    >>> from langchain_tepa.core.types import Evidence
    >>> evs = [Evidence.observation("pay.url", "good", time=1, id="e01", source="user")]
    >>> evs += [Evidence.outcome_of("pay.url", "good", True, time=t, id=f"e{t:02}")
    ...         for t in range(2, 6)]
    >>> evs += [Evidence.observation("pay.url", "evil", time=t, id=f"e{t:02}", source="user",
    ...                              metadata={"correction": True}) for t in (6, 7)]
    >>> state = fold(evs, LifecyclePolicy.preset("tepa-full"))
    >>> [(p.value, p.state.value) for p in state.precedents.values()]
    [('good', 'active'), ('evil', 'hypothesis')]
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_tepa.core.ledger import TrustLedger
from langchain_tepa.core.step import Step
from langchain_tepa.core.trust import OUTCOMES, SourceTrust, TrustPolicy
from langchain_tepa.core.types import EvidenceKind, KeyState, Lifecycle, Precedent

__all__ = ["TrialGate", "successes"]

_EPS = 1e-9


def successes(p: Precedent) -> float:
    """Weighted support of ``p`` from successful outcomes (real executions) in its epoch."""
    return p.provenance.get(OUTCOMES, (0.0, 0.0))[0]


@dataclass(frozen=True)
class TrialGate:
    """Holds the contested cases for trials, and keeps the trials' verdicts (module docstring).

    A record rule (it sees every outcome, to lift a verdict when the world shows a change) that
    the fold and :class:`~langchain_tepa.core.changes.ChangePoint` also ask.

    Example:
        >>> from langchain_tepa.core.types import Evidence
        >>> ks = KeyState("default", "k")
        >>> ks.precedents["a"] = Precedent("default", "k", "a", "a", "pa", Lifecycle.ACTIVE,
        ...                                provenance={"outcomes": [3.0, 0.0]})
        >>> ks.precedents["b"] = Precedent("default", "k", "b", "b", "pb")
        >>> step = Step(ks, Evidence.observation("k", "b", time=1, id="e1", source="user"))
        >>> step.target, step.label = ks.precedents["b"], "user"
        >>> TrialGate().contested(step), TrialGate(sources=("user.*",)).speaks(step)
        (True, True)
    """

    sources: tuple[str, ...] = ()
    trust: TrustPolicy | None = None

    def speaks(self, step: Step) -> bool:
        """Whether the record is a word the trials should hear.

        A statement from a source with change authority (``sources``) or one that may correct
        (in ``trust``).
        """
        if step.is_outcome:
            return False
        if any(SourceTrust(p).matches(step.label) for p in self.sources):
            return True
        return self.trust is not None and self.trust.entry(step.ev.source).corrections

    def contested(self, step: Step) -> bool:
        """Whether the record's value, without a success of its own, challenges one with some.

        Only for a single-valued key whose values have been executed: another value has
        successes (Active, or revoked since: executions decide this key, and assertions alone
        would adopt the value on a word that executions never checked).
        """
        target = step.target
        if target is None or not step.single or successes(target) > _EPS:
            return False
        return any(q is not target and successes(q) > _EPS for q in step.state.precedents.values())

    def barred(self, state: KeyState, p: Precedent) -> bool:
        """Whether ``p`` was revoked after its trials and no execution has lifted the verdict."""
        return state.ledger is not None and p.value_id in state.ledger.judged

    def holds(self, step: Step) -> bool:
        """Whether the record's value must wait for trials (contested, or barred by a verdict)."""
        target = step.target
        return target is not None and (self.barred(step.state, target) or self.contested(step))

    def apply(self, step: Step) -> None:
        """Lift or restore verdicts on an outcome (the key's newest outcome is its current state).

        A success of a judged value lifts its verdict for good. A failure of an Active value
        suspends every verdict (the world may have changed: a restated value gets trials
        again); the next success of an Active value restores the suspended ones (the failure
        was a glitch: the answer works, and nothing new speaks for the judged values).
        """
        ledger = step.state.ledger
        target = step.target
        if not step.is_outcome or ledger is None or target is None:
            return
        if not (ledger.judged or ledger.suspended):
            return
        if step.ev.outcome is True:
            ledger.judged.pop(target.value_id, None)
            ledger.suspended.pop(target.value_id, None)
            if target.state is Lifecycle.ACTIVE and ledger.suspended:
                ledger.judged.update(ledger.suspended)
                ledger.suspended.clear()
        elif target.state is Lifecycle.ACTIVE or not any(
            q.state is Lifecycle.ACTIVE for q in step.state.precedents.values()
        ):  # the answer failed, or the key answers nothing and what was tried instead failed
            ledger.suspended.update(ledger.judged)
            ledger.judged.clear()

    def decided(self, step: Step, target: Precedent, *, moved: bool, single: bool) -> None:
        """Note a trial result, or a decision (after it moved ``target``).

        A revocation after trials is a verdict; a promotion after trials adopts the value at
        once: its recent window starts afresh and, in a single-valued key, the other Active
        values are revoked (the trials showed the new value works; the rules would otherwise
        keep answering with the better-supported old one).
        """
        state = step.state
        if state.ledger is None:
            state.ledger = TrustLedger()
        ledger = state.ledger
        vid, kind = target.value_id, step.ev.kind
        if kind is EvidenceKind.TRIAL:
            ledger.tried.add(vid)
        elif kind is EvidenceKind.REVOKE:
            if vid in ledger.tried:
                ledger.judged[vid] = step.ev.time
            ledger.tried.discard(vid)
            ledger.suspended.pop(vid, None)
        elif kind is EvidenceKind.PROMOTE:
            tried = vid in ledger.tried
            ledger.tried.discard(vid)
            ledger.judged.pop(vid, None)
            ledger.suspended.pop(vid, None)
            if not (tried and moved):
                return
            # its trials are fresh evidence that it works: the failures in its recent window
            # came before (the recent-window rule would revoke it again at once)
            target.recent.clear()
            if not single:
                return
            for q in state.precedents.values():
                if q is not target and q.state is Lifecycle.ACTIVE:
                    step.touch(q)
                    step.move(
                        q,
                        Lifecycle.REVOKED,
                        f"revoked: {_shown(target.value)} adopted after its trials (trial gate)",
                    )


def _shown(value: object) -> str:
    from langchain_tepa.core.values import canonical_json

    return repr(value) if isinstance(value, str) else canonical_json(value)
