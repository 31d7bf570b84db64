"""Puts written as corrections: how a profile edit goes through :class:`TEPAStore`.

A plain ``put`` is an observation (evidence). A *correction* is an observation marked
``correction: True``: from the store's source (``"langgraph-store"``, trusted to correct by the
default trust table) it makes the new value Active at once and revokes the key's other values,
the audit naming the correction. A put is a correction when

* it is ``store.put(..., correction=True)`` (or ``aput``), whatever the store's setting; or
* the store was built with ``corrections=True`` and the put does not say
  ``correction=False``.

Plain ``PutOp`` objects passed to ``batch`` (LangGraph, LangMem) follow the store's setting;
:func:`put_op` builds ops that carry their own choice.

Example:
    >>> op = put_op(("users", "u1"), "profile", {"city": "Lyon"}, correction=True)
    >>> isinstance(op, PutOp), correction_of(op)
    (True, True)
    >>> correction_of(PutOp(("users", "u1"), "profile", {"city": "Lyon"})) is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.store.base import NOT_PROVIDED, PutOp, TTLConfig

from langchain_tepa.core.errors import InvalidArgumentError, InvalidKeyError
from langchain_tepa.core.values import safe_repr

__all__ = ["CorrectionPutOp", "EvidencePutOp", "check_key_arg", "correction_of", "put_op"]


class CorrectionPutOp(PutOp):
    """A ``PutOp`` written as a correction (``put(..., correction=True)``)."""

    __slots__ = ()


class EvidencePutOp(PutOp):
    """A ``PutOp`` written as plain evidence even when the store writes corrections."""

    __slots__ = ()


def correction_of(op: PutOp) -> bool | None:
    """``True``/``False`` when the op says whether it corrects, ``None``: the store's setting."""
    if isinstance(op, CorrectionPutOp):
        return True
    if isinstance(op, EvidencePutOp):
        return False
    return None


def check_key_arg(key: object) -> str:
    """A key argument of a store method or op: a string.

    LangGraph's own ``get``/``put``/``delete`` convert any key with ``str()``, which stored
    ``2**64`` as ``"18446744073709551616"`` and failed with a plain ``ValueError`` on an int
    of 5,000 digits (issue 38); a store key is a memory key, and a memory key is text.

    Raises:
        InvalidKeyError: When it is not a string.
    """
    if not isinstance(key, str):
        raise InvalidKeyError(
            f"store keys must be strings such as 'diet', got {type(key).__name__}"
        )
    return key


def put_op(
    namespace: tuple[str, ...],
    key: str,
    value: Mapping[str, Any] | None,
    index: Any = None,
    *,
    ttl: Any = NOT_PROVIDED,
    ttl_config: TTLConfig | None = None,
    correction: bool | None = None,
) -> PutOp:
    """The op of ``put``: a ``PutOp``, or one that says whether it corrects.

    ``ttl`` not given takes the store's ``default_ttl`` (as LangGraph's ``put`` does).

    Raises:
        InvalidArgumentError: If ``correction`` is not ``None``, ``True`` or ``False``.
    """
    if correction is not None and not isinstance(correction, bool):
        raise InvalidArgumentError(
            f"correction must be True, False or None, got {safe_repr(correction)}"
        )
    if ttl is NOT_PROVIDED:
        ttl = ttl_config.get("default_ttl") if ttl_config else None
    cls = PutOp if correction is None else CorrectionPutOp if correction else EvidencePutOp
    # LangGraph's own put passes any mapping on too; plan_put checks and copies it.
    return cls(
        namespace, check_key_arg(key), cast("dict[str, Any] | None", value), index=index, ttl=ttl
    )
