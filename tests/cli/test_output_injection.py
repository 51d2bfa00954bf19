"""A hostile tool name through every format of ``mcpdelta diff``: a terminal
escape, a bidi override, a character XML cannot hold and a newline followed
by a GitHub workflow command. No format may carry a raw control character,
JUnit stays valid XML, and no line a value wrote starts with ``::``."""

import json
import pathlib
import xml.etree.ElementTree as ET

import jsonschema
import pytest
import xmlschema

SCHEMAS = pathlib.Path(__file__).resolve().parent.parent / "schemas"
EVIL = "evil\x1b[31m\x07\u202e\x0b\n::error file=ci.yml,title=owned::injected"
RAW = ("\x1b", "\x07", "\u202e", "\x0b")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    old = {"tools": [{"name": EVIL, "description": "Reads.\n::warning::x",
                      "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
                     {"name": "plain", "description": "Plain."}]}
    new = {"tools": [{"name": EVIL, "description": "Reads\x1b[2J and writes.\n::warning::x",
                      "inputSchema": {"type": "object", "properties": {}}}]}
    (folder / "old.json").write_text(json.dumps(old))
    (folder / "new.json").write_text(json.dumps(new))
    return folder


FORMATS = ("text", "json", "markdown", "sarif", "github", "junit")


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_raw_control_character_and_no_injected_command(mcpdelta, pair, fmt):
    result = mcpdelta("diff", "old.json", "new.json", "--format", fmt, cwd=pair)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    for char in RAW:
        assert char not in out, (fmt, repr(char))
    lines = out.split("\n")
    commands = [l for l in lines if l.lstrip().startswith("::")]
    if fmt == "github":
        # only the annotations the format writes, each whole on its line
        assert commands and all(l.startswith(("::error file=new.json,", "::warning file=new.json,",
                                               "::notice file=new.json,")) for l in commands)
        assert not any("title=owned" in l.split("::")[1] for l in commands)
    else:
        assert commands == [], fmt
    assert "\\x1b" in out or "\\u001b" in out  # shown, not dropped


def test_json_and_sarif_keep_the_exact_name(mcpdelta, pair):
    doc = json.loads(mcpdelta("diff", "old.json", "new.json", "--format", "json", cwd=pair).stdout)
    assert EVIL in {c["entity"] for c in doc["changes"]}
    log = json.loads(mcpdelta("diff", "old.json", "new.json", "--format", "sarif", cwd=pair).stdout)
    jsonschema.validate(log, json.loads((SCHEMAS / "sarif-2.1.0.json").read_text()))
    names = {loc["name"] for r in log["runs"][0]["results"] for loc in r["locations"][0]["logicalLocations"]}
    assert EVIL in names


def test_junit_is_valid_xml_with_the_name_escaped(mcpdelta, pair):
    xml = mcpdelta("diff", "old.json", "new.json", "--format", "junit", cwd=pair).stdout
    root = ET.fromstring(xml)  # well-formed
    xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd")).validate(xml)
    names = {case.get("name") for case in root.iter("testcase")}
    assert "evil\\x1b[31m\\x07\\u202e\\x0b\\n::error file=ci.yml,title=owned::injected" in names


def test_a_lone_surrogate_and_xml_forbidden_characters_stay_valid(mcpdelta, tmp_path):
    (tmp_path / "old.json").write_text('{"tools": [{"name": "a\\ud800\\u0000\\uffff"}]}')
    (tmp_path / "new.json").write_text('{"tools": []}')
    xml = mcpdelta("diff", "old.json", "new.json", "--format", "junit", cwd=tmp_path).stdout
    xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd")).validate(xml)
    assert "a\\ud800\\x00\\uffff" in xml


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_delete_in_otherwise_plain_ascii_is_escaped_too(mcpdelta, tmp_path, fmt):
    """DEL is ASCII but a control character: text that is all ASCII does
    not get past the escaping on that account."""
    name = "rm\x7fname"
    old = {"tools": [{"name": name, "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
    new = {"tools": [{"name": name, "inputSchema": {"type": "object", "properties": {}}}]}
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    result = mcpdelta("diff", "old.json", "new.json", "--format", fmt, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "\x7f" not in result.stdout
    assert "\\x7f" in result.stdout or "\\u007f" in result.stdout or "&#127;" in result.stdout \
        or "&#x7f;" in result.stdout.lower(), fmt
