"""``make demo``: an offline LangGraph agent whose memory takes a changed preference back.

Run it (from a clone, ``make demo``; from an installed wheel, the same module)::

    python -m langchain_tepa.demo                       # under 20 s, offline, no API key
    python -m langchain_tepa.demo --path ./demo-memory  # keep the memory folder

One user talks with an agent over several threads (a ``StateGraph`` with an ``InMemorySaver``
checkpointer, so each thread has its own messages and the store is what crosses threads). The
agent has the two memory tools of LangGraph's long-term-memory how-to, written here:
``save_memory(content)`` puts the text under a random key (``str(uuid4())``) in the namespace
``("memories", <user_id>)``, the user id read from the run's config, and
``search_memories(query)`` searches that namespace. The store is a
:class:`~langchain_tepa.TEPAStore` on embedded Chroma in a temporary folder, with offline
:class:`~langchain_tepa.HashingEmbeddings` and an index on ``"content"``. The user states two
preferences, changes one, and asks again: the stale memory is taken back (it leaves ``search``
and ``get``), so the agent's answer names the new value. The same conversation runs beside it
over LangGraph's own ``InMemoryStore``, which serves the stale memory and the new one, for
contrast. Then the demo prints the audit of the taken-back item, the model path beside the
offline one (:func:`show_judged`: a chat model decides what a memory replaces; here a scripted
one), and one keyed reversal step by step (:func:`show_reversal`).

The chat model is :class:`RuleBasedChatModel`: no network, no key. It calls ``save_memory`` on a
statement and ``search_memories`` on a question, and answers a question from the top memory
the search served, so every answer is computed from what the memory returned.

The module lives in the package (not in ``examples/``) so that a wheel user can run it too; it
needs only the runtime dependencies (``langgraph``, ``langchain-core``, ``chromadb``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Annotated, Any
from uuid import uuid4

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import InjectedStore, ToolNode, tools_condition
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from langchain_tepa.embeddings import HashingEmbeddings
from langchain_tepa.extraction import OfflineFactExtractor
from langchain_tepa.memory import TEPAMemory
from langchain_tepa.store import TEPAStore

__all__ = [
    "CONVERSATION",
    "EXPECTED_SECONDS",
    "JUDGED",
    "KEY",
    "NEW",
    "STALE",
    "RuleBasedChatModel",
    "ScriptedJudgeModel",
    "Turn",
    "build_agent",
    "converse",
    "main",
    "memory_tools",
    "show_judged",
    "show_reversal",
]

EXPECTED_SECONDS = 20
"""What the demo usually stays under, imports included: about 2.5 s of CPU; 6-16 s of wall time
on the 2-core development machine at a load average of 9-10 (docs/performance.md, "make demo")."""

USER_ID = "ana"
"""The user of the demo conversation (``config["configurable"]["user_id"]``)."""

CONVERSATION: tuple[tuple[str, str], ...] = (
    ("monday", "My favourite colour is green."),
    ("monday", "My favourite drink is coffee."),
    ("tuesday", "What colour should my new bike be?"),
    ("friday", "My favourite colour is now blue."),
    ("saturday", "What colour should my new bike be?"),
    ("saturday", "What drink should I order?"),
)
"""(thread id, user message): statements are saved, questions searched and answered."""

STALE = CONVERSATION[0][1]
"""The preference the user changes later (its memory is taken back)."""

NEW = CONVERSATION[3][1]
"""The change."""

SEARCH_LIMIT = 3
"""How many memories ``search_memories`` returns."""


# ---------------------------------------------------------------------------- the tools
def _namespace(config: RunnableConfig) -> tuple[str, str]:
    user_id = (config.get("configurable") or {}).get("user_id")
    if not user_id:
        raise ValueError("run the agent with config={'configurable': {'user_id': ...}}")
    return ("memories", str(user_id))


def memory_tools() -> list[BaseTool]:
    """The two memory tools of LangGraph's long-term-memory how-to, for any ``BaseStore``.

    Both read the user id from the run's config (``configurable.user_id``) and get the store
    injected by LangGraph (the graph's ``compile(store=...)``).

    Example:
        >>> [t.name for t in memory_tools()]
        ['save_memory', 'search_memories']
    """

    @tool
    def save_memory(
        content: str,
        config: RunnableConfig,
        store: Annotated[BaseStore, InjectedStore()],
    ) -> str:
        """Save a memory about the user (one fact or preference, in plain words)."""
        key = str(uuid4())
        store.put(_namespace(config), key, {"content": content})
        return json.dumps({"saved": key})

    @tool
    def search_memories(
        query: str,
        config: RunnableConfig,
        store: Annotated[BaseStore, InjectedStore()],
    ) -> str:
        """Search the memories about the user; the best match first."""
        items = store.search(_namespace(config), query=query, limit=SEARCH_LIMIT)
        return json.dumps(
            [
                {"key": i.key, "content": i.value["content"], "score": round(i.score or 0.0, 3)}
                for i in items
            ]
        )

    return [save_memory, search_memories]


# ---------------------------------------------------------------------------- the model
class RuleBasedChatModel(BaseChatModel):
    """An offline chat model that plays a tool-calling LLM by rules (no network, no key).

    A user statement becomes a ``save_memory`` call with the statement; a question (ending in
    ``?``) a ``search_memories`` call with the question. After a search, it answers from the
    top memory served: the value that memory states (read by the offline fact extractor), and
    the memory quoted. So the answer is whatever the memory served, never written beforehand.

    Example:
        >>> model = RuleBasedChatModel()
        >>> model.invoke([HumanMessage("What colour?")]).tool_calls[0]["name"]
        'search_memories'
        >>> served = ToolMessage('[{"content": "My favourite colour is blue."}]',
        ...                      tool_call_id="c1", name="search_memories")
        >>> model.invoke([served]).content
        'Blue, going by what you told me: "My favourite colour is blue."'
    """

    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "rule-based"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Tools are fixed by the rules; binding returns the model itself."""
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls += 1
        last = messages[-1]
        if isinstance(last, ToolMessage):
            message = AIMessage(content=self._answer(last))
        else:
            text = str(last.content).strip()
            name, args = (
                ("search_memories", {"query": text})
                if text.endswith("?")
                else ("save_memory", {"content": text})
            )
            call = {"name": name, "args": args, "id": f"call_{self.calls}", "type": "tool_call"}
            message = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])

    @staticmethod
    def _answer(result: ToolMessage) -> str:
        if result.status == "error":
            return f"My memory tool failed: {result.content}"
        if result.name == "save_memory":
            return "Noted, I'll remember that."
        served = json.loads(str(result.content))
        if not served:
            return "I don't know yet: tell me and I'll remember."
        top = served[0]["content"]
        facts = OfflineFactExtractor().extract(top)
        if not facts:
            return f'Going by what you told me: "{top}"'
        value = str(facts[0].value)
        return f'{value[:1].upper()}{value[1:]}, going by what you told me: "{top}"'


# ---------------------------------------------------------------------------- the agent
def build_agent(
    store: BaseStore, model: BaseChatModel | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """A tool-calling agent (model <-> tools loop) with a checkpointer and ``store``.

    Example:
        >>> agent = build_agent(InMemoryStore())
        >>> sorted(agent.get_graph().nodes)
        ['__end__', '__start__', 'agent', 'tools']
    """
    tools = memory_tools()
    llm = (model or RuleBasedChatModel()).bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [llm.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=InMemorySaver(), store=store)


@dataclass
class Turn:
    """One user message and what the agent did with it.

    Example:
        >>> Turn("monday", "hi", "save_memory", answer="Noted.").tool
        'save_memory'
    """

    thread: str
    user: str
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    saved: str | None = None
    """The key ``save_memory`` wrote (a random uuid), if it was called."""
    served: list[dict[str, Any]] = field(default_factory=list)
    """What ``search_memories`` returned, best first, if it was called."""
    answer: str = ""


def _turn(thread: str, text: str, messages: list[BaseMessage]) -> Turn:
    new = messages[[i for i, m in enumerate(messages) if isinstance(m, HumanMessage)][-1] :]
    calls = [c for m in new if isinstance(m, AIMessage) for c in m.tool_calls]
    results = [m for m in new if isinstance(m, ToolMessage)]
    turn = Turn(
        thread, text, calls[0]["name"] if calls else "", dict(calls[0]["args"]) if calls else {}
    )
    for result in results:
        if result.status == "error":
            continue
        payload = json.loads(str(result.content))
        if result.name == "save_memory":
            turn.saved = payload["saved"]
        else:
            turn.served = payload
    turn.answer = str(new[-1].content)
    return turn


def converse(
    agent: CompiledStateGraph[Any, Any, Any, Any],
    conversation: Sequence[tuple[str, str]] = CONVERSATION,
    user_id: str = USER_ID,
) -> list[Turn]:
    """Send each ``(thread, message)`` to ``agent`` as ``user_id``; the turns, in order.

    Example:
        >>> turns = converse(build_agent(InMemoryStore()), [("t1", "I like tea."), ("t2", "Tea?")])
        >>> turns[1].served[0]["content"], turns[1].answer.endswith('told me: "I like tea."')
        ('I like tea.', True)
    """
    turns = []
    for thread, text in conversation:
        config: RunnableConfig = {"configurable": {"thread_id": thread, "user_id": user_id}}
        result = agent.invoke({"messages": [HumanMessage(text)]}, config)
        turns.append(_turn(thread, text, result["messages"]))
    return turns


# ---------------------------------------------------------------------------- the judge
JUDGED: dict[tuple[str, str], tuple[str, tuple[str, ...], str]] = {
    ("I go to PureGym.", "I signed up at BeFit last week."): ("replaces", (), "a new gym"),
    ("I drive a Honda Civic.", "I rented a Fiat 500 for the holiday."): (
        "unrelated",
        ("temporary",),
        "a rental for one trip",
    ),
}
"""(earlier memory, later memory) -> the scripted judge's answer: relation, flags, reason."""


class ScriptedJudgeModel(BaseChatModel):
    """A stand-in for the application's chat model as a judge: it answers :data:`JUDGED`.

    It reads the prompt a :class:`~langchain_tepa.extraction.judge.ReplacementJudge` sends
    (the new memory and the earlier ones, as JSON) and answers in its JSON form, as a real
    model would; pairs it does not know are unrelated.

    Example:
        >>> body = '{"earlier": [{"id": "c1", "text": "I go to PureGym."}], '
        >>> body += '"new": [{"id": "n1", "text": "I signed up at BeFit last week."}]}'
        >>> ScriptedJudgeModel().invoke([HumanMessage(body)]).content[:40]
        '{"memories": [{"id": "n1", "verdicts": ['
    """

    @property
    def _llm_type(self) -> str:
        return "scripted-judge"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        body = json.loads(str(messages[-1].content))
        memories = []
        for new in body["new"]:
            entry: dict[str, Any] = {"id": new["id"], "verdicts": []}
            for old in body["earlier"]:
                answer = JUDGED.get((old["text"], new["text"]), ("unrelated", (), ""))
                relation, flags, why = answer
                entry.update(dict.fromkeys(flags, True))
                if relation != "unrelated":
                    verdict = {"candidate": old["id"], "relation": relation, "reason": why}
                    entry["verdicts"].append({**verdict, "confidence": 0.9})
            memories.append(entry)
        message = AIMessage(json.dumps({"memories": memories}))
        return ChatResult(generations=[ChatGeneration(message=message)])


def show_judged() -> str:
    """The model path beside the offline one: what each serves after two pairs of memories.

    Example:
        >>> "superseded: item" in show_judged()
        True
    """
    from langchain_tepa.extraction.judge import ReplacementJudge

    embeddings = HashingEmbeddings()
    index: Any = {"dims": 384, "embed": embeddings, "fields": ["content"]}
    lines: list[str] = []
    for name, judge in (
        ("offline rules (no model)", None),
        ("scripted judge model", ReplacementJudge(ScriptedJudgeModel())),
    ):
        store = TEPAStore.in_memory(index=index, embeddings=embeddings, judge=judge)
        lines.append(f"{name}:")
        for n, (first, second) in enumerate(JUDGED):
            ns = ("memories", f"pair{n}")
            store.put(ns, "earlier", {"content": first})
            store.put(ns, "later", {"content": second})
            served = [i.value["content"] for i in store.search(ns, limit=5)]
            lines.append(f"  {first!r} then {second!r} -> serves {served}")
        if judge is not None:
            gone = store.audit(("memories", "pair0"), "earlier").precedents[0].revocation
            lines.append(f"  audit of {next(iter(JUDGED))[0]!r}: {gone.reason if gone else '-'}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the reversal
KEY = "tool.export_format"
"""The key of :func:`show_reversal`."""


def show_reversal(folder: str | None = None) -> str:
    """One keyed reversal step by step, on a persistent memory; what it shows, as text.

    A fact is believed (an export format that works), contradicted (it starts failing),
    revoked, and the new value is promoted; the audit trail shows every transition with its
    reason. It runs on embedded Chroma, offline, under the library's default policy (the key
    test, ``tepa-key``: a tool that has worked ten times in a row is revoked at its second
    failure in a row).

    Args:
        folder: Where to keep the memory (default: a temporary folder, removed afterwards).

    Example:
        >>> text = show_reversal()
        >>> "revoked: change odds" in text and "promoted" in text
        True
    """
    own = folder is None
    path = tempfile.mkdtemp(prefix="tepa-reversal-") if folder is None else folder
    ticks = itertools.count(1)
    lines: list[str] = []
    try:
        memory = TEPAMemory.from_path(
            path, embeddings=HashingEmbeddings(), clock=lambda: float(next(ticks))
        )
        lines.append(f"policy:       {memory.policy.name} (the library default)")
        for _ in range(10):
            memory.record_outcome(KEY, "csv", True)
        lines.append(f"believed:     csv worked 10 times -> get() = {memory.get(KEY)!r}")
        memory.record_outcome(KEY, "csv", False)
        lines.append(f"contradicted: csv failed once     -> get() = {memory.get(KEY)!r}")
        memory.record_outcome(KEY, "csv", False)
        lines.append(f"revoked:      csv failed again    -> get() = {memory.get(KEY)!r}")
        memory.record_outcome(KEY, "json", True)
        lines.append(f"promoted:     json worked         -> get() = {memory.get(KEY)!r}")
        docs = memory.retrieve("which export format works?", k=4)
        lines.append(f"retrieve() sees only: {[d.metadata['value'] for d in docs]}")
        lines.append("")
        lines.append(str(memory.audit(KEY)))
        memory.close()
    finally:
        if own:
            shutil.rmtree(path, ignore_errors=True)
    return "\n".join(lines)


# ---------------------------------------------------------------------------- printing
def _served(items: list[dict[str, Any]]) -> str:
    return "  ".join(f'{n}. "{i["content"]}" ({i["score"]:.2f})' for n, i in enumerate(items, 1))


def _print_turns(tepa: list[Turn], plain: list[Turn], say: Callable[[str], None]) -> None:
    thread = ""
    for ours, theirs in zip(tepa, plain, strict=True):
        if ours.thread != thread:
            thread = ours.thread
            say(f"[thread {thread}]")
        say(f"  user:  {ours.user}")
        say(f"  tool:  {ours.tool}({json.dumps(ours.args)})")
        if ours.tool == "search_memories":
            say(f"         TEPAStore served:     {_served(ours.served) or '(nothing)'}")
            say(f"         InMemoryStore served: {_served(theirs.served) or '(nothing)'}")
            say(f"  agent: {ours.answer}")
            say(f"         (the same agent over InMemoryStore: {theirs.answer})")
        else:
            say(f"  agent: {ours.answer}  [item {ours.saved}]")


_SUPERSEDED = re.compile(
    r"superseded: (?P<key>\S+) is now (?P<new>'.*?') \(item [^)]*\), not (?P<old>'.*')"
)


def plain_audit(store: TEPAStore, ns: tuple[str, ...], old_key: str, new_key: str) -> list[str]:
    """Why the old item was taken back, in words: what, why, by what, when, and what is kept."""
    old, new = store.audit(ns, old_key).precedents[0], store.get(ns, new_key)
    gone = old.revocation
    if gone is None or new is None:  # pragma: no cover - the demo's change always takes it back
        return [f"{old.value['content']!r} is still served ({old.state.value})"]
    m = _SUPERSEDED.match(gone.reason)
    why = (
        f"the later memory changes {m['key'].split('.', 1)[-1].replace('_', ' ')} "
        f"from {m['old']} to {m['new']}"
        if m
        else gone.reason
    )
    when = datetime.fromtimestamp(gone.time, tz=timezone.utc).strftime("%H:%M:%S UTC")
    return [
        f"taken back: {old.value['content']!r} (saved by the save_memory tool)",
        f"  why:  {why}",
        f"  by:   {new.value['content']!r}, written by the same tool as source {store.source!r}",
        f"  when: {when}, {gone.time - old.created_at:.1f} s after it was saved",
        "  now:  store.get() and store.search() no longer return it; store.audit() keeps it with "
        "the reason, and it comes back if the user says it again",
    ]


def run(path: str, say: Callable[[str], None] = print) -> None:
    """Run the conversation over a ``TEPAStore`` at ``path`` and an ``InMemoryStore``; print it."""
    embeddings = HashingEmbeddings()
    index: Any = {"dims": 384, "embed": embeddings, "fields": ["content"]}
    store = TEPAStore.from_path(path, index=index, embeddings=embeddings)
    try:
        threads = len({thread for thread, _ in CONVERSATION})
        say(
            f"== 1. one user, {threads} threads (memory: TEPAStore on embedded Chroma in {path}) =="
        )
        tepa = converse(build_agent(store))
        plain = converse(build_agent(InMemoryStore(index=index)))
        _print_turns(tepa, plain, say)

        stale, new = STALE, NEW
        after = next(n for n, t in enumerate(tepa) if t.user == new)
        for name, turns in (("TEPAStore", tepa), ("InMemoryStore", plain)):
            searches = [t for t in turns[after:] if t.tool == "search_memories"]
            hits = sum(any(i["content"] == stale for i in t.served) for t in searches)
            say(
                f"  -> after the change, {name} served {stale!r} in {hits} of "
                f"{len(searches)} searches"
            )

        ns = ("memories", USER_ID)
        old_key = next(t.saved for t in tepa if t.user == stale)
        new_key = next(t.saved for t in tepa if t.user == new)
        if old_key is None or new_key is None:  # pragma: no cover - the model always saves
            raise RuntimeError("the agent did not save the two colour memories")
        say("")
        say("== 2. the changed preference, audited ==")
        for line in plain_audit(store, ns, old_key, new_key):
            say(line)
    finally:
        store.memory.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m langchain_tepa.demo``; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m langchain_tepa.demo", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--path", help="memory folder to keep (default: a temporary one)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print(
        f"langchain-tepa demo: an offline agent with revocable memory, then one reversal step "
        f"by step (usually under {EXPECTED_SECONDS} s; no network, no API key)",
        flush=True,
    )
    print()
    if args.path:
        run(args.path)
    else:
        with tempfile.TemporaryDirectory(prefix="tepa-demo-") as folder:
            run(folder)
    print()
    print("== 3. what a memory replaces: the offline rules, and a chat model as judge ==")
    print(show_judged())
    print()
    print("== 4. one keyed reversal, step by step (embedded Chroma) ==")
    print(show_reversal())
    print()
    print(f"demo finished in {time.perf_counter() - start:.1f} s (after the imports)")
    if args.path:
        print(f"the memory stays in {args.path} (TEPAStore.from_path opens it again)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
