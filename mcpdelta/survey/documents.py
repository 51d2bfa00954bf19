"""The survey report: ``survey.md`` and ``survey.html``, one page of its own.

Every number comes from a query under ``sql/``; the figures
(``survey/report.py``) are matplotlib SVG inlined in the page (no script,
no network), so the file opens offline.
"""

import hashlib
import io
import pathlib

from mcpdelta import pages, progress
from mcpdelta.engine.catalog import SEVERITIES
from mcpdelta.files import write_file
from mcpdelta.safe import html_text, md_code, md_text
from mcpdelta.survey.queries import query
from mcpdelta.survey.report import ALL_PLOTS, PLOTS, render


def gather(con, plots=ALL_PLOTS) -> dict:
    totals = {s: 0 for s in SEVERITIES}
    suppressed = 0
    for row in query(con, "severity_totals"):
        totals[row["severity"]] = row["changes"]
        suppressed += row["suppressed"]
    rows = {}
    for name in ("rule_frequencies", "breaking_changes", "breaking_by_version",
                 "breaking_by_release", *(q for p in plots for q in PLOTS[p].queries)):
        if name not in rows:
            rows[name] = query(con, name)
    return {
        "changes": {**totals, "suppressed": suppressed},
        "rules": rows["rule_frequencies"],
        "breaking": rows["breaking_changes"],
        "by_version": rows["breaking_by_version"],
        "rows": rows,
        "plots": tuple(plots),
    }


# Beside the two files: what they were drawn from. A re-run that gathers the
# same facts, drawn by the same code, finds both files as written and draws
# no figure again (the figures are most of a cached survey's time).
DRAWN_FROM = ".survey-drawn-from"


def write_report(con, folder, engine, policy_id, plots=ALL_PLOTS) -> dict:
    """Write survey.md and survey.html into ``folder``; return the facts.
    ``plots`` names the figures the page carries (see ``PLOTS``)."""
    facts = gather(con, plots)
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    facts["engine"], facts["policy"] = engine, policy_id
    files = folder / "survey.md", folder / "survey.html"
    digest = hashlib.sha256(repr(facts).encode() + _drawing_code()).hexdigest()
    if _drawn_from(folder, files) != digest:
        for path, text in zip(files, (markdown(facts), page(facts))):
            write_file(path, text)
        sizes = " ".join(str(path.stat().st_size) for path in files)
        write_file(folder / DRAWN_FROM, f"{digest} {sizes}\n")
    facts["markdown"], facts["html"] = files
    return facts


def _drawn_from(folder, files):
    """The digest the two files were drawn from, while both are as written."""
    try:
        digest, *sizes = (folder / DRAWN_FROM).read_text(encoding="utf-8").split()
        if sizes == [str(path.stat().st_size) for path in files]:
            return digest
    except (OSError, UnicodeDecodeError):
        pass
    return None


def _drawing_code() -> bytes:
    """What draws the pages: this module, the figures', the page shell, and
    the plotting library's version (its SVG changes with it)."""
    from importlib.metadata import PackageNotFoundError, version

    sources = [pathlib.Path(__file__), pathlib.Path(render.__code__.co_filename),
               *sorted(pathlib.Path(pages.__file__).parent.iterdir())]
    try:
        plotting = version("matplotlib")
    except PackageNotFoundError:
        plotting = "none"
    return b"".join(p.read_bytes() for p in sources if p.is_file()) + plotting.encode()


def _under_bumped(facts) -> list:
    return [r for r in facts.get("rows", {}).get("semver_honesty", []) if r["honest"] is False]


def markdown(facts) -> str:
    """survey.md: every value from the lake through ``md_text`` / ``md_code``
    (a server chose the names and versions it shows)."""
    t = md_text
    out = ["# mcpdelta survey", "", f"Engine {md_code(facts['engine'])}, policy {md_code(facts['policy'])}.", "",
           "| Severity | Changes |", "| --- | ---: |"]
    out += [f"| `{k}` | {v} |" for k, v in facts["changes"].items()]
    out += ["", "## Breaking changes", ""]
    by_release = facts["rows"]["breaking_by_release"]
    if by_release:
        out += ["Per release and rule; *witnessed*: proved by a concrete call or result "
                "(`mcpdelta diff` shows each witness).", "",
                "| Server | From | To | Rule | Changes | Witnessed | Entities |",
                "| --- | --- | --- | --- | ---: | ---: | --- |"]
        out += [f"| {t(r['server_id'])} | {t(r['old_version'])} | {t(r['new_version'])} | `{r['rule']}` | "
                f"{r['changes']} | {r['witnessed']} | {t(_entities(r['entities']))} |" for r in by_release]
    else:
        out.append("None found.")
    if "semver_honesty" in facts.get("plots", ()):
        out += ["", "## Under-bumped releases", ""]
        under = _under_bumped(facts)
        if under:
            out += ["| Server | From | To | Declared | Earned |", "| --- | --- | --- | --- | --- |"]
            out += [f"| {t(r['server_id'])} | {t(r['old_version'])} | {t(r['new_version'])} | {r['declared']} | "
                    f"{r['grade']} |" for r in under]
        else:
            out.append("None found.")
    out += ["", "## Rule frequencies", "", "| Rule | Severity | Changes | Servers |",
            "| --- | --- | ---: | ---: |"]
    out += [f"| `{r['rule']}` | {r['severity']} | {r['changes']} | {r['servers']} |"
            for r in facts["rules"]]
    return "\n".join(out) + "\n"


def _entities(names, shown=3) -> str:
    """The first few entities in natural order, then how many more."""
    from mcpdelta.report.view import natural_key

    names = sorted(names, key=natural_key)
    text = ", ".join(str(n) for n in names[:shown])
    return text + (f" +{len(names) - shown} more" if len(names) > shown else "")


def _svg(figure) -> str:
    """The figure as inline SVG, the same bytes for the same figure: no date
    in its metadata, element ids from a fixed salt."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "mcpdelta"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def page(facts) -> str:
    e = html_text  # every value from the lake: a server chose the names and versions
    plots = facts.get("plots", ALL_PLOTS)
    sections = []
    for i, name in enumerate(plots):
        progress.update(f"plot {name}", i, len(plots))
        svg = _svg(render(name, facts))
        sections.append(f'<h2 id="{name}">{e(PLOTS[name].title)}</h2><figure>{svg}'
                        f'<figcaption>{e(PLOTS[name].caption)}</figcaption></figure>')
    rows = "".join(
        f"<tr><td>{e(b['server_id'])}</td><td>{e(str(b['old_version']))}</td>"
        f"<td>{e(str(b['new_version']))}</td><td><code>{e(b['rule'])}</code></td>"
        f"<td>{b['changes']}</td><td>{b['witnessed']}</td><td>{e(_entities(b['entities']))}</td></tr>"
        for b in facts["rows"]["breaking_by_release"])
    totals = "".join(f"<tr><td><code>{k}</code></td><td>{v}</td></tr>"
                     for k, v in facts["changes"].items())
    under = ""
    if "semver_honesty" in plots:
        cells = "".join(
            f"<tr><td>{e(r['server_id'])}</td><td>{e(str(r['old_version']))}</td>"
            f"<td>{e(str(r['new_version']))}</td><td>{e(r['declared'])}</td><td>{e(r['grade'])}</td></tr>"
            for r in _under_bumped(facts))
        under = ("<h2>Under-bumped releases</h2>" + (
            "<table><tr><th>Server</th><th>From</th><th>To</th>"
            f"<th>Declared</th><th>Earned</th></tr>{cells}</table>" if cells else "<p>None found.</p>"))
    return pages.single_file("mcpdelta survey", f"""<h1>mcpdelta survey</h1>
<p>Engine <code>{e(facts['engine'])}</code>, policy <code>{e(facts['policy'])}</code>.</p>
<table><tr><th>Severity</th><th>Changes</th></tr>{totals}</table>
{"".join(sections)}
<h2>Breaking changes</h2>
<p>Per release step and rule; <em>witnessed</em>: proved by a concrete call or result
(<code>mcpdelta diff</code> shows each change and its witness).</p>
<table><tr><th>Server</th><th>From</th><th>To</th><th>Rule</th><th>Changes</th><th>Witnessed</th>
<th>Entities</th></tr>{rows}</table>
{under}""")
