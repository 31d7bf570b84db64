"""A worker process for multi-process tests: a memory (and a store, and a graph) over a Chroma
server, driven by JSON commands on stdin, one answer per line on stdout.

Run as ``python -m tests.support.worker_main HOST PORT PREFIX WRITER``. Commands::

    {"op": "observe", "key": k, "value": v, "ns": n}   -> {"id": evidence id, "state": state}
    {"op": "outcome", "key": k, "value": v, "success": b, "ns": n}
    {"op": "get", "key": k, "ns": n}                   -> {"value": v}
    {"op": "audit", "key": k, "ns": n}                 -> {"precedents": [[value, state, s, f]],
                                                           "evidence": [ids]}
    {"op": "graph", "user": u, "set": v | null}        -> {"read": v}  (a StateGraph run whose
                                                           node reads then writes the store)
    {"op": "quit"}
"""

from __future__ import annotations

import json
import sys
from typing import Any, TypedDict


def _graph(store: Any) -> Any:
    from langgraph.graph import END, START, StateGraph
    from langgraph.store.base import BaseStore

    class State(TypedDict, total=False):
        user: str
        set: str | None
        read: str | None

    def node(state: State, *, store: BaseStore) -> State:
        ns = ("users", state["user"])
        item = store.get(ns, "preference")
        read = item.value["value"] if item is not None else None
        if state.get("set") is not None:
            store.put(ns, "preference", {"value": state["set"]})
        return {"read": read}

    builder = StateGraph(State)
    builder.add_node("remember", node)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    return builder.compile(store=store)


def main() -> None:
    import chromadb
    from chromadb.config import Settings

    from langchain_tepa import HashingEmbeddings, TEPAMemory, TEPAStore

    host, port, prefix, writer = sys.argv[1:5]
    client = chromadb.HttpClient(
        host=host, port=int(port), settings=Settings(anonymized_telemetry=False)
    )
    memory = TEPAMemory.from_client(
        client, prefix=prefix, embeddings=HashingEmbeddings(), writer=writer
    )
    store = TEPAStore.from_client(client, prefix=prefix + "s", embeddings=HashingEmbeddings())
    graph = _graph(store)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        out: dict[str, Any]
        if op == "quit":
            break
        if op == "observe":
            r = memory.observe(cmd["key"], cmd["value"], namespace=cmd["ns"])
            out = {"id": r.evidence.id, "state": r.precedent.state.value if r.precedent else None}
        elif op == "outcome":
            r = memory.record_outcome(cmd["key"], cmd["value"], cmd["success"], namespace=cmd["ns"])
            out = {"id": r.evidence.id, "state": r.precedent.state.value if r.precedent else None}
        elif op == "get":
            out = {"value": memory.get(cmd["key"], namespace=cmd["ns"])}
        elif op == "audit":
            audit = memory.audit(cmd["key"], namespace=cmd["ns"])
            out = {
                "precedents": [
                    [p.value, p.state.value, p.support, p.conflict] for p in audit.precedents
                ],
                "evidence": sorted({e for p in audit.precedents for e in p.evidence_ids}),
            }
        elif op == "graph":
            result = graph.invoke({"user": cmd["user"], "set": cmd.get("set")})
            out = {"read": result.get("read")}
        else:
            out = {"error": f"unknown op {op}"}
        print(json.dumps(out), flush=True)
    memory.close()
    store.memory.close()


if __name__ == "__main__":
    main()
