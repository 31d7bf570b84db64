"""Figures of the reliability tests, for the README table.

Each test prints its figures (``pytest -s`` shows them) and, when ``TEPA_RELIABILITY_FIGURES``
names a file, appends them there as one JSON line, so one run collects every table row.
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["report_figures"]


def report_figures(name: str, data: dict[str, Any]) -> None:
    """Print ``data`` and append ``{"test": name, **data}`` to ``$TEPA_RELIABILITY_FIGURES``."""
    print(f"\nFIGURES {name}: {json.dumps(data)}")
    target = os.environ.get("TEPA_RELIABILITY_FIGURES")
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"test": name, **data}) + "\n")
