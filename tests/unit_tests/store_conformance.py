"""A conformance suite for LangGraph stores (LangGraph ships none).

Subclass :class:`StoreConformance`, implement ``make_store(index=None)`` (a store factory; an
``IndexConfig`` is passed when a test needs semantic search) and optionally ``close_store``.
``InMemoryStore`` is the reference. A store with TEPA semantics sets ``tepa = True``: the tests
decorated with :func:`differs` then assert TEPA's documented behaviour instead of the
reference's (the reason is the decorator's argument and is listed in ``DIFFERENCES``);
every other test asserts the same behaviour for both.

Example (an integration test against a Chroma server)::

    class TestTEPAStoreOnServer(StoreConformance):
        tepa = True

        def make_store(self, index=None):
            return TEPAStore.from_client(http_client, prefix=unique(), index=index,
                                         embeddings=HashingEmbeddings())
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

import pytest
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchItem,
    SearchOp,
    get_text_at_path,
)

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, InvalidKeyError
from langchain_tepa import InvalidValueError as TEPAInvalidValueError

__all__ = ["DIFFERENCES", "EMBED", "StoreConformance", "differs", "index_config"]

F = TypeVar("F", bound=Callable[..., Any])

DIFFERENCES: dict[str, str] = {}
"""Test name -> why TEPAStore deliberately differs from InMemoryStore there."""

EMBED = HashingEmbeddings()


def differs(reason: str) -> Callable[[F], F]:
    """Mark a test whose TEPA expectation deliberately differs from ``InMemoryStore``."""

    def mark(fn: F) -> F:
        DIFFERENCES[fn.__name__] = reason
        fn.differs = reason  # type: ignore[attr-defined]
        return fn

    return mark


def index_config(fields: list[str] | None = None, embed: Any = None) -> IndexConfig:
    config: IndexConfig = {"dims": 384, "embed": embed if embed is not None else EMBED}
    if fields is not None:
        config["fields"] = fields
    return config


def expected_score(query: str, value: dict[str, Any], paths: Sequence[str]) -> float:
    """Cosine of the query and the best-matching text at ``paths`` (max pooling)."""
    q = EMBED.embed_query(query)
    best = -math.inf
    for path in paths:
        for text in get_text_at_path(value, path):
            v = EMBED.embed_query(text)
            dot = sum(a * b for a, b in zip(q, v, strict=True))
            norm = math.sqrt(sum(a * a for a in q)) * math.sqrt(sum(b * b for b in v))
            best = max(best, dot / norm if norm else 0.0)
    return best


def keys(items: Sequence[Item]) -> list[str]:
    return [i.key for i in items]


class StoreConformance:
    """The suite. Subclasses provide ``make_store``; ``tepa`` selects TEPA expectations."""

    tepa: bool = False

    def make_store(self, index: IndexConfig | None = None) -> BaseStore:
        raise NotImplementedError

    def close_store(self, store: BaseStore) -> None:
        """Release a store made by ``make_store`` (default: nothing)."""

    # ------------------------------------------------------------------ fixtures
    @pytest.fixture(autouse=True)
    def _stores(self) -> Iterator[None]:
        self._made: list[BaseStore] = []
        yield
        for s in self._made:
            self.close_store(s)

    def new(self, index: IndexConfig | None = None) -> BaseStore:
        store = self.make_store(index)
        self._made.append(store)
        return store

    @pytest.fixture
    def store(self) -> BaseStore:
        return self.new()

    # ------------------------------------------------------------------ get / put / delete
    def test_get_missing_is_none(self, store: BaseStore) -> None:
        assert store.get(("nobody",), "nothing") is None

    def test_put_then_get(self, store: BaseStore) -> None:
        ns = ("users", "u1")
        assert store.put(ns, "prefs", {"theme": "dark", "size": 3}) is None
        item = store.get(ns, "prefs")
        assert isinstance(item, Item)
        assert item.namespace == ns
        assert item.key == "prefs"
        assert item.value == {"theme": "dark", "size": 3}
        assert isinstance(item.created_at, datetime)
        assert isinstance(item.updated_at, datetime)
        assert item.created_at.tzinfo is not None
        assert item.created_at <= item.updated_at

    def test_nested_json_values_round_trip(self, store: BaseStore) -> None:
        value = {
            "text": "héllo ✓",
            "n": 1.5,
            "ok": True,
            "none": None,
            "nested": {"list": [1, "two", {"three": 3}], "empty": {}},
        }
        store.put(("docs",), "d", value)
        item = store.get(("docs",), "d")
        assert item is not None
        assert item.value == value

    def test_empty_value_is_an_item(self, store: BaseStore) -> None:
        store.put(("docs",), "empty", {})
        item = store.get(("docs",), "empty")
        assert item is not None
        assert item.value == {}

    def test_keys_are_exact(self, store: BaseStore) -> None:
        store.put(("docs",), "a", {"v": 1})
        store.put(("docs",), "a.b", {"v": 2})
        store.put(("docs",), "ключ", {"v": 3})
        assert store.get(("docs",), "a").value == {"v": 1}
        assert store.get(("docs",), "a.b").value == {"v": 2}
        assert store.get(("docs",), "ключ").value == {"v": 3}
        assert store.get(("docs",), "A") is None

    def test_new_value_replaces_visible_value(self, store: BaseStore) -> None:
        ns = ("users", "u1")
        store.put(ns, "pizza", {"topping": "pineapple"})
        first = store.get(ns, "pizza")
        store.put(ns, "pizza", {"topping": "mushroom"})
        item = store.get(ns, "pizza")
        assert item is not None and first is not None
        assert item.value == {"topping": "mushroom"}
        assert item.updated_at >= first.updated_at

    def test_latest_of_three_values_visible_once(self, store: BaseStore) -> None:
        ns = ("users", "u1")
        for topping in ("pineapple", "mushroom", "olive"):
            store.put(ns, "pizza", {"topping": topping})
        assert store.get(ns, "pizza").value == {"topping": "olive"}
        found = store.search(ns)
        assert [(i.key, i.value) for i in found] == [("pizza", {"topping": "olive"})]

    def test_earlier_value_put_again_is_visible(self, store: BaseStore) -> None:
        ns = ("users", "u1")
        store.put(ns, "pizza", {"topping": "pineapple"})
        store.put(ns, "pizza", {"topping": "mushroom"})
        store.put(ns, "pizza", {"topping": "pineapple"})
        assert store.get(ns, "pizza").value == {"topping": "pineapple"}

    def test_alternating_values_follow_the_last_put(self, store: BaseStore) -> None:
        ns = ("users", "u1")
        for topping in ("a", "b", "a", "b"):
            store.put(ns, "pizza", {"topping": topping})
        assert store.get(ns, "pizza").value == {"topping": "b"}

    def test_delete(self, store: BaseStore) -> None:
        ns = ("users", "u1")
        store.put(ns, "pizza", {"topping": "pineapple"})
        store.put(ns, "other", {"x": 1})
        assert store.delete(ns, "pizza") is None
        assert store.get(ns, "pizza") is None
        assert keys(store.search(ns)) == ["other"]

    def test_delete_missing_is_a_no_op(self, store: BaseStore) -> None:
        store.delete(("nobody",), "nothing")
        assert store.get(("nobody",), "nothing") is None

    def test_delete_after_several_values(self, store: BaseStore) -> None:
        ns = ("users", "u1")
        for topping in ("a", "b", "c"):
            store.put(ns, "pizza", {"topping": topping})
        store.delete(ns, "pizza")
        assert store.get(ns, "pizza") is None
        assert store.search(ns) == []

    def test_put_after_delete(self, store: BaseStore) -> None:
        ns = ("users", "u1")
        store.put(ns, "pizza", {"topping": "pineapple"})
        store.delete(ns, "pizza")
        store.put(ns, "pizza", {"topping": "pineapple"})
        assert store.get(ns, "pizza").value == {"topping": "pineapple"}
        store.delete(ns, "pizza")
        store.put(ns, "pizza", {"topping": "mushroom"})
        assert store.get(ns, "pizza").value == {"topping": "mushroom"}

    def test_namespaces_are_isolated(self, store: BaseStore) -> None:
        store.put(("users", "u1"), "pizza", {"topping": "a"})
        store.put(("users", "u2"), "pizza", {"topping": "b"})
        store.put(("users",), "pizza", {"topping": "c"})
        store.put(("users", "u1", "x"), "pizza", {"topping": "d"})
        assert store.get(("users", "u1"), "pizza").value == {"topping": "a"}
        assert store.get(("users", "u2"), "pizza").value == {"topping": "b"}
        assert store.get(("users",), "pizza").value == {"topping": "c"}
        assert store.get(("users", "u1", "x"), "pizza").value == {"topping": "d"}
        store.delete(("users", "u1"), "pizza")
        assert store.get(("users", "u2"), "pizza").value == {"topping": "b"}
        assert store.get(("users", "u1", "x"), "pizza").value == {"topping": "d"}

    def test_non_dict_value_is_rejected(self, store: BaseStore) -> None:
        with pytest.raises(ValueError):
            store.put(("docs",), "d", "not a dict")  # type: ignore[arg-type]

    @differs(
        "InMemoryStore does not support TTL (NotImplementedError); TEPAStore does, as "
        "LangGraph's SQL stores do, and revokes an expired item (reason 'expired') instead of "
        "deleting it"
    )
    def test_ttl(self, store: BaseStore) -> None:
        if not self.tepa:
            with pytest.raises(NotImplementedError):
                store.put(("docs",), "d", {"v": 1}, ttl=5.0)
            assert store.get(("docs",), "d") is None
            return
        import time

        # Two seconds: the three puts and the get below must fit in it (the first put of a
        # process through a server, on a loaded 2-core machine, took 0.5-0.6 s).
        store.put(("docs",), "short", {"v": 1}, ttl=2.0 / 60)
        store.put(("docs",), "long", {"v": 2}, ttl=60.0)
        store.put(("docs",), "forever", {"v": 3})
        assert store.get(("docs",), "short").value == {"v": 1}
        time.sleep(2.2)
        assert store.get(("docs",), "short") is None
        assert sorted(keys(store.search(("docs",)))) == ["forever", "long"]
        audit = store.audit(("docs",), "short")  # type: ignore[attr-defined]
        assert audit.precedents[0].revocation.reason == "expired"
        with pytest.raises(ValueError, match="ttl"):
            store.put(("docs",), "bad", {"v": 1}, ttl=-1.0)

    # ------------------------------------------------------------------ search
    def _people(self, store: BaseStore) -> None:
        ns = ("people",)
        store.put(ns, "ann", {"name": "ann", "age": 31, "city": "Oslo", "tags": ["a", "b"]})
        store.put(ns, "bob", {"name": "bob", "age": 25, "city": "Rome", "meta": {"vip": True}})
        store.put(ns, "cat", {"name": "cat", "age": 40, "city": "Oslo", "meta": {"vip": False}})
        store.put(ns, "dan", {"name": "dan", "age": 52, "city": "Lima", "score": "7"})

    def test_search_empty_store(self, store: BaseStore) -> None:
        assert store.search(()) == []
        assert store.search(("people",)) == []

    def test_search_returns_search_items(self, store: BaseStore) -> None:
        self._people(store)
        found = store.search(("people",))
        assert len(found) == 4
        assert all(isinstance(i, SearchItem) and i.score is None for i in found)
        assert all(i.namespace == ("people",) for i in found)
        assert {i.key: i.value["name"] for i in found} == {
            "ann": "ann",
            "bob": "bob",
            "cat": "cat",
            "dan": "dan",
        }

    def test_search_namespace_prefix(self, store: BaseStore) -> None:
        store.put(("users", "1"), "k", {"v": 1})
        store.put(("users", "2"), "k", {"v": 2})
        store.put(("users", "1", "deep"), "k", {"v": 3})
        store.put(("usersx",), "k", {"v": 4})
        store.put(("other",), "k", {"v": 5})

        def values(prefix: tuple[str, ...]) -> set[int]:
            return {i.value["v"] for i in store.search(prefix)}

        assert values(("users",)) == {1, 2, 3}
        assert values(("users", "1")) == {1, 3}
        assert values(("user",)) == set()
        assert values(()) == {1, 2, 3, 4, 5}

    @pytest.mark.parametrize(
        ("flt", "expected"),
        [
            ({"city": "Oslo"}, {"ann", "cat"}),
            ({"city": {"$eq": "Rome"}}, {"bob"}),
            ({"city": {"$ne": "Oslo"}}, {"bob", "dan"}),
            ({"age": {"$ne": 25}}, {"ann", "cat", "dan"}),
            ({"age": {"$gt": 30}}, {"ann", "cat", "dan"}),
            ({"age": {"$gte": 31}}, {"ann", "cat", "dan"}),
            ({"age": {"$lt": 31}}, {"bob"}),
            ({"age": {"$lte": 31}}, {"ann", "bob"}),
            ({"age": {"$gt": 26, "$lt": 40}}, {"ann"}),
            ({"age": {"$gte": 25.0}, "city": "Oslo"}, {"ann", "cat"}),
            ({"meta": {"vip": True}}, {"bob"}),
            ({"tags": ["a", "b"]}, {"ann"}),
            ({"tags": ["a"]}, set()),
            ({"meta": None}, {"ann", "dan"}),
            ({"meta": {"$ne": {"vip": True}}}, {"ann", "cat", "dan"}),
            ({"score": {"$eq": "7"}}, {"dan"}),
            ({"missing": None}, {"ann", "bob", "cat", "dan"}),
            ({"city": "Paris"}, set()),
            ({"name": "ann", "city": "Rome"}, set()),
            ({}, {"ann", "bob", "cat", "dan"}),
        ],
    )
    def test_search_filter(self, store: BaseStore, flt: dict[str, Any], expected: set[str]) -> None:
        self._people(store)
        assert set(keys(store.search(("people",), filter=flt))) == expected

    def test_search_filter_numeric_string(self, store: BaseStore) -> None:
        store.put(("n",), "a", {"score": "7"})
        store.put(("n",), "b", {"score": 3})
        assert keys(store.search(("n",), filter={"score": {"$gt": 5}})) == ["a"]

    def test_search_unsupported_operator_raises(self, store: BaseStore) -> None:
        self._people(store)
        with pytest.raises(ValueError):
            store.search(("people",), filter={"age": {"$in": [25, 31]}})

    def test_search_limit_and_offset(self, store: BaseStore) -> None:
        for i in range(7):
            store.put(("page",), f"k{i}", {"i": i})
        pages = [store.search(("page",), limit=3, offset=o) for o in (0, 3, 6)]
        assert [len(p) for p in pages] == [3, 3, 1]
        seen = [k for p in pages for k in keys(p)]
        assert sorted(seen) == [f"k{i}" for i in range(7)]
        assert store.search(("page",), limit=3, offset=7) == []
        assert store.search(("page",), limit=0) == []
        assert len(store.search(("page",))) == 7  # default limit 10

    def test_search_excludes_deleted(self, store: BaseStore) -> None:
        self._people(store)
        store.delete(("people",), "bob")
        assert set(keys(store.search(("people",)))) == {"ann", "cat", "dan"}
        assert set(keys(store.search(("people",), filter={"city": "Rome"}))) == set()

    # ------------------------------------------------------------------ semantic search
    def _docs(self, store: BaseStore) -> dict[str, dict[str, Any]]:
        docs = {
            "pizza": {"text": "mushroom pizza with extra cheese", "kind": "food"},
            "tax": {"text": "income tax return deadline in april", "kind": "admin"},
            "train": {"text": "night train tickets to vienna", "kind": "travel"},
            "pasta": {"text": "pasta with mushroom sauce", "kind": "food"},
        }
        for key, value in docs.items():
            store.put(("docs",), key, value)
        return docs

    def test_query_ranks_by_cosine_of_index_fields(self) -> None:
        store = self.new(index_config(["text"]))
        docs = self._docs(store)
        query = "mushroom pizza"
        found = store.search(("docs",), query=query)
        assert found[0].key == "pizza"
        assert len(found) == 4
        scores = [i.score for i in found]
        assert all(s is not None for s in scores)
        assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
        for item in found:
            assert item.score == pytest.approx(
                expected_score(query, docs[item.key], ["text"]), abs=1e-6
            )

    def test_query_whole_value_by_default(self) -> None:
        store = self.new(index_config())
        docs = self._docs(store)
        found = store.search(("docs",), query="night train vienna", limit=2)
        assert keys(found)[0] == "train"
        assert found[0].score == pytest.approx(
            expected_score("night train vienna", docs["train"], ["$"]), abs=1e-6
        )

    def test_query_max_pools_over_fields(self) -> None:
        store = self.new(index_config(["title", "tags[*]"]))
        store.put(("docs",), "a", {"title": "garden tools", "tags": ["rake", "shovel"]})
        store.put(("docs",), "b", {"title": "kitchen", "tags": ["knife", "pan"]})
        found = store.search(("docs",), query="shovel")
        assert keys(found) == ["a", "b"]
        value = {"title": "garden tools", "tags": ["rake", "shovel"]}
        assert found[0].score == pytest.approx(
            expected_score("shovel", value, ["title", "tags[*]"]), abs=1e-6
        )

    def test_query_with_filter_and_pages(self) -> None:
        store = self.new(index_config(["text"]))
        self._docs(store)
        food = store.search(("docs",), query="mushroom", filter={"kind": "food"})
        assert set(keys(food)) == {"pizza", "pasta"}
        full = keys(store.search(("docs",), query="mushroom pizza cheese"))
        paged = [
            k
            for o in (0, 2)
            for k in keys(store.search(("docs",), query="mushroom pizza cheese", limit=2, offset=o))
        ]
        assert paged == full

    def test_put_index_false_is_scoreless(self) -> None:
        store = self.new(index_config(["text"]))
        store.put(("docs",), "plain", {"text": "mushroom pizza"}, index=False)
        store.put(("docs",), "indexed", {"text": "a pizza"})
        found = store.search(("docs",), query="mushroom pizza")
        assert keys(found) == ["indexed", "plain"]
        assert found[0].score is not None
        assert found[1].score is None

    def test_put_index_override(self) -> None:
        store = self.new(index_config(["text"]))
        store.put(("docs",), "a", {"text": "zzz", "note": "vienna train"}, index=["note"])
        store.put(("docs",), "b", {"text": "vienna opera", "note": "zzz"})
        found = store.search(("docs",), query="vienna train")
        assert keys(found) == ["a", "b"]
        assert found[0].score == pytest.approx(
            expected_score("vienna train", {"note": "vienna train"}, ["note"]), abs=1e-6
        )

    def test_query_sees_latest_value_only(self) -> None:
        store = self.new(index_config(["text"]))
        store.put(("docs",), "note", {"text": "mushroom pizza"})
        store.put(("docs",), "note", {"text": "train tickets"})
        found = store.search(("docs",), query="mushroom pizza")
        assert [(i.key, i.value["text"]) for i in found] == [("note", "train tickets")]

    @differs(
        "without an IndexConfig InMemoryStore ignores the query (score None); TEPAStore ranks "
        "with the memory's embeddings, which every TEPAMemory has"
    )
    def test_query_without_index(self, store: BaseStore) -> None:
        self._docs(store)
        found = store.search(("docs",), query="night train tickets to vienna")
        assert len(found) == 4
        if self.tepa:
            assert found[0].key == "train"
            assert all(i.score is not None for i in found)
        else:
            assert all(i.score is None for i in found)

    @differs(
        "scoreless items (index=False) are paged by offset after the scored ones; "
        "InMemoryStore appends them ignoring the offset"
    )
    def test_scoreless_items_and_offset(self) -> None:
        store = self.new(index_config(["text"]))
        store.put(("docs",), "a", {"text": "mushroom pizza"})
        store.put(("docs",), "b", {"text": "b"}, index=False)
        store.put(("docs",), "c", {"text": "c"}, index=False)
        found = store.search(("docs",), query="mushroom pizza", limit=1, offset=2)
        assert len(found) == 1
        assert found[0].score is None
        if self.tepa:
            assert found[0].key in {"b", "c"}
            first = store.search(("docs",), query="mushroom pizza", limit=1, offset=1)
            assert {found[0].key, first[0].key} == {"b", "c"}
        else:
            assert found[0].key == "b"

    @differs("an embed function returning vectors of another size than dims is an error")
    def test_dims_are_checked(self) -> None:
        store = self.new({"dims": 8, "embed": EMBED, "fields": ["text"]})
        if self.tepa:
            with pytest.raises(InvalidArgumentError):
                store.put(("docs",), "a", {"text": "hello"})
            assert store.get(("docs",), "a") is None
        else:
            store.put(("docs",), "a", {"text": "hello"})
            assert store.get(("docs",), "a") is not None

    # ------------------------------------------------------------------ list_namespaces
    def _tree(self, store: BaseStore) -> None:
        for ns in [
            ("a", "b", "c"),
            ("a", "b", "d", "e"),
            ("a", "b", "d", "i"),
            ("a", "b", "f"),
            ("a", "c", "f"),
            ("x", "y"),
        ]:
            store.put(ns, "k", {"ns": list(ns)})

    def test_list_namespaces(self, store: BaseStore) -> None:
        assert store.list_namespaces() == []
        self._tree(store)
        assert store.list_namespaces() == [
            ("a", "b", "c"),
            ("a", "b", "d", "e"),
            ("a", "b", "d", "i"),
            ("a", "b", "f"),
            ("a", "c", "f"),
            ("x", "y"),
        ]

    @pytest.mark.parametrize(
        ("kwargs", "expected"),
        [
            (
                {"prefix": ("a", "b")},
                [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")],
            ),
            (
                {"prefix": ("a", "b"), "max_depth": 3},
                [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")],
            ),
            ({"suffix": ("f",)}, [("a", "b", "f"), ("a", "c", "f")]),
            ({"prefix": ("a", "*", "f")}, [("a", "b", "f"), ("a", "c", "f")]),
            ({"suffix": ("*", "f")}, [("a", "b", "f"), ("a", "c", "f")]),
            ({"prefix": ("a",), "suffix": ("f",)}, [("a", "b", "f"), ("a", "c", "f")]),
            ({"max_depth": 1}, [("a",), ("x",)]),
            ({"max_depth": 2}, [("a", "b"), ("a", "c"), ("x", "y")]),
            ({"limit": 2}, [("a", "b", "c"), ("a", "b", "d", "e")]),
            ({"limit": 2, "offset": 4}, [("a", "c", "f"), ("x", "y")]),
            ({"prefix": ("zzz",)}, []),
        ],
    )
    def test_list_namespaces_options(
        self, store: BaseStore, kwargs: dict[str, Any], expected: list[tuple[str, ...]]
    ) -> None:
        self._tree(store)
        assert store.list_namespaces(**kwargs) == expected

    @differs(
        "list_namespaces shows namespaces that hold an Active item (as PostgresStore); "
        "InMemoryStore keeps listing emptied namespaces and those only read with get"
    )
    def test_list_namespaces_after_delete_and_get(self, store: BaseStore) -> None:
        store.put(("keep",), "k", {"v": 1})
        store.put(("gone",), "k", {"v": 1})
        store.delete(("gone",), "k")
        store.get(("read", "only"), "k")
        if self.tepa:
            assert store.list_namespaces() == [("keep",)]
        else:
            assert store.list_namespaces() == [("gone",), ("keep",), ("read", "only")]

    # ------------------------------------------------------------------ batch
    def test_batch_results_in_input_order(self, store: BaseStore) -> None:
        store.put(("b",), "old", {"v": 0})
        results = store.batch(
            [
                GetOp(("b",), "old"),
                PutOp(("b",), "new", {"v": 1}),
                SearchOp(("b",)),
                ListNamespacesOp(),
                GetOp(("b",), "missing"),
            ]
        )
        assert len(results) == 5
        assert isinstance(results[0], Item) and results[0].value == {"v": 0}
        assert results[1] is None
        assert keys(results[2]) == ["old"]  # type: ignore[arg-type]
        assert results[3] == [("b",)]
        assert results[4] is None
        assert store.get(("b",), "new").value == {"v": 1}

    def test_batch_reads_see_state_before_writes(self, store: BaseStore) -> None:
        store.put(("b",), "k", {"v": 0})
        results = store.batch(
            [PutOp(("b",), "k", {"v": 1}), GetOp(("b",), "k"), PutOp(("b",), "fresh", {"v": 2})]
        )
        assert results[1].value == {"v": 0}  # type: ignore[union-attr]
        assert store.get(("b",), "k").value == {"v": 1}
        assert store.get(("b",), "fresh").value == {"v": 2}

    def test_batch_puts_apply_in_order(self, store: BaseStore) -> None:
        store.batch([PutOp(("b",), "k1", {"v": "a"}), PutOp(("b",), "k1", {"v": "b"})])
        store.batch([PutOp(("b",), "k2", {"v": "a"}), PutOp(("b",), "k2", None)])
        store.batch([PutOp(("b",), "k3", None), PutOp(("b",), "k3", {"v": "a"})])
        assert store.get(("b",), "k1").value == {"v": "b"}
        assert store.get(("b",), "k2") is None
        assert store.get(("b",), "k3").value == {"v": "a"}

    def test_batch_empty(self, store: BaseStore) -> None:
        assert store.batch([]) == []

    @differs(
        "every put of a batch is evidence (InMemoryStore keeps only the last put per key): "
        "three puts of one value in one batch are three supports in the audit"
    )
    def test_batch_counts_every_put(self, store: BaseStore) -> None:
        ns = ("b",)
        store.batch([PutOp(ns, "k", {"v": "a"}) for _ in range(3)])
        if self.tepa:
            (prec,) = store.audit(ns, "k").precedents  # type: ignore[attr-defined]
            assert prec.support == 3
        store.batch([PutOp(ns, "k", {"v": "b"}), PutOp(ns, "k", {"v": "c"})])
        assert store.get(ns, "k").value == {"v": "c"}

    # ------------------------------------------------------------------ async twins
    async def test_async_round_trip(self, store: BaseStore) -> None:
        ns = ("async", "u1")
        await store.aput(ns, "pizza", {"topping": "pineapple"})
        await store.aput(ns, "pizza", {"topping": "mushroom"})
        await store.aput(ns, "other", {"x": 1})
        item = await store.aget(ns, "pizza")
        assert item is not None and item.value == {"topping": "mushroom"}
        found = await store.asearch(("async",), filter={"x": 1})
        assert keys(found) == ["other"]
        assert await store.alist_namespaces(prefix=("async",)) == [ns]
        await store.adelete(ns, "pizza")
        assert await store.aget(ns, "pizza") is None

    async def test_abatch_order(self, store: BaseStore) -> None:
        await store.aput(("b",), "old", {"v": 0})
        results = await store.abatch(
            [
                PutOp(("b",), "old", {"v": 1}),
                GetOp(("b",), "old"),
                SearchOp(("b",), filter={"v": 0}),
                ListNamespacesOp(),
            ]
        )
        assert results[0] is None
        assert results[1].value == {"v": 0}  # type: ignore[union-attr]
        assert keys(results[2]) == ["old"]  # type: ignore[arg-type]
        assert results[3] == [("b",)]
        assert (await store.aget(("b",), "old")).value == {"v": 1}  # type: ignore[union-attr]

    async def test_async_query_with_async_embed(self) -> None:
        async def aembed(texts: Sequence[str]) -> list[list[float]]:
            await asyncio.sleep(0)
            return EMBED.embed_documents(list(texts))

        store = self.new(index_config(["text"], embed=aembed))
        await store.aput(("docs",), "pizza", {"text": "mushroom pizza"})
        await store.aput(("docs",), "tax", {"text": "tax return"})
        found = await store.asearch(("docs",), query="pizza with mushrooms")
        assert keys(found) == ["pizza", "tax"]
        assert found[0].score == pytest.approx(
            expected_score("pizza with mushrooms", {"text": "mushroom pizza"}, ["text"]),
            abs=1e-6,
        )

    # ------------------------------------------------------------------ validation
    @pytest.mark.parametrize(
        "namespace",
        [("a.b",), ("",), (), ("langgraph", "x"), ("ok", 1), ("nul\x00",)],
    )
    def test_put_invalid_namespace(self, store: BaseStore, namespace: tuple[Any, ...]) -> None:
        with pytest.raises(InvalidNamespaceError):
            store.put(namespace, "k", {"v": 1})
        assert store.list_namespaces() == []

    def test_read_invalid_namespace_labels(self, store: BaseStore) -> None:
        with pytest.raises(InvalidNamespaceError):
            store.get(("a.b",), "k")
        with pytest.raises(InvalidNamespaceError):
            store.search(("a", ""))
        with pytest.raises(InvalidNamespaceError):
            store.list_namespaces(prefix=("a.b",))
        with pytest.raises(InvalidNamespaceError):
            store.list_namespaces(suffix=("",))
        with pytest.raises(InvalidNamespaceError):
            store.delete(("a.b",), "k")

    @differs(
        "ops passed straight to batch() are validated too, as LangGraph asks of stores that "
        "join labels with '.'; InMemoryStore stores ('a.b',) there"
    )
    def test_batch_validates_namespaces(self, store: BaseStore) -> None:
        op = PutOp(("a.b",), "k", {"v": 1})
        if self.tepa:
            with pytest.raises(InvalidNamespaceError):
                store.batch([PutOp(("fine",), "k", {"v": 1}), op])
            assert store.get(("fine",), "k") is None  # nothing of a bad batch is stored
        else:
            store.batch([op])
            assert store.batch([GetOp(("a.b",), "k")])[0] is not None

    @differs("labels must also be valid memory namespace segments (no surrounding whitespace)")
    def test_padded_label(self, store: BaseStore) -> None:
        if self.tepa:
            with pytest.raises(InvalidNamespaceError):
                store.put((" a",), "k", {"v": 1})
            assert store.get((" a",), "k") is None
        else:
            store.put((" a",), "k", {"v": 1})
            assert store.get((" a",), "k") is not None

    @differs("keys must be valid memory keys: non-blank, no surrounding whitespace")
    @pytest.mark.parametrize("key", ["", " k", "k\n"])
    def test_invalid_key(self, store: BaseStore, key: str) -> None:
        if self.tepa:
            with pytest.raises(InvalidKeyError):
                store.put(("docs",), key, {"v": 1})
            assert store.get(("docs",), key) is None
        else:
            store.put(("docs",), key, {"v": 1})
            assert store.get(("docs",), key) is not None

    @differs("values must be JSON (they are stored in Chroma as JSON)")
    def test_non_json_value(self, store: BaseStore) -> None:
        value = {"when": datetime(2024, 1, 1), "tags": {"a", "b"}}
        if self.tepa:
            with pytest.raises(TEPAInvalidValueError):
                store.put(("docs",), "d", value)
            assert store.get(("docs",), "d") is None
        else:
            store.put(("docs",), "d", value)
            assert store.get(("docs",), "d").value == value

    @differs("values are stored as a deep JSON copy: tuples come back as lists")
    def test_tuple_values(self, store: BaseStore) -> None:
        store.put(("docs",), "d", {"pair": (1, 2)})
        expected = [1, 2] if self.tepa else (1, 2)
        assert store.get(("docs",), "d").value == {"pair": expected}

    @differs(
        "neither the dict given to put nor the returned Item.value is shared with the store; "
        "InMemoryStore shares nested objects and returns its own dict"
    )
    def test_values_are_not_shared(self, store: BaseStore) -> None:
        value = {"nested": {"n": 1}}
        store.put(("docs",), "d", value)
        value["nested"]["n"] = 2
        item = store.get(("docs",), "d")
        item.value["added"] = True
        again = store.get(("docs",), "d").value
        if self.tepa:
            assert again == {"nested": {"n": 1}}
        else:
            assert again == {"nested": {"n": 2}, "added": True}

    @differs(
        "$gt/$gte/$lt/$lte on a missing or non-numeric field is no match (as SQL stores); "
        "InMemoryStore raises TypeError/ValueError mid-search"
    )
    def test_ordering_filter_on_missing_or_text_field(self, store: BaseStore) -> None:
        self._people(store)
        if self.tepa:
            assert keys(store.search(("people",), filter={"score": {"$gt": 1}})) == ["dan"]
            assert keys(store.search(("people",), filter={"city": {"$gt": 1}})) == []
        else:
            with pytest.raises(TypeError):
                store.search(("people",), filter={"score": {"$gt": 1}})
            with pytest.raises(ValueError):
                store.search(("people",), filter={"city": {"$gt": 1}})

    @differs("negative limit/offset are errors; InMemoryStore slices with them")
    def test_negative_limit_offset(self, store: BaseStore) -> None:
        self._people(store)
        if self.tepa:
            with pytest.raises(InvalidArgumentError):
                store.search(("people",), limit=-1)
            with pytest.raises(InvalidArgumentError):
                store.search(("people",), offset=-1)
            with pytest.raises(InvalidArgumentError):
                store.list_namespaces(limit=-1)
        else:
            assert len(store.search(("people",), limit=-1)) == 3
            assert len(store.list_namespaces(offset=-1)) == 1

    @differs(
        "without a query, results are most recently updated first (PostgresStore's order); "
        "InMemoryStore returns insertion order"
    )
    def test_search_order_without_query(self, store: BaseStore) -> None:
        for key in ("k1", "k2", "k3"):
            store.put(("o",), key, {"v": key})
        store.put(("o",), "k1", {"v": "k1"})
        found = keys(store.search(("o",)))
        assert found == (["k1", "k3", "k2"] if self.tepa else ["k1", "k2", "k3"])

    @differs(
        "created_at is when the shown value was first put (kept across re-puts, like "
        "PostgresStore keeps it across updates); InMemoryStore resets it on every put"
    )
    def test_created_at_across_reputs(self, store: BaseStore) -> None:
        store.put(("t",), "k", {"v": 1})
        first = store.get(("t",), "k")
        store.put(("t",), "k", {"v": 1})
        second = store.get(("t",), "k")
        assert first is not None and second is not None
        assert second.updated_at >= first.updated_at
        if self.tepa:
            assert second.created_at == first.created_at
        else:
            assert second.created_at >= first.updated_at

    def test_profile_edit_after_repeated_puts(self, store: BaseStore) -> None:
        """A profile edit: one put of a new value after many puts of the old one is what get
        returns (the store's own repeated puts count with diminishing weight), as in
        InMemoryStore; the old value stays in TEPA's archive."""
        ns = ("users", "u1")
        for n in (1, 3, 30):
            for _ in range(n):
                store.put(ns, f"pizza{n}", {"topping": "pineapple"})
            store.put(ns, f"pizza{n}", {"topping": "mushroom"})
            assert store.get(ns, f"pizza{n}").value == {"topping": "mushroom"}
            if self.tepa:
                audit = store.audit(ns, f"pizza{n}")  # type: ignore[attr-defined]
                assert {p.value["topping"] for p in audit.precedents} == {"pineapple", "mushroom"}
