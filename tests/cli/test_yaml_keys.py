"""One YAML loader refuses a key twice in one mapping, naming the file, the
line and the key (YAML's own reading keeps the last silently); what YAML
means by other repetitions (an alias, a merge key and the keys it
overrides, one key in two mappings) stays accepted."""

import pytest

from mcpdelta.errors import InputError
from mcpdelta.inputs import load_yaml


@pytest.mark.parametrize("text, line, key", [
    ("a: 1\nb: 2\na: 3\n", 3, "a"),
    ("outer:\n  - {x: 1, y: 2, x: 3}\n", 2, "x"),
    ("flags: {yes: 1, true: 2}\n", 1, "true"),          # one boolean key, spelled twice
    ("1: a\n0x1: b\n", 2, "0x1"),                        # one integer key
    ("base: &b {k: 1}\nm:\n  <<: *b\n  <<: *b\n", 4, "<<"),
])
def test_a_key_twice_is_refused_with_its_line(text, line, key):
    with pytest.raises(InputError) as caught:
        load_yaml(text, "f.yml")
    assert str(caught.value).startswith(f"f.yml:{line}: duplicate key {key!r}")


def test_repetitions_yaml_allows_are_accepted():
    text = ("base: &b {k: 1, j: 2}\n"
            "merged:\n  <<: *b\n  k: 3\n"          # a merge key's keys may be overridden
            "again: *b\nonce_more: *b\n"            # one mapping, aliased twice: checked once
            "other: {k: 4}\n"                       # the same key in another mapping
            "'1': string\n1: integer\n")            # a string and an integer are two keys
    assert load_yaml(text, "f.yml") == {"base": {"k": 1, "j": 2}, "merged": {"k": 3, "j": 2},
                                        "again": {"k": 1, "j": 2}, "once_more": {"k": 1, "j": 2},
                                        "other": {"k": 4}, "1": "string", 1: "integer"}


def test_diff_names_the_approvals_file_line_and_key(tmp_path, mcpdelta):
    """An approval with ``expires`` twice: a reviewer sees the first, YAML kept the last."""
    manifest = tmp_path / "m.json"
    manifest.write_text('{"tools": []}')
    approvals = tmp_path / "approvals.yml"
    approvals.write_text("version: 1\napprovals:\n  - fingerprint: 0123456789abcdef\n    rule: tool.removed\n"
                         "    reason: moved\n    expires: 2000-01-01\n    expires: 2999-01-01\n")
    result = mcpdelta("diff", manifest, manifest, "--approvals", approvals)
    line, = result.stderr.strip().splitlines()
    assert result.returncode == 2
    assert f"{approvals}:7: duplicate key 'expires' (first at line 6)" in line
