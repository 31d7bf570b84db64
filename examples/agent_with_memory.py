"""A LangChain agent (`create_agent`) with TEPA memory tools and a TEPA retriever.

Run it::

    python examples/agent_with_memory.py                 # offline: a scripted chat model
    OPENAI_API_KEY=sk-... python examples/agent_with_memory.py   # ChatOpenAI (gpt-4o-mini)
    OPENAI_API_KEY=sk-... python examples/agent_with_memory.py --offline   # scripted anyway
    python examples/agent_with_memory.py --path ./agent-memory   # keep the memory on disk

The agent gets the ``remember``/``recall``/``forget`` tools of ``create_memory_tools`` and, on
every model call, a system prompt holding what the retriever finds for the user's last message
(Active precedents only). The user states a pizza preference, changes it, and asks what to
order: the old value is revoked by evidence, the retriever stops returning it, and the audit
shows why. Without ``OPENAI_API_KEY`` (or with ``--offline``) a scripted chat model plays the
LLM: it emits the tool calls a tool-calling model would and answers from the tool results, so the
whole flow runs offline. A wrong key or an unreachable endpoint fails in one line.
Afterwards, ``tepa inspect PATH`` shows the memory the agent left.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import ModelRequest, dynamic_prompt
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.tools import create_memory_tools

CONVERSATION = [
    "I love pineapple on my pizza.",
    "Actually, I've gone off pineapple. Mushroom is my thing now.",
    "Yes, definitely mushroom from now on.",
    "What pizza should I order for me tonight?",
]

# What a tool-calling model would do with each user message (the offline stand-in for an LLM).
SCRIPT: dict[str, tuple[str, dict[str, Any]]] = {
    CONVERSATION[0]: ("remember", {"key": "user.pizza_topping", "value": "pineapple"}),
    CONVERSATION[1]: ("remember", {"key": "user.pizza_topping", "value": "mushroom"}),
    CONVERSATION[2]: ("remember", {"key": "user.pizza_topping", "value": "mushroom"}),
    CONVERSATION[3]: ("recall", {"query": "pizza topping the user likes", "key_prefix": "user"}),
}


class ScriptedChatModel(BaseChatModel):
    """An offline chat model that plays a tool-calling LLM from a script.

    On a user message it emits the scripted tool call; on a tool result it answers in words,
    reading the tool's output (so the answer comes from the memory, not from the script).

    Example:
        >>> model = ScriptedChatModel(script={"hi": ("recall", {"query": "hi"})})
        >>> model.invoke([HumanMessage("hi")]).tool_calls[0]["name"]
        'recall'
    """

    script: dict[str, tuple[str, dict[str, Any]]]
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(
        self, tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
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
        elif isinstance(last, HumanMessage) and str(last.content) in self.script:
            name, args = self.script[str(last.content)]
            call = {"name": name, "args": args, "id": f"call_{self.calls}", "type": "tool_call"}
            message = AIMessage(content="", tool_calls=[call])
        else:
            message = AIMessage(content="I have nothing scripted for that.")
        return ChatResult(generations=[ChatGeneration(message=message)])

    @staticmethod
    def _answer(result: ToolMessage) -> str:
        text = str(result.content)
        if result.name == "recall":
            try:
                facts = json.loads(text)
            except json.JSONDecodeError:
                return "I don't know your preference yet."
            best = max(facts, key=lambda f: f["validity"])
            return f"Order a {best['value']} pizza (validity {best['validity']:.2f})."
        return f"Noted. ({text})"


def make_model(*, offline: bool = False) -> BaseChatModel:
    """ChatOpenAI when OPENAI_API_KEY is set (and not ``offline``), else the scripted model."""
    if os.environ.get("OPENAI_API_KEY") and not offline:
        from langchain_openai import ChatOpenAI

        name = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
        print("model: ChatOpenAI", name, "(--offline uses the scripted model)")
        # one retry and a short timeout: a wrong key or no network fails in seconds, not minutes
        return ChatOpenAI(model=name, temperature=0, max_retries=1, timeout=30)
    print("model: scripted offline chat model (set OPENAI_API_KEY to use ChatOpenAI)")
    return ScriptedChatModel(script=SCRIPT)


def run(path: str, *, offline: bool = False) -> TEPAMemory:
    """Talk to the agent, then print what the memory holds and why."""
    memory = TEPAMemory.from_path(path, embeddings=HashingEmbeddings())
    retriever = memory.as_retriever(k=3)

    @dynamic_prompt
    def memory_prompt(request: ModelRequest) -> str:
        humans = [m for m in request.messages if isinstance(m, HumanMessage)]
        query = str(humans[-1].content) if humans else ""
        docs = retriever.invoke(query) if query else []
        known = "\n".join(
            f"- {d.metadata['key']} = {d.metadata['value']} (validity {d.metadata['validity']:.2f})"
            for d in docs
        )
        return (
            "You are a helpful assistant with a long-term memory. Call `remember` whenever the "
            "user states or changes a preference (key 'user.<attribute>'), and `recall` before "
            "answering questions about the user.\nActive memories relevant to the last message:\n"
            + (known or "- none")
        )

    agent = create_agent(
        make_model(offline=offline),
        tools=create_memory_tools(memory, source="agent"),
        middleware=[memory_prompt],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "demo"}}
    for text in CONVERSATION:
        result = agent.invoke({"messages": [HumanMessage(text)]}, config)
        calls = [
            f"{c['name']}({json.dumps(c['args'])})"
            for m in result["messages"]
            if isinstance(m, AIMessage)
            for c in m.tool_calls
        ][-1:]
        print(f"\nuser:  {text}")
        if calls:
            print(f"tool:  {calls[0]}")
        print(f"agent: {result['messages'][-1].content}")

    print("\nretriever now returns (Active only):")
    for doc in retriever.invoke("pizza topping"):
        print(f"  {doc.metadata['key']} = {doc.metadata['value']} ({doc.metadata['state']})")
    print()
    print(memory.audit("user.pizza_topping"))
    return memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", help="memory folder (default: a temporary one)")
    parser.add_argument(
        "--offline", action="store_true", help="use the scripted model even with OPENAI_API_KEY"
    )
    args = parser.parse_args()
    try:
        if args.path:
            run(args.path, offline=args.offline).close()
            print(f"\ninspect it with: tepa inspect {args.path}")
            return
        with tempfile.TemporaryDirectory(prefix="tepa-agent-") as folder:
            run(folder, offline=args.offline).close()
    except Exception as exc:  # an API error: one line that says what to set, not a traceback
        if not type(exc).__module__.startswith(("openai", "langchain_openai", "httpx")):
            raise
        sys.exit(
            f"error: the OpenAI API call failed ({type(exc).__name__}: {str(exc)[:160]}); "
            "check OPENAI_API_KEY (and OPENAI_BASE_URL), or run with --offline"
        )


if __name__ == "__main__":
    main()
