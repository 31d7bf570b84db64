"""A scripted chat model for agent tests: it answers from a list and records what it was shown.

``ScriptedChatModel(script=[AIMessage(..., tool_calls=[...]), AIMessage("done")])`` returns the
scripted messages in order, one per model call, and keeps every prompt it received in ``seen``
(so a test can check that the model was shown a tool's error before its next turn). It supports
``bind_tools`` (returning itself), so ``langchain.agents.create_agent`` accepts it. Running out
of script fails the test loudly instead of looping.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolCall
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import Field

__all__ = ["ScriptedChatModel", "tool_call"]


def tool_call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    """An assistant turn that calls one tool."""
    call = ToolCall(name=name, args=args, id=call_id, type="tool_call")
    return AIMessage(content="", tool_calls=[call])


class ScriptedChatModel(BaseChatModel):
    """Answers with ``script`` in order; ``seen[i]`` is the prompt of the i-th call."""

    script: list[AIMessage]
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        turn = len(self.seen)
        self.seen.append(list(messages))
        if turn >= len(self.script):
            raise AssertionError(f"the model was called {turn + 1} times; the script has {turn}")
        return ChatResult(generations=[ChatGeneration(message=self.script[turn])])
