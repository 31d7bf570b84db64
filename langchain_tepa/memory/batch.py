"""Mixed write batches: observations and key revocations in one append.

:meth:`TEPAMemory.write_many <langchain_tepa.memory.TEPAMemory.write_many>` takes
:class:`~langchain_tepa.core.types.Fact` objects and :class:`RevokeKey` entries in order. A
``RevokeKey`` revokes the values its key holds at its place in the batch (values observed
earlier in the same batch included), so the batch folds exactly like its writes made one at a
time, but is stored as one append (one storage write per shard touched) instead of one per
revocation. ``TEPAStore`` uses it for LangGraph batches of puts and deletes.

Example:
    >>> from langchain_tepa import Fact, TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.write_many([Fact("k", 1), RevokeKey("k"), Fact("j", 2)])
    >>> memory.get("k"), memory.get("j")
    (None, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import safe_repr, validate_key

__all__ = ["Decision", "RevokeKey"]


@dataclass(frozen=True)
class RevokeKey:
    """Revoke every live value of ``key`` (a delete that keeps the records), in a batch.

    Attributes:
        key: The key.
        namespace: Its namespace (``None``: the memory's default).
        reason: Why (kept with the revocation records).
        source: Who asked.

    Example:
        >>> RevokeKey("user.diet", namespace="users.u1", reason="deleted").reason
        'deleted'
    """

    key: str
    namespace: str | None = None
    reason: str = "revoked by hand"
    source: str | None = None

    def __post_init__(self) -> None:
        validate_key(self.key)
        if not isinstance(self.reason, str) or not self.reason.strip():
            raise InvalidArgumentError("reason must be a non-empty string")


@dataclass(frozen=True)
class Decision:
    """Promote or revoke one value of a key, in a batch, if its state at that place differs.

    Unlike :meth:`TEPAMemory.promote <langchain_tepa.memory.TEPAMemory.promote>` and
    ``revoke``, a decision on a value the key does not hold, or one already in the wanted
    state, writes nothing (it is decided at its place in the batch). Free-text items use it to
    take back an item whose claims were superseded (:mod:`langchain_tepa.memory.claims`).

    Attributes:
        key: The key.
        value: The value decided on.
        promote: ``True`` promotes the value to Active, ``False`` revokes it.
        reason: Why (the transition's reason in the audit).
        namespace: Its namespace (``None``: the memory's default).
        source: Who decided.

    Example:
        >>> Decision("doc.a", {"chars": 3}, promote=False, reason="superseded").promote
        False
    """

    key: str
    value: Any
    promote: bool
    reason: str
    namespace: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        validate_key(self.key)
        if not isinstance(self.promote, bool):
            raise InvalidArgumentError(
                f"promote must be True or False, got {safe_repr(self.promote)}"
            )
        if not isinstance(self.reason, str) or not self.reason.strip():
            raise InvalidArgumentError("reason must be a non-empty string")
