"""The systems and write paths of ``tepa-bench run freetext``.

Each :class:`FreeTextSystem` writes a scenario's memory texts into one user's namespace and
answers searches with the texts it serves, through one write path:

- ``store``: LangGraph's ``BaseStore`` API, ``put(ns, str(uuid4()), {"content": text})`` then
  ``search(ns, query=q, limit=k)`` (TEPAStore, LangGraph's ``InMemoryStore``);
- ``langmem``: LangMem's own ``create_manage_memory_tool`` / ``create_search_memory_tool`` in a
  ``create_agent`` loop driven by :class:`ScriptedToolModel` (no network), over a store;
- ``vectorstore``: ``add_texts`` then ``similarity_search(q, k=k)`` (TEPAVectorStore, Chroma);
- ``memory``: TEPA's own keyed path, ``TEPAMemory.add_texts`` (extraction, key resolution,
  ``observe``) then ``retrieve(q, k=k)``; a Document's text is the memory text that asserted
  its value. It stores claims, not items: a text with no claim is not stored at all;
- ``native``: Mem0's ``Memory.add(..., infer=False)`` and ``Memory.search``.

Every system of a run embeds with the same embeddings: the offline
:class:`~langchain_tepa.HashingEmbeddings` by default, or all-MiniLM-L6-v2 in numpy
(:class:`~tepa_bench.minilm.MiniLMEmbeddings`, ``embeddings="minilm"``). No system
is given the ground truth; ``tepa-ideal`` is given each text's ideal claims (a scripted stand-in
for a perfect LLM extractor), never which memory is stale. LangMem, langchain-chroma and Mem0
are imported only when their system is built.

Example:
    >>> system = build_system("tepa/store", ideal={})
    >>> system.write("s1", "I live in Lisbon.")
    >>> system.search("s1", "where does the user live", 3)
    ['I live in Lisbon.']
    >>> system.close()
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from langchain_tepa import Fact, TEPAMemory, TEPAStore, TEPAVectorStore
from tepa_bench.freetext_data import Claim
from tepa_bench.minilm import make_embeddings

__all__ = [
    "SYSTEMS",
    "FreeTextSystem",
    "IdealExtractor",
    "ScriptedToolModel",
    "build_system",
    "system_available",
]

SYSTEMS: tuple[str, ...] = (
    "tepa/store",
    "tepa/langmem",
    "tepa/vectorstore",
    "tepa/memory",
    "tepa-ideal/store",
    "tepa-ideal/langmem",
    "tepa-ideal/vectorstore",
    "tepa-ideal/memory",
    "inmemory/store",
    "inmemory/langmem",
    "chroma/vectorstore",
    "mem0/native",
)
"""Every ``system/path`` the benchmark knows, in table order."""

_NEEDS: dict[str, str] = {"langmem": "langmem", "chroma": "langchain_chroma", "mem0": "mem0"}
_DIMS = 384


def system_available(name: str) -> str | None:
    """``None`` when ``name`` can run here, else why not (a missing package)."""
    import importlib.util

    system, path = name.split("/")
    for part in (system, path):
        module = _NEEDS.get(part)
        if module is not None and importlib.util.find_spec(module) is None:
            return f"needs the {module} package (pip install -e ./bench)"
    return None


class IdealExtractor:
    """A scripted extractor that returns each text's ideal claims (unknown text: none).

    It stands in for an LLM extractor that gets every claim right. It knows texts and their
    claims, nothing about which memory is stale.

    Args:
        claims: Text -> ideal claims (:func:`~tepa_bench.freetext_data.ideal_claims`).

    Example:
        >>> IdealExtractor({"I live in Oslo.": (Claim("user.home_city", "Oslo"),)}).extract(
        ...     "I live in Oslo.")[0].value
        'Oslo'
    """

    def __init__(self, claims: Mapping[str, Sequence[Claim]]) -> None:
        self.claims = dict(claims)

    def extract(self, text: str) -> list[Fact]:
        """The ideal claims of ``text`` as facts (multi-valued ones flagged in metadata)."""
        out = []
        for claim in self.claims.get(text, ()):
            metadata = {"multi_valued": True} if claim.multi_valued else None
            out.append(Fact(claim.key, claim.value, text=text, metadata=metadata))
        return out


class ScriptedToolModel(BaseChatModel):
    """A chat model that plays a fixed script of tool calls (no network, no API key).

    The first human message is JSON ``{"remember": [texts], "ask": [queries], "k": 3}``; the
    model's n-th turn calls ``manage_memory`` to create the n-th text, then ``search_memory``
    for each query, one call per turn (so writes keep their order), then answers ``done``.
    """

    @property
    def _llm_type(self) -> str:
        return "scripted-tools"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedToolModel:
        """The script ignores the tool schemas."""
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        first = next(m for m in messages if isinstance(m, HumanMessage))
        plan = json.loads(str(first.content))
        steps: list[tuple[str, dict[str, Any]]] = [
            ("manage_memory", {"content": text, "action": "create"}) for text in plan["remember"]
        ]
        steps += [("search_memory", {"query": q, "limit": plan["k"]}) for q in plan["ask"]]
        turn = sum(isinstance(m, AIMessage) for m in messages)
        if turn >= len(steps):
            message = AIMessage(content="done")
        else:
            name, args = steps[turn]
            call = {"name": name, "args": args, "id": f"call_{turn}", "type": "tool_call"}
            message = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


class FreeTextSystem:
    """One system through one write path.

    Args:
        name: ``system/path``.
        write: ``(scenario_id, text) -> None``.
        search: ``(scenario_id, query, k) -> served texts, best first``.
        extractor: The extractor TEPA was given (``None``: its default, or not TEPA).
        close: Releases resources.
        write_many: Optional ``(scenario_id, texts) -> None`` writing all texts in order (the
            LangMem path writes a scenario in one agent conversation).
        search_many: Optional ``(scenario_id, queries, k) -> one result list per query``.
    """

    def __init__(
        self,
        name: str,
        write: Callable[[str, str], None],
        search: Callable[[str, str, int], list[str]],
        *,
        extractor: Any = None,
        close: Callable[[], None] | None = None,
        write_many: Callable[[str, list[str]], None] | None = None,
        search_many: Callable[[str, list[str], int], list[list[str]]] | None = None,
    ) -> None:
        self.name = name
        self.write = write
        self.search = search
        self.extractor = extractor
        self._close = close
        self._write_many = write_many
        self._search_many = search_many
        self.unstored: set[tuple[str, str]] = set()
        """``(scenario id, text)`` the path accepted but stored nothing for (``memory`` path)."""

    def write_all(self, sid: str, texts: list[str]) -> None:
        """Write ``texts`` in order into scenario ``sid``'s namespace."""
        if self._write_many is not None:
            self._write_many(sid, texts)
            return
        for text in texts:
            self.write(sid, text)

    def search_all(self, sid: str, queries: list[str], k: int) -> list[list[str]]:
        """Served texts for each query, best first."""
        if self._search_many is not None:
            return self._search_many(sid, queries, k)
        return [self.search(sid, q, k) for q in queries]

    def close(self) -> None:
        """Release temp folders and clients."""
        if self._close is not None:
            self._close()


def _index(emb: Embeddings) -> Any:
    return {"dims": _DIMS, "embed": emb, "fields": ["content"]}


def _tepa_memory(extractor: Any, storage: str, tmp: str, emb: Embeddings) -> TEPAMemory:
    from langchain_tepa.store import store_policy

    if storage == "chroma":
        return TEPAMemory.from_path(
            os.path.join(tmp, "tepa"),
            embeddings=emb,
            policy=store_policy(),
            extractor=extractor,
            prefix="tepa_store",
        )
    return TEPAMemory.in_memory(embeddings=emb, policy=store_policy(), extractor=extractor)


def _store_system(name: str, store: Any, extractor: Any, close: Callable[[], None]) -> Any:
    def write(sid: str, text: str) -> None:
        store.put(("freetext", sid), str(uuid.uuid4()), {"content": text})

    def search(sid: str, query: str, k: int) -> list[str]:
        return [
            str(i.value.get("content"))
            for i in store.search(("freetext", sid), query=query, limit=k)
        ]

    return FreeTextSystem(name, write, search, extractor=extractor, close=close)


def _langmem_system(name: str, store: Any, extractor: Any, close: Callable[[], None]) -> Any:
    from langchain.agents import create_agent
    from langmem import create_manage_memory_tool, create_search_memory_tool

    namespace = ("freetext", "{user_id}")
    tools = [
        create_manage_memory_tool(namespace, store=store),
        create_search_memory_tool(namespace, store=store),
    ]
    agent = create_agent(ScriptedToolModel(), tools=tools)

    def run_scenario(sid: str, texts: list[str], queries: list[str], k: int) -> list[list[str]]:
        plan = json.dumps({"remember": texts, "ask": queries, "k": k})
        config: Any = {
            "configurable": {"user_id": sid},
            "recursion_limit": 4 * len(texts) + 4 * len(queries) + 10,
        }
        state = agent.invoke({"messages": [HumanMessage(plan)]}, config=config)
        found: dict[str, list[str]] = {}
        for message in state["messages"]:
            if isinstance(message, ToolMessage) and message.name == "search_memory":
                items = json.loads(str(message.content))
                found[str(message.tool_call_id)] = [str(i["value"]["content"]) for i in items]
        first = len(texts)
        return [found.get(f"call_{first + i}", []) for i in range(len(queries))]

    def write_many(sid: str, texts: list[str]) -> None:
        run_scenario(sid, texts, [], 3)

    def search_many(sid: str, queries: list[str], k: int) -> list[list[str]]:
        return run_scenario(sid, [], queries, k)

    return FreeTextSystem(
        name,
        lambda sid, text: write_many(sid, [text]),
        lambda sid, query, k: search_many(sid, [query], k)[0],
        extractor=extractor,
        close=close,
        write_many=write_many,
        search_many=search_many,
    )


def _tepa_vectorstore(
    name: str, memory: TEPAMemory, extractor: Any, close: Callable[[], None]
) -> Any:
    stores: dict[str, TEPAVectorStore] = {}

    def of(sid: str) -> TEPAVectorStore:
        if sid not in stores:
            stores[sid] = TEPAVectorStore(memory, namespace=sid)
        return stores[sid]

    def write(sid: str, text: str) -> None:
        of(sid).add_texts([text])

    def search(sid: str, query: str, k: int) -> list[str]:
        return [d.page_content for d in of(sid).similarity_search(query, k=k)]

    return FreeTextSystem(name, write, search, extractor=extractor, close=close)


def _tepa_memory_path(
    name: str, memory: TEPAMemory, extractor: Any, close: Callable[[], None]
) -> Any:
    system: FreeTextSystem

    def write(sid: str, text: str) -> None:
        if not memory.add_texts([text], namespace=sid):
            system.unstored.add((sid, text))  # nothing extracted: nothing stored

    def search(sid: str, query: str, k: int) -> list[str]:
        return [d.page_content for d in memory.retrieve(query, k=k, namespace=sid)]

    system = FreeTextSystem(name, write, search, extractor=extractor, close=close)
    return system


def _chroma(name: str, emb: Embeddings, tmp: str, close: Callable[[], None]) -> Any:
    import chromadb
    from langchain_chroma import Chroma

    # In-process Chroma (an ephemeral client; a fresh collection per build), as TEPA's default.
    db = Chroma(
        collection_name=f"freetext_{uuid.uuid4().hex[:12]}",
        embedding_function=emb,
        client=chromadb.EphemeralClient(),
        collection_metadata={"hnsw:space": "cosine"},
    )

    def write(sid: str, text: str) -> None:
        db.add_texts([text], metadatas=[{"scenario": sid}])

    def search(sid: str, query: str, k: int) -> list[str]:
        return [d.page_content for d in db.similarity_search(query, k=k, filter={"scenario": sid})]

    return FreeTextSystem(name, write, search, close=close)


_MEM0_HOME: list[str] = []


def _mem0_home() -> str:
    """One folder per process for Mem0's own files (it fixes the path when first imported)."""
    if not _MEM0_HOME:
        import atexit
        import shutil

        home = tempfile.mkdtemp(prefix="tepa-freetext-mem0-")
        atexit.register(shutil.rmtree, home, True)
        _MEM0_HOME.append(home)
    return _MEM0_HOME[0]


def _mem0(name: str, emb: Embeddings, tmp: str, close: Callable[[], None]) -> Any:
    # Mem0 reads these when imported: no telemetry, its home folder in our temp folder.
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", _mem0_home())
    import chromadb
    from mem0 import Memory

    config = {
        "vector_store": {
            "provider": "chroma",
            "config": {
                "collection_name": f"mem0_{uuid.uuid4().hex[:12]}",
                "client": chromadb.EphemeralClient(),
            },
        },
        "embedder": {"provider": "langchain", "config": {"model": emb, "embedding_dims": _DIMS}},
        # infer=False never calls the LLM; a scripted model keeps Mem0 from reaching OpenAI.
        "llm": {"provider": "langchain", "config": {"model": ScriptedToolModel()}},
        "history_db_path": os.path.join(tmp, "mem0-history.db"),
    }
    memory = Memory.from_config(config)

    def write(sid: str, text: str) -> None:
        memory.add([{"role": "user", "content": text}], user_id=sid, infer=False)

    def search(sid: str, query: str, k: int) -> list[str]:
        found = memory.search(query, filters={"user_id": sid}, top_k=k, threshold=0.0)
        return [str(r["memory"]) for r in found["results"]]

    return FreeTextSystem(name, write, search, close=close)


def build_system(
    name: str,
    *,
    ideal: Mapping[str, Sequence[Claim]],
    storage: str = "memory",
    embeddings: str = "hashing",
) -> FreeTextSystem:
    """Build one ``system/path`` of :data:`SYSTEMS` on fresh storage.

    Args:
        name: ``system/path``.
        ideal: Text -> ideal claims, used only by ``tepa-ideal`` (as its extractor).
        storage: TEPA's storage: ``memory`` (in-process) or ``chroma`` (embedded, in a temp
            folder).
        embeddings: ``hashing`` (the library's offline default) or ``minilm``
            (:func:`~tepa_bench.minilm.make_embeddings`).

    Raises:
        ValueError: For an unknown name or embeddings.
    """
    if name not in SYSTEMS:
        raise ValueError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
    system, path = name.split("/")
    emb = make_embeddings(embeddings)
    holder = tempfile.TemporaryDirectory(prefix="tepa-freetext-")
    tmp = holder.name

    def close() -> None:
        holder.cleanup()

    if system in ("tepa", "tepa-ideal"):
        given = IdealExtractor(ideal) if system == "tepa-ideal" else None
        memory = _tepa_memory(given, storage, tmp, emb)
        if path == "vectorstore":
            return _tepa_vectorstore(name, memory, given, close)
        if path == "memory":
            return _tepa_memory_path(name, memory, given, close)
        store = TEPAStore(memory, index=_index(emb))
        maker = _store_system if path == "store" else _langmem_system
        return maker(name, store, given, close)
    if system == "inmemory":
        from langgraph.store.memory import InMemoryStore

        base = InMemoryStore(index=_index(emb))
        maker = _store_system if path == "store" else _langmem_system
        return maker(name, base, None, close)
    if system == "chroma":
        return _chroma(name, emb, tmp, close)
    return _mem0(name, emb, tmp, close)
