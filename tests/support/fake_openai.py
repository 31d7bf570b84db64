"""A scripted OpenAI-compatible HTTP server for offline tests (stdlib only, plus numpy).

It listens on 127.0.0.1 on a free port, in a daemon thread of the test process, and serves:

- ``POST /v1/chat/completions``: plain text answers, tool calls and structured output (both
  ``response_format`` json_schema/json_object and function-calling ``with_structured_output``),
  with or without ``stream=True`` (server-sent events, ``stream_options.include_usage`` honoured);
- ``POST /v1/embeddings``: deterministic vectors (``HashingEmbeddings`` of each input by
  default), as floats or base64 (``encoding_format``), ``dimensions`` honoured;
- ``GET /v1/models``: one fake model.

Every request is recorded (``server.requests``, ``server.chat_requests``,
``server.embedding_requests``) so a test can check what the client library sent.

Scripting the chat answers
--------------------------
Each chat request takes the next item of the queue (``FakeOpenAI(script=[...])`` or
``server.add(...)``); when the queue is empty, ``server.handler(request_json)`` is called; when
there is neither, the server answers HTTP 400 ``script exhausted`` (400, not 500, so clients do
not retry). An item (or what the handler returns) is a *spec*:

- ``"text"`` or ``Text("text")``: an assistant message;
- ``ToolCalls([Call("remember", {"key": "k", "value": "v"})])`` or the shorthand
  ``tool_call("remember", key="k", value="v")``: assistant tool calls (ids are generated);
- ``Structured({...})``: the object as structured output: JSON content when the request has a
  ``response_format``; a call of the forced (or only) tool when it has ``tools``;
- ``Error(status, message)``: an OpenAI-style error body with that HTTP status;
- ``Raw(body)``: a JSON body sent verbatim;
- a callable ``(request_json) -> spec``: called when its turn comes (read the conversation so
  far with :func:`messages`, :func:`last_user_text`, :func:`tool_results`).

A handler that raises makes the server answer HTTP 400 with the traceback in the message, and
the failure is kept in ``server.failures``.

Example:
    >>> from langchain_openai import ChatOpenAI
    >>> with FakeOpenAI(script=["hello"]) as server:
    ...     llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key="test")
    ...     llm.invoke("hi").content, server.chat_requests[0]["messages"][-1]["content"]
    ('hello', 'hi')

Reuse it from pytest through the ``fake_openai`` fixture (``tests/support/fixtures.py``,
loaded by ``tests/conftest.py``), or as a context manager anywhere else. Child processes (a
CLI run by a test, say) reach it too: give them ``OPENAI_BASE_URL=server.base_url`` and any
``OPENAI_API_KEY``; the server lives as long as the ``with`` block or the fixture. ``openai_env`` also
sets ``OPENAI_API_KEY``/``OPENAI_BASE_URL`` to point every default client at the server.
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from langchain_tepa.embeddings import HashingEmbeddings

__all__ = [
    "Call",
    "Error",
    "FakeOpenAI",
    "Raw",
    "RecordedRequest",
    "Spec",
    "Structured",
    "Text",
    "ToolCalls",
    "hashing_vectors",
    "last_tool_result",
    "last_user_text",
    "messages",
    "text_of",
    "tool_call",
    "tool_results",
]


# ---------------------------------------------------------------------------------- specs
@dataclass(frozen=True)
class Text:
    """An assistant message with this content."""

    content: str


@dataclass(frozen=True)
class Call:
    """One tool call: the tool name and its arguments (an id is generated when None)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class ToolCalls:
    """An assistant message that calls tools (optionally with some content)."""

    calls: Sequence[Call]
    content: str = ""


@dataclass(frozen=True)
class Structured:
    """Structured output: JSON content for ``response_format``, a tool call for ``tools``."""

    data: Any


@dataclass(frozen=True)
class Error:
    """An OpenAI-style error answer."""

    status: int = 500
    message: str = "fake server error"
    type: str = "server_error"
    code: str | None = None


@dataclass(frozen=True)
class Raw:
    """A JSON body sent as is."""

    body: Any
    status: int = 200


Spec = str | Text | ToolCalls | Structured | Error | Raw | Callable[[dict[str, Any]], Any]


def tool_call(name: str, /, **args: Any) -> ToolCalls:
    """Shorthand for an assistant message with one tool call."""
    return ToolCalls([Call(name, args)])


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received: method, path (``/v1/...``), JSON body and headers.

    Header names are lower-cased (``req.headers["authorization"] == "Bearer test"``).
    """

    method: str
    path: str
    body: Any
    headers: dict[str, str]


# ------------------------------------------------------------------ reading chat requests
def messages(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``messages`` of a chat request."""
    return list(request.get("messages") or [])


def text_of(message: Mapping[str, Any]) -> str:
    """The text of a message whose content is a string or a list of content parts."""
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, Mapping) and isinstance(part.get("text"), str):
            parts.append(part["text"])
        elif isinstance(part, str):
            parts.append(part)
    return "".join(parts)


def last_user_text(request: Mapping[str, Any]) -> str:
    """The text of the last user message ("" when there is none)."""
    for msg in reversed(messages(request)):
        if msg.get("role") == "user":
            return text_of(msg)
    return ""


def tool_results(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Tool messages of a chat request, oldest first: ``{"tool_call_id", "name", "content"}``.

    ``name`` is looked up from the assistant message that made the call.
    """
    names: dict[str, str] = {}
    out = []
    for msg in messages(request):
        for tc in msg.get("tool_calls") or []:
            names[tc.get("id", "")] = tc.get("function", {}).get("name", "")
        if msg.get("role") == "tool":
            call_id = msg.get("tool_call_id", "")
            out.append(
                {"tool_call_id": call_id, "name": names.get(call_id, ""), "content": text_of(msg)}
            )
    return out


def last_tool_result(request: Mapping[str, Any], name: str | None = None) -> str | None:
    """Content of the last tool message (of tool ``name`` when given), or None."""
    for res in reversed(tool_results(request)):
        if name is None or res["name"] == name:
            return str(res["content"])
    return None


# ------------------------------------------------------------------ embeddings
_HASHERS: dict[int, HashingEmbeddings] = {}


def hashing_vectors(texts: Sequence[str], dimensions: int) -> list[list[float]]:
    """The default embedding function: ``HashingEmbeddings(size=dimensions)`` of each text."""
    emb = _HASHERS.setdefault(dimensions, HashingEmbeddings(size=dimensions))
    return emb.embed_documents(list(texts))


def _inputs(raw: Any) -> list[str]:
    """Embedding inputs as texts (token arrays become space-joined token ids)."""
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list) and raw and all(isinstance(t, int) for t in raw):
        return [" ".join(map(str, raw))]
    out = []
    for item in raw or []:
        out.append(item if isinstance(item, str) else " ".join(map(str, item)))
    return out


# ------------------------------------------------------------------ the server
class FakeOpenAI:
    """A scripted OpenAI-compatible server on 127.0.0.1 (see the module docstring).

    Args:
        script: Chat answers, one per chat request, in order.
        handler: Called with the request JSON when the script is exhausted.
        embed: ``(texts, dimensions) -> vectors`` (or an :class:`Error`); default
            :func:`hashing_vectors`.
        embedding_size: Vector size when the request has no ``dimensions``.

    Attributes:
        base_url: ``http://127.0.0.1:<port>/v1`` (pass it as ``base_url``).
        requests: Every request received, in order.
        failures: Messages of handler errors and exhausted scripts.

    Example:
        >>> with FakeOpenAI() as server:
        ...     server.base_url.startswith("http://127.0.0.1:")
        True
    """

    def __init__(
        self,
        script: Iterable[Spec] | None = None,
        *,
        handler: Callable[[dict[str, Any]], Spec] | None = None,
        embed: Callable[[Sequence[str], int], Any] | None = None,
        embedding_size: int = 64,
    ) -> None:
        self._queue: deque[Spec] = deque(script or [])
        self.handler = handler
        self.embed = embed or hashing_vectors
        self.embedding_size = embedding_size
        self.requests: list[RecordedRequest] = []
        self.failures: list[str] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -------------------------------------------------------------- lifecycle
    def start(self) -> FakeOpenAI:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        if self._httpd is not None:
            return self
        server = self

        class _Handler(_RequestHandler):
            fake = server

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on."""
        if self._httpd is None:
            raise RuntimeError("the fake OpenAI server is not running; call start()")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The ``base_url`` for OpenAI clients."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -------------------------------------------------------------- scripting
    def add(self, *specs: Spec) -> None:
        """Append chat answers to the script."""
        with self._lock:
            self._queue.extend(specs)

    @property
    def pending(self) -> int:
        """Chat answers still queued."""
        with self._lock:
            return len(self._queue)

    # -------------------------------------------------------------- records
    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """JSON bodies of the chat-completion requests, in order."""
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[dict[str, Any]]:
        """JSON bodies of the embedding requests, in order."""
        return [r.body for r in self.requests if r.path.endswith("/embeddings")]

    @property
    def embedded_texts(self) -> list[str]:
        """Every text sent for embedding, in order."""
        return [t for body in self.embedding_requests for t in _inputs(body.get("input"))]

    def reset(self) -> None:
        """Forget the script, the handler, the records and the failures."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.failures.clear()
        self.handler = None

    # -------------------------------------------------------------- answering
    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def _next_spec(self, body: dict[str, Any]) -> Spec:
        with self._lock:
            spec: Spec | None = self._queue.popleft() if self._queue else None
            number = sum(1 for r in self.requests if r.path.endswith("/chat/completions"))
        if spec is None:
            if self.handler is None:
                msg = f"fake OpenAI server: script exhausted at chat request #{number}"
                self.failures.append(msg)
                return Error(400, msg, "invalid_request_error")
            spec = self.handler
        for _ in range(10):  # a callable may return another callable
            if not callable(spec):
                break
            try:
                spec = spec(body)
            except Exception:  # reported to the client and kept in failures
                msg = f"fake OpenAI server: handler failed:\n{traceback.format_exc()}"
                self.failures.append(msg)
                return Error(400, msg, "invalid_request_error")
        return spec

    def chat(self, body: dict[str, Any]) -> tuple[int, Any, list[dict[str, Any]] | None]:
        """Answer a chat request: ``(status, body, stream_chunks_or_None)``."""
        spec = self._next_spec(body)
        if isinstance(spec, Error):
            return spec.status, _error_body(spec), None
        if isinstance(spec, Raw):
            return spec.status, spec.body, None
        try:
            message, finish = self._message(spec, body)
        except Exception:  # a bad spec is reported, never a hung client
            msg = f"fake OpenAI server: bad response spec:\n{traceback.format_exc()}"
            self.failures.append(msg)
            return 400, _error_body(Error(400, msg, "invalid_request_error")), None
        cid = f"chatcmpl-fake{next(self._ids)}"
        model = str(body.get("model") or "fake-model")
        prompt_tokens = sum(len(text_of(m).split()) for m in messages(body))
        completion_tokens = len(str(message.get("content") or "").split()) + sum(
            len(tc["function"]["arguments"].split()) for tc in message.get("tool_calls") or []
        )
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        if body.get("stream"):
            return 200, None, _chunks(cid, model, message, finish, usage, body)
        answer = {
            "id": cid,
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
            ],
            "usage": usage,
        }
        return 200, answer, None

    def _message(self, spec: Any, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        if isinstance(spec, str):
            spec = Text(spec)
        if isinstance(spec, Structured):
            spec = _structured(spec.data, body)
        if isinstance(spec, Text):
            return {"role": "assistant", "content": spec.content, "refusal": None}, "stop"
        if isinstance(spec, ToolCalls):
            calls = [
                {
                    "id": c.id or f"call_fake{next(self._ids)}",
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(dict(c.args))},
                }
                for c in spec.calls
            ]
            msg = {
                "role": "assistant",
                "content": spec.content or None,
                "tool_calls": calls,
                "refusal": None,
            }
            return msg, "tool_calls"
        raise TypeError(f"fake OpenAI server: not a response spec: {spec!r}")

    def embeddings(self, body: dict[str, Any]) -> tuple[int, Any]:
        """Answer an embeddings request: ``(status, body)``."""
        texts = _inputs(body.get("input"))
        dims = int(body.get("dimensions") or self.embedding_size)
        try:
            vectors = self.embed(texts, dims)
        except Exception:  # reported to the client and kept in failures
            msg = f"fake OpenAI server: embed failed:\n{traceback.format_exc()}"
            self.failures.append(msg)
            return 400, _error_body(Error(400, msg, "invalid_request_error"))
        if isinstance(vectors, Error):
            return vectors.status, _error_body(vectors)
        as_b64 = body.get("encoding_format") == "base64"
        data = []
        for i, vec in enumerate(vectors):
            emb: Any = (
                base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode("ascii")
                if as_b64
                else [float(x) for x in vec]
            )
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(len(t.split()) for t in texts)
        return 200, {
            "object": "list",
            "data": data,
            "model": str(body.get("model") or "fake-embedding"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _error_body(err: Error) -> dict[str, Any]:
    return {"error": {"message": err.message, "type": err.type, "param": None, "code": err.code}}


def _structured(data: Any, body: Mapping[str, Any]) -> Text | ToolCalls:
    """Structured output in the form the request asked for."""
    if body.get("response_format"):
        return Text(json.dumps(data))
    tools = [t for t in body.get("tools") or [] if t.get("type") == "function"]
    choice = body.get("tool_choice")
    name = None
    if isinstance(choice, Mapping):
        name = (choice.get("function") or {}).get("name")
    elif len(tools) == 1:
        name = tools[0]["function"]["name"]
    if name:
        return ToolCalls([Call(name, data)])
    return Text(json.dumps(data))


def _chunks(
    cid: str,
    model: str,
    message: Mapping[str, Any],
    finish: str,
    usage: Mapping[str, int],
    body: Mapping[str, Any],
) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": model,
            "choices": [
                {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
            ],
        }

    out = [chunk({"role": "assistant", "content": ""})]
    content = message.get("content") or ""
    words = content.split(" ")
    for i, word in enumerate(words):
        if content:
            out.append(chunk({"content": word if i == 0 else " " + word}))
    for i, tc in enumerate(message.get("tool_calls") or []):
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": tc["id"],
                            "type": "function",
                            "function": {
                                "name": tc["function"]["name"],
                                "arguments": tc["function"]["arguments"],
                            },
                        }
                    ]
                }
            )
        )
    out.append(chunk({}, finish))
    if (body.get("stream_options") or {}).get("include_usage"):
        last = chunk({})
        last["choices"] = []
        last["usage"] = dict(usage)
        out.append(last)
    return out


class _RequestHandler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        return json.loads(raw)

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _send_stream(self, chunks: list[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for c in chunks:
            self.wfile.write(f"data: {json.dumps(c)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        self.fake._record(RecordedRequest("GET", path, None, self._headers()))
        if path.endswith("/models"):
            model = {"id": "fake-model", "object": "model", "created": 0, "owned_by": "tests"}
            self._send(200, {"object": "list", "data": [model]})
        else:
            self._send(404, _error_body(Error(404, f"no route GET {path}", "not_found")))

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        try:
            body = self._read_json()
        except ValueError as exc:
            self.fake._record(RecordedRequest("POST", path, None, self._headers()))
            self._send(400, _error_body(Error(400, f"invalid JSON: {exc}", "invalid_request")))
            return
        self.fake._record(RecordedRequest("POST", path, body, self._headers()))
        if path.endswith("/chat/completions"):
            status, answer, chunks = self.fake.chat(body or {})
            if chunks is not None:
                self._send_stream(chunks)
            else:
                self._send(status, answer)
        elif path.endswith("/embeddings"):
            self._send(*self.fake.embeddings(body or {}))
        else:
            self._send(404, _error_body(Error(404, f"no route POST {path}", "not_found")))
