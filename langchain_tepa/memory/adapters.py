"""Where ``TEPAMemory.as_retriever()`` and its siblings find their adapters.

The adapters (retriever, store, classic memory, vector store) import the memory; the memory does
not import them. Each adapter registers a factory here when the package is imported
(``langchain_tepa/__init__.py``), and the facade's ``as_*`` methods look it up.

Example:
    >>> import langchain_tepa  # registers the adapters
    >>> "retriever" in registered()
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_tepa.core.errors import TEPAError
from langchain_tepa.core.values import safe_repr

__all__ = ["make_adapter", "register_adapter", "registered"]

_FACTORIES: dict[str, Callable[..., Any]] = {}


def register_adapter(name: str, factory: Callable[..., Any]) -> None:
    """Register ``factory(memory, **kwargs)`` as the adapter ``name``."""
    _FACTORIES[name] = factory


def registered() -> list[str]:
    """Names of the registered adapters."""
    return sorted(_FACTORIES)


def make_adapter(name: str, memory: Any, **kwargs: Any) -> Any:
    """The adapter ``name`` over ``memory``.

    Raises:
        TEPAError: If no adapter of that name is registered (``import langchain_tepa`` first).
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        raise TEPAError(
            f"no adapter {safe_repr(name)} is registered; import langchain_tepa first (it "
            "registers "
            f"{', '.join(registered()) or 'the adapters'})"
        )
    return factory(memory, **kwargs)
