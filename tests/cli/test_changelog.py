"""``--format changelog``: release notes of the server-everything step that
changed most (2025.12.18 -> 2026.1.14, well over a hundred changes),
grouped by severity then entity, approved breaks listed with their reasons."""

import json
import re

import pytest
import yaml

from tests.conftest import ROOT

STEP = ROOT / "data" / "samples" / "reference" / "server-everything"
OLD, NEW = STEP / "2025.12.18.json", STEP / "2026.1.14.json"
TITLES = {"BREAKING": "Breaking changes", "POTENTIALLY_BREAKING": "Potentially breaking changes",
          "NON_BREAKING": "Additions and other compatible changes", "DOCUMENTATION": "Documentation"}
REASON = "the static test resources moved to demo://resource/static"


@pytest.fixture(scope="module")
def step(tmp_path_factory, mcpdelta):
    """The step's JSON diff, and its changelog with every resource.removed approved."""
    folder = tmp_path_factory.mktemp("changelog")
    doc = json.loads(mcpdelta("diff", OLD, NEW, "--format", "json", cwd=folder).stdout)
    approve = mcpdelta("diff", OLD, NEW, "--approve", "--reason", REASON, cwd=folder)
    assert approve.returncode == 0, approve.stderr
    path = folder / ".mcpdelta-approvals.yml"
    entries = yaml.safe_load(path.read_text())["approvals"]
    kept = [e for e in entries if e["rule"] == "resource.removed"]
    path.write_text(yaml.safe_dump({"version": 1, "approvals": kept}))
    done = mcpdelta("diff", OLD, NEW, "--format", "changelog", cwd=folder)
    return doc, done, len(kept)


def sections(text) -> dict:
    """{title: [bullet lines]} of the changelog."""
    out, current = {}, None
    for line in text.splitlines():
        if line.startswith("### "):
            current = out.setdefault(line[4:], [])
        elif current is not None and line.startswith(("- ", "  - ")):
            current.append(line)
    return out


def covered(lines) -> int:
    """How many changes the bullets of one section stand for: a nested
    bullet one, an entity's own line one unless bullets follow it, a run
    of entities ("- 100 resources (...)") its count."""
    n = 0
    for i, line in enumerate(lines):
        if line.startswith("  - "):
            n += 1
            continue
        run = re.match(r"- (\d+) \w[\w ]*? \(", line)
        if run:
            n += int(run.group(1))
        elif not (i + 1 < len(lines) and lines[i + 1].startswith("  - ")):
            n += 1
    return n


def test_the_changelog_holds_every_change_by_severity_then_entity(step):
    doc, done, approved = step
    assert done.returncode == 1  # the rest of the breaks still fail the build
    text = done.stdout
    assert text.startswith("## mcp-servers/everything 1.0.0 → 2.0.0\n")
    assert len(doc["changes"]) > 150
    found = sections(text)
    wanted = [TITLES[s] for s in TITLES if doc["summary"][s]]
    assert list(found) == wanted  # most severe first, empty severities left out
    for severity, title in TITLES.items():
        assert covered(found.get(title, [])) == doc["summary"][severity], title
    # grouped by entity: an entity has one bullet per section
    for title, lines in found.items():
        labels = [re.match(r"- (server|\d+ [\w ]+ \(.*?\)|[a-z][a-z ]* `[^`]*`)", line).group(1)
                  for line in lines if line.startswith("- ")]
        assert len(labels) == len(set(labels)), title
    assert f"{approved} approved" in text.splitlines()[2]


def test_approved_breaks_are_listed_with_their_reason(step):
    doc, done, approved = step
    breaking = sections(done.stdout)[TITLES["BREAKING"]]
    removed = [line for line in breaking if "`resource.removed`" in line]
    assert approved == sum(1 for c in doc["changes"] if c["rule"] == "resource.removed") > 50
    assert removed and all(line.endswith(f"*approved: {REASON}*") for line in removed)
    others = [line for line in breaking if "`resource.removed`" not in line]
    assert others and not any("approved" in line for line in others)
