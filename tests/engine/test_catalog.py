"""The catalog: complete, declared once, documented from one source."""

import json
import pathlib
import re

from mcpdelta.engine.catalog import PROSE, RULES, SEVERITIES
from mcpdelta.report.rules_doc import rules_markdown

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT.parent / "shared" / "spec" / "rule-reference.md"

# The 102 ids of the rule reference, written out so the test does not depend
# on the spec folder being present.
SPEC_IDS = """
server.capability.added server.capability.changed server.capability.removed
server.extension.added server.extension.changed server.extension.removed
server.identity.changed server.instructions.changed server.protocolVersion.changed
server.surface.scopeNarrowed server.version.added server.version.dropped
tool.added tool.annotations.added tool.annotations.changed tool.annotations.removed
tool.annotations.safetyWeakened tool.description.changed tool.icons.changed tool.meta.changed
tool.removed tool.renamed tool.title.changed tool.ui.resourceUri.added
tool.ui.resourceUri.changed tool.ui.resourceUri.removed tool.ui.visibility.narrowed
tool.ui.visibility.widened
resourceTemplate.added resourceTemplate.annotations.changed resourceTemplate.description.changed
resourceTemplate.meta.changed resourceTemplate.mimeType.changed resourceTemplate.name.changed
resourceTemplate.removed resourceTemplate.title.changed
resource.added resource.annotations.changed resource.description.changed resource.meta.changed
resource.mimeType.changed resource.name.changed resource.removed resource.title.changed
resource.ui.csp.narrowed resource.ui.csp.widened resource.ui.domain.changed
resource.ui.permissions.added resource.ui.permissions.removed resource.ui.widgetDescription.changed
prompt.added prompt.argument.added prompt.argument.addedRequired prompt.argument.description.changed
prompt.argument.nowOptional prompt.argument.nowRequired prompt.argument.removed
prompt.description.changed prompt.removed prompt.title.changed
""".split()
SCHEMA_SUFFIXES = """added constraint.changed constraint.loosened constraint.tightened default.changed
deprecated.added deprecated.removed description.changed enum.narrowed enum.widened header.changed
property.added property.addedRequired property.removed removed required.added required.removed
schema.changed type.changed type.narrowed type.widened""".split()
SPEC_IDS += [f"tool.{side}.{s}" for side in ("input", "output") for s in SCHEMA_SUFFIXES]


def test_every_rule_of_the_rule_reference_is_in_the_catalog():
    assert len(SPEC_IDS) == 102
    assert set(SPEC_IDS) <= set(RULES)


def test_spec_file_ids_match_when_the_spec_is_present():
    if SPEC.exists():
        ids = re.findall(r"^### ([\w.]+)$", SPEC.read_text(), re.M)
        assert sorted(ids) == sorted(SPEC_IDS)


def test_additions_beyond_the_reference():
    extra = set(RULES) - set(SPEC_IDS)
    assert {"server.manifest.truncated", "tool.input.dialect.changed",
            "tool.output.dialect.changed"} <= extra
    assert RULES["server.manifest.truncated"].severity == "BREAKING"
    assert RULES["tool.input.dialect.changed"].severity == "NON_BREAKING"


def test_every_rule_has_a_severity_summary_note_and_message():
    for rule in RULES.values():
        assert rule.severity in SEVERITIES + (PROSE,), rule.id
        assert rule.summary and rule.note and rule.message, rule.id
        assert rule.id.startswith(rule.category + "."), rule.id


def test_variance_inverts_the_schema_severities():
    pairs = {"type.widened": ("NON_BREAKING", "BREAKING"), "type.narrowed": ("BREAKING", "NON_BREAKING"),
             "enum.widened": ("NON_BREAKING", "BREAKING"), "enum.narrowed": ("BREAKING", "NON_BREAKING"),
             "constraint.loosened": ("NON_BREAKING", "BREAKING"),
             "constraint.tightened": ("BREAKING", "NON_BREAKING"),
             "required.added": ("BREAKING", "NON_BREAKING"), "required.removed": ("NON_BREAKING", "BREAKING"),
             "property.addedRequired": ("BREAKING", "NON_BREAKING")}
    for suffix, (inp, out) in pairs.items():
        assert RULES[f"tool.input.{suffix}"].severity == inp
        assert RULES[f"tool.output.{suffix}"].severity == out


def test_the_known_slips_of_the_reference_are_not_copied():
    assert "inputSchema" in RULES["tool.input.added"].summary
    assert "inputSchema" in RULES["tool.input.removed"].summary
    assert "outputSchema" not in RULES["tool.input.added"].summary + RULES["tool.input.removed"].summary
    assert "old bound excluded can now arrive" in RULES["tool.output.constraint.loosened"].note
    # an output note never talks about input being rejected or calls omitting arguments
    for rule in RULES.values():
        if rule.id.startswith("tool.output."):
            assert "Input that was valid" not in rule.note, rule.id
            assert "calls that omit" not in rule.note, rule.id
            assert "Callers passing" not in rule.note, rule.id
        if rule.id.startswith("tool.input.") and rule.severity == "NON_BREAKING":
            assert "Consumers" not in rule.note, rule.id


def test_rules_json_lists_the_live_catalog(mcpdelta):
    result = mcpdelta("rules", "--format", "json")
    assert result.returncode == 0
    rules = json.loads(result.stdout)
    assert [r["id"] for r in rules] == list(RULES)
    for entry in rules:
        assert {"id", "severity", "category", "summary", "note"} <= set(entry)
    prose = next(r for r in rules if r["id"] == "tool.description.changed")
    assert prose["classified"] is True
    assert prose["severities"] == ["DOCUMENTATION", "POTENTIALLY_BREAKING"]


def test_docs_rules_md_is_current():
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == rules_markdown(), "regenerate: mcpdelta rules --format markdown > docs/rules.md"


def test_no_other_module_spells_a_default_severity_for_a_rule():
    """The catalog is the one place a rule id meets its severity."""
    pattern = re.compile(r'"(tool|server|prompt|resource|resourceTemplate)\.[\w.]+"\s*:\s*"(BREAKING|POTENTIALLY_BREAKING|NON_BREAKING|DOCUMENTATION)"')
    for path in (ROOT / "mcpdelta").rglob("*.py"):
        if path.name != "catalog.py":
            assert not pattern.search(path.read_text()), path
