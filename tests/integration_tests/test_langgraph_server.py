"""TEPAStore as the custom store of a real LangGraph Server, driven by langgraph-sdk.

``langgraph dev`` (langgraph-cli[inmem]) runs the example deployment of
``examples/langgraph_server`` (``"store": {"path": "./store.py:make_store"}``): an embedded
persistent Chroma folder in a temporary directory, offline ``HashingEmbeddings``, on
127.0.0.1 and a free port, with nothing allowed out (see ``langgraph_server.py``). The tests:

- store calls through the SDK (``put_item``, ``get_item``, ``search_items``,
  ``list_namespaces``, ``delete_item``) and the store's revocation semantics behind them;
- graph runs for two users across several threads, the graph reading and writing the store: a
  preference changed in one thread is what the user's next thread reads; the other user is
  unaffected;
- a restart on the same folder loses nothing (store items, the graph's view, the audit);
- the deployment page's client snippet, run against the server;
- no request left for the internet (the recording proxy saw none).

- TTL through the server (``check_ttl_expiry``): an item put with ``ttl`` expires, the server
  stays healthy and the next call works.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from langchain_tepa import HashingEmbeddings, TEPAStore
from tests.conftest import ROOT
from tests.integration_tests.langgraph_server import (
    LangGraphServer,
    RecordingProxy,
    prepare_app,
    start_server,
)
from tests.integration_tests.test_readme import extract_blocks
from tests.support.docs import check_block

# one LangGraph Server (module scope) for these tests: they share one worker
pytestmark = pytest.mark.xdist_group("langgraph_server")

# langgraph-cli[inmem] is in the test extra for Python 3.11+ only (langgraph-api needs 3.11).
pytest.importorskip("langgraph_api", reason="langgraph-cli[inmem] (test extra) needs Python 3.11+")

DEPLOYMENT_DOC = ROOT / "docs" / "deployment.md"
NEEDS_SERVER = "<!-- needs: langgraph-server -->"
DOC_URL = "http://127.0.0.1:2024"
ALICE, BOB = "alice", "bob"


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def proxy() -> Iterator[RecordingProxy]:
    recorder = RecordingProxy()
    try:
        yield recorder
    finally:
        recorder.close()


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, proxy: RecordingProxy
) -> Iterator[LangGraphServer]:
    """One server for the store and run tests (stopped by PID at the end of the module)."""
    folder = tmp_path_factory.mktemp("langgraph_server")
    running = start_server(prepare_app(folder), folder / "tepa-store", proxy)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(autouse=True)
def _loopback_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    # The SDK's httpx client honours proxy variables: keep loopback direct wherever this runs.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost,::1")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost,::1")


def client_for(server: LangGraphServer) -> LangGraphClient:
    return get_client(url=server.url, api_key=None, timeout=60)


@pytest.fixture
async def client(server: LangGraphServer) -> AsyncIterator[LangGraphClient]:
    sdk = client_for(server)
    try:
        yield sdk
    finally:
        await sdk.aclose()


# ---------------------------------------------------------------------------- helpers
async def ask(client: LangGraphClient, user: str, text: str) -> dict[str, Any]:
    """One run of the preferences graph in a new thread for ``user``."""
    thread = await client.threads.create()
    result = await client.runs.wait(
        thread["thread_id"], "preferences", input={"text": text}, context={"user_id": user}
    )
    assert isinstance(result, dict), result
    return result


async def topping_of(client: LangGraphClient, user: str) -> str | None:
    item = await client.store.get_item(["users", user, "preferences"], "pizza")
    return None if item is None else item["value"]["topping"]


async def check_ttl_expiry(client: LangGraphClient, server: LangGraphServer) -> None:
    """TTL through the server: an item put with ``ttl`` expires, the server stays healthy.

    The server skips its own TTL sweeper for a custom store: TEPAStore expires items itself (the
    read that meets an expired item revokes it; ``start_ttl_sweeper`` sweeps periodically).
    """
    ns = ["ttl", "demo"]
    await client.store.put_item(ns, "short", {"v": 1}, ttl=0.05)  # minutes: 3 s
    await client.store.put_item(ns, "long", {"v": 2}, ttl=10)
    first = await client.store.get_item(ns, "short")
    assert first is not None
    assert first["value"] == {"v": 1}
    await asyncio.sleep(4.0)
    assert await client.store.get_item(ns, "short") is None
    assert server.healthy()
    long = await client.store.get_item(ns, "long")
    assert long is not None
    assert long["value"] == {"v": 2}
    found = await client.store.search_items(ns)
    assert [item["key"] for item in found["items"]] == ["long"]
    # The next call on the same client works (no dropped connection).
    await client.store.put_item(ns, "after", {"v": 3})
    after = await client.store.get_item(ns, "after")
    assert after is not None
    assert after["value"] == {"v": 3}


# ---------------------------------------------------------------------------- tests
async def test_store_calls_through_the_sdk(
    client: LangGraphClient, server: LangGraphServer
) -> None:
    ns = ["api", "notes"]
    await client.store.put_item(ns, "office", {"city": "Oslo", "floor": 3})
    await client.store.put_item(ns, "lunch", {"time": "12:00"})
    await client.store.put_item(["api", "other"], "x", {"n": 1})

    item = await client.store.get_item(ns, "office")
    assert item is not None
    assert (item["namespace"], item["key"], item["value"]) == (
        ns,
        "office",
        {"city": "Oslo", "floor": 3},
    )
    assert item["created_at"] and item["updated_at"]

    found = await client.store.search_items(["api"], limit=10)
    assert sorted((*i["namespace"], i["key"]) for i in found["items"]) == [
        ("api", "notes", "lunch"),
        ("api", "notes", "office"),
        ("api", "other", "x"),
    ]
    by_filter = await client.store.search_items(ns, filter={"floor": 3})
    assert [i["key"] for i in by_filter["items"]] == ["office"]
    by_query = await client.store.search_items(ns, query="which city is the office in", limit=1)
    assert [i["key"] for i in by_query["items"]] == ["office"]
    assert by_query["items"][0]["score"] is not None

    spaces = await client.store.list_namespaces(prefix=["api"])
    assert sorted(map(tuple, spaces["namespaces"])) == [("api", "notes"), ("api", "other")]

    # A new value is evidence: put once against once, the newer one wins (validity 0.67 > 0.50).
    await client.store.put_item(ns, "office", {"city": "Bergen", "floor": 1})
    moved = await client.store.get_item(ns, "office")
    assert moved is not None
    assert moved["value"] == {"city": "Bergen", "floor": 1}

    await client.store.delete_item(ns, "lunch")
    assert await client.store.get_item(ns, "lunch") is None
    after = await client.store.search_items(ns)
    assert [i["key"] for i in after["items"]] == ["office"]
    await client.store.delete_item(["api", "other"], "x")
    spaces = await client.store.list_namespaces(prefix=["api"])
    assert spaces["namespaces"] == [["api", "notes"]]  # a namespace with nothing Active is gone
    assert server.healthy()
    await check_ttl_expiry(client, server)


async def test_two_users_across_threads(client: LangGraphClient) -> None:
    first = await ask(client, ALICE, "My favourite pizza topping is pineapple")
    assert first["answer"] == "Order a pineapple pizza."
    assert (await ask(client, ALICE, "What should I order?"))[
        "answer"
    ] == "Order a pineapple pizza."

    bob = await ask(client, BOB, "My favourite topping is olives")
    assert bob["answer"] == "Order a olives pizza."
    assert (await ask(client, BOB, "And tonight?"))["topping"] == "olives"

    # Alice changes her mind in one thread; her next thread reads the new preference.
    changed = await ask(client, ALICE, "Actually my favourite topping is mushroom now")
    assert changed["topping"] == "mushroom"
    assert (await ask(client, ALICE, "What should I order?"))["answer"] == "Order a mushroom pizza."
    # Bob is unaffected, and a new user knows nothing.
    assert (await ask(client, BOB, "What should I order?"))["topping"] == "olives"
    carol = await ask(client, "carol", "What should I order?")
    assert carol == {
        "text": "What should I order?",
        "topping": None,
        "answer": "I don't know your favourite topping yet.",
    }
    # The API sees what the graph wrote, in each user's namespace.
    assert await topping_of(client, ALICE) == "mushroom"
    assert await topping_of(client, BOB) == "olives"
    users = await client.store.list_namespaces(prefix=["users"])
    assert sorted(map(tuple, users["namespaces"])) == [
        ("users", ALICE, "preferences"),
        ("users", BOB, "preferences"),
    ]


async def test_deployment_doc_client_snippet_runs_against_the_server(
    server: LangGraphServer, tmp_path: Path
) -> None:
    text = DEPLOYMENT_DOC.read_text("utf-8")
    marked = [b for b in extract_blocks(text) if b.lang == "python" and _marked(text, b.line)]
    assert marked, f"{DEPLOYMENT_DOC.name} has no python block marked {NEEDS_SERVER}"
    for block in marked:
        assert DOC_URL in block.code, f"the block at line {block.line} must use {DOC_URL}"
        check_block(
            block.code.replace(DOC_URL, server.url),
            what=f"{DEPLOYMENT_DOC.name} block at line {block.line}",
            cwd=tmp_path,
            extra_env={"NO_PROXY": "127.0.0.1,localhost,::1"},
        )


def _marked(text: str, line: int) -> bool:
    previous = [t.strip() for t in text.splitlines()[: line - 1] if t.strip()]
    return bool(previous) and previous[-1] == NEEDS_SERVER


async def test_restart_on_the_same_folder_loses_nothing(
    tmp_path: Path, proxy: RecordingProxy
) -> None:
    app, data = prepare_app(tmp_path), tmp_path / "tepa-store"
    first = start_server(app, data, proxy)
    try:
        sdk = client_for(first)
        await ask(sdk, ALICE, "My favourite topping is pineapple")
        await ask(sdk, ALICE, "My favourite topping is mushroom")
        await ask(sdk, ALICE, "Yes, my favourite topping is mushroom")  # outweighs pineapple
        await ask(sdk, BOB, "My favourite topping is olives")
        await sdk.store.put_item(["kept"], "a", {"n": 1})
        await sdk.store.put_item(["kept"], "b", {"n": 2})
        await sdk.store.delete_item(["kept"], "b")
        before = await sdk.store.search_items(["users"], limit=10)
        await sdk.aclose()
    finally:
        code = first.stop()
    assert code in (0, -15), f"langgraph dev exited {code} on SIGTERM:\n{first.log()[-3000:]}"

    second = start_server(app, data, proxy)
    try:
        sdk = client_for(second)
        after = await sdk.store.search_items(["users"], limit=10)
        assert _items(after) == _items(before)
        assert await topping_of(sdk, ALICE) == "mushroom"
        assert await topping_of(sdk, BOB) == "olives"
        kept = await sdk.store.search_items(["kept"])
        assert [(i["key"], i["value"]) for i in kept["items"]] == [("a", {"n": 1})]
        assert (await ask(sdk, ALICE, "What should I order?"))["topping"] == "mushroom"
        await sdk.aclose()
    finally:
        assert second.stop() in (0, -15)

    # The folder itself, opened read-only after both servers: every value with its history.
    store = TEPAStore.from_path(data, embeddings=HashingEmbeddings(), read_only=True)
    try:
        audit = store.audit(("users", ALICE, "preferences"), "pizza")
        states = {p.value["topping"]: p.state.value for p in audit.precedents}
        assert states == {"pineapple": "revoked", "mushroom": "active"}
        (deleted,) = store.audit(("kept",), "b").precedents
        assert deleted.state.value == "revoked"
    finally:
        store.memory.close()


def _items(result: dict[str, Any]) -> list[tuple[tuple[str, ...], str, Any, str]]:
    return sorted(
        (tuple(i["namespace"]), i["key"], i["value"], i["created_at"]) for i in result["items"]
    )


def test_nothing_left_for_the_internet(server: LangGraphServer, proxy: RecordingProxy) -> None:
    """Runs last in this module: neither server tried to reach anything through a proxy."""
    assert server.healthy()
    assert proxy.requests == []
    log = server.log()
    assert "skipping metadata loop" in log  # no license key: no metadata beacon
    assert not re.search(r"smith\.langchain\.com/api|beacon\.langchain\.com", log)
