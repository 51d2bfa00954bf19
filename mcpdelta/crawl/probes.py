"""Probe calls: ``tools/call`` made once per capture, right after the lists,
so the engine can compare what the same call returns across versions
(``mcpdelta/engine/behaviour.py``).

A servers-file entry's ``probes`` is a list of ``{tool, arguments, name?}``
or ``auto``: one probe per tool that declares ``readOnlyHint: true``, with
the smallest arguments its inputSchema accepts (required properties only).
Never a tool that is not declared read-only.

A probe is a call into code someone else wrote, so what it may call is
bounded by what the tool says of itself (``ProbePolicy``): a tool annotated
``destructiveHint: true`` is never called, and where the probes come from a
file a pull request can change (``ci``, ``verify-lock --servers``, a
``live:`` side: the lockfile's pinned calls, the servers file's ``probes:``)
neither is a tool not annotated ``readOnlyHint: true``, unless the command
line says so (``--allow-destructive-probes``). A refused probe is recorded
as ``unavailable`` (compared as no probe at all) with its reason.

Every probe is bounded by the request timeout and the transport's message
size limit. A probe that fails (a timeout, a protocol error, a server that
died) becomes a probe entry with that outcome, and one whose tool the
server does not list is ``unavailable`` (compared as no probe at all); the
capture itself still succeeds.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass, field

from mcpdelta.errors import InputError

from . import jsonrpc
from .errors import CrawlError, short

AUTO = "auto"
ALLOW_FLAG = "--allow-destructive-probes"


@dataclass(frozen=True)
class ProbePolicy:
    """Which tools a probe may call. ``read_only``: only those annotated
    ``readOnlyHint: true`` (probes from a file a pull request can change);
    ``allow_destructive``: the command line lifts both limits."""

    read_only: bool = False
    allow_destructive: bool = False

    def refusal(self, tool) -> str | None:
        """Why the probe of ``tool`` (its listed entry) is not made, or None."""
        if self.allow_destructive:
            return None
        annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        if annotations.get("destructiveHint") is True:
            return f"refused: the tool is annotated destructiveHint: true ({ALLOW_FLAG} calls it)"
        if self.read_only and annotations.get("readOnlyHint") is not True:
            return ("refused: the tool is not annotated readOnlyHint: true, and this probe comes from a "
                    f"file a pull request can change ({ALLOW_FLAG} calls it)")
        return None


@dataclass(frozen=True)
class Probe:
    tool: str
    arguments: dict = field(default_factory=dict, hash=False, compare=False)
    name: str = ""

    @property
    def key(self) -> str:
        return self.name or default_name(self.tool, self.arguments)


def default_name(tool: str, arguments: dict) -> str:
    """The tool name plus a short hash of the arguments: stable across runs."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{tool}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}"


def parse_probes(value, where: str):
    """``probes:`` of a servers-file entry: a list of Probe, or AUTO."""
    if value is None:
        return []
    if value == AUTO:
        return AUTO
    if not isinstance(value, list):
        raise InputError(where, "probes must be a list of {tool, arguments, name} or 'auto'")
    probes, names = [], set()
    for index, item in enumerate(value):
        at = f"{where}: probes[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("tool"), str) or not item["tool"]:
            raise InputError(at, "needs a 'tool' name")
        unknown = sorted(set(item) - {"tool", "arguments", "name"})
        if unknown:
            raise InputError(at, f"unknown key {unknown[0]!r} (expected tool, arguments, name)")
        arguments = item.get("arguments", {})
        if not isinstance(arguments, dict):
            raise InputError(at, "arguments must be a mapping")
        name = item.get("name", "")
        if not isinstance(name, str):
            raise InputError(at, "name must be a string")
        probe = Probe(item["tool"], arguments, name)
        if probe.key in names:
            raise InputError(at, f"two probes are named {probe.key!r}")
        names.add(probe.key)
        probes.append(probe)
    return probes


def auto_probes(tools: list) -> tuple[list[Probe], list[str]]:
    """One probe per tool declared read-only, and a note per tool skipped."""
    probes, notes = [], []
    for tool in tools:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        if annotations.get("readOnlyHint") is not True:
            continue
        arguments = smallest_arguments(tool.get("inputSchema"))
        if arguments is None:
            notes.append(f"probe of {tool['name']}: no valid arguments could be built from its inputSchema")
            continue
        probes.append(Probe(tool["name"], arguments))
    return probes, notes


def smallest_arguments(schema) -> dict | None:
    """The smallest arguments object the schema accepts: required properties
    only, smallest values (the witness module's generator), checked by a
    validator. None when none is found."""
    if schema is None or schema is True or schema == {} or schema == {"type": "object"}:
        return {}
    if not isinstance(schema, dict):
        return None
    import jsonschema_rs

    from mcpdelta.witness.instance import examples, size

    try:
        validator = jsonschema_rs.validator_for(schema)
    except Exception:  # noqa: BLE001 - a schema the validator cannot compile gets no probe
        return None
    candidates = [v for v in examples(schema) if isinstance(v, dict)]
    valid = [v for v in candidates if validator.is_valid(v)]
    if {} not in valid and validator.is_valid({}):
        valid.append({})
    return min(valid, key=lambda v: (size(v), json.dumps(v, sort_keys=True))) if valid else None


async def run_probes(session, probes: list[Probe], tools: list | None, timeout: float,
                     policy: ProbePolicy = ProbePolicy()) -> list[dict]:
    """Call every probe in order, each as ``policy`` allows; one manifest entry per probe."""
    from mcpdelta.engine.fingerprint import result_shape, shape_hash

    listed = {t.get("name"): t for t in tools or [] if isinstance(t, dict)}
    entries = []
    dead = None  # once the server is gone, the remaining probes cannot run
    for probe in probes:
        entry = {"name": probe.key, "tool": probe.tool, "arguments": probe.arguments}
        refused = policy.refusal(listed[probe.tool]) if probe.tool in listed else None
        if probe.tool not in listed:
            entry.update(outcome="unavailable", error=f"no tool named {probe.tool!r} at capture time")
        elif refused:
            entry.update(outcome="unavailable", error=refused)
        elif dead is not None:
            entry.update(outcome="protocol_error", error=f"not run: {dead}")
        else:
            try:
                result = await session.call("tools/call", {"name": probe.tool, "arguments": probe.arguments},
                                            timeout)
            except jsonrpc.RpcError as exc:
                entry.update(outcome="protocol_error", error=short(str(exc), 500))
            except CrawlError as exc:
                outcome = "timeout" if exc.kind == "timeout" else "protocol_error"
                entry.update(outcome=outcome, error=short(str(exc), 500))
                if exc.kind != "timeout":
                    dead = short(str(exc), 200)
            except asyncio.CancelledError:
                raise
            else:
                shape = result_shape(result)
                entry.update(outcome="tool_error" if result.get("isError") is True else "result",
                             shape=shape, shape_hash=shape_hash(shape), result=result)
        entries.append(entry)
    return entries
