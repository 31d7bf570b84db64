"""A griffe extension for the API reference: read ``Example:`` as an examples section.

The package's docstrings are Google style with an ``Example:`` heading (singular). Griffe's
Google parser knows ``Examples:`` only, and renders any other heading as an admonition whose
``>>>`` lines become Markdown text (block quotes, and doctest outputs such as ``['x']`` become
link references). This extension renames the heading before parsing, so the doctests render as
Python console code. It changes nothing in the package. Loaded by ``mkdocs.yml``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Rename ``Example:`` to ``Examples:`` in every docstring griffe loads."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        """Rewrite the docstring of each loaded object before it is parsed."""
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE.sub(r"\1Examples:", obj.docstring.value)
