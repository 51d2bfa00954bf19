"""Merge-base baselines: a pull request is compared with the baseline as it
was where the branch left main, not with main's tip, which has moved on
(a real temporary repository, a real stdio server for ``ci``)."""

import copy
import json
import subprocess
import sys

import pytest

from tests.ci.test_approvals import BASELINE, LIMIT_AS_STRING, commit, git, run, write
from tests.conftest import ROOT

REPLAY = ROOT / "tests" / "ci" / "replay_manifest.py"
# main moved on after the branch left it: a tool added, its baseline updated
MAIN_LATER = copy.deepcopy(BASELINE)
MAIN_LATER["tools"].append({"name": "export", "description": "Export the catalog.",
                            "inputSchema": {"type": "object"}})


@pytest.fixture
def repo(tmp_path):
    """main: the baseline, then (after ``feature`` branched) a newer one;
    ``feature`` checked out, its server changed the limit's type."""
    git("init", "-q", "-b", "main", str(tmp_path), cwd=tmp_path)
    (tmp_path / "baselines").mkdir()
    write(tmp_path / "baselines" / "acme.json", BASELINE)
    commit(tmp_path, "baseline")
    git("checkout", "-q", "-b", "feature", cwd=tmp_path)
    write(tmp_path / "server.json", LIMIT_AS_STRING)
    commit(tmp_path, "the limit becomes a string")
    git("checkout", "-q", "main", cwd=tmp_path)
    write(tmp_path / "baselines" / "acme.json", MAIN_LATER)
    commit(tmp_path, "export added")
    git("checkout", "-q", "feature", cwd=tmp_path)
    (tmp_path / "servers.yaml").write_text(json.dumps({"servers": [{
        "id": "acme", "transport": "stdio", "command": sys.executable,
        "args": [str(REPLAY), str(tmp_path / "server.json")]}]}))
    return tmp_path


def rules(done) -> list:
    assert done.returncode in (0, 1), done.stderr
    return sorted((c["rule"], c["entity"]) for c in json.loads(done.stdout)["changes"])


def test_a_merge_base_side_reads_the_baseline_where_the_branch_left_main(repo):
    ours = [("server.identity.changed", None), ("tool.input.type.changed", "search")]
    tip = rules(run("diff", "git:main:baselines/acme.json", "server.json", "--format", "json", cwd=repo))
    assert tip == sorted(ours + [("tool.removed", "export")])  # main's tip blames the branch for export
    base = rules(run("diff", "git:merge-base(main):baselines/acme.json", "server.json", "--format", "json",
                     cwd=repo))
    assert base == ours


def test_ci_baseline_at_the_merge_base(repo):
    def ci(at):
        done = subprocess.run([sys.executable, "-m", "mcpdelta", "ci", "--servers", "servers.yaml",
                               "--baseline", "baselines", "--baseline-at", at, "--markdown", "summary.md"],
                              cwd=repo, capture_output=True, text=True, timeout=120)
        assert "Traceback" not in done.stderr
        return done

    tip = ci("main")
    assert tip.returncode == 1 and "tool.removed" in tip.stdout
    base = ci("merge-base(main)")
    assert base.returncode == 1, base.stderr
    assert "tool.removed" not in base.stdout and "tool.input.type.changed" in base.stdout
    assert "== acme: git:merge-base(main):baselines/acme.json -> live:acme" in base.stdout


@pytest.mark.parametrize("side, problem", [
    ("git:merge-base(nope):baselines/acme.json", "unknown revision 'nope'"),
    ("git:merge-base(orphan):baselines/acme.json", "HEAD and 'orphan' have no merge base"),
])
def test_bad_merge_bases_are_one_line(repo, side, problem):
    git("checkout", "-q", "--orphan", "orphan", cwd=repo)
    commit(repo, "unrelated history")
    git("checkout", "-q", "feature", cwd=repo)
    done = run("diff", side, "server.json", cwd=repo)
    assert done.returncode == 2 and problem in done.stderr and done.stderr.count("\n") == 1


def test_ci_approves_reads_approvals_and_annotates_a_stale_one(repo):
    def ci(*extra):
        env = {"PATH": "/usr/bin:/bin", "HOME": str(repo), "GITHUB_ACTIONS": "true",
               "GITHUB_OUTPUT": str(repo / "output.txt")}
        (repo / "output.txt").write_text("")
        done = subprocess.run([sys.executable, "-m", "mcpdelta", "ci", "--servers", "servers.yaml",
                               "--baseline", "baselines", "--baseline-at", "merge-base(main)", *extra],
                              cwd=repo, capture_output=True, text=True, timeout=120, env=env)
        assert "Traceback" not in done.stderr
        return done, dict(line.split("=", 1) for line in (repo / "output.txt").read_text().splitlines())

    done, _ = ci("--approve", "--reason", "clients send text")
    assert done.returncode == 0 and "1 approval added to .mcpdelta-approvals.yml" in done.stderr
    done, out = ci()
    assert done.returncode == 0, done.stdout
    assert (out["verdict"], out["approved"], out["stale"], out["breaking"]) == ("pass", "1", "0", "1")
    assert "approved: clients send text" in done.stdout
    with open(repo / ".mcpdelta-approvals.yml", "a") as handle:
        handle.write("  - {fingerprint: 0123456789abcdef, server: acme, rule: tool.removed, entity: export,"
                     " reason: merged later}\n")
    done, out = ci()
    assert done.returncode == 0 and out["stale"] == "1"
    line = len((repo / ".mcpdelta-approvals.yml").read_text().splitlines())
    assert f"::warning file=.mcpdelta-approvals.yml,line={line},title=stale approval::0123456789abcdef " \
           "(tool.removed export) matches no change; delete it" in done.stdout
