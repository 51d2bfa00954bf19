"""The lockfile: the worked example, ``mcpdelta lock``, and reading one back."""

import hashlib
import json
import shutil

import pytest
import yaml

from mcpdelta.contract import jcs
from mcpdelta.gate.lockfile import bump_of, parse_semver

from .conftest import EXAMPLE, manifest, write_json

FIELDS = ("name", "description", "inputSchema", "outputSchema", "annotations")


def expected_digest(tool):
    projection = {k: tool[k] for k in FIELDS if k in tool}  # written out here, on purpose
    return "mcp-contract-v2-sha256:" + hashlib.sha256(b"mcp-contract-v2-sha256\x00" + jcs(projection)).hexdigest()


def load_yaml(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


# --- the worked example --------------------------------------------------------------

def test_worked_example_digests_are_the_ones_the_recipe_computes():
    tools = {t["name"]: t for t in json.loads((EXAMPLE / "manifest.json").read_text(encoding="utf-8"))["tools"]}
    lock = load_yaml(EXAMPLE / "tool-versions.lock.yaml")
    assert lock["version"] == 1 and lock["generated_for"] == "acme-notes"
    assert set(lock["tools"]) == set(tools)
    for name, entry in lock["tools"].items():
        assert entry["contract_digest"] == expected_digest(tools[name]), name
        assert entry["contract"] == {k: tools[name][k] for k in FIELDS if k in tools[name]}
        # and the embedded contract, read back from YAML, hashes to the pin
        assert expected_digest(entry["contract"]) == entry["contract_digest"]


def test_worked_example_is_what_lock_writes(cli, tmp_path):
    """Regenerating from the example manifest and its own lockfile (semvers
    carry over) reproduces the committed file byte for byte."""
    shutil.copy(EXAMPLE / "manifest.json", tmp_path / "manifest.json")
    shutil.copy(EXAMPLE / "tool-versions.lock.yaml", tmp_path / "tool-versions.lock.yaml")
    run = cli("lock", "manifest.json", "-o", "tool-versions.lock.yaml")
    assert run.code == 0, run.err
    assert (tmp_path / "tool-versions.lock.yaml").read_bytes() == (EXAMPLE / "tool-versions.lock.yaml").read_bytes()


def test_worked_example_verifies_clean(cli):
    run = cli("verify-lock", EXAMPLE / "manifest.json", "--lock", EXAMPLE / "tool-versions.lock.yaml")
    assert run.code == 0, run.out + run.err
    assert "no drift" in run.out


# --- mcpdelta lock ------------------------------------------------------------------------

A = {"name": "alpha", "description": "A.", "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}}}
B = {"name": "beta", "title": "Beta", "description": "B.", "annotations": {"readOnlyHint": True}}


def test_lock_writes_the_gateway_layout(cli, tmp_path):
    write_json(tmp_path / "m.json", manifest(B, A, name="acme"))
    run = cli("lock", "m.json", "-o", "out.yaml")
    assert run.code == 0, run.err
    doc = load_yaml(tmp_path / "out.yaml")
    assert list(doc) == ["version", "generated_for", "tools"]
    assert doc["version"] == 1 and doc["generated_for"] == "acme"
    assert list(doc["tools"]) == ["alpha", "beta"]
    assert doc["tools"]["beta"] == {
        "semver": "1.0.0", "contract_digest": expected_digest(B),
        "contract": {"name": "beta", "description": "B.", "annotations": {"readOnlyHint": True}}}


def test_lock_is_deterministic_over_key_and_tool_order(cli, tmp_path):
    write_json(tmp_path / "one.json", manifest(A, B))
    shuffled = [{k: t[k] for k in reversed(list(t))} for t in (B, A)]
    write_json(tmp_path / "two.json", {"tools": shuffled, "serverInfo": {"version": "1.0.0", "name": "acme"}})
    assert cli("lock", "one.json", "-o", "1.yaml").code == 0
    assert cli("lock", "two.json", "-o", "2.yaml").code == 0
    assert (tmp_path / "1.yaml").read_bytes() == (tmp_path / "2.yaml").read_bytes()
    again = cli("lock", "one.json")  # to stdout
    assert again.out == (tmp_path / "1.yaml").read_text(encoding="utf-8")


def test_semver_sources_declared_then_lockfile_then_default(cli, tmp_path):
    write_json(tmp_path / "m.json", manifest(A, B))
    assert cli("lock", "m.json", "-o", "l.yaml", "--declared", "alpha=2.3.4").code == 0
    assert {n: e["semver"] for n, e in load_yaml(tmp_path / "l.yaml")["tools"].items()} == \
        {"alpha": "2.3.4", "beta": "1.0.0"}
    # regenerate: the existing lockfile's semvers carry over; --declared wins
    assert cli("lock", "m.json", "-o", "l.yaml", "--declared", "beta=1.1.0").code == 0
    assert {n: e["semver"] for n, e in load_yaml(tmp_path / "l.yaml")["tools"].items()} == \
        {"alpha": "2.3.4", "beta": "1.1.0"}
    # an explicit --lock source, and a versions file
    (tmp_path / "versions.yaml").write_text("declared_versions:\n  alpha: 3.0.0\n")
    run = cli("lock", "m.json", "--lock", "l.yaml", "--versions", "versions.yaml", "--format", "json")
    assert run.code == 0, run.err
    assert {n: e["semver"] for n, e in run.json()["tools"].items()} == {"alpha": "3.0.0", "beta": "1.1.0"}


def test_lock_no_contract_and_json_summary(cli, tmp_path):
    write_json(tmp_path / "m.json", manifest(A))
    run = cli("lock", "m.json", "-o", "l.yaml", "--no-contract", "--format", "json")
    assert run.code == 0, run.err
    assert run.json() == {"lockfile": "l.yaml", "generated_for": "acme",
                          "tools": {"alpha": {"semver": "1.0.0", "contract_digest": expected_digest(A)}}}
    assert load_yaml(tmp_path / "l.yaml")["tools"]["alpha"] == {"semver": "1.0.0", "contract_digest": expected_digest(A)}


def test_generated_for_falls_back_to_the_file_name(cli, tmp_path):
    write_json(tmp_path / "notes-server.json", {"tools": [A]})
    run = cli("lock", "notes-server.json", "--format", "json")
    assert run.json()["generated_for"] == "notes-server"


@pytest.mark.parametrize("args,needle", [
    (["--declared", "alpha"], "NAME=VERSION"),
    (["--declared", "alpha=1.0"], "not a semantic version"),
    (["--declared", "gamma=1.0.0"], "gamma"),
    (["--versions", "nope.yaml"], "nope.yaml"),
])
def test_lock_bad_arguments_exit_2_with_one_line(cli, tmp_path, args, needle):
    write_json(tmp_path / "m.json", manifest(A))
    run = cli("lock", "m.json", *args)
    assert run.code == 2
    assert needle in run.err and run.err.count("\n") == 1
    assert run.out == ""


def test_lock_refuses_an_unreadable_manifest(cli, tmp_path):
    (tmp_path / "m.json").write_text("{not json")
    run = cli("lock", "m.json", "-o", "l.yaml")
    assert run.code == 2 and "m.json" in run.err
    assert not (tmp_path / "l.yaml").exists()


# --- reading a lockfile back ----------------------------------------------------------------

GOOD = expected_digest(A)


@pytest.mark.parametrize("text,needle", [
    ("version: 2\ntools: {}\n", "unsupported lockfile version"),
    ("- a\n- b\n", "mapping"),
    ("version: 1\ntools: [a]\n", "'tools' must be a mapping"),
    ("version: 1\ntools:\n  alpha: {semver: 1.0, contract_digest: x}\n", "tools.alpha.semver"),
    ("version: 1\ntools:\n  alpha: {semver: 1.0.0}\n", "contract_digest is missing"),
    ("version: 1\ntools:\n  alpha: {semver: 1.0.0, contract_digest: 'sha256:abc'}\n", "not sha256:<64 hex>"),
    (f"version: 1\ntools:\n  alpha: {{semver: 1.0.0, contract_digest: '{GOOD}',"
     " contract: {name: alpha, description: Tampered.}}\n", "does not hash to its contract_digest"),
    ("version: 1\ntools: {a: [unclosed\n", "not valid YAML"),
])
def test_bad_lockfiles_are_one_line_exit_3(cli, tmp_path, text, needle):
    write_json(tmp_path / "m.json", manifest(A))
    (tmp_path / "l.yaml").write_text(text)
    run = cli("verify-lock", "m.json", "--lock", "l.yaml")
    assert run.code == 2, run.out + run.err
    assert needle in run.err and "l.yaml" in run.err and run.err.count("\n") == 1
    lint = cli("lint-bump", "m.json", "--lock", "l.yaml")
    assert lint.code == 2 and needle in lint.err


def test_missing_lockfile_and_missing_manifest_exit_3(cli, tmp_path):
    write_json(tmp_path / "m.json", manifest(A))
    run = cli("verify-lock", "m.json", "--lock", "absent.yaml")
    assert run.code == 2 and "absent.yaml" in run.err
    assert cli("lock", "m.json", "-o", "l.yaml").code == 0
    run = cli("verify-lock", "gone.json", "--lock", "l.yaml")
    assert run.code == 2 and "gone.json" in run.err


# --- semver -----------------------------------------------------------------------

@pytest.mark.parametrize("prior,declared,bump", [
    ("1.2.3", "2.0.0", "major"), ("1.2.3", "1.3.0", "minor"), ("1.2.3", "1.2.4", "patch"),
    ("1.2.3", "1.2.3", "none"), ("1.2.3", "1.2.2", "downgrade"), ("2.0.0", "1.9.9", "downgrade"),
    ("1.2.3", "3.0.0", "major"), ("1.2.3", "1.2.3+build.7", "none"),
    ("0.3.1", "0.4.0", "major"), ("0.3.1", "0.3.2", "minor"), ("0.3.1", "1.0.0", "major"),
])
def test_bump_of(prior, declared, bump):
    assert bump_of(prior, declared) == bump


@pytest.mark.parametrize("text", ["1.0", "v1.0.0", "01.0.0", "1.0.0.0", "", None, 1])
def test_parse_semver_rejects(text):
    from mcpdelta.errors import InputError
    with pytest.raises(InputError):
        parse_semver(text, "x")


# --- YAML keeps every contract exact ------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from mcpdelta.gate.lockfile import build_lockfile, dump_lockfile, parse_lockfile  # noqa: E402

_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=10)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | _text
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(_text, kids, max_size=3), max_leaves=15)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), min_size=1, max_size=8), _text, _values)
def test_embedded_contracts_survive_the_yaml_round_trip(name, description, schema):
    tool = {"name": name, "description": description, "inputSchema": {"type": "object", "x": schema}}
    doc = build_lockfile({"tools": [tool]}, "srv", {})
    back = parse_lockfile(yaml.safe_load(dump_lockfile(doc)), "round-trip")  # checks contract vs digest
    entry = back.tools[name]
    assert entry.digest == expected_digest(tool)
    assert expected_digest(entry.contract) == entry.digest
