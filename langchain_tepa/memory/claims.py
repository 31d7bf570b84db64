"""Free-text items and the keyed claims they make: how an item is taken back.

Applications (LangMem's tools, LangGraph's memory how-to, ``add_documents``) store memories
as free text under random keys. TEPA's unit stays the keyed precedent; an *item* is what users
see. :class:`ItemClaims` links the two:

* **Claims.** When an item is written, the memory's extractor reads its text and gives the
  keyed claims it makes (``user.home_city = "Oslo"``), resolved onto the keys already known
  (:meth:`TEPAMemory.extract_claims <langchain_tepa.memory.TEPAMemory.extract_claims>`). Each
  claim is an observation in the item namespace's *claims namespace* (``<namespace>.~claims``),
  tagged with the item it came from, and folded by the same rules as any observation: an item
  that repeats a claim supports it; a claim of a change ("moved to", "now", "switched to")
  corrects it.
* **Served.** A claim is *served* when its value is the answer of its key: the key's best
  Active value (each Active value of a multi-valued attribute).
* **Taken back only when the replacement is explicit** (issue 37). After every write that
  touches a claim key, the items linked to that key are checked: an item none of whose claims
  is served, one of which a *correction* revoked (an explicit change: "moved to", "no longer X,
  now Y", "X -> Y", or a model's verdict written as one), is revoked, with a reason naming the
  item that superseded it (``"superseded: user.home_city is now 'Oslo' (item b7...)"``); one
  that is no longer so displaced is promoted back. These decisions are evidence like any other,
  so ``audit``, ``history`` and ``as_of`` reads show the item as it was and why it changed. An
  item deleted by the user is never brought back by its claims.
* **Marked when unsure.** An older live item that claims another value of a single-valued key
  than the newest item claiming it, without a correction ("I live in Lisbon", then "I live in
  Paris"), stays served and is *possibly superseded*: a mark (a value of the claims namespace,
  :func:`mark_key`) names the newer item, the store's search and the vector store rank the
  newer item just above it and show the mark (``possibly_superseded_by``). An item a correction
  hid keeps a mark too, so the item that replaced it ranks where it would have.
* **Updates and deletes.** Updating an item (same key, new content) retracts the claims of
  its old content that the new one does not make; deleting it retracts all its claims. A
  retracted claim value that no other live item makes is revoked (``"retracted: ..."``).
* **Multi-valued attributes** (pets, languages, hobbies, ... as the extractor marks them with
  ``Fact.metadata["multi_valued"]``, or keys under ``LifecyclePolicy.multi_valued_prefixes``)
  never supersede each other: each value is a key of its own (``user.pets.cat``).

The claims namespace is an ordinary namespace of the memory (``memory.namespaces()`` lists it);
``TEPAStore`` hides it from its listings and searches, and refuses to write into it.

Cost: extraction (the offline extractor: about a millisecond an item or less) and one more
append when an item's visibility or mark changes; the links of a claim key are read from its
evidence only when that key holds two or more values.

Example:
    >>> from langchain_tepa import Fact, TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> claims = ItemClaims(memory)
    >>> def put(key: str, text: str) -> None:
    ...     item = ItemText("u1", key, {"content": text}, text, "user")
    ...     plan = claims.plan([item])
    ...     meta = plan.metadata.get(("u1", key))
    ...     fact = Fact(key, item.value, "u1", source="user", metadata=meta)
    ...     _ = memory.write_many([fact, *plan.facts])
    ...     claims.settle(plan)
    >>> put("a", "My favourite colour is green.")
    >>> put("b", "My favourite colour is now blue.")
    >>> memory.get("a", namespace="u1") is None, memory.get("b", namespace="u1")["content"]
    (True, 'My favourite colour is now blue.')
    >>> memory.audit("a", namespace="u1").precedents[0].revocation.reason
    "superseded: user.favourite_colour is now 'blue' (item b), not 'green'"
"""

from __future__ import annotations

import dataclasses
import json
import logging
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_tepa._plan import Plan, adrive_offloaded, drive
from langchain_tepa.core.errors import ExtractionWarning, JudgeError, TEPAError
from langchain_tepa.core.trust import is_correction
from langchain_tepa.core.types import Evidence, EvidenceKind, Fact, Lifecycle, Precedent
from langchain_tepa.core.values import MAX_KEY_LENGTH, short_hash, value_identity, value_key
from langchain_tepa.memory.batch import Decision, RevokeKey
from langchain_tepa.memory.verdicts import (
    JUDGED_META,
    Judging,
    item_claims_of,
    judged_reason,
    slot_key,
    unjudged,
)

if TYPE_CHECKING:
    from langchain_tepa.memory.facade import TEPAMemory

__all__ = [
    "CLAIMS_LABEL",
    "MARK_FIELD",
    "ClaimPlan",
    "ItemClaims",
    "ItemText",
    "claims_namespace",
    "is_claims_namespace",
    "joined_text",
    "mark_key",
    "read_marks",
    "text_of_value",
]

CLAIMS_LABEL = "~claims"
"""The last label of an item namespace's claims namespace (``users.u1.~claims``)."""

SUPERSEDED = "superseded"
"""How the reason of a revocation by claims starts (only those are promoted back)."""
HELD = "held"
"""How the reason starts when a more trusted answer holds the item's claim back (promoted back
too, once its claim is confirmed: :mod:`langchain_tepa.core.precedence`)."""

MARKS = "~superseded."
"""How the key of a "possibly superseded" mark starts, in the claims namespace."""

MARK_FIELD = "possibly_superseded_by"
"""The metadata entry that shows a mark on every read path."""

_log = logging.getLogger("langchain_tepa")
_MAX_TEXT = 4000


def _clean(text: str) -> str:
    """``text`` as the extractor may read it: no NUL, valid UTF-8, at most 4,000 characters."""
    text = text[:_MAX_TEXT].replace("\x00", " ")
    return text.encode("utf-8", "replace").decode("utf-8")


def claims_namespace(namespace: str) -> str:
    """The claims namespace of an item namespace.

    Example:
        >>> claims_namespace("users.u1")
        'users.u1.~claims'
    """
    return f"{namespace}.{CLAIMS_LABEL}"


def is_claims_namespace(namespace: str) -> bool:
    """Whether ``namespace`` is (or is below) a claims namespace.

    Example:
        >>> is_claims_namespace("users.u1.~claims"), is_claims_namespace("users.u1")
        (True, False)
    """
    return CLAIMS_LABEL in namespace.split(".")


def mark_key(item_key: str) -> str:
    """The key, in the claims namespace, of the "possibly superseded" mark of an item.

    Example:
        >>> mark_key("b7")
        '~superseded.b7'
    """
    key = MARKS + item_key
    return key if len(key) <= MAX_KEY_LENGTH else f"{MARKS}#{short_hash(item_key, 32)}"


def read_marks(rows: Iterable[Any], *, hidden: bool = False) -> dict[str, list[dict[str, Any]]]:
    """``item key -> [{"item", "key", "value"}]``: the marks among a claims namespace's answers.

    ``rows`` are the claims namespace's answering precedents (or answer rows); each entry of an
    item's list names a newer item that may supersede it, the claim key they share and the
    newer item's value of it. Items without a mark are absent. With ``hidden``, the marks of
    items an explicit replacement hid instead, by the hidden item's precedent id (the newer
    item inherits its rank).

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> mark = {"item": "a", "by": [{"item": "b", "key": "user.city", "value": "Oslo"}]}
        >>> read_marks([Precedent("u.~claims", mark_key("a"), mark, "v", "p")])["a"][0]["item"]
        'b'
    """
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if not row.key.startswith(MARKS):
            continue
        value = row.peek() if hasattr(row, "peek") else row.value
        if not isinstance(value, dict) or not isinstance(value.get("by"), list):
            continue
        if bool(value.get("hidden")) == hidden:
            name = str(value["hidden"] if hidden else value.get("item"))
            out[name] = [dict(e) for e in value["by"] if isinstance(e, dict)]
    return out


def joined_text(parts: Iterable[str]) -> str:
    """Texts read as one: each kept as written, a full stop added between sentences.

    A single text is returned unchanged (an extractor that knows its texts sees them as
    written). A part that ends with a colon does not label the next one: the parts are
    separate fields ("B:" and "u1" are no note "B: u1").

    Example:
        >>> joined_text(["I live in Oslo", "I work at Acme."])
        'I live in Oslo. I work at Acme.'
        >>> joined_text(["B:", "u1"])
        'B:. u1'
    """
    kept = [p.strip() for p in parts if p.strip()]
    out = ""
    for part in kept:
        if out:
            out += " " if out.endswith((".", "!", "?")) else ". "
        out += part
    return out[:_MAX_TEXT]


def text_of_value(value: Any) -> str:
    """The text of an item value that claims are read from: its string leaves, in order.

    Example:
        >>> text_of_value({"content": "I live in Oslo", "tags": ["home"], "n": 3})
        'I live in Oslo. home'
    """
    parts: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            parts.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list | tuple):
            for x in v:
                walk(x)

    walk(value)
    return joined_text(parts)


@dataclass(frozen=True)
class ItemText:
    """One item write: what an adapter stores under an item key, and the text it says.

    Attributes:
        namespace: The item's namespace.
        key: The item's key (its identity for get, update and delete).
        value: The value stored (``None``: the item is deleted).
        text: The text its claims are read from (``None`` or blank: no claims).
        source: Who wrote it (kept on the claims).

    Example:
        >>> ItemText("u1", "k1", {"content": "I'm vegan"}, "I'm vegan", "user").key
        'k1'
    """

    namespace: str
    key: str
    value: Any
    text: str | None
    source: str | None = None


@dataclass
class ClaimPlan:
    """What :meth:`ItemClaims.plan` prepared for one write.

    Attributes:
        facts: The claim observations to store in the same write as the
            items, after them.
        touched: ``(claims namespace, claim key)`` pairs the write touches.
        items: ``(namespace, item key, item value id) -> claims`` of the items written, each
            claim a ``(claim key, claim value)`` pair.
        metadata: ``(namespace, item key) -> metadata`` to store with the item's own
            observation (its claims, so an update or delete can retract them).
        retract: Claims to check for retraction after the write:
            ``(namespace, item key, claim key, claim value)``.
    """

    facts: list[Fact] = field(default_factory=list)
    touched: set[tuple[str, str]] = field(default_factory=set)
    items: dict[tuple[str, str, str], list[tuple[str, Any]]] = field(default_factory=dict)
    metadata: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    retract: list[tuple[str, str, str, Any]] = field(default_factory=list)


def _claims_of(meta: Any) -> list[tuple[str, Any]]:
    """The ``item_claims`` of a record's metadata (``[]`` when absent or unreadable)."""
    try:
        return [(str(k), v) for k, v in json.loads(str(meta.get("item_claims", "[]")))]
    except (ValueError, TypeError):
        return []


def _links(records: Iterable[Evidence]) -> dict[tuple[str, str, str], list[tuple[str, Any]]]:
    """``(namespace, item key, item value id) -> claims`` of the claim records given."""
    out: dict[tuple[str, str, str], list[tuple[str, Any]]] = {}
    for ev in records:
        meta = ev.metadata
        if ev.kind is not EvidenceKind.OBSERVATION or "item" not in meta:
            continue
        owner = (str(meta.get("item_namespace", "")), str(meta["item"]), str(meta["item_value"]))
        out.pop(owner, None)  # in the order of each item's last claim
        out[owner] = _claims_of(meta)
    return out


class ItemClaims:
    """Links free-text items to their claims and takes back superseded items.

    Args:
        memory: The memory the items and their claims live in.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> ItemClaims(TEPAMemory.in_memory()).plan([]).facts
        []
    """

    def __init__(self, memory: TEPAMemory) -> None:
        self.memory = memory
        self._judging: Judging | None = None

    # ------------------------------------------------------------------ before the write
    def _vid(self, value: Any) -> str:
        return value_identity(value, normalize=self.memory.policy.normalize_values)

    def _claim_key(self, fact: Fact) -> str:
        multi = bool((fact.metadata or {}).get("multi_valued"))
        if multi and not self.memory.policy.is_multi_valued(fact.key):
            return value_key(fact.key, fact.value)
        return fact.key

    def plan(self, items: Sequence[ItemText]) -> ClaimPlan:
        """The claim records to store with ``items`` (in the same write, after the items).

        Reads each item's text with the memory's extractor and resolves its claims onto the
        claims namespace's keys; with a judge (``TEPAMemory(judge=...)``), the judge's verdicts
        are the claims instead (:mod:`langchain_tepa.memory.verdicts`: one model call per
        namespace of the batch). An item written again with other content, or deleted, has
        the claims of its old content queued for retraction (checked by :meth:`settle`).

        Raises:
            JudgeError: If a judge made with ``strict=True`` fails (nothing is written).
        """
        return drive(self._planner(items), {"judge": self.memory.judge})

    async def aplan(self, items: Sequence[ItemText]) -> ClaimPlan:
        """Async twin of :meth:`plan` (the judge's ``ainvoke``; reads in a worker thread)."""
        return await adrive_offloaded(self._planner(items), {"judge": self.memory.judge})

    def _planner(self, items: Sequence[ItemText]) -> Plan[ClaimPlan]:
        out = ClaimPlan()
        by_ns: dict[str, list[ItemText]] = {}
        for item in items:
            by_ns.setdefault(item.namespace, []).append(item)
        for ns, group in by_ns.items():
            cns = claims_namespace(ns)
            said = [g for g in group if g.value is not None and g.text and g.text.strip()]
            texts = [dataclasses.replace(g, text=_clean(g.text or "")) for g in said]
            metas: list[dict[str, Any]] = [{} for _ in texts]
            if self.memory.judge is None:
                found, error = self._extract([g.text or "" for g in texts], cns)
                if error:  # surfaced in the item's own evidence
                    metas = [{"claims_error": error} for _ in texts]
            else:
                found, metas = yield from self._judged(ns, texts)
            claims_of = {id(g): (f, m) for g, f, m in zip(said, found, metas, strict=True)}
            for item in group:
                facts, meta = claims_of.get(id(item), ([], {}))
                self._plan_item(out, cns, item, facts)
                if meta:
                    out.metadata.setdefault((item.namespace, item.key), {}).update(meta)
        return out

    def _judged(
        self, ns: str, items: list[ItemText], before: float | None = None
    ) -> Plan[tuple[list[list[Fact]], list[dict[str, Any]]]]:
        """The judge's claims of ``items`` and their records' metadata (a failure: none)."""
        if self._judging is None or self._judging.judge is not self.memory.judge:
            self._judging = Judging(self.memory)
        judging = self._judging
        facts: list[list[Fact]] = []
        metas: list[dict[str, Any]] = []
        for pending in judging.pending(claims_namespace(ns), items, before=before):
            judgements, error = None, None
            if judging.needs_call(pending):
                try:
                    judgements = yield ("judge", "judge", (pending.request,), {})
                except JudgeError as exc:
                    if judging.judge.strict:
                        raise
                    _log.warning("%d item(s) of %s unjudged: %s", len(pending.items), ns, exc)
                    error = exc
            found, meta = judging.claims(pending, judgements, error)
            facts += found
            metas += meta
        return facts, metas

    def _extract(self, texts: list[str], cns: str) -> tuple[list[list[Fact]], str | None]:
        """The claims of each text, and why they are missing when the extractor failed.

        The item is stored either way: a failing extractor (a model that timed out) costs the
        items their claims, not the write. The failure is surfaced (issue 38): an
        :class:`~langchain_tepa.core.errors.ExtractionWarning`, and ``claims_error`` in the
        metadata of each item's observation (``memory.history`` shows it).
        """
        if not texts:
            return [], None
        try:
            return self.memory.extract_claims(texts, namespace=cns), None
        except TEPAError as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
            _log.warning("claims not extracted for %d item(s): %s", len(texts), exc)
            warnings.warn(
                ExtractionWarning(
                    f"{len(texts)} item(s) stored without claims (they take nothing back); "
                    f"their evidence says why (claims_error): {error}"
                ),
                stacklevel=2,
            )
            return [[] for _ in texts], error

    def _plan_item(self, out: ClaimPlan, cns: str, item: ItemText, facts: list[Fact]) -> None:
        old = self._current_claims(item)
        unique: dict[tuple[str, str], Fact] = {}  # one fact per claim, the first said
        for f in facts:
            unique.setdefault((self._claim_key(f), json.dumps(f.value)), f)
        facts = list(unique.values())
        pairs = [(k, json.loads(v)) for k, v in unique]
        if item.value is not None:
            vid = self._vid(item.value)
            out.items[(item.namespace, item.key, vid)] = pairs
            listed = json.dumps(pairs, ensure_ascii=False)
            if pairs:
                out.metadata[(item.namespace, item.key)] = {"item_claims": listed}
            for fact, (key, value) in zip(facts, pairs, strict=True):
                meta: dict[str, Any] = {
                    "item": item.key,
                    "item_namespace": item.namespace,
                    "item_value": vid,
                    "item_claims": listed,
                }
                fmeta = fact.metadata or {}
                if fmeta.get("correction"):
                    meta["correction"] = True
                meta.update({k: fmeta[k] for k in JUDGED_META if k in fmeta})
                out.facts.append(Fact(key, value, cns, fact.text, item.source or fact.source, meta))
                out.touched.add((cns, key))
        kept = {(k, json.dumps(v)) for k, v in pairs}
        for key, value in old:
            if (key, json.dumps(value)) not in kept:
                out.retract.append((item.namespace, item.key, key, value))
                out.touched.add((cns, key))

    def _current_claims(self, item: ItemText) -> list[tuple[str, Any]]:
        """The claims of the content ``item.key`` holds now (before this write)."""
        current = self.memory.answer(item.key, namespace=item.namespace)
        if current is None:
            return []
        vid = self._vid(current.value)
        if item.value is not None and self._vid(item.value) == vid:
            return []
        for ev in reversed(self.memory.history(item.key, namespace=item.namespace)):
            found = ev.kind is EvidenceKind.OBSERVATION and "item_claims" in ev.metadata
            if found and self._vid(ev.value) == vid:
                claims = _claims_of(ev.metadata)
                own = slot_key(item.key)
                if any(k == own for k, _ in claims):  # judged: rejudge may have added claims
                    records = self.memory.history(own, namespace=claims_namespace(item.namespace))
                    return item_claims_of(records, item.key, vid) or claims
                return claims
        return []

    # ------------------------------------------------------------------ judging again
    def rejudge(self, namespace: str) -> int:
        """Judge again the items of ``namespace`` whose judgement failed (a model error).

        Each such item, still served, is judged against the statements made before it, and
        its verdicts are written and settled as a write would have. Items whose judgement
        fails again stay as they are (and are found by the next call).

        Returns:
            How many items were judged now.
        """
        return drive(self._rejudger(namespace), {"judge": self.memory.judge})

    async def arejudge(self, namespace: str) -> int:
        """Async twin of :meth:`rejudge`."""
        return await adrive_offloaded(self._rejudger(namespace), {"judge": self.memory.judge})

    def _rejudger(self, ns: str) -> Plan[int]:
        if self.memory.judge is None:
            raise JudgeError("the memory has no judge; pass judge=<chat model> to TEPAMemory")
        done = 0
        cns = claims_namespace(ns)
        for row in unjudged(self.memory, ns, cns):
            current = self.memory.answer(row.key, namespace=ns)
            if current is None or current.value_id != row.value_id:
                continue
            item = ItemText(ns, row.key, current.value, row.text, row.source)
            facts, metas = yield from self._judged(ns, [item], before=row.time)
            if "judge_error" in metas[0]:
                continue
            plan = ClaimPlan()
            self._plan_item(plan, cns, item, facts[0])
            self.memory.write_many(plan.facts)
            self.settle(plan, source=row.source)
            done += 1
        return done

    # ------------------------------------------------------------------ after the write
    def settle(self, plan: ClaimPlan, *, source: str | None = None) -> int:
        """Retract what ``plan`` queued, then take back, restore or mark the items it affects.

        Returns:
            How many decisions were written.
        """
        written = 0
        if plan.retract:
            written += self._retract(plan)
        if not plan.touched:
            return written
        links: dict[tuple[str, str, str], list[tuple[str, Any]]] = {}
        order: dict[tuple[str, str], list[tuple[str, str, str]]] = {}  # claim key -> owners
        corrections: dict[tuple[str, str], set[str]] = {}  # ids of the correction records
        for cns, key in sorted(plan.touched):
            if len(self.memory.audit(key, namespace=cns).precedents) > 1 or plan.retract:
                records = self.memory.history(key, namespace=cns)
                corrections[(cns, key)] = {ev.id for ev in records if is_correction(ev.metadata)}
                found = _links(records)
                links.update(found)
                order[(cns, key)] = list(found)
        for owner, claims in plan.items.items():  # the newest last
            links.pop(owner, None)
            links[owner] = claims
            for key, _ in claims:
                owners = order.setdefault((claims_namespace(owner[0]), key), [])
                owners[:] = [o for o in owners if o != owner] + [owner]
        decisions = self._decisions(links, source, corrections)
        decided = {(d.namespace or "", d.key): d for d in decisions}
        marks = self._marks(links, order, decided, source)
        if decisions or marks:
            self.memory.write_many([*decisions, *marks])
        return written + len(decisions) + len(marks)

    def _served(
        self, cns: str, key: str, cache: dict[tuple[str, str], list[Precedent]]
    ) -> list[Precedent]:
        """The served precedents of a claim key: its answer, or every Active value if multi."""
        if (cns, key) not in cache:
            if self.memory.policy.is_multi_valued(key):
                state = self.memory.audit(key, namespace=cns)
                cache[(cns, key)] = [p for p in state.precedents if p.state is Lifecycle.ACTIVE]
            else:
                answer = self.memory.answer(key, namespace=cns)
                cache[(cns, key)] = [answer] if answer is not None else []
        return cache[(cns, key)]

    def _decisions(
        self,
        links: dict[tuple[str, str, str], list[tuple[str, Any]]],
        source: str | None,
        corrections: dict[tuple[str, str], set[str]],
    ) -> list[Decision]:
        """Hide the items an explicit replacement displaced; restore those it no longer does.

        An item is hidden when none of its claims is served and one of them was revoked by a
        correction (an explicit change: "I moved to Oslo", "X -> Y", or a model's verdict
        written as one), or is held back by a more trusted answer (a lower-trust writer's claim:
        issue 38; reason ``held: ...``, restored once confirmed). A same-attribute conflict that
        is not explicit hides nothing: the older item is marked instead (:meth:`_marks`).
        """
        cache: dict[tuple[str, str], list[Precedent]] = {}
        owners = self._owners(links)
        out: list[Decision] = []
        for (ns, item_key, vid), claims in sorted(links.items()):
            if not claims:
                continue
            cns = claims_namespace(ns)
            target = self._item_precedent(ns, item_key, vid)
            if target is None:
                continue
            served = any(
                self._vid(v) == p.value_id for k, v in claims for p in self._served(cns, k, cache)
            )
            explicit = [] if served else self._displaced(cns, claims, corrections)
            held = [] if served or explicit else self._held(cns, claims)
            revoked_by = target.revocation
            if target.state is Lifecycle.REVOKED and not explicit and not held:
                if revoked_by is not None and revoked_by.reason.startswith((SUPERSEDED, HELD)):
                    k, v = claims[0]
                    reason = f"restored: its claim {k} = {v!r} is no longer displaced"
                    out.append(Decision(item_key, target.value, True, reason, ns, source))
            elif target.state is Lifecycle.ACTIVE and (explicit or held):
                k, v = (explicit or held)[0]
                now = self._served(cns, k, cache)
                if now:
                    by = owners.get((cns, k, now[0].value_id))
                    who = f" (item {by})" if by and by != item_key else ""
                    reason = f"{SUPERSEDED}: {k} is now {now[0].value!r}{who}, not {v!r}"
                    reason = judged_reason(self.memory, cns, k, now[0].value_id, by) or reason
                    if held:
                        reason = (
                            f"{HELD}: {k} = {v!r} waits until a source as trusted as the one "
                            f"behind {now[0].value!r}{who} or an execution confirms it"
                        )
                else:
                    reason = f"{SUPERSEDED}: {k} = {v!r} is no longer believed"
                out.append(Decision(item_key, target.value, False, reason, ns, source))
        return out

    def _held(self, cns: str, claims: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """The claims a more trusted answer holds back (issue 38: a lower-trust writer's)."""
        return [
            (k, v) for k, v in claims if self._vid(v) in self.memory.audit(k, namespace=cns).held
        ]

    def _displaced(
        self,
        cns: str,
        claims: list[tuple[str, Any]],
        corrections: dict[tuple[str, str], set[str]],
    ) -> list[tuple[str, Any]]:
        """The claims whose value a correction revoked (an explicit replacement)."""
        out = []
        for key, value in claims:
            vid = self._vid(value)
            for p in self.memory.audit(key, namespace=cns).precedents:
                by = p.revocation
                if p.value_id != vid or by is None:
                    continue
                if (cns, key) not in corrections:
                    records = self.memory.history(key, namespace=cns)
                    corrections[(cns, key)] = {e.id for e in records if is_correction(e.metadata)}
                if by.evidence_id in corrections[(cns, key)]:
                    out.append((key, value))
        return out

    def _marks(
        self,
        links: dict[tuple[str, str, str], list[tuple[str, Any]]],
        order: dict[tuple[str, str], list[tuple[str, str, str]]],
        decided: dict[tuple[str, str], Decision],
        source: str | None,
    ) -> list[Fact | RevokeKey | Decision]:
        """Mark each item that a newer item may supersede; unmark the others.

        For a single-valued claim key, the newest live item that claims it says its current
        value; an older live item that claims another value of it is *possibly superseded* by
        that item: it stays served, ranks just below it and says so in its metadata
        (:func:`read_marks`). An item an explicit replacement hid is marked too, with its
        precedent id (``"hidden"``): the item that replaced it inherits its rank, so a search
        that would have found the old memory finds the new one. The marks are values of the
        claims namespace (key :func:`mark_key`), audited and read like any value.
        """
        live: dict[tuple[str, str, str], bool] = {}
        hidden: dict[tuple[str, str, str], str] = {}

        def alive(owner: tuple[str, str, str]) -> bool:
            if owner not in live:
                p = self._item_precedent(*owner)
                if p is None:
                    live[owner] = False
                    return False
                now = decided.get(owner[:2])
                live[owner] = now.promote if now is not None else p.state is Lifecycle.ACTIVE
                why = now.reason if now is not None else getattr(p.revocation, "reason", "")
                if not live[owner] and why.startswith(SUPERSEDED):  # not held, not deleted
                    hidden[owner] = p.id
            return live[owner]

        newest: dict[tuple[str, str], tuple[str, Any]] = {}
        for (cns, key), owners in order.items():
            if self.memory.policy.is_multi_valued(key):
                continue
            for owner in reversed(owners):
                claimed = [v for k, v in links.get(owner, []) if k == key]
                if claimed and alive(owner):
                    newest[(cns, key)] = (owner[1], claimed[0])
                    break
        wanted: dict[tuple[str, str], list[dict[str, Any]]] = {}
        ids: dict[tuple[str, str], str] = {}
        for owner, claims in links.items():
            by = wanted.setdefault(owner[:2], [])
            cns = claims_namespace(owner[0])
            if not alive(owner) and owner in hidden:
                ids[owner[:2]] = hidden[owner]
            for key, value in claims if alive(owner) or owner in hidden else ():
                first = newest.get((cns, key))
                if first is None or first[0] == owner[1]:
                    continue
                if self._vid(first[1]) != self._vid(value):
                    by.append({"item": first[0], "key": key, "value": first[1]})
        out: list[Fact | RevokeKey | Decision] = []
        for (ns, item_key), by in sorted(wanted.items()):
            cns, mk = claims_namespace(ns), mark_key(item_key)
            now = self.memory.answer(mk, namespace=cns)
            had = now.value if now is not None and isinstance(now.value, dict) else None
            mark = {"item": item_key, "by": by}
            if (ns, item_key) in ids:
                mark["hidden"] = ids[(ns, item_key)]
            if (mark if by else None) == had:
                continue
            if had is not None:
                out.append(RevokeKey(mk, cns, "no longer possibly superseded", source))
            if by:
                how = "superseded" if "hidden" in mark else "possibly superseded"
                why = how + ": " + ", ".join(f"{b['key']} by item {b['item']}" for b in by)
                out.append(Fact(mk, mark, cns, why, source))
                out.append(Decision(mk, mark, True, why, cns, source))
        return out

    def _owners(
        self, links: dict[tuple[str, str, str], list[tuple[str, Any]]]
    ) -> dict[tuple[str, str, str], str]:
        """``(claims namespace, claim key, claim value id) -> the newest item claiming it``."""
        out: dict[tuple[str, str, str], str] = {}
        for (ns, item_key, _), claims in links.items():  # links are in evidence order
            for k, v in claims:
                out[(claims_namespace(ns), k, self._vid(v))] = item_key
        return out

    def _item_precedent(self, ns: str, key: str, vid: str) -> Precedent | None:
        for p in self.memory.audit(key, namespace=ns).precedents:
            if p.value_id == vid:
                return p
        return None

    def _retract(self, plan: ClaimPlan) -> int:
        """Revoke retracted claim values that no other live item makes.

        A value that a retracted claim had revoked (a change: "moved to Oslo" revoking Lisbon)
        is promoted back, since the evidence against it was taken back.
        """
        decisions: list[Decision] = []
        for ns, item_key, key, value in plan.retract:
            cns = claims_namespace(ns)
            vid = self._vid(value)
            records = self.memory.history(key, namespace=cns)
            others = False
            for (ons, okey, ovid), claims in _links(records).items():
                if okey == item_key or not any(self._vid(v) == vid for _, v in claims):
                    continue
                p = self._item_precedent(ons, okey, ovid)
                if p is not None and p.state is not Lifecycle.REVOKED:
                    others = True
                    break
            if others:
                continue
            decisions.append(
                Decision(key, value, False, f"retracted: item {item_key} no longer says it", cns)
            )
            mine = {
                ev.id
                for ev in records
                if ev.metadata.get("item") == item_key and ev.metadata.get("item_namespace") == ns
            }
            for q in self.memory.audit(key, namespace=cns).precedents:
                by = q.revocation
                if by is not None and by.evidence_id in mine and q.value_id != vid:
                    reason = f"restored: item {item_key}, which had superseded it, was retracted"
                    decisions.append(Decision(key, q.value, True, reason, cns))
        if decisions:
            self.memory.write_many(decisions)
        return len(decisions)
