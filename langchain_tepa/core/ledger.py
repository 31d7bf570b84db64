"""The trust ledger of a key: what its recent assertions already counted, per source.

Part of a key's :class:`~langchain_tepa.core.types.KeyState`, kept by
:meth:`~langchain_tepa.core.trust.TrustPolicy.weigh` (repeats decay, entries are capped).
Plain data: it imports nothing of the library, so the core types can hold it.

Example:
    >>> ledger = TrustLedger(last={"user": "vegan"})
    >>> copy = ledger.copy()
    >>> copy.last["user"] = "keto"
    >>> ledger.last
    {'user': 'vegan'}
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TrustLedger"]


@dataclass
class TrustLedger:
    """What a key's recent assertions already counted: the state behind repeats and caps.

    Part of a key's :class:`~langchain_tepa.core.types.KeyState`; a deterministic function of
    the key's evidence in fold order, like every count.

    Attributes:
        repeats: ``(source, value identity) -> times`` of that source's current run of
            assertions of that value (within the window).
        used: ``entry pattern -> [(time, weight counted)]`` within the window (capped entries).
        last: ``source -> value identity`` of its last assertion on the key: a source that
            asserts another value starts a new run (its latest say counts in full).
        beliefs: ``source -> (value identity, time of the run's first statement, statements)``:
            each source's current belief about the key and how often it has stated it since
            it last said something else (no window; kept by
            :class:`~langchain_tepa.core.changes.ChangePoint`).
        tried: Value identities with trial results since their last revocation or promotion.
        judged: ``value identity -> time`` of a value revoked after its trials (kept by
            :class:`~langchain_tepa.core.contest.TrialGate`): assertions alone do not revive
            it until an Active value of the key fails or the value itself succeeds.
        suspended: The verdicts an Active value's failure lifted: they stand again when an
            Active value of the key succeeds next (the failure was a glitch, the key's newest
            outcome says its answer works), unless the value was tried again in between.
        runs: ``source -> (value identity, [times], executed, confirmed)``: the value a person
            last stated, the times of their run of statements of it, whether it was executed
            since their last statement, and whether a statement of the run came after such an
            execution (kept by :class:`~langchain_tepa.core.changes.OneOffHold`, issue 39).
        one_off: ``value identity -> (source, time)`` of a value that source stated once
            against the answer it had stated repeatedly: held until it says it again.
        claimed: ``value identity -> time`` of the first assertion of that value by any source
            (kept by :class:`~langchain_tepa.core.changes.ChangePoint`): the failures of a value
            first asserted by a source with change authority came before its claim, and a
            value claimed before its executions revoked it may be restated back
            (:class:`~langchain_tepa.core.change.LastOutcomeVeto`).

    Example:
        >>> from langchain_tepa.core.trust import TrustPolicy
        >>> ledger = TrustLedger()
        >>> [TrustPolicy().weigh(ledger, "user", "vegan", t) for t in (1.0, 2.0, 3.0)]
        [1.0, 0.5, 0.25]
        >>> [TrustPolicy().weigh(ledger, "user", v, 4.0) for v in ("keto", "vegan")]
        [1.0, 1.0]
        >>> [TrustPolicy().weigh(ledger, f"web.{i}", "evil", 4.0) for i in range(3)]
        [0.2, 0.2, 0.0]
        >>> [TrustPolicy().weigh(ledger, f"bot{i}", "evil", 5.0) for i in range(3)]
        [1.0, 1.0, 0.0]
    """

    repeats: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    used: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    last: dict[str, str] = field(default_factory=dict)
    beliefs: dict[str, tuple[str, float, int]] = field(default_factory=dict)
    tried: set[str] = field(default_factory=set)
    judged: dict[str, float] = field(default_factory=dict)
    suspended: dict[str, float] = field(default_factory=dict)
    claimed: dict[str, float] = field(default_factory=dict)
    runs: dict[str, tuple[str, list[float], bool, bool]] = field(default_factory=dict)
    one_off: dict[str, tuple[str, float]] = field(default_factory=dict)

    def copy(self) -> TrustLedger:
        """An independent copy."""
        return TrustLedger(
            {k: list(v) for k, v in self.repeats.items()},
            {k: list(v) for k, v in self.used.items()},
            dict(self.last),
            dict(self.beliefs),
            set(self.tried),
            dict(self.judged),
            dict(self.suspended),
            dict(self.claimed),
            {k: (v[0], list(v[1]), v[2], v[3]) for k, v in self.runs.items()},
            dict(self.one_off),
        )
