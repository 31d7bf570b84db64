"""Generated free-text change scenarios of ``tepa-bench run freetext`` (deterministic, offline).

A *scenario* is what one user writes into their memory, in order, as free text, and the one
question asked afterwards. Kinds:

- ``change``: a single-valued attribute changes ("I live in Lisbon" ... "I moved to Oslo"); the
  earlier memories of the attribute are *stale*, the last one is *current*. Variants: a plain
  change, an old value stated twice before the change, and two changes in a row.
- ``multi``: a multi-valued attribute grows ("I have a dog" ... "I also have a cat"): all stay.
- ``other_subject``: someone else's attribute beside the user's ("My sister lives in Madrid",
  "I live in Oslo"): both stay.
- ``hypothetical``: a fact, then a hypothetical or negated sentence about a new value ("I might
  move to Rome"): nothing is taken back.

Every scenario also holds one or two unrelated memories (distractors). The ground truth (which
memories are stale, current, independent) and each memory's ideal claims are for the scorer and
the scripted "ideal extractor" only; the systems under test see the texts and the query.

The phrasings come from modules that share no template and no value:
:mod:`~tepa_bench.freetext_phrasings_dev` (tune on it),
:mod:`~tepa_bench.freetext_phrasings_dev2` and
:mod:`~tepa_bench.freetext_phrasings_dev3` (further development parts, written apart),
:mod:`~tepa_bench.freetext_phrasings_dev4` (written after ``dev3`` without reading the
extractor: a second held-out estimate, never read it to tune)
and :mod:`~tepa_bench.freetext_phrasings_test` (held out: never read it to tune).

Example:
    >>> scenarios = generate_scenarios("dev", n_change=10, seed=1)
    >>> sum(s.kind == "change" for s in scenarios)
    10
    >>> s = scenarios[0]
    >>> all(0 <= i < len(s.memories) for i in s.stale + s.current + s.independent)
    True
    >>> s.probes == tuple(sorted(set(s.stale + s.current + s.independent)))
    True
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = [
    "ATTRIBUTES",
    "KINDS",
    "MULTI_ATTRIBUTES",
    "RELATIONS",
    "SPLITS",
    "Claim",
    "Label",
    "Memory",
    "Scenario",
    "generate_scenarios",
    "ideal_claims",
    "pair_labels",
    "phrasings",
    "template_sets",
]

SPLITS = ("dev", "test", "dev2", "dev3", "dev4")
"""The parts: ``dev`` (tune on it), ``test`` (held out), ``dev2`` (a second development
part written apart from both, to check that tuning on ``dev`` generalises) and ``dev3`` (a third,
written fresh after ``dev`` and ``dev2`` had been tuned on: new change verbs and the shapes of
memory tools' summaries, measured before the extractor was changed for it) and ``dev4`` (a
fourth, written fresh after ``dev3`` without reading the extractor: a second held-out estimate,
not to be tuned on)."""

KINDS = ("change", "multi", "other_subject", "hypothetical")
"""Scenario kinds."""

ATTRIBUTES: dict[str, str] = {
    "home_city": "home city",
    "employer": "employer",
    "manager": "manager",
    "job_title": "job title",
    "diet": "diet",
    "phone_brand": "phone",
    "editor_theme": "editor theme",
    "favourite_language": "favourite programming language",
    "car": "car",
    "gym": "gym",
    "bank": "bank",
    "partner_name": "partner's name",
    "timezone": "timezone",
    "email_client": "email client",
    "browser": "browser",
    "operating_system": "operating system",
    "shell": "shell",
    "code_editor": "code editor",
    "coffee_order": "coffee order",
    "football_team": "football team",
    "university": "university",
    "doctor": "doctor",
    "neighbourhood": "neighbourhood",
    "commute": "commute",
    "mobile_carrier": "mobile carrier",
    "music_app": "music app",
    "laptop": "laptop",
    "team": "team",
    "cuisine": "favourite cuisine",
    "colour": "favourite colour",
    "preferred_name": "preferred name",
    "reply_language": "reply language",
    "wake_time": "wake-up time",
    "cloud_provider": "cloud provider",
    "database": "database",
    "keyboard_layout": "keyboard layout",
    "airline": "usual airline",
    "health_insurer": "health insurer",
    "notes_app": "notes app",
    "password_manager": "password manager",
    "hair_colour": "hair colour",
    "watch": "watch",
    "mentor": "mentor",
    "project": "current project",
    "sport": "sport",
    "landlord": "landlord",
}
"""Single-valued attribute families: name -> the noun the generic templates use."""

MULTI_ATTRIBUTES: tuple[str, ...] = (
    "pets",
    "languages_spoken",
    "hobbies",
    "liked_foods",
    "children",
    "instruments",
)
"""Multi-valued attribute families (a new value never replaces an old one)."""

RELATIONS = ("replaces", "adds", "unrelated")
"""What a later memory does to an earlier one (:attr:`Label.relation`)."""

_CHANGE_VARIANTS = (("plain", 0.7), ("repeat", 0.15), ("double", 0.15))
_CONTROL_SHARE = 0.4
_CONTROL_KINDS = (("multi", 0.4), ("other_subject", 0.3), ("hypothetical", 0.3))


@dataclass(frozen=True)
class Claim:
    """One ideal claim of a memory: ``key`` (``user.home_city``, ``sister.employer``) -> value.

    Attributes:
        key: Subject and attribute.
        value: The value as written.
        multi_valued: The attribute holds several values at once.
    """

    key: str
    value: str
    multi_valued: bool = False


@dataclass(frozen=True)
class Label:
    """The gold label of a later memory against an earlier one of the same user.

    The flags describe the later statement itself; a flagged statement never replaces anything.

    Attributes:
        relation: ``replaces`` (the earlier memory is no longer true), ``adds`` (both hold:
            another value of the same attribute, or the same value said again) or
            ``unrelated`` (another attribute, subject or sense of a word, or no durable fact).
        temporary: The later statement holds for a while only ("until Friday", "rented").
        hypothetical: It asserts nothing that holds now: a plan, wish, hedge, question or a
            joke's conditional (the generated splits also flag their negated sentences).
        about_someone_else: Its subject is not the user (another person, a pet, an object).
        history: It is about the past only ("I used to live in Rome").

    Example:
        >>> Label("unrelated", temporary=True).temporary
        True
        >>> Label("deletes")
        Traceback (most recent call last):
        ...
        ValueError: relation must be one of ('replaces', 'adds', 'unrelated'), got 'deletes'
    """

    relation: str
    temporary: bool = False
    hypothetical: bool = False
    about_someone_else: bool = False
    history: bool = False

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {self.relation!r}")
        if self.relation == "replaces" and self.flagged:
            raise ValueError(
                "a temporary, hypothetical, history or other-subject statement never replaces"
            )

    @property
    def flagged(self) -> bool:
        """Any flag set."""
        return self.temporary or self.hypothetical or self.about_someone_else or self.history


@dataclass(frozen=True)
class Memory:
    """One memory text a scenario writes.

    Attributes:
        text: The free text.
        role: ``old``, ``repeat``, ``current``, ``multi``, ``other``, ``user_fact``,
            ``hypothetical``, ``distractor`` (probed) or ``background`` (never probed).
        claims: Its ideal claims (empty for hypothetical and plain memories).
    """

    text: str
    role: str
    claims: tuple[Claim, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """One user's writes, the question asked after them, and the ground truth.

    Attributes:
        id: Unique within a generated set (``dev-0042``).
        kind: One of :data:`KINDS`.
        family: The attribute family under test.
        variant: ``plain``, ``repeat`` or ``double`` for changes, else the kind.
        memories: Texts in write order.
        query: The question asked after the writes.
        stale: Indexes of memories a revoking memory should no longer serve.
        current: Indexes of memories that answer ``query`` now.
        independent: Indexes of memories that must never be taken back (multi-valued values,
            other subjects, hypotheticals and the facts beside them, distractors). The
            remaining indexes are ``background`` memories (unrelated, never probed).
        templates: The change templates the scenario's changes were written from (a
            hand-written case is its own template: its id).
        labels: Gold labels ``(earlier index, later index, label)`` of every ordered pair
            (hand-written cases; generated scenarios derive theirs, :func:`pair_labels`).
    """

    id: str
    kind: str
    family: str
    variant: str
    memories: tuple[Memory, ...]
    query: str
    stale: tuple[int, ...]
    current: tuple[int, ...]
    independent: tuple[int, ...]
    templates: tuple[str, ...] = ()
    labels: tuple[tuple[int, int, Label], ...] = ()

    @property
    def probes(self) -> tuple[int, ...]:
        """Memories whose own text is asked after the writes (every one but the background)."""
        return tuple(i for i, m in enumerate(self.memories) if m.role != "background")


def phrasings(split: str) -> dict[str, Any]:
    """The phrasing tables of a split (imports only that split's module)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    module: ModuleType
    if split == "dev":
        from tepa_bench import freetext_phrasings_dev as module
    elif split == "dev2":
        from tepa_bench import freetext_phrasings_dev2 as module
    elif split == "dev3":
        from tepa_bench import freetext_phrasings_dev3 as module
    elif split == "dev4":
        from tepa_bench import freetext_phrasings_dev4 as module
    else:
        from tepa_bench import freetext_phrasings_test as module
    table: dict[str, Any] = module.PHRASINGS
    return table


def template_sets(split: str) -> dict[str, set[str]]:
    """Every template and every value of a split, for checks of the split's disjointness.

    Returns:
        ``{"templates": {...}, "values": {...}, "queries": {...}, "relations": {...}}``.
    """
    table = phrasings(split)
    templates: set[str] = set()
    values: set[str] = set()
    queries: set[str] = set()
    for key in ("generic_initial", "generic_change", "generic_other", "generic_hypothetical"):
        templates.update(table[key])
    templates.update(table["distractors"])
    for group in ("families", "multi"):
        for spec in table[group].values():
            for part in ("initial", "change", "add", "other", "hypothetical"):
                templates.update(spec.get(part, ()))
            values.update(spec["values"])
            queries.update(spec["queries"])
    relations = set(table["relations"])
    return {"templates": templates, "values": values, "queries": queries, "relations": relations}


_VOWEL_AFTER_A = re.compile(r"\b([Aa]) (?=[AEIOaeio])")


def _render(template: str, **fields: str) -> str:
    text = template.format(**fields)
    text = _VOWEL_AFTER_A.sub(lambda m: m.group(1) + "n ", text)
    return text[0].upper() + text[1:]


def _weighted(rng: random.Random, choices: tuple[tuple[str, float], ...]) -> str:
    names = [c[0] for c in choices]
    weights = [c[1] for c in choices]
    return rng.choices(names, weights=weights, k=1)[0]


class _Builder:
    """Draws memories from one split's tables."""

    def __init__(self, split: str, rng: random.Random) -> None:
        self.table = phrasings(split)
        self.rng = rng
        self.families: dict[str, dict[str, tuple[str, ...]]] = self.table["families"]
        self.multi: dict[str, dict[str, tuple[str, ...]]] = self.table["multi"]

    def initial_templates(self, family: str) -> tuple[str, ...]:
        return tuple(self.families[family]["initial"]) + tuple(self.table["generic_initial"])

    def change_templates(self, family: str) -> tuple[str, ...]:
        return tuple(self.families[family]["change"]) + tuple(self.table["generic_change"])

    def statement(self, family: str, template: str, value: str, old: str = "") -> Memory:
        text = _render(template, v=value, old=old, attr=ATTRIBUTES[family])
        return Memory(text, "", (Claim(f"user.{family}", value),))

    def values(self, family: str, k: int) -> list[str]:
        return self.rng.sample(list(self.families[family]["values"]), k)

    def distractor(self, avoid: str) -> Memory:
        if self.rng.random() < 0.5:
            return Memory(self.rng.choice(self.table["distractors"]), "distractor")
        family = self.rng.choice(sorted(f for f in self.families if f != avoid))
        template = self.rng.choice(self.initial_templates(family))
        value = self.rng.choice(self.families[family]["values"])
        fact = self.statement(family, template, value)
        return Memory(fact.text, "distractor", fact.claims)

    def query(self, family: str, group: str = "families") -> str:
        table = self.families if group == "families" else self.multi
        return self.rng.choice(table[family]["queries"])


def _with_role(memory: Memory, role: str) -> Memory:
    return Memory(memory.text, role, memory.claims)


def _change(b: _Builder, family: str) -> tuple[str, list[Memory], tuple[str, ...]]:
    """A change scenario's variant, memories and the change templates it was written from."""
    variant = _weighted(b.rng, _CHANGE_VARIANTS)
    initial = b.initial_templates(family)
    # Change templates that name the old value only make sense once there is one.
    change = b.change_templates(family)
    if variant == "double":
        a, mid, new = b.values(family, 3)
        t_changes = b.rng.sample(list(change), 2)
        memories = [
            _with_role(b.statement(family, b.rng.choice(initial), a), "old"),
            _with_role(b.statement(family, t_changes[0], mid, old=a), "old"),
            _with_role(b.statement(family, t_changes[1], new, old=mid), "current"),
        ]
        return variant, memories, tuple(t_changes)
    old, new = b.values(family, 2)
    if variant == "repeat":
        t1 = b.rng.choice(initial)
        said = b.statement(family, t1, old)
        # Another wording of the same value (a family's own template can read like a generic one).
        others = [t for t in initial if b.statement(family, t, old).text != said.text]
        again = b.statement(family, b.rng.choice(others), old)
        first = [_with_role(said, "old"), _with_role(again, "repeat")]
    else:
        first = [_with_role(b.statement(family, b.rng.choice(initial), old), "old")]
    template = b.rng.choice(change)
    last = _with_role(b.statement(family, template, new, old=old), "current")
    return variant, [*first, last], (template,)


def _multi(b: _Builder, family: str) -> list[Memory]:
    spec = b.multi[family]
    count = 3 if b.rng.random() < 0.3 else 2
    values = b.rng.sample(list(spec["values"]), count)
    out = []
    for i, value in enumerate(values):
        template = b.rng.choice(spec["initial"] if i == 0 else spec["add"])
        claim = Claim(f"user.{family}", value, multi_valued=True)
        out.append(Memory(_render(template, v=value), "multi", (claim,)))
    return out


def _other_subject(b: _Builder, family: str) -> list[Memory]:
    spec = b.families[family]
    rel = b.rng.choice(b.table["relations"])
    theirs, mine = b.values(family, 2)
    template = b.rng.choice(tuple(spec.get("other", ())) + tuple(b.table["generic_other"]))
    subject = rel.replace(" ", "_")
    other = Memory(
        _render(template, v=theirs, rel=rel, attr=ATTRIBUTES[family]),
        "other",
        (Claim(f"{subject}.{family}", theirs),),
    )
    if b.rng.random() < 0.5:
        # The user's own statement comes second and reads like a change ("I moved to Oslo").
        plain = [t for t in b.change_templates(family) if "{old}" not in t]
        user = _with_role(b.statement(family, b.rng.choice(plain), mine), "user_fact")
        return [other, user]
    user = _with_role(
        b.statement(family, b.rng.choice(b.initial_templates(family)), mine), "user_fact"
    )
    return [user, other] if b.rng.random() < 0.5 else [other, user]


def _hypothetical(b: _Builder, family: str) -> list[Memory]:
    spec = b.families[family]
    have, maybe = b.values(family, 2)
    fact = _with_role(
        b.statement(family, b.rng.choice(b.initial_templates(family)), have), "user_fact"
    )
    template = b.rng.choice(
        tuple(spec.get("hypothetical", ())) + tuple(b.table["generic_hypothetical"])
    )
    hypo = Memory(_render(template, v=maybe, attr=ATTRIBUTES[family]), "hypothetical")
    return [fact, hypo]


def _insert_distractors(
    b: _Builder, memories: list[Memory], family: str, background: int
) -> list[Memory]:
    """Add one or two probed distractors and ``background`` unprobed ones, at random places.

    No two unrelated facts share a family (that would be a change of its own).
    """
    out = list(memories)
    texts = {m.text for m in out}
    used = {family}
    wanted = [("distractor", n) for n in range(b.rng.choice((1, 1, 2)))]
    wanted += [("background", n) for n in range(background)]
    for role, _ in wanted:
        for _attempt in range(20):
            d = b.distractor(family)
            key = d.claims[0].key.split(".", 1)[1] if d.claims else ""
            if d.text in texts or (key and key in used):
                continue
            texts.add(d.text)
            if key:
                used.add(key)
            out.insert(b.rng.randint(0, len(out)), _with_role(d, role))
            break
    return out


def _scenario(
    b: _Builder,
    sid: str,
    kind: str,
    family: str,
    variant: str,
    memories: list[Memory],
    background: int,
    templates: tuple[str, ...] = (),
) -> Scenario:
    memories = _insert_distractors(b, memories, family, background)
    stale = tuple(i for i, m in enumerate(memories) if m.role in ("old", "repeat"))
    current = tuple(i for i, m in enumerate(memories) if m.role in ("current", "user_fact"))
    independent = tuple(
        i
        for i, m in enumerate(memories)
        if m.role not in ("old", "repeat", "current", "background")
    )
    group = "multi" if kind == "multi" else "families"
    return Scenario(
        id=sid,
        kind=kind,
        family=family,
        variant=variant,
        memories=tuple(memories),
        query=b.query(family, group),
        stale=stale,
        current=current,
        independent=independent,
        templates=templates,
    )


def generate_scenarios(
    split: str = "test", n_change: int = 500, seed: int = 0, background: int = 3
) -> list[Scenario]:
    """Generate a split's scenarios: ``n_change`` changes plus controls (40% as many).

    The controls are multi-valued (40%), other-subject (30%) and hypothetical (30%) scenarios.
    Every scenario also holds one or two probed distractors and ``background`` unrelated
    memories that make the top ``k`` a real choice (they are written, never probed). The
    result is a function of the arguments only.

    Args:
        split: One of :data:`SPLITS` (``dev``, ``dev2``, ``dev3``, ``dev4`` or ``test``).
        n_change: Number of change scenarios (the benchmark uses at least 500).
        seed: Random seed.
        background: Unrelated memories per scenario beside the probed distractors.

    Returns:
        Scenarios in a shuffled but deterministic order, ids ``{split}-0000`` onward.
    """
    if n_change < 0 or background < 0:
        raise ValueError(f"n_change and background must be >= 0, got {n_change}, {background}")
    rng = random.Random(f"freetext:{split}:{seed}")
    b = _Builder(split, rng)
    families = sorted(b.families)
    others = sorted(f for f in families if b.families[f].get("other"))
    multis = sorted(b.multi)
    plans: list[tuple[str, str]] = []
    for i in range(n_change):
        plans.append(("change", families[i % len(families)]))
    n_controls = round(n_change * _CONTROL_SHARE)
    for _ in range(n_controls):
        kind = _weighted(rng, _CONTROL_KINDS)
        pool = multis if kind == "multi" else others if kind == "other_subject" else families
        plans.append((kind, rng.choice(pool)))
    rng.shuffle(plans)
    out = []
    for i, (kind, family) in enumerate(plans):
        sid = f"{split}-{i:04d}"
        templates: tuple[str, ...] = ()
        if kind == "change":
            variant, memories, templates = _change(b, family)
        elif kind == "multi":
            variant, memories = kind, _multi(b, family)
        elif kind == "other_subject":
            variant, memories = kind, _other_subject(b, family)
        else:
            variant, memories = kind, _hypothetical(b, family)
        out.append(_scenario(b, sid, kind, family, variant, memories, background, templates))
    return out


def ideal_claims(scenarios: list[Scenario]) -> dict[str, tuple[Claim, ...]]:
    """Text -> ideal claims over a set of scenarios (what a perfect extractor would return).

    Raises:
        ValueError: If one text were given two different claim sets (the generator never does).
    """
    table: dict[str, tuple[Claim, ...]] = {}
    for scenario in scenarios:
        for memory in scenario.memories:
            known = table.setdefault(memory.text, memory.claims)
            if known != memory.claims:
                raise ValueError(f"conflicting ideal claims for {memory.text!r}")
    return table


def _derived_label(earlier: Memory, later: Memory) -> Label:
    """A generated pair's gold label, from the two memories' ideal claims and roles."""
    flags = {
        "hypothetical": later.role == "hypothetical",
        "about_someone_else": later.role == "other",
    }
    mine = {c.key: c for c in earlier.claims}
    relation = "unrelated"
    for claim in later.claims:
        known = mine.get(claim.key)
        if known is None:
            continue
        same = known.value == claim.value
        relation = "adds" if same or claim.multi_valued else "replaces"
    return Label(relation, **flags)


def pair_labels(scenarios: Sequence[Scenario]) -> dict[tuple[str, str], Label]:
    """Gold labels of every ordered pair of memories written to one user, earlier first.

    Hand-written cases carry theirs (:attr:`Scenario.labels`); a generated scenario's come from
    its ideal claims and roles (same key, another value: ``replaces``; a multi-valued key or
    the same value: ``adds``; else ``unrelated``; hypothetical and other-subject sentences are
    flagged). This is what a scripted gold-label model may read; no system under test does.

    Args:
        scenarios: Scenarios of one split.

    Returns:
        ``(earlier text, later text) -> Label``.

    Raises:
        ValueError: If one pair of texts were given two labels.

    Example:
        >>> s = generate_scenarios("dev", n_change=3, seed=0)[0]
        >>> labels = pair_labels([s])
        >>> old, new = s.memories[s.stale[0]].text, s.memories[s.current[0]].text
        >>> labels[(old, new)].relation
        'replaces'
    """
    table: dict[tuple[str, str], Label] = {}
    for s in scenarios:
        texts = [m.text for m in s.memories]
        triples = s.labels or tuple(
            (i, j, _derived_label(s.memories[i], s.memories[j]))
            for j in range(len(texts))
            for i in range(j)
        )
        for i, j, label in triples:
            known = table.setdefault((texts[i], texts[j]), label)
            if known != label:
                raise ValueError(f"conflicting labels for {(texts[i], texts[j])!r}")
    return table
