"""The benchmark agent: one prompt for every method, an offline reader and a chat-model agent.

Each episode the runner retrieves precedents from the memory and renders them with
:func:`render_prompt` into the text an LLM would see. An agent reads only that text and returns
one action.

The offline agent's rule (the same for every method):

1. Parse the possible actions and the precedent lines from the prompt.
2. A precedent is *usable* when its key is the task's mechanism, its action is one of the
   possible actions, its state is ``active`` and its validity is at least 0.50 (the evidence
   the memory shows leans towards it).
3. Follow the usable precedent with the highest validity (ties: more support, then the one
   listed first).
4. With no usable precedent, explore: pick one of the possible actions uniformly at random.

The memory decides what the prompt shows (Active precedents only; the append-only family does
not count conflicts, so its validities only grow: that is their policy, not the agent's).

Example:
    >>> task = Task("drift.t0", "Task t0: open the valve.", ("a", "b", "c"))
    >>> prompt = render_prompt(task, [])
    >>> OfflineAgent(seed=1).choose(prompt) in ("a", "b", "c")
    True
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.documents import Document

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.world import Task

__all__ = [
    "USABLE_VALIDITY",
    "Agent",
    "ChatModelAgent",
    "OfflineAgent",
    "PromptView",
    "PromptedPrecedent",
    "openai_agent",
    "parse_prompt",
    "parse_reply",
    "render_prompt",
]

USABLE_VALIDITY = 0.5
"""A precedent is followed only when its shown validity is at least this."""

_ACTIONS = re.compile(r"^Possible actions: (?P<actions>.+)$", re.MULTILINE)
_MECHANISM = re.compile(r"^Mechanism: (?P<key>\S+)$", re.MULTILINE)
_PRECEDENT = re.compile(
    r"^- key=(?P<key>\S+) \| action=(?P<action>\S+) \| state=(?P<state>\w+) \| "
    r"validity=(?P<validity>[0-9.]+) \| support=(?P<support>\d+) \| conflict=(?P<conflict>\d+)$",
    re.MULTILINE,
)
_REPLY = re.compile(r"ACTION:\s*`?(?P<action>[A-Za-z0-9_.-]+)`?", re.IGNORECASE)


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return re.sub(r"[\s|]+", "_", text) or "_"


def render_prompt(task: Task, documents: Sequence[Document]) -> str:
    """The text an LLM sees for ``task`` given the precedents the memory retrieved.

    Args:
        task: The task.
        documents: Documents from ``TEPAMemory.retrieve`` (their metadata holds key, value,
            state, validity, support and conflict).

    Returns:
        The prompt text.
    """
    lines = [
        "You complete tasks by choosing exactly one action.",
        f"Task: {task.text}",
        f"Mechanism: {task.key}",
        f"Possible actions: {', '.join(task.actions)}",
        "",
        "Memory: precedents retrieved for this task (what worked before).",
    ]
    shown = 0
    for doc in documents:
        meta = doc.metadata
        lines.append(
            f"- key={_show(meta.get('key', ''))} | action={_show(meta.get('value', ''))} | "
            f"state={meta.get('state', 'active')} | validity={float(meta.get('validity', 0.0)):.2f}"
            f" | support={int(meta.get('support', 0))} | conflict={int(meta.get('conflict', 0))}"
        )
        shown += 1
    if not shown:
        lines.append("(no precedent retrieved)")
    lines += [
        "",
        "Validity is the memory's estimate that the precedent still holds. Follow the precedent "
        f"with the highest validity if it is at least {USABLE_VALIDITY:.2f}; otherwise pick one "
        "of the possible actions to try.",
        "Reply with one line: ACTION: <one of the possible actions>",
    ]
    return "\n".join(lines)


@dataclass(frozen=True)
class PromptedPrecedent:
    """A precedent line as read back from a prompt.

    Example:
        >>> PromptedPrecedent("k", "a", "active", 0.9, 8, 0).action
        'a'
    """

    key: str
    action: str
    state: str
    validity: float
    support: int
    conflict: int


@dataclass(frozen=True)
class PromptView:
    """What a reader gets out of a prompt: the mechanism, the actions and the precedents.

    Example:
        >>> view = parse_prompt(render_prompt(Task("k", "t", ("a", "b")), []))
        >>> view.actions
        ('a', 'b')
    """

    key: str
    actions: tuple[str, ...]
    precedents: tuple[PromptedPrecedent, ...]

    def best(self) -> str | None:
        """The action of the rule (highest usable validity), or ``None`` to explore."""
        usable = [
            (i, p)
            for i, p in enumerate(self.precedents)
            if p.key == self.key
            and p.action in self.actions
            and p.state == "active"
            and p.validity >= USABLE_VALIDITY
        ]
        if not usable:
            return None
        _, choice = min(usable, key=lambda ip: (-ip[1].validity, -ip[1].support, ip[0]))
        return choice.action


def parse_prompt(prompt: str) -> PromptView:
    """Read the mechanism, the possible actions and the precedent lines of a prompt.

    Raises:
        InvalidArgumentError: If the prompt has no ``Possible actions:`` or ``Mechanism:`` line.
    """
    found = _ACTIONS.search(prompt)
    mech = _MECHANISM.search(prompt)
    if found is None or mech is None:
        raise InvalidArgumentError(
            "the prompt has no 'Mechanism:' or 'Possible actions:' line; build it with "
            "render_prompt()"
        )
    actions = tuple(a.strip() for a in found.group("actions").split(",") if a.strip())
    precedents = tuple(
        PromptedPrecedent(
            key=m.group("key"),
            action=m.group("action"),
            state=m.group("state"),
            validity=float(m.group("validity")),
            support=int(m.group("support")),
            conflict=int(m.group("conflict")),
        )
        for m in _PRECEDENT.finditer(prompt)
    )
    return PromptView(mech.group("key"), actions, precedents)


def parse_reply(reply: str, actions: Sequence[str]) -> str | None:
    """The action named in a model reply (``ACTION: x``), or ``None`` when it names none.

    Example:
        >>> parse_reply("ACTION: json", ["csv", "json"])
        'json'
        >>> parse_reply("I would say csv", ["csv", "json"]) is None
        True
    """
    for m in _REPLY.finditer(reply):
        action = m.group("action").rstrip(".")
        for a in actions:
            if action.casefold() == a.casefold():
                return a
    return None


class Agent(Protocol):
    """Chooses one action from a prompt's text."""

    def choose(self, prompt: str) -> str:
        """The action to take."""
        ...


class OfflineAgent:
    """The offline instruction follower: the rule in the module docstring.

    Args:
        seed: Seed of its exploration.

    Example:
        >>> agent = OfflineAgent(seed=0)
        >>> task = Task("k", "t", ("a", "b"))
        >>> doc = Document("k: b", metadata={"key": "k", "value": "b", "state": "active",
        ...                                  "validity": 0.8, "support": 3, "conflict": 0})
        >>> agent.choose(render_prompt(task, [doc]))
        'b'
    """

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)
        self.explorations = 0

    def choose(self, prompt: str) -> str:
        """Follow the best usable precedent of the prompt, or explore."""
        view = parse_prompt(prompt)
        best = view.best()
        if best is not None:
            return best
        self.explorations += 1
        return self._rng.choice(view.actions)


class ChatModelAgent:
    """A chat model reading the same prompt (``--agent openai`` uses ``ChatOpenAI``).

    A reply that names no possible action counts as "no usable answer" and the agent explores
    uniformly, like the offline agent with no evidence.

    Args:
        model: Any LangChain chat model.
        seed: Seed of the fallback exploration.

    Example:
        >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
        >>> agent = ChatModelAgent(FakeListChatModel(responses=["ACTION: b"]))
        >>> agent.choose(render_prompt(Task("k", "t", ("a", "b")), []))
        'b'
    """

    def __init__(self, model: Any, seed: int = 0) -> None:
        self.model = model
        self._rng = random.Random(seed)
        self.invalid_replies = 0
        self.calls = 0

    def choose(self, prompt: str) -> str:
        """Ask the model; fall back to exploring when the reply names no possible action."""
        view = parse_prompt(prompt)
        self.calls += 1
        message = self.model.invoke(prompt)
        content = getattr(message, "content", message)
        text = content if isinstance(content, str) else str(content)
        action = parse_reply(text, view.actions)
        if action is None:
            self.invalid_replies += 1
            return self._rng.choice(view.actions)
        return action


def openai_agent(
    *,
    model: str = "gpt-4o-mini",
    base_url: str | None = None,
    api_key: str | None = None,
    seed: int = 0,
    timeout: float = 60.0,
) -> ChatModelAgent:
    """A :class:`ChatModelAgent` on ``ChatOpenAI`` (any OpenAI-compatible endpoint).

    Args:
        model: Model name.
        base_url: Endpoint (default: ``OPENAI_BASE_URL`` or OpenAI's).
        api_key: Key (default: ``OPENAI_API_KEY``).
        seed: Seed of the fallback exploration.
        timeout: Request timeout in seconds.
    """
    from langchain_openai import ChatOpenAI

    kwargs: dict[str, Any] = {"model": model, "temperature": 0.0, "timeout": timeout}
    if base_url:
        kwargs["base_url"] = base_url
    if api_key:
        kwargs["api_key"] = api_key
    return ChatModelAgent(ChatOpenAI(**kwargs), seed=seed)
