"""``mcpdelta ci --servers FILE --baseline DIR|LOCKFILE``: the one command a
CI job runs.

Captures each live server of the servers file, compares it with its
committed baseline (``DIR/<server-id>.json``, or a tool-versions lockfile for
a single server; ``--baseline-at REV`` reads it as committed at REV, such as
``merge-base(origin/main)``) and reports. Approved breaks
(``mcpdelta.gate.approvals``) show but never fail; ``--fail-on-security`` fails
on a change a judge flagged. Under GitHub Actions (the variables it sets)
it also writes a job summary, annotations within GitHub's limits and step
outputs; ``--sarif`` writes one SARIF 2.1.0 log for code scanning.

Exit status: 0 every server below the failure threshold, 1 at least one at
or above it (or ``--fail-on-security`` without a judge's answer), 2 "could
not check": a server that could not be captured, a missing baseline, an id
that cannot name a baseline file, or bad usage (each server is still
checked; the others are still reported, and the step outputs are still
written). ``--update-baseline`` prints each BREAKING change it accepts,
then writes.
"""

import json
import os
import sys

from mcpdelta.commands import options
from mcpdelta.errors import InputError

# a PR comment or job summary holds 65,536 characters: keep well under it
MARKDOWN_BUDGET = 60_000
SEVERITIES = ("BREAKING", "POTENTIALLY_BREAKING", "NON_BREAKING", "DOCUMENTATION")


def add_arguments(parser):
    parser.add_argument("--servers", metavar="FILE", required=True, help="servers file of the live servers")
    parser.add_argument("--baseline", metavar="DIR|LOCKFILE", required=True,
                        help="folder of <server-id>.json baselines, or a tool-versions lockfile (one server)")
    parser.add_argument("--server", metavar="ID", action="append", default=[],
                        help="check only this server (repeatable; default: every server of the file)")
    parser.add_argument("--baseline-at", metavar="REV",
                        help="read the baselines as committed at REV instead of the working tree; "
                             "merge-base(REF) is where HEAD left REF (a pull request's base: "
                             "merge-base(origin/main))")
    parser.add_argument("--update-baseline", action="store_true",
                        help="after review: rewrite the baselines from the live capture")
    options.add_config(parser, if_present=True)
    options.add_profile(parser)
    options.add_fail_on(parser)
    options.add_severity_override(parser)
    options.add_witness(parser, "witness threshold")
    parser.add_argument("--sarif", metavar="FILE", help="write a SARIF 2.1.0 log here")
    parser.add_argument("--markdown", metavar="FILE",
                        help="write the Markdown report (the job summary's text) here")
    parser.add_argument("--offline", action="store_true",
                        help="install package sweeps from the local cache only")
    options.add_allow_destructive_probes(
        parser, help="let probes call tools annotated destructiveHint: true or not annotated "
                     "readOnlyHint: true (refused by default: a pull request can change the probes)")
    options.add_semantic(parser)
    options.add_gate(parser)


class Checked:
    """One server's outcome: a DiffResult, or the error that stopped it.
    ``baseline_path`` is the file in the repository (read from the working
    tree, or as committed at --baseline-at)."""

    def __init__(self, server_id, baseline_path, result=None, error=None, updated=False):
        self.server_id, self.baseline_path = server_id, baseline_path
        self.result, self.error, self.updated = result, error, updated


def run(args) -> int:
    """The check; whatever stops it before the report still sets the step
    outputs to ``verdict=error``, and a failure of mcpdelta itself exits 2
    ("could not check"), never 1 ("breaking")."""
    try:
        return _run(args)
    except InputError:
        _outputs("error", "none", [], dict.fromkeys(SEVERITIES, 0))
        raise
    except Exception:  # noqa: BLE001 - a bug in mcpdelta is not a breaking change
        import traceback

        traceback.print_exc(file=sys.stderr)
        _outputs("error", "none", [], dict.fromkeys(SEVERITIES, 0))
        print("mcpdelta ci: internal error: could not check", file=sys.stderr)
        return 2


def _run(args) -> int:
    from mcpdelta.commands.diff import finish_approvals, load_approvals, security_unanswered
    from mcpdelta.config import find_default, load_config
    from mcpdelta.engine.policy import Policy, parse_override, parse_severity

    config = load_config(args.config or find_default())
    approvals = load_approvals(args)
    fail_on = parse_severity(args.fail_on, "--fail-on", allow_never=True) if args.fail_on else None
    policy = Policy(config.profile, config.fail_on, config.overrides, config.ignores,
                    cli_profile=args.profile, cli_fail_on=fail_on,
                    cli_overrides=dict(parse_override(t) for t in args.severity_override),
                    witness=parse_severity(args.witness, "--witness", allow_never=True))
    ids = _server_ids(args.servers, args.server)
    at = None
    if args.baseline_at:
        if args.update_baseline:
            raise InputError("--baseline-at", "reads committed baselines; --update-baseline writes the working tree's")
        from mcpdelta.gate.baselines import resolve

        at = (args.baseline_at, resolve(args.baseline_at, "--baseline-at"))
    lockfile = args.baseline.endswith((".yaml", ".yml")) if at else not os.path.isdir(args.baseline) and (
        os.path.isfile(args.baseline) or args.baseline.endswith((".yaml", ".yml")))
    if lockfile and len(ids) != 1:
        raise InputError(args.baseline, f"a lockfile baseline pins one server; {len(ids)} selected "
                                        "(name one with --server ID, or give a folder of <server-id>.json)")
    if not lockfile and not at and not os.path.isdir(args.baseline):
        if not args.update_baseline:
            raise InputError(args.baseline, "no such baseline folder or lockfile")
        os.makedirs(args.baseline, exist_ok=True)
    checked = [_check(server_id, args, policy, lockfile, at, config, approvals) for server_id in ids]
    _report(checked, args, policy, approvals)
    results = [c.result for c in checked if c.result]
    approved = finish_approvals(args, approvals, results)
    if any(c.error for c in checked):
        return 2
    unanswered = security_unanswered(args, results)
    if approved is not None:
        return max(approved, unanswered)
    return max(unanswered, 1 if any(r.verdict == "fail" for r in results) else 0)


def _server_ids(servers_file: str, chosen: list[str]) -> list[str]:
    from mcpdelta.crawl.servers import load

    targets, _ = load(servers_file)
    ids = list(dict.fromkeys(t.id for t in targets))  # a sweep's versions share one id
    for server_id in chosen:
        if server_id not in ids:
            raise InputError(servers_file, f"no server with id {server_id!r}")
    return [i for i in ids if i in chosen] if chosen else ids


def _check(server_id: str, args, policy, lockfile: bool, at, config, approvals) -> Checked:
    """One server's outcome; whatever goes wrong is that server's error
    ("could not check"), never the run's end nor a "breaking" status."""
    try:
        return _compare(server_id, args, policy, lockfile, at, config, approvals)
    except InputError as exc:  # an id that cannot name a baseline file, say
        return Checked(server_id, args.baseline, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - a bug must read "could not check", not "breaking"
        import traceback

        traceback.print_exc(file=sys.stderr)
        return Checked(server_id, args.baseline,
                       error=f"server {server_id}: internal error: {type(exc).__name__}: {exc}")


def _compare(server_id: str, args, policy, lockfile: bool, at, config, approvals) -> Checked:
    from mcpdelta.crawl.live import capture_live
    from mcpdelta.engine.result import DiffResult
    from mcpdelta.gate.verdict import close
    from mcpdelta.names import path_in

    path = args.baseline if lockfile else path_in(args.baseline, server_id, ".json", what="server id")
    try:
        if args.update_baseline:
            live = capture_live(args.servers, server_id, offline=args.offline,
                                allow_destructive_probes=args.allow_destructive_probes)
            _say_overwritten(server_id, path, live, lockfile, policy)
            _write_baseline(path, live, lockfile, server_id)
            return Checked(server_id, path, updated=True)
        baseline, pinned_calls = _read_baseline(path, lockfile, at)
        # a lockfile's pinned probes are called again, as verify-lock does
        live = capture_live(args.servers, server_id, offline=args.offline, probes=pinned_calls or None,
                            allow_destructive_probes=args.allow_destructive_probes)
        source = f"git:{at[0]}:{path}" if at else path
        result = DiffResult(baseline, live, policy, old_source=source, new_source=f"live:{server_id}")
        from mcpdelta.witness import attach_witnesses  # proofs: an unproven BREAKING claim is demoted

        attach_witnesses(result, min_severity=policy.witness)
        if args.semantic:
            from mcpdelta.judge import annotate  # advisory notes; severities untouched

            annotate(result, config)
        close(result, approvals, fail_on_security=args.fail_on_security)
        return Checked(server_id, path, result=result)
    except InputError as exc:
        return Checked(server_id, path, error=str(exc))


def _say_overwritten(server_id: str, path: str, live: dict, lockfile: bool, policy) -> None:
    """Before ``--update-baseline`` writes: each BREAKING change it accepts
    (what the old baseline promised and the live server no longer does)."""
    from mcpdelta.engine.result import DiffResult
    from mcpdelta.safe import visible

    if not os.path.exists(path):
        print(visible(f"{server_id}: no baseline at {path} yet: nothing overwritten"))
        return
    try:
        baseline, _ = _read_baseline(path, lockfile)
    except InputError as exc:
        print(visible(f"{server_id}: the old baseline is unreadable, overwritten: {exc}"))
        return
    result = DiffResult(baseline, live, policy, old_source=path, new_source=f"live:{server_id}")
    breaking = [c for c in result.changes if not c.suppressed and c.severity == "BREAKING"]
    print(visible(f"{server_id}: --update-baseline accepts {len(breaking)} BREAKING "
                  f"change{'' if len(breaking) == 1 else 's'} of {len(result.changes)} over {path}"
                  + (":" if breaking else "")))
    for c in breaking:
        print(visible(f"  accepted BREAKING {c.rule}: {c.message}"))


def _read_baseline(path: str, lockfile: bool, at=None) -> tuple[dict, list]:
    """The baseline manifest, and the probe calls to make live (a lockfile's
    pinned ones); ``at`` (REV as written, commit): as committed there."""
    if not lockfile:
        from mcpdelta.engine.manifest import DEFAULT_MAX_BYTES, parse_manifest, read_manifest

        if at:
            from mcpdelta.gate.baselines import read_at

            where = f"git:{at[0]}:{path}"
            return parse_manifest(read_at(at[1], path, DEFAULT_MAX_BYTES, where, at[0]), where), []
        if not os.path.exists(path):
            raise InputError(path, "no baseline for this server (write one with --update-baseline)")
        return read_manifest(path), []
    from mcpdelta.gate.lockfile import parse_lockfile, read_lockfile
    from mcpdelta.gate.lockprobes import probes_to_run

    if at:
        from mcpdelta.gate.baselines import read_at
        from mcpdelta.inputs import DEFAULT_LIMIT, load_yaml

        where = f"git:{at[0]}:{path}"
        text = read_at(at[1], path, DEFAULT_LIMIT, where, at[0]).decode("utf-8", "replace")
        lock = parse_lockfile(load_yaml(text, where), where)
    else:
        lock = read_lockfile(path)
    if any(entry.contract is None for entry in lock.tools.values()):
        raise InputError(path, "the lockfile pins digests only (written with --no-contract); "
                               "ci compares contracts: lock again without --no-contract")
    baseline = {"tools": [lock.tools[name].contract for name in sorted(lock.tools)]}
    pinned = [p.as_probe() for name in sorted(lock.tools) for p in lock.tools[name].probes]
    if pinned:
        baseline["probes"] = pinned
    return baseline, probes_to_run(lock)


def _write_baseline(path: str, live: dict, lockfile: bool, server_id: str) -> None:
    from mcpdelta.gate import lockfile as L

    if not lockfile:
        L.write_text(path, json.dumps(live, indent=2, ensure_ascii=False) + "\n")
        return
    semvers = {}
    if os.path.exists(path):  # pins carry over, each bumped by the grade of its drift
        lock = L.read_lockfile(path)
        semvers = {d.name: _bumped(d.semver, d.grade) for d in L.compare(lock, live) if d.semver}
    info = live.get("serverInfo") if isinstance(live.get("serverInfo"), dict) else {}
    L.write_text(path, L.dump_lockfile(L.build_lockfile(live, info.get("name") or server_id, semvers)))


def _bumped(semver: str, grade: str | None) -> str:
    major, minor, patch = (int(p) for p in semver.split("-")[0].split("+")[0].split(".")[:3])
    if grade == "major":
        return f"{major + 1}.0.0"
    if grade == "minor":
        return f"{major}.{minor + 1}.0"
    if grade == "patch":
        return f"{major}.{minor}.{patch + 1}"
    return semver


# --- reporting -------------------------------------------------------------------

def _counts(checked) -> dict:
    counts = dict.fromkeys(SEVERITIES, 0)
    for c in checked:
        if c.result:
            for severity in SEVERITIES:
                counts[severity] += sum(1 for ch in c.result.changes
                                        if not ch.suppressed and ch.severity == severity)
    return counts


def _overall(checked) -> tuple[str, str]:
    from mcpdelta.gate.lockfile import RANK

    results = [c.result for c in checked if c.result]
    grade = max((r.grade for r in results), key=RANK.__getitem__, default="none")
    if any(c.error for c in checked):
        return "error", grade
    return ("fail" if any(r.verdict == "fail" for r in results) else "pass"), grade


def _report(checked, args, policy, approvals=None) -> None:
    from mcpdelta.report import render

    from mcpdelta.safe import visible

    github = os.environ.get("GITHUB_ACTIONS") == "true"
    for c in checked:
        if c.error:
            print(f"mcpdelta: error: {visible(c.error)}", file=sys.stderr)
        elif c.updated:
            print(visible(f"{c.server_id}: wrote baseline {c.baseline_path}"))
        else:  # one line: an id cannot start a workflow command on the next
            print(visible(f"== {c.server_id}: {c.result.old_source} -> live:{c.server_id}"))
            sys.stdout.write(render("text", c.result))
    stale = approvals.stale() if approvals is not None else []
    if github:
        sys.stdout.write(annotations(checked, approvals))
    verdict, grade = _overall(checked)
    counts = _counts(checked)
    _outputs(verdict, grade, checked, counts, len(stale))  # first: a later file that cannot be written leaves them set
    markdown = summary_markdown(checked, verdict, grade, counts, approvals=approvals)
    if args.markdown:
        _write(args.markdown, markdown)
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        _write(os.environ["GITHUB_STEP_SUMMARY"], markdown, append=True)
    if args.sarif:
        _write(args.sarif, sarif(checked))
    print(f"mcpdelta ci: {len(checked)} server{'' if len(checked) == 1 else 's'}; {verdict}; grade {grade}; "
          + ", ".join(f"{n} {s}" for s, n in counts.items()))


def _outputs(verdict, grade, checked, counts, stale: int = 0) -> None:
    """The step outputs, when GitHub Actions asks for them (``$GITHUB_OUTPUT``)."""
    if not os.environ.get("GITHUB_OUTPUT"):
        return
    from mcpdelta.gate.verdict import of

    approved = sum(of(c.result).counts(c.result.changes)["approved"] for c in checked if c.result)
    lines = [f"verdict={verdict}", f"grade={grade}", f"servers={len(checked)}",
             f"errors={sum(1 for c in checked if c.error) or int(verdict == 'error')}",
             f"approved={approved}", f"stale={stale}"]
    lines += [f"{s.lower()}={n}" for s, n in counts.items()]
    _write(os.environ["GITHUB_OUTPUT"], "\n".join(lines) + "\n", append=True)


def annotations(checked, approvals=None) -> str:
    """GitHub workflow commands for every server, within GitHub's limits of
    each kind per step, then one line saying how many were left out; a
    stale approval is a warning at its line of the approvals file."""
    from mcpdelta.report.github_format import annotation_lines, cap
    from mcpdelta.safe import workflow_message, workflow_property

    found = []
    for c in checked:
        if c.error:
            found.append(("error", f"::error title=mcpdelta ci::{workflow_message(c.error)}"))
        elif c.result:
            found.extend(annotation_lines(c.result, source=c.baseline_path))
    for a in approvals.stale() if approvals is not None else []:
        text = f"{a.fingerprint} ({a.rule} {a.entity}) matches no change; delete it"
        found.append(("warning", f"::warning file={workflow_property(approvals.path)},line={a.line},"
                                 f"title=stale approval::{workflow_message(text)}"))
    lines, left = cap(found)
    if left:
        lines.append(f"::notice title=mcpdelta ci::{left}: see the job summary or the SARIF log")
    return "".join(line + "\n" for line in lines)


def summary_markdown(checked, verdict: str, grade: str, counts: dict,
                     budget: int = MARKDOWN_BUDGET, approvals=None) -> str:
    """The job summary: one table of every server first, then each server's
    report, cut to ``budget`` characters with a line that says what was left out."""
    from mcpdelta.report import render
    from mcpdelta.safe import html_text, md_code, md_text

    head = ["## mcpdelta ci", "", f"**{verdict}** · grade **{grade}** · "
            + " · ".join(f"{n} `{s}`" for s, n in counts.items()), "",
            "| Server | Verdict | Grade | " + " | ".join(f"`{s}`" for s in SEVERITIES) + " |",
            "| --- | --- | --- |" + " ---: |" * len(SEVERITIES)]
    for c in checked:
        if c.result:
            n = [sum(1 for ch in c.result.changes if not ch.suppressed and ch.severity == s) for s in SEVERITIES]
            head.append(f"| {md_code(c.server_id)} | {c.result.verdict} | {c.result.grade} | "
                        + " | ".join(map(str, n)) + " |")
        else:
            state = "baseline written" if c.updated else f"error: {md_text(c.error)}"
            head.append(f"| {md_code(c.server_id)} | {state} | | " + " | ".join("" for _ in SEVERITIES) + " |")
    from mcpdelta.gate.approvals import stale_lines

    stale = stale_lines(approvals)
    if stale:
        head += ["", f"**{len(stale)} stale approval{'s' if len(stale) != 1 else ''}** (no change matches; delete):"]
        head += [f"- {md_text(line)}" for line in stale]
    text = "\n".join(head) + "\n"
    sections = [(c.server_id, render("markdown", c.result)) for c in checked if c.result]
    for i, (server_id, body) in enumerate(sections):
        section = (f"\n<details{' open' if i == 0 else ''}><summary>{html_text(server_id)}</summary>"
                   f"\n\n{body}\n</details>\n")
        if len(text) + len(section) <= budget - 400:
            text += section
            continue
        room = budget - 400 - len(text)
        kept = section[:max(room, 0)].rsplit("\n", 1)[0] if room > 0 else ""
        left_lines = section.count("\n") - kept.count("\n")
        text += kept + ("\n\n</details>\n" if kept else "")
        later = len(sections) - i - 1
        text += (f"\n> mcpdelta: report cut to fit a GitHub comment: {left_lines} more lines of "
                 f"{md_code(server_id)}" + (f" and {later} more server{'' if later == 1 else 's'}" if later else "")
                 + " left out; every change is in the job log and the SARIF log.\n")
        break
    return text


def sarif(checked) -> str:
    """One SARIF 2.1.0 log, one run per compared server, located at its baseline file."""
    from mcpdelta.report import render

    log = None
    for c in checked:
        if not c.result:
            continue
        source = c.result.new_source
        c.result.new_source = c.baseline_path  # code scanning points at a file in the repository
        try:
            doc = json.loads(render("sarif", c.result))
        finally:
            c.result.new_source = source
        for run in doc["runs"]:
            run.setdefault("properties", {})["server"] = c.server_id
        if log is None:
            log = doc
        else:
            log["runs"].extend(doc["runs"])
    if log is None:
        from mcpdelta.report.sarif_format import empty_log

        log = empty_log()
    from mcpdelta.safe import json_text

    return json_text(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"


def _write(path: str, text: str, append: bool = False) -> None:
    """A report file written whole, or a runner's file appended to; never
    through a symbolic link (``mcpdelta.files``)."""
    from mcpdelta.files import open_append, write_file

    try:
        if append:
            with open_append(path) as handle:
                handle.write(text)
        else:
            write_file(path, text)
    except OSError as exc:
        raise InputError(path, f"cannot write: {exc.strerror or exc}") from None
