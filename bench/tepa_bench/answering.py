"""Answering questions from the Active set of a memory: single-hop and hop-by-hop multi-hop.

No question templates: a question is matched against what the memory holds.

1. **Entity.** The question's words (case-folded, punctuation dropped) are searched for the
   subjects of Active keys (a key ``"{subject}.{relation}"`` has the subject ``subject``;
   ``washington_d_c`` is found in "... of Washington, D.C.?"). Longer matches win.
2. **Relation.** Each key of that subject is described by the words of its relation segment and
   of its precedents' texts, minus the subject's and the values' words. Words are compared by a
   crude stem (plural ``s`` dropped, then the first five letters: ``citizenship`` and
   ``citizen`` meet). The key whose words cover the question's content words best (weighted by
   inverse key frequency) is chosen; ties go to the embedding similarity of question and text.
3. **Value.** Among the key's Active precedents the reader takes the one with the highest
   posterior validity, then the highest similarity to the question. It never looks at time: if
   a stale value is still Active and as valid as the new one, the reader may take it. Keeping the
   Active set right is the memory's job.
4. **Multi-hop.** Chains ``subject -> value -> value ...`` (up to ``max_hops``) are enumerated over
   the Active set: each hop's value must itself be a subject with keys. A chain is scored by the
   question words its relations cover, minus a third of the words left uncovered, minus a small
   cost per hop. A *blind* hop (its relation shares no word with the question, as with the
   paraphrase "spouse" for "married to") is allowed only while some group of question words is
   still unexplained, and earns ``blind_credit`` (0 by default: paraphrased hops are missed
   rather than guessed). The best chain's last value is the answer; the hops are kept as a
   trace.

Metric (MemoryAgentBench): :func:`substring_exact_match`.

Example:
    >>> normalize_answer("The  Beatles!")
    'beatles'
    >>> substring_exact_match("It is the Beatles.", ["Beatles"])
    True
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from langchain_core.documents import Document

from langchain_tepa import TEPAMemory
from langchain_tepa.extraction import normalize_key_part

__all__ = [
    "ActiveIndex",
    "Answer",
    "Hop",
    "normalize_answer",
    "stem",
    "substring_exact_match",
]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_STOP_TEXT = """a an the of in on at by for to from with as into about and or is are was were be
been being am do does did has have had what which who whom whose where when why how that this
these those it its his her their there name current currently"""
STOPWORDS: frozenset[str] = frozenset(_STOP_TEXT.split())
"""Function words (and question words) that carry no relation meaning."""


def normalize_answer(text: str) -> str:
    """MemoryAgentBench normalisation: lower case, no punctuation, no articles, single spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def substring_exact_match(prediction: str, answers: Iterable[str]) -> bool:
    """Correct when a normalised gold answer occurs in the normalised prediction."""
    pred = normalize_answer(prediction)
    return any((gold := normalize_answer(a)) and gold in pred for a in answers)


def stem(word: str) -> str:
    """A crude stem: case-folded, plural ``s`` dropped, cut to five letters.

    Example:
        >>> stem("Citizenship") == stem("citizen")
        True
    """
    w = word.casefold()
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    return w[:5]


def _content_stems(words: Iterable[str], drop: set[str] | frozenset[str] = frozenset()) -> set[str]:
    return {stem(w) for w in words if w not in STOPWORDS and w not in drop and not w.isdigit()}


@dataclass(frozen=True)
class Hop:
    """One hop of an answer: the key used and the value read."""

    subject: str
    key: str
    value: str
    validity: float
    text: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "subject": self.subject,
            "key": self.key,
            "value": self.value,
            "validity": round(self.validity, 4),
            "text": self.text,
        }


@dataclass
class Answer:
    """The answer text and how it was found."""

    text: str
    hops: list[Hop] = field(default_factory=list)
    score: float = 0.0

    def trace(self) -> str:
        """The hops as ``subject -[key]-> value`` steps."""
        return " ; ".join(f"{h.subject} -[{h.key}]-> {h.value}" for h in self.hops) or "(none)"


@dataclass
class _KeyEntry:
    key: str
    subject: str
    stems: set[str]
    docs: list[Document]


class ActiveIndex:
    """A snapshot of a memory's Active set, indexed for question answering.

    Build it after ingestion; it does not follow later writes.

    Args:
        memory: The memory.
        namespace: Its namespace to read (default: the memory's).
        max_subject_words: Longest subject (in words) searched for in questions.
        blind_credit: Credit (in units of the largest word weight) of a multi-hop hop whose
            relation shares no word with the question but fills an unexplained word group.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> mem = TEPAMemory.in_memory()
        >>> _ = mem.add_texts(["Ada Lovelace is a citizen of England."])
        >>> ActiveIndex(mem).answer("Which country is Ada Lovelace a citizen of?").text
        'England'
    """

    def __init__(
        self,
        memory: TEPAMemory,
        *,
        namespace: str | None = None,
        max_subject_words: int = 16,
        blind_credit: float = 0.0,
    ) -> None:
        self.memory = memory
        docs = memory.active_documents(namespace=namespace)
        by_key: dict[str, list[Document]] = {}
        for doc in docs:
            by_key.setdefault(doc.metadata["key"], []).append(doc)
        self.by_subject: dict[str, list[_KeyEntry]] = {}
        df: Counter[str] = Counter()
        for key, kdocs in by_key.items():
            subject_raw, _, relation = key.rpartition(".")
            subject = normalize_key_part(subject_raw or key)
            drop = set(subject.split("_"))
            words = [w for w in relation.split("_") if w]
            for d in kdocs:
                value_words = set(_WORD.findall(str(d.metadata["value"]).casefold()))
                words.extend(
                    w for w in _WORD.findall(d.page_content.casefold()) if w not in value_words
                )
            stems = _content_stems(words, drop)
            entry = _KeyEntry(key, subject, stems, kdocs)
            self.by_subject.setdefault(subject, []).append(entry)
            df.update(stems)
        n = max(1, len(by_key))
        self._idf = {w: math.log(1 + n / c) for w, c in df.items()}
        self._default_idf = math.log(1 + n)
        self.max_subject_words = max_subject_words
        self.blind_credit = blind_credit
        self._vec_cache: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ helpers
    def _idf_of(self, w: str) -> float:
        return self._idf.get(w, self._default_idf)

    def _vec(self, text: str) -> np.ndarray:
        v = self._vec_cache.get(text)
        if v is None:
            v = np.asarray(self.memory.embeddings.embed_query(text), dtype=np.float64)
            self._vec_cache[text] = v
        return v

    def subject_spans(self, words: Sequence[str]) -> list[tuple[int, int, str]]:
        """Maximal spans ``(start, end, subject)`` of the words that are known subjects."""
        found = []
        for i in range(len(words)):
            for j in range(min(len(words), i + self.max_subject_words), i, -1):
                cand = "_".join(words[i:j])
                if cand in self.by_subject:
                    found.append((i, j, cand))
                    break
        maximal = [
            s for s in found if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in found)
        ]
        return sorted(maximal, key=lambda s: (-(s[1] - s[0]), s[0]))

    def best_doc(self, entry: _KeyEntry, question: str) -> Document:
        """The Active precedent read for a key: highest validity, then most similar."""
        if len(entry.docs) == 1:
            return entry.docs[0]
        q = self._vec(question)
        return max(
            entry.docs,
            key=lambda d: (d.metadata["validity"], float(self._vec(d.page_content) @ q)),
        )

    def _hop(self, entry: _KeyEntry, question: str) -> Hop:
        doc = self.best_doc(entry, question)
        return Hop(
            entry.subject,
            entry.key,
            str(doc.metadata["value"]),
            doc.metadata["validity"],
            doc.page_content,
        )

    # ------------------------------------------------------------------ single hop
    def answer(self, question: str) -> Answer:
        """Single-hop: the value of the key of the question's subject that fits it best."""
        words = _WORD.findall(question.casefold())
        best: tuple[float, float, _KeyEntry] | None = None
        for start, end, subject in self.subject_spans(words):
            qstems = _content_stems(words[:start] + words[end:])
            for entry in self.by_subject[subject]:
                overlap = sum(self._idf_of(w) for w in qstems & entry.stems)
                tie = float(self._vec(question) @ self._vec(entry.docs[0].page_content))
                score = overlap + 0.2 * (end - start)
                if best is None or (score, tie) > (best[0], best[1]):
                    best = (score, tie, entry)
        if best is None:
            return self._fallback(question)
        hop = self._hop(best[2], question)
        return Answer(hop.value, [hop], best[0])

    def _fallback(self, question: str) -> Answer:
        docs = self.memory.retrieve(question, k=1)
        if not docs:
            return Answer("")
        d = docs[0]
        return Answer(
            str(d.metadata["value"]),
            [
                Hop(
                    "",
                    d.metadata["key"],
                    str(d.metadata["value"]),
                    d.metadata["validity"],
                    d.page_content,
                )
            ],
        )

    # ------------------------------------------------------------------ multi hop
    def answer_chain(self, question: str, *, max_hops: int = 4) -> Answer:
        """Multi-hop: the best chain of keys from the question's subject (see module docs)."""
        words = _WORD.findall(question.casefold())
        best: Answer | None = None
        for start, end, subject in self.subject_spans(words):
            rest = words[:start] + words[end:]
            qstems = _content_stems(rest)
            groups = self._groups(rest)
            for chain in self._chains(subject, max_hops):
                score = self._chain_score(chain, qstems, groups) + 0.2 * (end - start)
                if best is None or score > best.score:
                    hops = self._read_chain(chain, question)
                    if hops is None:
                        continue
                    best = Answer(hops[-1].value, hops, score)
        if best is None:
            return self._fallback(question)
        return best

    @staticmethod
    def _groups(words: Sequence[str]) -> list[set[str]]:
        groups: list[set[str]] = []
        current: set[str] = set()
        for w in words:
            if w in STOPWORDS or w.isdigit():
                if current:
                    groups.append(current)
                current = set()
            else:
                current.add(stem(w))
        if current:
            groups.append(current)
        return groups

    def entity(self, value: str) -> str | None:
        """The subject a value names (``"The Wharton School"`` -> ``wharton_school``), if any."""
        name = normalize_key_part(value)
        if name in self.by_subject:
            return name
        for article in ("the_", "a_", "an_"):
            if name.startswith(article) and name[len(article) :] in self.by_subject:
                return name[len(article) :]
            if article + name in self.by_subject:
                return article + name
        return None

    def _chains(self, subject: str, max_hops: int) -> list[list[_KeyEntry]]:
        chains: list[list[_KeyEntry]] = []
        frontier: list[list[_KeyEntry]] = [[e] for e in self.by_subject.get(subject, [])]
        for depth in range(1, max_hops + 1):
            chains.extend(frontier)
            if depth == max_hops:
                break
            nxt: list[list[_KeyEntry]] = []
            for chain in frontier:
                used = {e.key for e in chain}
                for target in dict.fromkeys(
                    self.entity(str(d.metadata["value"])) for d in chain[-1].docs
                ):
                    for entry in self.by_subject.get(target or "", []):
                        if entry.key not in used:  # a chain may revisit a subject, not a key
                            nxt.append([*chain, entry])
            frontier = nxt
        return chains

    def _chain_score(
        self, chain: list[_KeyEntry], qstems: set[str], groups: list[set[str]]
    ) -> float:
        covered: set[str] = set()
        blind = 0
        for entry in chain:
            hit = qstems & entry.stems
            if not hit:
                blind += 1
            covered |= hit
        uncovered_groups = sum(1 for g in groups if not g & covered)
        score = sum(self._idf_of(w) for w in covered)
        score -= 0.3 * sum(self._idf_of(w) for w in qstems - covered)
        if blind > uncovered_groups:
            score -= 10.0 * (blind - uncovered_groups)
        # a hop that explains an otherwise unexplained group of words earns half the credit
        # of a matched word
        score += self.blind_credit * self._default_idf * min(blind, uncovered_groups)
        score -= 0.05 * len(chain)
        return score

    def _read_chain(self, chain: list[_KeyEntry], question: str) -> list[Hop] | None:
        hops: list[Hop] = []
        for i, entry in enumerate(chain):
            if i > 0 and self.entity(hops[-1].value) != entry.subject:
                return None  # the best value of the previous hop leads elsewhere
            hops.append(self._hop(entry, question))
        return hops
