"""The OpenAI path, offline: ChatOpenAI/OpenAIEmbeddings against the fake server on 127.0.0.1.

Each test checks what the client library sends (model, messages, tools, schema) and how the
library reads the answers, through the recorded requests of ``tests.support.fake_openai``.
"""

from __future__ import annotations

import json
import math

import openai
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from pydantic import BaseModel, Field

from langchain_tepa import (
    ExtractionError,
    HashingEmbeddings,
    InvalidArgumentError,
    TEPAMemory,
    default_embeddings,
)
from langchain_tepa.extraction import FactExtractor, LLMFactExtractor
from langchain_tepa.extraction.llm import normalize_key
from tests.support.fake_openai import (
    Error,
    FakeOpenAI,
    Raw,
    Structured,
    Text,
    last_user_text,
    tool_call,
)


def chat(server: FakeOpenAI, **kw: object) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o-mini", base_url=server.base_url, api_key="test", max_retries=0, **kw
    )


def embeddings(server: FakeOpenAI, **kw: object) -> OpenAIEmbeddings:
    return OpenAIEmbeddings(
        model="text-embedding-3-small",
        base_url=server.base_url,
        api_key="test",
        check_embedding_ctx_length=False,
        max_retries=0,
        **kw,
    )


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


class Weather(BaseModel):
    """Get the weather of a city."""

    city: str = Field(description="City name")
    unit: str = Field(description="celsius or fahrenheit")


# ---------------------------------------------------------------------- chat completions
def test_plain_text_request_and_answer(fake_openai: FakeOpenAI) -> None:
    fake_openai.add("Hello from the fake server.")
    llm = chat(fake_openai, temperature=0)
    answer = llm.invoke([SystemMessage("Be brief."), HumanMessage("Say hello.")])
    assert answer.content == "Hello from the fake server."
    assert answer.response_metadata["model_name"] == "gpt-4o-mini"
    assert answer.usage_metadata is not None
    assert answer.usage_metadata["output_tokens"] == 5  # words of the answer

    (req,) = fake_openai.requests
    assert req.method == "POST"
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer test"
    body = req.body
    assert body["model"] == "gpt-4o-mini"
    assert body["temperature"] == 0
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Say hello."},
    ]
    assert "tools" not in body
    assert "response_format" not in body


def test_tool_calls_are_sent_and_parsed(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(tool_call("Weather", city="Oslo", unit="celsius"))
    msg = chat(fake_openai).bind_tools([Weather]).invoke("Weather in Oslo?")
    assert len(msg.tool_calls) == 1
    call = msg.tool_calls[0]
    assert call["name"] == "Weather"
    assert call["args"] == {"city": "Oslo", "unit": "celsius"}
    assert call["id"].startswith("call_")
    assert msg.response_metadata["finish_reason"] == "tool_calls"

    body = fake_openai.chat_requests[0]
    (tool,) = body["tools"]
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "Weather"
    assert tool["function"]["description"] == "Get the weather of a city."
    params = tool["function"]["parameters"]
    assert set(params["properties"]) == {"city", "unit"}
    assert set(params["required"]) == {"city", "unit"}


def test_tool_result_round_trip_is_sent_back(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(tool_call("Weather", city="Oslo", unit="celsius"), "It is 3 degrees.")
    llm = chat(fake_openai).bind_tools([Weather])
    first = llm.invoke("Weather in Oslo?")
    from langchain_core.messages import ToolMessage

    tool_msg = ToolMessage("3 degrees", tool_call_id=first.tool_calls[0]["id"])
    second = llm.invoke([HumanMessage("Weather in Oslo?"), first, tool_msg])
    assert second.content == "It is 3 degrees."
    sent = fake_openai.chat_requests[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assert sent[1]["tool_calls"][0]["function"]["name"] == "Weather"
    assert json.loads(sent[1]["tool_calls"][0]["function"]["arguments"]) == {
        "city": "Oslo",
        "unit": "celsius",
    }
    assert sent[2] == {
        "role": "tool",
        "content": "3 degrees",
        "tool_call_id": first.tool_calls[0]["id"],
    }


def test_structured_output_json_schema(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(Structured({"city": "Lima", "unit": "celsius"}))
    result = chat(fake_openai).with_structured_output(Weather).invoke("Lima, metric")
    assert result == Weather(city="Lima", unit="celsius")
    fmt = fake_openai.chat_requests[0]["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Weather"
    assert fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"city", "unit"}
    assert "tools" not in fake_openai.chat_requests[0]


def test_structured_output_function_calling(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(Structured({"city": "Kyiv", "unit": "celsius"}))
    runnable = chat(fake_openai).with_structured_output(Weather, method="function_calling")
    assert runnable.invoke("Kyiv") == Weather(city="Kyiv", unit="celsius")
    body = fake_openai.chat_requests[0]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "Weather"}}
    assert [t["function"]["name"] for t in body["tools"]] == ["Weather"]
    assert "response_format" not in body


def test_streaming_answer_is_assembled(fake_openai: FakeOpenAI) -> None:
    fake_openai.add("one two three")
    chunks = list(chat(fake_openai, stream_usage=True).stream("count"))
    assert "".join(str(c.content) for c in chunks) == "one two three"
    assert sum(1 for c in chunks if c.content) == 3
    body = fake_openai.chat_requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    usage = [c.usage_metadata for c in chunks if c.usage_metadata]
    assert usage
    assert usage[-1]["output_tokens"] == 3


def test_streaming_tool_calls(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(tool_call("Weather", city="Rome", unit="celsius"))
    llm = chat(fake_openai).bind_tools([Weather])
    full = None
    for chunk in llm.stream("Rome?"):
        full = chunk if full is None else full + chunk
    assert full is not None
    assert full.tool_calls[0]["args"] == {"city": "Rome", "unit": "celsius"}


async def test_async_invoke_and_handler(fake_openai: FakeOpenAI) -> None:
    fake_openai.handler = lambda req: f"echo: {last_user_text(req)}"
    llm = chat(fake_openai)
    first = await llm.ainvoke("ping")
    second = await llm.ainvoke("pong")
    assert (first.content, second.content) == ("echo: ping", "echo: pong")
    assert len(fake_openai.chat_requests) == 2


def test_errors_reach_the_client(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(Error(429, "slow down", "rate_limit_exceeded", "rate_limit"))
    with pytest.raises(openai.RateLimitError, match="slow down"):
        chat(fake_openai).invoke("hi")
    # An exhausted script answers 400 (never retried) and is recorded.
    with pytest.raises(openai.BadRequestError, match="script exhausted"):
        chat(fake_openai).invoke("hi")
    assert fake_openai.failures
    assert "script exhausted at chat request #2" in fake_openai.failures[0]


def test_a_failing_handler_is_reported_not_hung(fake_openai: FakeOpenAI) -> None:
    def broken(req: dict) -> str:
        raise KeyError("boom")

    fake_openai.add(broken, lambda req: None)
    with pytest.raises(openai.BadRequestError, match="handler failed"):
        chat(fake_openai).invoke("hi")
    with pytest.raises(openai.BadRequestError, match="bad response spec"):
        chat(fake_openai).invoke("hi")
    assert "KeyError: 'boom'" in fake_openai.failures[0]


def test_raw_bodies_are_sent_verbatim(fake_openai: FakeOpenAI) -> None:
    body = {
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_raw",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "raw answer"},
                "finish_reason": "stop",
            }
        ],
    }
    fake_openai.add(Raw(body))
    answer = chat(fake_openai).invoke("hi")
    assert answer.content == "raw answer"
    assert answer.response_metadata["system_fingerprint"] == "fp_raw"
    assert answer.response_metadata["model_name"] == "gpt-4o-mini-2024-07-18"


# ---------------------------------------------------------------------- embeddings
@pytest.mark.parametrize("encoding_format", [None, "float"])
def test_openai_embeddings_vectors_and_request(
    fake_openai: FakeOpenAI, encoding_format: str | None
) -> None:
    kw = {} if encoding_format is None else {"model_kwargs": {"encoding_format": encoding_format}}
    emb = embeddings(fake_openai, **kw)
    texts = ["user.diet: vegan", "user.pizza_topping: mushroom"]
    vectors = emb.embed_documents(texts)
    query = emb.embed_query("what does the user eat?")
    reference = HashingEmbeddings(size=fake_openai.embedding_size)
    expected = reference.embed_documents([*texts, "what does the user eat?"])
    for got, want in zip([*vectors, query], expected, strict=True):
        assert len(got) == fake_openai.embedding_size
        assert cosine(got, want) > 0.999_999  # float32 round trip for base64
    bodies = fake_openai.embedding_requests
    assert bodies[0]["model"] == "text-embedding-3-small"
    # The openai SDK asks for base64 by default and decodes it itself.
    assert bodies[0]["encoding_format"] == (encoding_format or "base64")
    assert bodies[0]["input"] == texts  # strings, not token arrays
    assert bodies[1]["input"] == ["what does the user eat?"]
    assert fake_openai.embedded_texts == [*texts, "what does the user eat?"]


def test_openai_embeddings_dimensions(fake_openai: FakeOpenAI) -> None:
    emb = embeddings(fake_openai, dimensions=24)
    (vec,) = emb.embed_documents(["hello"])
    assert len(vec) == 24
    assert fake_openai.embedding_requests[0]["dimensions"] == 24


async def test_openai_embeddings_async(fake_openai: FakeOpenAI) -> None:
    emb = embeddings(fake_openai)
    vec = await emb.aembed_query("hello world")
    assert cosine(vec, HashingEmbeddings(size=64).embed_query("hello world")) > 0.999_999


def test_embedding_errors_reach_the_client(fake_openai: FakeOpenAI) -> None:
    fake_openai.embed = lambda texts, dims: Error(401, "bad key", "invalid_api_key")
    with pytest.raises(openai.AuthenticationError, match="bad key"):
        embeddings(fake_openai).embed_query("x")


# ---------------------------------------------------------------------- default_embeddings
def test_default_embeddings_without_key_is_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert isinstance(default_embeddings(), HashingEmbeddings)


def test_default_embeddings_openai_when_chosen(openai_env: FakeOpenAI) -> None:
    emb = default_embeddings()
    assert isinstance(emb, OpenAIEmbeddings)
    assert emb.model == "text-embedding-3-small"
    assert emb.openai_api_base == openai_env.base_url
    assert emb.check_embedding_ctx_length is False
    vec = emb.embed_query("vegan food")
    assert len(vec) == openai_env.embedding_size
    (req,) = openai_env.requests
    assert req.path == "/v1/embeddings"
    assert req.headers["authorization"] == "Bearer test"
    assert req.body["input"] == ["vegan food"]
    assert req.body["model"] == "text-embedding-3-small"


def test_default_embeddings_options(
    openai_env: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEPA_OPENAI_EMBEDDING_MODEL", "text-embedding-3-large")
    monkeypatch.setenv("TEPA_OPENAI_EMBEDDING_DIMENSIONS", "32")
    emb = default_embeddings()
    assert isinstance(emb, OpenAIEmbeddings)
    assert len(emb.embed_query("x")) == 32
    body = openai_env.embedding_requests[0]
    assert (body["model"], body["dimensions"]) == ("text-embedding-3-large", 32)

    monkeypatch.setenv("TEPA_OPENAI_EMBEDDING_DIMENSIONS", "many")
    with pytest.raises(InvalidArgumentError, match="TEPA_OPENAI_EMBEDDING_DIMENSIONS"):
        default_embeddings()

    monkeypatch.setenv("TEPA_EMBEDDINGS", "Hashing")
    assert isinstance(default_embeddings(), HashingEmbeddings)


def test_default_embeddings_without_base_url_keeps_token_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    monkeypatch.setenv("TEPA_EMBEDDINGS", "openai")
    emb = default_embeddings()  # constructing contacts nobody
    assert isinstance(emb, OpenAIEmbeddings)
    assert emb.check_embedding_ctx_length is True


# ---------------------------------------------------------------------- TEPAMemory end to end
def test_memory_with_openai_embeddings_end_to_end(fake_openai: FakeOpenAI, tick: object) -> None:
    memory = TEPAMemory.in_memory(embeddings=embeddings(fake_openai), clock=tick)
    memory.observe("user.diet", "vegan")
    memory.observe("user.home_city", "Lisbon")
    memory.observe("user.pizza_topping", "pineapple")
    sent = list(fake_openai.embedded_texts)
    assert sent == ["user.diet: vegan", "user.home_city: Lisbon", "user.pizza_topping: pineapple"]

    docs = memory.retrieve("pizza topping", k=1)
    assert [d.metadata["value"] for d in docs] == ["pineapple"]
    assert fake_openai.embedded_texts[-1] == "pizza topping"

    memory.observe("user.pizza_topping", "mushroom")
    memory.observe("user.pizza_topping", "mushroom")
    values = [d.metadata["value"] for d in memory.retrieve("pizza topping", k=4)]
    assert "mushroom" in values
    assert "pineapple" not in values  # revoked: never retrieved again
    assert [p.state.value for p in memory.audit("user.pizza_topping").precedents] == [
        "revoked",
        "active",
    ]
    # Support for an existing value embeds nothing new; only the new value and queries do.
    assert fake_openai.embedded_texts[len(sent) + 1 :] == [
        "user.pizza_topping: mushroom",
        "pizza topping",
    ]


async def test_memory_default_embeddings_from_env(openai_env: FakeOpenAI) -> None:
    memory = TEPAMemory.in_memory()
    assert isinstance(memory.embeddings, OpenAIEmbeddings)
    await memory.aobserve("user.diet", "vegetarian")
    docs = await memory.aretrieve("diet", k=1)
    assert docs[0].metadata["value"] == "vegetarian"
    assert openai_env.embedded_texts == ["user.diet: vegetarian", "diet"]


# ---------------------------------------------------------------------- LLMFactExtractor
def facts_answer(*items: tuple[str, str, float]) -> Structured:
    return Structured({"facts": [{"key": k, "value": v, "confidence": c} for k, v, c in items]})


def test_normalize_key() -> None:
    assert normalize_key("User . Diet") == "user.diet"
    assert normalize_key("My Favourite-Pizza Topping") == "user.favourite_pizza_topping"
    assert normalize_key("I.home city") == "user.home_city"
    assert normalize_key("diet", default_subject="alice") == "alice.diet"
    assert normalize_key("France..Capital") == "france.capital"
    assert normalize_key(" ?! ") is None
    assert len(normalize_key("a." + "b" * 400) or "") <= 256


def test_llm_extractor_request_and_facts(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(
        facts_answer(
            ("User Diet", "  vegan ", 0.95),
            ("user.diet", "Vegan", 0.7),  # the same fact again: best confidence kept
            ("my home-city", "Lisbon", 1.4),  # clamped to 1
            ("user.mood", "tired", 0.2),  # below min_confidence
            ("??", "x", 0.9),  # no key left
            ("user.job", "   ", 0.9),  # no value
        )
    )
    extractor = LLMFactExtractor(llm=chat(fake_openai), min_confidence=0.5)
    assert isinstance(extractor, FactExtractor)
    text = "I went vegan last year and I live in Lisbon. Tired today."
    facts = extractor.extract(text)
    assert [(f.key, f.value, f.confidence) for f in facts] == [
        ("user.diet", "vegan", 0.95),
        ("user.home_city", "Lisbon", 1.0),
    ]
    assert all(f.text == text for f in facts)
    assert facts[0].metadata == {"extractor": "llm", "model": "gpt-4o-mini"}

    body = fake_openai.chat_requests[0]
    assert body["model"] == "gpt-4o-mini"
    system, human = body["messages"]
    assert system["role"] == "system"
    assert "canonical dotted key" in system["content"]
    assert "user.diet" in system["content"]
    assert human == {"role": "user", "content": text}
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "ExtractedFacts"
    item = fmt["json_schema"]["schema"]["$defs"]["ExtractedFact"]
    assert set(item["required"]) == {"key", "value", "confidence", "multi_valued"}


def test_llm_extractor_function_calling_and_known_keys(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(facts_answer(("user.pizza_topping", "mushroom", 0.9)))
    known = ["user.pizza_topping", "user.diet"]
    extractor = LLMFactExtractor(
        llm=chat(fake_openai), method="function_calling", known_keys=lambda: known
    )
    facts = extractor.extract("Mushroom on my pizza from now on.")
    assert [(f.key, f.value) for f in facts] == [("user.pizza_topping", "mushroom")]
    body = fake_openai.chat_requests[0]
    assert body["tool_choice"]["function"]["name"] == "ExtractedFacts"
    system = body["messages"][0]["content"]
    assert "- user.pizza_topping\n- user.diet" in system


def test_llm_extractor_min_confidence_zero_keeps_everything(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(facts_answer(("user.mood", "tired", 0.1), ("user.x", "y", float("nan"))))
    extractor = LLMFactExtractor(llm=chat(fake_openai), min_confidence=0.0)
    assert [(f.key, f.confidence) for f in extractor.extract("tired?")] == [("user.mood", 0.1)]


def test_llm_extractor_a_hedge_at_the_floor_is_dropped(fake_openai: FakeOpenAI) -> None:
    """A hedge, which the prompt scores about 0.5, never becomes a fact (the floor is exclusive)."""
    fake_openai.add(facts_answer(("user.home_city", "Rome", 0.5), ("user.diet", "vegan", 0.51)))
    extractor = LLMFactExtractor(llm=chat(fake_openai))
    facts = extractor.extract("I might move to Rome. I'm vegan, I think.")
    assert [(f.key, f.value) for f in facts] == [("user.diet", "vegan")]


def test_llm_extractor_multi_valued_is_the_models_answer(fake_openai: FakeOpenAI) -> None:
    answer = {
        "facts": [
            {"key": "user.supplements", "value": "zinc", "confidence": 0.9, "multi_valued": True},
            {"key": "user.pets", "value": "dog", "confidence": 0.9, "multi_valued": False},
        ]
    }
    fake_openai.add(Structured(answer))
    facts = LLMFactExtractor(llm=chat(fake_openai)).extract("I take zinc. My dog is Rex.")
    assert [(f.key, (f.metadata or {}).get("multi_valued")) for f in facts] == [
        ("user.supplements", True),
        ("user.pets", None),
    ]
    schema = fake_openai.chat_requests[0]["response_format"]["json_schema"]["schema"]
    assert "multi_valued" in schema["$defs"]["ExtractedFact"]["properties"]


async def test_llm_extractor_async(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(facts_answer(("acme.ceo", "Dana Ruiz", 0.9)))
    extractor = LLMFactExtractor(llm=chat(fake_openai))
    facts = await extractor.aextract("Dana Ruiz is the CEO of Acme.")
    assert [(f.key, f.value) for f in facts] == [("acme.ceo", "Dana Ruiz")]


def test_llm_extractor_blank_text_calls_nothing(fake_openai: FakeOpenAI) -> None:
    extractor = LLMFactExtractor(llm=chat(fake_openai))
    assert extractor.extract("   \n") == []
    assert fake_openai.requests == []
    with pytest.raises(InvalidArgumentError, match="text must be a string"):
        extractor.extract(42)  # type: ignore[arg-type]


def test_llm_extractor_default_model_is_lazy_chat_openai(openai_env: FakeOpenAI) -> None:
    extractor = LLMFactExtractor()
    assert openai_env.requests == []  # nothing created or sent yet
    openai_env.add(facts_answer(("user.diet", "vegan", 1.0)))
    assert [f.key for f in extractor.extract("I am vegan.")] == ["user.diet"]
    assert isinstance(extractor.llm, ChatOpenAI)
    body = openai_env.chat_requests[0]
    assert body["model"] == "gpt-4o-mini"
    assert body["temperature"] == 0


def test_llm_extractor_model_from_env(
    openai_env: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEPA_OPENAI_CHAT_MODEL", "gpt-4.1-mini")
    openai_env.add(facts_answer())
    assert LLMFactExtractor().extract("Nothing to see.") == []
    assert openai_env.chat_requests[0]["model"] == "gpt-4.1-mini"
    openai_env.add(facts_answer())
    LLMFactExtractor(model="my-local-model").extract("Nothing.")
    assert openai_env.chat_requests[1]["model"] == "my-local-model"


def test_llm_extractor_without_key_explains(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    extractor = LLMFactExtractor()  # constructing is fine without a key
    with pytest.raises(ExtractionError, match="OPENAI_API_KEY"):
        extractor.extract("I am vegan.")


@pytest.mark.parametrize(
    ("answer", "match"),
    [
        (Error(500, "upstream exploded"), "upstream exploded"),
        (Error(404, "model not found", "invalid_request_error"), "model not found"),
        (Text("this is not json"), "failed"),
        (Structured({"facts": [{"key": "user.diet"}]}), "failed|schema"),
    ],
)
def test_llm_extractor_wraps_model_errors(
    fake_openai: FakeOpenAI, answer: object, match: str
) -> None:
    fake_openai.add(answer)  # type: ignore[arg-type]
    extractor = LLMFactExtractor(llm=chat(fake_openai))
    with pytest.raises(ExtractionError, match=match) as info:
        extractor.extract("I am vegan.")
    assert "gpt-4o-mini" in str(info.value)
    assert info.value.__cause__ is not None


def test_llm_extractor_function_calling_schema_mismatch(fake_openai: FakeOpenAI) -> None:
    fake_openai.add(Structured({"facts": "none"}))
    extractor = LLMFactExtractor(llm=chat(fake_openai), method="function_calling")
    with pytest.raises(ExtractionError):
        extractor.extract("I am vegan.")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_confidence": 1.5},
        {"min_confidence": True},
        {"method": "xml"},
        {"default_subject": "My User"},
        {"default_subject": "me"},
        {"model": " "},
    ],
)
def test_llm_extractor_rejects_bad_arguments(kwargs: dict) -> None:
    with pytest.raises(InvalidArgumentError):
        LLMFactExtractor(**kwargs)


def test_add_texts_with_llm_extractor(fake_openai: FakeOpenAI, tick: object) -> None:
    fake_openai.add(
        facts_answer(("user.pizza_topping", "pineapple", 0.9)),
        facts_answer(("User.Pizza Topping", "mushroom", 0.9)),
        facts_answer(("pizza topping", "mushroom", 0.8)),
    )
    extractor = LLMFactExtractor(llm=chat(fake_openai))
    memory = TEPAMemory.in_memory(
        embeddings=embeddings(fake_openai), extractor=extractor, clock=tick
    )
    memory.add_texts(["I love pineapple on pizza."])
    memory.add_texts(["Actually, mushroom is my topping now.", "Mushroom, definitely."])
    assert memory.keys() == ["user.pizza_topping"]
    assert memory.get("user.pizza_topping") == "mushroom"
    audit = memory.audit("user.pizza_topping")
    assert [(p.value, p.state.value) for p in audit.precedents] == [
        ("pineapple", "revoked"),
        ("mushroom", "active"),
    ]
    history = memory.history("user.pizza_topping")
    assert history[0].text == "I love pineapple on pizza."
    assert history[0].metadata == {"extractor": "llm", "model": "gpt-4o-mini"}
    user_turns = [r["messages"][-1]["content"] for r in fake_openai.chat_requests]
    assert user_turns == [
        "I love pineapple on pizza.",
        "Actually, mushroom is my topping now.",
        "Mushroom, definitely.",
    ]
