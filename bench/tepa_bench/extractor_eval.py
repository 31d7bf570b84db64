"""Precision and recall of a fact extractor against the pools' ground-truth parses.

Each pool fact has its sentence and its parse ``(subject, relation, object)``. The extractor reads
the sentence alone. Definitions:

* An extracted fact is **correct** for its sentence when

  - its value equals the gold object after MemoryAgentBench answer normalisation (lower case,
    punctuation and articles a/an/the dropped, whitespace collapsed), and
  - its key's subject (the key without its last ``.`` segment) equals the gold subject in key
    form (:func:`~langchain_tepa.extraction.offline.normalize_key_part`, a leading article
    dropped on both sides).

  The **lenient** variant also accepts a subject whose words, together with the relation's, hold
  every word of the gold subject, while the key's subject words all occur in the gold subject
  ("The President of Austria is X": gold subject *President of Austria*, extracted
  ``austria.president``); the function words a, an, the, of, in, for, at are ignored there.
* **Precision** = correct extracted facts / extracted facts.
* **Recall** = gold facts with at least one correct extracted fact / gold facts.
* **Key consistency** (the relation is a Wikidata id, so it is not compared by name): a gold key
  ``(subject, relation)`` is *split* when its facts were stored under more than one extracted key,
  and an extracted key is *merged* when it holds facts of more than one gold key.

Example:
    >>> from tepa_bench.factcon_data import FactconFact
    >>> from langchain_tepa.extraction.offline import OfflineFactExtractor
    >>> gold = FactconFact(0, "Ada is a citizen of France.", "Ada", "P27", "France")
    >>> extraction_correct(gold, OfflineFactExtractor().extract(gold.text))
    True
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_tepa import Fact
from langchain_tepa.extraction import FactExtractor, OfflineFactExtractor, normalize_key_part
from tepa_bench.answering import normalize_answer
from tepa_bench.factcon_data import POOL_6K, FactconFact, load_factcon

__all__ = ["evaluate_extractor", "extraction_correct", "fact_correct"]

_ARTICLES = ("the_", "a_", "an_")
_FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "in", "for", "at"})


def _strip_article(subject: str) -> str:
    for art in _ARTICLES:
        if subject.startswith(art) and len(subject) > len(art):
            return subject[len(art) :]
    return subject


def fact_correct(gold: FactconFact, fact: Fact, *, lenient: bool = False) -> bool:
    """Whether one extracted fact matches the gold parse (see the module definitions)."""
    if gold.subject is None or gold.object is None:
        return False
    if normalize_answer(str(fact.value)) != normalize_answer(gold.object):
        return False
    subject, _, relation = fact.key.rpartition(".")
    gold_subject = _strip_article(normalize_key_part(gold.subject))
    if _strip_article(subject) == gold_subject:
        return True
    if not lenient:
        return False
    key_words = (set(subject.split("_")) | set(relation.split("_"))) - _FUNCTION_WORDS
    gold_words = set(gold_subject.split("_")) - _FUNCTION_WORDS
    subject_words = set(_strip_article(subject).split("_")) - _FUNCTION_WORDS
    return bool(subject_words) and gold_words <= key_words and subject_words <= gold_words


def extraction_correct(gold: FactconFact, facts: Sequence[Fact], *, lenient: bool = False) -> bool:
    """Whether any of ``facts`` (extracted from ``gold.text``) is correct."""
    return any(fact_correct(gold, f, lenient=lenient) for f in facts)


def evaluate_extractor(path: str | Path, extractor: FactExtractor | None = None) -> dict[str, Any]:
    """Precision, recall and key consistency of ``extractor`` on a pool file.

    Args:
        path: A pool JSONL file with ground-truth parses.
        extractor: The extractor (default: :class:`OfflineFactExtractor`).

    Returns:
        ``{"data", "facts", "extracted", "precision", "recall", "precision_lenient",
        "recall_lenient", "split_keys", "merged_keys", "gold_keys", "seconds",
        "facts_per_s"}``.
    """
    extractor = extractor or OfflineFactExtractor()
    golds = [f for inst in load_factcon(path) for f in inst.facts if f.has_parse]
    extracted = correct = correct_l = recalled = recalled_l = 0
    keys_of_gold: dict[tuple[str, str], set[str]] = defaultdict(set)
    golds_of_key: dict[str, set[tuple[str, str]]] = defaultdict(set)
    start = time.perf_counter()
    results = [extractor.extract(g.text) for g in golds]
    seconds = time.perf_counter() - start
    for gold, facts in zip(golds, results, strict=True):
        extracted += len(facts)
        ok = [fact_correct(gold, f) for f in facts]
        ok_l = [fact_correct(gold, f, lenient=True) for f in facts]
        correct += sum(ok)
        correct_l += sum(ok_l)
        recalled += any(ok)
        recalled_l += any(ok_l)
        gkey = (str(gold.subject), str(gold.relation))
        keys_of_gold.setdefault(gkey, set())
        for f in facts:
            keys_of_gold[gkey].add(f.key)
            golds_of_key[f.key].add(gkey)
    n = len(golds)
    return {
        "data": str(path),
        "facts": n,
        "extracted": extracted,
        "precision": round(correct / extracted, 4) if extracted else 0.0,
        "recall": round(recalled / n, 4) if n else 0.0,
        "precision_lenient": round(correct_l / extracted, 4) if extracted else 0.0,
        "recall_lenient": round(recalled_l / n, 4) if n else 0.0,
        "gold_keys": len(keys_of_gold),
        "split_keys": sum(1 for v in keys_of_gold.values() if len(v) > 1),
        "merged_keys": sum(1 for v in golds_of_key.values() if len(v) > 1),
        "seconds": round(seconds, 3),
        "facts_per_s": round(n / seconds, 1) if seconds > 0 else None,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m tepa_bench.extractor_eval POOL.jsonl ...``: print JSON figures."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "paths",
        nargs="*",
        help="pool JSONL files with ground-truth parses (default: the 6k pool bundled with the "
        "package)",
    )
    args = parser.parse_args(argv)
    for p in args.paths or [str(POOL_6K)]:
        print(json.dumps(evaluate_extractor(p)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
