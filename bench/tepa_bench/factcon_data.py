r"""Loading MemoryAgentBench fact-consolidation data (official JSON and pool JSONL).

The official 6k file and a small pool ship inside the package (``OFFICIAL_6K`` and
``POOL_6K``, in ``bench/tepa_bench/data/factcon/`` with their licences and a README saying
where they come from); larger pools are read from a path you pass. Two formats are read:

* the official MemoryAgentBench ``Conflict_Resolution`` records: a JSON list of
  ``{"context", "questions", "answers", "metadata": {"source": ...}}``; records with the same
  context (the SH and MH subsets of one length) become one :class:`FactconInstance` with one
  subset per record;
* the pool JSONL files: one instance a line with ``id``, ``context``, ground-truth ``facts``
  and typed ``questions``; the subsets are ``{id}_sh`` and ``{id}_mh``.

The context is ``"Here is a list of facts:\n0. <fact>\n1. <fact>..."``; the fact number is its
time (a higher number is newer).

Example:
    >>> facts = parse_context("Here is a list of facts:\n0. A is a citizen of B.\n1. C.")
    >>> [(f.serial, f.text) for f in facts]
    [(0, 'A is a citizen of B.'), (1, 'C.')]
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from langchain_tepa.core.errors import InvalidArgumentError

__all__ = [
    "DATA_DIR",
    "OFFICIAL_6K",
    "POOL_6K",
    "FactconFact",
    "FactconInstance",
    "FactconQuestion",
    "load_factcon",
    "parse_context",
]

DATA_DIR = Path(__file__).resolve().parent / "data" / "factcon"
"""Folder of the bundled fact-consolidation data, its licences and its README."""
OFFICIAL_6K = DATA_DIR / "mab_conflict_resolution_6k.json"
"""The official MemoryAgentBench ``Conflict_Resolution`` 6k records (MIT), unchanged."""
POOL_6K = DATA_DIR / "factcon_pool_6k.jsonl"
"""A 6k pool instance with ground-truth parses (for ``--oracle-keys`` and extractor metrics)."""

_LINE = re.compile(r"^\s*(\d+)\.\s+(.*\S)\s*$")

QuestionType = Literal["sh", "mh"]


@dataclass(frozen=True)
class FactconFact:
    """One numbered fact; the ground-truth parse is set for pool data only.

    Example:
        >>> FactconFact(0, "A is a citizen of B.").has_parse
        False
    """

    serial: int
    text: str
    subject: str | None = None
    relation: str | None = None
    object: str | None = None

    @property
    def has_parse(self) -> bool:
        """Whether the ground-truth parse is known."""
        return self.subject is not None and self.relation is not None and self.object is not None


@dataclass(frozen=True)
class FactconQuestion:
    """A question with its gold answers.

    Example:
        >>> FactconQuestion("q0", "sh", "Who?", ("B",)).type
        'sh'
    """

    qid: str
    type: QuestionType
    question: str
    answers: tuple[str, ...]
    gold_serials: tuple[int, ...] = ()
    stale_answers: tuple[str, ...] = ()


@dataclass
class FactconInstance:
    """One fact list and the question subsets asked about it.

    Example:
        >>> inst = FactconInstance("x", [FactconFact(0, "A is a citizen of B.")])
        >>> inst.n_facts, inst.has_parses
        (1, False)
    """

    id: str
    facts: list[FactconFact]
    subsets: dict[str, list[FactconQuestion]] = field(default_factory=dict)

    @property
    def n_facts(self) -> int:
        """Number of facts."""
        return len(self.facts)

    @property
    def has_parses(self) -> bool:
        """Whether every fact has its ground-truth parse (pool data)."""
        return bool(self.facts) and all(f.has_parse for f in self.facts)


def parse_context(context: str) -> list[FactconFact]:
    """The numbered facts of a MemoryAgentBench context, in order.

    Raises:
        InvalidArgumentError: If the context holds no numbered fact.
    """
    facts = []
    for line in context.splitlines():
        m = _LINE.match(line)
        if m:
            facts.append(FactconFact(int(m.group(1)), m.group(2)))
    if not facts:
        raise InvalidArgumentError(
            "the context holds no numbered facts; expected lines such as '0. <fact>'"
        )
    facts.sort(key=lambda f: f.serial)
    return facts


def _question_type(source: str) -> QuestionType:
    return "mh" if "_mh" in source or "multi" in source else "sh"


def _load_official(records: list[Any], name: str) -> list[FactconInstance]:
    by_context: dict[str, FactconInstance] = {}
    for n, rec in enumerate(records):
        if not isinstance(rec, dict) or not {"context", "questions", "answers"} <= set(rec):
            raise InvalidArgumentError(
                f"{name}: record {n} lacks context/questions/answers; "
                "expected the MemoryAgentBench Conflict_Resolution format"
            )
        source = str((rec.get("metadata") or {}).get("source") or f"{name}_{n}")
        ids = (rec.get("metadata") or {}).get("qa_pair_ids") or []
        context = rec["context"]
        inst = by_context.get(context)
        if inst is None:
            inst = FactconInstance(source, parse_context(context))
            by_context[context] = inst
        qtype = _question_type(source)
        questions = []
        for i, (q, a) in enumerate(zip(rec["questions"], rec["answers"], strict=True)):
            answers = tuple(a) if isinstance(a, list) else (str(a),)
            qid = str(ids[i]) if i < len(ids) else f"{source}_no{i}"
            questions.append(FactconQuestion(qid, qtype, str(q), answers))
        inst.subsets[source] = questions
    return list(by_context.values())


def _load_pool_line(row: dict[str, Any], name: str) -> FactconInstance:
    if "facts" not in row or "questions" not in row or "id" not in row:
        raise InvalidArgumentError(f"{name}: a line lacks id/facts/questions (pool JSONL format)")
    facts = [
        FactconFact(
            int(f["serial"]),
            str(f["text"]),
            f.get("subject"),
            f.get("relation"),
            f.get("object"),
        )
        for f in row["facts"]
    ]
    facts.sort(key=lambda f: f.serial)
    inst = FactconInstance(str(row["id"]), facts)
    for q in row["questions"]:
        qtype: QuestionType = "mh" if q.get("type") == "mh" else "sh"
        inst.subsets.setdefault(f"{row['id']}_{qtype}", []).append(
            FactconQuestion(
                str(q.get("qid", "")),
                qtype,
                str(q["question"]),
                tuple(q["answers"]),
                tuple(int(s) for s in q.get("gold_serials", ())),
                tuple(q.get("stale_answers", ())),
            )
        )
    return inst


def load_factcon(path: str | Path | None = None) -> list[FactconInstance]:
    """Instances of an official MemoryAgentBench JSON file or a pool JSONL file.

    Args:
        path: ``mab_conflict_resolution_6k.json`` (or any file in that format) or
            ``factcon_pool_*.jsonl``; ``None`` (the default) reads the bundled official 6k
            records (:data:`OFFICIAL_6K`).

    Raises:
        InvalidArgumentError: If the file is missing or in neither format.

    Example:
        >>> [inst.n_facts for inst in load_factcon()]
        [455]
    """
    p = OFFICIAL_6K if path is None else Path(path)
    if not p.is_file():
        hint = (
            "the bundled data is missing from this installation; reinstall langchain-tepa"
            if path is None
            else "pass --data PATH to a factcon file (official MemoryAgentBench JSON or pool JSONL)"
        )
        raise InvalidArgumentError(f"no such data file: {p}; {hint}")
    text = p.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _load_official(json.loads(text), p.stem)
    instances = []
    for n, line in enumerate(text.splitlines()):
        if line.strip():
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidArgumentError(f"{p}: line {n + 1} is not JSON ({exc})") from exc
            instances.append(_load_pool_line(row, p.name))
    if not instances:
        raise InvalidArgumentError(f"{p} holds no instances")
    return instances
