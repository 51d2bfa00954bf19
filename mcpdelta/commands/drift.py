"""``mcpdelta drift --lake LAKE``: the description-drift report.

Per server, every prose change across its releases (tool, prompt and
resource descriptions and titles, argument and property descriptions,
server instructions, widget descriptions) with the prose classifier's
verdict and what the judges said (the lake's ``notes`` table, written by
the survey's judge stage), security-relevant changes first. Each change
carries two measures of how far its text moved: the offline judge's
semantic distance (``mcpdelta.judge.offline``, when it voted) and the
engine's character similarity; the HTML page ranks every change by the
first, security flags on top, and names the judges that voted.

Rows come from ``sql/description_drift.sql`` joined to the notes by
``sql/drift_notes.sql``. The changes shown are the current engine's under
the policy of ``--config`` / ``--profile`` / ``--severity-override`` (the
ones the survey used), as in the survey report.
"""

import datetime as dt
import json
import sys

from mcpdelta import pages
from mcpdelta.commands import options
from mcpdelta.resources import SQL_DIR as SQL
from mcpdelta.safe import html_text, json_text, md_text, no_command_lines, visible
from mcpdelta.survey import queries

FORMAT = "mcpdelta.drift/v1"
HELP = "report which servers' descriptions and other prose moved, with the judges' notes"


def add_arguments(parser):
    options.add_lake(parser)
    parser.add_argument("--since", metavar="DATE",
                        help="only changes whose newer release was captured on or after DATE (ISO date)")
    options.add_format(parser, choices=("text", "markdown", "json", "html"))
    options.add_config(parser)
    options.add_profile(parser)
    options.add_severity_override(parser)


def run(args) -> int:
    from mcpdelta.config import find_default, load_config
    from mcpdelta.engine.policy import Policy, parse_override
    from mcpdelta.lake import Lake
    from mcpdelta.survey.diffstage import engine_version, policy_hash

    since = parse_since(args.since)
    config = load_config(args.config or find_default())
    policy = Policy(config.profile, config.fail_on, config.overrides, config.ignores,
                    cli_profile=args.profile,
                    cli_overrides=dict(parse_override(t) for t in args.severity_override))
    lake = Lake(args.lake)
    lake.require()
    engine, policy_id = engine_version(), policy_hash(policy)
    con = lake.connect(engine, policy_id)
    try:
        rows = drift_rows(con, since)
    finally:
        con.close()
    report = build(rows, engine, policy_id, since)
    render = {"text": text, "markdown": markdown, "json": as_json, "html": page}[args.format]
    sys.stdout.write(render(report))
    return 0


def parse_since(value):
    if value is None:
        return None
    from mcpdelta.errors import InputError

    try:
        since = dt.datetime.fromisoformat(value)
    except ValueError:
        raise InputError("--since", f"not an ISO date: {value!r}") from None
    return since if since.tzinfo else since.replace(tzinfo=dt.timezone.utc)


def drift_rows(con, since=None) -> list:
    """The rows of ``sql/drift_notes.sql`` (as dicts) on a lake connection."""
    con.execute("CREATE OR REPLACE TEMP VIEW description_drift AS\n"
                + (SQL / "description_drift.sql").read_text())
    return queries.query(con, "drift_notes", {"since": since})


def _text(value_json):
    """A change's stored old / new JSON back to its text (None when absent)."""
    from mcpdelta.errors import InputError
    from mcpdelta.inputs import load_json

    if value_json is None:
        return None
    try:
        value = load_json(value_json, "a lake cell")  # bounded: the lake may come from anyone
    except InputError:
        return value_json
    return value if value is None or isinstance(value, str) else json.dumps(value, sort_keys=True)


def _note(note) -> dict:
    """A note as the report shows it: the note's own keys, not the stored answer."""
    from mcpdelta.judge.note import NOTE_KEYS

    return {k: note[k] for k in NOTE_KEYS}


def _distance(notes):
    """The offline judge's semantic distance from its stored answer, or None."""
    from mcpdelta.errors import InputError
    from mcpdelta.inputs import load_json
    from mcpdelta.judge.offline import NAME

    for note in notes:
        if note["judge"] == NAME and note.get("answer_json"):
            try:
                answer = load_json(note["answer_json"], "a stored answer")  # bounded: a lake cell
            except InputError:
                return None
            value = answer.get("semantic_distance") if isinstance(answer, dict) else None
            return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return None


def _similarity(old, new):
    """The engine's character similarity (0-100) of the two texts, or None."""
    from mcpdelta.engine.prose import normalise, ratio

    if not isinstance(old, str) or not isinstance(new, str):
        return None
    return round(ratio(normalise(old), normalise(new)), 1)


def build(rows, engine, policy_id, since=None) -> dict:
    """The report as one JSON-ready object, servers in name order."""
    servers, voted = {}, {}
    for row in rows:
        old, new = _text(row["old_text"]), _text(row["new_text"])
        for n in row["notes"]:
            voted[n["judge"]] = voted.get(n["judge"], 0) + 1
        servers.setdefault(row["server_id"], []).append({
            "entity": row["entity"], "rule": row["rule"], "path": row["path"],
            "old_version": row["old_version"], "new_version": row["new_version"],
            "captured_at": row["captured_at"].isoformat() if row["captured_at"] else None,
            "verdict": row["verdict"], "old": old, "new": new,
            "security_relevant": bool(row["security_relevant"]),
            "semantic_distance": _distance(row["notes"]), "similarity": _similarity(old, new),
            "jury": _note(row["headline"]) if row["headline"] else None,
            "notes": [_note(n) for n in row["notes"]],
        })
    changes = [c for group in servers.values() for c in group]
    return {
        "format": FORMAT, "engine": engine, "policy": policy_id,
        "since": since.isoformat() if since else None,
        "judges": dict(sorted(voted.items())),   # judge -> changes it has a note on
        "summary": {"servers": len(servers), "changes": len(changes),
                    "security_relevant": sum(c["security_relevant"] for c in changes),
                    "judged": sum(1 for c in changes if c["notes"])},
        "servers": [{"server_id": s, "changes": group,
                     "security_relevant": sum(c["security_relevant"] for c in group)}
                    for s, group in sorted(servers.items())],
    }


def ranked(report) -> list:
    """(server id, change) pairs: security flags first; then rewrites (text
    on both sides) by semantic distance, largest first; then texts added or
    removed, and changes the offline judge did not score; then report order."""
    def key(item):
        position, (_, c) = item
        return (not c["security_relevant"], not (c["old"] and c["new"]),
                c["semantic_distance"] is None, -(c["semantic_distance"] or 0), position)

    order = [(s["server_id"], c) for s in report["servers"] for c in s["changes"]]
    return [pair for _, pair in sorted(enumerate(order), key=key)]


def _measures(change) -> str:
    d, s = change["semantic_distance"], change["similarity"]
    return (f"distance {'-' if d is None else f'{d:.3f}'}, "
            f"similarity {'-' if s is None else f'{s:.0f}'}")


def _voters(report) -> str:
    if not report["judges"]:
        return "no judge voted"
    return "judges that voted: " + ", ".join(f"{name} ({_n(count, 'change')})"
                                             for name, count in report["judges"].items())


def as_json(report) -> str:
    return json_text(json.dumps(report, indent=2, ensure_ascii=False)) + "\n"


def _one_line(value, limit=240) -> str:
    from mcpdelta.judge.note import one_line

    return "(absent)" if value is None else json.dumps(one_line(value, limit), ensure_ascii=False)


def _note_line(note) -> str:
    flags = [note["verdict"]]
    if note["security_relevant"]:
        flags.append("security-relevant")
    if note["verdict"] not in ("judge_error", "budget_exhausted"):
        flags.append(f"confidence {note['confidence']:.2f}")
    return f"{note['judge']}: {', '.join(flags)}: {note['summary']}"


def _n(count, word) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _headline(report) -> str:
    s = report["summary"]
    line = (f"{_n(s['changes'], 'prose change')} in {_n(s['servers'], 'server')}, "
            f"{s['security_relevant']} security-relevant, {s['judged']} with judge notes")
    return line + (f" (since {report['since']})" if report["since"] else "")


def _change_notes(change) -> list:
    """What to show under a change: the jury's note, then every judge's."""
    notes = change["notes"]
    if not notes:
        return ["not judged"]
    jury = [n for n in notes if n["judge"] == "jury"]
    return [_note_line(n) for n in jury + [n for n in notes if n["judge"] != "jury"]]


def text(report) -> str:
    out = [f"description drift: {_headline(report)}"]
    for server in report["servers"]:
        out.append(f"{server['server_id']}: {_n(len(server['changes']), 'prose change')}, "
                   f"{server['security_relevant']} security-relevant")
        for c in server["changes"]:
            mark = "!" if c["security_relevant"] else " "
            out.append(f"  {mark} {c['old_version']} -> {c['new_version']}  {c['rule']}  "
                       f"{c['entity'] or '(server)'}  {c['verdict']}")
            out.append(f"      old: {_one_line(c['old'])}")
            out.append(f"      new: {_one_line(c['new'])}")
            out += [f"      {line}" for line in _change_notes(c)]
    # every line is one line of the terminal: whatever a server or a judge wrote stays in it
    return no_command_lines("\n".join(visible(line) for line in out)) + "\n"


def markdown(report) -> str:
    out = ["# mcpdelta description drift", "",
           f"Engine `{report['engine']}`, policy `{report['policy']}`: {_headline(report)}.", "",
           "Judge notes are advisory: they never change a severity.", ""]
    if not report["servers"]:
        out += ["No prose changed.", ""]
    for server in report["servers"]:
        out += [f"## {md_text(server['server_id'])}", "",
                f"{_n(len(server['changes']), 'prose change')}, "
                f"{server['security_relevant']} security-relevant.", ""]
        for c in server["changes"]:
            flag = "**security-relevant** " if c["security_relevant"] else ""
            out.append(f"- {flag}`{c['rule']}` {md_text(c['entity'] or '(server)')}, "
                       f"{md_text(c['old_version'])} -> {md_text(c['new_version'])}: `{c['verdict']}`")
            out.append(f"  - old: {md_text(_one_line(c['old']))}")
            out.append(f"  - new: {md_text(_one_line(c['new']))}")
            out += [f"  - {md_text(line)}" for line in _change_notes(c)]
        out.append("")
    return "\n".join(out)


RANKED = 100   # rows of the HTML page's ranked table


def _threshold():
    from mcpdelta.judge.offline import THRESHOLD

    return THRESHOLD


def page(report) -> str:
    e = html_text
    out = ["<h1>mcpdelta description drift</h1>",
           f"<p>Engine <code>{e(report['engine'])}</code>, policy <code>{e(report['policy'])}</code>: "
           f"{e(_headline(report))}; {e(_voters(report))}. "
           "Judge notes are advisory: they never change a severity.</p>"]
    if not report["servers"]:
        out.append("<p>No prose changed.</p>")
    else:
        out += [f"<h2>The {RANKED} largest moves</h2>",
                "<p>Security flags first, then rewrites by the offline judge's semantic distance (0: the "
                f"same meaning; it calls the meaning moved from {_threshold()}), then texts added or "
                "removed; beside it the engine's character similarity (100: the same characters).</p>",
                "<table><tr><th>#</th><th>server</th><th>release</th><th>rule / entity</th>"
                "<th>measures</th><th>text</th><th>judges</th></tr>"]
        for rank, (server_id, c) in enumerate(ranked(report)[:RANKED], 1):
            out.append(_html_row(c, f"<td>{rank}</td><td>{e(server_id)}</td>", ""))
        out.append("</table>")
    for server in report["servers"]:
        out += [f"<h2>{e(server['server_id'])}</h2>",
                "<table><tr><th>release</th><th>rule / entity</th><th>verdict</th>"
                "<th>measures</th><th>text</th><th>judges</th></tr>"]
        for c in server["changes"]:
            verdict = e(c["verdict"] or "") + ("<br><b>security-relevant</b>" if c["security_relevant"] else "")
            out.append(_html_row(c, "", f"<td>{verdict}</td>"))
        out.append("</table>")
    return pages.single_file("mcpdelta description drift", "\n".join(out))


def _html_row(c, lead, verdict):
    """One change as a table row: ``lead`` cells before its release (the
    ranking's), ``verdict``'s cell after its rule (a server's table)."""
    e = html_text
    notes = "".join(f"<li>{e(line)}</li>" for line in _change_notes(c))
    row_class = ' class="sec"' if c["security_relevant"] else ""
    return (f"<tr{row_class}>{lead}"
            f"<td>{e(c['old_version'] or '')} &rarr; {e(c['new_version'] or '')}</td>"
            f"<td><code>{e(c['rule'])}</code><br>{e(c['entity'] or '(server)')}</td>{verdict}"
            f"<td>{e(_measures(c))}</td>"
            f"<td><div class=\"old\">old: {e(_one_line(c['old'], 1000))}</div>"
            f"<div class=\"new\">new: {e(_one_line(c['new'], 1000))}</div></td>"
            f"<td><ul>{notes}</ul></td></tr>")
