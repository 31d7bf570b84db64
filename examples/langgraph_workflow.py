"""A LangGraph workflow with a TEPAStore (long-term memory) and the TEPA-Full trial node.

Run it (offline, no LLM)::

    python examples/langgraph_workflow.py

A pizza-ordering workflow: ``listen`` writes what the user says into the store (``store.put``:
evidence, not an overwrite), ``tepa_full`` tests the new value by execution before it may be
used (TEPA-Full: a Hypothesis is promoted only when trials show it works, and rejected when they
show it does not), and ``order`` acts on the store's Active value. The "world" is a pizzeria
that accepts an order only with the topping the user really wants now:

1. the user likes pineapple: trials pass, pineapple is promoted, the order goes through;
2. the user switches to mushroom: trials pass, and the counterfactual trial shows pineapple now
   fails, so mushroom is promoted and pineapple is revoked (superseded);
3. a glitch (a misheard "anchovies"): trials fail, it is rejected, and the order stays mushroom.

The graph is compiled with ``store=`` and a checkpointer, as any LangGraph app would be.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore
from typing_extensions import TypedDict

from langchain_tepa import HashingEmbeddings, LifecyclePolicy, TEPAMemory
from langchain_tepa.graph import Trial, tepa_full_node
from langchain_tepa.store import TEPAStore

USER = ("users", "u1")
KEY = "pizza"
WORLD = {"wanted": "pineapple"}  # what the user really wants right now


class State(TypedDict, total=False):
    """The workflow state: the user's message and what the trial node decided."""

    said: str
    tepa_key: str
    tepa_namespace: str
    tepa_decisions: list[dict[str, Any]]
    order: str


def listen(state: State, *, store: BaseStore) -> dict[str, Any]:
    """Record what the user said as evidence in the long-term store."""
    store.put(USER, KEY, {"topping": state["said"]})
    return {"tepa_key": KEY, "tepa_namespace": ".".join(USER)}


def order(state: State, *, store: BaseStore) -> dict[str, Any]:
    """Act on the Active value only (Hypotheses and revoked values are invisible)."""
    item = store.get(USER, KEY)
    topping = item.value["topping"] if item else "margherita"
    accepted = topping == WORLD["wanted"]
    return {"order": f"{topping} pizza ({'accepted' if accepted else 'refused'})"}


def pizzeria(trial: Trial) -> bool:
    """The executor: place the order the trial's memory view implies; True if accepted."""
    values = trial.lookup(trial.key)
    topping = values[-1]["topping"] if values else "margherita"  # newest value in the view
    return bool(topping == WORLD["wanted"])


def build(memory: TEPAMemory) -> Any:
    """The workflow graph: listen -> tepa_full -> order, with a store and a checkpointer."""
    builder = StateGraph(State)
    builder.add_node("listen", listen)
    builder.add_node("tepa_full", tepa_full_node(memory, pizzeria, reject_below=0.34))
    builder.add_node("order", order)
    builder.add_edge(START, "listen")
    builder.add_edge("listen", "tepa_full")
    builder.add_edge("tepa_full", "order")
    builder.add_edge("order", END)
    store = TEPAStore(memory)
    return builder.compile(store=store, checkpointer=InMemorySaver())


def main() -> None:
    memory = TEPAMemory.in_memory(
        # TEPA-Full, with exact value identity as the store expects (see store_policy)
        policy=LifecyclePolicy.preset("tepa-full", normalize_values=False),
        embeddings=HashingEmbeddings(),
    )
    graph = build(memory)
    turns = [
        ("pineapple", "pineapple", "the user likes pineapple"),
        ("mushroom", "mushroom", "the user switches to mushroom"),
        (
            "anchovies",
            "mushroom",
            "a glitch: 'anchovies' was misheard; the user still wants mushroom",
        ),
    ]
    for i, (said, wanted, story) in enumerate(turns, 1):
        WORLD["wanted"] = wanted
        out = graph.invoke({"said": said}, {"configurable": {"thread_id": f"turn-{i}"}})
        print(f"\nturn {i}: {story}")
        for d in out["tepa_decisions"]:
            value = d["candidate"]["value"]["topping"]
            print(f"  trial node: {value} -> {d['action']}; {d['reason']}")
            if d.get("superseded"):
                print(f"    superseded: {[v['topping'] for v in d['superseded']]}")
        print(f"  order: {out['order']}")

    print()
    print(memory.audit(KEY, namespace=".".join(USER)))
    assert memory.get(KEY, namespace="users.u1") == {"topping": "mushroom"}


if __name__ == "__main__":
    main()
