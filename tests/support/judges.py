"""A scripted judge model: a chat model that answers a ReplacementJudge's prompt from a table.

``TableJudgeModel(relations={(new text, earlier text): "replaces"}, flags={new text: {...}})``
reads the JSON the judge sends (the new memories and the earlier ones, with their ids) and
answers in the judge's JSON form, as a real model would. It records every prompt it was shown
(``seen``: the parsed JSON bodies; ``async_calls`` counts the calls through ``ainvoke``), and
can be told to fail: ``fail="raise"`` (an error), ``"malformed"`` (no JSON), ``"sleep"`` (slower
than any test timeout), ``"unknown"`` (a verdict on an id it was not shown).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

__all__ = ["TableJudgeModel"]


class TableJudgeModel(BaseChatModel):
    """Answers the judge's prompt from ``relations`` and ``flags`` (module docstring)."""

    relations: dict[tuple[str, str], str] = Field(default_factory=dict)
    flags: dict[str, list[str]] = Field(default_factory=dict)
    confidence: float = 0.9
    fail: str | None = None
    seen: list[dict[str, Any]] = Field(default_factory=list)
    async_calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "table-judge"

    def answer(self, body: Mapping[str, Any]) -> str:
        """The JSON answer to one prompt body."""
        memories = []
        shown = list(body["earlier"])
        for i, new in enumerate(body["new"]):
            verdicts = []
            for old in shown + list(body["new"][:i]):
                relation = self.relations.get((new["text"], old["text"]))
                if relation is not None:
                    verdicts.append(
                        {
                            "candidate": old["id"],
                            "relation": relation,
                            "confidence": self.confidence,
                            "reason": f"{relation}: {old['text']}",
                        }
                    )
            if self.fail == "unknown":
                verdicts.append(
                    {"candidate": "c99", "relation": "replaces", "confidence": 1.0, "reason": "?"}
                )
            entry: dict[str, Any] = {"id": new["id"], "verdicts": verdicts}
            for flag in self.flags.get(new["text"], []):
                entry[flag] = True
            memories.append(entry)
        return json.dumps({"memories": memories})

    def _reply(self, messages: list[BaseMessage]) -> ChatResult:
        body = json.loads(str(messages[-1].content))
        self.seen.append(body)
        if self.fail == "raise":
            raise RuntimeError("the model is down")
        text = "Sure! Here is my answer." if self.fail == "malformed" else self.answer(body)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.fail == "sleep":
            time.sleep(2.0)
        return self._reply(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.async_calls += 1
        if self.fail == "sleep":
            await asyncio.sleep(2.0)
        return self._reply(messages)
