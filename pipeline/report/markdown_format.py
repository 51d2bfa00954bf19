"""Markdown fit for a pull-request comment."""

from pipeline.report import groups, headline, kind_of, witness_text

_ICONS = {"BREAKING": "🔴", "POTENTIALLY_BREAKING": "🟠", "NON_BREAKING": "🟢",
          "DOCUMENTATION": "📝"}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(result, **_) -> str:
    status = "❌ fail" if result.verdict == "fail" else "✅ pass"
    out = [
        "## mcpdelta contract diff",
        "",
        f"**{status}** (fail on `{result.fail_on}`) · grade **{result.grade}** · {headline(result)}",
        "",
        "| Severity | Count |",
        "| --- | ---: |",
    ]
    out += [f"| {_ICONS.get(k, '')} `{k}` | {v} |" for k, v in result.summary.items()]
    for entity, changes in groups(result):
        title = "Server" if entity is None else f"{kind_of(changes[0].path).capitalize()} `{_cell(entity)}`"
        out += ["", f"### {title}", "", "| Severity | Rule | Change | Advice |", "| --- | --- | --- | --- |"]
        for c in changes:
            sev = f"~~`{c.severity}`~~ (suppressed: {_cell(c.suppressed_reason)})" if c.suppressed \
                else f"{_ICONS[c.severity]} `{c.severity}`"
            evidence = witness_text(c)
            proof = f"<br>witness: `{_cell(evidence)}`" if c.witness else (
                f"<br>witness: {_cell(evidence)}" if evidence else "")
            out.append(f"| {sev} | `{c.rule}` | {_cell(c.message)}<br>`{_cell(c.path)}`{proof} | {_cell(c.note)} |")
    return "\n".join(out) + "\n"
