"""`OfflineFactExtractor`: keyed facts from plain English sentences, with no model.

The extractor knows a handful of generic English sentence shapes and nothing about any data set:

=====================================  ===================================================
shape                                  example -> ``key = value``
=====================================  ===================================================
``my R is V``                          "My favourite colour is green." -> ``user.favourite_colour``
``I prefer/like/use V for R``          "I switched to oat milk for coffee." -> ``user.coffee``
``the R of S is V``                    "The capital of France is Paris." -> ``france.capital``
``the R that/where S <verb> is V``     "The city where Ada lived is London." -> ``ada.city_lived``
``S's R is V``                         "Ada's employer is Acme." -> ``ada.employer``
``S is the R of O`` (inverse)          "Paris is the capital of France." -> ``france.capital``
``S is a R of V``                      "Ada is a citizen of France." -> ``ada.citizen_of``
``S [is/was] <verb> <prep> V``         "Ada was born in the city of London." ->
                                       ``ada.born_in_city_of = London``
``call me V``, ``I'm called V``        "Call me Bob." -> ``user.name``
``I'm [a/an] <diet>``                  "I'm vegetarian." -> ``user.diet``
``I'm a/an <occupation>``              "I'm a nurse." -> ``user.occupation``;
                                       "I work as a nurse." too
``I'm <adjective> <prep> V``           "I'm allergic to peanuts." -> ``user.allergic_to``
``I'm from V``, ``I'm N years old``    ``user.origin``, ``user.age``
=====================================  ===================================================

Keys are ``"{subject}.{relation}"``. Both parts are canonical: case-folded, punctuation dropped,
words joined by ``_``; a leading article is dropped from the subject, articles and auxiliaries
(``is``, ``was``, ...) from the relation. The first person (``I``, ``my``) is the subject
``user``. The value is the object phrase as written (trailing full stop removed); a leading
category phrase of lower-case words (``the city of London``) is moved from the value into the
relation (``born_in_city_of`` = ``London``). Questions, negated sentences and sentences that fit
no shape give no fact; :meth:`OfflineFactExtractor.extract_report` lists them with the reason.
The result is deterministic.

Self-descriptions use a small fixed vocabulary: the diets are those of ``DIETS`` (vegetarian,
vegan, pescatarian, ...); an occupation is a word of ``OCCUPATIONS`` or a word ending like one
(``-ist``, ``-ician``, ``-eer``, ``-ologist``, ``-grapher``), so "I'm a night owl." gives no fact
rather than a wrong one.

**Corrections.** A statement that says the value changed ("now", "instead", "no longer",
"anymore": "My favourite colour is now blue.", "I use oat milk for coffee instead.") gives its
fact with ``metadata["correction"] = True``; those words are not part of the key or value.
Discourse openers ("Actually, ...", "By the way, ...") are skipped.

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
import dataclasses
import re
from collections.abc import Iterator

from langchain_tepa.core.types import Fact
from langchain_tepa.extraction.base import ExtractionReport, Unextracted, UnextractedReason
from langchain_tepa.extraction.claims import Claim, parse_user_sentence
from langchain_tepa.extraction.families import (
    FAMILIES,
    canonical_relation,
    family_of_label,
    generic_relation,
    verb_family,
)
from langchain_tepa.extraction.framing import split_list, unframe
from langchain_tepa.extraction.generic import EVENT_VERBS, family_fits, infer_family, user_predicate
from langchain_tepa.extraction.lexicon import (
    _ABBREVIATIONS,
    _ADJ_PREP,
    _AGE,
    _ARTICLES,
    _AUX,
    _BOUNDARY,
    _COPULA,
    _CORRECTION,
    _DIET,
    _I_AM,
    _INNER_NOW,
    _INSTEAD_OF,
    _MAX_SENTENCE,
    _NAME,
    _NAME_LINKS,
    _NEGATIVE_TAIL,
    _OBJECT_PRONOUNS,
    _OCCUPATION_SUFFIXES,
    _OPENERS,
    _ORIGIN,
    _PREFER_VERBS,
    _PREPS,
    _RELATIVE,
    _ROLE,
    _SELF,
    _SHOWN_CHARS,
    _TRAILING_ADVERB,
    _WE_ARE,
    _WORK_AS,
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
    _words,
    normalize_key_part,
)
from langchain_tepa.extraction.markup import strip_markup
from langchain_tepa.extraction.values import (
    attribute_text,
    is_hypothetical,
    trim_tail,
)

__all__ = ["DIETS", "OCCUPATIONS", "OfflineFactExtractor", "normalize_key_part"]


class OfflineFactExtractor:
    """Rule-based, model-free fact extractor for plain English statements.

    Keys are ``"{subject}.{relation}"`` in canonical form (see the module documentation); the
    value is the object phrase as written. The same text always gives the same facts.

    Args:
        user_subject: Subject used for first-person statements (``"user"``).
        source: ``source`` written on every fact (``"offline-extractor"``).

    Example:
        >>> ex = OfflineFactExtractor()
        >>> [(f.key, f.value) for f in ex.extract("I switched to oat milk for coffee.")]
        [('user.coffee', 'oat milk')]
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
        ``"negated"``, ``"no_known_shape"`` or ``"too_long"`` (a sentence longer than 600
        characters; its text is then cut to 200 characters and ``...``). A text that is not a
        string, or is blank, gives an empty report.
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
    def _split(text: str) -> Iterator[str]:
        start = 0
        for m in _BOUNDARY.finditer(text):
            if not m.group(0).startswith("\n"):
                before = text[start : m.start()].split()
                last = before[-1].rstrip(".").lower() if before else ""
                # initials ("Samuel P. Huntington") and abbreviations ("Dr. Dre") end no sentence
                if len(last) <= 1 or last in _ABBREVIATIONS or "." in last:
                    continue
            yield text[start : m.end()]
            start = m.end()
        yield text[start:]

    @classmethod
    def _sentences(cls, text: str) -> Iterator[str]:
        is_list = "\n" in text.strip()
        for piece in cls._split(text):
            s = piece.strip()
            if is_list:
                s = re.sub(r"^\d+[.)]\s+", "", s)  # list numbering "12. "
            yield from split_list(s) if s else ()

    @staticmethod
    def _prepare(sentence: str) -> tuple[str, bool, str]:
        """The sentence as the shapes read it, its correction flag and the value it replaced.

        The replaced value is "" when none is named. Note markup (timestamps, bullets, headers,
        arrows: :func:`strip_markup`), discourse openers ("Actually, ...") and the correction
        words ("now", "instead", "instead of X") are removed, so is a trailing contrast (", not
        X", ", no longer X"), and ``I'm`` becomes ``I am``.
        """
        marked = strip_markup(sentence)
        sentence = marked.text
        correction = marked.change or bool(_CORRECTION.search(sentence))
        stop = sentence.rstrip()[len(sentence.rstrip().rstrip(".!")) :]
        sentence, framed = unframe(sentence)
        sentence += stop  # the shapes read the sentence's own full stop
        correction = correction or framed
        body = _OPENERS.sub("", sentence.rstrip())
        body = _I_AM.sub("I am", _WE_ARE.sub(r"\1 are", body))
        body = _NEGATIVE_TAIL.sub("", body)  # "I'm vegan now, no longer vegetarian."
        if correction:
            body = _INSTEAD_OF.sub("", body)
            body = _TRAILING_ADVERB.sub("", body)
            body = _INNER_NOW.sub(r"\1 ", body)
        return body, correction, marked.previous

    def _parse(self, sentence: str) -> list[Fact] | UnextractedReason:
        if sentence.endswith("?"):
            return "question"
        body, correction, previous = self._prepare(sentence)
        claims = parse_user_sentence(body, correction)
        if isinstance(claims, list):
            if previous and len(claims) == 1 and not claims[0].previous:
                claims = [dataclasses.replace(claims[0], previous=previous, correction=True)]
            return [self._claim_fact(sentence, c) for c in claims]
        if claims == "hypothetical":
            return "hypothetical"
        if _negated(body):
            return "negated"
        if is_hypothetical(body):
            return "hypothetical"
        inferred = user_predicate(body)
        if inferred is not None and inferred[2]:  # a verb no family lists, words that name one
            relation, value, _, _ = inferred  # ("keeps the money at Nordea": the bank)
            claim = Claim("user", relation, value, False, correction or bool(previous), previous)
            return [self._claim_fact(sentence, claim)]
        generic = self._generic(sentence, body, correction, previous)
        if isinstance(generic, Fact) or inferred is None:
            return [generic] if isinstance(generic, Fact) else generic
        # no shape read it: the predicate's own words name the attribute, for key resolution
        # to place ("the user signed up at BeFit"); "also", "too" add a value of several
        relation, value, _, adds = inferred
        relation = generic_relation(relation, value)  # a family's key is no generic claim's
        changed = (correction or bool(previous)) and not adds
        fact = self._claim_fact(sentence, Claim("user", relation, value, adds, changed, previous))
        meta = dict(fact.metadata or {})
        meta.pop("family", None)
        return [dataclasses.replace(fact, metadata=meta)]

    def _claim_fact(self, sentence: str, claim: Claim) -> Fact:
        subject = self.user_subject + claim.subject[len("user") :]
        value = trim_tail(claim.value)
        return Fact(
            key=f"{subject}.{claim.relation}",
            value=value,
            text=sentence,
            source=self.source,
            metadata={
                "subject": claim.subject,
                "relation": claim.relation.replace("_", " "),
                "family": claim.relation,
                **({"multi_valued": True} if claim.multi_valued else {}),
                **({"correction": True} if claim.correction else {}),
                **({"previous_value": claim.previous} if claim.previous else {}),
                "attribute_text": attribute_text(sentence, value),
            },
        )

    def _generic(
        self, sentence: str, body: str, correction: bool, previous: str = ""
    ) -> Fact | UnextractedReason:
        for parser in (
            self._name,
            self._self_description,
            self._first_person,
            self._relative_clause,
            self._the_r_of_s,
            self._possessive,
            self._inverse_copula,
            self._verb_phrase,
        ):
            parsed = parser(body)
            if parsed is not None:
                subject, relation_words, value = parsed
                verbal = parser == self._verb_phrase  # its relation starts with a verb
                fact = self._fact(
                    sentence, subject, relation_words, value, correction, previous, verbal
                )
                return fact if fact is not None else "no_known_shape"
        return "no_known_shape"

    def _fact(
        self,
        sentence: str,
        subject: str,
        relation_words: list[str],
        value: str,
        correction: bool = False,
        previous: str = "",
        verbal: bool = False,
    ) -> Fact | None:
        lead = re.match(r"^(to|on|in|at|with|for|into|onto)\s+(?:the\s+|a\s+|an\s+)?(\S.*)$", value)
        if lead is not None and relation_words:  # "moved on | to an affogato": the verb's
            relation_words, value = [*relation_words, lead.group(1)], lead.group(2)
        raw_value = value
        value = trim_tail(_strip_value(value))
        category, value = _split_category(value)
        relation = _relation([*relation_words, *category])
        subj = _subject_key(subject)
        if subj == "user":
            subj = self.user_subject
        if not subj or not relation or not value or len(value) > 300:
            return None
        if subj == self.user_subject and relation_words and relation_words[0] in EVENT_VERBS:
            return None  # "User asked about the weather": a moment of the talk, no attribute
        # a verb is no noun: "I watch Netflix" names no wristwatch (families.verb_family)
        family = canonical_relation(relation) if subj == self.user_subject else None
        named = family is not None  # its words name a family: no other is inferred
        if verbal and family is not None:
            family = verb_family(relation)
        # "coffee order of" names its family outright; a verb phrase never does
        outright = not verbal and family_of_label(" ".join(relation_words)) is not None
        if family in FAMILIES and not family_fits(FAMILIES[family or ""], value, outright):
            family = None  # "I go by bus" names no one; "I drink tea" is no coffee order
        if not named and subj == self.user_subject:
            # no shape named the attribute: the words around the value may ("keeps the money
            # at Nordea": the bank), see langchain_tepa.extraction.generic
            inferred = infer_family(relation_words, _strip_value(raw_value), verb=verbal)
            if inferred is not None:
                family, value = inferred
        if family is not None:
            relation = family
        elif verbal and subj == self.user_subject:
            relation = generic_relation(relation, value)  # "I watch" is no watch
        key = f"{subj}.{relation}"
        if len(key) > 200:
            return None
        multi = family is not None and family in FAMILIES and FAMILIES[family].multi_valued
        return Fact(
            key=key,
            value=value,
            text=sentence,
            source=self.source,
            metadata={
                "subject": subject if subj != self.user_subject else "user",
                "relation": " ".join(relation.split("_")),
                **({"family": family} if family is not None else {}),
                **({"multi_valued": True} if multi else {}),
                **({"correction": True} if correction or previous else {}),
                **({"previous_value": previous} if previous else {}),
                "attribute_text": attribute_text(sentence, value),
            },
        )

    # Each shape returns (subject as written, relation words, value as written) or None.
    @staticmethod
    def _name(s: str) -> tuple[str, list[str], str] | None:
        """``call me V``, ``I'm called V``, ``I go by V``, ``name's V``: the speaker's name."""
        m = _NAME.match(s)
        if not m:
            return None
        value = next(g for g in m.groups() if g is not None)
        value = re.sub(r"(?:,\s*|\s+)please\W*$", "", value.strip())
        # a name is capitalised: "Call me later." and "I go by bus." name nobody
        if not value[:1].isupper() or len(value.split()) > 4:
            return None
        return "user", ["name"], value

    @staticmethod
    def _self_description(s: str) -> tuple[str, list[str], str] | None:
        """``I'm vegetarian``, ``I'm a nurse``, ``I'm allergic to V``, ``I'm from V``, ..."""
        m = _WORK_AS.match(s)
        if m:
            return "user", ["occupation"], m.group(1)
        m = _SELF.match(s)
        if not m:
            return None
        rest = _strip_value(m.group(1))
        if (d := _DIET.match(rest)) is not None:
            return "user", ["diet"], d.group(1)
        if (a := _AGE.match(rest)) is not None:
            return "user", ["age"], a.group(1)
        if (o := _ORIGIN.match(rest)) is not None:
            return "user", ["origin"], o.group(1)
        if (r := _ROLE.match(rest)) is not None:
            head = r.group(2)
            if head in OCCUPATIONS or head.endswith(_OCCUPATION_SUFFIXES):
                return "user", ["occupation"], r.group(1)
            return None
        p = _ADJ_PREP.match(rest)
        if p is not None and p.group(1).split()[0] not in _ARTICLES:
            if p.group(1).split()[-1].endswith("ing"):  # "going to", "moving to": plans
                return None
            return "user", [*p.group(1).split(), p.group(2)], p.group(3)
        return None

    @staticmethod
    def _first_person(s: str) -> tuple[str, list[str], str] | None:
        m = re.match(rf"^(?:[Mm]y|[Oo]ur)\s+(.+?)\s+{_COPULA}\s+(?:now\s+)?(.+)$", s)
        if m and m.group(1).islower():
            return "user", _words(m.group(1)), m.group(2)
        verbs = "|".join(v.replace(" ", r"\s+") for v in _PREFER_VERBS)
        m = re.match(
            rf"^(?:i|we)\s+(?:now\s+|usually\s+|always\s+|have\s+)?(?:{verbs}d?)\s+(.+?)\s+"
            r"(?:for|as)\s+(?:my\s+|our\s+)?(.+)$",
            s,
            re.IGNORECASE,
        )
        if m:
            value, rel = m.group(1), _strip_value(m.group(2))
            return "user", _words(rel), value
        return None

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
        if len(tokens) < 3:
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
