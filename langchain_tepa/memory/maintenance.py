"""`reconcile`: refold every namespace from its evidence and repair what storage holds beside it.

Reads never need it: they fold the evidence, and views heal as writers and readers meet races
and stopped writers. It rewrites every view that differs from the fold (for tools that query
Chroma directly), every answer of an indexed space's answer index (``storage/answers.py``: it
then lacks none, whatever a killed writer left), restores vectors missing from a large
namespace's own index and heals namespace summaries (``reindex=True`` rewrites every vector of
those indexes, after an index file was repaired). It reads the whole store, one namespace at a
time (nothing is held across namespaces).

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", "vegan")
    >>> memory.reconcile().repaired_views  # reconcile() first writes the buffered views
    0
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from langchain_tepa._gc import gc_paused
from langchain_tepa.core.fold import refresh_posterior
from langchain_tepa.results import ReconcileReport
from langchain_tepa.state import ItemTable, NamespaceState
from langchain_tepa.storage.base import PageRequest

if TYPE_CHECKING:
    from langchain_tepa.memory.engine import Engine

__all__ = ["reconcile_storage"]


def reconcile_storage(
    engine: Engine, *, progress: bool = False, reindex: bool = False
) -> ReconcileReport:
    """Refold and repair every namespace of ``engine``'s storage (see the module docstring).

    With ``reindex``, every Active precedent of a large namespace is written to its index again
    (its vector from the evidence pages), not only those the index lacks: after
    :func:`~langchain_tepa.storage.chroma.repair.repair_index_files` moved a broken index away,
    the index still lists its records but no longer holds their vectors.
    """
    start = time.perf_counter()
    storage, policy = engine.storage, engine.policy
    storage.flush_answers()
    heads = list(engine.heads())
    keys = evidence = views = records = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(heads), desc="reconcile", unit="namespace")
    for head in heads:
        ns = head.namespace
        pages = [
            p
            for p in storage.load_pages([PageRequest(ns)]).get(ns, [])
            if p.seq <= head.clock.get(p.stream, 0)
        ]
        st = NamespaceState(ns)
        with gc_paused():
            st.absorb(pages, policy)
        keys += len(st.keys)
        evidence += st.evidence_count
        live = {p.id: p for ks in st.keys.values() for p in ks.precedents.values()}
        if head.dedicated:
            missing = set(live) if reindex else set(live) - storage.indexed(ns, list(live))
            if missing:
                vectors = {pid: v for page in pages for pid, v in page.vectors.items()}
                lost = [live[pid] for pid in missing if pid not in vectors]
                vectors.update(zip([p.id for p in lost], engine.embed(lost), strict=True))
                storage.index_vectors(ns, [(live[pid].snapshot(), vectors[pid]) for pid in missing])
                records += len(missing)
        stored = {view["id"]: view for view in storage.load_views(ns)}
        stale = []
        for pid, p in live.items():
            refresh_posterior(p, policy)
            if stored.get(pid) != p.view():
                stale.append(p.snapshot())
        storage.write_views(stale, {ns: dict(head.clock)})
        views += len(stale)
        if engine.answers.spaces():  # the answer index, as the fold gives it
            for page in pages:
                for space, owners in page.items.items():
                    st.spaces.setdefault(space, ItemTable()).put_many(owners)
            rebuilt = engine.answers.rebuild(st, st.spaces)
            changes = [(ns, space, update) for space, update in rebuilt.items()]
            storage.repair_answers(changes, clear=False)
        summary = st.summary()
        if head.summary != summary:
            storage.write_summary(ns, summary)
        if bar is not None:
            bar.update(1)
    storage.write_views([], None, settle=True)  # the view marks a backend held back
    if engine.answers.spaces():
        storage.repair_answers([])  # every answer is stored: the index lacks none
    if bar is not None:
        bar.close()
    return ReconcileReport(
        keys=keys,
        evidence=evidence,
        repaired_views=views,
        repaired_active=records,
        seconds=time.perf_counter() - start,
    )
