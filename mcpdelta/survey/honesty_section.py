"""The study's *Semver honesty* section: did the version number admit the
break? Counted steps by numbering scheme and declared bump, from
``honesty.sql``; this module only lays the rows out."""

from mcpdelta.survey import cells


SCHEMES = {
    "semver": "semver from 1.0.0: a patch or minor bump promises compatibility",
    "initial": "0.y.z, initial development: read as Cargo reads it (0.y -> 0.y+1 and 0.0.z -> 0.0.z+1 "
               "may break), the reading the Rust ecosystem's semver study used",
    "calver": "calendar versions (a year as the major number): the number is a date and promises "
              "nothing, so these steps are counted apart and never called dishonest",
    "other": "versions that are not numbers: nothing declared",
}


def honesty(rows) -> str:
    lines = ["## Semver honesty", "",
             "Did the version number admit the break? `honesty.sql`: counted steps by numbering scheme "
             "and declared bump; *dishonest*: the declared bump is below the grade the changes earned "
             "(a break needs a major bump, an addition a minor one). *Quiet breaks* read the number "
             "literally: breaking steps where only the minor or patch number moved, which is what a "
             "reader of `0.0.41 -> 0.0.42` sees (semver-numbered steps only). Each count of steps that "
             "broke a caller is given as *proven / any*: the steps with a proven break, then those with "
             "any break.", "",
             "| Scheme | Declared | Steps | Broke a caller: proven / any | Dishonest | Broke under a "
             "compatible bump: proven / any | Quiet breaks: proven / any |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows["honesty"]:
        scheme = "**all**" if r["scheme"] is None else (f"**{r['scheme']}**" if r["declared"] is None
                                                         else r["scheme"])
        declared = "" if r["declared"] is None else r["declared"]
        quiet = (f"{cells.share(r['proven_quiet_breaks'], r['proven_quiet_breaks_pct'])} / {r['quiet_breaks']} "
                 f"of {r['semver_steps']}" if r["semver_steps"] else "")
        lines.append(f"| {scheme} | {declared} | {r['steps']} | {r['proven_breaking_steps']} / "
                     f"{r['breaking_steps']} | {r['dishonest']} | "
                     f"{cells.share(r['proven_breaking_dishonest'], r['proven_breaking_dishonest_pct'])} / "
                     f"{r['breaking_dishonest']} | {quiet} |")
    seen = [r["scheme"] for r in rows["honesty"] if r["scheme"] and r["declared"] is None]
    lines += [""] + [f"- *{s}*: {SCHEMES[s]}." for s in seen if s in SCHEMES]
    spanning = everything_row(rows["honesty"]).get("quiet_breaks_spanning")
    if spanning:
        lines += ["", f"Of the quiet breaks, {spanning} span a version that could not be captured, so "
                  "the break may have shipped in that version instead."]
    if "semver" not in seen and seen:
        lines += ["", "No counted step is numbered from 1.0.0 on: by semver's own rules these servers "
                  "never promised compatibility, so a caller cannot read safety from their version "
                  "numbers and has only the contract to go on."]
    return "\n".join(lines)


def everything_row(honesty) -> dict:
    return next((r for r in honesty if r["scheme"] is None and r["declared"] is None), {})
