"""A graph that keeps each user's pizza preference in the server's store (a TEPAStore).

The user is named by the run's context (``context={"user_id": "alice"}``), so the preference
lives in the namespace ``("users", "alice", "preferences")`` and follows the user across
threads. A message such as "my favourite topping is mushroom" is put into the store (evidence
against the earlier value, which TEPAStore revokes once outweighed); every run answers from
what the store holds now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

_PREFERENCE = re.compile(r"favou?rite (?:pizza )?topping is ([a-z]+)", re.IGNORECASE)


@dataclass
class Context:
    """Who the run is for."""

    user_id: str


class State(TypedDict, total=False):
    """What a run is told and what it answers."""

    text: str
    topping: str | None
    answer: str


async def remember_and_answer(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    store = runtime.store
    if store is None:
        raise RuntimeError("this graph needs the server's store (see langgraph.json)")
    namespace = ("users", runtime.context.user_id, "preferences")
    said = _PREFERENCE.search(state.get("text", ""))
    if said:
        topping = said.group(1).strip().lower()
        await store.aput(namespace, "pizza", {"topping": topping, "said": state["text"]})
    item = await store.aget(namespace, "pizza")
    topping = item.value["topping"] if item is not None else None
    answer = f"Order a {topping} pizza." if topping else "I don't know your favourite topping yet."
    return {"topping": topping, "answer": answer}


builder = StateGraph(State, context_schema=Context)
builder.add_node("remember_and_answer", remember_and_answer)
builder.add_edge(START, "remember_and_answer")
builder.add_edge("remember_and_answer", END)
graph = builder.compile()
