"""Agent tools over a :class:`~langchain_tepa.memory.TEPAMemory`: remember, recall, forget.

``create_memory_tools(memory)`` returns three LangChain tools (sync and async) that any
tool-calling agent can use, for example ``langchain.agents.create_agent(model, tools)``:

- ``remember(key, value, text=None)``: an observation. Saying a new value for a key is
  evidence against the old one; after enough such evidence the old value is revoked.
- ``recall(query, k=None, key_prefix=None)``: the Active facts most similar to the query, as
  JSON (``[{"key", "value", "validity", "support", "conflict"}]``); the ``Document`` objects
  are the tool message's ``artifact``.
- ``forget(key, value, reason=...)``: revokes a value by hand (it stays in the audit archive).

Bad input and unknown values come back to the model as tool error messages that say how to
fix the call; nothing is stored then.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> remember, recall, forget = create_memory_tools(TEPAMemory.in_memory())
    >>> remember.invoke({"key": "user.diet", "value": "vegan"})
    "Remembered user.diet = 'vegan' (active, validity 0.67). Active values of user.diet: 'vegan' (0.67)."
    >>> recall.invoke({"query": "what does the user eat?"})
    '[{"key": "user.diet", "value": "vegan", "validity": 0.6667, "support": 1, "conflict": 0}]'
"""  # noqa: E501

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from langchain_core.documents import Document  # runtime: agents inspect tool signatures
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field

from langchain_tepa.core.errors import InvalidArgumentError, TEPAError, UnknownPrecedentError
from langchain_tepa.core.values import validate_namespace
from langchain_tepa.validation import validate_k

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory
    from langchain_tepa.results import ObservationResult

__all__ = ["ForgetInput", "RecallInput", "RememberInput", "create_memory_tools"]


class RememberInput(BaseModel):
    """Arguments of the ``remember`` tool."""

    key: str = Field(
        description="Canonical dotted key '<subject>.<relation>' in lower-case snake_case, "
        "e.g. 'user.diet' or 'user.pizza_topping'. Use the same key for the same attribute."
    )
    value: str = Field(description="The value only, e.g. 'vegan' or 'mushroom'.")
    text: str | None = Field(default=None, description="Optional: the sentence the fact came from.")


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


def _namespace(namespace: str | Sequence[str] | None) -> str | None:
    if namespace is None:
        return None
    if not isinstance(namespace, str):
        namespace = ".".join(namespace)
    return validate_namespace(namespace)


class _MemoryTools:
    """The tool functions, bound to one memory and namespace."""

    def __init__(self, memory: TEPAMemory, namespace: str | None, k: int, source: str) -> None:
        self.memory = memory
        self.namespace = namespace
        self.k = k
        self.source = source

    # ---------------------------------------------------------------- formatting
    def _remembered(self, key: str, value: str, result: ObservationResult) -> str:
        prec = result.precedent
        head = f"Remembered {key} = {value!r}"
        if prec is not None:
            head += f" ({prec.state.value}, validity {prec.validity:.2f})"
        audit = self.memory.audit(key, namespace=self.namespace)
        active = ", ".join(f"{p.value!r} ({p.validity:.2f})" for p in audit.active)
        text = f"{head}. Active values of {audit.key}: {active or 'none yet'}."
        just = [
            p
            for p in audit.revoked
            if p.revocation is not None and p.revocation.evidence_id == result.evidence.id
        ]
        if just:
            text += " Revoked now: " + ", ".join(repr(p.value) for p in just) + "."
        return text

    @staticmethod
    def _recalled(docs: list[Document]) -> tuple[str, list[Document]]:
        if not docs:
            return "No active memories match.", docs
        facts = [
            {
                "key": d.metadata["key"],
                "value": d.metadata["value"],
                "validity": d.metadata["validity"],
                "support": d.metadata["support"],
                "conflict": d.metadata["conflict"],
            }
            for d in docs
        ]
        return json.dumps(facts, ensure_ascii=False), docs

    @staticmethod
    def _error(exc: TEPAError, hint: str) -> ToolException:
        return ToolException(f"{exc}. {hint}")

    def _k(self, k: int | None) -> int:
        return self.k if k is None else k

    # ---------------------------------------------------------------- sync
    def remember(self, key: str, value: str, text: str | None = None) -> str:
        try:
            result = self.memory.observe(
                key, value, text=text, namespace=self.namespace, source=self.source
            )
        except InvalidArgumentError as exc:
            raise self._error(exc, "Fix the arguments and call remember again.") from exc
        return self._remembered(result.evidence.key, value, result)

    def recall(
        self, query: str, k: int | None = None, key_prefix: str | None = None
    ) -> tuple[str, list[Document]]:
        try:
            docs = self.memory.retrieve(
                query, self._k(k), namespace=self.namespace, key_prefix=key_prefix
            )
        except InvalidArgumentError as exc:
            raise self._error(exc, "Fix the arguments and call recall again.") from exc
        return self._recalled(docs)

    def forget(self, key: str, value: str, reason: str = "the user asked to forget it") -> str:
        try:
            self.memory.revoke(
                key, value, reason=reason, namespace=self.namespace, source=self.source
            )
        except UnknownPrecedentError as exc:
            raise self._error(exc, "Call recall to see the stored values.") from exc
        except InvalidArgumentError as exc:
            raise self._error(exc, "Fix the arguments and call forget again.") from exc
        return f"Forgot {key} = {value!r} (revoked; kept in the audit archive)."

    # ---------------------------------------------------------------- async
    async def aremember(self, key: str, value: str, text: str | None = None) -> str:
        try:
            result = await self.memory.aobserve(
                key, value, text=text, namespace=self.namespace, source=self.source
            )
        except InvalidArgumentError as exc:
            raise self._error(exc, "Fix the arguments and call remember again.") from exc
        return self._remembered(result.evidence.key, value, result)

    async def arecall(
        self, query: str, k: int | None = None, key_prefix: str | None = None
    ) -> tuple[str, list[Document]]:
        try:
            docs = await self.memory.aretrieve(
                query, self._k(k), namespace=self.namespace, key_prefix=key_prefix
            )
        except InvalidArgumentError as exc:
            raise self._error(exc, "Fix the arguments and call recall again.") from exc
        return self._recalled(docs)

    async def aforget(
        self, key: str, value: str, reason: str = "the user asked to forget it"
    ) -> str:
        try:
            await self.memory.arevoke(
                key, value, reason=reason, namespace=self.namespace, source=self.source
            )
        except UnknownPrecedentError as exc:
            raise self._error(exc, "Call recall to see the stored values.") from exc
        except InvalidArgumentError as exc:
            raise self._error(exc, "Fix the arguments and call forget again.") from exc
        return f"Forgot {key} = {value!r} (revoked; kept in the audit archive)."


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
            ``("users", "u1")``); None uses the memory's default namespace.
        k: Default number of facts ``recall`` returns.
        source: Recorded as the ``source`` of the evidence the tools write.

    Returns:
        ``[remember, recall, forget]``, each with sync and async implementations.

    Raises:
        InvalidArgumentError: If ``namespace`` or ``k`` is invalid.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> tools = create_memory_tools(TEPAMemory.in_memory(), namespace=("users", "u1"))
        >>> [t.name for t in tools]
        ['remember', 'recall', 'forget']
    """
    ns = _namespace(namespace)
    validate_k(k)
    if not isinstance(source, str) or not source:
        raise InvalidArgumentError(f"source must be a non-empty string, got {source!r}")
    impl = _MemoryTools(memory, ns, k, source)
    remember = StructuredTool.from_function(
        func=impl.remember,
        coroutine=impl.aremember,
        name="remember",
        description=(
            "Store a durable fact about the user or the world as a key and a value. Call it "
            "whenever the user states a preference or a fact, also when it changes an earlier "
            "one: the memory keeps the evidence and retires values that stop being true."
        ),
        args_schema=RememberInput,
        handle_tool_error=True,
    )
    recall = StructuredTool.from_function(
        func=impl.recall,
        coroutine=impl.arecall,
        name="recall",
        description=(
            "Look up the facts currently believed true that are relevant to a query. Returns "
            "JSON: a list of {key, value, validity, support, conflict}, most relevant first; "
            "validity is the posterior probability that the value still holds."
        ),
        args_schema=RecallInput,
        response_format="content_and_artifact",
        handle_tool_error=True,
    )
    forget = StructuredTool.from_function(
        func=impl.forget,
        coroutine=impl.aforget,
        name="forget",
        description=(
            "Retire a stored value that is wrong or that the user wants forgotten. It stops "
            "being recalled but stays in the audit history."
        ),
        args_schema=ForgetInput,
        handle_tool_error=True,
    )
    tools: list[BaseTool] = [remember, recall, forget]
    return tools
