"""The write-up's *Behaviour* section, from ``sql/study/behaviour.sql``.

Like the rest of the page, it only lays out what the query returned: the
per-server counts (its ``server`` rows) and each step and tool it found (its
``step`` rows).
"""

from mcpdelta.survey import cells

def behaviour(rows, servers_file) -> str:
    """The section, from the rows of ``behaviour.sql``; ``servers_file`` holds the probes."""
    servers = [r for r in rows if r["level"] == "server" and r["server_id"] is not None]
    total = next((r for r in rows if r["level"] == "server" and r["server_id"] is None), None)
    steps = [r for r in rows if r["level"] == "step"]
    lines = ["## Behaviour", "",
             "Each probed release was also called with the harmless, offline probe calls of "
             f"`probes:` in `{servers_file}` (right after the lists, against a small fixture world the study makes), "
             "and the same call's responses compared across each counted release step by their "
             "value-tolerant shape (`tool.behaviour.*` in [docs/rules.md](../rules.md)): a field gone "
             "or retyped, a content block gone, a call that now errors. Values that changed are "
             "not reported. `behaviour.sql`: per server, the releases whose responses changed "
             "shape while the tool's schemas did not move, and the ones whose `structuredContent` "
             "stopped conforming to the tool's own declared `outputSchema`.", ""]
    if not servers:
        lines.append("No release was captured with probes.")
        return "\n".join(lines)
    lines += ["| Server | Probed releases | Steps: response changed, schemas not | "
              "Steps: outputSchema violated |", "| --- | ---: | ---: | ---: |"]
    for r in servers + [dict(total, server_id="all")]:
        lines.append(f"| {r['server_id']} | {cells.n(r['probed_releases'])} | {cells.n(r['shape_steps'])} | "
                     f"{cells.n(r['violation_steps'])} |")
    lines.append("")
    if not steps:
        lines.append("No counted step changed a response's shape under unchanged schemas, and "
                     "no structured result broke its own outputSchema.")
        return "\n".join(lines)
    lines += ["| Server | Step | Tool | What | Rules | Breaking | First place |",
              "| --- | --- | --- | --- | --- | ---: | --- |"]
    for r in steps:
        what = " and ".join(w for w, on in (("response changed, schemas not", r["shape_only"]),
                                            ("outputSchema violated", r["violated"])) if on)
        lines.append(f"| {r['server_id']} | {r['old_version']} -> {r['new_version']} | {cells.code(r['tool'])} | "
                     f"{what} | {cells.cell(r['rules'])} | {cells.n(r['breaking'])} | {cells.code(r['first_path'])} |")
    return "\n".join(lines)
