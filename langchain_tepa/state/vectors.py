"""`VectorTable`: a namespace's stored vectors in process, ranked with numpy.

Most namespaces are small (a user's few dozen facts): ranking their Active vectors in process is
far cheaper than a filtered vector query (a 1,000 x 384 float32 matrix-vector product is well
under a millisecond), and needs no index per namespace.

Example:
    >>> import numpy as np
    >>> table = VectorTable()
    >>> table.add({"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])})
    >>> [(pid, round(score, 4)) for pid, score in table.rank([0.9, 0.1], ["a", "b"], 1)]
    [('a', 0.9939)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import numpy as np

from langchain_tepa.core.errors import EmbeddingMismatchError, InvalidArgumentError
from langchain_tepa.core.values import safe_repr

__all__ = ["ItemColumn", "ItemTable", "Metric", "VectorTable", "matvec", "unit_rows"]

T = TypeVar("T")

_BLOCK_VALUES = 1 << 17
"""Matrix values per block of :func:`matvec` (well under OpenBLAS's threading threshold)."""


Metric = Literal["cosine", "inner_product", "l2"]
"""How :class:`ItemColumn` scores: see :meth:`ItemColumn.scores`."""


def matvec(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector``, in blocks of rows small enough that BLAS runs each on one thread.

    OpenBLAS splits a matrix-vector product of more than about 460,000 values over threads.
    For the products ranking makes (a few thousand rows of a few hundred dimensions: well under
    a millisecond on one core) waking those threads costs far more than it saves whenever the
    cores are busy: a 2,000 x 384 product took 12 ms instead of 0.05 ms on a loaded 2-core
    machine, the time the threads waited to be scheduled.

    Example:
        >>> m = np.arange(6, dtype=np.float32).reshape(3, 2)
        >>> matvec(m, np.array([1.0, 1.0], dtype=np.float32)).tolist()
        [1.0, 5.0, 9.0]
    """
    rows = len(matrix)
    step = max(1, _BLOCK_VALUES // max(1, matrix.shape[1] if matrix.ndim == 2 else 1))
    if rows <= step:
        return matrix @ vector
    out = np.empty(rows, dtype=np.result_type(matrix, vector))
    for start in range(0, rows, step):
        np.matmul(matrix[start : start + step], vector, out=out[start : start + step])
    return out


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32.

    The scaling is done in float64 after dividing each row by its largest component, so a finite
    row beyond float32's range (or below its smallest normal) keeps its direction.
    """
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim == 1:
        m = m.reshape(1, -1)
    if m.size:
        peak = np.max(np.abs(m), axis=1, keepdims=True)
        m = np.divide(m, peak, out=np.zeros_like(m), where=peak > 0)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    out = np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)
    return out.astype(np.float32)


def _unit_query(query: Sequence[float] | np.ndarray, dims: int) -> np.ndarray:
    """``query`` as a unit vector, checked against the ``dims`` of the stored vectors.

    Raises:
        InvalidArgumentError: If the query has another size.
    """
    q = unit_rows(np.asarray(query, dtype=np.float64))[0]
    if q.shape[0] != dims:
        raise InvalidArgumentError(
            f"query embedding has {q.shape[0]} dimensions, stored ones "
            f"{dims}: use the same embeddings for writing and reading"
        )
    return q


class VectorTable:
    """Unit vectors by id; rows are appended, the matrix is rebuilt lazily.

    Example:
        >>> table = VectorTable()
        >>> table.add({"x": [3.0, 4.0]})
        >>> len(table), "x" in table
        (1, True)
    """

    def __init__(self) -> None:
        self._rows: dict[str, int] = {}
        # Rows added since the matrix was last built, in order: ``(block, raw)``. A raw block
        # holds vectors as given (one size, 2-D), scaled to unit length when the matrix is
        # next needed; the others are rows already scaled. A namespace's first touch adds its
        # precedent vectors and only ranking uses them: a search through item tables never
        # pays for scaling them.
        self._pending: list[tuple[np.ndarray, bool]] = []
        self._matrix: np.ndarray | None = None
        self._version = 0
        # The matrix was handed out by `snapshot`: replace rows in a copy, never in place.
        self._shared = False
        # One candidate list's rows, kept while the same list object is ranked again.
        self._subset: tuple[Any, int, np.ndarray, np.ndarray, list[str]] | None = None

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, pid: object) -> bool:
        return pid in self._rows

    def missing(self, ids: Iterable[str]) -> list[str]:
        """The ids of ``ids`` that have no vector here."""
        return [pid for pid in ids if pid not in self._rows]

    def add(self, vectors: Mapping[str, Sequence[float] | np.ndarray]) -> None:
        """Add (or replace) vectors by id.

        Vectors of one size are scaled together (one :func:`unit_rows` over all of them): a
        namespace's first touch adds thousands at once. New ids of one size are scaled only
        when the matrix is next needed (:meth:`snapshot`, ranking), into the same rows.
        """
        self._version += 1
        arrays = [_floats(vec) for vec in vectors.values()]
        one_size = bool(arrays) and arrays[0].ndim == 1
        one_size = one_size and all(a.shape == arrays[0].shape for a in arrays)
        if one_size and not any(pid in self._rows for pid in vectors):
            for pid in vectors:
                self._rows[pid] = len(self._rows)
            self._pending.append((np.stack(arrays), True))  # a copy, scaled when next needed
            return
        rows: Iterable[np.ndarray]
        rows = unit_rows(np.stack(arrays)) if one_size else (unit_rows(a)[0] for a in arrays)
        for pid, row in zip(vectors, rows, strict=True):
            if pid in self._rows:
                self._flush()
                assert self._matrix is not None
                if self._matrix.shape[1] != row.shape[0]:
                    raise self._mismatch(self._matrix.shape[1], row.shape[0])
                if self._shared:
                    self._matrix, self._shared = self._matrix.copy(), False
                self._matrix[self._rows[pid]] = row
                continue
            self._rows[pid] = len(self._rows)
            self._pending.append((row, False))

    @property
    def dims(self) -> int | None:
        """Dimensions of the stored vectors (``None`` while there are none)."""
        if self._matrix is not None and self._matrix.size:
            return int(self._matrix.shape[1])
        for part, raw in self._pending:
            return int(part.shape[1] if raw else part.shape[0])
        return None

    @staticmethod
    def _mismatch(stored: int, new: int) -> EmbeddingMismatchError:
        return EmbeddingMismatchError(
            f"embedding sizes differ (stored {stored}, new {new}); use one embedding model for "
            "writing and searching",
            stored=stored,
            new=new,
        )

    def _flush(self) -> None:
        if not self._pending:
            if self._matrix is None:
                self._matrix = np.zeros((0, 0), dtype=np.float32)
            return
        sizes = [part.shape[1] if raw else part.shape[0] for part, raw in self._pending]
        if self._matrix is not None and self._matrix.size:
            sizes.insert(0, self._matrix.shape[1])
        if len(set(sizes)) > 1:  # the first size is the stored one: name the one that differs
            raise self._mismatch(sizes[0], next(n for n in sizes if n != sizes[0]))
        parts = [self._matrix] if self._matrix is not None and self._matrix.size else []
        parts.append(np.vstack([unit_rows(part) if raw else part for part, raw in self._pending]))
        self._matrix = np.vstack(parts) if len(parts) > 1 else parts[0]
        self._pending = []
        self._shared = False  # a new array: snapshots handed out keep the old one

    def snapshot(self) -> np.ndarray:
        """The matrix of every stored unit vector, by position (see :meth:`positions`).

        The array is never changed afterwards (later additions and replacements go to a new
        one), so a caller may score against it without a lock.
        """
        self._flush()
        assert self._matrix is not None
        self._shared = True
        return self._matrix

    def positions(self, ids: Sequence[str]) -> np.ndarray:
        """The rows of :meth:`snapshot` holding ``ids`` (each must be stored here)."""
        return np.fromiter((self._rows[pid] for pid in ids), dtype=np.int64, count=len(ids))

    def vector(self, pid: str) -> np.ndarray | None:
        """The unit vector of ``pid`` (a copy), or ``None``."""
        pos = self._rows.get(pid)
        if pos is None:
            return None
        self._flush()
        assert self._matrix is not None
        return np.array(self._matrix[pos])

    def rank(
        self, query: Sequence[float] | np.ndarray, ids: Sequence[str], k: int
    ) -> list[tuple[str, float]]:
        """The ``k`` ids of ``ids`` most similar to ``query`` (cosine), best first; ties by id.

        Raises:
            InvalidArgumentError: If the query has another size than the stored vectors.
        """
        scored = self.scores(query, ids)
        order = sorted(scored.items(), key=lambda item: (-item[1], item[0]))
        return order[:k]

    def top(
        self,
        query: Sequence[float] | np.ndarray,
        items: Sequence[T],
        k: int,
        ident: Callable[[T], str],
    ) -> list[tuple[T, float]]:
        """The ``k`` items most similar to ``query``, best first; ties by id (as :meth:`rank`).

        ``items`` are ranked by the vector of ``ident(item)`` (items without one are left out).
        The rows of the last ``items`` list are kept: ranking the same list object again (a
        namespace's cached answers) costs one matrix-vector product and a partial sort, with
        no work per item in Python.

        Raises:
            InvalidArgumentError: If the query has another size than the stored vectors.
        """
        if not items or k <= 0:
            return []
        cached = self._subset
        if cached is None or cached[0] is not items or cached[1] != self._version:
            self._flush()
            ids = [ident(item) for item in items]
            keep = [i for i, pid in enumerate(ids) if pid in self._rows]
            positions = np.asarray(keep, dtype=np.int64)
            assert self._matrix is not None
            rows = np.fromiter((self._rows[ids[i]] for i in keep), dtype=np.int64, count=len(keep))
            sub = self._matrix[rows] if len(keep) else np.zeros((0, 0), dtype=np.float32)
            cached = (items, self._version, positions, sub, ids)
            self._subset = cached
        _, _, positions, sub, ids = cached
        if not len(positions):
            return []
        q = _unit_query(query, sub.shape[1])
        sims = matvec(sub, q)
        n = len(sims)
        if n > k:
            # Everything that ties with the k-th score, then the exact order among those.
            kth = np.partition(sims, n - k)[n - k]
            chosen = np.nonzero(sims >= kth)[0]
        else:
            chosen = np.arange(n)
        scored = [(float(sims[j]), ids[int(positions[j])], int(positions[j])) for j in chosen]
        scored.sort(key=lambda t: (-t[0], t[1]))
        return [(items[pos], s) for s, _, pos in scored[:k]]

    def scores(self, query: Sequence[float] | np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Cosine similarity of ``query`` with each stored id of ``ids``."""
        present = [pid for pid in ids if pid in self._rows]
        if not present:
            return {}
        self._flush()
        assert self._matrix is not None
        q = _unit_query(query, self._matrix.shape[1])
        rows = np.fromiter((self._rows[pid] for pid in present), dtype=np.int64, count=len(present))
        sims = matvec(self._matrix[rows], q)
        return {pid: float(s) for pid, s in zip(present, sims.tolist(), strict=True)}


class ItemTable:
    """Several vectors per owner (one per embedded field text), scored by their best match.

    Example:
        >>> table = ItemTable()
        >>> table.put("p1", [[1.0, 0.0], [0.0, 1.0]])
        >>> round(table.scores([0.0, 1.0], ["p1"])["p1"], 3)
        1.0
    """

    def __init__(self) -> None:
        self._table = VectorTable()
        self._owners: dict[str, list[str]] = {}
        # As stored, in float64 arrays (exact for Python floats), or in the read-only float32
        # arrays a loaded page decodes (exact for what pages store): a 384-float list of
        # Python floats takes about 12 KiB, its float64 array 3 KiB, the float32 one 1.5 KiB,
        # and a namespace of 1,000 items keeps one per item vector.
        self._raw: dict[str, tuple[np.ndarray, ...]] = {}
        self.version = 0
        """Bumped by every :meth:`put` (caches of columns compare it)."""

    def __contains__(self, owner: object) -> bool:
        return owner in self._owners

    def payload(self, owner: str) -> list[list[float]] | None:
        """``owner``'s vectors as they were stored (not scaled), or ``None``."""
        raw = self._raw.get(owner)
        return None if raw is None else [v.tolist() for v in raw]

    def owner_ids(self) -> list[str]:
        """Every owner with an entry (even an empty one)."""
        return list(self._owners)

    def put(self, owner: str, vectors: Sequence[Sequence[float]]) -> None:
        """Set ``owner``'s vectors (an empty list means: not indexed)."""
        self.put_many({owner: vectors})

    def put_many(self, owners: Mapping[str, Sequence[Sequence[float]]]) -> None:
        """Set the vectors of several owners, as :meth:`put` of each in turn, in one pass.

        Example:
            >>> table = ItemTable()
            >>> table.put_many({"a": [[1.0, 0.0]], "b": [[0.0, 2.0], [1.0, 1.0]], "c": []})
            >>> sorted(table.scores([0.0, 1.0], ["a", "b", "c"]))
            ['a', 'b']
        """
        if not owners:
            return
        self.version += 1
        added: dict[str, np.ndarray] = {}
        for owner, vectors in owners.items():
            rows = [f"{owner}#{i}" for i in range(len(vectors))]
            raw = tuple(_kept(v) for v in vectors)
            self._owners[owner] = rows
            self._raw[owner] = raw
            added.update(zip(rows, raw, strict=True))
        if added:
            self._table.add(added)

    def scores(
        self, query: Sequence[float] | np.ndarray, owners: Iterable[str]
    ) -> dict[str, float]:
        """Best cosine of each owner's vectors with ``query`` (owners without vectors absent)."""
        wanted = [row for owner in owners for row in self._owners.get(owner, ())]
        out: dict[str, float] = {}
        for row, score in self._table.scores(query, wanted).items():
            owner = row.rpartition("#")[0]
            out[owner] = max(score, out.get(owner, score))
        return out

    def column(self, owners: Sequence[str]) -> ItemColumn:
        """The vectors of ``owners`` laid out to score them all at once (:class:`ItemColumn`)."""
        counts = np.fromiter(
            (len(self._owners.get(owner, ())) for owner in owners),
            dtype=np.int64,
            count=len(owners),
        )
        scored = np.nonzero(counts)[0]
        ids = [row for i in scored.tolist() for row in self._owners[owners[i]]]
        if not ids:
            empty = np.zeros((0, 0), dtype=np.float32)
            return ItemColumn(len(owners), empty, scored, scored, scored)
        starts = np.zeros(len(scored), dtype=np.int64)
        np.cumsum(counts[scored][:-1], out=starts[1:])
        # The vectors as stored, for the metrics that need their length (stacked on first use).
        raw = [self._raw[owners[i]] for i in scored.tolist()]
        return ItemColumn(
            len(owners), self._table.snapshot(), self._table.positions(ids), scored, starts, raw
        )

    def first_vectors(self, owners: Sequence[str], size: int) -> np.ndarray:
        """The first stored vector of each owner, exactly as given (float64).

        A ``(len(owners), size)`` array whose rows are NaN where an owner has no first vector
        of ``size`` components.
        """
        out = np.full((len(owners), size), np.nan)
        raw = self._raw
        for i, owner in enumerate(owners):
            vecs = raw.get(owner)
            if vecs and vecs[0].shape[0] == size:
                out[i] = vecs[0]
        return out


def _floats(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    """A vector as a float array: float32 and float64 arrays as they are, else in float64.

    Float64 is exact for Python floats. Stacking loaded float32 vectors then makes no float64
    copy of each; :func:`unit_rows` converts the stack (exactly) when it scales it.
    """
    if isinstance(vector, np.ndarray) and vector.dtype in _FLOATS:
        return vector
    return np.asarray(vector, dtype=np.float64)


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _kept(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    """A vector as an item table keeps it: loaded float32 arrays as they are, else float64."""
    if (
        isinstance(vector, np.ndarray)
        and vector.dtype == np.float32
        and vector.ndim == 1
        and not vector.flags.writeable
    ):
        return vector
    return np.array(vector, dtype=np.float64)


class ItemColumn:
    """The item vectors of a list of owners (rows), scored against a query in one product.

    Built by :meth:`ItemTable.column`; it holds a matrix that is never changed afterwards, so
    scoring needs no lock.

    Attributes:
        size: Rows (owners) of the column, with or without vectors.
        scored: The rows that have at least one vector, ascending.

    Example:
        >>> table = ItemTable()
        >>> table.put("a", [[1.0, 0.0], [0.0, 1.0]])
        >>> table.put("c", [[1.0, 1.0]])
        >>> column = table.column(["a", "b", "c"])
        >>> [round(float(x), 3) for x in column.scores([0.0, 1.0])]
        [1.0, nan, 0.707]
    """

    __slots__ = ("_matrix", "_positions", "_raw", "_stacked", "_starts", "scored", "size")

    def __init__(
        self,
        size: int,
        matrix: np.ndarray,
        positions: np.ndarray,
        scored: np.ndarray,
        starts: np.ndarray,
        raw: Sequence[tuple[np.ndarray, ...]] = (),
    ) -> None:
        self.size = size
        self._matrix = matrix
        self._positions = positions  # matrix row of each vector, grouped by owner row
        self.scored = scored
        self._starts = starts  # where each scored row's vectors begin in `_positions`
        self._raw = raw  # each scored row's vectors as stored (for "inner_product" and "l2")
        self._stacked: np.ndarray | None = None

    def scores(
        self, query: Sequence[float] | np.ndarray, *, metric: Metric = "cosine"
    ) -> np.ndarray:
        """Best score of each row's vectors with ``query`` (float64; NaN: a row without any).

        The metrics score as LangGraph's ``PostgresStore`` does for its ``distance_type``, so
        that higher is always better: ``"cosine"`` the cosine similarity, ``"inner_product"``
        the dot product, ``"l2"`` minus the Euclidean distance (of the vectors as stored, not
        scaled to unit length).

        Raises:
            InvalidArgumentError: If the query has another size than the stored vectors.
        """
        out = np.full(self.size, np.nan)
        if not len(self.scored):
            return out
        if metric == "cosine":
            q = _unit_query(query, self._matrix.shape[1])
            if 2 * len(self._positions) >= len(self._matrix):
                sims = matvec(self._matrix, q)[self._positions]
            else:
                sims = matvec(self._matrix[self._positions], q)
        else:
            sims = self._raw_scores(query, metric)
        if len(self._positions) == len(self.scored):
            best = sims  # one vector per row (the common case)
        else:
            best = np.maximum.reduceat(sims, self._starts)
        out[self.scored] = best
        return out

    def _raw_scores(self, query: Sequence[float] | np.ndarray, metric: Metric) -> np.ndarray:
        """Each vector's dot product with ``query``, or minus its distance, in float64."""
        if metric not in ("inner_product", "l2"):
            raise InvalidArgumentError(
                f"metric must be 'cosine', 'inner_product' or 'l2', got {safe_repr(metric)}"
            )
        if self._stacked is None:
            self._stacked = np.array(
                [vec for vectors in self._raw for vec in vectors], dtype=np.float64
            )
        stacked = self._stacked
        q = np.asarray(query, dtype=np.float64)
        if q.ndim != 1 or q.shape[0] != stacked.shape[1]:
            raise InvalidArgumentError(
                f"query embedding has {q.shape[-1] if q.ndim else 0} dimensions, stored ones "
                f"{stacked.shape[1]}: use the same embeddings for writing and reading"
            )
        if metric == "inner_product":
            return np.asarray(stacked @ q, dtype=np.float64)
        return -np.sqrt(np.sum((stacked - q) ** 2, axis=1))
