"""JUnit XML: one test case per entity, a failure per change at or above the
failure threshold, other changes as system-out. Every value passes through
``visible``: XML 1.0 cannot carry most control characters at all."""

import xml.etree.ElementTree as ET

from mcpdelta.gate.verdict import of, security_notes
from mcpdelta.report import groups
from mcpdelta.report.view import approval_text, kind_of
from mcpdelta.safe import visible as v


def _notes(gate, c) -> str:
    """The approval and the judges' security flags of a change, as text after it."""
    out = ""
    if gate.mark(c) is not None:
        out += f" ({approval_text(gate.mark(c))})"
    for note in security_notes(c):
        out += f" (judge, security-relevant: {note.get('summary', '')})"
    return out


def render(result, **_) -> str:
    suites = ET.Element("testsuites", name="mcpdelta")
    suite = ET.SubElement(suites, "testsuite", name=v(f"mcpdelta {result.old_source} -> {result.new_source}"))
    tests = failures = 0
    gate = of(result)
    for entity, changes in groups(result):
        tests += 1
        kind = kind_of(changes[0].path)
        case = ET.SubElement(suite, "testcase", classname=f"mcpdelta.{kind.replace(' ', '_')}",
                             name=v(entity) if entity is not None else "server", time="0")
        failing = [c for c in changes if gate.fails(result.policy, c)]
        for c in failing:
            failure = ET.SubElement(case, "failure", message=v(f"{c.rule}: {c.message}{_notes(gate, c)}"),
                                    type=c.severity)
            failure.text = f"{v(c.path)}\n{c.note}"
        failures += bool(failing)
        others = [c for c in changes if c not in failing]
        if others:
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(
                v(f"{'suppressed' if c.suppressed else c.severity} {c.rule} {c.path}: {c.message}{_notes(gate, c)}")
                for c in others)
    for node in (suites, suite):
        node.set("tests", str(tests))
        node.set("failures", str(failures))
        node.set("errors", "0")
    suite.set("skipped", "0")
    suite.set("time", "0")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
