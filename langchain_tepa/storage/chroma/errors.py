"""Chroma's and the network's exceptions as the library's typed errors, with what to do.

Example:
    >>> where = "Chroma server at http://127.0.0.1:9"
    >>> err = translate(ConnectionRefusedError("refused"), where, "get")
    >>> type(err).__name__, "127.0.0.1:9" in str(err)
    ('StorageUnavailableError', True)
"""

from __future__ import annotations

from typing import Any

from langchain_tepa.core.errors import (
    BrokenIndexError,
    OutcomeUnknownError,
    ReadOnlyError,
    StorageError,
    StorageUnavailableError,
    TEPAError,
)

__all__ = ["describe_client", "is_not_found", "is_write", "translate"]

_BROKEN_INDEX = (
    "error deserializing pickle file",
    "error creating hnsw segment reader",
    "error loading hnsw index",
)
_UNREACHABLE = (
    "could not connect",
    "connection refused",
    "connecterror",
    "connection reset",
    "server disconnected",
    "timed out",
    "name or service not known",
    "temporary failure in name resolution",
)


def describe_client(client: Any) -> str:
    """Where a chromadb client keeps its data, for messages."""
    try:
        settings = client.get_settings()
    except Exception:  # an async proxy or an unusual client
        settings = getattr(client, "_settings", None)
    host = getattr(settings, "chroma_server_host", None)
    if host:
        port = getattr(settings, "chroma_server_http_port", None)
        scheme = "https" if getattr(settings, "chroma_server_ssl_enabled", False) else "http"
        return f"Chroma server at {scheme}://{host}:{port}"
    if getattr(settings, "is_persistent", False):
        return f"embedded Chroma at {getattr(settings, 'persist_directory', '?')}"
    return "in-process Chroma"


def is_not_found(exc: BaseException) -> bool:
    """Whether ``exc`` says a collection does not exist."""
    return type(exc).__name__ == "NotFoundError" or "does not exist" in str(exc)


def _is_transport(exc: BaseException) -> bool:
    try:
        import httpx
    except ImportError:  # pragma: no cover - chromadb depends on httpx
        return False
    return isinstance(exc, httpx.TransportError)


_WRITES = ("append", "register", "index", "write", "remove", "upsert", "dedicate", "mark")


def is_write(op: str) -> bool:
    """Whether the Chroma call named ``op`` (as ``ChromaStorage.call`` names them) writes.

    Example:
        >>> is_write("append evidence"), is_write("read heads")
        (True, False)
    """
    return op.startswith(_WRITES)


def translate(exc: BaseException, where: str, op: str) -> TEPAError:
    """``exc`` raised by Chroma during ``op`` on the store ``where``, as a typed error.

    A connection failure during a write is :class:`OutcomeUnknownError`: the server may have
    applied the call, and a write is several calls (one per shard), so what was stored cannot
    be told from here. During a read it is :class:`StorageUnavailableError`.
    """
    if isinstance(exc, TEPAError):
        return exc
    text = str(exc)
    low = f"{type(exc).__name__} {text}".lower()
    if (
        _is_transport(exc)
        or isinstance(exc, ConnectionError | TimeoutError)
        or any(marker in low for marker in _UNREACHABLE)
    ) and is_write(op):
        return OutcomeUnknownError(
            f"the connection to the {where} failed during a write ({op}: "
            f"{text or type(exc).__name__}); the write's outcome is unknown: its records may be "
            "stored in whole, in part or not at all. Once the server is back, retry it with "
            "error.retry() (or memory.retry(error)): the same records under the same ids "
            "count once (a new observe or put is new evidence); "
            "start the server (for example `chroma run --path DIR --host 127.0.0.1 --port "
            "PORT`) or check the host and port"
        )
    if (
        _is_transport(exc)
        or isinstance(exc, ConnectionError | TimeoutError)
        or any(marker in low for marker in _UNREACHABLE)
    ):
        return StorageUnavailableError(
            f"cannot reach the {where} ({op}: {text or type(exc).__name__}); start it (for "
            "example `chroma run --path DIR --host 127.0.0.1 --port PORT`) or check the host and "
            "port; nothing was written by this call"
        )
    if "readonly database" in low or "read-only" in low:
        return ReadOnlyError(
            f"the {where} cannot be written ({text}): the folder or its files are read-only; "
            "open it with read_only=True, or fix the permissions"
        )
    if "unable to open database file" in low or "permission denied" in low:
        return StorageError(
            f"the {where} cannot be opened ({text}): check that the folder exists and that this "
            "user may read and write it"
        )
    if any(marker in low for marker in _BROKEN_INDEX):
        return BrokenIndexError(
            f"Chroma {op} on the {where} failed: it cannot read a collection's vector index "
            f"files ({text}); a process killed while writing them leaves them truncated. The "
            "records are safe in chroma.sqlite3: stop every process using the folder (or the "
            "server), run `tepa repair-index PATH`, start again, then `tepa reconcile PATH "
            "--reindex` (or memory.reconcile(reindex=True)); see docs/reliability.md"
        )
    return StorageError(f"Chroma {op} on the {where} failed: {type(exc).__name__}: {text}")
