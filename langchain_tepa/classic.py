"""`TEPAConversationMemory`: a LangChain-classic ``BaseMemory`` adapter for legacy chains.

``BaseMemory`` is deprecated upstream and lives in ``langchain-classic``; install the extra with
``pip install "langchain-tepa[classic]"``. New code should use
:class:`~langchain_tepa.store.TEPAStore` (LangGraph) or
:class:`~langchain_tepa.retriever.TEPARetriever` instead.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", "vegan")
    >>> chat_memory = TEPAConversationMemory(memory=memory)
    >>> chat_memory.load_memory_variables({"input": "what do I eat?"})["facts"]
    '- user.diet: vegan'
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.documents import Document

from langchain_tepa.core.errors import InvalidArgumentError, TEPAError
from langchain_tepa.core.types import Lifecycle
from langchain_tepa.core.values import canonical_json, safe_repr, validate_namespace
from langchain_tepa.memory import TEPAMemory
from langchain_tepa.validation import validate_k

__all__ = ["MissingDependencyError", "TEPAConversationMemory"]


class MissingDependencyError(TEPAError, ImportError):
    """An optional dependency of langchain-tepa is not installed."""


try:
    from langchain_classic.base_memory import BaseMemory
except ImportError as _exc:  # pragma: no cover - exercised by a subprocess test
    raise MissingDependencyError(
        "TEPAConversationMemory needs langchain-classic; install it with "
        "pip install 'langchain-tepa[classic]'"
    ) from _exc


def _line(doc: Document) -> str:
    value = doc.metadata.get("value")
    shown = value if isinstance(value, str) else canonical_json(value)
    return f"- {doc.metadata.get('key')}: {shown}"


class TEPAConversationMemory(BaseMemory):
    """Legacy-chain memory: Active facts in, facts extracted from each turn out.

    * ``load_memory_variables(inputs)`` retrieves the ``k`` Active facts most relevant to the
      input and returns them under ``memory_key`` as lines ``"- key: value"`` (or as
      ``Document`` objects with ``return_docs=True``).
    * ``save_context(inputs, outputs)`` extracts keyed facts from the human input (and from
      the output when ``extract_outputs=True``) with the memory's extractor
      (:meth:`TEPAMemory.add_texts`) and observes them as evidence.
    * ``clear()`` revokes every Active precedent of its namespace (reason ``"cleared"``);
      nothing is deleted, ``memory.audit(key)`` still shows them.

    Args:
        memory: The memory.
        memory_key: Name of the prompt variable it fills.
        input_key: Input holding the human message (default: the only input that is not a
            memory variable).
        output_key: Output holding the AI message (default: the only output).
        k: Facts retrieved per turn (1 to 1000).
        namespace: Namespace (default: the memory's).
        return_docs: Return ``Document`` objects instead of text.
        extract_outputs: Also extract facts from the AI output (off by default: the model's
            words are not evidence about the user).
        source: ``source`` recorded on extracted evidence.
        best_value_only: Show one value per single-valued key, its best Active one (what
            ``memory.get`` returns), so a contradicted value that is still Active (it has not
            gathered enough conflict to be revoked yet) does not reach the prompt.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> chat_memory = TEPAConversationMemory(memory=TEPAMemory.in_memory(), k=3)
        >>> chat_memory.memory_variables
        ['facts']
    """

    memory: TEPAMemory
    memory_key: str = "facts"
    input_key: str | None = None
    output_key: str | None = None
    k: int = 4
    namespace: str | None = None
    return_docs: bool = False
    extract_outputs: bool = False
    source: str = "conversation"
    best_value_only: bool = True

    def __init__(self, **data: Any) -> None:
        if not isinstance(data.get("memory"), TEPAMemory):
            raise InvalidArgumentError(
                "memory must be a TEPAMemory, for example "
                "TEPAConversationMemory(memory=TEPAMemory.in_memory())"
            )
        validate_k(data.get("k", 4))
        if data.get("namespace") is not None:
            validate_namespace(data["namespace"])
        key = data.get("memory_key", "facts")
        if not isinstance(key, str) or not key:
            raise InvalidArgumentError(
                f"memory_key must be a non-empty string, got {safe_repr(key)}"
            )
        super().__init__(**data)

    @property
    def memory_variables(self) -> list[str]:
        """The one prompt variable this memory fills."""
        return [self.memory_key]

    def _input(self, inputs: dict[str, Any]) -> str:
        key = self.input_key
        if key is None:
            candidates = [k for k in inputs if k != self.memory_key and k != "stop"]
            if len(candidates) != 1:
                raise InvalidArgumentError(
                    f"cannot tell which input is the human message among {sorted(candidates)}; "
                    "set input_key"
                )
            key = candidates[0]
        if key not in inputs:
            raise InvalidArgumentError(f"input {safe_repr(key)} is missing from {sorted(inputs)}")
        return str(inputs[key])

    def _output(self, outputs: dict[str, Any]) -> str | None:
        if not self.extract_outputs:
            return None
        key = self.output_key
        if key is None:
            if len(outputs) != 1:
                raise InvalidArgumentError(
                    f"cannot tell which output is the AI message among {sorted(outputs)}; "
                    "set output_key"
                )
            key = next(iter(outputs))
        return str(outputs[key]) if key in outputs else None

    def _variables(self, docs: list[Document]) -> dict[str, Any]:
        if self.return_docs:
            return {self.memory_key: docs}
        return {self.memory_key: "\n".join(_line(d) for d in docs)}

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The Active facts most relevant to the input, under ``memory_key``."""
        docs = self.memory.retrieve(
            self._input(inputs),
            self.k,
            namespace=self.namespace,
            all_values=not self.best_value_only,
        )
        return self._variables(docs)

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Async twin of :meth:`load_memory_variables`."""
        docs = await self.memory.aretrieve(
            self._input(inputs),
            self.k,
            namespace=self.namespace,
            all_values=not self.best_value_only,
        )
        return self._variables(docs)

    def _turn(self, inputs: dict[str, Any], outputs: dict[str, str]) -> list[str]:
        texts = [self._input(inputs)]
        out = self._output(outputs)
        if out:
            texts.append(out)
        return texts

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, str]) -> None:
        """Extract keyed facts from the turn and observe them."""
        self.memory.add_texts(
            self._turn(inputs, outputs), namespace=self.namespace, source=self.source
        )

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, str]) -> None:
        """Async twin of :meth:`save_context`."""
        await self.memory.aadd_texts(
            self._turn(inputs, outputs), namespace=self.namespace, source=self.source
        )

    def clear(self) -> None:
        """Revoke every Active precedent of the namespace (reason ``"cleared"``); delete none."""
        ns = self.namespace if self.namespace is not None else self.memory.namespace
        for p in self.memory.precedents(namespace=ns):
            if p.state is Lifecycle.ACTIVE:
                self.memory.revoke(
                    p.key, p.value, reason="cleared", namespace=ns, source=self.source
                )

    async def aclear(self) -> None:
        """Async twin of :meth:`clear`."""
        await asyncio.to_thread(self.clear)
