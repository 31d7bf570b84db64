"""The preference update stream: simulated users whose preferences change, and glitch.

**Generator.** ``users`` simulated users, each with the profile slots of :data:`SLOTS` (diet,
tone, language, units), four possible values per slot. Each user has a stream of ``sessions``;
a session is about one slot (uniformly at random) and asks for something that depends on the
user's current value of it ("Suggest a dinner recipe for me."). For each (user, slot):

* the initial value is drawn uniformly;
* ``changes`` real changes happen at random sessions of that slot inside the middle
  ``change_window`` of its stream (at least ``gap`` sessions apart): from then on another value
  holds (a user who went vegetarian stays vegetarian);
* ``glitches`` transient glitches happen at other random sessions (not within ``gap`` sessions of
  a change): in that one session the user asks for another value ("just today, something with
  meat"), and the next session the old value holds again.

In a session the user states the value they want in the request with probability ``p_cue``
(and always in a glitch session: that is what makes it a glitch). The agent answers with one
value; the user is satisfied when it is the value wanted in that session. The feedback is
written to memory: every stated value is an observation (``source="user"``), the chosen value
gets an outcome, and a dissatisfied user states the value they wanted as a correction
(``correction=True``, ``source="user"``: one step under the TEPA policies, a plain assertion
under the baselines, which the paper defines without corrections).

**Agent** (the same for every method): a value the user states in this session's request wins;
otherwise the :class:`~tepa_bench.agent.OfflineAgent` rule over the retrieved memory
(highest shown validity at or above 0.50); with neither, it guesses uniformly.

**TEPA-Full.** When the agent is about to rely on memory (the user states no value), the
slot's *contenders* (Hypotheses that could become its answer: :data:`CONTENDERS_ONLY`) first go
through trial-by-execution: supportive, counterfactual and polluted trials judged by
:class:`langchain_tepa.graph.TrialRunner`, a candidate promoted only with at least 60% positive
trials and a supportive success. Values the agent served with success are promoted without
trials (``promote_on_outcomes``), as under TEPA-Rev; ``tepa-full-trials`` (the paper's
TEPA-Full) does not, so every value waits for its trials. The trial executor holds a
:class:`UserChannel` and nothing of the session: each trial serves a value to the user and
observes whether they are satisfied. That is an interaction with the user, so it is
**charged**: it counts in the method's interactions and its outcome in the score.

**Phases.** ``overall`` (every session), ``after_change`` (the first ``window`` sessions of a slot
after a real change, the change session itself included) and ``after_glitch`` (the first
``window`` sessions of a slot after a glitch, the glitch session excluded: they test whether the
glitch flipped the memory). A phase's success is over every interaction in its sessions (the
answers and the trials). A **flip** (:func:`glitch_flips`) is counted at the first later session
of the slot where the agent serves the glitch value, however late the memory flipped.

**A different experiment from the paper's** (:data:`PAPER_DIFFERENCE`): here users state the
value in ``p_cue`` = 75% of sessions.

Example:
    >>> stream = generate_stream(PreferenceConfig(users=1, sessions=20), seed=0)
    >>> len(stream.sessions)
    20
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from langchain_core.documents import Document

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.agent import OfflineAgent, render_prompt
from tepa_bench.gated import (
    ExecutorGate,
    GateSetting,
    add_seed_arguments,
    gates_for,
    tune_gate,
)
from tepa_bench.regret import TRIAL_COST
from tepa_bench.trials import trial_runner
from tepa_bench.world import Task

__all__ = [
    "PAPER_DIFFERENCE",
    "PHASES",
    "SLOTS",
    "PreferenceAgent",
    "PreferenceConfig",
    "PreferenceStream",
    "Session",
    "SessionRecord",
    "SimulatedUser",
    "UserChannel",
    "generate_stream",
    "glitch_flips",
    "render_session_prompt",
    "run_preference_seed",
    "run_preferences",
    "summarise",
]

PHASES: tuple[str, ...] = ("overall", "after_change", "after_glitch")

SLOTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "diet": ("Suggest a dinner recipe for me.", ("omnivore", "vegetarian", "vegan", "pescatarian")),
    "tone": ("Draft a reply to my landlord.", ("formal", "casual", "concise", "playful")),
    "language": ("Summarise today's news for me.", ("english", "french", "spanish", "german")),
    "units": ("How far is my run today?", ("metric", "imperial", "nautical", "steps")),
}
"""Profile slots: the request that depends on each, and its possible values."""


@dataclass(frozen=True)
class PreferenceConfig:
    """Parameters of the generator (see the module docstring).

    Attributes:
        users: Simulated users.
        sessions: Sessions per user.
        changes: Real changes per (user, slot).
        glitches: Transient glitches per (user, slot).
        p_cue: Probability that a regular session states the wanted value.
        change_window: Fraction of a slot's stream (centred) where changes fall.
        gap: Minimum sessions (of the slot) between events.
        window: Sessions of a slot counted in ``after_change``/``after_glitch``.
    """

    users: int = 8
    sessions: int = 120
    changes: int = 1
    glitches: int = 2
    p_cue: float = 0.75
    change_window: float = 0.5
    gap: int = 4
    window: int = 5

    def __post_init__(self) -> None:
        for name in ("users", "sessions", "gap", "window"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(f"{name} must be an integer >= 1, got {value!r}")
        for name in ("changes", "glitches"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidArgumentError(f"{name} must be an integer >= 0, got {value!r}")
        for name in ("p_cue", "change_window"):
            value = getattr(self, name)
            if not 0.0 <= float(value) <= 1.0:
                raise InvalidArgumentError(f"{name} must be within [0, 1], got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """The parameters as a dict (for the JSON config)."""
        return asdict(self)


@dataclass(frozen=True)
class Session:
    """One session of one user.

    Attributes:
        user: User index.
        slot: The profile slot the request depends on.
        index: Position in the user's stream.
        slot_index: Position among the user's sessions of this slot.
        wanted: The value that satisfies the user in this session.
        current: The user's lasting preference after this session.
        cue: The value the request states, or ``None``.
        event: ``"change"``, ``"glitch"`` or ``None``.
        phases: The phases this session counts in.
    """

    user: int
    slot: str
    index: int
    slot_index: int
    wanted: str
    current: str
    cue: str | None
    event: str | None
    phases: tuple[str, ...]


@dataclass
class PreferenceStream:
    """The sessions of all users, in the order they are played."""

    config: PreferenceConfig
    sessions: list[Session] = field(default_factory=list)


def _event_positions(
    rng: random.Random, n: int, cfg: PreferenceConfig
) -> tuple[list[int], list[int]]:
    lo = int(n * (1 - cfg.change_window) / 2)
    hi = max(lo + 1, int(n * (1 + cfg.change_window) / 2))
    changes: list[int] = []
    for _ in range(cfg.changes):
        options = [i for i in range(max(1, lo), hi) if all(abs(i - c) >= cfg.gap for c in changes)]
        if options:
            changes.append(rng.choice(options))
    glitches: list[int] = []
    for _ in range(cfg.glitches):
        options = [
            i
            for i in range(1, max(1, n - 1))
            if all(abs(i - c) >= cfg.gap for c in changes + glitches)
        ]
        if options:
            glitches.append(rng.choice(options))
    return sorted(changes), sorted(glitches)


def generate_stream(config: PreferenceConfig, seed: int) -> PreferenceStream:
    """Draw the sessions of every user for one seed (deterministic in ``seed``)."""
    rng = random.Random(seed)
    stream = PreferenceStream(config)
    for user in range(config.users):
        slots = [rng.choice(list(SLOTS)) for _ in range(config.sessions)]
        per_slot: dict[str, list[int]] = {}
        for i, slot in enumerate(slots):
            per_slot.setdefault(slot, []).append(i)
        plan: dict[int, Session] = {}
        for slot, positions in per_slot.items():
            values = SLOTS[slot][1]
            current = rng.choice(values)
            changes, glitches = _event_positions(rng, len(positions), config)
            since_change = since_glitch = None
            for j, pos in enumerate(positions):
                event = None
                wanted = current
                if j in changes:
                    current = rng.choice([v for v in values if v != current])
                    wanted = current
                    event = "change"
                    since_change = 0
                elif j in glitches:
                    wanted = rng.choice([v for v in values if v != current])
                    event = "glitch"
                    since_glitch = -1
                phases = ["overall"]
                if since_change is not None and since_change < config.window:
                    phases.append("after_change")
                if since_glitch is not None and 0 <= since_glitch < config.window:
                    phases.append("after_glitch")
                cue = wanted if event == "glitch" or rng.random() < config.p_cue else None
                plan[pos] = Session(user, slot, pos, j, wanted, current, cue, event, tuple(phases))
                if since_change is not None:
                    since_change += 1
                if since_glitch is not None:
                    since_glitch += 1
        stream.sessions.extend(plan[i] for i in range(config.sessions))
    return stream


def render_session_prompt(session: Session, documents: Sequence[Document]) -> str:
    """The prompt of a session: the drift prompt plus what the user says in this request."""
    request, values = SLOTS[session.slot]
    said = f"I want it {session.cue}." if session.cue else ""
    task = Task(key=session.slot, text=f"{request} {said}".strip(), actions=values)
    prompt = render_prompt(task, documents)
    if session.cue:
        prompt += f"\nUser says: {session.cue}"
    return prompt


class PreferenceAgent:
    """The session agent: the user's words in this request win, then memory, then a guess.

    Example:
        >>> s = Session(0, "diet", 0, 0, "vegan", "vegan", "vegan", None, ("overall",))
        >>> PreferenceAgent(seed=0).choose(render_session_prompt(s, []))
        'vegan'
    """

    def __init__(self, seed: int = 0, reader: Callable[[str], str] | None = None) -> None:
        self._offline = OfflineAgent(seed=seed)
        self._reader = reader

    def choose(self, prompt: str) -> str:
        """Pick a value from the prompt's text."""
        for line in reversed(prompt.splitlines()):
            if line.startswith("User says: "):
                return line.removeprefix("User says: ").strip()
        if self._reader is not None:
            return self._reader(prompt)
        return self._offline.choose(prompt)


# ---------------------------------------------------------------------- running
PAPER_PREFERENCES = {"append-only": 0.138, "no-memory": 0.837, "tepa-full": 0.910}
"""The paper's overall success rates on its preference stream (a different stream: see
:data:`PAPER_DIFFERENCE`)."""

PAPER_DIFFERENCE = (
    "a different experiment from the paper's: here users state the value they want in "
    "p_cue = 75% of sessions and the agent follows their words, so stale memory only hurts in "
    "the other quarter (the paper's append-only collapses to 0.138; ours cannot)"
)

RETRIEVE_K = 4

DECLARED_COST = TRIAL_COST["preferences"][0]
"""The world's declared trial cost, told to TEPA-Full's runner (issue 39)."""

CONTENDERS_ONLY = True
"""TEPA-Full tests only the Hypotheses that could become the slot's answer (the trial runner's
``contenders_only``): a value the answer outweighs would only be served to be turned down, and
every trial is a charged interaction. Tests set it to ``False`` to force the trial path."""


@dataclass
class SessionRecord:
    """What happened in one session of one run (for phases, curves and flips).

    Example:
        >>> r = SessionRecord(True, ("overall",), 0, None, trials=[False, True])
        >>> r.interactions, r.successes
        (3, 2)

    Attributes:
        success: The agent's answer satisfied the user.
        phases: The phases the session counts in.
        slot_index: Position among the user's sessions of this slot.
        event: ``"change"``, ``"glitch"`` or ``None``.
        user: User index.
        slot: The slot.
        served: The value the agent answered with.
        cued: The user stated the value in this request.
        wanted: The value that satisfied the user (for glitch sessions: the glitch value).
        held: For glitch sessions: the memory held the user's lasting value just before.
        trials: Outcomes of the TEPA-Full trials run in this session (charged interactions).
        trial_values: The values those trials served.
    """

    success: bool
    phases: tuple[str, ...]
    slot_index: int
    event: str | None
    user: int = 0
    slot: str = ""
    served: str = ""
    cued: bool = False
    wanted: str = ""
    held: bool = False
    trials: list[bool] = field(default_factory=list)
    trial_values: list[str] = field(default_factory=list)

    @property
    def interactions(self) -> int:
        """The answer plus the trials."""
        return 1 + len(self.trials)

    @property
    def successes(self) -> int:
        """Satisfied interactions (the answer and the trials)."""
        return int(self.success) + sum(self.trials)


class SimulatedUser:
    """The user of one session at a time: it only says whether a served value satisfies them.

    What they want in the current session is private; the runner moves the user to the next
    session (:meth:`begin`). A trial executor holds a :class:`UserChannel`, never this object.

    Example:
        >>> user = SimulatedUser()
        >>> user.begin(Session(0, "tone", 3, 1, "formal", "casual", None, "glitch", ("overall",)))
        >>> user.serve("casual"), user.serve("formal")
        (False, True)
    """

    def __init__(self) -> None:
        self.__wanted: str | None = None

    def begin(self, session: Session) -> None:
        """The next session starts (called by the runner only)."""
        self.__wanted = session.wanted

    def serve(self, value: str) -> bool:
        """Serve ``value``; whether it satisfies the user in this session."""
        return value == self.__wanted


class UserChannel:
    """What TEPA-Full's trial executor may do: serve a value to the user and see the reaction.

    Every serve is an interaction with the user, charged to the method: it is logged and its
    outcome counts in the score.

    Example:
        >>> user = SimulatedUser()
        >>> user.begin(Session(0, "diet", 0, 0, "vegan", "vegan", None, None, ("overall",)))
        >>> channel = UserChannel(user)
        >>> channel.serve("vegan"), channel.served
        (True, [('vegan', True)])
    """

    __slots__ = ("_serve", "served")

    def __init__(self, user: SimulatedUser) -> None:
        # the user is captured by a function, never stored on the channel (issue 28): walking
        # the channel's attributes reaches no session
        self._serve: Callable[[str], bool] = lambda value: user.serve(value)
        self.served: list[tuple[str, bool]] = []

    def serve(self, value: str) -> bool:
        """Serve ``value`` now (one charged interaction)."""
        ok = self._serve(value)
        self.served.append((value, ok))
        return ok


def _executor(channel: UserChannel, rng: random.Random) -> Callable[[Any], bool]:
    """The trial executor: serve the value the trial's view gives the slot, and observe.

    With no value in the view the agent guesses uniformly, as it does without evidence. The
    slot comes from the trial's key; nothing of the session is read.
    """

    def execute(trial: Any) -> bool:
        values = SLOTS[trial.key][1]
        value = trial.value if trial.value in values else rng.choice(values)
        return channel.serve(value)

    return execute


def run_preference_seed(
    method: str,
    seed: int,
    config: PreferenceConfig,
    *,
    storage: str = "memory",
    reader: Callable[[str], str] | None = None,
    overrides: dict[str, Any] | None = None,
    label: str | None = None,
    gate: GateSetting | None = None,
) -> dict[str, Any]:
    """Play one seed's stream with one method; return per-session records and counters.

    ``overrides`` are policy fields set on top of the preset (a tuned variant, reported as
    ``label``). ``gate``: a trial-gated baseline's setting (issue 39; ``method`` is then its
    name): before the agent relies on memory, a value it would serve that nobody acted on since
    it was said is served to the user as a trial first, charged as TEPA-Full's trials are.
    """
    import itertools
    import shutil
    import tempfile
    import time

    from langchain_tepa.core.policy import LifecyclePolicy
    from langchain_tepa.core.types import Lifecycle
    from langchain_tepa.embeddings import HashingEmbeddings
    from langchain_tepa.memory import TEPAMemory

    stream = generate_stream(config, seed)
    tick = itertools.count(1)
    folder = tempfile.mkdtemp(prefix="tepa-pref-") if storage == "chroma" else None
    policy = (
        gate.policy() if gate is not None else LifecyclePolicy.preset(method, **(overrides or {}))
    )
    kwargs: dict[str, Any] = {
        "embeddings": HashingEmbeddings(),
        "policy": policy,
        "clock": lambda: float(next(tick)),
    }
    memory = TEPAMemory.from_path(folder, **kwargs) if folder else TEPAMemory.in_memory(**kwargs)
    agent = PreferenceAgent(seed=seed, reader=reader)
    user = SimulatedUser()
    channel = UserChannel(user)
    runner = None
    if policy.uses_trials:
        from langchain_tepa.graph import DefaultTrialBuilder

        explore = random.Random(f"pref-trials-{seed}")
        runner = trial_runner(
            memory,
            _executor(channel, explore),
            DefaultTrialBuilder(context_k=0),
            contenders_only=CONTENDERS_ONLY,
            trial_cost=DECLARED_COST,
        )
    gated = None
    room = {"n": 0}
    if gate is not None:

        def serve(namespace: str | None, key: str, value: Any) -> bool:  # a charged trial
            return channel.serve(value)

        gated = ExecutorGate(memory, gate, serve, room=lambda namespace, key: room["n"])
    records: list[SessionRecord] = []
    adoption: list[int] = []
    pending: dict[tuple[int, str], int] = {}
    start = time.perf_counter()
    # issue 28: trials come out of the same interaction budget as the sessions: each user has
    # as many interactions as sessions, a trial uses one, and the sessions beyond the budget
    # are not played (before, trials were extra interactions no other method had)
    budget: dict[int, int] = {}
    for x in stream.sessions:
        budget[x.user] = budget.get(x.user, 0) + 1
    used: dict[int, int] = dict.fromkeys(budget, 0)
    try:
        for s in stream.sessions:
            ns = f"users.u{s.user}"
            if used[s.user] >= budget[s.user]:
                continue  # this user's interactions were spent (on trials)
            user.begin(s)
            channel.served.clear()
            if runner is not None and s.cue is None:  # the agent is about to rely on memory
                audit = memory.audit(s.slot, namespace=ns)
                if any(p.state is Lifecycle.HYPOTHESIS for p in audit.precedents):
                    cands = runner.select(key=s.slot, namespace=ns)
                    trials = runner.build(cands)
                    # each trial serves the user once; they must leave the session's own turn
                    if trials and len(trials) < budget[s.user] - used[s.user]:
                        ran, results = runner.execute_all(cands, trials)
                        for decision in runner.decide(cands, ran, results):
                            runner.apply(decision)
                    elif cands:  # what the evidence settles needs no room
                        for decision in runner.decide(cands, [], []):
                            if decision.total == 0 and decision.action == "promote":
                                runner.apply(decision)
            if gated is not None and s.cue is None:  # the same moment, the same budget
                room["n"] = budget[s.user] - used[s.user] - 1  # the session keeps its own turn
                gated.check(s.slot, namespace=ns)
            used[s.user] += 1 + len(channel.served)
            # scorer side: did the memory hold the user's lasting value when a glitch came?
            held = s.event == "glitch" and memory.get(s.slot, namespace=ns) == s.current
            if s.event == "change" and policy.honour_boundary:
                memory.mark_boundary(namespace=ns, key=s.slot)  # the oracle is told
            docs = memory.retrieve(SLOTS[s.slot][0], k=RETRIEVE_K, namespace=ns, key_prefix=s.slot)
            choice = agent.choose(render_session_prompt(s, docs))
            success = user.serve(choice)
            if s.cue:
                memory.observe(s.slot, s.cue, namespace=ns, source="user")
            memory.record_outcome(s.slot, choice, success, namespace=ns)
            if not success:
                # "No, I want X": an explicit correction by the user (plain evidence under the
                # baselines, which have no trust rules)
                memory.observe(s.slot, s.wanted, namespace=ns, source="user", correction=True)
            records.append(
                SessionRecord(
                    success,
                    s.phases,
                    s.slot_index,
                    s.event,
                    s.user,
                    s.slot,
                    served=choice,
                    cued=s.cue is not None,
                    wanted=s.wanted,
                    held=held,
                    trials=[ok for _, ok in channel.served],
                    trial_values=[v for v, _ in channel.served],
                )
            )
            slot_id = (s.user, s.slot)
            if s.event == "change":
                pending[slot_id] = s.slot_index
            if slot_id in pending and memory.get(s.slot, namespace=ns) == s.current:
                adoption.append(s.slot_index - pending.pop(slot_id))
        for (u, slot), since in pending.items():  # never adopted: censored at stream end
            last = max(x.slot_index for x in stream.sessions if x.user == u and x.slot == slot)
            adoption.append(last - since + 1)
        evidence = memory.evidence_count()
    finally:
        memory.close()
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    flips, glitches = glitch_flips(records, config.window)
    return {
        "method": label or method,
        "seed": seed,
        "records": records,
        "trials": sum(len(r.trials) for r in records),
        "interactions": sum(r.interactions for r in records),
        "evidence": evidence,
        "glitches": glitches,
        "glitch_flips": flips,
        "glitch_trials": sum(
            1
            for i, r in enumerate(records)
            for j in _after_glitch(records, i, config.window)
            if r.event == "glitch"
            for v in records[j].trial_values
            if v == r.wanted
        ),
        "adoption": adoption,
        "seconds": time.perf_counter() - start,
    }


def _after_glitch(records: Sequence[SessionRecord], g: int, window: int) -> list[int]:
    """Indices of the sessions of a glitch's slot after it (before the next event, <= window)."""
    glitch = records[g]
    out: list[int] = []
    for j in range(g + 1, len(records)):
        r = records[j]
        if r.user != glitch.user or r.slot != glitch.slot:
            continue
        if r.event is not None or len(out) == window:
            break
        out.append(j)
    return out


def glitch_flips(records: Sequence[SessionRecord], window: int = 5) -> tuple[int, int]:
    """``(flips, glitches)``: how often the agent served the glitch value after the glitch.

    A glitch counts when the memory held the user's lasting value just before it and at least
    one session of the slot without a stated value follows it within ``window`` sessions and
    before the slot's next event (a flipped memory can only show where the user says nothing).
    It is a flip when, in one of those sessions, the agent answered with the glitch value: the
    flip is counted at the first session where the glitch value is served, however late the
    memory flipped (for TEPA-Full: at the trials of a later session).

    Example:
        >>> def rec(i, event=None, served="a", cued=False, wanted="a", held=False):
        ...     return SessionRecord(served == wanted, ("overall",), i, event, 0, "diet",
        ...                          served=served, cued=cued, wanted=wanted, held=held)
        >>> stream = [rec(0), rec(1, "glitch", "b", True, "b", True), rec(2, cued=True),
        ...           rec(3, served="b")]
        >>> glitch_flips(stream)
        (1, 1)
    """
    flips = glitches = 0
    for g, r in enumerate(records):
        if r.event != "glitch" or not r.held:
            continue
        after = _after_glitch(records, g, window)
        if not any(not records[j].cued for j in after):
            continue
        glitches += 1
        if any(records[j].served == r.wanted for j in after):
            flips += 1
    return flips, glitches


def event_curve(
    records: Sequence[SessionRecord], event: str, *, before: int = 5, after: int = 10
) -> list[float | None]:
    """Mean success at a slot's session offsets ``-before .. after - 1`` around each ``event``.

    Offset 0 is the event session itself (a change or a glitch).
    """
    streams: dict[tuple[int, str], list[SessionRecord]] = {}
    for r in records:
        streams.setdefault((r.user, r.slot), []).append(r)
    sums = [0.0] * (before + after)
    counts = [0] * (before + after)
    for rows in streams.values():
        for i, r in enumerate(rows):
            if r.event != event:
                continue
            for off in range(-before, after):
                j = i + off
                if 0 <= j < len(rows):
                    sums[off + before] += rows[j].success
                    counts[off + before] += 1
    return [round(sums[i] / counts[i], 4) if counts[i] else None for i in range(before + after)]


def _run_job(job: tuple[Any, ...]) -> dict[str, Any]:
    method, seed, cfg, storage, overrides, label, gate = job
    return run_preference_seed(
        method,
        seed,
        PreferenceConfig(**cfg),
        storage=storage,
        overrides=overrides,
        label=label,
        gate=gate,
    )


def tune_preference_gate(config: PreferenceConfig, seeds: int) -> tuple[GateSetting, list[Any]]:
    """The trial-gated baseline's setting, chosen on the tuning seeds.

    The lowest regret: failed sessions + cost x trials.
    """

    def score(gate: GateSetting, seed: int) -> tuple[float, float]:
        run = run_preference_seed(gate.label, seed, config, gate=gate)
        return float(sum(not r.success for r in run["records"])), float(run["trials"])

    return tune_gate(score, seeds, DECLARED_COST)


def _phase_rate(run: dict[str, Any], phase: str, *, answers_only: bool = False) -> float:
    rows = [r for r in run["records"] if phase in r.phases]
    if not rows:
        raise InvalidArgumentError(
            f"no session of seed {run['seed']} falls in phase {phase!r}: the stream is too short "
            "for its events; use more sessions (or glitches/changes)"
        )
    if answers_only:
        return float(np.mean([r.success for r in rows]))
    return sum(r.successes for r in rows) / sum(r.interactions for r in rows)


def summarise(
    runs: Sequence[dict[str, Any]], config: dict[str, Any], *, bootstrap_seed: int = 0
) -> dict[str, Any]:
    """The result JSON (the drift contract, with the phases of this scenario).

    A phase's ``success`` is over every interaction with the user in its sessions: the agent's
    answers and TEPA-Full's trials (each trial serves a value to the user and is charged);
    ``answers`` is the success of the answers alone. ``mpi`` is computed in ``after_change``
    (where stale memory can hurt), ``transition_cost`` is the median number of a slot's sessions
    from a real change until the memory's ``get`` returns the new value, and ``curve`` is the
    answer success around a real change (offsets -5..9). ``glitch_flip_rate`` is
    :func:`glitch_flips` pooled over seeds; ``glitch_trials_per_seed`` counts trials that served
    the glitch value after a glitch (charged in the score, not counted as flips).
    """
    from tepa_bench.report import fill_mpi, paired_comparisons, phase_summary

    by_method: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        by_method.setdefault(run["method"], []).append(run)
    for group in by_method.values():
        group.sort(key=lambda r: r["seed"])
    per_seed: dict[str, dict[str, Any]] = {}
    methods: dict[str, Any] = {}
    for name, group in by_method.items():
        per_seed[name] = {}
        phases = {}
        for ph in PHASES:
            values = np.array([_phase_rate(run, ph) for run in group])
            per_seed[name][ph] = values
            episodes = sum(
                sum(r.interactions for r in run["records"] if ph in r.phases) for run in group
            ) // len(group)
            phases[ph] = phase_summary(values, episodes, bootstrap_seed=bootstrap_seed)
            phases[ph]["answers"] = round(
                float(np.mean([_phase_rate(run, ph, answers_only=True) for run in group])), 4
            )
        adoption = [a for run in group for a in run["adoption"]]
        all_records = [r for run in group for r in run["records"]]
        glitches = sum(run["glitches"] for run in group)
        flips = sum(run["glitch_flips"] for run in group)
        methods[name] = {
            "phases": phases,
            "mpi": None,
            "transition_cost": float(np.median(adoption)) if adoption else None,
            "curve": event_curve(all_records, "change"),
            "glitch_curve": event_curve(all_records, "glitch"),
            "glitch_flip_rate": round(flips / glitches, 4) if glitches else None,
            "glitches_counted": glitches,
            "glitch_trials_per_seed": round(float(np.mean([r["glitch_trials"] for r in group])), 1),
            "trials_per_seed": round(float(np.mean([run["trials"] for run in group])), 1),
            "interactions_per_seed": round(float(np.mean([r["interactions"] for r in group])), 1),
        }
    fill_mpi(methods, per_seed, "after_change")
    comparisons = paired_comparisons(
        per_seed,
        PHASES,
        tepa_methods=("tepa-full", "tepa-full-trials", "tepa-rev"),
        bootstrap_seed=bootstrap_seed,
    )
    seeds = len(next(iter(by_method.values())))
    result = {
        "scenario": "preferences",
        "seeds": seeds,
        "config": config,
        "methods": methods,
        "comparisons": comparisons,
    }
    from tepa_bench.regret import attach_regret

    attach_regret(  # issue 28: failed sessions + c x trials, per seed
        result,
        {
            name: (
                np.array([sum(not r.success for r in run["records"]) for run in runs]),
                np.array([run["trials"] for run in runs]),
            )
            for name, runs in by_method.items()
        },
    )
    return result


def run_preferences(
    methods: Sequence[str],
    seeds: int,
    config: PreferenceConfig,
    *,
    storage: str = "memory",
    workers: int = 1,
    progress: bool = True,
    tuned: dict[str, dict[str, Any]] | None = None,
    gates: dict[str, GateSetting] | None = None,
    first_seed: int = 0,
    gate_tuning: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run every method on every seed and summarise (see :func:`summarise`).

    ``tuned``: settings per method (from ``tepa-bench grid``); each such method is also run with
    its setting, reported as ``method*``. ``gates``: the trial-gated baselines to run too, by
    name (issue 39); ``gate_tuning``: how the tuned one was chosen. Seeds ``first_seed ..``.
    """
    import time
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from tepa_bench.scenarios import tuned_label

    variants: list[tuple[str, dict[str, Any] | None, str | None, GateSetting | None]]
    variants = [(m, None, None, None) for m in methods]
    variants += [(m, o, tuned_label(m), None) for m, o in (tuned or {}).items() if m in methods]
    variants += [(name, None, name, g) for name, g in (gates or {}).items()]
    jobs = [
        (m, seed, config.to_dict(), storage, o, label, g)
        for seed in range(first_seed, first_seed + seeds)
        for m, o, label, g in variants
    ]
    start = time.perf_counter()
    bar = tqdm(total=len(jobs), desc="preferences", disable=not progress, unit="run")
    runs: list[dict[str, Any]] = []
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for run in pool.map(_run_job, jobs):
                runs.append(run)
                bar.update()
    else:
        for job in jobs:
            runs.append(_run_job(job))
            bar.update()
    bar.close()
    cfg = {
        **config.to_dict(),
        "slots": {k: list(v[1]) for k, v in SLOTS.items()},
        "methods": list(methods),
        "storage": storage,
        "embeddings": "HashingEmbeddings (offline)",
        "agent_rule": (
            "the value the user states in this request wins; otherwise the highest-validity "
            "active precedent of the slot with validity >= 0.50; otherwise a uniform guess"
        ),
        "mpi_phase": "after_change",
        "transition_cost_definition": (
            "median number of a slot's sessions from a real change until memory.get(slot) "
            "returns the new value (censored at the end of the stream)"
        ),
        "paper_overall": PAPER_PREFERENCES,
        "paper_difference": PAPER_DIFFERENCE,
        "tuned": {label: o for m, o, label, g in variants if label and g is None},
        "gates": {name: g.to_dict() for name, g in (gates or {}).items()},
        "gate_tuning": gate_tuning,
        "seed_range": [first_seed, first_seed + seeds - 1],
        "declared_cost_told_to_tepa_full": DECLARED_COST,
        "trials": (
            "TEPA-Full's trials serve values to the user in the session (supportive, "
            "counterfactual, polluted): each is an interaction, charged in the score"
        ),
        "seconds": round(time.perf_counter() - start, 1),
    }
    return summarise(runs, cfg)


def format_preferences_table(result: dict[str, Any]) -> str:
    """A plain-text table of a preference run, its columns explained.

    Success per phase over every interaction (with CIs), answers alone, flips, trials, adoption
    lag, and p-values where the seeds allow.
    """
    from tepa_bench.report import format_p, p_values_supported

    ref = "tepa-full" if "tepa-full" in result["methods"] else "tepa-rev"
    show_p = p_values_supported(result["seeds"])
    pvals = {
        c["b"]: c["p_value"]
        for c in result["comparisons"]
        if c["a"] == ref and c["phase"] == "overall"
    }
    cfg = result["config"]
    lines = [
        f"preferences: {result['seeds']} seeds, {cfg['users']} users x {cfg['sessions']} "
        f"sessions, p_cue {cfg['p_cue']}, storage {cfg['storage']}",
        f"  ({cfg.get('paper_difference', PAPER_DIFFERENCE)})",
        "  overall/after_change/after_glitch: success over every interaction with the user in "
        "those sessions (answers and charged trials), 95% CI over seeds;",
        "  answers: the agent's answers alone; flips: share of glitches after which the agent "
        "served the glitch value (first session it did); gl.tr: trials per seed",
        "  that served the glitch value; adopt: median sessions from a real change until get() "
        "returns the new value; inter.: interactions per seed (trials).",
    ]
    if cfg.get("tuned"):
        from tepa_bench.scenarios import tuned_note

        lines.append(tuned_note(cfg["tuned"]))
    if not show_p:
        lines.append(
            f"  no p-values: with {result['seeds']} seeds the smallest possible paired p is "
            f"{2 / 2 ** result['seeds']:.2f}"
        )
    cols = (
        f"{'method':<17} {'overall [95% CI]':<24} {'answers':>7} {'after_change':<24} "
        f"{'after_glitch':<24} {'flips':>6} {'gl.tr':>6} {'adopt':>6} {'inter. (trials)':>16}"
        f" {'paper*':>6}" + (f" {'p vs ' + ref:>14}" if show_p else "")
    )
    lines += [cols, "-" * len(cols)]
    for name, m in result["methods"].items():
        ph = m["phases"]

        def fmt(p: dict[str, Any]) -> str:
            return f"{p['success']:.3f} [{p['ci95'][0]:.3f}, {p['ci95'][1]:.3f}]"

        flips = "" if m["glitch_flip_rate"] is None else f"{m['glitch_flip_rate']:.2f}"
        adopt = "" if m["transition_cost"] is None else f"{m['transition_cost']:g}"
        paper = f"{PAPER_PREFERENCES[name]:.3f}" if name in PAPER_PREFERENCES else ""
        inter = f"{m['interactions_per_seed']:g} ({m['trials_per_seed']:g})"
        p = pvals.get(name)
        ps = (f" {'' if p is None else format_p(p):>14}") if show_p else ""
        lines.append(
            f"{name:<17} {fmt(ph['overall']):<24} {ph['overall']['answers']:>7.3f} "
            f"{fmt(ph['after_change']):<24} {fmt(ph['after_glitch']):<24} {flips:>6} "
            f"{m['glitch_trials_per_seed']:>6g} {adopt:>6} {inter:>16} {paper:>6}{ps}"
        )
    lines.append("* paper: the paper's overall success on its own stream (a different experiment)")
    from tepa_bench.regret import format_regret

    regret = format_regret(result)
    return "\n".join([*lines, regret] if regret else lines)


def plot_preferences(result: dict[str, Any], path: Any) -> Any:
    """Success around a real change and around a glitch, per method, as a PNG.

    Returns ``None`` (with a warning) when matplotlib is not installed.
    """
    from pathlib import Path

    from tepa_bench.report import line_style, pyplot_or_warn

    plt = pyplot_or_warn()
    if plt is None:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8), gridspec_kw={"width_ratios": [2, 2, 2]})
    offsets = list(range(-5, 10))
    cmap = plt.get_cmap("tab20")
    for i, (name, m) in enumerate(result["methods"].items()):
        marker, style = line_style(i, name)
        for ax, curve in ((axes[0], m["curve"]), (axes[1], m["glitch_curve"])):
            xs = [o for o, v in zip(offsets, curve, strict=False) if v is not None]
            ys = [v for v in curve if v is not None]
            ax.plot(
                xs,
                ys,
                linestyle=style,
                marker=marker,
                markersize=4,
                color=cmap(i % 20),
                label=name,
                lw=1.6,
            )
    for ax, title in ((axes[0], "around a real change"), (axes[1], "around a glitch")):
        ax.axvline(0, color="grey", lw=1, ls=":")
        ax.set_title(f"Answer success {title} (no smoothing)")
        ax.set_xlabel("sessions of the slot (0 = event)")
        ax.set_ylim(0, 1.02)
    axes[0].set_ylabel("success")
    axes[1].legend(fontsize=7, loc="lower right")
    names = list(result["methods"])
    width = 0.27
    for j, ph in enumerate(PHASES):
        vals = [result["methods"][n]["phases"][ph]["success"] for n in names]
        axes[2].bar([k + (j - 1) * width for k in range(len(names))], vals, width, label=ph)
    axes[2].set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
    axes[2].set_ylim(0, 1.05)
    axes[2].set_title("Success per phase (every interaction, trials included)")
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def _scenario(options: Any) -> dict[str, Any]:
    from tepa_bench.gated import is_gated
    from tepa_bench.scenarios import resolve_methods

    plain = [m for m in options.methods or [] if not is_gated(m)]
    methods = (
        resolve_methods(plain) if plain else ([] if options.methods else resolve_methods(None))
    )
    seeds = options.seeds or (3 if options.quick else 20)
    if seeds < 1:
        raise InvalidArgumentError(f"--seeds must be >= 1, got {seeds}")
    base = PreferenceConfig(users=4, sessions=80) if options.quick else PreferenceConfig()
    known = set(PreferenceConfig.__dataclass_fields__)
    unknown = set(options.overrides) - known
    if unknown:
        raise InvalidArgumentError(
            f"unknown preferences settings {sorted(unknown)}; known: {sorted(known)}"
        )
    config = PreferenceConfig(**{**base.to_dict(), **options.overrides})
    storage = options.storage or "memory"
    if storage not in ("memory", "chroma"):
        raise InvalidArgumentError(f"--storage must be 'memory' or 'chroma', got {storage!r}")
    if options.agent != "offline":
        raise InvalidArgumentError("the preferences scenario runs with --agent offline only")
    from tepa_bench.gated import GATED, TUNED_GATE
    from tepa_bench.scenarios import tuned_settings

    args = options.args
    first = getattr(args, "first_seed", 0)
    wanted = [*GATED, TUNED_GATE]
    if options.methods:
        wanted = [m for m in options.methods if m in wanted]
    gates, tuning = gates_for(
        wanted,
        lambda n: tune_preference_gate(config, n),
        tuning_seeds=getattr(args, "gate_tuning_seeds", 20),
        first_seed=first,
        seeds=seeds,
    )
    return run_preferences(
        methods,
        seeds,
        config,
        storage=storage,
        workers=max(1, options.workers),
        progress=options.progress,
        tuned=tuned_settings(getattr(args, "tuned", None)),
        gates=gates,
        first_seed=first,
        gate_tuning=tuning,
    )


def _register() -> None:
    from tepa_bench.registry import ScenarioEntry, register_scenario

    register_scenario(
        ScenarioEntry(
            "preferences",
            "preference update stream: real changes and transient glitches",
            _scenario,
            table=format_preferences_table,
            plot=plot_preferences,
            demo=False,
            configure=lambda p: add_seed_arguments(p, first_seed=0, tuning=20),
        )
    )


_register()
