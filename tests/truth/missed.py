"""Missed breaks: tools whose schema changed in a release step with no
BREAKING change reported, checked by values.

    python -m tests.truth.missed data/fresh/captures [data/ecosystem/captures ...]

For every consecutive release step of a capture folder and every tool on
both sides (a renamed tool under its old name), each schema that changed with
no BREAKING change reported on that side of that tool is read by values:
hypothesis-jsonschema draws them from the old input schema (the new output
schema) and python-jsonschema checks them on the other side. A value the
other side rejects is a missed break.

The convention for open objects: a property an object does not declare is
not part of the contract, so a new optional property is NON_BREAKING. Values are therefore drawn with every object that declares
``properties`` closed to them: no undeclared key is sent to the other side.
Integers are drawn within JavaScript's safe range, +-(2^53 - 1), the only
integers JSON carries between implementations (RFC 7493): zod 4 writes those
bounds on every integer, and gaining them changes no value a client sends.
A value that passes only with format checking off is reported as such.
"""

import json
import pathlib
import signal
import sys

import jsonschema

from tests.truth import independent
from tests.truth.corpus import steps

SIDES = {"input": "inputSchema", "output": "outputSchema"}
OPEN = ("additionalProperties", "patternProperties", "unevaluatedProperties")
SAFE_INTEGER = 2 ** 53 - 1
CPU_SECONDS = 10  # per changed schema: hypothesis-jsonschema can take minutes on deep nested objects


class _OutOfTime(BaseException):  # not an Exception: the drawing code's handlers let it through
    pass


def _out_of_time(signum, frame):
    raise _OutOfTime


def close_declared(node, depth=0):
    """``node`` (a standalone schema) with every object that declares
    ``properties`` and says nothing of other keys closed to undeclared keys,
    and every integer within the safe range: values drawn from it carry only
    what the contract names."""
    if depth > 64:
        return node
    if isinstance(node, list):
        return [close_declared(v, depth + 1) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in ("enum", "const", "default", "examples", "required"):
            out[key] = value
        elif key in independent.MAPS and isinstance(value, dict):
            out[key] = {k: close_declared(v, depth + 1) for k, v in value.items()}
        else:
            out[key] = close_declared(value, depth + 1)
    if isinstance(out.get("properties"), dict) and not any(k in out for k in OPEN):
        out["additionalProperties"] = False
    kind = out.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
        for key, bound, pick in (("minimum", -SAFE_INTEGER, max), ("maximum", SAFE_INTEGER, min)):
            value = out.get(key)
            out[key] = pick(value, bound) if isinstance(value, (int, float)) and not isinstance(value, bool) else bound
    return out


def breaking_sides(old, new):
    """({(tool, side) with a BREAKING change}, {new tool name: old name}) of
    one step, as the engine reports it with its evidence attached."""
    from mcpdelta.engine.manifest import validate_manifest
    from mcpdelta.engine.result import DiffResult
    from mcpdelta.witness import attach_witnesses

    result = DiffResult(validate_manifest(old), validate_manifest(new))
    attach_witnesses(result)
    renames = {c.new: c.old for c in result.changes if c.rule == "tool.renamed"}
    broken = set()
    for c in result.changes:
        for side in SIDES:
            if c.severity == "BREAKING" and c.rule.startswith(f"tool.{side}."):
                broken.add((c.entity, side))
    return broken, renames


def _why(check, value):
    """Where the rejecting side refuses ``value``: (instance path, schema
    path, message), the best match python-jsonschema gives."""
    try:
        error = jsonschema.exceptions.best_match(check.iter_errors(value))
    except Exception as exc:  # a schema the validator cannot run is its own finding
        return ("", "", f"validator failed: {type(exc).__name__}")
    if error is None:
        return ("", "", "")
    return ("/" + "/".join(map(str, error.absolute_path)),
            "/" + "/".join(map(str, error.absolute_schema_path)), error.message[:160])


def check_schema(old_raw, new_raw, side, examples):
    """A value the accepting side takes and the other refuses (the drawn
    schema closed to undeclared keys), None, or ``{"out_of_time": True}``
    when drawing took more than CPU_SECONDS of processor time."""
    accepting, rejecting = (old_raw, new_raw) if side == "input" else (new_raw, old_raw)
    if not isinstance(accepting, dict) or not isinstance(rejecting, dict):
        return None
    a_check, r_check = independent.validator(accepting), independent.validator(rejecting)
    a_format = independent.validator(accepting, formats=True)
    r_format = independent.validator(rejecting, formats=True)
    gen = close_declared(independent.standalone(accepting, accepting))

    def tells(value):
        return independent.accepts(a_check, value) and not independent.accepts(r_check, value)

    previous = signal.signal(signal.SIGPROF, _out_of_time)
    # again every 0.1 s of CPU after the first: a raise that lands in a gc
    # callback is swallowed ("Exception ignored in ..."), and the bound with it
    signal.setitimer(signal.ITIMER_PROF, CPU_SECONDS, 0.1)
    try:
        value = independent.distinguishing(gen, tells, examples)
    except _OutOfTime:
        return {"out_of_time": True}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    if value is None:
        return None
    formats = independent.accepts(a_format, value) and not independent.accepts(r_format, value)
    return {"value": value, "why": _why(r_check, value), "with_format": formats}


def audit(folder, servers=None, examples=40):
    """Every tool side whose schema changed with no BREAKING reported, with
    the value that shows a missed break (``found`` None when none was
    drawn)."""
    for server, va, vb, a, b in steps(folder, servers):
        try:
            broken, renames = breaking_sides(a, b)
        except Exception as exc:  # the engine refusing a captured manifest is a finding too
            yield {"server": server, "old_version": va, "new_version": vb, "tool": None,
                   "side": None, "found": None, "error": f"{type(exc).__name__}: {exc}"[:200]}
            continue
        tools_a = {t.get("name"): t for t in a.get("tools") or [] if isinstance(t, dict)}
        for new_tool in b.get("tools") or []:
            if not isinstance(new_tool, dict):
                continue
            name = new_tool.get("name")
            old_tool = tools_a.get(renames.get(name, name))
            if old_tool is None:
                continue
            for side, key in SIDES.items():
                old_raw, new_raw = old_tool.get(key), new_tool.get(key)
                if old_raw == new_raw or (name, side) in broken or old_raw is None or new_raw is None:
                    continue
                found = check_schema(old_raw, new_raw, side, examples)
                yield {"server": server, "old_version": va, "new_version": vb, "tool": name,
                       "side": side, "found": found, "error": None}


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.truth.missed", description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", metavar="FOLDER", help="captures as FOLDER/<server>/<version>.json[.gz]")
    parser.add_argument("--examples", type=int, default=40, help="values drawn per changed schema (default 40)")
    parser.add_argument("--server", action="append", metavar="ID", help="read only this server (repeatable)")
    args = parser.parse_args(argv)
    for folder in args.folders:
        if not pathlib.Path(folder).is_dir():
            parser.error(f"{folder}: no such capture folder")
    checked = missed = errors = unread = 0
    for folder in args.folders:
        for r in audit(folder, set(args.server) if args.server else None, args.examples):
            step = f"{r['server']} {r['old_version']} -> {r['new_version']}"
            if r["error"]:
                errors += 1
                print(f"  engine error: {step}: {r['error']}")
                continue
            checked += 1
            if r["found"] is None:
                continue
            if r["found"].get("out_of_time"):
                unread += 1
                print(f"  unread: {step} {r['tool']} {r['side']}: no value drawn within {CPU_SECONDS} s of CPU")
                continue
            missed += 1
            at, schema_at, message = r["found"]["why"]
            value = json.dumps(r["found"]["value"], sort_keys=True)
            print(f"  missed: {step} {r['tool']} {r['side']}: value {value[:200]} rejected at "
                  f"{at or '/'} by {schema_at} ({message})"
                  + ("" if r["found"]["with_format"] else " [only without format checking]"))
    print(f"changed schemas with no BREAKING: {checked}, missed breaks: {missed}, "
          f"unread (time bound): {unread}, engine errors: {errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
