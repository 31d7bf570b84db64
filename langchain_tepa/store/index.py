"""The ``IndexConfig`` of a :class:`~langchain_tepa.store.TEPAStore`: checked once, then settings.

LangGraph's ``IndexConfig`` (``embed``, ``dims``, ``fields``) plus what ``PostgresStore`` and
``SqliteStore`` add (``distance_type``, ``text_fields``, ``ann_index_config``) is validated
here, at construction, with errors that say how to fix it. The vectors of one configuration
(its fields and dims) live in one named vector space of the memory, so a store reopened with the
same configuration finds the vectors it stored, and one with another configuration does not mix
them.

Example:
    >>> from langchain_tepa import HashingEmbeddings, TEPAMemory
    >>> settings = configure_index({"embed": HashingEmbeddings(), "text_fields": ["text"]},
    ...                            TEPAMemory.in_memory())
    >>> settings.fields, settings.dims, settings.distance
    (['text'], None, 'cosine')
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from langchain_core.embeddings import Embeddings
from langgraph.store.base import IndexConfig, ensure_embeddings

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import safe_repr, short_hash
from langchain_tepa.memory import TEPAMemory, VectorSpace
from langchain_tepa.store.planning import check_count

__all__ = ["DISTANCES", "Distance", "IndexSettings", "configure_index"]

DISTANCES = ("cosine", "inner_product", "l2")
Distance = Literal["cosine", "inner_product", "l2"]
_KEYS = {"embed", "fields", "text_fields", "dims", "distance_type", "ann_index_config"}


@dataclass(frozen=True)
class IndexSettings:
    """A checked ``IndexConfig`` and what the store needs of it.

    Attributes:
        config: The configuration as the store reports it (``store.index_config``).
        embeddings: The ``embed`` of the configuration, as ``Embeddings``.
        fields: The JSON paths whose text is embedded.
        dims: The vector size the embeddings must return (``None``: not checked).
        distance: How a query scores a vector (higher is better).
        space: The memory's vector space holding this configuration's vectors.
    """

    config: IndexConfig
    embeddings: Embeddings
    fields: list[str]
    dims: int | None
    distance: Distance
    space: VectorSpace


def configure_index(index: IndexConfig, memory: TEPAMemory) -> IndexSettings:
    """Check ``index`` and name the vector space of ``memory`` its vectors go to.

    Args:
        index: LangGraph's ``IndexConfig`` (``embed`` required; ``fields`` or SqliteStore's
            ``text_fields``, ``dims``, ``distance_type``, ``ann_index_config`` optional).
        memory: The store's memory.

    Returns:
        The settings (``fields`` default ``["$"]``, ``distance`` default ``"cosine"``).

    Raises:
        InvalidArgumentError: For a missing ``embed``, an unknown key, an unsupported
            ``distance_type``, conflicting ``fields`` and ``text_fields``, or invalid
            ``fields`` or ``dims``.
    """
    if not isinstance(index, Mapping) or index.get("embed") is None:
        raise InvalidArgumentError(
            "index must be an IndexConfig dict with 'embed' (and optionally 'dims' and "
            "'fields'), e.g. {'dims': 384, 'embed': HashingEmbeddings()}"
        )
    unknown = set(index) - _KEYS
    if unknown:
        raise InvalidArgumentError(f"unknown IndexConfig keys {sorted(unknown)}")
    distance = index.get("distance_type", "cosine")
    if distance not in DISTANCES:
        raise InvalidArgumentError(
            f"distance_type {safe_repr(distance)} is not supported: use one of {list(DISTANCES)} "
            "(as PostgresStore: 'cosine' scores the cosine similarity, 'inner_product' the "
            "dot product, 'l2' the negated Euclidean distance; higher is better)"
        )
    given: Mapping[str, Any] = index
    fields = given.get("fields")
    alias = given.get("text_fields")  # SqliteStore's name for "fields"
    if fields is not None and alias is not None and fields != alias:
        raise InvalidArgumentError(
            "index has both 'fields' and 'text_fields' (SqliteStore's name for 'fields'), "
            "with different paths: give one of them"
        )
    fields = fields or alias or ["$"]
    if not isinstance(fields, list | tuple) or not all(isinstance(f, str) and f for f in fields):
        raise InvalidArgumentError("index['fields'] must be a list of JSON paths")
    dims = index.get("dims")
    if dims is not None:
        dims = check_count(dims, "index['dims']", minimum=1)
    config: IndexConfig = {"embed": index["embed"], "fields": list(fields)}
    if dims is not None:
        config["dims"] = dims
    config["distance_type"] = distance  # type: ignore[typeddict-unknown-key]
    if "text_fields" in index:  # SqliteStore's key, kept as given (as SqliteStore keeps it)
        config["text_fields"] = alias  # type: ignore[typeddict-unknown-key]
    if "ann_index_config" in index:
        config["ann_index_config"] = given["ann_index_config"]  # type: ignore[typeddict-unknown-key]
    embeddings = ensure_embeddings(index["embed"])
    # Vectors of one configuration live in one named space of the memory.
    ident = json.dumps({"fields": list(fields), "dims": dims}, sort_keys=True)
    return IndexSettings(
        config=config,
        embeddings=embeddings,
        fields=list(fields),
        dims=dims,
        distance=cast(Distance, distance),
        space=memory.vector_space("ix" + short_hash(ident, 12)),
    )
