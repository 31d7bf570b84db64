"""Scenario ``factcon``: MemoryAgentBench fact consolidation (conflict resolution).

For every method and instance a fresh memory ingests the numbered facts in order, one fact per
``add_texts`` call, with the fact number as the memory's clock (a higher number is newer), through
the offline extractor and key resolution: the benchmark sees only the text. With
``oracle_keys=True`` (pools only) the ground-truth parses are observed instead
(key ``"{subject}.{wikidata id}"``, value = object), which separates extraction errors from
memory errors.

Then each question is answered from the memory's Active set (:mod:`tepa_bench.answering`):
single-hop subsets read one key, multi-hop subsets (source containing ``_mh``) resolve the chain
hop by hop. ``reader="openai"`` instead gives ``ChatOpenAI`` the Active facts found for the
question (the offline trace plus the top retrieved precedents) and takes its short answer.

Metric: substring exact match after normalisation (MemoryAgentBench).

Result JSON::

    {"scenario": "factcon", "data": PATH, "config": {...},
     "methods": {NAME: {"subsets": {SOURCE: {
         "accuracy", "n", "ingest_s", "facts_per_s",          # the contract
         "n_facts", "keys", "active", "resolved_keys",         # memory after ingestion
         "answer_s", "errors", "extractor_errors", "extractor_error_share",  # pools only
         "examples": [{"qid", "question", "answers", "prediction", "correct", "trace"}]}}}}}

``extractor_errors`` counts wrong answers for which a fact the gold answer depends on
(``gold_serials``) was not extracted correctly (see
:func:`~tepa_bench.extractor_eval.extraction_correct`); ``extractor_error_share`` is
their share of the errors (``null`` without errors or without ground-truth parses).

Example:
    >>> from tepa_bench.factcon_data import FactconFact, FactconInstance, FactconQuestion
    >>> inst = FactconInstance("toy", [FactconFact(0, "Ada is a citizen of France."),
    ...                                FactconFact(1, "Ada is a citizen of Peru.")])
    >>> inst.subsets["toy_sh"] = [FactconQuestion("q", "sh", "Where is Ada a citizen?", ("Peru",))]
    >>> run_instances([inst], methods=["lww"])["methods"]["lww"]["subsets"]["toy_sh"]["accuracy"]
    1.0
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from langchain_tepa import (
    POLICY_NAMES,
    Fact,
    HashingEmbeddings,
    InvalidArgumentError,
    LifecyclePolicy,
    TEPAMemory,
)
from langchain_tepa.extraction import OfflineFactExtractor, normalize_key_part
from tepa_bench.answering import ActiveIndex, Answer, substring_exact_match
from tepa_bench.extractor_eval import extraction_correct
from tepa_bench.factcon_data import (
    OFFICIAL_6K,
    FactconInstance,
    FactconQuestion,
    load_factcon,
)

__all__ = [
    "FACTCON_METHODS",
    "FactconConfig",
    "OpenAIReader",
    "format_factcon_table",
    "ingest_instance",
    "run_factcon",
    "run_instances",
]

FACTCON_METHODS: tuple[str, ...] = ("append-only", "lww", "tepa-norev", "tepa-rev")
"""Methods run by default (``tepa-full`` needs trials, which this scenario has none of)."""

StorageKind = Literal["memory", "chroma"]
ReaderKind = Literal["offline", "openai"]
MAX_EXAMPLES = 100


@dataclass(frozen=True)
class FactconConfig:
    """Settings of a factcon run.

    Attributes:
        data: Path of an official JSON or pool JSONL file; empty (the default) for the
            official 6k records bundled with the package (``factcon_data.OFFICIAL_6K``).
        methods: Policy presets to compare.
        oracle_keys: Observe the ground-truth parses instead of extracting (pools only).
        reader: ``"offline"`` (the Active-set reader) or ``"openai"`` (``ChatOpenAI``).
        model: Chat model name of the OpenAI reader.
        base_url: Base URL of the OpenAI reader (an OpenAI-compatible server).
        storage: ``"memory"`` (in-process) or ``"chroma"`` (embedded persistent Chroma in a
            temporary folder).
        max_hops: Longest chain of the multi-hop reader.
        limit_questions: Answer only the first N questions of each subset.
        examples: Questions per subset kept in the JSON (with their trace).
        batch: Facts per ``add_texts`` call (1: one call per fact, time = fact number; larger
            batches are for slow storage such as Chroma, see :func:`ingest_instance`).

    Example:
        >>> FactconConfig().methods
        ('append-only', 'lww', 'tepa-norev', 'tepa-rev')
    """

    data: str = ""
    methods: tuple[str, ...] = FACTCON_METHODS
    oracle_keys: bool = False
    reader: ReaderKind = "offline"
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    storage: StorageKind = "memory"
    max_hops: int = 4
    limit_questions: int | None = None
    examples: int = 20
    batch: int = 1

    def __post_init__(self) -> None:
        bad = [m for m in self.methods if m not in POLICY_NAMES]
        if bad:
            raise InvalidArgumentError(f"unknown methods {bad}; choose from {POLICY_NAMES}")
        if self.reader not in ("offline", "openai"):
            raise InvalidArgumentError("reader must be 'offline' or 'openai'")
        if self.storage not in ("memory", "chroma"):
            raise InvalidArgumentError("storage must be 'memory' or 'chroma'")
        if isinstance(self.batch, bool) or not isinstance(self.batch, int) or self.batch < 1:
            raise InvalidArgumentError(f"batch must be an integer >= 1, got {self.batch!r}")
        if not 1 <= self.max_hops <= 5:
            raise InvalidArgumentError("max_hops must be within 1..5")


class OpenAIReader:
    """Answers from retrieved Active facts with ``ChatOpenAI`` (needs a key or a local server).

    Args:
        model: Chat model name.
        base_url: Base URL of an OpenAI-compatible server (``None``: OpenAI).
        api_key: API key (default: ``OPENAI_API_KEY``).
        k: Retrieved precedents added to the offline reader's trace.

    Example:
        >>> OpenAIReader(api_key="sk-test", base_url="http://127.0.0.1:9/v1").k
        12
    """

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        k: int = 12,
    ) -> None:
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise InvalidArgumentError(
                "the openai reader needs OPENAI_API_KEY (or api_key=...); "
                "use reader='offline' without one"
            )
        from langchain_openai import ChatOpenAI

        kwargs: dict[str, Any] = {"model": model, "temperature": 0, "api_key": key}
        if base_url:
            kwargs["base_url"] = base_url
        self.llm = ChatOpenAI(**kwargs)
        self.k = k

    def prompt(self, question: str, facts: Sequence[str]) -> str:
        """The prompt sent for one question."""
        listed = "\n".join(f"- {f}" for f in facts) or "- (no facts)"
        return (
            "These facts are currently valid (older contradicted facts were removed):\n"
            f"{listed}\n\nAnswer the question with a short phrase only, no sentence. If it "
            "needs several steps, follow the facts step by step.\n"
            f"Question: {question}\nAnswer:"
        )

    def __call__(self, question: str, offline: Answer, docs: Sequence[Document]) -> str:
        """The model's answer given the offline trace and retrieved documents."""
        facts = list(dict.fromkeys([h.text for h in offline.hops] + [d.page_content for d in docs]))
        reply = self.llm.invoke(self.prompt(question, facts))
        return str(reply.content).strip()


def _box_clock(box: list[float]) -> Callable[[], float]:
    """A clock reading the current fact number from ``box[0]``."""
    return lambda: box[0]


def _new_memory(
    method: str,
    storage: StorageKind,
    clock: Callable[[], float],
    embeddings: Embeddings,
) -> tuple[TEPAMemory, Callable[[], None]]:
    policy = LifecyclePolicy.preset(method)
    if storage == "memory":
        mem = TEPAMemory.in_memory(embeddings=embeddings, policy=policy, clock=clock)
        return mem, mem.close
    folder = tempfile.mkdtemp(prefix="tepa-factcon-")
    mem = TEPAMemory.from_path(
        folder,
        prefix="f" + uuid.uuid4().hex[:10],
        embeddings=embeddings,
        policy=policy,
        clock=clock,
    )

    def cleanup() -> None:
        mem.close()
        shutil.rmtree(folder, ignore_errors=True)

    return mem, cleanup


def ingest_instance(
    memory: TEPAMemory,
    instance: FactconInstance,
    *,
    oracle_keys: bool,
    clock_box: list[float],
    batch: int = 1,
) -> float:
    """Feed the facts in order (``clock_box[0]`` = fact number); returns seconds spent.

    With ``batch > 1`` the facts go ``batch`` at a time through one ``add_texts`` (or
    ``observe_many``) call; the records of a batch share the time of its first fact and keep
    their order (evidence ids increase).
    """
    start = time.perf_counter()
    for i in range(0, len(instance.facts), batch):
        chunk = instance.facts[i : i + batch]
        clock_box[0] = float(chunk[0].serial)
        if oracle_keys:
            memory.observe_many(
                [
                    Fact(
                        f"{normalize_key_part(str(f.subject))}.{str(f.relation).lower()}",
                        f.object,
                        text=f.text,
                        source="oracle",
                    )
                    for f in chunk
                ]
            )
        elif batch == 1:
            memory.add_texts([chunk[0].text], source=f"fact-{chunk[0].serial}")
        else:
            memory.add_texts([f.text for f in chunk], source="factcon")
    memory.flush()
    return time.perf_counter() - start


def _answer_subset(
    index: ActiveIndex,
    questions: Sequence[FactconQuestion],
    *,
    multi_hop: bool,
    max_hops: int,
    reader: OpenAIReader | None,
) -> list[tuple[FactconQuestion, Answer, str]]:
    out = []
    for q in questions:
        ans = (
            index.answer_chain(q.question, max_hops=max_hops)
            if multi_hop
            else index.answer(q.question)
        )
        prediction = ans.text
        if reader is not None:
            docs = index.memory.retrieve(q.question, k=reader.k)
            prediction = reader(q.question, ans, docs)
        out.append((q, ans, prediction))
    return out


def run_instances(
    instances: Sequence[FactconInstance],
    *,
    methods: Sequence[str] = FACTCON_METHODS,
    config: FactconConfig | None = None,
    data: str = "",
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run factcon on loaded instances (see the module docs for the JSON)."""
    cfg = config or FactconConfig(data=data, methods=tuple(methods))
    if cfg.oracle_keys and not all(i.has_parses for i in instances):
        raise InvalidArgumentError(
            "--oracle-keys needs ground-truth parses: use a pool JSONL file, not official data"
        )
    reader = OpenAIReader(cfg.model, base_url=cfg.base_url) if cfg.reader == "openai" else None
    embeddings = HashingEmbeddings()
    extractor = OfflineFactExtractor()
    extracted_ok: dict[tuple[str, int], bool] = {}
    for inst in instances:
        if inst.has_parses:
            for f in inst.facts:
                extracted_ok[(inst.id, f.serial)] = extraction_correct(f, extractor.extract(f.text))
    result: dict[str, Any] = {
        "scenario": "factcon",
        "data": cfg.data or data,
        "config": {**asdict(cfg), "methods": list(cfg.methods)},
        "methods": {},
    }
    for method in cfg.methods:
        subsets: dict[str, Any] = {}
        for inst in instances:
            box = [0.0]
            mem, cleanup = _new_memory(method, cfg.storage, _box_clock(box), embeddings)
            try:
                ingest_s = ingest_instance(
                    mem, inst, oracle_keys=cfg.oracle_keys, clock_box=box, batch=cfg.batch
                )
                index = ActiveIndex(mem)
                resolved = sum(
                    1
                    for k in mem.keys()
                    for ev in mem.history(k)
                    if ev.metadata.get("extracted_key") is not None
                )
                n_keys = len(mem.keys())
                n_active = sum(len(e.docs) for v in index.by_subject.values() for e in v)
                for source, questions in inst.subsets.items():
                    qs = questions[: cfg.limit_questions] if cfg.limit_questions else questions
                    t0 = time.perf_counter()
                    answered = _answer_subset(
                        index,
                        qs,
                        multi_hop=any(q.type == "mh" for q in qs),
                        max_hops=cfg.max_hops,
                        reader=reader,
                    )
                    answer_s = time.perf_counter() - t0
                    correct = [substring_exact_match(p, q.answers) for q, _, p in answered]
                    errors = len(correct) - sum(correct)
                    entry: dict[str, Any] = {
                        "accuracy": round(sum(correct) / len(correct), 4) if correct else 0.0,
                        "n": len(correct),
                        "ingest_s": round(ingest_s, 3),
                        "facts_per_s": round(inst.n_facts / ingest_s, 1) if ingest_s else None,
                        "n_facts": inst.n_facts,
                        "keys": n_keys,
                        "active": n_active,
                        "resolved_keys": resolved,
                        "answer_s": round(answer_s, 3),
                        "errors": errors,
                    }
                    if inst.has_parses:
                        ext_err = sum(
                            1
                            for (q, _, _), ok in zip(answered, correct, strict=True)
                            if not ok
                            and not cfg.oracle_keys
                            and any(
                                not extracted_ok.get((inst.id, s), True) for s in q.gold_serials
                            )
                        )
                        entry["extractor_errors"] = ext_err
                        entry["extractor_error_share"] = (
                            round(ext_err / errors, 4) if errors else None
                        )
                    entry["examples"] = [
                        {
                            "qid": q.qid,
                            "question": q.question,
                            "answers": list(q.answers),
                            "prediction": p,
                            "correct": ok,
                            "trace": a.trace(),
                        }
                        for (q, a, p), ok in list(zip(answered, correct, strict=True))[
                            : min(cfg.examples, MAX_EXAMPLES)
                        ]
                    ]
                    subsets[source] = entry
                    if progress:
                        progress(
                            f"{method:<12} {source:<32} acc={entry['accuracy']:.3f} "
                            f"n={entry['n']} ingest={entry['ingest_s']:.2f}s"
                        )
            finally:
                cleanup()
        result["methods"][method] = {"subsets": subsets}
    return result


def run_factcon(
    config: FactconConfig, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Load ``config.data`` (default: the bundled official 6k records) and run every method."""
    path = Path(config.data) if config.data else OFFICIAL_6K
    instances = load_factcon(path)
    return run_instances(instances, config=config, data=str(path), progress=progress)


# ---------------------------------------------------------------------- tepa-bench plugin
def format_factcon_table(result: dict[str, Any]) -> str:
    """The accuracy table of a factcon result (one row per method and subset)."""
    lines = [
        f"factcon: {result.get('data', '')}",
        f"{'method':<12} {'subset':<34} {'acc':>6} {'n':>4} {'ingest_s':>9} {'facts/s':>8}",
    ]
    for method, body in result["methods"].items():
        for source, s in body["subsets"].items():
            fps = s.get("facts_per_s")
            lines.append(
                f"{method:<12} {source:<34} {s['accuracy']:>6.3f} {s['n']:>4} "
                f"{s['ingest_s']:>9.2f} {fps if fps is not None else '-':>8}"
            )
    return "\n".join(lines)


def _configure(parser: Any) -> None:
    parser.add_argument(
        "--data",
        default=None,
        help="official MemoryAgentBench JSON or pool JSONL (default: the official 6k records "
        "bundled with the package; larger pools are read from the path you give)",
    )
    parser.add_argument(
        "--oracle-keys",
        action="store_true",
        help="observe the pools' ground-truth parses instead of extracting keys",
    )
    parser.add_argument("--max-hops", type=int, default=4, help="longest multi-hop chain")
    parser.add_argument("--limit-questions", type=int, default=None)
    parser.add_argument("--examples", type=int, default=20, help="questions kept per subset")
    parser.add_argument("--batch", type=int, default=1, help="facts per add_texts call")


def _scenario(options: Any) -> dict[str, Any]:
    args = options.args
    data = getattr(args, "data", None) or ""
    limit = getattr(args, "limit_questions", None)
    if options.quick and limit is None:
        limit = 20
    config = FactconConfig(
        data=data,
        methods=tuple(options.methods or FACTCON_METHODS),
        oracle_keys=bool(getattr(args, "oracle_keys", False)),
        reader="openai" if options.agent == "openai" else "offline",
        model=options.model,
        base_url=options.base_url,
        storage="chroma" if options.storage == "chroma" else "memory",
        max_hops=int(getattr(args, "max_hops", 4)),
        limit_questions=limit,
        examples=int(getattr(args, "examples", 20)),
        batch=int(getattr(args, "batch", 1)),
    )
    return run_factcon(config, progress=print if options.progress else None)


def _no_plot(result: dict[str, Any], path: Path) -> Path | None:
    return None


def _register() -> None:
    from tepa_bench.registry import ScenarioEntry, register_scenario

    register_scenario(
        ScenarioEntry(
            "factcon",
            "MemoryAgentBench fact consolidation (single- and multi-hop, official or pools)",
            _scenario,
            table=format_factcon_table,
            plot=_no_plot,
            demo=False,
            configure=_configure,
        )
    )


_register()
