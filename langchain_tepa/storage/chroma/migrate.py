"""Migration of stores written in layouts 0-2 (one evidence collection, per-namespace sets).

Layout 2 kept the evidence in ``{prefix}_evidence`` (pages of records, or one record per
evidence in layouts 0 and 1), the non-Active precedents in ``{prefix}_archive`` and each
namespace's Active ones in a collection ``{prefix}_a_<hash>``. Migration rewrites the evidence
of each namespace as pages of one migration stream, with every precedent's stored embedding
(nothing is embedded again) and its view, writes the heads, then the
layout record, and only then drops the old collections: a crash before the layout record is
written leaves the old store intact and the migration runs again at the next opening.

Example:
    >>> from langchain_tepa.storage.chroma.migrate import old_evidence
    >>> callable(old_evidence)
    True
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from langchain_tepa._gc import gc_paused
from langchain_tepa.core.log import NamespaceSummary, clock_digest
from langchain_tepa.core.types import Evidence, Lifecycle, Precedent
from langchain_tepa.storage.base import Commit, NamespaceWrite
from langchain_tepa.storage.chroma.layout import Layout

if TYPE_CHECKING:
    from langchain_tepa.storage.chroma.backend import ChromaStorage

__all__ = ["migrate", "old_evidence"]

_log = logging.getLogger("langchain_tepa")
_SET = re.compile(r"^(?P<prefix>.+)_a_[0-9a-f]{24}$")


def old_evidence(storage: ChromaStorage, col: Any) -> Iterator[Evidence]:
    """Every evidence record of a layout 0-2 evidence collection."""
    got = storage.get_all(col, None, ["metadatas"])
    loose: list[str] = []
    for rid, meta in zip(got["ids"], got["metadatas"], strict=True):
        meta = meta or {}
        if isinstance(meta.get("tepa_page"), str):
            yield from (Evidence.from_dict(d) for d in json.loads(meta["tepa_page"]))
        elif isinstance(meta.get("tepa_json"), str):
            yield Evidence.from_json(str(meta["tepa_json"]))
        else:
            loose.append(rid)  # layout 0: the record's JSON is its document
    for start in range(0, len(loose), 1000):
        docs = storage.call(
            "migrate", col.get, ids=loose[start : start + 1000], include=["documents"]
        )
        for doc in docs.get("documents") or []:
            if doc is not None:
                yield Evidence.from_json(str(doc))


def _old_sets(storage: ChromaStorage) -> list[str]:
    names = []
    for item in storage.call("migrate", storage.client.list_collections):
        name = str(getattr(item, "name", item))
        m = _SET.match(name)
        if m and m.group("prefix") == storage.prefix:
            names.append(name)
    return names


def migrate(storage: ChromaStorage, layout: Layout) -> None:
    """Rewrite the store of ``storage.prefix`` from layout 0-2 into ``layout``."""
    prefix = storage.prefix
    evidence_col = storage.collection(f"{prefix}_evidence", create=False)
    assert evidence_col is not None
    _log.warning("migrating the Chroma store %r to layout %d", prefix, layout.version)
    with gc_paused():
        by_ns: dict[str, list[Evidence]] = {}
        for ev in old_evidence(storage, evidence_col):
            by_ns.setdefault(ev.namespace, []).append(ev)
    stream = "m" + os.urandom(7).hex()
    # Precedent records with their stored embeddings, from the archive and every Active set.
    names = [f"{prefix}_archive", *_old_sets(storage)]
    records: dict[str, list[tuple[Precedent, list[float]]]] = {}
    for name in names:
        col = storage.collection(name, create=False)
        if col is None:
            continue
        got = storage.get_all(col, None, ["embeddings", "metadatas"])
        for vec, meta in zip(got["embeddings"], got["metadatas"], strict=True):
            raw = (meta or {}).get("tepa_view")
            if isinstance(raw, str):  # layout 2 kept the whole precedent
                view = Precedent.from_dict(json.loads(raw))
                records.setdefault(view.namespace, []).append((view, [float(x) for x in vec]))
    writes = []
    for ns, evs in sorted(by_ns.items()):
        evs.sort(key=lambda e: e.sort_key)
        precs = records.get(ns, [])
        active = sum(1 for p, _ in precs if p.state is Lifecycle.ACTIVE)
        summary = NamespaceSummary(clock_digest({stream: 1}), active, len({e.key for e in evs}))
        writes.append(
            NamespaceWrite(
                namespace=ns,
                records=evs,
                basis=clock_digest({}),
                count=len(evs),
                summary=summary,
                time=max((e.time for e in evs), default=0.0),
                new=precs,
                precedents=len(precs),
                created=True,
            )
        )
    if writes:
        storage.commit(Commit(stream, 1, writes))
        views = [p for w in writes for p, _ in w.new]
        storage.write_views(views, {w.namespace: {stream: 1} for w in writes})
    storage.set_meta("layout", layout.to_json())
    for name in [f"{prefix}_evidence", *names]:
        if storage.collection(name, create=False) is not None:
            storage.call("migrate", storage.client.delete_collection, name)
            storage.forget(name)
    _log.warning(
        "migrated %r: %d namespaces, %d evidence records, %d precedent records",
        prefix,
        len(by_ns),
        sum(len(v) for v in by_ns.values()),
        sum(len(v) for v in records.values()),
    )
