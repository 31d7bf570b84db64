"""The fact-extractor protocol (free text -> keyed facts) and extraction reports.

An extractor is anything with ``extract(text) -> list[Fact]``. An extractor that can also say
which sentences it did not understand implements ``extract_report(text) ->
ExtractionReport`` (:class:`ReportingFactExtractor`; the offline extractor does).
:func:`extract_report` gives a report for *any* extractor, so a caller such as
``TEPAMemory.add_texts`` can always say what it dropped: for an extractor without
``extract_report``, a text that gave no fact is reported whole.

Example:
    >>> class Colon:
    ...     def extract(self, text: str) -> list[Fact]:
    ...         key, _, value = text.partition(":")
    ...         return [Fact(key.strip(), value.strip(), text=text)] if value else []
    >>> isinstance(Colon(), FactExtractor)
    True
    >>> extract_report(Colon(), "no colon here").unextracted
    [Unextracted(text='no colon here', reason='no_fact')]
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from langchain_tepa.core.types import Fact

__all__ = [
    "ExtractionReport",
    "Fact",
    "FactExtractor",
    "ReportingFactExtractor",
    "Unextracted",
    "UnextractedReason",
    "aextract_report",
    "extract_report",
]

UnextractedReason = Literal[
    "question", "negated", "hypothetical", "no_known_shape", "too_long", "no_fact"
]
"""Why a sentence gave no fact.

* ``question``: it asks rather than states (ends with ``?``);
* ``negated``: it says what is *not* so ("I don't eat meat anymore."), which a keyed value
  cannot hold;
* ``hypothetical``: it says what might, will, would or used to be ("I might move to Rome.",
  "If I lived in Rome...", "I'm thinking about moving.", "I used to live in Paris."), not
  what is so now;
* ``no_known_shape``: it fits none of the sentence shapes the extractor knows;
* ``too_long``: longer than the extractor reads in one sentence;
* ``no_fact``: the extractor gave no fact for the text and says nothing more (extractors without
  ``extract_report``, such as an LLM extractor).
"""

_REASON_TEXT = {
    "question": "a question, not a statement",
    "negated": "a negation: a value cannot hold what is not so",
    "hypothetical": "hypothetical, planned or past: not a value that holds now",
    "no_known_shape": "no known sentence shape",
    "too_long": "too long to read as one sentence",
    "no_fact": "the extractor found no fact",
}


@dataclass(frozen=True)
class Unextracted:
    """A sentence (or a whole text) that gave no fact, and why.

    Attributes:
        text: The sentence as written.
        reason: One of :data:`UnextractedReason`.

    Example:
        >>> str(Unextracted("I'm tired.", "no_known_shape"))
        "I'm tired. (not stored: no known sentence shape)"
    """

    text: str
    reason: UnextractedReason

    def __str__(self) -> str:
        return f"{self.text} (not stored: {_REASON_TEXT.get(self.reason, self.reason)})"


@dataclass(frozen=True)
class ExtractionReport:
    """What an extractor made of one text: its facts and the sentences it could not use.

    Attributes:
        facts: The facts, in the order of the text.
        unextracted: The sentences that gave no fact, in the order of the text.

    Example:
        >>> from langchain_tepa.extraction import OfflineFactExtractor
        >>> report = OfflineFactExtractor().extract_report("I'm vegan. I'm tired.")
        >>> [(f.key, f.value) for f in report.facts], [u.text for u in report.unextracted]
        ([('user.diet', 'vegan')], ["I'm tired."])
    """

    facts: list[Fact] = field(default_factory=list)
    unextracted: list[Unextracted] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether every sentence gave a fact."""
        return not self.unextracted


@runtime_checkable
class FactExtractor(Protocol):
    """Anything with ``extract(text) -> list[Fact]`` (and optionally ``aextract``)."""

    def extract(self, text: str) -> list[Fact]:
        """Facts stated in ``text`` (an empty list when none)."""
        ...


@runtime_checkable
class ReportingFactExtractor(FactExtractor, Protocol):
    """An extractor that also reports the sentences it did not understand."""

    def extract_report(self, text: str) -> ExtractionReport:
        """The facts of ``text`` and the sentences that gave none."""
        ...


def extract_report(extractor: FactExtractor, text: str) -> ExtractionReport:
    """The :class:`ExtractionReport` of ``text`` by any extractor.

    Uses the extractor's own ``extract_report`` when it has one; otherwise calls ``extract`` and
    reports a non-blank text that gave no fact whole, with the reason ``"no_fact"``.
    """
    own = getattr(extractor, "extract_report", None)
    if callable(own):
        report = own(text)
        if isinstance(report, ExtractionReport):
            return report
    return _report_of(list(extractor.extract(text)), text)


async def aextract_report(extractor: FactExtractor, text: str) -> ExtractionReport:
    """Async twin of :func:`extract_report`.

    Prefers the extractor's ``aextract_report``, then its sync ``extract_report`` (in a worker
    thread), then ``aextract``, then ``extract`` (in a worker thread).
    """
    own = getattr(extractor, "aextract_report", None)
    if callable(own):
        report = await own(text)
        if isinstance(report, ExtractionReport):
            return report
    if callable(getattr(extractor, "extract_report", None)):
        return await asyncio.to_thread(extract_report, extractor, text)
    aextract = getattr(extractor, "aextract", None)
    if callable(aextract):
        facts = list(await aextract(text))
    else:
        facts = await asyncio.to_thread(lambda: list(extractor.extract(text)))
    return _report_of(facts, text)


def _report_of(facts: list[Fact], text: str) -> ExtractionReport:
    missed = [] if facts or not text.strip() else [Unextracted(text.strip(), "no_fact")]
    return ExtractionReport(facts, missed)
