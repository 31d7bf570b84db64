"""Change without freezing: a source's newest say is its belief; a restated change is a change.

Two record rules of the default policy (``tepa-key``), applied after the counts
(:mod:`langchain_tepa.core.rules`), and what reads call a contest:

* :class:`SourceRevision` (``policy.revise_own``): a source's newest statement about a
  single-valued key is its current belief. When a source states a value, the support it gave
  the key's other values is withdrawn and its statement adds no conflict to them: it changed its
  mind, it did not gain a second voice. Each source therefore backs at most one value of a key.
* :class:`ChangePoint` (``policy.change_sources``, ``policy.change_statements``): a statement
  from a source with change authority (the user, the application, the user's own text) that
  contradicts the believed value is change evidence. Once such sources have stated the new value
  ``change_statements`` times (2) with no success of the believed value, and no support for it
  from a source with change authority, in between, the evidence before that point stops voting:
  the new value is Active and the old one is revoked, however many successes it earned before.
  One statement against a standing belief (one the user confirmed after it was used) is not
  enough (a slip, a misheard word, a one-off: :class:`OneOffHold`); a success of the old value,
  or the user saying it again, restarts the count.
* :func:`blocked_challengers`: the values a rule holds back (a veto, proportionate
  displacement, a trial still to run) although they hold more support than the value served:
  reads mark such a key ``contested``.

Example:
    >>> from langchain_tepa.core.fold import fold
    >>> from langchain_tepa.core.policy import LifecyclePolicy
    >>> from langchain_tepa.core.types import Evidence
    >>> evs = [Evidence.observation("user.city", "Lisbon", time=1, id="e1", source="user")]
    >>> evs += [Evidence.outcome_of("user.city", "Lisbon", True, time=t, id=f"e{t}")
    ...         for t in range(2, 6)]
    >>> evs += [Evidence.observation("user.city", "Lisbon", time=6, id="e6", source="user")]
    >>> evs += [Evidence.observation("user.city", "Oslo", time=t, id=f"e{t}", source="user")
    ...         for t in (7, 8)]
    >>> [p.value for p in fold(evs[:-1], LifecyclePolicy()).active()]
    ['Lisbon']
    >>> [p.value for p in fold(evs, LifecyclePolicy()).active()]
    ['Oslo']
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_tepa.core.ledger import TrustLedger
from langchain_tepa.core.trust import OUTCOMES, SourceTrust
from langchain_tepa.core.types import KeyState, Lifecycle, Precedent

if TYPE_CHECKING:
    from langchain_tepa.core.contest import TrialGate
    from langchain_tepa.core.step import Step, Veto

__all__ = [
    "CHANGE_SOURCES",
    "ChangePoint",
    "OneOffHold",
    "OneOffVeto",
    "SourceRevision",
    "blocked_challengers",
    "standing",
]

CHANGE_SOURCES: tuple[str, ...] = ("user.*", "app", "offline-extractor")
"""Sources whose plain restatement is change evidence by default: the person the memory is about,
the application's own code, and the facts read in the user's own text. Not ``langgraph-store``
(LangMem's and LangGraph's writers are LLMs that also read untrusted content), ``agent``,
``tool.*``, undeclared sources, ``llm.*`` or ``web.*``."""

_EPS = 1e-9


def _shown(value: Any) -> str:
    from langchain_tepa.core.values import canonical_json

    return repr(value) if isinstance(value, str) else canonical_json(value)


@dataclass(frozen=True)
class SourceRevision:
    """A source's newest statement about a single-valued key is its current belief.

    When the record is an assertion, every other live value its source supported loses that
    support, and the record's conflict against that value is not counted (the source withdraws
    its word instead of contradicting itself). Integer ``support`` and ``conflict`` still count
    records (the audit's record counts); the weighted counts, which the posterior uses, move.
    Support from other sources and from outcomes is untouched.

    Example:
        >>> SourceRevision().track_conflict
        True
    """

    track_conflict: bool = True

    def apply(self, step: Step) -> None:
        """Withdraw the record's source's support from the key's other values."""
        if step.is_outcome or not step.supports or not step.single:
            return
        label, w = step.label, step.weight
        for q in step.others:
            prov = q.provenance.get(label)
            if prov is None or prov[0] <= _EPS:
                continue
            q.weighted_support = max(0.0, q.weighted_support - prov[0])
            prov[0] = 0.0
            if self.track_conflict and not step.spares(q):  # the counts rule added `w`
                q.weighted_conflict = max(0.0, q.weighted_conflict - w)
                prov[1] = max(0.0, prov[1] - w)
            if prov[1] <= _EPS:
                del q.provenance[label]


@functools.lru_cache(maxsize=64)
def _matchers(patterns: tuple[str, ...]) -> tuple[SourceTrust, ...]:
    return tuple(SourceTrust(p) for p in patterns)


@dataclass(frozen=True)
class ChangePoint:
    """A trusted source's restated change: the evidence before it stops voting.

    Every assertion updates its source's current belief about the key (kept in the key's trust
    ledger: value, time of the first statement counted, statements counted). Support for another
    value from a source with change authority, or a successful outcome of another value,
    restarts the count (the old value was confirmed after the change was stated). When sources
    matching ``sources`` hold the record's value as their belief and have stated it
    ``statements`` times together since, and the value is not vetoed (its last outcome did not
    fail, under the default), the key's Active values are revoked and the record's value is
    Active. A correction (handled by :class:`~langchain_tepa.core.trust.Correction`) needs no
    restatement. The failures of a value that no source had asserted yet (an agent's guesses,
    outcomes recorded without a statement) came before its claim: when a source with change
    authority asserts it first, they are dropped from its recent window and do not veto it
    (a failure after any assertion of the value still does).

    Attributes:
        sources: Patterns (as in the trust table) of the sources with change authority.
        statements: Statements of the new value that make a change (2: one can be a slip).
        vetoes: The policy's vetoes (a vetoed value is not adopted by a change).
        gate: The policy's trial gate (``trial_gate`` with the change rules on; ``tepa-full``
            has the gate without them): a change it holds (a value without a success against
            one with successes) waits for its trials (:mod:`langchain_tepa.core.contest`).

    Example:
        >>> rule = ChangePoint()
        >>> rule.authorised("user"), rule.authorised("user.web_form"), rule.authorised("agent")
        (True, True, False)
    """

    sources: tuple[str, ...] = CHANGE_SOURCES
    statements: int = 2
    vetoes: tuple[Veto, ...] = ()
    gate: TrialGate | None = None

    def authorised(self, source: str) -> bool:
        """Whether ``source`` (a provenance label: ``"app"`` for no source) has change authority."""
        return any(m.matches(source) for m in _matchers(self.sources))

    def apply(self, step: Step) -> None:
        """Track the source's belief; adopt a change once it is restated."""
        ledger = step.state.ledger
        target = step.target
        if not step.supports or ledger is None or target is None:
            return
        name, vid, now = step.label, target.value_id, step.ev.time
        before = ledger.beliefs.get(name)  # the source's belief before this record
        if step.is_outcome or self.authorised(name):
            # a success, or support with change authority: the other values' changes restart
            for src, (v, first, n) in list(ledger.beliefs.items()):
                if v != vid and n:
                    ledger.beliefs[src] = (v, first, 0)
        if step.is_outcome:
            return
        if vid not in ledger.claimed:  # the value's first assertion, by any source
            ledger.claimed[vid] = now
            if self.authorised(name) and target.recent and not any(target.recent):
                target.recent.clear()  # failures of a value nobody had claimed: before the claim
        held = ledger.beliefs.get(name)
        if held is not None and held[0] == vid and held[2]:
            ledger.beliefs[name] = (vid, held[1], held[2] + 1)
        else:
            ledger.beliefs[name] = (vid, now, 1)
        if not step.single or step.correction or not self.authorised(name):
            return
        if any(v.blocks(target, step) for v in self.vetoes):
            return
        if self.gate is not None and self.gate.holds(step):
            return
        runs = [
            (src, first, n)
            for src, (v, first, n) in ledger.beliefs.items()
            if v == vid and self.authorised(src)
        ]
        said = sum(n for _, _, n in runs)
        stale = [
            q
            for q in step.state.precedents.values()
            if q is not target and q.state is Lifecycle.ACTIVE
        ]
        if not stale:
            return
        if said < self.statements and not _revises_own_claim(ledger, name, before, stale):
            return
        who = ", ".join(sorted(src for src, _, _ in runs))
        shown = _shown(target.value)
        for q in stale:
            step.touch(q)
            step.move(
                q,
                Lifecycle.REVOKED,
                f"revoked: changed by {who} to {shown}: stated {said} times, no success or "
                "trusted support of this value in between (change point)",
            )
        if target.state is not Lifecycle.ACTIVE:
            step.move(
                target,
                Lifecycle.ACTIVE,
                f"promoted: change stated {said} times by {who} (change point)",
            )


@dataclass(frozen=True)
class OneOffHold:
    """A person's one-off against their standing belief waits for them to say it again.

    Issue 39. A person (``sources``: ``user.*``) who has stated the key's answer at least twice
    since it became the answer (their standing belief: :func:`standing`) and now states another
    value once has not changed their mind yet: "just today, something with meat" is a one-off
    as often as a change. The value is held (:class:`OneOffVeto`: the rules neither promote
    nor revive it) until they state it again or correct to it, or the answer fails (then the
    statement may be the change the failure shows). Its own success right after the statement
    (the agent did what was asked) lifts nothing. TEPA-Full's trials may still decide it; a
    person's revision of a value they stated once is not a one-off (:class:`ChangePoint`
    adopts it at once). The application's writes and a store's puts are not held: their
    newest write is their value.

    Example:
        >>> from langchain_tepa.core.fold import fold
        >>> from langchain_tepa.core.policy import LifecyclePolicy
        >>> from langchain_tepa.core.types import Evidence
        >>> evs = [Evidence.observation("diet", "vegan", time=1, id="e01", source="user"),
        ...        Evidence.outcome_of("diet", "vegan", True, time=2, id="e02"),
        ...        Evidence.observation("diet", "vegan", time=3, id="e03", source="user")]
        >>> evs += [Evidence.observation("diet", "keto", time=5, id="e05", source="user"),
        ...         Evidence.outcome_of("diet", "keto", True, time=6, id="e06")]
        >>> [p.value for p in fold(evs, LifecyclePolicy()).active()]  # a one-off: held
        ['vegan']
        >>> evs += [Evidence.observation("diet", "keto", time=7, id="e07", source="user")]
        >>> [p.value for p in fold(evs, LifecyclePolicy()).active()]  # said again: the change
        ['keto']
    """

    sources: tuple[str, ...] = ("user.*",)

    def speaks(self, label: str) -> bool:
        """Whether a statement's source is a person whose beliefs this rule tracks."""
        return any(m.matches(label) for m in _matchers(self.sources))

    def apply(self, step: Step) -> None:
        """Track each person's run of statements; hold a one-off; lift holds."""
        target = step.target
        if target is None or not step.single:
            return
        state = step.state
        if state.ledger is None:
            state.ledger = TrustLedger()
        ledger = state.ledger
        vid = target.value_id
        if step.is_outcome:
            for who, said in ledger.runs.items():  # executed since its last statement
                if said[0] == vid and not said[2]:
                    ledger.runs[who] = (vid, said[1], True, said[3])
            if step.ev.outcome is False and target.state is Lifecycle.ACTIVE:
                ledger.one_off.clear()  # the answer failed: a one-off may be the change
            return
        if not step.supports or not self.speaks(step.label):
            return
        name, now = step.label, step.ev.time
        run = ledger.runs.get(name)
        if run is not None and run[0] == vid:
            ledger.runs[name] = (vid, [*run[1], now], False, run[3] or run[2])
            held = ledger.one_off.get(vid)
            if held is not None and held[0] == name:
                del ledger.one_off[vid]  # said again: no longer a one-off
            return
        answers = [q for q in state.precedents.values() if q.state is Lifecycle.ACTIVE]
        against = any(standing(ledger, name, q) >= 2 for q in answers)  # the run before this
        ledger.runs[name] = (vid, [now], False, False)
        if step.correction or target.state is Lifecycle.ACTIVE or vid in ledger.one_off:
            return
        if against:
            ledger.one_off[vid] = (name, now)


def standing(ledger: TrustLedger, source: str, p: Precedent) -> int:
    """How often in a row ``source`` has stated ``p``, if it confirmed ``p`` after using it.

    The length of its current run of statements of ``p`` when one of them came after an
    execution of ``p`` (an outcome recorded since the statement before it), else 0: a
    standing belief is one its source confirmed after the value was used (two statements of
    a spoofed change in one go are not one).
    """
    run = ledger.runs.get(source)
    if run is None or run[0] != p.value_id or not run[3]:
        return 0
    return len(run[1])


@dataclass(frozen=True)
class OneOffVeto:
    """The rules neither promote nor revive a held one-off (:class:`OneOffHold`).

    Its source saying it again right away (its next statement about the key) lifts the hold in
    the same record: the restatement may revive and promote it.

    Example:
        >>> OneOffVeto().blocks(Precedent("default", "k", "v", "v", "p1"))
        False
    """

    def blocks(self, p: Precedent, step: Step | None = None) -> bool:
        """Whether ``p`` is a one-off its source has not said again."""
        if step is None:
            return False
        ledger = step.state.ledger
        held = None if ledger is None else ledger.one_off.get(p.value_id)
        if held is None or ledger is None:
            return False
        # the source's statement right after its one-off: the restatement that lifts the hold
        run = ledger.runs.get(held[0])
        restated = (
            step.target is p
            and not step.is_outcome
            and step.supports
            and held[0] == step.label
            and run is not None
            and run[0] == p.value_id
            and run[1][-1] < step.ev.time
        )
        return not restated


def _revises_own_claim(
    ledger: TrustLedger,
    source: str,
    held: tuple[str, float, int] | None,
    stale: Sequence[Precedent],
) -> bool:
    """Whether the statement revises the source's own claim: one statement is a change.

    The source's previous belief is the one value the key answers with, it stated that value
    at most once since it became the answer, and nothing but that source and executions back
    it: the successes confirmed the source's earlier word, and the source now withdraws it (a
    source's newest say is its belief). Executions made before the statement cannot contradict
    a change the statement reports. A value the source has stated repeatedly is its standing
    belief: one different statement is a one-off (:class:`OneOffHold`). Only a person's
    (``user.*``) statements revise this way; the application and the user's extracted text
    restate a change as before.
    """
    if held is None or len(stale) != 1 or held[0] != stale[0].value_id:
        return False
    if source not in ledger.runs or standing(ledger, source, stale[0]) > 1:
        return False  # a person's revision only (OneOffHold tracks them); not a standing belief
    return all(
        label in (source, OUTCOMES) or support <= _EPS
        for label, (support, _) in stale[0].provenance.items()
    )


def blocked_challengers(state: KeyState, served: Precedent) -> list[Precedent]:
    """The Hypotheses of a single-valued key held back although better supported than ``served``.

    A Hypothesis whose validity or weighted support exceeds the served value's is one a rule
    blocks (a veto, proportionate displacement, a trial to run): reads mark the key
    ``contested`` and list it among the alternatives.

    Example:
        >>> ks = KeyState("default", "k")
        >>> ks.precedents["a"] = Precedent("default", "k", "a", "a", "pa", Lifecycle.ACTIVE,
        ...                                validity=0.6, weighted_support=1.0)
        >>> ks.precedents["b"] = Precedent("default", "k", "b", "b", "pb", validity=0.7,
        ...                                weighted_support=1.5)
        >>> [p.value for p in blocked_challengers(ks, ks.precedents["a"])]
        ['b']
    """
    return [
        q
        for q in state.precedents.values()
        if q.state is Lifecycle.HYPOTHESIS
        and q is not served
        and (
            q.validity > served.validity + _EPS
            or q.weighted_support > served.weighted_support + _EPS
        )
    ]


def change_rules(
    *,
    track_conflict: bool,
    revise_own: bool,
    sources: Sequence[str],
    statements: int,
    vetoes: Sequence[Veto],
    gate: TrialGate | None = None,
) -> list[SourceRevision | ChangePoint]:
    """The record rules of a policy's change switches, in the order they apply."""
    out: list[SourceRevision | ChangePoint] = []
    if revise_own:
        out.append(SourceRevision(track_conflict))
    if sources:
        out.append(ChangePoint(tuple(sources), statements, tuple(vetoes), gate))
    return out
