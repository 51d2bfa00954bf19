"""The survey report: Markdown and one self-contained HTML page.

Every number comes from a query under ``sql/``; plots are matplotlib SVG
inlined in the page (no script, no network), so the file opens offline.
"""

import html
import io
import pathlib

from pipeline.engine.catalog import SEVERITIES

SQL = pathlib.Path(__file__).resolve().parents[2] / "sql"
COLOURS = {"BREAKING": "#c62828", "POTENTIALLY_BREAKING": "#ef6c00",
           "NON_BREAKING": "#2e7d32", "DOCUMENTATION": "#1565c0"}


def query(con, name: str, params=None) -> list:
    """Rows of ``sql/<name>.sql`` as dicts."""
    cursor = con.execute((SQL / f"{name}.sql").read_text(), params or {})
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row)) for row in cursor.fetchall()]


def gather(con) -> dict:
    totals = {s: 0 for s in SEVERITIES}
    suppressed = 0
    for row in query(con, "severity_totals"):
        totals[row["severity"]] = row["changes"]
        suppressed += row["suppressed"]
    return {
        "changes": {**totals, "suppressed": suppressed},
        "rules": query(con, "rule_frequencies"),
        "breaking": query(con, "breaking_changes"),
        "by_version": query(con, "breaking_by_version"),
    }


def write_report(con, folder, engine, policy_id) -> dict:
    """Write survey.md and survey.html into ``folder``; return the facts."""
    import os

    facts = gather(con)
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    facts["engine"], facts["policy"] = engine, policy_id
    for name, text in (("survey.md", markdown(facts)), ("survey.html", page(facts))):
        temporary = folder / f".{name}.tmp"
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, folder / name)
    facts["markdown"], facts["html"] = folder / "survey.md", folder / "survey.html"
    return facts


def markdown(facts) -> str:
    out = ["# mcpdelta survey", "", f"Engine `{facts['engine']}`, policy `{facts['policy']}`.", "",
           "| Severity | Changes |", "| --- | ---: |"]
    out += [f"| `{k}` | {v} |" for k, v in facts["changes"].items()]
    out += ["", "## Breaking changes", ""]
    if facts["breaking"]:
        out += ["| Server | From | To | Rule | Entity |", "| --- | --- | --- | --- | --- |"]
        out += [f"| {b['server_id']} | {b['old_version']} | {b['new_version']} | `{b['rule']}` | "
                f"{b['entity'] or '(server)'} |" for b in facts["breaking"]]
    else:
        out.append("None found.")
    out += ["", "## Rule frequencies", "", "| Rule | Severity | Changes | Servers |",
            "| --- | --- | ---: | ---: |"]
    out += [f"| `{r['rule']}` | {r['severity']} | {r['changes']} | {r['servers']} |"
            for r in facts["rules"]]
    return "\n".join(out) + "\n"


def _svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def rule_plot(facts):
    """Horizontal bars: changes per rule, stacked by severity."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    by_rule = {}
    for row in facts["rules"]:
        by_rule.setdefault(row["rule"], {})[row["severity"]] = row["changes"]
    rules = sorted(by_rule, key=lambda r: (sum(by_rule[r].values()), r))[-25:]
    figure, axis = plt.subplots(figsize=(9, 0.35 * max(len(rules), 3) + 1.2))
    left = [0] * len(rules)
    for severity in SEVERITIES:
        counts = [by_rule[r].get(severity, 0) for r in rules]
        axis.barh(rules, counts, left=left, color=COLOURS[severity], label=severity)
        left = [a + b for a, b in zip(left, counts)]
    axis.set_xlabel("changes")
    axis.set_title("Rule frequencies by severity")
    axis.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    return figure


def versions_plot(facts):
    """One line per server: breaking changes shipped at each release."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    servers = {}
    for row in facts["by_version"]:
        servers.setdefault(row["server_id"], []).append(row)
    figure, axis = plt.subplots(figsize=(9, 4))
    for server, rows in sorted(servers.items()):
        axis.plot(range(len(rows)), [r["breaking"] for r in rows], marker="o", label=server)
        for i, r in enumerate(rows):
            axis.annotate(r["version"], (i, r["breaking"]), textcoords="offset points",
                          xytext=(0, 6), ha="center", fontsize="x-small")
    axis.set_xlabel("release (in version order)")
    axis.set_ylabel("breaking changes")
    axis.set_title("Breaking changes per server over versions")
    if servers:
        axis.legend(fontsize="small")
    figure.tight_layout()
    return figure


def page(facts) -> str:
    from matplotlib import pyplot as plt

    plots = []
    for build in (rule_plot, versions_plot):
        figure = build(facts)
        plots.append(_svg(figure))
        plt.close(figure)
    rows = "".join(
        f"<tr><td>{html.escape(b['server_id'])}</td><td>{html.escape(str(b['old_version']))}</td>"
        f"<td>{html.escape(str(b['new_version']))}</td><td><code>{html.escape(b['rule'])}</code></td>"
        f"<td>{html.escape(b['entity'] or '(server)')}</td><td>{html.escape(b['message'])}</td></tr>"
        for b in facts["breaking"])
    totals = "".join(f"<tr><td><code>{k}</code></td><td>{v}</td></tr>"
                     for k, v in facts["changes"].items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcpdelta survey</title>
<style>body{{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.25em .5em;text-align:left}}
svg{{max-width:100%;height:auto}}</style></head><body>
<h1>mcpdelta survey</h1>
<p>Engine <code>{html.escape(facts['engine'])}</code>, policy <code>{html.escape(facts['policy'])}</code>.</p>
<table><tr><th>Severity</th><th>Changes</th></tr>{totals}</table>
<h2>Rule frequencies</h2>{plots[0]}
<h2>Breaking changes over versions</h2>{plots[1]}
<h2>Breaking changes</h2>
<table><tr><th>Server</th><th>From</th><th>To</th><th>Rule</th><th>Entity</th><th>Message</th></tr>{rows}</table>
</body></html>
"""
