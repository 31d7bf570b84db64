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
  Active value (each Active value of a multi-valued attribute). An item is **visible** while it
  makes no claim or any of its claims is served.
* **Taken back.** After every write that touches a claim key, the items linked to that key are
  checked: an item none of whose claims is served is revoked, with a reason naming the item
  that superseded it (``"superseded: user.home_city is now 'Oslo' (item b7...)"``); one whose
  claim is served again is promoted back. These decisions are evidence like any other, so
  ``audit``, ``history`` and ``as_of`` reads show the item as it was and why it changed, and
  every read path (store search, retriever, vector store, tools) sees the item's state without
  a change of its own. An item deleted by the user is never brought back by its claims.
* **Updates and deletes.** Updating an item (same key, new content) retracts the claims of
  its old content that the new one does not make; deleting it retracts all its claims. A
  retracted claim value that no other live item makes is revoked (``"retracted: ..."``).
* **Multi-valued attributes** (pets, languages, hobbies, ... as the extractor marks them with
  ``Fact.metadata["multi_valued"]``, or keys under ``LifecyclePolicy.multi_valued_prefixes``)
  never supersede each other: each value is a key of its own (``user.pets.cat``).

The claims namespace is an ordinary namespace of the memory (``memory.namespaces()`` lists it);
``TEPAStore`` hides it from its listings and searches, and refuses to write into it.

Cost: extraction (the offline extractor: well under a millisecond an item) and one more append
when an item's visibility changes; the links of a claim key are read from its evidence only
when that key holds two or more values.

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

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_tepa.core.errors import TEPAError
from langchain_tepa.core.types import Evidence, EvidenceKind, Fact, Lifecycle, Precedent
from langchain_tepa.core.values import value_identity, value_key
from langchain_tepa.memory.batch import Decision

if TYPE_CHECKING:
    from langchain_tepa.memory.facade import TEPAMemory

__all__ = [
    "CLAIMS_LABEL",
    "ClaimPlan",
    "ItemClaims",
    "ItemText",
    "claims_namespace",
    "is_claims_namespace",
    "joined_text",
    "text_of_value",
]

CLAIMS_LABEL = "~claims"
"""The last label of an item namespace's claims namespace (``users.u1.~claims``)."""

SUPERSEDED = "superseded"
"""How the reason of a revocation by claims starts (only those are promoted back)."""
HELD = "held"
"""How the reason starts when a more trusted answer holds the item's claim back (promoted back
too, once its claim is confirmed: :mod:`langchain_tepa.core.precedence`)."""

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
        claims namespace's keys. An item written again with other content, or deleted, has
        the claims of its old content queued for retraction (checked by :meth:`settle`).
        """
        out = ClaimPlan()
        by_ns: dict[str, list[ItemText]] = {}
        for item in items:
            by_ns.setdefault(item.namespace, []).append(item)
        for ns, group in by_ns.items():
            cns = claims_namespace(ns)
            texts = [g for g in group if g.value is not None and g.text and g.text.strip()]
            found = self._extract([_clean(g.text or "") for g in texts], cns)
            claims_of = {id(g): facts for g, facts in zip(texts, found, strict=True)}
            for item in group:
                self._plan_item(out, cns, item, claims_of.get(id(item), []))
        return out

    def _extract(self, texts: list[str], cns: str) -> list[list[Fact]]:
        """The claims of each text; an extractor that fails leaves its items without claims.

        The item is stored either way: a failing extractor (a model that timed out) costs the
        items their claims, logged as a warning, not the write.
        """
        if not texts:
            return []
        try:
            return self.memory.extract_claims(texts, namespace=cns)
        except TEPAError as exc:
            _log.warning("claims not extracted for %d item(s): %s", len(texts), exc)
            return [[] for _ in texts]

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
                if (fact.metadata or {}).get("correction"):
                    meta["correction"] = True
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
                return _claims_of(ev.metadata)
        return []

    # ------------------------------------------------------------------ after the write
    def settle(self, plan: ClaimPlan, *, source: str | None = None) -> int:
        """Retract what ``plan`` queued, then take back or restore the items it affects.

        Returns:
            How many decisions were written.
        """
        written = 0
        if plan.retract:
            written += self._retract(plan)
        if not plan.touched:
            return written
        links: dict[tuple[str, str, str], list[tuple[str, Any]]] = {}
        for cns, key in sorted(plan.touched):
            if len(self.memory.audit(key, namespace=cns).precedents) > 1 or plan.retract:
                links.update(_links(self.memory.history(key, namespace=cns)))
        for owner, claims in plan.items.items():  # the newest last (see _owners)
            links.pop(owner, None)
            links[owner] = claims
        decisions = self._decisions(links, source)
        if decisions:
            self.memory.write_many(decisions)
        return written + len(decisions)

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
        self, links: dict[tuple[str, str, str], list[tuple[str, Any]]], source: str | None
    ) -> list[Decision]:
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
            served = [
                (k, v)
                for k, v in claims
                if any(self._vid(v) == p.value_id for p in self._served(cns, k, cache))
            ]
            if served and target.state is Lifecycle.REVOKED:
                revoked_by = target.revocation
                if revoked_by is not None and revoked_by.reason.startswith((SUPERSEDED, HELD)):
                    k, v = served[0]
                    reason = f"restored: its claim {k} = {v!r} is served again"
                    out.append(Decision(item_key, target.value, True, reason, ns, source))
            elif not served and target.state is Lifecycle.ACTIVE:
                displaced = [(k, v) for k, v in claims if self._displaced(cns, k, v, cache)]
                if not displaced:  # no value of its keys is believed yet (all Hypotheses)
                    continue
                k, v = displaced[0]
                now = self._served(cns, k, cache)
                if now:
                    by = owners.get((cns, k, now[0].value_id))
                    who = f" (item {by})" if by and by != item_key else ""
                    reason = f"{SUPERSEDED}: {k} is now {now[0].value!r}{who}, not {v!r}"
                    if self._vid(v) in self.memory.audit(k, namespace=cns).held:
                        reason = (
                            f"{HELD}: {k} = {v!r} waits until a source as trusted as the one "
                            f"behind {now[0].value!r}{who} or an execution confirms it"
                        )
                else:
                    reason = f"{SUPERSEDED}: {k} = {v!r} is no longer believed"
                out.append(Decision(item_key, target.value, False, reason, ns, source))
        return out

    def _displaced(
        self, cns: str, key: str, value: Any, cache: dict[tuple[str, str], list[Precedent]]
    ) -> bool:
        """Whether a claim that is not served lost to something.

        It did when another value of its key is served, or its own value was revoked; not when
        no value of the key was promoted yet (as under ``tepa-full``, before a trial).
        """
        if self._served(cns, key, cache):
            return True
        vid = self._vid(value)
        state = self.memory.audit(key, namespace=cns)
        return any(p.value_id == vid and p.state is Lifecycle.REVOKED for p in state.precedents)

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
