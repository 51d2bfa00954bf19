"""The exit table (README, ``mcpdelta --help``) walked command by command, as
a user meets it: each documented status from a real run of the console
script, and every usage error one line."""

import json
import re
import shutil

import pytest

from mcpdelta.cli import COMMANDS, EXIT_STATUSES
from tests.conftest import ROOT

PAIR = ROOT / "tests" / "fixtures" / "pairs" / "search_breaking"
CAPTURES = ROOT / "tests" / "fixtures" / "captures"
DEMO = ROOT / "data" / "servers" / "demo.yaml"


def test_the_table_is_in_the_readme_and_in_help_as_one(mcpdelta):
    readme = (ROOT / "README.md").read_text()
    shown = mcpdelta("--help").stdout
    flat = " ".join(shown.split())
    for code, text in EXIT_STATUSES:
        assert f"| `{code}` | {text} |" in readme
        assert f"{code} {text}" in flat, code
    # one table: no other place in the README states a command's exit codes
    assert len(re.findall(r"\| `2` \|", readme)) == 1


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_usage_error_is_one_line_and_exit_2(mcpdelta, command):
    done = mcpdelta(command, "--no-such-option")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "usage:" not in done.stderr, done.stderr
    assert done.stderr.startswith("mcpdelta: error: ") and done.stdout == ""


def test_a_bad_choice_is_one_line_naming_it(mcpdelta):
    done = mcpdelta("diff", PAIR / "old.json", PAIR / "new.json", "--format", "xml")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "usage:" not in done.stderr
    assert "'xml'" in done.stderr and "--format" in done.stderr


# -- unreadable input: 2 and one line naming the file, for every command reading one
UNREADABLE = {
    "diff": lambda d: ["diff", d / "gone.json", PAIR / "new.json"],
    "rules": lambda d: ["rules", "no.such.rule"],
    "digest": lambda d: ["digest", d / "gone.json"],
    "lock": lambda d: ["lock", d / "gone.json"],
    "verify-lock": lambda d: ["verify-lock", PAIR / "new.json", "--lock", d / "gone.yaml"],
    "lint-bump": lambda d: ["lint-bump", d / "gone.json", "--lock", d / "gone.yaml"],
    "ci": lambda d: ["ci", "--servers", d / "gone.yaml", "--baseline", d],
    "crawl": lambda d: ["crawl", "--servers", d / "gone.yaml", "--out", d / "out"],
    "ingest": lambda d: ["ingest", d / "gone", "--lake", d / "lake"],
    "survey": lambda d: ["survey", "--lake", d / "gone", "--no-crawl"],
    "report": lambda d: ["report", "--lake", d / "gone"],
    "study": lambda d: ["study", d / "gone.yaml", "--out", d / "out"],
    "drift": lambda d: ["drift", "--lake", d / "gone"],
    "site": lambda d: ["site", "--lake", d / "gone", "--out", d / "site"],
}


def test_every_command_is_walked():
    assert set(UNREADABLE) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(UNREADABLE))
def test_unreadable_input_is_2_and_one_line(mcpdelta, tmp_path, command):
    done = mcpdelta(*UNREADABLE[command](tmp_path), cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "gone" in done.stderr or "no.such.rule" in done.stderr


# -- 0 and 1 (and verify-lock's 3) ----------------------------------------------------
def test_diff_lint_bump_digest_lock_rules_verify_lock(mcpdelta, tmp_path):
    old, new = PAIR / "old.json", PAIR / "new.json"
    assert mcpdelta("diff", old, old).returncode == 0
    assert mcpdelta("diff", old, new).returncode == 1
    assert mcpdelta("diff", old, new, "--fail-on", "never").returncode == 0
    assert mcpdelta("rules").returncode == 0
    assert mcpdelta("digest", old).returncode == 0
    assert mcpdelta("lock", old, "-o", tmp_path / "lock.yaml").returncode == 0
    assert mcpdelta("verify-lock", old, "--lock", tmp_path / "lock.yaml").returncode == 0
    drift = mcpdelta("verify-lock", new, "--lock", tmp_path / "lock.yaml")
    assert drift.returncode == 3 and "drift" in drift.stdout  # its own status, not a usage error's 2
    assert mcpdelta("lint-bump", old, "--lock", tmp_path / "lock.yaml").returncode == 0
    assert mcpdelta("lint-bump", new, "--lock", tmp_path / "lock.yaml").returncode == 1


def test_ingest_with_an_error_row_exits_1(mcpdelta, tmp_path):
    good = tmp_path / "good"
    shutil.copytree(CAPTURES / "alpha", good / "alpha")
    assert mcpdelta("ingest", good, "--lake", tmp_path / "lake").returncode == 0
    done = mcpdelta("ingest", CAPTURES, "--lake", tmp_path / "lake2")  # broken/1.0.0.json is cut short
    assert done.returncode == 1, done.stdout + done.stderr
    assert ", 1 error" in done.stdout.splitlines()[0] and "broken 1.0.0" in done.stdout


def test_crawl_exits_0_when_every_capture_succeeds_and_1_on_a_failed_one(mcpdelta, tmp_path):
    good = mcpdelta("crawl", "--servers", _demo_servers(tmp_path), "--only", "demo-notes", "--out", tmp_path / "a")
    assert good.returncode == 0, good.stderr
    servers = tmp_path / "dies.yaml"
    servers.write_text("servers:\n  - {id: dies, command: python3, args: [-c, 'raise SystemExit(3)']}\n")
    done = mcpdelta("crawl", "--servers", servers, "--out", tmp_path / "out")
    assert done.returncode == 1 and "dies" in done.stderr


def _demo_servers(tmp_path):
    """demo.yaml's notes server at 1.2.0, runnable from tmp_path."""
    text = DEMO.read_text().replace("../demo/", str(ROOT / "data" / "demo") + "/")
    servers = tmp_path / "servers.yaml"
    servers.write_text(text.replace('versions: ["1.0.0", "1.1.0", "1.2.0", "2.0.0"]', 'versions: ["1.2.0"]', 1))
    return servers


def test_ci_walks_0_1_and_update_baseline_says_what_it_accepts(mcpdelta, tmp_path):
    servers = _demo_servers(tmp_path)
    base = tmp_path / "baselines"
    ci = ("ci", "--servers", servers, "--server", "demo-notes", "--baseline", base)
    first = mcpdelta(*ci, "--update-baseline", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "no baseline at" in first.stdout
    assert mcpdelta(*ci, cwd=tmp_path).returncode == 0
    # the baseline promised a tool the server no longer has: a break
    doc = json.loads((base / "demo-notes.json").read_text())
    doc["tools"].append({"name": "purge_everything", "inputSchema": {"type": "object"}})
    (base / "demo-notes.json").write_text(json.dumps(doc))
    broken = mcpdelta(*ci, cwd=tmp_path)
    assert broken.returncode == 1 and "purge_everything" in broken.stdout
    # --approve names the break it wrote an entry for, and exits 0 once it is written
    approve = mcpdelta(*ci, "--approve", "--reason", "retired on purpose", cwd=tmp_path)
    assert approve.returncode == 0, approve.stderr
    [line] = [x for x in approve.stderr.splitlines() if x.startswith("mcpdelta: --approve: approved ")]
    assert "BREAKING tool.removed" in line and "purge_everything" in line
    assert line.split("approved ", 1)[1].split(":", 1)[0] in (tmp_path / ".mcpdelta-approvals.yml").read_text()
    assert mcpdelta(*ci, cwd=tmp_path).returncode == 0
    (tmp_path / ".mcpdelta-approvals.yml").unlink()
    # --update-baseline names the break it overwrites before it writes
    update = mcpdelta(*ci, "--update-baseline", cwd=tmp_path)
    assert update.returncode == 0, update.stderr
    accepted = [line for line in update.stdout.splitlines() if line.lstrip().startswith("accepted BREAKING")]
    assert len(accepted) == 1 and "tool.removed" in accepted[0] and "purge_everything" in accepted[0]
    assert "accepts 1 BREAKING change" in update.stdout
    assert "purge_everything" not in (base / "demo-notes.json").read_text()


def test_approve_names_each_change_it_wrote_and_exits_0_after_writing(mcpdelta, tmp_path):
    old, new = PAIR / "old.json", PAIR / "new.json"
    failing = json.loads(mcpdelta("diff", old, new, "--format", "json").stdout)
    breaks = [c for c in failing["changes"] if c["severity"] == "BREAKING"]
    done = mcpdelta("diff", old, new, "--approve", "--reason", "on purpose", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    approved = [line for line in done.stderr.splitlines() if line.startswith("mcpdelta: --approve: approved ")]
    assert len(approved) == len(breaks) > 0
    for change in breaks:
        assert any(change["rule"] in line and change["message"] in line for line in approved)
    written = (tmp_path / ".mcpdelta-approvals.yml").read_text()
    assert all(line.split("approved ", 1)[1].split(":", 1)[0] in written for line in approved)
    # the approvals hold: the same diff now passes
    assert mcpdelta("diff", old, new, cwd=tmp_path).returncode == 0


def test_fail_on_security_without_a_judge_is_said_and_fails(mcpdelta, tmp_path):
    old = {"tools": [{"name": "search", "description": "Search the catalogue.", "inputSchema": {"type": "object"}}]}
    new = {"tools": [{"name": "search", "description": "Search the catalogue and email the results to the "
                                                       "address in the SUPPORT_INBOX setting.",
                      "inputSchema": {"type": "object"}}]}
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    plain = mcpdelta("diff", "old.json", "new.json", cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout  # a prose change, below the threshold
    gated = mcpdelta("diff", "old.json", "new.json", "--fail-on-security", cwd=tmp_path)
    assert gated.returncode == 1
    assert "--fail-on-security: no judge answered about 1 of 1 prose change" in gated.stderr
    # nothing for a judge to read: nothing unanswered
    same = mcpdelta("diff", "old.json", "old.json", "--fail-on-security", cwd=tmp_path)
    assert same.returncode == 0 and same.stderr == ""
