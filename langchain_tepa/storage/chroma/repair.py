"""Offline repair of Chroma vector index files left unreadable by a killed process.

Chroma keeps each collection's records in ``chroma.sqlite3`` and its vector index (HNSW) in a
folder per segment, beside it. The index's id map (``index_metadata.pickle``) is rewritten in
place when Chroma persists the index; a process killed at that moment (``kill -9``, an
out-of-memory kill, a power cut) can leave it empty or truncated, and from then on every read of
the collection fails (``Error deserializing pickle file``; the library raises
:class:`~langchain_tepa.core.errors.BrokenIndexError`). The records are intact in
``chroma.sqlite3``.

:func:`repair_index_files` finds such index folders and moves them aside (into
``.tepa-quarantine/`` in the store's folder, never deleted); Chroma then serves the collection
again from ``chroma.sqlite3`` with an empty index. What that costs depends on the collection:

* evidence shards (``<prefix>_eNN``), view shards (``<prefix>_wNN``), the names directory and
  the layout record carry a one-dimension placeholder vector that nothing queries: **nothing
  is lost**;
* a large namespace's own index (``<prefix>_x<hash>``) and any other collection lose their
  vectors from the index: ``reconcile(reindex=True)`` (``tepa reconcile PATH --reindex``)
  writes every Active precedent's vector again, from the evidence pages that store it (nothing
  is embedded again).

Run it with every process that uses the folder stopped (a ``chroma run`` server included),
from a new process (``tepa repair-index PATH``): chromadb keeps a folder open in a process after
its memories closed, and the repair refuses such a folder.

Example:
    >>> import tempfile
    >>> from chromadb.api.shared_system_client import SharedSystemClient
    >>> from langchain_tepa import HashingEmbeddings, TEPAMemory
    >>> folder = tempfile.mkdtemp()
    >>> with TEPAMemory.from_path(folder, embeddings=HashingEmbeddings()) as memory:
    ...     _ = memory.observe("user.diet", "vegan")
    >>> SharedSystemClient.clear_system_cache()  # what a new process starts with
    >>> repair_index_files(folder).broken
    ()
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from langchain_tepa.core.errors import StorageError
from langchain_tepa.storage.chroma.local import lock_for_maintenance

__all__ = ["BrokenIndex", "IndexRepairReport", "repair_index_files", "vector_segments"]

QUARANTINE = ".tepa-quarantine"
"""Folder (inside the store's folder) that broken index folders are moved into."""

# Collections of the library whose vectors are placeholders nothing queries.
_PLACEHOLDER = re.compile(r"_([ew]\d{2,3}|names|meta)$")


@dataclass(frozen=True)
class BrokenIndex:
    """One collection's index folder that Chroma cannot read.

    Attributes:
        collection: The collection's name.
        segment: The id of its vector segment (the name of the index folder).
        reason: What is wrong with it.
        holds_vectors: ``False`` for the library's placeholder collections (nothing is lost);
            ``True`` when the index held real vectors (run ``reconcile(reindex=True)``).
        moved_to: Where the folder was moved (``None`` in a dry run).
    """

    collection: str
    segment: str
    reason: str
    holds_vectors: bool
    moved_to: str | None


@dataclass(frozen=True)
class IndexRepairReport:
    """What :func:`repair_index_files` checked and moved.

    Attributes:
        path: The store's folder.
        checked: Index folders checked.
        broken: The unreadable ones.
        dry_run: Whether they were only reported.

    Example:
        >>> IndexRepairReport("/tmp/x", checked=3, broken=(), dry_run=False).needs_reindex
        False
    """

    path: str
    checked: int
    broken: tuple[BrokenIndex, ...]
    dry_run: bool

    @property
    def needs_reindex(self) -> bool:
        """Whether an index with real vectors was moved: run ``reconcile(reindex=True)``."""
        return any(b.holds_vectors for b in self.broken)


class _NoGlobals(pickle.Unpickler):
    """Chroma's id maps hold only dicts, ints, strings and ``None``: refuse anything else."""

    def find_class(self, module: str, name: str) -> object:
        raise pickle.UnpicklingError(f"unexpected object {module}.{name}")


def _problem(folder: Path) -> str | None:
    """Why Chroma cannot load the index in ``folder`` (``None``: it looks readable)."""
    meta = folder / "index_metadata.pickle"
    if not meta.exists():
        return None  # Chroma writes it at the index's first persist only
    try:
        data = _NoGlobals(io.BytesIO(meta.read_bytes())).load()
    except Exception as exc:  # truncated, empty or foreign
        return f"index_metadata.pickle cannot be read ({type(exc).__name__}: {exc})"
    if not isinstance(data, dict) or not isinstance(data.get("id_to_label"), dict):
        return "index_metadata.pickle holds no id map"
    if data["id_to_label"]:
        header = folder / "header.bin"
        if not header.exists() or header.stat().st_size == 0:
            return "header.bin is missing or empty"
    return None


# Run in a child process: Chroma's Rust SQLite and Python's are two library instances, and
# closing one's file descriptor drops the POSIX locks the other holds on the same file (seen as
# "disk I/O error" in Chroma afterwards), should Chroma still hold the database in this process.
_QUERY = """
import json, sqlite3, sys
con = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
rows = con.execute(
    "SELECT s.id, c.name FROM segments s JOIN collections c ON s.collection = c.id "
    "WHERE s.scope = 'VECTOR'"
).fetchall()
con.close()
print(json.dumps(rows))
"""


def vector_segments(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """``(segment id, collection name)`` of every vector segment of a Chroma folder.

    The segment id names the folder that holds the collection's index. Read in a child process
    (see the note in the source), so it is safe while Chroma has the folder open.

    Raises:
        StorageError: If the folder holds no Chroma database or it cannot be read.
    """
    db = Path(path) / "chroma.sqlite3"
    if not db.is_file():
        raise StorageError(f"{path} holds no Chroma database (chroma.sqlite3)")
    done = subprocess.run(
        [sys.executable, "-c", _QUERY, str(db)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise StorageError(f"cannot read the Chroma database of {path}: {last}")
    return [(str(seg), str(name)) for seg, name in json.loads(done.stdout)]


def repair_index_files(path: str | os.PathLike[str], *, dry_run: bool = False) -> IndexRepairReport:
    """Move Chroma index folders that cannot be read out of an embedded store's folder.

    Every process using the folder must be stopped (a ``chroma run`` server too: it takes no
    lock the library can see). Idempotent: a store without broken index files is left as it is.

    Args:
        path: The store's folder (the one given to ``TEPAMemory.from_path`` or ``chroma run
            --path``).
        dry_run: Only report what would be moved.

    Returns:
        What was checked and moved; :attr:`IndexRepairReport.needs_reindex` says whether to
        run ``reconcile(reindex=True)`` next.

    Raises:
        StorageLockedError: If a memory of this or another process has the folder open.
        StorageError: If the folder holds no Chroma database, or a folder cannot be moved.
        InvalidArgumentError: If ``path`` is not a folder.
    """
    folder, lock = lock_for_maintenance(path)
    try:
        broken: list[BrokenIndex] = []
        checked = 0
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        for segment, collection in vector_segments(folder):
            index = folder / segment
            if not index.is_dir():
                continue  # not persisted yet
            checked += 1
            reason = _problem(index)
            if reason is None:
                continue
            moved_to = None
            if not dry_run:
                target = folder / QUARANTINE / stamp / segment
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    shutil.move(str(index), str(target))
                except OSError as exc:
                    raise StorageError(f"cannot move {index} to {target}: {exc}") from exc
                moved_to = str(target)
            holds = _PLACEHOLDER.search(collection) is None
            broken.append(BrokenIndex(collection, segment, reason, holds, moved_to))
        return IndexRepairReport(str(folder), checked, tuple(broken), dry_run)
    finally:
        lock.release()
