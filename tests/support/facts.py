"""Random facts over a few keys and namespaces, for tests of batches over many namespaces."""

from __future__ import annotations

import random
from collections.abc import Sequence

from langchain_tepa import Fact

__all__ = ["random_facts"]


def random_facts(rng: random.Random, n: int, namespaces: Sequence[str]) -> list[Fact]:
    """``n`` facts of three keys (one a list key) with colliding values, over ``namespaces``."""
    return [
        Fact(
            rng.choice(["diet", "city", "tags.colour"]),
            rng.choice(["a", "b", "c", 1]),
            namespace=rng.choice(list(namespaces)),
        )
        for _ in range(n)
    ]
