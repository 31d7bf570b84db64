"""Where ``TEPAMemory.as_retriever()`` and its siblings find their adapters.

The adapters (retriever, store, classic memory, vector store) import the memory; the memory does
not import them. The built-in ones are named here by module and class and imported when first
made; ``register_adapter`` adds or replaces one, and the facade's ``as_*`` methods look it up.

Example:
    >>> "retriever" in registered()
    True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from langchain_tepa.core.errors import TEPAError
from langchain_tepa.core.values import safe_repr

__all__ = ["make_adapter", "register_adapter", "registered"]

_FACTORIES: dict[str, Callable[..., Any]] = {}

# The built-in adapters, by name: (module, class), imported when the first one is made.
_BUILT_IN = {
    "classic": ("langchain_tepa.classic", "TEPAConversationMemory"),
    "retriever": ("langchain_tepa.retriever", "TEPARetriever"),
    "store": ("langchain_tepa.store", "TEPAStore"),
    "vectorstore": ("langchain_tepa.vectorstore", "TEPAVectorStore"),
}


def register_adapter(name: str, factory: Callable[..., Any]) -> None:
    """Register ``factory(memory, **kwargs)`` as the adapter ``name``."""
    _FACTORIES[name] = factory


def registered() -> list[str]:
    """Names of the registered adapters."""
    return sorted(set(_FACTORIES) | set(_BUILT_IN))


def make_adapter(name: str, memory: Any, **kwargs: Any) -> Any:
    """The adapter ``name`` over ``memory``.

    Raises:
        TEPAError: If no adapter of that name is registered.
    """
    factory = _FACTORIES.get(name)
    if factory is not None:
        return factory(memory, **kwargs)
    if name not in _BUILT_IN:
        raise TEPAError(
            f"no adapter {safe_repr(name)} is registered; known: {', '.join(registered())}"
        )
    module, cls = _BUILT_IN[name]
    return getattr(importlib.import_module(module), cls)(memory=memory, **kwargs)
