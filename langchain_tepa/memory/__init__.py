"""`TEPAMemory`: the public facade.

It stands over the state layer (:mod:`langchain_tepa.state`) and a storage backend
(:mod:`langchain_tepa.storage`).

Example:
    >>> from langchain_tepa.memory import TEPAMemory
    >>> TEPAMemory.in_memory().observe("user.diet", "vegan").precedent.value
    'vegan'
"""

from __future__ import annotations

from langchain_tepa.memory.batch import RevokeKey
from langchain_tepa.memory.facade import (
    MAX_K,
    MAX_TEXT_CHARS,
    AsOfPoint,
    Namespace,
    TEPAMemory,
)
from langchain_tepa.memory.rows import AnswerRow, AnswerTable
from langchain_tepa.memory.spaces import VectorSpace

__all__ = [
    "MAX_K",
    "MAX_TEXT_CHARS",
    "AnswerRow",
    "AnswerTable",
    "AsOfPoint",
    "Namespace",
    "RevokeKey",
    "TEPAMemory",
    "VectorSpace",
]
