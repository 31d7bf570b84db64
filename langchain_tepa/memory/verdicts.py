"""Model-judged free-text items: their candidates, and the judge's verdicts as claims.

With a judge (``TEPAMemory(judge=...)``), an item's claims are not the offline extractor's:
the model decides what the item replaces (:mod:`langchain_tepa.extraction.judge`), and its
verdicts become claims on *slots* that :class:`~langchain_tepa.memory.claims.ItemClaims` folds
and settles like any claim:

* **Statements and slots.** Each judged item says a *statement*, named by an item key (its
  own, or the one it restates). It claims its statement on its own slot key
  (``slot.<digest of the item key>``) in the claims namespace, so it is served while nothing
  replaced it.
* **Replaces** (a sure, unhedged verdict: :meth:`Judgement.takes_back
  <langchain_tepa.extraction.judge.Judgement.takes_back>`): the new item claims its statement
  on every slot where the candidate's statement is served, as a *correction by the writer*.
  The fold then revokes the candidate's statement there (if the writer's trust allows it: a
  source that may not correct only asserts) and the item, with no claim served, is taken back.
  The claim records name the model and keep its reason; the item's revocation reason quotes it.
* **Restates** a taken-back candidate: the new item claims the candidate's statement again, as
  a correction on each of its slots, so the old memory is served again (the decision is
  undone); it restates a served one by sharing its statement.
* **Adds**, **unrelated**, a hedged or unsure answer, a failed call: nothing but the own slot.
  Whether an attribute holds one value or many is this answer per pair.

Candidates are the namespace's statements (served or taken back), best first: those sharing
an offline-extractor key with the new text (hints only), then by cosine similarity of the
memory's embeddings, at most ``judge.max_candidates``.

Example:
    >>> slot_key("k1")
    'slot.6ab9f1eb8f7d3388'
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from langchain_tepa.core.errors import JudgeError
from langchain_tepa.core.types import EvidenceKind, Fact
from langchain_tepa.core.values import value_identity
from langchain_tepa.extraction.judge import (
    Candidate,
    Judgement,
    JudgeRequest,
    ReplacementJudge,
    Statement,
    Verdict,
)

if TYPE_CHECKING:
    from langchain_tepa.memory.facade import TEPAMemory


class _Item(Protocol):
    """What is judged of an item (an ``ItemText`` of :mod:`langchain_tepa.memory.claims`)."""

    @property
    def key(self) -> str: ...

    @property
    def text(self) -> str | None: ...


__all__ = [
    "JUDGED_META",
    "SLOT",
    "Judging",
    "Pending",
    "Unjudged",
    "item_claims_of",
    "judged_reason",
    "slot_key",
    "unjudged",
]

SLOT = "slot"
"""The first label of slot keys in a claims namespace."""

JUDGED_META = ("judge", "relation", "reason", "judge_error")
"""Metadata a judged claim record carries (the model, its answer, or why it failed)."""

_log = logging.getLogger("langchain_tepa")
_HINT_CACHE = 20_000


def slot_key(item_key: str) -> str:
    """The own slot key of an item (a digest: item keys may hold any character)."""
    return f"{SLOT}.{hashlib.sha256(item_key.encode('utf-8')).hexdigest()[:16]}"


@dataclass
class _Said:
    """An earlier statement of the namespace: its id, text and slots (served or not)."""

    value: str
    text: str
    created_at: float
    slots: dict[str, bool] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)

    @property
    def served(self) -> bool:
        return any(self.slots.values())


@dataclass
class Pending:
    """One model call to make: the items of a namespace, their request and its context.

    Attributes:
        items: The items judged (in write order).
        request: What the model is shown.
        targets: Prompt id -> the earlier statement it names.
        keep_value: The items keep their own statement (``rejudge``: an item already stored).
    """

    items: list[_Item]
    request: JudgeRequest
    targets: dict[str, _Said]
    keep_value: bool = False


class Judging:
    """Candidates and verdict claims of one memory's judge (module docstring).

    Args:
        memory: The memory (its ``judge`` must be set).

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory.in_memory(judge=GenericFakeChatModel(messages=iter([])))
        >>> Judging(memory).judge.max_candidates
        8
    """

    def __init__(self, memory: TEPAMemory) -> None:
        judge = memory.judge
        if judge is None:
            raise JudgeError("the memory has no judge; pass judge=<chat model> to TEPAMemory")
        self.memory = memory
        self.judge: ReplacementJudge = judge
        self._hints: dict[str, frozenset[str]] = {}

    # ------------------------------------------------------------------ candidates
    def _hint_keys(self, text: str) -> frozenset[str]:
        """The offline extractor's claim keys of ``text`` (hints only; cached per text)."""
        found = self._hints.get(text)
        if found is None:
            from langchain_tepa.extraction import resolve_extractor

            try:
                found = frozenset(f.key for f in resolve_extractor(None).extract(text))
            except Exception:  # a hint is optional: similarity still finds candidates
                found = frozenset()
            if len(self._hints) >= _HINT_CACHE:
                self._hints.clear()
            self._hints[text] = found
        return found

    def _said(self, cns: str, before: float | None) -> list[_Said]:
        """The statements of a claims namespace (made before ``before``, when given).

        Read in place under the namespace's read lock (no copies: a write reads them all).
        """
        self.memory._check_open()
        rows = []
        with self.memory._engine.reading([cns]) as states:
            for key, ks in states[cns].keys.items():
                if not key.startswith(SLOT + "."):
                    continue
                active = ks.active()
                answer = active[0].value_id if active else None
                for p in ks.precedents.values():
                    if before is None or p.created_at < before:
                        served = p.value_id == answer
                        rows.append((p.created_at, p.id, key, p.value_id, p.value, p.text, served))
        out: dict[str, _Said] = {}
        for created, pid, key, vid, value, text, served in sorted(rows, key=lambda r: r[:2]):
            said = out.get(vid)
            if said is None:
                said = out[vid] = _Said(str(value), text or "", created)
            said.slots[key] = served
            said.ids.append(pid)
        return list(out.values())

    def _candidates(self, cns: str, texts: Sequence[str], pool: list[_Said]) -> list[_Said]:
        """The best ``max_candidates`` statements for ``texts``: shared keys, then similarity."""
        limit = self.judge.max_candidates
        if len(pool) <= limit:
            return pool
        ids = [pid for s in pool for pid in s.ids]
        hints = frozenset().union(*(self._hint_keys(t) for t in texts))
        best: dict[int, float] = {}
        for text in texts:
            sims = self.memory.similarity(text, ids, namespace=cns)
            for i, s in enumerate(pool):
                score = max((sims.get(pid, -1.0) for pid in s.ids), default=-1.0)
                score += 2.0 if hints & self._hint_keys(s.text) else 0.0
                best[i] = max(best.get(i, -3.0), score)
        order = sorted(range(len(pool)), key=lambda i: (-best[i], -pool[i].created_at))
        return [pool[i] for i in order[:limit]]

    def pending(
        self, cns: str, items: Sequence[_Item], *, before: float | None = None
    ) -> list[Pending]:
        """The model calls that judge ``items`` (one per ``max_new``).

        Args:
            cns: The claims namespace of the items' namespace.
            items: Items with text, in write order.
            before: Only statements made before this time are candidates (``rejudge``).
        """
        pool = self._said(cns, before)
        out = []
        size = self.judge.max_new
        for start in range(0, len(items), size):
            chunk = list(items[start : start + size])
            texts = [item.text or "" for item in chunk]
            own = {item.key for item in chunk}  # an item written again is no candidate of itself
            chosen = self._candidates(cns, texts, [s for s in pool if s.value not in own])
            targets = {f"c{i + 1}": s for i, s in enumerate(chosen)}
            request = JudgeRequest(
                [Statement(f"n{i + 1}", t) for i, t in enumerate(texts)],
                [Candidate(cid, s.text, s.served) for cid, s in targets.items()],
            )
            out.append(Pending(chunk, request, targets, keep_value=before is not None))
        return out

    def needs_call(self, pending: Pending) -> bool:
        """Whether the model has anything to judge (no earlier memory, one item: nothing)."""
        return bool(pending.request.earlier) or len(pending.request.new) > 1

    # ------------------------------------------------------------------ verdicts as claims
    def claims(
        self, pending: Pending, judgements: list[Judgement] | None, error: JudgeError | None
    ) -> tuple[list[list[Fact]], list[dict[str, Any]]]:
        """The claim facts of each item of ``pending`` and the metadata of its own record.

        Args:
            pending: The call.
            judgements: The model's answer (``None`` when it failed or was not needed).
            error: Why it failed (kept on the item and its own slot claim).
        """
        model = self.judge.model_name
        facts: list[list[Fact]] = []
        metas: list[dict[str, Any]] = []
        planned: list[tuple[str, list[str]]] = []  # per item: its statement, its slot keys
        for i, item in enumerate(pending.items):
            judgement = judgements[i] if judgements is not None else None
            value = item.key
            slots: dict[str, tuple[str, Verdict | None]] = {}
            meta: dict[str, Any] = {"judge": model}
            if error is not None:
                meta["judge_error"] = str(error)[:300]
            if judgement is not None:
                value = self._apply(pending, planned, judgement, value, slots)
                if judgement.flags:
                    meta["judge_flags"] = ",".join(sorted(judgement.flags))
            own = slot_key(item.key)
            if own not in slots:
                slots[own] = (value, None)
            text = (item.text or "")[:4000]
            out = []
            for key, (said, verdict) in slots.items():
                record: dict[str, Any] = {"judge": model}
                if verdict is not None:
                    record.update(correction=True, relation=verdict.relation, reason=verdict.reason)
                elif error is not None:
                    record["judge_error"] = meta["judge_error"]
                out.append(Fact(key, said, text=text, metadata=record))
            facts.append(out)
            metas.append(meta)
            planned.append((value, list(slots)))
        return facts, metas

    def _apply(
        self,
        pending: Pending,
        planned: list[tuple[str, list[str]]],
        judgement: Judgement,
        value: str,
        slots: dict[str, tuple[str, Verdict | None]],
    ) -> str:
        """Fill ``slots`` with the claims ``judgement`` makes; returns the item's statement."""
        usable = [v for v in judgement.verdicts if judgement.takes_back(v)]
        for v in usable:
            if v.relation != "restates":
                continue
            said = pending.targets.get(v.candidate)
            if said is None:  # a new item before it in the batch: share its statement
                if not pending.keep_value:
                    value = planned[int(v.candidate[1:]) - 1][0]
                break
            if not pending.keep_value:
                value = said.value
            if not said.served:  # true again: its statement back on each of its slots
                for key in said.slots:
                    slots[key] = (said.value, v)
            break
        for v in usable:
            if v.relation != "replaces":
                continue
            said = pending.targets.get(v.candidate)
            if said is not None:
                keys = [k for k, served in said.slots.items() if served]
            else:
                keys = planned[int(v.candidate[1:]) - 1][1]
            for key in keys:
                slots.setdefault(key, (value, v))
        return value


def judged_reason(memory: TEPAMemory, cns: str, key: str, value_id: str, by: str | None) -> str:
    """Why a judged item was taken back, quoting the model (``""`` for a key not judged).

    ``key`` is a claim key whose served statement (``value_id``) displaced the item, ``by``
    the item that claimed it last.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> judged_reason(TEPAMemory.in_memory(), "u1.~claims", "user.diet", "x", None)
        ''
    """
    if not key.startswith(SLOT + "."):
        return ""
    normalize = memory.policy.normalize_values
    for ev in reversed(memory.history(key, namespace=cns)):
        meta = ev.metadata
        if (
            ev.kind is EvidenceKind.OBSERVATION
            and meta.get("reason") is not None
            and value_identity(ev.value, normalize=normalize) == value_id
        ):
            what = (
                "replaces it" if meta.get("relation") == "replaces" else "restates what it replaced"
            )
            return (
                f"superseded: item {by or ev.value} {what} "
                f"(judged by {meta.get('judge')}: {meta['reason']!r})"
            )
    return ""


class Unjudged(NamedTuple):
    """An item whose last judgement failed (what ``rejudge`` judges again)."""

    key: str
    value_id: str
    text: str
    time: float
    source: str | None


def unjudged(memory: TEPAMemory, ns: str, cns: str) -> list[Unjudged]:
    """Items of ``ns`` (claims namespace ``cns``) whose last judgement failed, oldest first.

    An item counts while it is still served and no later judgement of it succeeded.
    """
    keys = sorted({p.key for p in memory.precedents(namespace=cns) if p.key.startswith(SLOT)})
    last: dict[tuple[str, str], tuple[bool, Unjudged]] = {}
    for key in keys:
        for ev in memory.history(key, namespace=cns):
            meta = ev.metadata
            if "item" not in meta or "judge" not in meta or slot_key(str(meta["item"])) != key:
                continue
            owner = (str(meta["item"]), str(meta.get("item_value", "")))
            row = Unjudged(owner[0], owner[1], ev.text or "", ev.time, ev.source)
            last[owner] = ("judge_error" in meta, row)
    live = {(p.key, p.value_id) for p in memory.answers(namespace=ns)}
    out = [row for owner, (failed, row) in last.items() if failed and owner in live]
    return sorted(out, key=lambda row: row.time)


def item_claims_of(records: Iterable[Any], item_key: str, vid: str) -> list[tuple[str, Any]] | None:
    """The claims listed by the last own-slot record of an item (``None``: no such record)."""
    found = None
    for ev in records:
        meta = ev.metadata
        if meta.get("item") == item_key and meta.get("item_value") == vid:
            try:
                found = [(str(k), v) for k, v in json.loads(str(meta.get("item_claims", "[]")))]
            except (ValueError, TypeError):
                continue
    return found
