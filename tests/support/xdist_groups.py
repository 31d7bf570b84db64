"""``--dist loadgroup`` that also works where pytest-xdist's own grouping silently does not.

``make test`` runs pytest with ``-n auto --dist loadgroup`` so that the tests of one
``xdist_group`` run on one worker (a module whose module-scoped fixture builds something
expensive, the tests that start many processes). pytest-xdist 3.8 groups by appending
``@group`` to each test's node id on the worker; with pytest 9.2 that change no longer takes
effect (pytest-dev/pytest-xdist#1386), and the tests are spread as if unmarked.

:class:`GroupScheduling` is xdist's ``LoadGroupScheduling`` with one addition: a test whose node
id carries no ``@group`` is grouped by its module's ``pytestmark = pytest.mark.xdist_group("...")``
line, read from the module's source by :func:`module_group`. Only that module-level form is
read; a mark on a single test is honoured only where xdist's own suffix works.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from xdist.scheduler import LoadGroupScheduling

__all__ = ["GroupScheduling", "module_group"]

_MARK = re.compile(
    r"""^pytestmark\s*=\s*pytest\.mark\.xdist_group\(\s*["']([^"']+)["']\s*\)""", re.M
)


@functools.cache
def module_group(path: Path) -> str | None:
    """The group named by the module's ``pytestmark = pytest.mark.xdist_group("...")``, if any."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError:
        return None
    found = _MARK.search(source)
    return found.group(1) if found else None


class GroupScheduling(LoadGroupScheduling):
    """``LoadGroupScheduling`` that falls back to the module-level mark (see the module doc)."""

    def _split_scope(self, nodeid: str) -> str:
        scope = super()._split_scope(nodeid)
        if scope != nodeid:  # xdist's own @group suffix worked
            return scope
        module = nodeid.split("::", 1)[0]
        group = module_group(Path(self.config.rootpath, module))
        return group if group is not None else nodeid
