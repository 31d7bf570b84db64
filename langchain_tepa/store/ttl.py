"""Time-to-live of :class:`~langchain_tepa.store.TEPAStore` items, as LangGraph's stores have it.

An item put with ``ttl`` (minutes; or the store's ``ttl_config["default_ttl"]``) expires that
long after it was last put or read (reads refresh it unless ``refresh_ttl=False`` or
``ttl_config["refresh_on_read"]`` is false). The expiry is stored with the item's evidence, in a
vector space of the memory (``"ttl"``: one vector ``[high, low, ttl_seconds]`` per value, the
expiry time split in two so that it survives the float32 of stored vectors), so every worker sees
it. An expired item is never returned: the read that meets it, or the sweeper
(:meth:`TEPAStore.sweep_ttl`, :meth:`TEPAStore.start_ttl_sweeper`), revokes its key with the
reason ``"expired"``; the records stay for audit, as every revoked value's do.

A refresh is an append of its own, so reads refresh an item at most once per tenth of its TTL.

Example:
    >>> from langchain_tepa.store import TEPAStore
    >>> store = TEPAStore.in_memory(ttl={"default_ttl": 60})
    >>> store.put(("users", "u1"), "session", {"token": "abc"})
    >>> store.get(("users", "u1"), "session").value
    {'token': 'abc'}
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

import numpy as np
from langgraph.store.base import TTLConfig

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import safe_repr


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


_P = TypeVar("_P", bound=_Identified)

__all__ = [
    "STAMP_SIZE",
    "TTL_SPACE",
    "TTLKeeper",
    "validate_sweep_interval",
    "validate_ttl",
    "validate_ttl_config",
]

TTL_SPACE = "ttl"
STAMP_SIZE = 3
"""Components of a stored stamp's vector: ``[high, low, ttl_seconds]``."""
_REFRESH_FRACTION = 0.1
_SPLIT = 65536.0  # multiples of 2**16 up to ~1e12 s are exact in float32; the rest is < 2**16


def _encode(when: float, seconds: float) -> list[list[float]]:
    high = math.floor(when / _SPLIT) * _SPLIT
    return [[high, when - high, seconds]]


def _decode(stamp: list[list[float]]) -> tuple[float, float]:
    """``(expires_at, ttl_seconds)`` of a stored stamp."""
    high, low, seconds = stamp[0][0], stamp[0][1], stamp[0][2]
    return high + low, seconds


_CONFIG_KEYS = ("default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired")


def validate_ttl(ttl: object, what: str = "ttl") -> float | None:
    """``None`` or a positive, finite number of minutes."""
    if ttl is None:
        return None
    return _minutes(ttl, what, "None or a number of minutes", " (or None: no expiry)")


def validate_ttl_config(config: object) -> TTLConfig | None:
    """A checked copy of a LangGraph ``TTLConfig`` (or ``None``)."""
    if config is None:
        return None
    if not isinstance(config, Mapping):
        raise InvalidArgumentError(
            "ttl must be a TTLConfig dict such as {'default_ttl': 60}, got "
            f"{type(config).__name__}"
        )
    unknown = set(config) - set(_CONFIG_KEYS)
    if unknown:
        raise InvalidArgumentError(
            f"unknown TTLConfig keys {sorted(unknown)}; use {', '.join(_CONFIG_KEYS)}"
        )
    out: TTLConfig = {}
    if "default_ttl" in config:
        out["default_ttl"] = validate_ttl(config["default_ttl"], "ttl['default_ttl']")
    for flag in ("refresh_on_read", "omit_expired"):
        if flag in config:
            if not isinstance(config[flag], bool):
                raise InvalidArgumentError(f"ttl[{safe_repr(flag)}] must be True or False")
            out[flag] = config[flag]
    if config.get("sweep_interval_minutes") is not None:
        minutes = config["sweep_interval_minutes"]
        validate_sweep_interval(minutes, "ttl['sweep_interval_minutes']")
        out["sweep_interval_minutes"] = minutes
    return out


def validate_sweep_interval(minutes: object, what: str = "sweep_interval_minutes") -> float:
    """A sweep interval: a finite number of minutes > 0, fractions included (``0.5``: 30 s).

    LangGraph's ``TTLConfig`` types it as an int, yet its own stores' tests sweep every few
    seconds (``ttl_minutes / 2``), so fractions are accepted as they are there.

    Raises:
        InvalidArgumentError: For anything else (``0``, a negative number, ``inf``, a bool).

    Example:
        >>> validate_sweep_interval(0.05)
        0.05
    """
    return _minutes(minutes, what, "a number of minutes > 0", "")


def _minutes(value: object, what: str, expected: str, or_none: str) -> float:
    """``value`` as a finite number of minutes > 0; the errors say ``what`` was ``expected``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgumentError(f"{what} must be {expected}, got {safe_repr(value)}")
    try:
        minutes = float(value)
    except OverflowError:
        minutes = math.inf
    if not math.isfinite(minutes) or minutes <= 0:
        raise InvalidArgumentError(
            f"{what} must be a finite number of minutes > 0{or_none}, got {safe_repr(value)}"
        )
    return minutes


class TTLKeeper:
    """Expiry of one store's items: stamps for puts, checks and refreshes for reads.

    Args:
        payloads: ``namespace, owners -> {owner: [[expires_at, ttl_seconds]]}`` (the memory's
            ``"ttl"`` vector space).
        store_payloads: ``namespace, {owner: payload}`` -> stores refreshed stamps.
        clock: Wall-clock seconds.

    Example:
        >>> keeper = TTLKeeper(lambda ns, o: {}, lambda ns, p: None, clock=lambda: 100.0)
        >>> keeper.stamp(1.0)
        [[0.0, 160.0, 60.0]]
    """

    def __init__(
        self,
        payloads: Callable[[str, Iterable[str]], dict[str, list[list[float]]]],
        store_payloads: Callable[[str, dict[str, list[list[float]]]], None],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._payloads = payloads
        self._store = store_payloads
        self._clock = clock

    def stamp(self, ttl_minutes: float | None) -> list[list[float]]:
        """The stamp stored with a put: expiry and TTL (a TTL of 0 means no expiry)."""
        if ttl_minutes is None:
            return [[0.0, 0.0, 0.0]]
        seconds = ttl_minutes * 60.0
        return _encode(self._clock() + seconds, seconds)

    def split(
        self, namespace: str, precedents: Iterable[_P]
    ) -> tuple[list[_P], list[_P], dict[str, list[list[float]]]]:
        """``(live, expired, stamps of the live ones)`` among ``precedents``."""
        items = list(precedents)
        stamps = self._payloads(namespace, [p.id for p in items])
        now = self._clock()
        live, expired = [], []
        for p in items:
            stamp = stamps.get(p.id)
            if stamp and len(stamp[0]) == STAMP_SIZE:
                expires_at, seconds = _decode(stamp)
                if seconds > 0 and expires_at <= now:
                    expired.append(p)
                    continue
            live.append(p)
        return live, expired, {p.id: stamps[p.id] for p in live if p.id in stamps}

    def expired_rows(self, stamps: np.ndarray | None) -> np.ndarray:
        """Which rows have expired, as :meth:`split` decides, for many rows at once.

        Args:
            stamps: Each row's stamp vector ``[high, low, ttl_seconds]`` (a NaN row: none),
                or ``None`` when no row has one.

        Example:
            >>> keeper = TTLKeeper(lambda ns, o: {}, lambda ns, p: None, clock=lambda: 100.0)
            >>> rows = np.array([[0.0, 90.0, 60.0], [0.0, 90.0, 0.0], [np.nan] * 3])
            >>> keeper.expired_rows(rows).tolist()
            [True, False, False]
        """
        if stamps is None or not len(stamps):
            return np.zeros(0 if stamps is None else len(stamps), dtype=bool)
        now = self._clock()
        with np.errstate(invalid="ignore"):  # NaN rows compare False: no stamp, no expiry
            return (stamps[:, 2] > 0) & (stamps[:, 0] + stamps[:, 1] <= now)

    def refresh(self, namespace: str, stamps: Mapping[str, list[list[float]]]) -> int:
        """Push back the expiry of items read, when more than a tenth of their TTL has passed."""
        now = self._clock()
        due: dict[str, list[list[float]]] = {}
        for owner, stamp in stamps.items():
            expires_at, seconds = _decode(stamp)
            if seconds > 0 and expires_at - now < seconds * (1 - _REFRESH_FRACTION):
                due[owner] = _encode(now + seconds, seconds)
        if due:
            self._store(namespace, due)
        return len(due)

    def describe(self) -> dict[str, Any]:
        """For ``repr``."""
        return {"space": TTL_SPACE}
