"""Hand-written free-text cases with gold labels: the ``cases-dev`` and ``cases-heldout`` splits.

Each case is one concrete pair of memories a user writes, earlier then later, and a question
(issue 37). Kinds:

- ``change``: the later memory replaces the earlier one; the question's answer is the later.
- ``keep_both``: both stay true although they look alike (a second bike, a sister's city, the
  dog's diet, "I drive Tom to school", a rental car, "I used to live in Rome", a plan).
- ``probe``: a true memory, then a sentence that must take nothing back and is no durable
  memory of the same attribute (a question, a hedge, a negated plan, a joke, an instruction).

Each case carries its gold :class:`~tepa_bench.freetext_data.Label`: what the later sentence
does to the earlier one and the later sentence's flags. Only the scorer and a declared
gold-label model read them. The cases live in two data modules, one case per entry, no
templating over values (each case is its own template):
:mod:`~tepa_bench.freetext_cases_dev` (``cases-dev``: tune on it) and
:mod:`~tepa_bench.freetext_cases_heldout` (``cases-heldout``: nobody tunes on it).

A case becomes a :class:`~tepa_bench.freetext_data.Scenario` with one or two probed distractors
and ``background`` unprobed memories: the earlier memories of other cases of the same set from
other areas of life (so no unrelated fact is a change of the pair's attribute).

Example:
    >>> scenarios = case_scenarios("cases-dev")
    >>> s = next(s for s in scenarios if s.kind == "change")
    >>> labels = gold_labels("cases-dev")
    >>> labels[(s.memories[s.stale[0]].text, s.memories[s.current[0]].text)].relation
    'replaces'
    >>> len(s.templates)
    1
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import ModuleType

from tepa_bench.freetext_data import Claim, Label, Memory, Scenario

__all__ = [
    "CASE_KINDS",
    "CASE_SPLITS",
    "FLAGS",
    "STYLES",
    "Case",
    "case_scenarios",
    "gold_labels",
    "load_cases",
    "parse_cases",
]

CASE_SPLITS = ("cases-dev", "cases-heldout")
"""The hand-written splits: ``cases-dev`` (tune on it), ``cases-heldout`` (never tune on it)."""

CASE_KINDS = ("change", "keep_both", "probe")
"""Case kinds (also the kinds of their scenarios)."""

FLAGS = ("temporary", "hypothetical", "about_someone_else", "history")
"""Flags a label may carry (the later statement's)."""

STYLES: dict[str, tuple[str, ...]] = {
    "change": (
        "explicit",  # a change marker: moved to, no longer, switched from A to B, now
        "implicit",  # a verb that shares nothing with the attribute: signed up at BeFit
        "third_person",  # a memory tool's summary: User now banks with Monzo
        "correction",  # No, it's Tuesday, not Monday
        "request",  # Please call me Sam from now on
        "perfect",  # I've ...
        "dated",  # a dated note: 2025-03-02: ...
        "bullet",  # a bullet, a label: value line, an arrow
        "casual",  # chat: fillers, fragments, no subject
    ),
    "keep_both": (
        "multi",  # another value beside the old: a second bike, another language
        "other_person",  # someone else's attribute
        "pet_object",  # a pet's or an object's attribute
        "other_sense",  # another sense of the attribute's verb
        "temporary",  # a one-off or temporary event
        "history",  # the past only
        "plan",  # a plan or a hypothetical
    ),
    "probe": (
        "question",
        "hedge",
        "negated",
        "joke",
        "instruction",  # an instruction to the assistant
        "reminder",  # Please remind me to ...
        "opinion",  # a view about a value, no change of one's own
    ),
}
"""How a case is told, per kind."""


@dataclass(frozen=True)
class Case:
    """One hand-written case: two memories, a question and the gold label of the pair.

    Attributes:
        id: ``{split}-{kind}-{n:03d}``.
        kind: One of :data:`CASE_KINDS`.
        attribute: ``area.attribute`` (``home.city``; ``home+travel.flights`` where the later
            memory touches a second area): cases that share an area never meet in a scenario.
        style: How it is told (:data:`STYLES`).
        earlier: The earlier memory (a fact that held when written).
        later: The later memory.
        question: Asked after both; its answer is the later memory for a change, the earlier
            one otherwise.
        label: What ``later`` does to ``earlier``, and ``later``'s flags.
    """

    id: str
    kind: str
    attribute: str
    style: str
    earlier: str
    later: str
    question: str
    label: Label

    @property
    def areas(self) -> frozenset[str]:
        """The areas of life the pair touches (``home+travel.flights``: home and travel)."""
        return frozenset(self.attribute.split(".", 1)[0].split("+"))


def _fail(where: str, problem: str) -> ValueError:
    return ValueError(f"{where}: {problem}")


def _label(kind: str, tokens: list[str], where: str) -> Label:
    relation = tokens[0] if tokens else ("replaces" if kind == "change" else "")
    flags = tokens[1:]
    unknown = [f for f in flags if f not in FLAGS]
    if unknown:
        raise _fail(where, f"unknown flags {unknown}; known: {FLAGS}")
    allowed = {"change": ("replaces",), "keep_both": ("adds", "unrelated"), "probe": ("unrelated",)}
    if relation not in allowed[kind]:
        raise _fail(where, f"a {kind} case's relation is one of {allowed[kind]}, got {relation!r}")
    return Label(relation, **dict.fromkeys(flags, True))


def parse_cases(text: str, kind: str, prefix: str) -> tuple[Case, ...]:
    """Parse one kind's block of a data module: three lines per case.

    ``@area.attribute style | earlier memory``, then ``> later memory``, then
    ``? question [relation flag ...]`` (a change's label may be left out: ``replaces``).

    Args:
        text: The block.
        kind: One of :data:`CASE_KINDS`.
        prefix: Case ids' prefix (``heldout``).

    Raises:
        ValueError: For a malformed line, an unknown style, relation or flag.

    Example:
        >>> [c] = parse_cases('''
        ... @home.city temporary | I live in Porto.
        ... > I'm staying in Lisbon until Friday.
        ... ? Where does the user live? [unrelated temporary]
        ... ''', "keep_both", "doc")
        >>> c.id, c.label.temporary, c.label.relation
        ('doc-keep_both-000', True, 'unrelated')
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) % 3:
        raise _fail(f"{prefix} {kind}", f"{len(lines)} lines is not three per case")
    out = []
    for n in range(len(lines) // 3):
        head, later, ask = lines[3 * n : 3 * n + 3]
        where = f"{prefix} {kind} case {n} ({head[:40]!r})"
        meta, sep, earlier = head.partition(" | ")
        parts = meta.split()
        if not (head.startswith("@") and sep and len(parts) == 2 and "." in parts[0]):
            raise _fail(where, "the first line is '@area.attribute style | earlier memory'")
        if not (later.startswith("> ") and ask.startswith("? ")):
            raise _fail(where, "the second line starts with '> ', the third with '? '")
        attribute, style = parts[0][1:], parts[1]
        if style not in STYLES[kind]:
            raise _fail(where, f"style {style!r} is not one of {STYLES[kind]}")
        question, _, tail = ask[2:].partition(" [")
        tokens = tail.rstrip("]").split() if tail else []
        if tail and not tail.endswith("]"):
            raise _fail(where, "the label is '[relation flag ...]' at the end of the question")
        out.append(
            Case(
                id=f"{prefix}-{kind}-{n:03d}",
                kind=kind,
                attribute=attribute,
                style=style,
                earlier=earlier.strip(),
                later=later[2:].strip(),
                question=question.strip(),
                label=_label(kind, tokens, where),
            )
        )
    return tuple(out)


def load_cases(split: str) -> tuple[Case, ...]:
    """Every case of a hand-written split (imports only that split's module).

    Raises:
        ValueError: For an unknown split, or a text written twice in the split.
    """
    if split not in CASE_SPLITS:
        raise ValueError(f"split must be one of {CASE_SPLITS}, got {split!r}")
    module: ModuleType
    if split == "cases-dev":
        from tepa_bench import freetext_cases_dev as module
    else:
        from tepa_bench import freetext_cases_heldout as module
    prefix = split.removeprefix("cases-")
    cases = (
        parse_cases(module.CHANGES, "change", prefix)
        + parse_cases(module.KEEP_BOTH, "keep_both", prefix)
        + parse_cases(module.PROBES, "probe", prefix)
    )
    seen: set[str] = set()
    for case in cases:
        for text in (case.earlier, case.later):
            if text in seen:
                raise ValueError(f"{case.id}: {text!r} is written twice in {split}")
            seen.add(text)
    return cases


def _claims(case: Case) -> tuple[tuple[Claim, ...], tuple[Claim, ...]]:
    """Ideal claims that agree with the label (for the scripted ideal extractor only)."""
    key = f"user.{case.attribute}"
    multi = case.label.relation == "adds"
    first = (Claim(key, f"{case.id}/a", multi),)
    if case.kind == "probe" or case.label.hypothetical:
        return first, ()
    if case.label.relation == "unrelated":
        return first, (Claim(f"{case.id}.later", f"{case.id}/b"),)
    return first, (Claim(key, f"{case.id}/b", multi),)


_ROLES = {
    "change": ("old", "current"),
    "keep_both": ("keep", "keep"),
    "probe": ("user_fact", "probe"),
}


def _scenario(case: Case, others: list[Case], rng: random.Random, background: int) -> Scenario:
    first, second = _claims(case)
    roles = {
        "change": ("old", "current"),
        "keep_both": ("keep", "keep"),
        "probe": ("user_fact", "probe"),
    }
    role_a, role_b = roles[case.kind]
    memories = [Memory(case.earlier, role_a, first), Memory(case.later, role_b, second)]
    areas = set(case.areas)
    wanted = ["distractor"] * rng.choice((1, 1, 2)) + ["background"] * background
    for role in wanted:
        pool = [c for c in others if not c.areas & areas]
        if not pool:
            break
        pick = rng.choice(pool)
        areas |= pick.areas
        memories.insert(rng.randint(0, len(memories)), Memory(pick.earlier, role, _claims(pick)[0]))
    a = next(i for i, m in enumerate(memories) if m.text == case.earlier)
    b = next(i for i, m in enumerate(memories) if m.text == case.later)
    extra = tuple(i for i, m in enumerate(memories) if m.role == "distractor")
    no_flags = Label("unrelated")
    later_flags = Label(
        "unrelated",
        temporary=case.label.temporary,
        hypothetical=case.label.hypothetical,
        about_someone_else=case.label.about_someone_else,
        history=case.label.history,
    )
    labels = tuple(
        (i, j, case.label if (i, j) == (a, b) else later_flags if j == b else no_flags)
        for j in range(len(memories))
        for i in range(j)
    )
    change = case.kind == "change"
    return Scenario(
        id=case.id,
        kind=case.kind,
        family=case.attribute,
        variant=case.style,
        memories=tuple(memories),
        query=case.question,
        stale=(a,) if change else (),
        current=(b,) if change else (a,),
        independent=extra if change else tuple(sorted((a, b, *extra))),
        templates=(case.id,) if change else (),
        labels=labels,
    )


def case_scenarios(split: str, seed: int = 0, background: int = 3) -> list[Scenario]:
    """One scenario per case of a hand-written split, in the module's order.

    Args:
        split: One of :data:`CASE_SPLITS`.
        seed: Seeds the choice and places of the distractor and background memories.
        background: Unprobed memories per scenario beside the one or two probed distractors.

    Returns:
        Scenarios whose ids are the cases' ids.
    """
    if background < 0:
        raise ValueError(f"background must be >= 0, got {background}")
    cases = load_cases(split)
    rng = random.Random(f"freetext-cases:{split}:{seed}")
    return [_scenario(c, list(cases), rng, background) for c in cases]


def gold_labels(split: str) -> dict[tuple[str, str], Label]:
    """The gold label of each case's pair: ``(earlier text, later text) -> Label``.

    A pair of texts that is no case of the split (a distractor beside a case's memory) is
    ``unrelated``, with the later text's flags; :func:`~tepa_bench.freetext_data.pair_labels`
    gives every pair of a list of scenarios.

    Example:
        >>> labels = gold_labels("cases-heldout")
        >>> sorted({label.relation for label in labels.values()})
        ['adds', 'replaces', 'unrelated']
    """
    return {(c.earlier, c.later): c.label for c in load_cases(split)}
