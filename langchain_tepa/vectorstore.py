"""`TEPAVectorStore`: a LangChain ``VectorStore`` over a :class:`~langchain_tepa.memory.TEPAMemory`.

Adding a document is an *observation*, deleting one a *revocation* (kept for audit), and every
search sees Active precedents only. LangChain code that takes a ``VectorStore`` (``as_retriever``,
``create_retriever_tool``, ``add_documents``, MMR search) gets a memory that can take things back.

How a ``Document`` maps onto the memory (details in :class:`TEPAVectorStore`):

- a **document** (the default): key ``"doc.<id>"``, the text as ``text=`` (what is embedded), and
  as value ``{"chars", "metadata", "sha256"}``: the metadata and a digest of text and metadata,
  so two different contents under one id are two values of one key (they conflict);
- a **fact** (its metadata holds ``"key"``): key ``metadata["key"]``, value ``metadata["value"]``
  (the text when absent), the text as ``text=``. Many documents can support one fact.

Example:
    >>> from langchain_core.documents import Document
    >>> from langchain_tepa import TEPAMemory
    >>> store = TEPAVectorStore(memory=TEPAMemory.in_memory())
    >>> store.add_documents([Document("Oslo is the capital of Norway", id="oslo")])
    ['oslo']
    >>> store.similarity_search("capital of Norway", k=1)[0].id
    'oslo'
    >>> store.delete(["oslo"])
    True
    >>> store.similarity_search("capital of Norway", k=1)
    []
    >>> [p.state.value for p in store.memory.audit("doc.oslo").precedents]
    ['revoked']
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

from langchain_tepa._plan import Plan, adrive, drive
from langchain_tepa._vectorstore_mapping import (
    DOC_KEY_PREFIX,
    DocumentMapping,
    Hit,
    doc_key,
    documents_of_texts,
    documents_with_ids,
    id_list,
    is_document,
    mmr_order,
    query_text,
    query_vector,
    search_filter,
    search_prefix,
    valid_doc_id,
)
from langchain_tepa.core.errors import (
    InvalidArgumentError,
    InvalidSourceError,
    UnknownPrecedentError,
)
from langchain_tepa.core.types import Fact, Lifecycle, Precedent
from langchain_tepa.core.values import safe_repr, validate_namespace
from langchain_tepa.memory import TEPAMemory
from langchain_tepa.memory.claims import (
    ClaimPlan,
    ItemClaims,
    ItemText,
    claims_namespace,
    read_marks,
)
from langchain_tepa.metadata_filter import matches
from langchain_tepa.state.vectors import unit_rows
from langchain_tepa.validation import validate_k, validate_source

__all__ = ["DOC_KEY_PREFIX", "TEPAVectorStore"]

T = TypeVar("T")
_DELETED = "deleted through the vector store"
_REPLACED = "replaced: added again under the same id"


class TEPAVectorStore(VectorStore):
    """A LangChain ``VectorStore`` whose documents can be taken back, over a ``TEPAMemory``.

    **Adding** (``add_documents``, ``add_texts``, ``from_texts``) observes all documents in one
    ``observe_many`` call; if any document is refused, nothing is stored.

    - A *document* (no ``key_field`` in its metadata) has the id ``Document.id`` or the one in
      ``ids``, else a stable id derived from text and metadata (``"d"`` + 24 hex digits, so
      adding the same document twice supports it instead of duplicating it). It is stored under
      the key ``"doc.<id>"`` with ``page_content`` as the text (embedded) and the value
      ``{"chars": len(text), "metadata": <a JSON copy>, "sha256": <digest of both>}``. Searches
      give back ``page_content``, metadata and id as added (tuples come back as lists).
    - A *fact* (metadata holds ``key_field``, default ``"key"``) is observed under
      ``metadata["key"]`` with the value ``metadata["value"]`` (``page_content`` when absent)
      and ``page_content`` as the text; its other metadata entries (scalars) are kept with the
      evidence. Its id is ``"<key>#<precedent id>"``, the same for every document asserting that
      value; searches give back the precedent's first text and ``{"key": ..., "value": ...}``.

    **Searching** sees the namespace's Active precedents only. ``similarity_search`` and its
    score and relevance variants rank through the memory (the score is the cosine similarity;
    relevance is that similarity clipped to ``[0, 1]``). By-vector searches rank the same way
    from the given vector (``memory.retrieve_by_vector``); MMR re-ranks the ``fetch_k`` best with
    the precedents' stored vectors (``memory.vectors``): nothing stored is ever embedded again,
    and a text query is embedded once. Searches take ``key_prefix`` (``"doc"``: documents only);
    facts written through the memory or its tools are found too.

    Deliberate differences from what LangChain's ``VectorStoreIntegrationTests`` expect (every
    standard test passes; these are where TEPA goes further):

    1. **Delete keeps an audit record.** ``delete(ids)`` revokes every live content of each id
       (reason ``"deleted through the vector store"``): gone from searches and ``get_by_ids``,
       kept in ``memory.audit("doc.<id>")``; adding it again revives it. ``delete()`` without
       ids is refused (it would revoke the whole namespace).
    2. **Contents of one id conflict** (``update="evidence"``, the default). New content under
       an existing id is evidence against the old content, not an overwrite: under the default
       policy both stay Active until the new content is added again, which revokes the old.
       Searches answer with the better supported content of the id (the new one, after one
       update), its metadata marking the id ``contested``; ``get_by_ids`` returns both, best
       first. ``update="replace"`` revokes the old content at once (reason ``"replaced: added
       again under the same id"``) as other vector stores overwrite; the old content stays in
       the audit.
    3. **Adding the same document again is support**, not a no-op: searches are unchanged, but
       its support and the evidence log grow.
    4. **The lifecycle policy decides what is searchable.** Under the default ``tepa-key`` (as
       under ``tepa-rev``) a new document is Active at once; under ``tepa-full`` it waits for a
       trial; evidence (conflicting contents, failed outcomes) can revoke a document, not only
       ``delete``.
    5. **Fact documents collapse**: documents asserting one fact are one result (one precedent),
       and their extra metadata stays in the evidence instead of coming back.

    Args:
        memory: The memory to read and write.
        namespace: Scope of every call (a dotted string or a LangGraph-style tuple); ``None``
            uses the memory's namespace.
        update: ``"evidence"`` (default) or ``"replace"`` (difference 2).
        key_field: Metadata entry that makes a document a fact (``None``: never).
        value_field: Metadata entry holding a fact's value.
        source: Recorded as the ``source`` of the evidence this store writes.
        lifecycle_key: When set (for example ``"tepa"``), returned documents carry the
            precedent's key, state, support, conflict, validity, lower_95 and namespace under
            this metadata entry. Off by default, so metadata round-trips exactly.

    Raises:
        InvalidArgumentError: For a bad memory, namespace, update mode or field name.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> store = TEPAVectorStore(memory=TEPAMemory.in_memory(), lifecycle_key="tepa")
        >>> ids = store.add_texts(["The user is vegan"], [{"key": "user.diet", "value": "vegan"}])
        >>> doc = store.similarity_search("what does the user eat?", k=1)[0]
        >>> doc.metadata["value"], doc.metadata["tepa"]["state"]
        ('vegan', 'active')
        >>> store.as_retriever(search_kwargs={"k": 1}).invoke("user diet")[0].page_content
        'The user is vegan'
    """

    def __init__(
        self,
        memory: TEPAMemory,
        *,
        namespace: str | Sequence[str] | None = None,
        update: Literal["evidence", "replace"] = "evidence",
        key_field: str | None = "key",
        value_field: str = "value",
        source: str = "vectorstore",
        lifecycle_key: str | None = None,
        claims: bool = True,
    ) -> None:
        if not isinstance(memory, TEPAMemory):
            raise InvalidArgumentError(
                f"memory must be a TEPAMemory, got {type(memory).__name__}; "
                "for example TEPAVectorStore(memory=TEPAMemory.in_memory())"
            )
        if update not in ("evidence", "replace"):
            raise InvalidArgumentError(
                f"update must be 'evidence' or 'replace', got {safe_repr(update)}"
            )
        for name, field in (("key_field", key_field), ("lifecycle_key", lifecycle_key)):
            if field is not None and (not isinstance(field, str) or not field):
                raise InvalidArgumentError(f"{name} must be a non-empty string or None")
        if not isinstance(value_field, str) or not value_field or value_field == key_field:
            raise InvalidArgumentError("value_field must be a non-empty string, not key_field")
        if source is None:  # the application writes with None; an adapter names itself
            raise InvalidSourceError("source must be a source name such as 'agent', got None")
        validate_source(source)  # visible text, no control or bidirectional characters
        if namespace is not None and not isinstance(namespace, str):
            namespace = validate_namespace(namespace)  # labels checked: a typed error
        if not isinstance(claims, bool):
            raise InvalidArgumentError(f"claims must be True or False, got {safe_repr(claims)}")
        self.memory = memory
        self.claims: ItemClaims | None = ItemClaims(memory) if claims else None
        """Links documents to the claims their text makes (``None`` with ``claims=False``)."""
        self.namespace: str = (
            memory.namespace if namespace is None else validate_namespace(namespace)
        )
        self.update = update
        self.source = source
        self._mapping = DocumentMapping(
            namespace=self.namespace,
            key_field=key_field,
            value_field=value_field,
            source=source,
            lifecycle_key=lifecycle_key,
            normalize_values=memory.policy.normalize_values,
        )

    @property
    def embeddings(self) -> Embeddings:
        """The memory's embeddings (they embed documents and queries)."""
        return self.memory.embeddings

    def __repr__(self) -> str:
        return f"TEPAVectorStore(namespace={self.namespace!r}, update={self.update!r})"

    def _targets(self) -> dict[str, Any]:
        return {"memory": self.memory, "embeddings": self.memory.embeddings, "claims": self.claims}

    def _drive(self, plan: Plan[T]) -> T:
        return drive(plan, self._targets())

    async def _adrive(self, plan: Plan[T]) -> T:
        return await adrive(plan, self._targets())

    def _claims_plan(self, items: list[ItemText]) -> Plan[ClaimPlan | None]:
        """The claims of documents added or deleted (``None``: claims are off)."""
        if self.claims is None or not items:
            return None
        planned: ClaimPlan = yield ("claims", "plan", (items,), {})
        return planned

    def _settle(self, planned: ClaimPlan | None) -> Plan[None]:
        if planned is not None:
            yield ("claims", "settle", (planned,), {"source": self.source})

    # ------------------------------------------------------------------ adding
    def _add_plan(self, documents: list[Document], ids: list[Any]) -> Plan[list[str]]:
        planned = [
            self._mapping.observation(doc, given, i)
            for i, (doc, given) in enumerate(zip(documents, ids, strict=True))
        ]
        if not planned:
            return []
        facts = [fact for fact, _ in planned]
        documents_of = [
            ItemText(self.namespace, f.key, f.value, f.text, self.source)
            for f in facts
            if is_document(f.key, f.value)
        ]
        claims = yield from self._claims_plan(documents_of)
        writes: list[Fact] = facts
        if claims is not None:
            writes = [
                dataclasses.replace(f, metadata={**(f.metadata or {}), **extra})
                if (extra := claims.metadata.get((self.namespace, f.key)))
                else f
                for f in facts
            ]
            writes += claims.facts
        results = yield ("memory", "write_many", (writes,), {})
        results = results[: len(facts)]
        yield from self._settle(claims)
        if self.update == "replace":
            keep: dict[str, str] = {}  # doc key -> the precedent added last under it
            for fact, result in zip(facts, results, strict=True):
                if is_document(fact.key, fact.value) and result.precedent is not None:
                    keep[fact.key] = result.precedent.id
            for key, pid in keep.items():
                audit = yield ("memory", "audit", (key,), {"namespace": self.namespace})
                stale = [
                    p for p in audit.precedents if p.id != pid and p.state is not Lifecycle.REVOKED
                ]
                for p in stale:
                    yield from self._revoke(key, p.value, _REPLACED)
        return [doc_id for _, doc_id in planned]

    def _revoke(self, key: str, value: Any, reason: str) -> Plan[None]:
        kwargs = {"reason": reason, "namespace": self.namespace, "source": self.source}
        with contextlib.suppress(UnknownPrecedentError):  # gone meanwhile: nothing to revoke
            yield ("memory", "revoke", (key, value), kwargs)

    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        """Observe ``documents``; returns their ids in order (see the class docstring).

        Args:
            documents: The documents.
            **kwargs: ``ids``: one id per document, taking precedence over ``Document.id``.

        Raises:
            InvalidArgumentError: For a bad document, id or metadata; nothing is stored then.
        """
        docs, ids = documents_with_ids(documents, kwargs)
        return self._drive(self._add_plan(docs, ids))

    async def aadd_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        """Async twin of :meth:`add_documents`."""
        docs, ids = documents_with_ids(documents, kwargs)
        return await self._adrive(self._add_plan(docs, ids))

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Observe ``texts`` with their metadata and ids; returns their ids in order."""
        if ids is not None:
            kwargs["ids"] = ids
        return self.add_documents(documents_of_texts(texts, metadatas, ids), **kwargs)

    async def aadd_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Async twin of :meth:`add_texts`."""
        if ids is not None:
            kwargs["ids"] = ids
        return await self.aadd_documents(documents_of_texts(texts, metadatas, ids), **kwargs)

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings,
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> TEPAVectorStore:
        """A store over a new (or the given) memory, with ``texts`` added.

        Args:
            texts: Texts to add.
            embedding: The embeddings; with ``memory=`` it must be that memory's embeddings.
            metadatas: One metadata dict per text.
            ids: One id per text.
            **kwargs: ``memory`` (a :class:`TEPAMemory`), or ``path`` (a folder, opened with
                ``TEPAMemory.from_path``) and ``policy`` for a new memory (in-process without
                ``path``); the other arguments of :class:`TEPAVectorStore`.

        Example:
            >>> from langchain_tepa import HashingEmbeddings
            >>> store = TEPAVectorStore.from_texts(["Paris is in France"], HashingEmbeddings())
            >>> store.similarity_search("France", k=1)[0].page_content
            'Paris is in France'
        """
        memory = kwargs.pop("memory", None)
        path = kwargs.pop("path", None)
        policy = kwargs.pop("policy", None)
        if memory is not None:
            if path is not None or policy is not None:
                raise InvalidArgumentError("pass memory, or path and policy for a new memory")
            if isinstance(memory, TEPAMemory) and memory.embeddings is not embedding:
                raise InvalidArgumentError(
                    "embedding is not the memory's embeddings; pass memory.embeddings"
                )
        elif path is not None:
            memory = TEPAMemory.from_path(path, embeddings=embedding, policy=policy)
        else:
            memory = TEPAMemory.in_memory(embeddings=embedding, policy=policy)
        store = cls(memory, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    # ------------------------------------------------------------------ deleting, by id
    def _lookup_plan(self, doc_id: str, *, live: bool) -> Plan[list[Precedent]]:
        """The precedents an id names: Active ones, or all not Revoked (``live=True``)."""
        wanted = (Lifecycle.ACTIVE, Lifecycle.HYPOTHESIS) if live else (Lifecycle.ACTIVE,)
        found: list[Precedent] = []
        ns = {"namespace": self.namespace}
        if valid_doc_id(doc_id):
            audit = yield ("memory", "audit", (doc_key(doc_id),), ns)
            found = [p for p in audit.active + audit.precedents if is_document(p.key, p.value)]
        fact = None if found else self._mapping.fact_of_id(doc_id)
        if fact is not None:
            audit = yield ("memory", "audit", (fact[0],), ns)
            found = [
                p for p in audit.precedents if p.id == fact[1] and not is_document(p.key, p.value)
            ]
        unique = {p.id: p for p in found if p.state in wanted}
        return list(unique.values())

    def _get_plan(self, ids: Sequence[str]) -> Plan[list[Document]]:
        docs: list[Document] = []
        for doc_id in id_list(ids):
            precedents = yield from self._lookup_plan(doc_id, live=False)
            docs.extend(self._mapping.to_document(Hit.of_precedent(p)) for p in precedents)
        return docs

    def _delete_plan(self, ids: list[str] | None) -> Plan[bool]:
        if ids is None:
            raise InvalidArgumentError(
                "delete() needs the ids to delete; it does not revoke a whole namespace"
            )
        for doc_id in id_list(ids):
            precedents = yield from self._lookup_plan(doc_id, live=True)
            gone = [ItemText(self.namespace, p.key, None, None, self.source) for p in precedents]
            claims = yield from self._claims_plan(gone[:1])
            for p in precedents:
                yield from self._revoke(p.key, p.value, _DELETED)
            yield from self._settle(claims)
        return True

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The Active documents under ``ids`` (missing ids are skipped; best content first)."""
        return self._drive(self._get_plan(ids))

    async def aget_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """Async twin of :meth:`get_by_ids`."""
        return await self._adrive(self._get_plan(ids))

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Revoke the documents under ``ids`` (kept for audit); missing ids are skipped.

        Raises:
            InvalidArgumentError: Without ids, or for ids that are not strings.
        """
        if kwargs:
            raise InvalidArgumentError(f"unknown arguments {sorted(kwargs)}; delete takes ids")
        return self._drive(self._delete_plan(ids))

    async def adelete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Async twin of :meth:`delete`."""
        if kwargs:
            raise InvalidArgumentError(f"unknown arguments {sorted(kwargs)}; delete takes ids")
        return await self._adrive(self._delete_plan(ids))

    def rejudge(self) -> int:
        """Judge again the documents whose judge call failed (the memory's ``judge=``).

        Returns:
            How many documents were judged now (see :meth:`TEPAStore.rejudge
            <langchain_tepa.store.TEPAStore.rejudge>`).
        """
        return ItemClaims(self.memory).rejudge(self.namespace)

    async def arejudge(self) -> int:
        """Async twin of :meth:`rejudge`."""
        return await ItemClaims(self.memory).arejudge(self.namespace)

    # ------------------------------------------------------------------ searching
    def _search_plan(
        self, query: str, k: int, kwargs: dict[str, Any]
    ) -> Plan[list[tuple[Hit, float]]]:
        prefix, k = search_prefix(kwargs), validate_k(k)
        if search_filter(kwargs) is not None:
            embedding = yield ("embeddings", "embed_query", (query_text(query),), {})
            return (yield from self._by_vector_plan(embedding, k, kwargs))
        docs = yield (
            "memory",
            "retrieve",
            (query, k),
            {"namespace": self.namespace, "key_prefix": prefix},
        )
        found = [(hit, float(hit.score)) for hit in map(Hit.of_document, docs)]
        return (yield from self._newer_first(found, query, prefix))

    def _by_vector_plan(
        self, embedding: object, k: int, kwargs: dict[str, Any]
    ) -> Plan[list[tuple[Hit, float]]]:
        k, prefix, vector = validate_k(k), search_prefix(kwargs), query_vector(embedding)
        # Cosine ignores length; scaled by its largest component first, a vector whose squared
        # length overflows (components near 1e200) keeps its direction instead of becoming 0.
        vector = unit_rows(vector)[0]
        flt = search_filter(kwargs)
        if flt is not None:
            return (yield from self._filtered_plan(vector.tolist(), k, prefix, flt))
        docs = yield (
            "memory",
            "retrieve_by_vector",
            (vector.tolist(), k),
            {"namespace": self.namespace, "key_prefix": prefix},
        )
        found = [(hit, float(hit.score)) for hit in map(Hit.of_document, docs)]
        return (yield from self._newer_first(found, vector.tolist(), prefix))

    def _newer_first(
        self, found: list[tuple[Hit, float]], query: str | list[float], prefix: str | None
    ) -> Plan[list[tuple[Hit, float]]]:
        """A newer document ranks where the document it (may) supersede would (issue 37).

        A document whose free-text claims a newer document contradicts without saying so
        explicitly is served with ``possibly_superseded_by`` in its metadata, and each newer
        document it names ranks just above it; a document that replaced one explicitly (which
        is hidden) ranks at least where that one would. A newer document joins the results
        when it was not among them; nothing else moves, and every score shown is the
        document's own.
        """
        if self.claims is None or not found:
            return found
        rows = yield ("memory", "answer_rows", (), {"namespace": claims_namespace(self.namespace)})
        marks, hidden = read_marks(rows), read_marks(rows, hidden=True)
        floor: dict[str, float] = {}  # newer document key -> the score it ranks at least at
        for hit, score in found:
            for entry in marks.get(hit.key, ()):
                key = str(entry.get("item"))
                floor[key] = max(floor.get(key, -math.inf), float(math.nextafter(score, math.inf)))
        if hidden:
            gone = yield (
                "memory",
                "similarity",
                (query, list(hidden)),
                {"namespace": self.namespace},
            )
            for pid, score in gone.items():
                for entry in hidden[pid]:
                    key = str(entry.get("item"))
                    floor[key] = max(floor.get(key, -math.inf), float(score))
        if not floor:
            return found
        out = {hit.key: (hit, score) for hit, score in found}
        for key in floor:
            if key in out or (prefix is not None and not (key + ".").startswith(prefix + ".")):
                continue
            newer = yield ("memory", "answer", (key,), {"namespace": self.namespace})
            if newer is not None:
                got = yield (
                    "memory",
                    "similarity",
                    (query, [newer.id]),
                    {"namespace": self.namespace},
                )
                score = float(got.get(newer.id, 0.0))
                out[key] = (dataclasses.replace(Hit.of_precedent(newer), score=score), score)
        ranked = sorted(out.values(), key=lambda hs: -max(hs[1], floor.get(hs[0].key, -math.inf)))
        return [
            (dataclasses.replace(hit, superseded_by=tuple(marks[hit.key])), score)
            if hit.key in marks
            else (hit, score)
            for hit, score in ranked[: len(found)]
        ]

    def _filtered_plan(
        self, vector: list[float], k: int, prefix: str | None, flt: Mapping[str, Any]
    ) -> Plan[list[tuple[Hit, float]]]:
        """The ``k`` answers whose returned metadata matches ``flt``, most similar first.

        Every answer of the namespace (under ``prefix``) is matched, then the matching ones are
        ranked by their stored vectors: exact at any size, one pass over the namespace's
        answers (:mod:`langchain_tepa.metadata_filter`).
        """
        docs = yield (
            "memory",
            "active_documents",
            (),
            {"namespace": self.namespace, "key_prefix": prefix},
        )
        hits: dict[str, Hit] = {}
        keys: set[str] = set()
        multi = self.memory.policy.is_multi_valued
        for hit in map(Hit.of_document, docs):  # by key, each key's answer first
            if hit.key in keys and not multi(hit.key):
                continue
            keys.add(hit.key)
            if matches(self._mapping.to_document(hit).metadata, flt):
                hits[hit.precedent_id] = hit
        if not hits:
            return []
        scores = yield ("memory", "similarity", (vector, list(hits)), {"namespace": self.namespace})
        ranked = sorted(
            ((hit, float(scores[pid])) for pid, hit in hits.items() if pid in scores),
            key=lambda r: -r[1],
        )
        return [(dataclasses.replace(hit, score=score), score) for hit, score in ranked[:k]]

    def _mmr_plan(
        self,
        query: str | None,
        embedding: object,
        sizes: tuple[int, int, float],
        kwargs: dict[str, Any],
    ) -> Plan[list[tuple[Hit, float]]]:
        k, fetch_k, lambda_mult = validate_k(sizes[0]), validate_k(sizes[1]), sizes[2]
        if isinstance(lambda_mult, bool) or not isinstance(lambda_mult, int | float):
            raise InvalidArgumentError(
                f"lambda_mult must be a number, got {safe_repr(lambda_mult)}"
            )
        if not (0.0 <= lambda_mult <= 1.0 and math.isfinite(lambda_mult)):  # a huge int too
            raise InvalidArgumentError(
                f"lambda_mult must be from 0 to 1, got {safe_repr(lambda_mult)}"
            )
        if query is not None:
            search_prefix(kwargs)  # refuse unknown options before embedding anything
            embedding = yield ("embeddings", "embed_query", (query_text(query),), {})
        found = yield from self._by_vector_plan(embedding, fetch_k, kwargs)
        if not found:
            return []
        # The candidates' stored vectors (never embedded again); one namespace read.
        ids = [hit.precedent_id for hit, _ in found]
        stored = yield ("memory", "vectors", (ids,), {"namespace": self.namespace})
        found = [(hit, score) for hit, score in found if hit.precedent_id in stored]
        if not found:
            return []
        rows = [stored[hit.precedent_id] for hit, _ in found]
        chosen = mmr_order(query_vector(embedding), rows, k, float(lambda_mult))
        return [found[i] for i in chosen]

    def _documents_of(self, found: list[tuple[Hit, float]]) -> list[Document]:
        return [self._mapping.to_document(hit) for hit, _ in found]

    def _scored(self, found: list[tuple[Hit, float]]) -> list[tuple[Document, float]]:
        return [(self._mapping.to_document(hit), score) for hit, score in found]

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """The ``k`` Active documents most similar to ``query``.

        Args:
            query: The query text.
            k: How many (1 to 1000).
            **kwargs: ``key_prefix``: only keys equal to it or below it (``"doc"``: documents);
                ``filter``: only documents whose metadata matches it (Chroma's and LangChain's
                filters: equality, ``$eq $ne $gt $gte $lt $lte $in $nin``, ``$and``, ``$or``;
                :mod:`langchain_tepa.metadata_filter`).
        """
        return self._documents_of(self._drive(self._search_plan(query, k, kwargs)))

    async def asimilarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """Async twin of :meth:`similarity_search`."""
        return self._documents_of(await self._adrive(self._search_plan(query, k, kwargs)))

    def similarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """Like :meth:`similarity_search`, with each document's cosine similarity."""
        return self._scored(self._drive(self._search_plan(query, k, kwargs)))

    async def asimilarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """Async twin of :meth:`similarity_search_with_score`."""
        return self._scored(await self._adrive(self._search_plan(query, k, kwargs)))

    def _select_relevance_score_fn(self) -> Callable[[float], float]:
        return lambda similarity: min(1.0, max(0.0, similarity))

    def similarity_search_by_vector(
        self, embedding: list[float], k: int = 4, **kwargs: Any
    ) -> list[Document]:
        """The ``k`` Active documents most similar to ``embedding`` (ranked in process)."""
        return self._documents_of(self._drive(self._by_vector_plan(embedding, k, kwargs)))

    async def asimilarity_search_by_vector(
        self, embedding: list[float], k: int = 4, **kwargs: Any
    ) -> list[Document]:
        """Async twin of :meth:`similarity_search_by_vector`."""
        return self._documents_of(await self._adrive(self._by_vector_plan(embedding, k, kwargs)))

    def similarity_search_with_score_by_vector(
        self, embedding: list[float], k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """Like :meth:`similarity_search_by_vector`, with each cosine similarity."""
        return self._scored(self._drive(self._by_vector_plan(embedding, k, kwargs)))

    def max_marginal_relevance_search(
        self,
        query: str,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        **kwargs: Any,
    ) -> list[Document]:
        """``k`` documents picked by MMR among the ``fetch_k`` Active ones most similar."""
        plan = self._mmr_plan(query, None, (k, fetch_k, lambda_mult), kwargs)
        return self._documents_of(self._drive(plan))

    async def amax_marginal_relevance_search(
        self,
        query: str,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        **kwargs: Any,
    ) -> list[Document]:
        """Async twin of :meth:`max_marginal_relevance_search`."""
        plan = self._mmr_plan(query, None, (k, fetch_k, lambda_mult), kwargs)
        return self._documents_of(await self._adrive(plan))

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: list[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        **kwargs: Any,
    ) -> list[Document]:
        """Like :meth:`max_marginal_relevance_search`, from a query vector."""
        plan = self._mmr_plan(None, embedding, (k, fetch_k, lambda_mult), kwargs)
        return self._documents_of(self._drive(plan))

    async def amax_marginal_relevance_search_by_vector(
        self,
        embedding: list[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        **kwargs: Any,
    ) -> list[Document]:
        """Async twin of :meth:`max_marginal_relevance_search_by_vector`."""
        plan = self._mmr_plan(None, embedding, (k, fetch_k, lambda_mult), kwargs)
        return self._documents_of(await self._adrive(plan))
