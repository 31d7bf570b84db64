"""TEPAConversationMemory: the LangChain-classic BaseMemory adapter."""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable

import pytest
from langchain_core.documents import Document

from langchain_tepa import Fact, HashingEmbeddings, InvalidArgumentError, Lifecycle, TEPAMemory
from langchain_tepa.classic import MissingDependencyError, TEPAConversationMemory


class ColonExtractor:
    """Test extractor: 'key = value' clauses separated by ';'."""

    def extract(self, text: str) -> list[Fact]:
        facts = []
        for part in text.split(";"):
            key, sep, value = part.partition("=")
            if sep:
                facts.append(Fact(key.strip(), value.strip(), text=part.strip()))
        return facts


@pytest.fixture
def memory(tick: Callable[[], float]) -> TEPAMemory:
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), clock=tick, extractor=ColonExtractor()
    )


def test_variables_save_and_load(memory: TEPAMemory) -> None:
    chat = TEPAConversationMemory(memory=memory, k=2)
    assert chat.memory_variables == ["facts"]
    assert chat.load_memory_variables({"input": "pizza"}) == {"facts": ""}
    chat.save_context({"input": "user.pizza = mushroom; user.city = Oslo"}, {"output": "noted"})
    assert memory.get("user.pizza") == "mushroom"
    facts = chat.load_memory_variables({"input": "what pizza do I like? user.pizza"})["facts"]
    assert facts.splitlines()[0] == "- user.pizza: mushroom"
    assert "- user.city: Oslo" in facts.splitlines()
    assert [ev.source for ev in memory.history("user.pizza")] == ["conversation"]


def test_preference_change_is_evidence(memory: TEPAMemory) -> None:
    chat = TEPAConversationMemory(memory=memory, memory_key="known", k=1)
    chat.save_context({"question": "user.pizza = pineapple"}, {"answer": "ok"})
    chat.save_context({"question": "user.pizza = mushroom"}, {"answer": "ok"})
    assert chat.load_memory_variables({"question": "user.pizza"}) == {
        "known": "- user.pizza: mushroom"
    }
    assert len(memory.audit("user.pizza").precedents) == 2
    both = TEPAConversationMemory(memory=memory, k=4, best_value_only=False)
    lines = both.load_memory_variables({"input": "user.pizza"})["facts"].splitlines()
    assert sorted(lines) == ["- user.pizza: mushroom", "- user.pizza: pineapple"]


def test_outputs_only_when_asked(memory: TEPAMemory) -> None:
    TEPAConversationMemory(memory=memory).save_context(
        {"input": "hi"}, {"output": "bot.mood = happy"}
    )
    assert memory.get("bot.mood") is None
    chat = TEPAConversationMemory(memory=memory, extract_outputs=True)
    chat.save_context({"input": "hi"}, {"output": "bot.mood = happy"})
    assert memory.get("bot.mood") == "happy"


def test_clear_revokes_and_keeps_the_archive(memory: TEPAMemory) -> None:
    chat = TEPAConversationMemory(memory=memory, namespace="users.u1")
    chat.save_context({"input": "user.pizza = mushroom; user.city = Oslo"}, {"output": "ok"})
    memory.observe("user.pizza", "olive", namespace="users.u2")
    chat.clear()
    assert chat.load_memory_variables({"input": "pizza"}) == {"facts": ""}
    audit = memory.audit("user.pizza", namespace="users.u1")
    assert [p.state for p in audit.precedents] == [Lifecycle.REVOKED]
    assert "cleared" in audit.precedents[0].transitions[-1].reason
    assert memory.get("user.pizza", namespace="users.u2") == "olive"  # other namespace untouched


def test_return_docs(memory: TEPAMemory) -> None:
    memory.observe("user.diet", "vegan")
    docs = TEPAConversationMemory(memory=memory, return_docs=True).load_memory_variables(
        {"input": "diet"}
    )["facts"]
    assert isinstance(docs[0], Document)
    assert docs[0].metadata["value"] == "vegan"


def test_non_string_values_are_json(memory: TEPAMemory) -> None:
    memory.observe("user.sizes", [38, 39])
    assert TEPAConversationMemory(memory=memory).load_memory_variables({"input": "sizes"}) == {
        "facts": "- user.sizes: [38,39]"
    }


async def test_async_twins(memory: TEPAMemory) -> None:
    chat = TEPAConversationMemory(memory=memory)
    await chat.asave_context({"input": "user.pizza = mushroom"}, {"output": "ok"})
    assert await chat.aload_memory_variables({"input": "pizza"}) == {
        "facts": "- user.pizza: mushroom"
    }
    await chat.aclear()
    assert await chat.aload_memory_variables({"input": "pizza"}) == {"facts": ""}


def test_errors(memory: TEPAMemory) -> None:
    with pytest.raises(InvalidArgumentError):
        TEPAConversationMemory(memory="nope")
    with pytest.raises(InvalidArgumentError):
        TEPAConversationMemory(memory=memory, k=0)
    with pytest.raises(InvalidArgumentError):
        TEPAConversationMemory(memory=memory, memory_key="")
    with pytest.raises(InvalidArgumentError, match="set input_key"):
        TEPAConversationMemory(memory=memory).load_memory_variables({"a": "x", "b": "y"})
    with pytest.raises(InvalidArgumentError, match="missing"):
        TEPAConversationMemory(memory=memory, input_key="q").load_memory_variables({"a": "x"})
    with pytest.raises(InvalidArgumentError, match="set output_key"):
        TEPAConversationMemory(memory=memory, extract_outputs=True).save_context(
            {"input": "x"}, {"a": "1", "b": "2"}
        )


def test_in_a_legacy_conversation_chain(memory: TEPAMemory) -> None:
    from langchain_classic.chains import ConversationChain
    from langchain_core.language_models.fake import FakeListLLM
    from langchain_core.prompts import PromptTemplate

    prompt = PromptTemplate.from_template("Known facts:\n{facts}\nHuman: {input}\nAI:")
    llm = FakeListLLM(responses=["noted", "noted", "You like mushroom."])
    seen: list[str] = []

    class Recording(FakeListLLM):
        def _call(self, prompt: str, *args: object, **kwargs: object) -> str:
            seen.append(prompt)
            return super()._call(prompt, *args, **kwargs)  # type: ignore[arg-type]

    llm = Recording(responses=llm.responses)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chain = ConversationChain(llm=llm, prompt=prompt, memory=memory.as_langchain_memory())
        chain.invoke({"input": "user.pizza = pineapple"})
        chain.invoke({"input": "user.pizza = mushroom"})
        out = chain.invoke({"input": "which user.pizza do I like?"})
    assert out["response"] == "You like mushroom."
    assert "- user.pizza: mushroom" in seen[-1]
    assert "pineapple" not in seen[-1]


def test_default_offline_extractor(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=tick)
    chat = TEPAConversationMemory(memory=memory)
    chat.save_context({"input": "My favourite pizza topping is mushroom."}, {"output": "ok"})
    assert "mushroom" in chat.load_memory_variables({"input": "pizza topping"})["facts"]


def test_missing_extra_gives_an_install_hint() -> None:
    code = (
        "import sys; sys.modules['langchain_classic'] = None\n"
        "import langchain_tepa\n"
        "try:\n"
        "    langchain_tepa.TEPAConversationMemory\n"
        "except ImportError as exc:\n"
        "    from langchain_tepa import TEPAError\n"
        "    assert isinstance(exc, TEPAError), type(exc)\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'langchain-tepa[classic]'" in out.stdout
    assert issubclass(MissingDependencyError, ImportError)
