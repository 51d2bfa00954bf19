"""A second reader's recount of a study's figures, beside the study's own.

``bench/recount.py`` recounts a study's headline figures from its capture
files with code that shares nothing with the study; ``mcpdelta study
--recount FILE`` reads its output here and registers it as the tables
``recount_figures`` (figure, value), ``recount_passes`` (position, folder,
logged, captures) and ``recount_tools`` (server_id, version, tools), so
``sql/study/recount.sql`` and ``sql/study/recount_tools.sql`` set each of
them beside the study's own figure, and the write-up prints both.
"""

import json

from mcpdelta.errors import InputError
from mcpdelta.inputs import read_text
from mcpdelta.survey import cells

LIMIT = 16 * 1024 * 1024
FIGURES = ("attempted", "captured", "empty", "servers", "releases", "steps", "tools")


def load_recount(path) -> dict:
    """The recount file's figures, passes and per-release tool counts; a
    file of another shape is an ``InputError`` naming it."""
    text = read_text(path, LIMIT, "recount file")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(str(path), f"not a recount file: not JSON ({exc})") from None
    problem = _problem(data)
    if problem:
        raise InputError(str(path), f"not a recount file (bench/recount.py): {problem}")
    return {"figures": [{"figure": f, "value": data["figures"][f]} for f in FIGURES],
            "passes": [{"position": i, "folder": p["folder"], "logged": p["logged"], "captures": p["captures"]}
                       for i, p in enumerate(data["passes"], start=1)],
            "tools": [{"server_id": s, "version": v, "tools": n} for s, v, n in data["release_tools"]]}


def _problem(data):
    if not isinstance(data, dict):
        return "expected an object"
    figures = data.get("figures")
    if not isinstance(figures, dict):
        return "no 'figures' object"
    for name in FIGURES:
        if not _is_count(figures.get(name)):
            return f"figures.{name}: expected a count"
    passes = data.get("passes")
    if not isinstance(passes, list) or not all(
            isinstance(p, dict) and isinstance(p.get("folder"), str) and _is_count(p.get("logged"))
            and _is_count(p.get("captures")) for p in passes):
        return "'passes': expected a list of {folder, logged, captures}"
    tools = data.get("release_tools")
    if not isinstance(tools, list) or not all(
            isinstance(t, list) and len(t) == 3 and isinstance(t[0], str) and isinstance(t[1], str)
            and _is_count(t[2]) for t in tools):
        return "'release_tools': expected a list of [server, version, tools]"
    return None


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 62


def register(con, recount=None):
    """``con`` with the tables ``recount_figures``, ``recount_passes`` and
    ``recount_tools`` (empty when no recount was given)."""
    import pyarrow as pa

    string, integer = pa.string(), pa.int64()
    schemas = {"recount_figures": pa.schema([("figure", string), ("value", integer)]),
               "recount_passes": pa.schema([("position", integer), ("folder", string), ("logged", integer),
                                            ("captures", integer)]),
               "recount_tools": pa.schema([("server_id", string), ("version", string), ("tools", integer)])}
    recount = recount or {}
    for name, key in (("recount_figures", "figures"), ("recount_passes", "passes"), ("recount_tools", "tools")):
        table = pa.Table.from_pylist(list(recount.get(key) or []), schema=schemas[name])
        con.register(f"_{name}_rows", table)
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM _{name}_rows")
        con.unregister(f"_{name}_rows")
    return con


NAMES = {"attempted": "versions attempted", "captured": "versions captured (by some pass)",
         "empty": "versions failed as empty", "servers": "servers with a release",
         "releases": "releases (pass A's captures)", "steps": "release steps (counted or not)",
         "tools": "tools the releases list"}


def recount_section(rows, given: bool) -> str:
    """The page's section setting the second reader's figures beside the
    study's (``recount.sql``, ``recount_tools.sql``)."""
    lines = ["## The figures, recounted", ""]
    if not given:
        return "\n".join(lines + [
            "This run was given no recount (`--recount`): `bench/recount.py`, run on the capture "
            "folders, recounts these figures from the files with code that shares nothing with the "
            "study, and the page then sets them side by side here."])
    lines += ["`bench/recount.py` read the capture files again with code that shares nothing with the "
              "study (the standard library only), and counted by its own reading; `recount.sql` sets each "
              "figure beside the study's own.", "",
              "| Figure | This study | Recount | |", "| --- | ---: | ---: | --- |"]
    for r in rows["recount"]:
        name = cells.cell(NAMES.get(r["figure"], r["figure"]))  # a pass's folder as given
        same = "same" if r["study"] == r["recount"] else "**differs**"
        lines.append(f"| {name} | {r['study']} | {'' if r['recount'] is None else r['recount']} | {same} |")
    total = next((r for r in rows["recount_tools"] if r["level"] == "all"), None)
    differ = [r for r in rows["recount_tools"] if r["level"] == "differ"]
    if total:
        lines += ["", f"Tools per release (`recount_tools.sql`): the study holds "
                      f"{cells.count(total['study_releases'], 'release')}, the recount "
                      f"{total['recount_releases']}; their tool counts agree on {total['agree']}."]
    if differ:
        lines += ["", "| Server | Version | Tools: study | Tools: recount |", "| --- | --- | ---: | ---: |"]
        lines += [f"| {r['server_id']} | {r['version']} | {'' if r['study'] is None else r['study']} | "
                  f"{'' if r['recount'] is None else r['recount']} |" for r in differ]
    return "\n".join(lines)
