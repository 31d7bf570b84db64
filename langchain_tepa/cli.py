"""`tepa`: inspect and reconcile a persistent TEPA memory from the shell.

``tepa inspect PATH`` opens the memory read-only (nothing is written, not even view repairs) and
prints every key, its precedents, their states, posterior validity and the transition history
with the reason of each change, as rich tables or as JSON. ``tepa namespaces PATH`` lists the
namespaces and how many keys each holds. ``tepa reconcile PATH`` refolds every key from the
evidence and repairs the stored views. ``tepa repair-index PATH`` moves Chroma index files that a
killed process left unreadable out of a stopped store's folder (then ``tepa reconcile PATH
--reindex``).

Every failure is one line on stderr and a non-zero exit code: 2 for a library error (a
``TEPAError``: no memory at the path, a wrong prefix, an unknown namespace, a folder that cannot
be read or written) and for an operating-system error on the path, 1 for anything unexpected
(``--traceback`` shows where it came from).

Example:
    >>> import tempfile
    >>> from langchain_tepa import HashingEmbeddings, TEPAMemory
    >>> folder = tempfile.mkdtemp()
    >>> with TEPAMemory.from_path(folder, embeddings=HashingEmbeddings()) as memory:
    ...     _ = memory.observe("user.diet", "vegan")
    >>> main(["inspect", folder, "--json"])  # doctest: +ELLIPSIS
    {...}
    0
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError, StorageError, TEPAError
from langchain_tepa.core.policy import DEFAULT_POLICY, POLICY_NAMES
from langchain_tepa.core.types import Lifecycle, Precedent
from langchain_tepa.core.values import canonical_json, validate_key, validate_namespace

__all__ = ["build_parser", "inspect_memory", "list_namespaces", "main"]

_STATES = tuple(s.value for s in Lifecycle)
_STYLE = {"active": "bold green", "hypothesis": "yellow", "revoked": "red"}
_EPOCH_FLOOR = 1e8  # times above this are Unix seconds; below, a benchmark's tick clock


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value)


def _time(t: float) -> str:
    if t >= _EPOCH_FLOOR:
        return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return f"t={t:g}"


def _precedent_dict(p: Precedent) -> dict[str, Any]:
    return {
        "namespace": p.namespace,
        "key": p.key,
        "value": p.value,
        "id": p.id,
        "state": p.state.value,
        "support": p.support,
        "conflict": p.conflict,
        "validity": round(p.validity, 4),
        "lower_95": round(p.lower_bound, 4),
        "created_at": p.created_at,
        "updated_at": p.updated_at,
        "evidence_count": len(p.evidence_ids),
        "transitions": [t.to_dict() for t in p.transitions],
    }


def _key_matches(key: str, wanted: str | None) -> bool:
    return wanted is None or key == wanted or key.startswith(wanted + ".")


def _open_read_only(path: str, prefix: str, policy: str) -> Any:
    from langchain_tepa import HashingEmbeddings, TEPAMemory

    return TEPAMemory.from_path(
        path,
        prefix=prefix,
        policy=policy,
        embeddings=HashingEmbeddings(),  # never used: reading embeds nothing
        read_only=True,
    )


def _stored_views(memory: Any, namespaces: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The stored precedent views by id (``TEPAMemory.views``)."""
    return {v["id"]: v for n in namespaces for v in memory.views(namespace=n)}


def _unknown_namespace(path: str, namespace: str, known: Sequence[str]) -> InvalidArgumentError:
    shown = ", ".join(repr(n) for n in known[:20]) + (" ..." if len(known) > 20 else "")
    return InvalidArgumentError(
        f"namespace {namespace!r} does not exist in {path}"
        + (f"; the namespaces there are: {shown}" if known else "; it holds no namespace yet")
        + f". List them with `tepa namespaces {path}`"
    )


def list_namespaces(
    path: str, *, prefix: str = "tepa", policy: str = DEFAULT_POLICY
) -> dict[str, int]:
    """The namespaces of a persistent memory and how many keys each holds (read-only).

    Raises:
        StorageError: If there is no memory at ``path`` with ``prefix``.

    Example:
        >>> import tempfile
        >>> from langchain_tepa import HashingEmbeddings, TEPAMemory
        >>> folder = tempfile.mkdtemp()
        >>> with TEPAMemory.from_path(folder, embeddings=HashingEmbeddings()) as memory:
        ...     _ = memory.observe("user.diet", "vegan", namespace=("users", "u1"))
        >>> list_namespaces(folder)
        {'users.u1': 1}
    """
    memory = _open_read_only(path, prefix, policy)
    try:
        return {ns: len(memory.keys(namespace=ns)) for ns in memory.namespaces()}
    finally:
        memory.close()


def inspect_memory(
    path: str,
    *,
    prefix: str = "tepa",
    policy: str = DEFAULT_POLICY,
    namespace: str | None = None,
    key: str | None = None,
    state: str | None = None,
    as_of: str | None = None,
) -> dict[str, Any]:
    """Read a persistent memory read-only and describe it as a JSON-serialisable dict.

    Args:
        path: Folder of the embedded Chroma database (``TEPAMemory.from_path``).
        prefix: Collection prefix the memory was written with.
        policy: Policy preset to fold the evidence with (the one the memory was written with).
        namespace: Only this namespace (default: every namespace).
        key: Only this key and the keys below it (``user`` matches ``user.diet``).
        state: Only precedents in this state (``active``, ``hypothesis`` or ``revoked``).
        as_of: What the memory believed at that point: an ISO date and time (UTC unless it
            names a zone, e.g. ``2026-11-30T12:00:00``) or the id of an evidence record.

    Returns:
        ``path``, ``prefix``, ``policy``, ``evidence`` (records), ``namespaces``, ``precedents``
        (each with its transitions) and ``lagging_views`` (stored views whose state differs
        from the fold: the memory was written under another policy, or its views lag; see
        ``tepa reconcile``; ``None`` when the storage does not expose its stored views).

    Raises:
        StorageError: If there is no memory at ``path`` with ``prefix``.
        InvalidArgumentError: On a bad namespace, key or state, or a namespace the memory does
            not hold (the message lists those it does).

    Example:
        >>> import tempfile
        >>> from langchain_tepa import HashingEmbeddings, TEPAMemory
        >>> folder = tempfile.mkdtemp()
        >>> with TEPAMemory.from_path(folder, embeddings=HashingEmbeddings()) as memory:
        ...     _ = memory.observe("user.diet", "vegan")
        >>> [p["state"] for p in inspect_memory(folder)["precedents"]]
        ['active']
    """
    ns = validate_namespace(namespace) if namespace is not None else None
    wanted_key = validate_key(key) if key is not None else None
    if state is not None and state not in _STATES:
        raise InvalidArgumentError(f"state must be one of {', '.join(_STATES)}, got {state!r}")
    memory = _open_read_only(path, prefix, policy)
    try:
        namespaces = memory.namespaces()
        if ns is not None and ns not in namespaces:
            raise _unknown_namespace(str(path), ns, namespaces)
        point = _point(as_of)
        if point is None:
            folded = [p for n in namespaces for p in memory.precedents(namespace=n)]
        else:
            if isinstance(point, str) and ns is None:
                raise InvalidArgumentError(
                    "an evidence id names a point in one namespace: give --namespace too, or "
                    "pass an ISO time"
                )
            folded = [
                p
                for n in ([ns] if ns is not None else namespaces)
                for k in memory.keys(namespace=n, as_of=point)
                for p in memory.audit(k, namespace=n, as_of=point).precedents
            ]
        stored = _stored_views(memory, namespaces)
        evidence = memory.evidence_count()
    finally:
        memory.close()
    lagging = (
        None
        if stored is None
        else sum(1 for p in folded if p.id not in stored or stored[p.id]["state"] != p.state.value)
    )
    chosen = [
        p
        for p in folded
        if (ns is None or p.namespace == ns)
        and _key_matches(p.key, wanted_key)
        and (state is None or p.state.value == state)
    ]
    chosen.sort(key=lambda p: (p.namespace, p.key, p.created_at, p.id))
    return {
        "path": str(path),
        "prefix": prefix,
        "policy": policy,
        "as_of": as_of,
        "evidence": evidence,
        "namespaces": namespaces,
        "lagging_views": lagging,
        "precedents": [_precedent_dict(p) for p in chosen],
    }


def _point(as_of: str | None) -> datetime | str | None:
    """``--as-of``: an ISO date and time (UTC unless a zone is given) or an evidence id."""
    if as_of is None:
        return None
    try:
        when = datetime.fromisoformat(as_of)
    except ValueError:
        return as_of  # an evidence id
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _print_rich(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    wide = sys.stdout.isatty() or "COLUMNS" in os.environ
    console = Console(file=sys.stdout, width=None if wide else 140)
    precs: list[dict[str, Any]] = report["precedents"]
    counts = {s: sum(1 for p in precs if p["state"] == s) for s in _STATES}
    keys = {(p["namespace"], p["key"]) for p in precs}
    console.print(
        f"[bold]{report['path']}[/bold] (prefix {report['prefix']!r}, policy "
        f"{report['policy']!r}): {report['evidence']} evidence records, "
        f"{len(report['namespaces'])} namespace(s)"
    )
    console.print(
        f"shown: {len(keys)} key(s), {len(precs)} precedent(s): "
        + ", ".join(f"{counts[s]} {s}" for s in _STATES)
    )
    if report["lagging_views"]:
        console.print(
            f"[yellow]warning:[/yellow] {report['lagging_views']} stored view(s) differ from the "
            f"fold under policy {report['policy']!r}: pass the policy the memory was written "
            "with (--policy), or repair the views with `tepa reconcile PATH`"
        )
    if not precs:
        console.print("no precedents match")
        return
    by_ns: dict[str, list[dict[str, Any]]] = {}
    for p in precs:
        by_ns.setdefault(p["namespace"], []).append(p)
    for ns, group in by_ns.items():
        table = Table(title=f"namespace {ns}", show_lines=True, title_justify="left")
        table.add_column("key", overflow="fold")
        table.add_column("value", overflow="fold")
        table.add_column("state")
        table.add_column("support", justify="right")
        table.add_column("conflict", justify="right")
        table.add_column("validity", justify="right")
        table.add_column("lower 95%", justify="right")
        table.add_column("history (transition: reason)", overflow="fold")
        for p in group:
            history = Text()
            for i, t in enumerate(p["transitions"]):
                if i:
                    history.append("\n")
                arrow = f"{t['from_state'] or 'new'} -> {t['to_state']}"
                history.append(f"{_time(t['time'])} ", style="dim")
                history.append(arrow, style=_STYLE.get(t["to_state"], ""))
                history.append(f": {t['reason']}")
            table.add_row(
                p["key"],
                _shown(p["value"]),
                Text(p["state"], style=_STYLE.get(p["state"], "")),
                str(p["support"]),
                str(p["conflict"]),
                f"{p['validity']:.2f}",
                f"{p['lower_95']:.2f}",
                history,
            )
        console.print(table)


def _cmd_inspect(args: argparse.Namespace) -> int:
    report = inspect_memory(
        args.path,
        prefix=args.prefix,
        policy=args.policy,
        namespace=args.namespace,
        key=args.key,
        state=args.state,
        as_of=args.as_of,
    )
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False, default=str))
    else:
        _print_rich(report)
    return 0


def _cmd_namespaces(args: argparse.Namespace) -> int:
    counts = list_namespaces(args.path, prefix=args.prefix, policy=args.policy)
    if args.json:
        print(json.dumps(counts, indent=2, ensure_ascii=False))
    elif not counts:
        print(f"{args.path} holds no namespace yet")
    else:
        width = max(len(ns) for ns in counts)
        for ns, n in counts.items():
            print(f"{ns:<{width}}  {n} key{'s' if n != 1 else ''}")
    return 0


def _cmd_reconcile(args: argparse.Namespace) -> int:
    from langchain_tepa import TEPAMemory

    if not (Path(args.path) / "chroma.sqlite3").is_file():
        raise StorageError(f"no memory at {args.path}: it holds no chroma.sqlite3; check the path")
    with TEPAMemory.from_path(args.path, prefix=args.prefix, policy=args.policy) as memory:
        report = memory.reconcile(reindex=args.reindex)
    data = {
        "path": str(args.path),
        "prefix": args.prefix,
        "policy": args.policy,
        "keys": report.keys,
        "evidence": report.evidence,
        "repaired_views": report.repaired_views,
        "repaired_active": report.repaired_active,
        "seconds": round(report.seconds, 4),
    }
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(
            f"reconciled {data['path']} (prefix {args.prefix!r}, policy {args.policy!r}): "
            f"{data['keys']} key(s) refolded from {data['evidence']} evidence records; "
            f"{data['repaired_views']} view(s) and {data['repaired_active']} retrievable-set "
            f"entr{'y' if data['repaired_active'] == 1 else 'ies'} repaired "
            f"in {data['seconds']:.3f} s"
        )
    return 0


def _cmd_repair_index(args: argparse.Namespace) -> int:
    from langchain_tepa.storage.chroma.repair import repair_index_files

    report = repair_index_files(args.path, dry_run=args.dry_run)
    data = {
        "path": report.path,
        "checked": report.checked,
        "dry_run": report.dry_run,
        "needs_reindex": report.needs_reindex,
        "broken": [dataclasses.asdict(b) for b in report.broken],
    }
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    verb = "would move" if report.dry_run else "moved"
    print(f"checked {report.checked} index folder(s) of {report.path}")
    for b in report.broken:
        what = "holds vectors" if b.holds_vectors else "placeholder vectors: nothing lost"
        print(f"  {verb} {b.collection} ({b.segment}): {b.reason}; {what}")
    if not report.broken:
        print("no broken index file")
    elif report.needs_reindex and not report.dry_run:
        print(f"next: start again, then `tepa reconcile {args.path} --reindex`")
    return 0


_EXAMPLES = """\
examples:
  tepa inspect ./memory                          every key, its values, states and history
  tepa inspect ./memory --key user.home_city     one key (and the keys below it)
  tepa inspect ./memory --state revoked --json   what was taken back, as JSON
  tepa inspect ./memory --as-of 2026-01-31       what the memory believed then
  tepa namespaces ./memory                       the namespaces and their sizes
  tepa reconcile ./memory                        refold every key from its evidence
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tepa`` command."""
    from langchain_tepa import __version__

    parser = argparse.ArgumentParser(
        prog="tepa",
        description="Inspect and reconcile a persistent TEPA memory.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="on an unexpected error, show the Python traceback instead of one line",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("path", help="folder of the memory (TEPAMemory.from_path)")
        p.add_argument("--prefix", default="tepa", help="collection prefix (default: tepa)")
        p.add_argument(
            "--policy",
            default=DEFAULT_POLICY,
            choices=POLICY_NAMES,
            help=f"policy the memory was written with (default: {DEFAULT_POLICY}, the library's)",
        )

    ins = sub.add_parser(
        "inspect",
        help="print keys, precedents, states and their history (read-only)",
        description="Read a memory without changing it and print every precedent with its "
        "state, posterior validity and transition history.",
    )
    common(ins)
    ins.add_argument("--namespace", help="only this namespace (default: all)")
    ins.add_argument("--key", help="only this key and the keys below it")
    ins.add_argument("--state", choices=_STATES, help="only precedents in this state")
    ins.add_argument("--json", action="store_true", help="print JSON instead of tables")
    ins.add_argument(
        "--as-of",
        dest="as_of",
        help="what the memory believed then: an ISO time (UTC unless a zone is given) or an "
        "evidence id (with --namespace)",
    )
    ins.set_defaults(func=_cmd_inspect)

    nss = sub.add_parser(
        "namespaces",
        help="list the namespaces and how many keys each holds (read-only)",
        description="Read a memory without changing it and list its namespaces.",
    )
    common(nss)
    nss.add_argument("--json", action="store_true", help="print JSON")
    nss.set_defaults(func=_cmd_namespaces)

    rec = sub.add_parser(
        "reconcile",
        help="refold every key from the evidence and repair the stored views",
        description="Refold every key from its evidence (the source of truth) and repair "
        "precedent views and retrievable sets. Idempotent.",
    )
    common(rec)
    rec.add_argument("--json", action="store_true", help="print JSON")
    rec.add_argument(
        "--reindex",
        action="store_true",
        help="write every vector of each large namespace's index again (after repair-index)",
    )
    rec.set_defaults(func=_cmd_reconcile)

    rep = sub.add_parser(
        "repair-index",
        help="move Chroma index files a killed process left unreadable out of the folder",
        description="With every process using the folder stopped (a `chroma run` server too), "
        "find the Chroma vector index folders that cannot be read (a process killed while "
        "writing them) and move them into PATH/.tepa-quarantine/. Records are kept in "
        "chroma.sqlite3; run `tepa reconcile PATH --reindex` next if an index held vectors.",
    )
    rep.add_argument("path", help="folder of the memory (or of the `chroma run --path` server)")
    rep.add_argument("--dry-run", action="store_true", help="only report what would be moved")
    rep.add_argument("--json", action="store_true", help="print JSON")
    rep.set_defaults(func=_cmd_repair_index)
    return parser


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tepa`` command; returns the exit code.

    0 on success; 2 on a library error (``TEPAError``) or an operating-system error on the path;
    1 on an unexpected error. Errors are one line on stderr, never a traceback (unless
    ``--traceback`` is given).

    Args:
        argv: Arguments without the program name (default: ``sys.argv[1:]``).
    """
    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    where = f"tepa {args.command}"
    try:
        return int(args.func(args))
    except TEPAError as exc:
        print(f"{where}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as exc:
        print(
            f"{where}: error: cannot use {args.path}: {_one_line(exc)}; check that the folder "
            "exists and that you may read it",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(f"{where}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.traceback:
            raise
        print(
            f"{where}: unexpected error ({type(exc).__name__}): {_one_line(exc)[:500]}; "
            "rerun with `tepa --traceback ...` to see where it came from",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
