"""Key resolution: map a new key onto a stored key that names the same slot.

Extractors phrase the same slot in different words ("favourite pizza topping", "pizza topping
preference"). Before a new key is stored, :class:`KeyResolver` compares it with the keys already
known in the same namespace and, when one is close enough, the fact is stored under that key, so
the two observations meet (and conflict) under one key.

Rules:

* Only keys of the **same namespace** and the **same parent** are compared. The parent is the
  key without its last ``.`` segment (``user`` for ``user.pizza_topping``): the parent names the
  subject, the last segment the relation, and only the relation is paraphrased. Keys of other
  subjects or namespaces are never merged.
* Each key is compared through its *resolution text*: the last segment with ``_`` as spaces,
  preference markers that do not change the slot dropped (``favourite``, ``preferred``,
  ``preference``, ``usual``, ``current``, ...) and plurals folded (``toppings`` -> ``topping``).
  Equal resolution texts match at once; otherwise the texts are embedded and the most similar
  known key is taken when the cosine similarity is at least
  :attr:`~langchain_tepa.core.policy.LifecyclePolicy.key_match_threshold` (0.9 by default:
  near-paraphrases only; two different relations of one subject such as ``born_in_city_of`` and
  ``died_in_city_of`` score 0.66 with the offline embeddings and stay apart). Set it to 1.0 to
  merge only keys with equal resolution texts.
* An existing key always resolves to itself.

Before the resolver, :class:`~langchain_tepa.memory.ingest.TextIngest` applies
:func:`resolve_families`: family names, and the key that holds a replaced value.

Vectors of known keys are cached per namespace and parent; the cache is filled from the memory's
key index the first time a namespace is used and kept up to date as keys are added.

Example:
    >>> from langchain_tepa.embeddings import HashingEmbeddings
    >>> resolver = KeyResolver(HashingEmbeddings(), threshold=0.9)
    >>> resolver.register("default", ["user.favourite_pizza_topping"])
    >>> resolver.resolve_many("default", ["user.pizza_topping_preference", "user.diet"])
    ['user.favourite_pizza_topping', 'user.diet']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_tepa.core.errors import InvalidArgumentError

__all__ = ["KeyResolver", "is_family_key", "resolution_text", "resolve_families"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
#: Words that mark a preference or the present state without naming another slot.
PREFERENCE_MARKERS: frozenset[str] = frozenset(
    {
        "favourite",
        "favorite",
        "fave",
        "preferred",
        "preference",
        "preferences",
        "usual",
        "current",
        "currently",
        "my",
        "choice",
        "of",
        "the",
        "a",
        "an",
    }
)


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def resolution_text(key: str) -> str:
    """The text a key is compared by: its last segment, markers dropped, plurals folded.

    Example:
        >>> resolution_text("user.favourite_pizza_toppings")
        'pizza topping'
    """
    last = key.rsplit(".", 1)[-1]
    words = [_singular(w) for w in _WORD.findall(last.casefold())]
    kept = [w for w in words if w not in PREFERENCE_MARKERS]
    return " ".join(kept or words)


def _parent(key: str) -> str:
    return key.rsplit(".", 1)[0] if "." in key else ""


@dataclass
class _Group:
    """Known keys of one namespace and parent, with their vectors."""

    keys: list[str] = field(default_factory=list)
    by_text: dict[str, str] = field(default_factory=dict)
    vectors: np.ndarray | None = None

    def add(self, key: str, text: str, vector: np.ndarray) -> None:
        self.keys.append(key)
        self.by_text.setdefault(text, key)
        row = vector.reshape(1, -1)
        self.vectors = row if self.vectors is None else np.vstack([self.vectors, row])


class KeyResolver:
    """Maps new keys onto similar known keys of the same namespace and parent.

    Args:
        embeddings: Embeddings used to compare resolution texts.
        threshold: Cosine similarity at or above which a new key is mapped onto a known key.

    Example:
        >>> from langchain_tepa.embeddings import HashingEmbeddings
        >>> r = KeyResolver(HashingEmbeddings(), threshold=0.9)
        >>> r.register("default", ["ada.born_in_city_of"])
        >>> r.resolve_many("default", ["ada.died_in_city_of"])
        ['ada.died_in_city_of']
    """

    def __init__(self, embeddings: Embeddings, threshold: float) -> None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise InvalidArgumentError(f"threshold must be a number, got {threshold!r}")
        if not 0.0 <= float(threshold) <= 1.0:
            raise InvalidArgumentError(f"threshold must be within [0, 1], got {threshold}")
        self.embeddings = embeddings
        self.threshold = float(threshold)
        self._groups: dict[str, dict[str, _Group]] = {}
        self._known: dict[str, set[str]] = {}
        self._vector_cache: dict[str, np.ndarray] = {}

    def _vectors(self, texts: list[str]) -> list[np.ndarray]:
        missing = sorted({t for t in texts if t not in self._vector_cache})
        if missing:
            for text, vec in zip(missing, self.embeddings.embed_documents(missing), strict=True):
                arr = np.asarray(vec, dtype=np.float64)
                norm = float(np.linalg.norm(arr))
                self._vector_cache[text] = arr / norm if norm > 0 else arr
        return [self._vector_cache[t] for t in texts]

    def register(self, namespace: str, keys: Iterable[str]) -> None:
        """Add stored keys of ``namespace`` to the cache (known keys are skipped)."""
        known = self._known.setdefault(namespace, set())
        groups = self._groups.setdefault(namespace, {})
        new = [k for k in dict.fromkeys(keys) if k not in known]
        if not new:
            return
        texts = [resolution_text(k) for k in new]
        for key, text, vec in zip(new, texts, self._vectors(texts), strict=True):
            known.add(key)
            groups.setdefault(_parent(key), _Group()).add(key, text, vec)

    def _match(self, group: _Group | None, text: str, vector: np.ndarray) -> str | None:
        if group is None or not group.keys:
            return None
        if text in group.by_text:
            return group.by_text[text]
        assert group.vectors is not None
        sims = group.vectors @ vector
        best = int(np.argmax(sims))
        if float(sims[best]) >= self.threshold:
            return group.keys[best]
        return None

    def resolve_many(self, namespace: str, keys: list[str]) -> list[str]:
        """The key each of ``keys`` is stored under, in order.

        A key resolves to itself when it is known or nothing is close enough; keys new in this
        call can be resolved onto each other (the first one seen names the slot). The cache is
        not changed: call :meth:`register` once the facts are stored.
        """
        known = self._known.get(namespace, set())
        groups = self._groups.get(namespace, {})
        staged: dict[str, _Group] = {}
        out: list[str] = []
        for key in keys:
            if key in known:
                out.append(key)
                continue
            text = resolution_text(key)
            vector = self._vectors([text])[0]
            parent = _parent(key)
            target = self._match(groups.get(parent), text, vector)
            if target is None:
                target = self._match(staged.get(parent), text, vector)
            if target is None:
                target = key
                stage = staged.setdefault(parent, _Group())
                if key not in stage.keys:
                    stage.add(key, text, vector)
            out.append(target)
        return out


def _is_user_key(key: str, user_subject: str) -> bool:
    return key == user_subject or key.startswith(user_subject + ".")


def resolve_families(
    keys: Sequence[str],
    known: Iterable[str],
    *,
    previous: Sequence[str | None] | None = None,
    values: Mapping[str, object] | None = None,
    user_subject: str = "user",
    rename: Sequence[bool] | None = None,
    corrections: Sequence[bool] | None = None,
) -> list[tuple[str, bool]]:
    """The key of each claim by the attribute families' rules, and whether it is multi-valued.

    Only keys of the user (``user.*``, ``user.sister.*``) are moved; other keys are kept.

    * A relation that a family knows (``user.lives_in``, ``user.current_city``) becomes the
      family's canonical key (``user.home_city``); when a known key of the same subject
      already names that family (``user.live_in`` stored by an older extractor), that key.
    * A claim that names the value it replaces (``previous``: "I switched from Chrome to
      Firefox", "my shell changed from zsh to fish") moves onto the one known key of the same
      subject whose current value (``values``) is exactly that value, or, for an explicit
      correction, the one whose value holds it as whole words ("cancelled PureGym" and "I go to
      PureGym on Mill Road"). A claim that names no attribute (``user.unnamed``) and finds no
      such key is kept as a value of its own (multi-valued), which takes nothing back.

    Args:
        keys: The claims' keys.
        known: The namespace's stored keys.
        previous: Per key, the value its claim replaces (None when it names none).
        values: Current value of known keys (single value or list), for ``previous``.
        user_subject: The subject of the user's keys.
        corrections: Per key, whether its claim is an explicit correction (default: yes).
        rename: Per key, whether it may take the family's canonical name when the namespace
            has no key of that family yet (default: yes). ``TextIngest`` allows it for the
            keys of extractors that name families (offline, LLM) and keeps the keys of other
            extractors as written unless a stored key of the family exists.

    Returns:
        ``(key, multi_valued)`` per input key.

    Example:
        >>> resolve_families(["user.moved_to", "user.pets"], ["user.live_in"])
        [('user.live_in', False), ('user.pets', True)]
        >>> resolve_families(["user.unnamed"], ["user.gym"], previous=["PureGym"],
        ...                  values={"user.gym": "PureGym"})
        [('user.gym', False)]
        >>> resolve_families(["user.unnamed"], ["user.gym"], previous=["Chrome"],
        ...                  values={"user.gym": "PureGym"})
        [('user.unnamed', True)]
    """
    from langchain_tepa.extraction.families import FAMILIES, canonical_relation
    from langchain_tepa.extraction.user import UNNAMED

    by_family: dict[tuple[str, str], str] = {}
    known_list = [k for k in known if _is_user_key(k, user_subject)]
    known_set = set(known_list)
    for k in known_list:
        fam = canonical_relation(k.rsplit(".", 1)[-1]) if "." in k else None
        if fam is not None:
            by_family.setdefault((_parent(k), fam), k)
    out: list[tuple[str, bool]] = []
    for i, key in enumerate(keys):
        if not _is_user_key(key, user_subject) or "." not in key:
            out.append((key, False))
            continue
        parent, relation = key.rsplit(".", 1)
        fam = canonical_relation(relation)
        target = key
        if fam is not None:
            canonical = f"{parent}.{fam}"
            fallback = canonical if rename is None or rename[i] else key
            target = canonical if canonical in known_set else by_family.get((parent, fam), fallback)
        old = previous[i] if previous is not None else None
        anchored = False
        if old and values:
            wanted = str(old).casefold()
            same = [k for k in known_list if _parent(k) == parent and k in values]
            hits = [k for k in same if wanted in _casefolded(values[k])]
            if not hits and (corrections is None or corrections[i]):
                # "cancelled PureGym" names the value of "I go to PureGym on Mill Road"
                inside = re.compile(rf"(?<!\w){re.escape(wanted)}(?!\w)")
                hits = [k for k in same if any(inside.search(v) for v in _casefolded(values[k]))]
            if len(hits) == 1:
                target, anchored = hits[0], True
        last = target.rsplit(".", 1)[-1]
        fam = canonical_relation(last) or last
        unanchored = relation == UNNAMED and not anchored
        out.append((target, unanchored or (fam in FAMILIES and FAMILIES[fam].multi_valued)))
    return out


def _casefolded(value: object) -> set[str]:
    items = value if isinstance(value, list | tuple | set | frozenset) else [value]
    return {str(v).casefold() for v in items}


def is_family_key(key: str, user_subject: str = "user") -> bool:
    """Whether ``key`` is a user's key named by an attribute family (``user.home_city``).

    Example:
        >>> is_family_key("user.home_city"), is_family_key("france.capital")
        (True, False)
    """
    from langchain_tepa.extraction.families import FAMILIES

    return _is_user_key(key, user_subject) and key.rsplit(".", 1)[-1] in FAMILIES
