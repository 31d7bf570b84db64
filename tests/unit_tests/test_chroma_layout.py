"""The Chroma layout: fixed collections, reads that write nothing, other layouts refused, large
namespaces, folder locks and path errors."""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings

from langchain_tepa import (
    Fact,
    HashingEmbeddings,
    InvalidArgumentError,
    StorageError,
    TEPAMemory,
)
from langchain_tepa.core.errors import ReadOnlyError, StorageLockedError, UnsupportedLayoutError
from langchain_tepa.storage.chroma import ChromaStorage, opening
from langchain_tepa.storage.chroma.opening import LAYOUT_RECORD

ROOT = Path(__file__).resolve().parents[2]


def _client(folder: Path) -> Any:
    return chromadb.PersistentClient(
        path=str(folder), settings=Settings(anonymized_telemetry=False)
    )


def _names(client: Any) -> set[str]:
    return {str(getattr(c, "name", c)) for c in client.list_collections()}


def _sqlite_dump(folder: Path) -> list[tuple[str, list[Any]]]:
    con = sqlite3.connect(f"file:{folder / 'chroma.sqlite3'}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
        out = []
        for table in sorted(tables):
            if table.startswith("sqlite_") or "fts" in table:
                continue
            rows = sorted(map(repr, con.execute(f"select * from {table}")))
            out.append((table, rows))
        return out
    finally:
        con.close()


def test_namespaces_cost_records_not_collections(ephemeral_client: Any) -> None:
    prefix = "n" + uuid.uuid4().hex[:8]
    mem = TEPAMemory.from_client(
        ephemeral_client, prefix=prefix, embeddings=HashingEmbeddings(), shards=4
    )
    mem.observe_many([Fact("user.diet", "vegan", namespace=f"users.u{i}") for i in range(300)])
    mem.flush()
    ours = {n for n in _names(ephemeral_client) if n.startswith(prefix + "_")}
    # 4 evidence shards, and one view shard for them (layout 5: a view shard per 4 shards)
    assert ours == {
        f"{prefix}_meta",
        f"{prefix}_names",
        f"{prefix}_w00",
        *(f"{prefix}_e{s:02d}" for s in range(4)),
    }
    assert len(mem.namespaces(prefix="users")) == 300
    assert mem.namespaces(prefix="users.u1") == ["users.u1"]  # label boundaries, not "users.u10"
    assert mem.evidence_count() == 300


def test_reads_of_unknown_namespaces_create_nothing(ephemeral_client: Any) -> None:
    prefix = "r" + uuid.uuid4().hex[:8]
    mem = TEPAMemory.from_client(ephemeral_client, prefix=prefix, embeddings=HashingEmbeddings())
    before = _names(ephemeral_client)
    for i in range(50):
        ns = f"nobody.n{i}"
        assert mem.get("k", namespace=ns) is None
        assert mem.retrieve("anything", namespace=ns) == []
        assert mem.audit("k", namespace=ns).precedents == []
        assert mem.history("k", namespace=ns) == []
    assert _names(ephemeral_client) == before
    with pytest.raises(StorageError, match="pass the right prefix"):
        TEPAMemory.from_client(ephemeral_client, prefix="typo" + prefix, read_only=True)
    assert _names(ephemeral_client) == before


def test_a_read_only_session_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    folder = tmp_path / "db"
    mem = TEPAMemory.from_path(folder, embeddings=HashingEmbeddings())
    mem.observe("user.pizza_topping", "pineapple", namespace="users.u1")
    for _ in range(2):
        mem.observe("user.pizza_topping", "mushroom", namespace="users.u1")
    mem.observe_many([Fact(f"fact.k{i}", i, namespace="users.u2") for i in range(5)])
    mem.close()
    before = _sqlite_dump(folder)
    files = sorted(p.name for p in folder.rglob("*") if p.is_file())
    ro = TEPAMemory.from_path(
        folder, embeddings=HashingEmbeddings(), read_only=True, flush_interval_s=0.001
    )
    assert ro.get("user.pizza_topping", namespace="users.u1") == "mushroom"
    ro.retrieve("pizza", namespace="users.u1")
    ro.audit("user.pizza_topping", namespace="users.u1")
    ro.keys(namespace="users.u2")
    ro.namespaces(active_only=True)
    ro.retrieve("x", namespace="users.never")
    with pytest.raises(ReadOnlyError):
        ro.observe("k", "v")
    with pytest.raises(ReadOnlyError):
        ro.reconcile()
    ro.flush()
    ro.close()
    assert _sqlite_dump(folder) == before
    assert sorted(p.name for p in folder.rglob("*") if p.is_file()) == files


def _record(client: Any, prefix: str, version: int) -> None:
    """A store whose layout record states ``version`` (as a development version wrote it)."""
    record = {"version": version, "shards": 4, "dedicated_at": 5000}
    meta = client.get_or_create_collection(f"{prefix}_meta", embedding_function=None)
    meta.upsert(ids=["layout"], embeddings=[[1.0]], documents=[json.dumps(record)])


@pytest.mark.parametrize("version", [3, 4, 6])
@pytest.mark.parametrize("read_only", [False, True])
def test_a_store_of_another_layout_is_refused_and_left_as_it_was(
    ephemeral_client: Any, version: int, read_only: bool
) -> None:
    prefix = "m" + uuid.uuid4().hex[:8]
    _record(ephemeral_client, prefix, version)
    before = _names(ephemeral_client)
    with pytest.raises(UnsupportedLayoutError, match=f"layout {version}") as caught:
        ChromaStorage(ephemeral_client, prefix=prefix, read_only=read_only)
    assert isinstance(caught.value, StorageError) and isinstance(caught.value, RuntimeError)
    assert ("newer" if version > 5 else "older") in str(caught.value)
    assert prefix in str(caught.value)
    assert _names(ephemeral_client) == before  # nothing created, nothing migrated


def test_a_store_from_before_layout_records_is_refused(ephemeral_client: Any) -> None:
    prefix = "m" + uuid.uuid4().hex[:8]
    ephemeral_client.get_or_create_collection(f"{prefix}_evidence", embedding_function=None)
    with pytest.raises(UnsupportedLayoutError, match="an older layout"):
        TEPAMemory.from_client(ephemeral_client, prefix=prefix, embeddings=HashingEmbeddings())
    assert not any(n.startswith(f"{prefix}_e0") for n in _names(ephemeral_client))


def test_migrations_run_in_order_from_the_stored_version(
    ephemeral_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The (today empty) MIGRATIONS list: steps from the store's version on, version after each."""
    prefix = "m" + uuid.uuid4().hex[:8]
    _record(ephemeral_client, prefix, 3)
    ran: list[tuple[int, int]] = []

    def step(n: int) -> Any:
        def migrate(handles: Any) -> None:
            stored = json.loads(str(handles.get_meta(LAYOUT_RECORD)))["version"]
            ran.append((n, stored))

        return migrate

    monkeypatch.setattr(opening, "MIGRATIONS", (step(2), step(3), step(4)))
    monkeypatch.setattr(opening, "OLDEST_MIGRATED", 2)
    with pytest.raises(UnsupportedLayoutError, match="without read_only"):
        ChromaStorage(ephemeral_client, prefix=prefix, read_only=True)
    assert ran == []
    storage = ChromaStorage(ephemeral_client, prefix=prefix)
    assert ran == [(3, 3), (4, 4)]  # from layout 3: the steps 3 -> 4 and 4 -> 5
    assert storage.layout.version == 5 and storage.layout.shards == 4
    assert json.loads(str(storage.get_meta(LAYOUT_RECORD)))["version"] == 5
    ChromaStorage(ephemeral_client, prefix=prefix)
    assert len(ran) == 2  # a store of the current layout runs none


def _blind_to_the_index(memory: TEPAMemory) -> None:
    """Make ``memory`` a writer that raced the dedication: it never sees the head's flag."""
    storage: Any = memory.storage
    read_heads = storage.read_heads

    def unflagged(namespaces: Any) -> Any:
        heads = read_heads(namespaces)
        storage._dedicated.clear()
        return {ns: dataclasses.replace(h, dedicated=False) for ns, h in heads.items()}

    storage.read_heads = unflagged
    memory._engine.cache.get("default").dedicated = False  # type: ignore[union-attr]
    storage._dedicated.clear()
    # Its state had not crossed the threshold when it wrote: it does not dedicate either.
    memory._engine._maybe_dedicate = lambda st: None  # type: ignore[method-assign]


def test_a_large_namespace_gets_an_index_of_its_own(ephemeral_client: Any) -> None:
    prefix = "x" + uuid.uuid4().hex[:8]
    storage = ChromaStorage(ephemeral_client, prefix=prefix, dedicated_at=20)
    mem = TEPAMemory(storage, embeddings=HashingEmbeddings())
    stale = TEPAMemory(
        ChromaStorage(ephemeral_client, prefix=prefix), embeddings=HashingEmbeddings()
    )
    assert stale.get("fact.k0") is None  # the stale writer has touched the namespace
    mem.observe_many([(f"fact.k{i}", f"value {i}") for i in range(30)])
    assert storage.is_dedicated("default")
    for _ in range(3):
        mem.observe("fact.k3", "something else")  # revokes "value 3"
    docs = mem.retrieve("value 3", k=3)
    assert "value 3" not in [d.metadata["value"] for d in docs]
    assert [d.metadata["value"] for d in mem.retrieve("something else", k=1)] == ["something else"]
    # A writer that has not seen the index yet puts its new vector in its page only; the next
    # reader that folds the page adds it to the index.
    _blind_to_the_index(stale)
    stale.observe("fact.new", "a brand new fact")
    assert mem.get("fact.new") == "a brand new fact"  # the read folds the stale writer's page
    (new,) = [p for p in mem.precedents() if p.key == "fact.new"]
    assert storage.indexed("default", [new.id]) == {new.id}
    # Its stored vector is the one the writer embedded. (Ranking through the index is Chroma's
    # approximate HNSW search: with 32 near-identical test vectors it missed an exact match in
    # about 2% of runs, so this test checks the index's content, not its recall.)
    stored = storage.index_vectors_of("default", [new.id])[new.id]
    expected = HashingEmbeddings().embed_documents([new.page_content])[0]
    assert stored == pytest.approx(expected, abs=1e-6)
    report = mem.reconcile()
    assert report.repaired_active == 0


def test_opening_a_large_namespace_indexes_only_stray_vectors(ephemeral_client: Any) -> None:
    """The head's index marks say which pages' vectors are indexed: a new memory's first touch
    indexes only vectors of pages written by a writer that had not seen the index, once."""
    prefix = "x" + uuid.uuid4().hex[:8]

    def opened() -> tuple[TEPAMemory, list[int]]:
        storage = ChromaStorage(ephemeral_client, prefix=prefix, dedicated_at=20)
        indexed: list[int] = []
        original = storage.index_vectors

        def counting(namespace: str, rows: Any, **kwargs: Any) -> None:
            indexed.append(len(rows))
            original(namespace, rows, **kwargs)

        storage.index_vectors = counting  # type: ignore[method-assign]
        return TEPAMemory(storage, embeddings=HashingEmbeddings()), indexed

    mem, _ = opened()
    stale, _ = opened()
    assert stale.get("fact.k0") is None
    mem.observe_many([(f"fact.k{i}", f"value {i}") for i in range(30)])
    assert mem.storage.is_dedicated("default")  # type: ignore[attr-defined]
    fresh, calls = opened()
    assert fresh.get("fact.k1") == "value 1"
    assert calls == []  # every page up to the marks is indexed: nothing read again
    _blind_to_the_index(stale)
    stale.observe("fact.new", "a brand new fact")  # its vector goes into its page only
    reader, calls = opened()
    assert reader.get("fact.new") == "a brand new fact"
    (new,) = [p for p in reader.precedents() if p.key == "fact.new"]
    assert reader.storage.indexed("default", [new.id]) == {new.id}  # type: ignore[attr-defined]
    assert calls == [1]  # the stray vector, indexed once; the marks move past its page
    last, calls = opened()
    assert last.get("fact.new") == "a brand new fact"
    assert calls == []


def test_folder_is_locked_against_a_second_process(tmp_path: Path) -> None:
    folder = tmp_path / "db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from langchain_tepa import HashingEmbeddings, TEPAMemory\n"
            "m = TEPAMemory.from_path(sys.argv[1], embeddings=HashingEmbeddings())\n"
            "print('open', flush=True)\n"
            "time.sleep(60)\n",
            str(folder),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"open"
        with pytest.raises(StorageLockedError, match="chroma run"):
            TEPAMemory.from_path(folder, embeddings=HashingEmbeddings())
        with pytest.raises(StorageLockedError):
            TEPAMemory.from_path(folder, embeddings=HashingEmbeddings(), read_only=True)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    mem = TEPAMemory.from_path(folder, embeddings=HashingEmbeddings())  # released with the process
    same = TEPAMemory.from_path(folder, embeddings=HashingEmbeddings())  # one process: shared
    mem.observe("k", "v")
    assert same.get("k") == "v"
    mem.close()
    same.close()


def test_path_errors_are_typed_and_say_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InvalidArgumentError, match="folder path"):
        TEPAMemory.from_path(None)  # type: ignore[arg-type]
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    with pytest.raises(StorageError, match="is a file"):
        TEPAMemory.from_path(a_file)
    with pytest.raises(StorageError, match="no memory at"):
        TEPAMemory.from_path(tmp_path / "missing", read_only=True)
    assert not (tmp_path / "missing").exists()
    monkeypatch.setenv("HOME", str(tmp_path))
    mem = TEPAMemory.from_path("~/tilde", embeddings=HashingEmbeddings())
    mem.close()
    assert (tmp_path / "tilde" / "chroma.sqlite3").is_file()
    assert not Path("~").exists()


def test_a_folder_this_user_cannot_write_is_read_from_a_snapshot() -> None:
    import shutil
    import tempfile

    # Under /tmp with open permissions, so that a child running as another user can reach it.
    tmp_path = Path(tempfile.mkdtemp(prefix="tepa-ro-", dir="/tmp"))
    try:
        _snapshot_case(tmp_path)
    finally:
        for path in [tmp_path, *tmp_path.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(tmp_path, ignore_errors=True)


def _snapshot_case(tmp_path: Path) -> None:
    folder = tmp_path / "db"
    mem = TEPAMemory.from_path(folder, embeddings=HashingEmbeddings())
    mem.observe("user.diet", "vegan")
    mem.close()
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    os.chmod(tmp_path, 0o755)
    script = (
        "import os, sys, logging\n"
        "import chromadb, chromadb.api.rust, chromadb.api.client\n"
        "import tempfile, shutil\n"
        "from langchain_tepa import HashingEmbeddings, TEPAMemory, StorageError\n"
        "import langchain_tepa.storage.chroma.local\n"
        "if os.getuid() == 0:\n"
        "    os.setgid(65534); os.setuid(65534)\n"
        "    os.environ['TMPDIR'] = sys.argv[2]\n"
        "    tempfile.tempdir = None\n"
        "try:\n"
        "    TEPAMemory.from_path(sys.argv[1], embeddings=HashingEmbeddings())\n"
        "except StorageError as exc:\n"
        "    print('refused:', exc)\n"
        "m = TEPAMemory.from_path(sys.argv[1], embeddings=HashingEmbeddings(), read_only=True)\n"
        "print('value:', m.get('user.diet'))\n"
        "m.close()\n"
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir(mode=0o777)
    scratch.chmod(0o777)
    out = subprocess.run(
        [sys.executable, "-c", script, str(folder), str(scratch)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        timeout=120,
        check=False,
    )
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "refused: " in out.stdout and "read_only=True" in out.stdout
    assert "value: vegan" in out.stdout
    assert "snapshot" in out.stderr
