"""Embedded Chroma folders: path checks, an exclusive lock per folder, read-only snapshots.

Chroma's embedded mode (``PersistentClient``) serves one process: two processes writing one
folder corrupt each other's view of it. :func:`open_persistent_client` therefore takes a lock on
the folder (``.tepa.lock``, an ``flock`` held while the memory is open): exclusive for a writer,
shared for ``read_only=True`` readers, refused at once with :class:`StorageLockedError` when
another process holds it. Several memories of one process share the lock. For several
processes, serve the folder with ``chroma run`` and use ``TEPAMemory.from_client``.

Chroma cannot open a folder it may not write, even to read. ``read_only=True`` on such a folder
(a read-only mount, another user's files) opens a private snapshot copy instead, with a warning.

Chroma's embedded mode keeps every HNSW index it has loaded in a pool of ``RLIMIT_NOFILE // 5``
indexes split over 64 cache shards. An index evicted from that pool is reloaded from disk
without the records it had not persisted yet (Chroma 1.5.9: queries then miss them and
``get(include=["embeddings"])`` fails with "Error finding id"), so a low open-file limit is
a correctness hazard, not a memory saving: :func:`open_persistent_client` warns once per
process when the limit leaves fewer than :data:`SAFE_INDEXES_PER_SHARD` indexes per shard.

Example:
    >>> import tempfile
    >>> client, lock = open_persistent_client(tempfile.mkdtemp())
    >>> lock.release()
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError, StorageError, StorageLockedError
from langchain_tepa.core.values import safe_repr
from langchain_tepa.storage.chroma.errors import translate

__all__ = [
    "JOURNAL_MODES",
    "SAFE_INDEXES_PER_SHARD",
    "FolderLock",
    "index_pool_per_shard",
    "lock_for_maintenance",
    "open_persistent_client",
    "open_server_client",
    "set_journal_mode",
]

_log = logging.getLogger("langchain_tepa")
_LOCK_NAME = ".tepa.lock"
_SNAPSHOT_LIMIT = 2 * 1024**3
JOURNAL_MODES = ("wal", "keep")
"""``journal_mode`` values: ``"wal"`` (write-ahead logging) or ``"keep"`` (Chroma's own)."""

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: no folder lock
    fcntl = None  # type: ignore[assignment]

try:  # POSIX
    import resource
except ImportError:  # pragma: no cover - Windows: Chroma sizes its pool from _getmaxstdio
    resource = None  # type: ignore[assignment]

_POOL_SHARDS = 64  # Chroma 1.5.9's foyer cache: 64 shards, each an LRU of capacity // 64
SAFE_INDEXES_PER_SHARD = 10
"""Loaded HNSW indexes per shard of Chroma's pool below which opening warns. A store holds
about 35-70 collections (meta, names, 16 evidence shards, vector shards, large namespaces'
indexes, item spaces) hashed over 64 shards; with 10 per shard none is ever evicted in practice
(``ulimit -n`` 3,200 or more; 4,096 is the advice)."""
_POOL_CHECKED = False


@dataclass
class _Held:
    fd: int
    exclusive: bool
    count: int = 1


_HELD: dict[str, _Held] = {}
_HELD_LOCK = threading.Lock()


@dataclass
class FolderLock:
    """A held folder lock (and a snapshot copy to remove); :meth:`release` once.

    Example:
        >>> FolderLock(None).release()
    """

    key: str | None
    cleanup: Path | None = None
    _released: bool = field(default=False, repr=False)

    @property
    def held(self) -> bool:
        """Whether this holds a folder lock now (not a snapshot copy, not released)."""
        return self.key is not None and not self._released

    def release(self) -> None:
        """Release the lock (and remove the snapshot copy)."""
        if self._released:
            return
        self._released = True
        if self.key is not None:
            with _HELD_LOCK:
                held = _HELD.get(self.key)
                if held is not None:
                    held.count -= 1
                    if held.count <= 0:
                        del _HELD[self.key]
                        os.close(held.fd)  # closing the descriptor drops the flock
        if self.cleanup is not None:
            shutil.rmtree(self.cleanup, ignore_errors=True)


def _folder(path: object) -> Path:
    if path is None or not isinstance(path, str | os.PathLike):
        raise InvalidArgumentError(
            f"path must be a folder path (str or pathlib.Path), got {type(path).__name__}; "
            "for example TEPAMemory.from_path('./memory')"
        )
    text = os.fspath(path)
    if isinstance(text, bytes) or not text.strip():
        raise InvalidArgumentError("path must be a non-empty folder path, e.g. './memory'")
    return Path(text).expanduser()


def _writable(folder: Path) -> bool:
    sqlite = folder / "chroma.sqlite3"
    return os.access(folder, os.W_OK) and (not sqlite.exists() or os.access(sqlite, os.W_OK))


def _lock(folder: Path, *, exclusive: bool) -> FolderLock:
    if fcntl is None:  # pragma: no cover
        return FolderLock(None)
    key = str(folder.resolve())
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is not None:
            if exclusive and not held.exclusive:
                raise StorageLockedError(
                    f"{folder} is open read-only in this process; close those memories before "
                    "opening it for writing"
                )
            held.count += 1
            return FolderLock(key)
        path = folder / _LOCK_NAME
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot create the lock file {path}: {exc}") from exc
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except OSError as exc:
            try:
                holder = os.read(fd, 64).decode("ascii", "replace").strip() or "another process"
            finally:
                os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise StorageLockedError(
                    f"{folder} is in use by {holder}: Chroma's embedded mode serves one process. "
                    f"Stop that process, or serve the folder with `chroma run --path {folder} "
                    "--host 127.0.0.1 --port 8000` and open it in every process with "
                    "TEPAMemory.from_client(chromadb.HttpClient(host='127.0.0.1', port=8000))"
                ) from exc
            raise StorageError(f"cannot lock {folder}: {exc}") from exc
        if exclusive:
            os.ftruncate(fd, 0)
            os.write(fd, f"process {os.getpid()}".encode("ascii"))
        _HELD[key] = _Held(fd, exclusive)
        return FolderLock(key)


def _snapshot(folder: Path) -> Path:
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    if size > _SNAPSHOT_LIMIT:
        raise StorageError(
            f"{folder} cannot be written, and Chroma cannot open a folder it may not write even "
            f"to read; it is too large ({size / 1024**3:.1f} GiB) for a private snapshot copy: "
            "copy it somewhere writable, or serve it with `chroma run --path ...`"
        )
    copy = Path(tempfile.mkdtemp(prefix="tepa-snapshot-"))
    target = copy / "store"
    shutil.copytree(
        folder, target, ignore=shutil.ignore_patterns(_LOCK_NAME), copy_function=shutil.copyfile
    )
    for path in [target, *target.rglob("*")]:  # the copy is ours to write (Chroma must)
        path.chmod(0o700 if path.is_dir() else 0o600)
    _log.warning(
        "%s is read-only and Chroma cannot open a folder it may not write: reading a snapshot "
        "copy made now (%d bytes); writes of other processes after this moment are not seen",
        folder,
        size,
    )
    return target


def _check_journal(journal_mode: object) -> None:
    if journal_mode not in JOURNAL_MODES:
        raise InvalidArgumentError(
            f"journal_mode must be one of {', '.join(map(repr, JOURNAL_MODES))}, "
            f"got {safe_repr(journal_mode)}"
        )


def _header_mode(path: Path) -> str | None:
    """``"wal"`` or ``"rollback"`` from an SQLite file's header; ``None`` without a database.

    Reading the header opens no SQLite connection (see :func:`set_journal_mode`).
    """
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except FileNotFoundError:
        return None
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
        return None
    return "wal" if head[18] == 2 and head[19] == 2 else "rollback"


def _open_in_this_process(folder: Path) -> bool:
    """Whether a chromadb client of this process may hold ``folder``'s database open."""
    try:
        from chromadb.api.shared_system_client import SharedSystemClient
    except ImportError:  # pragma: no cover - other chromadb versions
        return True
    real = os.path.realpath(folder)
    systems = list(getattr(SharedSystemClient, "_identifier_to_system", {}))
    return any(os.path.realpath(name) == real for name in systems if name)


def set_journal_mode(folder: str | os.PathLike[str], journal_mode: str = "wal") -> str:
    """Put the SQLite database of the Chroma folder ``folder`` in ``journal_mode``.

    ``"wal"`` switches it (once: the mode is stored in the database file; a folder without a
    database gets an empty one in WAL mode, which Chroma then fills); ``"keep"`` changes
    nothing. A database already in WAL mode is left alone without opening it. A database that
    a chromadb client of this process may hold open is not switched (Chroma's SQLite is a
    second copy of the library in this process: a connection of ours closing beside Chroma's
    would drop Chroma's file locks); it is switched the next time a process opens it first.
    Nor is one that SQLite refuses to switch (busy, read-only): both with a warning.

    Args:
        folder: A Chroma persistent folder (created when missing).
        journal_mode: One of :data:`JOURNAL_MODES`.

    Returns:
        ``"wal"`` when the database is in WAL mode afterwards, ``"keep"`` when not asked, else
        the mode it kept (``"rollback"`` for one left open by this process).

    Raises:
        InvalidArgumentError: If ``journal_mode`` is not one of :data:`JOURNAL_MODES`.

    Example:
        >>> import tempfile
        >>> set_journal_mode(tempfile.mkdtemp())
        'wal'
    """
    _check_journal(journal_mode)
    if journal_mode == "keep":
        return "keep"
    path = Path(folder) / "chroma.sqlite3"
    before = _header_mode(path)
    if before == "wal":
        return "wal"
    if _open_in_this_process(path.parent):
        _log.warning(
            "%s: not switched to SQLite WAL, a Chroma client of this process has it open; it "
            "is switched when a process opens it first",
            path,
        )
        return before or "rollback"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(path, timeout=5.0)
        try:
            mode = str(con.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower()
        finally:
            con.close()
    except (sqlite3.Error, OSError) as exc:
        _log.warning("%s: could not switch SQLite to WAL (%s); Chroma's mode is kept", path, exc)
        return before or "rollback"
    if mode != "wal":
        _log.warning("%s: SQLite kept journal mode %r (WAL was refused)", path, mode)
    return mode


def _open_file_limit() -> int | None:
    """The soft ``RLIMIT_NOFILE`` (``None`` where there is none to read)."""
    if resource is None:  # pragma: no cover - Windows
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else int(soft)


def index_pool_per_shard(open_files: int | None = None) -> int | None:
    """HNSW indexes Chroma's embedded mode keeps loaded per shard of its index pool.

    Chroma 1.5.9 sizes the pool as ``RLIMIT_NOFILE // 5`` (``chromadb/api/rust.py``) and splits
    it over 64 shards, each a least-recently-used list of ``size // 64`` indexes (at least one).

    Args:
        open_files: An open-file limit; this process's soft ``RLIMIT_NOFILE`` when omitted.

    Returns:
        Indexes per shard, or ``None`` where the limit cannot be read (Windows).

    Example:
        >>> index_pool_per_shard(20000), index_pool_per_shard(1024), index_pool_per_shard(256)
        (62, 3, 1)
    """
    limit = _open_file_limit() if open_files is None else open_files
    if limit is None:
        return None
    return max(1, limit // 5 // _POOL_SHARDS)


def _check_index_pool() -> None:
    """Warn once per process when Chroma's index pool could evict (see the module docstring)."""
    global _POOL_CHECKED
    if _POOL_CHECKED:
        return
    _POOL_CHECKED = True
    per_shard = index_pool_per_shard()
    if per_shard is None or per_shard >= SAFE_INDEXES_PER_SHARD:
        return
    _log.warning(
        "the open-file limit of this process (ulimit -n %s) lets embedded Chroma keep only %d "
        "HNSW index(es) per shard of its index pool: an evicted index is reloaded without its "
        "unpersisted records (queries can miss recent records or fail with 'Error finding id'). "
        "Raise the limit before starting Python (ulimit -n 4096) or serve the folder with "
        "`chroma run`",
        _open_file_limit(),
        per_shard,
    )


def open_persistent_client(
    path: object, *, read_only: bool = False, journal_mode: str = "wal"
) -> tuple[Any, FolderLock]:
    """A ``chromadb.PersistentClient`` on ``path`` and the folder's lock (release it on close).

    Args:
        path: The folder.
        read_only: Take a shared lock and change nothing.
        journal_mode: SQLite journal mode a writer sets (:func:`set_journal_mode`; ``"keep"``
            leaves the folder as Chroma made it). Ignored with ``read_only``.

    Raises:
        InvalidArgumentError: If ``path`` is not a path or ``journal_mode`` is unknown.
        StorageError: If the path is a file, a read-only open names a folder without a store,
            the folder cannot be created or written, or it is too large to snapshot.
        StorageLockedError: If another process holds the folder.
    """
    import chromadb
    from chromadb.config import Settings

    folder = _folder(path)
    _check_journal(journal_mode)
    _check_index_pool()
    try:
        exists, is_dir = folder.exists(), folder.is_dir()
        has_store = (folder / "chroma.sqlite3").is_file()
    except OSError as exc:
        raise StorageError(
            f"cannot access {folder}: {exc.strerror or exc}; check the path and that this user "
            "may read the folders above it"
        ) from exc
    if exists and not is_dir:
        raise StorageError(f"{folder} is a file, not a folder; pass the path of a folder")
    if read_only and not has_store:
        raise StorageError(
            f"no memory at {folder}: it holds no chroma.sqlite3; check the path (read_only=True "
            "never creates a store)"
        )
    if not read_only:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create the memory folder {folder}: {exc.strerror or exc}; choose a "
                "folder this user may write"
            ) from exc
        if not _writable(folder):
            raise StorageError(
                f"{folder} cannot be written by this user; open it with read_only=True to read "
                "it, or choose a writable folder"
            )
    lock = FolderLock(None)
    where = folder
    if read_only and not _writable(folder):
        where = _snapshot(folder)
        lock.cleanup = where.parent
    else:
        lock = _lock(folder, exclusive=not read_only)
        if not read_only:
            set_journal_mode(folder, journal_mode)
    try:
        client = chromadb.PersistentClient(
            path=str(where), settings=Settings(anonymized_telemetry=False, allow_reset=False)
        )
    except Exception as exc:
        lock.release()
        raise translate(exc, f"embedded Chroma at {folder}", "open") from exc
    return client, lock


def open_server_client(
    host: str, port: int, *, ssl: bool = False, headers: dict[str, str] | None = None
) -> Any:
    """A ``chromadb.HttpClient`` on a Chroma server (telemetry off).

    Raises:
        StorageUnavailableError: If no server answers at that address.
    """
    import chromadb
    from chromadb.config import Settings

    where = f"Chroma server at {'https' if ssl else 'http'}://{host}:{port}"
    try:
        return chromadb.HttpClient(
            host=host,
            port=port,
            ssl=ssl,
            headers=headers,
            settings=Settings(anonymized_telemetry=False),
        )
    except Exception as exc:
        raise translate(exc, where, "connect") from exc


def lock_for_maintenance(path: str | os.PathLike[str]) -> tuple[Path, FolderLock]:
    """Take ``path``'s folder lock exclusively for offline maintenance (``repair.py``).

    Refused when this process or another one has the folder open: maintenance rewrites files
    Chroma keeps loaded. A ``chroma run`` server takes no such lock: stop it first.

    Raises:
        StorageLockedError: If a memory of this or another process has the folder open.
        InvalidArgumentError: If ``path`` is not a folder path.
    """
    folder = _folder(path)
    if not folder.is_dir():
        raise InvalidArgumentError(f"{folder} is not a folder")
    with _HELD_LOCK:
        held = str(folder.resolve()) in _HELD
    if held:
        raise StorageLockedError(
            f"{folder} is open in this process: close its memories and stores first"
        )
    if _open_in_this_process(folder):
        raise StorageLockedError(
            f"Chroma still holds {folder} in this process (chromadb keeps a client's system "
            "after the memory closed): run the maintenance in a new process (for example "
            "`tepa repair-index PATH`), or call "
            "chromadb.api.shared_system_client.SharedSystemClient.clear_system_cache() first"
        )
    return folder, _lock(folder, exclusive=True)
