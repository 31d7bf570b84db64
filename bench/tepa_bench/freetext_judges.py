"""Scripted judge models and the direct-delete design of ``tepa-bench run freetext`` (issue 37).

The model path of free-text items (``TEPAMemory(judge=...)``) is measured with *scripted* chat
models, so the mechanism is measured apart from any real model's skill:

- :class:`GoldJudgeModel` (declared oracle): it answers every pair it is shown from the gold
  labels. It is the only system that reads them; it stands for a model that never errs, so
  its figures are the mechanism's ceiling.
- the same model *wrong* on a share ``p`` of its decisions (``wrong=0.1``, ``0.2``): each
  (new memory, earlier memory) relation it answers, and each new memory's flags, is wrong with
  probability ``p``, decided by a seeded hash of the texts (so every system hears the same
  wrong answers for the same pair). A wrong relation is one of the other answers, drawn the
  same way; wrong flags have one flag toggled. ``wrong10rel`` errs on relations only (its
  flags are right), to tell the two kinds of error apart.

Both are ordinary LangChain chat models: they read only the prompt a
:class:`~langchain_tepa.extraction.judge.ReplacementJudge` sends (the new texts and the
candidates' texts, as JSON) and answer in its JSON form.

:func:`direct_delete_system` is the other design on the same answers, like Mem0's update step
(ADD/UPDATE/DELETE/NONE, a DELETE is final): memories in a plain list per user, the same
candidates (the same shortlist rule as TEPA's: shared offline claim keys first, then cosine;
at most 8), the same judge prompt and model, and a ``replaces`` deletes the candidate at once.
No flag and no confidence vetoes a delete: Mem0's update prompt has neither (its model is
asked only ADD/UPDATE/DELETE/NONE per memory). A failed call adds the memory and deletes
nothing, as TEPA's path does.

Example:
    >>> from tepa_bench.freetext_data import Label
    >>> labels = {("I live in Lisbon.", "I moved to Oslo."): Label("replaces")}
    >>> system = direct_delete_system("delete-gold/direct", GoldJudgeModel(labels=labels))
    >>> system.write("s1", "I live in Lisbon.")
    >>> system.write("s1", "I moved to Oslo.")
    >>> system.search("s1", "where does the user live", 3)
    ['I moved to Oslo.']
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from langchain_tepa import HashingEmbeddings, JudgeError, ReplacementJudge
from langchain_tepa.extraction.judge import FLAGS, Candidate, JudgeRequest, Statement
from tepa_bench.freetext_data import Label

__all__ = [
    "JUDGE_SYSTEMS",
    "GoldJudgeModel",
    "compare_designs",
    "direct_delete_system",
    "judge_model",
]

JUDGE_SYSTEMS: dict[str, tuple[float, bool]] = {
    "gold": (0.0, False),
    "wrong10": (0.1, True),
    "wrong20": (0.2, True),
    "wrong10rel": (0.1, False),
}
"""Scripted judge models by system name: the share of decisions each gets wrong, and whether
its flags are decisions that can be wrong too (``wrong10rel``: only its relations are)."""

_ANSWERS = ("replaces", "adds", "unrelated")
_MAX_CANDIDATES = 8


def _norm(text: str) -> str:
    return " ".join(text.split())


def _flags(label: Label) -> frozenset[str]:
    return frozenset(f for f in FLAGS if getattr(label, f))


def _unit(key: str) -> float:
    """A number in [0, 1) fixed by ``key`` (the seeded coin of the wrong models)."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class GoldJudgeModel(BaseChatModel):
    """A scripted judge: the gold labels, each decision wrong with probability ``wrong``.

    Declared oracle: with ``wrong=0`` it answers from the gold labels (module docstring).
    """

    labels: dict[tuple[str, str], Label] = Field(default_factory=dict)
    """``(earlier text, later text) -> Label`` (:func:`~tepa_bench.freetext_data.pair_labels`)."""
    wrong: float = 0.0
    wrong_flags: bool = True
    seed: int = 0
    confidence: float = 0.9
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted-judge"

    def model_post_init(self, context: Any, /) -> None:
        """Key the labels by texts with their whitespace collapsed, as the prompt shows them."""
        self.labels = {(_norm(a), _norm(b)): label for (a, b), label in self.labels.items()}

    def _coin(self, *parts: str) -> float:
        return _unit("\x00".join((str(self.seed), *parts)))

    def relation(self, earlier: str, later: str) -> str:
        """The answer for a pair (the gold relation, or a wrong one)."""
        known = self.labels.get((_norm(earlier), _norm(later)))
        gold = "unrelated" if known is None else known.relation
        if self.wrong <= 0 or self._coin("relation", earlier, later) >= self.wrong:
            return gold
        others = [r for r in _ANSWERS if r != gold]
        return others[int(self._coin("which", earlier, later) * len(others))]

    def flags(self, later: str, earlier_texts: Sequence[str]) -> frozenset[str]:
        """The answer's flags for a new memory (gold, or one toggled)."""
        gold: frozenset[str] = frozenset()
        for earlier in earlier_texts:
            label = self.labels.get((_norm(earlier), _norm(later)))
            if label is not None:
                gold = _flags(label)
                break
        if not self.wrong_flags or self.wrong <= 0 or self._coin("flags", later) >= self.wrong:
            return gold
        flip = FLAGS[int(self._coin("flag", later) * len(FLAGS))]
        return gold ^ {flip}

    def answer(self, body: Mapping[str, Any]) -> str:
        """The JSON answer to the judge's prompt body."""
        memories = []
        shown = [str(c["text"]) for c in body["earlier"]]
        ids = [str(c["id"]) for c in body["earlier"]]
        for i, new in enumerate(body["new"]):
            text = str(new["text"])
            before = shown + [str(n["text"]) for n in body["new"][:i]]
            before_ids = ids + [str(n["id"]) for n in body["new"][:i]]
            verdicts = []
            for cid, earlier in zip(before_ids, before, strict=True):
                relation = self.relation(earlier, text)
                if relation != "unrelated":
                    verdicts.append(
                        {
                            "candidate": cid,
                            "relation": relation,
                            "confidence": self.confidence,
                            "reason": "scripted",
                        }
                    )
            entry: dict[str, Any] = {"id": new["id"], "verdicts": verdicts}
            entry.update(dict.fromkeys(self.flags(text, before), True))
            memories.append(entry)
        return json.dumps({"memories": memories})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls += 1
        body = json.loads(str(messages[-1].content))
        message = AIMessage(self.answer(body))
        return ChatResult(generations=[ChatGeneration(message=message)])


def judge_model(name: str, labels: Mapping[tuple[str, str], Label], seed: int = 0) -> Any:
    """The scripted model of a judge system name (a key of :data:`JUDGE_SYSTEMS`)."""
    wrong, flags = JUDGE_SYSTEMS[name]
    return GoldJudgeModel(labels=dict(labels), wrong=wrong, wrong_flags=flags, seed=seed)


# ---------------------------------------------------------------------- direct delete
def _hint_keys(text: str, cache: dict[str, frozenset[str]]) -> frozenset[str]:
    if text not in cache:
        from langchain_tepa.extraction import resolve_extractor

        cache[text] = frozenset(f.key for f in resolve_extractor(None).extract(text))
    return cache[text]


def direct_delete_system(
    name: str, model: BaseChatModel, embeddings: Embeddings | None = None
) -> Any:
    """Mem0's design on the judge's answers: a ``replaces`` deletes the candidate at once."""
    from tepa_bench.freetext_systems import FreeTextSystem

    emb = embeddings or HashingEmbeddings()
    judge = ReplacementJudge(model, max_candidates=_MAX_CANDIDATES, timeout_s=None)
    live: dict[str, list[tuple[str, np.ndarray]]] = {}
    hints: dict[str, frozenset[str]] = {}

    def vector(text: str) -> np.ndarray:
        v = np.asarray(emb.embed_query(text), dtype=float)
        norm = float(np.linalg.norm(v))
        return v / norm if norm else v

    def write(sid: str, text: str) -> None:
        memories = live.setdefault(sid, [])
        vec = vector(text)
        mine = _hint_keys(text, hints)
        scored = sorted(
            range(len(memories)),
            key=lambda i: (
                -(
                    float(memories[i][1] @ vec)
                    + (2.0 if mine & _hint_keys(memories[i][0], hints) else 0)
                )
            ),
        )[:_MAX_CANDIDATES]
        if scored:
            request = JudgeRequest(
                [Statement("n1", text)],
                [Candidate(f"c{n + 1}", memories[i][0]) for n, i in enumerate(scored)],
            )
            try:
                (judgement,) = judge.judge(request)
            except JudgeError:
                judgement = None
            if judgement is not None:
                gone = {
                    scored[int(v.candidate[1:]) - 1]
                    for v in judgement.verdicts
                    if v.relation == "replaces" and v.candidate.startswith("c")
                }
                memories[:] = [m for i, m in enumerate(memories) if i not in gone]
        memories.append((text, vec))

    def search(sid: str, query: str, k: int) -> list[str]:
        memories = live.get(sid, [])
        vec = vector(query)
        order = sorted(range(len(memories)), key=lambda i: -float(memories[i][1] @ vec))
        return [memories[i][0] for i in order[:k]]

    return FreeTextSystem(name, write, search)


def compare_designs(systems: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """TEPA's judge path against the direct-delete design on the same answers, paired.

    For each ``judge-<model>/store`` with a ``delete-<model>/direct`` in the run (``wrong10rel``
    is paired with ``delete-wrong10``: the direct-delete design reads no flags, so their
    answers that matter are the same): the differences of stale served and of hidden true
    memories, TEPA minus direct delete, in percentage points, each with the two-sided paired
    permutation test the other benchmark verdicts use (pairs: the change scenarios' stale
    outcomes; every scenario's count of true memories hidden).

    Example:
        >>> one = {"per_scenario": {"stale": [1, 0], "hidden": [0, 0]}, "stale_served": 50.0}
        >>> two = {"per_scenario": {"stale": [1, 1], "hidden": [0, 1]}, "stale_served": 100.0}
        >>> compare_designs({"judge-gold/store": one, "delete-gold/direct": two})[
        ...     "judge-gold/store vs delete-gold/direct"]["stale_diff_pct"]
        -50.0
    """
    from tepa_bench.stats import paired_permutation_test

    out: dict[str, dict[str, Any]] = {}
    for name in JUDGE_SYSTEMS:
        ours, theirs = f"judge-{name}/store", f"delete-{name.removesuffix('rel')}/direct"
        if ours not in systems or theirs not in systems:
            continue
        a, b = systems[ours]["per_scenario"], systems[theirs]["per_scenario"]
        row: dict[str, Any] = {}
        for metric, pct in (("stale", "stale_served"), ("hidden", "hidden_true")):
            x, y = np.asarray(a[metric], float), np.asarray(b[metric], float)
            mine, other = systems[ours].get(pct), systems[theirs].get(pct)
            row[f"{metric}_diff_pct"] = None if mine is None or other is None else mine - other
            row[f"{metric}_p"] = paired_permutation_test(x, y) if x.size else None
        out[f"{ours} vs {theirs}"] = row
    return out
