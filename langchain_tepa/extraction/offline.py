"""`OfflineFactExtractor`: keyed facts from plain English sentences, with no model.

The extractor reads what a user says about themselves precision-first
(:mod:`~langchain_tepa.extraction.user`), and a handful of generic English shapes about anything:

=====================================  ===================================================
shape                                  example -> ``key = value``
=====================================  ===================================================
``my R is V``, ``R: V``                "My favourite colour is green." -> ``user.favourite_colour``
a user's attribute verbs               "I moved to Oslo." -> ``user.home_city`` (a change)
``I use V for R``                      "I use Vim for coding." -> ``user.coding``
``the R of S is V``                    "The capital of France is Paris." -> ``france.capital``
``the R that/where S <verb> is V``     "The city where Ada lived is London." -> ``ada.city_lived``
``S's R is V``                         "Ada's employer is Acme." -> ``ada.employer``
``S is the R of O`` (inverse)          "Paris is the capital of France." -> ``france.capital``
``S [is/was] <verb> <prep> V``         "Ada was born in the city of London." ->
                                       ``ada.born_in_city_of = London``
=====================================  ===================================================

Keys are ``"{subject}.{relation}"``. Both parts are canonical: case-folded, punctuation dropped,
words joined by ``_``; the first person (``I``, ``my``, "User") is the subject ``user``. A
leading category phrase of lower-case words (``the city of London``) is moved from the value into
the relation (``born_in_city_of`` = ``London``). Questions, negations, plans, hypotheticals,
history ("I used to ...") and temporary states ("... until Friday") give no fact;
:meth:`OfflineFactExtractor.extract_report` lists them with the reason. The result is
deterministic.

**Corrections.** ``metadata["correction"] = True`` marks a statement that says, explicitly, that
the value changed: "now", "no longer", "anymore", "instead", a change verb of the attribute
("moved to", "got promoted to", "switched my browser to") or a replaced value ("from X to Y",
"X -> Y", "(previously X)", kept in ``metadata["previous_value"]``). A user's claim read only by
the generic verb shape ("I watch Netflix") is never a correction: its verb may mean anything.

Example:
    >>> extractor = OfflineFactExtractor()
    >>> [(f.key, f.value) for f in extractor.extract("The capital of France is Paris.")]
    [('france.capital', 'Paris')]
    >>> [(f.key, f.value) for f in extractor.extract("Ada Lovelace was born in London.")]
    [('ada_lovelace.born_in', 'London')]
    >>> extractor.extract("Is it raining?")
    []
    >>> [(f.key, f.value) for f in extractor.extract("Call me Bob. I'm vegetarian.")]
    [('user.name', 'Bob'), ('user.diet', 'vegetarian')]
    >>> extractor.extract("My favourite colour is now blue.")[0].metadata["correction"]
    True
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

from langchain_tepa.core.types import Fact
from langchain_tepa.extraction.base import ExtractionReport, Unextracted, UnextractedReason
from langchain_tepa.extraction.families import canonical_relation
from langchain_tepa.extraction.lexicon import (
    _ABBREVIATIONS,
    _ARTICLES,
    _AUX,
    _BOUNDARY,
    _COPULA,
    _MAX_SENTENCE,
    _NAME_LINKS,
    _OBJECT_PRONOUNS,
    _PREPS,
    _RELATIVE,
    _SHOWN_CHARS,
    DIETS,
    OCCUPATIONS,
    _is_capitalised,
    _negated,
    _relation,
    _split_category,
    _starts_upper,
    _strip_value,
    _subject_key,
    _verbal,
    _word_set,
    _words,
    normalize_key_part,
)
from langchain_tepa.extraction.user import Claim, is_hypothetical, read_user

__all__ = ["DIETS", "OCCUPATIONS", "OfflineFactExtractor", "normalize_key_part"]

_STAMP = re.compile(
    r"^(?:\[[^\]]{1,40}\]|\((?=[^)]*\d)[^)]{1,30}\)|\d{4}-\d{2}-\d{2}(?:[ T][\d:]{4,8}Z?)?)"
    r"\s*[:\-–—|]?\s*"
)
_BULLET = re.compile(r"^(?:[-*•·>]+|\d{1,3}[.)])\s+")
_OPENERS = re.compile(
    r"^(?:(?:actually|well|also|so|oh|ok|okay|by\s+the\s+way|btw|anyway|fyi|note|noted|memory|"
    r"reminder|for\s+the\s+record|for\s+reference|as\s+a\s+reminder|heads\s+up|just\s+so\s+you\s+"
    r"know|(?:the\s+)?user\s+(?:said|mentioned|noted|told\s+me)|(?:please\s+)?remember|(?:(?:the\s+)?"
    r"user(?:['’]s)?\s+)?(?:info|information|profile|details|facts?|summary|context))"
    r"(?:\s*[,:\-–—]\s*|\s+that\s+)|noted\s+that\s+|(?:please\s+)?remember\s+(?=(?:I|we|my|our)\b))+",
    re.IGNORECASE,
)
_CORRECTION = re.compile(r"\b(?:now|instead|no\s+longer|anymore|any\s+more)\b")
_INSTEAD_OF = re.compile(r",?\s+instead\s+of\s+([^,;]+?)(?=[,;]|[.!]*$)")
_TRAILING_ADVERB = re.compile(r"(?:,\s*|\s+)(?:now|instead|anymore|any\s+more)(?=[.!]*\s*$)")
_INNER_NOW = re.compile(r"\b(is|was|are|were)\s+now\s+")
_EVENT_VERBS = _word_set(
    "asked asks told tells said says thanked thanks talked discussed mentioned wondered "
    "wonders requested requests greeted"
)
_FUNCTION_TAIL = re.compile(
    r"(?:\s+(?:for|on|in|at|to|with|as|of|by|from|the|a|an|and|or|but|my|our))+\s*$", re.I
)


class OfflineFactExtractor:
    """Rule-based, model-free fact extractor for plain English statements.

    Keys are ``"{subject}.{relation}"`` in canonical form (see the module documentation); the
    value is the object phrase as written. The same text always gives the same facts.

    Args:
        user_subject: Subject used for first-person statements (``"user"``).
        source: ``source`` written on every fact (``"offline-extractor"``).

    Example:
        >>> ex = OfflineFactExtractor()
        >>> [(f.key, f.value) for f in ex.extract("I use Vim for coding.")]
        [('user.coding', 'Vim')]
        >>> [(f.key, f.value) for f in ex.extract("Ada's employer is Acme Corp.")]
        [('ada.employer', 'Acme Corp')]
        >>> report = ex.extract_report("I'm vegetarian. I'm a night owl. Is it late?")
        >>> [(f.key, f.value) for f in report.facts]
        [('user.diet', 'vegetarian')]
        >>> [(u.text, u.reason) for u in report.unextracted]
        [("I'm a night owl.", 'no_known_shape'), ('Is it late?', 'question')]
    """

    def __init__(self, *, user_subject: str = "user", source: str = "offline-extractor") -> None:
        self.user_subject = normalize_key_part(user_subject) or "user"
        self.source = source

    # ------------------------------------------------------------------ public
    def extract(self, text: str) -> list[Fact]:
        """Facts stated in ``text`` (one or more sentences); ``[]`` when there are none."""
        return self.extract_report(text).facts

    def extract_report(self, text: str) -> ExtractionReport:
        """The facts of ``text`` and the sentences that gave none, with the reason.

        Every sentence of ``text`` is either the source of a fact (a repeated fact is kept
        once) or listed in ``unextracted`` with one of the reasons ``"question"``,
        ``"negated"``, ``"hypothetical"``, ``"no_known_shape"`` or ``"too_long"`` (a sentence
        longer than 600 characters; its text is then cut to 200 characters and ``...``). A text
        that is not a string, or is blank, gives an empty report.
        """
        if not isinstance(text, str) or not text.strip():
            return ExtractionReport()
        facts: list[Fact] = []
        missed: list[Unextracted] = []
        seen: set[tuple[str, str]] = set()
        for sentence in self._sentences(text):
            if len(sentence) > _MAX_SENTENCE:
                missed.append(Unextracted(sentence[:_SHOWN_CHARS] + "...", "too_long"))
                continue
            parsed = self._parse(sentence)
            if isinstance(parsed, str):
                missed.append(Unextracted(sentence, parsed))
                continue
            for fact in parsed:
                ident = (fact.key, str(fact.value).casefold())
                if ident not in seen:
                    seen.add(ident)
                    facts.append(fact)
        return ExtractionReport(facts, missed)

    async def aextract(self, text: str) -> list[Fact]:
        """Async twin of :meth:`extract` (pure CPU work, run inline)."""
        await asyncio.sleep(0)
        return self.extract(text)

    async def aextract_report(self, text: str) -> ExtractionReport:
        """Async twin of :meth:`extract_report` (pure CPU work, run inline)."""
        await asyncio.sleep(0)
        return self.extract_report(text)

    # ------------------------------------------------------------------ parsing
    @staticmethod
    def _sentences(text: str) -> Iterator[str]:
        is_list = "\n" in text.strip()
        start = 0
        pieces = []
        for m in _BOUNDARY.finditer(text):
            if not m.group(0).startswith("\n"):
                before = text[start : m.start()].split()
                last = before[-1].rstrip(".").lower() if before else ""
                # initials ("Samuel P. Huntington") and abbreviations ("Dr. Dre") end no sentence
                if len(last) <= 1 or last in _ABBREVIATIONS or "." in last:
                    continue
            pieces.append(text[start : m.end()])
            start = m.end()
        pieces.append(text[start:])
        for piece in pieces:
            s = piece.strip()
            if is_list:
                s = re.sub(r"^\d+[.)]\s+", "", s)  # list numbering "12. "
            if s:
                yield s

    def _parse(self, sentence: str) -> list[Fact] | UnextractedReason:
        if sentence.endswith("?"):
            return "question"
        body = sentence.strip()
        for _ in range(3):
            before = body
            body = _OPENERS.sub("", _BULLET.sub("", _STAMP.sub("", body))).strip()
            if body == before:
                break
        if body != sentence.strip():
            body = body[:1].upper() + body[1:]
        claims = read_user(body)
        if isinstance(claims, list):
            return [self._claim_fact(sentence, c) for c in claims]
        if isinstance(claims, str):
            return claims  # type: ignore[return-value]
        if _negated(body):
            return "negated"
        if is_hypothetical(body):
            return "hypothetical"
        correction = bool(_CORRECTION.search(body))
        body = re.sub(r"^I['’]m\b", "I am", body.rstrip())
        instead = _INSTEAD_OF.search(body)
        previous = _strip_value(instead.group(1)) if instead is not None else ""
        if instead is not None:
            body = body[: instead.start()] + body[instead.end() :]
        if correction:
            body = _INNER_NOW.sub(r"\1 ", _TRAILING_ADVERB.sub("", body))
        for parser in (
            self._relative_clause,
            self._the_r_of_s,
            self._possessive,
            self._inverse_copula,
            self._verb_phrase,
        ):
            parsed = parser(body)
            if parsed is not None:
                verbal = parser == self._verb_phrase
                fact = self._fact(sentence, *parsed, correction, verbal, previous)
                return [fact] if fact is not None else "no_known_shape"
        return "no_known_shape"

    def _claim_fact(self, sentence: str, claim: Claim) -> Fact:
        subject = self.user_subject + claim.subject[len("user") :]
        meta = {
            "subject": claim.subject,
            "relation": claim.relation.replace("_", " "),
            "family": claim.relation,
            **({"multi_valued": True} if claim.multi_valued else {}),
            **({"correction": True} if claim.correction else {}),
            **({"previous_value": claim.previous} if claim.previous else {}),
        }
        return Fact(f"{subject}.{claim.relation}", claim.value, None, sentence, self.source, meta)

    def _fact(
        self,
        sentence: str,
        subject: str,
        relation_words: list[str],
        value: str,
        correction: bool = False,
        verbal: bool = False,
        previous: str = "",
    ) -> Fact | None:
        lead = re.match(r"^(to|on|in|at|with|for|into|onto)\s+(?:the\s+|a\s+|an\s+)?(\S.*)$", value)
        if lead is not None and relation_words:  # "moved on | to an affogato": the verb's
            relation_words, value = [*relation_words, lead.group(1)], lead.group(2)
        value = _strip_value(value)
        value = _FUNCTION_TAIL.sub("", value).strip() or value
        category, value = _split_category(value)
        relation = _relation([*relation_words, *category])
        subj = _subject_key(subject)
        user = subj == "user"
        if user:
            subj = self.user_subject
        if not subj or not relation or not value or len(value) > 300:
            return None
        if user and relation_words and relation_words[0] in _EVENT_VERBS:
            return None  # "User asked about the weather": a moment of the talk, no attribute
        if user and canonical_relation(relation) is not None:
            relation = "does_" + relation  # a verb is no noun: "I watch Netflix" names no watch
        key = f"{subj}.{relation}"
        if len(key) > 200:
            return None
        return Fact(
            key=key,
            value=value,
            text=sentence,
            source=self.source,
            metadata={
                "subject": subject if not user else "user",
                "relation": " ".join(relation.split("_")),
                # a user's claim read by a generic shape is a correction only when it names
                # the value it replaces: its verb may mean anything ("I now drive Tom to school"
                # changes no car; "I drink tea instead of coffee" changes the coffee)
                **(
                    {"correction": True}
                    if correction and (previous or not user or not verbal)
                    else {}
                ),
                **({"previous_value": previous} if previous else {}),
            },
        )

    # Each shape returns (subject as written, relation words, value as written) or None.
    @staticmethod
    def _possessive(s: str) -> tuple[str, list[str], str] | None:
        m = re.match(rf"^(.+?)(?:'s|’s|s'|s’)\s+(.+?)\s+{_COPULA}\s+(.+)$", s)
        if not m:
            return None
        subject = m.group(1) + (
            "s" if m.group(0)[len(m.group(1)) : len(m.group(1)) + 2] in ("s'", "s’") else ""
        )
        rel = _words(m.group(2))
        if not rel or len(rel) > 6 or not _words(subject) or not m.group(2).islower():
            return None
        if _verbal(m.group(3)):
            return None
        return subject, rel, m.group(3)

    @staticmethod
    def _relative_clause(s: str) -> tuple[str, list[str], str] | None:
        """``the R that/where S <verb> is V`` and ``the R that <verb> S is V``."""
        m = re.match(
            r"^(?:[Tt]he|[Aa]n?)\s+([a-z][a-z ]*?)\s+(that|which|where|who|whom)\s+(.+)$", s
        )
        if not m:
            return None
        rel, rest = _words(m.group(1)), m.group(3)
        copulas = list(re.finditer(rf"\s+{_COPULA}\s+", rest))
        if not copulas or not rel:
            return None
        cut = copulas[-1]
        clause, value = rest[: cut.start()].split(), rest[cut.end() :]
        if not clause or not value:
            return None
        if not _is_capitalised(clause[0]) and len(clause) > 1 and clause[0].endswith("ed"):
            # "the company that produced S": the verb comes first, the subject after it
            verbs, subject = [clause[0].lower()], " ".join(clause[1:])
        else:
            j = len(clause)
            while j > 1 and clause[j - 1].islower():
                j -= 1
            subject, verbs = " ".join(clause[:j]), [w.lower() for w in clause[j:]]
        if not _words(subject) or len(verbs) > 4:
            return None
        return subject, [*rel, *_words(" ".join(verbs))], value

    @staticmethod
    def _the_r_of_s(s: str) -> tuple[str, list[str], str] | None:
        """``the R of S is V`` (also ``in``/``for``/``at`` S)."""
        m = re.match(rf"^(?:[Tt]he|[Aa]n?)\s+(.+?)\s+{_COPULA}\s+(.+)$", s)
        if not m:
            return None
        head, value = m.group(1), m.group(2)
        tokens = head.split()
        # the first preposition followed by a capitalised phrase starts the subject
        split = None
        for i, tok in enumerate(tokens):
            if tok.lower() in ("of", "in", "for", "at") and 0 < i < len(tokens) - 1:
                rest = tokens[i + 1 :]
                first = rest[1] if rest[0].lower() == "the" and len(rest) > 1 else rest[0]
                if _is_capitalised(first):
                    split = i
                    break
        if split is None:
            split = next(
                (i for i, t in enumerate(tokens) if t.lower() == "of" and 0 < i < len(tokens) - 1),
                None,
            )
        if split is None:
            return None
        if not all(t.islower() for t in tokens[:split]) and not _starts_upper(value):
            # a capitalised R is a title ("The Sword of Truth was written ...") unless the
            # value is a name ("The President of Austria is Alexander Van der Bellen")
            return None
        rel_words = _words(" ".join(tokens[:split]))
        if tokens[split].lower() != "of":
            rel_words.append(tokens[split].lower())
        subj_tokens = tokens[split + 1 :]
        if len(subj_tokens) > 2 and subj_tokens[0] == "the" and _is_capitalised(subj_tokens[1]):
            # "the Paris government": a name used as a modifier of a common noun
            j = len(subj_tokens)
            while j > 2 and subj_tokens[j - 1].isalpha() and subj_tokens[j - 1].islower():
                j -= 1
            if j < len(subj_tokens):
                rel_words.extend(w.lower() for w in subj_tokens[j:])
                subj_tokens = subj_tokens[:j]
        subject = " ".join(subj_tokens)
        if not rel_words or len(rel_words) > 8 or not _words(subject):
            return None
        return subject, rel_words, value

    @staticmethod
    def _inverse_copula(s: str) -> tuple[str, list[str], str] | None:
        """``X is the R of S`` means the R of S is X."""
        m = re.match(rf"^(.+?)\s+{_COPULA}\s+the\s+([a-z][a-z ]*?)\s+of\s+(.+)$", s)
        if not m:
            return None
        value, rel, subject = m.group(1), m.group(2), m.group(3)
        if not _starts_upper(value.strip()) or len(rel.split()) > 4:
            return None
        if rel.split()[-1] in _PREPS or set(rel.split()) & _PREPS:
            return None
        return _strip_value(subject), _words(rel), value

    @staticmethod
    def _verb_phrase(s: str) -> tuple[str, list[str], str] | None:
        tokens = s.split()
        if len(tokens) < 3 or tokens[0].lower() == "please":  # a request states nothing
            return None
        # subject: up to the first auxiliary, or a capitalised name followed by a verb
        start = None
        for i, tok in enumerate(tokens):
            if i > 0 and tok in ("is", "was", "are", "were", "am"):
                start = i
                break
        if start is None:
            j = 0
            while j < len(tokens) and (
                _is_capitalised(tokens[j])
                or (
                    tokens[j].lower() in _NAME_LINKS
                    and j + 1 < len(tokens)
                    and _is_capitalised(tokens[j + 1])
                )
            ):
                j += 1
            if j == 0 or j >= len(tokens) - 1 or not tokens[j].isalpha():
                return None
            if tokens[0].lower() in ("i", "we"):
                j = 1
            start = j
        subject = " ".join(tokens[:start])
        rest = tokens[start:]
        if rest and rest[0].lower().strip(",") in _OBJECT_PRONOUNS | _RELATIVE:
            # "Tell me ...", "Remember that ...": an imperative, not a subject and its verb
            return None
        # relation: lower-case words up to and including the first preposition
        rel: list[str] = []
        k = 0
        while k < len(rest) and len(rel) < 8:
            word = rest[k]
            low = word.lower()
            if not word.isalpha() or (rel and not word.islower() and low not in _AUX):
                break
            rel.append(low)
            k += 1
            if low in _PREPS and (len(rel) > 1 or rest[0].lower() not in _AUX):
                break
        if k >= len(rest) or not rel:
            return None
        content = [w for w in rel if w not in _AUX and w not in _ARTICLES]
        if not content:
            return None
        if rel[-1] not in _PREPS:
            # "plays the position of V" keeps going through "the <noun> of"; otherwise the
            # verb phrase needs a preposition ("is married to", "was founded by")
            m = re.match(r"^(?:the|a|an)\s+([a-z]+)\s+of\s+(\S.*)$", " ".join(rest[k:]))
            if m:
                return subject, [*rel, m.group(1), "of"], m.group(2)
            if len(content) == 1 and rest[0].lower() not in _AUX:
                # "S verb V" (transitive: "Ada speaks French")
                return subject, rel, " ".join(rest[k:])
            return None
        return subject, rel, " ".join(rest[k:])
