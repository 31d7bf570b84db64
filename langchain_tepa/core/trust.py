"""Sources with declared trust: how much an assertion counts, and who may correct a value.

Every observation has a ``source`` (``"user"``, ``"tool.search"``, ``"web"``, ``None`` for the
application's own calls). A :class:`TrustPolicy` maps sources to a :class:`SourceTrust` entry
(exact names, ``prefix.*`` patterns that match ``prefix`` and everything below it, and ``*`` for
any other source) and weighs each assertion before the fold counts it:

* an assertion counts ``weight`` (a ``web`` page 0.2, the user 1.0);
* the same source repeating the same value of the same key within ``window_s`` counts with
  diminishing weight: the ``n``-th repeat in a row counts ``weight * repeat_decay ** n``, so one
  source's repeated say is worth at most ``weight / (1 - repeat_decay)`` (2 with the defaults);
  a source that asserts another value starts a new run, so its latest say counts in full;
* all sources of one entry together count at most ``cap`` per key per window (``None``: no cap),
  so a crowd of made-up ``web.*`` names is one voice;
* outcomes (someone acted on the value and saw it work or fail) count in full
  (``outcome_weight``) when their recorder is trusted to vouch for an execution (a source of
  tier 2 or 3: the application, the user, the stores, ``agent``, ``tool.*``;
  :mod:`langchain_tepa.core.precedence`); one recorded by another source counts as that
  source's say.

The weighted counts are what the posterior uses (``Precedent.weighted_support`` and
``weighted_conflict``); the integer ``support`` and ``conflict`` still count records. Each
precedent's ``provenance`` says where its weighted support and conflict came from.

A source whose entry has ``corrections=True`` may *correct*: an observation it makes with
``metadata={"correction": True}`` (``observe(..., correction=True)``) makes its value Active at
once and revokes the other values of a single-valued key (:class:`Correction`). From any other
source the flag is ignored and the observation counts as a plain assertion.

Example:
    >>> trust = TrustPolicy()
    >>> trust.entry("web.example.org").weight, trust.entry("user").corrections
    (0.2, True)
    >>> trust.entry(None).pattern, trust.entry("someone").pattern
    ('app', '*')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_tepa.core.errors import PolicyError
from langchain_tepa.core.ledger import TrustLedger
from langchain_tepa.core.step import Step
from langchain_tepa.core.types import Lifecycle, Precedent
from langchain_tepa.core.values import finite_number, forbidden_character, safe_repr

__all__ = [
    "APP_SOURCE",
    "DEFAULT_SOURCES",
    "OUTCOMES",
    "Correction",
    "SourceTrust",
    "SupportPromotion",
    "TrustLedger",
    "TrustPolicy",
    "is_correction",
    "provenance_rows",
    "support_from",
]

APP_SOURCE = "app"
"""The label of evidence written without a source (the application's own calls)."""

OUTCOMES = "outcomes"
"""The provenance label of vouched outcomes (executions; :mod:`langchain_tepa.core.precedence`)."""

_EPS = 1e-9


def _check_pattern(pattern: object) -> str:
    if not isinstance(pattern, str) or not pattern or pattern != pattern.strip():
        raise PolicyError(f"a source pattern must be a non-empty string, got {safe_repr(pattern)}")
    bad = forbidden_character(pattern)
    if bad is not None:  # as source names: two patterns that look the same are the same
        raise PolicyError(f"source pattern {safe_repr(pattern)} holds {bad}; remove it")
    if pattern == "*":
        return pattern
    stem = pattern[:-2] if pattern.endswith(".*") else pattern
    if not stem or "*" in stem:
        raise PolicyError(
            f"source pattern {safe_repr(pattern)}: use an exact name ('user'), a prefix "
            "('tool.*', which "
            "matches 'tool' and 'tool.<anything>') or '*' (any other source)"
        )
    return pattern


def _number(name: str, value: object, *, low: float, high: float = math.inf) -> float:
    if not finite_number(value) and not (isinstance(value, float) and math.isinf(value)):
        raise PolicyError(f"{name} must be a number, got {safe_repr(value)}")
    if not low <= value <= high:
        raise PolicyError(f"{name} must be within [{low:g}, {high:g}], got {safe_repr(value)}")
    return float(value)


@dataclass(frozen=True)
class SourceTrust:
    """How much the assertions of one source (or family of sources) count.

    Attributes:
        pattern: ``"user"`` (that source exactly), ``"tool.*"`` (``tool`` and every
            ``tool.<name>``) or ``"*"`` (every source no other entry matches). ``"app"`` is the
            source of evidence written without one.
        weight: What one assertion counts (1.0: a full observation; 0 ignores the source).
        cap: The most all sources of this entry together count per key per window (``None``:
            no cap beyond the diminishing repeats).
        corrections: The source may correct: its observations marked as corrections supersede
            the other values of a single-valued key at once.
        reason: Why the entry has these settings (shown in the docs and the audit).

    Example:
        >>> tools = SourceTrust("tool.*", 1.0)
        >>> tools.matches("tool"), tools.matches("tool.weather"), tools.matches("tools")
        (True, True, False)
    """

    pattern: str
    weight: float = 1.0
    cap: float | None = None
    corrections: bool = False
    reason: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_pattern(self.pattern)
        _number(f"weight of {self.pattern!r}", self.weight, low=0.0, high=1e6)
        if self.cap is not None:
            _number(f"cap of {self.pattern!r}", self.cap, low=0.0, high=1e6)
        if not isinstance(self.corrections, bool):
            raise PolicyError(f"corrections of {safe_repr(self.pattern)} must be True or False")
        if not isinstance(self.reason, str):
            raise PolicyError(f"reason of {safe_repr(self.pattern)} must be a string")

    @property
    def trusted(self) -> bool:
        """A full-weight source: its support decides ties between equally supported values."""
        return self.weight >= 1.0

    def matches(self, source: str) -> bool:
        """Whether this entry's pattern matches ``source``."""
        if self.pattern == "*":
            return True
        if self.pattern.endswith(".*"):
            stem = self.pattern[:-2]
            return source == stem or source.startswith(stem + ".")
        return source == self.pattern

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "pattern": self.pattern,
            "weight": self.weight,
            "cap": self.cap,
            "corrections": self.corrections,
            "reason": self.reason,
        }


DEFAULT_SOURCES: tuple[SourceTrust, ...] = (
    SourceTrust(
        "user.*",
        1.0,
        None,
        True,
        "the person the memory is about, through a channel the application authenticates: "
        "their word is the truth about themselves, and they may correct it",
    ),
    SourceTrust(
        APP_SOURCE,
        1.0,
        None,
        True,
        "evidence written without a source: the application's own code, which owns the memory",
    ),
    SourceTrust(
        "langgraph-store",
        1.0,
        None,
        True,
        "TEPAStore's puts: the application's graph code; a put is a correction only when marked "
        "(TEPAStore(corrections=True) or put(..., correction=True))",
    ),
    SourceTrust(
        "vectorstore",
        1.0,
        None,
        True,
        "TEPAVectorStore's writes: the application indexing its own documents",
    ),
    SourceTrust(
        "offline-extractor",
        1.0,
        None,
        True,
        "facts the offline extractor read in the user's own text (add_texts without a source); "
        "it marks 'now', 'instead', 'no longer', 'anymore' statements as corrections",
    ),
    SourceTrust(
        "agent",
        1.0,
        None,
        False,
        "the memory tools' default source: an LLM agent relaying the user, but it also reads "
        "untrusted content (prompt injection), so its writes are evidence and it can neither "
        "correct nor forget what other sources support",
    ),
    SourceTrust(
        "tool.*",
        1.0,
        None,
        False,
        "a tool's output is observed data, but no authority over what the user said",
    ),
    SourceTrust(
        "llm.*",
        0.5,
        2.0,
        False,
        "an LLM extractor's reading can be wrong (a hallucinated fact): half weight, and at "
        "most two full assertions per key per window",
    ),
    SourceTrust(
        "web.*",
        0.2,
        0.4,
        False,
        "content anyone can write: alone it can never make a value Active (0.4 is under a full "
        "assertion, n_pro) nor revoke one (its conflict stays under n_min)",
    ),
    SourceTrust(
        "*",
        1.0,
        2.0,
        False,
        "undeclared sources: a full assertion each (an application that names its own "
        "components keeps working), but all of them together at most two per key per window, "
        "so a crowd of made-up names is one voice",
    ),
)
"""The default trust table (see :class:`TrustPolicy`); each entry says why it has its values."""

_FALLBACK = SourceTrust("*", 1.0, None, False, "no '*' entry declared: undeclared sources count 1")


@dataclass(frozen=True)
class TrustPolicy:
    """The trust table and the rules for repeats, caps and outcomes (see the module docstring).

    Attributes:
        sources: The entries. Each source takes the entry of its exact name, else of the
            longest ``prefix.*`` pattern that matches it, else ``*`` (when no ``*`` is declared,
            undeclared sources count 1 with no cap). Default: :data:`DEFAULT_SOURCES`.
        repeat_decay: The ``n``-th repeat in a row of a value by one source (same key, within
            the window, no other value asserted by that source in between) counts
            ``repeat_decay ** n`` of the source's weight. 0.5: one source's repeated say is
            worth at most twice its weight, so a value it put a thousand times is displaced by
            its latest put of another value as one put twice would be; 1 turns diminishing
            repeats off.
        window_s: The window of repeats and caps, in seconds of the memory's clock. A day: a
            user restating a preference tomorrow is new evidence that it still holds; repeating
            it within the day adds little. ``math.inf``: the whole history.
        outcome_weight: What an outcome counts. 1: outcomes are real executions and count in
            full (those a recorder trusted to vouch reported; another source's report counts
            as its say: :func:`~langchain_tepa.core.precedence.vouches`).

    Example:
        >>> TrustPolicy(repeat_decay=1.0).entry("web").cap
        0.4
        >>> TrustPolicy(sources=(SourceTrust("web", 0.0),)).entry("user").weight
        1.0
    """

    sources: tuple[SourceTrust, ...] = DEFAULT_SOURCES
    repeat_decay: float = 0.5
    window_s: float = 86400.0
    outcome_weight: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.sources, tuple) or not all(
            isinstance(s, SourceTrust) for s in self.sources
        ):
            raise PolicyError("trust sources must be a tuple of SourceTrust entries")
        patterns = [s.pattern for s in self.sources]
        if len(set(patterns)) != len(patterns):
            dup = sorted({p for p in patterns if patterns.count(p) > 1})
            raise PolicyError(f"trust sources declare {dup} more than once; keep one entry each")
        _number("repeat_decay", self.repeat_decay, low=0.0, high=1.0)
        _number("window_s", self.window_s, low=1e-9)
        _number("outcome_weight", self.outcome_weight, low=0.0, high=1e6)
        if self.outcome_weight <= 0.0:
            raise PolicyError("outcome_weight must be > 0: outcomes are what revokes a value")

    @functools.cached_property
    def _exact(self) -> dict[str, SourceTrust]:
        return {s.pattern: s for s in self.sources if not s.pattern.endswith("*")}

    @functools.cached_property
    def _prefixes(self) -> list[SourceTrust]:
        found = [s for s in self.sources if s.pattern.endswith(".*")]
        return sorted(found, key=lambda s: -len(s.pattern))

    @functools.cached_property
    def _default(self) -> SourceTrust:
        return next((s for s in self.sources if s.pattern == "*"), _FALLBACK)

    @functools.cached_property
    def _seen(self) -> dict[str, SourceTrust]:
        return {}

    def entry(self, source: str | None) -> SourceTrust:
        """The entry that weighs ``source`` (``None`` is the application: ``"app"``)."""
        return self._entry(source if source else APP_SOURCE)

    def _entry(self, name: str) -> SourceTrust:
        found = self._seen.get(name)
        if found is not None:
            return found
        found = self._exact.get(name)
        if found is None:
            found = next((s for s in self._prefixes if s.matches(name)), self._default)
        if len(self._seen) < 4096:
            self._seen[name] = found
        return found

    def may_correct(self, source: str | None) -> bool:
        """Whether ``source`` may correct (its entry has ``corrections=True``)."""
        return self.entry(source).corrections

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (:meth:`from_dict` is its inverse)."""
        return {
            "sources": [s.to_dict() for s in self.sources],
            "repeat_decay": self.repeat_decay,
            "window_s": self.window_s,
            "outcome_weight": self.outcome_weight,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrustPolicy:
        """Rebuild a trust policy from :meth:`to_dict` output.

        Raises:
            PolicyError: For unknown fields or invalid entries.
        """
        if not isinstance(data, Mapping):
            raise PolicyError(f"trust must be a dict or a TrustPolicy, got {type(data).__name__}")
        known = {"sources", "repeat_decay", "window_s", "outcome_weight"}
        unknown = set(data) - known
        if unknown:
            raise PolicyError(f"unknown trust fields: {sorted(unknown)}")
        clean = dict(data)
        if "sources" in clean:
            entries = []
            for s in clean["sources"]:
                if isinstance(s, SourceTrust):
                    entries.append(s)
                elif isinstance(s, Mapping):
                    extra = set(s) - {"pattern", "weight", "cap", "corrections", "reason"}
                    if extra:
                        raise PolicyError(f"unknown source trust fields: {sorted(extra)}")
                    entries.append(SourceTrust(**s))
                else:
                    raise PolicyError(f"a trust source must be a dict, got {safe_repr(s)}")
            clean["sources"] = tuple(entries)
        return cls(**clean)

    # ------------------------------------------------------------------ weighing
    def weigh(self, ledger: TrustLedger, source: str | None, value_id: str, time: float) -> float:
        """What one assertion counts, after repeats and the cap; records it in ``ledger``."""
        name = source if source else APP_SOURCE
        entry = self._entry(name)
        start = time - self.window_s
        if ledger.last.get(name) != value_id:  # the source changed its say: a new run
            ledger.repeats.pop((name, ledger.last.get(name, "")), None)
            ledger.repeats.pop((name, value_id), None)
            ledger.last[name] = value_id
        times = ledger.repeats.setdefault((name, value_id), [])
        _prune(times, start)
        weight = entry.weight * self.repeat_decay ** len(times) if times else entry.weight
        times.append(time)
        if entry.cap is not None:
            used = ledger.used.setdefault(entry.pattern, [])
            while used and used[0][0] <= start:
                used.pop(0)
            spent = sum(w for _, w in used)
            weight = max(0.0, min(weight, entry.cap - spent))
            used.append((time, weight))
        return weight


def _prune(times: list[float], start: float) -> None:
    drop = 0
    for t in times:
        if t > start:
            break
        drop += 1
    if drop:
        del times[:drop]


def is_correction(metadata: Mapping[str, Any]) -> bool:
    """Whether evidence metadata marks an observation as a correction (``correction: True``)."""
    return metadata.get("correction") is True


def _shown(value: Any) -> str:
    from langchain_tepa.core.values import canonical_json

    return repr(value) if isinstance(value, str) else canonical_json(value)


# ---------------------------------------------------------------------- rules
@dataclass(frozen=True)
class Correction:
    """A correction from a source that may correct supersedes in one step.

    The corrected value becomes Active (when it was not, it starts a fresh epoch of counts:
    only the correction counts, its earlier support and conflict belong to before the
    correction) and, in a single-valued key, every other live value is revoked with a reason
    that names the correction and its source. A correction overrules assertions, not
    executions: while the corrected value's own recent outcomes fail (the policy's outcome
    veto), or from a source that may not correct, it is a plain assertion (the fold does not set
    ``step.correction`` then), and it never erases the value's recent outcomes.

    Example:
        >>> Correction().apply.__doc__.split(".")[0]
        'Supersede the other values when the record is a correction'
    """

    def apply(self, step: Step) -> None:
        """Supersede the other values when the record is a correction."""
        if not step.correction:
            return
        target = step.target
        assert target is not None
        who = step.label
        if target.state is not Lifecycle.ACTIVE:
            target.reset_counts()
            target.support = 1
            target.weighted_support = step.weight
            target.provenance[who] = [step.weight, 0.0]
            step.move(target, Lifecycle.ACTIVE, f"promoted: correction from {who}")
        if not step.single:
            return
        for q in step.others:
            if q.state is not Lifecycle.REVOKED:
                step.touch(q)
                step.move(
                    q,
                    Lifecycle.REVOKED,
                    f"revoked: corrected by {who} to {_shown(target.value)} (correction)",
                )


@dataclass(frozen=True)
class SupportPromotion:
    """Promotion of the trust presets: believable alone, or better than the believed value.

    A Hypothesis needs ``n_pro`` supporting records and, with ``require_outcome`` (TEPA-Full),
    support from at least one successful outcome (assertions alone wait for a trial). Then:

    * with no Active rival (or in a multi-valued key): promoted when its validity reaches
      ``theta_pro`` (inclusive: a value at exactly 0.60 is believed). Under the default trust
      table one ``web`` source counts at most 0.4 per key per window, which reaches 0.58 at best:
      an untrusted source alone never makes a value Active;
    * with Active rivals in a single-valued key, by validity (``by_net=False``, the default):
      promoted when its validity reaches ``theta_pro`` and exceeds every rival's, **and** either
      it has succeeded in at least ``displace_outcomes`` real executions (2: one success can be
      a glitch, as one failure never revokes) or its weighted support is at least
      ``displace_ratio`` times the best-supported rival's (proportionate displacement: a value
      that assertions back cannot push aside one that more evidence backs, however many
      times one source repeats it); by net support (``by_net=True``): promoted when its net
      support (weighted support minus weighted conflict) exceeds every rival's.

    The answer of a single-valued key is its Active value with the highest ``standing`` (the
    same measure), ties going to the value a trusted source supported last, so a promoted
    challenger is the answer.

    Example:
        >>> rule = SupportPromotion()
        >>> rule.theta_pro, rule.displace_ratio, rule.displace_outcomes
        (0.6, 0.5, 2)
    """

    theta_pro: float = 0.6
    n_pro: int = 1
    require_outcome: bool = False
    by_net: bool = False
    displace_ratio: float = 0.5
    displace_outcomes: int = 2

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The promotion reason, or ``None`` to keep ``p`` a Hypothesis."""
        if p.support < self.n_pro:
            return None
        successes = p.provenance.get(OUTCOMES, (0.0, 0.0))[0]
        if self.require_outcome and successes <= 0.0:
            return None
        executed = successes >= self.displace_outcomes - _EPS
        again = "re-promoted" if p.ever_active else "promoted"
        rivals = (
            [
                r
                for r in step.state.precedents.values()
                if r is not p and r.state is Lifecycle.ACTIVE
            ]
            if step.single
            else []
        )
        if not rivals:
            if p.validity >= self.theta_pro - _EPS:
                return _validity_reason(again, p.validity, self.theta_pro)
            return None
        if self.by_net:
            best = max(r.net_support for r in rivals)
            net = p.net_support
            if net > best + _EPS and net > _EPS:
                return f"{again}: net support {net:.2f} > incumbent {best:.2f}"
            return None
        best_validity = max(r.validity for r in rivals)
        if p.validity < self.theta_pro - _EPS or p.validity <= best_validity + _EPS:
            return None
        backing = max(r.weighted_support for r in rivals)
        if not executed and p.weighted_support < self.displace_ratio * backing - _EPS:
            return None
        return (
            f"{again}: validity {p.validity:.2f} >= {self.theta_pro:.2f} and > incumbent "
            f"{best_validity:.2f}"
        )


def _validity_reason(again: str, validity: float, theta: float) -> str:
    """The reason of an uncontested promotion; one string per distinct text.

    A namespace's first touch promotes most of its values with the same few validities:
    the precedents share the reason instead of holding a copy each.
    """
    if validity and theta:  # equal non-zero numbers format alike (0.0 and -0.0 do not)
        return _shared_validity_reason(again, validity, theta)
    return f"{again}: validity {validity:.2f} >= {theta:.2f}"


@functools.lru_cache(maxsize=4096)
def _shared_validity_reason(again: str, validity: float, theta: float) -> str:
    return f"{again}: validity {validity:.2f} >= {theta:.2f}"


def provenance_rows(p: Precedent) -> list[tuple[str, float, float]]:
    """``(label, weighted support, weighted conflict)`` of ``p``, largest first."""
    rows = [(k, v[0], v[1]) for k, v in p.provenance.items()]
    return sorted(rows, key=lambda r: (-(r[1] + r[2]), r[0]))


def support_from(p: Precedent, labels: Sequence[str]) -> float:
    """Weighted support of ``p`` from the given provenance labels."""
    return sum(p.provenance.get(k, (0.0, 0.0))[0] for k in labels)
