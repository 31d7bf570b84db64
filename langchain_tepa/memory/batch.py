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

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import validate_key

__all__ = ["RevokeKey"]


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
