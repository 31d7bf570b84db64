"""Agent tools over a :class:`~langchain_tepa.memory.TEPAMemory`: remember, recall, forget.

``create_memory_tools(memory)`` returns three LangChain tools (sync and async) that any
tool-calling agent can use, for example ``langchain.agents.create_agent(model, tools)``:

- ``remember(key, value, text=None, correction=False)``: an observation, under the key the
  model gave or, when that key is new and close to a known key of the same subject, under the
  known key (key resolution: ``user.favourite_colours`` meets ``user.favourite_colour``). Saying
  a new value for a key is evidence against the old one: it becomes the answer once it is better supported, and
  the old value is revoked after enough such evidence. ``correction=True`` ("it is mushroom
  now") supersedes in one step when the tools' ``source`` may correct (``source="user"``, or a
  policy that trusts the agent); from the default source ``"agent"`` it counts as evidence.
- ``recall(query, k=None, key_prefix=None)``: the Active facts most similar to the query, one
  answer per key, as JSON (``[{"key", "value", "validity", "support", "conflict"}]``, with
  ``"contested": true`` and the ``"alternatives"`` when other values of the key are Active too);
  the ``Document`` objects are the tool message's ``artifact``.
- ``forget(key, value, reason=...)``: revokes a value by hand (it stays in the audit archive),
  if the tools' source may: a source trusted to correct may forget anything; any other source
  (the default ``"agent"``) only what it alone asserted. A value that other sources or
  successful outcomes support is not forgotten and the model is told why: an agent that read a
  malicious page cannot erase what the user and real executions established (``forget`` then
  ``remember`` does not replace a well-supported fact). The application can still revoke any
  value by hand (``memory.revoke``).

Every failure comes back to the model as a tool message (``status="error"``) that says what
went wrong and what to do, and nothing is stored then: arguments the tool schema refuses (a
missing ``value``, ``k="many"``), arguments the memory refuses (a blank key, ``k=0``), an
unknown value on ``forget``, a read-only or closed memory and storage failures (a stopped Chroma
server). The tools do not rely on the agent's error handling for this: they answer with the
error message even under ``ToolNode(tools, handle_tool_errors=False)``, so a run never crashes
because of a memory tool.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> remember, recall, forget = create_memory_tools(TEPAMemory.in_memory())
    >>> remember.invoke({"key": "user.diet", "value": "vegan"})
    "Remembered user.diet = 'vegan' (active, validity 0.67). Active values of user.diet: 'vegan' (0.67)."
    >>> recall.invoke({"query": "what does the user eat?"})
    '[{"key": "user.diet", "value": "vegan", "validity": 0.6667, "support": 1, "conflict": 0}]'
"""  # noqa: E501

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document  # runtime: agents inspect tool signatures
from langchain_core.runnables import RunnableConfig  # runtime: StructuredTool injects it by type
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field, ValidationError

from langchain_tepa._tool_namespaces import MAX_SHOWN as _MAX_SHOWN
from langchain_tepa._tool_namespaces import NamespaceTemplate, tool_namespace
from langchain_tepa.core.errors import (
    InvalidArgumentError,
    InvalidSourceError,
    OutcomeUnknownError,
    ReadOnlyError,
    TEPAError,
    UnknownPrecedentError,
)
from langchain_tepa.core.trust import APP_SOURCE, OUTCOMES
from langchain_tepa.core.types import Lifecycle
from langchain_tepa.core.values import canonical_json, safe_repr, value_identity
from langchain_tepa.validation import validate_k, validate_source

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory
    from langchain_tepa.results import ObservationResult

__all__ = [
    "ForgetInput",
    "NamespaceTemplate",
    "RecallInput",
    "RememberInput",
    "create_memory_tools",
]

logger = logging.getLogger(__name__)


class RememberInput(BaseModel):
    """Arguments of the ``remember`` tool."""

    key: str = Field(
        description="Canonical dotted key '<subject>.<relation>' in lower-case snake_case, "
        "e.g. 'user.diet' or 'user.pizza_topping'. Use the same key for the same attribute."
    )
    value: str = Field(description="The value only, e.g. 'vegan' or 'mushroom'.")
    text: str | None = Field(default=None, description="Optional: the sentence the fact came from.")
    correction: bool = Field(
        default=False,
        description="True when the user corrects or changes an earlier value ('it is mushroom "
        "now', 'not X but Y', 'no longer X').",
    )


class RecallInput(BaseModel):
    """Arguments of the ``recall`` tool."""

    query: str = Field(description="What to look up, in natural language.")
    k: int | None = Field(default=None, description="How many facts at most (default 4).")
    key_prefix: str | None = Field(
        default=None, description="Only keys equal to or below this one, e.g. 'user'."
    )


class ForgetInput(BaseModel):
    """Arguments of the ``forget`` tool."""

    key: str = Field(description="The key of the fact, e.g. 'user.diet'.")
    value: str = Field(description="The value to forget, as stored.")
    reason: str = Field(default="the user asked to forget it", description="Why it is forgotten.")


def _validation_message(tool: str) -> Callable[[ValidationError], str]:
    """The ``handle_validation_error`` of ``tool``: pydantic's complaint, said to the model."""

    def message(exc: ValidationError) -> str:
        problems = []
        for err in exc.errors():
            where = ".".join(str(part) for part in err.get("loc", ())) or "arguments"
            text = f"{where}: {err.get('msg', 'invalid')}"
            if err.get("type") != "missing" and "input" in err:
                text += f" (got {safe_repr(err['input'])[:_MAX_SHOWN]})"
            problems.append(text)
        return (
            f"Invalid arguments for {tool}: {'; '.join(problems)}. "
            f"Fix the arguments and call {tool} again."
        )

    return message


_NO_CONFIG: RunnableConfig = {}


class _RefusedError(Exception):
    """A memory call the tool refuses to make (its message goes to the model as it is)."""


@contextmanager
def _errors_to_model(tool: str) -> Iterator[None]:
    """Turn every failure of a memory call into a :class:`ToolException` the model can read.

    The hint after the error's own text tells the model what to do next. Errors that are not
    the library's own (a bug, or a storage failure the storage layer did not type) are logged
    with their traceback and reported to the model too: a memory failure must not end the run.
    """
    try:
        yield
    except _RefusedError as exc:
        raise ToolException(f"{exc}.") from exc
    except UnknownPrecedentError as exc:
        raise ToolException(f"{exc}. Call recall to see the stored values.") from exc
    except InvalidArgumentError as exc:
        raise ToolException(f"{exc}. Fix the arguments and call {tool} again.") from exc
    except OutcomeUnknownError as exc:
        raise ToolException(
            f"The memory's storage failed during the write: it may or may not be stored ({exc}). "
            f"Do not call {tool} again blindly: call recall later to see what is stored."
        ) from exc
    except ReadOnlyError as exc:
        raise ToolException(
            f"{exc}. This memory is read-only: nothing can be remembered or forgotten now; "
            "go on without storing it."
        ) from exc
    except TEPAError as exc:
        raise ToolException(
            f"The memory failed: {exc}. Go on without it, or call {tool} again later."
        ) from exc
    except Exception as exc:
        logger.warning("memory tool %s failed", tool, exc_info=True)
        raise ToolException(
            f"The memory failed ({type(exc).__name__}: {exc}). "
            f"Go on without it, or call {tool} again later."
        ) from exc


class _MemoryTools:
    """The tool functions, bound to one memory and namespace."""

    def __init__(
        self, memory: TEPAMemory, namespace: str | NamespaceTemplate | None, k: int, source: str
    ) -> None:
        self.memory = memory
        self.namespace = namespace
        self.k = k
        self.source = source

    def _ns(self, config: RunnableConfig | None) -> str | None:
        """The namespace of this call: a template is filled from the run's config.

        An unfilled template raises :class:`NamespaceTemplateError` to the application, not as
        a tool message: it is the application's configuration, which the model cannot fix.
        """
        if isinstance(self.namespace, NamespaceTemplate):
            return self.namespace.fill(config)
        return self.namespace

    # ---------------------------------------------------------------- formatting
    def _remembered(
        self,
        key: str,
        value: str,
        result: ObservationResult,
        correction: bool = False,
        ns: str | None = None,
    ) -> str:
        prec = result.precedent
        head = f"Remembered {key} = {value!r}"
        if prec is not None:
            head += f" ({prec.state.value}, validity {prec.validity:.2f})"
        trust = self.memory.policy.trust
        if correction and (trust is None or not trust.may_correct(self.source)):
            head += (
                f" as evidence, not as a correction: source {self.source!r} may not correct "
                "values others support"
            )
        try:
            audit = self.memory.audit(key, namespace=ns)
        except Exception:  # stored already: say so, without the summary of the key
            logger.warning("remember: stored %s but could not summarise it", key, exc_info=True)
            return f"{head}."
        active = ", ".join(f"{p.value!r} ({p.validity:.2f})" for p in audit.active)
        text = f"{head}. Active values of {audit.key}: {active or 'none yet'}."
        just = [
            p
            for p in audit.revoked
            if p.revocation is not None and p.revocation.evidence_id == result.evidence.id
        ]
        if just:
            text += " Revoked now: " + ", ".join(repr(p.value) for p in just) + "."
        if prec is not None and prec.value_id in audit.held:
            text += (
                " Held back: a more trusted source stated the current value; the user's own "
                "word or a real execution of the new value confirms it."
            )
        return text

    @staticmethod
    def _recalled(docs: list[Document]) -> tuple[str, list[Document]]:
        if not docs:  # still JSON, as the tool's description promises (issue 38)
            return "[]", docs
        facts = []
        for d in docs:
            fact = {
                "key": d.metadata["key"],
                "value": d.metadata["value"],
                "validity": d.metadata["validity"],
                "support": d.metadata["support"],
                "conflict": d.metadata["conflict"],
            }
            if d.metadata.get("contested"):  # other values of the key are Active too
                fact["contested"] = True
                fact["alternatives"] = d.metadata.get("alternatives", [])
            facts.append(fact)
        return json.dumps(facts, ensure_ascii=False), docs

    def _resolved(self, key: str, ns: str | None) -> str:
        """The key a model's key is stored under: a known key of the same subject it names."""
        return self.memory.resolve_keys([key], namespace=ns)[0]

    def _k(self, k: int | None) -> int:
        return self.k if k is None else k

    def _refusal(self, key: str, value: str, ns: str | None = None) -> str | None:
        """Why this source may not forget ``key = value``, or ``None`` when it may.

        A source trusted to correct may forget anything. Any other source may forget only a
        value that nothing but its own assertions supports (in the value's current epoch).
        """
        policy = self.memory.policy
        trust = policy.trust
        if trust is None or trust.may_correct(self.source):
            return None
        vid = value_identity(value, normalize=policy.normalize_values)
        audit = self.memory.audit(key, namespace=ns)
        found = [p for p in audit.precedents if p.value_id == vid]
        if not found or found[0].state is Lifecycle.REVOKED:
            return None  # unknown: the memory's own error; already revoked: nothing to refuse
        mine = self.source or APP_SOURCE
        others = {
            label: counts[0]
            for label, counts in found[0].provenance.items()
            if label != mine and counts[0] > 0
        }
        if not others:
            return None
        parts = []
        outcomes = others.pop(OUTCOMES, 0.0)
        if outcomes:
            parts.append(f"{outcomes:g} successful outcome(s) of real executions")
        parts += [f"source {label!r} ({w:.2f})" for label, w in sorted(others.items())]
        shown = value if isinstance(value, str) else canonical_json(value)
        return (
            f"Not forgotten: {audit.key} = {shown!r} is supported by {', '.join(parts)}, not "
            f"only by {self.source!r}. This agent can forget only what it alone asserted. If "
            "the user says the value changed, call remember with the new value; to erase it "
            "anyway the application must revoke it by hand"
        )

    # ---------------------------------------------------------------- sync
    # ``config`` is injected by StructuredTool (by its type), never given by the model.
    def remember(
        self,
        key: str,
        value: str,
        text: str | None = None,
        correction: bool = False,
        config: RunnableConfig = _NO_CONFIG,
    ) -> str:
        ns = self._ns(config)
        with _errors_to_model("remember"):
            key = self._resolved(key, ns)
            result = self.memory.observe(
                key,
                value,
                text=text,
                namespace=ns,
                source=self.source,
                correction=bool(correction),
            )
        return self._remembered(result.evidence.key, value, result, bool(correction), ns)

    def recall(
        self,
        query: str,
        k: int | None = None,
        key_prefix: str | None = None,
        config: RunnableConfig = _NO_CONFIG,
    ) -> tuple[str, list[Document]]:
        ns = self._ns(config)
        with _errors_to_model("recall"):
            docs = self.memory.retrieve(query, self._k(k), namespace=ns, key_prefix=key_prefix)
        return self._recalled(docs)

    def forget(
        self,
        key: str,
        value: str,
        reason: str = "the user asked to forget it",
        config: RunnableConfig = _NO_CONFIG,
    ) -> str:
        ns = self._ns(config)
        with _errors_to_model("forget"):
            refusal = self._refusal(key, value, ns)
            if refusal is not None:
                raise _RefusedError(refusal)
            self.memory.revoke(key, value, reason=reason, namespace=ns, source=self.source)
        return f"Forgot {key} = {value!r} (revoked; kept in the audit archive)."

    # ---------------------------------------------------------------- async
    async def aremember(
        self,
        key: str,
        value: str,
        text: str | None = None,
        correction: bool = False,
        config: RunnableConfig = _NO_CONFIG,
    ) -> str:
        ns = self._ns(config)
        with _errors_to_model("remember"):
            key = await asyncio.to_thread(self._resolved, key, ns)
            result = await self.memory.aobserve(
                key,
                value,
                text=text,
                namespace=ns,
                source=self.source,
                correction=bool(correction),
            )
        return self._remembered(result.evidence.key, value, result, bool(correction), ns)

    async def arecall(
        self,
        query: str,
        k: int | None = None,
        key_prefix: str | None = None,
        config: RunnableConfig = _NO_CONFIG,
    ) -> tuple[str, list[Document]]:
        ns = self._ns(config)
        with _errors_to_model("recall"):
            docs = await self.memory.aretrieve(
                query, self._k(k), namespace=ns, key_prefix=key_prefix
            )
        return self._recalled(docs)

    async def aforget(
        self,
        key: str,
        value: str,
        reason: str = "the user asked to forget it",
        config: RunnableConfig = _NO_CONFIG,
    ) -> str:
        ns = self._ns(config)
        with _errors_to_model("forget"):
            refusal = await asyncio.to_thread(self._refusal, key, value, ns)
            if refusal is not None:
                raise _RefusedError(refusal)
            await self.memory.arevoke(key, value, reason=reason, namespace=ns, source=self.source)
        return f"Forgot {key} = {value!r} (revoked; kept in the audit archive)."


_MAX_INPUT_DEPTH = 64
_MAX_INT_BITS = 14_000  # about 4,200 decimal digits: Python's int-to-str limit is 4,300


class _Refused:
    """An argument no tool takes (a huge int, a value nested too deep), shown safely.

    LangChain's ``BaseTool.run`` writes its input with ``str()`` before any validation, which
    raised a plain ``ValueError`` (an int of 5,000 digits) or ``RecursionError`` (a list nested
    5,000 deep); in its place this stands in the arguments, and the schema refuses it with
    the tool's usual error message.
    """

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown


def _printable(value: Any, depth: int = 0) -> Any:
    """``value`` with what ``str()`` cannot show replaced by :class:`_Refused`."""
    if depth > _MAX_INPUT_DEPTH:
        return _Refused(f"<a value nested deeper than {_MAX_INPUT_DEPTH} levels>")
    if isinstance(value, int) and not isinstance(value, bool):
        bits = value.bit_length()
        return _Refused(f"<int of {bits} bits>") if bits > _MAX_INT_BITS else value
    if isinstance(value, dict):
        return {_printable(k, depth + 1): _printable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_printable(v, depth + 1) for v in value]
    return value


class _MemoryTool(StructuredTool):
    """A ``StructuredTool`` whose input is made printable before LangChain prints it."""

    def run(self, tool_input: str | dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """LangChain's ``run`` on input it can show (:func:`_printable`)."""
        return super().run(_printable(tool_input), *args, **kwargs)

    async def arun(self, tool_input: str | dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """Async twin of :meth:`run`."""
        return await super().arun(_printable(tool_input), *args, **kwargs)


def create_memory_tools(
    memory: TEPAMemory,
    namespace: str | Sequence[str] | None = None,
    *,
    k: int = 4,
    source: str = "agent",
) -> list[BaseTool]:
    """The ``remember``, ``recall`` and ``forget`` tools over ``memory``.

    Args:
        memory: The memory the tools read and write.
        namespace: Scope of every call (a dotted string or a LangGraph-style tuple such as
            ``("users", "u1")``); None uses the memory's default namespace. Labels may name
            values of the run's config, as LangMem's tools do: ``("memories",
            "{langgraph_user_id}")`` stores each user's facts in their own namespace
            (:class:`NamespaceTemplate`); a call whose config lacks the value raises
            :class:`~langchain_tepa.core.errors.NamespaceTemplateError` (to the application,
            not as a tool message) and stores nothing.
        k: Default number of facts ``recall`` returns.
        source: Recorded as the ``source`` of the evidence the tools write.

    Returns:
        ``[remember, recall, forget]``, each with sync and async implementations.

    Raises:
        InvalidArgumentError: If ``namespace`` (or its template) or ``k`` is invalid.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> tools = create_memory_tools(TEPAMemory.in_memory(), namespace=("users", "u1"))
        >>> [t.name for t in tools]
        ['remember', 'recall', 'forget']
    """
    ns = tool_namespace(namespace)
    validate_k(k)
    if source is None:  # the application writes with None; an adapter names itself
        raise InvalidSourceError("source must be a source name such as 'agent', got None")
    validate_source(source)  # visible text, no control or bidirectional characters
    impl = _MemoryTools(memory, ns, k, source)
    remember = _MemoryTool.from_function(
        func=impl.remember,
        coroutine=impl.aremember,
        name="remember",
        description=(
            "Store a durable fact about the user or the world as a key and a value. Call it "
            "whenever the user states a preference or a fact, also when it changes an earlier "
            "one (then set correction=true): the memory keeps the evidence and retires values "
            "that stop being true."
        ),
        args_schema=RememberInput,
        handle_validation_error=_validation_message("remember"),
        handle_tool_error=True,
    )
    recall = _MemoryTool.from_function(
        func=impl.recall,
        coroutine=impl.arecall,
        name="recall",
        description=(
            "Look up the facts currently believed true that are relevant to a query. Returns "
            "JSON: a list of {key, value, validity, support, conflict}, most relevant first; "
            "validity is the posterior probability that the value still holds."
        ),
        args_schema=RecallInput,
        handle_validation_error=_validation_message("recall"),
        response_format="content_and_artifact",
        handle_tool_error=True,
    )
    forget = _MemoryTool.from_function(
        func=impl.forget,
        coroutine=impl.aforget,
        name="forget",
        description=(
            "Retire a stored value that is wrong or that the user wants forgotten. It stops "
            "being recalled but stays in the audit history. A value that the user or real "
            "executions also support is not forgotten (the answer says why); if the user says "
            "it changed, call remember with the new value instead."
        ),
        args_schema=ForgetInput,
        handle_validation_error=_validation_message("forget"),
        handle_tool_error=True,
    )
    tools: list[BaseTool] = [remember, recall, forget]
    return tools
