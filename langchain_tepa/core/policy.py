"""`LifecyclePolicy`: every threshold of the lifecycle, and the paper's baselines as presets.

All methods compared in the benchmarks (TEPA and its baselines) are policies over one fold, one
storage and one retrieval path, so the comparisons are fair by construction.

The default (``LifecyclePolicy()``) is the key test, ``tepa-key``; the paper's rules are the
preset ``tepa-rev``. The fields and their checks are
:class:`~langchain_tepa.core.policy_fields.PolicyFields`; the rules a policy stands for,
:func:`~langchain_tepa.core.policy_rules.rules_for` (both importable from here too).

Example:
    >>> policy = LifecyclePolicy()                 # the key test (tepa-key)
    >>> policy.name, policy.revoke_keyed, policy.failures_to_revoke
    ('tepa-key', True, None)
    >>> LifecyclePolicy.preset("tepa-rev").failures_to_revoke   # the paper's rules
    3
    >>> LifecyclePolicy.preset("append-only").revoke_posterior
    False
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from langchain_tepa.core.errors import PolicyError
from langchain_tepa.core.policy_fields import DEFAULT_POLICY, AnswerBy, PolicyFields, PromotionMode
from langchain_tepa.core.policy_rules import rules_for
from langchain_tepa.core.rules import RuleSet

__all__ = [
    "DEFAULT_POLICY",
    "POLICY_NAMES",
    "AnswerBy",
    "LifecyclePolicy",
    "PromotionMode",
    "rules_for",
]


POLICY_NAMES: tuple[str, ...] = (
    "no-memory",
    "append-only",
    "append-conflict",
    "lww",
    "lww-outcome",
    "temporal",
    "reactive",
    "oracle-reset",
    "oracle-rev",
    "tepa-norev",
    "tepa-rev",
    "tepa-cd",
    "tepa-key",
    "tepa-full",
    "tepa-full-trials",
)
"""Every preset: the paper's methods, the stronger baselines of the benchmarks, ``tepa-cd``,
``tepa-key`` and ``tepa-full-trials`` (the paper's TEPA-Full, whose trials always run)."""

_PAPER_RULE: dict[str, Any] = {
    "revoke_recent": True,
    "revoke_keyed": False,
    "revive_fresh": True,
    "window": 3,
    "revise_own": False,
    "change_sources": (),
    "key_budgets": False,
}
"""The paper's recent-window rule and its counting, which every preset but ``tepa-key`` keeps,
and the change rules (issue 28), which only the default has: the fields in which ``tepa-rev``
differs from the default ``LifecyclePolicy()``."""


@dataclass(frozen=True)
class LifecyclePolicy(PolicyFields):
    """Thresholds and switches of the precedent lifecycle.

    The defaults are the key test, ``tepa-key``: TEPA-Rev's posterior rule with the key test
    (``revoke_keyed``) in place of the paper's recent-window rule, chosen by the criteria set
    before the benchmarks' 20-seed grid (docs/benchmarks.md, "Does the key test win?"). The
    paper's rules are ``LifecyclePolicy.preset("tepa-rev")``, which differs from the default in
    ``revoke_recent``, ``revoke_keyed``, ``revive_fresh`` and ``window`` only. Each default and
    its reason:

    Attributes:
        name: A label for reports (``"tepa-key"``).
        a0: Prior pseudo-successes of Beta(a0, b0). 1: the uniform prior, no opinion before
            evidence.
        b0: Prior pseudo-failures. 1, for the same reason.
        n_min: Observations (support + conflict) before the posterior may revoke. 3: with the
            uniform prior, one support against two conflicts (validity 0.40) is the first point
            at which the evidence leans against a value by more than one observation.
        theta_rev: Revoke when the posterior validity falls below this. 0.45: a value is dropped
            once it is more likely wrong than right, with a margin under 0.5 so that a tie
            (validity 0.50) does not revoke.
        window: Outcomes each precedent keeps (its recent-outcome window). 40 (the key test):
            the outcome history from which the key test learns its key's noise and how long
            its failure runs last. ``tepa-rev`` keeps 3, the paper's window: a drift shows
            within a few actions.
        w_min: Outcomes the window needs before the recent-window rule (``tepa-rev``) may
            revoke. 3: a full window, so a single glitch (one failure among three) never
            revokes.
        theta_rec: The recent-window rule (``tepa-rev``): revoke when the recent success rate
            is below this. 0.34: fewer than one
            success in three recent outcomes (so two consecutive failures revoke a value that was
            working, and one failure alone does not).
        theta_pro: Promote a Hypothesis when its validity exceeds this. 0.6: above the revocation
            threshold (hysteresis, so a value does not flap) and reached by one uncontested
            observation under the uniform prior (2/3), so an uncontradicted fact is usable at once.
        n_pro: Support a Hypothesis needs before posterior promotion. 1.
        promotion: ``"posterior"`` (TEPA-Rev), ``"immediate"`` (baselines: every value is
            Active when first supported) or ``"trials"`` (TEPA-Full: only trial-by-execution or a
            manual ``promote`` makes a value Active).
        revoke_posterior: Apply the posterior rule.
        revoke_recent: Apply the recent-window rule (the paper's; ``tepa-rev`` and the other
            TEPA presets but ``tepa-key``). Off by default: the key test replaces it.
        revoke_on_first_failure: Reactive forgetting: revoke a value at its first failure (or
            at its ``reactive_failures``-th failure in a row) and at its first contradiction.
        reactive_failures: Consecutive failed outcomes that make reactive forgetting revoke a
            value. 1: the paper's baseline (the first failure); larger values are the tuned
            variants of the benchmarks. At most ``window`` (the outcomes a precedent keeps).
        supersede: Last-write-wins: a newly supported value revokes the other values of the key.
        supersede_on_failure: With ``supersede``: a failed outcome also revokes its value (it is
            superseded by the outcome that contradicts it; the ``lww-outcome`` baseline).
        temporal_window: Sliding window: a value whose last support is more than this many
            evidence records of its key ago expires. ``None`` disables it.
        honour_boundary: Oracle reset: a phase-boundary record revokes every value in scope.
        track_conflict: Count conflicts (contradicting assertions, failures, other values'
            successes). Off for the append-only family, which only accumulates.
        retrieval_enabled: ``False`` for the no-memory baseline: evidence is kept, nothing is
            retrieved.
        multi_valued: Treat every key as multi-valued (values do not conflict with each other).
        multi_valued_prefixes: Key prefixes that are multi-valued (``("user.allergies",)``).
        normalize_values: Compare string values case-insensitively with collapsed whitespace.
        revive_fresh: When a Revoked value gathers support again it returns as a Hypothesis
            with fresh counts (its old counts stay in the audit): the evidence before the drift
            that revoked it says nothing about the regime after it. Its recent-outcome window
            is restarted only when a successful outcome revives it: an assertion does not
            erase what acting on the value recently gave. On in ``tepa-rev`` and the other
            presets; off by default, because the key test's count rule restarts a revived
            value's counts itself and keeps its outcome history when it came back from a
            glitch.
        key_match_threshold: Cosine similarity above which a new key is mapped onto an existing
            key of the same namespace (key resolution in ``add_texts``). 0.9: near-paraphrases
            only.
        outcome_veto: Poisoning guard, on for the TEPA policies. While a value's own recent
            outcomes fail (at least ``w_min`` of them, success rate below ``theta_rec``),
            observations can neither revive nor promote it; only a successful outcome (or
            ``promote`` by hand) can. Without it, one source repeating a value whose actions keep
            failing re-promotes it after every revocation. Off for the baselines, which the
            paper defines without it. With ``revoke_change`` the guard is the change test:
            observations cannot revive or promote a value while its own outcomes show a drop;
            with ``revoke_keyed`` (the default) they cannot while its last outcome failed,
            unless it was a glitch or a source with change authority restates a claimed value
            whose window holds more successes than failures
            (:class:`~langchain_tepa.core.change.LastOutcomeVeto`).
        revoke_change: The change rule (preset ``tepa-cd``): revoke a value when its own outcome
            history shows a drop of its success rate, by Bayesian change-point detection
            (:func:`langchain_tepa.core.change.change_odds`). The history is the recent window, so
            this preset keeps a longer one (``window`` 24).
        change_hazard: Prior probability of a change at each outcome of a value. 0.05: about one
            change in twenty actions, the most frequent drift the benchmarks run.
        change_max_run: The longest recent run of outcomes tested as "after the change". 6: a
            drop that old has long been acted on.
        change_threshold: Revoke when the posterior odds of a drop reach this. 1: a change is
            more likely than not.
        revoke_keyed: The key test (the default, preset ``tepa-key``,
            :class:`~langchain_tepa.core.change.KeyChangeRevocation`): revoke an Active value when
            a Bayesian change test on its outcomes, run with the rates of its *key* (how often a
            working value of the key succeeds, pooled over all its values; how often the key's
            working value has changed; how long its failure runs last when a value comes back),
            gives a change posterior odds of ``keyed_odds``. The preset keeps 40 outcomes per
            value and runs with ``revive_fresh=False``: its count rule restarts a revived value's
            counts itself and keeps its outcome history unless another value was promoted
            meanwhile (so the key learns its glitch bursts). Its poisoning guard: observations
            cannot revive or promote a value whose last outcome failed.
        keyed_working: Prior success rate of a working value of a key. 0.8: between the precise
            and the noisy tools the benchmarks run, worth ``keyed_weight`` outcomes.
        keyed_failing: Success rate of a value that stopped working. 0.2: a broken tool mostly
            fails; a success of the value lowers the odds of a change by ``working / 0.2``.
        keyed_hazard: Prior changes per record of a key. 0.02: one change in fifty records until
            the key's own changes say otherwise (the estimate is ``(changes + 1) / (records +
            1 / keyed_hazard)``).
        keyed_weight: Weight of ``keyed_working``, in outcomes. 10: a key's first dozen outcomes
            move the estimate halfway.
        keyed_odds: Revoke when the posterior odds of a change reach this. 1: a change is more
            likely than not (tuned in the benchmarks' grid).
        trust: How much each source's assertions count, the cap per source family and who may
            correct (:class:`~langchain_tepa.core.trust.TrustPolicy`; the defaults and the reason
            for each are in :data:`~langchain_tepa.core.trust.DEFAULT_SOURCES`). On for the TEPA
            policies: one source repeating a value counts with diminishing weight (at most twice
            one assertion per key per day), a ``web`` page at most 0.4, outcomes in full, so one
            untrusted source can neither inject a value nor erase a verified one, and a trusted
            correction supersedes in one step. ``None`` (the baselines, as the paper defines them):
            every record counts 1 and corrections are plain assertions.
        answer_by: What the answer of a single-valued key is chosen by, and what a challenger
            must beat to be promoted over an Active value. ``"validity"`` (every preset): the
            highest posterior mean, ties going to the value a trusted source supported last.
            ``"net_support"``: the greatest weighted support minus weighted conflict, so every
            displacement, outcomes included, takes evidence proportionate to what supports the
            believed value (more than half its net support): the strictest reading, slower to
            follow a real change.
        displace_ratio: With trust and ``answer_by="validity"``: a challenger that only
            assertions back (no successful outcome) displaces a believed value only once its
            weighted support is at least this fraction of the best-supported believed value's.
            0.5: one source's repeated say is worth at most twice one assertion, so it can push
            aside a value stated once or twice, never one that real executions or several
            sources back (a value with five successful outcomes needs assertions worth three);
            a challenger with a successful outcome of its own is compared by validity alone.
        promote_on_outcomes: TEPA-Full (``promotion="trials"``): a Hypothesis whose support
            includes a successful outcome (a real execution) is promoted by the same rule as
            TEPA-Rev's, and only values supported by assertions alone wait for a trial. On: an
            outcome is the evidence a trial would gather. ``False`` is the paper's TEPA-Full.
        revise_own: A source's newest statement about a single-valued key is its current
            belief (:class:`~langchain_tepa.core.changes.SourceRevision`): the support it gave
            the key's other values is withdrawn instead of its statement counting as conflict
            against its own earlier word. On by default (with trust); off in every other preset.
        change_sources: Sources whose plain restatement of a new value is change evidence
            (:class:`~langchain_tepa.core.changes.ChangePoint`): once they have stated it
            ``change_statements`` times with no trusted support or success of the believed
            value since, the believed value is revoked and the new one Active, whatever
            successes the old one earned before. Default: the user, the application and the
            user's own text (:data:`~langchain_tepa.core.changes.CHANGE_SOURCES`); ``()`` (every
            other preset) turns the rule off.
        change_statements: Statements that make a change. 2: one can be a slip.
        key_budgets: Searches (``retrieve``, the retriever) apply the budgets on what a
            source can create (:mod:`langchain_tepa.core.budgets`): keys a source below the
            user created beyond its tier's budget per namespace and day are not searched
            until a more trusted source or an execution supports them, and a look-alike of a
            more trusted result ranks below it. On by default (with trust); off in every other
            preset.
        trial_gate: TEPA-Full (``promotion="trials"``, with trust): the contested cases wait
            for trials instead of the rules (:mod:`langchain_tepa.core.contest`). A value with
            no successful outcome that challenges an Active value with successes, by a plain
            change or a correction, stays a Hypothesis until its trials pass, and a value the
            trials rejected is not revived by assertions until an Active value fails. On in
            ``tepa-full`` (which declares an executor: without one such a change is never
            adopted; its change rules stay off, the trials decide instead), off elsewhere.
            Like the change rules, it needs a trust table (without one it does nothing).
        hold_lower_trust: Who may override whom (:mod:`langchain_tepa.core.precedence`): each
            value has a rank, the highest trust tier of what supports it (a vouched execution
            ranks highest). In a single-valued key a Hypothesis is not promoted while an Active
            value outranks it (held back, shown as contested, until a source of that tier
            states it or an execution of it succeeds), a record adds no weighted conflict to a
            value that outranks its source, and the answer is the Active value of the highest
            rank. On for every preset with a trust table (issue 38: one ``llm.x`` or ``tool.x``
            statement no longer replaced what the user said); it needs a trust table.
    """

    # ------------------------------------------------------------------ derived
    def is_multi_valued(self, key: str) -> bool:
        """Whether values of ``key`` coexist instead of conflicting."""
        if self.multi_valued:
            return True
        return any(key == p or key.startswith(p + ".") for p in self.multi_valued_prefixes)

    @property
    def failures_to_revoke(self) -> int | None:
        """The most consecutive failed outcomes an Active value can survive, plus one.

        Whatever its earlier outcomes, a value is revoked by the recent-window rule (or by
        reactive forgetting) after at most this many consecutive failures (the worst case is a
        window full of successes or an empty one). ``None`` when no such bound holds whatever the
        history: no rule revokes on failures, or only the change rule or the key test does, whose
        answer depends on the history (one or two failures for a precise value or key, more for
        a noisy one).
        """
        if self.revoke_on_first_failure:
            return self.reactive_failures
        if not self.revoke_recent or self.theta_rec <= 0.0:
            return None
        worst = 0
        for wins in range(self.window + 1):  # a window holding `wins` successes
            for m in range(1, self.window + 1):
                kept = min(wins, self.window - m)
                size = min(wins + m, self.window)
                if size >= self.w_min and kept / size < self.theta_rec:
                    worst = max(worst, m)
                    break
            else:
                return None
        return worst

    @functools.cached_property
    def rules(self) -> RuleSet:
        """The policy's rules, by stage (:func:`rules_for`)."""
        return rules_for(self)

    @property
    def uses_trials(self) -> bool:
        """True for TEPA-Full: promotion only through trials (or by hand)."""
        return self.promotion == "trials"

    def to_dict(self) -> dict[str, Any]:
        """The policy as a JSON-serialisable dict."""
        data = asdict(self)
        data["multi_valued_prefixes"] = list(self.multi_valued_prefixes)
        data["change_sources"] = list(self.change_sources)
        data["trust"] = None if self.trust is None else self.trust.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LifecyclePolicy:
        """Rebuild a policy from :meth:`to_dict` output (unknown keys are rejected)."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise PolicyError(f"unknown policy fields: {sorted(unknown)}")
        clean = dict(data)
        if "multi_valued_prefixes" in clean:
            clean["multi_valued_prefixes"] = tuple(clean["multi_valued_prefixes"])
        if "change_sources" in clean:
            clean["change_sources"] = tuple(clean["change_sources"])
        return cls(**clean)

    def with_overrides(self, **overrides: Any) -> LifecyclePolicy:
        """A copy with some fields changed (validated again)."""
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise PolicyError(f"unknown policy fields: {sorted(unknown)}")
        return replace(self, **overrides)

    @classmethod
    def preset(cls, name: str, /, **overrides: Any) -> LifecyclePolicy:
        """A method by name (see :data:`POLICY_NAMES`).

        The paper's methods: ``no-memory``, ``append-only`` (accumulates support, never shows a
        failure), ``lww`` (a newly asserted value supersedes the others), ``temporal`` (a value
        expires ``temporal_window`` records after its last support), ``reactive`` (revoke on the
        first failure or contradiction), ``oracle-reset`` (append-only told each change: the
        failure-blind oracle), ``tepa-norev``, ``tepa-rev`` (the paper's rules) and
        ``tepa-full`` (promotion by trials). Stronger baselines: ``append-conflict`` (append-only
        that counts conflicts, so failures show in the validity the agent reads),
        ``lww-outcome`` (last-write-wins that also supersedes a value on a failed outcome) and
        ``oracle-rev`` (TEPA-Rev told each change). And ``tepa-cd``: TEPA-Rev with the
        change-point rule in place of the recent-window rule (``revoke_change``); ``tepa-key`` (the
        library default, ``LifecyclePolicy()``): TEPA-Rev with the key test in place of the
        recent-window rule (``revoke_keyed``);
        ``tepa-full-trials``: the paper's TEPA-Full, in which only trial-by-execution (or a
        manual ``promote``) makes a value Active, even a value that worked on its outcomes
        (``promote_on_outcomes=False``; ``tepa-full`` promotes those without a trial).

        Args:
            name: The preset.
            **overrides: Fields to change on top of the preset.

        Raises:
            PolicyError: For an unknown name or invalid overrides.
        """
        off = {"revoke_posterior": False, "revoke_recent": False}
        paper = {"trust": None}  # the baselines as the paper has them: every record counts 1
        accumulate = {
            "promotion": "immediate",
            "track_conflict": False,
            "outcome_veto": False,
            **off,
            **paper,
        }
        rev = _PAPER_RULE  # every preset but tepa-key keeps the paper's window rule
        presets: dict[str, dict[str, Any]] = {
            "no-memory": {**rev, "retrieval_enabled": False, **accumulate},
            "append-only": {**rev, **accumulate},
            "append-conflict": {**rev, **accumulate, "track_conflict": True},
            "lww": {**rev, **accumulate, "supersede": True},
            "lww-outcome": {**rev, **accumulate, "supersede": True, "supersede_on_failure": True},
            "temporal": {**rev, **accumulate, "temporal_window": 10},
            "reactive": {
                **rev,
                "promotion": "immediate",
                "revoke_on_first_failure": True,
                "outcome_veto": False,
                **off,
                **paper,
            },
            "oracle-reset": {**rev, **accumulate, "honour_boundary": True},
            "oracle-rev": {**rev, "honour_boundary": True},
            "tepa-norev": {**rev, **off},
            "tepa-rev": dict(rev),
            "tepa-cd": {**rev, "revoke_recent": False, "revoke_change": True, "window": 24},
            "tepa-key": {},  # the default
            "tepa-full": {**rev, "promotion": "trials", "trial_gate": True},
            "tepa-full-trials": {**rev, "promotion": "trials", "promote_on_outcomes": False},
        }
        if not isinstance(name, str) or name not in presets:
            raise PolicyError(f"unknown policy {name!r}; choose one of {', '.join(POLICY_NAMES)}")
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise PolicyError(f"unknown policy fields: {sorted(unknown)}")
        return cls(**{"name": name, **presets[name], **overrides})
