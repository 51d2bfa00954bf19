"""The engine over every consecutive release step of a capture folder, each
BREAKING schema change checked by the independent reader.

    python -m tests.truth.corpus data/ecosystem/captures [data/survey/captures ...]

prints, by rule, the BREAKING schema changes: witnessed (and confirmed by
python-jsonschema), with a named reason, and unexplained (split by whether
the independent reader found a value telling the two sides apart), then
every change the reader could neither confirm nor show.
"""

import collections
import gzip
import json
import pathlib
import sys

from tests.truth import independent

SIDES = ("tool.input.", "tool.output.")


def _version_key(version):
    from mcpdelta.lake.ingest import version_key  # the order the study and the lake use

    return version_key(version)


def captures(folder):
    """{server: [(version, path), ...]} in release order."""
    out = {}
    for server in sorted(p for p in pathlib.Path(folder).iterdir() if p.is_dir()):
        files = [p for p in server.iterdir() if p.name.endswith((".json", ".json.gz"))]
        versions = [(p.name[: -len(".json.gz")] if p.name.endswith(".gz") else p.name[:-5], p)
                    for p in files]
        out[server.name] = sorted(versions, key=lambda v: _version_key(v[0]))
    return out


def load(path):
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return json.loads(data)


def _parts(change, side_key):
    base = f"/tools/{change['entity'].replace('~', '~0').replace('/', '~1')}/{side_key}"
    tail = change["path"][len(base):]
    return [p.replace("~1", "/").replace("~0", "~") for p in tail.split("/")[1:]] if tail else []


def steps(folder, servers=None):
    """(server, old version, new version, old manifest, new manifest) for each
    consecutive step. A capture the engine refuses to read (two tools of one
    name) is no release, as the lake's ingest refuses it: the step spans it."""
    from mcpdelta.engine.manifest import validate_manifest
    from mcpdelta.errors import InputError

    for server, versions in captures(folder).items():
        if servers is not None and server not in servers:
            continue
        loaded = []
        for version, path in versions:
            try:
                manifest = load(path)
                validate_manifest(manifest)
            except (OSError, ValueError, InputError):
                continue
            loaded.append((version, manifest))
        for (va, a), (vb, b) in zip(loaded, loaded[1:]):
            yield server, va, vb, a, b


def breaking_schema_changes(old, new):
    """The engine's BREAKING input/output schema changes of one step, with
    witnesses, as plain records."""
    from mcpdelta.engine.manifest import validate_manifest
    from mcpdelta.engine.result import DiffResult
    from mcpdelta.witness import attach_witnesses

    result = DiffResult(validate_manifest(old), validate_manifest(new))
    attach_witnesses(result)
    renames = {c.new: c.old for c in result.changes if c.rule == "tool.renamed"}
    return [{"rule": c.rule, "entity": c.entity, "old_entity": renames.get(c.entity, c.entity),
             "path": c.path, "witness": c.witness, "note": c.witness_note}
            for c in result.changes if c.severity == "BREAKING" and c.rule.startswith(SIDES)]


def audit(folder, servers=None, examples=120):
    """Every BREAKING schema change of ``folder`` with the reader's verdict."""
    from mcpdelta.witness.evidence import BY_RULE, PROVEN, evidence

    for server, va, vb, a, b in steps(folder, servers):
        changes = breaking_schema_changes(a, b)
        if not changes:
            continue
        tools_a = {t["name"]: t for t in a.get("tools") or [] if isinstance(t, dict)}
        tools_b = {t["name"]: t for t in b.get("tools") or [] if isinstance(t, dict)}
        for change in changes:
            kind = evidence(json.dumps(change["witness"]) if change["witness"] else None, change["note"])
            record = {"server": server, "old_version": va, "new_version": vb, **change,
                      "evidence": kind}
            old_tool = tools_a.get(change["old_entity"])
            new_tool = tools_b.get(change["entity"])
            if old_tool is None or new_tool is None:
                record["verdict"] = ("no tool", None)
            elif kind == PROVEN:
                record["verdict"] = independent.check(change, old_tool, new_tool)
                record["own"] = shows_its_own(change, old_tool, new_tool)
            elif kind == BY_RULE:
                record["verdict"] = ("named", change["note"])
            else:
                side_key = "inputSchema" if change["rule"].startswith("tool.input.") else "outputSchema"
                change = {**change, "parts": _parts(change, side_key)}
                record["verdict"] = independent.look_closer(change, old_tool, new_tool, examples)
            yield record


FAILING = ("refuted", "unshown", "no tool")
SKIP = {"anyOf", "oneOf", "allOf", "then", "else", "if", "not"}


def instance_place(parts):
    """The instance location a change's schema path parts name, each array
    item or undeclared key as "*"; None where the path goes through a
    definition (a ``$ref`` target serves many places)."""
    out, i = [], 0
    while i < len(parts):
        key = parts[i]
        if key in ("$defs", "definitions", "dependentSchemas"):
            return None
        if key == "properties" and i + 1 < len(parts):
            out.append(parts[i + 1])
            i += 2
        elif key in ("prefixItems", "patternProperties") and i + 1 < len(parts):
            out.append(parts[i + 1] if key == "prefixItems" else "*")
            i += 2
        elif key in ("items", "additionalItems", "additionalProperties", "contains"):
            if i + 1 < len(parts):  # a change of the keyword itself is refused at its container
                out.append("*")
            i += 1
        elif key in SKIP and i + 1 < len(parts) and str(parts[i + 1]).isdigit():
            i += 2
        else:
            i += 1
    return out


def _refusals(record, old_tool, new_tool):
    """(the rejecting side's top errors for the witness, formats read as
    annotations, else asserted where only they refuse it; a test of whether
    an error, or one nested in it, lies at the change's own place: for a
    property rule at the property or at its object naming it), or None when
    the place cannot be read."""
    side_key = "inputSchema" if record["rule"].startswith("tool.input.") else "outputSchema"
    place = instance_place(_parts(record, side_key))
    if place is None:
        return None
    rejecting = (new_tool if side_key == "inputSchema" else old_tool).get(side_key, {})
    named = None
    rule = record["rule"].split(".", 2)[2]
    if rule.startswith(("property.", "required.")) and place:
        named, place = place[-1], place[:-1]

    def own(error):
        at = list(error.absolute_path)
        if len(at) >= len(place) and all(p == "*" or str(p) == str(a) for p, a in zip(place, at)) and (
                named is None or len(at) > len(place) or f"'{named}'" in error.message):
            return True
        return any(own(inner) for inner in error.context or ())

    value = record["witness"]["value"]
    plain = list(independent.validator(rejecting).iter_errors(value))
    asserted = list(independent.validator(rejecting, formats=True).iter_errors(value))
    # a change of ``format`` is refused at its place only where formats are
    # asserted, even when the value is refused elsewhere too
    errors = asserted if not plain or (not any(map(own, plain)) and any(map(own, asserted))) else plain
    return errors, own


def shows_its_own(record, old_tool, new_tool):
    """Whether the rejecting side refuses the witness at the change's own
    place; None when the place cannot be read."""
    read = _refusals(record, old_tool, new_tool)
    return None if read is None else any(map(read[1], read[0]))


def shows_it_alone(record, old_tool, new_tool):
    """Whether the rejecting side refuses the witness at the change's own
    place and nowhere else (the change alone tells the two sides apart);
    None when the place cannot be read."""
    read = _refusals(record, old_tool, new_tool)
    return None if read is None else bool(read[0]) and all(map(read[1], read[0]))


def table(records):
    """Counts by rule: BREAKING, witnessed, named reason, unexplained (of
    them: shown by the reader, not shown)."""
    rows = collections.defaultdict(collections.Counter)
    for r in records:
        row = rows[r["rule"]]
        row["breaking"] += 1
        row[r["evidence"]] += 1
        row[r["verdict"][0]] += 1
    return dict(sorted(rows.items()))


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.truth.corpus", description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", metavar="FOLDER", help="captures as FOLDER/<server>/<version>.json[.gz]")
    folders = parser.parse_args(argv).folders
    for folder in folders:
        if not pathlib.Path(folder).is_dir():
            parser.error(f"{folder}: no such capture folder")
    records = []
    for folder in folders:
        records += list(audit(folder))
    rows = table(records)
    total = collections.Counter()
    print(f"{'rule':40} {'BREAKING':>9} {'witnessed':>9} {'named':>6} {'unexpl.':>8} {'shown':>6} {'unshown':>8}")
    for rule, row in rows.items():
        total.update(row)
        print(f"{rule:40} {row['breaking']:9} {row['proven']:9} {row['by rule']:6} "
              f"{row['unexplained']:8} {row['distinguished']:6} {row['unshown']:8}")
    print(f"{'all':40} {total['breaking']:9} {total['proven']:9} {total['by rule']:6} "
          f"{total['unexplained']:8} {total['distinguished']:6} {total['unshown']:8}")
    print(f"witnesses confirmed by python-jsonschema: {total['confirmed']} "
          f"(+{total['confirmed with format']} only with format checking), refuted: {total['refuted']}")
    elsewhere = [r for r in records if r.get("own") is False]
    print(f"witnesses the rejecting side refuses elsewhere than at their change: {len(elsewhere)}")
    for r in elsewhere:
        print(f"  elsewhere: {r['server']} {r['old_version']} -> {r['new_version']} {r['rule']} {r['path']} "
              f"witness {json.dumps(r['witness']['value'], sort_keys=True)[:160]}")
    for r in records:
        if r["verdict"][0] in FAILING:
            print(f"  {r['verdict'][0]}: {r['server']} {r['old_version']} -> {r['new_version']} "
                  f"{r['rule']} {r['path']} ({(r['note'] or '')[:80]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
