"""Fact extraction with a chat model's structured output.

:class:`LLMFactExtractor` asks any LangChain chat model that supports
``with_structured_output`` (``ChatOpenAI`` by default, created on first use) for the facts
stated in a text, as ``(key, value, confidence)`` triples. The prompt asks for canonical dotted
keys, ``<subject>.<relation>`` in lower-case snake case (``user.diet``, ``france.capital``), and
every key is normalised again afterwards (:func:`normalize_key`), so small differences in the
model's spelling (``"User Diet"``, ``"my.diet"``, ``"diet"``) meet under one key.

Example:
    >>> normalize_key("My Favourite-Pizza Topping")
    'user.favourite_pizza_topping'
    >>> normalize_key("France . Capital City")
    'france.capital_city'
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from langchain_tepa.core.errors import ExtractionError, InvalidArgumentError
from langchain_tepa.core.types import Fact
from langchain_tepa.core.values import MAX_KEY_LENGTH

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import Runnable

__all__ = [
    "DEFAULT_CHAT_MODEL",
    "ExtractedFact",
    "ExtractedFacts",
    "LLMFactExtractor",
    "normalize_key",
]

DEFAULT_CHAT_MODEL = "gpt-4o-mini"
"""Chat model used when neither ``llm`` nor ``model`` is given (``TEPA_OPENAI_CHAT_MODEL``
overrides it)."""

MAX_KNOWN_KEYS = 200
"""At most this many known keys are listed in the prompt."""

_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "our", "us", "the_user"})
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_UNDERSCORES = re.compile(r"_+")
_SUBJECT = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")

SYSTEM_PROMPT = """\
You extract durable facts from text for a long-term memory.

Return every fact the text states as a (key, value, confidence, multi_valued) entry:
- key: a canonical dotted key "<subject>.<relation>" in lower-case snake_case, for example
  "user.diet", "user.pizza_topping", "user.home_city", "france.capital", "acme.ceo".
  Use "user" as the subject for the speaker ("I", "me", "my"). Name the relation generically
  (what kind of attribute it is), never with the value in it: "user.diet", not "user.vegan".
  The same attribute must always get the same key, however it is phrased.
- value: the value only, short and without the key's words ("vegan", "Paris", "mushroom").
- confidence: from 0 to 1, how clearly the text states the fact as currently true
  (1 for a plain statement, about 0.5 for a hedge, 0.2 or less for a guess or a question).
- multi_valued: true when the attribute can hold several values at once and this one adds to
  the others (a second pet, another language spoken, one more hobby); false when a new value
  replaces the old one (a home city, an employer, a diet).
Facts that were true before but changed get only their new value.
Skip greetings, questions, opinions about the conversation and anything not stated.
Return an empty list when the text states no fact."""

KNOWN_KEYS_PROMPT = """\

Keys already in memory (reuse one when the fact is about the same attribute):
{keys}"""

FAMILIES_PROMPT = """\

For the user's own attributes, use these relation names when one fits: {families}.
Another person's attribute has that person in the key ("user.sister.home_city"), never the
user's key. A hypothetical, planned, past or negated statement ("I might move to Rome",
"I used to live in Paris", "I don't eat meat") states no fact."""


def _family_names() -> list[str]:
    from langchain_tepa.extraction.families import FAMILIES

    return sorted(FAMILIES)


class ExtractedFact(BaseModel):
    """One fact as the model returns it."""

    key: str = Field(
        description="Canonical dotted key '<subject>.<relation>' in lower-case snake_case, "
        "e.g. 'user.diet' or 'france.capital'."
    )
    value: str = Field(description="The value only, e.g. 'vegan' or 'Paris'.")
    confidence: float = Field(description="From 0 to 1: how clearly the text states it.")
    multi_valued: bool = Field(
        default=False,
        description="True when the attribute holds several values at once and this one adds "
        "to the others (pets, languages, hobbies); false when it replaces the old value.",
    )


class ExtractedFacts(BaseModel):
    """The facts stated in a text (an empty list when none)."""

    facts: list[ExtractedFact] = Field(description="Every fact the text states.")


def normalize_key(raw: str, *, default_subject: str = "user") -> str | None:
    """The canonical form of a model-written key, or None when nothing is left of it.

    Each dot-separated segment is case-folded, runs of characters other than letters, digits
    and ``_`` become one ``_``, and empty segments are dropped. A first-person subject (``i``,
    ``me``, ``my``, ``the_user``...) becomes ``default_subject``; a key of one segment gets
    ``default_subject`` in front (``"diet"`` -> ``"user.diet"``), after dropping a leading
    first-person or subject word (``"my diet"`` and ``"User Diet"`` -> ``"user.diet"``).

    Args:
        raw: The key the model wrote.
        default_subject: Subject for first-person and subject-less keys.

    Returns:
        The canonical key, or None when ``raw`` holds no letters or digits.

    Example:
        >>> normalize_key(" User . Diet ")
        'user.diet'
        >>> normalize_key("diet") is not None and normalize_key("!!") is None
        True
    """
    segments = []
    for part in str(raw).split("."):
        seg = _UNDERSCORES.sub("_", _NON_WORD.sub("_", part.strip().casefold())).strip("_")
        if seg:
            segments.append(seg)
    if not segments:
        return None
    if segments[0] in _FIRST_PERSON:
        segments[0] = default_subject
    if len(segments) == 1:
        head, _, rest = segments[0].partition("_")
        if rest and (head in _FIRST_PERSON or head == default_subject):  # "my diet", "user diet"
            segments[0] = rest
        segments.insert(0, default_subject)
    key = ".".join(segments)
    return key[:MAX_KEY_LENGTH].rstrip("._") or None


class LLMFactExtractor:
    """Free text -> keyed facts with a chat model's structured output.

    Whether a fact's attribute holds one value or many is the model's answer per fact
    (``multi_valued``; kept as ``Fact.metadata["multi_valued"]``). For free-text *items* (store
    puts, vector-store documents), prefer a judge (``TEPAMemory(judge=...)``): it is shown the
    earlier memories a new one may replace, which a key-value extractor never is.

    Args:
        llm: Any LangChain chat model supporting ``with_structured_output``. When None, a
            ``ChatOpenAI(model=model, temperature=0)`` is created on first use (it reads
            ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``).
        model: Model name for the default ``ChatOpenAI`` (default ``gpt-4o-mini``, or
            ``TEPA_OPENAI_CHAT_MODEL``). Ignored when ``llm`` is given.
        method: Structured-output method passed to ``with_structured_output``
            (``"json_schema"``, ``"function_calling"``, ``"json_mode"``); None uses the
            model's default (``json_schema`` for ``ChatOpenAI``).
        min_confidence: Facts at or below this confidence are dropped (default 0.5: keep
            what the text states; a hedge, which the prompt scores about 0.5, and a guess
            never take anything back).
        default_subject: Subject of first-person and subject-less keys.
        known_keys: Keys to offer the model for reuse: a list, or a callable returning one
            (``known_keys=memory.keys``), called on every extraction.
        system_prompt: Replaces the built-in instructions.

    Example:
        >>> from langchain_openai import ChatOpenAI
        >>> extractor = LLMFactExtractor(  # doctest: +SKIP
        ...     llm=ChatOpenAI(model="gpt-4o-mini", temperature=0), min_confidence=0.6
        ... )
        >>> extractor.extract("I went vegan last year.")  # doctest: +SKIP
        [Fact(key='user.diet', value='vegan', ..., confidence=0.95)]
    """

    def __init__(
        self,
        llm: BaseChatModel | None = None,
        *,
        model: str | None = None,
        method: Literal["json_schema", "function_calling", "json_mode"] | None = None,
        min_confidence: float = 0.5,
        default_subject: str = "user",
        known_keys: Sequence[str] | Callable[[], Iterable[str]] | None = None,
        system_prompt: str | None = None,
    ) -> None:
        if (
            isinstance(min_confidence, bool)
            or not isinstance(min_confidence, int | float)
            or not 0.0 <= min_confidence <= 1.0
        ):
            raise InvalidArgumentError(
                f"min_confidence must be a number from 0 to 1, got {min_confidence!r}"
            )
        if (
            not isinstance(default_subject, str)
            or not _SUBJECT.fullmatch(default_subject)
            or default_subject in _FIRST_PERSON
        ):
            raise InvalidArgumentError(
                "default_subject must be one lower-case snake_case word such as 'user', "
                f"got {default_subject!r}"
            )
        if method not in (None, "json_schema", "function_calling", "json_mode"):
            raise InvalidArgumentError(
                "method must be 'json_schema', 'function_calling', 'json_mode' or None, "
                f"got {method!r}"
            )
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise InvalidArgumentError(f"model must be a non-empty string, got {model!r}")
        self._llm = llm
        self.model = model or os.environ.get("TEPA_OPENAI_CHAT_MODEL") or DEFAULT_CHAT_MODEL
        self.method = method
        self.min_confidence = float(min_confidence)
        self.default_subject = default_subject
        self.known_keys = known_keys
        self.system_prompt = system_prompt or SYSTEM_PROMPT
        self._chain: Runnable[Any, Any] | None = None

    def __repr__(self) -> str:
        return (
            f"LLMFactExtractor(model={self.model_name!r}, method={self.method!r}, "
            f"min_confidence={self.min_confidence})"
        )

    # ------------------------------------------------------------------ the model
    @property
    def model_name(self) -> str:
        """Name of the chat model in use (or to be created)."""
        if self._llm is None:
            return self.model
        for attr in ("model_name", "model"):
            name = getattr(self._llm, attr, None)
            if isinstance(name, str) and name:
                return name
        return type(self._llm).__name__

    @property
    def llm(self) -> BaseChatModel:
        """The chat model (a ``ChatOpenAI`` is created on first access when none was given).

        Raises:
            ExtractionError: If the default ``ChatOpenAI`` cannot be created (no API key).
        """
        if self._llm is None:
            try:
                from langchain_openai import ChatOpenAI

                self._llm = ChatOpenAI(model=self.model, temperature=0)
            except Exception as exc:
                raise ExtractionError(
                    f"could not create ChatOpenAI(model={self.model!r}) for fact extraction "
                    f"({type(exc).__name__}: {exc}); set OPENAI_API_KEY (and OPENAI_BASE_URL "
                    "for an OpenAI-compatible server), or pass llm=<any chat model>, or use "
                    "the offline extractor"
                ) from exc
        return self._llm

    def _structured(self) -> Runnable[Any, Any]:
        if self._chain is None:
            llm = self.llm
            kwargs: dict[str, Any] = {} if self.method is None else {"method": self.method}
            try:
                self._chain = llm.with_structured_output(ExtractedFacts, **kwargs)
            except NotImplementedError as exc:
                raise ExtractionError(
                    f"{type(llm).__name__} does not support structured output; pass a chat "
                    "model that implements with_structured_output (tool calling or JSON schema)"
                ) from exc
        return self._chain

    # ------------------------------------------------------------------ prompting
    def _keys(self) -> list[str]:
        source = self.known_keys
        if source is None:
            return []
        keys = source() if callable(source) else source
        out: list[str] = []
        for k in keys:
            if isinstance(k, str) and k.strip() and k not in out:
                out.append(k.strip())
            if len(out) >= MAX_KNOWN_KEYS:
                break
        return out

    def messages(self, text: str, known_keys: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """The chat messages sent for ``text`` (system instructions, then the text).

        Args:
            text: The text to extract from.
            known_keys: Keys of the namespace to offer for reuse, beside ``known_keys`` given
                to the constructor (at most :data:`MAX_KNOWN_KEYS` in all).
        """
        system = self.system_prompt
        if self.system_prompt is SYSTEM_PROMPT:
            system += FAMILIES_PROMPT.format(families=", ".join(_family_names()))
        keys = self._keys()
        for k in known_keys or ():
            if len(keys) >= MAX_KNOWN_KEYS:
                break
            if isinstance(k, str) and k.strip() and k.strip() not in keys:
                keys.append(k.strip())
        if keys:
            system += KNOWN_KEYS_PROMPT.format(keys="\n".join(f"- {k}" for k in keys))
        return [("system", system), ("human", text)]

    # ------------------------------------------------------------------ reading answers
    def _facts(self, answer: Any, text: str) -> list[Fact]:
        if answer is None:
            raise ExtractionError(
                f"the chat model {self.model_name!r} returned no structured output (a refusal "
                "or an unparsable answer); retry, or use a model that supports structured output"
            )
        try:
            parsed = (
                answer
                if isinstance(answer, ExtractedFacts)
                else ExtractedFacts.model_validate(
                    answer.model_dump() if isinstance(answer, BaseModel) else answer
                )
            )
        except ValidationError as exc:
            raise ExtractionError(
                f"the chat model {self.model_name!r} returned facts that do not match the "
                f"schema (key, value, confidence): {exc.errors()[:3]}"
            ) from exc
        best: dict[tuple[str, str], Fact] = {}
        for item in parsed.facts:
            key = normalize_key(item.key, default_subject=self.default_subject)
            value = " ".join(item.value.split())
            conf = item.confidence
            if key is None or not value or not math.isfinite(conf):
                continue
            conf = min(1.0, max(0.0, conf))
            if conf <= self.min_confidence:
                continue
            meta: dict[str, Any] = {"extractor": "llm", "model": self.model_name}
            if item.multi_valued:  # the model's answer for this fact, not a guess from the key
                meta["multi_valued"] = True
            fact = Fact(key=key, value=value, text=text, metadata=meta, confidence=conf)
            ident = (key, value.casefold())
            if ident not in best or best[ident].confidence < conf:
                best[ident] = fact
        return list(best.values())

    @staticmethod
    def _check(text: object) -> str:
        if not isinstance(text, str):
            raise InvalidArgumentError(f"text must be a string, got {type(text).__name__}")
        return text

    def _wrap(self, exc: Exception) -> ExtractionError:
        return ExtractionError(
            f"fact extraction with {self.model_name!r} failed ({type(exc).__name__}: {exc}); "
            "check the API key, base_url and model name, and that the model supports "
            "structured output"
        )

    # ------------------------------------------------------------------ public API
    def extract(self, text: str) -> list[Fact]:
        """The facts stated in ``text``, best confidence per (key, value), in model order.

        Args:
            text: Free text (a chat turn, a note, a document passage).

        Returns:
            Facts with canonical keys, ``text`` set to the input and ``confidence`` at least
            ``min_confidence``; an empty list for blank text (the model is not called).

        Raises:
            InvalidArgumentError: If ``text`` is not a string.
            ExtractionError: If the model call fails or its answer does not fit the schema.
        """
        if not self._check(text).strip():
            return []
        chain = self._structured()
        try:
            answer = chain.invoke(self.messages(text))
        except ExtractionError:
            raise
        except Exception as exc:
            raise self._wrap(exc) from exc
        return self._facts(answer, text)

    def extract_with_keys(self, text: str, known_keys: Sequence[str]) -> list[Fact]:
        """:meth:`extract`, with the namespace's known keys in the prompt for reuse.

        ``TextIngest`` calls this with the keys stored in the namespace, so the model names an
        attribute it has seen before with the same key ("user.home_city", not
        "user.location").

        Example:
            >>> extractor = LLMFactExtractor(llm=model)  # doctest: +SKIP
            >>> extractor.extract_with_keys(  # doctest: +SKIP
            ...     "I moved to Oslo.", ["user.home_city"]
            ... )
            [Fact(key='user.home_city', value='Oslo', ...)]
        """
        if not self._check(text).strip():
            return []
        chain = self._structured()
        try:
            answer = chain.invoke(self.messages(text, known_keys))
        except ExtractionError:
            raise
        except Exception as exc:
            raise self._wrap(exc) from exc
        return self._facts(answer, text)

    async def aextract_with_keys(self, text: str, known_keys: Sequence[str]) -> list[Fact]:
        """Async twin of :meth:`extract_with_keys`."""
        if not self._check(text).strip():
            return []
        chain = self._structured()
        try:
            answer = await chain.ainvoke(self.messages(text, known_keys))
        except ExtractionError:
            raise
        except Exception as exc:
            raise self._wrap(exc) from exc
        return self._facts(answer, text)

    async def aextract(self, text: str) -> list[Fact]:
        """Async twin of :meth:`extract` (uses the model's native async call)."""
        if not self._check(text).strip():
            return []
        chain = self._structured()
        try:
            answer = await chain.ainvoke(self.messages(text))
        except ExtractionError:
            raise
        except Exception as exc:
            raise self._wrap(exc) from exc
        return self._facts(answer, text)
