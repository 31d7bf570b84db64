"""The namespace of the agent tools: fixed, or a template filled from each run's config.

``create_memory_tools(memory, namespace=("memories", "{langgraph_user_id}"))`` stores each
user's facts in their own namespace, as LangMem's tools do; :func:`tool_namespace` tells a fixed
namespace (validated now) from a template (:class:`NamespaceTemplate`, filled per run).

Example:
    >>> tool_namespace(("memories", "{user_id}")).fill({"configurable": {"user_id": 7}})
    'memories.7'
    >>> tool_namespace(("memories", "shared"))
    'memories.shared'
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence

from langchain_core.runnables import RunnableConfig

from langchain_tepa.core.errors import InvalidNamespaceError, NamespaceTemplateError
from langchain_tepa.core.values import safe_repr, validate_namespace

__all__ = ["MAX_SHOWN", "NamespaceTemplate", "tool_namespace"]

MAX_SHOWN = 120  # characters of a refused argument quoted back to the model


class NamespaceTemplate:
    """A namespace whose labels are filled from the run's config, as LangMem's tools do.

    ``("memories", "{langgraph_user_id}")`` becomes ``"memories.u1"`` in a run invoked with
    ``config={"configurable": {"langgraph_user_id": "u1"}}``; a placeholder may be part of a
    label (``"user-{user_id}"``). A placeholder the config does not give raises
    :class:`~langchain_tepa.core.errors.NamespaceTemplateError`: the template is never stored
    literally, where every user would share one namespace. A filled value must be a non-empty
    string or an int, without ``"."``.

    Args:
        namespace: A dotted string or a tuple of labels, with ``{name}`` placeholders.

    Raises:
        InvalidNamespaceError: If the template is malformed (``"{"`` alone, ``"{0}"``,
            ``"{a.b}"``, a format spec) or is not a namespace once filled.

    Example:
        >>> template = NamespaceTemplate(("memories", "{langgraph_user_id}"))
        >>> template.fill({"configurable": {"langgraph_user_id": "u1"}})
        'memories.u1'
        >>> template.fields
        ('langgraph_user_id',)
    """

    def __init__(self, namespace: str | Sequence[str]) -> None:
        labels = tuple(namespace.split(".")) if isinstance(namespace, str) else tuple(namespace)
        if not labels or not all(isinstance(label, str) for label in labels):
            raise InvalidNamespaceError(
                f"a namespace template is a tuple of string labels, got {safe_repr(namespace)}"
            )
        self.labels = labels
        fields: list[str] = []
        for label in labels:
            for name in _placeholders(label):
                if name not in fields:
                    fields.append(name)
        self.fields = tuple(fields)
        validate_namespace(self._format(dict.fromkeys(fields, "x")))  # its fixed parts

    def _format(self, values: Mapping[str, str]) -> str:
        return ".".join(label.format_map(values) for label in self.labels)

    def fill(self, config: RunnableConfig | Mapping[str, object] | None) -> str:
        """The namespace for a run's config (its ``configurable`` values).

        Raises:
            NamespaceTemplateError: If a placeholder is missing from the config, empty, not a
                string or int, holds ``"."``, or makes an invalid namespace.
        """
        configurable = (config or {}).get("configurable") or {}
        if not isinstance(configurable, Mapping):
            configurable = {}
        missing = [name for name in self.fields if configurable.get(name) in (None, "")]
        if missing:
            raise NamespaceTemplateError(
                f"the memory tools' namespace {safe_repr(self.labels)} needs "
                f"{', '.join(repr(m) for m in missing)} in the run's config; invoke with "
                f"config={{'configurable': {{{safe_repr(missing[0])}: ...}}}} (LangGraph Platform "
                "sets "
                "'langgraph_user_id' for authenticated users), or give the tools a fixed namespace"
            )
        values: dict[str, str] = {}
        for name in self.fields:
            value = configurable[name]
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise NamespaceTemplateError(
                    f"config value {safe_repr(name)} fills the namespace {safe_repr(self.labels)} "
                    "and must be a "
                    f"string or an int, got {type(value).__name__}"
                )
            values[name] = str(value)
            if "." in values[name]:
                raise NamespaceTemplateError(
                    f"config value {safe_repr(name)} = {safe_repr(values[name])} holds '.', which "
                    "would add namespace levels; use an id without dots"
                )
        try:
            return validate_namespace(self._format(values))
        except InvalidNamespaceError as exc:
            raise NamespaceTemplateError(
                f"the namespace {safe_repr(self.labels)} filled from the run's config is invalid: "
                f"{exc}"
            ) from exc

    def __repr__(self) -> str:
        return f"NamespaceTemplate({self.labels!r})"


def _placeholders(label: str) -> list[str]:
    """The placeholder names of one label (``"user-{user_id}"`` -> ``["user_id"]``)."""
    try:
        parsed = list(string.Formatter().parse(label))
    except ValueError as exc:
        raise InvalidNamespaceError(
            f"namespace label {safe_repr(label)} is not a template: {exc}"
        ) from exc
    names = []
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise InvalidNamespaceError(
                f"namespace label {safe_repr(label)}: write placeholders as {{name}} with a plain "
                "name, "
                f"such as {{langgraph_user_id}}"
            )
        names.append(name)
    return names


def tool_namespace(namespace: str | Sequence[str] | None) -> str | NamespaceTemplate | None:
    """A fixed namespace (validated), a template, or ``None`` (the memory's default)."""
    if namespace is None:
        return None
    if isinstance(namespace, NamespaceTemplate):
        return namespace
    labels = [namespace] if isinstance(namespace, str) else list(namespace)
    if any(isinstance(label, str) and ("{" in label or "}" in label) for label in labels):
        template = NamespaceTemplate(namespace)
        return template if template.fields else validate_namespace(template._format({}))
    if not isinstance(namespace, str):
        namespace = ".".join(namespace)
    return validate_namespace(namespace)
