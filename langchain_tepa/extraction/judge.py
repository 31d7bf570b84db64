"""The application's chat model judges what a new free-text memory replaces.

A :class:`ReplacementJudge` shows a chat model the new memory (or the new memories of one
batch) beside the earlier memories it may replace, and reads back, per earlier memory, one
relation with a confidence and a short reason:

* ``replaces``: the new memory says the earlier one is no longer true;
* ``restates``: it says the same as the earlier one (a memory taken back is true again);
* ``adds``: the same kind of thing, both true at once (a second pet, another language);
* ``unrelated``: anything else (the default for a candidate the answer leaves out);

and, per new memory, whether it is ``temporary``, ``hypothetical``, ``about_someone_else`` or
``history``. It is one call per write (one per batch), bounded (at most ``max_candidates``
earlier memories and ``max_chars`` characters of each text), with a timeout, and an async
twin. The answer is plain JSON in the message text, so any chat model works (no tool calling
or structured-output support needed). A model error, a timeout or an answer that is not the
JSON asked for raises :class:`~langchain_tepa.core.errors.JudgeError`; the memory then stores
the item and takes nothing back (:mod:`langchain_tepa.memory.verdicts`).

What a judgement may take back is decided by :meth:`Judgement.takes_back`: a ``replaces`` or
``restates`` with a confidence above 0.5 from a new memory that carries none of the four
flags. A hedge never takes anything back.

Example:
    >>> from langchain_core.language_models import GenericFakeChatModel
    >>> from langchain_core.messages import AIMessage
    >>> answer = ('{"memories": [{"id": "n1", "verdicts": [{"candidate": "c1", '
    ...           '"relation": "replaces", "confidence": 0.9, "reason": "moved"}]}]}')
    >>> judge = ReplacementJudge(GenericFakeChatModel(messages=iter([AIMessage(answer)])))
    >>> request = JudgeRequest([Statement("n1", "I moved to Oslo.")],
    ...                        [Candidate("c1", "I live in Lisbon.")])
    >>> (judgement,) = judge.judge(request)
    >>> [(v.candidate, v.relation, judgement.takes_back(v)) for v in judgement.verdicts]
    [('c1', 'replaces', True)]
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from langchain_tepa.core.errors import InvalidArgumentError, JudgeError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "FLAGS",
    "RELATIONS",
    "SYSTEM_PROMPT",
    "Candidate",
    "JudgeRequest",
    "Judgement",
    "Relation",
    "ReplacementJudge",
    "Statement",
    "Verdict",
    "as_judge",
]

Relation = Literal["replaces", "restates", "adds", "unrelated"]
"""How a new memory relates to an earlier one (module docstring)."""

RELATIONS: tuple[str, ...] = ("replaces", "restates", "adds", "unrelated")
FLAGS: tuple[str, ...] = ("temporary", "hypothetical", "about_someone_else", "history")
"""What a new memory may be besides a plain statement; each vetoes taking anything back."""

_log = logging.getLogger("langchain_tepa")

SYSTEM_PROMPT = """\
You keep a person's long-term memory. A new memory is being saved. For each earlier memory
listed, say how the new memory relates to it:
- "replaces": the new memory says the earlier one is no longer true (a change, a move, a
  switch, a correction of an attribute that holds one value at a time).
- "restates": the new memory says the same thing as the earlier one (still or again true).
- "adds": the same kind of thing, but both are true at once (a second pet, another language,
  a new hobby beside the old one).
- "unrelated": anything else.
Then say, for the new memory, whether it is:
- "temporary": true only for a short while or once ("I rented a car for the trip", "staying
  in Lisbon until Friday");
- "hypothetical": a plan, wish, question, possibility, joke or request ("I might move");
- "about_someone_else": about another person, a pet or an object, not the user;
- "history": about the past only ("I used to live in Rome").
Earlier memories with "served": false were taken back; "restates" one that is true again.
A new memory may also relate to a new memory listed before it (use its id).
Answer with JSON only, one entry per new memory, leaving out unrelated earlier memories:
{"memories": [{"id": "n1", "temporary": false, "hypothetical": false,
  "about_someone_else": false, "history": false,
  "verdicts": [{"candidate": "c1", "relation": "replaces", "confidence": 0.9,
                "reason": "moved from Lisbon to Oslo"}]}]}
confidence is from 0 to 1: how sure you are of the relation."""


@dataclass(frozen=True)
class Statement:
    """A new memory to judge.

    Attributes:
        id: Its id in the prompt (``"n1"``).
        text: Its text.

    Example:
        >>> Statement("n1", "I moved to Oslo.").id
        'n1'
    """

    id: str
    text: str


@dataclass(frozen=True)
class Candidate:
    """An earlier memory the new one may replace.

    Attributes:
        id: Its id in the prompt (``"c1"``).
        text: Its text.
        served: Whether it is served now (``False``: taken back; a ``restates`` revives it).

    Example:
        >>> Candidate("c1", "I live in Lisbon.").served
        True
    """

    id: str
    text: str
    served: bool = True


@dataclass(frozen=True)
class JudgeRequest:
    """What one model call judges: new memories beside the earlier ones they may replace.

    Attributes:
        new: The new memories, in write order.
        earlier: The candidates (found by similarity and shared claim keys).

    Example:
        >>> JudgeRequest([Statement("n1", "I moved.")], []).earlier
        []
    """

    new: list[Statement]
    earlier: list[Candidate]


@dataclass(frozen=True)
class Verdict:
    """The model's answer for one (new memory, earlier memory) pair.

    Attributes:
        candidate: The earlier memory's id (``"c1"``, or ``"n1"`` for a new memory before).
        relation: One of :data:`RELATIONS`.
        confidence: From 0 to 1.
        reason: The model's short reason (kept in the audit).

    Example:
        >>> Verdict("c1", "adds", 0.8, "a second pet").relation
        'adds'
    """

    candidate: str
    relation: Relation
    confidence: float
    reason: str = ""


@dataclass(frozen=True)
class Judgement:
    """The model's answer for one new memory.

    Attributes:
        id: The new memory's id.
        flags: Those of :data:`FLAGS` the model set.
        verdicts: One per earlier memory the model related it to.
        unknown: Candidate ids the answer named that the prompt did not list (ignored).

    Example:
        >>> j = Judgement("n1", frozenset({"temporary"}), (Verdict("c1", "replaces", 0.9),))
        >>> j.hedged, j.takes_back(j.verdicts[0])
        (True, False)
    """

    id: str
    flags: frozenset[str] = frozenset()
    verdicts: tuple[Verdict, ...] = ()
    unknown: tuple[str, ...] = ()

    @property
    def hedged(self) -> bool:
        """Whether the new memory is temporary, hypothetical, about someone else or history."""
        return bool(self.flags)

    def takes_back(self, verdict: Verdict) -> bool:
        """Whether ``verdict`` may take something back: a sure, unhedged replace or restate.

        A confidence of 0.5 or below, or any flag, never takes anything back.
        """
        return (
            verdict.relation in ("replaces", "restates")
            and verdict.confidence > 0.5
            and not self.hedged
        )


# ---------------------------------------------------------------------- the answer's schema
class _Verdict(BaseModel):
    candidate: str
    relation: Relation
    confidence: float
    reason: str = ""


class _Memory(BaseModel):
    id: str
    temporary: bool = False
    hypothetical: bool = False
    about_someone_else: bool = False
    history: bool = False
    verdicts: list[_Verdict] = Field(default_factory=list)


class _Answer(BaseModel):
    memories: list[_Memory]


def _text_of(content: Any) -> str:
    """The text of a message's content (a string, or a list of content blocks)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class _Outcome:
    """A model call's result or error, filled by a worker thread."""

    value: Any = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


def as_judge(judge: object) -> ReplacementJudge | None:
    """A :class:`ReplacementJudge` for ``judge``: a judge, a chat model (wrapped) or ``None``.

    Raises:
        InvalidArgumentError: For anything else.

    Example:
        >>> as_judge(None) is None
        True
    """
    if judge is None or isinstance(judge, ReplacementJudge):
        return judge
    from langchain_core.language_models import BaseChatModel

    if isinstance(judge, BaseChatModel):
        return ReplacementJudge(judge)
    raise InvalidArgumentError(
        f"judge must be a LangChain chat model or a ReplacementJudge, got {type(judge).__name__}; "
        "for example TEPAMemory.in_memory(judge=ChatOpenAI(model='gpt-4o-mini'))"
    )


class ReplacementJudge:
    """A chat model that decides what a new free-text memory replaces (module docstring).

    Args:
        llm: Any LangChain chat model.
        timeout_s: Seconds a call may take (``None``: no limit). A call that takes longer
            fails with :class:`~langchain_tepa.core.errors.JudgeError` (the sync call is left
            to finish in a daemon thread; the async one is cancelled).
        max_candidates: Earlier memories shown per call at most (the best by similarity and
            shared claim keys).
        max_chars: Characters of each memory's text shown at most.
        max_new: New memories judged in one call at most (a larger batch is judged in calls of
            this size).
        strict: Raise the :class:`~langchain_tepa.core.errors.JudgeError` from the write
            instead of storing the item unjudged (nothing is stored then).
        system_prompt: Replaces the built-in instructions (:data:`SYSTEM_PROMPT`); the answer
            must keep its JSON form.

    Raises:
        InvalidArgumentError: For a bad argument.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> judge = ReplacementJudge(GenericFakeChatModel(messages=iter([])), max_candidates=4)
        >>> judge.max_candidates, judge.strict
        (4, False)
    """

    def __init__(
        self,
        llm: BaseChatModel,
        *,
        timeout_s: float | None = 30.0,
        max_candidates: int = 8,
        max_chars: int = 500,
        max_new: int = 16,
        strict: bool = False,
        system_prompt: str | None = None,
    ) -> None:
        from langchain_core.language_models import BaseChatModel

        if not isinstance(llm, BaseChatModel):
            raise InvalidArgumentError(
                f"llm must be a LangChain chat model, got {type(llm).__name__}"
            )
        if timeout_s is not None and (
            isinstance(timeout_s, bool)
            or not isinstance(timeout_s, int | float)
            or not math.isfinite(timeout_s)
            or timeout_s <= 0
        ):
            raise InvalidArgumentError(
                f"timeout_s must be a positive number or None, got {timeout_s!r}"
            )
        for name, number, low in (
            ("max_candidates", max_candidates, 1),
            ("max_chars", max_chars, 20),
            ("max_new", max_new, 1),
        ):
            if isinstance(number, bool) or not isinstance(number, int) or number < low:
                raise InvalidArgumentError(f"{name} must be an integer >= {low}, got {number!r}")
        if not isinstance(strict, bool):
            raise InvalidArgumentError(f"strict must be True or False, got {strict!r}")
        if system_prompt is not None and (not isinstance(system_prompt, str) or not system_prompt):
            raise InvalidArgumentError("system_prompt must be a non-empty string or None")
        self.llm = llm
        self.timeout_s = None if timeout_s is None else float(timeout_s)
        self.max_candidates = max_candidates
        self.max_chars = max_chars
        self.max_new = max_new
        self.strict = strict
        self.system_prompt = system_prompt or SYSTEM_PROMPT

    def __repr__(self) -> str:
        return (
            f"ReplacementJudge(model={self.model_name!r}, max_candidates={self.max_candidates}, "
            f"timeout_s={self.timeout_s}, strict={self.strict})"
        )

    @property
    def model_name(self) -> str:
        """The chat model's name (recorded with every verdict)."""
        for attr in ("model_name", "model"):
            name = getattr(self.llm, attr, None)
            if isinstance(name, str) and name:
                return name
        return type(self.llm).__name__

    # ------------------------------------------------------------------ the prompt
    def messages(self, request: JudgeRequest) -> list[tuple[str, str]]:
        """The chat messages of one call: the instructions, then the memories as JSON.

        Example:
            >>> from langchain_core.language_models import GenericFakeChatModel
            >>> judge = ReplacementJudge(GenericFakeChatModel(messages=iter([])))
            >>> request = JudgeRequest([Statement("n1", "I moved to Oslo.")],
            ...                        [Candidate("c1", "I live in Lisbon.")])
            >>> print(judge.messages(request)[1][1])
            {"earlier": [{"id": "c1", "text": "I live in Lisbon.", "served": true}], "new": [{"id": "n1", "text": "I moved to Oslo."}]}
        """  # noqa: E501
        earlier = [
            {"id": c.id, "text": _clip(c.text, self.max_chars), "served": c.served}
            for c in request.earlier[: self.max_candidates]
        ]
        new = [{"id": s.id, "text": _clip(s.text, self.max_chars)} for s in request.new]
        body = json.dumps({"earlier": earlier, "new": new}, ensure_ascii=False)
        return [("system", self.system_prompt), ("human", body)]

    # ------------------------------------------------------------------ reading the answer
    def parse(self, answer: Any, request: JudgeRequest) -> list[Judgement]:
        """The judgements in a model's answer (a message or its text), one per new memory.

        A new memory the answer leaves out gets an empty judgement (nothing related, no flag).
        Verdicts naming an id the prompt did not list are dropped and kept in
        :attr:`Judgement.unknown` (with ``strict``, they raise).

        Raises:
            JudgeError: If the answer holds no JSON object of the asked form, or (``strict``)
                names unknown ids.
        """
        text = _text_of(getattr(answer, "content", answer)).strip()
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end < start:
            raise JudgeError(
                f"the judge model {self.model_name!r} answered without a JSON object: "
                f"{text[:120]!r}"
            )
        try:
            data = json.loads(text[start : end + 1])
            if isinstance(data, dict) and "memories" not in data and "verdicts" in data:
                data = {"memories": [{"id": request.new[0].id, **data}]} if request.new else data
            parsed = _Answer.model_validate(data)
        except (ValueError, ValidationError) as exc:
            raise JudgeError(
                f"the judge model {self.model_name!r} answered with JSON of another form "
                f"({type(exc).__name__}: {str(exc)[:200]}); it must be "
                '{"memories": [{"id", flags, "verdicts": [{"candidate", "relation", '
                '"confidence", "reason"}]}]}'
            ) from exc
        shown = [c.id for c in request.earlier[: self.max_candidates]]
        by_id = {m.id: m for m in parsed.memories}
        out = []
        for i, statement in enumerate(request.new):
            known = set(shown) | {s.id for s in request.new[:i]}
            got = by_id.get(statement.id)
            if got is None:
                out.append(Judgement(statement.id))
                continue
            verdicts, unknown = [], []
            for v in got.verdicts:
                if v.candidate not in known:
                    unknown.append(v.candidate)
                    continue
                if not math.isfinite(v.confidence):
                    raise JudgeError(f"the judge model gave a confidence of {v.confidence}")
                conf = min(1.0, max(0.0, v.confidence))
                verdicts.append(Verdict(v.candidate, v.relation, conf, _clip(v.reason, 300)))
            flags = frozenset(f for f in FLAGS if getattr(got, f))
            out.append(Judgement(statement.id, flags, tuple(verdicts), tuple(unknown)))
        unknown_ids = sorted({u for j in out for u in j.unknown})
        if unknown_ids:
            message = (
                f"the judge model {self.model_name!r} named memories it was not shown: "
                f"{unknown_ids[:5]}; those verdicts are ignored"
            )
            if self.strict:
                raise JudgeError(message)
            _log.warning(message)
        return out

    # ------------------------------------------------------------------ calling the model
    def _failed(self, exc: BaseException) -> JudgeError:
        return JudgeError(
            f"the judge model {self.model_name!r} failed ({type(exc).__name__}: {exc}); the "
            "memory is stored and takes nothing back"
        )

    def _timed_out(self) -> JudgeError:
        return JudgeError(
            f"the judge model {self.model_name!r} took longer than {self.timeout_s} s; the "
            "memory is stored and takes nothing back (raise timeout_s, or rejudge later)"
        )

    def judge(self, request: JudgeRequest) -> list[Judgement]:
        """One model call: the judgement of each new memory of ``request``, in order.

        Raises:
            JudgeError: If the model fails, times out or answers out of form.
        """
        if not request.new:
            return []
        messages = self.messages(request)
        config: Any = {"run_name": "tepa_replacement_judge"}
        if self.timeout_s is None:
            try:
                answer = self.llm.invoke(messages, config=config)
            except Exception as exc:
                raise self._failed(exc) from exc
            return self.parse(answer, request)
        outcome = _Outcome()

        def call() -> None:
            try:
                outcome.value = self.llm.invoke(messages, config=config)
            except BaseException as exc:  # handed to the caller
                outcome.error = exc
            finally:
                outcome.done.set()

        threading.Thread(target=call, name="tepa-judge", daemon=True).start()
        if not outcome.done.wait(self.timeout_s):
            raise self._timed_out()
        if outcome.error is not None:
            raise self._failed(outcome.error) from outcome.error
        return self.parse(outcome.value, request)

    async def ajudge(self, request: JudgeRequest) -> list[Judgement]:
        """Async twin of :meth:`judge` (the model's own ``ainvoke``, cancelled on timeout)."""
        if not request.new:
            return []
        messages = self.messages(request)
        config: Any = {"run_name": "tepa_replacement_judge"}
        try:
            answer = await asyncio.wait_for(
                self.llm.ainvoke(messages, config=config), self.timeout_s
            )
        except asyncio.TimeoutError as exc:
            raise self._timed_out() from exc
        except Exception as exc:
            raise self._failed(exc) from exc
        return self.parse(answer, request)
