"""`TEPARetriever`: a LangChain retriever over the Active precedents of a TEPAMemory.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> docs = TEPARetriever(memory=memory, k=1).invoke("pizza topping")
    >>> docs[0].metadata["value"], docs[0].metadata["state"]
    ('mushroom', 'active')
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import validate_key, validate_namespace
from langchain_tepa.memory import TEPAMemory
from langchain_tepa.validation import validate_k

__all__ = ["TEPARetriever"]

_CALL_OPTIONS = ("k", "namespace", "key_prefix")
_IGNORED = ("verbose",)  # BaseRetriever.invoke reads it and passes it on


def _check_options(namespace: object, key_prefix: object) -> tuple[str | None, str | None]:
    ns = validate_namespace(namespace) if namespace is not None else None
    prefix = validate_key(key_prefix) if key_prefix is not None else None
    return ns, prefix


class TEPARetriever(BaseRetriever):
    """Retrieve the Active precedents of a :class:`~langchain_tepa.memory.TEPAMemory`.

    Hypotheses and Revoked precedents are never returned. Each ``Document`` is one precedent:
    ``page_content`` is its text (or ``"key: value"``) and ``metadata`` holds key, value,
    state, support, conflict, validity, lower_95, namespace, precedent_id, evidence_ids,
    created_at, updated_at and score (cosine similarity), as :meth:`TEPAMemory.retrieve` gives.

    ``k``, ``namespace`` and ``key_prefix`` can be set on the retriever and overridden per call:
    ``retriever.invoke("query", k=2, key_prefix="user")``.

    Args:
        memory: The memory to read.
        k: Documents to return (1 to 1000).
        namespace: Namespace to read (default: the memory's namespace).
        key_prefix: Only keys equal to it or below it (``"user"`` matches ``"user.diet"``).

    Raises:
        InvalidArgumentError: For a bad ``k``, namespace or key prefix (on construction and
            on every call).

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory.in_memory()
        >>> _ = memory.observe("user.diet", "vegan")
        >>> _ = memory.observe("france.capital", "Paris")
        >>> retriever = memory.as_retriever(k=2, key_prefix="user")
        >>> [d.metadata["key"] for d in retriever.invoke("what does the user eat?")]
        ['user.diet']
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: TEPAMemory
    """The memory to read."""
    k: int = 4
    """How many documents to return."""
    namespace: str | None = None
    """Namespace to read (``None``: the memory's namespace)."""
    key_prefix: str | None = None
    """Only keys equal to this prefix or below it."""

    def __init__(self, **data: Any) -> None:
        memory = data.get("memory")
        if not isinstance(memory, TEPAMemory):
            raise InvalidArgumentError(
                "memory must be a TEPAMemory, got "
                f"{type(memory).__name__}; for example TEPARetriever(memory=TEPAMemory.in_memory())"
            )
        if "k" in data:
            data["k"] = validate_k(data["k"])
        data["namespace"], data["key_prefix"] = _check_options(
            data.get("namespace"), data.get("key_prefix")
        )
        super().__init__(**data)

    def _options(self, kwargs: dict[str, Any]) -> tuple[int, str | None, str | None]:
        unknown = sorted(set(kwargs) - set(_CALL_OPTIONS) - set(_IGNORED))
        if unknown:
            raise InvalidArgumentError(
                f"unknown retriever options {unknown}; use {', '.join(_CALL_OPTIONS)}"
            )
        k = validate_k(kwargs.get("k", self.k))
        ns, prefix = _check_options(
            kwargs.get("namespace", self.namespace), kwargs.get("key_prefix", self.key_prefix)
        )
        return k, ns, prefix

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        **kwargs: Any,
    ) -> list[Document]:
        k, ns, prefix = self._options(kwargs)
        return self.memory.retrieve(query, k, namespace=ns, key_prefix=prefix)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        **kwargs: Any,
    ) -> list[Document]:
        k, ns, prefix = self._options(kwargs)
        return await self.memory.aretrieve(query, k, namespace=ns, key_prefix=prefix)
