"""Agent tools over a :class:`~langchain_tepa.memory.TEPAMemory`: remember, recall, forget.

``create_memory_tools(memory)`` returns three LangChain tools (sync and async) that any
tool-calling agent can use, for example ``langchain.agents.create_agent(model, tools)``:

- ``remember(key, value, text=None)``: an observation. Saying a new value for a key is
  evidence against the old one; after enough such evidence the old value is revoked.
- ``recall(query, k=None, key_prefix=None)``: the Active facts most similar to the query, as
  JSON (``[{"key", "value", "validity", "support", "conflict"}]``); the ``Document`` objects
  are the tool message's ``artifact``.
- ``forget(key, value, reason=...)``: revokes a value by hand (it stays in the audit archive).

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

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from langchain_core.documents import Document  # runtime: agents inspect tool signatures
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field, ValidationError

from langchain_tepa.core.errors import (
    InvalidArgumentError,
    ReadOnlyError,
    TEPAError,
    UnknownPrecedentError,
)
from langchain_tepa.core.values import validate_namespace
from langchain_tepa.validation import validate_k

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory
    from langchain_tepa.results import ObservationResult

__all__ = ["ForgetInput", "RecallInput", "RememberInput", "create_memory_tools"]

logger = logging.getLogger(__name__)
_MAX_SHOWN = 120  # characters of a refused argument quoted back to the model


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


def _validation_message(tool: str) -> Callable[[ValidationError], str]:
    """The ``handle_validation_error`` of ``tool``: pydantic's complaint, said to the model."""

    def message(exc: ValidationError) -> str:
        problems = []
        for err in exc.errors():
            where = ".".join(str(part) for part in err.get("loc", ())) or "arguments"
            text = f"{where}: {err.get('msg', 'invalid')}"
            if err.get("type") != "missing" and "input" in err:
                text += f" (got {err['input']!r:.{_MAX_SHOWN}})"
            problems.append(text)
        return (
            f"Invalid arguments for {tool}: {'; '.join(problems)}. "
            f"Fix the arguments and call {tool} again."
        )

    return message


@contextmanager
def _errors_to_model(tool: str) -> Iterator[None]:
    """Turn every failure of a memory call into a :class:`ToolException` the model can read.

    The hint after the error's own text tells the model what to do next. Errors that are not
    the library's own (a bug, or a storage failure the storage layer did not type) are logged
    with their traceback and reported to the model too: a memory failure must not end the run.
    """
    try:
        yield
    except UnknownPrecedentError as exc:
        raise ToolException(f"{exc}. Call recall to see the stored values.") from exc
    except InvalidArgumentError as exc:
        raise ToolException(f"{exc}. Fix the arguments and call {tool} again.") from exc
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
        try:
            audit = self.memory.audit(key, namespace=self.namespace)
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
        return text

    @staticmethod
    def _recalled(docs: list[Document]) -> tuple[str, list[Document]]:
        if not docs:
            return "No active memories match.", docs
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
                fact["alternatives"] = d.metadata["alternatives"]
            facts.append(fact)
        return json.dumps(facts, ensure_ascii=False), docs

    def _k(self, k: int | None) -> int:
        return self.k if k is None else k

    # ---------------------------------------------------------------- sync
    def remember(self, key: str, value: str, text: str | None = None) -> str:
        with _errors_to_model("remember"):
            result = self.memory.observe(
                key, value, text=text, namespace=self.namespace, source=self.source
            )
        return self._remembered(result.evidence.key, value, result)

    def recall(
        self, query: str, k: int | None = None, key_prefix: str | None = None
    ) -> tuple[str, list[Document]]:
        with _errors_to_model("recall"):
            docs = self.memory.retrieve(
                query, self._k(k), namespace=self.namespace, key_prefix=key_prefix
            )
        return self._recalled(docs)

    def forget(self, key: str, value: str, reason: str = "the user asked to forget it") -> str:
        with _errors_to_model("forget"):
            self.memory.revoke(
                key, value, reason=reason, namespace=self.namespace, source=self.source
            )
        return f"Forgot {key} = {value!r} (revoked; kept in the audit archive)."

    # ---------------------------------------------------------------- async
    async def aremember(self, key: str, value: str, text: str | None = None) -> str:
        with _errors_to_model("remember"):
            result = await self.memory.aobserve(
                key, value, text=text, namespace=self.namespace, source=self.source
            )
        return self._remembered(result.evidence.key, value, result)

    async def arecall(
        self, query: str, k: int | None = None, key_prefix: str | None = None
    ) -> tuple[str, list[Document]]:
        with _errors_to_model("recall"):
            docs = await self.memory.aretrieve(
                query, self._k(k), namespace=self.namespace, key_prefix=key_prefix
            )
        return self._recalled(docs)

    async def aforget(
        self, key: str, value: str, reason: str = "the user asked to forget it"
    ) -> str:
        with _errors_to_model("forget"):
            await self.memory.arevoke(
                key, value, reason=reason, namespace=self.namespace, source=self.source
            )
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
        handle_validation_error=_validation_message("remember"),
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
        handle_validation_error=_validation_message("recall"),
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
        handle_validation_error=_validation_message("forget"),
        handle_tool_error=True,
    )
    tools: list[BaseTool] = [remember, recall, forget]
    return tools
