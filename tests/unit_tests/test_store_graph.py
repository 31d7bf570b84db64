"""TEPAStore inside a LangGraph StateGraph: nodes read and write memory via the injected store."""

from __future__ import annotations

from collections.abc import Callable

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from typing_extensions import TypedDict

from langchain_tepa import HashingEmbeddings, Lifecycle, TEPAStore


class State(TypedDict, total=False):
    user: str
    said: str
    forget: bool
    answer: str


def remember(state: State, *, store: BaseStore) -> State:
    """Write what the user said about pizza (or forget it) through the injected store."""
    ns = ("users", state["user"])
    if state.get("forget"):
        store.delete(ns, "pizza")
    elif state.get("said"):
        store.put(ns, "pizza", {"topping": state["said"]})
    return {}


def answer(state: State, runtime: Runtime[None]) -> State:
    """Read the preference back through the runtime's store."""
    assert runtime.store is not None
    item = runtime.store.get(("users", state["user"]), "pizza")
    return {"answer": item.value["topping"] if item else "no preference"}


def build(store: TEPAStore):  # type: ignore[no-untyped-def]
    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("answer", answer)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "answer")
    graph.add_edge("answer", END)
    return graph.compile(store=store)


def test_graph_sees_the_preference_change_and_delete_keeps_the_archive(
    tick: Callable[[], float],
) -> None:
    store = TEPAStore.in_memory(embeddings=HashingEmbeddings(), clock=tick)
    app = build(store)
    assert app.invoke({"user": "u1", "said": "pineapple"})["answer"] == "pineapple"
    assert app.invoke({"user": "u1"})["answer"] == "pineapple"
    assert app.invoke({"user": "u1", "said": "mushroom"})["answer"] == "mushroom"
    assert app.invoke({"user": "u1"})["answer"] == "mushroom"
    assert app.invoke({"user": "u2"})["answer"] == "no preference"

    audit = store.audit(("users", "u1"), "pizza")
    by_value = {p.value["topping"]: p for p in audit.precedents}
    assert by_value["mushroom"].validity > by_value["pineapple"].validity

    assert app.invoke({"user": "u1", "forget": True})["answer"] == "no preference"
    audit = store.audit(("users", "u1"), "pizza")
    assert {p.value["topping"] for p in audit.precedents} == {"pineapple", "mushroom"}
    assert all(p.state is Lifecycle.REVOKED for p in audit.precedents)
    assert all("deleted" in p.transitions[-1].reason for p in audit.precedents)
    assert store.list_namespaces() == []


async def test_graph_async(tick: Callable[[], float]) -> None:
    store = TEPAStore.in_memory(embeddings=HashingEmbeddings(), clock=tick)
    app = build(store)
    assert (await app.ainvoke({"user": "u1", "said": "olive"}))["answer"] == "olive"
    assert (await app.ainvoke({"user": "u1", "said": "basil"}))["answer"] == "basil"
    found = await store.asearch(("users",), query="basil")
    assert [(i.namespace, i.value) for i in found] == [(("users", "u1"), {"topping": "basil"})]
